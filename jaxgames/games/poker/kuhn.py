"""Kuhn poker, as OpenSpiel's ``kuhn_poker`` with 2 players.

Rules: a deck of three cards J < Q < K; each player antes 1 and is dealt one card (player
0 first), the third stays hidden. Player 0 acts first. A player may pass or bet 1; after a
bet the other player may pass (fold: the bettor takes the pot) or bet (call). Two passes, or
a bet and a call, go to showdown: the higher card takes the pot. The returns are what each
player won or lost (``[u, -u]`` with ``|u|`` 1 or 2). The game value for player 0 is -1/18.

Encoding (OpenSpiel's):

* Chance outcomes ``0, 1, 2`` deal card J, Q, K to the next player (player 0, then player
  1), uniformly among the cards still in the deck (``num_chance_outcomes = 3``).
* Decision actions: ``0`` pass (check or fold), ``1`` bet (bet or call).
* :class:`KuhnState` holds ``cards`` (int32[2], -1 before the deal), ``moves`` (int32[3],
  the betting actions, -1 unused) and ``num_moves`` (int32).
* ``observation(state, p)``: OpenSpiel's ``observation_tensor``: float32[7] = the observing
  player (one-hot, 2), their card (one-hot, 3), each player's chips in the pot (2).
* ``information_state_key(state, p)``: ``(p * 3 + card) * 27 + sum_i (moves[i] + 1) * 3**i``,
  one number per OpenSpiel ``information_state_string`` (card plus betting so far).

Notation: the moves from the start, space-separated: cards ``J Q K`` at the deal, ``p``/``b``
at decisions, e.g. ``"K J b p"``; ``"start"`` before the deal.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, GameError, two_player_utility
from jaxgames.games.poker import MoveListNotation

PASS, BET = 0, 1
CARDS = ("J", "Q", "K")
_ACTIONS = ("p", "b")
_MAX_MOVES = 3  # pass, bet, then pass or bet


class KuhnState(NamedTuple):
    """A Kuhn poker position."""

    cards: jax.Array  # int32[2]: each player's card (0 J, 1 Q, 2 K), -1 before the deal
    moves: jax.Array  # int32[3]: betting actions so far (0 pass, 1 bet), -1 unused
    num_moves: jax.Array  # int32[]: betting actions so far


class KuhnPoker(MoveListNotation, Game):
    """Kuhn poker (2 players), OpenSpiel's ``kuhn_poker``."""

    name = "kuhn_poker"
    num_players = 2
    num_actions = 2
    num_chance_outcomes = 3
    utility_min = -2.0
    utility_max = 2.0
    zero_sum = True
    max_game_length = 2 + _MAX_MOVES  # two deals, at most three bets
    observation_shape = (7,)

    def __init__(self) -> None:
        self.params = {}

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> KuhnState:
        """Before the deal: no cards, no bets."""
        return KuhnState(
            cards=jnp.full((2,), -1, jnp.int32),
            moves=jnp.full((_MAX_MOVES,), -1, jnp.int32),
            num_moves=jnp.int32(0),
        )

    def player(self, state: KuhnState) -> jax.Array:
        """``CHANCE`` during the deal, then players 0 and 1 in turn."""
        return jnp.where(state.cards[1] < 0, CHANCE, state.num_moves % 2).astype(jnp.int32)

    def legal_mask(self, state: KuhnState) -> jax.Array:
        """bool[2]: pass and bet at every decision; none at the deal or the end."""
        decide = (state.cards[1] >= 0) & ~self.terminal(state)
        return jnp.broadcast_to(decide, (2,))

    def step(self, state: KuhnState, action: jax.Array) -> KuhnState:
        """Deal card ``action`` at the deal, else pass (0) or bet (1)."""
        action = jnp.asarray(action, jnp.int32)
        dealing = state.cards[1] < 0
        seat = jnp.where(state.cards[0] < 0, 0, 1)
        slot = jnp.minimum(state.num_moves, _MAX_MOVES - 1)
        return KuhnState(
            cards=jnp.where(dealing, state.cards.at[seat].set(action), state.cards),
            moves=jnp.where(dealing, state.moves, state.moves.at[slot].set(action)),
            num_moves=state.num_moves + jnp.where(dealing, 0, 1).astype(jnp.int32),
        )

    def terminal(self, state: KuhnState) -> jax.Array:
        """Over after pass-pass, bet-pass, bet-bet, or any three actions."""
        m = state.moves
        two = (state.num_moves == 2) & ~((m[0] == PASS) & (m[1] == BET))
        return two | (state.num_moves >= 3)

    def _chips(self, state: KuhnState) -> jax.Array:
        """int32[2]: each player's chips in the pot (ante plus bets)."""
        bets = (state.moves == BET).astype(jnp.int32)  # [3]: moves 0, 2 by player 0
        return jnp.stack([1 + bets[0] + bets[2], 1 + bets[1]])

    def utility(self, state: KuhnState) -> jax.Array:
        """float32[2]: a fold (a pass after a bet) loses the folder's chips, else the higher
        card wins the loser's chips; zeros before the end."""
        chips = self._chips(state)
        last = state.moves[jnp.maximum(state.num_moves - 1, 0)]
        folded = (last == PASS) & jnp.any(state.moves == BET)
        folder = (state.num_moves - 1) % 2
        p0_wins = jnp.where(folded, folder == 1, state.cards[0] > state.cards[1])
        u = jnp.where(p0_wins, chips[1], -chips[0]).astype(jnp.float32)
        return two_player_utility(jnp.where(self.terminal(state), u, 0.0))

    def chance_probs(self, state: KuhnState) -> jax.Array:
        """float32[3]: uniform over the cards not dealt yet."""
        left = ~jnp.any(jnp.arange(3)[:, None] == state.cards[None, :], axis=1)  # [3]
        return left.astype(jnp.float32) / jnp.sum(left)

    # ------------------------------------------------------------------ imperfect information
    def observation(self, state: KuhnState, player: jax.Array) -> jax.Array:
        """float32[7]: OpenSpiel's observation tensor (observer, own card, chips in pot)."""
        card = state.cards[player]
        return jnp.concatenate(
            [
                jax.nn.one_hot(player, 2, dtype=jnp.float32),
                jax.nn.one_hot(card, 3, dtype=jnp.float32),  # all zero before the deal
                self._chips(state).astype(jnp.float32),
            ]
        )

    def information_state_key(self, state: KuhnState, player: jax.Array) -> jax.Array:
        """int32: the player, their card and the bets so far, in one number (< 162)."""
        digits = jnp.asarray([1, 3, 9], jnp.int32) * (state.moves + 1)  # [3]; unused: 0
        card = jnp.maximum(state.cards[player], 0)
        return ((player * 3 + card) * 27 + jnp.sum(digits)).astype(jnp.int32)

    # ------------------------------------------------------------------ host side
    position_formats = (("moves from the start: cards J Q K, then p (pass) / b (bet)", "K J b p"),)

    def moves_played(self, state: KuhnState) -> list[int]:
        """Cards dealt, then the bets."""
        cards = [int(c) for c in np.asarray(state.cards) if c >= 0]
        return cards + [int(m) for m in np.asarray(state.moves)[: int(state.num_moves)]]

    def action_to_string(self, state: KuhnState, action: int) -> str:
        """A card ``J``/``Q``/``K`` at the deal, ``p``/``b`` at a decision."""
        if int(self.player(state)) == CHANCE:
            return CARDS[int(action)]
        return _ACTIONS[int(action)]

    def string_to_action(self, state: KuhnState, text: str) -> int:
        """A card name at the deal (not dealt yet), ``p``/``b`` at a decision.

        Raises:
            GameError: an unknown move, a card already dealt, a move after the end.
        """
        t = text.strip()
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {text!r} after the game is over")
        if int(self.player(state)) == CHANCE:
            if t.upper() not in CARDS:
                raise GameError(f"{self.name}: bad card {text!r}; the deal is J, Q or K")
            card = CARDS.index(t.upper())
            if float(self.chance_probs(state)[card]) == 0.0:
                raise GameError(f"{self.name}: card {text!r} is already dealt")
            return card
        if t.lower() not in _ACTIONS:
            raise GameError(f"{self.name}: bad move {text!r}; expected 'p' (pass) or 'b' (bet)")
        return _ACTIONS.index(t.lower())

    def sample_positions(self) -> list[str]:
        """The start, the first decision with each card, and a pending call."""
        return ["start", "J Q", "K J", "Q K p b"]
