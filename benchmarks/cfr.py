"""CFR and CFR+ on the device against OpenSpiel's C++ solvers, one run, same machine.

    python benchmarks/cfr.py                                  # Kuhn 1,000 and Leduc 1,000
    python benchmarks/cfr.py --iterations 2000 --peer-iterations 300 --oracle-games 0

For each game (``kuhn_poker``, ``leduc_poker``) and algorithm (CFR, CFR+): iterations per
second and the exploitability of the average policy at checkpoints, for
:class:`jaxgames.search.cfr.CFRSolver` and for ``pyspiel.CFRSolver`` / ``CFRPlusSolver``
(C++), measured by ``pyspiel.exploitability``. Iterations are timed apart from the
exploitability evaluations and from compilation (reported as ``compile_s``). Both run the
same updates in the same order, so the curves should coincide where both were run.

``--oracle-games N`` first plays N random Leduc games in jaxgames and OpenSpiel side by
side (legal actions, chance outcomes, observation tensors, returns): issue 24's check of
1,000 games, kept out of the test suite for its time.

Writes ``results/cfr_<backend>.json`` and the plot ``results/cfr_<backend>.png``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxgames
from jaxgames.bench.helpers import command_line, machine_info, result_path, table, write_json
from jaxgames.search.cfr import CFRSolver

HERE = os.path.dirname(os.path.abspath(__file__))
MARKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]


def checkpoints(iterations: int) -> list[int]:
    """The log-spaced iteration counts up to ``iterations`` (which is always the last)."""
    return [m for m in MARKS if m < iterations] + [iterations]


def ours(name: str, plus: bool, iterations: int) -> dict[str, Any]:
    """Our solver: compile, then timed chunks between checkpoints, exploitability at each."""
    t0 = time.perf_counter()
    solver = CFRSolver(jaxgames.make(name), plus=plus)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    solver._run.lower(solver.program.arrays, solver.state, jnp.int32(1)).compile()
    compile_s = time.perf_counter() - t0
    solver.evaluate()  # compiles the report; it does not change the solver
    curve, seconds = [], 0.0
    for mark in checkpoints(iterations):
        t0 = time.perf_counter()
        jax.block_until_ready(solver.run(mark - solver.iterations))
        seconds += time.perf_counter() - t0
        curve.append([mark, solver.evaluate()["exploitability"]])
    report = solver.evaluate()
    return {
        "solver": "jaxgames " + ("CFR+" if plus else "CFR"),
        "iterations": iterations,
        "seconds": seconds,
        "iterations_per_s": iterations / seconds,
        "build_s": build_s,
        "compile_s": compile_s,
        "histories": solver.tree.num_histories,
        "infosets": solver.tree.num_infosets,
        "curve": curve,
        "exploitability": report["exploitability"],
        "value": report["value"].tolist(),
    }


def theirs(name: str, plus: bool, iterations: int) -> dict[str, Any] | None:
    """OpenSpiel's C++ solver, the same checkpoints (None without pyspiel)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    solver = (pyspiel.CFRPlusSolver if plus else pyspiel.CFRSolver)(game)
    curve, seconds, done = [], 0.0, 0
    for mark in checkpoints(iterations):
        t0 = time.perf_counter()
        for _ in range(mark - done):
            solver.evaluate_and_update_policy()
        seconds += time.perf_counter() - t0
        done = mark
        curve.append([mark, pyspiel.exploitability(game, solver.average_policy())])
    return {
        "solver": "OpenSpiel C++ " + ("CFRPlusSolver" if plus else "CFRSolver"),
        "iterations": iterations,
        "seconds": seconds,
        "iterations_per_s": iterations / seconds,
        "curve": curve,
        "exploitability": curve[-1][1],
        "pyspiel": getattr(pyspiel, "__version__", None),
    }


