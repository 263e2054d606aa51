"""Afterstates of a batch of decisions as one flat, padded list, and the choice among them.

At a decision the learner (and every 1-ply player) scores each position the move can lead
to, its afterstate. The afterstates of ``B`` lanes are listed as ``(lane, rank)`` pairs,
``rank < count[lane]``, flattened into one list padded to a bucket size ``P`` (a power of
two, chosen on the host from the total), so a batch whose decisions have tens of moves each
is scored in one call of a few thousand rows instead of ``B x max_moves``, and the compiled
programs number a handful (one per bucket).

A game may list its plays by rank itself (:class:`Afterstates`: backgammon counts the
distinct plays of each roll); otherwise the legal mask is ranked (fine for the small action
spaces of connect four or tic-tac-toe).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import jax
import jax.numpy as jnp

from jaxgames.game import Game
from jaxgames.kernels import bucket_size

State = Any


@runtime_checkable
class Afterstates(Protocol):
    """The plays of a batch of decisions, counted and decoded by rank (BATCHED)."""

    def play_counts(self, states: State) -> jax.Array:
        """``int32[B]``: the legal plays of each decision (0 at chance nodes and finished
        games)."""
        ...

    def plays_by_rank(self, states: State, lane: jax.Array, rank: jax.Array) -> jax.Array:
        """``int32[P]``: the action of play ``rank[j]`` of lane ``lane[j]``."""
        ...


@runtime_checkable
class ValueEncoding(Protocol):
    """The input of a value network: a position as features, from one player's side."""

    num_features: int

    def features(self, state: State) -> jax.Array:
        """``float32[num_features]``: ``state`` seen by :meth:`viewer` (ONE state)."""
        ...

    def viewer(self, state: State) -> jax.Array:
        """``int32``: the player whose win probability the network gives for ``state``: the
        one who made the position by their move (not the one to move next)."""
        ...


def play_counts(game: Game, states: State) -> jax.Array:
    """int32[B]: the plays of each lane (the game's own counter, else the legal mask)."""
    if isinstance(game, Afterstates):
        return game.play_counts(states)
    masks = jax.vmap(game.legal_mask)(states)  # [B, A]
    deciding = jax.vmap(game.player)(states) >= 0
    return jnp.where(deciding, jnp.sum(masks, axis=1), 0).astype(jnp.int32)


def plays_by_rank(game: Game, states: State, lane: jax.Array, rank: jax.Array) -> jax.Array:
    """int32[P]: the action of play ``rank`` of lane ``lane`` (see :func:`play_counts`)."""
    if isinstance(game, Afterstates):
        return game.plays_by_rank(states, lane, rank)
    masks = jax.vmap(game.legal_mask)(states)[lane]  # [P, A]
    order = jnp.cumsum(masks, axis=1) - 1  # the rank of each legal action
    hit = masks & (order == rank[:, None])
    return jnp.argmax(hit, axis=1).astype(jnp.int32)


def bucket(total: int, smallest: int = 64) -> int:
    """The list size for ``total`` pairs: the next power of two, at least ``smallest``."""
    return bucket_size(total, smallest)


def pairs(counts: jax.Array, size: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(lane, rank, valid)``, each ``[size]``: the flat list of ``(lane, rank)`` pairs of
    ``counts int32[B]`` in lane order, padded (``valid`` False) to ``size``."""
    ends = jnp.cumsum(counts)  # [B]
    slot = jnp.arange(size, dtype=jnp.int32)
    lane = jnp.searchsorted(ends, slot, side="right").astype(jnp.int32)
    valid = slot < ends[-1]
    lane = jnp.minimum(lane, counts.shape[0] - 1)
    rank = slot - (ends[lane] - counts[lane])
    return lane, jnp.where(valid, rank, 0), valid


def best_per_lane(
    scores: jax.Array, lane: jax.Array, valid: jax.Array, lanes: int
) -> tuple[jax.Array, jax.Array]:
    """``(index int32[lanes], found bool[lanes])``: for each lane, the position in the flat
    list of its highest-scoring valid pair (the first on ties); ``found`` False for a lane
    without pairs (its index is 0)."""
    masked = jnp.where(valid, scores, -jnp.inf)
    top = jax.ops.segment_max(masked, lane, num_segments=lanes)  # [lanes]
    slot = jnp.arange(scores.shape[0], dtype=jnp.int32)
    is_top = valid & (masked == top[lane])
    first = jax.ops.segment_min(jnp.where(is_top, slot, scores.shape[0]), lane, num_segments=lanes)
    found = first < scores.shape[0]
    return jnp.where(found, first, 0).astype(jnp.int32), found
