"""Bulk evaluation over several processes: JAX's multi-process runtime, one slice each."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import jax

from jaxgames.game import GameError


def initialize_distributed() -> tuple[int, int]:
    """Join JAX's multi-process runtime (once); returns ``(process_index, process_count)``.

    Calls ``jax.distributed.initialize()``, which must come before any JAX computation in
    the process. Its arguments come from the environment: ``JAX_COORDINATOR_ADDRESS``
    (``host:port`` of process 0, read by JAX itself), and ``JAX_NUM_PROCESSES`` and
    ``JAX_PROCESS_ID`` when set; otherwise JAX detects them on the clusters it knows (Slurm,
    Open MPI, Cloud TPU, ...).
    """

    def env_int(name: str) -> int | None:
        raw = os.environ.get(name, "").strip()
        if not raw:
            return None
        try:
            return int(raw)
        except ValueError:
            raise GameError(f"distributed: {name}={raw!r} is not a whole number") from None

    if not jax.distributed.is_initialized():
        try:
            jax.distributed.initialize(
                num_processes=env_int("JAX_NUM_PROCESSES"), process_id=env_int("JAX_PROCESS_ID")
            )
        except (RuntimeError, ValueError, TypeError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise GameError(f"distributed: cannot join JAX's runtime: {first}") from None
    return jax.process_index(), jax.process_count()


def process_slice(items: Sequence[Any], index: int, count: int) -> Sequence[Any]:
    """The ``index``-th of ``count`` contiguous, near-equal slices of ``items`` (in order)."""
    n = len(items)
    return items[index * n // count : (index + 1) * n // count]


def part_path(path: str, index: int, count: int) -> str:
    """``path.partK``, K zero-padded to the width of ``count - 1`` (so they sort in order)."""
    return f"{path}.part{index:0{len(str(count - 1))}d}"
