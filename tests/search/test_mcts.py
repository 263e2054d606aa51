"""Monte Carlo tree search against plain-Python minimax, expectiminimax and maxⁿ over
explicit trees, and against the published tic-tac-toe values."""

import json

import forest
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from chance_trees import brute, random_tree
from conftest import REFERENCE
from jaxgames.kernels import stack

import jaxgames
from jaxgames.game import GameError
from jaxgames.games.tree import EXAMPLES
from jaxgames.search.mcts import (
    PUCT,
    PolicyValue,
    StaticEval,
    WinLoss,
    descend,
    mcts,
    mcts_batch,
)
from jaxgames.search.mcts import tree as mcts_tree

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


def test_visits_concentrate_on_the_minimax_move_of_random_trees_as_simulations_grow():
    trees = forest.random_trees(48, seed=5, depths=(2, 3))
    packed = forest.pack(trees)
    root_values = [
        [forest.minimax(c, maximizing=False) if isinstance(c, list) else c for c in t]
        for t in trees
    ]
    # trees whose best root move is clear: the runner-up at least 3 points (of 18) below it
    clear = [i for i, v in enumerate(root_values) if len(v) > 1 and np.diff(sorted(v))[-1] >= 3]
    assert len(clear) >= 12
    best = np.array([int(np.argmax(v)) for v in root_values])
    few = mcts_batch(packed.game, packed.roots, 12, 0, nodes=NODES)
    many = mcts_batch(packed.game, packed.roots, 2000, 0, nodes=NODES)
    shares = {
        name: np.array([visit_share(r, best[i])[i] for i in clear])
        for name, r in (("few", few), ("many", many))
    }
    assert np.all(np.asarray(many.action)[clear] == best[clear])
    assert shares["many"].mean() > shares["few"].mean() + 0.1


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


def test_win_loss_scoring_proves_connect_four_endgames_as_the_published_file_scores_them():
    # Pons's Test_L3_R1: positions and exact scores; the sign is the win/draw/loss for the
    # player to move. Scored as won or lost, the solver has only the outcome to prove.
    game = jaxgames.make("connect4")
    lines = (REFERENCE / "connect4_pons" / "Test_L3_R1").read_text().split("\n")[:16]
    moves = [line.split()[0] for line in lines]
    scores = np.array([int(line.split()[1]) for line in lines])
    result = mcts_batch(
        game, stack([game.parse(m) for m in moves]), 1000, 0, solver=True, outcome=WinLoss()
    )
    to_move = np.array([len(m) % 2 for m in moves])  # 0: the first player
    assert result.proven.sum() >= 12
    proven_for_mover = np.where(to_move == 0, result.lower, -result.lower)[result.proven]
    np.testing.assert_array_equal(proven_for_mover, np.sign(scores)[result.proven])
    assert set(np.unique(result.lower[result.proven])) <= {-1.0, 0.0, 1.0}


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


def on_host(tree):
    """The trees' arrays in numpy (the walks below read them element by element)."""
    return jax.tree.map(np.asarray, tree)


def walk(tree, b: int, node: int = 0, path: tuple = ()) -> dict:
    """Everything tree ``b`` (on the host) knows below ``node``, keyed by the moves from it
    (not by node or edge indices, which reuse renumbers): each node's statistics and bounds,
    and its list."""
    seen = {
        path: (
            int(tree.visits[b, node]),
            tuple(tree.value_sum[b, node].tolist()),
            float(tree.lower[b, node]),
            float(tree.upper[b, node]),
            bool(tree.terminal[b, node]),
            int(tree.player[b, node]),
            int(tree.state.node[b, node]),  # the explicit tree's node id: where it stands
        )
    }
    first, count = int(tree.first[b, node]), int(tree.count[b, node])
    listed = []
    for e in range(first, first + count) if first >= 0 else ():
        action = int(tree.action[b, e])
        listed.append((action, float(tree.prior[b, e]), float(tree.prob[b, e])))
        if int(tree.child[b, e]) >= 0:
            assert int(tree.parent[b, tree.child[b, e]]) == node  # links both ways
            assert int(tree.edge_in[b, tree.child[b, e]]) == e
            seen.update(walk(tree, b, int(tree.child[b, e]), (*path, action)))
    seen[(*path, "list")] = tuple(listed)
    return seen


def child_of_root(tree, b: int, action: int) -> int:
    first, count = int(tree.first[b, 0]), int(tree.count[b, 0])
    actions = tree.action[b, first : first + count].tolist()
    return int(tree.child[b, first + actions.index(action)])


