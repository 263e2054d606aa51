"""Alpha-beta: jaxgames' batched device search against OpenSpiel's, same machine, one run.

    python benchmarks/alphabeta.py                  # every section
    python benchmarks/alphabeta.py --quick          # smoke run, small N (*_quick.json)
    python benchmarks/alphabeta.py --positions 2000 --depths 4 6 --sections bulk peer

Sections (``--sections``; all by default):

* ``bulk``: ``jaxgames.search.alphabeta_batch`` at each depth on N connect-four positions
  (seeded random play, 6-16 plies, non-terminal, deduplicated; kept as move strings).
* ``peer``: OpenSpiel's ``alpha_beta_search`` (pure Python over pyspiel's C++ connect four),
  one position at a time, on the first positions of the same list, same depths. Its value
  function at the depth cutoff is ``--peer-eval`` (see ``centre_eval``).
* ``solve``: exact solving of the public solver's test set ``Test_L3_R1`` (late-game
  positions, 1-13 empty cells): one batch at depth ``max(42 - plies)``, every score checked
  against the file; OpenSpiel solves the first ones to the end (win/draw/loss sign checked).
* ``single``: one root at a time (N = 1, one lane), for every search mode ``alphabeta`` has.
* ``ordering``: total nodes at depth 6 with each move-ordering feature alone, none, and all.
* ``trees``: leaves of alpha-beta (no ordering) on synthetic uniform trees with random and
  perfect move order: the effective branching factor ``L^(1/d)`` against ``b^(3/4)``, ``b^(1/2)``.

Devices: ``--cpu-devices`` (default: one per core, as ``jaxgames evaluate`` does) splits the
CPU into that many JAX devices before JAX starts; batches whose size they divide are then
sharded over them, each device searching its share on its own core. ``--cpu-devices 1``
measures one device. An ``XLA_FLAGS`` that sets a device count wins; the JSON records the
devices in ``machine``.

Timing: a jaxgames search compiles once per (batch size, depth, options). Its first call is
made on N copies of a finished game (same shapes, so the same compiled program, and the search
ends at once): that call's time is ``first_call_s``, tracing plus compilation. The real
positions are then searched once, timed with the results on the host (``seconds``); big
searches are long enough that one run averages out. OpenSpiel has nothing to compile; its
node counts come from a second, untimed pass that counts calls of its recursive function.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

import jax
import numpy as np
from jaxgames.kernels import batch_size, split_cpu, stack, take, wide_vectors

import jaxgames
from jaxgames import search
from jaxgames.bench.helpers import (
    command_line,
    digest,
    machine_info,
    package_versions,
    result_path,
    table_of,
    write_json,
)
from jaxgames.bench.peers import load_openspiel_minimax, openspiel_alpha_beta
from jaxgames.bench.reference import pons_lines
from jaxgames.bench.searches import (
    depth_table,
    one_at_a_time,
    search_row,
    search_twice,
    single_row,
    single_table,
    uniform_tree_rows,
)
from jaxgames.search import alphabeta_batch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PONS_FILE = "tests/reference/connect4_pons/Test_L3_R1"
FINISHED = "1212121"  # x wins in column 1 on move 7: a terminal connect-four position
WIDTH, HEIGHT = 7, 6
SECTIONS = ("bulk", "peer", "solve", "single", "ordering", "trees", "lanes")
PEER_POSITIONS = {4: 500, 6: 200, 8: 100}  # OpenSpiel positions per depth (else 50)
FEATURE_NAMES = ("hint", "killers", "history", "iterative_deepening", "tt", "bounds")


# ---------------------------------------------------------------- machine and positions
def versions() -> dict[str, str | None]:
    return {"jax": jax.__version__, "jaxgames": jaxgames.__version__} | package_versions(
        ("jaxlib", "open_spiel")
    )


def _wins(board: dict, row: int, col: int, piece: int) -> bool:
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while board.get((r, c)) == piece:
                run += 1
                r, c = r + sign * dr, c + sign * dc
        if run >= 4:
            return True
    return False


def random_positions(n: int, seed: int, plies: tuple[int, int] = (6, 16)) -> list[str]:
    """``n`` distinct non-terminal connect-four positions as move strings ("4453", 1-based
    columns), each reached by ``plies[0]..plies[1]`` uniformly random moves (Python's
    ``random.Random(seed)``); a game that ends on the way is thrown away. Generation order."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        length = rng.randint(*plies)
        heights = [0] * WIDTH
        board: dict = {}
        moves = []
        for ply in range(length):
            col = rng.choice([c for c in range(WIDTH) if heights[c] < HEIGHT])
            row = heights[col]
            board[(row, col)] = ply % 2
            heights[col] += 1
            moves.append(str(col + 1))
            if _wins(board, row, col, ply % 2):
                break
        else:
            text = "".join(moves)
            if text not in seen:
                seen.add(text)
                out.append(text)
    return out


