"""Random backgammon playouts: jaxgames against pgx and OpenSpiel, same machine, one run.

    python benchmarks/backgammon.py                    # default sizes, about 8 minutes on 2 cores
    python benchmarks/backgammon.py --quick            # smoke run, about a minute
    python benchmarks/backgammon.py --batch-sizes 4096 --repeats 5

A playout is one game from the start with uniformly random legal moves, to its end. Rows:

* ``jaxgames``: ``jaxgames.kernels.playouts``' loop (``kernels.playout._playouts``:
  lockstep ``lax.while_loop``, shrinking phases) on B lanes; backgammon has a sampler hint
  (``Backgammon.sample_actions``: count the distinct plays of the roll, decode the r-th), so
  the kernel draws through it rather than a legal mask over all 23751 actions.
* ``jaxgames-mask``: the same loop with the hint switched off (the draw from the 23751-wide
  legal mask). Slow by construction; run at small batches.
* ``pgx``: ``pgx.make("backgammon")`` in the harness of ``playouts.py`` (same loop, same
  random-move sampler over pgx's legal-action mask; pgx moves one checker per action and
  rolls inside ``step``).
* ``openspiel``: OpenSpiel's C++ ``backgammon`` driven from Python one game at a time on one
  thread: ``legal_actions`` + a uniform choice + ``apply_action``, chance outcomes drawn from
  ``chance_outcomes``. Its rate does not depend on the batch size; it is measured again next
  to every jaxgames row (``--openspiel-seconds`` each), and each ratio uses the measurement
  taken beside it, so that a shared machine's changing load hits both sides alike.

Each implementation's "uniformly random legal move" is its own: ours is uniform over
distinct full-turn plays, pgx's over single checker moves, OpenSpiel's over ordered pairs of
checker moves (a double is two decisions); OpenSpiel also uses the opening-roll rule. The
games differ a little in length (reported as moves per playout); the unit compared is whole
random games per second. Compilation is timed separately (``lower().compile()``); steady
state is the median of ``--repeats`` runs after a warm-up. The JSON goes to
``results/backgammon_<backend>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from typing import Any

import jax
import numpy as np
from jaxgames.kernels import batched
from jaxgames.kernels.playout import _playouts, compaction_pays
from machine import machine_info
from playouts import import_time, pgx_runner, time_compiled

from jaxgames.games.backgammon import Backgammon

HERE = os.path.dirname(os.path.abspath(__file__))


class _MaskOnly(Backgammon):
    """The same game without its sampler hint, under another type so that its kernels are
    traced (and cached) apart from those of ``make("backgammon")``: the playout kernel then
    draws from the 23751-wide legal mask."""

    has_sampler = False


def _row(impl, batch, compile_s, times, moves, extra=None) -> dict[str, Any]:
    median = statistics.median(times)
    row = {
        "impl": impl,
        "game": "backgammon",
        "backend": jax.default_backend(),
        "batch": batch,
        "compile_s": compile_s,
        "seconds_median": median,
        "seconds_min": min(times),
        "seconds_max": max(times),
        "playouts_per_s": batch / median,
        "moves_per_s": moves / median,
        "moves_per_playout": moves / batch,
    }
    row.update(extra or {})
    return row


def bench_jaxgames(batch: int, repeats: int, hint: bool) -> dict[str, Any]:
    game = Backgammon() if hint else _MaskOnly()
    states = batched(game).init(batch)
    key = jax.random.key(0)
    steps = game.max_game_length
    compact = compaction_pays(steps, batch)
    t0 = time.perf_counter()
    compiled = _playouts.lower(game, states, 1, key, steps, compact).compile()
    compile_s = time.perf_counter() - t0
    times, out = time_compiled(compiled, (states, key), repeats)
    lengths = np.asarray(out.lengths)
    utility = np.asarray(out.utilities)[..., 0]
    extra = {
        "truncated": int(np.asarray(out.truncated).sum()),
        "mean_utility_x": float(utility.mean()),
        "gammon_or_more": float((np.abs(utility) >= 2).mean()),
    }
    impl = "jaxgames" if hint else "jaxgames-mask"
    return _row(impl, batch, compile_s, times, int(lengths.sum()), extra)


def bench_pgx(batch: int, repeats: int) -> dict[str, Any] | None:
    try:
        import pgx
    except ImportError:
        return None
    env = pgx.make("backgammon")
    run = pgx_runner(env)
    run.batch = batch
    key = jax.random.key(0)
    t0 = time.perf_counter()
    compiled = jax.jit(run).lower(key).compile()
    compile_s = time.perf_counter() - t0
    times, lengths = time_compiled(compiled, (key,), repeats)
    return _row("pgx", batch, compile_s, times, int(np.asarray(lengths).sum()))


def bench_openspiel(seconds: float, seed: int = 0) -> dict[str, Any] | None:
    """Whole random games, one at a time on one thread, for about ``seconds``."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("backgammon", {"scoring_type": "full_scoring"})
    rng = random.Random(seed)
    games = moves = 0
    values = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or games == 0:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        values.append(state.returns()[0])
        games += 1
    elapsed = time.perf_counter() - t0
    return {
        "impl": "openspiel",
        "game": "backgammon",
        "backend": "cpu (C++, one thread)",
        "batch": 1,
        "compile_s": 0.0,
        "seconds_median": elapsed / games,
        "games": games,
        "seconds_total": elapsed,
        "playouts_per_s": games / elapsed,
        "moves_per_s": moves / elapsed,
        "moves_per_playout": moves / games,
        "mean_utility_x": float(np.mean(values)),
        "gammon_or_more": float(np.mean(np.abs(values) >= 2)),
    }


