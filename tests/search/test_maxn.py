"""maxⁿ, shallow pruning, paranoid search and separate evaluation functions, against
published trees and plain-Python recursion written here.

Most random-tree tests run on :class:`TableTrees`, a test game whose tree travels in the
state as tables, so every tree (hypothesis's included) is a root of ONE game and one compiled
search serves them all (a new explicit-tree game would compile every kernel again).
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np
import pytest
from conftest import REFERENCE
from forest import alphabeta_leaves
from forest import minimax as forest_minimax
from hypothesis import given, settings
from hypothesis import strategies as st
from jaxgames.kernels import stack

import jaxgames
from jaxgames import GameError
from jaxgames.game import Game
from jaxgames.games.tree import AIMA_FIG_5_4_THREE_PLAYER
from jaxgames.search import (
    maxn,
    maxn_batch,
    minimax,
    minimax_batch,
    paranoid,
    paranoid_batch,
)

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

TREES = json.loads((REFERENCE / "textbook_trees.json").read_text())
N = 3  # players of the random trees
TOTAL = 10  # their leaves: N non-negative integers summing to at most TOTAL
WIDTH, MAX_NODES, DEPTH, BATCH = 3, 40, 6, 512


# ---------------------------------------------------------------- the test game
class TableState(NamedTuple):
    children: Any  # int32[M, W]: child node ids, -1 for none (a node without any: a leaf)
    leaf: Any  # float32[M, N]: utility vectors of the leaves
    node: Any  # int32[]
    depth: Any  # int32[]: the mover is depth % N


class TableTrees(Game):
    """Trees of at most MAX_NODES nodes and WIDTH children, given as tables in the state.

    Static facts: every component >= 0 and their sum <= TOTAL (what shallow pruning needs).
    """

    name = "table_trees"
    num_players = N
    num_actions = WIDTH
    utility_min = 0.0
    utility_max = float(TOTAL)
    utility_sum_max = float(TOTAL)
    zero_sum = False
    max_game_length = MAX_NODES

    def init(self):
        return encode((0,) * N)

    def player(self, s):
        return (s.depth % N).astype(jnp.int32)

    def legal_mask(self, s):
        return s.children[s.node] >= 0

    def step(self, s, a):
        child = s.children[s.node, jnp.clip(a, 0, WIDTH - 1)]
        ok = child >= 0
        return s._replace(node=jnp.where(ok, child, s.node), depth=s.depth + ok)

    def terminal(self, s):
        return ~jnp.any(s.children[s.node] >= 0)

    def utility(self, s):
        return s.leaf[s.node]


GAME = TableTrees()


def encode(tree) -> TableState:
    """A nested-list tree (leaves: tuples of N numbers) as tables, nodes in preorder."""
    children = np.full((MAX_NODES, WIDTH), -1, np.int32)
    leaf = np.zeros((MAX_NODES, N), np.float32)
    count = [0]

    def add(x) -> int:
        i = count[0]
        count[0] += 1
        if isinstance(x, tuple):
            leaf[i] = x
        else:
            for a, c in enumerate(x):
                children[i, a] = add(c)
        return i

    add(tree)
    assert count[0] <= MAX_NODES
    return TableState(children, leaf, np.int32(0), np.int32(0))


def batch(trees: list) -> Any:
    """The trees' roots, padded to BATCH with one-leaf trees (one compiled shape for all)."""
    assert len(trees) <= BATCH
    return stack([encode(t) for t in trees] + [encode((0,) * N)] * (BATCH - len(trees)))


# ---------------------------------------------------------------- plain-Python oracles
def is_leaf(x) -> bool:
    return isinstance(x, tuple)


def plain_maxn(x, depth: int = 0, n: int = N):
    """maxⁿ: the mover (depth % n) takes the child best for it, the first among ties."""
    if is_leaf(x):
        return x
    values = [plain_maxn(c, depth + 1, n) for c in x]
    mover = depth % n
    return max(values, key=lambda v: v[mover])  # max() keeps the first maximum


def shallow_maxn(x, low=0.0, total=TOTAL, n=N, immediate=True):
    """Korf's shallow (and immediate) pruning, written out: (value, leaves visited)."""
    count = [0]
    own_max = min(TOTAL, total - (n - 1) * low)

    def search(x, depth, bound, parent_mover):
        if is_leaf(x):
            count[0] += 1
            return x
        mover = depth % n
        held = bound is not None and parent_mover != mover
        threshold = total - (n - 2) * low - bound if held else math.inf
        best = None
        for c in x:
            v = search(c, depth + 1, None if best is None else best[mover], mover)
            if best is None or v[mover] > best[mover]:
                best = v
            if best[mover] >= threshold or (immediate and best[mover] >= own_max):
                break
        return best

    return search(x, 0, None, None), count[0]


