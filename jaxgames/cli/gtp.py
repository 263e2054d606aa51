"""The ``gtp`` verb: a Go engine on stdin/stdout, speaking GTP version 2."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Play Go through the Go Text Protocol (GTP version 2) on stdin and stdout, for a GUI (Sabaki,
GoGui, Lizzie) or a match runner (gogui-twogtp). Commands: protocol_version, name, version,
known_command, list_commands, quit, boardsize, clear_board, komi, play, genmove, undo,
final_score (Tromp-Taylor area less komi: B+3.5, W+0.5 or 0), showboard, loadsgf FILE [N],
and time_settings/time_left (accepted; the agent's budget is its simulations).

The agent's search is compiled before the engine reads its first command: at start-up it is
run once (a warm-up: MCTS on a finished game of the same board, which compiles the search
and ends at once; other agents on the empty board), and again after a boardsize or komi that
changes the game (each board size and komi is a program of its own; the compiled programs
are kept in the compilation cache, so the next start is quicker). The first genmove is then
no slower than the others. Progress and the time of each move go to stderr (--quiet:
nothing).
"""


def cmd_gtp(args: argparse.Namespace) -> int:
    from jaxgames.arena.gtp import GtpEngine

    out = sys.stdout
    sys.stdout = sys.stderr  # only GTP responses go to stdout, whatever else prints

    def log(message: str) -> None:
        if not args.quiet:
            print(f"jaxgames gtp: {message}", file=sys.stderr, flush=True)

    try:
        engine = GtpEngine(args.game, args.agent, seed=args.seed, warm=not args.no_warmup, log=log)
        for line in iter(sys.stdin.readline, ""):
            response = engine.handle(line)
            if response:
                out.write(response)
                out.flush()
            if engine.done:
                break
    finally:
        sys.stdout = out
    return 0


def add_gtp(command) -> None:
    p = command("gtp", "a Go engine speaking GTP on stdin/stdout (for GUIs and matches)", False)
    p.description = DESCRIPTION
    p.add_argument(
        "game",
        nargs="?",
        default="go",
        help="go, or a spec such as go:size=9,komi=7.5 (boardsize and komi change it; "
        "default: %(default)s)",
    )
    p.add_argument(
        "--agent",
        default="mcts:simulations=800,selection=rave",
        help="who chooses the moves, as in `jaxgames match`: mcts[:simulations=N,c=X,...], "
        "random, alphabeta[:depth=D] (default: %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.add_argument(
        "--no-warmup",
        action="store_true",
        help="skip the warm-up search: start at once, the first genmove compiles",
    )
    p.set_defaults(run=cmd_gtp)
