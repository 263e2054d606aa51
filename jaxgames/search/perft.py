"""Perft: count the move sequences (or distinct positions) at each ply below a position.

``perft(n)`` is the number of sequences of exactly ``n`` steps from the root, where a
sequence stops at a terminal state (so finished games are not extended). Move-generation
bugs show up as wrong counts, which is why published perft tables are the standard test of
a game's rules. The last ply is counted from its parents' legal masks without building it.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np

from jaxgames.game import Game
from jaxgames.kernels import batch_size, batched, pad_to, stack, take, to_numpy
from jaxgames.search.levels import expand_levels


class PerftResult(NamedTuple):
    counts: list[int]  # counts[n - 1]: sequences (or positions) of exactly n plies
    terminal: list[int | None]  # terminal[n - 1]: how many are finished games (None: not built)
    time_s: float


def _count_branches(game: Game, states: Any, chunk: int = 2048) -> tuple[int, int]:
    """(number of children of the batch, number of terminal states in the batch)."""
    kernels = batched(game)
    n = batch_size(states)
    children = terminal = 0
    for start in range(0, n, chunk):
        part = take(states, slice(start, start + chunk))
        size = batch_size(part)
        padded = pad_to(part, chunk)
        legal = np.asarray(kernels.legal_mask(padded))[:size]
        children += int(legal.sum())
        terminal += int(np.asarray(kernels.terminal(padded))[:size].sum())
    return children, terminal


def perft(game: Game, state: Any, depth: int, distinct: bool = False) -> PerftResult:
    """Count the sequences (or, with ``distinct``, the distinct positions) at plies 1..depth.

    Args:
        game: a deterministic game (chance outcomes would be counted as plies).
        state: the root (one state).
        depth: the deepest ply to count (>= 1).
        distinct: count distinct positions per ply instead of sequences.

    Returns:
        A :class:`PerftResult` with ``counts`` and ``terminal`` lists of length ``depth``
        (shorter only when the game ends everywhere sooner: then the rest are zeros).
    """
    if depth < 1:
        raise ValueError(f"perft: depth must be >= 1, got {depth}")
    start = time.perf_counter()
    if distinct:
        levels = expand_levels(game, stack([state]), depth, dedupe=True)
        counts = [batch_size(s) for s in levels.states[1:]]
        terminal = [
            int(np.asarray(batched(game).terminal(pad_to(s, batch_size(s)))).sum())
            for s in levels.states[1:]
        ]
    else:
        levels = expand_levels(game, stack([state]), depth - 1)
        counts = [batch_size(s) for s in levels.states[1:]]
        terminal = [_count_branches(game, s)[1] for s in levels.states[1:]]
        if len(levels.states) == depth:  # the last ply: count, don't build
            last_children, _ = _count_branches(game, levels.states[-1])
            counts.append(last_children)
            terminal.append(None)  # unknown without building the ply
    terminal += [0] * (depth - len(counts))
    counts += [0] * (depth - len(counts))
    return PerftResult(counts, terminal, time.perf_counter() - start)


def distinct_positions(game: Game, state: Any, depth: int) -> list[int]:
    """Distinct positions at plies 0..depth (the root counts as ply 0)."""
    levels = expand_levels(game, stack([to_numpy(state)]), depth, dedupe=True)
    return [batch_size(s) for s in levels.states]


__all__ = ["PerftResult", "distinct_positions", "perft"]
