"""CFR and CFR+ on the device against OpenSpiel's solvers, iteration for iteration.

Truth from outside: OpenSpiel's C++ ``CFRSolver`` / ``CFRPlusSolver`` and its Python
``cfr`` module run the same algorithms on the same games (``kuhn_poker``, ``leduc_poker``),
and its ``exploitability`` measures their average policies; Kuhn's game value -1/18 and its
equilibrium family, and Leduc's value, come from ``tests/reference/poker.json``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import jax
import numpy as np
import pytest
from conftest import REFERENCE

import jaxgames
from jaxgames import GameError
from jaxgames.search.cfr import CFRSolver, build_tree, cfr

pyspiel = pytest.importorskip("pyspiel")
POKER = json.loads((REFERENCE / "poker.json").read_text())
KUHN_VALUE = float(Fraction(-1, 18))
LEDUC_VALUE = float(POKER["leduc_poker"]["published"].split("=")[1].split()[0])


def openspiel_curve(name: str, solver_class, marks: list[int]) -> list[float]:
    """OpenSpiel's exploitability of its solver's average policy at each iteration count."""
    game = pyspiel.load_game(name)
    solver, out, done = solver_class(game), [], 0
    for mark in marks:
        for _ in range(mark - done):
            solver.evaluate_and_update_policy()
        done = mark
        out.append(pyspiel.exploitability(game, solver.average_policy()))
    return out


def our_curve(solver: CFRSolver, marks: list[int]) -> list[float]:
    out = []
    for mark in marks:
        solver.run(mark - solver.iterations)
        out.append(solver.evaluate()["exploitability"])
    return out


def test_kuhn_cfr_equals_openspiel_cpp_and_converges() -> None:
    marks = [1, 10, 100, 1000]
    ours = CFRSolver(jaxgames.make("kuhn_poker"))
    mine = our_curve(ours, marks)
    theirs = openspiel_curve("kuhn_poker", pyspiel.CFRSolver, marks)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6)
    assert mine[-1] < 1e-3
    report = ours.evaluate()
    assert abs(report["value"][0] - KUHN_VALUE) < 2e-3
    np.testing.assert_allclose(report["value"].sum(), 0.0, atol=1e-6)


def test_kuhn_cfr_in_float64_equals_openspiel_python() -> None:
    """Same updates in the same order: with float64 the curves agree to rounding."""
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game("kuhn_poker")
    theirs_solver = os_cfr.CFRSolver(game)
    with jax.enable_x64(True):
        ours = CFRSolver(jaxgames.make("kuhn_poker"))
        for mark in [1, 2, 5, 30]:
            ours.run(mark - ours.iterations)
            while theirs_solver._iteration < mark:
                theirs_solver.evaluate_and_update_policy()
            theirs = exploitability.exploitability(game, theirs_solver.average_policy())
            assert abs(ours.evaluate()["exploitability"] - theirs) < 1e-12, mark


def test_kuhn_simultaneous_updates_equal_openspiel_python() -> None:
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game("kuhn_poker")
    theirs = os_cfr._CFRSolver(
        game, regret_matching_plus=False, alternating_updates=False, linear_averaging=False
    )
    ours = CFRSolver(jaxgames.make("kuhn_poker"), alternating=False)
    for mark in [1, 3, 20]:
        ours.run(mark - ours.iterations)
        while theirs._iteration < mark:
            theirs.evaluate_and_update_policy()
        expected = exploitability.exploitability(game, theirs.average_policy())
        assert abs(ours.evaluate()["exploitability"] - expected) < 1e-6, mark


def test_kuhn_cfr_plus_equals_openspiel_and_plays_the_equilibrium() -> None:
    marks = [1, 10, 100, 1000]
    game = jaxgames.make("kuhn_poker")
    ours = CFRSolver(game, plus=True)
    mine = our_curve(ours, marks)
    theirs = openspiel_curve("kuhn_poker", pyspiel.CFRPlusSolver, marks)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6)
    result = cfr(game, 2000, plus=True)
    ref = POKER["kuhn_poker"]["computed_openspiel_cfrplus"]
    np.testing.assert_allclose(result.value, ref["expected_returns_avg_policy"], atol=1e-5)
    # Kuhn's equilibrium family: player 1 calls a bet with the K, folds the J; player 0
    # checks the Q; player 0's K bets three times as often as the J (alpha and 3 alpha)
    at = lambda text: result.policy(game, game.parse(text))  # noqa: E731
    assert at("J K b")[1] > 0.99 and at("K J b")[0] > 0.99
    assert at("Q J")[0] > 0.99
    assert abs(at("K J")[1] - 3 * at("J K")[1]) < 0.02


def test_leduc_cfr_equals_openspiel_cpp() -> None:
    marks = [1, 5, 20]
    mine = our_curve(CFRSolver(jaxgames.make("leduc_poker")), marks)
    theirs = openspiel_curve("leduc_poker", pyspiel.CFRSolver, marks)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-5)


def test_leduc_cfr_plus_equals_openspiel_cpp_then_falls_below_0_01() -> None:
    marks = [1, 10, 30]
    ours = CFRSolver(jaxgames.make("leduc_poker"), plus=True)
    mine = our_curve(ours, marks)
    theirs = openspiel_curve("leduc_poker", pyspiel.CFRPlusSolver, marks)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-5)
    ours.run(1000 - ours.iterations)
    report = ours.evaluate()
    assert report["exploitability"] < 0.01
    assert abs(report["value"][0] - LEDUC_VALUE) < 1e-3
    ref = POKER["leduc_poker"]["computed_openspiel_cfrplus"]  # 1,000 CFR+ iterations
    assert abs(report["nash_conv"] - ref["nash_conv"]) < 1e-4
    np.testing.assert_allclose(report["value"], ref["expected_returns_avg_policy"], atol=1e-5)


def test_tree_counts() -> None:
    kuhn = build_tree(jaxgames.make("kuhn_poker"))
    assert (kuhn.num_histories, kuhn.num_infosets) == (58, 12)  # 6 deals x 9 + 4 chance nodes
    assert kuhn.max_decisions == (2, 1)
    leduc = build_tree(jaxgames.make("leduc_poker"))
    assert leduc.num_infosets == 936
    assert (leduc.player == -2).sum() > 0 and leduc.legal.any(axis=1).all()


def test_a_game_without_the_capability_is_refused() -> None:
    with pytest.raises(GameError, match="ImperfectInformation"):
        cfr(jaxgames.make("tictactoe"), 1)
    with pytest.raises(GameError, match="iterations"):
        CFRSolver(jaxgames.make("kuhn_poker")).run(-1)


def test_result_curve_and_stats() -> None:
    result = cfr(jaxgames.make("kuhn_poker"), 100, checkpoints=[1, 10, 100])
    assert [m for m, _ in result.curve] == [1, 10, 100]
    assert result.curve[-1][1] == result.exploitability
    assert result.curve[0][1] > result.curve[1][1] > result.curve[2][1]
    assert result.stats["histories"] == 58 and result.average_policy.shape == (12, 2)
    np.testing.assert_allclose(result.average_policy.sum(axis=1), 1.0, atol=1e-6)
