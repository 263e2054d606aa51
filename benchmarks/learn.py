"""TD(lambda) self-play for backgammon: train, then measure against pubeval and random.

    python benchmarks/learn.py --minutes 15 --final-games 10000
    python benchmarks/learn.py --minutes 1 --final-games 200 --out /tmp/learn   # a quick look
    python benchmarks/learn.py --two-ply-games 2048 --keep 2   # 2-ply vs 1-ply, no training

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
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import jax

import jaxgames
from jaxgames.bench.helpers import command_line, machine_info, write_json
from jaxgames.compilation import use_persistent_cache
from jaxgames.learn.network import load_checkpoint
from jaxgames.learn.plot import plot_curve
from jaxgames.learn.selfplay import TWO_PLY, play_match
from jaxgames.learn.train import CHECKPOINT, train

HERE = os.path.dirname(os.path.abspath(__file__))


DEFAULT_NET = os.path.join("learn_backgammon", CHECKPOINT)


def two_ply_match(args: argparse.Namespace, argv: list[str] | None) -> int:
    """The learned EVAL at 2-ply against the same network at 1 ply (see the module doc)."""
    game = jaxgames.make("backgammon", eval=args.checkpoint)
    net, _, _ = load_checkpoint(args.checkpoint)
    path = os.path.join(HERE, "results", f"learn_two_ply_{jax.default_backend()}.json")
    load_before = os.getloadavg()
    total = dict(games=0, wins=0, losses=0, points=0.0, moves=0, seconds=0.0)
    squares = 0.0  # sum of the games' scores squared (1 won, 0 lost, 1/2 drawn): the interval
    match = 0
    while total["games"] < args.two_ply_games:
        n = min(args.lanes, args.two_ply_games - total["games"])
        score = play_match(
            game, TWO_PLY, "net", n, net_b=net, seed=1000 + match, lanes=args.lanes, keep=args.keep
        )
        match += 1
        for name in ("games", "wins", "losses", "points", "moves", "seconds"):
            total[name] += getattr(score, name)
        squares += score.wins + 0.25 * (score.games - score.wins - score.losses)
        games = total["games"]
        mean = (games - total["losses"] + total["wins"]) / (2 * games)
        half = 1.96 * math.sqrt(max(squares / games - mean**2, 0.0) / games)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--games", type=int, default=10**7, help="stop after this many too")
    parser.add_argument("--eval-every", type=int, default=5000)
    parser.add_argument("--curve-games", type=int, default=400)
    parser.add_argument("--final-games", type=int, default=10000)
    parser.add_argument("--lanes", type=int, default=128)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "learn_backgammon"))
    parser.add_argument("--two-ply-games", type=int, default=0)
    parser.add_argument("--keep", type=int, default=2, help="plays kept by 1 ply for 2-ply")
    parser.add_argument("--checkpoint", default=os.path.join(HERE, "results", DEFAULT_NET))
    args = parser.parse_args(argv)
    use_persistent_cache()
    if args.two_ply_games:
        return two_ply_match(args, argv)
    game = jaxgames.make("backgammon")
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    meta = train(
        game,
        args.games,
        args.out,
        dict(lanes=args.lanes),
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


if __name__ == "__main__":
    raise SystemExit(main())
