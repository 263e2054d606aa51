"""Connect-four bitboards in Pons's layout (boards of at most 64 bits, such as 7x6): the
stones of each side, the line test of ``step``, the connecting cells and the heuristic's sum,
each a few shifts and ANDs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames import bitboard
from jaxgames.bitboard import Bits
from jaxgames.games.connect4.board import (
    ConnectFourState,
)


class ConnectFourBitboards:
    """The bitboard operations of :class:`~jaxgames.games.connect4.ConnectFour` (a mixin: it
    reads the board's size and bit tables of the game it is mixed into)."""

    # Pons's layout: bit ``col * (H + 1) + row``, an always-empty row on top of each column,
    # so that a line running off the board's top or across two columns meets an empty bit.
    # Used where (H + 1) * W <= 64 (7x6: 49 bits), as two uint32 words.
    def _bitboards(self, state: ConnectFourState, piece: jax.Array) -> tuple[Bits, Bits, Bits]:
        """The stones of ``piece``, of the other side, and the empty cells, as bitboards."""
        x, o = self._stones(state)
        is_x = piece == 1
        mine, theirs = bitboard.choose(is_x, x, o), bitboard.choose(is_x, o, x)
        free = bitboard.and_(bitboard.const(self._board_bits), bitboard.not_(bitboard.or_(x, o)))
        return mine, theirs, free

    @staticmethod
    def _stones(state: ConnectFourState) -> tuple[Bits, Bits]:
        """x's and o's stones as bitboards (from ``words``)."""
        w = state.words
        return (w[2], w[3]), (w[4], w[5])

    def _connects(self, stones: Bits) -> jax.Array:
        """bool: ``stones`` hold a line of ``connect`` in some direction.

        The directions' line bits end in one reduction (``jnp.any`` over a stack), not in a
        chain of ORs: XLA copies an elementwise chain into every consumer of the state's
        winner (the search has a dozen), where a reduction is computed once.
        """
        lines = []
        for step in self._line_starts:
            line = stones
            for j in range(1, self.connect):
                line = bitboard.and_(line, bitboard.shift(stones, -j * step))
            lines += [line[0], line[1]]
        return jnp.any(jnp.stack(lines) != 0)

    def _winning(self, stones: Bits, free: Bits) -> Bits:
        """The ``free`` bits that complete a line of ``connect`` with ``stones`` (for each
        direction and each place of the empty bit in the line, the AND of the shifted
        stones)."""
        k, out = self.connect, bitboard.const(0)
        for step in self._line_starts:  # the directions in which a line fits
            # bit b holds stones[b + j * step]; a line fits, so |j * step| < 64
            ahead = {j: bitboard.shift(stones, -j * step) for j in range(1 - k, k) if j != 0}
            for i in range(k):  # the empty bit is the i-th of the line
                offsets = [j for j in range(-i, k - i) if j != 0]
                line = ahead[offsets[0]]
                for j in offsets[1:]:
                    line = bitboard.and_(line, ahead[j])
                out = bitboard.or_(out, line)
        return bitboard.and_(out, free)

    def _raw_heuristic_bits(self, state: ConnectFourState) -> jax.Array:
        """int32: the heuristic's ``raw`` sum on bitboards.

        Per direction, the stones of a side in the ``connect`` cells from each line start
        are counted bit-sliced: a ripple adder over the shifted stones, so bit ``b`` of plane
        ``i`` is bit ``i`` of the count ``n`` of the line starting at ``b``. The lines
        holding no opponent stone add ``n * n = sum_i 4^i b_i + sum_{i<j} 2^(i+j+1) b_i b_j``,
        one popcount per term. A full line (``n = connect``) must add 0: with ``connect`` a
        power of two the adder keeps ``log2(connect)`` planes, so ``n = connect`` wraps to
        0 for free (for four in a row: 3 popcounts, where masking each ``n`` took 9 ANDs);
        otherwise the full lines are taken off again.
        """
        x, o, _ = self._bitboards(state, jnp.int8(1))
        k, raw = self.connect, jnp.int32(0)
        wraps = k & (k - 1) == 0  # a power of two
        width = k.bit_length() - 1 if wraps else k.bit_length()  # planes of the counter
        for step, starts in self._line_starts.items():
            for own, other, sign in ((x, o, 1), (o, x, -1)):
                planes: list[Bits] = []
                blocked = bitboard.const(0)
                for j in range(k):
                    carry = bitboard.shift(own, -j * step)  # bit b: own[b + j * step]
                    blocked = bitboard.or_(blocked, bitboard.shift(other, -j * step))
                    for i, plane in enumerate(planes):
                        planes[i], carry = bitboard.xor(plane, carry), bitboard.and_(plane, carry)
                    if len(planes) < width:  # else the carry out of the top plane is dropped
                        planes.append(carry)
                open_lines = bitboard.and_(bitboard.const(starts), bitboard.not_(blocked))
                square = jnp.int32(0)
                for i, plane_i in enumerate(planes):
                    mine = bitboard.and_(open_lines, plane_i)
                    square = square + 4**i * bitboard.count(mine)
                    for j in range(i + 1, len(planes)):
                        both = bitboard.and_(mine, planes[j])
                        square = square + 2 ** (i + j + 1) * bitboard.count(both)
                if not wraps:
                    full = open_lines
                    for i, plane in enumerate(planes):
                        full = bitboard.and_(full, plane if k >> i & 1 else bitboard.not_(plane))
                    square = square - k * k * bitboard.count(full)
                raw = raw + sign * square
        centre = bitboard.const(self._centre_bits)
        return (
            raw
            + bitboard.count(bitboard.and_(x, centre))
            - bitboard.count(bitboard.and_(o, centre))
        )

    def _unpack(self, bits: Bits) -> jax.Array:
        """bool[H*W] from a bitboard in the cell order of ``board``."""
        index = jnp.asarray(self._cell_bits)  # [cells]
        word = jnp.where(index < 32, bits[0], bits[1])
        return ((word >> (index & 31).astype(jnp.uint32)) & 1) == 1
