"""Chess: jaxgames against python-chess, pgx and OpenSpiel, same machine, one run.

    python benchmarks/chess.py            # the full run
    python benchmarks/chess.py --quick    # a smoke run: small depths, few sizes

Three measurements, each side by side with its peers:

* perft nodes/s: jaxgames' level-by-level perft (:func:`jaxgames.search.perft`), python-chess
  (the usual recursive perft over ``legal_moves``, push and pop), and pgx's chess expanded
  level by level in the same harness as ours (all legal (state, action) pairs stepped in
  fixed-size chunks with a jitted ``vmap`` of pgx's ``step``). Counts are checked against the
  published tables.
* random playouts/s across batch sizes: our compiled playout loop against the same loop over
  pgx's ``init``/``step`` (the harness of ``jaxgames.bench.compiled``) and against OpenSpiel's
  chess played one game at a time from Python (``legal_actions``, ``apply_action``). pgx ends
  every game at 512 plies; so that the rows compare like with like, ours are also run with
  a 512-ply cap (``max_steps=512``, the truncated lanes scored by EVAL), beside the full
  rules (no cap). Moves/s are reported too.
* alpha-beta with quiescence at depth 3 on middlegame positions (random games of 16 to 40
  plies from the start, positions where the game is still on).
* the seeds' selective techniques at depth 4 (quiescence 4) on the first of those positions:
  null-move pruning (R = 2), singular extensions, both, beside the plain search: nodes,
  positions/s, and how often the best move and the value agree with the plain search.

Compile times are measured separately (ahead-of-time ``lower().compile()`` where the kernel
allows it, else the first call minus a timed second call).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels import stack, take, to_numpy

import jaxgames
from jaxgames.bench.compiled import jaxgames_playout_row, moves_of, pgx_playout_row
from jaxgames.bench.helpers import (
    command_line,
    import_time,
    machine_info,
    result_path,
    write_json,
)
from jaxgames.bench.peers import middlegame_fens, play_openspiel, python_chess
from jaxgames.search.alphabeta import Singular, alphabeta_batch
from jaxgames.search.perft import perft

HERE = os.path.dirname(os.path.abspath(__file__))
chess = python_chess()  # this script shares python-chess's name
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
START = chess.STARTING_FEN
PUBLISHED = {
    (START, 3): 8902,
    (START, 4): 197281,
    (START, 5): 4865609,
    (KIWIPETE, 2): 2039,
    (KIWIPETE, 3): 97862,
    (KIWIPETE, 4): 4085603,
}


# ---------------------------------------------------------------- perft
def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def pgx_perft(fen: str, depth: int, chunk: int = 4096) -> tuple[int, float, float]:
    """Level-by-level perft over pgx's chess: (nodes, seconds, compile seconds)."""
    import pgx
    from pgx.experimental.chess import from_fen

    env = pgx.make("chess")
    step = jax.jit(jax.vmap(env.step))
    root = from_fen(fen)
    level = jax.tree.map(lambda x: np.asarray(x)[None], root)
    t0 = time.perf_counter()
    warm = jax.tree.map(lambda x: np.repeat(x, chunk, axis=0), level)
    jax.block_until_ready(step(warm, jnp.zeros((chunk,), jnp.int32)))
    compile_s = time.perf_counter() - t0
    start = time.perf_counter()
    nodes = 0
    for ply in range(1, depth + 1):
        mask = np.asarray(level.legal_action_mask) & ~np.asarray(level.terminated)[:, None]
        parent, action = np.nonzero(mask)
        if ply == depth:
            nodes = parent.size
            break
        pieces = []
        for lo in range(0, parent.size, chunk):
            p, a = parent[lo : lo + chunk], action[lo : lo + chunk]
            fill = chunk - p.size
            parents = jax.tree.map(
                lambda x, p=p, fill=fill: np.pad(
                    x[p], [(0, fill)] + [(0, 0)] * (x.ndim - 1), mode="edge"
                ),
                level,
            )
            kids = step(parents, jnp.asarray(np.pad(a, (0, fill)), jnp.int32))
            pieces.append(jax.tree.map(lambda x, n=p.size: np.asarray(x)[:n], kids))
        level = jax.tree.map(lambda *xs: np.concatenate(xs), *pieces)
    return nodes, time.perf_counter() - start, compile_s


