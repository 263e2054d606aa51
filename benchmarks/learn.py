"""TD(lambda) self-play for backgammon: train, then measure against pubeval and random.

    python benchmarks/learn.py --minutes 15 --final-games 10000
    python benchmarks/learn.py --minutes 1 --final-games 200 --out /tmp/learn   # a quick look

Trains a 198-40-1 network (:mod:`jaxgames.learn`) by self-play for ``--minutes`` of
training time (the learning-curve matches are not counted), measuring its score against
pubeval and random on ``--curve-games`` games every ``--eval-every`` games; then plays
``--final-games`` games of the trained network (1-ply, greedy) against each, in seat-swapped
pairs that share their dice. Writes ``results/learn_<backend>.json`` (training time, games,
self-play moves/s, the curve, the final scores, the checkpoint's size, the machine and its
load) and the plot ``results/learn_<backend>.png``; the checkpoint goes to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import jax

import jaxgames
from jaxgames.bench.helpers import command_line, machine_info, write_json
from jaxgames.compilation import use_persistent_cache
from jaxgames.learn.plot import plot_curve
from jaxgames.learn.selfplay import play_match
from jaxgames.learn.train import CHECKPOINT, train

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--games", type=int, default=10**7, help="stop after this many too")
    parser.add_argument("--eval-every", type=int, default=5000)
    parser.add_argument("--curve-games", type=int, default=400)
    parser.add_argument("--final-games", type=int, default=10000)
    parser.add_argument("--lanes", type=int, default=128)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "learn_backgammon"))
    args = parser.parse_args(argv)
    use_persistent_cache()
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
        "command": command_line("benchmarks/learn.py", argv if argv is not None else sys.argv[1:]),
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
