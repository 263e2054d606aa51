"""The GTP engine: a scripted transcript with the exact answers, scores worked out by hand,
genmove, out-of-turn play, loadsgf, and the real `jaxgames gtp` in a subprocess.

One engine serves the whole module (its warm-up compiles the search once); every test
starts with ``clear_board``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import jax
import pytest

from jaxgames.arena.gtp import COMMANDS, GtpEngine
from jaxgames.cli import main
from jaxgames.games.go.board import BLACK, WHITE

SPEC = "go:size=9,komi=6.5"


@pytest.fixture(scope="module")
def engine():
    return GtpEngine(SPEC, "mcts:simulations=16")


def talk(engine, *lines):
    return [engine.handle(line) for line in lines]


def at(engine, vertex):
    return engine.position.board[engine._vertex(vertex)]


TRANSCRIPT = [
    ("protocol_version", "= 2\n\n"),
    ("1 name", "=1 jaxgames\n\n"),
    ("known_command genmove", "= true\n\n"),
    ("known_command frobnicate", "= false\n\n"),
    ("boardsize 9", "= \n\n"),
    ("komi 6.5", "= \n\n"),
    ("clear_board", "= \n\n"),
    ("undo", "? cannot undo\n\n"),
    ("play b D4", "= \n\n"),
    ("play w D4", "? illegal move\n\n"),
    ("play w I5", "? syntax error\n\n"),
    ("play w K5", "? illegal move\n\n"),  # off the 9x9 board (A..J)
    ("play x E5", "? invalid color\n\n"),
    ("play w", "? syntax error\n\n"),
    ("42 undo", "=42 \n\n"),
    ("undo", "? cannot undo\n\n"),
    ("frobnicate", "? unknown command\n\n"),
    ("7 frobnicate", "?7 unknown command\n\n"),
    ("boardsize 3", "? unacceptable size\n\n"),
    ("boardsize nine", "? syntax error\n\n"),
    ("# a comment line", ""),
    ("   ", ""),
    ("\tplay\tB\td4 # tabs, upper case and a comment", "= \n\n"),
    ("play WHITE pass", "= \n\n"),
    ("time_settings 0 1 0", "= \n\n"),
    ("3 final_score", "=3 B+74.5\n\n"),  # one black stone: all 81 points black's, less 6.5
    ("clear_board", "= \n\n"),
]


def test_transcript(engine):
    for command, expected in TRANSCRIPT:
        assert engine.handle(command) == expected, command


def test_list_commands(engine):
    answer = engine.handle("list_commands")
    assert answer == "= " + "\n".join(COMMANDS) + "\n\n"
    required = {
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
    }
    assert required <= set(COMMANDS)
    assert engine.handle("version").startswith("= 0.")


def test_final_score_worked_by_hand(engine):
    engine.handle("clear_board")
    for row in range(1, 10):  # a black wall on column E, a white one on column F
        assert talk(engine, f"play b E{row}", f"play w F{row}") == ["= \n\n"] * 2
    # black: columns A..E = 45 points; white: F..J = 36; 45 - 36 - 6.5
    assert engine.handle("final_score") == "= B+2.5\n\n"
    # a white stone inside black's side: A..D (less B5) now touches both colours, neutral;
    # black: the 9 stones of E; white: 36 + 1; 9 - 37 - 6.5
    assert engine.handle("play w B5") == "= \n\n"
    assert engine.handle("final_score") == "= W+34.5\n\n"
    assert engine.handle("undo") == "= \n\n"
    assert engine.handle("final_score") == "= B+2.5\n\n"


def test_capture_and_undo_restores_the_stone(engine):
    engine.handle("clear_board")
    talk(engine, "play b A1", "play w A2", "play b pass", "play w B1")
    assert at(engine, "A1") == 0  # captured
    assert engine.handle("play b A1") == "? illegal move\n\n"  # suicide
    engine.handle("undo")
    assert at(engine, "A1") == BLACK and at(engine, "B1") == 0


def test_showboard_shape(engine):
    engine.handle("clear_board")
    talk(engine, "play b D4", "play w E5")
    answer = engine.handle("showboard")
    assert answer.startswith("= \n") and answer.endswith("\n\n") and "\n\n" not in answer[:-2]
    lines = answer[2:-2].split("\n")
    assert lines[0] == "" and len(lines) == 12
    rows = lines[1:10]
    for number, row in zip(range(9, 0, -1), rows, strict=True):
        assert re.fullmatch(rf" ?{number} [+XO]{{9}}", row), row
    assert rows[9 - 4].split()[1][3] == "X" and rows[9 - 5].split()[1][4] == "O"
    assert lines[10].split() == ["ABCDEFGHJ"]
    assert lines[11] == "Black (X) to move, 2 moves played"


def test_genmove_plays_a_legal_vertex(engine):
    """The module's first genmove: nothing left to trace or compile after the warm-up."""
    engine.handle("clear_board")
    events = []

    def listen(event, duration, **kwargs):
        events.append(event)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        answer = engine.handle("genmove b")
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert not [e for e in events if e.startswith("/jax/core/compile/")], events
    assert re.fullmatch(r"= [A-HJ][1-9]\n\n", answer), answer
    assert at(engine, answer[2:-2]) == BLACK
    answer = engine.handle("5 genmove white")
    assert re.fullmatch(r"=5 ([A-HJ][1-9]|pass)\n\n", answer), answer
    if "pass" not in answer:
        assert at(engine, answer[3:-2]) == WHITE
    assert len(engine.moves) == 2
    assert engine.handle("undo") == "= \n\n" and len(engine.moves) == 1


