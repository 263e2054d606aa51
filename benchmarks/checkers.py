"""Checkers: perft from the start against the published table, and the rules against
OpenSpiel's ``checkers`` on seeded random games.

    python benchmarks/checkers.py                    # perft to depth 10, 500 games
    python benchmarks/checkers.py --depth 11 --games 100

Perft counts whole moves (``perft(..., turns=True)``: a multi-jump, several steps here, is
one move), as Aart Bik and Martin Fierz's Cake published them; one call counts every depth,
and its time includes the compilation. The OpenSpiel comparison checks at every step the
player to move, the legal action ids and names, the board, the terminal flag and at the end
the returns (:mod:`jaxgames.bench.checkers_oracle`). Prints a line per part and writes JSON.
"""

from __future__ import annotations

import argparse
import os
import sys

import jaxgames
from jaxgames.bench.checkers_oracle import compare_with_openspiel
from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json
from jaxgames.search import perft

HERE = os.path.dirname(os.path.abspath(__file__))

# Aart Bik, "Perft for Checkers" (aartbik.com/MISC/checkers.html; TalkChess, "perft for 8x8
# checkers", 2009), matched by Martin Fierz's Cake (checker-board.blogspot.com, 2009/02).
PUBLISHED = [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10, help="deepest perft (<= 11)")
    parser.add_argument("--games", type=int, default=500, help="random games vs OpenSpiel")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= len(PUBLISHED):
        parser.error(f"--depth must be 1..{len(PUBLISHED)}")

    game = jaxgames.make("checkers")
    result = perft(game, game.init(), args.depth, turns=True)
    rows = [
        {"depth": d, "count": c, "published": PUBLISHED[d - 1], "equal": c == PUBLISHED[d - 1]}
        for d, c in enumerate(result.counts, start=1)
    ]
    total = sum(result.counts)
    print(
        f"perft (whole moves) to depth {args.depth}: {result.counts[-1]:,} "
        f"(published {PUBLISHED[args.depth - 1]:,}), all depths equal: "
        f"{all(r['equal'] for r in rows)}; {total:,} sequences in {result.time_s:.1f} s",
        flush=True,
    )
    oracle = compare_with_openspiel(args.games, seed=args.seed)
    print(
        f"OpenSpiel: {oracle['games']} games, {oracle['states_compared']:,} states compared, "
        f"{oracle['mismatches']} mismatches; {oracle['wins']} won, {oracle['draws_40_steps']} "
        f"drawn by the 40-step rule; {oracle['steps_continuing_a_multi_jump']} steps "
        f"continued a multi-jump; {oracle['seconds']:.1f} s",
        flush=True,
    )
    for line in oracle["mismatch_reports"]:
        print("  " + line)
    out = write_json(
        {
            "benchmark": "checkers",
            "command": command_line("checkers.py", argv),
            "machine": machine_info(),
            "perft": {
                "convention": "whole moves (a multi-jump is one move); sequences, not positions",
                "source": "Aart Bik, Perft for Checkers; Martin Fierz's Cake",
                "seconds_all_depths": result.time_s,
                "rows": rows,
            },
            "openspiel": oracle,
        },
        result_path(args.out, HERE, "checkers"),
    )
    print(f"wrote {out}")
    ok = all(r["equal"] for r in rows) and oracle["mismatches"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
