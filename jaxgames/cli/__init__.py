"""The ``jaxgames`` command.

    jaxgames games                                   list the games
    jaxgames show GAME [POSITION]                    print a position, its moves and values
    jaxgames perft GAME [POSITION] DEPTH             count move sequences per ply
    jaxgames rollout GAME [FILE|-] --playouts N      random playouts from positions
    jaxgames solve GAME [POSITION]                   exact value and optimal moves
    jaxgames evaluate GAME [FILE|-] --out FILE       search many positions, one row each
    jaxgames bench [--quick] [--games ...]           kernel throughput per backend, vs peers
    jaxgames match GAME --agent A --agent B          agents play each other: score and Elo
    jaxgames gtp [go:size=9] --agent A               a Go engine speaking GTP on stdin/stdout
    jaxgames tables build chess KRK [--dir D]        endgame tables by retrograde analysis
    jaxgames tables probe chess FEN [--dir D]        a table's value, distance, best move
    jaxgames train GAME --games N --out DIR          TD(lambda) self-play for a value network

GAME is a name or a spec with parameters (``connect4:width=5,height=4``). Every argument is
checked before work starts; bad input gets one line on stderr naming what and where, and
exit status 2, and leaves any existing output as it was. When a positions file has bad
lines, they are reported and the good ones processed (exit status 1), unless ``--strict``.
Long jobs show their progress on a terminal (``--quiet``: not at all).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from jaxgames.cli.common import UsageError
from jaxgames.cli.parser import build_parser
from jaxgames.compilation import use_persistent_cache
from jaxgames.game import GameError
from jaxgames.search.levels import TooLarge


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


__all__ = ["UsageError", "build_parser", "main"]
