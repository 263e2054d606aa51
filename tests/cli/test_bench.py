"""`jaxgames bench --quick`: the JSON it writes (schema, every number finite and positive) and
its PNG plots; bad usage in one line with exit status 2."""

import io
import json
import math
import sys

import pytest

from jaxgames import bench
from jaxgames.cli import main

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GAMES = ("tictactoe", "pig")  # one deterministic game, one with chance: every workload
ROW_FIELDS = {
    "game": str,
    "workload": str,
    "backend": str,
    "device": str,
    "batch": int,
    "unit": str,
    "items": int,
    "first_call_s": float,
    "compile_s": float,
    "seconds": float,
    "seconds_min": float,
    "seconds_max": float,
    "repeats": int,
    "calls_per_repeat": int,
    "throughput": float,
}
PEER_FIELDS = {"name": str, "backend": str, "throughput": float, "ratio": float, "positions": str}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One quick run of the command (about a minute on 2 cores): (exit status, dir, stdout)."""
    out = tmp_path_factory.mktemp("bench")
    capture = pytest.MonkeyPatch()  # capsys is per test; this run is shared by the module
    stdout = io.StringIO()
    capture.setattr(sys, "stdout", stdout)
    try:
        status = main(["bench", "--quick", "--games", *GAMES, "--out", str(out)])
    finally:
        capture.undo()
    return status, out, stdout.getvalue()


@pytest.fixture(scope="module")
def result(run):
    _, out, _ = run
    (path,) = out.glob("bench_*_quick.json")
    return json.loads(path.read_text())


def numbers(tree, where=""):
    """Every number in a JSON tree (bools excluded), with its path."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from numbers(value, f"{where}.{key}")
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from numbers(value, f"{where}[{i}]")
    elif isinstance(tree, int | float) and not isinstance(tree, bool):
        yield where, tree


def test_the_run_succeeds_and_prints_a_table(run):
    status, _, stdout = run
    assert status == 0
    assert stdout.splitlines()[0].split()[:4] == ["game", "workload", "backend", "batch"]
    assert "rows in" in stdout.splitlines()[-1]


def test_json_schema(result):
    for key in ("schema", "command", "quick", "started", "total_s", "machine", "versions"):
        assert key in result
    assert result["quick"] is True and result["schema"] == 1
    assert result["command"].startswith("jaxgames bench --quick")
    for key in ("cpu", "cores", "python", "accelerators"):
        assert key in result["machine"]
    for key in ("jaxgames", "jax", "jaxlib", "pgx", "open_spiel", "chess", "matplotlib"):
        assert isinstance(result["versions"][key], str)  # a version or "absent"
    assert "cpu" in result["backends"]
    assert set(result["import_time_s"]) >= {"jaxgames", "jaxgames.kernels"}
    assert result["skipped"] == []
    assert isinstance(result["notes"], list) and isinstance(result["files"], list)


def test_rows_cover_every_workload_of_every_game(result):
    rows = result["rows"]
    for row in rows:
        for key, kind in ROW_FIELDS.items():
            assert isinstance(row[key], kind), (key, row)
        assert row["unit"] == bench.UNITS[row["workload"]]
        assert row["throughput"] == pytest.approx(row["items"] / row["seconds"])
        assert row["seconds_min"] <= row["seconds"] <= row["seconds_max"]
        for peer in row.get("peers", []):
            if "error" in peer:
                continue  # a peer that failed names its error; the row stands
            for key, kind in PEER_FIELDS.items():
                assert isinstance(peer[key], kind), (key, peer)
            assert peer["ratio"] == pytest.approx(row["throughput"] / peer["throughput"])
    done = {(r["game"], r["workload"]) for r in rows}
    assert done == {(g, w) for g in GAMES for w in bench.WORKLOADS} - {("tictactoe", "expectation")}
    search = [r for r in rows if r["workload"] == "search"]
    assert {r["params"]["algorithm"] for r in search} == {"alphabeta", "expectiminimax"}


def test_every_number_is_finite_and_those_measured_are_positive(result):
    for where, x in numbers(result):
        assert math.isfinite(x), where
    measured = {"rows": result["rows"], "import_time_s": result["import_time_s"]}
    for where, x in numbers(measured):
        assert x > 0, where


def test_plots_are_png_files(run, result):
    _, out, _ = run
    plots = sorted(out.glob("*.png"))
    assert [p.name for p in plots] == sorted(f for f in result["files"] if f.endswith(".png"))
    assert {p.name.rsplit("_", 1)[-1] for p in plots} >= {f"{g}.png" for g in GAMES}
    for path in plots:
        assert path.read_bytes()[:8] == PNG_MAGIC, path


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--workloads", "nothing"], "invalid choice"),
        (["--repeats", "0"], "repeats must be >= 1"),
        (["--batches", "0"], "batch sizes must be >= 1"),
        (["--backends", "nosuch"], "'nosuch' is not present"),
    ],
)
def test_bad_usage_is_one_line_and_status_2(capsys, tmp_path, argv, message):
    status = main(["bench", "--quick", "--out", str(tmp_path), *argv])
    out, err = capsys.readouterr()
    assert status == 2
    assert err.count("\n") == 1 and message in err
    assert not list(tmp_path.iterdir())  # nothing measured, nothing written
