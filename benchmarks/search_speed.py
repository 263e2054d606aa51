"""Search speed: bulk evaluation beside its own kernels and the specialists, one run.

    python benchmarks/search_speed.py --quick       # smoke run, tiny sizes (*_quick.json)
    python benchmarks/search_speed.py               # the full run (results/search_speed_cpu.json)
    python benchmarks/search_speed.py --old-python OLD/bin/python   # an older install beside
    python benchmarks/search_speed.py --rows connect4 --sets Test_L3_R1 Test_L1_R2:100

The measurements of the issue "bulk evaluation as fast as the kernels", side by side on the
same machine in one run, each row also run by an older install of jaxgames when
``--old-python`` names its interpreter (old and new on the same positions). Rows
(``--rows``; all by default):

* ``connect4``: the public solver test sets (``<reference>/connect4_pons/Test_L*_R*``, lines
  ``<moves> <score>``; ``--sets NAME[:LINES]``, ``--limit``): (a) the kernel,
  ``alphabeta_batch`` with default options at the depth the positions need (the most empty
  cells); (b) the public call ``jaxgames.evaluate(..., depth=42)``; (c) the command line
  ``jaxgames evaluate connect4 FILE --depth 42`` as a subprocess (whole-process wall time and
  the throughput it reports), a cold run and a second one; (d) the C solver
  ``<peers>/c4solver.c``, built here with the system C compiler (``cc -O3 -march=native``).
  Every jaxgames score is checked against the file's.
* ``chess``: random-play middlegame FENs (python-chess, seeded, 20-40 plies, the game still
  on): ``alphabeta_batch`` and ``jaxgames.evaluate`` at depth 3 with default options; the
  game's own batched step (a jitted ``vmap`` of ``step``, one legal move per position) at
  the same batch; Stockfish ``go depth 3`` over python-chess's UCI driver, one thread.
* ``othello``: ``alphabeta_batch`` at a fixed depth on random-play positions, nodes/s
  beside the game's batched step rate at the same batch.
* ``fforum``: exact solving of FFORUM positions (``<reference>/othello_fforum_20_39.obf``,
  ``--fforum 20,21``): every listed move's exact disc difference (``othello:score=discs``,
  each child searched to the end) against the file's, and the time per position.
* ``backgammon``: ``expectiminimax_batch`` at depth 2 on random-play positions.
* ``startup``: ``jaxgames evaluate chess FILE --depth 3``: the seconds until its first result
  row, in a first run (cold compilation cache) and a second one (warm); ``jaxgames show
  chess``: wall time of a fresh process, cold and warm.

Method. Every row runs in a child process of the interpreter under test
(``python benchmarks/search_speed.py --row NAME --work DIR --json-out FILE``), so an old
install runs the very same row code on the very same positions; the row code uses only API
that both have, and records "not available in this version" where the old one lacks it.
The parent makes every input once (``DIR/inputs.json``), runs the peers, runs each row
under each interpreter in turn, and gathers the JSON. Before JAX starts, the CPU is split
into one device per core (``--cpu-devices``) and wide vectors are asked for, as ``jaxgames
evaluate`` does, so kernel, public call and command line run on the same devices. Each
child and each command-line pair gets a fresh persistent-compilation-cache directory
(``JAXGAMES_CACHE_DIR``), so a first call compiles and a later process finds what the earlier
one stored. Timing: every jaxgames call is made twice on the same inputs: ``first_call_s``
(tracing, compilation, one run) and ``seconds`` (the second call, timed alone);
``compile_s = first_call_s - seconds``. Command lines are timed from the start of the
process. A score that differs from the reference is a failure: counted in the JSON
(``mismatches``), printed loudly, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROWS = ("connect4", "chess", "othello", "fforum", "backgammon", "startup")
DEFAULT_SETS = (
    "Test_L3_R1",
    "Test_L3_R2",
    "Test_L3_R3",
    "Test_L2_R1",
    "Test_L2_R2",
    "Test_L2_R3",
    "Test_L1_R1",
    "Test_L1_R2",
)
C4_CELLS = 42  # 7x6: a move string of k stones leaves 42 - k plies at most
C4_DEPTH = 42  # the depth of the public call and the command line: "to the end"
REFERENCE_ENV = "JAXGAMES_REFERENCE"
PEERS_ENV = "JAXGAMES_PEERS"
UNAVAILABLE = "not available in this version"


class Unavailable(Exception):
    """The jaxgames under test lacks an API this measurement needs (an older install)."""


# ---------------------------------------------------------------- shared helpers
def one_line(err: BaseException) -> str:
    return f"{type(err).__name__}: {' '.join(str(err).split())}"[:500]


def timed(n: int, first_s: float, seconds: float, nodes: int | None = None) -> dict[str, Any]:
    """The common fields of a row: two calls' times, the compile estimate, the rates."""
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


def twice(call: Callable[[], Any]) -> tuple[float, float, Any]:
    """(first call s, second call s, the second call's result): the first traces and
    compiles, the second is the steady cost of the same work."""
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = call()
    return first, time.perf_counter() - t0, out


def digest(items: list[str]) -> str:
    """A short fingerprint of a list of positions (the same inputs give the same one)."""
    return hashlib.sha256("\n".join(items).encode()).hexdigest()[:16]


def ratio(a: Any, b: Any) -> float | None:
    return a / b if isinstance(a, int | float) and isinstance(b, int | float) and b else None


def fresh_cache_env(work: str) -> dict[str, str]:
    """The environment of a child or command line with a compilation cache of its own, so
    that its first compilations are real ones (a cache the user set for JAX would win over
    ours and hold programs from other runs, so it is left out)."""
    env = dict(os.environ)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    os.makedirs(os.path.join(work, "cache"), exist_ok=True)
    env["JAXGAMES_CACHE_DIR"] = tempfile.mkdtemp(dir=os.path.join(work, "cache"))
    return env


def python_chess() -> Any:
    """python-chess, imported with this directory off the path (``chess.py`` here would
    shadow it), with its UCI driver."""
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
    try:
        module = importlib.import_module("chess")
        importlib.import_module("chess.engine")
        return module
    finally:
        sys.path[:] = saved


def setup_devices(cpu_devices: int | None) -> None:
    """One JAX device per core and wide vectors, as ``jaxgames evaluate`` sets them, before
    JAX's first computation (the parent's flags reach every child and command line)."""
    from jaxgames.kernels import split_cpu, wide_vectors

    split_cpu(cpu_devices)
    wide_vectors()


