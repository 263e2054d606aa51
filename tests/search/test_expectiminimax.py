"""Expectiminimax, Star1 and Star2 against plain-Python expectation over explicit trees, and
the batched lanes against the host driver on backgammon."""

import json

import backgammon_reference
import numpy as np
import pytest
from chance_trees import brute, forest, random_tree
from conftest import REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st
from jaxgames.kernels import stack

import jaxgames
from jaxgames.game import GameError
from jaxgames.search import expectiminimax, expectiminimax_batch

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

PRUNINGS = ("none", "alphabeta", "star1", "star2")


# ------------------------------------------------------------------ tests
def test_aima_chance_tree_and_the_seeds_warning_about_leaf_values():
    """AIMA's Figure 5.12: an order-preserving change of leaf values changes the decision;
    a positive linear one does not."""

    def tree(v):
        return {
            "children": [
                {"chance": [[0.9, v[0]], [0.1, v[1]]]},
                {"chance": [[0.9, v[2]], [0.1, v[3]]]},
            ],
            "player": 0,
        }

    values = [2, 3, 1, 4]
    order_preserving = [20, 30, 1, 400]  # same order of leaf values: 1 < 2 < 3 < 4
    linear = [3 * x + 7 for x in values]
    assert sorted(range(4), key=lambda i: values[i]) == sorted(
        range(4), key=lambda i: order_preserving[i]
    )
    decisions = {}
    for label, leaves in (("original", values), ("monotone", order_preserving), ("linear", linear)):
        game = jaxgames.make("tree", tree=tree(leaves))
        for pruning in PRUNINGS:
            result = expectiminimax(game, game.init(), 2, pruning=pruning)
            assert result.value[0] == pytest.approx(brute(tree(leaves)), abs=1e-4)
            decisions.setdefault(label, set()).add(result.best_action)
    assert decisions["original"] == {0}  # 2.1 against 1.3
    assert decisions["linear"] == {0}  # a positive linear map keeps the choice
    assert decisions["monotone"] == {1}  # 21 against 40.9: the choice flips


@pytest.mark.parametrize("regular", [True, False])
def test_every_pruning_equals_brute_force_expectation(regular):
    """Host driver and device lanes, every pruning, on random stochastic trees."""
    rng = np.random.default_rng(7 if regular else 8)
    trees = [
        random_tree(rng, int(rng.integers(2, 6)), regular=regular, zero_prob=0.15)
        for _ in range(24)
    ]
    game, roots = forest(trees)
    want = np.array([brute(tree) for tree in trees])
    for root, expected in zip(roots, want, strict=True):
        for pruning in PRUNINGS:
            got = expectiminimax(game, root, 6, pruning=pruning).value
            assert got[0] == pytest.approx(expected, abs=1e-4), pruning
    # the lanes compile once per pruning: the irregular trees (every kind of node anywhere)
    # check all four, the regular ones the Star searches
    for pruning in ("star1", "star2") if regular else PRUNINGS:
        batch = expectiminimax_batch(game, stack(roots), 6, pruning=pruning, lanes=16)
        np.testing.assert_allclose(batch.value[:, 0], want, atol=1e-4, err_msg=pruning)
        np.testing.assert_allclose(batch.value[:, 1], -want, atol=1e-4, err_msg=pruning)


def test_depth_limited_search_scores_the_cutoff_with_eval():
    rng = np.random.default_rng(3)
    trees = [random_tree(rng, 5, regular=bool(i % 2)) for i in range(12)]
    game, roots = forest(trees)
    for depth in (1, 2, 3):
        batch = expectiminimax_batch(game, stack(roots), depth)
        for i, (tree, root) in enumerate(zip(trees, roots, strict=True)):
            want = brute(tree, depth)
            assert batch.value[i, 0] == pytest.approx(want, abs=1e-4)
            for pruning in ("none", "star1", "star2"):
                got = expectiminimax(game, root, depth, pruning=pruning).value[0]
                assert got == pytest.approx(want, abs=1e-4)
        if depth == 2:  # one compile of the lanes
            lanes = expectiminimax_batch(game, stack(roots), depth, mode="lanes", lanes=8)
            np.testing.assert_allclose(lanes.value, batch.value, atol=1e-4)


