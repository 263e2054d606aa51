"""Nothing silently wrong, no traceback: every bad input a one-line error, checked before
work starts, leaving existing output byte for byte as it was."""

import json
import os
import pty
import subprocess
import sys

import jax
import numpy as np
import pytest
from conftest import REFERENCE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jaxgames.kernels import playouts, stack

import jaxgames
from jaxgames.cli import main

POSITIONS = ["4453", "44", "3246313", "4455"]
ARGS = ["--algo", "minimax", "--depth", "1", "--chunk", "2"]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(status, err, words=""):
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("jaxgames: error: "), err
    assert words in err, err


@pytest.fixture
def positions(tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("\n".join(POSITIONS) + "\n")
    return path


@pytest.fixture
def earlier(capsys, tmp_path, positions):
    """An output file of an earlier, successful run (JSONL, depth 1)."""
    out = tmp_path / "rows.jsonl"
    status, _, _ = run(capsys, "evaluate", "connect4", positions, *ARGS, "--out", out)
    assert status == 0
    return out


# ---------------------------------------------------------------- labels
def test_a_pons_line_is_evaluated_as_its_moves_with_its_score_as_label(capsys, tmp_path):
    """`32164625 11` is the position 32164625 labelled 11, never the stones 3216462511."""
    path = tmp_path / "lines.txt"
    path.write_text(
        "".join(
            (REFERENCE / "connect4_pons" / "Test_L1_R1").read_text().splitlines(keepends=True)[:20]
        )
    )
    out = tmp_path / "rows.jsonl"
    status, _, _ = run(capsys, "evaluate", "connect4", path, "--depth", "1", "--out", out)
    assert status == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    expected = [line.split() for line in path.read_text().splitlines()]
    assert [[r["position"], r.get("label")] for r in rows] == expected


# ---------------------------------------------------------------- outputs
@pytest.mark.parametrize("verb", ["evaluate", "rollout"])
def test_an_output_in_a_missing_folder_is_refused_before_any_work(capsys, tmp_path, verb):
    missing = tmp_path / "no" / "such" / "rows.jsonl"
    status, out, err = run(capsys, verb, "tictactoe", "--out", missing)
    one_line_error(status, err, "does not exist")
    assert out == ""  # no table, no playouts ran
    assert not missing.parent.exists()


@pytest.mark.parametrize("verb", ["evaluate", "rollout"])
def test_a_directory_or_a_device_as_output_is_refused(capsys, tmp_path, verb):
    status, out, err = run(capsys, verb, "tictactoe", "--out", tmp_path)
    one_line_error(status, err, "is a directory")
    status, out, err = run(capsys, verb, "tictactoe", "--out", os.devnull)
    one_line_error(status, err, "not a regular file")
    assert out == ""


def test_an_output_where_nothing_can_be_written_is_refused(capsys):
    # /proc takes no new files, whoever runs the test (root ignores permission bits)
    status, out, err = run(capsys, "evaluate", "tictactoe", "--out", "/proc/rows.jsonl")
    one_line_error(status, err, "cannot write there")
    assert out == ""


def test_strict_with_a_bad_line_creates_no_file_and_prints_no_header(capsys, tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("4453\n44x\n")
    out = tmp_path / "rows.jsonl"
    status, stdout, err = run(capsys, "evaluate", "connect4", path, *ARGS, "--strict", "--out", out)
    one_line_error(status, err, f"{path}:2:")
    assert stdout == "" and not out.exists()
    status, stdout, err = run(capsys, "evaluate", "connect4", path, *ARGS, "--strict")
    one_line_error(status, err, f"{path}:2:")
    assert stdout == ""  # the table's header comes with its first rows


FAILURES = {
    "missing input": lambda tmp: ["evaluate", "connect4", tmp / "nothing.txt", *ARGS],
    "a binary input": lambda tmp: ["evaluate", "connect4", tmp / "binary.txt", *ARGS],
    "other depth, missing input": lambda tmp: [
        "evaluate",
        "connect4",
        tmp / "nothing.txt",
        "--algo",
        "minimax",
        "--depth",
        "3",
    ],
    "other depth": lambda tmp: [
        "evaluate",
        "connect4",
        tmp / "positions.txt",
        "--algo",
        "minimax",
        "--depth",
        "3",
    ],
    "other input": lambda tmp: ["evaluate", "connect4", tmp / "other.txt", *ARGS],
    "strict and a bad line": lambda tmp: [
        "evaluate",
        "connect4",
        tmp / "bad.txt",
        *ARGS,
        "--strict",
    ],
    "no valid position": lambda tmp: ["evaluate", "connect4", tmp / "garbage.txt", *ARGS],
    "a bad depth": lambda tmp: ["evaluate", "connect4", tmp / "positions.txt", "--depth", "-2"],
    "a huge chunk": lambda tmp: [
        "evaluate",
        "chess",
        tmp / "positions.txt",
        "--chunk",
        "1000000000000",
    ],
    "table to a file": lambda tmp: [
        "evaluate",
        "connect4",
        tmp / "positions.txt",
        *ARGS,
        "--format",
        "table",
    ],
    "an unknown game": lambda tmp: ["evaluate", "connect5", tmp / "positions.txt"],
}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_failing_run_leaves_the_output_byte_for_byte(capsys, tmp_path, earlier, kind):
    (tmp_path / "binary.txt").write_bytes(b"\x80\xff\x00\x9c" * 10)
    (tmp_path / "other.txt").write_text("1\n2\n")
    (tmp_path / "bad.txt").write_text("4453\n44\n3246313\n4455\n48\n")
    (tmp_path / "garbage.txt").write_text("x\n99\n")
    before = earlier.read_bytes()
    half = before + b'{"position": "11", "lab'  # a killed run's partial line stays too
    earlier.write_bytes(half)
    status, _, err = run(capsys, *FAILURES[kind](tmp_path), "--out", earlier)
    one_line_error(status, err)
    assert earlier.read_bytes() == half


@pytest.mark.parametrize("verb", ["evaluate", "rollout"])
def test_a_file_of_bad_lines_only_is_one_line_naming_the_first(capsys, tmp_path, verb):
    path = tmp_path / "garbage.txt"
    path.write_text("zzz\n9\n")
    extra = ["--playouts", "1"] if verb == "rollout" else ARGS
    status, out, err = run(capsys, verb, "connect4", path, *extra)
    one_line_error(status, err, "2 lines skipped")
    assert "garbage.txt:1" in err and out == ""


def test_a_missing_input_is_named_before_the_output_mismatch(capsys, tmp_path, earlier):
    argv = FAILURES["other depth, missing input"](tmp_path)
    status, _, err = run(capsys, *argv, "--out", earlier)
    one_line_error(status, err, "nothing.txt: cannot read positions file")
    (tmp_path / "binary.txt").write_bytes(b"4453\n\x80\xff\n")
    argv = ["evaluate", "connect4", tmp_path / "binary.txt", "--depth", "3", "--out", earlier]
    status, _, err = run(capsys, *argv)
    one_line_error(status, err, "binary.txt:2: not a UTF-8 text file")


# ---------------------------------------------------------------- sizes
def test_huge_playout_counts_run_in_rounds_that_fit():
    """A billion playouts of six positions: rounds below int32 and below the lane budget,
    every position played exactly as often as asked."""
    from jaxgames.kernels.playout import RoundPlan, lanes_that_fit, state_bytes

    plan = RoundPlan.of(6, 10**9, 1 << 21)
    assert plan.group * plan.per_round <= 1 << 21 < 2**31
    played = np.zeros(6, np.int64)
    for start, done in plan.rounds():
        played[start : start + plan.group] += min(plan.per_round, plan.num_playouts - done)
    assert played.tolist() == [10**9] * 6
    assert plan.count == sum(1 for _ in plan.rounds())
    big = RoundPlan.of(5000, 3, 1024)  # more positions than lanes: groups of positions
    seen = np.zeros(5000, np.int64)
    for start, done in big.rounds():
        seen[start : start + big.group] += min(big.per_round, big.num_playouts - done)
    assert seen.tolist() == [3] * 5000
    # a hundred million playouts of connect four: rounds of a lane budget, not 53 GB at once
    game = jaxgames.make("connect4")
    lanes = lanes_that_fit(game)
    assert RoundPlan.of(1, 10**8, lanes).per_round <= lanes
    assert lanes * 8 * state_bytes(game) <= 1 << 30


def test_playouts_in_rounds_equal_one_call_where_play_is_forced():
    """Rounds sum exactly: from positions with one legal sequence left, every playout of
    every round ends the same, so the means equal the kernel's in one call."""
    from jaxgames.kernels import playout_means

    game = jaxgames.make("connect4")
    texts = ["325642551314142231554156261443662633", "316524425623256311412216441346563553"]
    states = stack([game.parse(t) for t in texts])
    key = jax.random.key(3)
    direct = playouts(game, states, 8, key)
    rounds = playout_means(game, states, 37, key, max_lanes=8)  # 37 over rounds of 4 each
    np.testing.assert_allclose(rounds.mean_utility, np.asarray(direct.mean_utility))
    np.testing.assert_allclose(rounds.mean_length, np.asarray(direct.mean_length))
    assert rounds.total_length == int(np.asarray(direct.lengths)[:, :1].sum()) * 37


def test_depth_beyond_the_game_costs_what_the_game_needs(capsys):
    """--depth 1000 on tic-tac-toe: the rows (nodes included) of the depth that reaches
    every end, not a thousand plies of frames and iterations."""
    position = "x.o/.x./..o"  # 5 empty squares: no game lasts more than 5 plies
    deep = jaxgames.evaluate("tictactoe", [position], depth=1000)
    enough = jaxgames.evaluate("tictactoe", [position], depth=5)
    for row in (deep[0], enough[0]):
        row.pop("depth")
    assert deep == enough


def test_perft_stops_at_the_end_of_the_game(capsys):
    status, out, _ = run(capsys, "perft", "tictactoe", "12")
    assert status == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:10]] == [str(p) for p in range(1, 10)]
    assert lines[10] == "every game has ended by ply 9: no sequence is longer"
    by_length = json.loads((REFERENCE / "tictactoe.json").read_text())[
        "games_by_length_and_outcome"
    ]
    nine = by_length["9:X"] + by_length["9:draw"]  # the published games that last 9 plies
    assert lines[9].split()[1] == f"{nine:,}"


