"""Monte Carlo tree search strength: arena matches, one run (scores, budgets, time per move).

    python benchmarks/mcts_strength.py            # every row: results/mcts_strength_cpu.json
    python benchmarks/mcts_strength.py --rows tictactoe --games 20

Each row is a :func:`jaxgames.match` between agents written as on the command line
(``jaxgames match``), colours (seats) rotating within each group of games. Reported: wins,
draws and losses of the first agent, its score and Elo difference with the 95 % interval,
the wall time of the match and per move, and the game records (``--records DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from jaxgames.kernels import split_cpu, wide_vectors

from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json

ROWS: dict[str, dict[str, Any]] = {
    # the bar: MCTS with 2,000 simulations never loses to the exact solver
    "tictactoe": {
        "game": "tictactoe",
        "agents": ["mcts:simulations=2000", "alphabeta:depth=9"],
        "games": 100,
    },
    # chance nodes: MCTS against random dice-and-move play
    "backgammon": {
        "game": "backgammon",
        "agents": ["mcts:simulations=16", "random"],
        "games": 200,
    },
    # three players: MCTS against two random players, seats rotating
    "chinese_checkers": {
        "game": "chinese_checkers",
        "agents": ["mcts:simulations=16", "random", "random"],
        "games": 102,
    },
}


def run_row(name: str, games: int | None, records: str | None) -> dict[str, Any]:
    import jaxgames

    spec = ROWS[name]
    game = jaxgames.make(spec["game"])
    n = games or spec["games"]
    started = time.perf_counter()
    result = jaxgames.match(game, spec["agents"], games=n, seed=0)
    seconds = time.perf_counter() - started
    plies = sum(len(r.moves) for r in result.records)
    if records:
        os.makedirs(records, exist_ok=True)
        with open(os.path.join(records, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            for i, record in enumerate(result.records):
                f.write(json.dumps(record.as_row(i)) + "\n")
    print(f"{name:<18} {result.summary()}  ({seconds:.0f} s, {plies} plies)", flush=True)
    return {
        "row": name,
        "game": spec["game"],
        "agents": spec["agents"],
        "games": n,
        "wins": result.wins,
        "draws": result.draws,
        "losses": result.losses,
        "score": result.score,
        "elo": result.elo,
        "elo_95": [result.elo_low, result.elo_high],
        "seconds": seconds,
        "plies": plies,
        "seconds_per_ply": seconds / max(plies, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--games", type=int, default=None, help="games per row (default: its own)")
    parser.add_argument("--records", default=None, help="folder for each row's game records")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    split_cpu()
    wide_vectors()
    here = os.path.dirname(os.path.abspath(__file__))
    result = {
        "benchmark": "mcts_strength",
        "command": command_line("mcts_strength.py", argv),
        "machine": machine_info(),
        "rows": [],
    }
    for name in args.rows:  # written after every row: a long match keeps the ones before
        result["rows"].append(run_row(name, args.games, args.records))
        path = write_json(result, result_path(args.out, here, "mcts_strength"))
    print("wrote", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
