"""Searches on explicit textbook trees and synthetic trees, against plain-Python recursion."""

import json

import forest
import numpy as np
import pytest
from conftest import REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxgames
from jaxgames import search
from jaxgames.search import minimax

pytestmark = pytest.mark.slow  # compiles many programs: outside the fast subset

TREES = json.loads((REFERENCE / "textbook_trees.json").read_text())


def brute(node, depth=0, num_players=2):
    """Plain recursion over a nested-list tree: max/min (2 players), maxⁿ or expectation."""
    if isinstance(node, dict):
        return sum(p * brute(child, depth, num_players) for p, child in node["chance"])
    if num_players == 2 and not isinstance(node, list):
        return float(node)
    if num_players > 2 and all(not isinstance(x, list) for x in node):
        return tuple(float(x) for x in node)
    values = [brute(child, depth + 1, num_players) for child in node]
    if num_players == 2:
        return max(values) if depth % 2 == 0 else min(values)
    mover = depth % num_players
    return max(values, key=lambda v: v[mover])  # first maximum: ties go to the lowest action


def test_aima_figure_5_2_is_3_with_the_first_move():
    game = jaxgames.make("tree", name="aima")
    result = minimax(game, game.init())
    expected = TREES["aima_fig_5_2"]
    assert result.value[0] == expected["minimax_root"] == 3
    assert result.best_action == expected["best_root_move_index"]
    assert result.action_values[:, 0].tolist() == expected["minimax_children"]


TEXTBOOK_ALPHABETA = {  # children left to right: every ordering aid and window narrowing off
    "hint": False,
    "killers": False,
    "history": False,
    "iterative_deepening": False,
    "tt": False,
    "bounds": False,
    "last_ply": False,
}


def test_aima_exam_question_is_4_with_move_c_and_reads_seven_leaves():
    """Textbook alpha-beta on the exam question, and which leaves it reads, seen from outside
    (as for figure 5.2 in test_alphabeta.py): each of the 9 leaves is set to +100 and to
    -100 in turn. A leaf whose probe changes the outcome (value, move, PV, nodes, leaves) was
    read; 7 leaves are seen read, and 7 are evaluated in all, so no other leaf is read:
    B's 9 and 1 never are (and their probes indeed change nothing)."""
    ref = TREES["aima_exam_question"]
    tree = ref["tree"]
    game = jaxgames.make("tree", tree=tree)
    result = search.alphabeta(game, game.init(), 2, mode="device", **TEXTBOOK_ALPHABETA)
    assert result.value.tolist() == [ref["minimax_root"], -ref["minimax_root"]] == [4, -4]
    assert result.best_action == ref["best_root_move_index"] == 2
    assert ref["move_names"][result.best_action] == ref["best_root_move_name"] == "C"
    assert int(np.sum(result.stats["leaves"])) == 9 - ref["alphabeta_leaves_pruned"] == 7

    paths = [(i, j) for i, node in enumerate(tree) for j in range(len(node))]
    trees = [tree]
    for i, j in paths:
        for probe in (100, -100):
            trees.append([list(node) for node in tree])
            trees[-1][i][j] = probe
    packed = forest.pack(trees)
    batch = search.alphabeta_batch(packed.game, packed.roots, 2, **TEXTBOOK_ALPHABETA)
    leaves = np.asarray(batch.stats["leaves_per_root"])  # "leaves" is the batch's total

    def outcome(k):
        pv = tuple(batch.pv[k].tolist())
        return batch.value[k].tolist(), int(batch.best_action[k]), pv, batch.nodes[k], leaves[k]

    assert outcome(0)[:2] == ([4, -4], 2)
    read = [
        p
        for k, p in enumerate(paths)
        if outcome(1 + 2 * k) != outcome(0) or outcome(2 + 2 * k) != outcome(0)
    ]
    assert leaves[0] == len(read) == 7
    assert read == [tuple(p) for p in ref["alphabeta_leaf_paths_evaluated"]]
    # children are searched left to right, so the read leaves in tree order are the order
    assert [tree[i][j] for i, j in read] == ref["alphabeta_leaves_evaluated_in_order"]
    pruned = [p for p in paths if p not in read]
    assert pruned == [tuple(p) for p in ref["alphabeta_leaf_paths_pruned"]] == [(1, 1), (1, 2)]
    assert [tree[i][j] for i, j in pruned] == [9, 1]