def test_star1_and_star2_search_fewer_nodes_for_the_same_values():
    """Ballard's *-minimax trees (MAX, chance, MIN, chance, ...) with an informative EVAL
    (so moves are searched best-first): the pruned searches agree with plain
    expectiminimax and, summed over many trees, open fewer nodes on the device."""
    rng = np.random.default_rng(11)
    trees = [random_tree(rng, 4, informed=True, chance_width=(2, 6)) for _ in range(16)]
    game, roots = forest(trees)
    opened = dict.fromkeys(PRUNINGS, 0)
    visits = dict.fromkeys(PRUNINGS, 0)
    for tree, root in zip(trees, roots, strict=True):
        want = brute(tree)
        for pruning in PRUNINGS:
            result = expectiminimax(game, root, 4, pruning=pruning)
            assert result.value[0] == pytest.approx(want, abs=1e-4)
            opened[pruning] += result.stats["expansions"]
            visits[pruning] += result.stats["nodes"]
    assert opened["star2"] < opened["star1"] < opened["alphabeta"] <= opened["none"]
    assert visits["star2"] < visits["none"] and visits["star1"] < visits["none"]


def test_star1_and_star2_lanes_search_fewer_nodes_for_the_same_values():
    """The same on the device, every tree its own lane (best-first by EVAL look-ahead)."""
    rng = np.random.default_rng(11)
    trees = [random_tree(rng, 4, informed=True, chance_width=(2, 6)) for _ in range(16)]
    game, roots = forest(trees)
    want = np.array([brute(tree) for tree in trees])
    nodes = {}
    for pruning in PRUNINGS:
        result = expectiminimax_batch(game, stack(roots), 4, pruning=pruning, lanes=8)
        np.testing.assert_allclose(result.value[:, 0], want, atol=1e-4, err_msg=pruning)
        nodes[pruning] = result.stats["nodes"]
    assert nodes["star2"] < nodes["star1"] < nodes["alphabeta"] <= nodes["none"]


LANE_TREES = [random_tree(np.random.default_rng(s), 4, regular=s % 2 == 0) for s in range(12)]


@settings(max_examples=8, deadline=None)
@given(picks=st.lists(st.integers(0, len(LANE_TREES) - 1), min_size=8, max_size=8))
def test_batched_lanes_equal_one_search_per_root(picks):
    """Any mix of roots in one batch (repeats included) gets each root's own value."""
    game, roots = forest(LANE_TREES)
    batch = expectiminimax_batch(game, stack([roots[i] for i in picks]), 4, lanes=4)
    for row, i in enumerate(picks):
        alone = expectiminimax(game, roots[i], 4, pruning="star1")
        assert batch.value[row, 0] == pytest.approx(alone.value[0], abs=1e-4)
        assert batch.value[row, 0] == pytest.approx(brute(LANE_TREES[i], 4), abs=1e-4)


def wide_tree(rng, depth, player=0, chance=False):
    """MAX, chance, MIN, chance, ... with 9 to 14 moves at the decision nodes just above
    the leaves (more than the lanes settle in one event) and an informed EVAL."""
    if depth == 0:
        return int(rng.integers(-9, 10))
    if chance:
        weights = rng.random(int(rng.integers(2, 4))) + 0.1
        probs = [float(w) for w in weights / weights.sum()]
        node = {"chance": [[p, wide_tree(rng, depth - 1, 1 - player)] for p in probs]}
    else:
        width = int(rng.integers(9, 15)) if depth == 1 else int(rng.integers(2, 4))
        node = {
            "children": [wide_tree(rng, depth - 1, player, True) for _ in range(width)],
            "player": player,
        }
    node["eval"] = float(np.clip(brute(node) + rng.integers(-3, 4) / 4, -9, 9))
    return node


def test_wide_nodes_and_narrowing_lanes_keep_the_plain_values():
    """Decision nodes at the horizon with more moves than an event settles (cut anywhere in
    the batch, or not at all), and 128 lanes that narrow to 32 and 8 as roots finish."""
    rng = np.random.default_rng(5)
    trees = [wide_tree(rng, 3 + i % 2) for i in range(16)]
    game, roots = forest(trees)
    want = np.array([brute(tree, 3) for tree in trees])
    picks = np.arange(128) % len(trees)
    batch = expectiminimax_batch(game, stack([roots[i] for i in picks]), 3, lanes=128)
    assert batch.stats["lane_phases"] == [128, 32, 8]
    np.testing.assert_allclose(batch.value[:, 0], want[picks], atol=1e-4)
    one = expectiminimax_batch(game, stack(roots), 3, pruning="star1", lanes=8)
    np.testing.assert_allclose(one.value[:, 0], want, atol=1e-4)
    assert one.stats["cutoffs"] > 0 and one.stats["chance_cutoffs"] > 0