def bench_perft(
    cases: list[tuple[str, int]], peers: bool, pgx_max_depth: int = 4
) -> list[dict[str, Any]]:
    game = jaxgames.make("chess")
    rows = []
    for fen, depth in cases:
        name = "start" if fen == START else "kiwipete"
        state = game.parse(fen)
        t0 = time.perf_counter()
        perft(game, state, min(depth, 3))  # compiles the expansion kernels (fixed chunks)
        compile_s = time.perf_counter() - t0  # compile plus a shallow perft: an upper bound
        result = perft(game, state, depth)
        nodes = result.counts[-1]
        row = {
            "position": name,
            "depth": depth,
            "nodes": nodes,
            "published": PUBLISHED.get((fen, depth)),
            "jaxgames_s": result.time_s,
            "jaxgames_nodes_per_s": nodes / result.time_s,
            "jaxgames_compile_s": compile_s,
        }
        if peers:
            board = chess.Board(fen)
            pc_depth = min(depth, 3)  # python-chess is slow from depth 4 on
            t0 = time.perf_counter()
            pc_nodes = python_chess_perft(board, pc_depth)
            pc_s = time.perf_counter() - t0
            row.update(
                {
                    "python_chess_depth": pc_depth,
                    "python_chess_nodes": pc_nodes,
                    "python_chess_nodes_per_s": pc_nodes / pc_s,
                }
            )
            try:
                if depth > pgx_max_depth:
                    raise ImportError  # skipped: too slow for the run's budget
                pgx_nodes, pgx_s, pgx_compile = pgx_perft(fen, depth)
                row.update(
                    {
                        "pgx_nodes": pgx_nodes,
                        "pgx_nodes_per_s": pgx_nodes / pgx_s,
                        "pgx_compile_s": pgx_compile,
                    }
                )
            except ImportError:
                pass
        print(
            f"perft {name} d{depth}: {nodes:,} nodes (published {row['published']}), "
            f"jaxgames {row['jaxgames_nodes_per_s']:,.0f}/s"
            + (f", python-chess {row['python_chess_nodes_per_s']:,.0f}/s" if peers else "")
            + (
                f", pgx {row['pgx_nodes_per_s']:,.0f}/s ({row['pgx_nodes']:,})"
                if "pgx_nodes" in row
                else ""
            ),
            flush=True,
        )
        rows.append(row)
    return rows


# ---------------------------------------------------------------- playouts
def with_length(row: dict[str, Any], moves: int, truncated: int | None = None) -> dict:
    """The row with its playouts' mean length (and the share cut at the ply cap)."""
    row["mean_length"] = moves / row["batch"]
    if truncated is not None:
        row["truncated_fraction"] = truncated / row["batch"]
    return row


def bench_ours(batch: int, repeats: int, max_steps: int | None) -> dict[str, Any]:
    impl = "jaxgames" if max_steps is None else f"jaxgames_cap{max_steps}"
    game = jaxgames.make("chess")
    row, out = jaxgames_playout_row(game, batch, repeats, impl, max_steps)
    return with_length(row, moves_of(out.lengths), int(np.asarray(out.truncated).sum()))


def bench_pgx(batch: int, repeats: int) -> dict[str, Any] | None:
    row, moves = pgx_playout_row("chess", batch, repeats)
    return row and with_length(row, moves)