def plain_paranoid(x, root: int = 0, depth: int = 0, n: int = N):
    """The root player maximises its component, every other player minimises it."""
    if is_leaf(x):
        return x
    values = [plain_paranoid(c, root, depth + 1, n) for c in x]
    sign = 1 if depth % n == root else -1
    return max(values, key=lambda v: sign * v[root])


def deep_pruned_maxn(x, total=TOTAL, n=N):
    """maxⁿ with alpha-beta's DEEP pruning transplanted (wrong, kept to show why): a node
    stops as soon as its mover's value leaves ANY ancestor's mover less than that ancestor
    already holds."""

    def search(x, depth, held):  # held: {player: best value an ancestor of it holds}
        if is_leaf(x):
            return x
        mover = depth % n
        best = None
        for c in x:
            mine = dict(held)
            if best is not None:
                mine[mover] = max(mine.get(mover, -math.inf), best[mover])
            v = search(c, depth + 1, mine)
            if best is None or v[mover] > best[mover]:
                best = v
            if any(p != mover and total - best[mover] <= h for p, h in held.items()):
                break
        return best

    return search(x, 0, {})


# ---------------------------------------------------------------- random trees
def random_composition(rng: np.random.Generator) -> tuple:
    """N non-negative integers summing to TOTAL (mostly) or less: ties and cut-offs common."""
    cuts = np.sort(rng.integers(0, TOTAL + 1, N - 1))
    parts = np.diff(np.r_[0, cuts, TOTAL])
    if rng.random() < 0.2:  # some leaves below the bound
        k = rng.integers(N)
        parts[k] = max(0, parts[k] - rng.integers(1, 3))
    return tuple(float(p) for p in parts)


def random_tree(rng: np.random.Generator, depth: int):
    """At most ``depth`` plies, 1..WIDTH children, small enough for MAX_NODES."""
    nodes = [0]

    def grow(level):
        nodes[0] += 1
        if level == depth or (level > 0 and rng.random() < 0.2) or nodes[0] > MAX_NODES - 8:
            return random_composition(rng)
        return [grow(level + 1) for _ in range(int(rng.integers(1, WIDTH + 1)))]

    while True:
        nodes[0] = 0
        tree = grow(0)
        if not is_leaf(tree) and nodes[0] <= MAX_NODES:
            return tree


@functools.cache
def random_forest(count: int = 2048, seed: int = 7) -> list:
    rng = np.random.default_rng(seed)
    return [random_tree(rng, int(rng.integers(2, 6))) for _ in range(count)]


def leaf_vector():
    """N non-negative integers summing to at most TOTAL (drawn one after another)."""

    def rest(prefix: tuple, left: int):
        if len(prefix) == N:
            return st.just(tuple(float(c) for c in prefix))
        return st.integers(0, left).flatmap(lambda c: rest((*prefix, c), left - c))

    return rest((), TOTAL)


subtree_strategy = st.recursive(
    leaf_vector(), lambda sub: st.lists(sub, min_size=2, max_size=WIDTH), max_leaves=6
)
trees_strategy = st.lists(subtree_strategy, min_size=1, max_size=WIDTH)


def count_nodes(x) -> int:
    return 1 if is_leaf(x) else 1 + sum(count_nodes(c) for c in x)


def depth_of(x) -> int:
    return 0 if is_leaf(x) else 1 + max(depth_of(c) for c in x)


def check_against_oracles(trees: list) -> dict:
    """Every pruning against plain-Python maxⁿ / paranoid; returns total counts."""
    roots = batch(trees)
    k = len(trees)
    plain = maxn_batch(GAME, roots, DEPTH, pruning="none")
    shallow = maxn_batch(GAME, roots, DEPTH, pruning="shallow")
    para = paranoid_batch(GAME, roots, DEPTH)
    for i, tree in enumerate(trees):
        expect = plain_maxn(tree)
        want, leaves = shallow_maxn(tree)
        assert want == expect
        assert tuple(plain.value[i]) == expect, (i, tree)
        assert tuple(shallow.value[i]) == expect, (i, tree)
        assert plain.best_action[i] == shallow.best_action[i]
        assert shallow.stats["leaves_per_root"][i] == leaves, (i, tree)
        assert tuple(para.value[i]) == plain_paranoid(tree), (i, tree)
    return {
        "plain": int(plain.stats["leaves_per_root"][:k].sum()),
        "shallow": int(shallow.stats["leaves_per_root"][:k].sum()),
        "paranoid": int(para.stats["leaves_per_root"][:k].sum()),
        "cutoffs": int(shallow.stats["cutoffs_per_root"][:k].sum()),
    }


