"""Kuhn poker and Leduc hold'em against OpenSpiel's ``kuhn_poker`` and ``leduc_poker``.

Truth from outside: OpenSpiel plays the same games side by side (legal actions, chance
outcomes, observation tensors, returns), and its ``information_state_string`` says which
histories a player cannot tell apart; our information-state keys must split the histories
exactly as those strings do.
"""

from __future__ import annotations

import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames import CHANCE, GameError
from jaxgames.capabilities import ImperfectInformation, capabilities

pyspiel = pytest.importorskip("pyspiel")

GAMES = ["kuhn_poker", "leduc_poker"]


@functools.cache
def kernels(name: str):
    """Jitted single-state functions of our game (the random games call them per move)."""
    game = jaxgames.make(name)

    def facts(state):
        return {
            "player": game.player(state),
            "legal": game.legal_mask(state),
            "terminal": game.terminal(state),
            "utility": game.utility(state),
            "chance": game.chance_probs(state),
            "obs": jnp.stack([game.observation(state, p) for p in range(2)]),
        }

    return game, jax.jit(game.step), jax.jit(facts)


def check_same(name: str, ours, theirs, where: str) -> None:
    """Our facts at a state equal OpenSpiel's at the same history."""
    f = jax.device_get(ours)
    if theirs.is_terminal():
        assert bool(f["terminal"]), where
        np.testing.assert_allclose(f["utility"], theirs.returns(), err_msg=where)
        return
    assert not bool(f["terminal"]), where
    if theirs.is_chance_node():
        assert int(f["player"]) == CHANCE, where
        probs = np.zeros(len(f["chance"]))
        for outcome, prob in theirs.chance_outcomes():
            probs[outcome] = prob
        np.testing.assert_allclose(f["chance"], probs, rtol=1e-6, err_msg=where)
        return
    assert int(f["player"]) == theirs.current_player(), where
    assert np.flatnonzero(f["legal"]).tolist() == theirs.legal_actions(), where
    for p in range(2):
        np.testing.assert_array_equal(f["obs"][p], theirs.observation_tensor(p), err_msg=where)


@pytest.mark.parametrize(("name", "games"), [("kuhn_poker", 100), ("leduc_poker", 200)])
def test_random_games_match_openspiel(name: str, games: int) -> None:
    game, step, facts = kernels(name)
    oracle = pyspiel.load_game(name)
    rng = random.Random(24)
    for g in range(games):
        ours, theirs, history = game.init(), oracle.new_initial_state(), []
        while True:
            check_same(name, facts(ours), theirs, f"game {g} after {history}")
            if theirs.is_terminal():
                break
            if theirs.is_chance_node():
                outcomes, probs = zip(*theirs.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, probs)[0]
            else:
                action = rng.choice(theirs.legal_actions())
            history.append(action)
            ours, theirs = step(ours, action), theirs.child(action)


def all_histories(name: str) -> list[tuple[list[int], int, str]]:
    """Every decision node of OpenSpiel's game: (history, player, information_state_string)."""
    out = []

    def walk(state):
        if state.is_terminal():
            return
        if not state.is_chance_node():
            p = state.current_player()
            out.append((state.history(), p, state.information_state_string(p)))
        for action in state.legal_actions():
            walk(state.child(action))

    walk(pyspiel.load_game(name).new_initial_state())
    return out


def replay_keys(name: str, histories: list[list[int]]) -> np.ndarray:
    """Our information-state key of the player to move after each history, in one batch."""
    game = jaxgames.make(name)
    length = max(map(len, histories))
    moves = np.full((len(histories), length), -1, np.int32)
    for i, h in enumerate(histories):
        moves[i, : len(h)] = h

    def one(row):
        def body(state, action):
            return jax.tree.map(
                lambda a, b: jnp.where(action >= 0, a, b), game.step(state, action), state
            ), None

        state, _ = jax.lax.scan(body, game.init(), row)
        return game.information_state_key(state, game.player(state))

    return np.asarray(jax.jit(jax.vmap(one))(jnp.asarray(moves)))


@pytest.mark.parametrize("name", GAMES)
def test_information_state_keys_split_histories_as_openspiel(name: str) -> None:
    nodes = all_histories(name)
    keys = replay_keys(name, [h for h, _, _ in nodes])
    assert (keys >= 0).all()
    by_string: dict[tuple[int, str], set[int]] = {}
    by_key: dict[tuple[int, int], set[str]] = {}
    for (_, p, info), key in zip(nodes, keys, strict=True):
        by_string.setdefault((p, info), set()).add(int(key))
        by_key.setdefault((p, int(key)), set()).add(info)
    # one key per OpenSpiel information state, and one information state per key
    assert all(len(v) == 1 for v in by_string.values())
    assert all(len(v) == 1 for v in by_key.values())
    expected = {"kuhn_poker": 12, "leduc_poker": 936}[name]  # OpenSpiel's counts
    assert len(by_string) == len(by_key) == expected


@pytest.mark.parametrize("name", GAMES)
def test_capability_and_registry(name: str) -> None:
    game = jaxgames.make(name)
    assert isinstance(game, ImperfectInformation)
    assert "ImperfectInformation" in capabilities(game)
    assert not isinstance(jaxgames.make("tictactoe"), ImperfectInformation)
    oracle = pyspiel.load_game(name)
    assert game.num_actions == oracle.num_distinct_actions()
    assert game.num_chance_outcomes == oracle.max_chance_outcomes()
    assert game.observation_shape == tuple(oracle.observation_tensor_shape())
    assert (game.utility_min, game.utility_max) == (oracle.min_utility(), oracle.max_utility())


@pytest.mark.parametrize(
    ("name", "text"),
    [("kuhn_poker", "K J b p"), ("kuhn_poker", "start"), ("leduc_poker", "Ks Qh r c Jh c r")],
)
def test_notation_round_trip(name: str, text: str) -> None:
    game = jaxgames.make(name)
    state = game.parse(text)
    assert game.format(state) == text
    again = game.parse(game.format(state))
    for field, value in state._asdict().items():
        np.testing.assert_array_equal(getattr(again, field), value, err_msg=field)
    if text != "start":  # the moves lead somewhere else than the start
        assert game.format(game.init()) == "start" and game.format(state) != "start"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("kuhn_poker", "K K"),  # a card dealt twice
        ("kuhn_poker", "K J x"),
        ("kuhn_poker", "K J b p p"),  # after the end
        ("leduc_poker", "Ks Qh f"),  # nothing to fold against
        ("leduc_poker", "Ks Qh r r r"),  # a third raise
        ("leduc_poker", "Ks Zz"),
    ],
)
def test_bad_positions_are_refused(name: str, text: str) -> None:
    with pytest.raises(GameError):
        jaxgames.make(name).parse(text)


def test_kuhn_returns_by_hand() -> None:
    """The five Kuhn endings, from the rules text: pass-pass and bet-call go to showdown."""
    game = jaxgames.make("kuhn_poker")
    for text, u in [
        ("K J p p", 1),
        ("J K p p", -1),
        ("J K b p", 1),
        ("K J p b p", -1),
        ("Q K p b b", -2),
        ("K Q b b", 2),
    ]:
        np.testing.assert_array_equal(game.utility(game.parse(text)), [u, -u], err_msg=text)
