"""Alpha-beta of many roots at once: every root its own search in a lane of the lane engine.

Each root is a job of :mod:`jaxgames.search.lanes`; its searches follow a *plan*: one
search to the full depth, or iterative deepening (depths 1..d, each with the previous
principal variation first, stopped early once every leaf was a finished game), or, as a
solver, null-window tests that close in on the value (each test asks "is the value at least
g?" and its fail-soft answer moves the lower or the upper end past g; the table keeps the
bounds each test proves, so the next test is cheap where it overlaps).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import progress
from jaxgames.capabilities import ValueBounds
from jaxgames.game import Game, GameError
from jaxgames.kernels import batch_size, local_mesh, shard_batch
from jaxgames.search import lanes as engine
from jaxgames.search.alphabeta import table
from jaxgames.search.alphabeta.event import NULL_WIDTH, Search
from jaxgames.search.alphabeta.options import AlphaBetaOptions, Config, Resolved, from_keywords
from jaxgames.search.alphabeta.options import resolve as resolve_options
from jaxgames.search.alphabeta.table import flush, no_writes
from jaxgames.search.horizon import most_plies_left, needed_depth
from jaxgames.search.result import BatchSearchResult

MAX_TESTS = 32  # a solver's null-window tests before one search of what is left of the range


class Plan(NamedTuple):
    """A job's next search, and what its earlier searches proved (solver)."""

    depth: jax.Array  # int32
    target: jax.Array  # int32: the depth asked for (iterative deepening stops there)
    alpha: jax.Array  # float32: this search's window
    beta: jax.Array  # float32
    lo: jax.Array  # float32: the value is at least lo ...
    hi: jax.Array  # float32: ... and at most hi
    tests: jax.Array  # int32: null-window tests done
    best_move: jax.Array  # int32: the move of the last test that raised lo (-1: none)


class Outcome(NamedTuple):
    value: jax.Array  # float32: the root's value for its mover
    best_move: jax.Array  # int32
    pv: jax.Array  # int32[F]
    cut_short: jax.Array  # int32: leaves not scored by UTILITY


class Counters(NamedTuple):
    nodes: jax.Array
    leaves: jax.Array
    cutoffs: jax.Array
    tt_hits: jax.Array
    exact_hits: jax.Array


class Mode(NamedTuple):
    """How a job's searches follow each other (static; the depth asked for is each plan's
    own, so that searches of nearby depths share one compiled program)."""

    iterative: bool
    solver: bool
    exact_leaves: bool  # a search whose every leaf was a finished game is exact at any depth


def _next_plan(mode: Mode, plan: Plan, out: Outcome) -> tuple[jax.Array, Plan]:
    """After a search by ``plan``: is the job settled, and the next plan."""
    if mode.solver:
        v = out.value
        high, low = v >= plan.beta, v <= plan.alpha
        lo = jnp.where(high, jnp.maximum(plan.lo, v), jnp.where(low, plan.lo, v))
        hi = jnp.where(low, jnp.minimum(plan.hi, v), jnp.where(high, plan.hi, v))
        best = jnp.where(high | ~low, out.best_move, plan.best_move)
        tests = plan.tests + 1
        known = lo >= hi
        last = plan.beta - plan.alpha > NULL_WIDTH  # the wide final search ran
        final = known | last
        g = lo + (hi - lo) / 2  # the next test: is the value at least g?
        g = jnp.where(g <= lo, hi, g)
        wide = tests >= MAX_TESTS
        alpha = jnp.where(wide, lo - 2 * NULL_WIDTH, g - NULL_WIDTH)
        beta = jnp.where(wide, hi + 2 * NULL_WIDTH, g)
        return final, Plan(plan.depth, plan.target, alpha, beta, lo, hi, tests, best)
    complete = mode.exact_leaves & (out.cut_short == 0)
    final = (plan.depth >= plan.target) | complete
    return final, plan._replace(depth=plan.depth + 1)


def _program(game: Game, config: Config, mode: Mode) -> engine.LaneProgram:
    search = Search(game, config)

    def start(root, job, iteration, plan, helper, old, same, shared):
        return search.start(root, job, iteration, plan, helper, old, same, shared[0])

    def outcome(lane) -> Outcome:
        from jaxgames.search.alphabeta import frames

        top = frames.unpack(lane.stack.rows[0], config)
        return Outcome(top.best, top.best_move, top.pv, lane.cut_short)

    def counters(lane) -> Counters:
        return Counters(lane.nodes, lane.leaves, lane.cutoffs, lane.tt_hits, lane.exact_hits)

    def rewidth(shared, width):
        table_, pending = shared
        if pending is not None:
            table_ = flush(table_, pending)
        return table_, (no_writes(table_, width) if width else None)

    return engine.LaneProgram(
        start=start,
        advance=search.advance,
        outcome=outcome,
        iterate=functools.partial(_next_plan, mode),
        counters=counters,
        rewidth=rewidth,
    )