# ---------------------------------------------------------------- published trees
def test_aima_three_player_tree_backs_up_1_2_6_in_every_mode():
    game = jaxgames.make("tree", name="aima_3player")
    for mode in ("device", "host"):
        result = maxn(game, game.init(), 3, pruning="shallow", mode=mode)
        assert result.value.tolist() == [1, 2, 6], mode
        assert result.best_action == 0 and result.pv == [0, 0, 0]
    assert minimax(game, game.init()).value.tolist() == [1, 2, 6]


def test_mit_three_player_tree_every_level_from_the_reference_file():
    ref = TREES["mit_6034_three_player_maxn"]
    game = jaxgames.make("tree", tree=ref["tree"], num_players=3)
    paths = ["", "0", "1", "0.0", "0.1", "1.0", "1.1"]
    result = maxn_batch(game, stack([game.parse(p) for p in paths]), 3, pruning="shallow")
    expected = [ref["maxn_root"], *ref["maxn_level2"], *sum(ref["maxn_level3"], [])]
    assert result.value.tolist() == expected


# ---------------------------------------------------------------- shallow pruning
def test_shallow_pruning_equals_plain_maxn_on_thousands_of_random_trees():
    trees = random_forest()
    totals = {"plain": 0, "shallow": 0, "paranoid": 0, "cutoffs": 0}
    for start in range(0, len(trees), BATCH):
        for key, value in check_against_oracles(trees[start : start + BATCH]).items():
            totals[key] += value
    # pruning happened, and only ever saved work
    assert totals["cutoffs"] > 100
    assert totals["shallow"] < totals["plain"]
    assert totals["paranoid"] < totals["plain"]


@settings(max_examples=8)
@given(trees=st.lists(trees_strategy, min_size=1, max_size=40))
def test_pruned_equals_plain_property(trees):
    trees = [t for t in trees if depth_of(t) < DEPTH and count_nodes(t) <= MAX_NODES]
    if trees:
        check_against_oracles(trees)


def test_no_deep_pruning_two_trees_that_differ_only_below_a_deep_cut():
    """Player 0 holds 5 at the root (left leaf). Under the right child, player 2 finds 6,
    which leaves player 0 at most 10 - 6 = 4 < 5: deep pruning would skip the last leaf.
    But that leaf decides player 2's choice, hence player 1's, hence the root's value."""
    trees = []
    for g in ((1.0, 0.0, 9.0), (0.0, 5.0, 5.0)):
        trees.append([(5.0, 5.0, 0.0), [(6.0, 1.0, 3.0), [(0.0, 4.0, 6.0), g]]])
    assert plain_maxn(trees[0]) == (6.0, 1.0, 3.0)
    assert plain_maxn(trees[1]) == (5.0, 5.0, 0.0)
    # deep pruning never reads the differing leaf: one answer for both, wrong for one
    assert deep_pruned_maxn(trees[0]) == deep_pruned_maxn(trees[1])
    result = maxn_batch(GAME, batch(trees), DEPTH, pruning="shallow")
    assert [tuple(v) for v in result.value[:2]] == [plain_maxn(t) for t in trees]
    assert result.stats["leaves_per_root"][:2].tolist() == [4, 4]  # every leaf is read


def best_case_tree(m, mover, height, b, n, total, rng):
    """Korf's best case for shallow pruning, built top down: every node's first child
    carries the node's own maxⁿ vector ``m``; every later child ``x`` (mover ``i``, below
    a parent of mover ``j``) gets ``w_i`` in ``[S - m_j, S]`` and ``w_j = S - w_i``, so
    ``x``'s first child already proves ``w_i >= S - beta_j``: ``x`` is cut after it."""
    if height == 0:
        return {"utility": list(m)}
    nxt = (mover + 1) % n
    kids = [best_case_tree(m, nxt, height - 1, b, n, total, rng)]
    for _ in range(b - 1):
        w = [0] * n
        w[nxt] = total - m[mover] + int(rng.integers(0, m[mover] + 1))
        w[mover] = total - w[nxt]
        kids.append(best_case_tree(w, nxt, height - 1, b, n, total, rng))
    return {"children": kids, "player": mover}


