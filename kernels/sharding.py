"""Spreading a batch of states over this process's devices, along its leading axis.

A batch placed with :func:`shard_batch` lives in pieces on every local device (rows
``[k * B/D, (k+1) * B/D)`` on device ``k``); a jitted kernel of the batch then runs
partitioned by XLA, each device computing its own rows, and returns sharded outputs. With one
device this is an ordinary placement. The mesh covers the *local* devices only: under JAX's
multi-process runtime each process shards its own work over its own devices (placing host
data on another process's devices is not possible).
"""

from __future__ import annotations

import os
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from jaxgames.kernels.cpu import add_xla_flag
from jaxgames.kernels.states import batch_size

BATCH_AXIS = "batch"
_CPU_DEVICES_FLAG = "--xla_force_host_platform_device_count"


def split_cpu(count: int | None = None) -> bool:
    """Expose the CPU to JAX as ``count`` devices (default: one per core), if still possible.

    A batch sharded over the local devices then runs as ``count`` independent computations,
    one per core. That pays for loops of many small kernels, which one CPU device runs
    mostly on one core: bulk alpha-beta on a 2-core CPU ran twice as fast on
    two devices as on one (``benchmarks/README.md``). It works only before JAX's backend
    starts (the first computation), and it leaves an ``XLA_FLAGS`` that already sets a
    device count alone. Other platforms (GPU, TPU) are unaffected.

    Args:
        count: devices to expose; ``None``: ``os.cpu_count()``; 1 or less: change nothing.

    Returns:
        True when the flag was set here, False when it could not be or was not wanted.
    """
    count = (os.cpu_count() or 1) if count is None else int(count)
    return count > 1 and add_xla_flag(_CPU_DEVICES_FLAG, count)


def local_mesh(axis: str = BATCH_AXIS) -> Mesh:
    """A one-axis mesh over this process's devices (all devices in a single process)."""
    return Mesh(np.array(jax.local_devices()), (axis,))


def batch_sharding(mesh: Mesh | None = None) -> NamedSharding:
    """Split the leading axis over the mesh's (first) axis; other axes are not split."""
    mesh = local_mesh() if mesh is None else mesh
    return NamedSharding(mesh, PartitionSpec(mesh.axis_names[0]))


def shard_multiple(n: int, mesh: Mesh | None = None) -> int:
    """``n`` rounded up to a multiple of the mesh's device count (the sizes shards accept)."""
    devices = (local_mesh() if mesh is None else mesh).size
    return -(-max(n, 1) // devices) * devices


def shard_batch(states: Any, mesh: Mesh | None = None) -> Any:
    """Place every leaf of a batch on the mesh, split along its leading axis.

    Args:
        states: a batch ``[B, ...]`` (numpy or jax leaves); ``B`` must be a multiple of the
            number of devices (pad with :func:`jaxgames.kernels.pad_to` and
            :func:`shard_multiple`).
        mesh: defaults to :func:`local_mesh`.

    Returns:
        The same pytree with ``jax.Array`` leaves sharded over the devices.
    """
    sharding = batch_sharding(mesh)
    n, devices = batch_size(states), sharding.mesh.size
    if n % devices:
        raise ValueError(f"shard_batch: a batch of {n} does not split over {devices} devices")
    return jax.device_put(states, sharding)
