"""RAVE beside plain UCT: throughput on Go, simulations needed on tic-tac-toe, strength on Go.

    python benchmarks/mcts_rave.py                   # results/mcts_rave_cpu.json
    python benchmarks/mcts_rave.py --games 4 --out /tmp/rave.json

Three parts, one run, same machine:

* ``throughput``: ``mcts_batch`` from the empty 9x9 Go board, ``TREES`` trees of
  ``SIMULATIONS`` simulations (one random rollout per leaf), with ``UCT(1)`` and with
  ``RAVE()`` (all-moves-as-first statistics kept in the tree, rollouts recording the moves
  they play); each called twice: ``first_call_s`` traces and compiles, ``seconds`` is the
  second call.
* ``accuracy``: tic-tac-toe positions where a move loses the exact value (those of
  ``tests/search/test_mcts_rave.py``; the right moves by a plain-Python minimax), each
  searched by several trees of their own random streams, at growing simulation budgets:
  the share of trees whose chosen move keeps the value, UCT(1) beside RAVE().
* ``match``: ``jaxgames.match`` on 9x9 Go between ``mcts:simulations=S,selection=rave``
  and ``mcts:simulations=S`` (UCT, c = 1), seats alternating.
"""

from __future__ import annotations

import argparse
import functools
import time
from typing import Any

from jaxgames.kernels import split_cpu, wide_vectors

from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json

POSITIONS = (
    "xx./oo./...",
    "xo./.x./..o",
    "x../.o./..x",
    "xo./.../...",
    "o../.x./..x",
    ".../.x./...",
    "xx./.o./...",
    "o.x/.x./...",
)
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@functools.cache
def _minimax(board: tuple) -> int:
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return 1 if board[a] == 1 else -1
    if 0 not in board:
        return 0
    mark = 1 if board.count(1) == board.count(2) else 2
    values = [_minimax(board[:i] + (mark,) + board[i + 1 :]) for i in range(9) if not board[i]]
    return max(values) if mark == 1 else min(values)


def _right_moves(board: tuple) -> set[int]:
    mark = 1 if board.count(1) == board.count(2) else 2
    moves = [i for i in range(9) if not board[i]]
    return {i for i in moves if _minimax(board[:i] + (mark,) + board[i + 1 :]) == _minimax(board)}


def _rules():
    from jaxgames.search.mcts import RAVE, UCT

    return {"uct": UCT(1.0), "rave": RAVE()}


def throughput(trees: int, simulations: int) -> dict[str, Any]:
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search.mcts import mcts_batch

    game = jaxgames.make("go", size=9)
    roots = stack([game.init()] * trees)
    out: dict[str, Any] = {"game": "go:size=9", "trees": trees, "simulations": simulations}
    for name, rule in _rules().items():
        times = []
        for seed in (0, 1):
            started = time.perf_counter()
            result = mcts_batch(game, roots, simulations, seed, selection=rule)
            times.append(time.perf_counter() - started)
        out[name] = {
            "selection": repr(rule),
            "first_call_s": times[0],
            "seconds": times[1],
            "simulations_per_s": trees * simulations / times[1],
            "nodes_mean": float(result.stats["nodes"].mean()),
        }
        print(
            f"throughput {name:<5} {out[name]['simulations_per_s']:>9,.0f} sims/s "
            f"(first call {times[0]:.1f} s)",
            flush=True,
        )
    out["rave_vs_uct_speed"] = out["rave"]["simulations_per_s"] / out["uct"]["simulations_per_s"]
    return out


def accuracy(budgets: list[int], streams: int) -> dict[str, Any]:
    import numpy as np
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search.mcts import mcts_batch

    game = jaxgames.make("tictactoe")
    states = [game.parse(p) for p in POSITIONS] * streams
    right = [_right_moves(tuple(int(c) for c in np.asarray(s.board))) for s in states]
    roots = stack(states)
    rows = []
    for simulations in budgets:
        row: dict[str, Any] = {"simulations": simulations}
        for name, rule in _rules().items():
            result = mcts_batch(game, roots, simulations, 0, selection=rule)
            hits = [int(a) in r for a, r in zip(result.action, right, strict=True)]
            row[name] = float(np.mean(hits))
        print(
            f"accuracy {simulations:>5} sims: uct {row['uct']:.3f} rave {row['rave']:.3f}",
            flush=True,
        )
        rows.append(row)
    return {
        "game": "tictactoe",
        "positions": list(POSITIONS),
        "trees_per_position": streams,
        "share_right": rows,
    }


def strength(simulations: int, games: int) -> dict[str, Any]:
    import jaxgames

    game = jaxgames.make("go", size=9)
    agents = [f"mcts:simulations={simulations},selection=rave", f"mcts:simulations={simulations}"]
    started = time.perf_counter()
    result = jaxgames.match(game, agents, games=games, seed=0)
    seconds = time.perf_counter() - started
    print(f"match {result.summary()}  ({seconds:.0f} s)", flush=True)
    return {
        "game": "go:size=9",
        "agents": agents,
        "games": games,
        "wins": result.wins,
        "draws": result.draws,
        "losses": result.losses,
        "score": result.score,
        "elo": result.elo,
        "elo_95": [result.elo_low, result.elo_high],
        "seconds_per_move": result.seconds_per_move(),
        "plies": sum(len(r.moves) for r in result.records),
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=16)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--budgets", type=int, nargs="+", default=[25, 50, 100, 200, 400, 800])
    parser.add_argument("--streams", type=int, default=8, help="trees per tic-tac-toe position")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    split_cpu()
    wide_vectors()
    here = __file__.rsplit("/", 1)[0]
    result = {
        "benchmark": "mcts_rave",
        "command": command_line("mcts_rave.py", argv),
        "machine": machine_info(),
        "throughput": throughput(args.trees, args.simulations),
        "accuracy": accuracy(args.budgets, args.streams),
    }
    path = write_json(result, result_path(args.out, here, "mcts_rave"))
    result["match"] = strength(args.simulations, args.games)
    print("wrote", write_json(result, path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
