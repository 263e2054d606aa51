"""The checkers board: the 32 playing squares, their neighbours, the action encoding, the
state and the bitboard move generation (traced), with host versions on Python ints.

A square is its standard checkers number minus one (``0`` is square 1). Player 0 (Black in
checkers notation, OpenSpiel's first player) starts on 1-12 and moves towards 32; player 1
on 21-32, moving towards 1. A set of squares is one uint32 (bit ``s`` for square ``s``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

NUM_SQUARES = 32
NUM_ACTIONS = 512  # OpenSpiel's: ((row * 8 + column) * 4 + direction) * 2 + kind
QUIET_LIMIT = 40  # OpenSpiel: 40 steps in a row without a capture end the game in a draw
ALL = 0xFFFFFFFF

# OpenSpiel's directions on its own drawing (row 0 at the top, rank 8; player 0 at the
# bottom): 0 up-left, 1 up-right, 2 down-right, 3 down-left. Its player 0 moves up (0, 1).
_OS_ROW_STEP = (-1, -1, 1, 1)
_OS_COLUMN_STEP = (-1, 1, 1, -1)
FORWARD = ((0, 1), (2, 3))  # the directions each player's men may take
SIMPLE, CAPTURE = 0, 1  # OpenSpiel's move kinds (the last digit of an action id)


def square_row_column(square: int) -> tuple[int, int]:
    """OpenSpiel's ``(row, column)`` of a square: row 0 is the top of its drawing (rank 8,
    player 1's side), column 0 the a-file. Square 1 is g1, square 4 a1, square 32 b8."""
    rank = square // 4  # 0: player 0's back rank
    column = 2 * (square % 4) + (1 if rank % 2 == 0 else 0)  # seen from player 1's side
    return 7 - rank, 7 - column


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(square at (row, column) or -1 ``int[8, 8]``, neighbour ``int[32, 4]``, square two
    steps away ``int[32, 4]``; -1 off the board)."""
    at = np.full((8, 8), -1, np.int64)
    for s in range(NUM_SQUARES):
        at[square_row_column(s)] = s
    neighbour = np.full((NUM_SQUARES, 4), -1, np.int64)
    jump = np.full((NUM_SQUARES, 4), -1, np.int64)
    for s in range(NUM_SQUARES):
        row, column = square_row_column(s)
        for d in range(4):
            for reach, table in ((1, neighbour), (2, jump)):
                r, c = row + reach * _OS_ROW_STEP[d], column + reach * _OS_COLUMN_STEP[d]
                if 0 <= r < 8 and 0 <= c < 8:
                    table[s, d] = at[r, c]
    return at, neighbour, jump


SQUARE_AT, NEIGHBOUR, JUMP = _tables()  # [8, 8], [32, 4], [32, 4]


def action_id(square: int, direction: int, kind: int) -> int:
    """OpenSpiel's action id of the move of the piece on ``square`` in ``direction``."""
    row, column = square_row_column(square)
    return ((row * 8 + column) * 4 + direction) * 2 + kind


# The legal moves are computed as 8 bitboards of source squares, word ``2 * direction +
# kind``; SLOT[a] is the flat index (word * 32 + square) of action a there, or 256 (never
# legal: the light squares and moves off the board).
SLOT = np.full((NUM_ACTIONS,), 256, np.int32)  # [512]
FROM = np.zeros((NUM_ACTIONS,), np.int32)  # [512]: the moving piece's square
TO = np.zeros((NUM_ACTIONS,), np.int32)  # [512]: where it lands
OVER = np.zeros((NUM_ACTIONS,), np.int32)  # [512]: the captured square (captures only)
IS_CAPTURE = np.zeros((NUM_ACTIONS,), bool)  # [512]
ACTION_OF_SLOT = np.full((257,), -1, np.int32)  # [257]: the inverse of SLOT (256: none)
for _s in range(NUM_SQUARES):
    for _d in range(4):
        for _kind, _target in ((SIMPLE, NEIGHBOUR[_s, _d]), (CAPTURE, JUMP[_s, _d])):
            if _target < 0:
                continue
            _a = action_id(_s, _d, _kind)
            SLOT[_a] = (2 * _d + _kind) * 32 + _s
            ACTION_OF_SLOT[SLOT[_a]] = _a
            FROM[_a], TO[_a], IS_CAPTURE[_a] = _s, _target, _kind == CAPTURE
            OVER[_a] = NEIGHBOUR[_s, _d] if _kind == CAPTURE else 0

PROMOTION_RANK = (0xF0000000, 0x0000000F)  # squares 29-32 for player 0, 1-4 for player 1


