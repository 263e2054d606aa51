"""Chess, with every rule of the FIDE Laws that a program can decide from the position.

Rules (FIDE Laws of Chess, articles 3, 5 and 9, as a program applies them):

* every piece moves as in article 3; "a piece may not be moved to a square occupied by a
  piece of the same colour" and no move may leave the mover's own king in check;
* castling, king side and queen side: "the king is transferred from its original square two
  squares towards the rook ... then that rook is transferred to the square the king has just
  crossed", only if neither piece has moved, the squares between them are empty, the king is
  not in check and "the square which the king must cross" and its destination are not
  attacked;
* en passant: a pawn that "attacks a square crossed by an opponent's pawn which has advanced
  two squares in one move" may capture it on the next move only;
* promotion: a pawn reaching the last rank becomes a queen, rook, bishop or knight of the same
  colour, as the player chooses;
* the game ends at checkmate (the side to move is in check with no legal move: the other side
  wins), at stalemate (no legal move, not in check: a draw), and, as draws, when neither side
  can mate (``python-chess``'s insufficient-material rule: bare kings, a single minor piece,
  or bishops all on one colour), when the same position (same side to move, castling rights
  and en-passant capture) occurs for the third time, and when 50 moves by each player
  (100 plies) passed without a capture or a pawn move. A checkmate on the move that reaches
  the 100th ply stands. The two claimable draws (threefold, 50 moves) are applied
  automatically, so every game is finite (at most :data:`MAX_GAME_LENGTH` plies).

Encoding:

* square ``s = 8 * rank + file`` with ``a1 = 0``, ``h1 = 7``, ``a8 = 56``, ``h8 = 63``;
* the board is a mailbox ``int8[64]``: 0 empty, 1..6 a white pawn, knight, bishop, rook,
  queen, king, 9..14 the black ones (``8 | type``); the code 7 is the "wall" beyond the edge;
* actions are absolute (the same index means the same squares for both colours):
  ``0 .. 1791`` are the 1,792 (from, to) pairs a queen or a knight could move between on an
  empty board, in (from, to) order. They cover every move of every piece: king moves,
  castling (the king's two-square move, as UCI writes it), pawn pushes, double pushes,
  captures, en passant, and promotion to a queen (the plain pair). ``1792 .. 1923`` are the
  under-promotions: for white (rank 7 -> 8) then black (rank 2 -> 1), each (from, to) pawn
  pair (straight or diagonal; 22 per colour) times knight, bishop, rook. So ``A = 1,924``
  actions, one per legal move of any position (218 is the most any known position has),
  and no legal move list is ever truncated;
* :class:`ChessState` keeps the board, the side to move, castling rights, the en-passant
  square (only when an en-passant capture is legal, as in python-chess's FEN), the clocks,
  the 64-bit Zobrist key (``uint32[2]``, kept incrementally), the keys of the last 100
  positions (enough for the 50-move window) for the repetition rule, and the legal moves
  (as move planes, below), the check flag and the status of the position, computed once
  when the position is made (``step`` computes them, so ``terminal`` costs nothing).

Move generation works on bitboards (:mod:`jaxgames.bitboard`: 64-bit sets of squares as
two uint32 words, so each operation is one vector instruction across a batch), as a classic
legal move generator does: the squares the other side attacks (its sliders seeing through
our king), the checkers (and the squares that block or capture a single checker), the
pinned pieces (which may only move along the line through the king), then every piece's
destinations masked by them. The legal moves are kept in the state as 72 bitboards of
destination squares, one per move shape (:data:`NUM_PLANES`); ``legal_mask`` reads the
1,924-wide mask off them, searches read a compact list of at most 218 moves off them
(:meth:`Chess.legal_moves`), and random playouts draw a move from their population counts,
both without building the mask (:meth:`Chess.sample_actions`). En passant is checked exactly
(both pawns leave their squares and the king's lines are traced again), because it can
expose the king along the rank. An earlier mailbox generator that tested each of the 1,924
actions with table lookups cost about 8x as much per position on a CPU.

Notation (host side): FEN in and out (``parse``/``format``; ``"startpos"`` and ``"<FEN>
moves e2e4 e7e5"`` are read too), UCI moves (``e2e4``, ``e7e8n``, castling ``e1g1``) in
and out, and SAN out (:meth:`Chess.san`; :meth:`Chess.string_to_action` also reads SAN).

Evaluation (:meth:`Chess.evaluate`): material (pawn 1, knight 3, bishop 3, rook 5, queen 9)
plus small positional terms (see :func:`_piece_square_table`), a bishop pair bonus, all in
pawns ``p`` from white's side, mapped to the utility scale as
``0.999 * tanh(p * ln(10) / 8)``: the usual logistic link between an advantage and the
expected score (one pawn is worth about a 64 % expected score), strictly inside the
``(-1, 1)`` of a decided game.

Search hints: :meth:`Chess.move_order_scores` orders captures by MVV-LVA (most valuable
victim, least valuable attacker) and promotions first; :meth:`Chess.noisy_mask` marks
captures and promotions, the moves quiescence search plays past the horizon;
:meth:`Chess.move_scores` and :meth:`Chess.noisy_moves` say the same of the moves of a
compact list, computed for those moves only, and :meth:`Chess.in_check` reads the check
flag kept in the state. The horizon
effect they cure (``tests/games/test_chess.py``): in ``4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1`` a
one-ply alpha-beta search plays Qxd5 and scores a won pawn, because the recapture exd5,
which loses the queen, lies beyond its horizon; with ``quiescence=4`` the captures are
played out, Qxd5 is refuted and another move is chosen, at a lower (correct) value.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import bitboard as bb
from jaxgames.game import (
    Game,
    GameError,
    split_fields,
    two_player_utility,
    whole_number,
    zobrist_table,
)

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

_FILES = "abcdefgh"
_UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
_PIECE_LETTERS = ".pnbrqk"
_ZOBRIST_SEED = 0xC0E55
# (d_file, d_rank) of the 8 ray directions: N, S, E, W (orthogonal), NE, NW, SE, SW.
_DIRS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
_OPPOSITE = (1, 0, 3, 2, 7, 6, 5, 4)
_KNIGHT_DELTAS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_OFF = 64  # index of the off-board cell appended to the board
_KNIGHT_DIR = 8  # the "direction" of a knight move in the action tables
# Castling rights bits: white king side, white queen side, black king side, black queen side.
_CASTLE_BITS = ((1, 2), (4, 8))
_UNDER = (KNIGHT, BISHOP, ROOK)
_VALUE_INT = np.array([0, 1, 3, 3, 5, 9, 0, 0], np.int32)  # MVV-LVA victims
_ATTACKER_INT = np.array([0, 1, 3, 3, 5, 9, 10, 0], np.int32)  # MVV-LVA: king attacks last


def _sq(file: int, rank: int) -> int:
    return 8 * rank + file


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def square_name(square: int) -> str:
    """``0 -> "a1"``, ``63 -> "h8"``."""
    return _FILES[square % 8] + str(square // 8 + 1)


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


def _piece_square_table() -> np.ndarray:
    """``float32[16, 64]``: the value in pawns, from white's side, of each piece code on each
    square: material (1, 3, 3, 5, 9) plus these positional terms, mirrored for black:

    * pawns: +0.05, 0.1, 0.2, 0.35, 0.6 on ranks 3..7 (advanced pawns are closer to queening);
    * knights: +0.1 per step closer to the centre (-0.1 on the rim, +0.2 on d4/e4/d5/e5);
    * bishops: half the knight's bonus; queens: a fifth of it;
    * rooks: +0.1 on the seventh rank;
    * kings: nothing (safety and activity depend on the phase; left to search).
    """
    pst = np.zeros((16, 64), np.float32)
    pawn_rank = np.array([0, 0, 0.05, 0.1, 0.2, 0.35, 0.6, 0], np.float32)
    for s in range(64):
        f, r = s % 8, s // 8
        for color, sign in ((WHITE, 1.0), (BLACK, -1.0)):
            rr = r if color == WHITE else 7 - r
            centre = 2 - max(abs(2 * f - 7), abs(2 * rr - 7)) // 2  # 2 centre .. -1 rim
            terms = {
                PAWN: 1.0 + pawn_rank[rr],
                KNIGHT: 3.0 + 0.1 * centre,
                BISHOP: 3.0 + 0.05 * centre,
                ROOK: 5.0 + (0.1 if rr == 6 else 0.0),
                QUEEN: 9.0 + 0.02 * centre,
                KING: 0.0,
            }
            for piece, value in terms.items():
                pst[piece + BLACK_BIT * color, s] = sign * value
    return pst


ACTIONS = _action_tables()
NUM_ACTIONS = int(ACTIONS.frm.shape[0])
_CASTLE = _castling_tables()
# A pawn's move onto the first or last rank promotes; the piece (under-promotion or queen)
# adds 16 * (value - 1) to its MVV-LVA score.
_PROMOTION_BONUS = 16 * (_VALUE_INT[np.where(ACTIONS.under > 0, ACTIONS.under, QUEEN)] - 1)
# Per action, packed for one lookup per listed move: from | to << 6 | promotion bonus << 12.
_MOVE_FACTS = (ACTIONS.frm | ACTIONS.to << 6 | _PROMOTION_BONUS << 12).astype(np.int32)
_PST = _piece_square_table()
_DARK = np.array([(s % 8 + s // 8) % 2 == 0 for s in range(64)])  # a1 is dark
_AGE = np.arange(1, HISTORY + 1, dtype=np.int32)  # history[i] is i + 1 plies old
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

_NOT_A = bb.MASK64 ^ bb.files_mask({0})
_NOT_H = bb.MASK64 ^ bb.files_mask({7})
_NOT_AB = bb.MASK64 ^ bb.files_mask({0, 1})
_NOT_GH = bb.MASK64 ^ bb.files_mask({6, 7})


def _words(*masks: int) -> np.ndarray:
    return np.array([[m & 0xFFFFFFFF, m >> 32] for m in masks], np.uint32)


# The 8 directions as 4 axes, each a direction (a left shift) and its opposite (a right
# shift): N/S, E/W, NE/SW, NW/SE; the first two are rook lines, the last two bishop lines.
# Masks remove the bits a shift wraps onto the far file.
_AXIS_SHIFT = np.array([8, 1, 9, 7], np.uint32)
_AXIS_MASK = {True: _words(bb.MASK64, _NOT_A, _NOT_A, _NOT_H),
              False: _words(bb.MASK64, _NOT_H, _NOT_H, _NOT_A)}  # fmt: skip
# The 8 knight steps as 4 pairs: (1, 2)/(-1, -2), (-1, 2)/(1, -2), (2, 1)/(-2, -1),
# (-2, 1)/(2, -1).
_KNIGHT_SHIFT = np.array([17, 15, 10, 6], np.uint32)
_KNIGHT_WRAP = {True: _words(_NOT_A, _NOT_H, _NOT_AB, _NOT_GH),
                False: _words(_NOT_H, _NOT_A, _NOT_GH, _NOT_AB)}  # fmt: skip
_AXIS_OF = (0, 0, 1, 1, 2, 3, 3, 2)  # the axis of each of the 8 directions
_RANK = [bb.const(0xFF << (8 * r)) for r in range(8)]
# Castling squares as words [colour, side, word]: those that must be empty, not attacked.
_CASTLE_PATH, _CASTLE_SAFE = (
    _words(
        *(sum(1 << int(q) for q in np.flatnonzero(m)) for m in _CASTLE[key].reshape(4, 64))
    ).reshape(2, 2, 2)
    for key in ("empty", "safe")
)
_ALL, _NONE = bb.const(bb.MASK64), bb.const(0)


def _ray(origin: bb.Bits, empty: bb.Bits, step) -> bb.Bits:
    """The squares a slider on ``origin`` reaches by repeating ``step``: every empty square
    on the way and the first occupied one."""
    out, front = _NONE, origin
    for _ in range(7):
        front = step(front)
        out = bb.or_(out, front)
        front = bb.and_(front, empty)
    return out


def _analyze(
    board: jax.Array, us: jax.Array, castling: jax.Array, ep: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Legal moves of the side ``us`` to move, as bitboards (the classic legal generator:
    attack map, checkers, pins, then every piece's moves masked by them).

    * ``danger``: the squares the other side attacks, its sliders seeing through our king
      (so the king cannot step back along a checking line);
    * checkers: with one, other pieces must capture it or block its line (``target``); with
      two, only the king moves;
    * pins: a piece of ours first from our king along a line, with an enemy slider of that
      line behind it, moves only along that line;
    * en passant is tested exactly (both pawns leave their squares, the king's lines are
      traced again), since it can uncover the king along a rank.

    Args:
        board: int8[64].
        us: int32, the side to move.
        castling: int32 rights bits.
        ep: int32, the square a pawn just skipped (-1: none).

    Returns:
        (moves uint32[NUM_PLANES, 2] (see :data:`NUM_PLANES`), in_check bool, an
        en-passant capture is legal bool).
    """
    us = jnp.asarray(us, jnp.int32)
    white = us == WHITE
    occupied = bb.pack(board != EMPTY)
    black = bb.pack((board & BLACK_BIT) != 0)
    bit0, bit1, bit2 = (bb.pack((board & (1 << i)) != 0) for i in range(3))
    not0, not1, not2 = bb.not_(bit0), bb.not_(bit1), bb.not_(bit2)
    white_pieces = bb.and_(occupied, bb.not_(black))
    mine = bb.choose(white, white_pieces, black)
    theirs = bb.choose(white, black, white_pieces)
    kind = {  # piece type from its 3 bits (pawn 001, knight 010, ..., king 110)
        PAWN: bb.and_(bb.and_(bit0, not1), not2),
        KNIGHT: bb.and_(bb.and_(not0, bit1), not2),
        BISHOP: bb.and_(bb.and_(bit0, bit1), not2),
        ROOK: bb.and_(bb.and_(not0, not1), bit2),
        QUEEN: bb.and_(bb.and_(bit0, not1), bit2),
        KING: bb.and_(bb.and_(not0, bit1), bit2),
    }
    ours = {p: bb.and_(b, mine) for p, b in kind.items()}
    their = {p: bb.and_(b, theirs) for p, b in kind.items()}
    their_rook_like = bb.or_(their[ROOK], their[QUEEN])
    their_bishop_like = bb.or_(their[BISHOP], their[QUEEN])
    empty = bb.not_(occupied)
    king = ours[KING]

    # En passant: the captured pawn, and each possible capturer (west, east of it).
    has_ep = ep >= 0
    target_ep = bb.keep_if(has_ep, bb.square(jnp.where(has_ep, ep, 0)))
    victim = bb.choose(white, bb.step(target_ep, 0, -1), bb.step(target_ep, 0, 1))
    capturers = [
        bb.and_(bb.choose(white, bb.step(target_ep, df, -1), bb.step(target_ep, df, 1)),
                ours[PAWN])
        for df in (-1, 1)
    ]  # fmt: skip
    empty_after_ep = [
        bb.not_(bb.or_(bb.and_(occupied, bb.not_(bb.or_(c, victim))), target_ep)) for c in capturers
    ]

    # One loop over the 4 axes: its outputs are materialised once (see jaxgames.bitboard),
    # rather than recomputed inside each of the 72 plane computations below.
    def axis(i, carry):
        danger, evasion, checks, pinned, axis_pinned, ep_exposed = carry
        sliders = bb.choose(i < 2, their_rook_like, their_bishop_like)
        pinned_here = _NONE
        for left in (True, False):
            wrap = (jnp.asarray(_AXIS_MASK[left])[i, 0], jnp.asarray(_AXIS_MASK[left])[i, 1])

            def step(b, left=left, wrap=wrap):
                return bb.and_(bb.shift_by(b, jnp.asarray(_AXIS_SHIFT)[i], left), wrap)

            danger = bb.or_(danger, _ray(sliders, bb.or_(empty, king), step))
            danger = bb.or_(danger, step(their[KING]))
            kwrap = (jnp.asarray(_KNIGHT_WRAP[left])[i, 0], jnp.asarray(_KNIGHT_WRAP[left])[i, 1])
            knight_step = bb.shift_by(their[KNIGHT], jnp.asarray(_KNIGHT_SHIFT)[i], left)
            danger = bb.or_(danger, bb.and_(knight_step, kwrap))
            line = _ray(king, empty, step)
            check = bb.any_(bb.and_(line, sliders))
            checks = checks + check.astype(jnp.int32)
            evasion = bb.or_(evasion, bb.keep_if(check, line))
            blocker = bb.and_(line, mine)
            behind = _ray(blocker, empty, step)
            pin = bb.keep_if(bb.any_(bb.and_(behind, sliders)), blocker)
            pinned = bb.or_(pinned, pin)
            pinned_here = bb.or_(pinned_here, pin)
            ep_exposed = tuple(
                bb.or_(x, bb.and_(_ray(king, e, step), sliders))
                for x, e in zip(ep_exposed, empty_after_ep, strict=True)
            )
        axis_pinned = (axis_pinned[0].at[i].set(pinned_here[0]),
                       axis_pinned[1].at[i].set(pinned_here[1]))  # fmt: skip
        return danger, evasion, checks, pinned, axis_pinned, ep_exposed

    zero = jnp.zeros((), jnp.uint32)
    zeros4 = jnp.zeros((4,), jnp.uint32)
    danger, evasion, checks, pinned, axis_pinned, ep_exposed = jax.lax.fori_loop(
        0, 4, axis,
        ((zero, zero), (zero, zero), jnp.int32(0), (zero, zero), (zeros4, zeros4),
         ((zero, zero), (zero, zero))),
    )  # fmt: skip
    pawn_attacks = bb.choose(
        white,
        bb.or_(bb.step(their[PAWN], -1, -1), bb.step(their[PAWN], 1, -1)),
        bb.or_(bb.step(their[PAWN], -1, 1), bb.step(their[PAWN], 1, 1)),
    )
    danger = bb.or_(danger, pawn_attacks)
    knight_checkers = _NONE
    for df, dr in _KNIGHT_DELTAS:
        knight_checkers = bb.or_(knight_checkers, bb.step(king, df, dr))
    knight_checkers = bb.and_(knight_checkers, their[KNIGHT])
    pawn_checkers = bb.and_(
        bb.choose(
            white,
            bb.or_(bb.step(king, -1, 1), bb.step(king, 1, 1)),
            bb.or_(bb.step(king, -1, -1), bb.step(king, 1, -1)),
        ),
        their[PAWN],
    )
    checks = checks + bb.count(knight_checkers) + bb.count(pawn_checkers)
    in_check = checks > 0
    evasion = bb.or_(evasion, bb.or_(knight_checkers, pawn_checkers))
    target = bb.choose(checks == 0, _ALL, bb.keep_if(checks == 1, evasion))
    target = bb.and_(target, bb.not_(mine))  # where a piece other than the king may go
    king_target = bb.and_(bb.not_(mine), bb.not_(danger))

    planes: list[bb.Bits] = [_NONE] * NUM_PLANES
    only_white, only_black = bb.keep_if(white, _ALL), bb.keep_if(~white, _ALL)
    for d, (df, dr) in enumerate(_DIRS):
        i = _AXIS_OF[d]
        free = bb.not_(bb.and_(pinned, bb.not_((axis_pinned[0][i], axis_pinned[1][i]))))
        front = bb.and_(bb.or_(ours[ROOK if d < 4 else BISHOP], ours[QUEEN]), free)
        for k in range(1, 8):
            front = bb.step(front, df, dr)
            planes[7 * d + k - 1] = bb.and_(front, target)
            front = bb.and_(front, empty)
        king_step = bb.and_(bb.step(king, df, dr), king_target)
        planes[7 * d] = bb.or_(planes[7 * d], king_step)
        # Pawns: pushes north (white) or south (black), captures on the forward diagonals.
        if d in (2, 3):
            continue
        forward = only_white if d in (0, 4, 5) else only_black
        pawns = bb.and_(bb.and_(ours[PAWN], free), forward)
        if d in (0, 1):
            one = bb.and_(bb.step(pawns, df, dr), empty)
            two = bb.and_(bb.step(bb.and_(one, _RANK[2 if d == 0 else 5]), df, dr), empty)
            planes[7 * d + 1] = bb.or_(planes[7 * d + 1], bb.and_(two, target))
            pawn_moves = bb.and_(one, target)
        else:
            pawn_moves = bb.and_(bb.and_(bb.step(pawns, df, dr), theirs), target)
        planes[7 * d] = bb.or_(planes[7 * d], pawn_moves)
        planes[64 + d] = bb.and_(pawn_moves, bb.or_(_RANK[0], _RANK[7]))
    knights = bb.and_(ours[KNIGHT], bb.not_(pinned))  # a pinned knight never moves
    for n, (df, dr) in enumerate(_KNIGHT_DELTAS):
        planes[56 + n] = bb.and_(bb.step(knights, df, dr), target)

    # Castling: the king's two-square move east (king side) or west (queen side).
    home_rank = jnp.where(white, 0, 56)
    king_home = bb.any_(bb.and_(king, bb.square(home_rank + 4)))
    for side, (d, rook_file) in enumerate(((2, 7), (3, 0))):
        bits = jnp.asarray(_CASTLE["bit"])[us, side]
        rook_home = bb.any_(bb.and_(ours[ROOK], bb.square(home_rank + rook_file)))
        path = (jnp.asarray(_CASTLE_PATH)[us, side, 0], jnp.asarray(_CASTLE_PATH)[us, side, 1])
        crossed = (jnp.asarray(_CASTLE_SAFE)[us, side, 0], jnp.asarray(_CASTLE_SAFE)[us, side, 1])
        ok = (
            ((castling & bits) != 0)
            & ~in_check
            & king_home
            & rook_home
            & ~bb.any_(bb.and_(path, occupied))
            & ~bb.any_(bb.and_(crossed, danger))
        )
        two = bb.step(bb.step(king, 1 if d == 2 else -1, 0), 1 if d == 2 else -1, 0)
        planes[7 * d + 1] = bb.or_(planes[7 * d + 1], bb.keep_if(ok, two))

    # En passant: legal when, with both pawns gone and ours on the target, no slider,
    # knight or other pawn attacks the king.
    ep_legal = jnp.bool_(False)
    for c, (white_dir, black_dir) in enumerate(((4, 6), (5, 7))):  # capturer west, east
        exposed = (
            bb.any_(ep_exposed[c])
            | bb.any_(knight_checkers)
            | bb.any_(bb.and_(pawn_checkers, bb.not_(victim)))
        )
        ok = bb.any_(capturers[c]) & bb.any_(bb.and_(victim, their[PAWN])) & ~exposed
        ep_legal = ep_legal | ok
        capture = bb.keep_if(ok, target_ep)
        for d, side in ((white_dir, only_white), (black_dir, only_black)):
            planes[7 * d] = bb.or_(planes[7 * d], bb.and_(capture, side))
    moves = jnp.stack([jnp.stack(p) for p in planes])  # [72, 2]
    return moves.astype(jnp.uint32), in_check, ep_legal


