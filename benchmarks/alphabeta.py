"""Alpha-beta: jaxgames' batched device search against OpenSpiel's, same machine, one run.

    python benchmarks/alphabeta.py                  # every section, about 10 minutes on 2 CPU cores
    python benchmarks/alphabeta.py --quick          # smoke run, small N, 2 minutes (*_quick.json)
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
import dataclasses
import hashlib
import importlib.metadata
import json
import math
import os
import random
import statistics
import sys
import time
from typing import Any

import jax
import numpy as np
from jaxgames.kernels import batch_size, split_cpu, stack, take, to_numpy, wide_vectors
from machine import machine_info
from report import table

import jaxgames
from jaxgames import search
from jaxgames.search import AlphaBetaOptions, alphabeta_batch

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
    out: dict[str, str | None] = {"jax": jax.__version__, "jaxgames": jaxgames.__version__}
    for dist in ("jaxlib", "open_spiel"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


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


def copies(state: Any, n: int) -> Any:
    """A batch of ``n`` copies of one state (numpy)."""
    return jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], n, 0), to_numpy(state))


def search_twice(game, roots, depth: int, dummy, **options) -> tuple[float, float, Any]:
    """(first_call_s on copies of ``dummy``, seconds on ``roots``, result)."""
    n = batch_size(roots)
    t0 = time.perf_counter()
    alphabeta_batch(game, copies(dummy, n), depth, **options)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = alphabeta_batch(game, roots, depth, **options)
    return first, time.perf_counter() - t0, result


def no_last_ply() -> dict[str, bool]:
    """``last_ply=False`` where the search has it: a node above the horizon searched move by
    move, so that node counts measure the ordering (the fringe counts every child)."""
    return {"last_ply": False}


def feature_options() -> dict[str, str]:
    """Our names of the ordering switches -> the option of :class:`AlphaBetaOptions`."""
    fields = {f.name for f in dataclasses.fields(AlphaBetaOptions)}
    return {name: name for name in FEATURE_NAMES if name in fields}


# ---------------------------------------------------------------- OpenSpiel
def load_peer():
    try:
        import pyspiel
        from open_spiel.python.algorithms import minimax
    except ImportError:
        return None
    return pyspiel, minimax


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


def run_peer(peer, game, states: list, depth: int | None, evals) -> dict[str, Any]:
    """Time OpenSpiel's alpha-beta on each state, then count its nodes in an untimed pass."""
    _, minimax = peer
    values = []
    t0 = time.perf_counter()
    for s in states:
        vf = evals(s.current_player()) if evals else None
        values.append(
            minimax.alpha_beta_search(game, state=s, value_function=vf, maximum_depth=depth)[0]
        )
    seconds = time.perf_counter() - t0
    original = minimax._alpha_beta
    count = [0]

    def counted(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    minimax._alpha_beta = counted  # the recursion looks the name up in the module
    try:
        for s in states:
            vf = evals(s.current_player()) if evals else None
            minimax.alpha_beta_search(game, state=s, value_function=vf, maximum_depth=depth)
    finally:
        minimax._alpha_beta = original
    n = len(states)
    return {
        "positions": n,
        "seconds": seconds,
        "positions_per_s": n / seconds,
        "nodes": count[0],
        "nodes_per_s": count[0] / seconds,
        "nodes_per_position": count[0] / n,
        "values": values,
    }


# ---------------------------------------------------------------- sections
def bench_bulk(game, moves, roots, depths, deep_positions) -> list[dict[str, Any]]:
    print(f"\n== bulk alpha-beta, connect4, default options (the game's), N = {len(moves)}")
    finished = game.parse(FINISHED)
    rows = []
    for depth in depths:
        n = len(moves) if depth < 8 else min(len(moves), deep_positions)
        sub = take(roots, slice(0, n))
        first, seconds, res = search_twice(game, sub, depth, finished)
        st = res.stats
        rows.append(
            {
                "depth": depth,
                "positions": n,
                "subset": n < len(moves),
                "first_call_s": first,
                "seconds": seconds,
                "positions_per_s": n / seconds,
                "nodes": st["nodes"],
                "nodes_per_s": st["nodes"] / seconds,
                "nodes_per_position": st["nodes"] / n,
                "leaves": st["leaves"],
                "cutoffs": st["cutoffs"],
                "tt_hits": st["tt_hits"],
                "lanes": st.get("lanes"),
                "lane_phases": st.get("lane_phases"),
                "devices": st.get("devices"),
                "ordering": st.get("ordering"),
                "nodes_per_root": [int(x) for x in res.nodes],
            }
        )
    table(
        ["depth", "positions", "positions/s", "nodes/s", "nodes/pos", "seconds", "first call s"],
        [
            [
                r["depth"],
                r["positions"],
                r["positions_per_s"],
                r["nodes_per_s"],
                r["nodes_per_position"],
                r["seconds"],
                r["first_call_s"],
            ]
            for r in rows
        ],
    )
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
        row = run_peer(peer, os_game, states, depth, PEER_EVALS[eval_name])
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
    table(
        [
            "depth",
            "OS positions",
            "OS pos/s",
            "ours pos/s",
            "ours/OS",
            "OS nodes/s",
            "ours nodes/s",
            "OS nodes/pos",
            "ours nodes/pos",
        ],
        [
            [
                r["depth"],
                r["positions"],
                r["positions_per_s"],
                r["jaxgames_positions_per_s"],
                f"{r['ratio_positions_per_s']:.2f}x",
                r["nodes_per_s"],
                r["jaxgames_nodes_per_s"],
                r["nodes_per_position"],
                r["jaxgames_nodes_per_position_same_positions"],
            ]
            for r in rows
        ],
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
        "positions": len(lines),
        "depth": depth,
        "empty_cells": [min(42 - len(m) for m, _ in lines), depth],
        "first_call_s": first,
        "seconds": seconds,
        "positions_per_s": len(lines) / seconds,
        "nodes": res.stats["nodes"],
        "nodes_per_s": res.stats["nodes"] / seconds,
        "nodes_per_position": res.stats["nodes"] / len(lines),
        "mismatches": len(mismatches),
        "mismatched": mismatches[:20],
        "lanes": res.stats.get("lanes"),
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
        pyspiel, _ = peer
        os_game = pyspiel.load_game("connect_four")
        sub = lines[:peer_n]
        states = peer_states(pyspiel, os_game, game, [m for m, _ in sub])
        row = run_peer(peer, os_game, states, 42, None)
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
        out["openspiel"] = row
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
    return out


def bench_single(game, moves, depths: list[int]) -> dict[str, Any]:
    print(f"\n== single roots: {len(moves)} positions one at a time")
    modes = ["device", "host"]
    states = [game.parse(m) for m in moves]
    out: dict[str, Any] = {"positions": len(moves), "rows": []}
    for depth in depths:
        values = {}
        for mode in modes:

            def one(state, mode=mode, depth=depth):
                kw = {"lanes": 1} if mode == "device" else {}
                return search.alphabeta(game, state, depth, mode=mode, **kw)

            t0 = time.perf_counter()
            for s in states:  # compiles every shape the roots need (host: frontier sizes)
                one(s)
            first = time.perf_counter() - t0
            times, vals, nodes = [], [], 0
            for s in states:
                t0 = time.perf_counter()
                r = one(s)
                times.append(time.perf_counter() - t0)
                vals.append(float(np.asarray(r.value).reshape(-1, 2)[0, 0]))
                nodes += int(r.stats["nodes"])
            total = sum(times)
            values[mode] = vals
            out["rows"].append(
                {
                    "depth": depth,
                    "mode": mode,
                    "first_pass_s": first,
                    "seconds": total,
                    "positions_per_s": len(states) / total,
                    "median_ms": 1000 * statistics.median(times),
                    "nodes": nodes,
                    "nodes_per_s": nodes / total,
                }
            )
        if len(values) == 2:
            out["rows"][-1]["values_agree_with_device"] = values["device"] == values["host"]
    out["note"] = (
        "device: one root per call, one lane ("
        "jaxgames.search.alphabeta(..., mode='device', lanes=1)"
        "); host: jaxgames.search.alphabeta(..., mode='host'), default split"
        + "; a first pass over all roots (first_pass_s) compiles every shape they need, "
        "a second pass is timed, one call per root, host overhead included"
    )
    table(
        ["depth", "mode", "positions/s", "median ms", "nodes/s", "first pass s"],
        [
            [
                r["depth"],
                r["mode"],
                r["positions_per_s"],
                r["median_ms"],
                r["nodes_per_s"],
                r["first_pass_s"],
            ]
            for r in out["rows"]
        ],
    )
    return out


def bench_lanes(game, roots, depth: int, widths: list[int]) -> list[dict[str, Any]]:
    """Bulk alpha-beta of the same roots with different numbers of lanes side by side."""
    print(f"\n== lanes: bulk alpha-beta, connect4, depth {depth}, N = {batch_size(roots)}")
    finished = game.parse(FINISHED)
    n = batch_size(roots)
    rows = []
    for lanes in widths:
        first, seconds, res = search_twice(game, roots, depth, finished, lanes=lanes)
        rows.append(
            {
                "lanes": lanes,
                "depth": depth,
                "positions": n,
                "first_call_s": first,
                "seconds": seconds,
                "positions_per_s": n / seconds,
                "nodes": res.stats["nodes"],
                "nodes_per_s": res.stats["nodes"] / seconds,
            }
        )
        print(
            f"lanes {lanes:>6}: {n / seconds:8.1f} positions/s "
            f"{res.stats['nodes'] / seconds:>10,.0f} nodes/s  nodes {res.stats['nodes']:,}",
            flush=True,
        )
    return rows


def bench_ordering(game, roots, depth: int) -> dict[str, Any]:
    n = batch_size(roots)
    print(f"\n== move-ordering features: total nodes, {n} positions, depth {depth}")
    names = feature_options()
    plain = no_last_ply()
    off = {**{kw: False for kw in names.values()}, **plain}
    configs = [("all off", off)]
    configs += [(f"{name} only", {**off, kw: True}) for name, kw in names.items()]
    configs.append(("all on", {**{kw: True for kw in names.values()}, **plain}))
    configs.append(("defaults", plain))  # the game's own search_defaults
    if plain:  # and as they run by default: the last ply settled at once, every child counted
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
    table(
        ["config", "nodes", "nodes / all off", "leaves", "cutoffs", "tt hits", "value diff"],
        [
            [
                r["config"],
                r["nodes"],
                f"{r['nodes_vs_all_off']:.3f}",
                r["leaves"],
                r["cutoffs"],
                r["tt_hits"],
                f"{r['max_abs_value_diff_vs_all_off']:.1g}",
            ]
            for r in rows
        ],
    )
    return {"positions": n, "depth": depth, "rows": rows}


def bench_trees(shapes, trees: int) -> list[dict[str, Any]]:
    print("\n== uniform trees, alpha-beta with no ordering: effective branching factor L^(1/d)")
    names = feature_options()
    off = {**{kw: False for kw in names.values()}, **no_last_ply()}
    rows = []
    for b, d in shapes:
        for ordering in ("random", "best"):
            game = jaxgames.make("uniform_tree", branching=b, depth=d, ordering=ordering)
            games_roots = [(game, game.roots(list(range(trees))))]
            leaves = nodes = count = 0
            for g, roots in games_roots:
                res = alphabeta_batch(g, roots, d, **off)
                leaves += res.stats["leaves"]
                nodes += res.stats["nodes"]
                count += batch_size(roots)
            mean_leaves = leaves / count
            minimal = b ** math.ceil(d / 2) + b ** (d // 2) - 1
            rows.append(
                {
                    "branching": b,
                    "depth": d,
                    "ordering": ordering,
                    "trees": count,
                    "mean_leaves": mean_leaves,
                    "mean_nodes": nodes / count,
                    "effective_branching": mean_leaves ** (1 / d),
                    "b_3_4": b**0.75,
                    "b_1_2": b**0.5,
                    "full_tree_leaves": b**d,
                    "minimal_tree_leaves": minimal,
                }
            )
    table(
        [
            "b",
            "d",
            "ordering",
            "trees",
            "mean leaves",
            "L^(1/d)",
            "b^(3/4)",
            "b^(1/2)",
            "minimal tree",
            "b^d",
        ],
        [
            [
                r["branching"],
                r["depth"],
                r["ordering"],
                r["trees"],
                r["mean_leaves"],
                f"{r['effective_branching']:.2f}",
                f"{r['b_3_4']:.2f}",
                f"{r['b_1_2']:.2f}",
                r["minimal_tree_leaves"],
                r["full_tree_leaves"],
            ]
            for r in rows
        ],
    )
    return rows


# ---------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
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
    split_cpu(args.cpu_devices)  # before JAX's first computation
    if not args.narrow_vectors:
        wide_vectors()
    quick = args.quick
    n = args.positions or (200 if quick else 10000)
    depths = args.depths or ([4, 6] if quick else [4, 6, 8])
    deep = args.deep_positions or (100 if quick else n)
    peer_counts = {4: 20, 6: 10, 8: 5} if quick else PEER_POSITIONS
    solve_lines = 100 if quick else None
    solve_peer = 10 if quick else 50
    single_n = 3 if quick else 20
    ordering_n = min(n, 100 if quick else 1000)
    tree_shapes = [(4, 4), (8, 4)] if quick else [(4, 4), (4, 6), (8, 4), (8, 6)]
    trees = 20 if quick else 200

    start = time.perf_counter()
    peer = None if args.no_peers else load_peer()
    game = jaxgames.make("connect4")
    moves = random_positions(n, args.seed)
    roots = stack([game.parse(m) for m in moves])
    result: dict[str, Any] = {
        "benchmark": "alphabeta",
        "command": "python benchmarks/alphabeta.py " + " ".join(argv or sys.argv[1:]),
        "machine": machine_info(),
        "versions": versions(),
        "positions": {
            "game": "connect4",
            "count": n,
            "seed": args.seed,
            "plies": [6, 16],
            "generator": "random_positions(count, seed) in this script: uniformly random "
            "moves, games that end on the way dropped, duplicates dropped",
            "sha256": hashlib.sha256("\n".join(moves).encode()).hexdigest(),
            "first": moves[:10],
        },
        "timing": "first_call_s: the first call with the same shapes, on copies of a finished "
        "game (tracing and compilation); seconds: one steady-state search of the real "
        "positions, results on the host",
    }
    bulk = None
    if "bulk" in args.sections or "peer" in args.sections:
        bulk = bench_bulk(game, moves, roots, depths, deep)
        result["bulk"] = bulk
        if deep < n:
            result["bulk_note"] = (
                f"depths >= 8 are measured on the first {deep} of the {n} positions "
                "(--deep-positions); positions field of each row"
            )
    if "peer" in args.sections and peer:
        result["peer"] = bench_peer(peer, game, moves, bulk, peer_counts, args.peer_eval)
        result["peer_note"] = (
            "OpenSpiel's alpha_beta_search on the first positions of the same list, one at a "
            "time; value function at the cutoff: "
            + (
                "(x - o stones in the centre column) / 100 for the maximizing player, from "
                "state.history()"
                if args.peer_eval == "centre"
                else "0 (every cutoff ties: its trees are smaller than with a heuristic)"
            )
            + "; ours uses the game's threat heuristic (69 lines) and its default options "
            "(bulk rows, `ordering`); ratio_positions_per_s = ours over the full set / "
            "OpenSpiel over its subset"
        )
    if "solve" in args.sections:
        with open(os.path.join(ROOT, PONS_FILE), encoding="utf-8") as f:
            lines = [(p[0], int(p[1])) for p in (ln.split() for ln in f) if len(p) == 2]
        result["solve"] = bench_solve(game, peer, lines[:solve_lines], solve_peer)
        result["solve_note"] = (
            "ours returns the exact distance score (checked against the file); OpenSpiel's "
            "connect_four returns +1/0/-1, so it only has to prove win/draw/loss, which prunes "
            "more"
        )
    if "single" in args.sections:
        result["single"] = bench_single(game, moves[:single_n], [4, 6, 8])
    if "ordering" in args.sections:
        result["ordering"] = bench_ordering(game, take(roots, slice(0, ordering_n)), 6)
    if "lanes" in args.sections:
        widths = [64, 512] if quick else [128, 256, 512, 1024, 2048, 8192]
        result["lanes"] = bench_lanes(game, roots, 4 if quick else 6, widths)
    if "trees" in args.sections:
        result["trees"] = bench_trees(tree_shapes, trees)
        result["trees_note"] = (
            "uniform_tree games, roots of `trees` different seeds batched in one search at "
            "depth d, every ordering feature and the TT off; leaves in [-1000, 1000] (ties "
            "possible); minimal_tree_leaves = b^ceil(d/2) + b^floor(d/2) - 1"
        )
    if bulk:
        for row in bulk:
            row.pop("nodes_per_root")
    if peer is None and not args.no_peers:
        result["peer_missing"] = "OpenSpiel (pyspiel) is not installed: no peer figures"
    result["total_runtime_s"] = time.perf_counter() - start
    suffix = "_quick" if quick else ""
    out = args.out or os.path.join(
        HERE, "results", f"alphabeta_{jax.default_backend()}{suffix}.json"
    )
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(f"\ntotal {result['total_runtime_s']:.0f} s; wrote {os.path.relpath(out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