@dataclasses.dataclass(frozen=True)
class _Lanes:
    """Every root's search on one device, with its own table ``tables`` ``[1, T, 4]``
    (:func:`~jaxgames.search.lanes.run_on_devices`; the tables of all devices are
    ``[devices, T, 4]``); the fields are what one compiled search is."""

    game: Game
    config: Config
    mode: Mode
    phases: tuple[int, ...]
    events: int
    helpers: bool

    def __call__(self, roots: Any, plans: Plan, tables: jax.Array) -> tuple[engine.Jobs, Any]:
        program = _program(self.game, self.config, self.mode)
        jobs, (table_, _) = engine.run(
            program,
            roots,
            plans,
            _outcome_like(self.config),
            Counters(*(jnp.int32(0) for _ in Counters._fields)),
            (tables[0], None),
            self.phases,
            self.events,
            self.helpers,
        )
        return jobs, table_[None]


def _outcome_like(config: Config) -> Outcome:
    return Outcome(
        value=jnp.float32(0.0),
        best_move=jnp.int32(-1),
        pv=jnp.full((config.frames,), -1, jnp.int32),
        cut_short=jnp.int32(0),
    )


def alphabeta_batch(
    game: Game,
    states: Any,
    depth: int,
    options: AlphaBetaOptions | None = None,
    *,
    window: tuple[Any, Any] | None = None,
    **keywords: Any,
) -> BatchSearchResult:
    """Depth-limited alpha-beta of many roots at once, each root its own search.

    Args:
        game: a two-player zero-sum deterministic game.
        states: a batch ``[N]`` of roots (may be sharded across devices along N).
        depth: plies below each root (more than the game can still last costs nothing
            more: the depth is lowered to what the roots need).
        options: an :class:`AlphaBetaOptions`; keywords (``killers=False``, ...) set its
            fields too. Defaults per game come from :data:`~.options.TUNING`.
        window: the roots' search window ``(alpha, beta)``, for the side to move at each
            root: two numbers, or two arrays ``[N]``. None: the game's utility range, so
            every value is exact. With a window, the value is fail-soft (Knuth and Moore):
            inside ``(alpha, beta)`` exact, at or below alpha an upper bound, at or above
            beta a lower bound (the best move and PV are then those of the bound). A null
            window ``(-eps, eps)`` asks whether the side to move wins, draws or loses.

    With several local devices and N a multiple of their count, each device searches its
    own contiguous share of the roots, with its own lanes, queue and table.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` holds totals, per-root ``leaves``,
        ``cutoffs`` and ``tt_hits``, ``bound`` (int8 per root: 0 exact, -1 an upper bound,
        +1 a lower bound), ``exact`` (False with forward pruning or extensions), ``compile_s``
        and what ran (``ordering``, ``lanes``, ``lane_phases``, ``devices``).
    """
    _validate(game, depth)
    started = time.perf_counter()
    options = from_keywords(options, keywords)
    depth = needed_depth(game, states, depth)
    reaches_end = depth >= most_plies_left(game, states)
    n = batch_size(states)
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and n % devices == 0 else None
    share = n // devices if mesh is not None else n
    run = resolve_options(
        game, depth, options, reaches_end, windowed=window is not None, roots_per_device=share
    )
    if run.solver and window is not None:
        raise GameError("alphabeta: the solver finds exact values; a window asks for a bound")
    alpha, beta = _root_window(game, window, n)
    num_lanes = max(1, min(share, run.lanes)) if not run.helpers else run.lanes
    phases = engine.lane_phases(num_lanes, run.shrink) if not run.helpers else (num_lanes,)
    roots = jax.tree.map(jnp.asarray, states)
    plans = _first_plans(game, run, roots, alpha, beta)
    tables = jnp.zeros((devices if mesh else 1, *table.empty(run.config.tt_bits).shape), jnp.uint32)
    if mesh is not None:
        roots, plans, tables = shard_batch((roots, plans, tables), mesh)
    mode = Mode(
        run.iterative_deepening,
        run.solver,
        exact_leaves=run.exact and not run.config.quiescence,
    )
    per_device = _Lanes(game, run.config, mode, phases, run.events, run.helpers)
    args = (per_device, mesh, (roots, plans, tables))
    compile_start = time.perf_counter()
    with progress.phase(f"compiling alpha-beta of {n:,} positions"):
        engine.run_on_devices.lower(*args).compile()
    compile_s = time.perf_counter() - compile_start
    with progress.phase(f"alpha-beta of {n:,} positions"):
        jobs, _ = engine.run_on_devices(*args)
    return _result(
        game,
        run,
        roots,
        jobs,
        alpha,
        beta,
        depth,
        started,
        compile_s,
        num_lanes,
        phases,
        mesh,
        devices,
    )


