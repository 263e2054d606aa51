"""The ``jaxgames`` command.

    jaxgames games                                   list the games
    jaxgames show GAME [POSITION]                    print a position, its moves and values
    jaxgames perft GAME [POSITION] DEPTH             count move sequences per ply
    jaxgames rollout GAME [FILE|-] --playouts N      random playouts from positions
    jaxgames solve GAME [POSITION]                   exact value and optimal moves
    jaxgames evaluate GAME [FILE|-] --out FILE       search many positions, one row each
    jaxgames bench [--quick] [--games ...]           kernel throughput per backend, vs peers

GAME is a name or a spec with parameters (``connect4:width=5,height=4``). Every argument is
checked before work starts; bad input gets one line on stderr naming what and where, and
exit status 2, and leaves any existing output as it was. When a positions file has bad
lines, they are reported and the good ones processed (exit status 1), unless ``--strict``.
Long jobs show their progress on a terminal (``--quiet``: not at all).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from jaxgames import progress
from jaxgames.capabilities import Enumeration, Hashing, Scoring, SolutionSummary
from jaxgames.compilation import use_persistent_cache
from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels.cpu import wide_vectors
from jaxgames.kernels.sharding import split_cpu
from jaxgames.positions import BadLine, check_file, read_lines, read_positions
from jaxgames.registry import game_class, list_games, make
from jaxgames.search.levels import TooLarge

DEFAULT_DEPTH = 4
DEFAULT_PLAYOUTS = 1000
DEFAULT_MAX_NODES = 50_000_000


class UsageError(Exception):
    """Bad command-line usage: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """Errors in one line, no usage dump; ``formats=True`` appends every game's position
    notations to the help (built only when help is asked for)."""

    def __init__(self, *args: Any, formats: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self.formats = formats

    def error(self, message: str) -> None:
        raise UsageError(message)

    def format_help(self) -> str:
        text = super().format_help()
        return text + "\n" + formats_help() if self.formats else text


def formats_help() -> str:
    """Every game's position notations, each with an example (for ``--help``)."""
    lines = ["position formats (a positions file: one a line, a label may follow):"]
    for name in list_games():
        formats = game_class(name).position_formats
        for i, (what, example) in enumerate(formats):
            lines.append(f"  {name if i == 0 else '':<17}{what}")
            lines.append(f"  {'':<19}e.g. {example}")
    return "\n".join(lines) + "\n"


def _state(game: Game, position: str | None) -> Any:
    if position is None or position in ("-", "start"):
        return game.init()
    return game.parse(position)


def _is_start(position: str | None) -> bool:
    return position is None or position in ("-", "start")


def _position(game: Game, position: str | None) -> Any:
    """:func:`_state` for ``perft``: the start as one jitted ``init`` (one program, kept by
    the compilation cache) instead of its operations compiled one by one."""
    if _is_start(position):
        import jax

        return jax.jit(game.init)()
    return game.parse(position)


def _mover(game: Game, state: Any) -> int:
    player = int(game.player(state))
    return player if 0 <= player < game.num_players and not bool(game.terminal(state)) else 0


def _player_name(game: Game, player: int) -> str:
    return "chance" if player == CHANCE else f"player {player}"


def _fmt_vector(v: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(x) + 0.0:.4g}" for x in v) + "]"  # + 0.0: no "-0"


def _positive(value: int, flag: str, verb: str, least: int = 1) -> int:
    if value < least:
        raise UsageError(f"{verb}: {flag} must be >= {least}, got {value}")
    return value


# ---------------------------------------------------------------- commands
def cmd_games(args: argparse.Namespace) -> int:
    width = max(len(name) for name in list_games()) + 2
    print(f"{'game':<{width}}{'players':>7} {'actions':>8} {'chance':>6}  description")
    for name in list_games():
        game = make(name)
        doc = (type(game).__doc__ or "").strip().splitlines()[0].replace("``", "")
        print(
            f"{name:<{width}}{game.num_players:>7} {game.num_actions:>8,} "
            f"{game.num_chance_outcomes:>6}  {doc}"
        )
    return 0


