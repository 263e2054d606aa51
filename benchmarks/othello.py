"""Othello: perft, random playouts against pgx and OpenSpiel, alpha-beta, ProbCut; one run.

    python benchmarks/othello.py                    # every section (results/othello_cpu.json)
    python benchmarks/othello.py --quick            # smoke run, small sizes (*_quick.json)
    python benchmarks/othello.py --sections playouts --batch-sizes 4096 16384
    python benchmarks/othello.py --fit-probcut      # refit the ProbCut constants of the game

Sections (``--sections``; all by default):

* ``perft``: ``jaxgames.search.perft`` from the start to ``--perft-depth`` plies, every count
  checked against ``tests/reference/othello_perft.csv`` (a forced pass is a ply, finished
  games are not extended: Edax's and OpenSpiel's convention). Nodes/s counts every sequence
  of every depth (the last ply is counted from its parents' legal masks, not built).
* ``playouts``: uniformly random games from the start, B at a time: jaxgames' playout kernel
  and pgx's ``othello`` in the same harness as ``jaxgames.bench.compiled`` (same loop, same
  sampler ``jaxgames.kernels.sample_legal``), compiled ahead of time (``compile_s``), warmed
  up, median of ``--repeats`` runs; and OpenSpiel's ``othello`` one game at a time from
  Python (``legal_actions``, ``random.choice``, ``apply_action``), which has no batch.
* ``alphabeta``: ``alphabeta_batch`` with default options (hint, killers, history, iterative
  deepening, transposition table) at depths 4 and 6 on N positions from random play (10-40
  plies, non-terminal, distinct). The first call is made on copies of a finished game (same
  shapes: it compiles and ends at once, ``first_call_s``); the real positions are then
  searched once and timed.
* ``probcut``: the fitted model (``game.probcut_params``) at ``--probcut-depth`` on the first
  ``--probcut-positions`` of those positions, against the same search without it: nodes,
  time, how often the best move changes, and how far the value moves.

``--fit-probcut`` fits the model instead (``jaxgames.search.fit_probcut`` on positions from
random self-play, seed 1, 10-44 plies) and prints the constants to paste into
``jaxgames/games/othello/evaluation.py``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels import batch_size, batched, sample_legal, stack, take, to_numpy

import jaxgames
from jaxgames.bench.compiled import jaxgames_playout_row, pgx_playout_row
from jaxgames.bench.helpers import (
    command_line,
    digest,
    import_time,
    load_average,
    machine_info,
    package_versions,
    result_path,
    table_of,
    write_json,
)
from jaxgames.bench.peers import play_openspiel
from jaxgames.bench.searches import depth_table, search_row, search_twice
from jaxgames.search import ProbCut, fit_probcut, perft

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERFT_FILE = "tests/reference/othello_perft.csv"
PERFT_COLUMN = "sequences_exactly_d_plies_pass_is_a_ply__edax_and_openspiel_convention"
FINISHED = "X" * 64 + " O"  # a full board of Black discs: a finished game
SECTIONS = ("perft", "playouts", "alphabeta", "probcut")
FIT_SEED, FIT_PLIES, FIT_POSITIONS = 1, (10, 44), 2000


def versions() -> dict[str, str | None]:
    return {"jax": jax.__version__, "jaxgames": jaxgames.__version__} | package_versions(
        ("jaxlib", "pgx", "open_spiel")
    )


# ---------------------------------------------------------------- positions
def random_positions(game, n: int, seed: int, plies: tuple[int, int]) -> list[str]:
    """``n`` distinct non-terminal positions (board strings) after ``plies[0]..plies[1]``
    uniformly random moves from the start (numpy ``default_rng(seed)``), played as one
    batch on the device. Generation order."""
    rng = np.random.default_rng(seed)
    kernels = batched(game)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        lanes = 2 * (n - len(out)) + 64
        stop = rng.integers(plies[0], plies[1] + 1, size=lanes)
        states = kernels.init(lanes)
        for ply in range(plies[1]):
            mask = np.asarray(kernels.legal_mask(states))  # [L, 65]
            over = ~mask.any(axis=1)
            action = np.asarray(sample_legal(jnp.asarray(mask), jnp.asarray(rng.random(lanes))))
            action = np.where((ply < stop) & ~over, action, 0)
            stepped = kernels.step(states, jnp.asarray(action, jnp.int32))
            keep = jnp.asarray((ply >= stop) | over)
            states = jax.tree.map(
                lambda old, new, keep=keep: jnp.where(keep, old, new), states, stepped
            )
        terminal = np.asarray(kernels.terminal(states))
        host = to_numpy(states)
        for i in range(lanes):
            if terminal[i] or len(out) >= n:
                continue
            text = game.format(take(host, i))
            if text not in seen:
                seen.add(text)
                out.append(text)
    return out


# ---------------------------------------------------------------- sections
def bench_perft(game, depth: int) -> dict[str, Any]:
    print(f"\n== perft from the start, depth {depth} (pass = a ply, finished games stop)")
    with open(os.path.join(ROOT, PERFT_FILE), encoding="utf-8") as f:
        published = [int(row[PERFT_COLUMN]) for row in csv.DictReader(f) if row[PERFT_COLUMN]]
    t0 = time.perf_counter()
    perft(game, game.init(), min(depth, 6))  # compiles the kernels it shares with deeper runs
    warm = time.perf_counter() - t0
    result = perft(game, game.init(), depth)
    nodes = sum(result.counts)
    expected = published[:depth]
    out = {
        "depth": depth,
        "counts": result.counts,
        "games_over_before_next_ply": result.terminal,
        "published": expected,
        "matches_published": result.counts[: len(expected)] == expected,
        "seconds": result.time_s,
        "nodes": nodes,
        "nodes_per_s": nodes / result.time_s,
        "warm_up_s_incl_compile": warm,
    }
    print(
        f"counts {result.counts}\nmatch published table: {out['matches_published']}; "
        f"{nodes:,} nodes in {result.time_s:.2f} s = {out['nodes_per_s']:,.0f} nodes/s "
        f"(warm-up with compilation {warm:.2f} s)"
    )
    return out


def _row(row: dict[str, Any]) -> dict[str, Any]:
    return {"impl": row["impl"], "game": "othello", "backend": jax.default_backend(), **row}


def bench_jaxgames_playouts(game, batch: int, repeats: int) -> dict[str, Any]:
    row, out = jaxgames_playout_row(game, batch, repeats)
    row = _row(row)
    row["black_wins"] = float(np.mean(np.asarray(out.utilities)[:, 0, 0] > 0))
    return row


def bench_pgx_playouts(batch: int, repeats: int) -> dict[str, Any] | None:
    row, _ = pgx_playout_row("othello", batch, repeats)
    return row and _row(row)


def bench_openspiel_playouts(games: int) -> dict[str, Any] | None:
    try:
        spiel = play_openspiel("othello", min_games=games)
    except ImportError:
        return None
    return {
        "impl": "openspiel",
        "game": "othello",
        "games": games,
        "seconds": spiel.seconds,
        "playouts_per_s": games / spiel.seconds,
        "moves_per_s": spiel.moves / spiel.seconds,
        "black_wins": sum(r[0] > 0 for r in spiel.returns) / games,
    }


def bench_playouts(game, sizes: list[int], repeats: int, spiel_games: int, peers: bool):
    print("\n== random playouts from the start: jaxgames vs pgx (same harness) vs OpenSpiel")
    spiel = bench_openspiel_playouts(spiel_games) if peers else None
    rows = []
    for batch in sizes:
        ours = bench_jaxgames_playouts(game, batch, repeats)
        theirs = bench_pgx_playouts(batch, repeats) if peers else None
        if theirs:
            ours["ratio_vs_pgx"] = ours["playouts_per_s"] / theirs["playouts_per_s"]
        if spiel:
            ours["ratio_vs_openspiel"] = ours["playouts_per_s"] / spiel["playouts_per_s"]
        rows += [ours] + ([theirs] if theirs else [])
    pgx = {r["batch"]: r for r in rows if r["impl"] == "pgx"}
    table_of(
        [r for r in rows if r["impl"] == "jaxgames"],
        {
            "batch": "batch",
            "ours/s": "playouts_per_s",
            "ours moves/s": "moves_per_s",
            "pgx/s": lambda r: pgx[r["batch"]]["playouts_per_s"] if r["batch"] in pgx else "-",
            "x pgx": lambda r: f"{r['ratio_vs_pgx']:.2f}x" if "ratio_vs_pgx" in r else "-",
            "x OpenSpiel": lambda r: (
                f"{r['ratio_vs_openspiel']:.1f}x" if "ratio_vs_openspiel" in r else "-"
            ),
            "compile ours/pgx": lambda r: (
                f"{r['compile_s']:.2f} / "
                + (f"{pgx[r['batch']]['compile_s']:.2f}" if r["batch"] in pgx else "-")
            ),
        },
    )
    if spiel:
        print(
            f"OpenSpiel, one game at a time from Python: {spiel['playouts_per_s']:,.0f} "
            f"playouts/s ({spiel['moves_per_s']:,.0f} moves/s, {spiel['games']} games)"
        )
    return {"rows": rows, "openspiel": spiel}


def bench_alphabeta(game, texts: list[str], roots, depths: list[int]) -> list[dict[str, Any]]:
    n = len(texts)
    print(f"\n== alpha-beta, default options, {n} positions from random play")
    finished = game.parse(FINISHED)
    rows = []
    for depth in depths:
        first, seconds, res = search_twice(game, roots, depth, finished)
        rows.append(search_row(depth, n, first, seconds, res.stats))
    depth_table(rows)
    return rows


def bench_probcut(game, roots, depth: int) -> dict[str, Any]:
    n = batch_size(roots)
    model = ProbCut(**game.probcut_params)
    print(
        f"\n== ProbCut {game.probcut_params} in searches to depth {depth}, {n} positions "
        "(against the same search without it)"
    )
    finished = game.parse(FINISHED)
    first_full, sec_full, full = search_twice(game, roots, depth, finished)
    first_cut, sec_cut, cut = search_twice(game, roots, depth, finished, probcut=model)
    mover = np.clip(np.asarray(jax.vmap(game.player)(jax.tree.map(jnp.asarray, roots))), 0, 1)
    rows = np.arange(n)
    v_full, v_cut = full.value[rows, mover], cut.value[rows, mover]
    changed = full.best_action != cut.best_action
    out = {
        "depth": depth,
        "positions": n,
        "model": dict(game.probcut_params),
        "nodes_exact": full.stats["nodes"],
        "nodes_probcut": cut.stats["nodes"],
        "node_savings": 1 - cut.stats["nodes"] / full.stats["nodes"],
        "seconds_exact": sec_full,
        "seconds_probcut": sec_cut,
        "time_ratio": sec_cut / sec_full,
        "first_call_s_exact": first_full,
        "first_call_s_probcut": first_cut,
        "best_move_changed": float(np.mean(changed)),
        "value_mean_abs_diff": float(np.mean(np.abs(v_full - v_cut))),
        "value_max_abs_diff": float(np.max(np.abs(v_full - v_cut))),
        "value_sign_changed": float(np.mean(np.sign(v_full) != np.sign(v_cut))),
    }
    print(
        f"nodes {out['nodes_exact']:,} -> {out['nodes_probcut']:,} "
        f"({100 * out['node_savings']:.1f}% saved); time {sec_full:.2f} s -> {sec_cut:.2f} s; "
        f"best move changed in {100 * out['best_move_changed']:.1f}% of positions; value moved "
        f"by {out['value_mean_abs_diff']:.4f} on average (max {out['value_max_abs_diff']:.3f})"
    )
    return out


def fit(game, depth: int, positions: int, t: float) -> dict[str, Any]:
    print(
        f"== fitting ProbCut for depth {depth}: {positions} positions from random self-play "
        f"(seed {FIT_SEED}, {FIT_PLIES[0]}-{FIT_PLIES[1]} plies)"
    )
    texts = random_positions(game, positions, FIT_SEED, FIT_PLIES)
    states = stack([game.parse(x) for x in texts])
    t0 = time.perf_counter()
    model = fit_probcut(game, states, depth, t=t)
    params = {
        "depth": model.depth,
        "shallow": model.shallow,
        "a": round(model.a, 4),
        "b": round(model.b, 4),
        "sigma": round(model.sigma, 4),
        "t": model.t,
    }
    seconds = time.perf_counter() - t0
    print(f"fitted in {seconds:.1f} s; paste into jaxgames/games/othello/evaluation.py:")
    print("PROBCUT = " + json.dumps(params))
    return params


# ---------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--perft-depth", type=int, default=None, help="default 10 (quick 8)")
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None, help="playout timings (median)")
    parser.add_argument("--openspiel-games", type=int, default=None, help="default 500")
    parser.add_argument("--positions", type=int, default=None, help="alpha-beta N (10000)")
    parser.add_argument("--depths", nargs="+", type=int, default=None, help="default 4 6")
    parser.add_argument("--probcut-depth", type=int, default=6, help="search depth")
    parser.add_argument("--probcut-positions", type=int, default=None, help="default 1000")
    parser.add_argument("--seed", type=int, default=0, help="seed of the alpha-beta positions")
    parser.add_argument("--no-peers", action="store_true", help="skip pgx and OpenSpiel")
    parser.add_argument("--fit-probcut", action="store_true", help="refit ProbCut and exit")
    parser.add_argument("--fit-depth", type=int, default=2, help="ProbCut depth to fit")
    parser.add_argument("--fit-positions", type=int, default=FIT_POSITIONS)
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)
    game = jaxgames.make("othello")
    if args.fit_probcut:
        fit(game, args.fit_depth, args.fit_positions, float(game.probcut_params["t"]))
        return 0
    quick = args.quick
    perft_depth = args.perft_depth or (8 if quick else 10)
    sizes = args.batch_sizes or ([1024, 4096] if quick else [256, 1024, 4096, 16384])
    repeats = args.repeats or (3 if quick else 7)
    spiel_games = args.openspiel_games or (50 if quick else 500)
    n = args.positions or (300 if quick else 10000)
    depths = args.depths or [4, 6]
    probcut_n = min(n, args.probcut_positions or (100 if quick else 1000))

    start = time.perf_counter()
    result: dict[str, Any] = {
        "benchmark": "othello",
        "command": command_line("othello.py", argv),
        "machine": machine_info(),
        "versions": versions(),
        # other work on the machine skews every rate: recorded at the start and the end
        "load_average_1_5_15_min": {"start": load_average()},
    }
    if "perft" in args.sections:
        result["perft"] = bench_perft(game, perft_depth)
    if "playouts" in args.sections:
        result["playouts"] = bench_playouts(game, sizes, repeats, spiel_games, not args.no_peers)
        imports = {"jaxgames": import_time("jaxgames"), "jax": import_time("jax")}
        if not args.no_peers:
            imports.update({"pgx": import_time("pgx"), "pyspiel": import_time("pyspiel")})
        result["import_time_s"] = imports
    if "alphabeta" in args.sections or "probcut" in args.sections:
        t0 = time.perf_counter()
        texts = random_positions(game, n, args.seed, (10, 40))
        roots = stack([game.parse(x) for x in texts])
        result["positions"] = {
            "count": n,
            "seed": args.seed,
            "plies": [10, 40],
            "generator": "random_positions(game, count, seed, plies) in this script: "
            "uniformly random legal moves on the device, non-terminal, distinct board strings",
            "sha256": digest(texts),
            "first": texts[:5],
            "seconds_to_generate": time.perf_counter() - t0,
        }
        if "alphabeta" in args.sections:
            result["alphabeta"] = bench_alphabeta(game, texts, roots, depths)
        if "probcut" in args.sections:
            sub = take(to_numpy(roots), slice(0, probcut_n))
            result["probcut"] = bench_probcut(game, sub, args.probcut_depth)
    result["timing"] = (
        "playouts: compile_s is ahead-of-time compilation; seconds_* the median/min/max of "
        "--repeats runs after a warm-up. alpha-beta: first_call_s is the first call with the "
        "same shapes on copies of a finished game (tracing and compilation); seconds one "
        "steady-state search of the real positions, results on the host"
    )
    result["load_average_1_5_15_min"]["end"] = load_average()
    result["total_runtime_s"] = time.perf_counter() - start
    out = write_json(result, result_path(args.out, HERE, "othello", quick))
    print(f"\ntotal {result['total_runtime_s']:.0f} s; wrote {os.path.relpath(out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
