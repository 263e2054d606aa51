"""maxⁿ and paranoid search of one root: one lane on the device, or the host driver
(:mod:`jaxgames.search.host`) over a frontier searched by the lanes."""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError
from jaxgames.kernels import batch_size, stack, to_numpy
from jaxgames.search.host import BackupRule, host_driver, one_root, paranoid_backup
from jaxgames.search.maxn.batch import (
    _check,
    _search,
    maxn_batch,
    paranoid_batch,
    pruning_bounds,
    resolve_pruning,
)
from jaxgames.search.maxn.rules import Paranoid
from jaxgames.search.minimax import backup
from jaxgames.search.result import BatchSearchResult, SearchResult


def _mode(mode: str, depth: int, split: int, what: str) -> str:
    if mode not in ("auto", "device", "host"):
        raise GameError(f"{what}: mode must be auto, device or host, got {mode!r}")
    if mode == "auto":  # as measured on a multi-player board game (see maxn)
        mode = "host" if depth >= 3 else "device"
    return "host" if mode == "host" and depth > split else "device"


def _root_player(game: Game, state: Any) -> int:
    return int(np.asarray(game.player(jax.tree.map(jnp.asarray, state))))


def maxn(
    game: Game,
    state: Any,
    depth: int,
    *,
    pruning: str = "auto",
    bounds: tuple[float, float] | None = None,
    agree: bool | None = None,
    immediate: bool = True,
    mode: str = "auto",
    split: int = 2,
    lanes: int = 256,
    events: int = 16,
) -> SearchResult:
    """maxⁿ of one position (with Korf's shallow pruning, or alpha-beta where sound).

    Two ways to run it: ``"device"``, one lane of :func:`maxn_batch`; ``"host"``, the top
    ``split`` plies expanded on the host without pruning, their frontier searched by
    :func:`maxn_batch` (one job per frontier node, ``depth - split`` plies each), the vectors
    backed up the top by the maxⁿ rule (:func:`jaxgames.search.host.host_driver`).
    ``"auto"``: the host driver from depth 3 (in ``benchmarks/multiplayer.py``, one
    three-player root of its star-board game at a time on a 2-core CPU, the single lane was
    faster at depth 2 and the host driver at depth 3). The values are the same.

    Args:
        pruning, bounds, agree, immediate, lanes, events: as for :func:`maxn_batch`.

    Returns:
        A :class:`SearchResult` with the maxⁿ vector; ``stats`` has ``nodes``, ``leaves``,
        ``cutoffs``, ``pruning``, ``mode`` and ``time_s`` (and ``frontier`` on the host).
    """
    _check(game, depth, "maxn")
    started = time.perf_counter()
    pruning = resolve_pruning(game, pruning, agree)
    options = dict(
        pruning=pruning, bounds=bounds, agree=agree, immediate=immediate, lanes=lanes, events=events
    )
    if _mode(mode, depth, split, "maxn") != "host":
        return one_root(maxn_batch(game, stack([to_numpy(state)]), depth, **options), started)
    back_up: BackupRule = backup
    if (
        pruning == "alphabeta"
    ):  # the frontier searched, and the top backed up, for the root's player
        root_player = _root_player(game, state)
        back_up = paranoid_backup(root_player)

        def search(frontier: Any, plies: int) -> BatchSearchResult:
            return _search(
                game,
                frontier,
                plies,
                Paranoid(),
                pruning_bounds(game, bounds),
                np.full(batch_size(frontier), root_player, np.int32),
                lanes,
                events,
                4,
                False,
                "alphabeta",
            )

    else:

        def search(frontier: Any, plies: int) -> BatchSearchResult:
            return maxn_batch(game, frontier, plies, **options)

    return host_driver(game, state, depth, split, search, back_up)


def paranoid(
    game: Game,
    state: Any,
    depth: int,
    *,
    mode: str = "auto",
    split: int = 2,
    lanes: int = 256,
    events: int = 16,
) -> SearchResult:
    """Paranoid search of one position: the player to move against the coalition of all
    others, two-player alpha-beta on its component (see :func:`paranoid_batch`).

    ``mode``: ``"device"`` (one lane), ``"host"`` (top ``split`` plies on the host, the
    frontier searched for the root's player by the lanes) or ``"auto"`` (host from depth 3).

    Returns:
        A :class:`SearchResult`: ``value`` is the vector of the principal variation's leaf,
        its root-player component the paranoid value.
    """
    _check(game, depth, "paranoid")
    started = time.perf_counter()
    if _mode(mode, depth, split, "paranoid") != "host":
        batch = paranoid_batch(game, stack([to_numpy(state)]), depth, lanes=lanes, events=events)
        return one_root(batch, started)
    root_player = _root_player(game, state)

    def search(frontier: Any, plies: int) -> BatchSearchResult:
        players = np.full(batch_size(frontier), root_player, np.int32)
        return paranoid_batch(
            game, frontier, plies, root_players=players, lanes=lanes, events=events
        )

    return host_driver(game, state, depth, split, search, paranoid_backup(root_player))
