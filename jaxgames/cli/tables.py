"""The ``tables`` verb: build endgame tables by retrograde analysis, and probe them.

jaxgames tables build chess KRK [--dir D]     build a table (and those it needs)
jaxgames tables build checkers all            every table the game publishes
jaxgames tables probe chess FEN [--dir D]     win/draw/loss, distance to mate, best move
"""

from __future__ import annotations

import argparse
import sys

from jaxgames import progress
from jaxgames.capabilities import PositionTables
from jaxgames.cli.common import UsageError, shown
from jaxgames.game import Game
from jaxgames.registry import make

DIR_HELP = (
    "the tables' folder (default: $JAXGAMES_TABLES, else ~/.cache/jaxgames/tables; a folder "
    "per game inside)"
)
_WDL = {1: "win", 0: "draw", -1: "loss"}


def _game(spec: str, verb: str) -> Game:
    game = make(spec)
    if not isinstance(game, PositionTables):
        raise UsageError(f"tables {verb}: {game.name} has no endgame tables")
    return game


def cmd_tables_build(args: argparse.Namespace) -> int:
    from jaxgames.search.tables import build

    game = _game(args.game, "build")
    wanted = [n for m in args.material for n in (game.table_names if m == "all" else [m])]
    names = list(dict.fromkeys(game.table_name(n) for n in wanted))  # every name checked first
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    with progress.status_line(shown(args)):
        for name in names:
            report = build(game, name, args.dir, log=log)
            meta = report.meta
            how = "built" if report.built else "present"
            print(
                f"{game.name} {meta['table']}: {report.path} ({how}; {meta['wins']:,} won, "
                f"{meta['draws']:,} drawn, {meta['losses']:,} lost with the side to move; "
                f"longest win {meta['longest_win']} plies)"
            )
    return 0


def cmd_tables_probe(args: argparse.Namespace) -> int:
    from jaxgames.search.tables import NOT_FOUND, best_moves, open_tables

    game = _game(args.game, "probe")
    state = game.parse(args.position)
    tables = open_tables(game, args.dir)
    root, moves = best_moves(game, tables, state)
    if root.wdl == NOT_FOUND:
        raise UsageError(
            f"tables probe: no loaded {game.name} table holds {args.position!r} (tables in "
            f"{tables.directory}: {', '.join(tables.names)}; castling rights are never in one)"
        )
    line = f"{_WDL[root.wdl]}"
    if root.wdl != 0:
        moves_to_mate = (root.distance + 1) // 2
        line += f", mate in {root.distance} plies ({moves_to_mate} moves)"
    if moves:
        best = moves[0]
        san = game.san(state, best) if hasattr(game, "san") else game.action_to_string(state, best)
        line += f"; best move {san} ({game.action_to_string(state, best)})"
    print(line)
    return 0


def add_tables(command) -> None:
    p = command("tables", "endgame tables by retrograde analysis: build, probe", False)
    sub = p.add_subparsers(dest="tables_command", metavar="ACTION", parser_class=type(p))
    sub.required = True
    b = sub.add_parser("build", help="build tables (and the smaller ones they need)")
    b.add_argument("game", help="a game with tables, e.g. chess")
    b.add_argument(
        "material",
        nargs="+",
        help="sub-spaces, e.g. KRK KQKR (chess: by material), KKvK (checkers: Black's pieces "
        "v White's), or 'all': every table the game publishes",
    )
    b.add_argument("--dir", help=DIR_HELP)
    b.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    b.set_defaults(run=cmd_tables_build)
    q = sub.add_parser("probe", help="a position's value, distance to mate and best move")
    q.add_argument("game", help="a game with tables, e.g. chess")
    q.add_argument("position", help="a position, e.g. a FEN")
    q.add_argument("--dir", help=DIR_HELP)
    q.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    q.set_defaults(run=cmd_tables_probe)
