"""PIMC and ISMCTS: PIMC's known flaw on a game built here, where averaging over
clairvoyance picks the move that loses the information needed later, and a variant where it
is right; both as arena agents on phantom tic-tac-toe (they run, a seed repeats a match).

The game (``PeekOrGuess``): player 1 hides a coin under door 0 or 1; player 0, who does not
see it, either goes on to guess (``GUESS``: then picks a door, +``reward`` if right, -1 if
wrong) or peeks first (``PEEK``: sees the coin, then picks a door, +0.8 if right, -1 if
wrong). A clairvoyant player wins ``reward`` after ``GUESS`` in every world, so PIMC's
average of ``GUESS`` is ``reward``; but the guesser does not know the coin when guessing,
so its true value is ``(reward - 1) / 2`` against a coin hidden at random, while ``PEEK``
is worth 0.8 whatever the coin.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.arena.agents import ISMCTSAgent, PIMCAgent, parse_agent
from jaxgames.arena.match import match
from jaxgames.game import Game, two_player_utility
from jaxgames.search.ismcts import ismcts
from jaxgames.search.pimc import pimc

GUESS, PEEK, DOOR0, DOOR1 = 0, 1, 2, 3
PEEK_REWARD = 0.8


class PeekState(NamedTuple):
    coin: jax.Array  # int32[]: -1 before it is hidden
    choice: jax.Array  # int32[]: -1, GUESS or PEEK
    door: jax.Array  # int32[]: -1 or the door picked


class PeekRecord(NamedTuple):
    player: jax.Array  # int32[]
    choice: jax.Array  # int32[]
    seen: jax.Array  # int32[]: the coin if peeked (player 0) or hidden (player 1), else -1


class PeekOrGuess(Game):
    """The game of the module docstring (two players, zero-sum, no chance node)."""

    name = "peek_or_guess"
    num_actions = 4
    max_game_length = 3
    observation_shape = (5,)
    max_worlds = 2

    def __init__(self, reward: float) -> None:
        self.reward = reward
        self.params = {"reward": reward}

    def init(self) -> PeekState:
        return PeekState(jnp.int32(-1), jnp.int32(-1), jnp.int32(-1))

    def player(self, state: PeekState) -> jax.Array:
        return jnp.where(state.coin < 0, 1, 0).astype(jnp.int32)

    def legal_mask(self, state: PeekState) -> jax.Array:
        doors = jnp.array([False, False, True, True])
        choose = jnp.array([True, True, False, False])
        mask = jnp.where((state.coin < 0) | (state.choice >= 0), doors, choose)
        return mask & ~self.terminal(state)

    def step(self, state: PeekState, action: jax.Array) -> PeekState:
        action = jnp.asarray(action, jnp.int32)
        hiding = state.coin < 0
        return PeekState(
            coin=jnp.where(hiding, action - DOOR0, state.coin),
            choice=jnp.where(~hiding & (state.choice < 0), action, state.choice),
            door=jnp.where(~hiding & (state.choice >= 0), action - DOOR0, state.door),
        )

    def terminal(self, state: PeekState) -> jax.Array:
        return state.door >= 0

    def utility(self, state: PeekState) -> jax.Array:
        win = jnp.where(state.choice == GUESS, self.reward, PEEK_REWARD)
        u = jnp.where(state.door == state.coin, win, -1.0)
        return two_player_utility(jnp.where(self.terminal(state), u, 0.0))

    # ImperfectInformation and Determinization
    def observation_history(self, state: PeekState, player: jax.Array) -> PeekRecord:
        player = jnp.asarray(player, jnp.int32)
        seen = jnp.where((player == 1) | (state.choice == PEEK), state.coin, -1)
        return PeekRecord(player, state.choice, seen)

    def observation(self, state: PeekState, player: jax.Array) -> jax.Array:
        r = self.observation_history(state, player)
        return jnp.stack(
            [r.choice == GUESS, r.choice == PEEK, r.seen == 0, r.seen == 1, state.coin >= 0]
        ).astype(jnp.float32)

    def information_state_key(self, state: PeekState, player: jax.Array) -> jax.Array:
        r = self.observation_history(state, player)
        return (r.player * 100 + (r.choice + 1) * 10 + (r.seen + 1) * 2 + (state.coin >= 0)).astype(
            jnp.int32
        )

    def worlds(self, record: PeekRecord) -> tuple[PeekState, jax.Array]:
        coins = jnp.arange(2, dtype=jnp.int32)
        states = PeekState(coins, jnp.full((2,), record.choice), jnp.full((2,), -1, jnp.int32))
        return states, (record.seen < 0) | (record.seen == coins)


def true_value(reward: float, action: int) -> float:
    """Player 0's expected result after ``action`` against a coin hidden at random, playing
    on with only what they know: a peeker picks the coin's door; a guesser picks the door
    best on average over the coin (brute force over the two coins)."""
    payoff = {GUESS: reward, PEEK: PEEK_REWARD}[action]
    if action == PEEK:
        return float(np.mean([payoff for _coin in (0, 1)]))
    return max(float(np.mean([payoff if d == c else -1.0 for c in (0, 1)])) for d in (0, 1))


def decision(game: PeekOrGuess, coin: int):
    state = game.step(game.init(), DOOR0 + coin)
    return jax.tree.map(lambda x: jnp.stack([x, x]), state)


def test_pimc_flaw_strategy_fusion() -> None:
    """reward 1: PIMC's averages are 1 for GUESS and 0.8 for PEEK, so it guesses; but a
    guess made without the coin is worth 0 on average, and peeking 0.8."""
    game = PeekOrGuess(1.0)
    result = pimc(game, decision(game, 1), worlds=16, key=0)
    np.testing.assert_allclose(result.values[0, [GUESS, PEEK]], [1.0, PEEK_REWARD], atol=1e-6)
    assert np.isnan(result.values[0, DOOR0])
    assert list(result.action) == [GUESS, GUESS]
    chosen, best = true_value(1.0, GUESS), max(true_value(1.0, a) for a in (GUESS, PEEK))
    assert chosen == 0.0 and best == PEEK_REWARD
    assert chosen < best


def test_pimc_right_when_clairvoyance_does_not_mislead() -> None:
    """reward 0.5: even a clairvoyant guess (0.5) is worth less than peeking (0.8), and
    PIMC peeks: the move of best true value (0.8 against -0.25)."""
    game = PeekOrGuess(0.5)
    result = pimc(game, decision(game, 0), worlds=16, key=0)
    assert list(result.action) == [PEEK, PEEK]
    assert true_value(0.5, PEEK) > true_value(0.5, GUESS)
    # and after peeking, the worlds are only the seen one: PIMC picks the coin's door
    state = jax.tree.map(lambda x: x[0], decision(game, 0))
    peeked = jax.tree.map(lambda x: jnp.stack([x]), game.step(state, PEEK))
    assert list(pimc(game, peeked, worlds=8, key=1).action) == [DOOR0]


def test_ismcts_does_not_fuse_strategies() -> None:
    """ISMCTS chooses the door in the guesser's information set, not per world: it peeks
    where PIMC guesses."""
    game = PeekOrGuess(1.0)
    result = ismcts(game, decision(game, 1), simulations=400, key=0)
    assert list(result.action) == [PEEK, PEEK]
    assert result.q[0, PEEK] > result.q[0, GUESS]


def test_agents_on_phantom_tictactoe_run_and_repeat() -> None:
    game = jaxgames.make("phantom_tictactoe")
    assert isinstance(parse_agent("pimc:worlds=4"), PIMCAgent)
    assert isinstance(parse_agent("ismcts:simulations=50,c=1"), ISMCTSAgent)
    with pytest.raises(GameError, match="worlds must be >= 1"):
        parse_agent("pimc:worlds=0")
    first = match(game, ["ismcts:simulations=50", "random"], games=4, seed=5)
    again = match(game, ["ismcts:simulations=50", "random"], games=4, seed=5)
    assert [r.moves for r in first.records] == [r.moves for r in again.records]
    assert first.wins + first.draws + first.losses == 4
    duel = match(game, ["pimc:worlds=4", "ismcts:simulations=50"], games=2, seed=2)
    assert all(len(r.moves) >= 5 for r in duel.records)  # a game needs five marks at least
    with pytest.raises(GameError, match="imperfect information"):
        match(jaxgames.make("tictactoe"), ["pimc:worlds=4", "random"], games=2)
