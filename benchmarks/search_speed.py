"""Search speed: bulk evaluation beside its own kernels and the specialists, one run.

    python benchmarks/search_speed.py --quick       # smoke run, tiny sizes (*_quick.json)
    python benchmarks/search_speed.py               # the full run (results/search_speed_cpu.json)
    python benchmarks/search_speed.py --old-python OLD/bin/python   # an older install beside
    python benchmarks/search_speed.py --rows connect4 --sets Test_L3_R1 Test_L1_R2:100

The measurements of the issue "bulk evaluation as fast as the kernels", side by side on the
same machine in one run, each row also run by an older install of jaxgames when
``--old-python`` names its interpreter (old and new on the same positions). The rows
(``--rows``; all by default) and what each measures: ``benchmarks/search_speed_rows.py``.

Method. Every row runs in a child process of the interpreter under test
(``python benchmarks/search_speed_rows.py --row NAME --work DIR --json-out FILE``), so an
old install runs the very same row code on the very same positions; the row code uses only
API that both have, and records "not available in this version" where the old one lacks it.
The parent makes every input once (``DIR/inputs.json``), runs the peers, runs each row
under each interpreter in turn, and gathers the JSON. Before JAX starts, the CPU is split
into one device per core (``--cpu-devices``) and wide vectors are asked for, as ``jaxgames
evaluate`` does, so kernel, public call and command line run on the same devices. Each
child and each command-line pair gets a fresh persistent-compilation-cache directory
(``JAXGAMES_CACHE_DIR``), so a first call compiles and a later process finds what the earlier
one stored. Timing: every jaxgames call is made twice on the same inputs: ``first_call_s``
(tracing, compilation, one run) and ``seconds`` (the second call, timed alone; a call under
2 s is timed five times and the median taken);
``compile_s = first_call_s - seconds``. Command lines are timed from the start of the
process. A score that differs from the reference is a failure: counted in the JSON
(``mismatches``), printed loudly, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from jaxgames.kernels import split_cpu, wide_vectors

from jaxgames.bench.helpers import (
    UNAVAILABLE,
    command_line,
    digest,
    fresh_cache_env,
    load_average,
    machine_info,
    ratio,
    result_path,
    table_of,
    write_json,
)
from jaxgames.bench.peers import (
    c4solver_peer,
    middlegame_fens,
    othello_endgame_peer,
    stockfish_peer,
)
from jaxgames.bench.random_play import position_texts
from jaxgames.bench.reference import fforum_positions, pons_lines
from jaxgames.registry import make

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
REFERENCE_ENV = "JAXGAMES_REFERENCE"
PEERS_ENV = "JAXGAMES_PEERS"


# ---------------------------------------------------------------- inputs
def digest_16(items: list[str]) -> str:
    """A short fingerprint of a list of positions (the same inputs give the same one)."""
    return digest(items)[:16]


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
        lines = pons_lines(path, lines_wanted)
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
            "sha256": digest_16([f"{m} {s}" for m, s in lines]),
        }
    return out


# ---------------------------------------------------------------- rows and summary
def run_child(
    python: str, row: str, work: str, label: str, timeout: float | None
) -> dict[str, Any]:
    """One row in a child process of ``python``; its JSON, or why there is none."""
    json_out = os.path.join(work, f"row_{label}_{row}.json")
    log = os.path.join(work, f"row_{label}_{row}.log")
    cmd = [python, os.path.join(HERE, "search_speed_rows.py"), "--row", row, "--work", work]
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


SUMMARY_KEYS = (
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
)
Add = Callable[..., None]  # add(row, version, data, **extra): one summary line


def connect4_lines(add: Add, version: str, parts: dict[str, Any], result: dict) -> None:
    c_sets = result.get("peers", {}).get("c4solver", {}).get("sets", {})
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


def step_ratio(data: dict[str, Any], step: dict[str, Any]) -> float | None:
    """A search's nodes/s over the game's step rate at the same batch."""
    return ratio(data.get("nodes_per_s"), step.get("steps_per_s"))


def loop_ratio(data: dict[str, Any], step: dict[str, Any]) -> float | None:
    """A search's nodes/s over the step rate inside one device loop (no call per step)."""
    return ratio(data.get("nodes_per_s"), step.get("steps_per_s_in_loop"))


