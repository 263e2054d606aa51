"""Monte Carlo tree search throughput: ``mcts_batch`` beside OpenSpiel's C++ MCTS and mctx on
pgx, one run, same machine.

    python benchmarks/mcts.py                      # every row (results/mcts_cpu.json)
    python benchmarks/mcts.py --rows connect4:4096:100 --out /tmp/mcts.json

A row is ``GAME:TREES:SIMULATIONS``. jaxgames: ``jaxgames.search.mcts_batch`` (UCT, one
random rollout per leaf) from the start position, ``TREES`` trees at once, called twice:
``first_call_s`` traces and compiles, ``seconds`` is the second call. Before JAX starts the
CPU is split into one device per core, as the command line does, so the trees are shared
among the cores. OpenSpiel: ``MCTSBot`` with ``RandomRolloutEvaluator(1)``, one thread, the
same simulations per search, ``step`` repeated for two seconds; its ``uct_c`` is twice ours
(it adds its term to returns in [-1, 1], ours to values scaled to [0, 1]). mctx:
``muzero_policy`` on pgx's environment with one random rollout per leaf, the same trees
and simulations (games pgx has). mctx through this library's adapter
(:func:`jaxgames.search.mcts.mctx_policy`) on the same jaxgames game, trees, simulations and
leaf evaluator (one random rollout, uniform priors), ``muzero_policy`` and
``gumbel_muzero_policy``, on one device (connect four and othello rows): the two engines at
equal budget. Simulations per second are compared.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from jaxgames.kernels import split_cpu, wide_vectors

from jaxgames.bench.helpers import (
    command_line,
    machine_info,
    package_versions,
    ratio,
    result_path,
    write_json,
)

DEFAULT_ROWS = (
    "connect4:256:200",
    "connect4:4096:100",
    "othello:256:100",
    "othello:1024:100",
    "chess:64:50",
    "backgammon:64:50",
)
UCT_C = 1.0  # ours; OpenSpiel's equivalent is 2.0, its default


def jaxgames_row(name: str, trees: int, simulations: int) -> dict[str, Any]:
    import jax
    from jaxgames.kernels import stack

    import jaxgames
    from jaxgames.search import mcts_batch
    from jaxgames.search.mcts import UCT

    game = jaxgames.make(name)
    roots = stack([game.init()] * trees)
    times = []
    for seed in (0, 1):
        started = time.perf_counter()
        result = mcts_batch(game, roots, simulations, seed, selection=UCT(UCT_C))
        times.append(time.perf_counter() - started)
    return {
        "impl": "jaxgames mcts_batch, UCT, one random rollout per leaf",
        "call": f"mcts_batch(game, states, {simulations}, seed, selection=UCT({UCT_C}))",
        "trees": trees,
        "simulations": simulations,
        "devices": jax.local_device_count(),
        "first_call_s": times[0],
        "seconds": times[1],
        "compile_s": times[0] - times[1],
        "simulations_per_s": trees * simulations / times[1],
        "nodes_mean": float(result.stats["nodes"].mean()),
    }


def run_row(spec: str) -> dict[str, Any]:
    from jaxgames.bench.mcts_peers import PGX_NAMES, mctx_adapter, mctx_pgx, openspiel_mcts

    name, trees, simulations = spec.split(":")
    trees_n, sims_n = int(trees), int(simulations)
    ours = jaxgames_row(name, trees_n, sims_n)
    spiel = openspiel_mcts(name, sims_n, 2 * UCT_C)
    mctx = mctx_pgx(name, trees_n, sims_n)
    row = {
        "row": spec,
        "game": name,
        "jaxgames": ours,
        "openspiel": spiel or "skipped: open_spiel not installed",
        "mctx_pgx": mctx
        or (
            "skipped: pgx or mctx not installed"
            if name in PGX_NAMES
            else "skipped: this benchmark runs mctx on pgx's connect four, othello, tic-tac-toe"
        ),
        "mctx_adapter": {
            policy: mctx_adapter(name, trees_n, sims_n, policy) or "skipped: mctx not installed"
            for policy in (("muzero", "gumbel_muzero") if name in PGX_NAMES else ())
        },
        "vs_openspiel": ratio(ours["simulations_per_s"], spiel and spiel["simulations_per_s"]),
        "vs_mctx_pgx": ratio(ours["simulations_per_s"], mctx and mctx["simulations_per_s"]),
    }
    line = f"{spec:<20} jaxgames {ours['simulations_per_s']:>11,.0f} sims/s"
    line += f" (compile {ours['compile_s']:.1f}s)"
    if spiel:
        line += f" | openspiel {spiel['simulations_per_s']:>9,.0f} ({row['vs_openspiel']:.1f}x)"
    if mctx:
        line += f" | mctx+pgx {mctx['simulations_per_s']:>9,.0f} ({row['vs_mctx_pgx']:.1f}x)"
        line += f" (compile {mctx['compile_s']:.1f}s)"
    for policy, adapter in row["mctx_adapter"].items():
        if isinstance(adapter, dict):
            line += f" | adapter {policy} {adapter['simulations_per_s']:>9,.0f}"
            line += f" (compile {adapter['compile_s']:.1f}s)"
    print(line, flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=list(DEFAULT_ROWS))
    parser.add_argument("--cpu-devices", type=int, default=None, help="default: one per core")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    split_cpu(args.cpu_devices)
    wide_vectors()
    rows = [run_row(spec) for spec in args.rows]
    result = {
        "benchmark": "mcts",
        "command": command_line("mcts.py", argv),
        "machine": machine_info(),
        "versions": package_versions(("jax", "jaxlib", "open_spiel", "pgx", "mctx")),
        "rows": rows,
    }
    here = __file__.rsplit("/", 1)[0]
    print("wrote", write_json(result, result_path(args.out, here, "mcts")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
