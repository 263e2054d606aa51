"""The Othello game: the :class:`Othello` class (and :class:`OthelloDiscs`, scored by discs),
its traced protocol (the start, legal moves, ``step``, terminal states, utility, the Zobrist
key) and the host helpers that build states, with the evaluation (:mod:`.evaluation`) and
notation (:mod:`.notation`) mixed in.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.bitboard import any_ as _any
from jaxgames.bitboard import count as _count
from jaxgames.bitboard import or_ as _or
from jaxgames.bitboard import xor as _xor
from jaxgames.game import Game, GameError, two_player_utility, zobrist_table
from jaxgames.games.othello.board import (
    _CORNER_GROUPS,
    PASS,
    OthelloState,
    _flips,
    _host_words,
    _int,
    _mix,
    _moves,
    _py_mix,
    _py_moves,
    _square_bit,
    _unpack,
    _words,
)
from jaxgames.games.othello.evaluation import EVAL_FEATURES, PROBCUT, OthelloEvaluation
from jaxgames.games.othello.notation import OthelloNotation, square_name

_ZOBRIST_SEED = 0x07E1


class Othello(OthelloNotation, OthelloEvaluation, Game):
    """Othello on 8x8 bitboards (64 squares and a pass); Black (player 0) moves first.

    Attributes:
        probcut_params: fitted ProbCut parameters (:data:`PROBCUT`), for
            ``jaxgames.search.ProbCut(**game.probcut_params)``.
        eval_weights: ``float32[F]`` the weights of :data:`EVAL_FEATURES`.
    """

    name = "othello"
    num_players = 2
    num_actions = 65
    moves_are_places = True  # PlaceMoves: an action is a point, the same wherever played
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    # 60 empty squares from the start, and a pass is always followed by a placement
    # (two passes in a row cannot happen: the game is over at the first of them)
    max_game_length = 120
    probcut_params = dict(PROBCUT)

    def __new__(cls, score: str = "wdl") -> Othello:
        # scored by discs, the game has the Scoring capability: another class
        return super().__new__(OthelloDiscs if score == "discs" and cls is Othello else cls)

    def __init__(self, score: str = "wdl") -> None:
        if score not in ("wdl", "discs"):
            raise GameError(f"othello: score must be 'wdl' or 'discs', got {score!r}")
        self.params: dict[str, Any] = {} if score == "wdl" else {"score": score}
        self.discs = score == "discs"
        self.eval_weights = np.asarray([w for _, w in EVAL_FEATURES], np.float32)  # [F]
        # Zobrist keys Z[square, colour]: Black's are random, White's are Black's XOR D(square)
        # with D the linear, invertible map _mix. A flip toggles a square's colour, so a move
        # changes the key by R[placed] ^ D(flips, and the placed square if White placed):
        # a few shifts instead of one table lookup per flipped disc. (Two positions with the
        # same occupied squares differ in White's set W, and D(W1 ^ W2) != 0: never equal.)
        random = zobrist_table(_ZOBRIST_SEED, 64)  # [64, 2]
        zobrist = np.zeros((64, 2, 2), np.uint32)  # [square, colour, word]
        for square in range(64):
            d = _py_mix(1 << square)
            zobrist[square, 0] = random[square]
            zobrist[square, 1] = random[square] ^ np.asarray([d & 0xFFFFFFFF, d >> 32], np.uint32)
        self._zobrist = zobrist
        self._zobrist_side = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]: White to move
        self._random_lo = np.append(random[:, 0], np.uint32(0))  # [65]: the pass places none
        self._random_hi = np.append(random[:, 1], np.uint32(0))  # [65]
        order = np.full((65,), -0.1, np.float32)  # plain squares: ties only
        for corner, x_square, c_squares in _CORNER_GROUPS:
            order[corner] = 1.0  # positive: searched first (the search's "hinted" moves)
            order[x_square] = -0.4
            order[list(c_squares)] = -0.3
        order[PASS] = 0.0
        self._order = order

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> OthelloState:
        """The start: White d4 e5, Black e4 d5, Black to move."""
        return self._state_from_bits(0x0000000810000000, 0x0000001008000000, 0)

    def player(self, state: OthelloState) -> jax.Array:
        """int32: 0 when Black is to move, 1 when White is."""
        return state.player.astype(jnp.int32)

    def legal_mask(self, state: OthelloState) -> jax.Array:
        """bool[65]: the legal squares, and the pass when there is none; all False at the end."""
        return jnp.concatenate([_unpack(state.moves), (state.passes == 1)[None]])

    def step(self, state: OthelloState, action: jax.Array) -> OthelloState:
        """Place a disc on square ``action`` and flip, or pass (``action == 64``).

        The new side to move's placements are generated here, and the other side's too, to
        tell "must pass" (``passes = 1``) from "game over" (``passes = 2``). An illegal
        action gives an unspecified state of the same shapes.
        """
        own, opp = state.own, state.opp
        square = _square_bit(action)  # (0, 0) for the pass
        flips = _flips(own, opp, square)
        new_own = _xor(opp, flips)  # the opponent moves next
        new_opp = _or(_or(own, square), flips)
        moves = _moves(new_own, new_opp)
        other = _moves(new_opp, new_own)
        passes = jnp.where(_any(moves), 0, jnp.where(_any(other), 1, 2)).astype(jnp.int8)
        # key ^= side ^ R[square] ^ D(flips ^ (square if White placed it)); see __init__
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, PASS)
        white = state.player == 1
        toggled = _xor(flips, (jnp.where(white, square[0], 0), jnp.where(white, square[1], 0)))
        d = _mix(toggled)
        key = (
            state.hash.lo ^ self._zobrist_side[0] ^ jnp.asarray(self._random_lo)[a] ^ d[0],
            state.hash.hi ^ self._zobrist_side[1] ^ jnp.asarray(self._random_hi)[a] ^ d[1],
        )
        return OthelloState(
            own=_words(new_own),
            opp=_words(new_opp),
            moves=_words(moves),
            player=(1 - state.player).astype(jnp.int8),
            passes=passes,
            opp_mobility=_count(other).astype(jnp.int8),
            hash=_words(key),
        )

    def terminal(self, state: OthelloState) -> jax.Array:
        """bool: neither side can place a disc."""
        return state.passes >= 2

    def disc_difference(self, state: OthelloState, empties_to_winner: bool = False) -> jax.Array:
        """int32: Black's discs minus White's.

        Args:
            empties_to_winner: give the empty squares to the player with more discs, as the
                World Othello Federation scores a finished game (a draw stays 0).
        """
        mine, theirs = _count(state.own), _count(state.opp)
        diff = jnp.where(state.player == 0, mine - theirs, theirs - mine)
        if empties_to_winner:
            empty = 64 - mine - theirs
            diff = diff + jnp.sign(diff) * empty
        return diff.astype(jnp.int32)

    def utility(self, state: OthelloState) -> jax.Array:
        """float32[2]: ``[u, -u]`` at the end (else 0): ``u = sign(Black discs - White
        discs)``, or with ``score="discs"`` the disc difference with the empty squares given
        to the winner, over 64 (the exact scores of endgame solvers: ``64 * u``)."""
        u = self.final_score(self.disc_difference(state, empties_to_winner=True))
        return two_player_utility(jnp.where(self.terminal(state), u, 0.0))

    def final_score(self, black: jax.Array) -> jax.Array:
        """float32: Black's utility of a finished game whose disc difference for Black
        (the empty squares given to the winner) is ``black``."""
        if self.discs:
            return black.astype(jnp.float32) / 64.0
        return jnp.sign(black).astype(jnp.float32)

    def plies_left(self, state: OthelloState) -> jax.Array:
        """Twice the empty squares: every placement fills one, and at most one pass comes
        before it (two passes in a row end the game)."""
        empty = 64 - _count(state.own) - _count(state.opp)
        return jnp.where(state.passes == 2, 0, 2 * empty).astype(jnp.int32)

    def hash(self, state: OthelloState) -> jax.Array:
        """uint32[2]: the Zobrist key, XOR of ``Z[square, colour]`` over the discs and a key
        when White is to move (``[lo, hi]`` words)."""
        return jnp.stack([state.hash.lo, state.hash.hi])

    def empties(self, state: OthelloState) -> jax.Array:
        """int32: empty squares."""
        return 64 - _count(_or(state.own, state.opp))

    # ------------------------------------------------------------------ host side
    move_names = tuple(square_name(a) for a in range(65))  # FixedMoveNames: a1..h8, ps
    _host_zobrist: list[list[int]] | None = None  # per colour, per square: 64-bit keys

    def _state_from_bits(self, black: int, white: int, player: int) -> OthelloState:
        """A consistent state (moves, passes, Zobrist key from scratch) from host boards."""
        return jax.tree.map(jnp.asarray, self._host_state(black, white, player))

    def _host_state(self, black: int, white: int, player: int) -> OthelloState:
        """:meth:`_state_from_bits` with numpy leaves, as :meth:`parse` gives them (host
        memory: parsed positions are stacked into batches with no device transfer each)."""
        own, opp = (black, white) if player == 0 else (white, black)
        moves, other = _py_moves(own, opp), _py_moves(opp, own)
        passes = 0 if moves else (1 if other else 2)
        if self._host_zobrist is None:
            self._host_zobrist = [
                [int(z[0]) | int(z[1]) << 32 for z in self._zobrist[:, colour]] for colour in (0, 1)
            ]
        key = 0
        for colour, board in enumerate((black, white)):
            keys = self._host_zobrist[colour]
            while board:
                low = board & -board
                key ^= keys[low.bit_length() - 1]
                board ^= low
        if player == 1:
            key ^= int(self._zobrist_side[0]) | int(self._zobrist_side[1]) << 32
        return OthelloState(
            own=_host_words(own),
            opp=_host_words(opp),
            moves=_host_words(moves),
            player=np.asarray(player, np.int8),
            passes=np.asarray(passes, np.int8),
            opp_mobility=np.asarray(bin(other).count("1"), np.int8),
            hash=_host_words(key),
        )

    def _host_boards(self, state: OthelloState) -> tuple[int, int, int]:
        """(black, white, player) of a concrete state, as Python ints."""
        own, opp, player = _int(state.own), _int(state.opp), int(np.asarray(state.player))
        return (own, opp, player) if player == 0 else (opp, own, player)


class OthelloDiscs(Othello):
    """Othello scored by the final disc difference (``make("othello", score="discs")``)."""

    score_meaning = "the final disc difference for to_move (empty squares to the winner)"

    def score_from_value(self, value: float) -> int:
        """The disc difference of a value (same player's side)."""
        return int(round(float(value) * 64))
