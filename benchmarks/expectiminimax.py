"""Expectiminimax with and without Star1/Star2 pruning: nodes and nodes/s, one run.

    python benchmarks/expectiminimax.py                       # backgammon and pig
    python benchmarks/expectiminimax.py --quick               # smoke run (*_quick.json)
    python benchmarks/expectiminimax.py --games pig --depth 4 --positions 64
    python benchmarks/expectiminimax.py --host-only backgammon           # lanes are slow there

For each game, positions come from seeded random play (decision nodes and chance nodes, not
finished). Every pruning (``none``, ``alphabeta``, ``star1``, ``star2``) searches the same
positions to the same depth (chance plies count as plies) in both execution modes:

* ``host``: one root at a time, the host-side driver (each node it opens is expanded on the
  device in one batch); ``nodes`` are visits, ``expansions`` the nodes opened on the device.
* ``lanes``: all roots at once on the device, one lane per root (Star1/Star2 in a jitted loop).

The values of every pruning are checked against plain expectiminimax (``none``) on every
position: the largest difference is recorded (float32 rounding only). ``saved`` is the share of
plain expectiminimax's nodes a pruning did not visit. Compile time (the first call, on the
same shapes) is reported apart from the steady-state time.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import jax
import numpy as np
from jaxgames.kernels import batched, stack, unstack

import jaxgames
from jaxgames.bench.helpers import machine_info, write_json
from jaxgames.search import PRUNINGS, expectiminimax, expectiminimax_batch

HERE = os.path.dirname(os.path.abspath(__file__))


def random_positions(game: Any, count: int, seed: int, max_plies: int = 40) -> list[Any]:
    """``count`` unfinished positions from seeded random play (1 to ``max_plies`` steps)."""
    rng = np.random.default_rng(seed)
    f = batched(game)
    out = []
    while len(out) < count:
        state = stack([game.init()])
        for _ in range(int(rng.integers(1, max_plies + 1))):
            if bool(f.terminal(state)[0]):
                break
            if int(f.player(state)[0]) < 0:
                p = np.asarray(f.chance_probs(state)[0], np.float64)
                action = rng.choice(p.size, p=p / p.sum())
            else:
                action = rng.choice(np.flatnonzero(np.asarray(f.legal_mask(state)[0])))
            state = f.step(state, np.array([action], np.int32))
        if not bool(f.terminal(state)[0]):
            out.append(unstack(state)[0])
    return out


def run_host(game: Any, positions: list[Any], depth: int, pruning: str) -> dict[str, Any]:
    expectiminimax(game, positions[0], depth, pruning=pruning)  # compile the node kernels
    totals = {"nodes": 0, "expansions": 0, "evaluated": 0}
    values = []
    start = time.perf_counter()
    for state in positions:
        result = expectiminimax(game, state, depth, pruning=pruning)
        values.append(float(result.value[0]))
        for key in totals:
            totals[key] += int(result.stats[key])
    seconds = time.perf_counter() - start
    return {
        "mode": "host",
        "pruning": pruning,
        **totals,
        "seconds": seconds,
        "positions_per_s": len(positions) / seconds,
        "nodes_per_s": totals["nodes"] / seconds,
        "values": values,
    }


def run_lanes(
    game: Any, positions: list[Any], depth: int, pruning: str, lanes: int
) -> dict[str, Any]:
    roots = stack(positions)
    start = time.perf_counter()
    expectiminimax_batch(
        game,
        stack(positions[:1] * len(positions)),
        depth,
        pruning=pruning,
        mode="lanes",
        lanes=lanes,
    )  # same shapes: the compile, plus one search
    first = time.perf_counter() - start
    start = time.perf_counter()
    result = expectiminimax_batch(game, roots, depth, pruning=pruning, mode="lanes", lanes=lanes)
    seconds = time.perf_counter() - start
    return {
        "mode": "lanes",
        "pruning": pruning,
        "nodes": int(result.stats["nodes"]),
        "first_call_s": first,
        "seconds": seconds,
        "positions_per_s": len(positions) / seconds,
        "nodes_per_s": result.stats["nodes"] / seconds,
        "values": [float(v) for v in result.value[:, 0]],
    }


def bench_game(
    spec: str, count: int, depth: int, lanes: int, seed: int, modes: tuple[str, ...]
) -> dict[str, Any]:
    game = jaxgames.make(spec)
    positions = random_positions(game, count, seed)
    rows = []
    for mode in modes:
        for pruning in PRUNINGS:
            if mode == "host":
                row = run_host(game, positions, depth, pruning)
            else:
                row = run_lanes(game, positions, depth, pruning, lanes)
            rows.append(row)
            print(
                f"{spec:<12} {mode:<6} {pruning:<10} nodes {row['nodes']:>10,}  "
                f"{row['nodes_per_s']:>10,.0f} nodes/s  {row['positions_per_s']:>8.2f} pos/s",
                flush=True,
            )
    for mode in modes:
        plain = next(r for r in rows if r["mode"] == mode and r["pruning"] == "none")
        for row in rows:
            if row["mode"] != mode:
                continue
            row["saved"] = 1.0 - row["nodes"] / max(plain["nodes"], 1)
            row["max_value_difference"] = float(
                np.max(np.abs(np.array(row["values"]) - np.array(plain["values"])))
            )
    for row in rows:
        del row["values"]
    return {"game": spec, "positions": count, "depth": depth, "lanes": lanes, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["backgammon", "pig"])
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--lanes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--host-only",
        nargs="*",
        default=[],
        help="games measured with the host driver only (wide action spaces make lanes slow)",
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    args = parser.parse_args()
    if args.quick:
        args.positions, args.depth, args.lanes = 8, 2, 8
    results = {
        "machine": machine_info(),
        "devices": [str(d) for d in jax.devices()],
        "games": [
            bench_game(
                g,
                args.positions,
                args.depth,
                args.lanes,
                args.seed,
                ("host",) if g in args.host_only else ("host", "lanes"),
            )
            for g in args.games
        ],
    }
    name = "expectiminimax_cpu_quick.json" if args.quick else "expectiminimax_cpu.json"
    path = os.path.join(args.out, name)
    write_json(results, path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
