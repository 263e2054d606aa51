"""Game-agnostic batched kernels, built from any :class:`jaxgames.game.Game`.

Installed as ``jaxgames.kernels``. Every kernel takes and returns plain arrays (pytrees of
arrays with a leading batch axis), never Python objects, and is compiled once per game and
input shape.
"""

from jaxgames.kernels.batched import Batched, batched, leaf_values
from jaxgames.kernels.expand import Frontier, expand, expand_all
from jaxgames.kernels.playout import PlayoutResult, playouts, sample_actions, sample_legal
from jaxgames.kernels.states import (
    batch_size,
    concat,
    pad_to,
    repeat,
    stack,
    state_keys,
    take,
    to_numpy,
    unstack,
)

__all__ = [
    "Batched",
    "Frontier",
    "PlayoutResult",
    "batch_size",
    "batched",
    "concat",
    "expand",
    "expand_all",
    "leaf_values",
    "pad_to",
    "playouts",
    "repeat",
    "sample_actions",
    "sample_legal",
    "stack",
    "state_keys",
    "take",
    "to_numpy",
    "unstack",
]
