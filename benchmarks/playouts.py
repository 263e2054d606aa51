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
import os
import sys
from typing import Any

import jax

import jaxgames
from jaxgames.bench.compiled import jaxgames_playout_row, pgx_playout_row
from jaxgames.bench.helpers import command_line, import_time, machine_info, result_path, write_json

PGX_NAMES = {"tictactoe": "tic_tac_toe", "connect4": "connect_four"}
HERE = os.path.dirname(os.path.abspath(__file__))


def _row(game: str, row: dict[str, Any]) -> dict[str, Any]:
    return {"impl": row["impl"], "game": game, "backend": jax.default_backend(), **row}


def bench_jaxgames(name: str, batch: int, repeats: int) -> dict[str, Any]:
    return _row(name, jaxgames_playout_row(jaxgames.make(name), batch, repeats)[0])


def bench_pgx(name: str, batch: int, repeats: int) -> dict[str, Any] | None:
    row, _ = pgx_playout_row(PGX_NAMES[name], batch, repeats)
    return row and _row(name, row)


def print_line(name: str, batch: int, ours: dict[str, Any], theirs: dict[str, Any] | None) -> None:
    line = (
        f"{name:<10} B={batch:<6} jaxgames {ours['playouts_per_s']:>12,.0f} playouts/s "
        f"{ours['moves_per_s']:>14,.0f} moves/s  compile {ours['compile_s']:.2f}s"
    )
    if theirs:
        line += (
            f" | pgx {theirs['playouts_per_s']:>12,.0f} playouts/s "
            f"compile {theirs['compile_s']:.2f}s  {ours['ratio_vs_pgx']:.2f}x pgx"
        )
    print(line, flush=True)


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
            print_line(name, batch, ours, theirs)
    imports = {"jaxgames": import_time("jaxgames"), "jax": import_time("jax")}
    if not args.no_peers:
        imports["pgx"] = import_time("pgx")
    result = {
        "benchmark": "playouts",
        "command": command_line("playouts.py", argv),
        "machine": machine_info(),
        "import_time_s": imports,
        "rows": rows,
    }
    out = write_json(result, result_path(args.out, HERE, "playouts"))
    print(f"import times (s): {imports}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
