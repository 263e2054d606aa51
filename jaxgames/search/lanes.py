"""The lane engine: many independent searches side by side on the device, in lockstep.

A lockstep search (alpha-beta, maxⁿ, the Star lanes of expectiminimax) runs every root as
its own depth-first search with an explicit stack, one *lane* per search, all lanes
advancing by one *event* per loop iteration. What differs between searches is the lane
(its frame layout) and the event; everything else is here, once:

* **the work queue**: ``N`` jobs (roots), ``L`` lanes; a lane that finishes takes the next
  job, so lanes stay busy however unequal the searches are;
* **iterations**: a job may take several searches of the same root (iterative deepening,
  null-window tests that close in on the value): after each, the search's ``iterate``
  says whether the job is done or what the next search is (its *plan*), and the lane that
  finished goes on with it, keeping what it learned (killers, history, the PV);
* **helpers**: once the queue is empty, idle lanes join the jobs still running (the least
  helped first) and search the same plan from the same root, differently ordered
  (``helper`` counts them), sharing what the search shares between lanes (a
  transposition table): the first lane to finish a plan settles it, and lanes still on a
  settled plan move on. Without helpers, idle lanes wait;
* **narrowing**: without helpers, once the queue is empty and the busy lanes fit in a
  narrower loop, they are compacted into it (an event costs about the same however few of
  its lanes are busy), down the widths of :func:`lane_phases`;
* **sharding**: with a mesh of several devices, each searches its own contiguous share of
  the jobs with its own lanes, queue and shared state (``shard_map``);
* **counters**: each lane's counters (nodes, leaves, ...) are added to its job's when the
  lane leaves it, helpers included.

A search supplies a :class:`LaneProgram` (typed callables, no flags) and a lane pytree
with the fields of :class:`LaneFields`; ``run`` is traced inside the search's own ``jit``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec

_MIN_LANES_TO_SHRINK = 128  # narrower phases cost a compile each: only for wide searches
_COMPACT_REOPEN_FROM = 32  # lanes from which a refill opens only those that reopen


class LaneFields(Protocol):
    """The fields every lane pytree has (the engine reads and sets them)."""

    job: jax.Array  # int32[]: the job (root) this lane works on; -1: idle
    iteration: jax.Array  # int32[]: which of the job's searches (plans) it is on
    done: jax.Array  # bool[]: this lane's search has finished


class LaneProgram(NamedTuple):
    """What a lockstep search supplies to the engine. Shapes: ``[L]`` lanes."""

    start: Callable[..., Any]
    """``(root, job, iteration, plan, helper, old_lane, same_job, shared) -> lane``, for ONE
    lane:
    open a search of ``root`` (one state) by ``plan``; ``old_lane`` is what the lane held
    before (its learning is worth keeping when ``same_job``); ``helper`` is 0 for the first
    lane on a plan and counts the helpers that joined it."""
    advance: Callable[..., Any]
    """``(lanes [L], shared) -> (lanes, shared)``: one event of every lane."""
    outcome: Callable[..., Any]
    """``(lane) -> pytree``: what a finished search found (for ``iterate`` and results)."""
    iterate: Callable[..., Any]
    """``(plan, outcome) -> (final: bool[], next_plan)``, for ONE job: after a search by
    ``plan``, is the job settled, or which search comes next."""
    counters: Callable[..., Any]
    """``(lane) -> pytree of int32[]``: counters to add to the lane's job when it leaves."""
    rewidth: Callable[..., Any]
    """``(shared, width) -> shared``: the shared state made ready for a loop of ``width``
    lanes (before every phase: a search that carries per-lane writes settles them)."""


class Jobs(NamedTuple):
    """The engine's record of every job, ``[N]`` leading every field."""

    plan: Any  # the search each job is on (a pytree of [N] arrays)
    iteration: jax.Array  # int32[N]: how many searches the job has finished
    final: jax.Array  # bool[N]: the job is settled
    outcome: Any  # the settling search's outcome (valid where final)
    counters: Any  # what every lane spent on the job


