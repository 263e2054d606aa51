"""Compact move lists: the legal actions read off the move planes as a list of at most
:data:`MAX_MOVES`, and a uniform legal move drawn from the planes' population counts, both
without building the 1,924-wide legal mask.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.games.chess.encoding import (
    _ACTION_OF_BIT,
    _WORD_WEIGHT,
    NUM_PLANES,
)

MAX_MOVES = 218
"""The most legal moves of any legal chess position (``R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/
kBNN1KB1 w - - 0 1`` has 218, and none reachable from the start has more): the length of
:meth:`Chess.legal_moves`. A position no game reaches (a FEN with a dozen queens) can
have more; its list keeps the first 218."""
_GROUPS = 12  # the 144 plane words as 12 groups of 12, for the two-level search below
assert NUM_PLANES * 2 == _GROUPS * _GROUPS
_UNDER_WORD = 128  # words from here on are the under-promotion planes (3 actions a bit)


def _moves_of(moves: jax.Array) -> jax.Array:
    """int32[MAX_MOVES]: the actions of move planes ``uint32[NUM_PLANES, 2]``, by word
    (plane and half) then square, then ``-1``; no 1,924-wide mask is built.

    Each word's population count (three moves a bit in the under-promotion planes) gives
    the list's slots each word fills; slot ``j``'s word is found by a two-level search
    (which group of 12 words, then which word of the group: 2 x 12 comparisons, not a
    scan over 144), its bit by :func:`_select_bit`, and the action by one table lookup.
    Compacting the 1,924-wide mask instead (``jnp.nonzero``: a cumulative sum and a scatter
    over every action slot) cost over 10 times as much on a CPU.
    """
    words = moves.reshape(-1)  # [144]
    per = jax.lax.population_count(words).astype(jnp.int32) * jnp.asarray(_WORD_WEIGHT)
    end = jnp.cumsum(per)  # slots filled through each word
    j = jnp.arange(MAX_MOVES, dtype=jnp.int32)
    group_end = end[_GROUPS - 1 :: _GROUPS]  # [12]
    group = jnp.minimum(jnp.sum(group_end[None, :] <= j[:, None], axis=-1), _GROUPS - 1)
    inside = jnp.sum(end.reshape(_GROUPS, _GROUPS)[group] <= j[:, None], axis=-1)
    word = group * _GROUPS + jnp.minimum(inside, _GROUPS - 1)  # [M]
    k = j - (end - per)[word]  # the slot's rank among its word's moves
    under = word >= _UNDER_WORD
    rank = jnp.where(under, k // 3, k)
    choice = k - jnp.where(under, 3 * rank, k)  # which under-promotion, else 0
    bit = _select_bit(words[word], rank)
    action = jnp.asarray(_ACTION_OF_BIT.reshape(-1))[(word * 32 + bit) * 3 + choice]
    return jnp.where(j < end[-1], action, -1)


def _select_bit(word: jax.Array, rank: jax.Array) -> jax.Array:
    """The index of the ``rank``-th (from 0) set bit of ``word`` (uint32): a binary search
    on the population counts of its lower halves."""
    pos = jnp.zeros_like(rank)
    for width in (16, 8, 4, 2, 1):
        low = jax.lax.population_count((word >> pos.astype(jnp.uint32)) & ((1 << width) - 1))
        go = rank >= low.astype(rank.dtype)
        pos = pos + jnp.where(go, width, 0)
        rank = rank - jnp.where(go, low.astype(rank.dtype), 0)
    return pos


def _sample_of(moves: jax.Array, uniform: jax.Array) -> jax.Array:
    """One legal move per position of move planes ``moves uint32[B, NUM_PLANES, 2]``: the
    ``k``-th, ``k = floor(u * n)``, of its ``n`` legal moves (see
    :meth:`Chess.sample_actions`); a two-level search as in :func:`_moves_of`."""
    batch = uniform.shape[0]
    words = moves.reshape(batch, -1)  # [B, 144]
    per_word = jax.lax.population_count(words).astype(jnp.int32) * _WORD_WEIGHT  # [B, 144]
    groups = per_word.reshape(batch, 12, 12)  # [B, 12, 12]
    per_group = groups.sum(axis=-1)  # [B, 12]
    total = per_group.sum(axis=-1)  # [B]
    k = jnp.minimum((uniform * total).astype(jnp.int32), jnp.maximum(total - 1, 0))
    through = jnp.cumsum(per_group, axis=-1)  # [B, 12]
    group = jnp.minimum(jnp.sum(through <= k[:, None], axis=-1), 11)  # [B]
    k = k - jnp.take_along_axis(through - per_group, group[:, None], axis=-1)[:, 0]
    row = jnp.take_along_axis(groups, group[:, None, None], axis=1)[:, 0]  # [B, 12]
    through = jnp.cumsum(row, axis=-1)  # [B, 12]
    inside = jnp.minimum(jnp.sum(through <= k[:, None], axis=-1), 11)  # [B]
    k = k - jnp.take_along_axis(through - row, inside[:, None], axis=-1)[:, 0]
    word_index = group * 12 + inside  # [B]
    word = jnp.take_along_axis(words, word_index[:, None], axis=-1)[:, 0]  # [B]
    weight = jnp.asarray(_WORD_WEIGHT)[word_index]
    bit = _select_bit(word, k // weight)
    action = jnp.asarray(_ACTION_OF_BIT)[word_index, bit, k % weight]
    return jnp.maximum(action, 0)
