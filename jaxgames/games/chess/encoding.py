"""Chess encoding: piece codes, squares, the 1,924 actions, castling and Zobrist tables, and
the move planes the legal moves are kept as.

Every table here is built with numpy when the module is imported; the traced code of the other
modules reads them as constants.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jaxgames.game import zobrist_table

# ---------------------------------------------------------------- constants
EMPTY, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, WALL = range(8)
BLACK_BIT = 8
WHITE, BLACK = 0, 1
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
MAX_GAME_LENGTH = 12_700
"""Plies bound: the 100-ply clock is reset at most 96 times by pawn moves and 30 times by
captures, so no game lasts past ``127 * 100`` plies."""
HISTORY = 100
"""Keys of the previous positions kept for the repetition rule (the 50-move window)."""

# Status of a position (``ChessState.status``).
ONGOING, CHECKMATE, STALEMATE, INSUFFICIENT, THREEFOLD, FIFTY_MOVES = range(6)
STATUS_NAMES = ("ongoing", "checkmate", "stalemate", "insufficient", "threefold", "fifty")

_ZOBRIST_SEED = 0xC0E55
# (d_file, d_rank) of the 8 ray directions: N, S, E, W (orthogonal), NE, NW, SE, SW.
_DIRS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
_KNIGHT_DELTAS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_OFF = 64  # index of the off-board cell appended to the board
_KNIGHT_DIR = 8  # the "direction" of a knight move in the action tables
# Castling rights bits: white king side, white queen side, black king side, black queen side.
_CASTLE_BITS = ((1, 2), (4, 8))
_UNDER = (KNIGHT, BISHOP, ROOK)


def _sq(file: int, rank: int) -> int:
    return 8 * rank + file


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


# ---------------------------------------------------------------- tables (numpy, import time)
class _Actions(NamedTuple):
    frm: np.ndarray  # int32[A]
    to: np.ndarray  # int32[A]
    direction: np.ndarray  # int32[A]: 0..7 ray direction, 8 knight
    dist: np.ndarray  # int32[A]: squares travelled along the ray (1 for a knight)
    under: np.ndarray  # int32[A]: 0, or the piece type of an under-promotion
    orth: np.ndarray  # bool[A]: a rook-like move (plain actions only)
    diag: np.ndarray  # bool[A]: a bishop-like move
    knight: np.ndarray  # bool[A]: a knight move
    king: np.ndarray  # bool[A]: a one-square move
    push: np.ndarray  # bool[2, A]: a pawn push of that colour (single or double)
    pawn_capture: np.ndarray  # bool[2, A]: a pawn capture of that colour
    plain: np.ndarray  # int32[64, 64]: the plain action of (from, to), -1 if none
    promo: np.ndarray  # int32[64, 64, 7]: action of (from, to, promotion type), -1 if none


def _action_tables() -> _Actions:
    frm, to, direction, dist, under = [], [], [], [], []
    plain = np.full((64, 64), -1, np.int32)
    promo = np.full((64, 64, 7), -1, np.int32)
    for s in range(64):
        f, r = s % 8, s // 8
        targets: dict[int, tuple[int, int]] = {}
        for d, (df, dr) in enumerate(_DIRS):
            for k in range(1, 8):
                if _on_board(f + df * k, r + dr * k):
                    targets[_sq(f + df * k, r + dr * k)] = (d, k)
        for df, dr in _KNIGHT_DELTAS:
            if _on_board(f + df, r + dr):
                targets[_sq(f + df, r + dr)] = (_KNIGHT_DIR, 1)
        for t in sorted(targets):
            plain[s, t] = len(frm)
            frm.append(s)
            to.append(t)
            direction.append(targets[t][0])
            dist.append(targets[t][1])
            under.append(0)
    for r_from, dr in ((6, 1), (1, -1)):  # white, then black
        for f in range(8):
            for df in (-1, 0, 1):
                if not 0 <= f + df < 8:
                    continue
                s, t = _sq(f, r_from), _sq(f + df, r_from + dr)
                d = _DIRS.index((df, dr))
                for piece in _UNDER:
                    promo[s, t, piece] = len(frm)
                    frm.append(s)
                    to.append(t)
                    direction.append(d)
                    dist.append(1)
                    under.append(piece)
    frm_a, to_a = np.asarray(frm, np.int32), np.asarray(to, np.int32)
    direction_a, dist_a = np.asarray(direction, np.int32), np.asarray(dist, np.int32)
    under_a = np.asarray(under, np.int32)
    is_plain = under_a == 0
    orth = is_plain & (direction_a < 4)
    diag = is_plain & (direction_a >= 4) & (direction_a < 8)
    knight = is_plain & (direction_a == _KNIGHT_DIR)
    king = is_plain & (direction_a < 8) & (dist_a == 1)
    push = np.zeros((2, len(frm)), np.bool_)
    pawn_capture = np.zeros((2, len(frm)), np.bool_)
    rank_from = frm_a // 8
    for color, (fwd, caps, start, last) in (
        (WHITE, (0, (4, 5), 1, 7)),
        (BLACK, (1, (6, 7), 6, 0)),
    ):
        # A pawn stands on ranks 2..7; a push moves one square (two from its start rank).
        on_pawn_rank = (rank_from >= 1) & (rank_from <= 6)
        reaches_last = to_a // 8 == last
        # Under-promotions exist only for pawns moving onto their own last rank.
        ok_under = (under_a == 0) | reaches_last
        push[color] = (
            on_pawn_rank
            & (direction_a == fwd)
            & ((dist_a == 1) | ((dist_a == 2) & (rank_from == start)))
            & ok_under
        )
        pawn_capture[color] = on_pawn_rank & np.isin(direction_a, caps) & (dist_a == 1) & ok_under
    for piece in range(7):  # the queen promotion is the plain (from, to) action
        if piece not in _UNDER:
            promo[:, :, piece] = plain
    return _Actions(
        frm_a, to_a, direction_a, dist_a, under_a, orth, diag, knight, king,
        push, pawn_capture, plain, promo,
    )  # fmt: skip


def _castling_tables() -> dict[str, np.ndarray]:
    """Per colour and side (king side 0, queen side 1): the action, the right's bit, the
    squares that must be empty and those that must not be attacked, and the king's and
    rook's squares (before and after)."""
    action = np.zeros((2, 2), np.int32)
    bit = np.zeros((2, 2), np.int32)
    empty = np.zeros((2, 2, 64), np.bool_)
    safe = np.zeros((2, 2, 64), np.bool_)
    king_sq = np.zeros((2,), np.int32)
    rook_sq = np.zeros((2, 2), np.int32)
    actions = _action_tables()
    for color in (WHITE, BLACK):
        r = 0 if color == WHITE else 7
        e = _sq(4, r)
        king_sq[color] = e
        for side, (rook_file, king_file, between, crossed) in enumerate(
            ((7, 6, (5, 6), (5, 6)), (0, 2, (1, 2, 3), (3, 2)))
        ):
            action[color, side] = actions.plain[e, _sq(king_file, r)]
            bit[color, side] = _CASTLE_BITS[color][side]
            empty[color, side, [_sq(f, r) for f in between]] = True
            safe[color, side, [_sq(f, r) for f in crossed]] = True
            rook_sq[color, side] = _sq(rook_file, r)
    # Rights kept after a move touching each square (its from or to square).
    keep = np.full((64,), 15, np.int32)
    keep[_sq(4, 0)] &= ~3
    keep[_sq(4, 7)] &= ~12
    keep[_sq(7, 0)] &= ~1
    keep[_sq(0, 0)] &= ~2
    keep[_sq(7, 7)] &= ~4
    keep[_sq(0, 7)] &= ~8
    return {
        "action": action,
        "bit": bit,
        "empty": empty,
        "safe": safe,
        "king_sq": king_sq,
        "rook_sq": rook_sq,
        "keep": keep,
    }


