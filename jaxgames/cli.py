"""The ``jaxgames`` command.

    jaxgames games                                   list the games
    jaxgames show GAME POSITION                      print a position, its moves and values
    jaxgames perft GAME [POSITION] DEPTH             count move sequences per ply
    jaxgames rollout GAME [FILE|-] --playouts N      random playouts from positions
    jaxgames solve GAME [POSITION]                   exact value and optimal moves
    jaxgames evaluate GAME [FILE|-] --out FILE       search many positions, one row each
    jaxgames bench [--quick] [--games ...]           kernel throughput per backend, vs peers

GAME is a name or a spec with parameters (``connect4:width=5,height=4``). Bad input gets
one line on stderr naming what and where, and exit status 2. When a positions file has bad
lines, they are reported and the good ones processed (exit status 1), unless ``--strict``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels.cpu import wide_vectors
from jaxgames.kernels.sharding import split_cpu
from jaxgames.positions import BadLine, read_positions
from jaxgames.registry import list_games, make
from jaxgames.search.levels import TooLarge


class UsageError(Exception):
    """Bad command-line usage: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def _game(spec: str) -> Game:
    return make(spec)


def _state(game: Game, position: str | None) -> Any:
    if position is None or position in ("-", "start"):
        return game.init()
    return game.parse(position)


def _mover(game: Game, state: Any) -> int:
    player = int(game.player(state))
    return player if 0 <= player < game.num_players and not bool(game.terminal(state)) else 0


def _player_name(game: Game, player: int) -> str:
    return "chance" if player == CHANCE else f"player {player}"


def _fmt_vector(v: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(x) + 0.0:.4g}" for x in v) + "]"  # + 0.0: no "-0"


