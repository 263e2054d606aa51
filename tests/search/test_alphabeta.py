"""Alpha-beta against oracles: it must return the minimax value, whatever it prunes.

Truth from outside the search:

* plain-Python minimax and textbook alpha-beta over the nested lists of explicit trees
  (tests/forest.py), and the published leaf counts of the textbook trees;
* ``minimax_batch`` (full expansion, no pruning) on uniform trees and connect four;
* the Knuth-Moore minimal tree on perfectly ordered uniform trees, ``b^d`` on worst-ordered
  ones;
* connect-four scores published with the public solver's test sets, and an independent
  pure-Python solver with that score (written here, sharing nothing with the package),
  itself checked against the published scores.

Compilation dominates the time, and the search compiles once per (game, batch size, depth,
options): so every source of positions is ONE game whose roots are batched (hundreds of
trees as hundreds of roots), with one depth per (source, option set).
"""

from __future__ import annotations

import importlib
import json
import math

import forest
import numpy as np
import pytest
from conftest import REFERENCE
from connect4_solver import PonsSolver, completes_line, play

import jaxgames
from jaxgames import kernels, search
from jaxgames.games.tree import AIMA_FIG_5_2, MATEY_NEGAMAX_4PLY
from jaxgames.search import AlphaBetaOptions, minimax_batch
from jaxgames.search.alphabeta import DEFAULTS, TUNING, defaults_for
from jaxgames.search.alphabeta.options import from_keywords, resolve

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

# ---------------------------------------------------------------------- option sets
OFF = {
    "ordering": False,
    "killers": False,
    "history": False,
    "iterative_deepening": False,
    "tt": False,
    "bounds": False,
    "last_ply": False,
}
ALL = {key: True for key in OFF}
COMBOS = {
    "off": OFF,
    "ordering": {**OFF, "ordering": True},
    "bounds": {**OFF, "bounds": True},
    "killers+history": {**OFF, "killers": True, "history": True},
    "id+tt": {**OFF, "iterative_deepening": True, "tt": True},
    "last_ply": {**OFF, "last_ply": True},
    "all": ALL,
}
"""A handful of option sets (each one compiles the search again): every option on alone or
with its usual partner, everything off, everything on."""

TREE_COMBOS = ["off", "bounds", "killers+history", "id+tt", "last_ply", "all"]
"""Trees give no move-ordering hint, so there ``ordering`` alone would search like "off".
Their value bounds (the extremes below each node) make "bounds" cut often, also right at
the opening of a node whose window lies outside them."""

ATOL = 1e-6
"""Values are compared to this absolute tolerance: EVAL computed inside the search loop and
inside minimax's kernels may round differently in the last bit (integer-valued trees and
game results compare exactly anyway)."""

EXAMPLES = {"4455": 18, "44455554221": -15}
"""The worked examples of the public connect-four solvers' score (for the player to move)."""

TEXTBOOK = {  # name -> (tree, published results)
    "aima": (AIMA_FIG_5_2, "aima_fig_5_2"),
    "matey": (MATEY_NEGAMAX_4PLY, "matey_negamax_4ply"),
}


def search_options(options: dict) -> AlphaBetaOptions:
    """The option set as the search's options type (``ordering`` is its ``hint``)."""
    out = dict(options)
    out["hint"] = out.pop("ordering", None)
    return AlphaBetaOptions(**out)


def leaves_per_root(result) -> np.ndarray:
    """``stats["leaves"]`` per root (or ``stats["leaves_per_root"]`` while ``leaves`` is a
    total), as int64[N]."""
    leaves = result.stats["leaves"]
    if np.ndim(leaves) == 0 and "leaves_per_root" in result.stats:
        leaves = result.stats["leaves_per_root"]
    return np.asarray(leaves)