ACTIONS = _action_tables()
NUM_ACTIONS = int(ACTIONS.frm.shape[0])
_CASTLE = _castling_tables()
# Zobrist keys: piece code x square (zero rows for empty, wall and the off-board cell, so
# that unused updates XOR nothing), black to move, castling rights (one key per bit, XORed
# into 16 combinations), en-passant file (index 8: none).
_Z_PIECE = np.zeros((16, 65, 2), np.uint32)
_Z_PIECE[[*range(1, 7), *range(9, 15)], :64] = zobrist_table(_ZOBRIST_SEED, 12, 64)
_Z_SIDE = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]
_Z_CASTLE_BITS = zobrist_table(_ZOBRIST_SEED + 2, 4)
_Z_CASTLE = np.zeros((16, 2), np.uint32)
for _rights in range(16):
    for _b in range(4):
        if _rights >> _b & 1:
            _Z_CASTLE[_rights] ^= _Z_CASTLE_BITS[_b]
_Z_EP = np.zeros((9, 2), np.uint32)
_Z_EP[:8] = zobrist_table(_ZOBRIST_SEED + 3, 8)


# ---------------------------------------------------------------- move planes
NUM_PLANES = 72
"""Legal moves are kept as 72 bitboards of their destination squares ("planes"):
plane ``7 d + k - 1`` holds the moves of ``k`` squares in direction ``d`` (any piece: a
slider, the king, a pawn push or capture, castling), ``56 + i`` the knight moves of the
``i``-th knight step, and ``64 + d`` the pawn moves in direction ``d`` that reach the
last rank, each of which is also three under-promotions (66 and 67 stay empty)."""


def _plane_of(frm: int, to: int, under: int) -> int:
    df, dr = to % 8 - frm % 8, to // 8 - frm // 8
    if (df, dr) in _KNIGHT_DELTAS:
        return 56 + _KNIGHT_DELTAS.index((df, dr))
    d = _DIRS.index((int(np.sign(df)), int(np.sign(dr))))
    return 64 + d if under else 7 * d + max(abs(df), abs(dr)) - 1


def _plane_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each action's word (``plane * 2 + to // 32``) and bit (``to % 32``) in the planes;
    the inverse ``int32[144, 32, 3]``: the action of a (word, bit, under-promotion choice)
    (-1 where none); and the actions one set bit of each word stands for (1, or 3 for the
    under-promotion planes)."""
    plane = np.array(
        [_plane_of(f, t, u) for f, t, u in zip(ACTIONS.frm, ACTIONS.to, ACTIONS.under, strict=True)]
    )
    word = (plane * 2 + ACTIONS.to // 32).astype(np.int32)
    bit = (ACTIONS.to % 32).astype(np.uint32)
    inverse = np.full((NUM_PLANES * 2, 32, 3), -1, np.int32)
    for a in range(NUM_ACTIONS):
        choice = _UNDER.index(ACTIONS.under[a]) if ACTIONS.under[a] else 0
        inverse[word[a], bit[a], choice] = a
    weight = np.where(np.arange(NUM_PLANES * 2) >= 128, 3, 1).astype(np.int32)
    return word, bit, inverse, weight


_ACTION_WORD, _ACTION_BIT, _ACTION_OF_BIT, _WORD_WEIGHT = _plane_tables()