def lane_phases(num_lanes: int, shrink: int) -> tuple[int, ...]:
    """Lane counts of the successive phases of a batched search: ``L, L/s, L/s^2, ...``.

    Searches of different roots differ in size by orders of magnitude, and a lockstep loop
    costs about the same per event however few of its lanes are busy; so once the queue is
    empty and the busy lanes fit in ``L/s`` they move to a loop that wide, whose events are
    cheaper. Each phase compiles once more, so only searches of 128 lanes or more shrink, at
    most twice, and never below 8 lanes.

    Args:
        num_lanes: lanes of the first phase.
        shrink: the factor between phases (0 or 1: a single phase).
    """
    sizes = [num_lanes]
    if shrink > 1 and num_lanes >= _MIN_LANES_TO_SHRINK:
        while len(sizes) < 3 and sizes[-1] // shrink >= 8:
            sizes.append(sizes[-1] // shrink)
    return tuple(sizes)


def write_row(x: Any, i: jax.Array, value: Any, active: Any = True) -> Any:
    """Row ``i`` of every leaf of ``x`` (a lane's stack: states, packed frames, move lists)
    set to ``value`` where ``active``; an inactive write goes to an out-of-range row and is
    dropped, so the old row is not read."""

    def one(column, v):
        n = column.shape[0]
        return column.at[jnp.where(active, i, n)].set(jnp.asarray(v, column.dtype), mode="drop")

    return jax.tree.map(one, x, value)


def _rows(x: Any, index: jax.Array) -> Any:
    return jax.tree.map(lambda v: v[index], x)


def _where(mask: jax.Array, new: Any, old: Any) -> Any:
    """Lane-wise select over pytrees whose leaves lead with ``[L]``."""
    return jax.tree.map(
        lambda a, b: jnp.where(mask.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), new, old
    )


def run(
    program: LaneProgram,
    roots: Any,
    plans: Any,
    outcome_like: Any,
    counters_like: Any,
    shared: Any,
    phases: tuple[int, ...],
    events: int,
    helpers: bool,
) -> tuple[Jobs, Any]:
    """Settle every job: ``roots`` [N] searched by ``plans`` [N] (their first searches).

    Args:
        program: the search's callables.
        roots: the jobs' root states, ``[N]``.
        plans: each job's first plan, a pytree of ``[N]`` arrays.
        outcome_like, counters_like: one job's outcome and counters (shapes, dtypes and
            initial values; counters start from these).
        shared: what all lanes share (a transposition table), threaded through ``advance``.
        phases: lane widths (:func:`lane_phases`); helpers use the first only.
        events: events between refills.
        helpers: idle lanes help the jobs still running once the queue is empty.

    Returns:
        ``(jobs, shared)``: every job settled, with its outcome and counters.
    """
    n = jax.tree.leaves(roots)[0].shape[0]
    width = phases[0]
    ids = jnp.arange(width, dtype=jnp.int32)
    starts = jax.vmap(program.start, in_axes=(0, 0, 0, 0, 0, 0, 0, None))
    outcomes = jax.vmap(program.outcome)
    iterates = jax.vmap(program.iterate)
    counts = jax.vmap(program.counters)

    def tile(like: Any) -> Any:
        return jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x), (n, *jnp.shape(x))), like)

    jobs = Jobs(
        plan=plans,
        iteration=jnp.zeros((n,), jnp.int32),
        final=jnp.zeros((n,), jnp.bool_),
        outcome=tile(outcome_like),
        counters=tile(counters_like),
    )
    # the first lanes take the first jobs; with helpers, lanes beyond N join them in turn
    first = jnp.where(ids < n, ids, ids % n if helpers else -1)
    no = jnp.zeros((width,), jnp.bool_)
    lanes = _open(starts, roots, jobs, shared, first, no, _helper_counts(first), None)

    def body(carry):
        lanes, shared, jobs, next_job = carry
        lanes, shared = jax.lax.fori_loop(
            0, events, lambda _, c: program.advance(*c), (lanes, shared)
        )
        refill = functools.partial(
            _refill, program, starts, outcomes, iterates, counts, roots, helpers=helpers
        )
        # a refill opens a search in every lane and selects over whole lanes (stacks,
        # history): dearer than several events, so it runs only when some lane has
        # something to leave or take
        return jax.lax.cond(
            _refill_needed(lanes, jobs, next_job),
            lambda c: refill(*c),
            lambda c: c,
            (lanes, shared, jobs, next_job),
        )

    carry = (lanes, shared, jobs, jnp.int32(min(width, n)))
    for narrower in (*phases[1:], 0) if not helpers else (0,):
        carry = (carry[0], program.rewidth(carry[1], carry[0].job.shape[0]), *carry[2:])

        def cond(carry, narrower=narrower):
            lanes, _, _, next_job = carry
            busy = lanes.job >= 0
            fits = (next_job >= n) & (jnp.sum(busy, dtype=jnp.int32) <= narrower)
            return jnp.any(busy) & ~fits

        carry = jax.lax.while_loop(cond, body, carry)
        if narrower:  # the busy lanes first (stable), then idle ones to fill the width
            order = jnp.argsort(carry[0].job < 0, stable=True)[:narrower]
            carry = (_rows(carry[0], order), *carry[1:])
    _, shared, jobs, _ = carry
    return jobs, program.rewidth(shared, 0)