def versions() -> dict[str, Any]:
    """The versions of this interpreter's jaxgames and its stack. Both installs may call
    themselves 0.1.0, so the package's sources are fingerprinted too."""
    import importlib.metadata

    import jax

    import jaxgames

    out: dict[str, Any] = {"python": sys.version.split()[0], "jax": jax.__version__}
    for dist in ("jaxlib", "numpy", "chess"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    out["jaxgames"] = jaxgames.__version__
    sources = hashlib.sha256()
    package = os.path.dirname(os.path.abspath(jaxgames.__file__))
    for folder, dirs, files in sorted(os.walk(package)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as f:
                    sources.update(name.encode() + f.read())
    out["jaxgames_sources_sha256"] = sources.hexdigest()[:16]
    git = subprocess.run(
        ["git", "-C", package, "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    out["jaxgames_commit"] = git.stdout.strip() if git.returncode == 0 else None
    return out


# ---------------------------------------------------------------- the command line
SUMMARY = re.compile(r"([\d,]+) positions in ([\d.]+) s: ([\d,.]+) positions/s, ([\d,]+) nodes/s")
FIRST_CHUNK = re.compile(r"first chunk \(with compilation\) ([\d.]+) s")


def run_cli(
    argv: list[str], env: dict[str, str], work: str, timeout: float | None = None
) -> dict[str, Any]:
    """``python -m jaxgames ARGV`` of this interpreter: wall time, the time its first line
    starting with ``{`` (a JSONL row) reached stdout, and what it reported on stderr.

    It runs in an empty folder, so that a ``jaxgames`` folder in the current one (a
    checkout of the other version) cannot shadow the installed package.
    """
    cwd = tempfile.mkdtemp(dir=work)
    err_path = os.path.join(cwd, "stderr.txt")
    with open(err_path, "w", encoding="utf-8") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "jaxgames", *argv],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        first_row = None
        lines = 0
        assert proc.stdout is not None
        for line in proc.stdout:
            lines += 1
            if first_row is None and line.startswith("{"):
                first_row = time.perf_counter() - start
        code = proc.wait()
        wall = time.perf_counter() - start
        if timer:
            timer.cancel()
    with open(err_path, encoding="utf-8") as f:
        stderr = f.read()
    out: dict[str, Any] = {
        "command": "jaxgames " + " ".join(os.path.basename(a) for a in argv),
        "returncode": code,
        "wall_s": wall,
        "first_row_s": first_row,
        "stdout_lines": lines,
    }
    m = SUMMARY.search(stderr)
    if m:
        out["reported"] = {
            "positions": int(m.group(1).replace(",", "")),
            "seconds": float(m.group(2)),
            "positions_per_s": float(m.group(3).replace(",", "")),
            "nodes_per_s": float(m.group(4).replace(",", "")),
        }
        first = FIRST_CHUNK.search(stderr)
        if first:
            out["reported"]["first_chunk_s"] = float(first.group(1))
            if first_row is not None:  # what came before the first chunk: start-up proper
                out["before_first_chunk_s"] = first_row - float(first.group(1))
    if code != 0:
        out["error"] = f"exit status {code}: " + " | ".join(stderr.strip().splitlines()[-3:])
    return out


# ---------------------------------------------------------------- rows (child processes)
def needed_depth(game: Any, roots: Any, moves: list[str]) -> tuple[int, str]:
    """The depth the connect-four roots need: the library's own bound where it has one,
    else the most empty cells (the same number for connect four)."""
    try:
        from jaxgames.search.horizon import needed_depth as library
    except ImportError:
        return max(C4_CELLS - len(m) for m in moves), "most empty cells (42 - stones)"
    return int(library(game, roots, C4_DEPTH)), "jaxgames.search.horizon.needed_depth"


def connect4_cli(
    name: str, path: str, expected: list[int], work: str, timeout: float | None
) -> dict[str, Any]:
    """The command line on one set, twice (cold cache, then warm), scores checked."""
    env = fresh_cache_env(work)
    out: dict[str, Any] = {}
    for run in ("first_run", "second_run"):
        rows_path = os.path.join(work, f"cli_{name}_{run}_{os.getpid()}.jsonl")
        argv = ["evaluate", "connect4", path, "--depth", str(C4_DEPTH), "--out", rows_path]
        res = run_cli(argv, env, work, timeout)
        if os.path.exists(rows_path):
            with open(rows_path, encoding="utf-8") as f:
                scores = [json.loads(line).get("score") for line in f if line.strip()]
            res["rows"] = len(scores)
            res["mismatches"] = sum(s != e for s, e in zip(scores, expected, strict=False)) + abs(
                len(scores) - len(expected)
            )
        out[run] = res
    return out


def row_connect4(inputs: dict[str, Any], emit: Callable[[str, Any], None]) -> None:
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search import alphabeta_batch

    game = jaxgames.make("connect4")
    work, timeout = inputs["work"], inputs["settings"]["cli_timeout"]
    for name, data in inputs["connect4"].items():
        if "skipped" in data:
            emit(name, data)
            continue
        moves = [m for m, _ in data["lines"]]
        expected = [s for _, s in data["lines"]]
        n = len(moves)
        print(f"connect4 {name}: {n} positions", flush=True)
        roots = stack([game.parse(m) for m in moves])
        depth, depth_from = needed_depth(game, roots, moves)
        out: dict[str, Any] = {"positions": n, "depth": depth, "depth_from": depth_from}

        first, seconds, res = twice(lambda roots=roots, d=depth: alphabeta_batch(game, roots, d))
        scores = [int(game.score_from_value(res.value[i, len(m) % 2])) for i, m in enumerate(moves)]
        kernel = timed(n, first, seconds, int(res.stats["nodes"]))
        kernel.update(
            call=f"alphabeta_batch(game, states, depth={depth})",
            mismatches=sum(s != e for s, e in zip(scores, expected, strict=True)),
            mismatched=[
                {"moves": m, "expected": e, "got": s}
                for m, e, s in zip(moves, expected, scores, strict=True)
                if s != e
            ][:10],
            lanes=res.stats.get("lanes"),
            devices=res.stats.get("devices"),
            ordering=res.stats.get("ordering"),
        )
        out["kernel"] = kernel
        print(f"  kernel   {fmt(kernel)}", flush=True)

        first, seconds, rows = twice(
            lambda moves=moves: jaxgames.evaluate(game, moves, depth=C4_DEPTH)
        )
        public = timed(n, first, seconds, sum(int(r["nodes"]) for r in rows))
        public.update(
            call=f"jaxgames.evaluate(game, positions, depth={C4_DEPTH})",
            mismatches=sum(r.get("score") != e for r, e in zip(rows, expected, strict=True)),
        )
        public["evaluate_vs_kernel"] = ratio(public["positions_per_s"], kernel["positions_per_s"])
        out["evaluate"] = public
        print(f"  evaluate {fmt(public)}", flush=True)
        emit(name, out)  # saved before the command line, which may be killed by a timeout

        out["cli"] = connect4_cli(name, data["positions_file"], expected, work, timeout)
        for run, res_cli in out["cli"].items():
            print(f"  CLI {run}: {cli_line(res_cli)}", flush=True)
        emit(name, out)


def default_quiescence(game: Any) -> int:
    """The quiescence plies default options give the game's alpha-beta (0: none)."""
    try:
        from jaxgames.search.alphabeta import AlphaBetaOptions, defaults_for
    except ImportError:  # older installs: per-game defaults on the game, else the search's 0
        return int(getattr(game, "search_defaults", {}).get("quiescence", 0))
    return int(defaults_for(game).get("quiescence", AlphaBetaOptions().quiescence))


def step_rate(game: Any, roots: Any, seed: int) -> dict[str, Any]:
    """The game's own batched step on the roots, one random legal move each: a jitted
    ``vmap`` of ``step``, sharded over the devices as the searches are; the median of 5
    samples, each long enough (20 ms) that a short call is not timed alone."""
    import jax
    import numpy as np
    from jaxgames.kernels import batch_size, local_mesh, shard_batch

    n = batch_size(roots)
    legal = np.asarray(jax.jit(jax.vmap(game.legal_mask))(roots))
    rng = np.random.default_rng(seed)
    actions = np.asarray([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in legal], np.int32)
    mesh = local_mesh()
    sharded = mesh.size > 1 and n % mesh.size == 0
    states, acts = shard_batch((roots, actions), mesh) if sharded else (roots, actions)
    step = jax.jit(jax.vmap(game.step))
    t0 = time.perf_counter()
    jax.block_until_ready(step(states, acts))
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    jax.block_until_ready(step(states, acts))
    calls = max(1, math.ceil(0.02 / max(time.perf_counter() - t0, 1e-7)))
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            out = step(states, acts)
        jax.block_until_ready(out)
        samples.append((time.perf_counter() - t0) / calls)
    seconds = statistics.median(samples)
    return {
        "call": "jax.jit(jax.vmap(game.step))(states, legal actions)",
        "positions": n,
        "devices": mesh.size if sharded else 1,
        "first_call_s": first,
        "seconds": seconds,
        "compile_s": first - seconds,
        "steps_per_s": n / seconds,
        "calls_per_sample": calls,
    }


def row_chess(inputs: dict[str, Any], emit: Callable[[str, Any], None]) -> None:
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search import alphabeta_batch

    s = inputs["settings"]
    game = jaxgames.make("chess")
    fens = inputs["chess"]["fens"]
    depth, n = s["chess_depth"], len(fens)
    options = {} if s["chess_quiescence"] is None else {"quiescence": s["chess_quiescence"]}
    emit(
        "options",
        {
            "depth": depth,
            "given": options,
            "quiescence": options.get("quiescence", default_quiescence(game)),
        },
    )
    print(f"chess: {n} positions, depth {depth}, options {options or 'default'}", flush=True)
    roots = stack([game.parse(f) for f in fens])
    first, seconds, res = twice(lambda: alphabeta_batch(game, roots, depth, **options))
    kernel = timed(n, first, seconds, int(res.stats["nodes"]))
    kernel.update(
        call=f"alphabeta_batch(game, states, depth={depth})",
        lanes=res.stats.get("lanes"),
        devices=res.stats.get("devices"),
        ordering=res.stats.get("ordering"),
    )
    emit("kernel", kernel)
    print(f"  kernel   {fmt(kernel)}", flush=True)

    first, seconds, rows = twice(lambda: jaxgames.evaluate(game, fens, depth=depth, **options))
    public = timed(n, first, seconds, sum(int(r["nodes"]) for r in rows))
    public["call"] = f"jaxgames.evaluate(game, fens, depth={depth})"
    public["evaluate_vs_kernel"] = ratio(public["positions_per_s"], kernel["positions_per_s"])
    # the same positions and options: the values must agree with the kernel's
    mover = [0 if f.split()[1] == "w" else 1 for f in fens]
    public["value_differences_vs_kernel"] = sum(
        abs(float(r["value"]) - float(res.value[i, mover[i]])) > 1e-5 for i, r in enumerate(rows)
    )
    emit("evaluate", public)
    print(f"  evaluate {fmt(public)}", flush=True)

    step = step_rate(game, roots, inputs["settings"]["seed"])
    step["search_nodes_per_s_vs_steps_per_s"] = ratio(kernel["nodes_per_s"], step["steps_per_s"])
    emit("step", step)
    print(f"  step     {step['steps_per_s']:,.0f} steps/s at batch {n}", flush=True)


def row_othello(inputs: dict[str, Any], emit: Callable[[str, Any], None]) -> None:
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search import alphabeta_batch

    s = inputs["settings"]
    game = jaxgames.make("othello")
    texts = inputs["othello"]["positions"]
    depth, n = s["othello_depth"], len(texts)
    print(f"othello: {n} positions, depth {depth}", flush=True)
    roots = stack([game.parse(t) for t in texts])
    first, seconds, res = twice(lambda: alphabeta_batch(game, roots, depth))
    kernel = timed(n, first, seconds, int(res.stats["nodes"]))
    kernel.update(
        call=f"alphabeta_batch(game, states, depth={depth})",
        depth=depth,
        lanes=res.stats.get("lanes"),
        devices=res.stats.get("devices"),
    )
    emit("kernel", kernel)
    print(f"  kernel   {fmt(kernel)}", flush=True)
    step = step_rate(game, roots, s["seed"])
    step["search_nodes_per_s_vs_steps_per_s"] = ratio(kernel["nodes_per_s"], step["steps_per_s"])
    emit("step", step)
    print(f"  step     {step['steps_per_s']:,.0f} steps/s at batch {n}", flush=True)


def row_fforum(inputs: dict[str, Any], emit: Callable[[str, Any], None]) -> None:
    import jax
    from jaxgames.kernels import stack, to_numpy

    import jaxgames
    from jaxgames.search import alphabeta_batch

    try:
        game = jaxgames.make("othello", score="discs")
    except jaxgames.GameError as err:
        raise Unavailable(f"othello has no score='discs' ({one_line(err)})") from None
    step = jax.jit(game.step)
    for number, item in inputs["fforum"].items():
        root = game.parse(item["position"])
        mover = int(game.player(root))
        moves = [name for name, _ in item["moves"]]
        expected = [score for _, score in item["moves"]]
        children = stack(
            [to_numpy(step(root, game.string_to_action(root, name))) for name in moves]
        )
        # to the end: a child's game lasts at most twice its empty squares (a pass is always
        # followed by a placement), the bound the game's own plies_left gives
        depth = 2 * (item["empties"] - 1)
        first, seconds, res = twice(lambda c=children, d=depth: alphabeta_batch(game, c, d))
        got = [int(game.score_from_value(res.value[i, mover])) for i in range(len(moves))]
        row = timed(1, first, seconds, int(res.stats["nodes"]))  # one problem, all its moves
        row.update(
            call=f"alphabeta_batch(game, children, depth={depth})",
            empties=item["empties"],
            moves=len(moves),
            depth=depth,
            ordering=res.stats.get("ordering"),
            scores={name: g for name, g in zip(moves, got, strict=True)},
            mismatches=sum(g != e for g, e in zip(got, expected, strict=True)),
            mismatched=[
                {"move": name, "expected": e, "got": g}
                for name, e, g in zip(moves, expected, got, strict=True)
                if g != e
            ],
        )
        emit(number, row)
        print(
            f"fforum #{number}: {item['empties']} empties, {len(moves)} moves, "
            f"{seconds:.2f} s (first call {first:.2f} s), mismatches {row['mismatches']}",
            flush=True,
        )


def row_backgammon(inputs: dict[str, Any], emit: Callable[[str, Any], None]) -> None:
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search import expectiminimax_batch

    game = jaxgames.make("backgammon")
    texts = inputs["backgammon"]["positions"]
    depth, n = inputs["settings"]["backgammon_depth"], len(texts)
    print(f"backgammon: {n} positions, depth {depth}", flush=True)
    roots = stack([game.parse(t) for t in texts])
    first, seconds, res = twice(lambda: expectiminimax_batch(game, roots, depth))
    nodes = res.stats.get("nodes", int(sum(int(x) for x in res.nodes)))
    row = timed(n, first, seconds, int(nodes))
    row.update(call=f"expectiminimax_batch(game, states, depth={depth})", depth=depth)
    emit("kernel", row)
    print(f"  kernel   {fmt(row)}", flush=True)


def row_startup(inputs: dict[str, Any], emit: Callable[[str, Any], None]) -> None:
    work, s = inputs["work"], inputs["settings"]
    cached = importlib.util.find_spec("jaxgames.compilation") is not None
    emit(
        "compilation_cache",
        "persistent (a fresh directory per pair of runs)"
        if cached
        else "none in this version: every process compiles",
    )
    path = inputs["files"]["startup_fens"]
    env = fresh_cache_env(work)
    argv = ["evaluate", "chess", path, "--depth", str(s["chess_depth"]), "--format", "jsonl"]
    runs = {}
    for run in ("first_run", "second_run"):
        runs[run] = run_cli(argv, env, work, s["cli_timeout"])
        print(f"startup evaluate chess {run}: {cli_line(runs[run])}", flush=True)
    emit("evaluate_chess", {"positions": s["startup_positions"], **runs})
    env = fresh_cache_env(work)
    runs = {}
    for run in ("first_run", "second_run"):
        runs[run] = run_cli(["show", "chess"], env, work, s["cli_timeout"])
        print(f"startup show chess {run}: {cli_line(runs[run])}", flush=True)
    emit("show_chess", runs)


ROW_FUNCTIONS: dict[str, Callable[[dict[str, Any], Callable[[str, Any], None]], None]] = {
    "connect4": row_connect4,
    "chess": row_chess,
    "othello": row_othello,
    "fforum": row_fforum,
    "backgammon": row_backgammon,
    "startup": row_startup,
}


def cli_line(res: dict[str, Any]) -> str:
    """One command line's run in words."""
    parts = [f"wall {res['wall_s']:.2f} s"]
    if res.get("first_row_s") is not None:
        parts.append(f"first row at {res['first_row_s']:.2f} s")
    rep = res.get("reported")
    if rep:
        parts.append(f"reported {rep['positions_per_s']:,.1f} pos/s")
        if "first_chunk_s" in rep:
            parts.append(f"first chunk {rep['first_chunk_s']:.2f} s")
    if "mismatches" in res:
        parts.append(f"mismatches {res['mismatches']}")
    if "error" in res:
        parts.append(f"FAILED {res['error']}")
    return ", ".join(parts)


def fmt(row: dict[str, Any]) -> str:
    parts = [f"{row['positions_per_s']:,.1f} pos/s"]
    if row.get("nodes_per_position") is not None:
        parts.append(f"{row['nodes_per_position']:,.0f} nodes/pos")
    parts.append(f"second call {row['seconds']:.3f} s, first {row['first_call_s']:.2f} s")
    if "mismatches" in row:
        parts.append(f"mismatches {row['mismatches']}")
    return ", ".join(parts)


def run_row(args: argparse.Namespace) -> int:
    """Child: one row with this interpreter's jaxgames; the JSON is rewritten after every
    part, so a row killed by the timeout keeps what it finished."""
    with open(os.path.join(args.work, "inputs.json"), encoding="utf-8") as f:
        inputs = json.load(f)
    setup_devices(inputs["settings"]["cpu_devices"])
    from machine import machine_info

    out: dict[str, Any] = {"row": args.row, "versions": versions(), "machine": machine_info()}
    out["parts"] = {}

    def emit(key: str, value: Any) -> None:
        out["parts"][key] = value
        with open(args.json_out + ".tmp", "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
        os.replace(args.json_out + ".tmp", args.json_out)

    start = time.perf_counter()
    try:
        ROW_FUNCTIONS[args.row](inputs, emit)
    except Unavailable as err:
        out["skipped"] = f"{UNAVAILABLE}: {err}"
    except Exception as err:  # recorded, and the parent goes on with the other rows
        traceback.print_exc()
        out["error"] = one_line(err)
    out["row_s"] = time.perf_counter() - start
    emit("_done", True)
    return 0


# ---------------------------------------------------------------- inputs (parent)
def parse_set(spec: str, limit: int | None) -> tuple[str, int | None]:
    name, _, lines = spec.partition(":")
    return name, int(lines) if lines else limit


def connect4_inputs(
    reference: str, specs: list[str], limit: int | None, work: str
) -> dict[str, Any]:
    """Each set's first lines as ``[moves, score]`` pairs, and two files of them: positions
    only (the command line's input) and the lines as given (the C solver's)."""
    out: dict[str, Any] = {}
    folder = os.path.join(work, "connect4")
    os.makedirs(folder, exist_ok=True)
    for spec in specs:
        name, lines_wanted = parse_set(spec, limit)
        path = os.path.join(reference, "connect4_pons", name)
        if not os.path.isfile(path):
            out[name] = {"skipped": "file not found in the reference folder"}
            continue
        lines = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.split()
                if len(fields) == 2:
                    lines.append([fields[0], int(fields[1])])
                if lines_wanted is not None and len(lines) >= lines_wanted:
                    break
        positions_file = os.path.join(folder, f"{name}.positions")
        lines_file = os.path.join(folder, f"{name}.lines")
        with open(positions_file, "w", encoding="utf-8") as f:
            f.write("".join(f"{m}\n" for m, _ in lines))
        with open(lines_file, "w", encoding="utf-8") as f:
            f.write("".join(f"{m} {s}\n" for m, s in lines))
        stones = [len(m) for m, _ in lines]
        out[name] = {
            "lines": lines,
            "positions_file": positions_file,
            "lines_file": lines_file,
            "stones": [min(stones), max(stones)] if stones else None,
            "sha256": digest([f"{m} {s}" for m, s in lines]),
        }
    return out


def middlegame_fens(n: int, seed: int, plies: tuple[int, int] = (20, 40)) -> list[str]:
    """``n`` distinct FENs after ``plies`` uniformly random moves from the start (python-chess,
    ``random.Random(seed)``), the game still on (a claimable draw counts as over)."""
    chess = python_chess()
    rng = random.Random(seed)
    fens: list[str] = []
    seen: set[str] = set()
    while len(fens) < n:
        board = chess.Board()
        for _ in range(rng.randint(*plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        fen = board.fen()
        if not board.is_game_over(claim_draw=True) and fen not in seen:
            seen.add(fen)
            fens.append(fen)
    return fens


def game_positions(name: str, n: int, seed: int) -> list[str]:
    """``n`` positions of a game from the seeded random play of ``jaxgames bench`` (lane i
    plays k_i ~ U{0..min(half a game, 40)} random moves, never one that ends the game), as
    text, each checked to parse back to the same state."""
    import jax
    import numpy as np
    from jaxgames.kernels import stack, to_numpy

    import jaxgames
    from jaxgames import bench

    game = jaxgames.make(name)
    states = bench.positions(game, n, seed)
    texts = [game.format(jax.tree.map(lambda x, i=i: x[i], states)) for i in range(n)]
    back = to_numpy(stack([game.parse(t) for t in texts]))
    for a, b in zip(jax.tree.leaves(back), jax.tree.leaves(states), strict=True):
        if not np.array_equal(np.asarray(a), np.asarray(b)):
            raise RuntimeError(f"{name}: a random-play position does not survive format/parse")
    return texts


def fforum_inputs(reference: str, wanted: str) -> dict[str, Any]:
    """The FFORUM positions asked for (``"20,21"``, ``"20-25"``, ``"all"``): the board, the
    side to move, and every listed move with its exact disc difference."""
    path = os.path.join(reference, "othello_fforum_20_39.obf")
    items: dict[str, Any] = {}
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    numbers = list(range(20, 20 + len(lines)))
    if wanted != "all":
        chosen: list[int] = []
        for part in wanted.split(","):
            lo, _, hi = part.partition("-")
            chosen += list(range(int(lo), int(hi or lo) + 1))
        numbers = [k for k in chosen if 20 <= k < 20 + len(lines)]
    for k in numbers:
        fields = [x.strip() for x in lines[k - 20].split(";") if x.strip()]
        board_side = fields[0]
        moves = []
        for entry in fields[1:]:
            name, score = entry.split(":")
            moves.append([name.lower(), int(score)])
        items[str(k)] = {
            "position": board_side,
            "empties": board_side.split()[0].count("-"),
            "moves": moves,
        }
    return items


# ---------------------------------------------------------------- peers (parent)
def find_stockfish() -> str | None:
    found = shutil.which("stockfish")
    if found:
        return found
    return "/usr/games/stockfish" if os.access("/usr/games/stockfish", os.X_OK) else None


def c4solver_peer(peers: str, sets: dict[str, Any], work: str) -> dict[str, Any]:
    """The C solver built with the system compiler, run on each set's lines: wall time of
    the process, nodes per position, and its scores checked against the file's."""
    source = os.path.join(peers, "c4solver.c")
    compiler = shutil.which("cc")
    if compiler is None:
        return {"skipped": "skipped: no C compiler"}
    if not os.path.isfile(source):
        return {"skipped": "skipped: c4solver.c not found in the peers folder"}
    exe = os.path.join(tempfile.mkdtemp(dir=work), "c4solver")
    t0 = time.perf_counter()
    build = subprocess.run(
        [compiler, "-O3", "-march=native", "-o", exe, source], capture_output=True, text=True
    )
    out: dict[str, Any] = {
        "build": "cc -O3 -march=native",
        "build_s": time.perf_counter() - t0,
        "threads": 1,
        "sets": {},
    }
    if build.returncode != 0:
        return {**out, "error": "build failed: " + " | ".join(build.stderr.splitlines()[-3:])}
    for name, data in sets.items():
        if "skipped" in data:
            continue
        with open(data["lines_file"], encoding="utf-8") as f:
            text = f.read()
        t0 = time.perf_counter()
        proc = subprocess.run([exe], input=text, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        parsed = [line.split() for line in proc.stdout.splitlines()]
        rows = [p for p in parsed if len(p) == 4]
        n = len(data["lines"])
        nodes = sum(int(p[3]) for p in rows)
        row = timed(n, seconds, seconds, nodes)
        row.pop("compile_s")
        row.pop("first_call_s")
        row.update(
            mismatches=sum(p[1] != p[2] for p in rows) + (n - len(rows)),
            note="whole process wall time (one run; nothing to compile)",
        )
        out["sets"][name] = row
        print(f"C solver {name}: {fmt_peer(row)}", flush=True)
    return out


def fmt_peer(row: dict[str, Any]) -> str:
    return (
        f"{row['positions_per_s']:,.1f} pos/s, {row['nodes_per_position']:,.0f} nodes/pos, "
        f"{row['seconds']:.3f} s"
    )


def stockfish_peer(fens: list[str], depth: int) -> dict[str, Any]:
    """Stockfish ``go depth D`` on each FEN over python-chess's UCI driver, one thread: a
    first pass (the engine warming up), then a second, timed pass; a new game (hash
    cleared) at the start of each pass."""
    path = find_stockfish()
    if path is None:
        return {"skipped": "skipped: stockfish not installed"}
    try:
        chess = python_chess()
    except ImportError:
        return {"skipped": "skipped: python-chess not installed"}
    t0 = time.perf_counter()
    engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        engine.configure({"Threads": 1})
        start_s = time.perf_counter() - t0
        boards = [chess.Board(f) for f in fens]
        passes = []
        for _ in range(2):
            game = object()  # a new game key: python-chess sends ucinewgame once per pass
            nodes = 0
            t0 = time.perf_counter()
            for board in boards:
                info = engine.analyse(board, chess.engine.Limit(depth=depth), game=game)
                nodes += int(info.get("nodes", 0))
            passes.append((time.perf_counter() - t0, nodes))
        name = engine.id.get("name", "stockfish")
    finally:
        engine.quit()
    n = len(fens)
    row = timed(n, passes[0][0], passes[1][0], passes[1][1])
    row.pop("compile_s")  # nothing compiles: the first pass is the engine warming up
    row.update(
        engine=name, threads=1, depth=depth, engine_start_s=start_s, command=f"go depth {depth}"
    )
    print(f"Stockfish: {fmt_peer(row)}", flush=True)
    return row


# ---------------------------------------------------------------- parent
def run_child(
    python: str, row: str, work: str, label: str, timeout: float | None
) -> dict[str, Any]:
    """One row in a child process of ``python``; its JSON, or why there is none."""
    json_out = os.path.join(work, f"row_{label}_{row}.json")
    log = os.path.join(work, f"row_{label}_{row}.log")
    cmd = [python, os.path.join(HERE, "search_speed.py"), "--row", row, "--work", work]
    cmd += ["--json-out", json_out]
    print(f"\n== {row} ({label} jaxgames)", flush=True)
    t0 = time.perf_counter()
    with open(log, "w", encoding="utf-8") as err:
        try:
            proc = subprocess.run(cmd, stderr=err, env=fresh_cache_env(work), timeout=timeout)
            code: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            code = f"timed out after {timeout:.0f} s"
    out: dict[str, Any] = {}
    if os.path.exists(json_out):
        with open(json_out, encoding="utf-8") as f:
            out = json.load(f)
    out["child_wall_s"] = time.perf_counter() - t0
    if code != 0 or "error" in out:
        with open(log, encoding="utf-8") as f:
            tail = f.read().strip().splitlines()[-8:]
        out.setdefault("error", f"child exit: {code}")
        out["stderr_tail"] = tail
        print(f"!! {row} ({label}) failed: {out['error']}", flush=True)
        print("   " + "\n   ".join(tail), flush=True)
    elif "skipped" in out:
        print(f"-- {row} ({label}): {out['skipped']}", flush=True)
    return out


def summarize(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat line per measured thing (both versions, peers), with its ratios: what the
    table prints and what the README's table is made from."""
    lines: list[dict[str, Any]] = []
    peers = result.get("peers", {})
    c_sets = peers.get("c4solver", {}).get("sets", {})
    stockfish = peers.get("stockfish", {})

    def add(row: str, version: str, data: dict[str, Any] | None, **extra: Any) -> None:
        if not isinstance(data, dict):
            return
        line = {"row": row, "version": version}
        for key in (
            "positions",
            "first_call_s",
            "seconds",
            "compile_s",
            "positions_per_s",
            "nodes_per_position",
            "nodes_per_s",
            "mismatches",
            "skipped",
            "error",
        ):
            if key in data:
                line[key] = data[key]
        line.update({k: v for k, v in extra.items() if v is not None})
        lines.append(line)

    for name, c in c_sets.items():
        add(f"connect4 {name} C solver", "peer", c)
    if "skipped" in peers.get("c4solver", {}):
        add("connect4 C solver", "peer", peers["c4solver"])
    if stockfish:
        add(f"chess Stockfish go depth {stockfish.get('depth', '')}".strip(), "peer", stockfish)
    for version, rows in result["rows"].items():
        for row_name, row in rows.items():
            if "skipped" in row or ("error" in row and not row.get("parts")):
                add(row_name, version, row)
                continue
            parts = row.get("parts", {})
            if row_name == "connect4":
                for name, data in parts.items():
                    if name.startswith("_"):
                        continue
                    if "skipped" in data:
                        add(f"connect4 {name}", version, data)
                        continue
                    c = c_sets.get(name, {}).get("positions_per_s")
                    kernel = data.get("kernel", {})
                    add(
                        f"connect4 {name} kernel d{data['depth']}",
                        version,
                        kernel,
                        vs_c=ratio(kernel.get("positions_per_s"), c),
                    )
                    public = data.get("evaluate", {})
                    add(
                        f"connect4 {name} evaluate d42",
                        version,
                        public,
                        vs_c=ratio(public.get("positions_per_s"), c),
                        evaluate_vs_kernel=public.get("evaluate_vs_kernel"),
                    )
                    for run, cli in data.get("cli", {}).items():
                        rep = cli.get("reported", {})
                        add(
                            f"connect4 {name} CLI d42 {run}",
                            version,
                            {
                                "positions": rep.get("positions"),
                                "seconds": cli["wall_s"],
                                "positions_per_s": rep.get("positions_per_s"),
                                "mismatches": cli.get("mismatches"),
                                **({"error": cli["error"]} if "error" in cli else {}),
                            },
                            note="s: process wall; pos/s: as reported",
                            vs_c=ratio(rep.get("positions_per_s"), c),
                        )
            elif row_name == "chess":
                sf = stockfish.get("positions_per_s")
                step = parts.get("step", {})
                for key in ("kernel", "evaluate"):
                    if key in parts:
                        add(
                            f"chess {key} d{result['settings']['chess_depth']}",
                            version,
                            parts[key],
                            vs_stockfish=ratio(parts[key].get("positions_per_s"), sf),
                            nodes_per_s_vs_step=ratio(
                                parts[key].get("nodes_per_s"), step.get("steps_per_s")
                            ),
                        )
                if step:
                    add("chess step (same batch)", version, step, steps_per_s=step["steps_per_s"])
            elif row_name == "othello":
                step = parts.get("step", {})
                if "kernel" in parts:
                    add(
                        f"othello alphabeta d{result['settings']['othello_depth']}",
                        version,
                        parts["kernel"],
                        nodes_per_s_vs_step=ratio(
                            parts["kernel"].get("nodes_per_s"), step.get("steps_per_s")
                        ),
                    )
                if step:
                    add("othello step (same batch)", version, step, steps_per_s=step["steps_per_s"])
            elif row_name == "fforum":
                for number, data in parts.items():
                    if not number.startswith("_"):
                        add(f"othello FFORUM #{number} ({data['empties']} empty)", version, data)
            elif row_name == "backgammon":
                add(
                    f"backgammon expectiminimax d{result['settings']['backgammon_depth']}",
                    version,
                    parts.get("kernel"),
                )
            elif row_name == "startup":
                for key, label in (("evaluate_chess", "first row"), ("show_chess", "wall")):
                    for run, cli in parts.get(key, {}).items():
                        if not isinstance(cli, dict) or "wall_s" not in cli:
                            continue
                        shown = cli["first_row_s"] if label == "first row" else cli["wall_s"]
                        add(
                            f"startup {key.replace('_', ' ')} {run}",
                            version,
                            {
                                "seconds": shown,
                                **({"error": cli["error"]} if "error" in cli else {}),
                            },
                            note=f"{label} s, fresh process; {parts.get('compilation_cache')}",
                        )
            if "error" in row:
                add(row_name, version, {"error": row["error"]})
    # new over old, line by line, where both measured the same thing
    by_key = {(x["row"], x["version"]): x for x in lines}
    for x in lines:
        old = by_key.get((x["row"], "old"))
        if x["version"] == "new" and old:
            x["new_vs_old"] = ratio(x.get("positions_per_s"), old.get("positions_per_s"))
        if x["version"] == "old" and "skipped" in x:
            x["skipped"] = x["skipped"].replace(UNAVAILABLE, "not available in old version")
    # the same thing measured by each version (and its peer) on adjacent lines
    first_seen: dict[str, int] = {}
    for x in lines:
        first_seen.setdefault(x["row"], len(first_seen))
    rank = {"peer": 0, "new": 1, "old": 2}
    return sorted(lines, key=lambda x: (first_seen[x["row"]], rank.get(x["version"], 3)))


def print_summary(lines: list[dict[str, Any]]) -> None:
    from report import table

    def num(x: Any) -> Any:
        return "" if x is None else x

    def ratios(x: dict[str, Any]) -> str:
        names = ("vs_c", "vs_stockfish", "evaluate_vs_kernel", "nodes_per_s_vs_step", "new_vs_old")
        shown = [f"{k}={x[k]:.3g}" for k in names if isinstance(x.get(k), float)]
        if "steps_per_s" in x:
            shown.append(f"steps/s={x['steps_per_s']:,.0f}")
        if "note" in x:
            shown.append(x["note"])
        return " ".join(shown)

    print("\n== summary (second calls; first call and compile estimate beside)")
    table(
        [
            "row",
            "version",
            "N",
            "first s",
            "second s",
            "compile s",
            "pos/s",
            "nodes/pos",
            "nodes/s",
            "mism.",
            "ratios / note",
        ],
        [
            [
                x["row"],
                x["version"],
                num(x.get("positions")),
                num(x.get("first_call_s")),
                num(x.get("seconds")),
                num(x.get("compile_s")),
                num(x.get("positions_per_s")),
                num(x.get("nodes_per_position")),
                num(x.get("nodes_per_s")),
                num(x.get("mismatches")),
                (x.get("skipped") or x.get("error") or ratios(x))[:90],
            ]
            for x in lines
        ],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS))
    parser.add_argument(
        "--sets",
        nargs="+",
        default=None,
        help="connect-four sets, NAME or NAME:LINES (default: every Test_L3_*, Test_L2_*, "
        "Test_L1_R1, Test_L1_R2 present)",
    )
    parser.add_argument("--limit", type=int, default=None, help="lines per set (default all)")
    parser.add_argument("--chess-positions", type=int, default=None, help="default 64")
    parser.add_argument("--chess-depth", type=int, default=3)
    parser.add_argument(
        "--chess-quiescence",
        type=int,
        default=None,
        help="quiescence plies passed to the chess searches (default: the default options')",
    )
    parser.add_argument("--othello-positions", type=int, default=None, help="default 256")
    parser.add_argument("--othello-depth", type=int, default=None, help="default 4")
    parser.add_argument(
        "--fforum", default=None, help="FFORUM numbers: 20,21 or 20-25 or all (default 20-22)"
    )
    parser.add_argument("--backgammon-positions", type=int, default=None, help="default 64")
    parser.add_argument("--backgammon-depth", type=int, default=None, help="default 2")
    parser.add_argument(
        "--startup-positions", type=int, default=None, help="FENs in the startup file (8)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every random position")
    parser.add_argument(
        "--old-python", default=None, help="the python of an older install: its rows beside"
    )
    parser.add_argument("--no-peers", action="store_true", help="skip the C solver, Stockfish")
    parser.add_argument(
        "--reference",
        default=os.environ.get(REFERENCE_ENV, os.path.join(ROOT, "..", "shared", "reference")),
        help=f"reference data folder (${REFERENCE_ENV}; default ../shared/reference)",
    )
    parser.add_argument(
        "--peers",
        default=os.environ.get(PEERS_ENV, os.path.join(ROOT, "..", "shared", "peers")),
        help=f"folder of c4solver.c (${PEERS_ENV}; default ../shared/peers)",
    )
    parser.add_argument(
        "--cpu-devices", type=int, default=None, help="split the CPU (default: one per core)"
    )
    parser.add_argument("--row-timeout", type=float, default=None, help="seconds per child")
    parser.add_argument("--cli-timeout", type=float, default=None, help="seconds per command")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    parser.add_argument("--keep-work", action="store_true", help="keep the work folder")
    parser.add_argument("--row", choices=ROWS, help=argparse.SUPPRESS)  # a child's row
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--json-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.row:
        return run_row(args)

    quick = args.quick
    settings: dict[str, Any] = {
        "quick": quick,
        "seed": args.seed,
        "cpu_devices": args.cpu_devices,
        "limit": args.limit if args.limit is not None else (4 if quick else None),
        "chess_positions": args.chess_positions or (4 if quick else 64),
        "chess_depth": args.chess_depth,
        "chess_quiescence": args.chess_quiescence,
        "othello_positions": args.othello_positions or (8 if quick else 256),
        "othello_depth": args.othello_depth or (2 if quick else 4),
        "fforum": args.fforum or ("20" if quick else "20-22"),
        "backgammon_positions": args.backgammon_positions or (4 if quick else 64),
        "backgammon_depth": args.backgammon_depth or (1 if quick else 2),
        "startup_positions": args.startup_positions or (2 if quick else 8),
        "cli_timeout": args.cli_timeout,
    }
    setup_devices(args.cpu_devices)  # before JAX starts here too: machine_info's devices
    import jax
    from machine import machine_info

    reference = os.path.abspath(args.reference)
    sets = args.sets or (
        ["Test_L3_R1", "Test_L2_R1"]
        if quick
        else [
            s for s in DEFAULT_SETS if os.path.isfile(os.path.join(reference, "connect4_pons", s))
        ]
    )
    start = time.perf_counter()
    work = tempfile.mkdtemp(prefix="search_speed_")
    result: dict[str, Any] = {
        "benchmark": "search_speed",
        "command": "python benchmarks/search_speed.py " + " ".join(argv or sys.argv[1:]),
        "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "machine": machine_info(),
        "load_average_start": list(os.getloadavg()),
        "settings": settings,
        "timing": "first_call_s: the first call (tracing, compilation, one run); seconds: the "
        "second call on the same inputs; compile_s = first_call_s - seconds. Command lines: "
        "wall time from the process start (first_row_s: until its first JSONL row), first "
        "run with an empty compilation cache, second run with what the first stored.",
    }
    try:
        inputs: dict[str, Any] = {"work": work, "settings": settings, "files": {}}
        if "connect4" in args.rows:
            inputs["connect4"] = connect4_inputs(reference, sets, settings["limit"], work)
        if "chess" in args.rows or "startup" in args.rows:
            fens = middlegame_fens(settings["chess_positions"], args.seed)
            inputs["chess"] = {"fens": fens}
            path = os.path.join(work, "startup.fen")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(f"{x}\n" for x in fens[: settings["startup_positions"]]))
            inputs["files"]["startup_fens"] = path
        if "othello" in args.rows:
            positions = game_positions("othello", settings["othello_positions"], args.seed)
            inputs["othello"] = {"positions": positions}
        if "fforum" in args.rows:
            inputs["fforum"] = fforum_inputs(reference, settings["fforum"])
        if "backgammon" in args.rows:
            positions = game_positions("backgammon", settings["backgammon_positions"], args.seed)
            inputs["backgammon"] = {"positions": positions}
        with open(os.path.join(work, "inputs.json"), "w", encoding="utf-8") as f:
            json.dump(inputs, f)
        result["positions"] = describe_inputs(inputs)

        result["peers"] = {}
        if not args.no_peers:
            if "connect4" in args.rows:
                result["peers"]["c4solver"] = c4solver_peer(args.peers, inputs["connect4"], work)
            if "chess" in args.rows:
                result["peers"]["stockfish"] = stockfish_peer(
                    inputs["chess"]["fens"], settings["chess_depth"]
                )

        pythons = {"new": sys.executable}
        if args.old_python:
            pythons["old"] = args.old_python
        result["rows"] = {label: {} for label in pythons}
        for row in args.rows:  # old and new one after the other, so load drifts hit both
            for label, python in pythons.items():
                result["rows"][label][row] = run_child(python, row, work, label, args.row_timeout)
        result["versions"] = {
            label: next((r["versions"] for r in rows.values() if "versions" in r), None)
            for label, rows in result["rows"].items()
        }
    finally:
        if args.keep_work:
            print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    result["summary"] = summarize(result)
    mismatches = sum(int(x.get("mismatches") or 0) for x in result["summary"])
    failed = [f"{x['row']} ({x['version']})" for x in result["summary"] if "error" in x]
    result["mismatches"] = mismatches
    result["failed"] = failed
    result["total_s"] = time.perf_counter() - start
    print_summary(result["summary"])
    if mismatches:
        print(
            f"\n!!!!!!!! {mismatches} SCORE MISMATCHES against the reference: see the "
            "'mismatches' and 'mismatched' fields. FAILURE."
        )
    if failed:
        print(f"\n!! failed: {', '.join(failed)}")
    out = args.out or os.path.join(
        HERE, "results", f"search_speed_{jax.default_backend()}{'_quick' if quick else ''}.json"
    )
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(f"\ntotal {result['total_s']:.0f} s; wrote {os.path.relpath(out, ROOT)}")
    return 1 if mismatches or failed else 0


def describe_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """What was measured on, for the JSON: counts, generators, fingerprints, first items."""
    out: dict[str, Any] = {}
    if "connect4" in inputs:
        out["connect4"] = {
            name: {k: v for k, v in data.items() if k in ("stones", "sha256", "skipped")}
            | ({"lines": len(data["lines"])} if "lines" in data else {})
            for name, data in inputs["connect4"].items()
        }
    if "chess" in inputs:
        fens = inputs["chess"]["fens"]
        out["chess"] = {
            "count": len(fens),
            "generator": "middlegame_fens: python-chess, random.Random(seed), 20-40 uniformly "
            "random plies from the start, the game still on, distinct",
            "sha256": digest(fens),
            "first": fens[:3],
        }
    for name in ("othello", "backgammon"):
        if name in inputs:
            texts = inputs[name]["positions"]
            out[name] = {
                "count": len(texts),
                "generator": "jaxgames.bench.positions (the random play of `jaxgames bench`)",
                "sha256": digest(texts),
                "first": texts[:3],
            }
    if "fforum" in inputs:
        out["fforum"] = {
            k: {"empties": v["empties"], "moves": len(v["moves"])}
            for k, v in inputs["fforum"].items()
        }
    return out


if __name__ == "__main__":
    sys.exit(main())