def step_fields(step: dict[str, Any]) -> dict[str, Any]:
    """The step row's rates: dispatched call by call, and inside one device loop."""
    fields = {"steps_per_s": step["steps_per_s"]}
    if step.get("steps_per_s_in_loop"):
        fields["steps_per_s_in_loop"] = step["steps_per_s_in_loop"]
    return fields


def chess_lines(add: Add, version: str, parts: dict[str, Any], result: dict) -> None:
    sf = result.get("peers", {}).get("stockfish", {}).get("positions_per_s")
    step = parts.get("step", {})
    for key in ("kernel", "evaluate"):
        if key in parts:
            add(
                f"chess {key} d{result['settings']['chess_depth']}",
                version,
                parts[key],
                vs_stockfish=ratio(parts[key].get("positions_per_s"), sf),
                nodes_per_s_vs_step=step_ratio(parts[key], step),
                nodes_per_s_vs_loop_step=loop_ratio(parts[key], step),
            )
    if step:
        add("chess step (same batch)", version, step, **step_fields(step))


def othello_lines(add: Add, version: str, parts: dict[str, Any], result: dict) -> None:
    step = parts.get("step", {})
    if "kernel" in parts:
        add(
            f"othello alphabeta d{result['settings']['othello_depth']}",
            version,
            parts["kernel"],
            nodes_per_s_vs_step=step_ratio(parts["kernel"], step),
            nodes_per_s_vs_loop_step=loop_ratio(parts["kernel"], step),
        )
    if step:
        add("othello step (same batch)", version, step, **step_fields(step))


def fforum_lines(add: Add, version: str, parts: dict[str, Any], result: dict) -> None:
    c_problems = result.get("peers", {}).get("othello_endgame", {}).get("problems", {})
    for number, data in parts.items():
        if not number.startswith("_"):
            c = c_problems.get(number, {}).get("positions_per_s")
            add(
                f"othello FFORUM #{number} ({data['empties']} empty)",
                version,
                data,
                vs_c=ratio(data.get("positions_per_s"), c),
            )


def backgammon_lines(add: Add, version: str, parts: dict[str, Any], result: dict) -> None:
    depth = result["settings"]["backgammon_depth"]
    add(f"backgammon expectiminimax d{depth}", version, parts.get("kernel"))


def startup_lines(add: Add, version: str, parts: dict[str, Any], result: dict) -> None:
    for key, label in (("evaluate_chess", "first row"), ("show_chess", "wall")):
        for run, cli in parts.get(key, {}).items():
            if not isinstance(cli, dict) or "wall_s" not in cli:
                continue
            shown = cli["first_row_s"] if label == "first row" else cli["wall_s"]
            add(
                f"startup {key.replace('_', ' ')} {run}",
                version,
                {"seconds": shown, **({"error": cli["error"]} if "error" in cli else {})},
                note=f"{label} s, fresh process; {parts.get('compilation_cache')}",
            )
            if cli.get("search_begins_s") is not None:  # `--progress log`: the search began
                add(
                    f"startup {key.replace('_', ' ')} {run} search begins",
                    version,
                    {"seconds": cli["search_begins_s"]},
                    note="s from the process start to its first search phase, fresh process",
                )


ROW_LINES: dict[str, Callable[[Add, str, dict[str, Any], dict], None]] = {
    "connect4": connect4_lines,
    "chess": chess_lines,
    "othello": othello_lines,
    "fforum": fforum_lines,
    "backgammon": backgammon_lines,
    "startup": startup_lines,
}