def assert_compact(tree, b: int) -> None:
    """Nodes and edges used are a prefix of the pool, parents before children, and the
    rest blank (as a new tree's)."""
    n, e = int(tree.nodes[b]), int(tree.edges[b])
    parent = tree.parent[b]
    assert parent[0] == -1 and np.all(parent[1:n] >= 0) and np.all(parent[1:n] < np.arange(1, n))
    assert np.all(parent[n:] == -1) and np.all(tree.visits[b, n:] == 0)
    assert np.all(tree.first[b, n:] == -1) and np.all(tree.count[b, n:] == 0)
    assert np.all(tree.child[b, e:] == -1) and np.all(tree.action[b, e:] == -1)
    assert int(tree.count[b, :n].sum()) == e  # every list used is a kept one's


def test_descending_keeps_the_played_childs_subtree_and_its_statistics():
    game = jaxgames.make("tree", name="matey")
    roots = stack([game.init()] * 8)
    result = mcts_batch(game, roots, 40, 0, nodes=NODES)
    old = on_host(result.tree)
    played = result.moves[np.arange(8), np.argmax(result.visits, axis=1)]  # most visits
    actions = played.copy()
    actions[7] = -1  # a tree not moved stays as it is
    kept = on_host(descend(game, result, actions))
    for b in range(7):
        child = child_of_root(old, b, int(played[b]))
        before, after = walk(old, b, child), walk(kept, b)
        assert after == before, b
        assert int(kept.visits[b, 0]) == result.visits[b].max()  # the child's own visits
        assert int(kept.nodes[b]) == sum(1 for k in before if k[-1:] != ("list",))
        assert_compact(kept, b)
        assert game.format(game.step(game.init(), int(played[b]))) == game.format(
            type(game.init())(*(x[b, 0] for x in kept.state))
        )
    assert walk(kept, 7) == walk(old, 7) and int(kept.nodes[7]) == int(old.nodes[7])


def test_a_search_goes_on_from_the_kept_tree_after_each_players_move():
    tree, _ = EXAMPLES["matey"]
    game = jaxgames.make("tree", name="matey")
    roots = stack([game.init()] * 8)
    result = mcts_batch(game, roots, 300, 0, nodes=NODES)
    assert np.all(result.action == minimax_move(tree))
    line = [int(result.action[0])]
    kept = descend(game, result, result.action)
    for maximizing in (False, True):  # MIN's reply from the kept tree, then MAX's
        node = forest.subtree(tree, line)
        states = stack([game.parse(".".join(map(str, line)))] * 8)
        carried = np.asarray(kept.visits[:, 0])
        assert np.all(carried > 0)
        result = mcts_batch(game, states, 300, 1, nodes=NODES, tree=kept)
        np.testing.assert_array_equal(result.tree.visits[:, 0], carried + 300)
        np.testing.assert_array_equal(result.stats["kept_visits"], carried)
        values = [forest.minimax(c, maximizing=not maximizing) for c in node]
        best = values.index(max(values) if maximizing else min(values))
        assert np.all(result.action == best), (line, result.action, values)
        line.append(best)
        kept = descend(game, result, result.action)


def test_descending_by_a_move_never_expanded_gives_a_fresh_tree_there():
    game = jaxgames.make("tree", name="matey")
    roots = stack([game.init()] * 8)
    result = mcts_batch(game, roots, 1, 0, nodes=NODES)  # one of the root's two moves tried
    unseen = np.where(result.visits == 0, result.moves, -1).max(axis=1)
    assert np.all(unseen >= 0)
    kept = on_host(descend(game, result, unseen))
    np.testing.assert_array_equal(kept.nodes, 0)
    np.testing.assert_array_equal(kept.edges, 0)
    there = stack([game.parse(str(a)) for a in unseen])
    np.testing.assert_array_equal(kept.state.node[:, 0], there.node)
    for b in range(8):
        assert_compact(kept, b)
    # a fresh tree there searches exactly as a new search from there
    again = mcts_batch(game, there, 30, 5, nodes=NODES, tree=descend(game, result, unseen))
    new = mcts_batch(game, there, 30, 5, nodes=NODES)
    np.testing.assert_array_equal(again.visits, new.visits)
    np.testing.assert_array_equal(again.tree.visits[:, 0], 30)


def test_a_solver_keeps_its_bounds_in_a_kept_chance_tree_and_proves_it():
    rng = np.random.default_rng(5)  # the trees and budget of the solver's chance test
    kids = [random_tree(rng, 4, regular=False, zero_prob=0.2) for _ in range(24)]
    game = jaxgames.make("tree", tree={"children": kids, "player": 0})
    roots = stack([game.parse(str(i)) for i in range(len(kids))])
    result = mcts_batch(game, roots, 60, 1, solver=True, nodes=NODES)
    # the move played, or at a chance root the likeliest outcome
    likeliest = np.where(result.moves >= 0, result.prior, -1.0).argmax(axis=1)
    outcome = result.moves[np.arange(len(kids)), likeliest]
    actions = np.where(result.action >= 0, result.action, outcome)
    kept = descend(game, result, actions)
    old, new = on_host(result.tree), on_host(kept)
    below = []
    for b, (kid, a) in enumerate(zip(kids, actions, strict=True)):
        below.append(kid["chance"][a][1] if "chance" in kid else kid["children"][a])
        child = child_of_root(old, b, int(a))
        if child >= 0:  # proofs and statistics kept (a leaf child is proven by its utility)
            assert walk(new, b) == walk(old, b, child), b
            assert_compact(new, b)
        else:
            assert int(new.nodes[b]) == 0
    states = stack([game.parse(f"{b}.{a}") for b, a in enumerate(actions)])
    proved = mcts_batch(game, states, 600, 2, solver=True, nodes=NODES, tree=kept)
    assert proved.proven.all()
    np.testing.assert_allclose(proved.lower, [brute(t) for t in below], atol=1e-4)


