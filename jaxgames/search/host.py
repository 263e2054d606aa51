"""One root searched through the host: the top plies level by level, the frontier as a batch.

A single deep search on a device keeps one lane busy while the others idle. The host driver
instead expands the top ``split`` plies of the root on the host, level by level and without
pruning (:func:`jaxgames.search.levels.expand_levels`), searches the whole frontier as ONE
batch of independent searches (``depth - split`` plies each, one job per frontier node, so
the device's lanes fill), and backs the frontier's values up the top of the tree.

What differs between searches is passed in, typed: the batch search of the frontier
(:class:`FrontierSearch`: alpha-beta, maxⁿ, paranoid lanes) and the rule the top levels
are backed up by (:class:`BackupRule`: the maxⁿ rule of :func:`~.minimax.backup`, which is
minimax for two players, or :func:`paranoid_backup`). Both return the value of the search
run on the device as a whole: the top plies are full width, the frontier's searches exact.

:func:`one_root` is the other way to search one root: a batch search of that root alone.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import numpy as np

from jaxgames.game import Game
from jaxgames.kernels import batch_size, batched, bucket_size, pad_to, stack, to_numpy
from jaxgames.search.levels import Levels, expand_levels
from jaxgames.search.minimax import Backup, backup, principal_variation, root_action_values
from jaxgames.search.result import BatchSearchResult, SearchResult


class FrontierSearch(Protocol):
    """The batch search of a frontier: ``(states [K], plies) -> BatchSearchResult`` with
    each node's value vector, principal variation and counters."""

    def __call__(self, frontier: Any, plies: int) -> BatchSearchResult: ...


class BackupRule(Protocol):
    """How the top levels take their children's vectors: ``(game, levels, deepest
    [K, P]) -> Backup`` (values and best edges per level, ties to the lowest action)."""

    def __call__(self, game: Game, levels: Levels, deepest: np.ndarray) -> Backup: ...


def host_driver(
    game: Game,
    state: Any,
    depth: int,
    split: int,
    search: FrontierSearch,
    back_up: BackupRule = backup,
) -> SearchResult:
    """Search ``state`` to ``depth``: the top ``split`` plies on the host, the frontier by
    ``search`` (``depth - split`` plies below each node), values backed up by ``back_up``.

    Returns:
        A :class:`SearchResult` with the root's vector, its PV (the top's best edges, then
        the frontier node's own PV) and the value of every root action. ``stats`` are the
        frontier search's totals (its per-node arrays dropped), ``nodes`` and ``leaves``
        with the top's added, ``frontier`` (its size), ``mode`` ``"host"`` and ``time_s``.
    """
    start = time.perf_counter()
    levels = expand_levels(game, stack([to_numpy(state)]), split)
    frontier = levels.states[-1]
    plies = len(levels.edges)
    below = search(frontier, depth - plies)
    back = back_up(game, levels, below.value)
    pv = principal_variation(levels, back, 0)
    node = 0  # follow the PV to its frontier node, then append that node's own PV
    for level, edges in enumerate(levels.edges):
        edge = back.best_edge[level][node]
        if edge < 0:
            break
        node = int(edges.child[edge])
    else:
        pv += [int(a) for a in below.pv[node] if a >= 0]
    top = levels.states[:-1]
    top_nodes = sum(batch_size(s) for s in top)
    # a top node without children (a finished game) is a leaf
    top_leaves = sum(
        batch_size(s) - len(np.unique(e.parent)) for s, e in zip(top, levels.edges, strict=True)
    )
    # per-node arrays describe the frontier's searches, not this root
    stats = {k: v for k, v in below.stats.items() if not isinstance(v, np.ndarray)}
    stats["nodes"] = int(top_nodes + below.nodes.sum())
    if "leaves" in stats:
        stats["leaves"] = int(top_leaves + stats["leaves"])
    stats.update({"frontier": batch_size(frontier), "mode": "host"})
    stats["time_s"] = time.perf_counter() - start
    return SearchResult(
        value=np.asarray(back.values[0][0], np.float32),
        best_action=pv[0] if pv else -1,
        pv=pv,
        stats=stats,
        action_values=root_action_values(game, levels, back, 0),
    )


def one_root(batch: BatchSearchResult, started: float) -> SearchResult:
    """The result of a batch search of one root as that root's :class:`SearchResult`
    (``stats`` keep their one-root arrays; ``mode`` ``"device"``; ``time_s`` since
    ``started``)."""
    stats = dict(batch.stats)
    stats.update(
        {"nodes": int(batch.nodes[0]), "mode": "device", "time_s": time.perf_counter() - started}
    )
    return SearchResult(
        value=np.asarray(batch.value[0], np.float32),
        best_action=int(batch.best_action[0]),
        pv=[int(a) for a in batch.pv[0] if a >= 0],
        stats=stats,
    )


def paranoid_backup(root_player: int) -> BackupRule:
    """The paranoid rule for ``root_player``: it takes the child with the highest
    component ``root_player``, every other mover the lowest (ties: lowest action); a node
    takes that child's whole vector."""

    def rule(game: Game, levels: Levels, deepest: np.ndarray) -> Backup:
        kernels = batched(game)
        depth = len(levels.edges)
        values: list[np.ndarray] = [np.empty(0)] * (depth + 1)
        best_edge: list[np.ndarray] = [np.empty(0, np.int32)] * (depth + 1)
        values[depth] = deepest
        best_edge[depth] = np.full(len(deepest), -1, np.int32)
        for level in range(depth - 1, -1, -1):
            states, edges = levels.states[level], levels.edges[level]
            count = batch_size(states)
            value = _on_device(kernels.leaf_values, states).astype(np.float32)
            mover = _on_device(kernels.player, states)
            chosen = np.full(count, -1, np.int32)
            child = values[level + 1][edges.child]  # [E, P]
            sign = np.where(mover[edges.parent] == root_player, 1.0, -1.0)
            key = sign * child[:, root_player]
            # per parent: the highest key, the first edge (lowest action) among ties
            order = np.lexsort((np.arange(len(key)), -key, edges.parent))
            first = order[np.r_[True, edges.parent[order][1:] != edges.parent[order][:-1]]]
            chosen[edges.parent[first]] = first
            has = chosen >= 0
            value[has] = child[chosen[has]]
            values[level], best_edge[level] = value, chosen
        return Backup(values, best_edge)

    return rule


def _on_device(fn: Any, states: Any) -> np.ndarray:
    """A batched kernel on ``states`` padded to a power of two (few compiled shapes)."""
    n = batch_size(states)
    return np.asarray(fn(pad_to(states, bucket_size(n, 16))))[:n]


__all__ = ["BackupRule", "FrontierSearch", "host_driver", "one_root", "paranoid_backup"]
