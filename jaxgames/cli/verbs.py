"""The verbs of the ``jaxgames`` command but ``evaluate``: games, show, perft, rollout, solve
and bench. Each checks its arguments, runs the library and prints."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from jaxgames import progress
from jaxgames.capabilities import Enumeration, Hashing, Scoring, SolutionSummary
from jaxgames.cli.common import UsageError, nothing_valid, positive, report_bad, shown
from jaxgames.game import CHANCE, Game, GameError
from jaxgames.positions import BadLine, check_file, read_positions
from jaxgames.registry import list_games, make
from jaxgames.search.levels import TooLarge


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


def cmd_games(args: argparse.Namespace) -> int:
    width = max(len(name) for name in list_games()) + 2
    print(f"{'game':<{width}}{'players':>7} {'actions':>8} {'chance':>6}  description")
    for name in list_games():
        game = make(name)
        doc = (type(game).__doc__ or "").strip().splitlines()[0].replace("``", "")
        print(
            f"{name:<{width}}{game.num_players:>7} {game.num_actions:>8,} "
            f"{game.num_chance_outcomes:>6}  {doc}"
        )
    return 0


def _show_values(game: Game) -> Any:
    """One jitted function computing everything ``show`` prints of a state: the state, then
    the player, the terminal test, the legal mask, the chance probabilities (games with
    chance), the utility, EVAL and the hash (games with
    :class:`~jaxgames.capabilities.Hashing`). One program to compile, kept by the
    persistent compilation cache, instead of a small compilation for every operation of
    every function run eagerly."""
    import jax

    def values(state: Any) -> tuple[Any, dict[str, Any]]:
        out = {
            "player": game.player(state),
            "terminal": game.terminal(state),
            "legal": game.legal_mask(state),
            "utility": game.utility(state),
            "eval": game.evaluate(state),
        }
        if game.num_chance_outcomes:
            out["chance"] = game.chance_probs(state)
        if isinstance(game, Hashing):
            out["hash"] = game.hash(state)
        return state, out

    return jax.jit(values)


def cmd_show(args: argparse.Namespace) -> int:
    import jax

    game = make(args.game)
    state, values = _show_values(game)(_state(game, args.position))
    values = jax.device_get(values)  # one transfer
    print(game.format(state))
    terminal = bool(values["terminal"])
    player = int(values["player"])
    print(f"to move:  {'nobody (game over)' if terminal else _player_name(game, player)}")
    if player == CHANCE and not terminal:  # the outcomes and their probabilities
        probs = np.asarray(values["chance"])
        moves = " ".join(
            f"{game.action_to_string(state, int(r))}:{probs[r]:.4g}" for r in np.flatnonzero(probs)
        )
        print(f"outcomes: {moves}")
    else:
        legal = np.flatnonzero(np.asarray(values["legal"]))
        names = [game.action_to_string(state, int(a)) for a in legal]
        moves = (", " if any(" " in n for n in names) else " ").join(names)  # "8/5 6/5"
        print(f"moves:    {moves if moves else '(none)'}")
    if terminal:
        print(f"utility:  {_fmt_vector(np.asarray(values['utility']))}")
    print(f"eval:     {_fmt_vector(np.asarray(values['eval']))}")
    if "hash" in values:
        key = np.asarray(values["hash"]).astype(np.uint64)
        print(f"hash:     {int(key[0]) << 32 | int(key[1]):016x}")
    if args.position is None:  # what else `show` reads
        print("formats:")
        for what, example in game.position_formats:
            print(f"  {what}\n      e.g. {example}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    from jaxgames.search import perft

    game = make(args.game)
    if args.depth is None:  # `perft GAME DEPTH`: the position was the depth
        position, depth_text = None, args.position
    else:
        position, depth_text = args.position, args.depth
    try:
        depth = int(depth_text)
    except (TypeError, ValueError):
        raise UsageError(f"perft: depth must be a whole number, got {depth_text!r}") from None
    positive(depth, "depth", "perft")
    state = _state(game, position)
    with progress.status_line(shown(args)):
        result = perft(game, state, depth, turns=args.turns)
    plies = len(result.counts)
    while plies and result.counts[plies - 1] == 0:  # the game is over everywhere by then
        plies -= 1
    print(f"{'ply':>4} {'sequences':>16}")
    for ply, count in enumerate(result.counts[:plies], start=1):
        print(f"{ply:>4} {count:>16,}")
    if plies < depth:
        print(f"every game has ended by ply {plies}: no sequence is longer")
    total = sum(result.counts)
    print(f"{total:,} sequences in {result.time_s:.2f} s ({total / result.time_s:,.0f}/s)")
    return 0


def cmd_rollout(args: argparse.Namespace) -> int:
    import jax

    from jaxgames.bulk.output import check_writable, jsonl, write_atomically
    from jaxgames.kernels import playout_means, stack

    game = make(args.game)
    positive(args.playouts, "--playouts", "rollout")
    if args.max_steps is not None:
        positive(args.max_steps, "--max-steps", "rollout")
    if args.out:
        check_writable(args.out)
    check_file(args.file)
    bad: list[BadLine] = []
    positions = list(read_positions(game, args.file, strict=args.strict, bad=bad))
    if not positions:
        raise GameError(nothing_valid("rollout: no valid positions to play from", bad))
    report_bad(bad)
    states = stack([p.state for p in positions])
    with progress.status_line(shown(args)):
        result = playout_means(
            game, states, args.playouts, jax.random.key(args.seed), args.max_steps
        )
    rows = []
    for i, pos in enumerate(positions):
        mover = _mover(game, pos.state)
        rows.append(
            {
                "position": pos.text,
                "label": pos.label,
                "to_move": mover,
                "value": float(result.mean_utility[i, mover]),
                "mean_utility": [float(x) for x in result.mean_utility[i]],
                "mean_length": float(result.mean_length[i]),
                "playouts": args.playouts,
            }
        )
    if args.out:
        write_atomically(args.out, jsonl(rows))
    width = min(max(len(r["position"]) for r in rows), 44)
    print(f"{'position':<{width}} {'to move':>7} {'value':>8} {'length':>7}")
    for r in rows:
        text = r["position"] if len(r["position"]) <= width else r["position"][: width - 1] + "…"
        print(f"{text:<{width}} {r['to_move']:>7} {r['value']:>8.4f} {r['mean_length']:>7.2f}")
    total_playouts = len(positions) * args.playouts
    seconds = max(result.run_s, 1e-9)
    print(
        f"{total_playouts:,} playouts, {result.total_length:,} moves in {result.run_s:.3f} s: "
        f"{total_playouts / seconds:,.0f} playouts/s, {result.total_length / seconds:,.0f} "
        f"moves/s (compilation {result.compile_s:.2f} s; backend: {jax.default_backend()})"
    )
    if result.truncated:
        print(f"{result.truncated:,} playouts stopped at --max-steps and were scored by EVAL")
    return 1 if bad else 0


def cmd_solve(args: argparse.Namespace) -> int:
    from jaxgames.search import solve

    game = make(args.game)
    positive(args.max_nodes, "--max-nodes", "solve")
    state = _state(game, args.position)
    if isinstance(game, Enumeration) and game.num_states:  # value iteration, cycles and all
        return _solve_by_value_iteration(game, state, args)
    try:
        with progress.status_line(shown(args)):
            result = solve(game, state, max_nodes=args.max_nodes)
    except TooLarge as err:
        raise GameError(
            f"solve: {game.spec} has more than --max-nodes {err.limit:,} distinct positions "
            f"by ply {err.ply}; raise --max-nodes (memory grows with it)"
        ) from None
    mover = _mover(game, state)
    value = float(result.value[mover]) + 0.0
    vector = _fmt_vector(result.value)
    print(f"value:    {value:+.4g} for {_player_name(game, mover)} (vector {vector})")
    if isinstance(game, Scoring):
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


def _solve_by_value_iteration(game: Game, state: Any, args: argparse.Namespace) -> int:
    """``solve`` for games that enumerate their states: value iteration over all of them."""
    from jaxgames.search import value_iteration

    if game.num_states > args.max_nodes:
        raise GameError(
            f"solve: {game.spec} has {game.num_states:,} states, more than --max-nodes "
            f"{args.max_nodes:,}; raise --max-nodes"
        )
    with progress.status_line(shown(args)), progress.phase("value iteration"):
        result = value_iteration(game)
    mover = _mover(game, state)
    vector = result.value(state)
    print(f"value:    {float(vector[mover]) + 0.0:+.8f} for {_player_name(game, mover)}")
    best = result.best_action(state)
    where = "game over" if bool(game.terminal(state)) else "chance node"
    print(f"optimal:  {game.action_to_string(state, best) if best >= 0 else f'(none: {where})'}")
    if isinstance(game, SolutionSummary):
        for line in game.solution_summary(result):
            print(line)
    print(
        f"solved:   {game.num_states:,} states by value iteration: {result.sweeps} sweeps, "
        f"residual {result.residual:.1e}{'' if result.converged else ' (not converged)'}, "
        f"{result.time_s:.2f} s"
    )
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Throughput of every kernel per game, backend and batch size (:mod:`jaxgames.bench`).

    Exit status 1 when a game or a row was skipped (each reported in one line), else 0.
    """
    from jaxgames import bench

    if args.out:
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            raise UsageError(f"bench: --out {args.out} is a file; give a directory")
        parent = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(parent):
            raise UsageError(f"bench: --out {args.out}: the folder {parent} does not exist")
    config = bench.BenchConfig(
        quick=args.quick,
        games=args.games,
        workloads=args.workloads or bench.WORKLOADS,
        batches=args.batches,
        backends=args.backends,
        repeats=args.repeats,
        out_dir=args.out or bench.DEFAULT_OUT,
        peers=not args.no_peers,
        seed=args.seed,
        command=" ".join(["jaxgames", *args.argv]),
    )
    with progress.status_line(shown(args)):
        result = bench.run(config)
    return 1 if result["skipped"] else 0