# ---------------------------------------------------------------- messages that direct
def test_solve_over_its_node_budget_names_the_flag(capsys):
    status, _, err = run(capsys, "solve", "tictactoe", "--max-nodes", "1000")
    one_line_error(status, err, "raise --max-nodes")
    assert "depth" not in err


def test_an_unknown_game_parameter_lists_the_parameters(capsys):
    status, _, err = run(capsys, "show", "connect4:bogus=3")
    one_line_error(status, err, "no parameter 'bogus'")
    for name in ("width (default 7)", "height (default 6)", "connect (default 4)"):
        assert name in err


# ---------------------------------------------------------------- help that teaches
def test_bare_jaxgames_prints_the_help_and_version_is_known(capsys):
    status, out, err = run(capsys)
    assert status == 0 and err == ""
    assert "evaluate" in out and "rollout" in out and "COMMAND --help" in out
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.strip() == f"jaxgames {jaxgames.__version__}"


@pytest.mark.parametrize("verb", ["show", "perft", "rollout", "solve", "evaluate"])
def test_help_shows_every_games_formats_with_examples_and_the_defaults(capsys, verb):
    status, out, _ = run(capsys, verb, "--help")
    assert status == 0
    for name in jaxgames.list_games():
        cls = jaxgames.registry.game_class(name)
        for what, example in cls.position_formats:
            assert what.split(":")[0] in out and f"e.g. {example}" in out, (name, what)
    defaults = {"rollout": "default: 1000", "solve": "default: 50000000", "evaluate": "default: 4"}
    assert defaults.get(verb, "") in out


