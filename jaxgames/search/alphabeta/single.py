"""Alpha-beta of one root, and fitting a ProbCut model.

Two ways to search one root:

* ``"device"``: the root is a job of :func:`~.batch.alphabeta_batch` (with ``helpers``,
  every lane of the device searches it, sharing one table, each starting from another
  root move).
* ``"host"``: the host driver of :mod:`jaxgames.search.host` expands the top ``split``
  plies level by level, ships the whole frontier to the device as one batch of
  independent searches (``depth - split`` plies each, one job per frontier node), and
  backs their values up the top of the tree by the minimax rule (the segment reductions
  of :mod:`jaxgames.search.minimax`). The top plies are searched without pruning.

``"auto"`` takes the device search on a CPU, and the host driver from depth 6 on an
accelerator (its frontier fills the lanes there); ``benchmarks/README.md`` has both
measured. Both return the exact alpha-beta value. With a ``window``, only the device search
runs.
"""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError
from jaxgames.kernels import stack, to_numpy
from jaxgames.search.alphabeta.batch import _validate, alphabeta_batch
from jaxgames.search.alphabeta.options import AlphaBetaOptions, ProbCut
from jaxgames.search.host import host_driver, one_root
from jaxgames.search.result import BatchSearchResult, SearchResult


def alphabeta(
    game: Game,
    state: Any,
    depth: int,
    mode: str = "auto",
    split: int = 2,
    options: AlphaBetaOptions | None = None,
    **keywords: Any,
) -> SearchResult:
    """Alpha-beta of one root (``mode``: ``"auto"``, ``"device"`` or ``"host"``).

    Args:
        options, keywords: as for :func:`~.batch.alphabeta_batch` (``window`` too).
    """
    _validate(game, depth)
    if mode not in ("auto", "device", "host"):
        raise GameError(f"alphabeta: mode must be auto, device or host, got {mode!r}")
    windowed = keywords.get("window") is not None
    if windowed and mode == "host":
        raise GameError("alphabeta: a window needs mode='device' (the host driver has none)")
    if mode == "auto":
        accelerator = jax.default_backend() != "cpu"
        mode = "host" if accelerator and depth >= 6 and not windowed else "device"
    if mode == "host" and depth > split:

        def frontier(states: Any, plies: int) -> BatchSearchResult:
            return alphabeta_batch(game, states, plies, options, **keywords)

        return host_driver(game, state, depth, split, frontier)  # the minimax rule on top
    started = time.perf_counter()
    return one_root(
        alphabeta_batch(game, stack([to_numpy(state)]), depth, options, **keywords), started
    )


def fit_probcut(game: Game, states: Any, depth: int, t: float = 1.5) -> ProbCut:
    """Fit :class:`ProbCut` for ``depth`` by least squares on positions ``states`` [N].

    Deep values come from exact alpha-beta at ``depth``, shallow ones at depth 1, both from
    the mover's side, over the given positions (sample them from play of the game).
    """
    mover = np.clip(np.asarray(jax.vmap(game.player)(jax.tree.map(jnp.asarray, states))), 0, 1)
    rows = np.arange(len(mover))
    deep = alphabeta_batch(game, states, depth).value[rows, mover]
    shallow = alphabeta_batch(game, states, 1).value[rows, mover]
    a, b = np.polyfit(shallow.astype(np.float64), deep.astype(np.float64), 1)
    sigma = float(np.std(deep - (a * shallow + b)))
    return ProbCut(depth=depth, a=float(a), b=float(b), sigma=max(sigma, 1e-6), t=t)
