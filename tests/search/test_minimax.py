"""Minimax, expectiminimax and perft against plain-Python recursion on the tests' Nim."""

import numpy as np
import pytest
from jaxgames.kernels import stack
from nim import Nim, nim_value

from jaxgames.search import minimax, minimax_batch, perft, solve


def nim_perft(stones: int, depth: int) -> list[int]:
    counts = [0] * depth

    def walk(left: int, ply: int) -> None:
        if ply == depth or left == 0:
            return
        for take in (1, 2, 3):
            if take <= left:
                counts[ply] += 1
                walk(left - take, ply + 1)

    walk(stones, 0)
    return counts


@pytest.mark.parametrize("dice", [False, True])
@pytest.mark.parametrize("heap", [1, 4, 5, 9])
def test_minimax_equals_plain_recursion(heap, dice):
    game = Nim(heap, dice)
    result = minimax(game, game.init())
    assert result.value[0] == pytest.approx(nim_value(heap, 0, dice))
    assert result.value[1] == pytest.approx(-nim_value(heap, 0, dice))


@pytest.mark.parametrize("dice", [False, True])
def test_solve_over_distinct_positions_equals_tree_search(dice):
    game = Nim(9, dice)
    tree = minimax(game, game.init())
    dag = solve(game, game.init())
    np.testing.assert_allclose(tree.value, dag.value)
    np.testing.assert_allclose(tree.action_values, dag.action_values)
    assert dag.stats["nodes"] < tree.stats["nodes"]


def test_optimal_actions_are_those_with_the_best_value():
    game = Nim(9)
    result = solve(game, game.init())
    expected = [
        take - 1
        for take in (1, 2, 3)
        if (9 - take == 0 and True) or nim_value(9 - take, 1, False) == nim_value(9, 0, False)
    ]
    assert result.optimal_actions(0) == expected
    assert result.best_action == expected[0]


def test_depth_limited_search_scores_the_cutoff_with_eval():
    game = Nim(9)  # EVAL is the protocol's neutral default: 0 away from terminals
    assert minimax(game, game.init(), depth=0).value[0] == 0.0
    # 1 stone left after two plies can be taken: a win found within 3 plies
    result = minimax(game, game.parse("5"), depth=3)
    assert result.value[0] == pytest.approx(nim_value(5, 0, False))


def test_many_roots_at_once_equal_one_at_a_time():
    game = Nim(10)
    roots = [game.parse(str(n)) for n in range(1, 11)]
    batch = minimax_batch(game, stack(roots), depth=4)
    for i, root in enumerate(roots):
        single = minimax(game, root, depth=4)
        np.testing.assert_allclose(batch.value[i], single.value)
        assert batch.best_action[i] == single.best_action
        assert batch.pv[i][batch.pv[i] >= 0].tolist() == single.pv
        assert batch.nodes[i] == single.stats["nodes"]
    assert batch.stats["nodes"] == batch.nodes.sum()


@pytest.mark.parametrize("heap", [6, 11])
def test_perft_equals_plain_enumeration(heap):
    game = Nim(heap)
    assert perft(game, game.init(), 6).counts == nim_perft(heap, 6)


def test_negative_depth_is_refused():
    game = Nim(3)
    with pytest.raises(ValueError, match="depth"):
        minimax(game, game.init(), depth=-1)
    with pytest.raises(ValueError, match="depth"):
        perft(game, game.init(), 0)
