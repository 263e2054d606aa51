"""Game-agnostic batched kernels, built from any :class:`jaxgames.game.Game`.

Installed as ``jaxgames.kernels``. Every kernel takes and returns plain arrays (pytrees of
arrays with a leading batch axis), never Python objects, and is compiled once per game and
input shape.
"""

from jaxgames.kernels.batched import Batched, batched, leaf_values
from jaxgames.kernels.cpu import wide_vectors
from jaxgames.kernels.expand import Frontier, expand, expand_all
from jaxgames.kernels.expectation import expectation, outcomes
from jaxgames.kernels.playout import (
    PlayoutMeans,
    PlayoutResult,
    lanes_that_fit,
    playout_means,
    playouts,
    random_actions,
    sample_actions,
    sample_legal,
    state_bytes,
)
from jaxgames.kernels.sharding import (
    batch_sharding,
    local_mesh,
    shard_batch,
    shard_multiple,
    split_cpu,
)
from jaxgames.kernels.states import (
    batch_size,
    bucket_size,
    check_batch,
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
    "PlayoutMeans",
    "PlayoutResult",
    "batch_sharding",
    "batch_size",
    "bucket_size",
    "check_batch",
    "batched",
    "concat",
    "expand",
    "expand_all",
    "expectation",
    "leaf_values",
    "local_mesh",
    "outcomes",
    "pad_to",
    "lanes_that_fit",
    "playout_means",
    "playouts",
    "random_actions",
    "repeat",
    "sample_actions",
    "sample_legal",
    "shard_batch",
    "shard_multiple",
    "split_cpu",
    "stack",
    "state_bytes",
    "state_keys",
    "take",
    "to_numpy",
    "unstack",
    "wide_vectors",
]