def on_picked(fn: Callable[..., Any], active: jax.Array, size: int, inputs: Any, base: Any) -> Any:
    """``base`` (leaves ``[L, ...]``) with the rows where ``active`` (bool[L], at most
    ``size`` of them) replaced by ``fn`` of those rows of ``inputs``, which runs on a
    compact batch of ``size``: a vmapped function costs about the rows it is given."""
    width = active.shape[0]
    (pick,) = jnp.nonzero(active, size=size, fill_value=width)  # width: dropped below
    out = fn(*_rows(inputs, jnp.minimum(pick, width - 1)))
    return jax.tree.map(lambda b, o: b.at[pick].set(o, mode="drop"), base, out)


def _helper_counts(job: jax.Array) -> jax.Array:
    """int32[L]: the lanes before each one on the same job (0: the first on it)."""
    ids = jnp.arange(job.shape[0])
    before = (job[None, :] == job[:, None]) & (ids[None, :] < ids[:, None])  # [L, L]
    return jnp.sum(before, axis=1, dtype=jnp.int32)


def _open(starts, roots, jobs, shared, job, same, helper, old):
    """Lanes (``[K]``) opened on ``job`` (-1: idle) at each job's current plan."""
    safe = jnp.maximum(job, 0)
    return starts(
        _rows(roots, safe),
        job,
        jobs.iteration[safe],
        _rows(jobs.plan, safe),
        helper,
        old,
        same,
        shared,
    )


def _reopen(starts, lanes, roots, jobs, job, same, shared, reopen):
    """``lanes`` with the lanes in ``reopen`` opened on ``job``: where few reopen (as in
    nearly every refill), only those, in a compact batch of a quarter of the lanes (opening
    a search costs the game's move generation, and a select over whole lanes costs their
    stacks); else every lane."""
    width = job.shape[0]
    open_ = functools.partial(_open, starts, roots, jobs, shared)
    inputs = (job, same, _helper_counts(job), lanes)

    def every(lanes):
        return _where(reopen, open_(*inputs), lanes)

    if width < _COMPACT_REOPEN_FROM:  # a second opening to compile for little gain
        return every(lanes)
    few = width // 4

    def compact(lanes):
        return on_picked(open_, reopen, few, inputs, lanes)

    return jax.lax.cond(jnp.sum(reopen) <= few, compact, every, lanes)


def _standing(lanes: Any, jobs: Jobs) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """``(working, safe, finished, stale)``, each ``[L]``: the lane has a job; its job index
    (0 for idle lanes); it finished its search of the job's current plan; it is still on a
    plan another lane has settled."""
    working = lanes.job >= 0
    safe = jnp.maximum(lanes.job, 0)
    current = working & (lanes.iteration == jobs.iteration[safe]) & ~jobs.final[safe]
    return working, safe, current & lanes.done, working & ~current


def _refill_needed(lanes: Any, jobs: Jobs, next_job: jax.Array) -> jax.Array:
    """bool[]: some lane finished its search or is on a plan another lane settled, or an
    idle lane could take a queued job (else a refill would change nothing)."""
    working, _, finished, stale = _standing(lanes, jobs)
    queued = next_job < jobs.iteration.shape[0]
    return jnp.any(finished | stale) | (jnp.any(~working) & queued)


