"""The Othello board: square masks and directions, the state as pairs of uint32 words
(:class:`Words`, :class:`OthelloState`), and the bitboard operations: move generation, flips,
stability and the Zobrist mix, traced, and their host versions on Python ints.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.bitboard import MASK64 as _MASK64
from jaxgames.bitboard import Bits
from jaxgames.bitboard import and_ as _and
from jaxgames.bitboard import any_ as _any
from jaxgames.bitboard import const as _const
from jaxgames.bitboard import not_ as _not
from jaxgames.bitboard import or_ as _or
from jaxgames.bitboard import shift as _shift
from jaxgames.bitboard import shift_by as _shift_by
from jaxgames.bitboard import xor as _xor

PASS = 64
"""The pass action."""

_FILE_A = 0x0101010101010101
_FILE_H = 0x8080808080808080
_ROW_1 = 0xFF
_ROW_8 = 0xFF << 56
_NOT_A = _MASK64 ^ _FILE_A
_NOT_H = _MASK64 ^ _FILE_H
_INTERIOR = _NOT_A & _NOT_H
_CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)

# (shift, mask of the opponent discs a run may pass through): the a- and h-files are left
# out for the sideways directions, so that a run never wraps from one row to the next.
_DIRECTIONS = ((1, _INTERIOR), (-1, _INTERIOR), (8, _MASK64), (-8, _MASK64))
_DIRECTIONS += ((9, _INTERIOR), (-9, _INTERIOR), (7, _INTERIOR), (-7, _INTERIOR))
# (shift, mask applied after the shift) for "the squares next to a set": a shift that moves
# east can only wrap onto the a-file, one that moves west onto the h-file.
_NEIGHBOURS = ((1, _NOT_A), (-1, _NOT_H), (8, _MASK64), (-8, _MASK64))
_NEIGHBOURS += ((9, _NOT_A), (-9, _NOT_H), (7, _NOT_H), (-7, _NOT_A))
# (shift, the squares with no neighbour that way) for the stability test, by axis.
_AXES = (
    ((1, _FILE_H), (-1, _FILE_A)),
    ((8, _ROW_8), (-8, _ROW_1)),
    ((9, _FILE_H | _ROW_8), (-9, _FILE_A | _ROW_1)),
    ((7, _FILE_A | _ROW_8), (-7, _FILE_H | _ROW_1)),
)
_NEIGHBOUR_MASK = dict(_NEIGHBOURS)

# corner, X-square (diagonal neighbour), C-squares (edge neighbours)
_CORNER_GROUPS = (
    (0, 9, (1, 8)),  # a1: b2; b1, a2
    (7, 14, (6, 15)),  # h1: g2; g1, h2
    (56, 49, (57, 48)),  # a8: b7; b8, a7
    (63, 54, (62, 55)),  # h8: g7; g8, h7
)

_STABLE_ROUNDS = 4
_MIX_SHIFTS = (13, -7, 17, 13, -7, 17)


class Words(NamedTuple):
    """A 64-bit value (a bitboard, a key) as two uint32 words."""

    lo: jax.Array  # uint32[]: bits 0-31 (squares a1-h4)
    hi: jax.Array  # uint32[]: bits 32-63 (squares a5-h8)


class OthelloState(NamedTuple):
    """An Othello position, discs relative to the side to move."""

    own: Words  # discs of the side to move
    opp: Words  # discs of the other side
    moves: Words  # legal placements of the side to move
    player: jax.Array  # int8[]: side to move, 0 Black (X), 1 White (O)
    passes: jax.Array  # int8[]: 0 can place, 1 must pass, 2 neither side can (game over)
    opp_mobility: jax.Array  # int8[]: placements the other side would have, were it to move
    hash: Words  # Zobrist key


# ---------------------------------------------------------------- bitboards (traced)
def _words(b: Bits) -> Words:
    return Words(jnp.asarray(b[0], jnp.uint32), jnp.asarray(b[1], jnp.uint32))


# The eight directions as four axes (+k and -k): shift, and the opponent-disc mask. The
# directions are walked by a fori_loop over the axes rather than unrolled: a loop's result
# is materialised once, whereas XLA's CPU backend copied an unrolled flood into every
# consumer (each field of the next state, the hash, the search's frame writes), which cost
# compile time and, in alpha-beta, most of the run time.
_AXIS_SHIFTS = np.asarray([1, 8, 9, 7], np.uint32)
_AXIS_MASKS = [_INTERIOR, _MASK64, _INTERIOR, _INTERIOR]
_AXIS_MASK_LO = np.asarray([m & 0xFFFFFFFF for m in _AXIS_MASKS], np.uint32)
_AXIS_MASK_HI = np.asarray([m >> 32 for m in _AXIS_MASKS], np.uint32)


def _axis(i: jax.Array, opp: Bits) -> tuple[jax.Array, Bits]:
    """(shift, opponent discs a run may pass through) of axis ``i``."""
    k = jnp.asarray(_AXIS_SHIFTS)[i]
    mask = (jnp.asarray(_AXIS_MASK_LO)[i], jnp.asarray(_AXIS_MASK_HI)[i])
    return k, _and(opp, mask)


def _moves(own: Bits, opp: Bits) -> Bits:
    """The legal placements of ``own`` against ``opp`` (a flood along each direction)."""
    empty = _not(_or(own, opp))

    def body(i, moves):
        k, o = _axis(i, opp)
        for left in (True, False):
            t = _and(_shift_by(own, k, left), o)
            for _ in range(5):  # a run is at most 6 discs long
                t = _or(t, _and(_shift_by(t, k, left), o))
            moves = _or(moves, _and(_shift_by(t, k, left), empty))
        return moves

    zero = jnp.zeros_like(own[0] | opp[0])
    return jax.lax.fori_loop(0, 4, body, (zero, zero))


def _flips(own: Bits, opp: Bits, square: Bits) -> Bits:
    """The discs flipped by placing ``square`` (one bit, or none for a pass)."""

    def body(i, flips):
        k, o = _axis(i, opp)
        for left in (True, False):
            t = _and(_shift_by(square, k, left), o)
            for _ in range(5):
                t = _or(t, _and(_shift_by(t, k, left), o))
            closed = _any(_and(_shift_by(t, k, left), own))  # the run ends on an own disc
            keep = jnp.uint32(0) - closed.astype(jnp.uint32)  # all ones or zero
            flips = _or(flips, (t[0] & keep, t[1] & keep))
        return flips

    zero = jnp.zeros_like(own[0] | opp[0] | square[0])
    return jax.lax.fori_loop(0, 4, body, (zero, zero))


def _neighbours(b: Bits) -> Bits:
    """The squares next to any square of ``b`` (8 directions)."""
    out = _const(0)
    for k, mask in _NEIGHBOURS:
        out = _or(out, _and(_shift(b, k), _const(mask)))
    return out


def _full_lines(occupied: Bits) -> tuple[Bits, Bits]:
    """(squares whose row is completely occupied, squares whose column is)."""
    words = []
    for w in occupied:  # a row is a byte: fold its 8 bits into bit 0, spread back
        t = w & (w >> 4)
        t = t & (t >> 2)
        t = t & (t >> 1)
        words.append((t & np.uint32(0x01010101)) * np.uint32(0xFF))
    v = occupied[0] & occupied[1]  # a column: the 8 rows folded onto one byte
    v = v & (v >> 16)
    v = v & (v >> 8)
    cols = (v & np.uint32(0xFF)) * np.uint32(0x01010101)
    return (words[0], words[1]), (cols, cols)


def _stable(own: Bits, full: tuple[Bits, Bits]) -> Bits:
    """A lower bound on the stable discs of ``own`` (see :data:`EVAL_FEATURES`); ``full`` is
    :func:`_full_lines` of the occupied squares.

    Along one line, a disc cannot be flipped when the line has no empty square (no move can
    be made on it), or when one of its two neighbours on the line is off the board or a
    stable disc of its colour (a flip would have to flip that neighbour too).
    """
    rows, cols = full
    zero = jnp.zeros_like(own[0] | rows[0])
    lines = (rows, cols, (zero, zero), (zero, zero))  # diagonals: no fullness test

    def round_(_, stable):
        safe = own
        for ((k1, edge1), (k2, edge2)), line in zip(_AXES, lines, strict=True):
            # a neighbour of x at x + k is in `stable` when x is in shift(stable, -k)
            n1 = _and(_shift(stable, -k1), _const(_NEIGHBOUR_MASK[-k1]))
            n2 = _and(_shift(stable, -k2), _const(_NEIGHBOUR_MASK[-k2]))
            axis = _or(_or(line, _const(edge1 | edge2)), _or(n1, n2))
            safe = _and(safe, axis)
        return safe

    return jax.lax.fori_loop(0, _STABLE_ROUNDS, round_, (zero, zero))


def _square_bit(action: jax.Array) -> Bits:
    """The bit of square ``action`` (none for the pass or anything out of 0..63)."""
    a = jnp.asarray(action, jnp.int32)
    one = jnp.uint32(1)
    lo = jnp.where((a >= 0) & (a < 32), one << jnp.clip(a, 0, 31).astype(jnp.uint32), 0)
    hi = jnp.where((a >= 32) & (a < 64), one << jnp.clip(a - 32, 0, 31).astype(jnp.uint32), 0)
    return lo.astype(jnp.uint32), hi.astype(jnp.uint32)


def _mix(b: Bits) -> Bits:
    """The GF(2)-linear, invertible map ``D`` of the Zobrist keys (see :class:`Othello`):
    two rounds of the xorshift64 steps ``x ^= x << 13; x ^= x >> 7; x ^= x << 17``."""
    for k in _MIX_SHIFTS:
        b = _xor(b, _shift(b, k))
    return b


def _unpack(b: Bits) -> jax.Array:
    """bool[64]: bit ``i`` of the bitboard."""
    shifts = jnp.arange(32, dtype=jnp.uint32)
    return jnp.concatenate([((b[0] >> shifts) & 1) != 0, ((b[1] >> shifts) & 1) != 0])


# ---------------------------------------------------------------- bitboards (host, int)
def _py_shift(x: int, k: int) -> int:
    return (x << k) & _MASK64 if k > 0 else x >> -k


def _py_run(start: int, opp: int, k: int) -> int:
    """The discs of ``opp`` in runs that go on from ``start`` by shifts of ``k`` (the flood
    of :func:`_moves` and :func:`_flips`, on Python ints)."""
    t = _py_shift(start, k) & opp
    for _ in range(5):
        t |= _py_shift(t, k) & opp
    return t


def _py_moves(own: int, opp: int) -> int:
    """Host version of :func:`_moves` on Python ints."""
    empty = ~(own | opp) & _MASK64
    moves = 0
    for k, mask in _DIRECTIONS:
        t = _py_run(own, opp & mask, k)
        moves |= _py_shift(t, k) & empty
    return moves


def _py_flips(own: int, opp: int, square: int) -> int:
    """Host version of :func:`_flips`: discs flipped by placing on ``square`` (0..63)."""
    m = 1 << square
    flips = 0
    for k, mask in _DIRECTIONS:
        t = _py_run(m, opp & mask, k)
        if _py_shift(t, k) & own:
            flips |= t
    return flips


def _py_mix(x: int) -> int:
    """Host version of :func:`_mix`."""
    for k in _MIX_SHIFTS:
        x ^= _py_shift(x, k)
    return x


def _host_words(x: int) -> Words:
    return Words(np.asarray(x & 0xFFFFFFFF, np.uint32), np.asarray(x >> 32, np.uint32))


def _int(words: Words) -> int:
    return int(np.asarray(words.lo)) | (int(np.asarray(words.hi)) << 32)
