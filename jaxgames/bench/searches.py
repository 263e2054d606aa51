"""Timing a batched alpha-beta the way the benchmark scripts do: a first call on copies of a
finished game with the same shapes (tracing and compilation), then one steady-state search
of the real roots; and the rows and table of such searches."""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

import jax
import numpy as np

from jaxgames.bench.helpers import table_of
from jaxgames.game import Game
from jaxgames.kernels import batch_size, to_numpy
from jaxgames.registry import make
from jaxgames.search import alphabeta_batch


def copies(state: Any, n: int) -> Any:
    """A batch of ``n`` copies of one state (numpy)."""
    return jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], n, 0), to_numpy(state))


def search_twice(
    game: Game, roots: Any, depth: int, finished: Any, **options: Any
) -> tuple[float, float, Any]:
    """(first call s on copies of ``finished``, seconds on ``roots``, the result) of
    :func:`jaxgames.search.alphabeta_batch` with ``options``.

    The first call has the same shapes as the timed one, so it traces and compiles all that
    the timed call runs; on a finished game it searches nothing else.
    """
    n = batch_size(roots)
    t0 = time.perf_counter()
    alphabeta_batch(game, copies(finished, n), depth, **options)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = alphabeta_batch(game, roots, depth, **options)
    return first, time.perf_counter() - t0, result


def search_row(depth: int, n: int, first: float, seconds: float, stats: dict) -> dict[str, Any]:
    """The JSON row of one timed search of ``n`` roots: times, rates and the node counts."""
    return {
        "depth": depth,
        "positions": n,
        "first_call_s": first,
        "seconds": seconds,
        "positions_per_s": n / seconds,
        "nodes": stats["nodes"],
        "nodes_per_s": stats["nodes"] / seconds,
        "nodes_per_position": stats["nodes"] / n,
        "leaves": stats["leaves"],
        "cutoffs": stats["cutoffs"],
        "tt_hits": stats["tt_hits"],
        "lanes": stats.get("lanes"),
    }


def depth_table(rows: list[dict[str, Any]]) -> None:
    """The terminal table of :func:`search_row` rows, one line per depth."""
    table_of(
        rows,
        {
            "depth": "depth",
            "positions": "positions",
            "positions/s": "positions_per_s",
            "nodes/s": "nodes_per_s",
            "nodes/pos": "nodes_per_position",
            "seconds": "seconds",
            "first call s": "first_call_s",
        },
    )


def one_at_a_time(call: Any, states: list[Any]) -> tuple[float, list[float], list[Any]]:
    """(first pass s, the seconds of each call of a second pass, its results) of ``call``
    on every state in turn: the first pass compiles every shape the roots need, the second
    is timed one call per root, host overhead included."""
    t0 = time.perf_counter()
    for state in states:
        call(state)
    first = time.perf_counter() - t0
    times, results = [], []
    for state in states:
        t0 = time.perf_counter()
        results.append(call(state))
        times.append(time.perf_counter() - t0)
    return first, times, results


def single_row(depth: int, mode: str, first: float, times: list[float], nodes: int) -> dict:
    """The JSON row of one pass of :func:`one_at_a_time`."""
    total = sum(times)
    return {
        "depth": depth,
        "mode": mode,
        "first_pass_s": first,
        "seconds": total,
        "positions_per_s": len(times) / total,
        "median_ms": 1000 * statistics.median(times),
        "nodes": nodes,
        "nodes_per_s": nodes / total,
    }


def single_table(rows: list[dict[str, Any]]) -> None:
    """The terminal table of :func:`single_row` rows."""
    table_of(
        rows,
        {
            "depth": "depth",
            "mode": "mode",
            "positions/s": "positions_per_s",
            "median ms": "median_ms",
            "nodes/s": "nodes_per_s",
            "first pass s": "first_pass_s",
        },
    )


def uniform_tree_rows(
    shapes: list[tuple[int, int]], trees: int, options: dict[str, Any]
) -> list[dict[str, Any]]:
    """Alpha-beta with ``options`` on ``uniform_tree`` games of each (branching, depth),
    children in random order and best first: the mean leaves searched, the effective
    branching factor ``L^(1/d)`` beside ``b^(3/4)``, ``b^(1/2)``, the minimal tree and
    ``b^d``. The roots of ``trees`` seeds are searched in one batch."""
    rows = []
    for b, d in shapes:
        for ordering in ("random", "best"):
            game = make("uniform_tree", branching=b, depth=d, ordering=ordering)
            roots = game.roots(list(range(trees)))
            res = alphabeta_batch(game, roots, d, **options)
            leaves, nodes, count = res.stats["leaves"], res.stats["nodes"], batch_size(roots)
            mean_leaves = leaves / count
            minimal = b ** math.ceil(d / 2) + b ** (d // 2) - 1
            rows.append(
                {
                    "branching": b,
                    "depth": d,
                    "ordering": ordering,
                    "trees": count,
                    "mean_leaves": mean_leaves,
                    "mean_nodes": nodes / count,
                    "effective_branching": mean_leaves ** (1 / d),
                    "b_3_4": b**0.75,
                    "b_1_2": b**0.5,
                    "full_tree_leaves": b**d,
                    "minimal_tree_leaves": minimal,
                }
            )
    table_of(
        rows,
        {
            "b": "branching",
            "d": "depth",
            "ordering": "ordering",
            "trees": "trees",
            "mean leaves": "mean_leaves",
            "L^(1/d)": lambda r: f"{r['effective_branching']:.2f}",
            "b^(3/4)": lambda r: f"{r['b_3_4']:.2f}",
            "b^(1/2)": lambda r: f"{r['b_1_2']:.2f}",
            "minimal tree": "minimal_tree_leaves",
            "b^d": "full_tree_leaves",
        },
    )
    return rows
