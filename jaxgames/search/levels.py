"""Level-by-level expansion of a game tree (or DAG) from a batch of roots.

The driver keeps each level's states on the host and ships them to the device in fixed-size
chunks through :func:`jaxgames.kernels.expand_all`. With ``dedupe`` the states of a level are
merged by exact equality, which turns the tree into a DAG of distinct positions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from jaxgames import progress
from jaxgames.game import Game
from jaxgames.kernels import batch_size, expand_all, state_keys, take, to_numpy


class Edges(NamedTuple):
    """Edges from level ``l`` to level ``l + 1``, in (parent, action) order."""

    parent: np.ndarray  # int32[E]: node index in level l
    child: np.ndarray  # int32[E]: node index in level l + 1
    action: np.ndarray  # int32[E]
    prob: np.ndarray  # float32[E]: P(outcome) below chance nodes, else 1


class Levels(NamedTuple):
    states: list[Any]  # states of level l, [N_l]
    edges: list[Edges]  # edges[l] connects level l to level l + 1


class TooLarge(RuntimeError):
    """The expansion would exceed the node budget (``limit`` nodes, passed at ``ply``)."""

    def __init__(self, message: str, limit: int = 0, ply: int = 0) -> None:
        super().__init__(message)
        self.limit, self.ply = limit, ply


def dedupe_states(states: Any) -> tuple[Any, np.ndarray]:
    """Merge equal states. Returns (distinct states, inverse: int32[N] index into them)."""
    keys = state_keys(states)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return take(to_numpy(states), first), inverse.astype(np.int32).ravel()


def expand_levels(
    game: Game,
    roots: Any,
    depth: int | None,
    dedupe: bool = False,
    max_nodes: int = 50_000_000,
    chunk: int = 2048,
) -> Levels:
    """Expand ``roots`` level by level down to ``depth`` plies (``None``: to the end).

    Terminal states get no children. Raises :class:`TooLarge` past ``max_nodes`` states.
    """
    levels = [to_numpy(roots)]
    edges: list[Edges] = []
    total = batch_size(roots)
    while depth is None or len(edges) < depth:
        ply = len(edges) + 1
        with progress.phase(f"ply {ply}: expanding {batch_size(levels[-1]):,} positions"):
            front = expand_all(game, levels[-1], chunk=chunk)
        if front.count == 0:
            break
        children = front.children
        child = np.arange(front.count, dtype=np.int32)
        if dedupe:
            children, child = dedupe_states(children)
        total += batch_size(children)
        progress.count(total, None, "positions")
        if total > max_nodes:
            lower = "" if depth is None else "lower the depth or "
            raise TooLarge(
                f"{game.name}: more than {max_nodes:,} nodes by ply {ply}; {lower}raise max_nodes",
                max_nodes,
                ply,
            )
        edges.append(Edges(front.parent, child, front.action, front.prob))
        levels.append(children)
    return Levels(levels, edges)
