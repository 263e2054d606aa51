"""The Star lanes' frames: a frame per node on a lane's path, packed in one float32 row; the
lane, outcome and counters the lane engine moves around; the static config of one search."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

MAX, MIN, CHANCE_KIND = 0, 1, 2
PRUNING_CODES = {"none": 0, "alphabeta": 1, "star1": 2, "star2": 3}
ORDERS = ("none", "hint", "lookahead")  # "none": the list's own order (no hint to follow)
MIN_LEAF_BATCH = 8  # children settled per event at the horizon's edge, at least


class Config(NamedTuple):
    """What one compiled search is (static)."""

    depth: int  # plies below each root
    outcomes: int  # K: chance outcomes (1 for a deterministic game)
    max_moves: int  # M: moves a decision frame holds
    leaf_batch: int  # W: children stepped and valued together in an event (>= K)
    low: float  # the game's utility bounds
    high: float
    pruning: int  # PRUNING_CODES
    order: str  # one of ORDERS
    move_dtype: str  # "int16" where every action fits, else "int32"
    keep_lists: bool  # Star2: the probing pass keeps its lists for the full pass (below)

    @property
    def frames(self) -> int:
        return self.depth + 1


class Frame(NamedTuple):
    """One frame, unpacked (values are player 0's)."""

    kind: jax.Array  # int32: MAX, MIN or CHANCE_KIND
    alpha: jax.Array  # float32: the window the frame was opened with
    beta: jax.Array  # float32
    best: jax.Array  # float32: decision frames: best child value so far
    best_move: jax.Array  # int32
    count: jax.Array  # int32: children to try in this pass
    cursor: jax.Array  # int32: children tried in this pass (their place in the list)
    phase: jax.Array  # int32: chance frames: 0 = Star2 probing pass, 1 = full pass
    last: jax.Array  # int32: the move (outcome) of the child most recently opened
    cut: jax.Array  # int32: chance frames: 1 = failed high, 2 = failed low (full pass)
    probe_only: jax.Array  # bool: a Star2 probe: search the first move only
    reuse: jax.Array  # float32[4]: decision frames: (known?, value, alpha, beta) of move 1
    prob: jax.Array  # float32[K]: chance frames: P(outcome)
    lo: jax.Array  # float32[K]: bounds on each outcome's value
    hi: jax.Array  # float32[K]
    probed: jax.Array  # bool[K]: Star2 probed outcome r's first move ...
    probe: jax.Array  # float32[K, 3]: ... and got (value, alpha, beta)
    outcomes: jax.Array  # int32[K]: the outcomes of nonzero probability, then -1
    kept: jax.Array  # int32[K]: the length of outcome r's list kept by the probe (-1: none)
    pv: jax.Array  # int32[F]: the best line from this frame (-1 padded)


_INTS = frozenset(
    ("kind", "best_move", "count", "cursor", "phase", "last", "cut", "outcomes", "kept", "pv")
)
_BOOLS = frozenset(("probe_only", "probed"))


def _shapes(config: Config) -> dict[str, tuple[int, ...]]:
    k = config.outcomes
    shapes = dict.fromkeys(Frame._fields, ())
    shapes.update(reuse=(4,), prob=(k,), lo=(k,), hi=(k,), probed=(k,), probe=(k, 3))
    shapes.update(outcomes=(k,), kept=(k,), pv=(config.frames,))
    return shapes


def offsets(config: Config) -> dict[str, int]:
    """Where each field of a frame starts in its packed row."""
    at, out = 0, {}
    for name, shape in _shapes(config).items():
        out[name] = at
        at += int(np.prod(shape))
    return out


def pack(frame: Frame) -> jax.Array:
    """A frame as one float32 row (integers below 2**24 are exact): an event then reads and
    writes whole rows, where a column per field made dozens of small gathers and scatters."""
    return jnp.concatenate([jnp.asarray(x, jnp.float32).reshape(-1) for x in frame])


def unpack(row: jax.Array, config: Config) -> Frame:
    """The inverse of :func:`pack`."""
    fields, at = {}, 0
    for name, shape in _shapes(config).items():
        size = int(np.prod(shape))
        x = row[at : at + size].reshape(shape)
        at += size
        fields[name] = x.astype(jnp.int32) if name in _INTS else (x > 0.5) if name in _BOOLS else x
    return Frame(**fields)


def empty(config: Config) -> Frame:
    """A frame with nothing in it (the rows of a lane's stack above its current frame)."""
    k, f = config.outcomes, config.frames
    i0, f0, no = jnp.int32(0), jnp.float32(0.0), jnp.int32(-1)
    return Frame(
        kind=i0,
        alpha=f0,
        beta=f0,
        best=f0,
        best_move=no,
        count=i0,
        cursor=i0,
        phase=jnp.int32(1),
        last=no,
        cut=i0,
        probe_only=jnp.bool_(False),
        reuse=jnp.zeros((4,), jnp.float32),
        prob=jnp.zeros((k,), jnp.float32),
        lo=jnp.zeros((k,), jnp.float32),
        hi=jnp.zeros((k,), jnp.float32),
        probed=jnp.zeros((k,), jnp.bool_),
        probe=jnp.zeros((k, 3), jnp.float32),
        outcomes=jnp.full((k,), -1, jnp.int32),
        kept=jnp.full((k,), -1, jnp.int32),
        pv=jnp.full((f,), -1, jnp.int32),
    )


class Lane(NamedTuple):
    """One lane: its stack and counters. F = frames, R = row width, M = moves, W = batch."""

    state: Any  # [F] states
    rows: jax.Array  # float32[F, R]: each frame packed
    moves: jax.Array  # int16/int32[F, M + W]: decision frames' lists, best first, then -1
    kept: jax.Array  # int16/int32[K, M] (or [0, 0]): the lists the probing pass made
    sp: jax.Array  # int32[]: the current frame
    pending: jax.Array  # bool[]: the current frame's list is still to be made
    done: jax.Array  # bool[]
    job: jax.Array  # int32[]: the root searched (-1: idle)
    iteration: jax.Array  # int32[]
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]: decision frames left before their last move
    chance_cutoffs: jax.Array  # int32[]: chance frames left early in the full pass
    probe_cutoffs: jax.Array  # int32[]: chance frames left in the probing pass


class Outcome(NamedTuple):
    value: jax.Array  # float32: the root's value for player 0
    best_move: jax.Array  # int32
    pv: jax.Array  # int32[F]


class Counters(NamedTuple):
    nodes: jax.Array
    leaves: jax.Array
    cutoffs: jax.Array
    chance_cutoffs: jax.Array
    probe_cutoffs: jax.Array


def select(mask: jax.Array, new: Any, old: Any) -> Any:
    return jax.tree.map(lambda a, b: jnp.where(mask, a, b), new, old)


def chance_value(f: Frame) -> jax.Array:
    """A chance frame's fail-soft value (:func:`fail_soft`)."""
    return fail_soft(f.prob @ f.lo, f.prob @ f.hi, f.alpha, f.beta, f.cut)


def fail_soft(p_lo, p_hi, alpha, beta, cut) -> jax.Array:
    """A chance node's fail-soft value from ``sum p lo`` and ``sum p hi``: ``sum p lo``
    once all is known, or the bound that cleared the window (at least beta on a fail high,
    at most alpha on a fail low)."""
    high = (cut == 1) | (p_lo >= beta)
    low = (cut == 2) | (p_hi <= alpha)
    return jnp.where(high, jnp.maximum(p_lo, beta), jnp.where(low, jnp.minimum(p_hi, alpha), p_lo))
