"""What every benchmark shares: the machine, versions, import and compile timing, repeated
samples, terminal tables and the JSON file.

This module imports only the standard library, JAX and numpy, never another module of
jaxgames: ``benchmarks/search_speed_rows.py`` loads it by its file path inside an older
install of jaxgames, which has no ``jaxgames.bench`` package. How fast things are is in
``benchmarks/README.md`` and ``benchmarks/results/*.json``, not here.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax

MAX_CALLS_PER_SAMPLE = 200
MIN_REPEATS, MAX_ROW_S = 3, 30.0  # samples of a measurement: at least 3; more only within 30 s
UNAVAILABLE = "not available in this version"  # what an older install lacks, in the JSON


# ---------------------------------------------------------------- machine and versions
def machine_info() -> dict[str, Any]:
    """CPU model, cores, platform, Python and JAX, the default backend, the devices (all of
    them, and the accelerators apart), the XLA flags the run set and the load average."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in f if line.startswith("model name")),
                cpu,
            )
    except OSError:
        pass  # not Linux: keep what platform says
    info: dict[str, Any] = {
        "cpu": cpu,
        "cores": os.cpu_count() or 1,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "devices": [d.device_kind for d in jax.devices()],
        "accelerators": [d.device_kind for d in jax.devices() if d.platform != "cpu"],
        "xla_flags": os.environ.get("XLA_FLAGS", ""),  # device split, vector width
    }
    load = load_average()
    if load is not None:  # a loaded machine's numbers are not final: say so
        info["load_average"] = load
    return info


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):  # Windows has no getloadavg
        return None


def package_versions(dists: Sequence[str]) -> dict[str, str | None]:
    """The installed version of each distribution, None where it is not installed."""
    out: dict[str, str | None] = {}
    for dist in dists:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def available(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def import_time(module: str, runs: int = 3) -> float | None:
    """Seconds to import ``module`` in a fresh interpreter (the median of ``runs``), or None
    when the import fails."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode:
            return None
        times.append(float(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def fresh_cache_env(work: str) -> dict[str, str]:
    """The environment of a child process with a compilation cache of its own, so that its
    first compilations are real ones (a cache the user set for JAX would win over ours and
    hold programs from other runs, so it is left out)."""
    env = dict(os.environ)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    os.makedirs(os.path.join(work, "cache"), exist_ok=True)
    env["JAXGAMES_CACHE_DIR"] = tempfile.mkdtemp(dir=os.path.join(work, "cache"))
    return env


# ---------------------------------------------------------------- timing
@dataclass
class Timing:
    """A timed call: the first call apart, then the median of the samples."""

    first_call_s: float
    seconds: float  # median per call
    seconds_min: float
    seconds_max: float
    repeats: int
    calls: int  # calls per timed sample
    output: Any  # what the last call returned

    @property
    def compile_s(self) -> float:
        """The first call's extra time over a steady call: tracing and compilation."""
        return max(self.first_call_s - self.seconds, 1e-6)

    def fields(self) -> dict[str, Any]:
        """The timing fields of a JSON row."""
        return {
            "first_call_s": self.first_call_s,
            "compile_s": self.compile_s,
            "seconds": self.seconds,
            "seconds_min": self.seconds_min,
            "seconds_max": self.seconds_max,
            "repeats": self.repeats,
            "calls_per_repeat": self.calls,
        }


def measure(call: Callable[[], Any], repeats: int, min_sample_s: float) -> Timing:
    """Time ``call``: a first call (compilation), a probe, then ``repeats`` timed samples.

    Each sample runs the call enough times to last ``min_sample_s`` (so that a short call is
    not timed alone against the clock's and the scheduler's noise), each call ended by
    ``block_until_ready``.

    Args:
        call: a function of no arguments returning arrays (or host values).
        repeats: timed samples (fewer, but at least :data:`MIN_REPEATS`, when they would
            take more than :data:`MAX_ROW_S` in all).
        min_sample_s: the least duration of one sample.

    Returns:
        A :class:`Timing`; ``seconds`` is the median over samples of the time per call.
    """
    t0 = time.perf_counter()
    out = jax.block_until_ready(call())
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = jax.block_until_ready(call())
    probe = time.perf_counter() - t0
    calls = max(1, min(MAX_CALLS_PER_SAMPLE, math.ceil(min_sample_s / max(probe, 1e-9))))
    # A call of many seconds (a batch of long games on a CPU) gets fewer samples, never
    # fewer than three: a median still, and a full run that ends the same day.
    repeats = min(repeats, max(MIN_REPEATS, math.ceil(MAX_ROW_S / max(probe, 1e-9))))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            out = jax.block_until_ready(call())
        samples.append((time.perf_counter() - t0) / calls)
    return Timing(
        first, statistics.median(samples), min(samples), max(samples), repeats, calls, out
    )


def sample(call: Callable[[], Any], repeats: int) -> tuple[float, list[float], Any]:
    """(first call s, the seconds of ``repeats`` more calls, the last output): one call per
    sample, each ended by ``block_until_ready``; the first call is the warm-up (tracing and
    compilation unless the call was compiled ahead of time)."""
    t0 = time.perf_counter()
    out = jax.block_until_ready(call())
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(call())
        times.append(time.perf_counter() - t0)
    return first, times, out


def twice(call: Callable[[], Any]) -> tuple[float, float, Any]:
    """(first call s, second call s, the second call's result): the first traces and
    compiles, the second is the steady cost of the same work."""
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = call()
    return first, time.perf_counter() - t0, out


def first_and_median(
    call: Callable[[], Any], repeats: int = 5, short_s: float = 2.0
) -> tuple[float, float, Any]:
    """(first call s, steady call s, the last call's result): as :func:`twice`, but a call
    shorter than ``short_s`` is timed ``repeats`` times and the median taken, since one
    call of a fraction of a second ranks nothing against the scheduler's noise."""
    first, second, out = twice(call)
    if second >= short_s or repeats <= 1:
        return first, second, out
    times = [second]
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times), out


