"""Leduc hold'em, as OpenSpiel's ``leduc_poker`` with its default parameters (2 players).

Rules: a deck of six cards, two suits of J < Q < K (card ``c`` has rank ``c // 2``). Each
player antes 1 and is dealt one private card (player 0 first). A betting round follows,
player 0 first; then one public card is dealt and a second betting round follows, player
0 first again. In a round a player may call (check when nothing is owed), raise (call, then
add 2 in round 1, 4 in round 2; at most two raises a round) or fold (only when owing chips:
the other player takes the pot). A round ends when both have checked, or the raise has been
called. After round 2, showdown: a private card pairing the public card wins, else the
higher rank (then the other card's rank); equal hands split the pot. The returns are the
chips won or lost (at most 13).

Encoding (OpenSpiel's):

* Chance outcome ``c`` in ``0..5`` deals card ``c`` (uniform over the cards left):
  ``num_chance_outcomes = 6``. Decision actions: ``0`` fold, ``1`` call, ``2`` raise.
* :class:`LeducState`: ``cards`` (int32[3]: player 0's, player 1's, the public card; -1 not
  dealt), ``bets`` (int32[2, 4]: each round's actions, -1 unused), ``num_bets`` (int32[2]),
  ``round`` (0 or 1), ``chips`` (int32[2] in the pot), ``raises``/``calls`` (this round),
  ``to_move`` (0 or 1) and ``folded`` (-1, or the player who folded).
* ``observation(state, p)``: OpenSpiel's ``observation_tensor``: float32[16] = the observer
  (one-hot, 2), their card (one-hot, 6), the public card (one-hot, 6), chips in the pot (2).
* ``information_state_key(state, p)``: the player, their card, the public card (or none)
  and both rounds' actions, in one number (< 2**23): one per OpenSpiel
  ``information_state_string``.

Notation: the moves from the start, space-separated: cards as rank and suit (``Js Jh Qs Qh
Ks Kh`` for ``0..5``), ``f``/``c``/``r`` at decisions, e.g. ``"Ks Qh r c Jh c r c"``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, GameError, two_player_utility
from jaxgames.games.poker import MoveListNotation

FOLD, CALL, RAISE = 0, 1, 2
NUM_CARDS = 6
CARDS = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
_ACTIONS = ("f", "c", "r")
_MAX_BETS = 4  # a round's actions: call, raise, raise, call at most
_RAISE = (2, 4)  # raise size in rounds 1 and 2
_MAX_RAISES = 2
_SEQ_CODES = 4**_MAX_BETS  # a round's actions as base-4 digits (action + 1; 0 unused)


class LeducState(NamedTuple):
    """A Leduc hold'em position."""

    cards: jax.Array  # int32[3]: player 0's, player 1's, the public card; -1 not dealt
    bets: jax.Array  # int32[2, 4]: each round's actions (0 fold, 1 call, 2 raise), -1 unused
    num_bets: jax.Array  # int32[2]: actions in each round
    round: jax.Array  # int32[]: 0 first betting round, 1 second
    chips: jax.Array  # int32[2]: each player's chips in the pot
    raises: jax.Array  # int32[]: raises this round
    calls: jax.Array  # int32[]: calls (checks) since the last raise, this round
    to_move: jax.Array  # int32[]: the player to act at a decision
    folded: jax.Array  # int32[]: -1, or the player who folded


