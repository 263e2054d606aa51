"""jaxgames: batched game-tree evaluation in JAX.

Game rules are pure functions over fixed-shape arrays (:mod:`jaxgames.game`); the kernels in
:mod:`jaxgames.kernels` lift them over batches; :mod:`jaxgames.search` runs the classic
adversarial searches on top; :func:`evaluate` runs a search over many positions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

from jaxgames.game import CHANCE, Game, GameError
from jaxgames.registry import list_games, make, register


def _bulk() -> ModuleType:
    """:mod:`jaxgames.bulk`, imported on first use (so ``import jaxgames`` stays cheap), with
    JAX's persistent compilation cache turned on
    (:func:`jaxgames.compilation.use_persistent_cache`): the next process skips compiling."""
    from jaxgames import bulk
    from jaxgames.compilation import use_persistent_cache

    use_persistent_cache()
    return bulk


def evaluate(
    game: Game | str, positions: Iterable[Any], *args: Any, **options: Any
) -> list[dict[str, Any]]:
    """Search every position; one row (a dict) per position, in input order.

    The arguments are those of :func:`jaxgames.bulk.evaluate` (``algorithm="auto"``,
    ``depth=4``, ``chunk_size=None``, the search's options); compiled searches are kept in
    JAX's persistent compilation cache.
    """
    return _bulk().evaluate(game, positions, *args, **options)


def iter_evaluate(
    game: Game | str, positions: Iterable[Any], *args: Any, **options: Any
) -> Iterator[dict[str, Any]]:
    """Like :func:`evaluate`, yielding the rows as each chunk is done
    (:func:`jaxgames.bulk.iter_evaluate`), with the same compilation cache."""
    return _bulk().iter_evaluate(game, positions, *args, **options)


def match(game: Game | str, agents: list[Any], *args: Any, **options: Any) -> Any:
    """Agents play ``game`` against each other (:func:`jaxgames.arena.match`): a
    :class:`~jaxgames.arena.MatchResult` with the score, Elo and every game's record."""
    from jaxgames import arena

    return arena.match(make(game) if isinstance(game, str) else game, agents, *args, **options)


__all__ = [
    "CHANCE",
    "Game",
    "GameError",
    "evaluate",
    "iter_evaluate",
    "list_games",
    "make",
    "match",
    "register",
]
__version__ = "0.1.0"