def alphabeta_batch(game, roots, depth, options):
    """The search under test, with the shape of its result checked."""
    result = search.alphabeta_batch(game, roots, depth, search_options(options))
    n = kernels.batch_size(roots)
    assert result.value.shape == (n, game.num_players) and result.value.dtype == np.float32
    assert result.best_action.shape == (n,) and np.issubdtype(result.best_action.dtype, np.integer)
    assert result.pv.ndim == 2 and result.pv.shape[0] == n
    assert result.nodes.shape == (n,) and result.nodes.dtype == np.int64
    leaves = leaves_per_root(result)
    assert leaves.shape == (n,) and np.issubdtype(leaves.dtype, np.integer)
    assert (leaves <= result.nodes).all()
    if options.get("bounds") is False:  # with bounds a value may be known with no leaf seen
        assert (leaves >= 1).all()
    return result


def check_moves(game, roots, result, action_values):
    """The best move is legal and keeps the root's value (ties allowed), the PV starts with
    it, and a terminal root has no move.

    ``action_values[i, a]``: the exact value of root ``i``'s action ``a`` for the player to
    move at root ``i`` (NaN where illegal)."""
    terminal = np.asarray(kernels.batched(game).terminal(roots))
    mover = np.asarray(kernels.batched(game).player(roots))
    for i in range(len(mover)):
        a = int(result.best_action[i])
        if terminal[i]:
            assert a == -1, f"root {i} is terminal but has best move {a}"
            continue
        assert 0 <= a < game.num_actions and not np.isnan(action_values[i, a]), (i, a)
        assert abs(action_values[i, a] - result.value[i, mover[i]]) <= ATOL, (
            f"root {i}: move {a} is worth {action_values[i, a]}, the root "
            f"{result.value[i, mover[i]]}"
        )
        assert result.pv[i, 0] == a, (i, result.pv[i].tolist(), a)


def minimax_reference(game, roots, depth):
    """``minimax_batch`` values of the roots, and of every legal root action (``[N, A]`` for
    the root's mover, NaN where illegal), from one expansion of the children."""
    value = minimax_batch(game, roots, depth).value
    b = kernels.batched(game)
    legal = np.asarray(b.legal_mask(roots))
    mover = np.asarray(b.player(roots))
    parent, action = np.nonzero(legal)
    children = b.step(kernels.take(kernels.to_numpy(roots), parent), action.astype(np.int32))
    child_value = minimax_batch(game, kernels.to_numpy(children), depth - 1).value
    action_values = np.full(legal.shape, np.nan, np.float32)
    action_values[parent, action] = child_value[np.arange(len(parent)), mover[parent]]
    # the reference agrees with itself: each root's value is its best action's
    inner = legal.any(axis=1)
    best = np.nanmax(np.where(legal, action_values, -np.inf), axis=1)
    assert np.array_equal(best[inner], value[inner, mover[inner]])
    return value, action_values


# ---------------------------------------------------------------------- textbook trees
TREES = json.loads((REFERENCE / "textbook_trees.json").read_text())


@pytest.mark.parametrize("name", list(TEXTBOOK))
def test_textbook_trees(name):
    """The built-in trees with every option off: value, best move, and the published number
    of leaves textbook alpha-beta evaluates. (The same trees head the forest below, where
    every option set searches them.)"""
    tree, key = TEXTBOOK[name]
    ref = TREES[key]
    game = jaxgames.make("tree", name=name)
    roots = kernels.stack([game.init()])
    result = alphabeta_batch(game, roots, forest.tree_depth(tree), OFF)
    assert result.value[0].tolist() == [ref["alphabeta_root"], -ref["alphabeta_root"]]
    assert result.value[0, 0] == forest.minimax(tree)
    values = np.array([forest.minimax(child, maximizing=False) for child in tree], np.float32)
    check_moves(game, roots, result, values[None])
    leaves = int(leaves_per_root(result)[0])  # the published count of textbook alpha-beta
    assert leaves == forest.alphabeta_leaves(tree)
    if name == "aima":  # 9 leaves, 2 pruned
        assert leaves == 9 - ref["alphabeta_leaves_pruned"] == 7
    else:  # 8 of 20
        assert (leaves, ref["leaves_total"]) == (ref["alphabeta_leaves_evaluated"], 20) == (8, 20)


def leaf_paths(node, path=()):
    """The paths to the leaves of a nested-list tree, left to right."""
    if not isinstance(node, list):
        return [path]
    return [p for i, child in enumerate(node) for p in leaf_paths(child, (*path, i))]


