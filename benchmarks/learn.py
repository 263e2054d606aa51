"""TD(lambda) self-play for backgammon: train, then measure against pubeval and random
(and, with ``--game connect4``, for connect four: see :func:`connect4`).

    python benchmarks/learn.py --minutes 15 --final-games 10000
    python benchmarks/learn.py --minutes 1 --final-games 200 --out /tmp/learn   # a quick look
    python benchmarks/learn.py --two-ply-games 2048 --keep 2   # 2-ply vs 1-ply, no training
    python benchmarks/learn.py --gnubg-games 400   # against GNU Backgammon 0-ply, no training
    python benchmarks/learn.py --game connect4 --games 150000 --hidden 80 --final-games 400
    python benchmarks/learn.py --game connect4 --games 150000 --final-games 400 --match-seed 7
        # (the second: the checkpoint in --out has its games already, so only the match runs)

Trains a 198-40-1 network (:mod:`jaxgames.learn`) by self-play for ``--minutes`` of
training time (the learning-curve matches are not counted), measuring its score against
pubeval and random on ``--curve-games`` games every ``--eval-every`` games; then plays
``--final-games`` games of the trained network (1-ply, greedy) against each, in seat-swapped
pairs that share their dice. Writes ``results/learn_<backend>.json`` (training time, games,
self-play moves/s, the curve, the final scores, the checkpoint's size, the machine and its
load) and the plot ``results/learn_<backend>.png``; the checkpoint goes to ``--out``.

``--two-ply-games N`` trains nothing: the committed network (``--checkpoint``) plays N
games as the learned EVAL searched two plies deep (our play, the opponent's 21 rolls, its
best reply by 1 ply: ``expectiminimax`` depth 3, over the ``--keep`` best plays by 1 ply)
against the same network at 1 ply, in seat-swapped pairs sharing their dice, in matches of
``--lanes`` games (the JSON is rewritten after each, so a stopped run keeps its games).
Writes ``results/learn_two_ply_<backend>.json``: W/L, points per game, the score with a
95 % interval (normal approximation over the games' scores), time and load.

``--gnubg-games N`` trains nothing either: the committed network (1 ply, greedy) plays N
games against GNU Backgammon (``gnubg``, on the PATH or in ``/usr/games``; skipped with a
message where it is not installed) at its fastest setting: 0-ply cubeless evaluation, a
money game without cube or Jacoby rule (gammons 2, backgammons 3), in seat-swapped pairs
sharing their dice (:mod:`jaxgames.games.backgammon.gnubg_player`). Writes
``results/learn_gnubg_<backend>.json``: W/L, points per game, the score with a 95 %
interval, seconds per move of each side.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import time
from typing import Any

import jax

import jaxgames
from jaxgames.bench.helpers import command_line, machine_info, write_json
from jaxgames.compilation import use_persistent_cache
from jaxgames.game import Game
from jaxgames.learn.network import load_checkpoint
from jaxgames.learn.plot import plot_curve
from jaxgames.learn.selfplay import TWO_PLY, play_match
from jaxgames.learn.train import CHECKPOINT, train

HERE = os.path.dirname(os.path.abspath(__file__))


DEFAULT_NET = os.path.join("learn_backgammon", CHECKPOINT)


def score_interval(wins: int, losses: int, games: int) -> tuple[float, float]:
    """The score (draws half) and the half-width of its 95 % normal-approximation interval:
    per-game scores are 1, 1/2 or 0, and their variance over the games gives it."""
    mean = (games - losses + wins) / (2 * games)
    squares = wins + 0.25 * (games - wins - losses)
    return mean, 1.96 * math.sqrt(max(squares / games - mean**2, 0.0) / games)


def two_ply_match(args: argparse.Namespace, argv: list[str] | None) -> int:
    """The learned EVAL at 2-ply against the same network at 1 ply (see the module doc)."""
    game = jaxgames.make("backgammon", eval=args.checkpoint)
    net, _, _ = load_checkpoint(args.checkpoint)
    path = os.path.join(HERE, "results", f"learn_two_ply_{jax.default_backend()}.json")
    load_before = os.getloadavg()
    total = dict(games=0, wins=0, losses=0, points=0.0, moves=0, seconds=0.0)
    match = 0
    while total["games"] < args.two_ply_games:
        n = min(args.lanes, args.two_ply_games - total["games"])
        score = play_match(
            game, TWO_PLY, "net", n, net_b=net, seed=1000 + match, lanes=args.lanes, keep=args.keep
        )
        match += 1
        for name in ("games", "wins", "losses", "points", "moves", "seconds"):
            total[name] += getattr(score, name)
        games = total["games"]
        mean, half = score_interval(total["wins"], total["losses"], games)
        result = {
            "benchmark": "learn_two_ply",
            "command": command_line("learn.py", argv if argv is not None else sys.argv[1:]),
            "machine": machine_info(),
            "load_average_before": load_before,
            "load_average_after": os.getloadavg(),
            "game": "backgammon",
            "checkpoint": os.path.relpath(args.checkpoint, HERE),
            "player_a": "learned EVAL, expectiminimax depth 3 (2-ply: play, 21 rolls, reply), "
            f"forward pruning to the {args.keep} best plays by 1 ply",
            "player_b": "the same network, 1 ply (greedy)",
            "pairs": "seat-swapped, sharing their dice",
            "keep": args.keep,
            "games": games,
            "wins": total["wins"],
            "losses": total["losses"],
            "draws": games - total["wins"] - total["losses"],
            "points_per_game": round(total["points"] / games, 4),
            "score": round(mean, 4),
            "score_95": [round(mean - half, 4), round(mean + half, 4)],
            "moves": total["moves"],
            "seconds": round(total["seconds"], 1),
        }
        write_json(result, path)
        print(
            f"{games} games: score {mean:.4f} +- {half:.4f}, {total['seconds']:.0f} s", flush=True
        )
    print(path)
    return 0


def gnubg_match(args: argparse.Namespace, argv: list[str] | None) -> int:
    """The committed network (1 ply) against GNU Backgammon at 0 ply (see the module doc)."""
    from jaxgames.games.backgammon.gnubg_player import GnubgPlayer, find_gnubg, play_match_gnubg

    program = find_gnubg()
    if program is None:
        print("gnubg is not installed (apt-get install gnubg): no match played")
        return 0
    game = jaxgames.make("backgammon")
    net, _, _ = load_checkpoint(args.checkpoint)
    load_before = os.getloadavg()
    with GnubgPlayer(program, plies=0) as gnubg:
        score, sides = play_match_gnubg(
            game, net, gnubg, args.gnubg_games, seed=7, lanes=args.lanes
        )
    games = score.games
    mean, half = score_interval(score.wins, score.losses, games)
    result = {
        "benchmark": "learn_gnubg",
        "command": command_line("learn.py", argv if argv is not None else sys.argv[1:]),
        "machine": machine_info(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "game": "backgammon",
        "checkpoint": os.path.relpath(args.checkpoint, HERE),
        "player_a": "the network, 1 ply (greedy)",
        "player_b": "GNU Backgammon 0-ply, cubeless, money game without Jacoby (gammons count)",
        "pairs": "seat-swapped, sharing their dice",
        "games": games,
        "wins": score.wins,
        "losses": score.losses,
        "draws": games - score.wins - score.losses,
        "points_per_game": round(score.points / games, 4),
        "score": round(mean, 4),
        "score_95": [round(mean - half, 4), round(mean + half, 4)],
        "moves": score.moves,
        # the network's lanes move together in one batched call (compilation included);
        # gnubg is asked one position at a time, only where a roll has more than one play
        "net_moves": sides["net_moves"],
        "net_seconds_per_move": round(sides["net_seconds"] / max(sides["net_moves"], 1), 5),
        "gnubg_moves_asked": sides["gnubg_moves"],
        "gnubg_seconds_per_move": round(sides["gnubg_seconds"] / max(sides["gnubg_moves"], 1), 5),
        "seconds": round(score.seconds, 1),
    }
    path = os.path.join(HERE, "results", f"learn_gnubg_{jax.default_backend()}.json")
    write_json(result, path)
    print(f"{games} games: score {mean:.4f} +- {half:.4f}, {score.seconds:.0f} s", flush=True)
    print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--games", type=int, default=10**7, help="stop after this many too")
    parser.add_argument("--eval-every", type=int, default=5000)
    parser.add_argument("--curve-games", type=int, default=400)
    parser.add_argument("--final-games", type=int, default=10000)
    parser.add_argument("--lanes", type=int, default=128)
    parser.add_argument("--game", choices=("backgammon", "connect4"), default="backgammon")
    parser.add_argument("--hidden", type=int, default=None, help="hidden units (default 40)")
    parser.add_argument("--out", default=None, help="default: results/learn_<game>")
    parser.add_argument(
        "--match-seed",
        type=int,
        default=2026,
        help="connect4: the arena's seed (its openings); another seed writes its own JSON",
    )
    parser.add_argument("--two-ply-games", type=int, default=0)
    parser.add_argument("--gnubg-games", type=int, default=0)
    parser.add_argument("--keep", type=int, default=2, help="plays kept by 1 ply for 2-ply")
    parser.add_argument("--checkpoint", default=os.path.join(HERE, "results", DEFAULT_NET))
    args = parser.parse_args(argv)
    args.out = args.out or os.path.join(HERE, "results", f"learn_{args.game}")
    use_persistent_cache()
    if args.two_ply_games:
        return two_ply_match(args, argv)
    if args.gnubg_games:
        return gnubg_match(args, argv)
    if args.game == "connect4":
        return connect4(args, argv)
    game = jaxgames.make("backgammon")
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    meta = train(
        game,
        args.games,
        args.out,
        dict(lanes=args.lanes) | ({} if args.hidden is None else dict(hidden=args.hidden)),
        eval_every=args.eval_every,
        eval_games=args.curve_games,
        minutes=args.minutes,
    )
    wall_train = time.perf_counter() - t0
    net = meta.pop("net")
    final = {}
    for name in ("pubeval", "random"):
        final[name] = play_match(game, "net", name, args.final_games, net_a=net, seed=123).as_dict()
        print(name, final[name], flush=True)
    backend = jax.default_backend()
    result = {
        "benchmark": "learn",
        "command": command_line("learn.py", argv if argv is not None else sys.argv[1:]),
        "machine": machine_info(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "game": "backgammon",
        "network": "198-40-1 sigmoid MLP (Equinox), TD(lambda) self-play, optax",
        "options": meta["options"],
        "games_trained": meta["games"],
        "moves_trained": meta["moves"],
        "training_seconds": meta["seconds"],
        "training_wall_seconds_with_curve": round(wall_train, 1),
        "selfplay_moves_per_s": round(meta["moves"] / max(meta["seconds"], 1e-9), 1),
        "selfplay_games_per_s": round(meta["games"] / max(meta["seconds"], 1e-9), 2),
        "checkpoint_bytes": meta["bytes"],
        "checkpoint": os.path.relpath(os.path.join(args.out, CHECKPOINT), HERE),
        "curve": meta["curve"],
        "final": final,
    }
    path = os.path.join(HERE, "results", f"learn_{backend}.json")
    write_json(result, path)
    plot_curve(
        meta["curve"],
        os.path.join(HERE, "results", f"learn_{backend}.png"),
        title=f"backgammon TD(lambda) self-play ({backend})",
    )
    print(path)
    return 0


@dataclasses.dataclass(frozen=True)
class OnOwnGame:
    """An arena agent that searches ``game`` (the same rules with another EVAL) whatever
    game the arena passes: how two EVALs meet in one match."""

    agent: Any
    game: Game
    spec: str

    def __call__(self, game: Game, states: Any, seed: int) -> Any:
        return self.agent(self.game, states, seed)


def connect4(args: argparse.Namespace, argv: list[str] | None) -> int:
    """Connect four: train a network by TD(lambda) self-play (epsilon-greedy, the game's
    default 0.1), then play ``--final-games`` arena games of alpha-beta depth 4 with the
    network as EVAL against alpha-beta depth 4 with the hand-written threat heuristic,
    seats swapped within each pair of games and each pair from its own 4-ply random opening
    (alpha-beta is deterministic: without openings every pair would replay one game).
    Writes ``results/learn_connect4_<backend>.json``."""
    from jaxgames.arena.agents import parse_agent
    from jaxgames.arena.match import match

    game = jaxgames.make("connect4")
    load_before = os.getloadavg()
    options = dict(lanes=args.lanes) | ({} if args.hidden is None else dict(hidden=args.hidden))
    t0 = time.perf_counter()
    meta = train(
        game,
        args.games,
        args.out,
        options,
        eval_every=args.eval_every,
        eval_games=args.curve_games,
        minutes=args.minutes,
    )
    wall_train = time.perf_counter() - t0
    meta.pop("net")
    checkpoint = os.path.join(args.out, CHECKPOINT)
    learned = jaxgames.make("connect4", eval=checkpoint)
    search = "alphabeta:depth=4"
    agents = [OnOwnGame(parse_agent(search), learned, search + ",eval=net"), parse_agent(search)]
    load_match = os.getloadavg()
    result_match = match(game, agents, games=args.final_games, seed=args.match_seed, openings=4)
    print(result_match.summary(), flush=True)
    backend = jax.default_backend()
    n = result_match.wins + result_match.draws + result_match.losses
    result = {
        "benchmark": "learn",
        "command": command_line("benchmarks/learn.py", argv if argv is not None else sys.argv[1:]),
        "machine": machine_info(),
        "load_average_before": load_before,
        "load_average_before_match": load_match,
        "load_average_after": os.getloadavg(),
        "game": "connect4",
        "network": f"{game.num_features}-{meta['options']['hidden']}-1 sigmoid MLP (Equinox), "
        "TD(lambda) self-play, optax",
        "options": meta["options"],
        "games_trained": meta["games"],
        "moves_trained": meta["moves"],
        "training_seconds": meta["seconds"],
        "training_wall_seconds_with_curve": round(wall_train, 1),
        "selfplay_moves_per_s": round(meta["moves"] / max(meta["seconds"], 1e-9), 1),
        "selfplay_games_per_s": round(meta["games"] / max(meta["seconds"], 1e-9), 2),
        "checkpoint_bytes": meta["bytes"],
        "checkpoint": os.path.relpath(checkpoint, HERE),
        "curve": meta["curve"],
        "match": {
            "agents": result_match.agents,
            "games": n,
            "openings_plies": 4,
            "seed": args.match_seed,
            "wins": result_match.wins,
            "draws": result_match.draws,
            "losses": result_match.losses,
            "score": round(result_match.score, 4),
            "elo": round(result_match.elo, 1),
            "elo_95": [round(result_match.elo_low, 1), round(result_match.elo_high, 1)],
            "seconds_per_move": [round(t, 4) for t in result_match.seconds_per_move()],
            "match_wall_seconds": round(time.perf_counter() - t0 - wall_train, 1),
        },
    }
    seed_tag = "" if args.match_seed == 2026 else f"_seed{args.match_seed}"
    path = os.path.join(HERE, "results", f"learn_connect4_{backend}{seed_tag}.json")
    write_json(result, path)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