def _refill(
    program, starts, outcomes, iterates, counts, roots, lanes, shared, jobs, next_job, helpers
):
    """Settle what finished, then give every lane that left its search its next one."""
    n = jobs.iteration.shape[0]
    width = lanes.job.shape[0]
    ids = jnp.arange(width, dtype=jnp.int32)
    working, safe, finished, stale = _standing(lanes, jobs)
    # one lane settles each job's plan: the first (lowest index) of its finishers this round
    claim = (
        jnp.full((n,), width, jnp.int32).at[jnp.where(finished, lanes.job, n)].min(ids, mode="drop")
    )
    winner = finished & (claim[safe] == ids)
    outcome = outcomes(lanes)
    final, next_plan = iterates(_rows(jobs.plan, safe), outcome)
    slot = jnp.where(winner, lanes.job, n)  # out of range: dropped
    settled = jnp.where(winner & final, lanes.job, n)
    leaving = finished | stale
    leave_slot = jnp.where(leaving, lanes.job, n)
    jobs = Jobs(
        plan=jax.tree.map(lambda j, p: j.at[slot].set(p, mode="drop"), jobs.plan, next_plan),
        iteration=jobs.iteration.at[slot].add(1, mode="drop"),
        final=jobs.final.at[settled].set(True, mode="drop"),
        outcome=jax.tree.map(lambda j, o: j.at[settled].set(o, mode="drop"), jobs.outcome, outcome),
        counters=jax.tree.map(
            lambda j, c: j.at[leave_slot].add(c, mode="drop"), jobs.counters, counts(lanes)
        ),
    )
    # next: the same job's next search while it is open; else a job from the queue; else,
    # with helpers, the open job with the fewest lanes; else nothing
    go_on = leaving & ~jobs.final[safe]
    free = (leaving & ~go_on) | ~working
    rank = jnp.cumsum(free.astype(jnp.int32)) - 1
    queued = next_job + rank
    from_queue = free & (queued < n)
    job = jnp.where(go_on, lanes.job, jnp.where(from_queue, queued, jnp.where(free, -1, lanes.job)))
    if helpers:
        job = _help(jobs, job, free & ~from_queue)
    next_job = next_job + jnp.sum(from_queue, dtype=jnp.int32)
    reopen = leaving | (~working & (job >= 0))
    lanes = _reopen(starts, lanes, roots, jobs, job, go_on, shared, reopen)
    return lanes, shared, jobs, next_job


def _help(jobs, job, idle):
    """Idle lanes join the open jobs with the fewest lanes, in turn."""
    n = jobs.iteration.shape[0]
    load = jnp.zeros((n,), jnp.int32).at[jnp.where(job >= 0, job, n)].add(1, mode="drop")
    open_jobs = (~jobs.final) & (load > 0)
    key = jnp.where(open_jobs, load, jnp.iinfo(jnp.int32).max)
    order = jnp.argsort(key, stable=True)  # open jobs, least helped first
    count = jnp.sum(open_jobs, dtype=jnp.int32)
    rank = jnp.cumsum(idle.astype(jnp.int32)) - 1
    pick = order[rank % jnp.maximum(count, 1)]
    return jnp.where(idle & (count > 0), pick, job)


def on_devices(
    fn: Callable[..., Any], mesh: Mesh | None, sharded: tuple[Any, ...], *rest: Any
) -> Any:
    """``fn(*sharded, *rest)`` on one device, or on every device of ``mesh`` with
    ``shard_map``: each takes its contiguous share of every leading axis in ``sharded``
    (the jobs, and a per-device shared state stacked ``[devices, ...]``), ``rest`` is
    replicated, and the outputs are stacked along the same axis."""
    if mesh is None:
        return fn(*sharded, *rest)
    axis = mesh.axis_names[0]
    spec = PartitionSpec(axis)
    return jax.shard_map(
        lambda *s: fn(*s, *rest),
        mesh=mesh,
        in_specs=tuple(spec for _ in sharded),
        out_specs=spec,
        check_vma=False,
    )(*sharded)


@functools.partial(jax.jit, static_argnums=(0, 1))
def run_on_devices(
    search: Callable[..., Any],
    mesh: Mesh | None,
    sharded: tuple[Any, ...],
    replicated: tuple[Any, ...] = (),
) -> Any:
    """``search(*sharded, *replicated)`` compiled, on one device or each device of ``mesh``
    its contiguous share of ``sharded`` (:func:`on_devices`).

    ``search`` is what one device runs (typically :func:`run` of a search's program): a
    hashable value, such as a frozen dataclass of the search's static settings, so that
    equal searches share one compilation.
    """
    return on_devices(search, mesh, sharded, *replicated)