def no_last_ply() -> dict[str, bool]:
    """``last_ply=False``: a node above the horizon searched move by move, so that node
    counts measure the ordering (the fringe counts every child)."""
    return {"last_ply": False}


# ---------------------------------------------------------------- OpenSpiel
def centre_eval(max_player: int):
    """The peer's value function: (x - o stones in the centre column) / 100 for player 0,
    negated for player 1, read from the move history. Cheap (one pass over at most 42
    actions) and strictly inside (-1, 1), OpenSpiel's win/loss returns."""

    def value(state) -> float:
        v = 0
        for i, a in enumerate(state.history()):
            if a == 3:
                v += 1 if i % 2 == 0 else -1
        return (v if max_player == 0 else -v) / 100.0

    return value


def zero_eval(max_player: int):
    def value(state) -> float:
        return 0.0

    return value


PEER_EVALS = {"centre": centre_eval, "zero": zero_eval}


def peer_states(pyspiel, game, our_game, moves: list[str]) -> list:
    """pyspiel states for move strings; OpenSpiel's action k is column k + 1 (checked by
    comparing its board with ours)."""
    states = []
    for m in moves:
        s = game.new_initial_state()
        for c in m:
            s.apply_action(int(c) - 1)
        ours = our_game.format(our_game.parse(m))
        if str(s).strip().replace("\n", "/") != ours:
            raise RuntimeError(f"OpenSpiel and jaxgames boards differ for {m}")
        states.append(s)
    return states


# ---------------------------------------------------------------- sections
def bench_bulk(game, moves, roots, depths, deep_positions) -> list[dict[str, Any]]:
    print(f"\n== bulk alpha-beta, connect4, default options (the game's), N = {len(moves)}")
    finished = game.parse(FINISHED)
    rows = []
    for depth in depths:
        n = len(moves) if depth < 8 else min(len(moves), deep_positions)
        first, seconds, res = search_twice(game, take(roots, slice(0, n)), depth, finished)
        st = res.stats
        rows.append(
            {
                **search_row(depth, n, first, seconds, st),
                "subset": n < len(moves),
                "lane_phases": st.get("lane_phases"),
                "devices": st.get("devices"),
                "ordering": st.get("ordering"),
                "nodes_per_root": [int(x) for x in res.nodes],
            }
        )
    depth_table(rows)
    return rows


def bench_peer(peer, game, moves, bulk, counts, eval_name) -> list[dict[str, Any]]:
    pyspiel, _ = peer
    print(f"\n== OpenSpiel alpha_beta_search, one position at a time, value function {eval_name}")
    os_game = pyspiel.load_game("connect_four")
    rows = []
    for b in bulk:
        depth = b["depth"]
        n = min(counts.get(depth, 50), b["positions"])
        states = peer_states(pyspiel, os_game, game, moves[:n])
        row = openspiel_alpha_beta(peer, os_game, states, depth, PEER_EVALS[eval_name])
        row.pop("values")
        ours_nodes = sum(b["nodes_per_root"][:n]) / n
        row.update(
            {
                "depth": depth,
                "value_function": eval_name,
                "jaxgames_positions_per_s": b["positions_per_s"],
                "jaxgames_nodes_per_s": b["nodes_per_s"],
                "jaxgames_nodes_per_position_same_positions": ours_nodes,
                "ratio_positions_per_s": b["positions_per_s"] / row["positions_per_s"],
                "ratio_nodes_per_s": b["nodes_per_s"] / row["nodes_per_s"],
            }
        )
        rows.append(row)
    table_of(
        rows,
        {
            "depth": "depth",
            "OS positions": "positions",
            "OS pos/s": "positions_per_s",
            "ours pos/s": "jaxgames_positions_per_s",
            "ours/OS": lambda r: f"{r['ratio_positions_per_s']:.2f}x",
            "OS nodes/s": "nodes_per_s",
            "ours nodes/s": "jaxgames_nodes_per_s",
            "OS nodes/pos": "nodes_per_position",
            "ours nodes/pos": "jaxgames_nodes_per_position_same_positions",
        },
    )
    return rows