def test_four_ply_tree_is_16():
    game = jaxgames.make("tree", name="matey")
    assert minimax(game, game.init()).value[0] == TREES["matey_negamax_4ply"]["minimax_root"]


def test_aima_three_player_tree_backs_up_1_2_6_at_x_and_the_root():
    game = jaxgames.make("tree", name="aima_3player")
    assert minimax(game, game.init()).value.tolist() == [1, 2, 6]
    x = game.parse("0.0")  # the leftmost node of player C, called X in the figure
    assert int(game.player(x)) == 2
    assert minimax(game, x).value.tolist() == [1, 2, 6]


def test_mit_three_player_tree_every_level():
    game = jaxgames.make("tree", name="mit_3player")
    ref = TREES["mit_6034_three_player_maxn"]
    assert minimax(game, game.init()).value.tolist() == ref["maxn_root"]
    for i in range(2):
        assert minimax(game, game.parse(str(i))).value.tolist() == ref["maxn_level2"][i]
        for j in range(2):
            got = minimax(game, game.parse(f"{i}.{j}")).value.tolist()
            assert got == ref["maxn_level3"][i][j]


def leaf():
    return st.integers(-9, 9)


def stochastic_tree(depth):
    if depth == 0:
        return leaf()
    sub = stochastic_tree(depth - 1)
    decision = st.lists(sub, min_size=1, max_size=3)
    chance = st.lists(sub, min_size=1, max_size=3).map(
        lambda kids: {"chance": [[1.0 / len(kids), k] for k in kids]}
    )
    return st.one_of(leaf(), decision, chance)


@settings(max_examples=6)
@given(tree=stochastic_tree(3).filter(lambda t: isinstance(t, list | dict)))
def test_expectiminimax_equals_brute_force_expectation(tree):
    game = jaxgames.make("tree", tree=tree)
    # the tree's default movers count decision nodes only; the oracle counts depth, so
    # give every decision node its mover explicitly through the same rule as the oracle
    result = minimax(game, game.init())
    assert result.value[0] == pytest.approx(brute_counting_decisions(tree), abs=1e-5)


def brute_counting_decisions(node, decisions=0):
    """Expectiminimax where the mover alternates per decision node (chance takes no turn)."""
    if isinstance(node, dict):
        return sum(p * brute_counting_decisions(c, decisions) for p, c in node["chance"])
    if not isinstance(node, list):
        return float(node)
    values = [brute_counting_decisions(child, decisions + 1) for child in node]
    return max(values) if decisions % 2 == 0 else min(values)


@settings(max_examples=4)
@given(
    tree=st.recursive(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)).map(list),
        lambda sub: st.lists(sub, min_size=2, max_size=3),
        max_leaves=12,
    ).filter(lambda t: isinstance(t[0], list))
)
def test_maxn_equals_brute_force_on_random_three_player_trees(tree):
    game = jaxgames.make("tree", tree=tree, num_players=3)
    assert tuple(minimax(game, game.init()).value.tolist()) == brute(tree, num_players=3)


@pytest.mark.parametrize("b, d", [(2, 6), (3, 4), (5, 3)])
def test_full_minimax_on_a_uniform_tree_visits_b_to_the_d_leaves(b, d):
    game = jaxgames.make("uniform_tree", branching=b, depth=d, ordering="random")
    result = minimax(game, game.init())
    assert result.stats["leaves"] == b**d
    assert result.stats["nodes"] == sum(b**k for k in range(d + 1))


def test_best_ordered_uniform_tree_has_its_best_move_first_everywhere():
    game = jaxgames.make("uniform_tree", branching=3, depth=4, ordering="best")
    for path in ["", "1", "2.2", "0.1.2"]:
        result = minimax(game, game.parse(path))
        assert result.best_action == 0
        own = result.action_values[:, int(game.player(game.parse(path)))]
        assert (own[0] > own[1:]).all()
    np.testing.assert_array_equal(minimax(game, game.init()).pv, [0, 0, 0, 0])
