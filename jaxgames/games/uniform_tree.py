"""Synthetic uniform game trees for node-count studies: branching ``b``, depth ``d``.

No tree is stored. A node is identified by its level and its index in the level (children of
node ``(t, i)`` are ``(t + 1, i * b + a)``), and every number comes from a counter-based 32-bit
hash of ``(seed, level, index)`` (MurmurHash3's finaliser, in uint32 arithmetic that numpy and
jax.numpy compute alike). Two players alternate, MAX (player 0) at the root; leaves score
``[v, -v]``.

The seed travels in the state, so one game object holds a whole family of trees of the same
shape: :meth:`UniformTree.init` is the root of the game's own ``seed``, :meth:`UniformTree.root`
the root of any other, and :meth:`UniformTree.roots` a numpy batch of roots, one tree per seed.
Many trees then search as many roots of ONE game, so the kernels compile once for all of them.

Orderings:

* ``"random"``: leaf ``(d, i)`` has value ``v = hash(seed, d, i) mod (2R + 1) - R`` for player 0
  (``R = value_range``).
* ``"best"``: perfect move ordering for the player to move, so alpha-beta visits exactly the
  Knuth-Moore minimal tree (``b^ceil(d/2) + b^floor(d/2) - 1`` leaves). Values are built top
  down and kept in the state: ``m`` is the node's negamax value (for the player to move there).
  The root has ``m = hash(seed, 0, 0) mod (2R + 1) - R``; child 0 of a node with value ``m`` has
  ``-m`` and every other child ``a`` has ``-m + delta`` with
  ``delta = 1 + hash(seed, t + 1, i * b + a) mod R``, so from the parent's side those children
  are worth ``m - delta < m``: the first child is the unique best move, and the negamax value of
  every node is exactly its ``m``. A leaf scores ``m`` for player 0 when player 0 would move
  there (even depth), else ``-m``. Every ``|m| <= R * (t + 1)``.
* ``"worst"``: alpha-beta's worst case, the best child last (action ``b - 1``, worth ``-m``)
  and the others in increasing order for the mover: child ``a`` of a node ``k`` plies above
  the leaves has ``-m + (b - 1 - a) * g_k`` with ``g_k = b^floor((k - 1) / 2)``. The gaps are
  wide enough that every child improves on the ones before it and no value in a subtree ever
  falls outside the window alpha-beta searches it with (no deep cutoff either), so alpha-beta
  evaluates all ``b^d`` leaves. (By induction: a node's subtree lies strictly within
  ``(m - b^ceil(k/2), m + b^floor(k/2))`` from its mover's side.) The root has the same
  random ``m`` as under ``"best"``; below it the tree is the same for every seed up to that
  shift. Every ``|m| < R + b^ceil(d/2)``.

Positions are paths of child indices from the root, ``"0.2.1"``; ``""`` or ``"root"`` is the
root, which :meth:`UniformTree.format` writes as ``"root"``. The text names a node of the
game's own tree (its ``seed``): :meth:`UniformTree.parse` always gives a node of that tree, and
:meth:`UniformTree.format` writes the path alone, whatever seed the state carries.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError, whole_number

ORDERINGS = ("random", "best", "worst")

_GOLDEN = 0x9E3779B9
_LEVEL_SALT = 0x85EBCA77
_INDEX_SALT = 0xC2B2AE3D


def fmix32(x: Any, xp: Any = jnp) -> Any:
    """MurmurHash3's 32-bit finaliser, a bijection on uint32; ``xp`` is numpy or jax.numpy.

    ``x`` must already be a uint32 array (numpy arrays wrap on overflow like jax ones).
    """
    x = x ^ (x >> xp.uint32(16))
    x = x * xp.uint32(0x85EBCA6B)
    x = x ^ (x >> xp.uint32(13))
    x = x * xp.uint32(0xC2B2AE35)
    return x ^ (x >> xp.uint32(16))


def _as_uint32(x: Any, xp: Any) -> Any:
    """An integer or integer array as uint32 (Python integers taken modulo 2**32)."""
    if isinstance(x, (int, np.integer)):
        return xp.asarray(int(x) % 2**32, dtype=xp.uint32)
    return xp.asarray(x).astype(xp.uint32)


def node_hash(seed: Any, level: Any, index: Any, xp: Any = jnp) -> Any:
    """uint32 hash of ``(seed, level, index)``: three chained rounds of :func:`fmix32`.

    ``seed`` is any integer (used modulo 2**32) or a uint32/int32 array; ``level`` and
    ``index`` are non-negative integers or integer arrays. All three broadcast together.
    """
    u = xp.uint32
    seed = _as_uint32(seed, xp)
    level = xp.asarray(level).astype(xp.uint32)
    index = xp.asarray(index).astype(xp.uint32)
    shape = xp.broadcast_shapes(seed.shape, level.shape, index.shape)
    seed = xp.broadcast_to(seed, shape).reshape(-1)
    level = xp.broadcast_to(level, shape).reshape(-1)  # numpy wraps silently only on arrays,
    index = xp.broadcast_to(index, shape).reshape(-1)  # not on 0-d scalars: work on 1-d ones
    h = fmix32(seed + u(_GOLDEN), xp)
    h = fmix32(h ^ (level * u(_LEVEL_SALT)), xp)
    h = fmix32(h ^ (index * u(_INDEX_SALT)), xp)
    return h.reshape(shape)


class State(NamedTuple):
    """A node of a uniform tree."""

    depth: jax.Array  # int32 scalar: level of the node, 0 at the root
    index: jax.Array  # int32 scalar: index of the node in its level
    value: jax.Array  # int32 scalar: negamax value m for the mover ("best"/"worst"; else 0)
    seed: jax.Array  # uint32 scalar: which tree of the family (see UniformTree.root)


class UniformTree(Game):
    """Synthetic uniform trees with hashed leaf values, randomly or perfectly ordered.

    Args:
        branching: children per internal node, ``b >= 1``.
        depth: plies from the root to every leaf, ``d >= 0``; ``b**d < 2**31``.
        seed: any integer (used modulo 2**32): the tree of :meth:`init` and of :meth:`parse`.
            Other trees of the same shape are reached with :meth:`root` / :meth:`roots`.
        ordering: ``"random"``, ``"best"`` (first move best) or ``"worst"`` (last move best,
            the others in increasing order: no cutoff ever).
        value_range: ``R >= 1``; random leaves lie in ``[-R, R]``, ``"best"`` trees within
            ``[-R * (d + 1), R * (d + 1)]``, ``"worst"`` within
            ``[-R - b^ceil(d/2), R + b^ceil(d/2)]``.
    """

    name = "uniform_tree"
    num_players = 2
    num_chance_outcomes = 0
    zero_sum = True

    def __init__(
        self,
        branching: int = 3,
        depth: int = 4,
        seed: int = 0,
        ordering: str = "random",
        value_range: int = 1000,
    ) -> None:
        for key, val, low in (("branching", branching, 1), ("depth", depth, 0)):
            if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or val < low:
                raise GameError(f"uniform_tree: {key} must be an integer >= {low}, got {val!r}")
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise GameError(f"uniform_tree: seed must be an integer, got {seed!r}")
        if ordering not in ORDERINGS:
            raise GameError(
                f"uniform_tree: unknown ordering {ordering!r}; known: {', '.join(ORDERINGS)}"
            )
        if not isinstance(value_range, (int, np.integer)) or isinstance(value_range, bool):
            raise GameError(f"uniform_tree: value_range must be an integer, got {value_range!r}")
        branching, depth, seed, value_range = (
            int(branching),
            int(depth),
            int(seed),
            int(value_range),
        )
        if branching**depth >= 2**31:
            raise GameError(
                f"uniform_tree: branching**depth = {branching}**{depth} must be below 2**31"
            )
        bound = {
            "random": value_range,
            "best": value_range * (depth + 1),
            "worst": value_range + branching ** ((depth + 1) // 2),
        }[ordering]
        if value_range < 1 or bound >= 2**30:
            limit = {
                "random": "value_range",
                "best": "value_range * (depth + 1)",
                "worst": "value_range + branching**ceil(depth / 2)",
            }[ordering]
            raise GameError(
                f"uniform_tree: value_range {value_range} must be >= 1 and {limit} below 2**30"
            )
        self.params = {
            "branching": branching,
            "depth": depth,
            "seed": seed,
            "ordering": ordering,
            "value_range": value_range,
        }
        self.branching = branching
        self.depth = depth
        self.seed = seed % 2**32
        self.ordering = ordering
        self.value_range = value_range
        self.num_actions = branching
        self.max_game_length = depth
        self.utility_min = -float(bound)
        self.utility_max = float(bound)
        # Level offsets give every node a distinct id below 2**32 (the total node count).
        sizes = [branching**t for t in range(depth + 1)]
        offsets = np.cumsum([0, *sizes[:-1]]).astype(np.uint64)
        self._offsets = jnp.asarray(offsets.astype(np.uint32))
        self._best_action = {"best": 0, "worst": branching - 1}.get(ordering, -1)
        # "worst": the gap g_k between siblings at level t, k = depth - t plies above the leaves
        gaps = [branching ** max(0, (depth - t - 1) // 2) for t in range(depth + 1)]
        self._np_gaps = np.asarray(gaps, np.int32)
        self._gaps = jnp.asarray(self._np_gaps)

    # ------------------------------------------------------------------ values
    def _root_value(self, seed: Any, xp: Any = jnp) -> Any:
        """The root's negamax value m ("best"/"worst"), for a seed or an array of seeds."""
        span = xp.uint32(2 * self.value_range + 1)
        return (node_hash(seed, 0, 0, xp) % span).astype(xp.int32) - self.value_range

    def _child_value(
        self, seed: Any, value: Any, depth: Any, child: Any, action: Any, xp: Any = jnp
    ) -> Any:
        """Negamax value of child ``child`` (index in level ``depth + 1``) reached by ``action``."""
        if self.ordering == "worst":
            gaps = self._gaps if xp is jnp else self._np_gaps
            gap = gaps[xp.clip(depth, 0, self.depth)]
            delta = (xp.asarray(self.branching - 1 - action, xp.int32) * gap).astype(xp.int32)
        else:
            h = node_hash(seed, depth + 1, child, xp)
            delta = (h % xp.uint32(self.value_range)).astype(xp.int32) + 1
        return xp.where(action == self._best_action, -value, -value + delta).astype(xp.int32)

    # ------------------------------------------------------------------ trees by seed
    def root(self, seed: int) -> State:
        """The root of tree ``seed`` (any integer, modulo 2**32) under this game's shape.

        ``root(game.seed)`` equals :meth:`init`. Stepping it walks tree ``seed``; the state
        carries the seed, so roots of different trees batch together in one search.
        """
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise GameError(f"uniform_tree: seed must be an integer, got {seed!r}")
        return self._root_of(int(seed) % 2**32)

    def roots(self, seeds: Any) -> State:
        """The roots of trees ``seeds`` (a sequence of integers) as one numpy batch ``[N]``."""
        raw = list(np.asarray(seeds).reshape(-1).tolist()) if np.ndim(seeds) else [seeds]
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in raw):
            raise GameError(f"uniform_tree: seeds must be integers, got {seeds!r}")
        seed = np.asarray([s % 2**32 for s in raw], np.uint64).astype(np.uint32)
        n = seed.shape[0]
        if self.ordering == "random" or n == 0:
            value = np.zeros((n,), np.int32)
        else:
            value = np.asarray(self._root_value(seed, np), np.int32)
        zeros = np.zeros((n,), np.int32)
        return State(depth=zeros, index=zeros.copy(), value=value, seed=seed)

    def _root_of(self, seed: int) -> State:
        if self.ordering == "random":
            value = jnp.int32(0)
        else:
            value = jnp.asarray(self._root_value(seed), jnp.int32)
        return State(
            depth=jnp.int32(0),
            index=jnp.int32(0),
            value=value,
            seed=jnp.asarray(seed, dtype=jnp.uint32),
        )

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> State:
        """The root of the game's own tree (its ``seed`` parameter)."""
        return self._root_of(self.seed)

    def player(self, state: State) -> jax.Array:
        return (state.depth % 2).astype(jnp.int32)

    def legal_mask(self, state: State) -> jax.Array:
        return jnp.broadcast_to(state.depth < self.depth, (self.branching,))

    def step(self, state: State, action: jax.Array) -> State:
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, self.branching - 1)
        ok = state.depth < self.depth  # stepping a leaf leaves the state unchanged
        child = state.index * self.branching + a
        if self.ordering == "random":
            value = state.value
        else:
            value = self._child_value(state.seed, state.value, state.depth, child, a)
        return State(
            depth=jnp.where(ok, state.depth + 1, state.depth).astype(jnp.int32),
            index=jnp.where(ok, child, state.index).astype(jnp.int32),
            value=jnp.where(ok, value, state.value).astype(jnp.int32),
            seed=jnp.asarray(state.seed, jnp.uint32),
        )

    def terminal(self, state: State) -> jax.Array:
        return state.depth >= self.depth

    def _leaf_value(self, state: State) -> jax.Array:
        """Value of the node as a leaf, for player 0."""
        if self.ordering == "random":
            span = jnp.uint32(2 * self.value_range + 1)
            h = node_hash(state.seed, state.depth, state.index)
            return (h % span).astype(jnp.int32) - self.value_range
        return jnp.where(state.depth % 2 == 0, state.value, -state.value)

    def utility(self, state: State) -> jax.Array:
        v = jnp.where(self.terminal(state), self._leaf_value(state), 0).astype(jnp.float32)
        return jnp.stack([v, -v])

    def hash(self, state: State) -> jax.Array:
        d = jnp.clip(state.depth, 0, self.depth)
        gid = self._offsets[d] + state.index.astype(jnp.uint32)  # unique node id, < 2**32
        s = jnp.asarray(state.seed, jnp.uint32)
        return jnp.stack([fmix32(gid ^ s), fmix32(gid + jnp.uint32(_GOLDEN)) ^ fmix32(s)])

    # ------------------------------------------------------------------ host side
    position_formats = (
        ("path: the child indices from the root, separated by '.'", "0.1"),
        ("the root", "root"),
    )

    def parse(self, text: str) -> State:
        """A path ``"0.2.1"`` (or ``""``/``"root"``) -> the node of the game's own tree.

        The game's ``seed`` gives the tree; other trees are reached with :meth:`root`.
        """
        raw = text
        text = text.strip()
        if text.startswith("root"):
            text = text[4:].lstrip(".")
        steps = text.split(".") if text else []
        actions = []
        for i, step in enumerate(steps, start=1):
            where = ".".join(steps[: i - 1]) or "root"
            try:
                k = whole_number(step.strip())
            except ValueError:
                raise GameError(
                    f"uniform_tree: step {i} ({step!r}) of {raw!r}: not a child index"
                ) from None
            if i > self.depth:
                raise GameError(
                    f"uniform_tree: step {i} ({step!r}) of {raw!r}: the node at '{where}' is a leaf"
                )
            if not 0 <= k < self.branching:
                raise GameError(
                    f"uniform_tree: step {i} ({step!r}) of {raw!r}: the node at '{where}' has "
                    f"{self.branching} children"
                )
            actions.append(k)
        return self._walk(actions)

    def _walk(self, actions: list[int]) -> State:
        """The state after ``actions`` from the game's root, computed on the host with numpy."""
        depth, index = 0, 0
        value = self._root_value(self.seed, np) if self.ordering != "random" else np.int32(0)
        for a in actions:
            child = index * self.branching + a
            if self.ordering != "random":
                value = self._child_value(
                    self.seed, np.asarray(value, np.int32), np.int64(depth), np.int64(child), a, np
                )
            depth, index = depth + 1, child
        return State(
            depth=jnp.int32(depth),
            index=jnp.int32(index),
            value=jnp.asarray(value, jnp.int32).reshape(()),
            seed=jnp.asarray(self.seed, dtype=jnp.uint32),
        )

    def format(self, state: State) -> str:
        """The path of ``state`` from its root, ``"2.0.1"`` (``"root"`` for a root); the seed
        is not written, so :meth:`parse` reads it back as a node of the game's own tree."""
        depth, index = int(np.asarray(state.depth)), int(np.asarray(state.index))
        digits = []
        for _ in range(depth):
            index, a = divmod(index, self.branching)
            digits.append(str(a))
        return ".".join(reversed(digits)) or "root"
