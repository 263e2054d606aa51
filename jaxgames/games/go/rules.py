"""The Go game: the :class:`Go` class and its traced protocol (the start, legal moves,
``step``, terminal states, Tromp-Taylor utility, the Zobrist key), with the evaluation
(:mod:`.evaluation`) and notation (:mod:`.notation`) mixed in.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError, two_player_utility
from jaxgames.games.go.board import (
    EMPTY,
    NO_KO,
    OFF,
    GoState,
    areas,
    is_over,
    legal_points,
    max_moves,
    neighbour_table,
    next_to,
    playout_mask,
    zobrist_words,
)
from jaxgames.games.go.evaluation import GoEvaluation
from jaxgames.games.go.notation import GoNotation, vertex_name

MIN_SIZE, MAX_SIZE = 5, 19
_SIDE_SEED = 0x61  # keys mixed into hash(): White to move, and the ko point


def _xor_all(x: jax.Array) -> jax.Array:
    """The XOR of the uint32 entries of ``x`` [N]."""
    return jax.lax.reduce(x, np.uint32(0), jax.lax.bitwise_xor, (0,))


class Go(GoNotation, GoEvaluation, Game):
    """Go on a ``size`` x ``size`` board: ``size**2`` points and a pass (the last action);
    Black (player 0) moves first. Simple ko, suicide illegal, Tromp-Taylor area scoring
    with ``komi`` for White; with ``superko`` a move that makes an earlier whole-board
    position is illegal (positional superko). The game ends after two passes in a row or
    ``2 * size**2`` steps (passes count), as OpenSpiel's ``go``.
    """

    name = "go"
    num_players = 2
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    moves_are_places = True  # PlaceMoves: an action is a point, the same wherever played

    def __init__(self, size: int = 9, komi: float = 7.5, superko: bool = False) -> None:
        if isinstance(size, bool) or not isinstance(size, int):
            raise GameError(f"go: size must be a whole number {MIN_SIZE}..{MAX_SIZE}, got {size!r}")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GameError(f"go: size must be {MIN_SIZE}..{MAX_SIZE}, got {size}")
        if isinstance(komi, bool) or not isinstance(komi, int | float) or komi != komi:
            raise GameError(f"go: komi must be a number, got {komi!r}")
        if abs(komi) > size * size:
            raise GameError(f"go: komi {komi} is more than the board's {size * size} points")
        if not isinstance(superko, bool):
            raise GameError(f"go: superko must be true or false, got {superko!r}")
        self.size = size
        self.komi = float(komi)
        self.superko = superko
        self.params: dict[str, Any] = {"size": size, "komi": komi, "superko": superko}
        n = size * size
        self.num_points = n
        self.pass_action = n
        self.num_actions = n + 1
        self.max_game_length = max_moves(n)
        self._history = self.max_game_length if superko else 0
        self._neighbours = neighbour_table(size)  # [N, 4]
        self._zlo, self._zhi = zobrist_words(n)  # [N, 2] each
        side = np.random.default_rng(_SIDE_SEED).integers(0, 2**32, (n + 2, 2), np.uint64)
        self._side = side.astype(np.uint32)  # [N + 2, 2]: row N+1 White to move, rows < N ko
        self._side[n] = 0  # no ko point
        self.move_names = tuple(vertex_name(a, size) for a in range(n + 1))

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> GoState:
        """The empty board, Black to move."""
        return jax.tree.map(jnp.asarray, self._empty_state())

    def _empty_state(self) -> GoState:
        n = self.num_points
        return GoState(
            board=np.zeros((n,), np.int8),
            chain=np.full((n,), n, np.int16),
            player=np.asarray(0, np.int8),
            ko=np.asarray(NO_KO, np.int16),
            passes=np.asarray(0, np.int8),
            moves=np.asarray(0, np.int16),
            hash_lo=np.asarray(0, np.uint32),
            hash_hi=np.asarray(0, np.uint32),
            history_lo=np.zeros((self._history,), np.uint32),
            history_hi=np.zeros((self._history,), np.uint32),
        )

    def player(self, state: GoState) -> jax.Array:
        """int32: 0 when Black is to move, 1 when White is."""
        return state.player.astype(jnp.int32)

    def legal_mask(self, state: GoState) -> jax.Array:
        """bool[N + 1]: the legal points (:func:`~jaxgames.games.go.board.legal_points`)
        and the pass, which is always legal; all False at the end."""
        mask = jnp.concatenate([legal_points(state), jnp.ones((1,), bool)])
        return mask & ~is_over(state)

    def step(self, state: GoState, action: jax.Array) -> GoState:
        """Place a stone at point ``action`` (capturing the opponent's chains left without
        a liberty) or pass (``action == N``). Ko: a move that captures exactly one stone,
        played at a point whose neighbours are all the opponent's, forbids retaking at the
        captured point on the next move (OpenSpiel's rule). An illegal action gives an
        unspecified state of the same shapes."""
        n = self.num_points
        a = jnp.asarray(action, jnp.int32)
        is_pass = a >= n
        p = jnp.minimum(a, n - 1)
        colour = state.player.astype(jnp.int32)  # 0 Black, 1 White
        me = (1 - 2 * colour).astype(jnp.int8)
        board, chain = state.board, state.chain
        points = jnp.arange(n, dtype=jnp.int32)
        at_p = points == p
        nb = jnp.asarray(self._neighbours)[p]  # [4], N beyond the edge
        nb_colour = jnp.concatenate([board, jnp.full((1,), OFF, jnp.int8)])[nb]  # [4]
        nb_chain = jnp.concatenate([chain, jnp.full((1,), n, jnp.int16)])[nb]  # [4]
        breathes = next_to((board == EMPTY) & ~at_p, size=self.size)  # [N]
        captured = jnp.zeros((n,), bool)
        joined = at_p
        for d in range(4):
            member = chain == nb_chain[d]
            enemy = member & (nb_colour[d] == -me)
            captured = captured | (enemy & ~jnp.any(enemy & breathes))
            joined = joined | (member & (nb_colour[d] == me))
        new_board = jnp.where(at_p, me, jnp.where(captured, EMPTY, board)).astype(jnp.int8)
        new_chain = jnp.where(joined, p, jnp.where(captured, n, chain)).astype(jnp.int16)
        in_eye = jnp.all((nb_colour == -me) | (nb_colour == OFF))
        taken = jnp.sum(captured, dtype=jnp.int32)
        ko = jnp.where(in_eye & (taken == 1), jnp.argmax(captured), NO_KO).astype(jnp.int16)
        zlo, zhi = jnp.asarray(self._zlo), jnp.asarray(self._zhi)
        taken_lo = _xor_all(jnp.where(captured, zlo[:, 1 - colour], 0))
        taken_hi = _xor_all(jnp.where(captured, zhi[:, 1 - colour], 0))
        hash_lo = state.hash_lo ^ zlo[p, colour] ^ taken_lo
        hash_hi = state.hash_hi ^ zhi[p, colour] ^ taken_hi

        def pick(placed, passed):
            return jnp.where(is_pass, passed, placed)

        hash_lo, hash_hi = pick(hash_lo, state.hash_lo), pick(hash_hi, state.hash_hi)
        history_lo, history_hi = state.history_lo, state.history_hi
        if self._history:
            slot = jnp.arange(self._history) == state.moves
            history_lo = jnp.where(slot, hash_lo, history_lo)
            history_hi = jnp.where(slot, hash_hi, history_hi)
        return GoState(
            board=pick(new_board, board),
            chain=pick(new_chain, chain),
            player=(1 - state.player).astype(jnp.int8),
            ko=pick(ko, jnp.int16(NO_KO)).astype(jnp.int16),
            passes=pick(jnp.int8(0), state.passes + 1).astype(jnp.int8),
            moves=(state.moves + 1).astype(jnp.int16),
            hash_lo=hash_lo,
            hash_hi=hash_hi,
            history_lo=history_lo,
            history_hi=history_hi,
        )

    def terminal(self, state: GoState) -> jax.Array:
        """bool: two passes in a row, or ``2 * size**2`` steps played."""
        return is_over(state)

    def score(self, state: GoState) -> jax.Array:
        """float32: Black's Tromp-Taylor area minus White's, minus komi (any state)."""
        black, white = areas(state.board, self.size)
        return (black - white).astype(jnp.float32) - jnp.float32(self.komi)

    def utility(self, state: GoState) -> jax.Array:
        """float32[2]: ``[u, -u]`` at the end (else 0), ``u`` the sign of :meth:`score`
        (0 on an exact tie, possible with a whole-number komi)."""
        u = jnp.sign(self.score(state))
        return two_player_utility(jnp.where(self.terminal(state), u, 0.0))

    def plies_left(self, state: GoState) -> jax.Array:
        """Steps left to the length limit (0 at the end)."""
        left = self.max_game_length - state.moves.astype(jnp.int32)
        return jnp.where(self.terminal(state), 0, left).astype(jnp.int32)

    def hash(self, state: GoState) -> jax.Array:
        """uint32[2]: the Zobrist key of the position: the stones' key (kept by ``step``)
        XOR a key for White to move and one for the ko point."""
        side = jnp.asarray(self._side)
        ko = jnp.where(state.ko >= 0, state.ko, self.num_points).astype(jnp.int32)
        white = jnp.where(state.player == 1, side[self.num_points + 1], 0)
        return jnp.stack([state.hash_lo, state.hash_hi]) ^ side[ko] ^ white

    def board_key(self, state: GoState) -> jax.Array:
        """uint32[2]: the Zobrist key of the stones alone (what positional superko compares)."""
        return jnp.stack([state.hash_lo, state.hash_hi])

    def playout_mask(self, state: GoState) -> jax.Array:
        """bool[N + 1]: :func:`~jaxgames.games.go.board.playout_mask`."""
        return playout_mask(state)
