"""Random backgammon playouts: jaxgames against pgx and OpenSpiel, same machine, one run.

    python benchmarks/backgammon.py                    # default sizes
    python benchmarks/backgammon.py --quick            # smoke run
    python benchmarks/backgammon.py --batch-sizes 4096 --repeats 5

A playout is one game from the start with uniformly random legal moves, to its end. Rows:

* ``jaxgames``: ``jaxgames.kernels.playouts``' loop (``kernels.playout._playouts``:
  lockstep ``lax.while_loop``, shrinking phases) on B lanes; backgammon has a sampler hint
  (``Backgammon.sample_actions``: count the distinct plays of the roll, decode the r-th), so
  the kernel draws through it rather than a legal mask over all 23751 actions.
* ``jaxgames-mask``: the same loop with the hint switched off (the draw from the 23751-wide
  legal mask). Slow by construction; run at small batches.
* ``pgx``: ``pgx.make("backgammon")`` in the harness of ``jaxgames.bench.compiled`` (same loop, same
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
import os
import sys
from typing import Any

import jax
import numpy as np

from jaxgames.bench.compiled import jaxgames_playout_row, moves_of, pgx_playout_row
from jaxgames.bench.helpers import command_line, import_time, machine_info, result_path, write_json
from jaxgames.bench.peers import play_openspiel
from jaxgames.games.backgammon import Backgammon

HERE = os.path.dirname(os.path.abspath(__file__))


class _MaskOnly(Backgammon):
    """The same game without its sampler hint, under another type so that its kernels are
    traced (and cached) apart from those of ``make("backgammon")``: the playout kernel then
    draws from the 23751-wide legal mask."""

    has_sampler = False


def _row(row: dict[str, Any], moves: int) -> dict[str, Any]:
    head = {"impl": row["impl"], "game": "backgammon", "backend": jax.default_backend()}
    return {**head, **row, "moves_per_playout": moves / row["batch"]}


def bench_jaxgames(batch: int, repeats: int, hint: bool) -> dict[str, Any]:
    game, impl = (Backgammon(), "jaxgames") if hint else (_MaskOnly(), "jaxgames-mask")
    row, out = jaxgames_playout_row(game, batch, repeats, impl)
    row = _row(row, moves_of(out.lengths))
    utility = np.asarray(out.utilities)[..., 0]
    row.update(
        truncated=int(np.asarray(out.truncated).sum()),
        mean_utility_x=float(utility.mean()),
        gammon_or_more=float((np.abs(utility) >= 2).mean()),
    )
    return row


def bench_pgx(batch: int, repeats: int) -> dict[str, Any] | None:
    row, moves = pgx_playout_row("backgammon", batch, repeats)
    return row and _row(row, moves)


def bench_openspiel(seconds: float, seed: int = 0) -> dict[str, Any] | None:
    """Whole random games, one at a time on one thread, for about ``seconds``."""
    try:
        spiel = play_openspiel("backgammon", {"scoring_type": "full_scoring"}, seconds, 1, seed)
    except ImportError:
        return None
    values = np.asarray([r[0] for r in spiel.returns])
    return {
        "impl": "openspiel",
        "game": "backgammon",
        "backend": "cpu (C++, one thread)",
        "batch": 1,
        "compile_s": 0.0,
        "seconds_median": spiel.seconds / spiel.games,
        "games": spiel.games,
        "seconds_total": spiel.seconds,
        "playouts_per_s": spiel.games / spiel.seconds,
        "moves_per_s": spiel.moves / spiel.seconds,
        "moves_per_playout": spiel.moves / spiel.games,
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


def print_line(
    ours: dict[str, Any], pgx_row: dict[str, Any] | None, spiel: dict[str, Any] | None
) -> None:
    line = (
        f"{ours['impl']:<14} B={ours['batch']:<6} {ours['playouts_per_s']:>10,.0f} playouts/s "
        f"({ours['moves_per_playout']:.0f} moves each) compile {ours['compile_s']:.1f}s"
    )
    if pgx_row:
        line += (
            f" | pgx {pgx_row['playouts_per_s']:>8,.0f} playouts/s "
            f"compile {pgx_row['compile_s']:.1f}s  {ours['ratio_vs_pgx']:.2f}x pgx"
        )
    if spiel:
        line += (
            f" | openspiel {spiel['playouts_per_s']:,.0f} playouts/s "
            f"({spiel['moves_per_playout']:.0f} moves each)  "
            f"{ours['ratio_vs_openspiel']:.2f}x openspiel"
        )
    print(line, flush=True)


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
            if pgx_row:
                rows.append(pgx_row)
            print_line(ours, pgx_row, theirs)
    imports = {"jaxgames": import_time("jaxgames"), "jax": import_time("jax")}
    if not args.no_peers:
        imports["pgx"] = import_time("pgx")
        imports["pyspiel"] = import_time("pyspiel")
    result = {
        "benchmark": "backgammon_playouts",
        "command": command_line("backgammon.py", argv),
        "machine": machine_info(),
        "import_time_s": imports,
        "rows": rows,
        "expectiminimax": bench_expectiminimax(args),
    }
    out = write_json(result, result_path(args.out, HERE, "backgammon"))
    print(f"import times (s): {imports}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
