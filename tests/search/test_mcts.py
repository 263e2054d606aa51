"""Monte Carlo tree search against plain-Python minimax, expectiminimax and maxⁿ over
explicit trees, and against the published tic-tac-toe values."""

import json

import forest
import jax.numpy as jnp
import numpy as np
import pytest
from chance_trees import brute, random_tree
from conftest import REFERENCE
from jaxgames.kernels import stack

import jaxgames
from jaxgames.game import GameError
from jaxgames.games.tree import EXAMPLES
from jaxgames.search.mcts import PUCT, PolicyValue, StaticEval, mcts, mcts_batch

pytestmark = pytest.mark.slow  # compiles several searches: outside the fast subset

TREES = json.loads((REFERENCE / "textbook_trees.json").read_text())
TICTACTOE = json.loads((REFERENCE / "tictactoe.json").read_text())
NODES = 512  # one node budget for the explicit trees: budgets below it share a program


def minimax_move(tree) -> int:
    """The first root move of a MAX-rooted nested-list tree that reaches its minimax value."""
    values = [
        forest.minimax(child, maximizing=False) if isinstance(child, list) else child
        for child in tree
    ]
    return int(np.argmax(values))


def visit_share(result, move: int) -> np.ndarray:
    """float[B]: the share of each root's visits that went through ``move``."""
    on_move = np.where(result.moves == move, result.visits, 0).sum(axis=1)
    return on_move / result.visits.sum(axis=1)


@pytest.mark.parametrize("name", ["aima", "matey"])
def test_visits_concentrate_on_the_minimax_move_as_simulations_grow(name):
    tree, _ = EXAMPLES[name]
    game = jaxgames.make("tree", name=name)
    roots = stack([game.init()] * 8)  # eight trees, each with its own random stream
    best = minimax_move(tree)
    few = mcts_batch(game, roots, 12, 0, nodes=NODES)
    many = mcts_batch(game, roots, 2000, 0, nodes=NODES)
    assert np.all(many.action == best)
    assert np.all(np.argmax(many.visits, axis=1) == best)
    # UCB1 concentrates slowly (its exploration term shrinks as sqrt(ln N / n))
    assert visit_share(many, best).mean() > visit_share(few, best).mean() + 0.05


def test_the_solver_proves_random_trees_with_their_minimax_values_and_moves():
    trees = forest.random_trees(48, seed=11, depths=(2, 3, 4))
    packed = forest.pack(trees)
    result = mcts_batch(packed.game, packed.roots, 600, 3, solver=True, nodes=NODES)
    values = np.array([forest.minimax(t) for t in trees], np.float32)
    assert result.proven.all()
    np.testing.assert_array_equal(result.lower, values)
    np.testing.assert_array_equal(result.value[:, 0], values)
    for i, tree in enumerate(trees):  # the move chosen keeps the value
        child = tree[int(result.action[i])]
        got = forest.minimax(child, maximizing=False) if isinstance(child, list) else child
        assert got == values[i], (i, tree)


@pytest.mark.parametrize("chance", ["expectation", "sample"])
def test_the_solver_proves_chance_trees_with_their_expectiminimax_values(chance):
    rng = np.random.default_rng(5)
    trees = [random_tree(rng, 4, regular=False, zero_prob=0.2) for _ in range(24)]
    game = jaxgames.make("tree", tree={"children": trees, "player": 0})
    roots = stack([game.parse(str(i)) for i in range(len(trees))])
    result = mcts_batch(game, roots, 600, 1, solver=True, chance=chance, nodes=NODES)
    assert result.proven.all()
    np.testing.assert_allclose(result.lower, [brute(t) for t in trees], atol=1e-4)


GAMBLE = {"chance": [[0.9, [0, 0]], [0.1, [8, 8]]]}
"""A chance node worth 0.9 * 0 + 0.1 * 8 = 0.8, though its outcomes average 4."""


@pytest.mark.parametrize("chance", ["expectation", "sample"])
def test_chance_nodes_are_weighed_by_their_probabilities(chance):
    # MAX takes a sure 2 over the gamble only when the outcomes are weighed
    game = jaxgames.make("tree", tree=[[2, 2], GAMBLE])
    roots = stack([game.init()] * 4 + [game.parse("1")] * 4)  # the root, then the gamble
    result = mcts_batch(game, roots, 300, 2, chance=chance, nodes=NODES)
    assert np.all(result.action[:4] == 0)
    assert np.all(result.action[4:] == -1)  # nothing to choose at a chance node
    share = result.visits[4:, 0] / result.visits[4:].sum(axis=1)
    if chance == "expectation":  # visits follow the probabilities; the value is exact
        np.testing.assert_allclose(share, 0.9, atol=0.01)
        np.testing.assert_allclose(result.value[4:, 0], 0.8, atol=1e-5)
    else:  # drawn by probability: the estimates scatter around the expectation
        assert np.all(np.abs(share - 0.9) < 0.06), share
        assert abs(result.value[4:, 0].mean() - 0.8) < 0.3


def maxn_values(node, depth=0, players=3):
    """Plain maxⁿ over a nested-list tree of vector leaves, the mover by depth: the root's
    value and its children's."""
    if not isinstance(node[0], list):
        return tuple(node), []
    mover = depth % players
    values = [maxn_values(child, depth + 1, players)[0] for child in node]
    return max(values, key=lambda v: v[mover]), values


