"""The expectation kernel and rollouts through chance nodes, against hand-computed sums."""

import jax
import numpy as np
import pytest
from jaxgames.kernels import batched, expectation, playouts, stack, unstack

import jaxgames
from jaxgames.search import minimax

# two chance nodes under a decision root; outcome values are the children's leaf values
TREE = {
    "children": [
        {"chance": [[0.25, 8], [0.0, {"children": [1, 2], "player": 1, "eval": 6}], [0.75, -4]]},
        {"chance": [[0.5, {"children": [3, 5], "player": 1, "eval": 2}], [0.5, 1]]},
        7,
    ],
    "player": 0,
}


@pytest.fixture(scope="module")
def game():
    return jaxgames.make("tree", tree=TREE)


@pytest.mark.parametrize("compact", [True, False])
def test_expectation_weights_each_outcome_by_its_probability(game, compact):
    states = stack([game.parse("0"), game.parse("1")])
    got = expectation(game, states, compact=compact)
    # leaf values: UTILITY at the leaves, EVAL at the internal node
    want = np.array([0.25 * 8 + 0.75 * -4, 0.5 * 2 + 0.5 * 1])
    np.testing.assert_allclose(got[:, 0], want, atol=1e-6)
    np.testing.assert_allclose(got[:, 1], -want, atol=1e-6)


@pytest.mark.parametrize("compact", [True, False])
def test_impossible_outcomes_cost_nothing_in_the_result(game, compact):
    """A value function that fails (NaN) on the impossible outcome leaves no trace."""
    leaf_values = batched(game).leaf_values
    valued = []

    def poisoned(children):
        values = np.array(leaf_values(children))
        internal = ~np.asarray(batched(game).terminal(children))
        values[internal & (values[:, 0] == 6)] = np.nan  # the probability-0 node's EVAL
        valued.append(int(np.isnan(values[:, 0]).sum()))
        return values

    got = expectation(game, stack([game.parse("0")]), poisoned, compact=compact)
    assert got[0, 0] == pytest.approx(0.25 * 8 + 0.75 * -4)
    assert valued == [0 if compact else 1]  # compaction never even values it


def test_expectation_of_a_search_value():
    """Any value function: here a 1-ply minimax of every outcome, by hand: min(3, 5) = 3."""
    game = jaxgames.make("tree", tree=TREE)

    def one_ply(children):
        out = []
        for child in unstack(children):
            result = minimax(game, child, depth=1)
            out.append(result.value)
        return np.stack(out)

    got = expectation(game, stack([game.parse("1")]), one_ply)
    assert got[0, 0] == pytest.approx(0.5 * 3 + 0.5 * 1)


def test_expectation_rejects_states_that_are_not_chance_nodes(game):
    with pytest.raises(ValueError, match="state 1 is not a chance node"):
        expectation(game, stack([game.parse("0"), game.parse("2")]))
    with pytest.raises(ValueError, match="has no chance outcomes"):
        expectation(jaxgames.make("tictactoe"), stack([jaxgames.make("tictactoe").init()]))


def test_rollouts_sample_chance_outcomes_by_their_probabilities():
    """From a chance node with outcomes 8 (p=1/4) and -4 (p=3/4) the mean is -1."""
    game = jaxgames.make("tree", tree={"chance": [[0.25, 8], [0.75, -4]]})
    n = 20_000
    result = playouts(game, stack([game.init()]), n, jax.random.key(3))
    u = np.asarray(result.utilities)[0, :, 0]
    assert set(np.unique(u).tolist()) == {-4.0, 8.0}
    sigma = 12 * np.sqrt(0.25 * 0.75 / n)  # std of the mean of a two-valued draw
    assert abs(u.mean() - (-1.0)) < 5 * sigma
