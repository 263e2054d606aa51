"""Minimax by level-by-level expansion and segment reductions (the seed's MINIMAX).

    MINIMAX(s) = UTILITY(s)                               if TERMINAL-TEST(s)
               = max_a MINIMAX(RESULT(s, a))               if PLAYER(s) = MAX
               = min_a MINIMAX(RESULT(s, a))               if PLAYER(s) = MIN

and its relatives, all computed by one backup rule over utility vectors:

* a decision node takes the vector of the child that is best for the player to move
  (with ``[u, -u]`` utilities this is exactly max for MAX and min for MIN; with more players
  it is maxⁿ); ties go to the lowest action;
* a chance node takes ``sum_r P(r) * value(child_r)`` (EXPECTIMINIMAX);
* with a depth limit, nodes at the cutoff are scored by EVAL (H-MINIMAX).

The whole tree below the roots is expanded on the device level by level, then values are
backed up from the deepest level with ``jax.ops.segment_max`` / ``segment_sum``. Many roots
are searched at once by giving a batch. The cost is the full tree (b^d leaves): this is the
exact reference, meant for small games, explicit trees and shallow depths.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game
from jaxgames.kernels import batch_size, batched, bucket_size, pad_to, stack, take
from jaxgames.search.horizon import needed_depth
from jaxgames.search.levels import Levels, expand_levels
from jaxgames.search.result import BatchSearchResult, SearchResult


def _bucket(n: int) -> int:
    """Round up to a power of two (at least 256), so the backup compiles for few shapes."""
    return bucket_size(n, 256)


@jax.jit
def _backup_level(
    child_values: jax.Array,  # [E, P] values of each edge's child
    parent: jax.Array,  # int32[E], == num_nodes for padding edges (dropped by segment ops)
    prob: jax.Array,  # float32[E]
    node_player: jax.Array,  # int32[N]
    leaf_value: jax.Array,  # [N, P] values of the nodes as leaves (used where no children)
) -> tuple[jax.Array, jax.Array]:
    """Back one level up. Returns (node values [N, P], best edge per node int32[N], -1 if none)."""
    num_nodes = node_player.shape[0]
    num_edges = parent.shape[0]
    valid = parent < num_nodes
    safe_parent = jnp.where(valid, parent, 0)
    mover = node_player[safe_parent]  # [E]
    own = jnp.take_along_axis(child_values, jnp.maximum(mover, 0)[:, None], axis=1)[:, 0]
    own = jnp.where(valid, own, -jnp.inf)  # [E]
    best = jax.ops.segment_max(own, parent, num_segments=num_nodes)  # [N]
    edge_index = jnp.arange(num_edges, dtype=jnp.int32)
    is_best = valid & (own >= best[safe_parent])
    best_edge = jax.ops.segment_min(
        jnp.where(is_best, edge_index, num_edges), parent, num_segments=num_nodes
    )  # [N]; first (lowest-action) child among ties
    has_children = best_edge < num_edges
    best_edge = jnp.where(has_children, best_edge, 0)
    decision_value = child_values[best_edge]  # [N, P]
    expectation = jax.ops.segment_sum(prob[:, None] * child_values, parent, num_segments=num_nodes)
    value = jnp.where((node_player == CHANCE)[:, None], expectation, decision_value)
    value = jnp.where(has_children[:, None], value, leaf_value)
    chosen = jnp.where(has_children & (node_player != CHANCE), best_edge, -1)
    return value, chosen


class Backup(NamedTuple):
    values: list[np.ndarray]  # values[l]: float32[N_l, P]
    best_edge: list[np.ndarray]  # best_edge[l]: int32[N_l], -1 at leaves and chance nodes


def backup(game: Game, levels: Levels, deepest: np.ndarray | None = None) -> Backup:
    """Back values up from the deepest level to the roots (see module docstring).

    Args:
        deepest: float32[N_last, P], values of the deepest level's nodes; by default they
            are scored as leaves (UTILITY or EVAL). A host driver passes the values of
            searches below them.
    """
    kernels = batched(game)

    def on_device(fn, states):
        n = batch_size(states)
        size = _bucket(n)
        return np.asarray(fn(pad_to(states, size)))[:n]

    depth = len(levels.edges)
    values: list[np.ndarray] = [None] * (depth + 1)  # type: ignore[list-item]
    best_edge: list[np.ndarray] = [None] * (depth + 1)  # type: ignore[list-item]
    if deepest is None:
        deepest = on_device(kernels.leaf_values, levels.states[depth])
    values[depth] = deepest
    best_edge[depth] = np.full(batch_size(levels.states[depth]), -1, np.int32)
    for level in range(depth - 1, -1, -1):
        states, edges = levels.states[level], levels.edges[level]
        n, e = batch_size(states), edges.parent.shape[0]
        n_pad, e_pad = _bucket(n), _bucket(e)
        leaf = on_device(kernels.leaf_values, states)
        player = on_device(kernels.player, states)
        child_values = values[level + 1][edges.child]
        value, chosen = _backup_level(
            np.pad(child_values, ((0, e_pad - e), (0, 0))),
            np.pad(edges.parent, (0, e_pad - e), constant_values=n_pad),
            np.pad(edges.prob, (0, e_pad - e)),
            np.pad(player, (0, n_pad - n)),
            np.pad(leaf, ((0, n_pad - n), (0, 0))),
        )
        values[level] = np.asarray(value)[:n]
        best_edge[level] = np.asarray(chosen)[:n]
    return Backup(values, best_edge)


def principal_variation(levels: Levels, back: Backup, root: int) -> list[int]:
    """Follow the best edges from ``root`` (index in level 0) while they exist."""
    pv, node = [], root
    for level, edges in enumerate(levels.edges):
        edge = back.best_edge[level][node]
        if edge < 0:
            break
        pv.append(int(edges.action[edge]))
        node = int(edges.child[edge])
    return pv


def root_action_values(game: Game, levels: Levels, back: Backup, root: int) -> np.ndarray:
    """float32[num_actions, P]: value after each legal root action, NaN for the others."""
    out = np.full((game.num_actions, game.num_players), np.nan, np.float32)
    if not levels.edges:
        return out
    edges = levels.edges[0]
    mine = np.flatnonzero(edges.parent == root)
    if batched(game).player(pad_to(take(levels.states[0], [root]), 1))[0] == CHANCE:
        return out
    out[edges.action[mine]] = back.values[1][edges.child[mine]]
    return out


def _as_batch(state: Any) -> Any:
    return stack([state])


def minimax(
    game: Game,
    state: Any,
    depth: int | None = None,
    dedupe: bool = False,
    max_nodes: int = 50_000_000,
) -> SearchResult:
    """MINIMAX / H-MINIMAX / maxⁿ / EXPECTIMINIMAX of one position, by full expansion.

    Args:
        game: any game.
        state: one state (not batched).
        depth: plies to search; ``None`` searches to the end of the game (exact value).
        dedupe: merge equal positions at each ply (the tree becomes a DAG; same values,
            far fewer nodes in games with transpositions).
        max_nodes: refuse (``TooLarge``) trees with more nodes than this.

    Returns:
        A :class:`SearchResult`; ``stats`` has ``nodes`` (positions expanded or evaluated),
        ``leaves`` (positions scored by UTILITY or EVAL), ``plies`` and ``time_s``.
    """
    if depth is not None and depth < 0:
        raise ValueError(f"minimax: depth must be >= 0, got {depth}")
    start = time.perf_counter()
    levels = expand_levels(game, _as_batch(state), depth, dedupe=dedupe, max_nodes=max_nodes)
    back = backup(game, levels)
    nodes = sum(batch_size(s) for s in levels.states)
    inner = sum(len(np.unique(e.parent)) for e in levels.edges)
    pv = principal_variation(levels, back, 0)
    return SearchResult(
        value=back.values[0][0],
        best_action=pv[0] if pv and back.best_edge[0][0] >= 0 else -1,
        pv=pv,
        stats={
            "nodes": nodes,
            "leaves": nodes - inner,
            "plies": len(levels.edges),
            "time_s": time.perf_counter() - start,
        },
        action_values=root_action_values(game, levels, back, 0),
    )


def minimax_batch(
    game: Game, states: Any, depth: int, dedupe: bool = False, max_nodes: int = 50_000_000
) -> BatchSearchResult:
    """Depth-limited minimax of many roots at once (H-MINIMAX, segment backups).

    Args:
        states: a batch ``[N]`` of roots.
        depth: plies below each root (>= 0).

    Returns:
        A :class:`BatchSearchResult` (``pv`` has ``depth`` columns).
    """
    if depth < 0:
        raise ValueError(f"minimax: depth must be >= 0, got {depth}")
    start = time.perf_counter()
    depth = needed_depth(game, states, depth)
    levels = expand_levels(game, states, depth, dedupe=dedupe, max_nodes=max_nodes)
    back = backup(game, levels)
    n = batch_size(states)
    pv = np.full((n, depth), -1, np.int32)
    node = np.arange(n)  # where each root's PV stands, per level
    alive = np.ones(n, bool)
    for level, edges in enumerate(levels.edges):
        edge = back.best_edge[level][node]
        alive &= edge >= 0
        safe = np.where(alive, edge, 0)
        pv[alive, level] = edges.action[safe[alive]]
        node = np.where(alive, edges.child[safe], 0)
    # nodes per root: carry each node's root index down the levels (trees only; with dedupe
    # a position can belong to several roots and is counted once, for the first)
    root = np.arange(n)
    counts = np.ones(n, np.int64)
    for edges in levels.edges:
        child_root = np.zeros(int(edges.child.max()) + 1 if edges.child.size else 0, np.int64)
        child_root[edges.child[::-1]] = root[edges.parent[::-1]]
        counts += np.bincount(child_root, minlength=n)
        root = child_root
    total = int(counts.sum())
    return BatchSearchResult(
        value=back.values[0],
        best_action=pv[:, 0].copy() if depth else np.full(n, -1, np.int32),
        pv=pv,
        nodes=counts,
        stats={"nodes": total, "time_s": time.perf_counter() - start},
    )


def solve(game: Game, state: Any, max_nodes: int = 50_000_000) -> SearchResult:
    """The exact game-theoretic value of a position: minimax to the end over distinct positions.

    ``result.optimal_actions(player)`` lists every move that keeps the value.
    """
    return minimax(game, state, depth=None, dedupe=True, max_nodes=max_nodes)