def _show_values(game: Game) -> Any:
    """One jitted function computing everything ``show`` prints of a state (``None``: the
    start, built inside): the state, then the player, the terminal test, the legal mask,
    the chance probabilities (games with chance), the utility, EVAL and the hash (games
    with :class:`~jaxgames.capabilities.Hashing`). One program to compile, kept by the
    persistent compilation cache, instead of a small compilation for every operation of
    every function run eagerly."""
    import jax

    def values(state: Any) -> tuple[Any, dict[str, Any]]:
        if state is None:
            state = game.init()
        out = {
            "player": game.player(state),
            "terminal": game.terminal(state),
            "legal": game.legal_mask(state),
            "utility": game.utility(state),
            "eval": game.evaluate(state),
        }
        if game.num_chance_outcomes:
            out["chance"] = game.chance_probs(state)
        if isinstance(game, Hashing):
            out["hash"] = game.hash(state)
        return state, out

    return jax.jit(values)


def cmd_show(args: argparse.Namespace) -> int:
    import jax

    game = make(args.game)
    parsed = None if _is_start(args.position) else game.parse(args.position)
    state, values = _show_values(game)(parsed)  # parsed None: the start, built inside
    values = jax.device_get(values)  # one transfer
    print(game.format(state))
    terminal = bool(values["terminal"])
    player = int(values["player"])
    print(f"to move:  {'nobody (game over)' if terminal else _player_name(game, player)}")
    if player == CHANCE and not terminal:  # the outcomes and their probabilities
        probs = np.asarray(values["chance"])
        moves = " ".join(
            f"{game.action_to_string(state, int(r))}:{probs[r]:.4g}" for r in np.flatnonzero(probs)
        )
        print(f"outcomes: {moves}")
    else:
        legal = np.flatnonzero(np.asarray(values["legal"]))
        names = [game.action_to_string(state, int(a)) for a in legal]
        moves = (", " if any(" " in n for n in names) else " ").join(names)  # "8/5 6/5"
        print(f"moves:    {moves if moves else '(none)'}")
    if terminal:
        print(f"utility:  {_fmt_vector(np.asarray(values['utility']))}")
    print(f"eval:     {_fmt_vector(np.asarray(values['eval']))}")
    if "hash" in values:
        key = np.asarray(values["hash"]).astype(np.uint64)
        print(f"hash:     {int(key[0]) << 32 | int(key[1]):016x}")
    if args.position is None:  # what else `show` reads
        print("formats:")
        for what, example in game.position_formats:
            print(f"  {what}\n      e.g. {example}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    from jaxgames.search import perft

    game = make(args.game)
    if args.depth is None:  # `perft GAME DEPTH`: the position was the depth
        position, depth_text = None, args.position
    else:
        position, depth_text = args.position, args.depth
    try:
        depth = int(depth_text)
    except (TypeError, ValueError):
        raise UsageError(f"perft: depth must be a whole number, got {depth_text!r}") from None
    _positive(depth, "depth", "perft")
    state = _position(game, position)
    with progress.status_line(_shown(args)):
        result = perft(game, state, depth)
    plies = len(result.counts)
    while plies and result.counts[plies - 1] == 0:  # the game is over everywhere by then
        plies -= 1
    print(f"{'ply':>4} {'sequences':>16}")
    for ply, count in enumerate(result.counts[:plies], start=1):
        print(f"{ply:>4} {count:>16,}")
    if plies < depth:
        print(f"every game has ended by ply {plies}: no sequence is longer")
    total = sum(result.counts)
    print(f"{total:,} sequences in {result.time_s:.2f} s ({total / result.time_s:,.0f}/s)")
    return 0


def cmd_rollout(args: argparse.Namespace) -> int:
    import jax

    from jaxgames.bulk.output import check_writable, write_atomically
    from jaxgames.kernels import playout_means, stack

    game = make(args.game)
    _positive(args.playouts, "--playouts", "rollout")
    if args.max_steps is not None:
        _positive(args.max_steps, "--max-steps", "rollout")
    if args.out:
        check_writable(args.out)
    check_file(args.file)
    bad: list[BadLine] = []
    positions = list(read_positions(game, args.file, strict=args.strict, bad=bad))
    if not positions:
        raise GameError(_nothing_valid("rollout: no valid positions to play from", bad))
    _report_bad(bad)
    states = stack([p.state for p in positions])
    with progress.status_line(_shown(args)):
        result = playout_means(
            game, states, args.playouts, jax.random.key(args.seed), args.max_steps
        )
    rows = []
    for i, pos in enumerate(positions):
        mover = _mover(game, pos.state)
        rows.append(
            {
                "position": pos.text,
                "label": pos.label,
                "to_move": mover,
                "value": float(result.mean_utility[i, mover]),
                "mean_utility": [float(x) for x in result.mean_utility[i]],
                "mean_length": float(result.mean_length[i]),
                "playouts": args.playouts,
            }
        )
    if args.out:
        write_atomically(args.out, "".join(json.dumps(r) + "\n" for r in rows))
    width = min(max(len(r["position"]) for r in rows), 44)
    print(f"{'position':<{width}} {'to move':>7} {'value':>8} {'length':>7}")
    for r in rows:
        text = r["position"] if len(r["position"]) <= width else r["position"][: width - 1] + "…"
        print(f"{text:<{width}} {r['to_move']:>7} {r['value']:>8.4f} {r['mean_length']:>7.2f}")
    total_playouts = len(positions) * args.playouts
    seconds = max(result.run_s, 1e-9)
    print(
        f"{total_playouts:,} playouts, {result.total_length:,} moves in {result.run_s:.3f} s: "
        f"{total_playouts / seconds:,.0f} playouts/s, {result.total_length / seconds:,.0f} "
        f"moves/s (compilation {result.compile_s:.2f} s; backend: {jax.default_backend()})"
    )
    if result.truncated:
        print(f"{result.truncated:,} playouts stopped at --max-steps and were scored by EVAL")
    return 1 if bad else 0


def cmd_solve(args: argparse.Namespace) -> int:
    from jaxgames.search import solve

    game = make(args.game)
    _positive(args.max_nodes, "--max-nodes", "solve")
    state = _state(game, args.position)
    if isinstance(game, Enumeration) and game.num_states:  # value iteration, cycles and all
        return _solve_by_value_iteration(game, state, args)
    try:
        with progress.status_line(_shown(args)):
            result = solve(game, state, max_nodes=args.max_nodes)
    except TooLarge as err:
        raise GameError(
            f"solve: {game.spec} has more than --max-nodes {err.limit:,} distinct positions "
            f"by ply {err.ply}; raise --max-nodes (memory grows with it)"
        ) from None
    mover = _mover(game, state)
    value = float(result.value[mover]) + 0.0
    vector = _fmt_vector(result.value)
    print(f"value:    {value:+.4g} for {_player_name(game, mover)} (vector {vector})")
    if isinstance(game, Scoring):
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


def _solve_by_value_iteration(game: Game, state: Any, args: argparse.Namespace) -> int:
    """``solve`` for games that enumerate their states: value iteration over all of them."""
    from jaxgames.search import value_iteration

    if game.num_states > args.max_nodes:
        raise GameError(
            f"solve: {game.spec} has {game.num_states:,} states, more than --max-nodes "
            f"{args.max_nodes:,}; raise --max-nodes"
        )
    with progress.status_line(_shown(args)), progress.phase("value iteration"):
        result = value_iteration(game)
    mover = _mover(game, state)
    vector = result.value(state)
    print(f"value:    {float(vector[mover]) + 0.0:+.8f} for {_player_name(game, mover)}")
    best = result.best_action(state)
    where = "game over" if bool(game.terminal(state)) else "chance node"
    print(f"optimal:  {game.action_to_string(state, best) if best >= 0 else f'(none: {where})'}")
    if isinstance(game, SolutionSummary):
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

MEMORY_SHARE = 0.25
"""The share of this machine's memory one chunk's roots may take (``--chunk`` is refused
beyond it)."""


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


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
    from jaxgames.bulk.output import RowWriter, check_writable, choose_format, read_existing
    from jaxgames.kernels.playout import state_bytes

    _positive(args.depth, "--depth", "evaluate", least=0)
    if args.chunk is not None:
        _positive(args.chunk, "--chunk", "evaluate")
    if args.distributed and not args.out:
        raise UsageError("evaluate: --distributed needs --out (process K writes OUT.partK)")
    if args.cpu_devices is not None:
        _positive(args.cpu_devices, "--cpu-devices", "evaluate")
    fmt = choose_format(args.format, args.out)
    # one CPU device per core, before JAX starts: the batch search is sharded over the
    # local devices, so each core runs its own share (one device keeps to about one core);
    # and 512-bit vectors where the CPU has them
    split_cpu(args.cpu_devices)
    wide_vectors()
    # joining the multi-process runtime must come before anything else touches JAX
    index, count = bulk.initialize_distributed() if args.distributed else (0, 1)
    game = make(args.game)
    chunk_size = args.chunk or bulk.DEFAULT_CHUNK_SIZE
    held = chunk_size * state_bytes(game) * 4  # roots, padded, sharded and frames' copies
    if held > MEMORY_SHARE * _memory_bytes():
        raise UsageError(
            f"evaluate: --chunk {chunk_size:,} would hold about {held / 2**30:,.1f} GiB of "
            f"{game.spec} positions at once; use a smaller --chunk"
        )
    if args.algo == "auto":
        args.algo = bulk.default_algorithm(game)
    cols = bulk.columns(game)

    # the input first: readable, text, and with --strict every line a position
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
    bad_reported = 0
    if index == 0 and total != 0:  # with nothing to evaluate, the final error says it all
        _report_bad(bad)  # bad lines found so far (all of them, when distributed)
        bad_reported = len(bad)

    # then the output: writable, and what it holds belongs to this run
    done: list[dict[str, Any]] = []
    keep = 0
    if out_path:
        check_writable(out_path)
        done, keep = read_existing(out_path, fmt, cols)
        _check_resume(out_path, done, positions, args)
    writer = RowWriter(out_path, fmt, cols, keep=keep, legend=_legend(game))
    kill_after = int(os.environ.get(KILL_AFTER_CHUNKS, "0") or 0)
    seconds: list[float] = []
    sizes: list[int] = []
    nodes: list[int] = []
    left = None if total is None else max(total - len(done), 0)
    try:
        with progress.status_line(_shown(args)):
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
        raise GameError(_nothing_valid("evaluate: no valid positions to evaluate", bad))
    if index == 0:
        _report_bad(bad[bad_reported:])
    who = f"process {index} of {count}: " if args.distributed else ""
    summary = _evaluate_summary(seconds, sizes, nodes, len(done), out_path)
    print(f"jaxgames: {who}{summary}", file=sys.stderr)
    return 1 if bad else 0


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

    if args.out:
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            raise UsageError(f"bench: --out {args.out} is a file; give a directory")
        parent = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(parent):
            raise UsageError(f"bench: --out {args.out}: the folder {parent} does not exist")
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
    with progress.status_line(_shown(args)):
        result = bench.run(config)
    return 1 if result["skipped"] else 0


def _nothing_valid(message: str, bad: list[BadLine]) -> str:
    """The one line of a run that found no position: how many lines were skipped, and why the
    first was (the per-line reports would make it several lines)."""
    if not bad:
        return message
    count = f"{len(bad)} line{'s' if len(bad) > 1 else ''} skipped"
    return f"{message} ({count}; {bad[0].source}: {bad[0].message})"


def _report_bad(bad: list[BadLine]) -> None:
    for line in bad:
        print(f"jaxgames: skipped {line.source}: {line.message}", file=sys.stderr)


def _shown(args: argparse.Namespace) -> bool:
    """Progress goes to stderr when it is a terminal, unless ``--quiet``."""
    return not args.quiet and sys.stderr.isatty()


# ---------------------------------------------------------------- entry point
GAME_HELP = "a game name or spec with parameters, e.g. connect4 or connect4:width=5,height=4"
FILE_HELP = (
    "positions, one a line, each optionally followed by a label (see the formats below); "
    "'-' reads stdin; none: the game's built-in sample"
)


def build_parser() -> argparse.ArgumentParser:
    from jaxgames import __version__

    quiet = argparse.ArgumentParser(add_help=False)
    quiet.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    parser = _Parser(
        prog="jaxgames",
        description="Batched game-tree evaluation in JAX.",
        epilog="Run 'jaxgames COMMAND --help' for a command's options and the position formats.",
    )
    parser.add_argument("--version", action="version", version=f"jaxgames {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    def command(name: str, help: str, formats: bool = True) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, parents=[quiet], formats=formats)

    p = command("games", "list the games and their facts", formats=False)
    p.set_defaults(run=cmd_games)

    p = command("show", "print a position, its legal moves, EVAL and hash")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("position", nargs="?", help="a position (default: the start)")
    p.set_defaults(run=cmd_show)

    p = command("perft", "count the move sequences of each length from a position")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument(
        "position", help="a position (default: the start), or the depth when only one is given"
    )
    p.add_argument("depth", nargs="?", help="the longest sequences counted (>= 1)")
    p.set_defaults(run=cmd_perft)

    p = command("rollout", "mean outcome of random playouts from each position")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("file", nargs="?", help=FILE_HELP)
    p.add_argument(
        "--playouts",
        type=int,
        default=DEFAULT_PLAYOUTS,
        help="playouts per position, any number: they run in rounds that fit in memory "
        "(default: %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help="stop a playout after this many steps and score it by EVAL (default: the "
        "game's length limit)",
    )
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.add_argument("--out", help="also write one JSON row per position to this file")
    p.set_defaults(run=cmd_rollout)

    p = command("solve", "exact value and every optimal move (full search, or value iteration)")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("position", nargs="?", help="a position (default: the start)")
    p.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        help="refuse to hold more distinct positions than this (default: %(default)s)",
    )
    p.set_defaults(run=cmd_solve)

    from jaxgames.bulk import ALGORITHMS, DEFAULT_CHUNK_SIZE

    p = command("evaluate", "search many positions, one output row each")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("file", nargs="?", help=FILE_HELP)
    p.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_DEPTH,
        help="plies searched below each position; more than the game can still last costs "
        "nothing extra (default: %(default)s)",
    )
    p.add_argument(
        "--algo",
        choices=["auto", *sorted(ALGORITHMS)],
        default="auto",
        help="search (default: %(default)s: expectiminimax with chance nodes, else alpha-beta "
        "for two players, maxn otherwise)",
    )
    p.add_argument("--out", help="write rows to this file (resumes what is there; default: stdout)")
    p.add_argument(
        "--format",
        choices=["jsonl", "csv", "table"],
        help="default: a table on stdout; with --out, csv for *.csv, else jsonl",
    )
    p.add_argument(
        "--chunk",
        type=int,
        default=None,
        help=f"positions per batch search (default: {DEFAULT_CHUNK_SIZE})",
    )
    p.add_argument(
        "--strict", action="store_true", help="check every line first; stop at the first bad one"
    )
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

    p = command("bench", "kernel throughput per game, backend and batch, vs peers", False)
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
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the positions' random play (default: 0)"
    )
    p.add_argument("--no-peers", action="store_true", help="skip pgx, OpenSpiel, python-chess")
    p.add_argument(
        "--out", help="directory for the JSON and PNG files (default: benchmarks/results)"
    )
    p.set_defaults(run=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:  # bare `jaxgames`: what it can do
            parser.print_help()
            return 0
        args.argv = argv
        if args.command != "bench":  # bench times compilation itself, not loads from a cache
            use_persistent_cache()  # before the first compilation: programs compiled once
        return int(args.run(args))
    except (UsageError, GameError, TooLarge, ValueError, OverflowError) as err:
        if os.environ.get("JAXGAMES_DEBUG"):
            raise
        message = " ".join(str(err).split()) or type(err).__name__  # one line
        print(f"jaxgames: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # stdout closed early (`jaxgames evaluate ... | head`): quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as err:  # the disk filled up, a file vanished mid-run
        where = f"{err.filename}: " if err.filename else ""
        print(f"jaxgames: error: {where}{err.strerror or err}", file=sys.stderr)
        return 2
    except SystemExit as done:  # --help and --version
        return done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt:
        print("jaxgames: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
