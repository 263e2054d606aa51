"""Go's rules against OpenSpiel's ``go``: seeded random games, compared move by move.

    python benchmarks/go_rules.py                 # 200 games of 9x9, 50 of 5x5, 50 of 13x13
    python benchmarks/go_rules.py --games 9:20 5:10

At every step of every game the legal action set, the board and the terminal flag are
compared, and at the end the returns (:mod:`jaxgames.bench.go_oracle`). Games that
OpenSpiel ends as a draw on a repeated board (its rule, not ours: ``superko=false`` plays
on under simple ko) are compared up to that step and counted apart. Prints a line per size
and writes JSON.
"""

from __future__ import annotations

import argparse
import os
import sys

from jaxgames.bench.go_oracle import compare_with_openspiel
from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", nargs="+", default=["9:200", "5:50", "13:50"], help="SIZE:GAMES pairs"
    )
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)

    rows = []
    for pair in args.games:
        size, games = (int(x) for x in pair.split(":"))
        row = compare_with_openspiel(size, games, seed=args.seed + size, komi=args.komi)
        rows.append(row)
        print(
            f"go {size}x{size}: {row['games']} games, {row['steps_compared']} steps compared, "
            f"{row['mismatches']} mismatches; ended by two passes {row['two_passes']}, "
            f"length limit {row['length_limit']}, OpenSpiel's repetition draw "
            f"{row['ended_by_repetition']}; first call {row['first_call_s']:.2f}s, "
            f"total {row['seconds']:.1f}s",
            flush=True,
        )
        for line in row["mismatch_reports"]:
            print("  " + line)
    result = {
        "benchmark": "go_rules",
        "command": command_line("go_rules.py", argv),
        "machine": machine_info(),
        "rows": rows,
    }
    out = write_json(result, result_path(args.out, HERE, "go_rules"))
    print(f"wrote {out}")
    return 0 if all(r["mismatches"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
