"""Pig and value iteration: published values, a pure-Python solver, and OpenSpiel's rules.

Truth from outside: ``tests/reference/pig.json`` (Neller & Presser's optimal first-player
win probability at goal 100, and Neller's figure for both players holding at 20), a
brute-force solver written here from the rules text alone, and OpenSpiel's ``pig``.
"""

from __future__ import annotations

import functools
import json
import random
import re

import jax
import numpy as np
import pytest
from conftest import REFERENCE
from jaxgames.kernels import playouts, stack

import jaxgames
from jaxgames import CHANCE, GameError
from jaxgames.cli import main
from jaxgames.search import enumerate_states, value_iteration

PIG = json.loads((REFERENCE / "pig.json").read_text())


@functools.cache
def jitted_step(game):
    return jax.jit(game.step)


# ---------------------------------------------------------------- independent reference
def ref_solve(goal: int, hold_at: int | None = None, tol: float = 1e-15) -> dict:
    """Win probability of the player about to decide, from the rules text alone.

    A decision is (i, j, k): the decider has banked i, the opponent j, the turn total is k,
    with i, j, k >= 0 and i + k < goal (at i + k >= goal the decider has already won).
    Rolling: a 1 (probability 1/6) passes the turn with nothing banked, so the opponent
    decides at (j, i, 0); a 2..6 adds to the turn total. Holding banks k and the opponent
    decides at (j, i + k, 0). Plain value iteration over a dict, in place, in float64;
    ``hold_at`` fixes the policy "hold once the turn total reaches hold_at" for both.
    """
    win = {(i, j, k): 0.0 for i in range(goal) for j in range(goal) for k in range(goal - i)}

    def after_roll(i: int, j: int, k: int) -> float:
        total = (1.0 - win[j, i, 0]) / 6  # rolled a 1
        for face in range(2, 7):
            total += (1.0 if i + k + face >= goal else win[i, j, k + face]) / 6
        return total

    while True:
        change = 0.0
        for i, j, k in win:
            roll, hold = after_roll(i, j, k), 1.0 - win[j, i + k, 0]
            fixed = hold if k >= (hold_at or 0) else roll
            new = max(roll, hold) if hold_at is None else fixed
            change = max(change, abs(new - win[i, j, k]))
            win[i, j, k] = new
        if change < tol:
            break
    return {
        "decide": win,
        "roll": {key: after_roll(*key) for key in win},
        "hold": {(i, j, k): 1.0 - win[j, i + k, 0] for i, j, k in win},
    }


def ref_values(game, ref: dict) -> np.ndarray:
    """Player 0's value (on the [-1, 1] scale) of every enumerated state, from ``ref``."""
    s = jax.device_get(enumerate_states(game))
    out = np.empty(game.num_states)
    for n in range(game.num_states):
        p = int(s.to_move[n])
        key = (int(s.scores[n][p]), int(s.scores[n][1 - p]), int(s.turn[n]))
        mover_win = ref["roll" if s.rolling[n] else "decide"][key]
        out[n] = (2 * mover_win - 1) * (1 if p == 0 else -1)
    return out


# ---------------------------------------------------------------- value iteration
@pytest.fixture(scope="module")
def solved_100():
    return value_iteration(jaxgames.make("pig"))


@pytest.mark.slow
def test_goal_100_reproduces_the_published_optimal_win_probability(solved_100):
    game = jaxgames.make("pig")
    assert solved_100.converged and solved_100.residual <= 1e-11
    win = (1 + solved_100.value(game.init())[0]) / 2
    published = PIG["optimal_first_player_win_probability"]["goal_100"]  # 8 decimals
    assert abs(win - published) <= 5e-9 + 1e-10  # half a unit of the last published digit
    # player 1, first to decide after the same start, is the mirror image
    second = game.parse("p0=0 p1=0 turn=0 to_move=1")
    assert solved_100.value(second)[1] == pytest.approx(solved_100.value(game.init())[0], 1e-12)


@pytest.mark.slow
def test_goal_100_policy_at_41_against_49(solved_100):
    """Own 41, opponent 49: roll until the turn total reaches 22, but roll again at 27."""
    game = jaxgames.make("pig")
    holds = [
        k
        for k in range(20, 30)
        if solved_100.best_action(game.parse(f"p0=41 p1=49 turn={k} to_move=0")) == 1
    ]
    assert holds == [22, 23, 24, 25, 26, 28, 29]


@pytest.mark.slow
def test_goal_100_both_holding_at_20(solved_100):
    game = jaxgames.make("pig")
    states = enumerate_states(game)
    policy = np.where(np.asarray(states.turn) >= 20, 1, 0)  # hold at 20 (the goal ends it)
    result = value_iteration(game, tol=1e-9, policy=policy)
    assert result.converged
    win = (1 + result.value(game.init())[0]) / 2
    assert abs(win - PIG["hold_at_20_or_goal_both_players_goal_100"]) <= 5e-7  # 6 decimals
    decide = np.asarray(result.kind) >= 2
    assert np.array_equal(result.policy[decide], policy[decide])


