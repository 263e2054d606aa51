"""Synthetic uniform trees (jaxgames.games.uniform_tree), checked through the Game protocol.

Truth from outside: a pure-Python re-statement of the documented value construction (32-bit
integer arithmetic on Python ints), brute-force minimax over the whole tree, and a plain
recursive alpha-beta whose leaf count must be the Knuth-Moore minimal tree under perfect
ordering.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import Hashing
from jaxgames.games.uniform_tree import UniformTree, node_hash

M32 = 0xFFFFFFFF


# ---------------------------------------------------------------------- pure-Python reference
def ref_fmix(x: int) -> int:
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & M32
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & M32
    return x ^ (x >> 16)


def ref_hash(seed: int, level: int, index: int) -> int:
    h = ref_fmix((seed % 2**32 + 0x9E3779B9) & M32)
    h = ref_fmix(h ^ ((level * 0x85EBCA77) & M32))
    return ref_fmix(h ^ ((index * 0xC2B2AE3D) & M32))


def ref_leaves(b: int, d: int, seed: int, ordering: str, r: int) -> list[int]:
    """Player 0's utility of every leaf, in level order, by the documented construction."""
    if ordering == "random":
        return [ref_hash(seed, d, i) % (2 * r + 1) - r for i in range(b**d)]
    best = 0 if ordering == "best" else b - 1
    values = [ref_hash(seed, 0, 0) % (2 * r + 1) - r]  # negamax value m for the mover
    for t in range(d):
        nxt = []
        for i, m in enumerate(values):
            for a in range(b):
                c = i * b + a
                if a == best:
                    nxt.append(-m)
                elif ordering == "best":
                    nxt.append(-m + 1 + ref_hash(seed, t + 1, c) % r)
                else:  # worst: children improve in order, gaps b^floor((k - 1) / 2)
                    nxt.append(-m + (b - 1 - a) * b ** ((d - t - 1) // 2))
        values = nxt
    return [m if d % 2 == 0 else -m for m in values]


# ---------------------------------------------------------------------- protocol traversal
PAD = 256  # every batch is padded to this size, so op-by-op dispatch reuses one compiled shape


def levels(game, jit=False, root=None):
    """Expand the whole tree below ``root`` (default ``game.init()``) level by level through
    the protocol (children in action order:
    child ``a`` of node ``i`` of a level is node ``i * A + a`` of the next).

    Returns a list of per-level dicts of numpy arrays: state fields, terminal, legal, player,
    utility, hash. Batches are padded to ``PAD`` lanes; without ``jit`` the vmapped functions
    run op by op, which for these small trees is quicker than compiling them per game.
    """

    def info(state):
        return {
            "state": state,
            "terminal": game.terminal(state),
            "legal": game.legal_mask(state),
            "player": game.player(state),
            "utility": game.utility(state),
            "hash": game.hash(state),
        }

    info_b, step_b = jax.vmap(info), jax.vmap(game.step)
    if jit:
        info_b, step_b = jax.jit(info_b), jax.jit(step_b)
    start = game.init() if root is None else root
    states = jax.tree.map(lambda x: np.asarray(x)[None], start)
    out = []
    while True:
        n = len(states.depth)
        assert n <= PAD
        lanes = np.minimum(np.arange(PAD), n - 1)
        padded = jax.tree.map(lambda x, p=lanes: x[p], states)
        level = jax.tree.map(lambda x, n=n: np.asarray(x)[:n], info_b(padded))
        out.append(level)
        if level["terminal"].all():
            assert not level["legal"].any()
            return out
        assert not level["terminal"].any() and level["legal"].all()
        a = level["legal"].shape[1]
        parents = np.minimum(np.repeat(np.arange(n), a), n - 1)
        actions = np.tile(np.arange(a, dtype=np.int32), n)
        m = len(actions)
        lanes = np.minimum(np.arange(PAD), m - 1)
        children = step_b(
            jax.tree.map(lambda x, p=parents[lanes]: x[p], states), jnp.asarray(actions[lanes])
        )
        states = jax.tree.map(lambda x, m=m: np.asarray(x)[:m], children)


def alphabeta(tree, t=0, i=0, alpha=-np.inf, beta=np.inf, counter=None):
    """Plain negamax alpha-beta over the levels found by :func:`levels`, counting the leaves
    it evaluates: returns (value for the mover, leaves evaluated)."""
    counter = [0] if counter is None else counter
    level = tree[t]
    if level["terminal"][i]:
        counter[0] += 1
        return float(level["utility"][i, level["player"][i]]), counter[0]
    best = -np.inf
    width = level["legal"].shape[1]
    for a in range(width):
        v, _ = alphabeta(tree, t + 1, i * width + a, -beta, -alpha, counter)
        best = max(best, -v)
        alpha = max(alpha, -v)
        if alpha >= beta:
            break
    return best, counter[0]


# ---------------------------------------------------------------------- tests
@pytest.mark.parametrize("b, d", [(1, 5), (2, 0), (2, 6), (3, 4), (4, 3), (7, 2)])
def test_full_traversal_counts_and_hashes(b, d):
    game = UniformTree(branching=b, depth=d, seed=3)
    tree = levels(game, jit=(b, d) == (3, 4))
    assert len(tree) == d + 1
    assert [len(level["terminal"]) for level in tree] == [b**t for t in range(d + 1)]
    keys = np.concatenate([level["hash"] for level in tree])
    assert keys.dtype == np.uint32 and len({tuple(k) for k in keys}) == len(keys)
    for t, level in enumerate(tree):
        assert (level["state"].depth == t).all()
        assert (level["state"].index == np.arange(b**t)).all()
        assert (level["player"] == t % 2).all()
    assert game.num_actions == b and game.max_game_length == d and game.num_players == 2


@pytest.mark.parametrize("ordering", ["random", "best", "worst"])
@pytest.mark.parametrize("b, d, seed, r", [(3, 4, 0, 1000), (2, 5, 7, 3), (4, 3, 11, 50)])
def test_leaf_values_match_reference(ordering, b, d, seed, r):
    game = UniformTree(branching=b, depth=d, seed=seed, ordering=ordering, value_range=r)
    utility = levels(game)[-1]["utility"]
    assert utility.dtype == np.float32 and np.array_equal(utility[:, 1], -utility[:, 0])
    assert utility[:, 0].tolist() == ref_leaves(b, d, seed, ordering, r)
    assert np.all(np.abs(utility) <= game.utility_max) and game.utility_min == -game.utility_max
    if ordering == "random":
        assert game.utility_max == r and np.all(np.abs(utility) <= r)


@pytest.mark.parametrize("ordering", ["best", "worst"])
@pytest.mark.parametrize("b, d, seed", [(2, 1, 0), (2, 5, 1), (3, 4, 2), (4, 3, 3), (3, 3, 4)])
def test_ordered_trees_brute_force(ordering, b, d, seed):
    """At every internal node the first (best) / last (worst) child is the unique best for the
    mover, and the kept value m is the node's negamax value."""
    game = UniformTree(branching=b, depth=d, seed=seed, ordering=ordering, value_range=20)
    tree = levels(game)
    want = 0 if ordering == "best" else b - 1
    values = tree[-1]["utility"]  # [N, 2] exact values, level by level upward
    for level in reversed(tree):
        n = len(level["player"])
        sign = np.where(level["player"] == 0, 1, -1)
        if values.shape[0] == n:  # leaves
            node_values = values
        else:
            children = values.reshape(n, b, 2)
            own = np.take_along_axis(children, level["player"][:, None, None], axis=2)[..., 0]
            order = np.argsort(-own, axis=1, kind="stable")
            assert (order[:, 0] == want).all()
            top = np.sort(own, axis=1)
            if b > 1:
                assert (top[:, -1] > top[:, -2]).all()  # strictly better than every other
            node_values = children[np.arange(n), want]
        # the state's running value is the negamax value for the mover
        assert np.array_equal(node_values[:, 0] * sign, level["state"].value)
        values = node_values


@pytest.mark.parametrize("b, d", [(2, 5), (3, 4), (4, 3), (3, 5)])
def test_alphabeta_visits_minimal_tree_under_best_ordering(b, d):
    minimal = b ** ((d + 1) // 2) + b ** (d // 2) - 1
    counts = {}
    for ordering in ("best", "worst", "random"):
        game = UniformTree(branching=b, depth=d, seed=5, ordering=ordering)
        tree = levels(game)
        value, counts[ordering] = alphabeta(tree)
        # alpha-beta's root value is the minimax value (found by brute force)
        exact = tree[-1]["utility"][:, 0]
        for level in reversed(tree[:-1]):
            children = exact.reshape(len(level["player"]), b)
            exact = np.where(level["player"] == 0, children.max(axis=1), children.min(axis=1))
        assert value == float(exact[0])
        if ordering != "random":
            assert value == float(tree[0]["state"].value[0])
    assert counts["best"] == minimal
    assert counts["worst"] == b**d and counts["random"] >= minimal
    assert max(counts.values()) <= b**d


def test_deterministic_and_seed_dependent():
    first = levels(UniformTree(branching=3, depth=3, seed=42))[-1]["utility"]
    again = levels(UniformTree(branching=3, depth=3, seed=42))[-1]["utility"]
    other = levels(UniformTree(branching=3, depth=3, seed=43))[-1]["utility"]
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert (first[:, 0] > 0).any() and (first[:, 0] < 0).any()
    best_a = UniformTree(branching=3, depth=3, seed=42, ordering="best")
    best_b = UniformTree(branching=3, depth=3, seed=43, ordering="best")
    assert int(best_a.init().value) != int(best_b.init().value)
    # numpy and jax.numpy give the same hash
    idx = np.arange(50)
    assert np.array_equal(node_hash(9, 4, idx, np), np.asarray(node_hash(9, 4, jnp.asarray(idx))))
    assert [ref_hash(9, 4, int(i)) for i in idx] == node_hash(9, 4, idx, np).tolist()


def test_paths_round_trip():
    for ordering in ("random", "best"):
        game = UniformTree(branching=3, depth=3, seed=1, ordering=ordering)
        assert game.format(game.init()) == "root"
        for level in levels(game):
            for i in range(len(level["player"])):
                state = jax.tree.map(lambda x, i=i: x[i], level["state"])
                text = game.format(state)
                back = game.parse(text)
                assert all(int(x) == int(y) for x, y in zip(back, state, strict=True)), text
        s = game.init()
        for a in (2, 0, 1):
            s = game.step(s, a)
        parsed = game.parse("2.0.1")
        assert all(int(x) == int(y) for x, y in zip(parsed, s, strict=True))
        assert game.format(s) == "2.0.1"
        assert int(game.parse("").depth) == 0 and int(game.parse("root.1").index) == 1
    deep = UniformTree(branching=2, depth=30, ordering="best")
    path = ".".join("1" if i % 3 else "0" for i in range(30))
    state = deep.parse(path)
    assert deep.format(state) == path and bool(deep.terminal(state))
    assert abs(float(deep.utility(state)[0])) <= deep.utility_max


@pytest.mark.parametrize(
    "text, words",
    [
        ("3", "step 1 ('3') of '3': the node at 'root' has 3 children"),
        ("0.-1", "step 2 ('-1') of '0.-1': not a child index"),
        ("0.0.0.0", "step 4 ('0') of '0.0.0.0': the node at '0.0.0' is a leaf"),
        ("0.a", "step 2 ('a') of '0.a': not a child index"),
    ],
)
def test_bad_paths(text, words):
    game = UniformTree(branching=3, depth=3)
    with pytest.raises(GameError) as err:
        game.parse(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_parameters_and_registry():
    for kwargs, words in (
        ({"branching": 2, "depth": 31}, "below 2\\*\\*31"),
        ({"branching": 0}, "branching"),
        ({"depth": -1}, "depth"),
        ({"ordering": "sorted"}, "unknown ordering"),
        ({"value_range": 0}, "value_range"),
        ({"value_range": 2**29, "ordering": "best"}, "value_range"),
        ({"seed": "x"}, "seed"),
    ):
        with pytest.raises(GameError, match=words):
            UniformTree(**kwargs)
    assert UniformTree(branching=2, depth=30).num_actions == 2
    game = jaxgames.make("uniform_tree:branching=2,depth=3,ordering=best")
    assert game == jaxgames.make(game.spec) and game.zero_sum and isinstance(game, Hashing)
    assert game.utility_max == 1000 * 4
    with pytest.raises(GameError):
        jaxgames.make("uniform_tree:depth=40")


def test_traced_step_is_safe():
    game = UniformTree(branching=3, depth=2, ordering="best")
    leaf = game.parse("2.2")
    step = jax.jit(game.step)
    for action in (-1, 0, 2, 7):
        out = step(leaf, jnp.int32(action))
        assert all(int(x) == int(y) for x, y in zip(out, leaf, strict=True))  # leaves stay
        inner = step(game.init(), jnp.int32(action))
        assert int(inner.depth) == 1 and 0 <= int(inner.index) < 3
    assert np.allclose(game.evaluate(game.init()), 0)
    assert np.allclose(game.evaluate(leaf), game.utility(leaf))


# ---------------------------------------------------------------------- many trees, one game
def fields(state):
    return tuple(int(x) for x in state)


@pytest.mark.parametrize("ordering", ["random", "best", "worst"])
def test_root_of_another_seed_walks_that_tree(ordering):
    """``game.root(s)`` under one game walks exactly the tree of ``UniformTree(seed=s)``:
    same leaf values and same hash keys, level by level; the state carries the seed."""
    game = UniformTree(branching=3, depth=3, seed=1, ordering=ordering, value_range=30)
    assert fields(game.init()) == fields(game.root(1)) == fields(game.root(1 + 2**32))
    assert game.init().seed.dtype == jnp.uint32 and int(game.root(-1).seed) == 2**32 - 1
    for seed in (2, 77, 2**32 - 3):
        other = UniformTree(branching=3, depth=3, seed=seed, ordering=ordering, value_range=30)
        mine, theirs = levels(game, root=game.root(seed)), levels(other)
        for a, b in zip(mine, theirs, strict=True):
            assert np.array_equal(a["utility"], b["utility"])
            assert np.array_equal(a["hash"], b["hash"])
            assert np.array_equal(a["state"].value, b["state"].value)
            assert (a["state"].seed == seed % 2**32).all()
        assert mine[-1]["utility"][:, 0].tolist() == ref_leaves(3, 3, seed, ordering, 30)
    first, second = levels(game, root=game.root(5)), levels(game, root=game.root(6))
    assert not np.array_equal(first[-1]["hash"], second[-1]["hash"])  # the seed is in the key


def test_roots_batch_equals_single_roots():
    game = UniformTree(branching=2, depth=4, seed=9, ordering="best")
    seeds = [0, 1, 9, 2**32 + 9, -5, 123456789]
    batch = game.roots(seeds)
    assert all(isinstance(x, np.ndarray) and x.shape == (6,) for x in batch)
    assert batch.seed.dtype == np.uint32 and batch.depth.dtype == np.int32
    for i, seed in enumerate(seeds):
        assert tuple(int(x[i]) for x in batch) == fields(game.root(seed))
    assert fields(jax.tree.map(lambda x: x[2], batch)) == fields(game.init())
    stepped = jax.vmap(game.step)(batch, jnp.ones(6, jnp.int32))
    for i, seed in enumerate(seeds):
        assert tuple(int(x[i]) for x in stepped) == fields(game.step(game.root(seed), 1))
    assert game.roots([]).seed.shape == (0,)
    with pytest.raises(GameError, match="seed"):
        game.root(1.5)
    with pytest.raises(GameError, match="seed"):
        game.roots([1, "2"])


def test_parse_and_format_name_nodes_of_the_games_own_tree():
    game = UniformTree(branching=3, depth=3, seed=4, ordering="best")
    other = game.step(game.step(game.root(8), 2), 0)
    assert game.format(other) == "2.0"  # the path alone; the seed is not written
    back = game.parse("2.0")
    assert int(back.seed) == 4 and int(back.index) == int(other.index)
    assert fields(back) == fields(game.step(game.step(game.init(), 2), 0))
