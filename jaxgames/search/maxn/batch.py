"""maxⁿ and paranoid search of many roots at once: the roots as jobs of the lane engine,
padded to few shapes and spread over the local devices; the pruning options."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import progress
from jaxgames.game import Game, GameError
from jaxgames.kernels import batch_size, local_mesh, pad_to, shard_batch, shard_multiple, to_numpy
from jaxgames.search import lanes as engine
from jaxgames.search.horizon import needed_depth
from jaxgames.search.maxn.event import Search
from jaxgames.search.maxn.frames import Constants, Counters, Outcome, Plan
from jaxgames.search.maxn.rules import Paranoid, Plain, Rule, Shallow
from jaxgames.search.result import BatchSearchResult

PRUNINGS = ("auto", "none", "shallow", "alphabeta")


@dataclasses.dataclass(frozen=True)
class _Lanes:
    """Every root's search on one device (:func:`~jaxgames.search.lanes.run_on_devices`);
    the fields are what one compiled search is."""

    game: Game
    rule: Rule
    frames: int
    phases: tuple[int, ...]
    events: int
    helpers: bool

    def __call__(self, roots: Any, plans: Plan, constants: Constants) -> engine.Jobs:
        game, frames = self.game, self.frames
        program = Search(game, self.rule, frames, constants).program()
        outcome_like = Outcome(
            jnp.zeros((game.num_players,), jnp.float32),
            jnp.int32(-1),
            jnp.full((frames,), -1, jnp.int32),
        )
        zero = jnp.int32(0)
        jobs, _ = engine.run(
            program,
            roots,
            plans,
            outcome_like,
            Counters(zero, zero, zero),
            None,
            self.phases,
            self.events,
            self.helpers,
        )
        return jobs


def _search(
    game: Game,
    states: Any,
    depth: int,
    rule: Rule,
    bounds: tuple[float, float],
    root_players: Any,
    lanes: int,
    events: int,
    shrink: int,
    helpers: bool,
    pruning: str,
) -> BatchSearchResult:
    """``states`` [N] searched as jobs of the lane engine (the batch padded to few shapes,
    each device its share where there are several; padding is settled at once)."""
    started = time.perf_counter()
    n = batch_size(states)
    if n == 0:
        raise GameError(f"{pruning}: no positions")
    if lanes < 1 or events < 1 or shrink < 0:
        raise GameError(
            f"{pruning}: lanes and events must be >= 1 and shrink >= 0, got "
            f"{lanes}, {events}, {shrink}"
        )
    depth = needed_depth(game, states, depth)
    if root_players is None:
        root_players = jax.vmap(game.player)(jax.tree.map(jnp.asarray, states))
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and n >= devices else None
    size = 1 << (n - 1).bit_length()
    if mesh is not None:
        size = shard_multiple(size, mesh)
    share = size // (devices if mesh is not None else 1)
    num_lanes = max(1, min(share, lanes)) if not helpers else lanes
    phases = engine.lane_phases(num_lanes, shrink) if not helpers else (num_lanes,)
    roots = jax.tree.map(jnp.asarray, pad_to(to_numpy(states), size))
    plans = Plan(
        depth=jnp.asarray(np.where(np.arange(size) < n, depth, 0), jnp.int32),
        root_player=jnp.asarray(np.pad(np.asarray(root_players, np.int32), (0, size - n))),
    )
    if mesh is not None:
        roots, plans = shard_batch((roots, plans), mesh)
    low, total = bounds
    players = game.num_players

    def others(count: int) -> float:  # count * L, with no other player counting 0 (L = -inf)
        return count * low if count > 0 else 0.0

    own_max = min(float(game.utility_max), total - others(players - 1))
    constants = Constants(jnp.float32(total - others(players - 2)), jnp.float32(own_max))
    per_device = _Lanes(game, rule, depth + 1, phases, events, helpers)
    args = (per_device, mesh, (roots, plans), (constants,))
    compile_start = time.perf_counter()
    with progress.phase(f"compiling {pruning} maxn of {n:,} positions"):
        engine.run_on_devices.lower(*args).compile()
    compile_s = time.perf_counter() - compile_start
    with progress.phase(f"{pruning} maxn of {n:,} positions"):
        jobs = engine.run_on_devices(*args)
    out = jax.tree.map(lambda x: np.asarray(x)[:n], (jobs.outcome, jobs.counters))
    outcome, counters = out
    return BatchSearchResult(
        value=outcome.value.astype(np.float32),
        best_action=outcome.best_move.astype(np.int32),
        pv=outcome.pv[:, :depth].astype(np.int32),
        nodes=counters.nodes.astype(np.int64),
        stats={
            "nodes": int(counters.nodes.sum()),
            "leaves": int(counters.leaves.sum()),
            "cutoffs": int(counters.cutoffs.sum()),
            "leaves_per_root": counters.leaves.astype(np.int64),
            "cutoffs_per_root": counters.cutoffs.astype(np.int64),
            "pruning": pruning,
            "bounds": (low, total),
            "time_s": time.perf_counter() - started,
            "compile_s": compile_s,
            "lanes": num_lanes,
            "lane_phases": list(phases),
            "devices": devices if mesh is not None else 1,
        },
    )


# ---------------------------------------------------------------- options
def pruning_bounds(game: Game, bounds: tuple[float, float] | None = None) -> tuple[float, float]:
    """``(L, S)``: a lower bound on every component and an upper bound on their sum.

    ``bounds`` overrides the game's facts (an explicit tree knows its leaves, not its sum).
    By default ``L = utility_min`` and ``S`` is the tightest of ``utility_sum_max``,
    ``n * utility_max`` and, for zero-sum games, 0.
    """
    if bounds is not None:
        low, total = (float(b) for b in bounds)
        return low, total
    total = min(float(game.utility_sum_max), game.num_players * float(game.utility_max))
    if game.zero_sum:
        total = min(total, 0.0)
    return float(game.utility_min), total


def resolve_pruning(game: Game, pruning: str, agree: bool | None = None) -> str:
    """The pruning a maxⁿ search runs: ``"none"``, ``"shallow"`` or ``"alphabeta"``.

    ``"auto"``: two-player alpha-beta when there are two players whose evaluations agree on
    the order of positions (``agree``; by default: the game is zero-sum), else shallow
    pruning (Korf 1989: alpha-beta is only sound when the functions agree).
    """
    if pruning not in PRUNINGS:
        raise GameError(f"maxn: pruning must be one of {', '.join(PRUNINGS)}, got {pruning!r}")
    agrees = game.zero_sum if agree is None else bool(agree)
    if pruning == "auto":
        return "alphabeta" if game.num_players == 2 and agrees else "shallow"
    if pruning == "alphabeta" and not (game.num_players == 2 and agrees):
        raise GameError(
            f"maxn: pruning='alphabeta' needs two players whose evaluations agree; "
            f"{game.name} has {game.num_players} players"
            + ("" if game.num_players != 2 else " and is not zero-sum (pass agree=True)")
        )
    return pruning


def _check(game: Game, depth: int, what: str) -> None:
    if game.num_chance_outcomes:
        raise GameError(f"{what}: {game.name} has chance nodes; use expectiminimax")
    if depth < 0:
        raise GameError(f"{what}: depth must be >= 0, got {depth}")


def _rule(game: Game, pruning: str, immediate: bool) -> Rule:
    players = game.num_players
    if pruning == "none":
        return Plain(players)
    if pruning == "shallow":
        return Shallow(players, bool(immediate))
    return Paranoid()


# ---------------------------------------------------------------- many roots
def maxn_batch(
    game: Game,
    states: Any,
    depth: int,
    *,
    pruning: str = "auto",
    bounds: tuple[float, float] | None = None,
    agree: bool | None = None,
    immediate: bool = True,
    lanes: int = 256,
    events: int = 16,
    shrink: int = 4,
) -> BatchSearchResult:
    """Depth-limited maxⁿ of many roots at once, each root a job of the lane engine (see
    the module docstring).

    Args:
        game: a deterministic game with any number of players.
        states: a batch ``[N]`` of roots.
        depth: plies below each root.
        pruning: ``"shallow"`` (Korf's shallow and immediate pruning), ``"none"`` (every
            node), ``"alphabeta"`` (two players whose evaluations agree: two-player
            alpha-beta, deep cutoffs included) or ``"auto"`` (alpha-beta where sound, else
            shallow; see :func:`resolve_pruning`). Every choice returns the maxⁿ vector.
        bounds: ``(L, S)`` overriding the game's ``utility_min`` and sum bound
            (:func:`pruning_bounds`); wrong bounds give wrong values.
        agree: for two players, whether their evaluations order positions alike (default:
            the game is zero-sum); only then is alpha-beta used.
        immediate: also prune once the mover's component reaches its maximum.
        lanes: searches run side by side (per device, at most N); events: lane steps
            between refills; shrink: once no root waits, the busy lanes move to loops this
            many times narrower (:func:`~jaxgames.search.lanes.lane_phases`; 0 or 1: never).

    With several local devices and at least as many roots, each device searches its own
    contiguous share of the roots with its own lanes and queue.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` has ``nodes`` (roots and every child
        expanded), ``leaves``, ``cutoffs`` (nodes left with children unsearched), their
        per-root arrays, ``pruning`` (what ran), ``bounds``, ``time_s``, ``compile_s`` and
        what ran (``lanes``, ``lane_phases``, ``devices``).
    """
    _check(game, depth, "maxn")
    pruning = resolve_pruning(game, pruning, agree)
    return _search(
        game,
        states,
        depth,
        _rule(game, pruning, immediate),
        pruning_bounds(game, bounds),
        None,
        lanes,
        events,
        shrink,
        False,
        pruning,
    )


def paranoid_batch(
    game: Game,
    states: Any,
    depth: int,
    *,
    root_players: Any = None,
    lanes: int = 256,
    events: int = 16,
    shrink: int = 4,
) -> BatchSearchResult:
    """Paranoid search of many roots at once: alpha-beta on the root player's component,
    every other player minimising it (Sturtevant and Korf 2000).

    Args:
        root_players: int32[N], the player each search is paranoid for (default: each
            root's player to move; the host driver passes its own root's player).
        lanes, events, shrink: as for :func:`maxn_batch`.

    Returns:
        A :class:`BatchSearchResult`; ``value[i]`` is the vector of the leaf root ``i``'s
        principal variation ends in, and ``value[i, r]`` (``r`` its root player) the
        paranoid value. ``stats`` as for :func:`maxn_batch`.
    """
    _check(game, depth, "paranoid")
    return _search(
        game,
        states,
        depth,
        Paranoid(),
        pruning_bounds(game),
        root_players,
        lanes,
        events,
        shrink,
        False,
        "paranoid",
    )
