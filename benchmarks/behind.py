"""Why jaxgames is behind a peer where it is: the measurements behind the reasons.

    python benchmarks/behind.py            # the full run
    python benchmarks/behind.py --quick    # batches 64 and 1024 only

Two questions, each answered by timing the parts apart (same machine, one run, the median of
``--repeats`` timed calls after a warm-up, compile times beside them):

* **Playouts of tiny games (tic-tac-toe, connect four) against pgx.** Three loops play B
  random games from the start: our playout kernel (``kernels.playouts``: per-lane utilities,
  lengths, chance handling, lanes compacted as games end), the same bare ``while_loop`` that
  the pgx row uses but stepping OUR game, and pgx. If our game in the bare loop is as fast as
  pgx or faster, what the kernel adds around the step is the gap, not the game.
* **Chess playouts against OpenSpiel's loop.** One step of B positions split into its parts:
  the whole ``step``, the legality analysis alone (every one of the 1,924 actions tested for
  every position: pins, checks, castling, en passant) and the random choice over the mask.
  OpenSpiel generates a move list of about 30 moves per position instead; its moves/s are
  measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels import batched, playouts, sample_legal

import jaxgames
from jaxgames.bench import GAMES, positions
from jaxgames.bench.helpers import command_line, machine_info, measure, write_json
from jaxgames.bench.peers import openspiel_playouts, pgx_env, pgx_playouts
from jaxgames.games import chess as jchess

HERE = os.path.dirname(os.path.abspath(__file__))
PGX = {"tictactoe": "tic_tac_toe", "connect4": "connect_four"}


def bare_playouts(game: Any, n: int, key: jax.Array) -> jax.Array:
    """pgx's row's loop (``jaxgames.bench.peers.pgx_playouts``) over our game: lengths int32[n]."""
    states = batched(game).init(n)

    def cond(carry: tuple) -> jax.Array:
        return ~jnp.all(jax.vmap(game.terminal)(carry[0]))

    def body(carry: tuple) -> tuple:
        states, length, key = carry
        key, k_u = jax.random.split(key)
        done = jax.vmap(game.terminal)(states)
        mask = jax.vmap(game.legal_mask)(states) | done[:, None]
        action = sample_legal(mask, jax.random.uniform(k_u, (n,)))
        length = length + (~done).astype(jnp.int32)
        return jax.vmap(game.step)(states, action), length, key

    return jax.lax.while_loop(cond, body, (states, jnp.zeros((n,), jnp.int32), key))[1]


def timed(call, repeats: int) -> dict[str, Any]:
    t = measure(call, repeats, 0.01)
    return {"seconds": t.seconds, "first_call_s": t.first_call_s, "compile_s": t.compile_s}


def _playout_loops(game: Any, env: Any, n: int, key: jax.Array) -> dict[str, Any]:
    start = batched(game).init(n)
    return {
        "kernel": lambda: playouts(game, start, 1, key).lengths,
        "bare_loop_our_step": lambda: _bare(game, n, key),
        "pgx": lambda: pgx_playouts(env, n, key),
    }


_bare = jax.jit(bare_playouts, static_argnums=(0, 1))


def playout_rows(batches: list[int], repeats: int) -> list[dict[str, Any]]:
    rows = []
    key = jax.random.key(0)
    for name, pgx_name in PGX.items():
        game = jaxgames.make(name)
        env = pgx_env(pgx_name)
        for n in batches:
            row: dict[str, Any] = {"game": name, "batch": n}
            for impl, call in _playout_loops(game, env, n, key).items():
                t = timed(call, repeats)
                moves = float(np.asarray(call()).sum())
                row[impl] = {
                    **t,
                    "playouts_per_s": n / t["seconds"],
                    "moves_per_s": moves / t["seconds"],
                }
            row["kernel_vs_pgx"] = row["kernel"]["playouts_per_s"] / row["pgx"]["playouts_per_s"]
            row["bare_vs_pgx"] = (
                row["bare_loop_our_step"]["playouts_per_s"] / row["pgx"]["playouts_per_s"]
            )
            rows.append(row)
            print(
                f"{name:<10} B={n:<5} kernel {row['kernel']['playouts_per_s']:>10,.0f}/s  "
                f"bare loop {row['bare_loop_our_step']['playouts_per_s']:>10,.0f}/s  "
                f"pgx {row['pgx']['playouts_per_s']:>10,.0f}/s  "
                f"kernel/pgx {row['kernel_vs_pgx']:.2f}x  bare/pgx {row['bare_vs_pgx']:.2f}x",
                flush=True,
            )
    return rows


def _chess_parts(game: Any, n: int) -> tuple[dict[str, Any], float]:
    states = positions(game, n, seed=0)
    mask = jax.vmap(game.legal_mask)(states)
    uniform = jax.random.uniform(jax.random.key(1), (n,))
    action = sample_legal(mask, uniform)
    step = jax.jit(jax.vmap(game.step))
    analyze = jax.jit(jax.vmap(jchess._analyze))  # move planes, check, en passant
    choose = jax.jit(sample_legal)
    args = (
        states.board,
        states.turn.astype(jnp.int32),
        states.castling.astype(jnp.int32),
        states.ep.astype(jnp.int32),
    )
    parts = {
        "step": lambda: step(states, action),
        "legality_analysis": lambda: analyze(*args),
        "random_choice": lambda: choose(mask, uniform),
    }
    return parts, float(np.asarray(mask).sum(1).mean())


def chess_rows(batches: list[int], repeats: int, spiel_s: float) -> dict[str, Any]:
    game = jaxgames.make("chess")
    out: dict[str, Any] = {"rows": []}
    for n in batches:
        parts, legal_mean = _chess_parts(game, n)
        row: dict[str, Any] = {"batch": n}
        for name, call in parts.items():
            t = timed(call, repeats)
            row[name] = {**t, "per_position_us": 1e6 * t["seconds"] / n}
        row["analysis_share_of_step"] = row["legality_analysis"]["seconds"] / row["step"]["seconds"]
        row["legal_moves_mean"] = legal_mean
        row["steps_per_s"] = n / row["step"]["seconds"]
        out["rows"].append(row)
        print(
            f"chess B={n:<5} step {row['step']['per_position_us']:.1f} us/position, "
            f"legality analysis {row['legality_analysis']['per_position_us']:.1f} us "
            f"({row['analysis_share_of_step']:.0%} of the step), random choice "
            f"{row['random_choice']['per_position_us']:.2f} us; "
            f"{legal_mean:.1f} legal moves of 1,924 on average",
            flush=True,
        )
    spiel = openspiel_playouts(game, GAMES["chess"], spiel_s, 0)
    out["open_spiel"] = spiel
    print(f"OpenSpiel chess loop: {spiel}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "behind_cpu.json"))
    args = parser.parse_args(argv)
    batches = [64, 1024] if args.quick else [64, 256, 1024, 4096]
    result = {
        "benchmark": "behind",
        "command": command_line("behind.py", argv),
        "machine": machine_info(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "playouts": playout_rows(batches, args.repeats),
        "chess": chess_rows([1024, 4096] if not args.quick else [1024], args.repeats, 10.0),
    }
    write_json(result, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