def oracle_games(count: int, seed: int = 24) -> dict[str, Any]:
    """``count`` random Leduc games side by side with OpenSpiel; the first mismatch, if any."""
    import pyspiel

    game = jaxgames.make("leduc_poker")
    oracle = pyspiel.load_game("leduc_poker")
    step = jax.jit(game.step)

    @jax.jit
    def facts(s):
        obs = jnp.stack([game.observation(s, p) for p in range(2)])
        return game.player(s), game.legal_mask(s), game.terminal(s), game.utility(s), obs

    rng = random.Random(seed)
    t0, moves = time.perf_counter(), 0
    for g in range(count):
        s, o, history = game.init(), oracle.new_initial_state(), []
        while True:
            player, legal, term, util, obs = jax.device_get(facts(s))
            same = bool(term) == o.is_terminal()
            if same and o.is_terminal():
                same = np.allclose(util, o.returns())
            elif same and not o.is_chance_node():
                same = (
                    int(player) == o.current_player()
                    and np.flatnonzero(legal).tolist() == o.legal_actions()
                    and all(np.array_equal(obs[p], o.observation_tensor(p)) for p in range(2))
                )
            if not same:
                return {"games": g, "mismatch": {"game": g, "history": history}}
            if o.is_terminal():
                break
            if o.is_chance_node():
                outcomes, probs = zip(*o.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, probs)[0]
            else:
                action = rng.choice(o.legal_actions())
            history.append(action)
            moves += 1
            s, o = step(s, action), o.child(action)
    return {"games": count, "moves": moves, "mismatch": None, "seconds": time.perf_counter() - t0}


def plot(rows: list[dict[str, Any]], path: str, title: str) -> str | None:
    """Exploitability against iterations (log-log), one panel per game."""
    try:
        from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
    except ImportError:
        return None
    games = list(dict.fromkeys(r["game"] for r in rows))
    fig = Figure(figsize=(5.2 * len(games), 4.0), layout="constrained")
    axes = fig.subplots(1, len(games), squeeze=False).ravel()
    styles = {"jaxgames": "-", "OpenSpiel": ":"}
    for ax, game in zip(axes, games, strict=True):
        for r in (r for r in rows if r["game"] == game):
            x, y = zip(*r["curve"], strict=True)
            lab = f"{r['solver']} ({r['iterations_per_s']:,.0f} it/s)"
            ax.plot(x, y, styles[r["solver"].split()[0]], marker="o", ms=3, label=lab)
        ax.set(xscale="log", yscale="log", xlabel="iterations", ylabel="exploitability")
        ax.set_title(game, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.savefig(path, dpi=100)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kuhn_poker", "leduc_poker"])
    parser.add_argument("--iterations", type=int, default=1000, help="ours, per game")
    parser.add_argument(
        "--peer-iterations", type=int, default=None, help="OpenSpiel's (default: --iterations)"
    )
    parser.add_argument("--oracle-games", type=int, default=1000, help="Leduc games vs OpenSpiel")
    parser.add_argument("--note", default="", help="a line for the JSON (e.g. machine load)")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)

    result: dict[str, Any] = {
        "benchmark": "cfr",
        "command": command_line("cfr.py", argv),
        "machine": machine_info(),
        "note": args.note,
    }
    if args.oracle_games:
        result["leduc_oracle"] = oracle_games(args.oracle_games)
        print(f"leduc vs OpenSpiel: {result['leduc_oracle']}", flush=True)
    rows = []
    for name in args.games:
        for plus in (False, True):
            mine = ours(name, plus, args.iterations)
            peer = theirs(name, plus, args.peer_iterations or args.iterations)
            mine["game"] = name
            rows.append(mine)
            if peer:
                peer["game"] = name
                rows.append(peer)
                mine["speedup_vs_openspiel"] = mine["iterations_per_s"] / peer["iterations_per_s"]
                shared = dict(map(tuple, peer["curve"]))
                gaps = [abs(e - shared[m]) for m, e in mine["curve"] if m in shared]
                mine["max_curve_gap_vs_openspiel"] = max(gaps) if gaps else None
            table(
                ["game", "solver", "iterations", "it/s", "exploitability", "speedup"],
                [
                    [name, r["solver"], r["iterations"], r["iterations_per_s"],
                     r["exploitability"], r.get("speedup_vs_openspiel", "")]
                    for r in rows[-2 if peer else -1 :]
                ],
            )  # fmt: skip
    result["rows"] = rows
    out = write_json(result, result_path(args.out, HERE, "cfr"))
    png = plot(
        rows, out.removesuffix(".json") + ".png", f"CFR vs OpenSpiel ({result['machine']['cpu']})"
    )
    print(f"wrote {out}" + (f" and {png}" if png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
