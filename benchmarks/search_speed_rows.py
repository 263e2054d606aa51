"""The rows of ``benchmarks/search_speed.py``, each run in a child process of the interpreter
under test (the parent's or ``--old-python``'s):

    python benchmarks/search_speed_rows.py --row NAME --work DIR --json-out FILE

The row code uses only API that old and new installs of jaxgames both have, and records
"not available in this version" where the one under test lacks it. The shared helpers come
from this checkout's ``jaxgames/bench/helpers.py``, loaded by its file path: an older
install has no ``jaxgames.bench`` package. The JSON is rewritten after every part, so a row
killed by its timeout keeps what it finished.

Rows:

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
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROWS = ("connect4", "chess", "othello", "fforum", "backgammon", "startup")
C4_CELLS = 42  # 7x6: a move string of k stones leaves 42 - k plies at most
C4_DEPTH = 42  # the depth of the public call and the command line: "to the end"
FFORUM_ONCE_S = 60.0  # an FFORUM solve longer than this is timed by its one call


def load_helpers() -> ModuleType:
    """This checkout's ``jaxgames/bench/helpers.py``, by its file path (it imports no other
    module of jaxgames, so it loads under any install)."""
    path = os.path.join(ROOT, "jaxgames", "bench", "helpers.py")
    spec = importlib.util.spec_from_file_location("search_speed_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


helpers = load_helpers()
UNAVAILABLE = helpers.UNAVAILABLE
fresh_cache_env = helpers.fresh_cache_env
first_and_median = helpers.first_and_median
machine_info = helpers.machine_info
one_line = helpers.one_line
package_versions = helpers.package_versions
rates = helpers.rates
ratio = helpers.ratio


class Unavailable(Exception):
    """The jaxgames under test lacks an API this measurement needs (an older install)."""


def setup_devices(cpu_devices: int | None) -> None:
    """One JAX device per core and wide vectors, as ``jaxgames evaluate`` sets them, before
    JAX's first computation (the parent's flags reach every child and command line)."""
    from jaxgames.kernels import split_cpu, wide_vectors

    split_cpu(cpu_devices)
    wide_vectors()


def versions() -> dict[str, Any]:
    """The versions of this interpreter's jaxgames and its stack. Both installs may call
    themselves 0.1.0, so the package's sources are fingerprinted too."""
    import jax

    import jaxgames

    out: dict[str, Any] = {"python": sys.version.split()[0], "jax": jax.__version__}
    out.update(package_versions(("jaxlib", "numpy", "chess")))
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
PHASE = re.compile(r"jaxgames: [\d.]+ s: (.*)$")  # a line of `--progress log`
SEARCHING = re.compile(r"(alpha-beta|expectiminimax|maxn|paranoid) of ")  # not "compiling ..."


def run_cli(
    argv: list[str], env: dict[str, str], work: str, timeout: float | None = None
) -> dict[str, Any]:
    """``python -m jaxgames ARGV`` of this interpreter: wall time, the time its first line
    starting with ``{`` (a JSONL row) reached stdout, and what it reported on stderr.

    It runs in an empty folder, so that a ``jaxgames`` folder in the current one (a
    checkout of the other version) cannot shadow the installed package.
    """
    cwd = tempfile.mkdtemp(dir=work)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jaxgames", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    timer = threading.Timer(timeout, proc.kill) if timeout else None
    if timer:
        timer.start()
    # stderr read as it comes, each line with the second it arrived: with `--progress log`
    # the phases' lines say when the search itself began
    err_lines: list[tuple[float, str]] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            err_lines.append((time.perf_counter() - start, line))

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    first_row = None
    lines = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        lines += 1
        if first_row is None and line.startswith("{"):
            first_row = time.perf_counter() - start
    code = proc.wait()
    reader.join()
    wall = time.perf_counter() - start
    if timer:
        timer.cancel()
    stderr = "".join(line for _, line in err_lines)
    out: dict[str, Any] = {
        "command": "jaxgames " + " ".join(os.path.basename(a) for a in argv),
        "returncode": code,
        "wall_s": wall,
        "first_row_s": first_row,
        "stdout_lines": lines,
    }
    phases = [(t, m.group(1)) for t, line in err_lines if (m := PHASE.match(line))]
    if phases:
        out["phases"] = [{"at_s": t, "phase": text} for t, text in phases]
        searching = [t for t, text in phases if SEARCHING.match(text)]
        if searching:  # the first search began: start-up, tracing and compiling are behind
            out["search_begins_s"] = searching[0]
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

        first, seconds, res = first_and_median(
            lambda roots=roots, d=depth: alphabeta_batch(game, roots, d)
        )
        scores = [int(game.score_from_value(res.value[i, len(m) % 2])) for i, m in enumerate(moves)]
        kernel = rates(n, first, seconds, int(res.stats["nodes"]))
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

        first, seconds, rows = first_and_median(
            lambda moves=moves: jaxgames.evaluate(game, moves, depth=C4_DEPTH)
        )
        public = rates(n, first, seconds, sum(int(r["nodes"]) for r in rows))
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