def _first_plans(game: Game, run: Resolved, roots: Any, alpha, beta) -> Plan:
    n = batch_size(roots)
    lo, hi = jnp.asarray(alpha), jnp.asarray(beta)
    first = 1 if run.iterative_deepening and not run.solver else run.target
    if run.solver:
        if isinstance(game, ValueBounds) and run.config.bounds:
            bounds = jax.vmap(game.value_bounds)(roots)  # [N, 2], for the mover
            lo, hi = jnp.maximum(lo, bounds[:, 0]), jnp.minimum(hi, bounds[:, 1])
        g = lo + (hi - lo) / 2
        alpha, beta = g - NULL_WIDTH, g
    return Plan(
        depth=jnp.full((n,), first, jnp.int32),
        target=jnp.full((n,), run.target, jnp.int32),
        alpha=jnp.asarray(alpha, jnp.float32),
        beta=jnp.asarray(beta, jnp.float32),
        lo=jnp.asarray(lo, jnp.float32),
        hi=jnp.asarray(hi, jnp.float32),
        tests=jnp.zeros((n,), jnp.int32),
        best_move=jnp.full((n,), -1, jnp.int32),
    )


def _result(
    game, run, roots, jobs, alpha, beta, depth, started, compile_s, num_lanes, phases, mesh, devices
) -> BatchSearchResult:
    out, plan = jobs.outcome, jobs.plan
    value = np.asarray(out.value, np.float32)
    best = np.asarray(out.best_move, np.int32)
    pv = np.asarray(out.pv[:, :depth], np.int32)
    if run.solver:  # the value the tests closed in on; the move of the test that proved it
        value = np.asarray(plan.lo, np.float32)
        known = np.asarray(plan.best_move, np.int32)
        use = (known >= 0) & (np.asarray(plan.lo) >= np.asarray(plan.hi))
        best = np.where(use, known, best)
        pv = np.where(use[:, None], np.full_like(pv, -1), pv)
        if pv.shape[1]:
            pv[:, 0] = np.where(use, known, pv[:, 0])
    mover = np.clip(np.asarray(jax.vmap(game.player)(roots)), 0, 1)
    vectors = np.where(
        mover[:, None] == 0, np.stack([value, -value], 1), np.stack([-value, value], 1)
    )
    counters = {k: np.asarray(getattr(jobs.counters, k), np.int64) for k in Counters._fields}
    stats: dict[str, Any] = {k: int(v.sum()) for k, v in counters.items()}
    upper = (value <= alpha) & (alpha > game.utility_min)
    lower = (value >= beta) & (beta < game.utility_max)
    stats.update(
        {
            "bound": np.where(upper, -1, np.where(lower, 1, 0)).astype(np.int8),
            "leaves_per_root": counters["leaves"],
            "cutoffs_per_root": counters["cutoffs"],
            "tt_hits_per_root": counters["tt_hits"],
            "exact_hits_per_root": counters["exact_hits"],
            "searches_per_root": np.asarray(jobs.iteration, np.int64),
            "time_s": time.perf_counter() - started,
            "compile_s": compile_s,
            "exact": run.exact,
            "lanes": num_lanes,
            "lane_phases": list(phases),
            "devices": devices if mesh is not None else 1,
            "ordering": dict(run.summary),
        }
    )
    return BatchSearchResult(
        value=vectors.astype(np.float32),
        best_action=best,
        pv=pv,
        nodes=counters["nodes"],
        stats=stats,
    )


def _validate(game: Game, depth: int) -> None:
    if game.num_players != 2 or not game.zero_sum:
        raise GameError(
            f"alphabeta: {game.name} is not a two-player zero-sum game; use maxn or minimax"
        )
    if game.num_chance_outcomes:
        raise GameError(f"alphabeta: {game.name} has chance nodes; use expectiminimax")
    if depth < 0:
        raise GameError(f"alphabeta: depth must be >= 0, got {depth}")


def _root_window(game: Game, window: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The roots' windows as two float32[N] arrays (alpha, beta); a bad one is refused."""
    if window is None:
        alpha, beta = game.utility_min, game.utility_max
    else:
        try:
            alpha, beta = window
        except (TypeError, ValueError):
            raise GameError(
                f"alphabeta: window must be a pair (alpha, beta), got {window!r}"
            ) from None
    try:
        alpha = np.broadcast_to(np.asarray(alpha, np.float32), (n,))
        beta = np.broadcast_to(np.asarray(beta, np.float32), (n,))
    except ValueError:
        raise GameError(
            f"alphabeta: window bounds must be numbers or arrays of one per root ({n}), got "
            f"shapes {np.shape(alpha)} and {np.shape(beta)}"
        ) from None
    bad = np.flatnonzero(~(alpha < beta))  # NaN is bad too
    if bad.size:
        i = int(bad[0])
        raise GameError(
            f"alphabeta: window needs alpha < beta, but root {i} has "
            f"({alpha[i]}, {beta[i]}) ({bad.size} roots in all)"
        )
    return alpha, beta
