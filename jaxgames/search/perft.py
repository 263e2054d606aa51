"""Perft: count the move sequences (or distinct positions) at each ply below a position.

``perft(n)`` is the number of sequences of exactly ``n`` steps from the root, where a
sequence stops at a terminal state (so finished games are not extended). With ``turns`` a
ply is a whole turn: the run of steps one player makes before another is to move (games
that play one move as several steps, such as a multi-jump played one jump at a time, are
counted as their published tables count them). Move-generation
bugs show up as wrong counts, which is why published perft tables are the standard test of
a game's rules. The last ply is counted from its parents' legal masks without building it.
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import MoveLists
from jaxgames.game import Game
from jaxgames.kernels import batch_size, batched, concat, pad_to, stack, take, to_numpy
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


def perft(
    game: Game, state: Any, depth: int, distinct: bool = False, turns: bool = False
) -> PerftResult:
    """Count the sequences (or, with ``distinct``, the distinct positions) at plies 1..depth.

    Args:
        game: a deterministic game (chance outcomes would be counted as plies).
        state: the root (one state).
        depth: the deepest ply to count (>= 1).
        distinct: count distinct positions per ply instead of sequences.
        turns: a ply is a whole turn (the steps of one player until another is to move or
            the game ends); sequences of steps are counted, so two step orders that reach
            the same position count twice. Not with ``distinct``.

    Returns:
        A :class:`PerftResult` with ``counts`` and ``terminal`` lists of length ``depth``
        (shorter only when the game ends everywhere sooner: then the rest are zeros).
    """
    if depth < 1:
        raise ValueError(f"perft: depth must be >= 1, got {depth}")
    start = time.perf_counter()
    if turns:
        if distinct:
            raise ValueError("perft: turns and distinct cannot be combined")
        counts, terminal = _turn_perft(game, state, depth)
        return PerftResult(counts, terminal, time.perf_counter() - start)
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


@functools.partial(jax.jit, static_argnums=0)
def _move_lists(game: Game, states: Any) -> jax.Array:
    """int32[N, M]: each state's legal actions, then -1 (M: the game's ``max_moves``, or
    its action space without the MoveLists capability)."""
    if isinstance(game, MoveLists):
        return jax.vmap(game.legal_moves)(states).astype(jnp.int32)

    def listed(state: Any) -> jax.Array:
        legal = game.legal_mask(state)
        return jnp.nonzero(legal, size=game.num_actions, fill_value=-1)[0].astype(jnp.int32)

    return jax.vmap(listed)(states)


@functools.partial(jax.jit, static_argnums=0)
def _turn_children(game: Game, parents: Any, actions: jax.Array, size: jax.Array) -> tuple:
    """The children of the first ``size`` (parent, action) pairs, split into those that end
    a turn (compacted first: states, how many, how many of them are terminal) and those
    where the same player moves again (compacted: states, how many)."""
    n = actions.shape[0]
    valid = jnp.arange(n) < size
    children = jax.vmap(game.step)(parents, actions)
    over = jax.vmap(game.terminal)(children)
    again = jax.vmap(game.player)(children) == jax.vmap(game.player)(parents)
    same = valid & again & ~over
    ends = valid & ~same
    (end_index,) = jnp.nonzero(ends, size=n, fill_value=0)
    (same_index,) = jnp.nonzero(same, size=n, fill_value=0)
    return (
        jax.tree.map(lambda x: x[end_index], children),
        ends.sum(),
        (ends & over).sum(),
        jax.tree.map(lambda x: x[same_index], children),
        same.sum(),
    )


def _head(states: Any, k: int) -> Any:
    """The first ``k`` states as host copies (slicing a device array by a new size would
    compile anew; a view would keep the whole padded buffer alive)."""
    return jax.tree.map(lambda x: np.asarray(x)[:k].copy(), states)


def _turn_perft(game: Game, root: Any, depth: int, chunk: int = 4096) -> tuple[list, list]:
    """Whole-turn perft: (sequences per ply, finished games among them per ply). Each
    batch of ``chunk`` parents is listed on the device, and only its legal (parent, action)
    pairs are stepped, ``chunk`` pairs per call."""
    level = stack([to_numpy(root)])
    counts: list[int] = []
    finished: list[int | None] = []
    for ply in range(depth):
        last = ply == depth - 1
        count = ended = 0
        ends: list[Any] = []
        pending = [level]  # states whose player is still in the middle of a turn
        while pending:
            batch = pending.pop()
            for start in range(0, batch_size(batch), chunk):
                part = pad_to(take(batch, slice(start, start + chunk)), chunk)
                moves = np.asarray(_move_lists(game, part))[: min(chunk, batch_size(batch) - start)]
                parent, slot = np.nonzero(moves >= 0)
                for lo in range(0, parent.size, chunk):
                    p = parent[lo : lo + chunk]
                    a = moves[p, slot[lo : lo + chunk]]
                    fill = chunk - p.size
                    out = _turn_children(
                        game,
                        take(part, np.pad(p, (0, fill))),
                        np.pad(a, (0, fill)).astype(np.int32),
                        np.int32(p.size),
                    )
                    done, n_done, n_over, again, n_again = out
                    n_done, n_over, n_again = (int(x) for x in (n_done, n_over, n_again))
                    count += n_done
                    ended += n_over
                    if not last and n_done:
                        ends.append(_head(done, n_done))
                    if n_again:
                        pending.append(_head(again, n_again))
        counts.append(count)
        finished.append(ended)
        if not count or last:
            break
        level = concat(ends)
    counts += [0] * (depth - len(counts))
    finished += [0] * (depth - len(finished))
    return counts, finished


def distinct_positions(game: Game, state: Any, depth: int) -> list[int]:
    """Distinct positions at plies 0..depth (the root counts as ply 0)."""
    levels = expand_levels(game, stack([to_numpy(state)]), depth, dedupe=True)
    return [batch_size(s) for s in levels.states]


__all__ = ["PerftResult", "distinct_positions", "perft"]
