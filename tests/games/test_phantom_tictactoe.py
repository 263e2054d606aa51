"""Phantom tic-tac-toe against OpenSpiel's ``phantom_ttt`` (default parameters).

Truth from outside: OpenSpiel plays the same 1,000 random games side by side, all of ours in
one batch (legal actions, both players' observation tensors, returns at every step), and its
``information_state_string`` says which histories a player cannot tell apart: our keys must
split them exactly as those strings do.
"""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import (
    BeliefStates,
    Determinization,
    ImperfectInformation,
    PerfectInformationView,
    capabilities,
)

pyspiel = pytest.importorskip("pyspiel")

GAME = jaxgames.make("phantom_tictactoe")


@jax.jit
def _facts(states):
    def one(state):
        return {
            "player": GAME.player(state),
            "legal": GAME.legal_mask(state),
            "terminal": GAME.terminal(state),
            "utility": GAME.utility(state),
            "obs": jnp.stack([GAME.observation(state, p) for p in range(2)]),
            "key": jnp.stack([GAME.information_state_key(state, p) for p in range(2)]),
        }

    return jax.vmap(one)(states)


@jax.jit
def _advance(states, actions, live):
    """The games still going step; the finished ones stay as they are."""
    stepped = jax.vmap(GAME.step)(states, actions)
    return jax.tree.map(
        lambda new, old: jnp.where(live.reshape((-1,) + (1,) * (new.ndim - 1)), new, old),
        stepped,
        states,
    )


def test_capabilities() -> None:
    assert isinstance(GAME, ImperfectInformation)
    assert isinstance(GAME, Determinization)
    assert isinstance(GAME, PerfectInformationView)
    assert isinstance(GAME, BeliefStates)
    assert "ImperfectInformation" in capabilities(GAME)
    spiel = pyspiel.load_game("phantom_ttt")
    assert GAME.max_game_length == spiel.max_game_length()
    assert GAME.observation_shape == tuple(spiel.observation_tensor_shape())
    assert GAME.num_actions == spiel.num_distinct_actions()


def test_random_games_match_openspiel() -> None:
    """1,000 random games in lockstep: legal actions, both observation tensors, the mover,
    the returns; and the information-state keys partition histories as OpenSpiel's strings."""
    n = 1000
    rng = random.Random(24)
    spiel = pyspiel.load_game("phantom_ttt")
    theirs = [spiel.new_initial_state() for _ in range(n)]
    ours = jax.tree.map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), GAME.init())
    key_of: dict[tuple[int, str], int] = {}  # (player, OpenSpiel string) -> our key
    string_of: dict[tuple[int, int], str] = {}  # (player, our key) -> OpenSpiel string
    refusals = 0
    for ply in range(GAME.max_game_length + 1):
        f = jax.device_get(_facts(ours))
        actions = np.zeros(n, np.int32)
        for g, state in enumerate(theirs):
            where = f"game {g} ply {ply}: {state.history()}"
            if state.is_terminal():
                assert f["terminal"][g], where
                np.testing.assert_array_equal(f["utility"][g], state.returns(), err_msg=where)
                continue
            assert not f["terminal"][g], where
            assert f["player"][g] == state.current_player(), where
            assert list(np.flatnonzero(f["legal"][g])) == state.legal_actions(), where
            for p in range(2):
                np.testing.assert_array_equal(
                    f["obs"][g, p], state.observation_tensor(p), err_msg=where
                )
                text, key = state.information_state_string(p), int(f["key"][g, p])
                assert key >= 0
                assert key_of.setdefault((p, text), key) == key, where
                assert string_of.setdefault((p, key), text) == text, where
            actions[g] = rng.choice(state.legal_actions())
        if all(s.is_terminal() for s in theirs):
            break
        live = np.array([not s.is_terminal() for s in theirs])
        for g in np.flatnonzero(live):
            before = theirs[g].current_player()
            theirs[g].apply_action(int(actions[g]))
            refusals += (not theirs[g].is_terminal()) and theirs[g].current_player() == before
        ours = _advance(ours, jnp.asarray(actions), jnp.asarray(live))
    assert all(s.is_terminal() for s in theirs)
    assert refusals > 500  # refused tries were exercised
    assert len(key_of) > 5000


def test_notation_round_trip() -> None:
    state = GAME.parse("4 4 0 8")
    assert GAME.format(state) == "4 4 0 8"
    assert int(GAME.player(state)) == 1
    assert GAME.format(GAME.parse("start")) == "start"
    with pytest.raises(GameError):
        GAME.parse("4 4 4")  # O already saw 4 taken
    with pytest.raises(GameError):
        GAME.parse("9")


def test_perfect_information_state_is_the_board() -> None:
    ttt = GAME.perfect_information_game
    state = GAME.parse("4 4 0 8")
    view = GAME.perfect_information_state(state)
    np.testing.assert_array_equal(np.asarray(view.hash), np.asarray(ttt.parse("408").hash))
    assert ttt.format(view) == "o../.x./..x"