def test_show_with_only_a_game_shows_its_formats(capsys):
    status, out, _ = run(capsys, "show", "othello")
    assert status == 0
    assert "formats:" in out and "e.g. f5d6c3" in out


def test_games_lists_aligned_rows_without_parameter_names(capsys):
    status, out, _ = run(capsys, "games")
    lines = out.splitlines()
    assert status == 0 and len(lines) == len(jaxgames.list_games()) + 1
    starts = {line.index(line.split()[1]) + len(line.split()[1]) for line in lines}
    assert len(starts) == 1  # the players column ends at one place in every row
    for word in ("width actions", "branching branching", "depth depth"):
        assert word not in out


# ---------------------------------------------------------------- progress
@pytest.mark.slow
def test_progress_shows_compiling_on_a_terminal_and_nothing_with_quiet(tmp_path):
    """Under a pseudo-terminal as stderr, evaluate shows its compile phase as such and the
    count; --quiet shows neither; the rows on stdout are the same."""
    path = tmp_path / "positions.txt"
    texts = ["x.o/.x./..o", "4", "48"]
    path.write_text("\n".join(texts) + "\n")

    def on_a_terminal(*extra):
        leader, follower = pty.openpty()
        argv = [
            sys.executable,
            "-m",
            "jaxgames",
            "evaluate",
            "tictactoe",
            str(path),
            "--depth",
            "1",
            "--format",
            "jsonl",
            "--cpu-devices",
            "1",
            *extra,
        ]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower)
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        out = proc.stdout.read()
        assert proc.wait() == 0
        os.close(leader)
        return out, shown.decode("utf-8", "replace")

    out, shown = on_a_terminal()
    assert "compiling alpha-beta" in shown and "positions" in shown and "\x1b[K" in shown
    quiet_out, quiet = on_a_terminal("--quiet")
    assert "compiling alpha-beta" not in quiet and "\x1b[K" not in quiet  # no status line
    assert [json.loads(x)["position"] for x in out.splitlines()] == texts
    assert quiet_out == out