@pytest.mark.parametrize("goal", [1, 4, 8])
def test_small_goals_match_the_brute_force_solver(goal):
    game = jaxgames.make("pig", goal=goal)
    ref = ref_solve(goal)
    result = value_iteration(game)
    assert result.converged
    np.testing.assert_allclose(result.values, ref_values(game, ref), rtol=0, atol=1e-10)
    # the optimal action wherever roll and hold are not (nearly) tied
    s = jax.device_get(enumerate_states(game))
    for n in np.flatnonzero(result.kind >= 2):
        p = int(s.to_move[n])
        key = (int(s.scores[n][p]), int(s.scores[n][1 - p]), int(s.turn[n]))
        roll, hold = ref["roll"][key], ref["hold"][key]
        if abs(roll - hold) > 1e-9:
            assert result.policy[n] == (1 if hold > roll else 0), game.format(
                jax.tree.map(lambda x, n=n: x[n], s)
            )
    # policy evaluation: both players hold once the turn total reaches 3
    hold_at = 3
    policy = np.where(np.asarray(s.turn) >= hold_at, 1, 0)
    fixed = value_iteration(game, policy=policy)
    np.testing.assert_allclose(
        fixed.values, ref_values(game, ref_solve(goal, hold_at)), rtol=0, atol=1e-10
    )


def test_value_iteration_rejects_games_without_the_hint_and_broken_hints():
    with pytest.raises(GameError, match="does not enumerate its states"):
        value_iteration(jaxgames.make("tictactoe"))
    game = jaxgames.make("pig", goal=2)
    with pytest.raises(GameError, match="policy"):
        value_iteration(game, policy=np.full((game.num_states,), 7))

    class Shifted(type(game)):
        """state_index off by one: the solver must notice."""

        def state_index(self, state):
            return (super().state_index(state) + 1) % self.num_states

    with pytest.raises(GameError, match="state_index"):
        value_iteration(Shifted(goal=2))


# ---------------------------------------------------------------- rules against OpenSpiel
def _spiel_fields(state) -> tuple[int, int, int, int, bool]:
    """(p0, p1, turn total, player whose turn it is, rolling) from OpenSpiel's ToString."""
    m = re.search(
        r"Scores: (\d+) (\d+), Turn total: (\d+)\s+Current player: (\d+)( \(rolling\))?",
        str(state),
    )
    assert m, str(state)
    return int(m[1]), int(m[2]), int(m[3]), int(m[4]), bool(m[5])


@pytest.mark.parametrize("goal", [12, 100])
def test_random_play_agrees_with_openspiel(goal):
    """Same legal moves, chance outcomes, players, scores and results, step by step.

    One difference: OpenSpiel's pig ends a game only when the winning total is banked, so
    once banked score + turn total reaches the goal its only legal move is "stop" (hold).
    Here (pig.json) the game ends at once; we check that OpenSpiel's forced stop then ends
    it with the same returns.
    """
    pyspiel = pytest.importorskip("pyspiel")
    spiel_game = pyspiel.load_game("pig", {"winscore": goal, "horizon": 10**6})
    game = jaxgames.make("pig", goal=goal)
    rng = random.Random(goal)
    steps, games = 0, 0
    while steps < 300:
        games += 1
        ours, theirs = game.init(), spiel_game.new_initial_state()
        while True:
            p0, p1, turn, whose, rolling = _spiel_fields(theirs)
            assert game.format(ours) == (
                f"p0={p0} p1={p1} turn={turn} to_move={whose}" + (" rolling" if rolling else "")
            )
            if bool(game.terminal(ours)):
                assert theirs.legal_actions() == [1]  # OpenSpiel: stop is forced
                theirs.apply_action(1)
                assert theirs.is_terminal()
                assert list(np.asarray(game.utility(ours))) == theirs.returns()
                break
            assert not theirs.is_terminal()
            assert int(game.player(ours)) == theirs.current_player()
            if theirs.is_chance_node():
                assert int(game.player(ours)) == CHANCE
                outcomes = theirs.chance_outcomes()
                np.testing.assert_allclose(
                    np.asarray(game.chance_probs(ours)), [p for _, p in outcomes], rtol=1e-6
                )
                action = rng.choice([a for a, _ in outcomes])
                assert game.action_to_string(ours, action) == theirs.action_to_string(
                    CHANCE, action
                ).removeprefix("Roll ")
            else:
                legal = np.flatnonzero(np.asarray(game.legal_mask(ours))).tolist()
                assert legal == theirs.legal_actions()
                action = rng.choice(legal)
            ours, steps = jitted_step(game)(ours, action), steps + 1
            theirs.apply_action(action)
    assert games >= (10 if goal < 50 else 1)


