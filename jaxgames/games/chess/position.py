"""The chess position: :class:`ChessState`, and how a position is completed once its pieces
are placed (legal moves, check, the en-passant square, the game's status: checkmate,
stalemate, insufficient material, threefold repetition, the 50-move rule), and its Zobrist key
computed from scratch.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.games.chess.encoding import (
    _Z_CASTLE,
    _Z_EP,
    _Z_PIECE,
    _Z_SIDE,
    BISHOP,
    BLACK,
    BLACK_BIT,
    CHECKMATE,
    FIFTY_MOVES,
    HISTORY,
    INSUFFICIENT,
    KNIGHT,
    ONGOING,
    PAWN,
    QUEEN,
    ROOK,
    STALEMATE,
    THREEFOLD,
)
from jaxgames.games.chess.movegen import _analyze

_DARK = np.array([(s % 8 + s // 8) % 2 == 0 for s in range(64)])  # a1 is dark
_AGE = np.arange(1, HISTORY + 1, dtype=np.int32)  # history[i] is i + 1 plies old


def _code(piece: int, color: jax.Array) -> jax.Array:
    """int8 code of a piece type of a (traced) colour."""
    return (piece + BLACK_BIT * color).astype(jnp.int8)


def _insufficient_material(board: jax.Array) -> jax.Array:
    """bool: neither side can ever mate, by python-chess's rule (``is_insufficient_material``):

    a side is short of material when it has no pawn, rook or queen and either nothing but its
    king, or a single knight while the opponent has only a king and queens (pieces that could
    help a self-mate are excluded), or bishops only, all bishops on the board stand on
    squares of one colour and there is no pawn or knight on the board.
    """
    counts = jnp.stack(
        [jnp.sum(board == (piece + BLACK_BIT * color)) for color in (0, 1) for piece in range(7)]
    ).reshape(2, 7)  # [colour, type]
    bishops = (board & 7) == BISHOP
    one_colour = ~jnp.any(bishops & jnp.asarray(_DARK)) | ~jnp.any(bishops & ~jnp.asarray(_DARK))
    no_pawns_or_knights = (counts[:, PAWN].sum() + counts[:, KNIGHT].sum()) == 0

    def short(c: int) -> jax.Array:
        mine, theirs = counts[c], counts[1 - c]
        heavy = mine[PAWN] + mine[ROOK] + mine[QUEEN] > 0
        # At most two pieces of ours (the king and the knight), nothing that could help.
        lone_knight = (mine[1:].sum() <= 2) & (
            theirs[PAWN] + theirs[KNIGHT] + theirs[BISHOP] + theirs[ROOK] == 0
        )
        bishops_only = one_colour & no_pawns_or_knights
        return ~heavy & jnp.where(
            mine[KNIGHT] > 0, lone_knight, jnp.where(mine[BISHOP] > 0, bishops_only, True)
        )

    return short(0) & short(1)


class ChessState(NamedTuple):
    """A chess position with what the rules need of its past."""

    board: jax.Array  # int8[64]: 0 empty, 1..6 white PNBRQK, 9..14 black; square 8*rank+file
    turn: jax.Array  # int8[]: 0 white to move, 1 black
    castling: jax.Array  # int8[]: rights bits 1 K, 2 Q, 4 k, 8 q
    ep: jax.Array  # int8[]: en-passant target square when a capture onto it is legal, else -1
    halfmove: jax.Array  # int32[]: plies since the last capture or pawn move
    fullmove: jax.Array  # int32[]: move number (starts at 1, grows after black moves)
    hash: jax.Array  # uint32[2]: Zobrist key of the position (pieces, side, rights, ep)
    history: jax.Array  # uint32[HISTORY, 2]: keys of the previous positions, newest first
    moves: jax.Array  # uint32[NUM_PLANES, 2]: the legal moves as destination bitboards
    # (see NUM_PLANES); all empty when the game is over
    in_check: jax.Array  # bool[]: the side to move is in check
    status: jax.Array  # int8[]: ONGOING, CHECKMATE, STALEMATE, INSUFFICIENT, THREEFOLD, FIFTY


def _finish(
    board: jax.Array,
    turn: jax.Array,
    castling: jax.Array,
    ep: jax.Array,
    halfmove: jax.Array,
    fullmove: jax.Array,
    key: jax.Array,
    history: jax.Array,
) -> ChessState:
    """Complete a position: legal moves, check, the en-passant square (kept only when a
    capture onto it is legal, and then in the key), and the status.

    Args:
        key: uint32[2], the Zobrist key without the en-passant term.
        history: uint32[HISTORY, 2], the keys of the previous positions (newest first).
    """
    turn = jnp.asarray(turn, jnp.int32)
    castling = jnp.asarray(castling, jnp.int32)
    ep = jnp.asarray(ep, jnp.int32)
    moves, in_check, ep_legal = _analyze(board, turn, castling, ep)
    ep = jnp.where(ep_legal, ep, -1)
    key = key ^ jnp.asarray(_Z_EP)[jnp.where(ep >= 0, ep % 8, 8)]
    # Repetition: the same key among the positions since the last capture or pawn move with
    # the same side to move (even ages); the third occurrence ends the game.
    age = jnp.asarray(_AGE)
    window = (age <= halfmove) & (age % 2 == 0)
    repeats = jnp.sum(jnp.all(history == key[None, :], axis=-1) & window)
    any_legal = jnp.any(moves != 0)
    status = jnp.select(
        [
            ~any_legal & in_check,
            ~any_legal,
            _insufficient_material(board),
            repeats >= 2,
            halfmove >= 100,
        ],
        [CHECKMATE, STALEMATE, INSUFFICIENT, THREEFOLD, FIFTY_MOVES],
        ONGOING,
    ).astype(jnp.int8)
    return ChessState(
        board=board,
        turn=turn.astype(jnp.int8),
        castling=castling.astype(jnp.int8),
        ep=ep.astype(jnp.int8),
        halfmove=jnp.asarray(halfmove, jnp.int32),
        fullmove=jnp.asarray(fullmove, jnp.int32),
        hash=key,
        history=history,
        moves=jnp.where(status == ONGOING, moves, jnp.uint32(0)),
        in_check=in_check,
        status=status,
    )


_finish_jit = jax.jit(_finish)
_in_check_jit = jax.jit(lambda board, side: _analyze(board, side, 0, -1)[1])


def _key_of(board: np.ndarray, turn: int, castling: int, ep: int) -> np.ndarray:
    """The Zobrist key computed from scratch (host side): what ``step`` keeps incrementally."""
    key = np.zeros((2,), np.uint32)
    for s in np.flatnonzero(board):
        key ^= _Z_PIECE[board[s], s]
    if turn == BLACK:
        key ^= _Z_SIDE
    key ^= _Z_CASTLE[castling]
    if ep >= 0:
        key ^= _Z_EP[ep % 8]
    return key
