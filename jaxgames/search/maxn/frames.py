"""maxⁿ lanes' frames: a frame per node on a lane's path, packed in one float32 row, and
the lane, plan, outcome and counters the lane engine moves around."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.capabilities import MoveLists
from jaxgames.game import Game


class Constants(NamedTuple):
    """The pruning tests' constants, traced (other bounds compile nothing new)."""

    shallow_base: jax.Array  # float32: S - (n - 2) L
    own_max: jax.Array  # float32: the most any one component can be


class Frame(NamedTuple):
    """One node on a lane's path, unpacked (a frame is stored as one float32 row)."""

    mover: jax.Array  # int32
    count: jax.Array  # int32: moves in the node's list; -1: not generated yet
    cursor: jax.Array  # int32: moves searched (the list's next entry)
    best_move: jax.Array  # int32: -1 until a child has reported
    last: jax.Array  # int32: the move most recently expanded
    threshold: jax.Array  # float32: shallow pruning once best[mover] >= threshold
    alpha: jax.Array  # float32: paranoid window on the root player's component
    beta: jax.Array  # float32
    cut: jax.Array  # bool: the node's remaining moves are pruned
    best: jax.Array  # float32[P]: the best child's vector so far
    pv: jax.Array  # int32[F]: the best line found from the node (-1 padded)


_SCALARS = Frame._fields[:9]
_INTS = frozenset(("mover", "count", "cursor", "best_move", "last"))


def pack(frame: Frame) -> jax.Array:
    """A frame as one float32 row ``[scalars | best (P) | pv (F)]``: an event then reads
    and writes whole rows, not a column per field (integers below 2**24 are exact)."""
    scalars = jnp.stack([jnp.asarray(getattr(frame, k), jnp.float32) for k in _SCALARS])
    return jnp.concatenate([scalars, frame.best.astype(jnp.float32), frame.pv.astype(jnp.float32)])


def unpack(row: jax.Array, players: int) -> Frame:
    """The inverse of :func:`pack`."""
    fields = {
        k: row[i].astype(jnp.int32) if k in _INTS else row[i] > 0.5 if k == "cut" else row[i]
        for i, k in enumerate(_SCALARS)
    }
    at = len(_SCALARS)
    return Frame(**fields, best=row[at : at + players], pv=row[at + players :].astype(jnp.int32))


class Plan(NamedTuple):
    """A job's one search."""

    depth: jax.Array  # int32: plies below the root (0 for padding: settled at once)
    root_player: jax.Array  # int32: paranoid: the player the coalition plays against


class Outcome(NamedTuple):
    value: jax.Array  # float32[P]
    best_move: jax.Array  # int32
    pv: jax.Array  # int32[F]


class Counters(NamedTuple):
    nodes: jax.Array  # the root and every child expanded
    leaves: jax.Array  # positions scored by UTILITY or EVAL
    cutoffs: jax.Array  # frames left with moves unsearched


class Lane(NamedTuple):
    """One lane: the path from its root, F = depth + 1 frames (frame t: t plies down)."""

    state: Any  # [F] states
    rows: jax.Array  # float32[F, R]: each frame packed
    moves: jax.Array  # int16 or int32[F, M]: each frame's moves, in action order, -1 padded
    sp: jax.Array  # int32[]: the current frame
    done: jax.Array  # bool[]
    job: jax.Array  # int32[]: the root searched (-1: idle)
    iteration: jax.Array  # int32[]
    depth: jax.Array  # int32[]: this search's plies
    root_player: jax.Array  # int32[]
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]


def max_moves(game: Game) -> int:
    """The moves a frame holds: the game's ``max_moves`` bound, else its action space."""
    return int(game.max_moves) if isinstance(game, MoveLists) else game.num_actions


def move_list(game: Game, state: Any) -> jax.Array:
    """int32[M]: ``state``'s legal moves in action order, then -1 (children are searched in
    action order: ties go to the lowest action, and shallow pruning relies on it)."""
    if isinstance(game, MoveLists):
        top = jnp.iinfo(jnp.int32).max
        moves = game.legal_moves(state).astype(jnp.int32)
        moves = jnp.sort(jnp.where(moves < 0, top, moves))  # a list may come in any order
        return jnp.where(moves == top, -1, moves)
    (moves,) = jnp.nonzero(game.legal_mask(state), size=game.num_actions, fill_value=-1)
    return moves.astype(jnp.int32)
