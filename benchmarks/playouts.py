"""Random-playout throughput: jaxgames against pgx, same machine, same batch sizes, one run.

    python benchmarks/playouts.py                       # tictactoe and connect4, default sizes
    python benchmarks/playouts.py --batch-sizes 1 4096 --games connect4

A "playout" is one game played with uniformly random legal moves from the start position to
its end; B playouts run as B lanes of one ``lax.while_loop`` (each lane stops at its own
terminal state). For every (implementation, game, batch) the compiled kernel is timed after
a warm-up: the median of ``--repeats`` runs, with ``block_until_ready``. Compilation is
timed separately (ahead-of-time ``lower().compile()``), and so is the import of each library
(in a fresh interpreter). Results are printed as a table and written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels import batched, sample_legal
from jaxgames.kernels.playout import _playouts, compaction_pays
from machine import machine_info

import jaxgames

PGX_NAMES = {"tictactoe": "tic_tac_toe", "connect4": "connect_four"}
HERE = os.path.dirname(os.path.abspath(__file__))


def import_time(module: str) -> float | None:
    """Seconds to import ``module`` in a fresh interpreter (median of 3), None if missing."""
    times = []
    for _ in range(3):
        code = f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode:
            return None
        times.append(float(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def time_compiled(fn, args: tuple, repeats: int) -> tuple[list[float], Any]:
    out = jax.block_until_ready(fn(*args))  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t0)
    return times, out


def bench_jaxgames(name: str, batch: int, repeats: int) -> dict[str, Any]:
    game = jaxgames.make(name)
    states = batched(game).init(batch)
    key = jax.random.key(0)
    t0 = time.perf_counter()
    steps = game.max_game_length
    compact = compaction_pays(steps, batch)
    compiled = _playouts.lower(game, states, 1, key, steps, compact).compile()
    compile_s = time.perf_counter() - t0
    times, out = time_compiled(compiled, (states, key), repeats)
    return _row("jaxgames", name, batch, compile_s, times, int(np.asarray(out.lengths).sum()))


def pgx_runner(env):
    """The same playout loop as jaxgames', written over pgx's step and legal-action mask."""

    def run(key):
        batch = run.batch
        key, sub = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(sub, batch))

        def cond(carry):
            state, _, _ = carry
            return ~jnp.all(state.terminated)

        def body(carry):
            state, length, key = carry
            key, sub, step_key = jax.random.split(key, 3)
            mask = state.legal_action_mask | state.terminated[:, None]
            action = sample_legal(mask, jax.random.uniform(sub, (batch,)))
            length = length + (~state.terminated).astype(jnp.int32)
            state = jax.vmap(env.step)(state, action, jax.random.split(step_key, batch))
            return state, length, key

        _, length, _ = jax.lax.while_loop(cond, body, (state, jnp.zeros((batch,), jnp.int32), key))
        return length

    return run


def bench_pgx(name: str, batch: int, repeats: int) -> dict[str, Any] | None:
    try:
        import pgx
    except ImportError:
        return None
    env = pgx.make(PGX_NAMES[name])
    run = pgx_runner(env)
    run.batch = batch
    key = jax.random.key(0)
    t0 = time.perf_counter()
    compiled = jax.jit(run).lower(key).compile()
    compile_s = time.perf_counter() - t0
    times, lengths = time_compiled(compiled, (key,), repeats)
    return _row("pgx", name, batch, compile_s, times, int(np.asarray(lengths).sum()))


def _row(impl, game, batch, compile_s, times, moves) -> dict[str, Any]:
    median = statistics.median(times)
    return {
        "impl": impl,
        "game": game,
        "backend": jax.default_backend(),
        "batch": batch,
        "compile_s": compile_s,
        "seconds_median": median,
        "seconds_min": min(times),
        "seconds_max": max(times),
        "playouts_per_s": batch / median,
        "moves_per_s": moves / median,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["tictactoe", "connect4"])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 64, 1024, 4096, 16384])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-peers", action="store_true", help="skip pgx")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)

    rows = []
    for name in args.games:
        for batch in args.batch_sizes:
            ours = bench_jaxgames(name, batch, args.repeats)
            rows.append(ours)
            theirs = None
            if not args.no_peers and name in PGX_NAMES:
                theirs = bench_pgx(name, batch, args.repeats)
            if theirs:
                ours["ratio_vs_pgx"] = ours["playouts_per_s"] / theirs["playouts_per_s"]
                rows.append(theirs)
            ratio = f"{ours['ratio_vs_pgx']:.2f}x pgx" if theirs else ""
            print(
                f"{name:<10} B={batch:<6} jaxgames {ours['playouts_per_s']:>12,.0f} playouts/s "
                f"{ours['moves_per_s']:>14,.0f} moves/s  compile {ours['compile_s']:.2f}s"
                + (
                    f" | pgx {theirs['playouts_per_s']:>12,.0f} playouts/s "
                    f"compile {theirs['compile_s']:.2f}s  {ratio}"
                    if theirs
                    else ""
                ),
                flush=True,
            )
    imports = {"jaxgames": import_time("jaxgames"), "jax": import_time("jax")}
    if not args.no_peers:
        imports["pgx"] = import_time("pgx")
    result = {
        "benchmark": "playouts",
        "command": "python benchmarks/playouts.py " + " ".join(argv or sys.argv[1:]),
        "machine": machine_info(),
        "import_time_s": imports,
        "rows": rows,
    }
    out = args.out or os.path.join(HERE, "results", f"playouts_{jax.default_backend()}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(f"import times (s): {imports}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