def _shift_groups() -> list[list[tuple[int, int]]]:
    """For each direction, ``(source mask, shift)`` pairs: a set moved one step in that
    direction is the OR over pairs of ``(set & mask)`` shifted by ``shift`` bits (the shift
    differs between even and odd ranks; the masks drop squares on the edge)."""
    groups = []
    for d in range(4):
        by_shift: dict[int, int] = {}
        for s in range(NUM_SQUARES):
            if NEIGHBOUR[s, d] >= 0:
                delta = int(NEIGHBOUR[s, d]) - s
                by_shift[delta] = by_shift.get(delta, 0) | 1 << s
        groups.append(sorted((mask, delta) for delta, mask in by_shift.items()))
    return groups


SHIFT_GROUPS = _shift_groups()


class CheckersState(NamedTuple):
    """A checkers position between steps (a multi-jump is played one jump per step)."""

    black: jax.Array  # uint32[]: player 0's pieces (men and kings), bit s = square s + 1
    white: jax.Array  # uint32[]: player 1's pieces
    kings: jax.Array  # uint32[]: the kings of both sides
    player: jax.Array  # int8[]: the side to move, 0 or 1
    jumper: jax.Array  # int8[]: mid-jump, the square of the piece that must jump on; else -1
    quiet: jax.Array  # int8[]: steps since the last capture (40: the game is drawn)
    hash_lo: jax.Array  # uint32[]: Zobrist key, low word
    hash_hi: jax.Array  # uint32[]: Zobrist key, high word


def shift(bits: jax.Array, direction: int) -> jax.Array:
    """The set ``bits`` moved one step in ``direction`` (squares leaving the board drop)."""
    out = jnp.uint32(0)
    for mask, delta in SHIFT_GROUPS[direction]:
        part = bits & np.uint32(mask)
        out = out | (part << np.uint32(delta) if delta > 0 else part >> np.uint32(-delta))
    return out


def opposite(direction: int) -> int:
    return (direction + 2) % 4


def move_sources(
    own: jax.Array, opp: jax.Array, kings: jax.Array, player: jax.Array
) -> tuple[list[jax.Array], list[jax.Array]]:
    """(simple, capture): per direction, the squares of ``own``'s pieces that can step /
    jump that way (uint32 each), ignoring the rule that a capture is compulsory."""
    empty = ~(own | opp)
    simple, capture = [], []
    for d in range(4):
        forward = (player == 0) if d in FORWARD[0] else (player == 1)
        movers = (own & kings) | jnp.where(forward, own & ~kings, jnp.uint32(0))
        back = opposite(d)
        simple.append(movers & shift(empty, back))
        capture.append(movers & shift(opp & shift(empty, back), back))
    return simple, capture


def sides(state: CheckersState) -> tuple[jax.Array, jax.Array]:
    """(the side to move's pieces, the other side's)."""
    black_moves = state.player == 0
    own = jnp.where(black_moves, state.black, state.white)
    opp = jnp.where(black_moves, state.white, state.black)
    return own, opp


def legal_words(state: CheckersState) -> jax.Array:
    """``uint32[8]``: the legal moves as source-square sets, word ``2 * direction + kind``:
    captures when there is one (only the jumping piece's mid-jump), else simple moves;
    none once the quiet-move limit is reached."""
    own, opp = sides(state)
    simple, capture = move_sources(own, opp, state.kings, state.player)
    only = jnp.where(
        state.jumper >= 0,
        jnp.left_shift(jnp.uint32(1), jnp.maximum(state.jumper, 0).astype(jnp.uint32)),
        jnp.uint32(ALL),
    )
    capture = [c & only for c in capture]
    any_capture = (capture[0] | capture[1] | capture[2] | capture[3]) != 0
    open_ = state.quiet < QUIET_LIMIT
    words = []
    for d in range(4):
        words.append(jnp.where(open_ & ~any_capture, simple[d], jnp.uint32(0)))
        words.append(jnp.where(open_ & any_capture, capture[d], jnp.uint32(0)))
    return jnp.stack(words)


def word_bits(words: jax.Array) -> jax.Array:
    """``bool[8 * 32 + 1]``: the bits of ``uint32[8]`` words, then one False (slot 256)."""
    bits = (words[:, None] >> jnp.arange(32, dtype=jnp.uint32)) & 1  # [8, 32]
    return jnp.concatenate([bits.reshape(-1).astype(jnp.bool_), jnp.zeros((1,), jnp.bool_)])


# ---------------------------------------------------------------- host versions (Python ints)
def py_shift(bits: int, direction: int) -> int:
    out = 0
    for mask, delta in SHIFT_GROUPS[direction]:
        part = bits & mask
        out |= (part << delta) & ALL if delta > 0 else part >> -delta
    return out


def py_captures(own: int, opp: int, kings: int, player: int) -> int:
    """The squares of ``own``'s pieces with a capture (host)."""
    empty = ~(own | opp) & ALL
    found = 0
    for d in range(4):
        movers = own & kings | (own & ~kings if d in FORWARD[player] else 0)
        back = opposite(d)
        found |= movers & py_shift(opp & py_shift(empty, back), back)
    return found