def default_quiescence(game: Any) -> int | None:
    """The quiescence plies default options give the game's alpha-beta (0: none); None
    where the install under test has no ``defaults_for`` to say (an older one)."""
    try:
        from jaxgames.search.alphabeta import AlphaBetaOptions, defaults_for
    except ImportError:
        return None
    return int(defaults_for(game).get("quiescence", AlphaBetaOptions().quiescence))


def step_rate(game: Any, roots: Any, seed: int) -> dict[str, Any]:
    """The game's own batched step on the roots, one random legal move each: a jitted
    ``vmap`` of ``step``, sharded over the devices as the searches are; the median of 7
    samples, each long enough (200 ms: a call of a tenth of a millisecond, timed over 20 ms,
    gave rates a factor 1.7 apart from one run to the next) that a short call is not timed
    alone."""
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
    calls = max(1, math.ceil(0.2 / max(time.perf_counter() - t0, 1e-7)))
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(calls):
            out = step(states, acts)
        jax.block_until_ready(out)
        samples.append((time.perf_counter() - t0) / calls)
    seconds = statistics.median(samples)
    # the same step inside one device loop, as a search's steps are: no call dispatched per
    # step (the state after a step is stepped again by the same actions: an illegal action
    # gives an unspecified state of the same shapes, at the same cost)
    loop_steps = 100

    @jax.jit
    def looped(states, acts):
        return jax.lax.fori_loop(0, loop_steps, lambda _, s: jax.vmap(game.step)(s, acts), states)

    jax.block_until_ready(looped(states, acts))
    loop_samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        jax.block_until_ready(looped(states, acts))
        loop_samples.append((time.perf_counter() - t0) / loop_steps)
    loop_seconds = statistics.median(loop_samples)
    return {
        "call": "jax.jit(jax.vmap(game.step))(states, legal actions)",
        "positions": n,
        "devices": mesh.size if sharded else 1,
        "first_call_s": first,
        "seconds": seconds,
        "compile_s": first - seconds,
        "steps_per_s": n / seconds,
        "calls_per_sample": calls,
        "loop_call": f"the same step {loop_steps} times in one jitted fori_loop, median of 5",
        "loop_seconds_per_step": loop_seconds,
        "steps_per_s_in_loop": n / loop_seconds,
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
    first, seconds, res = first_and_median(lambda: alphabeta_batch(game, roots, depth, **options))
    kernel = rates(n, first, seconds, int(res.stats["nodes"]))
    kernel.update(
        call=f"alphabeta_batch(game, states, depth={depth})",
        lanes=res.stats.get("lanes"),
        devices=res.stats.get("devices"),
        ordering=res.stats.get("ordering"),
    )
    emit("kernel", kernel)
    print(f"  kernel   {fmt(kernel)}", flush=True)

    first, seconds, rows = first_and_median(
        lambda: jaxgames.evaluate(game, fens, depth=depth, **options)
    )
    public = rates(n, first, seconds, sum(int(r["nodes"]) for r in rows))
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
    step["search_nodes_per_s_vs_steps_per_s_in_loop"] = ratio(
        kernel["nodes_per_s"], step["steps_per_s_in_loop"]
    )
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
    first, seconds, res = first_and_median(lambda: alphabeta_batch(game, roots, depth))
    kernel = rates(n, first, seconds, int(res.stats["nodes"]))
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
    step["search_nodes_per_s_vs_steps_per_s_in_loop"] = ratio(
        kernel["nodes_per_s"], step["steps_per_s_in_loop"]
    )
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
        search = functools.partial(alphabeta_batch, game, children, depth)
        started = time.perf_counter()
        res = search()
        first = time.perf_counter() - started
        if first < FFORUM_ONCE_S:
            first, seconds, res = first_and_median(search)
        else:  # a long solve runs once: its steady time is the call less its compilation
            seconds = first - float(res.stats.get("compile_s") or 0.0)
        got = [int(game.score_from_value(res.value[i, mover])) for i in range(len(moves))]
        row = rates(1, first, seconds, int(res.stats["nodes"]))  # one problem, all its moves
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
    first, seconds, res = first_and_median(lambda: expectiminimax_batch(game, roots, depth))
    nodes = res.stats.get("nodes", int(sum(int(x) for x in res.nodes)))
    row = rates(n, first, seconds, int(nodes))
    row.update(call=f"expectiminimax_batch(game, states, depth={depth})", depth=depth)
    emit("kernel", row)
    print(f"  kernel   {fmt(row)}", flush=True)


def has_progress_log() -> bool:
    """The install under test has ``--progress log`` (an older one has no such option)."""
    try:
        from jaxgames.progress import DISPLAYS
    except ImportError:
        return False
    return "log" in DISPLAYS


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
    if has_progress_log():
        argv += ["--progress", "log"]
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
    if res.get("search_begins_s") is not None:
        parts.append(f"search begins at {res['search_begins_s']:.2f} s")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", choices=ROWS, required=True)
    parser.add_argument("--work", required=True, help="the parent's work folder (inputs.json)")
    parser.add_argument("--json-out", required=True, help="where the row's JSON goes")
    return run_row(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