def bench_openspiel(seconds: float) -> dict[str, Any] | None:
    try:
        spiel = play_openspiel("chess", seconds=seconds)
    except ImportError:
        return None
    return {
        "impl": "openspiel_python_loop",
        "batch": 1,
        "games": spiel.games,
        "playouts_per_s": spiel.games / spiel.seconds,
        "moves_per_s": spiel.moves / spiel.seconds,
        "mean_length": spiel.moves / spiel.games,
    }


# ---------------------------------------------------------------- alpha-beta
def middlegame_roots(game, n: int) -> Any:
    """Positions after 16..40 random plies from the start, the game still on."""
    fens = middlegame_fens(n, 0, (16, 40), distinct=False)
    return stack([to_numpy(game.parse(f)) for f in fens])


def timed_search(game, roots, depth: int, quiescence: int, **options: Any):
    """(result, row) of one alpha-beta over ``roots``: the row's common fields.

    The search compiles per number of roots, so the timed run includes its compile; the
    compile is estimated apart on 8 roots (compile + a search of 8 roots).
    """
    t0 = time.perf_counter()
    alphabeta_batch(game, take(roots, slice(0, 8)), depth, quiescence=quiescence, **options)
    first_s = time.perf_counter() - t0
    result = alphabeta_batch(game, roots, depth, quiescence=quiescence, **options)
    run_s = result.stats["time_s"]
    n = len(result.best_action)
    return result, {
        "positions": n,
        "depth": depth,
        "quiescence": quiescence,
        "seconds": run_s,
        "positions_per_s": n / run_s,
        "nodes": result.stats["nodes"],
        "nodes_per_s": result.stats["nodes"] / run_s,
        "includes_compile": True,
        "compile_estimate_s": first_s,  # compile + search of 8 roots
        "lanes": result.stats["lanes"],
    }


def bench_alphabeta(n: int, depth: int, quiescence: int) -> dict[str, Any]:
    game = jaxgames.make("chess")
    roots = middlegame_roots(game, n)
    _, row = timed_search(game, roots, depth, quiescence)
    run_s, first_s = row["seconds"], row["compile_estimate_s"]
    print(
        f"alpha-beta d{depth} q{quiescence} on {n} middlegames: {run_s:.1f}s, "
        f"{row['positions_per_s']:.1f} positions/s, {row['nodes_per_s']:,.0f} nodes/s, "
        f"(includes compile; compile + 8 roots alone {first_s:.1f}s)",
        flush=True,
    )
    return row


SELECTIVE = {
    "plain": {},
    "null_move_R2": {"null_move": 2},
    "singular": {"singular": Singular(min_depth=2, margin=0.05, max_extensions=1)},
    "null_move_R2+singular": {
        "null_move": 2,
        "singular": Singular(min_depth=2, margin=0.05, max_extensions=1),
    },
}


def bench_selective(n: int, depth: int, quiescence: int) -> list[dict[str, Any]]:
    """Each variant compiled first on 8 roots, then timed on ``n`` roots (same positions)."""
    game = jaxgames.make("chess")
    roots = middlegame_roots(game, n)
    rows: list[dict[str, Any]] = []
    plain = None
    for name, options in SELECTIVE.items():
        result, row = timed_search(game, roots, depth, quiescence, **options)
        run_s = row["seconds"]
        plain = plain or result
        row = {
            "variant": name,
            **row,
            "nodes_vs_plain": result.stats["nodes"] / plain.stats["nodes"],
            "same_best_move": float(np.mean(result.best_action == plain.best_action)),
            "mean_abs_value_change": float(np.mean(np.abs(result.value - plain.value)[:, 0])),
        }
        rows.append(row)
        print(
            f"selective d{depth} q{quiescence} {name:<22} {run_s:7.1f}s "
            f"{row['positions_per_s']:7.1f} positions/s  nodes {row['nodes']:>10,} "
            f"({row['nodes_vs_plain']:.2f}x plain)  same move {row['same_best_move']:.0%}  "
            f"mean |dv| {row['mean_abs_value_change']:.4f}",
            flush=True,
        )
    return rows


