"""The chess game: the :class:`Chess` class, its traced protocol (the start, the side to
move, legal moves, ``step`` and the null move, terminal states and utility), with its
evaluation and search hints (:mod:`.evaluation`) and notation (:mod:`.notation`) mixed in.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, two_player_utility
from jaxgames.games.chess.encoding import (
    _CASTLE,
    _OFF,
    _Z_CASTLE,
    _Z_EP,
    _Z_PIECE,
    _Z_SIDE,
    ACTIONS,
    CHECKMATE,
    EMPTY,
    KING,
    MAX_GAME_LENGTH,
    NUM_ACTIONS,
    ONGOING,
    PAWN,
    QUEEN,
    ROOK,
    START_FEN,
    WHITE,
)
from jaxgames.games.chess.evaluation import ChessSearchHints
from jaxgames.games.chess.movegen import _legal_of
from jaxgames.games.chess.movelist import MAX_MOVES, _moves_of, _sample_of
from jaxgames.games.chess.notation import ChessNotation
from jaxgames.games.chess.position import ChessState, _code, _finish
from jaxgames.games.chess.tables import ChessTables


class Chess(ChessNotation, ChessSearchHints, ChessTables, Game):
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
            try:  # the compiled parse, when no trace is under way
                self._init = jax.tree.map(np.asarray, self.parse(START_FEN))
            except jax.errors.JAXTypeError:  # under a trace: op by op, much slower
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
        return _sample_of(states.moves, uniform)

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

    # Compact move lists: searches hold a node's legal moves as a list of MAX_MOVES.
    max_moves = MAX_MOVES

    def legal_moves(self, state: ChessState) -> jax.Array:
        """int32[218]: the legal actions (those of :meth:`legal_mask`), ordered by move plane
        then destination square, then ``-1``; read off the move planes without building the
        1,924-wide mask (:func:`_moves_of`). All ``-1`` when the game is over."""
        return _moves_of(state.moves)

    def in_check(self, state: ChessState) -> jax.Array:
        """bool: the side to move is in check (kept in the state, computed with its moves)."""
        return state.in_check

    def hash(self, state: ChessState) -> jax.Array:
        """uint32[2]: the Zobrist key (pieces on squares, black to move, castling rights,
        the en-passant file when a capture is legal), kept incrementally by ``step``."""
        return state.hash
