"""The ``jaxgames`` command's arguments: one parser per verb, and the help texts."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from jaxgames.cli.common import UsageError
from jaxgames.cli.evaluate import cmd_evaluate
from jaxgames.cli.verbs import cmd_bench, cmd_games, cmd_perft, cmd_rollout, cmd_show, cmd_solve
from jaxgames.progress import DISPLAYS
from jaxgames.registry import game_class, list_games

DEFAULT_DEPTH = 4
DEFAULT_PLAYOUTS = 1000
DEFAULT_MAX_NODES = 50_000_000


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


GAME_HELP = "a game name or spec with parameters, e.g. connect4 or connect4:width=5,height=4"
FILE_HELP = (
    "positions, one a line, each optionally followed by a label (see the formats below); "
    "'-' reads stdin; none: the game's built-in sample"
)


Command = Callable[..., argparse.ArgumentParser]
"""``command(name, help, formats=True)``: a verb's parser, added to the command's."""


def build_parser() -> argparse.ArgumentParser:
    """The command's parser: the verbs, each running its ``cmd_*`` function (``args.run``)."""
    from jaxgames import __version__

    quiet = argparse.ArgumentParser(add_help=False)
    quiet.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    quiet.add_argument(
        "--progress",
        choices=DISPLAYS,
        default="auto",
        help="progress on stderr: a status line on a terminal (auto), always (line), one"
        " timed line per phase for logs (log), or none (off)",
    )
    parser = _Parser(
        prog="jaxgames",
        description="Batched game-tree evaluation in JAX.",
        epilog="Run 'jaxgames COMMAND --help' for a command's options and the position formats.",
    )
    parser.add_argument("--version", action="version", version=f"jaxgames {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    def command(name: str, help: str, formats: bool = True) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, parents=[quiet], formats=formats)

    _add_position_verbs(command)
    _add_rollout(command)
    _add_solve(command)
    _add_evaluate(command)
    _add_bench(command)
    add_match(command)
    add_gtp(command)
    add_tables(command)
    add_train(command)
    return parser


def add_match(command: Command) -> None:
    from jaxgames.cli.match import add_match as add

    add(command)


def add_tables(command: Command) -> None:
    from jaxgames.cli.tables import add_tables as add

    add(command)


def add_train(command: Command) -> None:
    from jaxgames.cli.train import add_train as add

    add(command)


def add_gtp(command: Command) -> None:
    from jaxgames.cli.gtp import add_gtp as add

    add(command)


def _add_position_verbs(command: Command) -> None:
    """``games``, ``show`` and ``perft``."""
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
    p.add_argument(
        "--turns",
        action="store_true",
        help="count whole turns: a player's steps until another is to move (a checkers "
        "multi-jump is one move, as published perft tables count it)",
    )
    p.set_defaults(run=cmd_perft)


def _add_rollout(command: Command) -> None:
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


def _add_solve(command: Command) -> None:
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


def _add_evaluate(command: Command) -> None:
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


def _add_bench(command: Command) -> None:
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
