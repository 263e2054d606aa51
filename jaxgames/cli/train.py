"""The ``train`` verb: TD(lambda) self-play for a game's value network, resumable."""

from __future__ import annotations

import argparse
import os
import sys
import time

from jaxgames.cli.common import UsageError, positive
from jaxgames.registry import make


def cmd_train(args: argparse.Namespace) -> int:
    from jaxgames.learn.plot import plot_curve
    from jaxgames.learn.selfplay import check_learnable
    from jaxgames.learn.train import CHECKPOINT, train

    game = make(args.game)
    check_learnable(game)
    games = positive(args.games, "--games", "train")
    positive(args.eval_games, "--eval-games", "train")
    positive(args.eval_every, "--eval-every", "train")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"train: --out {args.out!r} is a file, not a directory")
    path = os.path.join(args.out, CHECKPOINT)
    if os.path.exists(path) and not args.resume:
        raise UsageError(f"train: {path!r} exists; --resume to go on training it")
    options = {
        k: v
        for k, v in (
            ("lanes", args.lanes),
            ("lr", args.lr),
            ("lam", args.lam),
            ("hidden", args.hidden),
            ("epsilon", args.epsilon),
            ("seed", args.seed),
        )
        if v is not None
    }
    show = not args.quiet and sys.stderr.isatty()
    started = time.perf_counter()

    def progress(p: dict) -> None:
        if not show:
            return
        last = p["curve"][-1] if p["curve"] else {}
        scores = " ".join(f"{k} {v:.3f}" for k, v in last.items() if k not in ("games", "seconds"))
        rate = p["games"] / max(time.perf_counter() - started, 1e-9)
        print(
            f"\r{p['games']}/{p['target']} games  {rate:.1f} games/s  loss {p['loss']:.4f}"
            f"  score: {scores}   ",
            end="",
            file=sys.stderr,
            flush=True,
        )

    meta = train(
        game,
        games,
        args.out,
        options,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        on_progress=progress,
    )
    if show:
        print(file=sys.stderr)
    meta.pop("net")
    plot = plot_curve(
        meta["curve"],
        os.path.join(args.out, "curve.png"),
        title=f"{game.spec}: TD(lambda) self-play",
    )
    last = meta["curve"][-1]
    scores = ", ".join(f"{k} {v:.3f}" for k, v in last.items() if k not in ("games", "seconds"))
    print(
        f"{meta['games']} games trained in {meta['seconds']:.0f} s; score against {scores}"
        f" ({args.eval_games} games each); checkpoint {path} ({meta['bytes']} bytes),"
        f" curve {plot}"
    )
    return 0


def add_train(command) -> None:
    p = command("train", "learn a value network by TD(lambda) self-play (resumable)", False)
    p.add_argument("game", help="game name or spec, e.g. backgammon")
    p.add_argument("--games", type=int, required=True, help="games to train, in all")
    p.add_argument("--out", required=True, help="directory of the checkpoint and the plot")
    p.add_argument("--resume", action="store_true", help="go on from the checkpoint in --out")
    p.add_argument(
        "--eval-every",
        type=int,
        default=1000,
        help="measure the score every this many games (default: %(default)s)",
    )
    p.add_argument(
        "--eval-games",
        type=int,
        default=200,
        help="games per baseline in each measurement (default: %(default)s)",
    )
    p.add_argument("--lanes", type=int, help="games in lockstep (default 128)")
    p.add_argument("--lr", type=float, help="Adam's learning rate (default 0.003)")
    p.add_argument("--lam", type=float, help="lambda of TD(lambda) (default 0.7)")
    p.add_argument("--hidden", type=int, help="hidden units (default 40)")
    p.add_argument(
        "--epsilon",
        type=float,
        help="share of random moves in self-play (default 0, or the game's: 0.1 for connect4)",
    )
    p.add_argument("--seed", type=int, help="random seed (default 0)")
    p.set_defaults(run=cmd_train)