def bench_solve(game, peer, lines, peer_n) -> dict[str, Any]:
    depth = max(42 - len(m) for m, _ in lines)
    print(f"\n== exact solving, {PONS_FILE}: {len(lines)} positions, one batch at depth {depth}")
    roots = stack([game.parse(m) for m, _ in lines])
    first, seconds, res = search_twice(game, roots, depth, game.parse(FINISHED))
    scores = [game.score_from_value(res.value[i, len(m) % 2]) for i, (m, _) in enumerate(lines)]
    mismatches = [
        {"moves": m, "expected": s, "got": g}
        for (m, s), g in zip(lines, scores, strict=True)
        if g != s
    ]
    out: dict[str, Any] = {
        "file": PONS_FILE,
        **search_row(depth, len(lines), first, seconds, res.stats),
        "empty_cells": [min(42 - len(m) for m, _ in lines), depth],
        "mismatches": len(mismatches),
        "mismatched": mismatches[:20],
        "lane_phases": res.stats.get("lane_phases"),
        "devices": res.stats.get("devices"),
        "ordering": res.stats.get("ordering"),
        "largest_search_vs_mean": float(np.max(res.nodes) / np.mean(res.nodes)),
    }
    print(
        f"jaxgames: {out['positions_per_s']:,.1f} positions/s, {out['nodes_per_s']:,.0f} nodes/s, "
        f"{out['seconds']:.2f} s steady, first call {first:.2f} s; "
        f"score mismatches vs file: {len(mismatches)}"
    )
    # the same batch with one lane width to the end: what the narrower phases save
    first_w, seconds_w, res_w = search_twice(game, roots, depth, game.parse(FINISHED), shrink=0)
    out["one_width"] = {
        "lane_phases": res_w.stats.get("lane_phases"),
        "first_call_s": first_w,
        "seconds": seconds_w,
        "positions_per_s": len(lines) / seconds_w,
        "nodes": res_w.stats["nodes"],
        "same_values": bool(np.array_equal(res_w.value, res.value)),
    }
    print(
        f"jaxgames, one lane width to the end (shrink=0): "
        f"{out['one_width']['positions_per_s']:,.1f} positions/s, {seconds_w:.2f} s steady; "
        f"phases save {seconds_w / seconds:.2f}x"
    )
    # the question OpenSpiel's solve answers (win, draw or loss), by a null window
    eps = 1e-6
    first_n, seconds_n, res_n = search_twice(
        game, roots, depth, game.parse(FINISHED), window=(-eps, eps)
    )
    got = [np.sign(res_n.value[i, len(m) % 2]) for i, (m, _) in enumerate(lines)]
    sign_bad = sum(int(g) != int(np.sign(s)) for g, (_, s) in zip(got, lines, strict=True))
    out["win_draw_loss"] = {
        "window": [-eps, eps],
        "first_call_s": first_n,
        "seconds": seconds_n,
        "positions_per_s": len(lines) / seconds_n,
        "nodes": res_n.stats["nodes"],
        "nodes_per_position": res_n.stats["nodes"] / len(lines),
        "largest_search": int(np.max(res_n.nodes)),
        "sign_mismatches": sign_bad,
    }
    print(
        f"jaxgames, win/draw/loss only (null window): "
        f"{out['win_draw_loss']['positions_per_s']:,.1f} positions/s, {seconds_n:.2f} s, "
        f"{out['win_draw_loss']['nodes_per_position']:.1f} nodes/pos; "
        f"sign mismatches vs file: {sign_bad}"
    )
    if peer:
        out["openspiel"] = solve_peer(peer, game, lines[:peer_n], res, out)
    return out


