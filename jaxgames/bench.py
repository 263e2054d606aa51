"""``jaxgames bench``: throughput of every kernel of every game, on every JAX backend, beside peers.

One run measures, for each game, each workload, each backend present (``cpu`` always; ``gpu``
and ``tpu`` when JAX sees them) and each batch size:

* ``step``: the legal mask of a batch of positions and one uniformly random legal step from
  each (at a chance node, an outcome drawn by its probability). Unit: steps/s.
* ``playouts``: B random games from the start position to their end
  (:func:`jaxgames.kernels.playouts`, one playout per lane). Unit: playouts/s.
* ``eval``: :func:`jaxgames.kernels.leaf_values` (UTILITY or EVAL) of a batch. Unit: leaves/s.
* ``expectation``: :func:`jaxgames.kernels.expectation` over the chance outcomes of a batch of
  chance nodes (games with chance only). Unit: chance nodes/s.
* ``search``: the game's default bulk search (alpha-beta for deterministic two-player
  zero-sum games, expectiminimax for games with chance, minimax otherwise) of a batch of
  roots at a small fixed depth. Unit: positions/s (nodes/s in ``extra``).

Positions come from seeded random play: lane ``i`` plays ``k_i`` uniformly random moves from
the start (``k_i`` uniform in ``0..max_plies``), never stepping into a finished game; for
``expectation`` it then plays on to the next chance node. The same seed gives the same
positions on every backend, and the same uniforms drive the peers' random play.

Timing: the first call (tracing, compilation and one run) is ``first_call_s``; a second call
picks how many calls make one timed sample (enough to last a few milliseconds); then
``repeats`` samples are timed (fewer, but at least three, when they would take more than 30 s),
each call ended by ``block_until_ready``, and their median per call is ``seconds``.
``compile_s`` is ``first_call_s - seconds`` (at least 1 us). Import times are measured in
fresh interpreters (``python -c "import jaxgames"``, and so on).

Peers, when installed (``pip install -e ".[bench]"``; "absent" in ``versions`` otherwise):

* pgx (``tic_tac_toe``, ``connect_four``, ``othello``, ``chess``, ``backgammon``): ``step`` and
  ``playouts`` in the same harness on the same backend and batch sizes (jitted ``vmap`` of
  pgx's ``step``, the same random-legal-move sampler). ``step`` runs on the same positions
  where pgx numbers actions as jaxgames does (checked: the legal masks of all positions must
  agree), else on pgx's own random play with the same ply counts (``positions`` says which).
* OpenSpiel (``pyspiel``): ``playouts``, whole random games one at a time from Python over its
  C++ games, for a fixed time budget (one thread; batch size does not apply).
* python-chess: ``step`` for chess on the same positions (FEN): generate the legal moves,
  push a random one, pop it.

Each peer entry carries ``ratio = jaxgames throughput / peer throughput``.

Output: a table on the terminal (one line per row, as it is measured), a JSON file and PNG
plots in ``out_dir`` (default ``benchmarks/results`` under the current directory):
``bench_<backend>[_quick].json``, ``bench_<backend>[_quick]_<game>.png`` (throughput against
batch size, log-log, one line per backend and peer) and, when an accelerator is present,
``bench_<backend>[_quick]_speedup.png`` (accelerator over CPU). ``<backend>`` is JAX's
default backend.

JSON schema (every number finite; those under ``rows`` and ``import_time_s`` positive)::

    {
      "schema": 1,
      "command": str,                   # the command line
      "quick": bool,
      "started": str,                   # ISO 8601, local time
      "total_s": float,                 # the whole run
      "machine": {"cpu": str, "cores": int, "platform": str, "python": str,
                  "accelerators": [str],  # device kinds of the gpu/tpu devices, [] if none
                  "load_average": [float, float, float]},  # at the start (absent on Windows)
      "versions": {"jaxgames": str, "jax": str, "jaxlib": str, "numpy": str,
                   "pgx": str, "open_spiel": str, "chess": str, "matplotlib": str},
                                        # a version, or "absent"
      "backends": [str],                # e.g. ["cpu", "gpu"]
      "import_time_s": {"jax": float, "jaxgames": float, "jaxgames.kernels": float,
                        "pgx": float | "absent", "pyspiel": ..., "chess": ...},
      "config": {"games": [str], "workloads": [str], "batches": [int] | "default",
                 "repeats": int,
                 "seed": int, "peers": bool},
      "rows": [{
        "game": str, "workload": str, "backend": str, "device": str, "batch": int,
        "unit": str,                    # e.g. "steps/s"
        "items": int,                   # units of work per call (the batch)
        "first_call_s": float, "compile_s": float,
        "seconds": float,               # median per call
        "seconds_min": float, "seconds_max": float,
        "repeats": int, "calls_per_repeat": int,
        "throughput": float,            # items / seconds, in "unit"
        "extra": {str: float},          # optional: "moves_per_s", "nodes_per_s", ...
        "params": {str: int | str},     # optional: search "depth" and "algorithm"
        "peers": [{                     # optional
          "name": str,                  # "pgx", "open_spiel", "python-chess"
          "backend": str, "throughput": float, "ratio": float,
          "positions": str,             # "same", "start", "own random play, same ply counts"
          "seconds": float, "first_call_s": float, "compile_s": float,  # when measured
          "extra": {str: float}, "note": str}]       # optional
      }],
      "skipped": [{"game": str, "workload": str, "backend": str, "error": str}],
      "notes": [str],
      "files": [str]                    # the PNG and JSON files written (base names)
    }
"""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np

