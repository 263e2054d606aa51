"""The checkers game: the :class:`Checkers` class, its traced protocol (the start, legal
moves, ``step``, terminal states, utility, the Zobrist key, the compact move list) and the
host helper that builds consistent states, with the evaluation (:mod:`.evaluation`),
notation (:mod:`.notation`) and endgame numbering (:mod:`.endgames`) mixed in.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError, two_player_utility, zobrist_table
from jaxgames.games.checkers.board import (
    ACTION_OF_SLOT,
    FROM,
    IS_CAPTURE,
    NUM_ACTIONS,
    OVER,
    PROMOTION_RANK,
    QUIET_LIMIT,
    SLOT,
    TO,
    CheckersState,
    legal_words,
    move_sources,
    sides,
    word_bits,
)
from jaxgames.games.checkers.endgames import CheckersTables
from jaxgames.games.checkers.evaluation import CheckersEvaluation
from jaxgames.games.checkers.notation import CheckersNotation

_ZOBRIST_SEED = 0xC4EC
# Zobrist keys: one per (piece kind, square), kinds 0 Black man, 1 Black king, 2 White man,
# 3 White king; one for "player 1 to move"; one per square for "mid-jump, this piece jumps
# on" (a mid-jump position is not the same position as the one after the whole move).
_PIECE_KEYS = zobrist_table(_ZOBRIST_SEED, 4, 32)  # [4, 32, 2]
_SIDE_KEY = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]
_JUMP_KEYS = zobrist_table(_ZOBRIST_SEED + 2, 32)  # [32, 2]

START_BLACK = 0x00000FFF  # squares 1-12
START_WHITE = 0xFFF00000  # squares 21-32


def _bit(square: jax.Array) -> jax.Array:
    return jnp.left_shift(jnp.uint32(1), square.astype(jnp.uint32))


def _key(table: np.ndarray, *index: Any) -> tuple[jax.Array, jax.Array]:
    """The (lo, hi) words of a Zobrist table entry at a traced index."""
    return jnp.asarray(table[..., 0])[index], jnp.asarray(table[..., 1])[index]


class Checkers(CheckersNotation, CheckersEvaluation, CheckersTables, Game):
    """English draughts (checkers) 8x8, OpenSpiel's rules; a multi-jump is several steps.

    Action ids are OpenSpiel's; each jump of a multi-jump is a step by the same player."""

    name = "checkers"
    num_players = 2
    num_actions = NUM_ACTIONS
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    # At most 40 steps without a capture (the 40th ends the game), and at most 23 captures
    # (each removes one of 24 pieces, and a side without pieces has lost): 24 * 40 steps.
    max_game_length = 960
    # MoveLists: a player has at most 12 pieces, each with at most 4 moves (all simple
    # moves or all captures), so no position has more than 48 legal actions.
    max_moves = 48

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> CheckersState:
        """The start: Black (player 0) on 1-12, White on 21-32, Black to move."""
        return jax.tree.map(jnp.asarray, self.host_state(START_BLACK, START_WHITE, 0, 0))

    def player(self, state: CheckersState) -> jax.Array:
        """int32: 0 when Black (OpenSpiel's first player, ``o``) is to move, 1 for White."""
        return state.player.astype(jnp.int32)

    def legal_mask(self, state: CheckersState) -> jax.Array:
        """bool[512] over OpenSpiel's action ids."""
        return word_bits(legal_words(state))[jnp.asarray(SLOT)]

    def legal_moves(self, state: CheckersState) -> jax.Array:
        """int32[48]: the legal action ids, then -1 (MoveLists).

        Each of the 8 move sets holds at most 12 squares (the mover's pieces): their bits
        are taken lowest first, 12 rounds over all sets at once, and the 96 slots sorted
        (3 times faster on a CPU than compacting the 256 bits or the 512-action mask)."""
        words = legal_words(state)  # [8]
        slots = []
        for _ in range(12):
            lowest = words & (~words + jnp.uint32(1))
            square = jax.lax.population_count(lowest - jnp.uint32(1)).astype(jnp.int32)
            slots.append(jnp.where(words != 0, jnp.arange(8) * 32 + square, 256))
            words = words ^ lowest
        ordered = jnp.sort(jnp.stack(slots).reshape(-1))[: self.max_moves]  # [48]
        return jnp.asarray(ACTION_OF_SLOT)[ordered]

    def step(self, state: CheckersState, action: jax.Array) -> CheckersState:
        """Play one step: a simple move, or one jump of a capture.

        After a jump by a piece that was not crowned by it, the same player moves again if
        that piece can jump again (and then only it may move). An illegal action gives an
        unspecified state of the same shapes.
        """
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, NUM_ACTIONS - 1)
        start, to, over = jnp.asarray(FROM)[a], jnp.asarray(TO)[a], jnp.asarray(OVER)[a]
        capture = jnp.asarray(IS_CAPTURE)[a]
        start_bit, to_bit = _bit(start), _bit(to)
        over_bit = jnp.where(capture, _bit(over), jnp.uint32(0))
        p = state.player.astype(jnp.int32)
        own, opp = sides(state)
        was_king = (state.kings & start_bit) != 0
        promotion = jnp.where(p == 0, jnp.uint32(PROMOTION_RANK[0]), jnp.uint32(PROMOTION_RANK[1]))
        crowned = ~was_king & ((to_bit & promotion) != 0)
        took_king = (state.kings & over_bit) != 0
        own = (own & ~start_bit) | to_bit
        opp = opp & ~over_bit
        kings = (state.kings & ~start_bit & ~over_bit) | jnp.where(
            was_king | crowned, to_bit, jnp.uint32(0)
        )
        _, jumps = move_sources(own, opp, kings, p)
        can_jump_on = ((jumps[0] | jumps[1] | jumps[2] | jumps[3]) & to_bit) != 0
        jump_on = capture & ~crowned & can_jump_on
        # the key: the piece leaves, lands (maybe crowned), the captured piece goes, the
        # side key flips when the turn passes, the mid-jump key of the old and new jumper
        lo, hi = state.hash_lo, state.hash_hi
        for key, on in (
            (_key(_PIECE_KEYS, 2 * p + was_king, start), True),
            (_key(_PIECE_KEYS, 2 * p + (was_king | crowned), to), True),
            (_key(_PIECE_KEYS, 2 * (1 - p) + took_king, over), capture),
            ((jnp.uint32(_SIDE_KEY[0]), jnp.uint32(_SIDE_KEY[1])), ~jump_on),
            (_key(_JUMP_KEYS, jnp.maximum(state.jumper, 0)), state.jumper >= 0),
            (_key(_JUMP_KEYS, to), jump_on),
        ):
            lo = lo ^ jnp.where(on, key[0], jnp.uint32(0))
            hi = hi ^ jnp.where(on, key[1], jnp.uint32(0))
        black_moved = p == 0
        return CheckersState(
            black=jnp.where(black_moved, own, opp),
            white=jnp.where(black_moved, opp, own),
            kings=kings,
            player=jnp.where(jump_on, p, 1 - p).astype(jnp.int8),
            jumper=jnp.where(jump_on, to, -1).astype(jnp.int8),
            quiet=jnp.where(capture, 0, state.quiet.astype(jnp.int32) + 1).astype(jnp.int8),
            hash_lo=lo,
            hash_hi=hi,
        )

    def terminal(self, state: CheckersState) -> jax.Array:
        """bool: the side to move has no legal move, or 40 steps passed without a capture."""
        return ~jnp.any(legal_words(state) != 0)

    def utility(self, state: CheckersState) -> jax.Array:
        """float32[2]: at the end, a draw after 40 steps without a capture, else the side
        to move (it cannot move) has lost; zeros before the end."""
        drawn = state.quiet >= QUIET_LIMIT
        u = jnp.where(state.player == 0, -1.0, 1.0)
        return two_player_utility(jnp.where(self.terminal(state) & ~drawn, u, 0.0))

    def plies_left(self, state: CheckersState) -> jax.Array:
        """40 steps per piece on the board, less the quiet steps already made (see
        ``max_game_length``)."""
        pieces = jax.lax.population_count(state.black | state.white).astype(jnp.int32)
        left = 40 * pieces - state.quiet.astype(jnp.int32)
        return jnp.where(self.terminal(state), 0, left).astype(jnp.int32)

    def hash(self, state: CheckersState) -> jax.Array:
        """uint32[2]: the Zobrist key ``[lo, hi]`` of the pieces, the side to move and, mid-
        jump, the jumping piece (not the quiet-step count)."""
        return jnp.stack([state.hash_lo, state.hash_hi])

    # ------------------------------------------------------------------ host side
    def host_state(
        self, black: int, white: int, kings: int, player: int, jumper: int = -1, quiet: int = 0
    ) -> CheckersState:
        """A state with numpy leaves, its key computed from scratch; checks what a
        position must satisfy (raises :class:`GameError`)."""
        if black & white:
            raise GameError("checkers: a square holds pieces of both sides")
        if kings & ~(black | white):
            raise GameError("checkers: a king on an empty square")
        for colour, pieces, rank in (
            ("Black", black, PROMOTION_RANK[0]),
            ("White", white, PROMOTION_RANK[1]),
        ):
            if bin(pieces).count("1") > 12:
                raise GameError(f"checkers: {colour} has more than 12 pieces")
            if pieces & ~kings & rank:
                raise GameError(f"checkers: a {colour} man on its crowning row")
        if not 0 <= quiet <= QUIET_LIMIT:
            raise GameError(f"checkers: quiet-step count {quiet} outside 0..{QUIET_LIMIT}")
        lo = hi = 0
        for square in range(32):
            bit = 1 << square
            if (black | white) & bit:
                kind = (0 if black & bit else 2) + (1 if kings & bit else 0)
                lo ^= int(_PIECE_KEYS[kind, square, 0])
                hi ^= int(_PIECE_KEYS[kind, square, 1])
        if player == 1:
            lo ^= int(_SIDE_KEY[0])
            hi ^= int(_SIDE_KEY[1])
        if jumper >= 0:
            lo ^= int(_JUMP_KEYS[jumper, 0])
            hi ^= int(_JUMP_KEYS[jumper, 1])
        return CheckersState(
            black=np.uint32(black),
            white=np.uint32(white),
            kings=np.uint32(kings),
            player=np.int8(player),
            jumper=np.int8(jumper),
            quiet=np.int8(quiet),
            hash_lo=np.uint32(lo),
            hash_hi=np.uint32(hi),
        )

    def host_fields(self, state: CheckersState) -> tuple[int, int, int, int, int, int]:
        """(black, white, kings, player, jumper, quiet) of a concrete state as ints."""
        fields = (state.black, state.white, state.kings, state.player, state.jumper, state.quiet)
        return tuple(int(np.asarray(x)) for x in fields)  # type: ignore[return-value]
