"""Go strength against GNU Go: the GTP engine (``jaxgames gtp``'s :class:`GtpEngine`) plays
GNU Go over GTP, colours alternating, N games per GNU Go level.

    python benchmarks/go_gnugo.py                                  # levels 1 5 10, 100 games each
    python benchmarks/go_gnugo.py --levels 1 --games 2 --agent mcts:simulations=64   # smoke run

GNU Go runs as ``gnugo --mode gtp --level N --boardsize S --komi K --chinese-rules`` (a
subprocess, its commands and answers over pipes; Chinese rules: area scoring, as ours);
the script skips, with a message and exit status 0, when ``gnugo`` is found neither on the
PATH nor in ``/usr/games`` (``apt-get install gnugo``). Our engine runs in this process: its
warm-up search compiles before the first game, so no move pays for compilation.

A game ends after two passes in a row, a resignation, or ``--max-moves`` moves. Each game is
scored twice: by Tromp-Taylor area with komi (our engine's ``final_score``: every stone on the
board counts as alive, the rules the engine plays by) and by GNU Go's ``final_score`` (area
too, the stones it judges dead removed, as a human referee would). Reported per level: our wins by
each count, and per game: the colours, both scores, the moves, and each side's time per move
(ours is the whole ``genmove``, search and host bookkeeping). Each game is also written as
SGF (``--sgf-dir``) with the Tromp-Taylor result in ``RE``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time
from typing import Any

from jaxgames.arena.gtp import GtpEngine
from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json
from jaxgames.games.go.sgf import write_sgf

HERE = os.path.dirname(os.path.abspath(__file__))


class GtpProcess:
    """A GTP engine in a subprocess: :meth:`ask` sends a command and returns its answer."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, command: str) -> str:
        """The answer's text; RuntimeError on a ``?`` answer or a closed pipe."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.argv[0]} closed its output after {command!r}")
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.rstrip("\n"))
        text = "\n".join(lines)
        if text.startswith("?"):
            raise RuntimeError(f"{self.argv[0]}: {command!r} -> {text!r}")
        return text[1:].strip()

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.ask("quit")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def ours(engine: GtpEngine, command: str) -> str:
    answer = engine.handle(command)
    if not answer.startswith("="):
        raise RuntimeError(f"jaxgames: {command!r} -> {answer.strip()!r}")
    return answer[1:].strip()


def play_game(engine: GtpEngine, gnugo: GtpProcess, our_colour: int, max_moves: int):
    """One game from the empty board; returns its record (a dict) and the engine's moves."""
    ours(engine, "clear_board")
    gnugo.ask("clear_board")
    passes, resigned, mover = 0, None, 0
    times: dict[str, list[float]] = {"jaxgames": [], "gnugo": []}
    names = []
    while passes < 2 and len(names) < max_moves:
        colour = "BW"[mover]
        started = time.perf_counter()
        if mover == our_colour:
            move = ours(engine, f"genmove {colour}")
            times["jaxgames"].append(time.perf_counter() - started)
            gnugo.ask(f"play {colour} {move}")
        else:
            move = gnugo.ask(f"genmove {colour}")
            times["gnugo"].append(time.perf_counter() - started)
            if move.lower() == "resign":
                resigned = mover
                break
            ours(engine, f"play {colour} {move}")
        names.append(move.upper() if move.lower() != "pass" else "pass")
        passes = passes + 1 if move.lower() == "pass" else 0
        mover = 1 - mover
    tromp_taylor = ours(engine, "final_score")
    try:
        referee = gnugo.ask("final_score")
    except RuntimeError as err:
        referee = f"? {err}"
    if resigned is not None:
        tromp_taylor = f"{'WB'[resigned]}+R"  # the other side wins
        referee = tromp_taylor
    record = {
        "jaxgames_colour": "BW"[our_colour],
        "moves": names,
        "plies": len(names),
        "ended": "resign" if resigned is not None else ("passes" if passes >= 2 else "max-moves"),
        "tromp_taylor": tromp_taylor,
        "gnugo_score": referee,
        "jaxgames_wins_tromp_taylor": tromp_taylor.startswith("BW"[our_colour]),
        "jaxgames_wins_gnugo_score": referee.startswith("BW"[our_colour]),
        "seconds_per_move": {side: (sum(t) / len(t) if t else None) for side, t in times.items()},
        "max_seconds_per_move": {side: (max(t) if t else None) for side, t in times.items()},
    }
    return record, list(engine.moves)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 5, 10])
    parser.add_argument("--games", type=int, default=100, help="per level (colours alternate)")
    parser.add_argument("--agent", default="mcts:simulations=2000")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-moves", type=int, default=None, help="default: 4 * size**2")
    parser.add_argument("--gnugo", default="gnugo", help="the GNU Go program")
    parser.add_argument("--out", help="the JSON (default: results/go_gnugo_<backend>.json)")
    parser.add_argument("--sgf-dir", help="default: results/go_gnugo_sgf")
    args = parser.parse_args(argv)
    # Debian and Ubuntu install GNU Go in /usr/games, which is not always on the PATH
    program = shutil.which(args.gnugo) or shutil.which(args.gnugo, path="/usr/games")
    if program is None:
        print(
            f"go_gnugo: skipped: {args.gnugo!r} is not installed (apt-get install gnugo, or "
            "--gnugo PROGRAM)"
        )
        return 0
    max_moves = args.max_moves or 4 * args.size**2
    sgf_dir = args.sgf_dir or os.path.join(HERE, "results", "go_gnugo_sgf")
    os.makedirs(sgf_dir, exist_ok=True)
    komi = f"{args.komi:g}"
    spec = f"go:size={args.size},komi={komi}"
    started = time.perf_counter()
    engine = GtpEngine(spec, args.agent, seed=args.seed)
    warm_up_s = time.perf_counter() - started
    version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
    levels = []
    for level in args.levels:
        gnugo = GtpProcess(
            [
                program,
                "--mode",
                "gtp",
                "--level",
                str(level),
                "--boardsize",
                str(args.size),
                "--komi",
                komi,
                "--chinese-rules",
            ]
        )
        games = []
        try:
            for i in range(args.games):
                our_colour = i % 2
                record, moves = play_game(engine, gnugo, our_colour, max_moves)
                players = {"PB": "jaxgames", "PW": f"gnugo level {level}"}
                if our_colour == 1:
                    players = {"PB": f"gnugo level {level}", "PW": "jaxgames"}
                players["C"] = f"jaxgames agent {args.agent}; GNU Go score {record['gnugo_score']}"
                sgf = write_sgf(
                    args.size,
                    args.komi,
                    [a for _, a in moves],
                    record["tromp_taylor"],
                    colours=[c for c, _ in moves],
                    properties=players,
                )
                name = f"level{level}_game{i:03d}.sgf"
                with open(os.path.join(sgf_dir, name), "w", encoding="utf-8") as f:
                    f.write(sgf)
                record["sgf"] = name
                games.append(record)
                print(
                    f"level {level} game {i + 1}/{args.games}: jaxgames "
                    f"{record['jaxgames_colour']}, {record['plies']} moves, Tromp-Taylor "
                    f"{record['tromp_taylor']}, GNU Go's count {record['gnugo_score']}",
                    flush=True,
                )
        finally:
            gnugo.close()
        ours_times = [g["seconds_per_move"]["jaxgames"] for g in games]
        ours_times = [t for t in ours_times if t is not None]
        levels.append(
            {
                "level": level,
                "games": len(games),
                "jaxgames_wins_tromp_taylor": sum(g["jaxgames_wins_tromp_taylor"] for g in games),
                "jaxgames_wins_gnugo_score": sum(g["jaxgames_wins_gnugo_score"] for g in games),
                "jaxgames_seconds_per_move": sum(ours_times) / max(len(ours_times), 1),
                "records": games,
            }
        )
        last = levels[-1]
        print(
            f"level {level}: jaxgames won {last['jaxgames_wins_tromp_taylor']}/{len(games)} "
            f"by Tromp-Taylor, {last['jaxgames_wins_gnugo_score']}/{len(games)} by GNU Go's "
            f"count; {last['jaxgames_seconds_per_move']:.2f} s per move",
            flush=True,
        )
    result: dict[str, Any] = {
        "benchmark": "go_gnugo",
        "command": command_line("go_gnugo.py", argv),
        "machine": machine_info(),
        "agent": args.agent,
        "game": spec,
        "gnugo_version": version.splitlines()[0] if version else None,
        "warm_up_s": warm_up_s,
        "max_moves": max_moves,
        "levels": levels,
    }
    small = args.games < 10
    path = write_json(result, result_path(args.out, HERE, "go_gnugo", quick=small))
    print(f"wrote {path} and the SGF records in {sgf_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