def solve_peer(peer, game, sub, res, out: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel's solve of the first lines, beside ours (``res``, the rows of ``out``)."""
    pyspiel, _ = peer
    os_game = pyspiel.load_game("connect_four")
    states = peer_states(pyspiel, os_game, game, [m for m, _ in sub])
    row = openspiel_alpha_beta(peer, os_game, states, 42, None)
    values = row.pop("values")
    sign_bad = sum(
        int(np.sign(v)) != int(np.sign(s)) for v, (_, s) in zip(values, sub, strict=True)
    )
    ours_nodes = float(np.mean(res.nodes[: len(sub)]))
    row.update(
        {
            "sign_mismatches": sign_bad,
            "jaxgames_nodes_per_position_same_positions": ours_nodes,
            "ratio_positions_per_s": out["positions_per_s"] / row["positions_per_s"],
        }
    )
    if "win_draw_loss" in out:  # the same question as OpenSpiel's (its utility is +-1)
        wdl = out["win_draw_loss"]
        wdl["ratio_positions_per_s"] = wdl["positions_per_s"] / row["positions_per_s"]
    print(
        f"OpenSpiel: {row['positions']} positions, {row['positions_per_s']:,.1f} positions/s, "
        f"{row['nodes_per_s']:,.0f} nodes/s, {row['nodes_per_position']:,.0f} nodes/pos "
        f"(ours {ours_nodes:,.0f} on the same); win/draw/loss sign mismatches: {sign_bad}; "
        f"ours/OpenSpiel {row['ratio_positions_per_s']:.2f}x"
    )
    if "win_draw_loss" in out:
        print(
            f"win/draw/loss (the question OpenSpiel answers): ours/OpenSpiel "
            f"{out['win_draw_loss']['ratio_positions_per_s']:.2f}x"
        )
    return row


def bench_single(game, moves, depths: list[int]) -> dict[str, Any]:
    print(f"\n== single roots: {len(moves)} positions one at a time")
    states = [game.parse(m) for m in moves]
    out: dict[str, Any] = {"positions": len(moves), "rows": []}
    for depth in depths:
        values = {}
        for mode in ("device", "host"):
            kw = {"lanes": 1} if mode == "device" else {}
            first, times, results = one_at_a_time(
                lambda s, d=depth, m=mode, kw=kw: search.alphabeta(game, s, d, mode=m, **kw),
                states,
            )
            values[mode] = [float(np.asarray(r.value).reshape(-1, 2)[0, 0]) for r in results]
            nodes = sum(int(r.stats["nodes"]) for r in results)
            out["rows"].append(single_row(depth, mode, first, times, nodes))
        out["rows"][-1]["values_agree_with_device"] = values["device"] == values["host"]
    out["note"] = (
        "device: one root per call, one lane ("
        "jaxgames.search.alphabeta(..., mode='device', lanes=1)"
        "); host: jaxgames.search.alphabeta(..., mode='host'), default split"
        + "; a first pass over all roots (first_pass_s) compiles every shape they need, "
        "a second pass is timed, one call per root, host overhead included"
    )
    single_table(out["rows"])
    return out


def bench_lanes(game, roots, depth: int, widths: list[int]) -> list[dict[str, Any]]:
    """Bulk alpha-beta of the same roots with different numbers of lanes side by side."""
    print(f"\n== lanes: bulk alpha-beta, connect4, depth {depth}, N = {batch_size(roots)}")
    finished = game.parse(FINISHED)
    n = batch_size(roots)
    rows = []
    for lanes in widths:
        first, seconds, res = search_twice(game, roots, depth, finished, lanes=lanes)
        rows.append({**search_row(depth, n, first, seconds, res.stats), "lanes": lanes})
        print(
            f"lanes {lanes:>6}: {n / seconds:8.1f} positions/s "
            f"{res.stats['nodes'] / seconds:>10,.0f} nodes/s  nodes {res.stats['nodes']:,}",
            flush=True,
        )
    return rows


def bench_ordering(game, roots, depth: int) -> dict[str, Any]:
    n = batch_size(roots)
    print(f"\n== move-ordering features: total nodes, {n} positions, depth {depth}")
    plain = no_last_ply()
    off = {**{name: False for name in FEATURE_NAMES}, **plain}
    configs = [("all off", off)]
    configs += [(f"{name} only", {**off, name: True}) for name in FEATURE_NAMES]
    configs.append(("all on", {**{name: True for name in FEATURE_NAMES}, **plain}))
    configs.append(("defaults", plain))  # the game's own defaults (jaxgames.tuning)
    # and as they run by default: the last ply settled at once, every child counted
    configs.append(("defaults, last_ply on", {}))
    rows, base_value = [], None
    for label, opts in configs:
        t0 = time.perf_counter()
        res = alphabeta_batch(game, roots, depth, **opts)
        seconds = time.perf_counter() - t0
        value = res.value[:, 0]
        if base_value is None:
            base_value = value
        rows.append(
            {
                "config": label,
                "options": res.stats.get("ordering", opts),
                "nodes": res.stats["nodes"],
                "leaves": res.stats["leaves"],
                "cutoffs": res.stats["cutoffs"],
                "tt_hits": res.stats["tt_hits"],
                "nodes_vs_all_off": res.stats["nodes"] / rows[0]["nodes"] if rows else 1.0,
                "max_abs_value_diff_vs_all_off": float(np.max(np.abs(value - base_value))),
                "first_call_s_incl_compile": seconds,
            }
        )
    table_of(
        rows,
        {
            "config": "config",
            "nodes": "nodes",
            "nodes / all off": lambda r: f"{r['nodes_vs_all_off']:.3f}",
            "leaves": "leaves",
            "cutoffs": "cutoffs",
            "tt hits": "tt_hits",
            "value diff": lambda r: f"{r['max_abs_value_diff_vs_all_off']:.1g}",
        },
    )
    return {"positions": n, "depth": depth, "rows": rows}


# ---------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--positions", type=int, default=None, help="N (default 10000)")
    parser.add_argument("--depths", nargs="+", type=int, default=None, help="default 4 6 8")
    parser.add_argument(
        "--deep-positions",
        type=int,
        default=None,
        help="positions searched at depth >= 8 (the first ones of the N; default all N)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random positions")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--peer-eval", choices=sorted(PEER_EVALS), default="centre")
    parser.add_argument("--no-peers", action="store_true", help="skip OpenSpiel")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    parser.add_argument(
        "--cpu-devices", type=int, default=None, help="split the CPU (default: one per core)"
    )
    parser.add_argument(
        "--narrow-vectors",
        action="store_true",
        help="leave XLA's CPU vector width at its default (256 bits)",
    )
    args = parser.parse_args(argv)
    quick = args.quick
    args.positions = args.positions or (200 if quick else 10000)
    args.depths = args.depths or ([4, 6] if quick else [4, 6, 8])
    args.deep_positions = args.deep_positions or (100 if quick else args.positions)
    return args


def peer_note(peer_eval: str) -> str:
    return (
        "OpenSpiel's alpha_beta_search on the first positions of the same list, one at a "
        "time; value function at the cutoff: "
        + (
            "(x - o stones in the centre column) / 100 for the maximizing player, from "
            "state.history()"
            if peer_eval == "centre"
            else "0 (every cutoff ties: its trees are smaller than with a heuristic)"
        )
        + "; ours uses the game's threat heuristic (69 lines) and its default options "
        "(bulk rows, `ordering`); ratio_positions_per_s = ours over the full set / "
        "OpenSpiel over its subset"
    )


NOTES = {
    "solve": "ours returns the exact distance score (checked against the file); OpenSpiel's "
    "connect_four returns +1/0/-1, so it only has to prove win/draw/loss, which prunes more",
    "trees": "uniform_tree games, roots of `trees` different seeds batched in one search at "
    "depth d, every ordering feature and the TT off; leaves in [-1000, 1000] (ties "
    "possible); minimal_tree_leaves = b^ceil(d/2) + b^floor(d/2) - 1",
}


def bulk_and_peer(args: argparse.Namespace, peer, game, moves, roots) -> dict[str, Any]:
    """The sections ``bulk`` and ``peer`` (the peer's rows stand beside the bulk rows)."""
    n, deep = args.positions, args.deep_positions
    out: dict[str, Any] = {"bulk": bench_bulk(game, moves, roots, args.depths, deep)}
    if deep < n:
        out["bulk_note"] = (
            f"depths >= 8 are measured on the first {deep} of the {n} positions "
            "(--deep-positions); positions field of each row"
        )
    if "peer" in args.sections and peer:
        counts = {4: 20, 6: 10, 8: 5} if args.quick else PEER_POSITIONS
        out["peer"] = bench_peer(peer, game, moves, out["bulk"], counts, args.peer_eval)
        out["peer_note"] = peer_note(args.peer_eval)
    for row in out["bulk"]:
        row.pop("nodes_per_root")
    return out


def other_sections(args: argparse.Namespace, peer, game, moves, roots) -> dict[str, Any]:
    """The sections ``solve``, ``single``, ``ordering``, ``lanes`` and ``trees``."""
    quick, out = args.quick, {}
    if "solve" in args.sections:
        lines = pons_lines(os.path.join(ROOT, PONS_FILE), 100 if quick else None)
        out["solve"] = bench_solve(game, peer, lines, 10 if quick else 50)
        out["solve_note"] = NOTES["solve"]
    if "single" in args.sections:
        out["single"] = bench_single(game, moves[: 3 if quick else 20], [4, 6, 8])
    if "ordering" in args.sections:
        ordering_n = min(args.positions, 100 if quick else 1000)
        out["ordering"] = bench_ordering(game, take(roots, slice(0, ordering_n)), 6)
    if "lanes" in args.sections:
        widths = [64, 512] if quick else [128, 256, 512, 1024, 2048, 8192]
        out["lanes"] = bench_lanes(game, roots, 4 if quick else 6, widths)
    if "trees" in args.sections:
        shapes = [(4, 4), (8, 4)] if quick else [(4, 4), (4, 6), (8, 4), (8, 6)]
        print("\n== uniform trees, alpha-beta with no ordering: effective branching factor")
        off = {**{name: False for name in FEATURE_NAMES}, **no_last_ply()}
        out["trees"] = uniform_tree_rows(shapes, 20 if quick else 200, off)
        out["trees_note"] = NOTES["trees"]
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    split_cpu(args.cpu_devices)  # before JAX's first computation
    if not args.narrow_vectors:
        wide_vectors()
    start = time.perf_counter()
    peer = None if args.no_peers else load_openspiel_minimax()
    game = jaxgames.make("connect4")
    moves = random_positions(args.positions, args.seed)
    roots = stack([game.parse(m) for m in moves])
    result: dict[str, Any] = {
        "benchmark": "alphabeta",
        "command": command_line("alphabeta.py", argv),
        "machine": machine_info(),
        "versions": versions(),
        "positions": {
            "game": "connect4",
            "count": args.positions,
            "seed": args.seed,
            "plies": [6, 16],
            "generator": "random_positions(count, seed) in this script: uniformly random "
            "moves, games that end on the way dropped, duplicates dropped",
            "sha256": digest(moves),
            "first": moves[:10],
        },
        "timing": "first_call_s: the first call with the same shapes, on copies of a finished "
        "game (tracing and compilation); seconds: one steady-state search of the real "
        "positions, results on the host",
    }
    if "bulk" in args.sections or "peer" in args.sections:
        result.update(bulk_and_peer(args, peer, game, moves, roots))
    result.update(other_sections(args, peer, game, moves, roots))
    if peer is None and not args.no_peers:
        result["peer_missing"] = "OpenSpiel (pyspiel) is not installed: no peer figures"
    result["total_runtime_s"] = time.perf_counter() - start
    out = write_json(result, result_path(args.out, HERE, "alphabeta", args.quick))
    print(f"\ntotal {result['total_runtime_s']:.0f} s; wrote {os.path.relpath(out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
