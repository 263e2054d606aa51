"""The ``jaxgames`` command.

    jaxgames games                                   list the games
    jaxgames show GAME POSITION                      print a position, its moves and values
    jaxgames perft GAME [POSITION] DEPTH             count move sequences per ply
    jaxgames rollout GAME [FILE|-] --playouts N      random playouts from positions
    jaxgames solve GAME [POSITION]                   exact value and optimal moves

GAME is a name or a spec with parameters (``connect4:width=5,height=4``). Bad input gets
one line on stderr naming what and where, and exit status 2. When a positions file has bad
lines, they are reported and the good ones processed (exit status 1), unless ``--strict``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from jaxgames.game import CHANCE, Game, GameError
from jaxgames.positions import BadLine, read_positions
from jaxgames.registry import list_games, make
from jaxgames.search.levels import TooLarge


class UsageError(Exception):
    """Bad command-line usage: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def _game(spec: str) -> Game:
    return make(spec)


def _state(game: Game, position: str | None) -> Any:
    if position is None or position in ("-", "start"):
        return game.init()
    return game.parse(position)


def _mover(game: Game, state: Any) -> int:
    player = int(game.player(state))
    return player if 0 <= player < game.num_players and not bool(game.terminal(state)) else 0


def _player_name(game: Game, player: int) -> str:
    return "chance" if player == CHANCE else f"player {player}"


def _fmt_vector(v: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(x) + 0.0:.4g}" for x in v) + "]"  # + 0.0: no "-0"