def test_best_case_leaf_count_is_korfs_recurrence():
    """Leaves with shallow pruning alone: F(h) = F(h-1) + (b-1) F(h-2), F(0) = 1, F(1) = b,
    whose growth rate is (1 + sqrt(4b - 3)) / 2; plain maxⁿ reads b^h. Three players,
    S = 10, L = 0 (``benchmarks/multiplayer.py`` does the same at scale, n = 3 and 4)."""
    n = 3
    rng = np.random.default_rng(1)
    trees = {b: best_case_tree([4, 6, 0], 0, h, b, n, 10, rng) for b, h in ((2, 6), (3, 5))}
    game = jaxgames.make(
        "tree", tree={"children": [trees[2], trees[3]], "player": 0}, num_players=n
    )
    paths, expected = [], []
    for i, (b, h) in enumerate(((2, 6), (3, 5))):
        f = [1, b]
        while len(f) <= h:
            f.append(f[-1] + (b - 1) * f[-2])
        for t in range(h):  # the nodes down the leftmost path: heights h .. 1
            paths.append(".".join([str(i)] + ["0"] * t))
            expected.append(f[h - t])
    result = maxn_batch(
        game, stack([game.parse(p) for p in paths]), 6, bounds=(0, 10), immediate=False
    )
    assert result.stats["leaves_per_root"].tolist() == expected
    plain = minimax_batch(game, stack([game.parse(p) for p in paths]), 6)
    np.testing.assert_array_equal(result.value, plain.value)


# ---------------------------------------------------------------- separate evaluations
def korf_pair(a: float, b: float) -> dict:
    """Korf's pair (MAX's evaluation, MIN's evaluation), both from MAX's side, as the
    utility vector [a, -b]: each player maximises its own component."""
    return {"utility": [a, -b]}


# Korf (IJCAI 1989, "Generalized game trees", section 2) argues with a two-ply tree whose
# pairs we do not have verbatim; this one is built from his description: MAX at the root,
# two MIN nodes, MIN choosing by its own function. A = {(9,9), (10,11)} backs up (9,9);
# B = {(6,9), (12,8)}. With MAX's function alone, B's first leaf (6 <= 9) cuts B; with MIN's
# alone, B's first leaf (9 <= 9) cuts it too. With both, MIN picks (12,8) at B and MAX then
# prefers (12,8) to (9,9): the pruned leaf was the answer.
KORF = [[korf_pair(9, 9), korf_pair(10, 11)], [korf_pair(6, 9), korf_pair(12, 8)]]


def test_korf_two_functions_prefer_12_8_where_either_single_function_prunes_it():
    game = jaxgames.make("tree", tree=KORF)
    assert not game.zero_sum
    result = maxn(game, game.init(), 2, mode="device")
    assert result.stats["pruning"] == "shallow"  # the functions disagree: no alpha-beta
    assert result.value.tolist() == [12, -8]  # Korf's (12, 8)
    assert result.pv == [1, 1] and result.stats["leaves"] == 4
    # each single function, by textbook alpha-beta (tests/forest.py): the (12, 8) leaf,
    # the last one, is never read, and the root keeps (9, 9)
    for single in ([[9, 10], [6, 12]], [[9, 11], [9, 8]]):  # MAX's function, MIN's
        assert alphabeta_leaves(single) == 3
        assert forest_minimax(single) == 9
    # alpha-beta forced on the disagreeing pair prunes the answer away
    forced = maxn(game, game.init(), 2, mode="device", pruning="alphabeta", agree=True)
    assert forced.value.tolist() == [9, -9]
    with pytest.raises(GameError, match="agree"):
        maxn(game, game.init(), 2, pruning="alphabeta")


def test_agreeing_two_player_functions_run_alpha_beta_with_the_minimax_value():
    game = jaxgames.make("uniform_tree", branching=3, depth=4, ordering="random")
    roots = game.roots(list(range(24)))
    result = maxn_batch(game, roots, 4)  # zero-sum: the functions agree
    assert result.stats["pruning"] == "alphabeta"
    plain = minimax_batch(game, roots, 4)
    np.testing.assert_array_equal(result.value, plain.value)
    assert result.stats["leaves"] < 24 * 3**4
    para = paranoid_batch(game, roots, 4)
    np.testing.assert_array_equal(para.value, plain.value)
    assert para.stats["nodes"] == result.stats["nodes"]


# ---------------------------------------------------------------- paranoid
def test_paranoid_on_the_aima_tree_both_modes():
    game = jaxgames.make("tree", name="aima_3player")
    tree = [
        [[tuple(map(float, leaf)) for leaf in pair] for pair in branch]
        for branch in AIMA_FIG_5_4_THREE_PLAYER
    ]
    expect = plain_paranoid(tree)
    for mode in ("device", "host"):
        result = paranoid(game, game.init(), 3, mode=mode)
        assert tuple(result.value) == expect, mode
    # player 0 against the coalition of 1 and 2 gets less than under maxⁿ, never more
    assert expect[0] <= 1


def test_bad_arguments():
    game = jaxgames.make("tree", name="aima_3player")
    with pytest.raises(GameError, match="pruning"):
        maxn(game, game.init(), 2, pruning="deep")
    with pytest.raises(GameError, match="depth"):
        maxn(game, game.init(), -1)
    with pytest.raises(GameError, match="chance"):
        maxn(jaxgames.make("pig"), jaxgames.make("pig").init(), 2)