def bench_expectiminimax(args: argparse.Namespace) -> list[dict[str, Any]]:
    """PLACE FOR EXPECTIMINIMAX TIMINGS (to be filled in by the expectiminimax work).

    Return rows (dicts like the playout rows, with at least ``impl``, ``batch`` or
    ``positions``, ``depth``, ``seconds`` and ``nodes``) for backgammon searches; they are
    written under ``"expectiminimax"`` in the JSON. Nothing is measured yet.
    """
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[256, 1024, 4096])
    parser.add_argument(
        "--kernel-batch-sizes",
        nargs="*",
        type=int,
        default=[64],
        help="batches for jaxgames-mask (the sampler hint off: slow, a 23751-wide mask)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--openspiel-seconds", type=float, default=10.0)
    parser.add_argument("--no-peers", action="store_true", help="skip pgx and OpenSpiel")
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)
    if args.quick:
        args.batch_sizes, args.kernel_batch_sizes = [256], [8]
        args.repeats, args.openspiel_seconds = 1, 3.0

    rows: list[dict[str, Any]] = []
    for hint, sizes in ((True, args.batch_sizes), (False, args.kernel_batch_sizes)):
        for batch in sizes:
            ours = bench_jaxgames(batch, args.repeats, hint)
            theirs = None if args.no_peers else bench_openspiel(args.openspiel_seconds)
            if theirs:
                theirs["beside"] = f"{ours['impl']} B={batch}"
                rows.append(theirs)
            pgx_row = None if args.no_peers else bench_pgx(batch, args.repeats)
            if pgx_row:
                ours["ratio_vs_pgx"] = ours["playouts_per_s"] / pgx_row["playouts_per_s"]
            if theirs:
                ours["ratio_vs_openspiel"] = ours["playouts_per_s"] / theirs["playouts_per_s"]
            rows.append(ours)
            line = (
                f"{ours['impl']:<14} B={batch:<6} {ours['playouts_per_s']:>10,.0f} playouts/s "
                f"({ours['moves_per_playout']:.0f} moves each) compile {ours['compile_s']:.1f}s"
            )
            if pgx_row:
                rows.append(pgx_row)
                line += (
                    f" | pgx {pgx_row['playouts_per_s']:>8,.0f} playouts/s "
                    f"compile {pgx_row['compile_s']:.1f}s  {ours['ratio_vs_pgx']:.2f}x pgx"
                )
            if theirs:
                line += (
                    f" | openspiel {theirs['playouts_per_s']:,.0f} playouts/s "
                    f"({theirs['moves_per_playout']:.0f} moves each)  "
                    f"{ours['ratio_vs_openspiel']:.2f}x openspiel"
                )
            print(line, flush=True)
    imports = {"jaxgames": import_time("jaxgames"), "jax": import_time("jax")}
    if not args.no_peers:
        imports["pgx"] = import_time("pgx")
        imports["pyspiel"] = import_time("pyspiel")
    result = {
        "benchmark": "backgammon_playouts",
        "command": "python benchmarks/backgammon.py " + " ".join(argv or sys.argv[1:]),
        "machine": machine_info(),
        "import_time_s": imports,
        "rows": rows,
        "expectiminimax": bench_expectiminimax(args),
    }
    out = args.out or os.path.join(HERE, "results", f"backgammon_{jax.default_backend()}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(f"import times (s): {imports}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