import jaxgames
from jaxgames import progress
from jaxgames.game import CHANCE, Game
from jaxgames.kernels import (
    batch_size,
    batched,
    expectation,
    playouts,
    random_actions,
    sample_legal,
    take,
    to_numpy,
    unstack,
)
from jaxgames.registry import list_games, make, parse_spec

WORKLOADS = ("step", "playouts", "eval", "expectation", "search")
UNITS = {
    "step": "steps/s",
    "playouts": "playouts/s",
    "eval": "leaves/s",
    "expectation": "chance nodes/s",
    "search": "positions/s",
}
SYNTHETIC_GAMES = frozenset({"tree", "uniform_tree"})  # test trees, not games to benchmark
QUICK_GAMES = ("tictactoe", "connect4", "pig")
QUICK_BATCHES = (64, 256)
FULL_BATCHES = (64, 256, 1024, 4096, 16384)
# Largest default batch per workload: a whole search or playout of 16384 lanes takes
# minutes on a CPU. Explicit --batches are used as given.
DEFAULT_CAPS = {"step": 16384, "playouts": 4096, "eval": 16384, "expectation": 4096, "search": 1024}
QUICK_CAPS = {"search": 64}  # a batch search compiles for seconds: one size in a quick run
QUICK_SEARCH_DEPTH = 2
QUICK_REPEATS, FULL_REPEATS = 3, 5
QUICK_SAMPLE_S, FULL_SAMPLE_S = 0.002, 0.01  # a timed sample lasts at least this long
MAX_CALLS_PER_SAMPLE = 200
MIN_REPEATS, MAX_ROW_S = 3, 30.0  # samples of a row: at least 3; more only within 30 s
QUICK_PEER_BUDGET_S, FULL_PEER_BUDGET_S = 0.3, 3.0  # OpenSpiel: whole games for this long
PYTHON_CHESS_MAX_POSITIONS = 1024  # python-chess runs on the first positions of the batch
DEFAULT_OUT = os.path.join("benchmarks", "results")
PEER_MODULES = {"pgx": "pgx", "open_spiel": "pyspiel", "python-chess": "chess"}


@dataclass(frozen=True)
class GameBench:
    """How one game is benchmarked: its search depth, batch caps and peers.

    Attributes:
        search_depth: plies of the ``search`` workload in a full run.
        caps: largest default batch per workload (over :data:`DEFAULT_CAPS`).
        pgx: the game's name in pgx, or None.
        openspiel: the game's name in OpenSpiel, or None.
        openspiel_params: the game -> OpenSpiel game parameters.
        python_chess: python-chess is a peer of ``step`` (positions as FEN).
        pgx_note: what differs in pgx's version of the game.
    """

    search_depth: int = 2
    caps: dict[str, int] = field(default_factory=dict)
    pgx: str | None = None
    openspiel: str | None = None
    openspiel_params: Callable[[Game], dict[str, Any]] = lambda game: {}
    python_chess: bool = False
    pgx_note: str = ""


GAMES: dict[str, GameBench] = {
    "tictactoe": GameBench(search_depth=4, pgx="tic_tac_toe", openspiel="tic_tac_toe"),
    "connect4": GameBench(search_depth=4, pgx="connect_four", openspiel="connect_four"),
    "othello": GameBench(search_depth=3, caps={"search": 256}, pgx="othello", openspiel="othello"),
    "chess": GameBench(
        search_depth=2,
        caps={"step": 4096, "eval": 4096, "playouts": 256, "search": 256},
        pgx="chess",
        openspiel="chess",
        python_chess=True,
        pgx_note="pgx ends every game at 512 plies",
    ),
    "backgammon": GameBench(
        search_depth=2,
        caps={"step": 1024, "eval": 4096, "playouts": 256, "expectation": 256, "search": 64},
        pgx="backgammon",
        openspiel="backgammon",
        pgx_note="a pgx action moves one checker; a jaxgames action plays a whole roll",
    ),
    "pig": GameBench(
        search_depth=4, openspiel="pig", openspiel_params=lambda game: {"winscore": game.goal}
    ),
    "chinese_checkers": GameBench(search_depth=2, caps={"search": 256}),
}


@dataclass
class BenchConfig:
    """What one run measures; ``None`` takes the default of the mode (quick or full).

    Attributes:
        quick: small batches, shallow search, few repeats: about a minute on 2 CPU cores.
        games: game specs (default: :data:`QUICK_GAMES` when quick, else every registered
            game but the synthetic trees).
        workloads: a subset of :data:`WORKLOADS`.
        batches: batch sizes (default :data:`QUICK_BATCHES` or :data:`FULL_BATCHES`, capped
            per workload).
        backends: JAX platforms to run on (default: every one present).
        repeats: timed samples per row (the median is reported).
        out_dir: where the JSON and PNG files go.
        peers: measure the peers that are installed.
        seed: seed of the positions' random play.
        command: the command line, recorded in the JSON.
    """

    quick: bool = False
    games: Sequence[str] | None = None
    workloads: Sequence[str] = WORKLOADS
    batches: Sequence[int] | None = None
    backends: Sequence[str] | None = None
    repeats: int | None = None
    out_dir: str = DEFAULT_OUT
    peers: bool = True
    seed: int = 0
    command: str = "jaxgames bench"


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


