"""The result every search returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np


@dataclass
class SearchResult:
    """What a search found at one root.

    Attributes:
        value: float32[num_players], the backed-up utility vector of the root.
        best_action: the chosen action at the root (-1 at a terminal root or chance node).
        pv: the principal variation, a list of actions from the root.
        stats: what the search did: ``nodes``, ``leaves``, ``time_s`` and algorithm-specific
            counters (cutoffs, TT hits, ...).
        action_values: float32[num_actions, num_players], the backed-up value after each root
            action (NaN for illegal actions), when the search computed it.
    """

    value: np.ndarray
    best_action: int
    pv: list[int]
    stats: dict[str, Any] = field(default_factory=dict)
    action_values: np.ndarray | None = None

    def optimal_actions(self, player: int, tol: float = 1e-6) -> list[int]:
        """Every root action whose value for ``player`` ties the best (needs action_values)."""
        if self.action_values is None:
            raise ValueError("this search did not record the values of the root actions")
        scores = self.action_values[:, player]
        legal = ~np.isnan(scores)
        if not legal.any():
            return []
        best = np.nanmax(scores)
        return [int(a) for a in np.flatnonzero(legal & (scores >= best - tol))]


class BatchSearchResult(NamedTuple):
    """What a search found at each of N roots searched together.

    Attributes:
        value: float32[N, num_players], the backed-up utility vector of each root.
        best_action: int32[N], the chosen root action (-1 at terminal roots).
        pv: int32[N, L], each root's principal variation, padded with -1.
        nodes: int64[N], nodes visited below each root (the root included).
        stats: totals over the batch: ``nodes``, ``leaves``, ``time_s`` and
            algorithm-specific counters.
    """

    value: np.ndarray
    best_action: np.ndarray
    pv: np.ndarray
    nodes: np.ndarray
    stats: dict[str, Any]
