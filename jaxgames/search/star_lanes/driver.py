"""The Star lanes' driver: the search compiled for a batch of roots, run on one device or
each device its share, and the result gathered (:func:`star_lanes`)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import progress
from jaxgames.capabilities import ListOrdering, MoveLists, MoveOrdering
from jaxgames.game import Game
from jaxgames.kernels import batch_size, local_mesh, shard_batch, to_numpy
from jaxgames.search import lanes as engine
from jaxgames.search.result import BatchSearchResult
from jaxgames.search.star_lanes.event import Search
from jaxgames.search.star_lanes.frames import (
    MIN_LEAF_BATCH,
    PRUNING_CODES,
    Config,
    Counters,
    Outcome,
)


def _program(game: Game, config: Config) -> engine.LaneProgram:
    search = Search(game, config)
    return engine.LaneProgram(
        start=search.start,
        advance=search.advance,
        outcome=search.outcome,
        iterate=lambda plan, outcome: (jnp.bool_(True), plan),  # one search per root
        counters=lambda lane: Counters(
            lane.nodes, lane.leaves, lane.cutoffs, lane.chance_cutoffs, lane.probe_cutoffs
        ),
        rewidth=lambda shared, width: shared,
    )


@dataclasses.dataclass(frozen=True)
class _Lanes:
    """Every root's search on one device (:func:`~jaxgames.search.lanes.run_on_devices`);
    the fields are what one compiled search is."""

    game: Game
    config: Config
    phases: tuple[int, ...]
    events: int

    def __call__(self, roots: Any) -> engine.Jobs:
        config = self.config
        n = batch_size(roots)
        jobs, _ = engine.run(
            _program(self.game, config),
            roots,
            jnp.zeros((n,), jnp.int32),
            Outcome(jnp.float32(0.0), jnp.int32(-1), jnp.full((config.frames,), -1, jnp.int32)),
            Counters(*(jnp.int32(0) for _ in Counters._fields)),
            None,
            self.phases,
            self.events,
            False,
        )
        return jobs


def make_config(game: Game, depth: int, pruning: str, order: str, leaf_batch: int = 0) -> Config:
    """The static description of a search (see :func:`star_lanes`)."""
    k = max(game.num_chance_outcomes, 1)
    m = int(game.max_moves) if isinstance(game, MoveLists) else game.num_actions
    if order == "hint" and not isinstance(game, (MoveOrdering, ListOrdering)):
        order = "none"  # no hint: the list's own order
    return Config(
        depth=depth,
        outcomes=k,
        max_moves=m,
        leaf_batch=max(leaf_batch or MIN_LEAF_BATCH, k),
        low=float(game.utility_min),
        high=float(game.utility_max),
        pruning=PRUNING_CODES[pruning],
        order=order,
        move_dtype="int16" if game.num_actions < 2**15 else "int32",
        keep_lists=pruning == "star2" and k > 1 and depth >= 2,
    )


def star_lanes(
    game: Game,
    states: Any,
    depth: int,
    pruning: str,
    *,
    order: str = "hint",
    lanes: int = 256,
    events: int = 16,
    shrink: int = 4,
    leaf_batch: int = 0,
) -> BatchSearchResult:
    """Expectiminimax of many roots at once on the device (see the module docstring).

    Args:
        game: a two-player zero-sum game (chance nodes allowed).
        states: a batch ``[N]`` of roots.
        depth: plies below each root, chance plies included.
        pruning: ``"none"``, ``"alphabeta"``, ``"star1"`` or ``"star2"``.
        order: decision moves in the order of the game's hint (``"hint"``:
            :class:`~jaxgames.capabilities.ListOrdering` or ``MoveOrdering``; the list's
            own order without one), or best-first by the EVAL of every child
            (``"lookahead"``: steps every move of every node opened, worth it when the
            action space is narrow).
        lanes: searches run side by side (at most N are used; with several devices, per
            device).
        events: lane events between two refills from the work queue.
        shrink: once the queue is empty, busy lanes move to loops this many times narrower
            (:func:`jaxgames.search.lanes.lane_phases`; 0 or 1: never).
        leaf_batch: children stepped and valued together at the horizon's edge (0: the
            default, the number of chance outcomes and at least 8).

    With several local devices and N a multiple of their count, each device searches its
    own contiguous share of the roots with its own lanes and queue.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` holds the totals, ``compile_s``, ``lanes``,
        ``lane_phases`` and ``devices``.
    """
    started = time.perf_counter()
    n = batch_size(states)
    if n == 0:
        raise ValueError("expectiminimax: no positions")
    if order not in ("hint", "lookahead"):
        raise ValueError(f"expectiminimax: order must be 'hint' or 'lookahead', got {order!r}")
    config = make_config(game, depth, pruning, order, leaf_batch)
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and n % devices == 0 else None
    share = n // devices if mesh is not None else n
    num_lanes = max(1, min(share, lanes))
    phases = engine.lane_phases(num_lanes, shrink)
    roots = jax.tree.map(jnp.asarray, states)
    if mesh is not None:
        roots = shard_batch(roots, mesh)
    args = (_Lanes(game, config, phases, events), mesh, (roots,))
    compile_start = time.perf_counter()
    with progress.phase(f"compiling expectiminimax of {n:,} positions"):
        engine.run_on_devices.lower(*args).compile()
    compile_s = time.perf_counter() - compile_start
    with progress.phase(f"expectiminimax of {n:,} positions"):
        jobs = to_numpy(engine.run_on_devices(*args))
    value = np.asarray(jobs.outcome.value, np.float32)
    counters = {k: np.asarray(getattr(jobs.counters, k), np.int64) for k in Counters._fields}
    return BatchSearchResult(
        value=np.stack([value, -value], axis=1).astype(np.float32),
        best_action=np.asarray(jobs.outcome.best_move, np.int32),
        pv=np.asarray(jobs.outcome.pv[:, :depth], np.int32),
        nodes=counters["nodes"],
        stats={
            **{k: int(v.sum()) for k, v in counters.items()},
            "time_s": time.perf_counter() - started,
            "compile_s": compile_s,
            "lanes": num_lanes,
            "lane_phases": list(phases),
            "devices": devices if mesh is not None else 1,
            "max_moves": config.max_moves,
            "leaf_batch": config.leaf_batch,
        },
    )