# ---------------------------------------------------------------- commands
def cmd_games(args: argparse.Namespace) -> int:
    print(f"{'game':<14} {'players':>7} {'actions':>7} {'chance':>6}  description")
    for name in list_games():
        game = make(name)
        doc = (type(game).__doc__ or "").strip().splitlines()[0].replace("``", "")
        print(
            f"{name:<14} {game.num_players:>7} {game.num_actions:>7} "
            f"{game.num_chance_outcomes:>6}  {doc}"
        )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    game = _game(args.game)
    state = _state(game, args.position)
    print(game.format(state))
    terminal = bool(game.terminal(state))
    player = int(game.player(state))
    print(f"to move:  {'nobody (game over)' if terminal else _player_name(game, player)}")
    if player == CHANCE and not terminal:  # the outcomes and their probabilities
        probs = np.asarray(game.chance_probs(state))
        moves = " ".join(
            f"{game.action_to_string(state, int(r))}:{probs[r]:.4g}" for r in np.flatnonzero(probs)
        )
        print(f"outcomes: {moves}")
    else:
        legal = np.flatnonzero(np.asarray(game.legal_mask(state)))
        names = [game.action_to_string(state, int(a)) for a in legal]
        moves = (", " if any(" " in n for n in names) else " ").join(names)  # "8/5 6/5"
        print(f"moves:    {moves if moves else '(none)'}")
    if terminal:
        print(f"utility:  {_fmt_vector(np.asarray(game.utility(state)))}")
    print(f"eval:     {_fmt_vector(np.asarray(game.evaluate(state)))}")
    if game.has_hash:
        key = np.asarray(game.hash(state)).astype(np.uint64)
        print(f"hash:     {int(key[0]) << 32 | int(key[1]):016x}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    from jaxgames.search import perft

    game = _game(args.game)
    if args.depth is None:  # `perft GAME DEPTH`: the position was the depth
        position, depth_text = None, args.position
    else:
        position, depth_text = args.position, args.depth
    try:
        depth = int(depth_text)
    except (TypeError, ValueError):
        raise UsageError(f"perft: depth must be a whole number, got {depth_text!r}") from None
    if depth < 1:
        raise UsageError(f"perft: depth must be >= 1, got {depth}")
    state = _state(game, position)
    result = perft(game, state, depth)
    print(f"{'ply':>4} {'sequences':>16}")
    for ply, count in enumerate(result.counts, start=1):
        print(f"{ply:>4} {count:>16,}")
    total = sum(result.counts)
    print(f"{total:,} sequences in {result.time_s:.2f} s ({total / result.time_s:,.0f}/s)")
    return 0


def cmd_rollout(args: argparse.Namespace) -> int:
    import jax

    from jaxgames.kernels import playouts, stack

    game = _game(args.game)
    if args.playouts < 1:
        raise UsageError(f"rollout: --playouts must be >= 1, got {args.playouts}")
    bad: list[BadLine] = []
    positions = list(read_positions(game, args.file, strict=args.strict, bad=bad))
    _report_bad(bad)
    if not positions:
        raise GameError("rollout: no valid positions to play from")
    states = stack([p.state for p in positions])
    key = jax.random.key(args.seed)
    t0 = time.perf_counter()
    result = jax.block_until_ready(playouts(game, states, args.playouts, key, args.max_steps))
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = jax.block_until_ready(
        playouts(game, states, args.playouts, jax.random.fold_in(key, 1), args.max_steps)
    )
    steady = time.perf_counter() - t0
    mean_utility = np.asarray(result.mean_utility)
    mean_length = np.asarray(result.mean_length)
    rows = []
    for i, pos in enumerate(positions):
        mover = _mover(game, pos.state)
        rows.append(
            {
                "position": pos.text,
                "to_move": mover,
                "value": float(mean_utility[i, mover]),
                "mean_utility": [float(x) for x in mean_utility[i]],
                "mean_length": float(mean_length[i]),
                "playouts": args.playouts,
            }
        )
    width = min(max(len(r["position"]) for r in rows), 44)
    print(f"{'position':<{width}} {'to move':>7} {'value':>8} {'length':>7}")
    for r in rows:
        text = r["position"] if len(r["position"]) <= width else r["position"][: width - 1] + "…"
        print(f"{text:<{width}} {r['to_move']:>7} {r['value']:>8.4f} {r['mean_length']:>7.2f}")
    total_playouts = len(positions) * args.playouts
    total_moves = int(np.asarray(result.lengths).sum())
    print(
        f"{total_playouts:,} playouts, {total_moves:,} moves in {steady:.3f} s: "
        f"{total_playouts / steady:,.0f} playouts/s, {total_moves / steady:,.0f} moves/s "
        f"(first call with compilation: {first:.2f} s; backend: {jax.default_backend()})"
    )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            for r in rows:
                out.write(json.dumps(r) + "\n")
    return 1 if bad else 0


def cmd_solve(args: argparse.Namespace) -> int:
    from jaxgames.search import solve

    game = _game(args.game)
    state = _state(game, args.position)
    if game.num_states:  # the game enumerates its states: value iteration, cycles and all
        return _solve_by_value_iteration(game, state, args.max_nodes)
    result = solve(game, state, max_nodes=args.max_nodes)
    mover = _mover(game, state)
    value = float(result.value[mover]) + 0.0
    vector = _fmt_vector(result.value)
    print(f"value:    {value:+.4g} for {_player_name(game, mover)} (vector {vector})")
    if hasattr(game, "score_from_value"):
        print(f"score:    {game.score_from_value(value):+d}")
    names, s = [], state
    for action in result.pv:
        names.append(game.action_to_string(s, action))
        s = game.step(s, action)
    optimal = [game.action_to_string(state, a) for a in result.optimal_actions(mover)]
    print(f"optimal:  {' '.join(optimal) if optimal else '(none: game over)'}")
    print(f"pv:       {' '.join(names) if names else '(empty)'}")
    stats = result.stats
    print(f"nodes:    {stats['nodes']:,} distinct positions in {stats['time_s']:.2f} s")
    return 0


def _solve_by_value_iteration(game: Game, state: Any, max_nodes: int) -> int:
    """``solve`` for games that enumerate their states: value iteration over all of them."""
    from jaxgames.search import value_iteration

    if game.num_states > max_nodes:
        raise TooLarge(
            f"solve: {game.spec} has {game.num_states:,} states, more than --max-nodes "
            f"{max_nodes:,}"
        )
    result = value_iteration(game)
    mover = _mover(game, state)
    vector = result.value(state)
    print(f"value:    {float(vector[mover]) + 0.0:+.8f} for {_player_name(game, mover)}")
    best = result.best_action(state)
    where = "game over" if bool(game.terminal(state)) else "chance node"
    print(f"optimal:  {game.action_to_string(state, best) if best >= 0 else f'(none: {where})'}")
    if hasattr(game, "solution_summary"):
        for line in game.solution_summary(result):
            print(line)
    print(
        f"solved:   {game.num_states:,} states by value iteration: {result.sweeps} sweeps, "
        f"residual {result.residual:.1e}{'' if result.converged else ' (not converged)'}, "
        f"{result.time_s:.2f} s"
    )
    return 0


# ---------------------------------------------------------------- evaluate
KILL_AFTER_CHUNKS = "JAXGAMES_TEST_KILL_AFTER_CHUNKS"
"""Test hook: the process SIGKILLs itself right after flushing this many chunks."""


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Search positions in chunks and write one row per position, resuming a killed run.

    Rows go to ``--out`` (JSONL, or CSV with ``--format csv`` or an ``.csv`` name) or to
    stdout, in input order, flushed after every chunk. Re-running with the same ``--out``
    keeps its complete rows (a partial last line is cut off), checks that they are the first
    positions of this input, and goes on after them. The summary line goes to stderr, and a
    progress bar too when stderr is a terminal. With ``--distributed`` every process of a JAX
    multi-process run takes its contiguous slice of the positions and writes ``OUT.partK``.
    """
    from jaxgames import bulk

    if args.depth < 0:
        raise UsageError(f"evaluate: --depth must be >= 0, got {args.depth}")
    if args.chunk is not None and args.chunk < 1:
        raise UsageError(f"evaluate: --chunk must be >= 1, got {args.chunk}")
    if args.distributed and not args.out:
        raise UsageError("evaluate: --distributed needs --out (process K writes OUT.partK)")
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise UsageError(f"evaluate: --cpu-devices must be >= 1, got {args.cpu_devices}")
    # one CPU device per core, before JAX starts: the batch search is sharded over the
    # local devices, so each core runs its own share (one device keeps to about one core);
    # and 512-bit vectors where the CPU has them
    split_cpu(args.cpu_devices)
    wide_vectors()
    # joining the multi-process runtime must come before anything else touches JAX
    index, count = bulk.initialize_distributed() if args.distributed else (0, 1)
    game = _game(args.game)
    fmt = args.format or (
        ("csv" if args.out.lower().endswith(".csv") else "jsonl") if args.out else "table"
    )
    if fmt == "table" and args.out:
        raise UsageError("evaluate: --format table is for the terminal; use jsonl or csv")
    if args.algo == "auto":
        args.algo = bulk.default_algorithm(game)
    bulk.batch_search(args.algo)  # an unknown algorithm fails before any output is touched
    cols = bulk.columns(game)
    chunk_size = args.chunk or bulk.DEFAULT_CHUNK_SIZE

    bad: list[BadLine] = []
    positions: Any = read_positions(game, args.file, strict=args.strict, bad=bad)
    total = _count_positions(game, args.file) if sys.stderr.isatty() else None  # for the bar
    out_path = args.out
    if args.distributed:
        texts = bulk.process_slice([p.text for p in positions], index, count)
        positions, total = iter(texts), len(texts)
        out_path = bulk.part_path(args.out, index, count)
    if index == 0:
        _report_bad(bad)  # bad lines found so far (all of them, when distributed)
    bad_reported = len(bad)

    done: list[dict[str, Any]] = []
    has_header = False
    created = bool(out_path) and not os.path.exists(out_path)
    if out_path:
        done, has_header = _existing_rows(out_path, fmt, cols)
        _check_resume(out_path, done, positions, args)
    out: Any = sys.stdout
    if out_path:
        out = open(out_path, "a", encoding="utf-8", newline="")  # noqa: SIM115 (closed below)
    try:
        writer = csv.DictWriter(out, fieldnames=cols, lineterminator="\n") if fmt == "csv" else None
        if writer is not None and not has_header:
            writer.writeheader()
            out.flush()
        if fmt == "table":
            out.write(_table_line({c: c for c in cols}, cols) + "\n")
        progress = _Progress(None if total is None else max(total - len(done), 0))
        kill_after = int(os.environ.get(KILL_AFTER_CHUNKS, "0") or 0)
        chunks = bulk.iter_chunks(game, positions, args.algo, args.depth, chunk_size)
        seconds: list[float] = []
        sizes: list[int] = []
        nodes: list[int] = []
        for chunk in chunks:
            for row in chunk.rows:
                if writer is not None:
                    writer.writerow(row)
                elif fmt == "table":
                    out.write(_table_line(row, cols) + "\n")
                else:
                    out.write(json.dumps(row) + "\n")
            out.flush()
            seconds.append(chunk.seconds)
            sizes.append(len(chunk.rows))
            nodes.append(chunk.nodes)
            if kill_after and len(seconds) == kill_after:
                os.kill(os.getpid(), signal.SIGKILL)
            progress.update(sum(sizes), sum(seconds))
        progress.close()
    finally:
        if out is not sys.stdout:
            out.close()
    if index == 0:
        _report_bad(bad[bad_reported:])
    if not sizes and not done:
        if created:
            os.remove(out_path)  # leave no empty file behind
        raise GameError("evaluate: no valid positions to evaluate")
    who = f"process {index} of {count}: " if args.distributed else ""
    summary = _evaluate_summary(seconds, sizes, nodes, len(done), out_path)
    print(f"jaxgames: {who}{summary}", file=sys.stderr)
    return 1 if bad else 0


_TABLE_WIDTHS = {"position": 38, "to_move": 7, "value": 8, "score": 5, "best_move": 9, "nodes": 8}


def _table_line(row: dict[str, Any], cols: list[str]) -> str:
    """One aligned line of the terminal table (numbers right-aligned, text cut to width)."""
    cells = []
    for col in [c for c in cols if c != "pv"] + ["pv"]:  # the PV, of any length, goes last
        if col in ("depth", "algorithm"):
            continue
        value = row[col]
        if isinstance(value, float):
            value = f"{value:+.4f}"
        text = str(value)
        width = _TABLE_WIDTHS.get(col)
        if width is None:  # the PV takes what it needs
            cells.append(text)
            continue
        if len(text) > width:
            text = text[: width - 1] + "…"
        cells.append(text.ljust(width) if col == "position" else text.rjust(width))
    return " ".join(cells)


def _count_positions(game: Game, path: str | None) -> int | None:
    """Lines that may hold a position (for the progress bar); None when unknown (stdin)."""
    if path is None:
        return len(game.sample_positions())
    if path == "-":
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return sum(1 for line in f if line.strip() and not line.lstrip().startswith("#"))
    except OSError:
        return None  # read_positions reports it


def _existing_rows(path: str, fmt: str, cols: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """The complete rows already in ``path``, and whether it starts with the CSV header.

    A last line without its newline (left by a run killed while writing) is cut off.
    """
    if not os.path.exists(path):
        return [], False
    rows: list[dict[str, Any]] = []
    has_header, keep = False, 0
    foreign = f"{path}: not an output of `jaxgames evaluate --format {fmt}`"
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                break  # the partial line of a killed run
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
                if fmt == "csv":
                    fields = next(csv.reader([line]))
                    if number == 1:
                        if fields != cols:
                            raise ValueError
                        has_header = True
                    elif len(fields) == len(cols):
                        rows.append(dict(zip(cols, fields, strict=True)))
                    else:
                        raise ValueError
                else:
                    row = json.loads(line)
                    if not isinstance(row, dict) or not isinstance(row.get("position"), str):
                        raise ValueError
                    rows.append(row)
            except (ValueError, StopIteration):
                raise GameError(f"{foreign} (line {number}); choose another --out") from None
            keep += len(raw)
    if keep < os.path.getsize(path):
        with open(path, "r+b") as handle:
            handle.truncate(keep)
    return rows, has_header


def _check_resume(path: str, done: list[dict[str, Any]], positions: Any, args: Any) -> None:
    """Consume the first ``len(done)`` input positions, checking they are those of ``done``."""
    for number, row in enumerate(done, start=1):
        if str(row.get("depth")) != str(args.depth) or row.get("algorithm") != args.algo:
            raise GameError(
                f"{path}: row {number} is {row.get('algorithm')} at depth {row.get('depth')}, "
                f"not {args.algo} at depth {args.depth}; choose another --out"
            )
        item = next(positions, None)
        text = item if isinstance(item, str) or item is None else item.text
        if text != row["position"]:
            raise GameError(
                f"{path}: the output file belongs to other input (row {number} is position "
                f"{row['position']!r}, input position {number} is "
                f"{'missing' if text is None else repr(text)}); choose another --out"
            )


class _Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.shown = sys.stderr.isatty()

    def update(self, done: int, seconds: float) -> None:
        if not self.shown:
            return
        rate = f"{done / seconds:,.0f} positions/s" if seconds > 0 else ""
        if self.total:
            filled = min(30, 30 * done // self.total)
            bar = f"[{'#' * filled}{'.' * (30 - filled)}] {done:,}/{self.total:,}"
        else:
            bar = f"{done:,} positions"
        sys.stderr.write(f"\r{bar}  {rate}\x1b[K")  # \x1b[K: clear the rest of the line
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


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


def cmd_bench(args: argparse.Namespace) -> int:
    """Throughput of every kernel per game, backend and batch size (:mod:`jaxgames.bench`).

    Exit status 1 when a game or a row was skipped (each reported in one line), else 0.
    """
    from jaxgames import bench

    config = bench.BenchConfig(
        quick=args.quick,
        games=args.games,
        workloads=args.workloads or bench.WORKLOADS,
        batches=args.batches,
        backends=args.backends,
        repeats=args.repeats,
        out_dir=args.out or bench.DEFAULT_OUT,
        peers=not args.no_peers,
        seed=args.seed,
        command=" ".join(["jaxgames", *args.argv]),
    )
    result = bench.run(config)
    return 1 if result["skipped"] else 0


def _report_bad(bad: list[BadLine]) -> None:
    for line in bad:
        print(f"jaxgames: skipped {line.source}: {line.message}", file=sys.stderr)


# ---------------------------------------------------------------- entry point
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jaxgames", description="Batched game-tree evaluation in JAX.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("games", help="list the games")
    p.set_defaults(run=cmd_games)

    p = sub.add_parser("show", help="print a position, its legal moves and values")
    p.add_argument("game")
    p.add_argument("position", nargs="?")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("perft", help="count move sequences per ply")
    p.add_argument("game")
    p.add_argument("position", help="a position, or the depth when no position is given")
    p.add_argument("depth", nargs="?")
    p.set_defaults(run=cmd_perft)

    p = sub.add_parser("rollout", help="random playouts from positions")
    p.add_argument("game")
    p.add_argument("file", nargs="?", help="positions, one a line ('-': stdin; none: sample)")
    p.add_argument("--playouts", type=int, default=1000, help="playouts per position")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=None, help="bound on a playout's length")
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.add_argument("--out", help="write one JSON row per position to this file")
    p.set_defaults(run=cmd_rollout)

    p = sub.add_parser(
        "solve", help="exact value and optimal moves (full search, or value iteration)"
    )
    p.add_argument("game")
    p.add_argument("position", nargs="?")
    p.add_argument("--max-nodes", type=int, default=50_000_000)
    p.set_defaults(run=cmd_solve)

    p = sub.add_parser("evaluate", help="search many positions, one output row each")
    p.add_argument("game")
    p.add_argument("file", nargs="?", help="positions, one a line ('-': stdin; none: sample)")
    p.add_argument("--depth", type=int, default=4, help="plies searched below each position")
    p.add_argument(
        "--algo",
        choices=["auto", "alphabeta", "expectiminimax", "maxn", "minimax", "paranoid"],
        default="auto",
        help="search (auto: expectiminimax with chance nodes, else alpha-beta for two "
        "players, maxn otherwise)",
    )
    p.add_argument("--out", help="write rows here (resumes what is there); default stdout")
    p.add_argument(
        "--format",
        choices=["jsonl", "csv", "table"],
        help="default: a table on stdout; with --out, csv for *.csv, else jsonl",
    )
    p.add_argument("--chunk", type=int, default=None, help="positions per batch search (1024)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.add_argument(
        "--distributed", action="store_true", help="one process of a JAX multi-process run"
    )
    p.add_argument(
        "--cpu-devices",
        type=int,
        default=None,
        help="JAX devices the CPU is split into, the batch sharded over them (default: one "
        "per core; 1: one device; an XLA_FLAGS device count wins)",
    )
    p.set_defaults(run=cmd_evaluate)

    p = sub.add_parser("bench", help="kernel throughput per game, backend and batch, vs peers")
    p.add_argument("--quick", action="store_true", help="small sizes: about a minute on 2 cores")
    p.add_argument("--games", nargs="+", help="game specs (default: every game; quick: 3)")
    p.add_argument(
        "--workloads",
        nargs="+",
        choices=["step", "playouts", "eval", "expectation", "search"],
        metavar="WORKLOAD",
        help="step, playouts, eval, expectation, search (default: all)",
    )
    p.add_argument("--batches", nargs="+", type=int, help="batch sizes (default: per workload)")
    p.add_argument("--backends", nargs="+", help="JAX platforms (default: every one present)")
    p.add_argument("--repeats", type=int, default=None, help="timed samples per row (median)")
    p.add_argument("--seed", type=int, default=0, help="seed of the positions' random play")
    p.add_argument("--no-peers", action="store_true", help="skip pgx, OpenSpiel, python-chess")
    p.add_argument("--out", help="directory for the JSON and PNG files (benchmarks/results)")
    p.set_defaults(run=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        args = build_parser().parse_args(argv)
        args.argv = argv
        return int(args.run(args))
    except (UsageError, GameError, TooLarge, ValueError) as err:
        if os.environ.get("JAXGAMES_DEBUG"):
            raise
        print(f"jaxgames: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("jaxgames: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout closed early (`jaxgames evaluate ... | head`): quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