# ---------------------------------------------------------------- no traceback, ever
VERBS = ["show", "perft", "rollout", "solve", "evaluate", "bench"]
GAMES = ["tictactoe", "connect4:width=4,height=4", "pig", "nosuchgame", "connect4:width=0"]
VALUES = ["-1", "0", "1", "3", "1000", "x", "", "1e9", "99999999999999999999"]


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_command_lines_never_end_in_a_traceback(capsys, tmp_path, data):
    """Verbs, games, flags and values at random (negative, zero, huge, non-numeric,
    missing files, unwritable outputs): an error exit prints exactly one line on stderr."""
    verb = data.draw(st.sampled_from(VERBS))
    argv = [verb]
    if verb != "bench":
        argv.append(data.draw(st.sampled_from(GAMES)))
    flags = {
        "show": [],
        "perft": [],
        "rollout": ["--playouts", "--max-steps", "--seed", "--out"],
        "solve": ["--max-nodes"],
        "evaluate": ["--depth", "--chunk", "--algo", "--format", "--out", "--cpu-devices"],
        "bench": ["--repeats", "--batches", "--out", "--workloads"],
    }[verb]
    positional = data.draw(st.sampled_from([None, "missing.txt", "-3", "44", "x", "5"]))
    if positional is not None and verb in ("show", "perft", "rollout", "solve", "evaluate"):
        argv.append(positional)
    chosen = data.draw(st.lists(st.sampled_from(flags), max_size=2, unique=True)) if flags else []
    for flag in chosen:
        if flag == "--out":
            value = data.draw(st.sampled_from(["/proc/x.jsonl", str(tmp_path), "/no/dir/x"]))
        else:
            value = data.draw(st.sampled_from(VALUES + ["negascout", "xml", "step"]))
        argv += [flag, value]
    # the work itself is not what is tested here: the arguments are
    if verb in ("rollout", "evaluate", "solve", "perft", "bench") and (
        verb == "bench" or "--out" not in argv
    ):
        argv += {
            "rollout": ["--playouts", "-5"],
            "evaluate": ["--depth", "-1"],
            "solve": ["--max-nodes", "0"],
            "perft": ["0"],
            "bench": ["--repeats", "0"],
        }[verb]
    status = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, argv
    if status != 0:
        assert status == 2, (argv, err)
        assert err.count("\n") == 1 and err.startswith("jaxgames: error: "), (argv, err)
