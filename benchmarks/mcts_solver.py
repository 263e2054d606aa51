"""MCTS-Solver on connect four: how many of Pons's test positions a budget proves, and whether
every proven win/draw/loss equals the file's.

    python benchmarks/mcts_solver.py                # Test_L3_R1, first 200
    python benchmarks/mcts_solver.py --set Test_L2_R1 --positions 50 --budgets 5000

The positions are searched at once (``mcts_batch(..., solver=True, outcome=WinLoss())``: one
random rollout per leaf, finished games scored as won, drawn or lost, so the solver proves
the outcome rather than the exact score), first with the smallest budget of simulations
(and nodes) per tree; the positions it leaves unproven are searched afresh with the next.
Reported per budget: positions searched, proven, proven values equal to the file's sign,
the nodes used, the wall time (first call, compile included).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np
from jaxgames.kernels import split_cpu

from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json
from jaxgames.bench.reference import pons_lines

PONS_DIR = "tests/reference/connect4_pons"


def run_budget(
    game: Any, moves: list[str], scores: np.ndarray, budget: int
) -> tuple[dict[str, Any], np.ndarray]:
    from jaxgames.kernels import stack

    from jaxgames.search.mcts import WinLoss, mcts_batch

    roots = stack([game.parse(m) for m in moves])
    started = time.perf_counter()
    result = mcts_batch(game, roots, budget, 0, solver=True, outcome=WinLoss())
    seconds = time.perf_counter() - started
    to_move = np.array([len(m) % 2 for m in moves])  # 0: the first player
    for_mover = np.where(to_move == 0, result.lower, -result.lower)
    proven = result.proven
    agree = int(np.sum(np.sign(for_mover[proven]) == np.sign(scores[proven])))
    row = {
        "simulations": budget,
        "searched": len(moves),
        "proven": int(proven.sum()),
        "proven_equal_to_file": agree,
        "proven_different": int(proven.sum()) - agree,
        "unproven": int((~proven).sum()),
        "unproven_lines": [m for m, p in zip(moves, proven, strict=True) if not p],
        "nodes_mean": float(result.stats["nodes"].mean()),
        "nodes_max": int(result.stats["nodes"].max()),
        "seconds": seconds,
    }
    print(
        f"{budget:>7} simulations: proven {row['proven']} of {len(moves)}, equal to the file "
        f"{agree}, different {row['proven_different']}; nodes mean {row['nodes_mean']:.0f} "
        f"max {row['nodes_max']}; {seconds:.1f} s",
        flush=True,
    )
    return row, proven


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="Test_L3_R1", help="a file of connect4_pons")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--budgets", type=int, nargs="+", default=[1000, 20000, 200000])
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    split_cpu()  # not wide_vectors(): XLA's CPU backend fails to compile this program with it
    import jaxgames

    game = jaxgames.make("connect4")
    here = os.path.dirname(os.path.abspath(__file__))
    lines = pons_lines(os.path.join(here, "..", PONS_DIR, args.set), args.positions)
    moves, scores = [m for m, _ in lines], np.array([s for _, s in lines])
    rows, left = [], np.arange(len(moves))
    for budget in sorted(args.budgets):
        if not left.size:
            break
        row, proven = run_budget(game, [moves[i] for i in left], scores[left], budget)
        rows.append(row)
        left = left[~proven]
    result = {
        "benchmark": "mcts_solver",
        "command": command_line("mcts_solver.py", argv),
        "machine": machine_info(),
        "set": args.set,
        "positions": len(moves),
        "proven": len(moves) - int(left.size),
        "proven_different": sum(r["proven_different"] for r in rows),
        "rows": rows,
    }
    print(
        f"{args.set}: {result['proven']} of {len(moves)} proven, "
        f"{result['proven_different']} different from the file"
    )
    print("wrote", write_json(result, result_path(args.out, here, "mcts_solver")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