def with_leaf(node, path, value):
    """A copy of the tree with the leaf at ``path`` replaced by ``value``."""
    if not path:
        return value
    return [with_leaf(c, path[1:], value) if i == path[0] else c for i, c in enumerate(node)]


def test_aima_figure_5_2_prunes_exactly_the_4_and_the_6():
    """Which leaves alpha-beta reads on AIMA's figure 5.2 (the worked exercise of figure
    5.5), seen from outside. A leaf it prunes can be set to anything (+-100, beyond every
    other leaf) without changing any part of the result (value, best move, PV, nodes,
    leaves). Here each of the 7 leaves that textbook alpha-beta reads does change something
    under one of the two, so 7 distinct leaves are seen read; with 7 leaves evaluated in
    all, those are exactly the ones read, and the 2 pruned are C's 4 and 6."""
    tree, ref = AIMA_FIG_5_2, TREES["aima_fig_5_2"]
    paths = leaf_paths(tree)
    trees = [tree]
    for path in paths:
        trees += [with_leaf(tree, path, 100), with_leaf(tree, path, -100)]
    packed = forest.pack(trees)
    result = alphabeta_batch(packed.game, packed.roots, packed.depth, OFF)
    leaves = leaves_per_root(result)

    def outcome(i):
        pv = tuple(result.pv[i].tolist())
        return result.value[i].tolist(), int(result.best_action[i]), pv, result.nodes[i], leaves[i]

    read = [
        p
        for k, p in enumerate(paths)
        if outcome(1 + 2 * k) != outcome(0) or outcome(2 + 2 * k) != outcome(0)
    ]
    assert leaves[0] == len(paths) - ref["alphabeta_leaves_pruned"] == len(read) == 7
    assert read == [tuple(p) for p in ref["alphabeta_leaf_paths_evaluated"]]
    assert [forest.subtree(tree, p) for p in read] == ref["alphabeta_leaves_evaluated_in_order"]
    pruned = [p for p in paths if p not in read]
    assert pruned == [(1, 1), (1, 2)] and [forest.subtree(tree, p) for p in pruned] == [4, 6]


def test_single_root_alphabeta_on_aima_figure_5_2():
    game = jaxgames.make("tree", name="aima")
    result = search.alphabeta(game, game.init(), 2, options=search_options(OFF))
    assert isinstance(result, search.SearchResult)
    assert result.value.tolist() == [3, -3] and result.best_action == 0
    assert [int(a) for a in result.pv][:2] == [0, 0]  # a1, then MIN answers b1 (3)
    assert int(np.sum(result.stats["leaves"])) == 7


# ---------------------------------------------------------------------- explicit random trees
@pytest.fixture(scope="module")
def woods():
    """AIMA's and the 4-ply tree, then 254 random trees (mixed branching 1-4, depth 1-5,
    leaves in -9..9 so ties abound), all in one forest game."""
    trees = [AIMA_FIG_5_2, MATEY_NEGAMAX_4PLY, *forest.random_trees(254, seed=1)]
    packed = forest.pack(trees)
    values = np.array([forest.minimax(t) for t in trees], np.float32)
    action_values = np.full((len(trees), packed.game.num_actions), np.nan, np.float32)
    for i, t in enumerate(trees):
        for a, child in enumerate(t):
            action_values[i, a] = forest.minimax(child, maximizing=False)
    return packed, values, action_values


