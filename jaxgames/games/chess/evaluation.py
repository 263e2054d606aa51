"""Chess evaluation and search hints.

:meth:`~ChessSearchHints.evaluate`: material (pawn 1, knight 3, bishop 3, rook 5, queen 9)
plus small positional terms (see :func:`_piece_square_table`), a bishop pair bonus, all in
pawns ``p`` from white's side, mapped to the utility scale as
``0.999 * tanh(p * ln(10) / 8)``: the usual logistic link between an advantage and the
expected score (one pawn is worth about a 64 % expected score), strictly inside the
``(-1, 1)`` of a decided game.

Search hints: MVV-LVA move ordering (most valuable victim, least valuable attacker;
promotions first), the noisy moves (captures and promotions) quiescence search plays past the
horizon, of the 1,924-wide action space or of a compact move list, and when a null move may be
tried.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import bitboard as bb
from jaxgames.game import two_player_utility
from jaxgames.games.chess.encoding import (
    ACTIONS,
    BISHOP,
    BLACK,
    BLACK_BIT,
    EMPTY,
    KING,
    KNIGHT,
    ONGOING,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
)
from jaxgames.games.chess.position import ChessState, _code

_VALUE_INT = np.array([0, 1, 3, 3, 5, 9, 0, 0], np.int32)  # MVV-LVA victims
_ATTACKER_INT = np.array([0, 1, 3, 3, 5, 9, 10, 0], np.int32)  # MVV-LVA: king attacks last


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


# A pawn's move onto the first or last rank promotes; the piece (under-promotion or queen)
# adds 16 * (value - 1) to its MVV-LVA score.
_PROMOTION_BONUS = 16 * (_VALUE_INT[np.where(ACTIONS.under > 0, ACTIONS.under, QUEEN)] - 1)
# Per action, packed for one lookup per listed move: from | to << 6 | promotion bonus << 12.
_MOVE_FACTS = (ACTIONS.frm | ACTIONS.to << 6 | _PROMOTION_BONUS << 12).astype(np.int32)
_PST = _piece_square_table()


class ChessSearchHints:
    """The evaluation and search hints of :class:`~jaxgames.games.chess.Chess` (a mixin: it
    reads the legal moves, terminal test and utility of the game it is mixed into)."""

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