def summarize(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat line per measured thing (both versions, peers), with its ratios: what the
    table prints and what the README's table is made from."""
    lines: list[dict[str, Any]] = []

    def add(row: str, version: str, data: dict[str, Any] | None, **extra: Any) -> None:
        if not isinstance(data, dict):
            return
        line = {"row": row, "version": version}
        line.update({key: data[key] for key in SUMMARY_KEYS if key in data})
        line.update({k: v for k, v in extra.items() if v is not None})
        lines.append(line)

    peers = result.get("peers", {})
    for name, c in peers.get("c4solver", {}).get("sets", {}).items():
        add(f"connect4 {name} C solver", "peer", c)
    if "skipped" in peers.get("c4solver", {}):
        add("connect4 C solver", "peer", peers["c4solver"])
    for number, c in peers.get("othello_endgame", {}).get("problems", {}).items():
        add(f"othello FFORUM #{number} ({c.get('empties', '?')} empty)", "peer", c)
    if "skipped" in peers.get("othello_endgame", {}):
        add("othello FFORUM C solver", "peer", peers["othello_endgame"])
    stockfish = peers.get("stockfish", {})
    if stockfish:
        add(f"chess Stockfish go depth {stockfish.get('depth', '')}".strip(), "peer", stockfish)
    for version, rows in result["rows"].items():
        for row_name, row in rows.items():
            if "skipped" in row or ("error" in row and not row.get("parts")):
                add(row_name, version, row)
                continue
            ROW_LINES[row_name](add, version, row.get("parts", {}), result)
            if "error" in row:
                add(row_name, version, {"error": row["error"]})
    return beside_each_other(lines)


def beside_each_other(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """New over old, line by line, where both measured the same thing; then the lines of
    one thing (peer, new, old) next to each other."""
    by_key = {(x["row"], x["version"]): x for x in lines}
    for x in lines:
        old = by_key.get((x["row"], "old"))
        if x["version"] == "new" and old:
            x["new_vs_old"] = ratio(x.get("positions_per_s"), old.get("positions_per_s"))
        if x["version"] == "old" and "skipped" in x:
            x["skipped"] = x["skipped"].replace(UNAVAILABLE, "not available in old version")
    first_seen: dict[str, int] = {}
    for x in lines:
        first_seen.setdefault(x["row"], len(first_seen))
    rank = {"peer": 0, "new": 1, "old": 2}
    return sorted(lines, key=lambda x: (first_seen[x["row"]], rank.get(x["version"], 3)))


def print_summary(lines: list[dict[str, Any]]) -> None:
    def num(key: str) -> Callable[[dict[str, Any]], Any]:
        return lambda x: "" if x.get(key) is None else x[key]

    def ratios(x: dict[str, Any]) -> str:
        names = (
            "vs_c",
            "vs_stockfish",
            "evaluate_vs_kernel",
            "nodes_per_s_vs_step",
            "nodes_per_s_vs_loop_step",
            "new_vs_old",
        )
        shown = [f"{k}={x[k]:.3g}" for k in names if isinstance(x.get(k), float)]
        if "steps_per_s" in x:
            shown.append(f"steps/s={x['steps_per_s']:,.0f}")
        if "steps_per_s_in_loop" in x:
            shown.append(f"in_loop={x['steps_per_s_in_loop']:,.0f}")
        if "note" in x:
            shown.append(x["note"])
        return " ".join(shown)

    print("\n== summary (second calls; first call and compile estimate beside)")
    table_of(
        lines,
        {
            "row": "row",
            "version": "version",
            "N": num("positions"),
            "first s": num("first_call_s"),
            "second s": num("seconds"),
            "compile s": num("compile_s"),
            "pos/s": num("positions_per_s"),
            "nodes/pos": num("nodes_per_position"),
            "nodes/s": num("nodes_per_s"),
            "mism.": num("mismatches"),
            "ratios / note": lambda x: (x.get("skipped") or x.get("error") or ratios(x))[:90],
        },
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
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
        "--peers-only", action="store_true", help="run the peers on the inputs, no jaxgames row"
    )
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
    parser.add_argument(
        "--peer-timeout", type=float, default=None, help="seconds per FFORUM problem (C solver)"
    )
    parser.add_argument("--cli-timeout", type=float, default=None, help="seconds per command")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    parser.add_argument("--keep-work", action="store_true", help="keep the work folder")
    return parser.parse_args(argv)


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """The sizes of the run (``--quick`` or full, unless given), as the children read them."""
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
    return settings


def make_inputs(args: argparse.Namespace, settings: dict[str, Any], work: str) -> dict:
    """Every row's positions, made once (``DIR/inputs.json``): old and new read the same."""
    reference = os.path.abspath(args.reference)
    sets = args.sets or (
        ["Test_L3_R1", "Test_L2_R1"]
        if args.quick
        else [
            s for s in DEFAULT_SETS if os.path.isfile(os.path.join(reference, "connect4_pons", s))
        ]
    )
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
        positions = position_texts(make("othello"), settings["othello_positions"], args.seed)
        inputs["othello"] = {"positions": positions}
    if "fforum" in args.rows:
        path = os.path.join(reference, "othello_fforum_20_39.obf")
        inputs["fforum"] = fforum_positions(path, settings["fforum"])
    if "backgammon" in args.rows:
        positions = position_texts(make("backgammon"), settings["backgammon_positions"], args.seed)
        inputs["backgammon"] = {"positions": positions}
    with open(os.path.join(work, "inputs.json"), "w", encoding="utf-8") as f:
        json.dump(inputs, f)
    return inputs


def run_peers(args: argparse.Namespace, inputs: dict[str, Any], work: str) -> dict[str, Any]:
    peers: dict[str, Any] = {}
    if args.no_peers:
        return peers
    if "connect4" in args.rows:
        peers["c4solver"] = c4solver_peer(args.peers, inputs["connect4"], work)
    if "fforum" in args.rows:
        source = os.path.join(ROOT, "benchmarks", "peers", "othello_endgame.c")
        peers["othello_endgame"] = othello_endgame_peer(
            source, inputs["fforum"], work, args.peer_timeout
        )
    if "chess" in args.rows:
        peers["stockfish"] = stockfish_peer(
            inputs["chess"]["fens"], inputs["settings"]["chess_depth"]
        )
    return peers


def run_rows(args: argparse.Namespace, work: str) -> dict[str, Any]:
    """Each row under each interpreter, old and new one after the other, so that the load's
    drifts hit both."""
    pythons = {"new": sys.executable}
    if args.old_python:
        pythons["old"] = args.old_python
    rows: dict[str, Any] = {label: {} for label in pythons}
    for row in args.rows:
        for label, python in pythons.items():
            rows[label][row] = run_child(python, row, work, label, args.row_timeout)
    return rows


def report(result: dict[str, Any]) -> int:
    """The summary, its table and the failures; the exit status (1: a mismatch or failure)."""
    result["summary"] = summarize(result)
    mismatches = sum(int(x.get("mismatches") or 0) for x in result["summary"])
    failed = [f"{x['row']} ({x['version']})" for x in result["summary"] if "error" in x]
    result["mismatches"] = mismatches
    result["failed"] = failed
    print_summary(result["summary"])
    if mismatches:
        print(
            f"\n!!!!!!!! {mismatches} SCORE MISMATCHES against the reference: see the "
            "'mismatches' and 'mismatched' fields. FAILURE."
        )
    if failed:
        print(f"\n!! failed: {', '.join(failed)}")
    return 1 if mismatches or failed else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = settings_of(args)
    # one device per core and wide vectors, as `jaxgames evaluate` sets them, before JAX's
    # first computation (these flags reach every child and command line)
    split_cpu(args.cpu_devices)
    wide_vectors()
    start = time.perf_counter()
    work = tempfile.mkdtemp(prefix="search_speed_")
    result: dict[str, Any] = {
        "benchmark": "search_speed",
        "command": command_line("search_speed.py", argv),
        "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "machine": machine_info(),
        "load_average_start": load_average(),
        "settings": settings,
        "timing": "first_call_s: the first call (tracing, compilation, one run); seconds: the "
        "second call on the same inputs (the median of five where a call takes under 2 s); "
        "compile_s = first_call_s - seconds. Command lines: "
        "wall time from the process start (first_row_s: until its first JSONL row), first "
        "run with an empty compilation cache, second run with what the first stored.",
    }
    try:
        inputs = make_inputs(args, settings, work)
        result["positions"] = describe_inputs(inputs)
        result["peers"] = run_peers(args, inputs, work)
        result["rows"] = run_rows(args, work) if not args.peers_only else {"new": {}}
        result["versions"] = {
            label: next((r["versions"] for r in rows.values() if "versions" in r), None)
            for label, rows in result["rows"].items()
        }
    finally:
        if args.keep_work:
            print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    status = report(result)
    result["total_s"] = time.perf_counter() - start
    out = write_json(result, result_path(args.out, HERE, "search_speed", args.quick))
    print(f"\ntotal {result['total_s']:.0f} s; wrote {os.path.relpath(out, ROOT)}")
    return status


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
            "sha256": digest_16(fens),
            "first": fens[:3],
        }
    for name in ("othello", "backgammon"):
        if name in inputs:
            texts = inputs[name]["positions"]
            out[name] = {
                "count": len(texts),
                "generator": "jaxgames.bench.positions (the random play of `jaxgames bench`)",
                "sha256": digest_16(texts),
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