def test_play_out_of_turn(engine):
    engine.handle("clear_board")
    assert talk(engine, "play b C3", "play b D3") == ["= \n\n"] * 2
    assert at(engine, "C3") == at(engine, "D3") == BLACK
    answer = engine.handle("genmove b")  # Black again
    assert answer.startswith("= ") and answer != "= pass\n\n"
    assert at(engine, answer[2:-2]) == BLACK
    assert [colour for colour, _ in engine.moves] == [0, 0, 0]


def test_loadsgf(engine, tmp_path):
    record = tmp_path / "game.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[cg];B[eg];W[ge])")
    assert engine.handle(f"loadsgf {record} 3") == "= \n\n"  # before move 3
    assert at(engine, "E5") == BLACK and at(engine, "C3") == WHITE and at(engine, "E3") == 0
    assert engine.handle(f"loadsgf {record}") == "= \n\n"
    assert at(engine, "G5") == WHITE and engine.position.player == 0
    assert engine.handle(f"loadsgf {tmp_path / 'missing.sgf'}") == "? cannot load file\n\n"
    engine.handle("clear_board")


def test_quit(engine):
    assert engine.handle("quit") == "= \n\n" and engine.done
    engine.done = False


def test_bad_arguments_exit_2(capsys):
    assert main(["gtp", "go", "--agent", "bogus"]) == 2
    assert "unknown kind" in capsys.readouterr().err
    assert main(["gtp", "tictactoe", "--agent", "random"]) == 2
    assert "plays go" in capsys.readouterr().err


def test_the_command_in_a_subprocess():
    commands = "protocol_version\n1 boardsize 5\nplay b C3\ngenmove w\n# bye\nfinal_score\nquit\n"
    proc = subprocess.run(
        [sys.executable, "-m", "jaxgames", "gtp", "go:size=5,komi=0.5", "--agent", "random"],
        input=commands,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
    )
    assert proc.returncode == 0, proc.stderr
    answers = proc.stdout.split("\n\n")
    assert answers[:3] == ["= 2", "=1 ", "= "]
    move = answers[3][2:]
    assert re.fullmatch(r"[A-E][1-5]|pass", move) and move != "C3"
    # one stone each: every empty point touches both, 1 - 1 - 0.5; after a pass, 25 - 0.5
    assert answers[4] == ("= B+24.5" if move == "pass" else "= W+0.5")
    assert answers[5:] == ["= ", ""]
    assert "warm-up" in proc.stderr


def test_boardsize_komi_and_a_tie_without_warm_up():
    """Another game's size and komi (random moves, no warm-up: nothing big compiles)."""
    lines = []
    small = GtpEngine("go:size=5,komi=0.5", "random", warm=False, log=lines.append)
    assert small.handle("boardsize 7") == "= \n\n" and small.game.size == 7
    assert small.handle("showboard").count("\n") == 7 + 2 + 2
    assert talk(small, "komi 0", "final_score") == ["= \n\n", "= 0\n\n"]  # nobody's area
    assert small.game.spec == "go:komi=0,size=7,superko=False"
    assert talk(small, "komi 1000", "komi abc") == ["? unacceptable komi\n\n", "? syntax error\n\n"]
    # the game goes on after two passes (the controller decides when it is over), and the
    # engine still answers genmove: the search sees one pass, so it may end its game
    assert talk(small, "play b pass", "play w pass", "play b C3") == ["= \n\n"] * 3
    assert re.fullmatch(r"= ([A-HJ][1-7]|pass)\n\n", small.handle("genmove w"))
    assert len(small.moves) == 4 and any("move 4" in line for line in lines)
