"""Training runs: self-play in chunks, checkpoints that resume, and a learning curve.

:func:`train` plays ``games`` self-play games (:class:`~jaxgames.learn.selfplay.SelfPlay`),
every ``eval_every`` games measures the network's score against the game's baseline
scorers (pubeval and random for backgammon) on a small sample of games, and writes the
checkpoint (network, optimizer state, games trained, options and the curve so far). Given
an existing checkpoint it resumes from it: the network, the optimizer state, the count of
games and the curve go on where they stopped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import optax

from jaxgames.game import Game, GameError
from jaxgames.learn.network import load_checkpoint, make_net, save_checkpoint
from jaxgames.learn.selfplay import SelfPlay, check_learnable, play_match

CHECKPOINT = "checkpoint.npz"


def default_options() -> dict[str, Any]:
    """The training options and their defaults (the checkpoint records those used)."""
    return dict(
        hidden=40,
        lam=0.7,
        lr=0.003,
        optimizer="adam",
        epsilon=0.0,
        lanes=128,
        seed=0,
        init_scale=1.0,
    )


def make_optimizer(name: str, lr: float) -> optax.GradientTransformation:
    if name == "sgd":
        return optax.sgd(lr)
    if name == "adam":
        return optax.adam(lr)
    raise GameError(f"optimizer {name!r}: expected sgd or adam")


def baselines(game: Game) -> tuple[str, ...]:
    """The scorers a network is measured against: the game's own, then random."""
    return (*getattr(game, "play_scorers", ()), "random")


def train(
    game: Game,
    games: int,
    out_dir: str,
    options: dict[str, Any] | None = None,
    eval_every: int = 1000,
    eval_games: int = 200,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    minutes: float | None = None,
) -> dict[str, Any]:
    """Train until ``games`` games in all (counting a resumed checkpoint's), or for
    ``minutes`` of self-play when given; returns the checkpoint's metadata."""
    check_learnable(game)
    path = os.path.join(out_dir, CHECKPOINT)
    opts = default_options()
    # a game's own defaults (``learn_options``: a game without dice sets an epsilon, or
    # greedy self-play would replay one game), then the caller's
    opts.update(getattr(game, "learn_options", {}))
    opts.update(options or {})
    meta: dict[str, Any] = {"game": game.spec, "games": 0, "seconds": 0.0, "moves": 0, "curve": []}
    net = opt_state = None
    if os.path.exists(path):
        optimizer0 = make_optimizer(opts["optimizer"], opts["lr"])
        old_net, old_meta, _ = load_checkpoint(path)
        opts.update(old_meta.get("options", {}))
        optimizer = make_optimizer(opts["optimizer"], opts["lr"])
        net, meta, opt_state = load_checkpoint(path, optimizer.init(old_net))
        if meta.get("game") != game.spec:
            raise GameError(f"resume {path!r}: a checkpoint of {meta.get('game')!r}")
        del optimizer0
    optimizer = make_optimizer(opts["optimizer"], opts["lr"])
    if net is None:
        sizes = (game.num_features, int(opts["hidden"]), 1)
        net = make_net(sizes, seed=int(opts["seed"]), init_scale=float(opts["init_scale"]))
    play = SelfPlay(
        game,
        net,
        optimizer,
        lam=float(opts["lam"]),
        epsilon=float(opts["epsilon"]),
        lanes=int(opts["lanes"]),
        seed=int(opts["seed"]),
        games_done=int(meta["games"]),
        opt_state=opt_state,
    )
    play.moves_done = int(meta.get("moves", 0))
    seconds0 = float(meta.get("seconds", 0.0))
    deadline = None if minutes is None else time.perf_counter() + 60.0 * minutes

    def measure() -> None:
        row: dict[str, Any] = {
            "games": play.games_done,
            "seconds": round(seconds0 + play.seconds, 1),
        }
        for name in baselines(game):
            result = play_match(
                game, "net", name, eval_games, net_a=play.net, seed=10_000 + play.games_done
            )
            row[name] = result.score
        meta["curve"].append(row)

    def checkpoint() -> int:
        meta.update(
            games=play.games_done,
            moves=play.moves_done,
            seconds=round(seconds0 + play.seconds, 1),
            options=opts,
        )
        return save_checkpoint(path, play.net, meta, play.opt_state)

    if not meta["curve"]:
        measure()
    while play.games_done < games and (deadline is None or time.perf_counter() < deadline):
        chunk = min(eval_every - play.games_done % eval_every, games - play.games_done)
        before = play.games_done
        play.run(
            chunk,
            on_turn=None
            if on_progress is None
            else (
                lambda p: on_progress(
                    dict(
                        games=p.games_done,
                        target=games,
                        loss=p.last_loss,
                        seconds=seconds0 + p.seconds,
                        moves=p.moves_done,
                        curve=meta["curve"],
                    )
                )
            ),
        )
        # lanes finish together, so the count jumps past the mark: measure on crossing it
        if play.games_done // eval_every > before // eval_every or play.games_done >= games:
            measure()
        meta["bytes"] = checkpoint()
    meta["bytes"] = checkpoint()
    meta["net"] = play.net
    return meta
