"""Many explicit two-player trees as the roots of ONE explicit-tree game.

Every new game object compiles every kernel again, so a test that wants hundreds of trees
packs them under one game: :func:`pack` hangs the trees below a few container nodes and
gives every tree's root position. Each tree is a nested list with scalar leaves (player 0's
utility), MAX (player 0) to move at its root and MIN/MAX alternating below, whatever depth
the tree sits at in the forest: every decision node is written as
``{"children": [...], "player": p}``.

The container above the trees is a complete ``width``-ary tree (``width`` defaults to the
widest node of the trees), so the forest's action space stays as narrow as the trees' own:
tree ``i`` sits at the path of ``i``'s base-``width`` digits. ``width=len(trees)`` gives the
flat forest (tree ``i`` at ``str(i)``), whose action space is as wide as the number of trees.

Plain-Python oracles over the nested lists: :func:`minimax` and the textbook alpha-beta
leaf count :func:`alphabeta_leaves`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from jaxgames.kernels import stack

import jaxgames


class Forest(NamedTuple):
    game: Any  # the explicit-tree game holding every tree
    trees: list  # the trees as given (nested lists, scalar leaves)
    paths: list[str]  # position text of each tree's root in the forest
    roots: Any  # the trees' roots as one batch of states [K] (numpy)
    depth: int  # the deepest tree's depth (plies from its root to its deepest leaf)


def random_tree(rng: np.random.Generator, depth: int, max_branching: int = 4, low=-9, high=9):
    """A random tree of at most ``depth`` plies (``depth >= 1``): every internal node has 1 to
    ``max_branching`` children, a node below the root is a leaf early with probability 0.15,
    leaves are integers in ``[low, high]`` (small on purpose: ties are common)."""

    def grow(level: int):
        if level == depth or (level > 0 and rng.random() < 0.15):
            return int(rng.integers(low, high + 1))
        return [grow(level + 1) for _ in range(int(rng.integers(1, max_branching + 1)))]

    return grow(0)


def random_trees(count: int, seed: int = 0, depths=(2, 3, 4, 5)) -> list:
    """``count`` random trees (see :func:`random_tree`); depth-5 trees branch at most 3 wide."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        depth = int(rng.choice(depths))
        out.append(random_tree(rng, depth, max_branching=3 if depth >= 5 else 4))
    return out


def tree_depth(node) -> int:
    return 1 + max(tree_depth(c) for c in node) if isinstance(node, list) else 0


def max_width(node) -> int:
    if not isinstance(node, list):
        return 0
    return max([len(node), *(max_width(c) for c in node)])


def _with_players(node, player: int = 0):
    """Every decision node written with its mover: MAX at the tree's root, then alternating."""
    if not isinstance(node, list):
        return node
    return {"children": [_with_players(c, 1 - player) for c in node], "player": player}


def pack(trees: list, width: int | None = None) -> Forest:
    """One explicit-tree game holding ``trees`` (each a nested list whose root is a decision
    node); see the module docstring for the layout."""
    if not trees or not all(isinstance(t, list) for t in trees):
        raise ValueError("pack: every tree must be a non-empty list (a decision node)")
    width = max(2, max(max_width(t) for t in trees)) if width is None else width
    if width < 2 and len(trees) > 1:
        raise ValueError("pack: width must be at least 2")
    levels = 1
    while width**levels < len(trees):
        levels += 1
    digits = []
    for i in range(len(trees)):
        d, x = [], i
        for _ in range(levels):
            x, r = divmod(x, width)
            d.append(r)
        digits.append(tuple(reversed(d)))

    def container(prefix: tuple[int, ...]):
        if len(prefix) == levels:
            return _with_players(trees[digits.index(prefix)])
        below = sorted({d[len(prefix)] for d in digits if d[: len(prefix)] == prefix})
        assert below == list(range(len(below)))  # children are numbered densely
        return {"children": [container((*prefix, j)) for j in below], "player": 0}

    game = jaxgames.make("tree", tree=container(()))
    paths = [".".join(map(str, d)) for d in digits]
    roots = stack([game.parse(p) for p in paths])
    return Forest(game, list(trees), paths, roots, max(tree_depth(t) for t in trees))


# ---------------------------------------------------------------------- plain-Python oracles
def minimax(node, maximizing: bool = True) -> float:
    """Player 0's minimax value of a nested-list tree (MAX to move when ``maximizing``)."""
    if not isinstance(node, list):
        return float(node)
    values = [minimax(c, not maximizing) for c in node]
    return max(values) if maximizing else min(values)


def subtree(node, path):
    """The node reached from ``node`` by the actions ``path`` (None if a step is illegal)."""
    for a in path:
        if not isinstance(node, list) or not 0 <= a < len(node):
            return None
        node = node[a]
    return node


def alphabeta_leaves(node, alpha: float = -math.inf, beta: float = math.inf) -> int:
    """Leaves evaluated by textbook alpha-beta (AIMA's, children in order, cut off when a
    value reaches the bound: ``v >= beta`` at MAX, ``v <= alpha`` at MIN) on a tree with MAX
    to move at its root, searched with the window ``(alpha, beta)``."""
    count = [0]

    def search(x, a, b, maximizing):
        if not isinstance(x, list):
            count[0] += 1
            return float(x)
        v = -math.inf if maximizing else math.inf
        for c in x:
            w = search(c, a, b, not maximizing)
            if maximizing:
                v = max(v, w)
                if v >= b:
                    return v
                a = max(a, v)
            else:
                v = min(v, w)
                if v <= a:
                    return v
                b = min(b, v)
        return v

    search(node, alpha, beta, True)
    return count[0]
