"""Monte Carlo tree search strength: arena matches, one run (scores, budgets, time per move).

    python benchmarks/mcts_strength.py            # every row: results/mcts_strength_cpu.json
    python benchmarks/mcts_strength.py --rows tictactoe --games 20

Each row is a :func:`jaxgames.match` between agents written as on the command line
(``jaxgames match``), colours (seats) rotating within each group of games. Reported: wins,
draws and losses of the first agent, its score and Elo difference with the 95 % interval,
the wall time of the match, each agent's time per move (its batched calls' time over the
moves they chose, leaving out each agent's first call at each batch size, which compiles;
those are reported on their own), and the game records (``--records DIR``).
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
    # the same algorithm as OpenSpiel's C++ MCTSBot: UCT at the same exploration, one random
    # rollout, a game scored as won or lost (OpenSpiel's returns are +-1; this library's
    # connect-four utility also rewards a quick win), the same simulations per move; the
    # openings' two random plies make the 400 games differ
    "connect4_openspiel": {
        "game": "connect4",
        "agents": ["mcts:simulations=1000,outcome=winloss", "openspiel:simulations=1000"],
        "games": 400,
        "openings": 2,
    },
    # equal wall time per move: OpenSpiel's simulations scaled so that its time per move
    # equals ours in the row above (ours: the batched calls' time over the moves they made)
    "connect4_openspiel_equal_time": {
        "game": "connect4",
        "agents": ["mcts:simulations=1000,outcome=winloss", "openspiel:simulations={sims}"],
        "games": 400,
        "openings": 2,
        "calibrate_from": "connect4_openspiel",
    },
    # the bar: MCTS with 2,000 simulations never loses to the exact solver
    "tictactoe": {
        "game": "tictactoe",
        "agents": ["mcts:simulations=2000", "alphabeta:depth=9"],
        "games": 100,
    },
    # chance nodes (exact expectation over the expanded rolls), leaves valued by EVAL:
    # random backgammon games run for hundreds of plies, so rollouts are slow and noisy
    "backgammon": {
        "game": "backgammon",
        "agents": ["mcts:simulations=32,leaf=eval", "random"],
        "games": 200,
    },
    "backgammon_expectiminimax": {
        "game": "backgammon",
        "agents": ["mcts:simulations=32,leaf=eval", "expectiminimax:depth=2"],
        "games": 40,
    },
    # three players, seats rotating; EVAL's shares of progress differ by about 1 % a move,
    # so the exploration constant is small (random playouts of 200 plies never finish)
    "chinese_checkers": {
        "game": "chinese_checkers:players=3",
        "agents": ["mcts:simulations=64,leaf=eval,c=0.05", "random", "random"],
        "games": 102,
    },
}


def equal_time_simulations(spec: dict[str, Any], done: list[dict[str, Any]]) -> int:
    """OpenSpiel's simulations for the time per move our agent took in the calibrating row
    (its own time per move scales with its simulations)."""
    base = next((r for r in done if r["row"] == spec["calibrate_from"]), None)
    if base is None:
        raise SystemExit(f"{spec['calibrate_from']} must run first (in the same --rows)")
    ours, theirs = base["seconds_per_move"]
    simulations = int(base["agents"][1].split("simulations=")[1])
    return max(1, round(simulations * ours / theirs))


def run_row(
    name: str, games: int | None, records: str | None, done: list[dict[str, Any]]
) -> dict[str, Any]:
    import jaxgames

    spec = dict(ROWS[name])
    if "calibrate_from" in spec:
        sims = equal_time_simulations(spec, done)
        spec["agents"] = [a.format(sims=sims) for a in spec["agents"]]
    game = jaxgames.make(spec["game"])
    n = games or spec["games"]
    started = time.perf_counter()
    result = jaxgames.match(game, spec["agents"], games=n, seed=0, openings=spec.get("openings", 0))
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
        "openings": spec.get("openings", 0),
        "wins": result.wins,
        "draws": result.draws,
        "losses": result.losses,
        # one per agent, in order; calls that compiled (each agent's first at each batch
        # size) are left out of the time per move and reported on their own
        "seconds_per_move": result.seconds_per_move(),
        "thinking_seconds": result.seconds,
        "compiling_calls_seconds": result.first_seconds,
        "moves_chosen": result.decisions,
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
        result["rows"].append(run_row(name, args.games, args.records, result["rows"]))
        path = write_json(result, result_path(args.out, here, "mcts_strength"))
    print("wrote", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
