"""Go strength against GNU Go: the GTP engine (``jaxgames gtp``'s :class:`GtpEngine`)
plays GNU Go over GTP, colours alternating, N games per GNU Go level.

    python benchmarks/go_gnugo.py --levels 1 10 --games 50           # the issue's match
    python benchmarks/go_gnugo.py --levels 1 --games 2 --agent mcts:simulations=64   # smoke run

All games of all levels are played at once, in lockstep by ply: at each ply the games where
jaxgames moves are searched in one batched call of the agent (one tree per game, each with
the agent's full simulation budget, exactly as a lone ``genmove`` would search), while the
games where GNU Go moves ask their own GNU Go process (one per game, all thinking in
parallel). Batching changes the wall time, not the play: a game sees the same search it
would see alone, with its own seed.

GNU Go runs as ``gnugo --mode gtp --level N --boardsize S --komi K --chinese-rules`` (Chinese
rules: area scoring, as ours); the script skips, with a message and exit status 0, when
``gnugo`` is found neither on the PATH nor in ``/usr/games`` (``apt-get install gnugo``). Our
agent is compiled before the first move.

A game ends after two passes in a row, a resignation, or ``--max-moves`` moves. Each game is
scored twice: by Tromp-Taylor area with komi (our engine's ``final_score``: every stone on the
board counts as alive, the rules the engine plays by) and by GNU Go's ``final_score`` (area
too, the stones it judges dead removed, as a human referee would). Reported per level: our
wins by each count; per game: colours, both scores, the moves, GNU Go's CPU seconds per
move (read from the kernel, so that the games thinking beside it do not count), and our
seconds per move (a batch's wall time shared among the games it searched, and the batch's
whole wall time: what one move waits). Each game is also written as SGF (``--sgf-dir``) with
the Tromp-Taylor result in ``RE``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import shutil
import subprocess
import sys
import time
from typing import Any

import numpy as np
from jaxgames.kernels import stack

from jaxgames.arena.gtp import GtpEngine
from jaxgames.bench.helpers import command_line, machine_info, result_path, write_json
from jaxgames.games.go.sgf import write_sgf

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class GtpProcess:
    """A GTP engine in a subprocess: :meth:`send` a command, :meth:`receive` its answer."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def receive(self, command: str = "") -> str:
        """The answer's text; RuntimeError on a ``?`` answer or a closed pipe."""
        assert self.proc.stdout is not None
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

    def ask(self, command: str) -> str:
        self.send(command)
        return self.receive(command)

    def cpu_seconds(self) -> float | None:
        """The process's user + system CPU time so far (Linux), else None."""
        try:
            with open(f"/proc/{self.proc.pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        except (OSError, IndexError, ValueError):
            return None

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


@dataclasses.dataclass
class Table:
    """One game in progress: our engine's board, its GNU Go, and what happened so far."""

    index: int
    level: int
    our_colour: int
    engine: GtpEngine
    gnugo: GtpProcess
    names: list[str] = dataclasses.field(default_factory=list)
    passes: int = 0
    resigned: int | None = None
    ours_shared_s: list[float] = dataclasses.field(default_factory=list)
    ours_batch_s: list[float] = dataclasses.field(default_factory=list)
    gnugo_cpu_s: list[float] = dataclasses.field(default_factory=list)

    def over(self, max_moves: int) -> bool:
        return self.passes >= 2 or self.resigned is not None or len(self.names) >= max_moves

    def played(self, name: str) -> None:
        self.names.append(name.upper() if name.lower() != "pass" else "pass")
        self.passes = self.passes + 1 if name.lower() == "pass" else 0


def play_all(tables: list[Table], agent: Any, game: Any, pad: Any, seed: int, max_moves: int):
    """Play every table to its end, a ply at a time, with one batched search per ply."""
    width = max(sum(t.our_colour == c for t in tables) for c in (0, 1))
    ply = 0
    while True:
        alive = [t for t in tables if not t.over(max_moves)]
        if not alive:
            return
        mover, colour = ply % 2, "BW"[ply % 2]
        searched = [t for t in alive if t.our_colour == mover]
        asked = [t for t in alive if t.our_colour != mover]
        cpu_before = [t.gnugo.cpu_seconds() for t in asked]
        for t in asked:  # all GNU Go processes think at once
            t.gnugo.send(f"genmove {colour}")
        for t, before in zip(asked, cpu_before, strict=True):
            move = t.gnugo.receive("genmove")
            after = t.gnugo.cpu_seconds()
            if before is not None and after is not None:
                t.gnugo_cpu_s.append(after - before)
            if move.lower() == "resign":
                t.resigned = mover
                continue
            ours(t.engine, f"play {colour} {move}")
            t.played(move)
        if searched:
            states = [t.engine.state(mover) for t in searched]
            states += [pad] * (width - len(states))
            started = time.perf_counter()
            actions = np.asarray(agent(game, stack(states), seed + ply))
            seconds = time.perf_counter() - started
            for t, action in zip(searched, actions[: len(searched)], strict=True):
                name = t.engine.play_chosen(mover, int(action))
                t.gnugo.ask(f"play {colour} {name}")
                t.played(name)
                t.ours_shared_s.append(seconds / len(searched))
                t.ours_batch_s.append(seconds)
        ply += 1


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def record(table: Table) -> dict[str, Any]:
    tromp_taylor = ours(table.engine, "final_score")
    try:
        referee = table.gnugo.ask("final_score")
    except RuntimeError as err:
        referee = f"? {err}"
    if table.resigned is not None:
        tromp_taylor = referee = f"{'WB'[table.resigned]}+R"  # the other side wins
    mine = "BW"[table.our_colour]
    ended = "passes" if table.passes >= 2 else "max-moves"
    if table.resigned is not None:
        ended = "resign"
    return {
        "level": table.level,
        "jaxgames_colour": mine,
        "moves": table.names,
        "plies": len(table.names),
        "ended": ended,
        "tromp_taylor": tromp_taylor,
        "gnugo_score": referee,
        "jaxgames_wins_tromp_taylor": tromp_taylor.startswith(mine),
        "jaxgames_wins_gnugo_score": referee.startswith(mine),
        "jaxgames_seconds_per_move_shared": mean(table.ours_shared_s),
        "jaxgames_seconds_per_move_batch_wall": mean(table.ours_batch_s),
        "gnugo_cpu_seconds_per_move": mean(table.gnugo_cpu_s),
        "gnugo_max_cpu_seconds_per_move": max(table.gnugo_cpu_s, default=None),
    }


def write_game(sgf_dir: str, table: Table, rec: dict[str, Any], agent: str, size: int, komi: float):
    players = {"PB": "jaxgames", "PW": f"gnugo level {table.level}"}
    if table.our_colour == 1:
        players = {"PB": f"gnugo level {table.level}", "PW": "jaxgames"}
    players["C"] = f"jaxgames agent {agent}; GNU Go score {rec['gnugo_score']}"
    moves = table.engine.moves
    sgf = write_sgf(
        size,
        komi,
        [a for _, a in moves],
        rec["tromp_taylor"],
        colours=[c for c, _ in moves],
        properties=players,
    )
    name = f"level{table.level}_game{table.index:03d}.sgf"
    with open(os.path.join(sgf_dir, name), "w", encoding="utf-8") as f:
        f.write(sgf)
    return name


def summary(level: int, games: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(games)
    wins_tt = sum(g["jaxgames_wins_tromp_taylor"] for g in games)
    wins_ref = sum(g["jaxgames_wins_gnugo_score"] for g in games)
    return {
        "level": level,
        "games": n,
        "jaxgames_wins_tromp_taylor": wins_tt,
        "jaxgames_wins_gnugo_score": wins_ref,
        "score_tromp_taylor": wins_tt / n if n else None,
        "score_gnugo_count": wins_ref / n if n else None,
        "jaxgames_wins_as_black": sum(
            g["jaxgames_wins_gnugo_score"] for g in games if g["jaxgames_colour"] == "B"
        ),
        "jaxgames_wins_as_white": sum(
            g["jaxgames_wins_gnugo_score"] for g in games if g["jaxgames_colour"] == "W"
        ),
        "mean_plies": mean([g["plies"] for g in games]),
        "jaxgames_seconds_per_move_shared": mean(
            [g["jaxgames_seconds_per_move_shared"] for g in games if g["plies"] > 1]
        ),
        "jaxgames_seconds_per_move_batch_wall": mean(
            [g["jaxgames_seconds_per_move_batch_wall"] for g in games if g["plies"] > 1]
        ),
        "gnugo_cpu_seconds_per_move": mean(
            [g["gnugo_cpu_seconds_per_move"] for g in games if g["gnugo_cpu_seconds_per_move"]]
        ),
        "records": games,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--games", type=int, default=50, help="per level (colours alternate)")
    parser.add_argument("--agent", default="mcts:simulations=2000,selection=rave")
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
    version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
    tables: list[Table] = []
    for level in args.levels:
        for i in range(args.games):
            argv_gnugo = [program, "--mode", "gtp", "--level", str(level)]
            argv_gnugo += ["--boardsize", str(args.size), "--komi", komi, "--chinese-rules"]
            engine = GtpEngine(spec, args.agent, seed=args.seed, warm=False)
            tables.append(Table(i, level, i % 2, engine, GtpProcess(argv_gnugo)))
    first = tables[0].engine
    width = max(sum(t.our_colour == c for t in tables) for c in (0, 1))
    pad = first._warm_up_state(first.game)  # a finished game: its search ends at once
    started = time.perf_counter()
    first.agent(first.game, stack([pad] * width), args.seed)  # compile before any move
    compile_s = time.perf_counter() - started
    print(f"compiled {args.agent} for {width} trees in {compile_s:.1f} s", flush=True)
    started = time.perf_counter()
    try:
        play_all(tables, first.agent, first.game, pad, args.seed, max_moves)
        records = []
        for table in tables:
            rec = record(table)
            rec["sgf"] = write_game(sgf_dir, table, rec, args.agent, args.size, args.komi)
            records.append(rec)
    finally:
        for table in tables:
            table.gnugo.close()
    wall_s = time.perf_counter() - started
    levels = []
    for level in args.levels:
        levels.append(summary(level, [r for r in records if r["level"] == level]))
        last = levels[-1]
        print(
            f"level {level}: jaxgames won {last['jaxgames_wins_gnugo_score']}/{last['games']} "
            f"by GNU Go's count ({last['jaxgames_wins_as_black']} as Black, "
            f"{last['jaxgames_wins_as_white']} as White), "
            f"{last['jaxgames_wins_tromp_taylor']}/{last['games']} by Tromp-Taylor; "
            f"{last['mean_plies']:.0f} plies a game; jaxgames "
            f"{last['jaxgames_seconds_per_move_shared']:.2f} s a move shared "
            f"({last['jaxgames_seconds_per_move_batch_wall']:.2f} s a batch), GNU Go "
            f"{last['gnugo_cpu_seconds_per_move'] or 0:.3f} CPU s a move",
            flush=True,
        )
    result: dict[str, Any] = {
        "benchmark": "go_gnugo",
        "command": command_line("go_gnugo.py", argv),
        "machine": machine_info(),
        "agent": args.agent,
        "game": spec,
        "gnugo_version": version.splitlines()[0] if version else None,
        "trees_per_batch": width,
        "compile_s": compile_s,
        "wall_s": wall_s,
        "max_moves": max_moves,
        "levels": levels,
    }
    small = args.games < 10
    path = write_json(result, result_path(args.out, HERE, "go_gnugo", quick=small))
    print(f"wrote {path} and the SGF records in {sgf_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