def test_one_root_on_the_device_equals_the_host_driver():
    game, roots = forest(LANE_TREES)
    for i in (0, 1, 5):
        host = expectiminimax(game, roots[i], 4)
        device = expectiminimax(game, roots[i], 4, mode="device")
        assert device.value[0] == pytest.approx(host.value[0], abs=1e-4)
        assert device.value[0] == pytest.approx(brute(LANE_TREES[i], 4), abs=1e-4)


def test_impossible_outcomes_are_never_searched():
    tree = {
        "children": [
            {"chance": [[0.0, {"children": [5, 6], "player": 1}], [1.0, 2]]},
            {"chance": [[0.5, 1], [0.5, 3], [0.0, -9]]},
        ],
        "player": 0,
    }
    game = jaxgames.make("tree", tree=tree)
    result = expectiminimax(game, game.init(), 3, pruning="none")
    assert result.value[0] == pytest.approx(2.0)
    assert result.stats["nodes"] == 1 + 2 + 1 + 2  # root, two chance nodes, 3 leaves


def test_pruning_needs_two_players_and_zero_sum():
    game = jaxgames.make("tree", name="aima_3player")
    with pytest.raises(GameError, match="two-player zero-sum"):
        expectiminimax(game, game.init(), 2, pruning="star1")
    assert expectiminimax(game, game.init(), 3, pruning="none").value.tolist() == [1, 2, 6]
    with pytest.raises(GameError, match="pruning must be one of"):
        expectiminimax(game, game.init(), 2, pruning="star3")


def test_bulk_evaluation_picks_expectiminimax_for_games_with_chance():
    """Pig's positions through ``jaxgames.evaluate``: the default search is expectiminimax,
    and its rows agree with the host driver on each position."""
    positions = [
        "p0=0 p1=0 turn=0 to_move=0",
        "p0=7 p1=3 turn=2 to_move=1",
        "p0=8 p1=9 turn=0 to_move=0 rolling",
    ]
    game = jaxgames.make("pig", goal=10)
    rows = jaxgames.evaluate(game, positions, depth=3)
    assert [row["algorithm"] for row in rows] == ["expectiminimax"] * 3
    for text, row in zip(positions, rows, strict=True):
        state = game.parse(text)
        mover = max(int(game.player(state)), 0)
        alone = expectiminimax(game, state, 3, pruning="none")
        assert row["value"] == pytest.approx(float(alone.value[mover]), abs=1e-4)


def test_backgammon_lanes_give_the_host_drivers_plain_values():
    """The batched Star2 search (compact lists, doubles decoded by rank, the probes' lists
    kept for the full pass) at depth 2 on backgammon's chance and decision roots, doubles
    among them: each value is plain expectiminimax's, from the host driver's recursion."""
    game = jaxgames.make("backgammon")
    positions = json.loads((REFERENCE / "gnubg_backgammon.json").read_text())["positions"]

    def state_of(entry, dice=True):  # the reference's convention: own on roll, x to move
        text = backgammon_reference.position_id(tuple(entry["own"]), tuple(entry["opp"]))
        return game.parse(text + (f":{entry['dice'][0]}{entry['dice'][1]}:x" if dice else ""))

    entries = positions[:60:6]
    doubles = next(e for e in positions if e["dice"][0] == e["dice"][1])
    roots = [state_of(e) for e in [*entries[:3], doubles]]
    roots += [state_of(e, dice=False) for e in entries[3:7]]
    batch = expectiminimax_batch(game, stack(roots), 2)
    for state, value in zip(roots, batch.value, strict=True):
        plain = expectiminimax(game, state, 2, pruning="none")
        np.testing.assert_allclose(value, plain.value, atol=1e-5)
    assert batch.stats["probe_cutoffs"] + batch.stats["chance_cutoffs"] > 0
