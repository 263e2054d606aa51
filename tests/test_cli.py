"""The command line: every subcommand, and bad input reported in one line with exit status 2."""

import json
import subprocess
import sys

import pytest

from jaxgames.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_games_lists_every_registered_game(capsys):
    status, out, _ = run(capsys, "games")
    assert status == 0
    for name in ("tictactoe", "connect4", "tree", "uniform_tree"):
        assert name in out


def test_show_prints_the_position_and_its_moves(capsys):
    status, out, _ = run(capsys, "show", "connect4", "4453")
    assert status == 0
    assert "...o.../..oxx.." in out
    assert "moves:    1 2 3 4 5 6 7" in out


def test_perft_from_the_start_and_from_a_position(capsys):
    status, out, _ = run(capsys, "perft", "tictactoe", "3")
    assert status == 0 and "504" in out
    status, out, _ = run(capsys, "perft", "connect4:width=4,height=4", "44", "2")
    assert status == 0 and "16" in out  # 4 replies, then 4 each


def test_solve_tictactoe_is_a_draw_with_every_first_move(capsys):
    status, out, _ = run(capsys, "solve", "tictactoe")
    assert status == 0
    assert "value:    +0 " in out
    assert "optimal:  0 1 2 3 4 5 6 7 8" in out


def test_solve_reports_the_connect4_score(capsys):
    status, out, _ = run(capsys, "solve", "connect4:width=4,height=4,connect=3")
    assert status == 0 and "score:" in out


def test_rollout_processes_good_lines_and_reports_bad_ones(capsys, tmp_path):
    positions = tmp_path / "positions.txt"
    positions.write_text("# comment\n4453\n44x\n\n4455 18\n4444444\n")
    out_file = tmp_path / "rows.jsonl"
    status, out, err = run(
        capsys, "rollout", "connect4", str(positions), "--playouts", "8", "--out", str(out_file)
    )
    assert status == 1  # some lines were skipped
    assert f"{positions}:3:" in err and f"{positions}:6:" in err
    assert len(err.strip().splitlines()) == 2
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [r["position"] for r in rows] == ["4453", "4455"]
    assert all(r["playouts"] == 8 for r in rows)
    assert "playouts/s" in out


def test_rollout_strict_stops_at_the_first_bad_line(capsys, tmp_path):
    positions = tmp_path / "positions.txt"
    positions.write_text("4453\n48\n")
    status, _, err = run(capsys, "rollout", "connect4", str(positions), "--strict")
    assert status == 2
    assert err.count("\n") == 1 and f"{positions}:2:" in err and "column 8" in err


def test_rollout_on_the_built_in_sample(capsys):
    status, out, _ = run(capsys, "rollout", "tictactoe", "--playouts", "4")
    assert status == 0 and "playouts/s" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["show", "chess", "x"], "unknown game 'chess'"),
        (["show", "connect4", "44x4"], "connect4"),
        (["show", "connect4", "4449"], "character 4"),
        (["show", "tictactoe", "44"], "square 4 is taken"),
        (["perft", "connect4", "-3"], "depth must be >= 1"),
        (["perft", "connect4", "deep"], "depth must be a whole number"),
        (["rollout", "connect4", "/no/such/file"], "cannot read positions file"),
        (["rollout", "connect4", "--playouts", "0"], "--playouts must be >= 1"),
        (["show", "connect4:width=12", ""], "width 12"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_gets_one_line_and_status_2(capsys, argv, words):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("jaxgames: error: ")
    assert words in err


def test_the_installed_command_prints_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "jaxgames", "show", "connect4", "9"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