@pytest.mark.parametrize("combo", TREE_COMBOS)
def test_random_explicit_trees(woods, combo):
    packed, values, action_values = woods
    game = packed.game
    result = alphabeta_batch(game, packed.roots, packed.depth, COMBOS[combo])
    np.testing.assert_array_equal(result.value[:, 0], values)
    np.testing.assert_array_equal(result.value[:, 1], -values)
    check_moves(game, packed.roots, result, action_values)
    for i, tree in enumerate(packed.trees):  # every PV step is legal and keeps the value
        line = [int(a) for a in result.pv[i] if a >= 0]
        assert (result.pv[i, len(line) :] == -1).all(), (i, result.pv[i].tolist())
        for k in range(1, len(line) + 1):
            node = forest.subtree(tree, line[:k])
            assert node is not None, (i, line)
            assert forest.minimax(node, maximizing=k % 2 == 0) == values[i], (i, line[:k])
    if combo == "off":  # exactly textbook alpha-beta's leaves, root window unbounded or
        # the game's utility bounds
        leaves = np.asarray(leaves_per_root(result))
        assert leaves[:2].tolist() == [7, 8]  # AIMA's tree, the 4-ply tree
        for i, tree in enumerate(packed.trees):
            plain = forest.alphabeta_leaves(tree)
            bounded = forest.alphabeta_leaves(tree, game.utility_min, game.utility_max)
            assert leaves[i] in (plain, bounded), (i, leaves[i], plain, bounded)


@pytest.mark.parametrize("combo", ["off", "all"])
def test_root_windows_are_fail_soft_on_explicit_trees(woods, combo):
    """One window per root, drawn at random around the minimax value (below it, above it,
    straddling it, touching it): inside the window the value is exact; at or below alpha it
    is an upper bound on the true value, at or above beta a lower bound (Knuth and Moore's
    fail-soft), and ``stats["bound"]`` says which. With a fixed move order (no TT, killers or
    history), a narrower window visits a subset of the leaves of a wider one."""
    packed, values, _ = woods
    rng = np.random.default_rng(5)
    n = len(values)
    alpha = values + rng.integers(-4, 4, n) - rng.choice([0.0, 0.5], n)
    beta = alpha + rng.integers(1, 5, n)
    alpha[:8], beta[:8] = -np.inf, np.inf  # no window at all
    options = search_options(COMBOS[combo])
    game, roots, depth = packed.game, packed.roots, packed.depth
    result = search.alphabeta_batch(game, roots, depth, options, window=(alpha, beta))
    got, bound = result.value[:, 0], result.stats["bound"]
    low, high = values <= alpha, values >= beta
    assert low.sum() > 20 and high.sum() > 20 and (~low & ~high).sum() > 20  # all three cases
    np.testing.assert_array_equal(bound, np.where(low, -1, np.where(high, 1, 0)))
    np.testing.assert_array_equal(got[~low & ~high], values[~low & ~high])
    assert (values[low] <= got[low]).all() and (got[low] <= alpha[low]).all()
    assert (beta[high] <= got[high]).all() and (got[high] <= values[high]).all()
    if combo == "off":
        full = search.alphabeta_batch(game, roots, depth, options)
        np.testing.assert_array_equal(full.value[:, 0], values)
        assert (full.stats["bound"] == 0).all()
        narrow, wide = leaves_per_root(result), leaves_per_root(full)
        assert (narrow <= wide).all() and narrow.sum() < wide.sum()
        # and the bounds are fail-soft, not clamped to the window
        assert (got[low] < alpha[low]).any() and (got[high] > beta[high]).any()


@pytest.mark.parametrize(
    "window",
    [(1.0, 0.0), (0.0, float("nan")), ([0.0, 0.0, 0.0], 1.0), "wide", (0.0,)],
)
def test_bad_windows_are_refused_before_any_search(window):
    game = jaxgames.make("tictactoe")
    roots = kernels.stack([game.init()] * 2)
    with pytest.raises(jaxgames.GameError, match="alphabeta: window"):
        search.alphabeta_batch(game, roots, 2, window=window)


def test_a_window_runs_the_device_search_only():
    game = jaxgames.make("tictactoe")
    with pytest.raises(jaxgames.GameError, match="window needs mode='device'"):
        search.alphabeta(game, game.init(), 6, mode="host", window=(-0.5, 0.5))


# ---------------------------------------------------------------------- uniform trees
UNIFORM = {  # name -> (game parameters, option sets)
    "b3d4": (
        {"branching": 3, "depth": 4, "value_range": 1000},
        # every option set alone runs on the explicit trees (and connect four): here, all on
        ["all"],
    ),
    "b2d6": ({"branching": 2, "depth": 6, "value_range": 2}, ["all"]),  # ties everywhere
    "b4d3": ({"branching": 4, "depth": 3, "value_range": 5}, ["all"]),
}
UNIFORM_ROOTS = 128


