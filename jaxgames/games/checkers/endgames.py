"""Checkers endgame positions with up to 4 pieces, numbered per material signature, for a
game-agnostic retrograde engine (the :class:`~jaxgames.capabilities.Endgames` capability).

A material signature is ``(black_men, black_kings, white_men, white_kings)``, each side with
at least one piece, at most 4 pieces in all (41 signatures). Within a signature a position is
numbered by the mixed radix

    index = ((((black_men_rank * K) + black_kings_rank) * M + white_men_rank) * K
             + white_kings_rank) * 2 + player

where each rank is the combinatorial number (``sum C(position_i, i + 1)`` over the group's
squares in increasing order) of the group's set of squares among the squares it may stand on:
28 for men (not on their own crowning row), 32 for kings. Groups may overlap in this product
space: such an index is a hole (``endgame_state`` says it is not valid). Sizes reach
``C(28,2) * C(28,2) * 2 = 285,768`` (2 men against 2 men) and 492,032 (2 kings against 2).

What the numbering leaves out: mid-jump states (a retrograde engine plays a capture through
to the end of the turn, which lands in a smaller signature or the same one with the other
side to move) and the 40-step count (every numbered state has ``quiet = 0``; values solved
this way are those of the game without the draw rule, as endgame databases give them).
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import GameError

MAX_PIECES = 4
MATERIALS: tuple[tuple[int, int, int, int], ...] = tuple(
    m
    for m in itertools.product(range(MAX_PIECES + 1), repeat=4)
    if 2 <= sum(m) <= MAX_PIECES and m[0] + m[1] >= 1 and m[2] + m[3] >= 1
)
# the squares each group may stand on, in increasing order: Black men not on 29-32, White
# men not on 1-4, kings anywhere
_ALLOWED = (np.arange(28), np.arange(32), np.arange(4, 32), np.arange(32))  # black men, ...
_BINOMIAL = np.asarray([[comb(n, k) for k in range(MAX_PIECES + 1)] for n in range(33)], np.int64)
# _MATERIAL_ID[bm, bk, wm, wk]: the position of a signature in MATERIALS, or -1
_MATERIAL_ID = np.full((13, 13, 13, 13), -1, np.int32)
for _i, _m in enumerate(MATERIALS):
    _MATERIAL_ID[_m] = _i


def _group_sizes(material: tuple[int, ...]) -> list[int]:
    return [comb(len(_ALLOWED[g]), material[g]) for g in range(4)]


def _check(material: Any) -> tuple[int, int, int, int]:
    material = tuple(int(x) for x in material)
    if material not in _MATERIAL_ID_SET:
        raise GameError(f"checkers: no endgame signature {material}; see endgame_materials")
    return material  # type: ignore[return-value]


_MATERIAL_ID_SET = set(MATERIALS)


def _bits_of(board: jax.Array) -> jax.Array:
    return (board >> jnp.arange(32, dtype=jnp.uint32)) & 1  # [32]


def _rank(board: jax.Array, group: int, count: int) -> jax.Array:
    """int32: the combinatorial rank of the ``count`` squares of ``board`` among the
    group's allowed squares (traced)."""
    if count == 0:
        return jnp.int32(0)
    allowed = _ALLOWED[group]
    present = _bits_of(board)[allowed]  # [n]: which allowed squares hold a piece
    seen_before = jnp.cumsum(present) - present  # [n]: pieces on lower allowed squares
    terms = jnp.asarray(_BINOMIAL)[jnp.arange(len(allowed)), jnp.minimum(seen_before + 1, 4)]
    return jnp.sum(jnp.where(present == 1, terms, 0)).astype(jnp.int32)


def _unrank(rank: jax.Array, group: int, count: int) -> jax.Array:
    """uint32: the set of ``count`` squares with that rank (the inverse of ``_rank``)."""
    allowed = _ALLOWED[group]
    n = len(allowed)
    board = jnp.uint32(0)
    rank = rank.astype(jnp.int32)
    for i in range(count, 0, -1):
        column = jnp.asarray(_BINOMIAL[:n, i].astype(np.int32))  # [n]: C(c, i)
        position = jnp.sum(column <= rank).astype(jnp.int32) - 1  # the largest c with C(c,i) <= r
        rank = rank - column[position]
        square = jnp.asarray(allowed.astype(np.uint32))[position]
        board = board | jnp.left_shift(jnp.uint32(1), square)
    return board


class CheckersEndgames:
    """The :class:`~jaxgames.capabilities.Endgames` side of
    :class:`~jaxgames.games.checkers.Checkers` (a mixin)."""

    endgame_materials = MATERIALS

    def endgame_size(self, material: tuple[int, int, int, int]) -> int:
        """The number of indices of a signature (holes included): the product of the four
        groups' set counts, times 2 for the side to move."""
        return int(np.prod(_group_sizes(_check(material)))) * 2

    def endgame_material(self, state: Any) -> jax.Array:
        """int32: the position of ``state``'s signature in ``endgame_materials``, or -1
        (more than 4 pieces, or a side without pieces)."""

        def count(bits: jax.Array) -> jax.Array:
            return jnp.minimum(jax.lax.population_count(bits).astype(jnp.int32), 12)

        kings = state.kings
        counts = [
            count(state.black & ~kings),
            count(state.black & kings),
            count(state.white & ~kings),
            count(state.white & kings),
        ]
        return jnp.asarray(_MATERIAL_ID)[tuple(counts)]

    def endgame_index(self, material: tuple[int, int, int, int], state: Any) -> jax.Array:
        """int32: the index of ``state`` (of that signature, not mid-jump) in it."""
        material = _check(material)
        sizes = _group_sizes(material)
        kings = state.kings
        boards = (
            state.black & ~kings,
            state.black & kings,
            state.white & ~kings,
            state.white & kings,
        )
        index = jnp.int32(0)
        for group in range(4):
            index = index * sizes[group] + _rank(boards[group], group, material[group])
        return index * 2 + state.player.astype(jnp.int32)

    def endgame_state(self, material: tuple[int, int, int, int], index: jax.Array) -> tuple:
        """``(state, valid)``: the position numbered ``index`` (quiet 0, not mid-jump, its
        key computed) and whether it is one (False for a hole: two groups on one square)."""
        material = _check(material)
        sizes = _group_sizes(material)
        index = jnp.asarray(index, jnp.int32)
        player = index % 2
        rest = index // 2
        boards = [None] * 4
        for group in range(3, -1, -1):
            boards[group] = _unrank(rest % sizes[group], group, material[group])
            rest = rest // sizes[group]
        black, white = boards[0] | boards[1], boards[2] | boards[3]
        kings = boards[1] | boards[3]
        placed = sum(jax.lax.population_count(b).astype(jnp.int32) for b in boards)
        valid = jax.lax.population_count(black | white).astype(jnp.int32) == placed
        return self.traced_state(black, white, kings, player), valid
