"""The lane engine (:mod:`jaxgames.search.lanes`), tested once for the searches on it.

Alpha-beta and maxⁿ, each on the engine, against plain recursion written here, on random
trees of very different sizes (the biggest last in the queue, so that the lanes still busy
once it is empty are few): with narrowing phases, with helpers, and with each of two
simulated devices searching its share of the roots (in a subprocess: the device count is
fixed before JAX starts). The trees travel in the state as tables, so one compiled search
serves them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np
import pytest
from jaxgames.kernels import stack

from jaxgames.game import Game
from jaxgames.search import alphabeta_batch, maxn_batch
from jaxgames.search.maxn import Shallow, _search, pruning_bounds

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

WIDTH, MAX_NODES, DEPTH = 3, 96, 6
TOTAL = 10  # three-player leaves: non-negative integers summing to at most TOTAL
LIMIT = 5  # two-player leaves: player 0's utility in [-LIMIT, LIMIT]
COUNT, BIG = 160, 8  # trees, and how many big ones close the queue
LANES = 128  # phases 128, 32, 8 (lane_phases with shrink 4)


class TreeState(NamedTuple):
    children: Any  # int32[MAX_NODES, WIDTH]: child ids, -1 for none (no child: a leaf)
    leaf: Any  # float32[MAX_NODES, P]: the leaves' utility vectors
    node: Any  # int32[]
    depth: Any  # int32[]: the mover is depth % P


class Trees(Game):
    """Trees given as tables in the state; ``players`` 2 (zero-sum) or 3 (shares)."""

    name = "lane_trees"
    num_actions = WIDTH
    max_game_length = DEPTH

    def __init__(self, players: int) -> None:
        self.num_players = players
        self.params = {"players": players}
        self.zero_sum = players == 2
        if players == 2:
            self.utility_min, self.utility_max, self.utility_sum_max = -LIMIT, LIMIT, 0.0
        else:
            self.utility_min, self.utility_max, self.utility_sum_max = 0.0, TOTAL, TOTAL

    def init(self):
        raise NotImplementedError  # roots come from encode()

    def player(self, s):
        return (s.depth % self.num_players).astype(jnp.int32)

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


def encode(tree, players: int) -> TreeState:
    """A nested-list tree (leaves: tuples of ``players`` numbers) as tables, in preorder."""
    children = np.full((MAX_NODES, WIDTH), -1, np.int32)
    leaf = np.zeros((MAX_NODES, players), np.float32)
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
    return TreeState(children, leaf, np.int32(0), np.int32(0))


def size(x) -> int:
    return 1 if isinstance(x, tuple) else 1 + sum(size(c) for c in x)


def forest(players: int, seed: int = 3) -> list:
    """COUNT trees: small random ones (many one- and two-ply), then BIG nearly full ones."""
    rng = np.random.default_rng(seed)

    def leaf():
        if players == 2:
            u = float(rng.integers(-LIMIT, LIMIT + 1))
            return (u, -u)
        cuts = np.sort(rng.integers(0, TOTAL + 1, players - 1))
        return tuple(float(p) for p in np.diff(np.r_[0, cuts, TOTAL]))

    def grow(level, depth, stop):
        if level == depth or (level > 0 and rng.random() < stop):
            return leaf()
        return [grow(level + 1, depth, stop) for _ in range(int(rng.integers(1, WIDTH + 1)))]

    trees = []
    while len(trees) < COUNT:
        big = len(trees) >= COUNT - BIG
        tree = grow(0, DEPTH if big else int(rng.integers(1, 4)), 0.05 if big else 0.3)
        if not isinstance(tree, tuple) and size(tree) <= MAX_NODES and (size(tree) > 40) == big:
            trees.append(tree)
    return trees


def roots(trees: list, players: int) -> Any:
    return stack([encode(t, players) for t in trees])


# ---------------------------------------------------------------- plain recursion
def plain_maxn(x, depth: int = 0, players: int = 3) -> tuple:
    """The mover (depth % players) takes the child best for it, the first among ties; with
    two players and ``(u, -u)`` leaves this is minimax."""
    if isinstance(x, tuple):
        return x
    values = [plain_maxn(c, depth + 1, players) for c in x]
    mover = depth % players
    return max(values, key=lambda v: v[mover])  # max() keeps the first maximum


def first_best(tree, players: int) -> int:
    values = [plain_maxn(c, 1, players) for c in tree]
    return max(range(len(values)), key=lambda a: values[a][0])


def check_alphabeta(trees: list, value: np.ndarray, best: np.ndarray) -> None:
    """Exact values; the move chosen has the root's value (ties may break either way)."""
    for i, tree in enumerate(trees):
        want = plain_maxn(tree, players=2)
        assert tuple(value[i]) == want, i
        assert plain_maxn(tree[best[i]], 1, players=2)[0] == want[0], i