@pytest.fixture(scope="module")
def uniform_references():
    cache = {}

    def get(name):
        if name not in cache:
            params = UNIFORM[name][0]
            game = jaxgames.make("uniform_tree", ordering="random", **params)
            roots = game.roots(range(1000, 1000 + UNIFORM_ROOTS))
            cache[name] = (game, roots, *minimax_reference(game, roots, params["depth"]))
        return cache[name]

    return get


@pytest.mark.parametrize(
    "name, combo", [(name, combo) for name, (_, combos) in UNIFORM.items() for combo in combos]
)
def test_random_uniform_trees(uniform_references, name, combo):
    game, roots, value, action_values = uniform_references(name)
    result = alphabeta_batch(game, roots, game.depth, COMBOS[combo])
    np.testing.assert_array_equal(result.value, value)  # integers: exact
    check_moves(game, roots, result, action_values)
    if combo == "off":
        b, d = game.branching, game.depth
        minimal = b ** math.ceil(d / 2) + b ** (d // 2) - 1
        leaves = np.asarray(leaves_per_root(result))
        assert (leaves >= minimal).all() and (leaves <= b**d).all()


# ---------------------------------------------------------------------- Knuth & Moore
@pytest.mark.parametrize(
    "ordering, b, d", [("best", 2, 6), ("best", 3, 4), ("best", 4, 3), ("worst", 3, 4)]
)
def test_knuth_moore_leaf_counts(ordering, b, d):
    """With every reordering off, alpha-beta evaluates exactly the minimal tree
    ``b^ceil(d/2) + b^floor(d/2) - 1`` on perfectly ordered trees and all ``b^d`` leaves on
    worst-ordered ones, on every one of many trees."""
    game = jaxgames.make("uniform_tree", branching=b, depth=d, ordering=ordering)
    roots = game.roots(range(32))
    result = alphabeta_batch(game, roots, d, OFF)
    expected = b ** math.ceil(d / 2) + b ** (d // 2) - 1 if ordering == "best" else b**d
    np.testing.assert_array_equal(leaves_per_root(result), np.full(32, expected))
    # the value is the one the construction put at the root: m for MAX to move
    np.testing.assert_array_equal(result.value[:, 0], roots.value.astype(np.float32))
    if ordering == "best":
        np.testing.assert_array_equal(result.pv[:, :d], np.zeros((32, d), np.int32))
    else:
        np.testing.assert_array_equal(result.best_action, np.full(32, b - 1))


# ---------------------------------------------------------------------- option defaults
def test_ordering_defaults_come_from_the_tuning_table_and_yield_to_the_caller():
    tree, connect4 = jaxgames.make("tree", name="aima"), jaxgames.make("connect4")
    assert defaults_for(tree) == DEFAULTS
    tuned = defaults_for(connect4)
    assert tuned == {**DEFAULTS, **TUNING["connect4"]} and tuned["tt_min_depth"] == 8

    def ran(depth, **keywords):  # what a search with these options runs, without compiling one
        return resolve(connect4, depth, from_keywords(None, keywords)).summary

    for depth, table in ((2, False), (8, True)):  # the tuned rule: the table from depth 8
        assert ran(depth)["tt"] is table
        assert ran(depth)["hint"] and ran(depth)["last_ply"]
        assert not (ran(depth)["killers"] or ran(depth)["history"])
    given = ran(2, killers=True, lanes=64)
    assert given["killers"] is True and given["lanes"] == 64
    assert ran(2, hint=False)["hint"] is False
    # and a search reports the options it resolved
    roots = kernels.stack([connect4.init()])
    assert search.alphabeta_batch(connect4, roots, 2).stats["ordering"] == ran(2)
    with pytest.raises(jaxgames.GameError, match="unknown option 'killer'"):
        search.alphabeta_batch(connect4, roots, 2, killer=False)
    with pytest.raises(jaxgames.GameError, match="lanes must be >= 1, got 0"):
        search.alphabeta_batch(connect4, roots, 2, lanes=0)
    with pytest.raises(jaxgames.GameError, match="lookahead_depth must be >= 0, got -1"):
        search.alphabeta_batch(connect4, roots, 2, lookahead_depth=-1)


def test_iterative_deepening_without_a_queue_is_a_rule_of_the_batch(monkeypatch):
    """A "without_queue" default is on where every root has a lane of its own on its device,
    off where roots wait for one; the caller's choice wins either way."""
    game = jaxgames.make("connect4")
    tuning = {"connect4": {"iterative_deepening": "without_queue", "lanes": 16}}
    monkeypatch.setattr(
        importlib.import_module("jaxgames.search.alphabeta.options"), "TUNING", tuning
    )

    def iterative(roots_per_device, **keywords):
        options = from_keywords(None, keywords)
        return resolve(game, 4, options, roots_per_device=roots_per_device).iterative_deepening

    assert iterative(1) and iterative(16) and not iterative(17)
    assert iterative(17, lanes=32)  # 17 roots fit 32 lanes: no queue
    assert iterative(17, iterative_deepening=True) and not iterative(16, iterative_deepening=False)


# ---------------------------------------------------------------------- connect four, depth-limited
def random_positions(count: int, seed: int, low: int, high: int, width=7, height=6) -> list[str]:
    """Move strings of ``low..high`` stones reached by random play that never ends the game:
    no move that completes a line (plain Python; the game is left unfinished)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        target = int(rng.integers(low, high + 1))
        cols = ((),) * width
        moves = ""
        while len(moves) < target:
            me = len(moves) % 2
            quiet = [
                c
                for c in range(width)
                if len(cols[c]) < height and not completes_line(play(cols, c, me), c, width)
            ]
            if not quiet:
                break
            c = int(rng.choice(quiet))
            cols = play(cols, c, me)
            moves += str(c + 1)
        if len(moves) == target and target < width * height:
            out.append(moves)
    return out


def quiet_move(moves: str, width: int = 7, height: int = 6) -> str:
    """A legal column after ``moves`` that completes no line (the centre first), as a digit."""
    cols = PonsSolver.columns(moves, width)
    for c in sorted(range(width), key=lambda c: abs(2 * c - (width - 1))):
        if len(cols[c]) < height and not completes_line(play(cols, c, len(moves) % 2), c, width):
            return str(c + 1)
    raise ValueError(f"no quiet move after {moves}")


@pytest.fixture(scope="module")
def connect4_depth_limited():
    """32 roots: 21 positions of 4-24 stones reached by random play, 8 of their children
    (transpositions between roots at different depths), the two worked examples of the
    score's definition, and a finished game (terminal root)."""
    game = jaxgames.make("connect4")
    moves = random_positions(21, seed=11, low=4, high=24)
    moves += [m + quiet_move(m) for m in moves[:8]]
    moves += [*EXAMPLES, "4455667"]  # x has won
    assert len(moves) == 32
    roots = kernels.stack([game.parse(m) for m in moves])
    refs = {d: minimax_reference(game, roots, d) for d in (4, 5)}
    return game, roots, refs


C4_DEPTHS = {
    "off": 4,
    "ordering": 5,
    "bounds": 4,
    "killers+history": 5,
    "id+tt": 4,
    "last_ply": 5,
    "all": 5,
}


# each option set alone runs on the explicit trees; a real game adds its ordering hint
@pytest.mark.parametrize("combo", ["off", "ordering", "all"])
def test_connect4_depth_limited_equals_minimax(connect4_depth_limited, combo):
    game, roots, refs = connect4_depth_limited
    depth = C4_DEPTHS[combo]
    value, action_values = refs[depth]
    result = alphabeta_batch(game, roots, depth, COMBOS[combo])
    np.testing.assert_allclose(result.value, value, rtol=0, atol=ATOL)
    check_moves(game, roots, result, action_values)
    # The worked examples are decided within 3 plies, and a shallow search already gives
    # their exact scores: "4455" reaches the utility's maximum (18, no score is higher),
    # and in "44455554221" every o move lets x win with the next stone (no win is sooner).
    for i, (moves, score) in enumerate(EXAMPLES.items(), start=29):
        assert game.score_from_value(result.value[i, len(moves) % 2]) == score, moves


# ---------------------------------------------------------------------- connect four, exact
PONS = [
    line.split()
    for line in (REFERENCE / "connect4_pons" / "Test_L3_R1").read_text().split("\n")
    if line
]


def pons_sample() -> list[tuple[str, int]]:
    """20 published late-game lines: the first two of each length 32..41 stones."""
    out = []
    for stones in range(32, 42):
        out += [(m, int(s)) for m, s in PONS if len(m) == stones][:2]
    return out


@pytest.mark.parametrize(
    "moves",
    ["4455", "44455554221"],
)
def test_worked_examples_searched_to_the_end(moves):
    """The two worked examples searched to the end of the game (depth = empty cells)."""
    game = jaxgames.make("connect4")
    roots = kernels.stack([game.parse(moves)])
    result = alphabeta_batch(game, roots, game.cells - len(moves), ALL)
    assert game.score_from_value(result.value[0, len(moves) % 2]) == EXAMPLES[moves]
    if moves == "4455":
        assert result.best_action[0] in (2, 5)  # the open three: columns 3 or 6


@pytest.fixture(scope="module")
def late_positions():
    """20 published lines (32-41 stones) and 12 random positions of 30-34 stones, the
    latter scored by the independent solver."""
    published = pons_sample()
    random_lines = random_positions(12, seed=7, low=30, high=34)
    solver = PonsSolver()  # checked against the published scores below
    lines = published + [(m, solver.score(m)) for m in random_lines]
    game = jaxgames.make("connect4")
    roots = kernels.stack([game.parse(m) for m, _ in lines])
    depth = game.cells - min(len(m) for m, _ in lines)
    return game, roots, depth, lines


def test_exact_scores_of_late_positions(late_positions):
    """Searched to the end with every option on (the TT then sees many transpositions)."""
    game, roots, depth, lines = late_positions
    result = alphabeta_batch(game, roots, depth, ALL)
    solver = PonsSolver()
    for i, (moves, score) in enumerate(lines):
        mover = len(moves) % 2
        assert game.score_from_value(result.value[i, mover]) == score, moves
        # the best move keeps the score: after it the opponent's score is the negation
        a = int(result.best_action[i])
        assert 0 <= a < game.width and moves.count(str(a + 1)) < game.height, (moves, a)
        if not PonsSolver.ends(moves, a):
            assert solver.score(moves + str(a + 1)) == -score, (moves, a)
        else:  # a winning stone now, or the last cell filled without a line
            cols = PonsSolver.columns(moves)
            wins_now = completes_line(play(cols, a, mover), a, game.width)
            assert score == ((game.cells + 1 - len(moves)) // 2 if wins_now else 0), (moves, a)


def test_connect4_searched_to_the_end_solves_by_null_windows_by_default(late_positions):
    """Default options: connect four searched to every end runs the solver (null-window
    tests) and returns the exact scores; a shallower search, a root window or an explicit
    ``solver=False`` keeps the plain search."""
    from jaxgames.search.alphabeta import AlphaBetaOptions
    from jaxgames.search.alphabeta.options import resolve

    game, roots, depth, lines = late_positions
    result = search.alphabeta_batch(game, roots, depth)
    assert result.stats["ordering"]["solver"]
    for i, (moves, score) in enumerate(lines):
        assert game.score_from_value(result.value[i, len(moves) % 2]) == score, moves
    plain = AlphaBetaOptions()
    assert resolve(game, depth, plain, reaches_end=True).solver
    assert not resolve(game, 4, plain, reaches_end=False).solver
    assert not resolve(game, depth, plain, reaches_end=True, windowed=True).solver
    assert not resolve(game, depth, plain.replace(solver=False), reaches_end=True).solver
    assert not resolve(jaxgames.make("othello"), 60, plain, reaches_end=True).solver


def test_othello_orders_fastest_first_without_deepening_only_where_it_reaches_the_end():
    """The per-game defaults that depend on reaching the end: Othello's exact endgames look
    ahead (fastest first) without iterative deepening, with the table; its midgame searches
    keep deepening and history, without the table; what the caller sets wins."""
    from jaxgames.search.alphabeta import AlphaBetaOptions
    from jaxgames.search.alphabeta.options import resolve

    game, plain = jaxgames.make("othello"), AlphaBetaOptions()
    end = resolve(game, 24, plain, reaches_end=True)
    assert end.config.lookahead and not end.iterative_deepening
    assert not (end.config.killers or end.config.history)  # the look-ahead orders alone
    assert end.config.tt_bits  # the table in exact endgames only
    middle = resolve(game, 4, plain, reaches_end=False)
    assert not middle.config.lookahead and middle.iterative_deepening and middle.config.history
    assert not middle.config.tt_bits
    assert resolve(game, 4, plain.replace(tt=True), reaches_end=False).config.tt_bits
    asked = plain.replace(lookahead=False, iterative_deepening=True)
    kept = resolve(game, 24, asked, reaches_end=True)
    assert not kept.config.lookahead and kept.iterative_deepening
    assert not resolve(jaxgames.make("connect4"), 24, plain, reaches_end=True).config.lookahead


def test_a_null_window_decides_win_draw_or_loss():
    """The null window (-eps, eps) around a draw decides each published late-game line
    without its exact score: a win comes back as a lower bound of at least the smallest win,
    a loss as an upper bound, a draw as exactly 0."""
    game = jaxgames.make("connect4")
    lines = PONS[200:264]
    roots = kernels.stack([game.parse(m) for m, _ in lines])
    depth = game.cells - min(len(m) for m, _ in lines)
    eps = 1e-6
    result = search.alphabeta_batch(game, roots, depth, window=(-eps, eps))
    score = np.array([int(s) for _, s in lines])
    got = np.array([result.value[i, len(m) % 2] for i, (m, _) in enumerate(lines)])
    assert len(set(np.sign(score))) == 3  # wins, draws and losses among them
    np.testing.assert_array_equal(result.stats["bound"], np.sign(score))
    smallest_win = 1 / game.max_score
    assert (got[score > 0] >= smallest_win).all() and (got[score < 0] <= -smallest_win).all()
    assert (got[score == 0] == 0).all()
    full = search.alphabeta_batch(game, roots, depth)  # the exact scores, at a price
    assert result.stats["nodes"] < full.stats["nodes"]


def test_shrinking_lanes_keep_every_published_score():
    """A wide search whose busy lanes are compacted into narrower loops as the queue runs
    dry (phases of 128, 32 and 8 lanes): 160 published late-game lines of very unequal
    search sizes, so lanes are refilled, then moved twice mid-search; every root's score
    must still be its own published one."""
    game = jaxgames.make("connect4")
    lines = PONS[:160]
    roots = kernels.stack([game.parse(m) for m, _ in lines])
    depth = game.cells - min(len(m) for m, _ in lines)
    result = search.alphabeta_batch(game, roots, depth, lanes=128, shrink=4)
    assert result.stats["lane_phases"] == [128, 32, 8]
    nodes = result.nodes
    assert nodes.max() > 20 * np.median(nodes)  # the unequal sizes that make lanes move
    got = [game.score_from_value(result.value[i, len(m) % 2]) for i, (m, _) in enumerate(lines)]
    assert got == [int(s) for _, s in lines]


# ---------------------------------------------------------------------- the independent solver
def test_independent_solver_agrees_with_the_published_scores():
    """The oracle itself, on every line of the late-game set and a hundred middle-game
    lines, and on the two worked examples of the score's definition."""
    solver = PonsSolver()
    assert solver.score("44455554221") == -15
    cols = PonsSolver.columns("4455")  # 18 = more than 17 and not more than 18
    assert solver.negamax(cols, 4, 17, 18) > 17 and solver.negamax(cols, 4, 18, 19) <= 18
    middle = (REFERENCE / "connect4_pons" / "Test_L2_R1").read_text().split("\n")[:100]
    lines = PONS + [line.split() for line in middle]
    wrong = [(m, s, solver.score(m)) for m, s in lines if solver.score(m) != int(s)]
    assert not wrong and len(lines) == 1100
