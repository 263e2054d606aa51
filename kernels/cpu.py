"""Settings of XLA's CPU backend, which take effect only if made before it starts.

They are process-wide environment flags (``XLA_FLAGS``), read once when JAX's backend starts
(at the first computation), so each function here sets its flag only while that is still
ahead, and never overrides a value the user already put in ``XLA_FLAGS``.
"""

from __future__ import annotations

import os

_VECTOR_WIDTH_FLAG = "--xla_cpu_prefer_vector_width"


def add_xla_flag(flag: str, value: object) -> bool:
    """Append ``flag=value`` to ``XLA_FLAGS`` if JAX's backend has not started yet and the
    flag is not set already. Returns True when it was appended."""
    from jax._src import xla_bridge  # no public way to ask whether the backend started

    flags = os.environ.get("XLA_FLAGS", "")
    if flag in flags or xla_bridge.backends_are_initialized():
        return False
    os.environ["XLA_FLAGS"] = f"{flags} {flag}={value}".strip()
    return True


def has_avx512(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """True when the CPU lists AVX-512 (``avx512f``); False where that cannot be read."""
    try:
        with open(cpuinfo) as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


def wide_vectors() -> bool:
    """Ask XLA's CPU code generator for 512-bit vectors on a CPU with AVX-512, if still
    possible (before the first computation).

    XLA prefers 256-bit vectors by default. A search's event loop is a long chain of
    elementwise integer work over its lanes (bitboards, packed frames), which twice as wide
    vectors do in fewer instructions: bulk alpha-beta ran faster in the benchmark
    (``benchmarks/README.md`` has the figures). Other CPUs and platforms are unaffected.

    Returns:
        True when the flag was set here, False when it could not be or was not wanted.
    """
    return has_avx512() and add_xla_flag(_VECTOR_WIDTH_FLAG, 512)