@pytest.mark.parametrize("name", ["aima_3player", "mit_3player"])
def test_three_players_each_choose_by_their_own_component(name):
    tree, players = EXAMPLES[name]
    game = jaxgames.make("tree", name=name)
    result = mcts_batch(game, stack([game.init()] * 8), 2000, 4, nodes=NODES)
    value, children = maxn_values(tree, players=players)
    best = [i for i, v in enumerate(children) if v[0] == value[0]]  # AIMA's root ties
    assert set(result.action.tolist()) <= set(best), (result.action, children)


def test_tictactoe_start_and_every_first_move_are_proven_draws():
    game = jaxgames.make("tictactoe")
    start = game.init()
    roots = stack([start] + [game.step(start, jnp.int32(a)) for a in range(9)])
    result = mcts_batch(game, roots, 30000, 0, solver=True)
    assert result.proven.all(), result.stats["nodes"]
    assert TICTACTOE["minimax_value_empty_board_X_perspective"] == result.lower[0] == 0
    after = TICTACTOE["minimax_value_after_first_move_at_square"]
    np.testing.assert_array_equal(result.lower[1:], [after[str(a)] for a in range(9)])


def test_priors_steer_puct_and_dirichlet_noise_mixes_into_them():
    game = jaxgames.make("tictactoe")

    def favour_the_corner(state):
        return jnp.zeros((9,)).at[8].set(5.0), jnp.zeros((2,))

    steered = mcts(
        game, game.init(), 40, 0, selection=PUCT(), evaluator=PolicyValue(favour_the_corner)
    )
    assert int(np.argmax(steered.visits)) == 8 and steered.action == 8
    np.testing.assert_allclose(steered.prior.sum(), 1.0, rtol=1e-5)
    noisy = mcts(
        game,
        game.init(),
        40,
        0,
        selection=PUCT(),
        evaluator=PolicyValue(favour_the_corner),
        dirichlet=(0.3, 0.25),
    )
    np.testing.assert_allclose(noisy.prior.sum(), 1.0, rtol=1e-5)
    assert not np.allclose(noisy.prior, steered.prior)


def test_a_static_evaluator_and_a_finished_root():
    game = jaxgames.make("tictactoe")
    won = game.parse("xxx/oo./...")  # X has three in a row: the game is over
    result = mcts(game, won, 5, 0, evaluator=StaticEval())
    assert result.action == -1 and result.visits.sum() == 0
    np.testing.assert_array_equal(result.value, game.utility(won))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"simulations": 0}, "simulations must be >= 1"),
        ({"chance": "mean"}, "chance must be one of expectation, sample"),
        ({"nodes": 0}, "nodes must be >= 1"),
    ],
)
def test_bad_options_are_one_line_errors(options, message):
    game = jaxgames.make("tictactoe")
    args = {"simulations": 4, **options}
    with pytest.raises(GameError, match=message):
        mcts(game, game.init(), args.pop("simulations"), 0, **args)


def test_the_solver_needs_two_players_zero_sum():
    game = jaxgames.make("tree", name="aima_3player")
    with pytest.raises(GameError, match="two-player zero-sum game; tree has 3 players"):
        mcts(game, game.init(), 4, 0, solver=True)


def test_pig_with_chance_nodes_in_both_modes_picks_legal_moves():
    game = jaxgames.make("pig")
    state = game.parse("p0=0 p1=0 turn=0 to_move=0")
    legal = np.flatnonzero(np.asarray(game.legal_mask(state)))
    for chance in ("expectation", "sample"):
        result = mcts(game, state, 64, 0, chance=chance)
        assert result.action in legal and result.visits.sum() == 64
        assert game.utility_min <= result.value[0] <= game.utility_max


def test_the_mctx_adapter_finds_the_winning_move():
    import jax

    pytest.importorskip("mctx")
    from jaxgames.search.mcts.mctx_adapter import mctx_policy

    game = jaxgames.make("connect4")
    threat = game.parse("111111434343")  # column 1 full; three in column 4: 4 wins at once
    win = game.string_to_action(threat, "4")
    roots = stack([threat] * 8)
    run = jax.jit(lambda s, k: mctx_policy(game, s, k, 32))  # Gumbel MuZero
    out = run(roots, jax.random.key(0))
    # the improved policy ranks the win first in every tree; the action, drawn with Gumbel
    # noise over the considered moves, is the win in most
    assert np.all(np.argmax(np.asarray(out.action_weights), axis=1) == win)
    assert np.mean(np.asarray(out.action) == win) >= 0.75
    muzero = jax.jit(lambda s, k: mctx_policy(game, s, k, 32, policy="muzero"))(
        roots, jax.random.key(0)
    )
    weights = np.asarray(muzero.action_weights)  # visit shares: never on a full column
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(weights[:, ~np.asarray(game.legal_mask(threat))] == 0)


def test_the_mctx_adapter_refuses_chance_and_more_players():
    from jaxgames.search.mcts.mctx_adapter import mctx_policy

    pytest.importorskip("mctx")
    game = jaxgames.make("pig")
    with pytest.raises(GameError, match="deterministic game of one or two players; pig"):
        mctx_policy(game, stack([game.init()]), None, 4)