def _legal_of(moves: jax.Array) -> jax.Array:
    """bool[A]: the legal mask of move planes ``uint32[NUM_PLANES, 2]``."""
    words = moves.reshape(-1)[jnp.asarray(_ACTION_WORD)]  # [A]
    return ((words >> jnp.asarray(_ACTION_BIT)) & 1) != 0


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


def _code(piece: int, color: jax.Array) -> jax.Array:
    """int8 code of a piece type of a (traced) colour."""
    return (piece + BLACK_BIT * color).astype(jnp.int8)


def _of_color(code: jax.Array, color: jax.Array) -> jax.Array:
    """bool: ``code`` is a real piece (not empty, not the wall) of ``color``."""
    return (code != EMPTY) & (code != WALL) & ((code >> 3) == color)


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


class Chess(Game):
    """Chess with every rule (1,924 action slots); white (player 0) moves first.

    Utility: ``[1, -1]`` when white mates, ``[-1, 1]`` when black mates, ``[0, 0]`` for every
    draw. :attr:`max_game_length` is :data:`MAX_GAME_LENGTH`.
    """

    name = "chess"
    num_players = 2
    num_actions = NUM_ACTIONS
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    max_game_length = MAX_GAME_LENGTH

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._init = None
        self._step_jit = jax.jit(self.step)

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> ChessState:
        """The standard starting position, white to move."""
        if self._init is None:  # parsed once, on the host even when called under a trace
            with jax.ensure_compile_time_eval():
                self._init = jax.tree.map(np.asarray, self.parse(START_FEN))
        return jax.tree.map(jnp.asarray, self._init)

    def player(self, state: ChessState) -> jax.Array:
        """int32: 0 when white is to move, 1 when black is."""
        return state.turn.astype(jnp.int32)

    def legal_mask(self, state: ChessState) -> jax.Array:
        """bool[A]: the legal moves (read off the move planes kept in the state); all False
        when the game is over."""
        return _legal_of(state.moves)

    def terminal(self, state: ChessState) -> jax.Array:
        """bool: checkmate, stalemate, insufficient material, threefold or 50 moves."""
        return state.status != ONGOING

    def utility(self, state: ChessState) -> jax.Array:
        """float32[2]: ``[u, -u]``; ``u = -1`` when white is mated, ``+1`` when black is."""
        mated = state.status == CHECKMATE
        u = jnp.where(mated, jnp.where(state.turn == WHITE, -1.0, 1.0), 0.0)
        return two_player_utility(u)

    def step(self, state: ChessState, action: jax.Array) -> ChessState:
        """Play ``action`` for the side to move (see the module docs for the encoding).

        The moving piece is read from the board, so the same action is a castling when the
        king moves two squares, an en-passant capture when a pawn moves onto the en-passant
        square, and a queen promotion when a pawn reaches the last rank. Any action traces
        safely; an illegal one gives an unspecified state of the same shapes.
        """
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, NUM_ACTIONS - 1)
        frm, to = jnp.asarray(ACTIONS.frm)[a], jnp.asarray(ACTIONS.to)[a]
        under = jnp.asarray(ACTIONS.under)[a]
        us = state.turn.astype(jnp.int32)
        them = 1 - us
        board = state.board
        piece = board[frm]
        kind = piece & 7
        captured = board[to]
        is_pawn = kind == PAWN
        en_passant = is_pawn & (to == state.ep.astype(jnp.int32)) & (state.ep >= 0)
        victim = jnp.where(en_passant, to - 8 + 16 * us, _OFF)
        promotes = is_pawn & (to // 8 == 7 - 7 * us)
        new_piece = jnp.where(
            promotes, _code(jnp.where(under > 0, under, QUEEN), us), piece
        ).astype(jnp.int8)
        castles = (kind == KING) & (jnp.abs(to - frm) == 2)
        king_side = to > frm
        rook_from = jnp.where(castles, jnp.where(king_side, frm + 3, frm - 4), _OFF)
        rook_to = jnp.where(castles, jnp.where(king_side, frm + 1, frm - 1), _OFF)
        rook = _code(ROOK, us)
        padded = jnp.concatenate([board, jnp.zeros((1,), jnp.int8)])  # cell 64: scratch
        padded = padded.at[frm].set(EMPTY).at[victim].set(EMPTY).at[rook_from].set(EMPTY)
        padded = padded.at[to].set(new_piece).at[rook_to].set(rook)
        new_board = padded[:64]

        castling = state.castling.astype(jnp.int32)
        keep = jnp.asarray(_CASTLE["keep"])
        new_castling = castling & keep[frm] & keep[to]
        zp = jnp.asarray(_Z_PIECE)
        old_ep = state.ep.astype(jnp.int32)
        key = (
            state.hash
            ^ zp[piece, frm]
            ^ zp[captured, to]
            ^ zp[new_piece, to]
            ^ zp[_code(PAWN, them), victim]
            ^ zp[rook, rook_from]
            ^ zp[rook, rook_to]
            ^ jnp.asarray(_Z_SIDE)
            ^ jnp.asarray(_Z_CASTLE)[castling]
            ^ jnp.asarray(_Z_CASTLE)[new_castling]
            ^ jnp.asarray(_Z_EP)[jnp.where(old_ep >= 0, old_ep % 8, 8)]
        )
        double_push = is_pawn & (jnp.abs(to - frm) == 16)
        halfmove = jnp.where(is_pawn | (captured != EMPTY), 0, state.halfmove + 1)
        history = jnp.concatenate([state.hash[None], state.history[:-1]], axis=0)
        return _finish(
            new_board,
            them,
            new_castling,
            jnp.where(double_push, (frm + to) // 2, -1),
            halfmove,
            state.fullmove + us,
            key,
            history,
        )

    def sample_actions(self, states: ChessState, uniform: jax.Array) -> jax.Array:
        """One legal move per state, uniformly: the ``k``-th, ``k = floor(u * n)``, of the
        ``n`` legal moves counted off the move planes' population counts (an under-promotion
        plane's bit counts three moves). BATCHED: ``states [B]``, ``uniform float32[B]``.

        Returns:
            int32[B] (0 for a finished game).
        """
        batch = uniform.shape[0]
        words = states.moves.reshape(batch, -1)  # [B, 144]
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

    def null_step(self, state: ChessState) -> ChessState:
        """The side to move passes (python-chess's ``Move.null()``): the other side to move,
        no en-passant square, the halfmove clock one higher, the move number one higher
        after black; the position joins the repetition history as after any move."""
        us = state.turn.astype(jnp.int32)
        old_ep = state.ep.astype(jnp.int32)
        key = (
            state.hash
            ^ jnp.asarray(_Z_SIDE)
            ^ jnp.asarray(_Z_EP)[jnp.where(old_ep >= 0, old_ep % 8, 8)]
        )
        history = jnp.concatenate([state.hash[None], state.history[:-1]], axis=0)
        return _finish(
            state.board,
            1 - us,
            state.castling,
            -1,
            state.halfmove + 1,
            state.fullmove + us,
            key,
            history,
        )

    def null_ok(self, state: ChessState) -> jax.Array:
        """bool[]: a null move is tried only in a game going on, not in check (passing would
        leave the king en prise), and when the side to move has a knight, bishop, rook or
        queen (with king and pawns alone, zugzwang is common and the pass lies)."""
        kind = state.board & 7
        ours = (state.board != EMPTY) & ((state.board >> 3) == state.turn)
        pieces = ours & (kind >= KNIGHT) & (kind <= QUEEN)
        return (state.status == ONGOING) & ~state.in_check & jnp.any(pieces)

    def evaluate(self, state: ChessState) -> jax.Array:
        """float32[2]: ``[e, -e]`` with ``e = 0.999 * tanh(p * ln(10) / 8)``, ``p`` the
        material and positional balance in pawns from white's side (module docs); the
        utility at terminal states."""
        p = jnp.sum(jnp.asarray(_PST)[state.board.astype(jnp.int32), jnp.arange(64)])
        bishops = jnp.stack(
            [jnp.sum(state.board == _code(BISHOP, jnp.int32(c))) for c in (WHITE, BLACK)]
        )
        p = p + 0.3 * ((bishops[0] >= 2).astype(jnp.float32) - (bishops[1] >= 2))
        e = 0.999 * jnp.tanh(p * (math.log(10.0) / 8.0))
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    def _captures(
        self, state: ChessState, frm: Any, to: Any
    ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """(capture bool, victim value int32, attacker value int32, promotes bool) of the
        moves from squares ``frm`` to squares ``to`` (arrays of one shape), from two
        gathers: facts of every square packed into one int32 per square, read at each
        move's two squares."""
        board = state.board.astype(jnp.int32)
        kind = board & 7
        ep = state.ep.astype(jnp.int32)
        at_from = jnp.asarray(_ATTACKER_INT)[kind] | ((kind == PAWN).astype(jnp.int32) << 4)
        at_to = jnp.asarray(_VALUE_INT)[kind] | ((board != EMPTY).astype(jnp.int32) << 4)
        to = jnp.asarray(to)
        mover, target = at_from[jnp.asarray(frm)], at_to[to]
        is_pawn = (mover >> 4) == 1
        en_passant = is_pawn & (to == ep)  # ep is -1 when there is none
        capture = ((target >> 4) == 1) | en_passant
        victim = jnp.where(en_passant, 1, target & 15)
        promotes = is_pawn & ((to < 8) | (to >= 56))
        return capture, victim, mover & 15, promotes

    def _listed(self, state: ChessState, moves: jax.Array):
        """:meth:`_captures` of the listed actions ``moves`` (``-1`` read as action 0), and
        their promotion bonuses: one lookup per move in a table of packed action facts."""
        facts = jnp.asarray(_MOVE_FACTS)[jnp.maximum(moves, 0)]
        capture, victim, attacker, promotes = self._captures(state, facts & 63, facts >> 6 & 63)
        return capture, victim, attacker, promotes, facts >> 12

    @staticmethod
    def _score(capture, victim, attacker, promotes, bonus) -> jax.Array:
        score = jnp.where(capture, 16 * victim - attacker, 0)
        return score + jnp.where(promotes, bonus, 0)

    def move_order_scores(self, state: ChessState) -> jax.Array:
        """float32[A]: MVV-LVA, ``16 * victim - attacker`` for captures (victim and attacker
        valued 1, 3, 3, 5, 9 and the king 10, so every capture scores > 0 and the most
        valuable victim comes first, taken by the least valuable attacker), plus ``16 *
        (value - 1)`` of a promoted piece; 0 for quiet moves."""
        facts = self._captures(state, ACTIONS.frm, ACTIONS.to)
        score = self._score(*facts, jnp.asarray(_PROMOTION_BONUS))
        return jnp.where(self.legal_mask(state), score, 0).astype(jnp.float32)

    def noisy_mask(self, state: ChessState) -> jax.Array:
        """bool[A]: legal captures (en passant included) and promotions."""
        capture, _, _, promotes = self._captures(state, ACTIONS.frm, ACTIONS.to)
        return self.legal_mask(state) & (capture | promotes)

    # Compact move lists: searches hold a node's legal moves as a list of MAX_MOVES.
    max_moves = MAX_MOVES

    def legal_moves(self, state: ChessState) -> jax.Array:
        """int32[218]: the legal actions (those of :meth:`legal_mask`), ordered by move plane
        then destination square, then ``-1``; read off the move planes without building the
        1,924-wide mask (:func:`_moves_of`). All ``-1`` when the game is over."""
        return _moves_of(state.moves)

    def move_scores(self, state: ChessState, moves: jax.Array) -> jax.Array:
        """float32[M] for legal actions ``moves`` int32[M]: :meth:`move_order_scores` of
        each (MVV-LVA and promotion bonus, 0 for quiet moves), computed for the listed moves
        only; ``-1`` entries score ``-1e9``, so a descending sort puts them last."""
        score = self._score(*self._listed(state, moves))
        return jnp.where(moves >= 0, score.astype(jnp.float32), -1e9)

    def noisy_moves(self, state: ChessState, moves: jax.Array) -> jax.Array:
        """bool[M] for legal actions ``moves`` int32[M]: :meth:`noisy_mask` of each (captures,
        en passant included, and promotions); False for ``-1`` entries."""
        capture, _, _, promotes, _ = self._listed(state, moves)
        return (moves >= 0) & (capture | promotes)

    def in_check(self, state: ChessState) -> jax.Array:
        """bool: the side to move is in check (kept in the state, computed with its moves)."""
        return state.in_check

    def any_noisy(self, state: ChessState) -> jax.Array:
        """bool: a legal capture or promotion exists, read off the move planes: a
        destination on an enemy piece, any pawn move onto the last rank (the
        under-promotion planes), or a legal en-passant capture."""
        them = 1 - state.turn.astype(jnp.int32)
        theirs = bb.pack((state.board != EMPTY) & ((state.board >> 3) == them))
        words = state.moves  # [NUM_PLANES, 2]
        captures = ((words[:64, 0] & theirs[0]) | (words[:64, 1] & theirs[1])) != 0
        ongoing = jnp.any(words != 0)
        return jnp.any(captures) | jnp.any(words[64:] != 0) | (ongoing & (state.ep >= 0))

    def hash(self, state: ChessState) -> jax.Array:
        """uint32[2]: the Zobrist key (pieces on squares, black to move, castling rights,
        the en-passant file when a capture is legal), kept incrementally by ``step``."""
        return state.hash

    # ------------------------------------------------------------------ host side
    position_formats = (
        (
            "FEN: 6 fields, or 4 without the clocks",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        ),
        ("UCI moves from the start (or after a FEN)", "startpos moves e2e4 e7e5 g1f3"),
        ("the start", "startpos"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """A FEN is its first 4 fields, and the next 2 when both are whole numbers (the
        clocks); ``startpos`` is one field; ``moves`` after either takes every following
        field that is a UCI move. The rest of the line (an EPD operation, a label) is the
        label."""
        fields = line.split()
        if not fields:
            return "", ""
        if fields[0] in ("startpos", "start"):
            count = 1
        else:
            count = min(4, len(fields))
            if len(fields) >= 6 and all(f.isascii() and f.isdigit() for f in fields[4:6]):
                count = 6
        if count < len(fields) and fields[count] == "moves":
            count += 1
            while count < len(fields) and _UCI_MOVE.fullmatch(fields[count]):
                count += 1
        return split_fields(line, count)

    def parse(self, text: str) -> ChessState:
        """FEN (6 fields; the two clocks may be left out) -> state. Also ``""`` or
        ``"startpos"`` for the start, and ``"<FEN or startpos> moves e2e4 e7e5 ..."`` (UCI
        moves played from it, so the repetition history is kept).

        Raises:
            GameError: one line naming the bad field, a missing king, a pawn on the first or
                last rank, or the side not to move being in check.
        """
        body, _, moves = text.strip().partition(" moves")
        body = body.strip()
        if body in ("", "startpos", "start"):
            body = START_FEN
        state = self._parse_fen(body)
        for move in moves.split():
            state = self._step_jit(state, jnp.int32(self.string_to_action(state, move)))
        return state

    def _parse_fen(self, fen: str) -> ChessState:
        fields = fen.split()
        if len(fields) == 4:
            fields += ["0", "1"]
        if len(fields) != 6:
            raise GameError(f"chess: FEN {fen!r} has {len(fields)} fields, expected 6 (or 4)")
        placement, side, rights, ep_text, half_text, full_text = fields
        ranks = placement.split("/")
        if len(ranks) != 8:
            raise GameError(f"chess: FEN placement {placement!r} has {len(ranks)} ranks, not 8")
        board = np.zeros((64,), np.int8)
        for i, rank_text in enumerate(ranks):
            rank, file = 7 - i, 0
            for c in rank_text:
                if c.isdigit() and c not in "09":
                    file += int(c)
                elif c.lower() in _PIECE_LETTERS[1:]:
                    if file > 7:
                        break
                    code = _PIECE_LETTERS.index(c.lower()) + (0 if c.isupper() else BLACK_BIT)
                    board[_sq(file, rank)] = code
                    file += 1
                else:
                    raise GameError(f"chess: bad character {c!r} in FEN rank {8 - i}")
            if file != 8:
                raise GameError(f"chess: FEN rank {8 - i} ({rank_text!r}) has not 8 squares")
        if side not in ("w", "b"):
            raise GameError(f"chess: FEN side to move {side!r} is not 'w' or 'b'")
        turn = WHITE if side == "w" else BLACK
        if rights != "-" and (set(rights) - set("KQkq") or len(set(rights)) != len(rights)):
            raise GameError(f"chess: FEN castling field {rights!r} is not '-' or from 'KQkq'")
        castling = 0
        for bit, c in zip((1, 2, 4, 8), "KQkq", strict=True):
            if c in rights:
                color, side_index = divmod(int(math.log2(bit)), 2)
                king_ok = board[_CASTLE["king_sq"][color]] == KING + BLACK_BIT * color
                rook_ok = board[_CASTLE["rook_sq"][color, side_index]] == ROOK + BLACK_BIT * color
                if king_ok and rook_ok:  # rights the board contradicts are dropped
                    castling |= bit
        ep = -1
        if ep_text != "-":
            if not re.fullmatch(r"[a-h][36]", ep_text):
                raise GameError(f"chess: FEN en-passant square {ep_text!r} is not - or a3..h6")
            ep = _sq(_FILES.index(ep_text[0]), int(ep_text[1]) - 1)
            if ep // 8 != (5 if turn == WHITE else 2):
                ep = -1  # on the wrong rank for the side to move: no capture is possible
        try:
            halfmove, fullmove = whole_number(half_text), whole_number(full_text)
        except ValueError:
            raise GameError(
                f"chess: FEN clocks {half_text!r} {full_text!r} are not integers"
            ) from None
        if halfmove < 0 or fullmove < 1:
            raise GameError(f"chess: FEN clocks {halfmove} {fullmove} are out of range")
        for color in (WHITE, BLACK):
            if int(np.sum(board == KING + BLACK_BIT * color)) != 1:
                raise GameError(f"chess: FEN has not exactly one {('white', 'black')[color]} king")
        if np.any((board[:8] & 7) == PAWN) or np.any((board[56:] & 7) == PAWN):
            raise GameError("chess: FEN has a pawn on the first or last rank")
        if bool(_in_check_jit(jnp.asarray(board), jnp.int32(1 - turn))):
            raise GameError("chess: FEN puts the side not to move in check")
        key = _key_of(board, turn, castling, -1)
        return _finish_jit(
            jnp.asarray(board),
            jnp.int32(turn),
            jnp.int32(castling),
            jnp.int32(ep),
            jnp.int32(halfmove),
            jnp.int32(fullmove),
            jnp.asarray(key),
            jnp.zeros((HISTORY, 2), jnp.uint32),
        )

    def format(self, state: ChessState) -> str:
        """State -> FEN (the en-passant square only when a capture onto it is legal, as
        python-chess writes it)."""
        board = np.asarray(state.board)
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for file in range(8):
                code = int(board[_sq(file, rank)])
                if code == EMPTY:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                letter = _PIECE_LETTERS[code & 7]
                row += letter if code >> 3 else letter.upper()
            rows.append(row + (str(empty) if empty else ""))
        rights = int(state.castling)
        castling = "".join(c for bit, c in zip((1, 2, 4, 8), "KQkq", strict=True) if rights & bit)
        ep = int(state.ep)
        return " ".join(
            [
                "/".join(rows),
                "wb"[int(state.turn)],
                castling or "-",
                square_name(ep) if ep >= 0 else "-",
                str(int(state.halfmove)),
                str(int(state.fullmove)),
            ]
        )

    def legal_actions(self, state: ChessState) -> list[int]:
        """The legal actions of a concrete state, ascending."""
        return [int(a) for a in np.flatnonzero(np.asarray(self.legal_mask(state)))]

    def action_to_string(self, state: ChessState, action: int) -> str:
        """UCI notation: ``e2e4``, ``e7e8q`` (a pawn's plain action onto the last rank is
        the queen promotion), ``e7e8n``, castling as the king's move ``e1g1``."""
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise GameError(f"chess: action {a} is outside 0..{NUM_ACTIONS - 1}")
        frm, to, under = int(ACTIONS.frm[a]), int(ACTIONS.to[a]), int(ACTIONS.under[a])
        text = square_name(frm) + square_name(to)
        if under:
            return text + _PIECE_LETTERS[under]
        if (int(np.asarray(state.board)[frm]) & 7) == PAWN and to // 8 in (0, 7):
            return text + "q"
        return text

    def uci_to_action(self, text: str) -> int:
        """UCI text -> action index, legal or not (``-1`` when no action has those squares).

        Raises:
            GameError: text that is not of the form ``e2e4`` or ``e7e8q``.
        """
        t = text.strip()
        m = re.fullmatch(r"([a-h][1-8])([a-h][1-8])([qrbn]?)", t)
        if not m:
            raise GameError(f"chess: bad UCI move {text!r}")
        frm = _FILES.index(t[0]) + 8 * (int(t[1]) - 1)
        to = _FILES.index(t[2]) + 8 * (int(t[3]) - 1)
        piece = _PIECE_LETTERS.index(m.group(3)) if m.group(3) else 0
        return int(ACTIONS.promo[frm, to, piece])

    def string_to_action(self, state: ChessState, text: str) -> int:
        """UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``exd6``, ``O-O``, ``e8=Q+``) -> the
        legal action. Raises GameError when malformed or illegal."""
        t = text.strip()
        if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", t):
            action = self.uci_to_action(t)
            board = np.asarray(state.board)
            frm, to = _FILES.index(t[0]) + 8 * (int(t[1]) - 1), 0
            to = _FILES.index(t[2]) + 8 * (int(t[3]) - 1)
            is_promotion = (int(board[frm]) & 7) == PAWN and to // 8 in (0, 7)
            if is_promotion and len(t) == 4:
                raise GameError(f"chess: move {text!r} promotes; add the piece (e.g. {t}q)")
            if not is_promotion and len(t) == 5:
                raise GameError(f"chess: move {text!r} is not a promotion")
            if action < 0:
                raise GameError(f"chess: illegal move {text!r}")
            self._check_legal(state, action, text)
            return action
        wanted = t.rstrip("+#!?").replace("0-0-0", "O-O-O").replace("0-0", "O-O")
        for action in self.legal_actions(state):
            if self.san(state, action, suffix=False) == wanted:
                return action
        if bool(self.terminal(state)):
            raise GameError(f"chess: move {text!r} after the game is over")
        raise GameError(f"chess: illegal or malformed move {text!r} (UCI or SAN expected)")

    def san(self, state: ChessState, action: int, suffix: bool = True) -> str:
        """Standard algebraic notation of a legal action, as python-chess writes it
        (disambiguation by file, then rank, then both; ``+`` check, ``#`` mate)."""
        a = int(action)
        board = np.asarray(state.board)
        frm, to, under = int(ACTIONS.frm[a]), int(ACTIONS.to[a]), int(ACTIONS.under[a])
        kind = int(board[frm]) & 7
        if kind == KING and abs(to - frm) == 2:
            text = "O-O" if to > frm else "O-O-O"
        elif kind == PAWN:
            capture = to % 8 != frm % 8
            text = (_FILES[frm % 8] + "x" if capture else "") + square_name(to)
            if to // 8 in (0, 7):
                text += "=" + _PIECE_LETTERS[under or QUEEN].upper()
        else:
            others = [
                int(ACTIONS.frm[b])
                for b in self.legal_actions(state)
                if b != a
                and int(ACTIONS.to[b]) == to
                and (int(board[ACTIONS.frm[b]]) & 7) == kind
                and int(ACTIONS.frm[b]) != frm
            ]
            text = _PIECE_LETTERS[kind].upper()
            if others:
                same_rank = any(o // 8 == frm // 8 for o in others)
                same_file = any(o % 8 == frm % 8 for o in others)
                if same_rank or not same_file:
                    text += _FILES[frm % 8]
                if same_file:
                    text += str(frm // 8 + 1)
            if board[to] != EMPTY:
                text += "x"
            text += square_name(to)
        if suffix:
            child = self._step_jit(state, jnp.int32(a))
            if int(child.status) == CHECKMATE:
                text += "#"
            elif bool(child.in_check):
                text += "+"
        return text

    def sample_positions(self) -> list[str]:
        """The start and the standard perft positions (Kiwipete and positions 3 to 6)."""
        return [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        ]


__all__ = ["ACTIONS", "NUM_ACTIONS", "START_FEN", "Chess", "ChessState", "square_name"]