def check_maxn(trees: list, value: np.ndarray, best: np.ndarray) -> None:
    """Exact vectors, and the lowest best move (maxⁿ's tie rule)."""
    for i, tree in enumerate(trees):
        assert tuple(value[i]) == plain_maxn(tree), i
        assert best[i] == first_best(tree, 3), i


# ---------------------------------------------------------------- one device
def test_narrowing_phases_keep_alphabeta_and_maxn_exact():
    two, three = forest(2), forest(3)
    result = alphabeta_batch(Trees(2), roots(two, 2), DEPTH, lanes=LANES, shrink=4)
    assert result.stats["lane_phases"] == [128, 32, 8]
    check_alphabeta(two, result.value, result.best_action)
    result = maxn_batch(Trees(3), roots(three, 3), DEPTH, pruning="shallow", lanes=LANES)
    assert result.stats["lane_phases"] == [128, 32, 8]
    check_maxn(three, result.value, result.best_action)


def test_helpers_keep_alphabeta_and_maxn_exact():
    """Once the queue is empty, idle lanes join the searches still running; the first lane
    to finish a search settles it."""
    two, three = forest(2), forest(3)
    result = alphabeta_batch(Trees(2), roots(two, 2), DEPTH, lanes=2 * COUNT, helpers=True)
    assert result.stats["lanes"] == 2 * COUNT and result.stats["lane_phases"] == [2 * COUNT]
    check_alphabeta(two, result.value, result.best_action)
    game = Trees(3)
    result = _search(
        game,
        roots(three, 3),
        DEPTH,
        Shallow(3),
        pruning_bounds(game),
        root_players=None,
        lanes=2 * COUNT,
        events=16,
        shrink=4,
        helpers=True,
        pruning="shallow",
    )
    assert result.stats["lane_phases"] == [2 * COUNT]
    check_maxn(three, result.value, result.best_action)
    # a helper searches its root's tree again: nodes add up over the lanes that ran it
    alone = maxn_batch(game, roots(three, 3), DEPTH, pruning="shallow", lanes=LANES)
    assert (result.nodes >= alone.nodes).all() and result.nodes.sum() > alone.nodes.sum()


# ---------------------------------------------------------------- two devices
ON_TWO_DEVICES = textwrap.dedent(
    """
    import json, os, sys
    sys.path[:0] = [sys.argv[1], os.path.dirname(sys.argv[1])]  # this file, tests/ (forest)
    import jax
    from test_lanes import COUNT, DEPTH, Trees, forest, roots
    from jaxgames.search import alphabeta_batch, maxn_batch

    two = alphabeta_batch(Trees(2), roots(forest(2), 2), DEPTH, lanes=64)
    three = maxn_batch(Trees(3), roots(forest(3), 3), DEPTH, pruning="shallow", lanes=64)
    print(json.dumps({
        "devices": jax.local_device_count(),
        "searched": [two.stats["devices"], three.stats["devices"]],
        "two": [two.value.tolist(), two.best_action.tolist()],
        "three": [three.value.tolist(), three.best_action.tolist()],
    }))
    """
)


def test_two_devices_each_search_their_share_exactly():
    env = dict(
        os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS="--xla_force_host_platform_device_count=2"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run(
        [sys.executable, "-c", ON_TWO_DEVICES, here],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["devices"] == 2 and got["searched"] == [2, 2]
    check_alphabeta(forest(2), np.asarray(got["two"][0]), np.asarray(got["two"][1]))
    check_maxn(forest(3), np.asarray(got["three"][0]), np.asarray(got["three"][1]))
