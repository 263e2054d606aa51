"""Random playouts compiled ahead of time (``lower().compile()``), so that compilation is
timed apart from the runs: jaxgames' playout kernel and the same loop over pgx's step."""

from __future__ import annotations

import statistics
import time
from typing import Any

import jax
import numpy as np

from jaxgames.bench.helpers import sample
from jaxgames.bench.peers import pgx_env, pgx_playouts
from jaxgames.game import Game
from jaxgames.kernels import batched
from jaxgames.kernels.playout import _playouts, compaction_pays


def jaxgames_playouts(
    game: Game, batch: int, repeats: int, max_steps: int | None = None
) -> tuple[float, list[float], Any]:
    """(compile s, seconds of ``repeats`` runs after a warm-up, the playouts' result) of
    ``batch`` random games from the start in jaxgames' playout loop (at most ``max_steps``
    plies each, default the game's longest)."""
    states = batched(game).init(batch)
    key = jax.random.key(0)
    steps = max_steps or game.max_game_length
    compact = compaction_pays(steps, batch)
    t0 = time.perf_counter()
    compiled = _playouts.lower(game, states, 1, key, steps, compact).compile()
    compile_s = time.perf_counter() - t0
    _, times, out = sample(lambda: compiled(states, key), repeats)
    return compile_s, times, out


def pgx_compiled_playouts(name: str, batch: int, repeats: int) -> tuple[float, list[float], Any]:
    """(compile s, seconds of ``repeats`` runs after a warm-up, the games' lengths) of
    ``batch`` random pgx games of ``name`` in the same loop (:func:`pgx_playouts`); raises
    ImportError when pgx is not installed."""
    env = pgx_env(name)
    key = jax.random.key(0)
    t0 = time.perf_counter()
    compiled = pgx_playouts.lower(env, batch, key).compile()
    compile_s = time.perf_counter() - t0
    _, times, lengths = sample(lambda: compiled(key), repeats)
    return compile_s, times, lengths


def playout_row(
    impl: str, batch: int, compile_s: float, times: list[float], moves: int
) -> dict[str, Any]:
    """The JSON row of one batch of playouts: compile time, the median, least and most
    seconds of the runs, and playouts and moves per second."""
    median = statistics.median(times)
    return {
        "impl": impl,
        "batch": batch,
        "compile_s": compile_s,
        "seconds_median": median,
        "seconds_min": min(times),
        "seconds_max": max(times),
        "playouts_per_s": batch / median,
        "moves_per_s": moves / median,
    }


def moves_of(lengths: Any) -> int:
    """The moves of a batch of playouts: the sum of their lengths."""
    return int(np.asarray(lengths).sum())


def jaxgames_playout_row(
    game: Game, batch: int, repeats: int, impl: str = "jaxgames", max_steps: int | None = None
) -> tuple[dict[str, Any], Any]:
    """(:func:`playout_row` of :func:`jaxgames_playouts`, the playouts' result)."""
    compile_s, times, out = jaxgames_playouts(game, batch, repeats, max_steps)
    return playout_row(impl, batch, compile_s, times, moves_of(out.lengths)), out


def pgx_playout_row(name: str, batch: int, repeats: int) -> tuple[dict[str, Any] | None, int]:
    """(:func:`playout_row` of :func:`pgx_compiled_playouts`, the moves played), or
    (None, 0) when pgx is not installed."""
    try:
        compile_s, times, lengths = pgx_compiled_playouts(name, batch, repeats)
    except ImportError:
        return None, 0
    moves = moves_of(lengths)
    return playout_row("pgx", batch, compile_s, times, moves), moves
