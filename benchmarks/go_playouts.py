"""Random Go playouts: jaxgames' playout kernel against pgx's ``go_9x9``, one run.

    python benchmarks/go_playouts.py                     # 9x9, batch 4096
    python benchmarks/go_playouts.py --batch-sizes 256 4096 --repeats 5

A playout is one game of uniformly random legal moves (the pass included, as in pgx) from
the empty board to its end; B playouts run as B lanes of one ``lax.while_loop``. The rules
differ a little: jaxgames plays OpenSpiel's (simple ko, the game ends after two passes or
162 steps), pgx ends a game at a repeated board (superko) or 162 steps, so the moves per
second are the fairer ratio beside the playouts per second. Compilation is timed apart.
"""

from __future__ import annotations

import argparse
import os
import sys

import jax

import jaxgames
from jaxgames.bench.compiled import jaxgames_playout_row, pgx_playout_row
from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[4096])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true", help="skip pgx")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)

    game = jaxgames.make("go:size=9,komi=7.5")
    rows = []
    for batch in args.batch_sizes:
        ours, _ = jaxgames_playout_row(game, batch, args.repeats)
        ours.update(game="go_9x9", backend=jax.default_backend())
        rows.append(ours)
        line = (
            f"go 9x9 B={batch:<6} jaxgames {ours['playouts_per_s']:>9,.0f} playouts/s "
            f"{ours['moves_per_s']:>11,.0f} moves/s compile {ours['compile_s']:.2f}s"
        )
        if not args.no_peers:
            theirs, _ = pgx_playout_row("go_9x9", batch, args.repeats)
            if theirs:
                theirs.update(game="go_9x9", backend=jax.default_backend())
                rows.append(theirs)
                ours["ratio_vs_pgx"] = ours["playouts_per_s"] / theirs["playouts_per_s"]
                ours["moves_ratio_vs_pgx"] = ours["moves_per_s"] / theirs["moves_per_s"]
                line += (
                    f" | pgx {theirs['playouts_per_s']:>9,.0f} playouts/s "
                    f"{theirs['moves_per_s']:>11,.0f} moves/s compile {theirs['compile_s']:.2f}s"
                    f" | {ours['ratio_vs_pgx']:.2f}x playouts, "
                    f"{ours['moves_ratio_vs_pgx']:.2f}x moves"
                )
        print(line, flush=True)
    result = {
        "benchmark": "go_playouts",
        "command": command_line("go_playouts.py", argv),
        "machine": machine_info(),
        "rows": rows,
    }
    out = write_json(result, result_path(args.out, HERE, "go_playouts"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