def test_playouts_finish_well_within_the_safety_cap():
    game = jaxgames.make("pig", goal=20)
    result = playouts(game, stack([game.init()]), 64, jax.random.key(0))
    assert not np.asarray(result.truncated).any()
    assert set(np.abs(np.asarray(result.utilities)).ravel().tolist()) == {1.0}
    assert int(np.asarray(result.lengths).max()) < game.max_game_length // 4


# ---------------------------------------------------------------- notation
def test_format_and_parse_round_trip_every_state():
    game = jaxgames.make("pig", goal=10)
    s = jax.device_get(enumerate_states(game))
    seen = 0
    for n in range(game.num_states):
        state = jax.tree.map(lambda x, n=n: x[n], s)
        if int(state.turn) == 1:  # enumerated, but no game reaches it
            continue
        back = game.parse(game.format(state))
        assert all(np.array_equal(a, b) for a, b in zip(back, state, strict=True))
        seen += 1
    assert seen == game.num_states - 4 * 10 * 9  # all but turn total 1 (i < 9, any j)
    won = game.parse("p0=7 p1=3 turn=8 to_move=0")  # 7 + 8 >= 10: player 0 has won
    assert bool(game.terminal(won)) and list(np.asarray(game.utility(won))) == [1.0, -1.0]
    assert game.format(game.parse(" TURN=4  rolling p1=2 p0=5 ")) == (
        "p0=5 p1=2 turn=4 to_move=0 rolling"
    )
    assert game.format(game.parse("start")) == "p0=0 p1=0 turn=0 to_move=0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p0=3", "missing field p1="),
        ("p0=3 p1=4 turn=x", "turn='x' is not a whole number"),
        ("p0=3 p1=-4", "p1='-4' is not a whole number"),
        ("p0=3 p1=4 score=2", "unknown field 'score'"),
        ("p0=3 p1=4 p0=5", "field 'p0' is given twice"),
        ("p0=3 p1=4 rolling rolling", "'rolling' is given twice"),
        ("p0=3 p1=4 jump", "bad field 'jump'"),
        ("p0=3 p1=4 to_move=2", "to_move=2 is not a player"),
        ("p0=10 p1=4", "p0=10 is not below the goal 10"),
        ("p0=3 p1=4 turn=1", "turn=1 cannot happen"),
        ("p0=3 p1=4 turn=13", "turn=13 is out of reach"),
        ("p0=3 p1=4 turn=7 rolling", "'rolling' after the game is over"),
    ],
)
def test_bad_positions_get_one_line_errors(text, message):
    game = jaxgames.make("pig", goal=10)
    with pytest.raises(GameError, match=re.escape(message)) as err:
        game.parse(text)
    assert "\n" not in str(err.value)


def test_moves_in_notation():
    game = jaxgames.make("pig", goal=10)
    state = game.init()
    assert [game.action_to_string(state, a) for a in (0, 1)] == ["roll", "hold"]
    assert game.string_to_action(state, " Hold ") == 1
    rolling = game.parse("p0=0 p1=0 rolling")
    assert [game.action_to_string(rolling, a) for a in range(6)] == list("123456")
    assert game.string_to_action(rolling, "6") == 5
    with pytest.raises(GameError, match="expected 'roll' or 'hold'"):
        game.string_to_action(state, "3")
    with pytest.raises(GameError, match="a roll is pending"):
        game.string_to_action(rolling, "roll")
    with pytest.raises(GameError, match="after the game is over"):
        game.string_to_action(game.parse("p0=9 p1=0 turn=3"), "roll")


@pytest.mark.parametrize("goal", [0, -3, 2.5, "ten", True])
def test_bad_goals(goal):
    with pytest.raises(GameError, match="pig: goal must be"):
        jaxgames.make("pig", goal=goal)


def test_evaluate_is_a_bounded_race_estimate():
    game = jaxgames.make("pig")
    ahead = np.asarray(game.evaluate(game.parse("p0=80 p1=20 turn=0 to_move=1")))
    assert 0 < ahead[0] <= 0.9 and ahead[1] == -ahead[0]
    assert np.asarray(game.evaluate(game.parse("p0=20 p1=20")))[0] == 0.0
    won = game.parse("p0=20 p1=98 turn=3 to_move=1")
    assert list(np.asarray(game.evaluate(won))) == [-1.0, 1.0]


# ---------------------------------------------------------------- command line
def test_cli_solve_prints_the_win_probability_and_policy(capsys):
    status = main(["solve", "pig:goal=10"])
    out, _ = capsys.readouterr()
    assert status == 0
    ref = ref_solve(10)["decide"][0, 0, 0]
    assert f"win probability of the first player: {ref:.8f} (goal 10)" in out
    assert "optimal:  roll" in out and "holds at" in out
    status = main(["solve", "pig:goal=10", "p0=3 p1=4 turn=1"])
    _, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and "turn=1 cannot happen" in err
    status = main(["solve", "pig:goal=500", "--max-nodes", "1000000"])
    _, err = capsys.readouterr()
    assert status == 2 and "250,500,000 states, more than --max-nodes 1,000,000" in err