def test_descending_keeps_a_deep_line_whole_and_drops_the_line_beside_it():
    # a hand-built tree (the search's deepest lines are shallow): two lines below the root,
    # 20 and 8 nodes deep, created interleaved, each node with the list (0, 1)
    game = jaxgames.make("tree", name="aima")
    n_max, e_max = 32, 64
    parent, edge_in = [-1], [-1]
    tips = {0: 0, 1: 0}
    for k in range(1, 29):
        line = 0 if k % 3 or len(parent) > 24 else 1  # every third node on line 1
        tip = tips[line]
        parent.append(tip)
        edge_in.append(2 * tip + (line if tip == 0 else 0))
        tips[line] = k
    n = len(parent)
    child = np.full(e_max, -1, np.int32)
    child[np.asarray(edge_in[1:])] = np.arange(1, n)
    pad = lambda x, v, size: np.asarray(list(x) + [v] * (size - len(x)), np.int32)  # noqa: E731
    tree = mcts_tree.Tree(
        state=type(game.init())(
            node=pad(range(100, 100 + n), 0, n_max), depth=np.zeros(n_max, np.int32)
        ),
        parent=pad(parent, -1, n_max),
        edge_in=pad(edge_in, -1, n_max),
        player=pad([k % 2 for k in range(n)], 0, n_max),
        terminal=np.zeros(n_max, bool),
        visits=pad([3 * k + 1 for k in range(n)], 0, n_max),
        value_sum=np.stack([np.arange(n_max), -np.arange(n_max)], axis=1).astype(np.float32),
        first=pad(range(0, 2 * n, 2), -1, n_max),
        count=pad([2] * n, 0, n_max),
        lower=np.full(n_max, -1.0, np.float32),
        upper=np.full(n_max, 1.0, np.float32),
        action=pad([0, 1] * n, -1, e_max),
        prior=np.full(e_max, 0.5, np.float32),
        prob=np.ones(e_max, np.float32),
        child=child,
        nodes=np.int32(n),
        edges=np.int32(2 * n),
    )
    old = jax.tree.map(lambda x: np.asarray(x)[None], tree)
    new = on_host(descend(game, old, [0]))
    below = walk(old, 0, child_of_root(old, 0, 0))
    assert max(len(path) for path in below) == 20  # deeper than 2^4: five doubling rounds
    assert walk(new, 0) == below
    assert int(new.nodes[0]) == n - 1 - 8 and int(new.edges[0]) == 2 * int(new.nodes[0])
    assert_compact(new, 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"nodes": 32}, "the tree has nodes=16, the search asks for 32"),
        ({"edges": 8}, "the tree has edges=40, the search asks for 8"),
        ({"batch": 3}, r"one tree per root, \[3, nodes\], got \(4, 16\)"),
        ({"moved": True}, "tree 0 is rooted elsewhere than its state"),
    ],
)
def test_a_kept_tree_of_another_search_is_a_one_line_error(options, message):
    game = jaxgames.make("tree", name="aima")
    roots = stack([game.init()] * 4)
    kept = jax.vmap(lambda s: mcts_tree.empty(game, s, 16, 40))(roots)
    states = stack([game.init()] * options.pop("batch", 4))
    if options.pop("moved", False):
        states = stack([game.parse("0")] * 4)
    with pytest.raises(GameError, match=message) as error:
        mcts_batch(game, states, 4, 0, tree=kept, **options)
    assert "\n" not in str(error.value)
    with pytest.raises(GameError, match="one int action per tree"):
        descend(game, kept, [0, 1])


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


def test_go_lists_fit_at_every_node_by_default():
    """Go's lists are mostly near their bound (82 on 9x9 from the empty board, above the 64
    edges a node gets by default in games with wider bounds): every node of a default
    tree has room for its whole list, none is left a leaf for want of edges."""
    game = jaxgames.make("go:size=9")
    result = mcts_batch(game, stack([game.init()]), 40, 0)
    tree = on_host(result.tree)
    used = int(tree.nodes[0])
    assert used == 41
    assert int(tree.count[0, 0]) == 82  # every point of the empty board, and the pass
    open_nodes = ~tree.terminal[0, :used]
    assert np.all(tree.count[0, :used][open_nodes] > 0)
