"""The ``evaluate`` verb: positions in, a search over chunks of them (:mod:`jaxgames.bulk`),
one row each out, resumably; and the one-line summary of the run."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from jaxgames import progress
from jaxgames.capabilities import Scoring
from jaxgames.cli.common import UsageError, nothing_valid, positive, report_bad, shown
from jaxgames.game import Game, GameError
from jaxgames.kernels.cpu import wide_vectors
from jaxgames.kernels.sharding import split_cpu
from jaxgames.positions import BadLine, check_file, read_lines, read_positions
from jaxgames.registry import make

KILL_AFTER_CHUNKS = "JAXGAMES_TEST_KILL_AFTER_CHUNKS"
"""Test hook: the process SIGKILLs itself right after flushing this many chunks."""


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Search positions in chunks and write one row per position, resuming a killed run.

    Everything is checked before the first search: the options, the input (readable, UTF-8;
    with ``--strict`` every line parses), the output (writable; rows already there belong
    to this input, depth and algorithm). Rows go to ``--out`` (JSONL, or CSV with
    ``--format csv`` or a ``.csv`` name) or to stdout (a table unless ``--format``), in
    input order, flushed after every chunk; the file is touched only when the first rows
    are ready. Re-running with the same ``--out`` keeps its complete rows (a partial last
    line is cut off), checks that they are the first positions of this input, and goes on
    after them. With ``--distributed`` every process of a JAX multi-process run takes its
    contiguous slice of the positions and writes ``OUT.partK``.
    """
    from jaxgames import bulk
    from jaxgames.bulk.output import RowWriter, check_resume, check_writable, read_existing

    game, fmt, chunk_size, (index, count) = _setup(args)
    cols = bulk.columns(game)
    positions, total, bad, out_path = _read_input(args, game, index, count)
    bad_reported = 0
    if index == 0 and total != 0:  # with nothing to evaluate, the final error says it all
        report_bad(bad)  # bad lines found so far (all of them, when distributed)
        bad_reported = len(bad)

    # then the output: writable, and what it holds belongs to this run
    done: list[dict[str, Any]] = []
    keep = 0
    if out_path:
        check_writable(out_path)
        done, keep = read_existing(out_path, fmt, cols)
        check_resume(out_path, done, positions, args.depth, args.algo)
    writer = RowWriter(out_path, fmt, cols, keep=keep, legend=_legend(game))
    kill_after = int(os.environ.get(KILL_AFTER_CHUNKS, "0") or 0)
    seconds: list[float] = []
    sizes: list[int] = []
    nodes: list[int] = []
    left = None if total is None else max(total - len(done), 0)
    try:
        with progress.status_line(shown(args)):
            progress.count(0, left, "positions")
            chunks = bulk.iter_chunks(game, positions, args.algo, args.depth, chunk_size)
            for chunk in chunks:
                writer.write(chunk.rows)
                seconds.append(chunk.seconds)
                sizes.append(len(chunk.rows))
                nodes.append(chunk.nodes)
                if kill_after and len(seconds) == kill_after:
                    os.kill(os.getpid(), signal.SIGKILL)
                progress.count(sum(sizes), left, "positions")
    finally:
        writer.close()
    if not sizes and not done:
        raise GameError(nothing_valid("evaluate: no valid positions to evaluate", bad))
    if index == 0:
        report_bad(bad[bad_reported:])
    who = f"process {index} of {count}: " if args.distributed else ""
    summary = _evaluate_summary(seconds, sizes, nodes, len(done), out_path)
    print(f"jaxgames: {who}{summary}", file=sys.stderr)
    return 1 if bad else 0


def _setup(args: argparse.Namespace) -> tuple[Game, str, int, tuple[int, int]]:
    """The options checked, the devices and the multi-process runtime set up, in the order
    JAX needs; returns the game, the output format, the chunk size and ``(process index,
    process count)``. ``args.algo`` is made concrete."""
    from jaxgames import bulk
    from jaxgames.bulk.output import choose_format

    positive(args.depth, "--depth", "evaluate", least=0)
    if args.chunk is not None:
        positive(args.chunk, "--chunk", "evaluate")
    if args.distributed and not args.out:
        raise UsageError("evaluate: --distributed needs --out (process K writes OUT.partK)")
    if args.cpu_devices is not None:
        positive(args.cpu_devices, "--cpu-devices", "evaluate")
    fmt = choose_format(args.format, args.out)
    # one CPU device per core, before JAX starts: the batch search is sharded over the
    # local devices, so each core runs its own share (one device keeps to about one core);
    # and 512-bit vectors where the CPU has them
    split_cpu(args.cpu_devices)
    wide_vectors()
    # joining the multi-process runtime must come before anything else touches JAX
    processes = bulk.initialize_distributed() if args.distributed else (0, 1)
    game = make(args.game)
    chunk_size = args.chunk or bulk.DEFAULT_CHUNK_SIZE
    bulk.check_chunk_memory(game, chunk_size)
    if args.algo == "auto":
        args.algo = bulk.default_algorithm(game)
    return game, fmt, chunk_size, processes


def _read_input(
    args: argparse.Namespace, game: Game, index: int, count: int
) -> tuple[Any, int | None, list[BadLine], str | None]:
    """The input checked first (readable, text, and with ``--strict`` every line a
    position), then ``(positions, how many or None, the bad lines found so far, the output
    path)``: with ``--distributed``, this process's slice and its part file."""
    from jaxgames import bulk

    total = check_file(args.file)
    lines = read_lines(args.file) if args.strict and args.file is not None else None
    if lines is not None:
        for _ in read_positions(game, args.file, strict=True, lines=lines):
            pass  # stops at the first bad line, before any output is touched
    bad: list[BadLine] = []
    positions: Any = read_positions(game, args.file, strict=args.strict, bad=bad, lines=lines)
    out_path = args.out
    if args.distributed:
        records = bulk.process_slice(list(positions), index, count)
        positions, total = iter(records), len(records)
        out_path = bulk.part_path(args.out, index, count)
    return positions, total, bad, out_path


def _legend(game: Game) -> list[str]:
    """What a table's columns mean, printed under it."""
    lines = [
        "value: for the player to move (to_move), on the game's utility scale "
        f"({game.utility_min:+g} to {game.utility_max:+g}; a win, draw or loss where proven, "
        "else the heuristic EVAL at the search depth); pv: the best line found"
    ]
    if isinstance(game, Scoring):
        lines.append(f"score: {game.score_meaning}")
    return lines


def _evaluate_summary(
    seconds: list[float], sizes: list[int], nodes: list[int], resumed: int, path: str | None
) -> str:
    """Positions, time, rates (overall and after the first chunk), devices: one line."""
    import jax

    devices = jax.local_device_count()
    parts = []
    if resumed:
        parts.append(f"{resumed:,} positions already in {path}")
    if not sizes:
        parts.append("nothing left to evaluate")
    else:
        total_s, done, visited = sum(seconds), sum(sizes), sum(nodes)
        parts.append(
            f"{done:,} positions in {total_s:.2f} s: {done / total_s:,.1f} positions/s, "
            f"{visited / total_s:,.0f} nodes/s"
        )
        first = f"first chunk (with compilation) {seconds[0]:.2f} s"
        if len(sizes) > 1:
            later_s = sum(seconds[1:])
            first += (
                f", then {sum(sizes[1:]) / later_s:,.1f} positions/s, "
                f"{sum(nodes[1:]) / later_s:,.0f} nodes/s"
            )
        parts.append(first)
    parts.append(f"{jax.default_backend()}, {devices} device{'s' if devices > 1 else ''}")
    return "; ".join(parts)
