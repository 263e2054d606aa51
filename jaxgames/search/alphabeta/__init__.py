"""Alpha-beta search (the seeds' ALPHA-BETA-SEARCH), many roots at once or one deep root.

* :mod:`~.options`: :class:`AlphaBetaOptions`, per-game tuning, the compiled config;
* :mod:`~.frames`: a lane's stack, frames packed in rows, compact move lists;
* :mod:`~.moves`: a node's move list and ordering keys;
* :mod:`~.table`: the transposition table;
* :mod:`~.event`: one event of one lane (expand the next move, or finish the frame);
* :mod:`~.batch`: :func:`alphabeta_batch`, roots as jobs of the lane engine;
* :mod:`~.single`: :func:`alphabeta`, one root (on the device, or through a host driver),
  and :func:`fit_probcut`.

Pruning never changes the value: every exact option returns the depth-limited minimax
value (to float32 rounding: the same EVAL may be compiled into differently fused code).
"""

from jaxgames.search.alphabeta.batch import alphabeta_batch
from jaxgames.search.alphabeta.options import (
    DEFAULTS,
    TUNING,
    AlphaBetaOptions,
    ProbCut,
    Singular,
    defaults_for,
)
from jaxgames.search.alphabeta.single import alphabeta, fit_probcut
from jaxgames.search.lanes import lane_phases

__all__ = [
    "DEFAULTS",
    "TUNING",
    "AlphaBetaOptions",
    "ProbCut",
    "Singular",
    "alphabeta",
    "alphabeta_batch",
    "defaults_for",
    "fit_probcut",
    "lane_phases",
]
