"""The command line: every subcommand, and bad input reported in one line with exit status 2."""

import csv
import json
import os
import re
import signal
import subprocess
import sys

import pytest

import jaxgames
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
        (["show", "go9", "x"], "unknown game 'go9'"),
        (["show", "chess", "x"], "FEN 'x'"),
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


# ---------------------------------------------------------------- evaluate
EVAL_ARGS = ["--algo", "minimax", "--depth", "1", "--chunk", "2"]
EVAL_POSITIONS = ["4453", "44", "3246313", "4455", "2416615552", "4"]


def evaluate_rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def positions_file(tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("\n".join(EVAL_POSITIONS) + "\n")
    return path


@pytest.fixture
def clean_run(capsys, tmp_path, positions_file):
    """The output of one uninterrupted run over ``positions_file``."""
    out = tmp_path / "clean.jsonl"
    status, _, _ = run(
        capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 0
    return out.read_text()


def test_evaluate_writes_rows_in_input_order_with_a_summary(capsys, tmp_path, positions_file):
    out = tmp_path / "rows.jsonl"
    status, stdout, err = run(
        capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 0 and stdout == ""
    rows = evaluate_rows(out)
    assert [r["position"] for r in rows] == EVAL_POSITIONS
    assert rows == jaxgames.evaluate("connect4", EVAL_POSITIONS, "minimax", depth=1, chunk_size=2)
    assert err.count("\n") == 1 and "6 positions in" in err and "nodes/s" in err
    assert "first chunk (with compilation)" in err


def test_evaluate_without_out_writes_rows_to_stdout(capsys, positions_file):
    argv = ("evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--format", "jsonl")
    status, stdout, _ = run(capsys, *argv)
    assert status == 0
    assert [json.loads(line)["position"] for line in stdout.splitlines()] == EVAL_POSITIONS


def test_evaluate_progress_log_writes_a_timed_line_per_phase(capsys, tmp_path):
    """``--progress log``: one line per phase on stderr, seconds rising, the search's phase
    after its compilation; the rows are those of a run without it."""
    path = tmp_path / "positions.txt"
    path.write_text("x.o/.x./..o\n4\n")
    argv = ("evaluate", "tictactoe", str(path), "--depth", "1", "--format", "jsonl")
    status, quiet_rows, _ = run(capsys, *argv, "--progress", "off")
    assert status == 0
    status, rows, err = run(capsys, *argv, "--progress", "log")
    assert status == 0 and rows == quiet_rows
    logged = [m for line in err.splitlines() if (m := re.match(r"jaxgames: ([\d.]+) s: ", line))]
    phases = [m.string[m.end() :] for m in logged]
    seconds = [float(m.group(1)) for m in logged]
    assert len(phases) == 2 and phases[0].startswith("compiling alpha-beta of ")
    assert phases[1] == phases[0].removeprefix("compiling ")
    assert seconds == sorted(seconds)


def test_evaluate_prints_a_table_by_default(capsys, positions_file):
    status, stdout, _ = run(capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS)
    assert status == 0
    lines = stdout.splitlines()
    header = ["position", "label", "to_move", "value", "score", "best_move", "nodes", "pv"]
    assert lines[0].split() == header
    rows = lines[1 : 1 + len(EVAL_POSITIONS)]
    assert [line.split()[0] for line in rows] == EVAL_POSITIONS
    legend = lines[1 + len(EVAL_POSITIONS) :]  # what value and score mean
    assert [line.split(":")[0] for line in legend] == ["value", "score"]
    status, _, err = run(capsys, "evaluate", "connect4", "--format", "table", "--out", "x.txt")
    assert status == 2 and "--format table is for the terminal" in err


def test_evaluate_reports_bad_lines_and_strict_stops(capsys, tmp_path):
    positions = tmp_path / "positions.txt"
    positions.write_text("# comment\n4453\n44x\n\n4455\t18\n48\n44\n")
    out = tmp_path / "rows.jsonl"
    status, _, err = run(
        capsys, "evaluate", "connect4", str(positions), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 1
    assert f"{positions}:3:" in err and f"{positions}:6:" in err
    assert [r["position"] for r in evaluate_rows(out)] == ["4453", "4455", "44"]
    strict = ["--strict", "--out", str(tmp_path / "strict.jsonl")]
    status, _, err = run(capsys, "evaluate", "connect4", str(positions), *EVAL_ARGS, *strict)
    assert status == 2 and err.count("\n") == 1 and f"{positions}:3:" in err


def test_evaluate_csv_has_a_header_and_the_row_columns(capsys, tmp_path, positions_file):
    out = tmp_path / "rows.csv"  # the name picks the format
    status, _, _ = run(
        capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 0
    rows = list(csv.DictReader(out.open()))
    header = out.read_text().splitlines()[0]
    assert header == "position,label,to_move,value,score,best_move,pv,nodes,depth,algorithm"
    assert [r["position"] for r in rows] == EVAL_POSITIONS
    assert all(r["algorithm"] == "minimax" and r["depth"] == "1" for r in rows)
    # resuming a CSV file adds no second header
    status, _, err = run(
        capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 0 and "6 positions already in" in err
    assert out.read_text().count("position,") == 1


def test_evaluate_the_built_in_sample(capsys):
    status, stdout, _ = run(
        capsys, "evaluate", "tictactoe", "--algo", "minimax", "--depth", "1", "--format", "csv"
    )
    assert status == 0
    rows = list(csv.DictReader(stdout.splitlines()))
    assert [r["position"] for r in rows] == jaxgames.make("tictactoe").sample_positions()


def test_evaluate_resume_after_a_kill_equals_one_clean_run(
    capsys, tmp_path, positions_file, clean_run
):
    out = tmp_path / "rows.jsonl"
    argv = ["evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)]
    env = dict(os.environ, JAXGAMES_TEST_KILL_AFTER_CHUNKS="2")
    proc = subprocess.run([sys.executable, "-m", "jaxgames", *argv], env=env, capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    assert [r["position"] for r in evaluate_rows(out)] == EVAL_POSITIONS[:4]  # 2 chunks of 2
    status, _, err = run(capsys, *argv)
    assert status == 0 and "4 positions already in" in err and "2 positions in" in err
    assert out.read_text() == clean_run


def test_evaluate_resume_cuts_off_a_partial_last_line(capsys, tmp_path, positions_file, clean_run):
    out = tmp_path / "rows.jsonl"
    lines = clean_run.splitlines(keepends=True)
    out.write_text("".join(lines[:3]) + lines[3][:20])  # killed while writing row 4
    status, _, err = run(
        capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 0 and "3 positions already in" in err
    assert out.read_text() == clean_run


ROW = '{{"position": "{}", "depth": {}, "algorithm": "minimax"}}\n'


@pytest.mark.parametrize(
    "existing, words",
    [
        (ROW.format("4453", 1) + ROW.format("4455", 1), "belongs to other input"),
        ("position,to_move\n", "not an output of `jaxgames evaluate --format jsonl`"),
        (ROW.format("4453", 3), "minimax at depth 3, not minimax at depth 1"),
    ],
)
def test_evaluate_refuses_an_output_file_of_other_input(
    capsys, tmp_path, positions_file, existing, words
):
    out = tmp_path / "rows.jsonl"
    out.write_text(existing)
    status, _, err = run(
        capsys, "evaluate", "connect4", str(positions_file), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 2 and err.count("\n") == 1 and words in err
    assert out.read_text() == existing  # left as it was


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--algo", "negascout"], "invalid choice"),
        (["--depth", "-1"], "--depth must be >= 0"),
        (["--chunk", "0"], "--chunk must be >= 1"),
        (["--format", "xml"], "invalid choice"),
        (["--distributed"], "--distributed needs --out"),
        (["--cpu-devices", "0"], "--cpu-devices must be >= 1"),
    ],
)
def test_evaluate_bad_options_get_one_line(capsys, argv, words):
    status, _, err = run(capsys, "evaluate", "connect4", *argv)
    assert status == 2 and err.count("\n") == 1 and words in err


def test_evaluate_with_no_valid_position_leaves_no_file(capsys, tmp_path):
    positions = tmp_path / "positions.txt"
    positions.write_text("48\n")
    out = tmp_path / "rows.jsonl"
    status, _, err = run(
        capsys, "evaluate", "connect4", str(positions), *EVAL_ARGS, "--out", str(out)
    )
    assert status == 2 and "no valid positions" in err and not out.exists()
