"""One lane's explicit stack: frames packed into rows of floats, and the lane around them.

A frame is one node on the path from the root: its window, its best value so far, and its
moves, held as a compact list of at most ``M`` (the game's ``max_moves``) with one
ordering key each. The list is made once, when the node is opened; each event takes the
move with the highest key and sets that key to ``-inf``. A frame never holds an array as
wide as the action space.

All of a frame is packed into one float32 row ``[scalars | keys (M) | moves (M) | pv (F)]``
(``moves`` only when the list is explicit; where every action slot is a move, the slot's
index is the move): an event is then two reads and two writes of the stack, where a column
per field made dozens of small gathers and scatters. Integers below 2**24 are exact in
float32.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.search.alphabeta.options import Config


class Frame(NamedTuple):
    """One frame, unpacked. Values are from the frame's mover's side."""

    mover: jax.Array  # int32
    alpha: jax.Array  # float32
    beta: jax.Array  # float32
    alpha0: jax.Array  # float32: alpha on entry (bound type for the table)
    best: jax.Array  # float32
    best_move: jax.Array  # int32: an action (-1: none yet)
    last_move: jax.Array  # int32: the action most recently expanded
    last_slot: jax.Array  # int32: its place in the list
    count: jax.Array  # int32: moves to search
    cursor: jax.Array  # int32: moves searched so far
    on_pv: jax.Array  # bool: the path to this frame follows the previous PV
    remaining: jax.Array  # int32: plies left below the frame (<= 0: quiescence)
    null_pending: jax.Array  # bool: the frame's next event is its null-move probe
    after_null: jax.Array  # bool: the frame was reached by a null move
    second: jax.Array  # float32: best value among the moves that are not `best_move`
    second_move: jax.Array  # int32
    ext: jax.Array  # int32: extensions on the path to the frame
    extended: jax.Array  # int32: 0, 1 (the next child is searched a ply deeper), 2 (done)
    reduced: jax.Array  # bool: the last child was searched reduced (late move reduction)
    research: jax.Array  # bool: the next event searches that child again in full
    keys: jax.Array  # float32[M]: ordering keys of the moves not searched yet (-inf: none)
    moves: jax.Array  # int32[M]: the moves (listed), or int32[0] (the slot is the move)
    pv: jax.Array  # int32[F]: the best line found from this frame (-1 padded)


_SCALARS = Frame._fields[:-3]
_INTS = frozenset(
    ("mover", "best_move", "last_move", "last_slot", "count", "cursor", "remaining")
    + ("second_move", "ext", "extended")
)
_BOOLS = frozenset(("on_pv", "null_pending", "after_null", "reduced", "research"))


def row_width(config: Config) -> int:
    return len(_SCALARS) + config.max_moves * (2 if config.listed else 1) + config.frames


def pack(frame: Frame) -> jax.Array:
    """A frame as one float32 row."""
    scalars = jnp.stack([jnp.asarray(getattr(frame, k), jnp.float32) for k in _SCALARS])
    return jnp.concatenate(
        [
            scalars,
            frame.keys.astype(jnp.float32),
            frame.moves.astype(jnp.float32),
            frame.pv.astype(jnp.float32),
        ]
    )


def unpack(row: jax.Array, config: Config) -> Frame:
    """The inverse of :func:`pack`."""
    fields: dict[str, Any] = {}
    for i, k in enumerate(_SCALARS):
        x = row[i]
        fields[k] = x.astype(jnp.int32) if k in _INTS else (x > 0.5) if k in _BOOLS else x
    at = len(_SCALARS)
    m = config.max_moves
    keys = row[at : at + m]
    at += m
    if config.listed:
        moves = row[at : at + m].astype(jnp.int32)
        at += m
    else:
        moves = jnp.zeros((0,), jnp.int32)
    return Frame(**fields, keys=keys, moves=moves, pv=row[at:].astype(jnp.int32))


def empty(config: Config) -> Frame:
    i0, f0, no, false = jnp.int32(0), jnp.float32(0.0), jnp.int32(-1), jnp.bool_(False)
    m = config.max_moves
    return Frame(
        mover=i0,
        alpha=f0,
        beta=f0,
        alpha0=f0,
        best=f0,
        best_move=no,
        last_move=no,
        last_slot=no,
        count=i0,
        cursor=i0,
        on_pv=false,
        remaining=i0,
        null_pending=false,
        after_null=false,
        second=jnp.float32(-jnp.inf),
        second_move=no,
        ext=i0,
        extended=i0,
        reduced=false,
        research=false,
        keys=jnp.full((m,), -jnp.inf, jnp.float32),
        moves=jnp.full((m if config.listed else 0,), -1, jnp.int32),
        pv=jnp.full((config.frames,), -1, jnp.int32),
    )


def move_at(frame: Frame, slot: jax.Array, config: Config) -> jax.Array:
    """The action in list slot ``slot``."""
    return frame.moves[slot] if config.listed else slot.astype(jnp.int32)


def slots_of(frame: Frame, config: Config) -> jax.Array:
    """int32[M]: the action of every slot (-1 for empty slots of a list)."""
    return frame.moves if config.listed else jnp.arange(config.max_moves, dtype=jnp.int32)


class Stack(NamedTuple):
    """One lane's frames; F = ``config.frames``."""

    state: Any  # [F] states
    rows: jax.Array  # float32[F, R]: each frame packed


class Lane(NamedTuple):
    """One lane: its stack, where it stands, what it carries between its searches."""

    stack: Stack
    sp: jax.Array  # int32[]: the current frame
    done: jax.Array  # bool[]: the search has finished
    job: jax.Array  # int32[]: the root searched (-1: idle)
    iteration: jax.Array  # int32[]: which search of the job
    depth: jax.Array  # int32[]: this search's depth
    helper: jax.Array  # int32[]: 0 for the first lane on a search; helpers count from 1
    killers: jax.Array  # int32[F, 2]
    history: jax.Array  # float32[2, A] (float32[2, 0] without the history heuristic)
    prev_pv: jax.Array  # int32[F]: the principal variation of the previous search
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]
    tt_hits: jax.Array  # int32[]
    exact_hits: jax.Array  # int32[]: leaves valued by the game's exact values (tables)
    cut_short: jax.Array  # int32[]: leaves scored by EVAL, the table or ProbCut, not UTILITY


def write(x: Any, i: jax.Array, value: Any, active: Any = True) -> Any:
    """Row ``i`` of every leaf of ``x`` set to ``value`` when ``active``, else ``x`` unchanged.

    An inactive write goes to an out-of-range row and is dropped, so the old row is not read.
    """

    def one(column, v):
        n = column.shape[0]
        return column.at[jnp.where(active, i, n)].set(jnp.asarray(v, column.dtype), mode="drop")

    return jax.tree.map(one, x, value)