# ---------------------------------------------------------------- commands
def cmd_games(args: argparse.Namespace) -> int:
    print(f"{'game':<14} {'players':>7} {'actions':>7} {'chance':>6}  description")
    for name in list_games():
        game = make(name)
        doc = (type(game).__doc__ or "").strip().splitlines()[0].replace("``", "")
        print(
            f"{name:<14} {game.num_players:>7} {game.num_actions:>7} "
            f"{game.num_chance_outcomes:>6}  {doc}"
        )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    game = _game(args.game)
    state = _state(game, args.position)
    print(game.format(state))
    terminal = bool(game.terminal(state))
    player = int(game.player(state))
    print(f"to move:  {'nobody (game over)' if terminal else _player_name(game, player)}")
    legal = np.flatnonzero(np.asarray(game.legal_mask(state)))
    moves = " ".join(game.action_to_string(state, int(a)) for a in legal)
    print(f"moves:    {moves if moves else '(none)'}")
    if terminal:
        print(f"utility:  {_fmt_vector(np.asarray(game.utility(state)))}")
    print(f"eval:     {_fmt_vector(np.asarray(game.evaluate(state)))}")
    if game.has_hash:
        key = np.asarray(game.hash(state)).astype(np.uint64)
        print(f"hash:     {int(key[0]) << 32 | int(key[1]):016x}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    from jaxgames.search import perft

    game = _game(args.game)
    if args.depth is None:  # `perft GAME DEPTH`: the position was the depth
        position, depth_text = None, args.position
    else:
        position, depth_text = args.position, args.depth
    try:
        depth = int(depth_text)
    except (TypeError, ValueError):
        raise UsageError(f"perft: depth must be a whole number, got {depth_text!r}") from None
    if depth < 1:
        raise UsageError(f"perft: depth must be >= 1, got {depth}")
    state = _state(game, position)
    result = perft(game, state, depth)
    print(f"{'ply':>4} {'sequences':>16}")
    for ply, count in enumerate(result.counts, start=1):
        print(f"{ply:>4} {count:>16,}")
    total = sum(result.counts)
    print(f"{total:,} sequences in {result.time_s:.2f} s ({total / result.time_s:,.0f}/s)")
    return 0


def cmd_rollout(args: argparse.Namespace) -> int:
    import jax

    from jaxgames.kernels import playouts, stack

    game = _game(args.game)
    if args.playouts < 1:
        raise UsageError(f"rollout: --playouts must be >= 1, got {args.playouts}")
    bad: list[BadLine] = []
    positions = list(read_positions(game, args.file, strict=args.strict, bad=bad))
    _report_bad(bad)
    if not positions:
        raise GameError("rollout: no valid positions to play from")
    states = stack([p.state for p in positions])
    key = jax.random.key(args.seed)
    t0 = time.perf_counter()
    result = jax.block_until_ready(playouts(game, states, args.playouts, key, args.max_steps))
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = jax.block_until_ready(
        playouts(game, states, args.playouts, jax.random.fold_in(key, 1), args.max_steps)
    )
    steady = time.perf_counter() - t0
    mean_utility = np.asarray(result.mean_utility)
    mean_length = np.asarray(result.mean_length)
    rows = []
    for i, pos in enumerate(positions):
        mover = _mover(game, pos.state)
        rows.append(
            {
                "position": pos.text,
                "to_move": mover,
                "value": float(mean_utility[i, mover]),
                "mean_utility": [float(x) for x in mean_utility[i]],
                "mean_length": float(mean_length[i]),
                "playouts": args.playouts,
            }
        )
    width = min(max(len(r["position"]) for r in rows), 44)
    print(f"{'position':<{width}} {'to move':>7} {'value':>8} {'length':>7}")
    for r in rows:
        text = r["position"] if len(r["position"]) <= width else r["position"][: width - 1] + "…"
        print(f"{text:<{width}} {r['to_move']:>7} {r['value']:>8.4f} {r['mean_length']:>7.2f}")
    total_playouts = len(positions) * args.playouts
    total_moves = int(np.asarray(result.lengths).sum())
    print(
        f"{total_playouts:,} playouts, {total_moves:,} moves in {steady:.3f} s: "
        f"{total_playouts / steady:,.0f} playouts/s, {total_moves / steady:,.0f} moves/s "
        f"(first call with compilation: {first:.2f} s; backend: {jax.default_backend()})"
    )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            for r in rows:
                out.write(json.dumps(r) + "\n")
    return 1 if bad else 0


def cmd_solve(args: argparse.Namespace) -> int:
    from jaxgames.search import solve

    game = _game(args.game)
    state = _state(game, args.position)
    result = solve(game, state, max_nodes=args.max_nodes)
    mover = _mover(game, state)
    value = float(result.value[mover]) + 0.0
    vector = _fmt_vector(result.value)
    print(f"value:    {value:+.4g} for {_player_name(game, mover)} (vector {vector})")
    if hasattr(game, "score_from_value"):
        print(f"score:    {game.score_from_value(value):+d}")
    names, s = [], state
    for action in result.pv:
        names.append(game.action_to_string(s, action))
        s = game.step(s, action)
    optimal = [game.action_to_string(state, a) for a in result.optimal_actions(mover)]
    print(f"optimal:  {' '.join(optimal) if optimal else '(none: game over)'}")
    print(f"pv:       {' '.join(names) if names else '(empty)'}")
    stats = result.stats
    print(f"nodes:    {stats['nodes']:,} distinct positions in {stats['time_s']:.2f} s")
    return 0


def _report_bad(bad: list[BadLine]) -> None:
    for line in bad:
        print(f"jaxgames: skipped {line.source}: {line.message}", file=sys.stderr)


# ---------------------------------------------------------------- entry point
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jaxgames", description="Batched game-tree evaluation in JAX.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("games", help="list the games")
    p.set_defaults(run=cmd_games)

    p = sub.add_parser("show", help="print a position, its legal moves and values")
    p.add_argument("game")
    p.add_argument("position", nargs="?")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("perft", help="count move sequences per ply")
    p.add_argument("game")
    p.add_argument("position", help="a position, or the depth when no position is given")
    p.add_argument("depth", nargs="?")
    p.set_defaults(run=cmd_perft)

    p = sub.add_parser("rollout", help="random playouts from positions")
    p.add_argument("game")
    p.add_argument("file", nargs="?", help="positions, one a line ('-': stdin; none: sample)")
    p.add_argument("--playouts", type=int, default=1000, help="playouts per position")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=None, help="bound on a playout's length")
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.add_argument("--out", help="write one JSON row per position to this file")
    p.set_defaults(run=cmd_rollout)

    p = sub.add_parser("solve", help="exact value and optimal moves by full search")
    p.add_argument("game")
    p.add_argument("position", nargs="?")
    p.add_argument("--max-nodes", type=int, default=50_000_000)
    p.set_defaults(run=cmd_solve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except (UsageError, GameError, TooLarge, ValueError) as err:
        if os.environ.get("JAXGAMES_DEBUG"):
            raise
        print(f"jaxgames: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("jaxgames: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