class LeducPoker(MoveListNotation, Game):
    """Leduc hold'em (2 players), OpenSpiel's ``leduc_poker``."""

    name = "leduc_poker"
    num_players = 2
    num_actions = 3
    num_chance_outcomes = NUM_CARDS
    utility_min = -13.0
    utility_max = 13.0
    zero_sum = True
    max_game_length = 3 + 2 * _MAX_BETS  # three cards dealt, two rounds of bets
    observation_shape = (16,)

    def __init__(self) -> None:
        self.params = {}

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> LeducState:
        """Before the deal: antes of 1 in the pot."""
        return LeducState(
            cards=jnp.full((3,), -1, jnp.int32),
            bets=jnp.full((2, _MAX_BETS), -1, jnp.int32),
            num_bets=jnp.zeros((2,), jnp.int32),
            round=jnp.int32(0),
            chips=jnp.ones((2,), jnp.int32),
            raises=jnp.int32(0),
            calls=jnp.int32(0),
            to_move=jnp.int32(0),
            folded=jnp.int32(-1),
        )

    def _dealing(self, state: LeducState) -> jax.Array:
        """bool: a card is due (the private deal, or the public card before round 2)."""
        return (state.cards[1] < 0) | ((state.round == 1) & (state.cards[2] < 0))

    def player(self, state: LeducState) -> jax.Array:
        """``CHANCE`` while a card is due, else the player to act."""
        return jnp.where(self._dealing(state), CHANCE, state.to_move).astype(jnp.int32)

    def legal_mask(self, state: LeducState) -> jax.Array:
        """bool[3]: fold only when owing chips, call always, raise below two raises."""
        owes = jnp.max(state.chips) > state.chips[state.to_move]
        mask = jnp.stack([owes, jnp.bool_(True), state.raises < _MAX_RAISES])
        return mask & ~self._dealing(state) & ~self.terminal(state)

    def _ready(self, state: LeducState) -> jax.Array:
        """bool: this round's betting is over (two checks, or a called raise)."""
        return ((state.raises == 0) & (state.calls == 2)) | (
            (state.raises > 0) & (state.calls == 1)
        )

    def step(self, state: LeducState, action: jax.Array) -> LeducState:
        """Deal card ``action`` while a card is due, else fold (0), call (1) or raise (2)."""
        action = jnp.asarray(action, jnp.int32)
        # the deal: the next empty seat of player 0, player 1, the public card
        seat = jnp.argmax(state.cards < 0)
        dealt = state._replace(cards=state.cards.at[seat].set(action))
        # a bet: OpenSpiel's DoApplyAction
        p, r = state.to_move, state.round
        stakes = jnp.max(state.chips)
        raise_to = stakes + jnp.where(r == 0, _RAISE[0], _RAISE[1])
        chips = jnp.where(
            action == CALL,
            state.chips.at[p].set(stakes),
            jnp.where(action == RAISE, state.chips.at[p].set(raise_to), state.chips),
        )
        slot = jnp.minimum(state.num_bets[r], _MAX_BETS - 1)
        bet = state._replace(
            bets=state.bets.at[r, slot].set(action),
            num_bets=state.num_bets.at[r].add(1),
            chips=chips,
            raises=state.raises + (action == RAISE),
            calls=jnp.where(action == RAISE, 0, state.calls + (action == CALL)),
            to_move=1 - p,
            folded=jnp.where(action == FOLD, p, state.folded),
        )
        # the first round over: the public card is due, then player 0 opens round 2
        next_round = (r == 0) & (action == CALL) & self._ready(bet)
        bet = jax.tree.map(
            lambda a, b: jnp.where(next_round, a, b),
            bet._replace(
                round=jnp.int32(1), raises=jnp.int32(0), calls=jnp.int32(0), to_move=jnp.int32(0)
            ),
            bet,
        )
        return jax.tree.map(lambda a, b: jnp.where(self._dealing(state), a, b), dealt, bet)

    def terminal(self, state: LeducState) -> jax.Array:
        """A fold, or the second round's betting over."""
        return (state.folded >= 0) | ((state.round == 1) & self._ready(state))

    def _hand_rank(self, state: LeducState, player: int) -> jax.Array:
        """OpenSpiel's RankHand: a pair above every other hand, else high then low rank."""
        a, b = state.cards[player], state.cards[2]
        lo, hi = jnp.minimum(a, b), jnp.maximum(a, b)
        pair = (lo % 2 == 0) & (hi == lo + 1)
        return jnp.where(pair, NUM_CARDS * NUM_CARDS + lo, (hi // 2) * NUM_CARDS + lo // 2)

    def utility(self, state: LeducState) -> jax.Array:
        """float32[2]: the winner takes the loser's chips; a split pot returns 0."""
        diff = self._hand_rank(state, 0) - self._hand_rank(state, 1)
        showdown = jnp.where(diff > 0, state.chips[1], jnp.where(diff < 0, -state.chips[0], 0))
        folds = jnp.where(state.folded == 0, -state.chips[0], state.chips[1])
        u = jnp.where(state.folded >= 0, folds, showdown).astype(jnp.float32)
        return two_player_utility(jnp.where(self.terminal(state), u, 0.0))

    def chance_probs(self, state: LeducState) -> jax.Array:
        """float32[6]: uniform over the cards left in the deck."""
        left = ~jnp.any(jnp.arange(NUM_CARDS)[:, None] == state.cards[None, :], axis=1)  # [6]
        return left.astype(jnp.float32) / jnp.sum(left)

    # ------------------------------------------------------------------ imperfect information
    def observation(self, state: LeducState, player: jax.Array) -> jax.Array:
        """float32[16]: OpenSpiel's observation tensor (observer, own card, public card,
        chips in the pot)."""
        return jnp.concatenate(
            [
                jax.nn.one_hot(player, 2, dtype=jnp.float32),
                jax.nn.one_hot(state.cards[player], NUM_CARDS, dtype=jnp.float32),
                jax.nn.one_hot(state.cards[2], NUM_CARDS, dtype=jnp.float32),
                state.chips.astype(jnp.float32),
            ]
        )

    def information_state_key(self, state: LeducState, player: jax.Array) -> jax.Array:
        """int32: ``(((player * 6 + card) * 7 + public + 1) * 256 + round 1) * 256 + round 2``,
        each round's actions as base-4 digits ``action + 1`` (0 where unused)."""
        digits = 4 ** jnp.arange(_MAX_BETS, dtype=jnp.int32)  # [4]
        seq = jnp.sum((state.bets + 1) * digits[None, :], axis=1)  # [2]
        card = jnp.maximum(state.cards[player], 0)
        key = ((player * NUM_CARDS + card) * (NUM_CARDS + 1) + state.cards[2] + 1) * _SEQ_CODES
        return ((key + seq[0]) * _SEQ_CODES + seq[1]).astype(jnp.int32)

    # ------------------------------------------------------------------ host side
    position_formats = (
        ("moves from the start: cards Js..Kh, then f/c/r (fold, call, raise)", "Ks Qh r c Jh c"),
    )

    def moves_played(self, state: LeducState) -> list[int]:
        """Private cards, round 1's actions, the public card, round 2's actions."""
        cards = [int(c) for c in np.asarray(state.cards)]
        bets = np.asarray(state.bets)
        n = np.asarray(state.num_bets)
        moves = [c for c in cards[:2] if c >= 0] + [int(a) for a in bets[0, : n[0]]]
        if cards[2] >= 0:
            moves += [cards[2]] + [int(a) for a in bets[1, : n[1]]]
        return moves

    def action_to_string(self, state: LeducState, action: int) -> str:
        """A card (``Js``..``Kh``) at the deal, ``f``/``c``/``r`` at a decision."""
        if int(self.player(state)) == CHANCE:
            return CARDS[int(action)]
        return _ACTIONS[int(action)]

    def string_to_action(self, state: LeducState, text: str) -> int:
        """A card still in the deck at the deal, ``f``/``c``/``r`` at a decision.

        Raises:
            GameError: an unknown or illegal move, a card already dealt, a move after the end.
        """
        t = text.strip()
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {text!r} after the game is over")
        if int(self.player(state)) == CHANCE:
            names = [c.lower() for c in CARDS]
            if t.lower() not in names:
                raise GameError(f"{self.name}: bad card {text!r}; cards are {' '.join(CARDS)}")
            card = names.index(t.lower())
            if float(self.chance_probs(state)[card]) == 0.0:
                raise GameError(f"{self.name}: card {text!r} is already dealt")
            return card
        if t.lower() not in _ACTIONS:
            raise GameError(f"{self.name}: bad move {text!r}; expected f, c or r")
        action = _ACTIONS.index(t.lower())
        self._check_legal(state, action, text)
        return action

    def sample_positions(self) -> list[str]:
        """The start, a first decision, a raise to answer, and the second round."""
        return ["start", "Ks Qh", "Js Kh r", "Ks Qh r c Jh"]
