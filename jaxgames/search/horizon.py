"""How deep a search of some roots needs to go: never past the end of their games."""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

from jaxgames.game import Game


@functools.cache
def _plies_left(game: Game) -> Any:
    return jax.jit(jax.vmap(game.plies_left))


def needed_depth(game: Game, roots: Any, depth: int) -> int:
    """``depth``, lowered to the most plies any of ``roots`` [N] can still last.

    Below that every path has ended in a finished game, so a deeper search would find the
    same values at more cost (``--depth 1000`` costs what the game needs). Games that bound
    no length (``max_game_length`` 0) keep ``depth``.
    """
    if depth <= 0 or game.max_game_length <= 0:
        return depth
    return int(min(depth, most_plies_left(game, roots)))


def plies_left_each(game: Game, roots: Any) -> np.ndarray | None:
    """int32[N]: the most plies each of ``roots`` [N] can still last; None for games that
    bound no length."""
    if game.max_game_length <= 0:
        return None
    return np.asarray(_plies_left(game)(roots))


def most_plies_left(game: Game, roots: Any) -> int:
    """The most plies any of ``roots`` [N] can still last (a huge number for games that
    bound no length)."""
    left = plies_left_each(game, roots)
    if left is None:
        return 1 << 30
    return max(int(left.max(initial=0)), 0)
