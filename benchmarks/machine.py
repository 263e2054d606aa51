"""The machine a benchmark ran on, recorded beside every result (shared by the scripts)."""

from __future__ import annotations

import os
import platform
from typing import Any

import jax


def machine_info() -> dict[str, Any]:
    """CPU model, cores, Python and jax versions, the default backend and its devices, and
    the XLA flags the run set."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "devices": [d.device_kind for d in jax.devices()],
        "xla_flags": os.environ.get("XLA_FLAGS", ""),  # device split, vector width
    }