def rates(n: int, first_s: float, seconds: float, nodes: int | None = None) -> dict[str, Any]:
    """The common fields of a search row: two calls' times, the compile estimate, the rates
    of ``n`` positions (and of ``nodes`` when given)."""
    row: dict[str, Any] = {
        "positions": n,
        "first_call_s": first_s,
        "seconds": seconds,
        "compile_s": first_s - seconds,
        "positions_per_s": n / seconds if seconds > 0 else None,
    }
    if nodes is not None:
        row["nodes"] = int(nodes)
        row["nodes_per_position"] = nodes / n if n else None
        row["nodes_per_s"] = nodes / seconds if seconds > 0 else None
    return row


def ratio(a: Any, b: Any) -> float | None:
    """``a / b`` where both are numbers and ``b`` is not zero, else None."""
    return a / b if isinstance(a, int | float) and isinstance(b, int | float) and b else None


def digest(items: list[str]) -> str:
    """A fingerprint of a list of positions (the same inputs give the same one)."""
    return hashlib.sha256("\n".join(items).encode()).hexdigest()


# ---------------------------------------------------------------- text
def one_line(err: BaseException, limit: int = 500) -> str:
    """An exception as one line: its type and its message, whitespace collapsed."""
    return f"{type(err).__name__}: {' '.join(str(err).split())}"[:limit].rstrip(": ")


def human(x: float) -> str:
    """About 3 significant digits with a k/M/G suffix: 1234567 -> "1.23M", 999.7 -> "1k"."""
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0)):
        if abs(x) >= scale * 0.9995:  # 999.7 rounds up to the next suffix, not to "1e+03"
            v = x / scale
            return (f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}") + suffix
    return f"{x:.3g}"


def table(header: list[str], rows: list[list[Any]]) -> None:
    """Print ``rows`` under ``header``, right-aligned; numbers >= 100 with thousands commas,
    other floats to 3 significant digits."""
    cells = [
        [
            f"{c:,.0f}"
            if isinstance(c, int | float) and not isinstance(c, bool) and abs(c) >= 100
            else (f"{c:.3g}" if isinstance(c, float) else str(c))
            for c in row
        ]
        for row in rows
    ]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    for row in cells:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)), flush=True)


Column = str | Callable[[dict[str, Any]], Any]


def table_of(rows: list[dict[str, Any]], columns: dict[str, Column]) -> None:
    """:func:`table` of JSON rows: ``columns`` maps a heading to a row's key or to a
    function of the row."""
    table(
        list(columns),
        [[c(r) if callable(c) else r[c] for c in columns.values()] for r in rows],
    )


# ---------------------------------------------------------------- output
def command_line(script: str, argv: list[str] | None) -> str:
    """The command that ran a benchmark script, for its JSON."""
    return f"python benchmarks/{script} " + " ".join(sys.argv[1:] if argv is None else argv)


def result_path(out: str | None, folder: str, name: str, quick: bool = False) -> str:
    """``out`` when given, else ``folder/results/<name>_<backend>[_quick].json``."""
    suffix = "_quick" if quick else ""
    return out or os.path.join(folder, "results", f"{name}_{jax.default_backend()}{suffix}.json")


def write_json(result: dict[str, Any], path: str, allow_nan: bool = True) -> str:
    """Write ``result`` to ``path`` (its folder made when missing); returns the path."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, allow_nan=allow_nan)
        f.write("\n")
    return path