SECTIONS = ["perft", "playouts", "alphabeta", "selective"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small depths and sizes")
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--no-peers", action="store_true", help="skip python-chess, pgx, OpenSpiel")
    parser.add_argument(
        "--pgx-max-batch", type=int, default=1024, help="largest batch pgx plays (it is slow)"
    )
    parser.add_argument(
        "--uncapped-max-batch", type=int, default=1024, help="largest batch of the no-cap rows"
    )
    parser.add_argument("--alphabeta-positions", type=int, default=None)
    parser.add_argument(
        "--selective-positions", type=int, default=None, help="0 skips the selective rows"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        choices=SECTIONS,
        default=SECTIONS,
        help="run these sections only (default: all)",
    )
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)
    quick = args.quick
    peers = not args.no_peers
    repeats = args.repeats or (1 if quick else 3)
    sizes = args.batch_sizes or ([64, 1024] if quick else [1, 64, 1024, 4096])
    perft_cases = [(START, 3), (KIWIPETE, 2)] if quick else [(START, 4), (KIWIPETE, 3), (START, 5)]

    perft_rows = bench_perft(perft_cases, peers) if "perft" in args.only else []
    playout_rows = []
    for batch in sizes if "playouts" in args.only else []:
        for cap in (512, None) if batch <= args.uncapped_max_batch else (512,):
            ours = bench_ours(batch, repeats, cap)
            playout_rows.append(ours)
            print(
                f"playouts B={batch:<6} {ours['impl']:<16} {ours['playouts_per_s']:>10,.1f}/s "
                f"{ours['moves_per_s']:>12,.0f} moves/s  mean length {ours['mean_length']:.0f}  "
                f"compile {ours['compile_s']:.1f}s",
                flush=True,
            )
        theirs = bench_pgx(batch, repeats) if peers and batch <= args.pgx_max_batch else None
        if theirs:
            playout_rows.append(theirs)
            capped = next(
                r for r in playout_rows if r["impl"] == "jaxgames_cap512" and r["batch"] == batch
            )
            capped["ratio_vs_pgx"] = capped["playouts_per_s"] / theirs["playouts_per_s"]
            print(
                f"playouts B={batch:<6} {'pgx':<16} {theirs['playouts_per_s']:>10,.1f}/s "
                f"{theirs['moves_per_s']:>12,.0f} moves/s  "
                f"mean length {theirs['mean_length']:.0f}  compile {theirs['compile_s']:.1f}s  "
                f"(jaxgames capped: {capped['ratio_vs_pgx']:.1f}x)",
                flush=True,
            )
    spiel = None
    if peers and "playouts" in args.only:
        spiel = bench_openspiel(5.0 if quick else 20.0)
    if spiel:
        playout_rows.append(spiel)
        print(
            f"playouts OpenSpiel loop: {spiel['playouts_per_s']:,.1f}/s "
            f"{spiel['moves_per_s']:,.0f} moves/s  mean length {spiel['mean_length']:.0f}",
            flush=True,
        )
    alphabeta_row = None
    if "alphabeta" in args.only:
        alphabeta_row = bench_alphabeta(args.alphabeta_positions or (100 if quick else 1000), 3, 4)
    selective_n = args.selective_positions
    selective_n = (32 if quick else 256) if selective_n is None else selective_n
    selective_rows = []
    if selective_n and "selective" in args.only:
        selective_rows = bench_selective(selective_n, 4, 4)
    imports = {
        "jaxgames": import_time("jaxgames"),
        "chess_game": import_time("jaxgames.games.chess"),
    }
    result = {
        "benchmark": "chess",
        "command": command_line("chess.py", argv),
        "machine": machine_info(),
        "import_time_s": imports,
        "perft": perft_rows,
        "playouts": playout_rows,
        "alphabeta": alphabeta_row,
        "selective": selective_rows,
    }
    out = write_json(result, result_path(args.out, HERE, "chess"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