# ---------------------------------------------------------------- machine and versions
def machine_info() -> dict[str, Any]:
    """CPU model, cores, platform, Python, the accelerators' names and the load average."""
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
        "accelerators": [d.device_kind for d in jax.devices() if d.platform != "cpu"],
    }
    if hasattr(os, "getloadavg"):  # a loaded machine's numbers are not final: say so
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def versions() -> dict[str, str]:
    """Versions of jaxgames, JAX and the peers ("absent" when not installed)."""
    out = {"jaxgames": jaxgames.__version__}
    for dist in ("jax", "jaxlib", "numpy", "pgx", "open_spiel", "chess", "matplotlib"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "absent"
    return out


def available(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def import_time(module: str, runs: int) -> float | str:
    """Seconds to import ``module`` in a fresh interpreter (median of ``runs``), or "absent".

    Args:
        module: a dotted module name.
        runs: fresh interpreters to start.

    Returns:
        The median in seconds, or "absent" when the import fails.
    """
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode:
            return "absent"
        times.append(float(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def platforms(wanted: Sequence[str] | None = None) -> list[str]:
    """The JAX platforms to run on: ``cpu`` first, then the accelerators present.

    Raises:
        ValueError: a wanted platform is not present.
    """
    present = ["cpu"]
    for device in jax.devices():
        if device.platform not in present:
            present.append(device.platform)
    if wanted is None:
        return present
    missing = [p for p in wanted if p not in present]
    if missing:
        raise ValueError(f"bench: backend {missing[0]!r} is not present (have {present})")
    return list(dict.fromkeys(wanted))


# ---------------------------------------------------------------- timing
def measure(call: Callable[[], Any], repeats: int, min_sample_s: float) -> Timing:
    """Time ``call``: a first call (compilation), a probe, then ``repeats`` timed samples.

    Each sample runs the call enough times to last ``min_sample_s`` (so that a 30 us call is
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


# ---------------------------------------------------------------- positions
def _play_keys(seed: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(ply counts, move uniforms, peer step keys): shared by jaxgames' and pgx's play."""
    k_len, k_play, k_step = jax.random.split(jax.random.key(seed), 3)
    return k_len, k_play, k_step


@functools.partial(jax.jit, static_argnums=(0, 1, 3, 4))
def _random_play(game: Game, n: int, seed: int, max_plies: int, to_chance: bool) -> Any:
    """``n`` positions: lane ``i`` plays ``k_i ~ U{0..max_plies}`` random moves from the start.

    A move that would finish the game is not made (the lane keeps its position), so no
    position is terminal. With ``to_chance`` a lane goes on after ``k_i`` moves until it
    stands at a chance node (bounded by ``max_plies`` more moves).

    Returns:
        A batch ``[n]`` of states.
    """
    k_len, k_play, _ = _play_keys(seed)
    targets = jax.random.randint(k_len, (n,), 0, max_plies + 1)  # [n]
    states = batched(game).init(n)
    player_of, terminal_of = jax.vmap(game.player), jax.vmap(game.terminal)

    def body(t: jax.Array, states: Any) -> Any:
        uniform = jax.random.uniform(jax.random.fold_in(k_play, t), (n,))  # [n]
        stepped = jax.vmap(game.step)(states, random_actions(game, states, uniform))
        want = t < targets
        if to_chance:
            want = want | (player_of(states) != CHANCE)
        go = want & ~terminal_of(stepped)  # [n]
        return jax.tree.map(lambda new, old: _where(go, new, old), stepped, states)

    plies = 2 * max_plies if to_chance else max_plies
    return jax.lax.fori_loop(0, plies, body, states)


def _where(cond: jax.Array, new: jax.Array, old: jax.Array) -> jax.Array:
    """``where`` of a per-lane condition ``bool[B]`` over arrays ``[B, ...]``."""
    return jnp.where(cond.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)


def max_plies(game: Game) -> int:
    """How deep random play goes to make positions: half a game, at most 40 moves."""
    return max(1, min(game.max_game_length // 2, 40))


def positions(game: Game, n: int, seed: int, chance: bool = False) -> Any:
    """``n`` positions from seeded random play, as numpy arrays (see :func:`_random_play`).

    Args:
        chance: only chance nodes (for ``expectation``): lanes that did not reach one are
            replaced by copies of those that did.

    Returns:
        A batch ``[n]`` of states (numpy).

    Raises:
        RuntimeError: ``chance`` and no lane reached a chance node.
    """
    with jax.default_device(jax.devices("cpu")[0]):  # the same positions for every backend
        states = to_numpy(_random_play(game, n, seed, max_plies(game), chance))
        if not chance:
            return states
        f = batched(game)
        at_chance = np.asarray((f.player(states) == CHANCE) & ~f.terminal(states))  # [n]
    index = np.flatnonzero(at_chance)
    if index.size == 0:
        raise RuntimeError(f"random play reached no chance node of {game.name}")
    return to_numpy(take(states, np.resize(index, n)))


# ---------------------------------------------------------------- jaxgames workloads
@dataclass
class Job:
    """One thing to time: a call of no arguments, its work, and how to read extra rates.

    Attributes:
        call: the measured call.
        extra: (last output, seconds per call) -> extra rates for the JSON row.
        params: workload parameters for the JSON row (search depth, algorithm).
    """

    call: Callable[[], Any]
    extra: Callable[[Any, float], dict[str, float]] | None = None
    params: dict[str, Any] = field(default_factory=dict)


@functools.partial(jax.jit, static_argnums=0)
def _step_once(game: Game, states: Any, key: jax.Array) -> Any:
    """Legal mask (or chance probabilities) and one random step of every state ``[B]``."""
    uniform = jax.random.uniform(key, (batch_size(states),))  # [B]
    return jax.vmap(game.step)(states, random_actions(game, states, uniform))


def job(game: Game, workload: str, states: Any, n: int, key: jax.Array, depth: int) -> Job:
    """The jaxgames call of ``workload`` on ``states`` (already on the device).

    Args:
        game: the game.
        workload: one of :data:`WORKLOADS`.
        states: a batch ``[n]`` of positions (chance nodes for ``expectation``).
        n: the batch size.
        key: a PRNG key (the same in every call, so every call does the same work).
        depth: plies of ``search``.
    """
    if workload == "step":
        return Job(lambda: _step_once(game, states, key))
    if workload == "playouts":
        start = jax.device_put(batched(game).init(n), _device_of(states))
        return Job(
            lambda: playouts(game, start, 1, key),
            extra=lambda out, s: {"moves_per_s": float(np.asarray(out.lengths).sum()) / s},
        )
    if workload == "eval":
        return Job(lambda: batched(game).leaf_values(states))
    if workload == "expectation":
        return Job(lambda: expectation(game, states))
    if workload == "search":
        from jaxgames import bulk

        algorithm = bulk.default_algorithm(game)
        search = bulk.batch_search(algorithm)
        return Job(
            lambda: search(game, states, depth),
            extra=lambda out, s: {"nodes_per_s": float(out.stats["nodes"]) / s},
            params={"depth": depth, "algorithm": algorithm},
        )
    raise ValueError(f"bench: unknown workload {workload!r}")


def _device_of(tree: Any) -> jax.Device:
    return next(iter(jax.tree.leaves(tree)[0].devices()))


# ---------------------------------------------------------------- peers
@functools.cache
def _pgx_env(name: str) -> Any:
    import pgx

    return pgx.make(name)


@functools.partial(jax.jit, static_argnums=(0, 1, 3))
def _pgx_random_play(env: Any, n: int, seed: int, plies: int) -> Any:
    """pgx's positions by the same random play as :func:`_random_play` (same uniforms)."""
    k_len, k_play, k_step = _play_keys(seed)
    targets = jax.random.randint(k_len, (n,), 0, plies + 1)
    states = jax.vmap(env.init)(jax.random.split(k_step, n))

    def body(t: jax.Array, states: Any) -> Any:
        uniform = jax.random.uniform(jax.random.fold_in(k_play, t), (n,))
        action = sample_legal(states.legal_action_mask, uniform)
        keys = jax.random.split(jax.random.fold_in(k_step, t), n)
        stepped = jax.vmap(env.step)(states, action, keys)
        go = (t < targets) & ~stepped.terminated
        return jax.tree.map(lambda new, old: _where(go, new, old), stepped, states)

    return jax.lax.fori_loop(0, plies, body, states)


@functools.partial(jax.jit, static_argnums=0)
def _pgx_step_once(env: Any, states: Any, key: jax.Array) -> Any:
    """pgx's step of every state, with the same sampler as :func:`_step_once`."""
    n = states.legal_action_mask.shape[0]
    k_u, k_s = jax.random.split(key)
    action = sample_legal(states.legal_action_mask, jax.random.uniform(k_u, (n,)))
    return jax.vmap(env.step)(states, action, jax.random.split(k_s, n))


@functools.partial(jax.jit, static_argnums=(0, 1))
def _pgx_playouts(env: Any, n: int, key: jax.Array) -> jax.Array:
    """``n`` random pgx games from the start to their end; returns their lengths int32[n]."""
    k_init, k_loop = jax.random.split(key)
    states = jax.vmap(env.init)(jax.random.split(k_init, n))

    def cond(carry: tuple) -> jax.Array:
        return ~jnp.all(carry[0].terminated)

    def body(carry: tuple) -> tuple:
        states, length, key = carry
        key, k_u, k_s = jax.random.split(key, 3)
        mask = states.legal_action_mask | states.terminated[:, None]  # finished: any action
        action = sample_legal(mask, jax.random.uniform(k_u, (n,)))
        length = length + (~states.terminated).astype(jnp.int32)
        states = jax.vmap(env.step)(states, action, jax.random.split(k_s, n))
        return states, length, key

    zeros = jnp.zeros((n,), jnp.int32)
    return jax.lax.while_loop(cond, body, (states, zeros, k_loop))[1]


def pgx_peer(
    game: Game,
    spec: GameBench,
    workload: str,
    ours: Any,
    n: int,
    key: jax.Array,
    cfg: _Settings,
) -> dict[str, Any] | None:
    """pgx's ``step`` or ``playouts`` on the current default device, or None (no such work).

    Args:
        ours: jaxgames' positions (numpy), to check whether pgx's are the same.
        cfg: the run's settings; ``cfg.backend`` is the backend measured.
    """
    if workload not in ("step", "playouts"):
        return None
    env = _pgx_env(spec.pgx)
    if workload == "playouts":
        timing = measure(lambda: _pgx_playouts(env, n, key), cfg.repeats, cfg.min_sample_s)
        where = "start"
        extra = {"moves_per_s": float(np.asarray(timing.output).sum()) / timing.seconds}
    else:
        states = _pgx_random_play(env, n, cfg.seed, max_plies(game))
        where = _same_positions(game, ours, states)
        timing = measure(lambda: _pgx_step_once(env, states, key), cfg.repeats, cfg.min_sample_s)
        extra = {}
    peer = {
        "name": "pgx",
        "backend": cfg.backend,
        "throughput": n / timing.seconds,
        "positions": where,
        "first_call_s": timing.first_call_s,
        "compile_s": timing.compile_s,
        "seconds": timing.seconds,
    }
    if extra:
        peer["extra"] = extra
    if spec.pgx_note:
        peer["note"] = spec.pgx_note
    return peer


def _same_positions(game: Game, ours: Any, theirs: Any) -> str:
    """Whether pgx stands on our positions: "same" when its legal masks equal ours on every
    position (the same actions were played from the same start), else it played its own
    random games with the same ply counts (its actions are numbered otherwise)."""
    mask = np.asarray(batched(game).legal_mask(ours))  # [B, A]
    other = np.asarray(theirs.legal_action_mask)  # [B, A']
    if mask.shape == other.shape and np.array_equal(mask, other):
        return "same"
    return "own random play, same ply counts"


def openspiel_playouts(game: Game, spec: GameBench, budget_s: float, seed: int) -> dict[str, Any]:
    """Whole random OpenSpiel games from the start, one at a time from Python, for ``budget_s``.

    Chance nodes draw their outcome by its probability, decisions uniformly.
    """
    import pyspiel

    os_game = pyspiel.load_game(spec.openspiel, spec.openspiel_params(game))
    rng = random.Random(seed)
    games = moves = 0
    t0 = time.perf_counter()
    while games < 3 or time.perf_counter() - t0 < budget_s:
        state = os_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        games += 1
    seconds = time.perf_counter() - t0
    return {
        "name": "open_spiel",
        "backend": "cpu",
        "throughput": games / seconds,
        "positions": "start",
        "seconds": seconds,
        "extra": {"moves_per_s": moves / seconds, "games": float(games)},
        "note": "C++ games driven from Python, one game at a time, one thread",
    }


def python_chess_step(game: Game, states: Any, cfg: _Settings) -> dict[str, Any]:
    """python-chess on the same positions: legal moves, push a random one, pop it."""
    import chess

    n = min(batch_size(states), PYTHON_CHESS_MAX_POSITIONS)
    boards = [chess.Board(game.format(s)) for s in unstack(take(states, np.arange(n)))]
    rng = random.Random(cfg.seed)

    def call() -> int:
        for board in boards:
            board.push(rng.choice(list(board.legal_moves)))
            board.pop()
        return n

    timing = measure(call, cfg.repeats, cfg.min_sample_s)
    return {
        "name": "python-chess",
        "backend": "cpu",
        "throughput": n / timing.seconds,
        "positions": "same" if n == batch_size(states) else f"same (the first {n})",
        "seconds": timing.seconds,
        "note": "pure Python, one position at a time",
    }


# ---------------------------------------------------------------- the run
@dataclass
class _Settings:
    """Resolved settings shared by every measurement of a run."""

    quick: bool
    repeats: int
    min_sample_s: float
    peer_budget_s: float
    seed: int
    peers: bool
    backend: str | None = None  # the backend being measured


def default_games(quick: bool) -> list[str]:
    """The games of a run with no ``--games``: a small set when quick, else every real game."""
    if quick:
        return [g for g in QUICK_GAMES if g in list_games()]
    return [g for g in list_games() if g not in SYNTHETIC_GAMES]


def batches_for(
    workload: str, spec: GameBench, batches: Sequence[int] | None, quick: bool
) -> list[int]:
    """The batch sizes of one workload: explicit ones as given, defaults under the caps."""
    if batches is not None:
        return sorted(set(batches))
    cap = spec.caps.get(workload, DEFAULT_CAPS[workload])
    if quick:
        cap = min(cap, QUICK_CAPS.get(workload, cap))
    sizes = [b for b in (QUICK_BATCHES if quick else FULL_BATCHES) if b <= cap]
    return sizes or [min(QUICK_BATCHES)]


def applies(game: Game, workload: str) -> bool:
    """Whether a workload means something for a game (expectation needs chance nodes)."""
    return workload != "expectation" or game.num_chance_outcomes > 0


class Reporter:
    """The terminal table, printed a line per row as rows are measured, and skip lines."""

    HEADER = (
        f"{'game':<16} {'workload':<11} {'backend':<7} {'batch':>6} {'first s':>8} "
        f"{'median ms':>10} {'throughput':>11}  {'unit':<15} peers (throughput, jaxgames/peer)"
    )

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err

    def header(self) -> None:
        print(self.HEADER, file=self.out, flush=True)

    def row(self, row: dict[str, Any]) -> None:
        print(format_row(row), file=self.out, flush=True)

    def skip(self, what: str, err: BaseException) -> None:
        print(f"jaxgames bench: skipped {what}: {one_line(err)}", file=self.err, flush=True)


def format_row(row: dict[str, Any]) -> str:
    """One line of the terminal table."""
    peers = "; ".join(
        f"{p['name']} {human(p['throughput'])} {p['ratio']:.2f}x"
        if "ratio" in p
        else f"{p['name']} failed (see the JSON)"
        for p in row.get("peers", [])
    )
    return (
        f"{row['game']:<16} {row['workload']:<11} {row['backend']:<7} {row['batch']:>6} "
        f"{row['first_call_s']:>8.2f} {row['seconds'] * 1e3:>10.3f} "
        f"{human(row['throughput']):>11}  {row['unit']:<15} {peers}"
    ).rstrip()


def human(x: float) -> str:
    """About 3 significant digits with a k/M/G suffix: 1234567 -> "1.23M", 999.7 -> "1k"."""
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0)):
        if abs(x) >= scale * 0.9995:  # 999.7 rounds up to the next suffix, not to "1e+03"
            v = x / scale
            return (f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}") + suffix
    return f"{x:.3g}"


def one_line(err: BaseException) -> str:
    """An exception as one short line."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:200] if text else ''}".rstrip(": ")


def bench_game(
    spec_text: str,
    cfg: _Settings,
    workloads: Sequence[str],
    batches: Sequence[int] | None,
    backends: Sequence[str],
    report: Reporter,
    skipped: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Every row of one game: workloads x backends x batch sizes, with their peers.

    Failures are reported in one line and recorded in ``skipped``; the rest goes on.
    """
    rows: list[dict[str, Any]] = []
    try:
        game = make(spec_text)
        base, params = parse_spec(spec_text)
    except Exception as err:  # an unfinished game must not stop the suite
        report.skip(spec_text, err)
        skipped.append({"game": spec_text, "workload": "*", "backend": "*", "error": one_line(err)})
        return rows
    spec = GAMES.get(base, GameBench())
    ctx = _GameRun(game, spec_text, spec, cfg, peers=cfg.peers and not params)
    for workload in [w for w in workloads if applies(game, w)]:
        for backend in backends:
            cfg.backend = backend
            for n in batches_for(workload, spec, batches, cfg.quick):
                try:
                    with progress.phase(f"{spec_text} {workload} on {backend}, batch {n}"):
                        row = ctx.row(workload, backend, n)
                except Exception as err:  # one bad row must not stop the suite
                    report.skip(f"{spec_text} {workload} ({backend}, batch {n})", err)
                    skipped.append(
                        {
                            "game": spec_text,
                            "workload": workload,
                            "backend": backend,
                            "error": one_line(err),
                        }
                    )
                    continue
                rows.append(row)
                report.row(row)
    return rows


class _GameRun:
    """One game's measurements: its positions (made once per batch size and shared by every
    backend and peer) and OpenSpiel's batch-independent playouts."""

    def __init__(self, game: Game, spec_text: str, spec: GameBench, cfg: _Settings, peers: bool):
        """Set up one game's run.

        Args:
            game: the game made from ``spec_text``.
            spec: how it is benchmarked.
            cfg: the run's settings.
            peers: measure the peers (only for a game with its default parameters: the
                game the peers implement).
        """
        self.game, self.spec_text, self.spec, self.cfg, self.peers = (
            game,
            spec_text,
            spec,
            cfg,
            peers,
        )
        self.depth = QUICK_SEARCH_DEPTH if cfg.quick else spec.search_depth
        self.key = jax.random.key(cfg.seed)  # the same in every call: every call, the same work
        self.pool: dict[tuple[int, bool], Any] = {}  # (batch, chance) -> positions (numpy)
        self.spiel: dict[str, Any] = {}  # OpenSpiel's playouts, measured once

    def row(self, workload: str, backend: str, n: int) -> dict[str, Any]:
        """The JSON row of one workload at batch ``n`` on ``backend``, with its peers."""
        chance = workload == "expectation"
        if (n, chance) not in self.pool:
            self.pool[n, chance] = positions(self.game, n, self.cfg.seed, chance)
        ours = self.pool[n, chance]
        device = jax.devices(backend)[0]
        with jax.default_device(device):
            states = jax.device_put(ours, device)
            key = jax.device_put(self.key, device)  # every input on the one device
            row = measure_row(
                self.game, self.spec_text, workload, states, n, key, self.depth, self.cfg
            )
            row["device"] = device.device_kind
            if self.peers:
                found = peers_of(self.game, self.spec, workload, ours, n, key, self.cfg)
                add_ratios(row, found + self.spiel_peer(workload))
        return row

    def spiel_peer(self, workload: str) -> list[dict[str, Any]]:
        """OpenSpiel's playouts (measured once per game, attached to every playouts row)."""
        spec = self.spec
        if workload != "playouts" or not spec.openspiel or not available("pyspiel"):
            return []
        if "playouts" not in self.spiel:
            self.spiel["playouts"] = _guard(
                lambda: openspiel_playouts(self.game, spec, self.cfg.peer_budget_s, self.cfg.seed),
                "open_spiel",
            )
        return [dict(self.spiel["playouts"])]


def measure_row(
    game: Game,
    spec_text: str,
    workload: str,
    states: Any,
    n: int,
    key: jax.Array,
    depth: int,
    cfg: _Settings,
) -> dict[str, Any]:
    """Time jaxgames' call of one workload and build its JSON row (without peers)."""
    work = job(game, workload, states, n, key, depth)
    timing = measure(work.call, cfg.repeats, cfg.min_sample_s)
    row: dict[str, Any] = {
        "game": spec_text,
        "workload": workload,
        "backend": cfg.backend,
        "batch": n,
        "unit": UNITS[workload],
        "items": n,
        **timing.fields(),
        "throughput": n / timing.seconds,
    }
    if work.extra is not None:
        row["extra"] = work.extra(timing.output, timing.seconds)
    if work.params:
        row["params"] = work.params
    return row


def peers_of(
    game: Game, spec: GameBench, workload: str, ours: Any, n: int, key: jax.Array, cfg: _Settings
) -> list[dict[str, Any]]:
    """The batch-dependent peers of one row (pgx; python-chess on CPU), when installed."""
    found = []
    if spec.pgx and available("pgx"):
        peer = _guard(lambda: pgx_peer(game, spec, workload, ours, n, key, cfg), "pgx")
        if peer is not None:
            found.append(peer)
    if spec.python_chess and workload == "step" and cfg.backend == "cpu" and available("chess"):
        found.append(_guard(lambda: python_chess_step(game, ours, cfg), "python-chess"))
    return found


def _guard(fn: Callable[[], dict[str, Any] | None], name: str) -> dict[str, Any] | None:
    """A peer's measurement, or an entry naming its error (a peer never stops a row)."""
    try:
        return fn()
    except Exception as err:  # a peer's failure is recorded in its entry
        return {"name": name, "error": one_line(err)}


def add_ratios(row: dict[str, Any], peers: list[dict[str, Any]]) -> None:
    """Attach the peers to the row, each with ``ratio = jaxgames / peer`` throughput."""
    for peer in peers:
        if "throughput" in peer:
            peer["ratio"] = row["throughput"] / peer["throughput"]
    if peers:
        row["peers"] = peers


def run(config: BenchConfig, out: TextIO | None = None, err: TextIO | None = None) -> dict:
    """Run the benchmark suite: print the table, write the JSON and the plots.

    Args:
        config: what to measure (:class:`BenchConfig`).
        out, err: where the table and the one-line notes go (default stdout, stderr).

    Returns:
        The result, as written to the JSON file (see the module docstring); ``"path"`` is
        added: the JSON file's path.

    Raises:
        ValueError: bad settings (unknown workload or backend, batch or repeats below 1).
    """
    out, err = out or sys.stdout, err or sys.stderr
    started = time.perf_counter()
    unknown = [w for w in config.workloads if w not in WORKLOADS]
    if unknown:
        raise ValueError(f"bench: unknown workload {unknown[0]!r}; known: {', '.join(WORKLOADS)}")
    if config.batches is not None and min(config.batches, default=1) < 1:
        raise ValueError("bench: batch sizes must be >= 1")
    if config.repeats is not None and config.repeats < 1:
        raise ValueError(f"bench: repeats must be >= 1, got {config.repeats}")
    backends = platforms(config.backends)
    cfg = _Settings(
        quick=config.quick,
        repeats=config.repeats or (QUICK_REPEATS if config.quick else FULL_REPEATS),
        min_sample_s=QUICK_SAMPLE_S if config.quick else FULL_SAMPLE_S,
        peer_budget_s=QUICK_PEER_BUDGET_S if config.quick else FULL_PEER_BUDGET_S,
        seed=config.seed,
        peers=config.peers,
    )
    games = list(config.games) if config.games else default_games(config.quick)
    report = Reporter(out, err)
    result: dict[str, Any] = {
        "schema": 1,
        "command": config.command,
        "quick": config.quick,
        "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_info(),
        "versions": versions(),
        "backends": backends,
        "config": {
            "games": games,
            "workloads": list(config.workloads),
            "batches": sorted(set(config.batches)) if config.batches else "default",
            "repeats": cfg.repeats,
            "seed": cfg.seed,
            "peers": cfg.peers,
        },
    }
    report.header()
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for spec_text in games:
        rows += bench_game(
            spec_text, cfg, config.workloads, config.batches, backends, report, skipped
        )
    result["import_time_s"] = import_times(cfg)
    result["rows"] = rows
    result["skipped"] = skipped
    result["notes"] = busy_note(result["machine"])
    stem = f"bench_{jax.default_backend()}{'_quick' if config.quick else ''}"
    os.makedirs(config.out_dir, exist_ok=True)
    plots, notes = write_plots(result, config.out_dir, stem)
    result["notes"] += notes
    path = os.path.join(config.out_dir, stem + ".json")
    result["files"] = [os.path.basename(p) for p in plots] + [os.path.basename(path)]
    result["total_s"] = time.perf_counter() - started
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, allow_nan=False)
        f.write("\n")
    print_summary(result, path, plots, out)
    return {**result, "path": path}


def busy_note(machine: dict[str, Any]) -> list[str]:
    """A note when other work shared the machine at the start (the timings are not final)."""
    load = machine.get("load_average", [0.0])[0]
    if load > machine["cores"]:
        return [f"the machine was busy: load average {load:.1f} on {machine['cores']} cores"]
    return []


def import_times(cfg: _Settings) -> dict[str, float | str]:
    """Import times in fresh processes: jaxgames and its kernels; in a full run also JAX
    alone (the floor) and the installed peers."""
    if cfg.quick:  # each fresh interpreter costs seconds: jaxgames' own imports only
        runs, modules = 1, ["jaxgames", "jaxgames.kernels"]
    else:
        runs, modules = 3, ["jax", "jaxgames", "jaxgames.kernels"]
        if cfg.peers:
            modules += list(PEER_MODULES.values())
    return {m: import_time(m, runs) if available(m) else "absent" for m in modules}


def print_summary(result: dict[str, Any], path: str, plots: list[str], out: TextIO) -> None:
    """Import times, notes and the files written, after the table."""
    times = ", ".join(
        f"{m} {t:.2f} s" if isinstance(t, float) else f"{m} {t}"
        for m, t in result["import_time_s"].items()
    )
    print(f"import time: {times}", file=out)
    for note in result["notes"]:
        print(f"note: {note}", file=out)
    if result["skipped"]:
        print(f"skipped: {len(result['skipped'])} (see above)", file=out)
    print(
        f"{len(result['rows'])} rows in {result['total_s']:.1f} s; wrote {path}"
        + (f" and {len(plots)} plots" if plots else ""),
        file=out,
        flush=True,
    )


# ---------------------------------------------------------------- plots
def write_plots(result: dict[str, Any], out_dir: str, stem: str) -> tuple[list[str], list[str]]:
    """PNG plots: per game, throughput against batch size (log-log) for each workload, one
    line per backend and peer; and, with an accelerator, its speedup over the CPU.

    Returns:
        (paths written, notes for what was not drawn).
    """
    try:
        from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
    except ImportError:
        return [], ['plots need matplotlib: pip install -e ".[bench]"']
    rows = result["rows"]
    paths = []
    for game in dict.fromkeys(r["game"] for r in rows):
        workloads = [
            w for w in WORKLOADS if any(r["game"] == game and r["workload"] == w for r in rows)
        ]
        cols = min(3, len(workloads))
        nrows = math.ceil(len(workloads) / cols)
        fig = Figure(figsize=(4.6 * cols, 3.6 * nrows), layout="constrained")
        axes = fig.subplots(nrows, cols, squeeze=False).ravel()
        for ax, workload in zip(axes, workloads, strict=False):
            plot_workload(ax, [r for r in rows if r["game"] == game and r["workload"] == workload])
        for ax in axes[len(workloads) :]:
            ax.set_visible(False)
        fig.suptitle(f"{game}: throughput vs batch size ({result['machine']['cpu']})", fontsize=9)
        paths.append(os.path.join(out_dir, f"{stem}_{game}.png"))
        fig.savefig(paths[-1], dpi=100)
    notes = []
    accelerators = [b for b in result["backends"] if b != "cpu"]
    if accelerators and any(r["backend"] == "cpu" for r in rows):
        paths.append(os.path.join(out_dir, f"{stem}_speedup.png"))
        plot_speedup(Figure(figsize=(7, 4.5), layout="constrained"), rows, accelerators, paths[-1])
    elif accelerators:
        notes.append("no CPU rows to compare the accelerator with: no speedup plot")
    elif rows:
        notes.append("no accelerator present: no speedup plot (run on a GPU machine)")
    return paths, notes


def _series(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[int, float]]:
    """(implementation, backend) -> {batch: throughput}, jaxgames and every peer."""
    series: dict[tuple[str, str], dict[int, float]] = {}
    for r in rows:
        series.setdefault(("jaxgames", r["backend"]), {})[r["batch"]] = r["throughput"]
        for p in r.get("peers", []):
            if "throughput" in p:
                series.setdefault((p["name"], p["backend"]), {})[r["batch"]] = p["throughput"]
    return series


def plot_workload(ax: Any, rows: list[dict[str, Any]]) -> None:
    """One workload's throughput against batch size, log-log, one line per series."""
    for (name, backend), points in _series(rows).items():
        batches = sorted(points)
        style = "-" if name == "jaxgames" else "--"
        marker = "o" if name == "jaxgames" else "s"
        ax.plot(
            batches, [points[b] for b in batches], style, marker=marker, label=f"{name} {backend}"
        )
    _batch_axis(ax, sorted({r["batch"] for r in rows}))
    ax.set_yscale("log")
    ax.set_ylabel(rows[0]["unit"])
    ax.set_title(rows[0]["workload"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def _batch_axis(ax: Any, batches: list[int]) -> None:
    """A log-2 batch axis labelled with the batch sizes themselves (64, 256, ...)."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(batches, [str(b) for b in batches])
    ax.minorticks_off()  # no unlabelled 2^k ticks between the sizes (log y is set after)
    ax.set_xlabel("batch size")


def plot_speedup(fig: Any, rows: list[dict[str, Any]], accelerators: list[str], path: str) -> None:
    """Throughput of each accelerator over the CPU's, per game and workload, against batch."""
    axes = fig.subplots(1, len(accelerators), squeeze=False).ravel()
    cpu = {
        (r["game"], r["workload"], r["batch"]): r["throughput"]
        for r in rows
        if r["backend"] == "cpu"
    }
    for ax, backend in zip(axes, accelerators, strict=True):
        lines: dict[tuple[str, str], dict[int, float]] = {}
        for r in rows:
            base = cpu.get((r["game"], r["workload"], r["batch"]))
            if r["backend"] == backend and base:
                lines.setdefault((r["game"], r["workload"]), {})[r["batch"]] = (
                    r["throughput"] / base
                )
        games = list(dict.fromkeys(game for game, _ in lines))
        for (game, workload), points in lines.items():
            batches = sorted(points)
            ax.plot(
                batches,
                [points[b] for b in batches],
                marker="o",
                color=f"C{WORKLOADS.index(workload)}",  # colour: workload; line style: game
                linestyle=("-", "--", ":", "-.")[games.index(game) % 4],
                label=f"{game} {workload}",
            )
        ax.axhline(1.0, color="grey", lw=0.8)
        _batch_axis(ax, sorted({r["batch"] for r in rows if r["backend"] == backend}))
        ax.set_yscale("log")
        ax.set_ylabel(f"{backend} / cpu throughput")
        ax.set_title(f"speedup of {backend} over cpu", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    fig.savefig(path, dpi=100)
