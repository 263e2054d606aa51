"""The README's examples run as written: its Python session prints what it says, and every
command of its command-line sections exits 0."""

import doctest
import pathlib
import re
import shlex

import pytest

from jaxgames.cli import main

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

README = pathlib.Path(__file__).parents[2] / "README.md"
TEXT = README.read_text()

# Command lines the suite does not run, each with the reason (everything else is run): the
# key is the whole line, or the start of it for lines that are not `jaxgames` commands.
NOT_RUN = {
    "python -m pip install": "installs packages (the CI's install runs the quick start's)",
    'python -c "import jax; print(jax.devices())"': "only says which devices JAX sees",
    "jaxgames rollout connect4 --playouts 100000": "the GPU section: a GPU's rollout",
    "jaxgames bench": "the whole suite takes 22 minutes; `bench --quick` runs here",
    "jaxgames bench --quick --games tictactoe": (
        "tests/cli/test_bench.py runs `bench --quick` on tic-tac-toe and pig and checks its "
        "JSON and plots"
    ),
    "export ": "the two-process example: tests/kernels/test_sharding.py runs it",
    "JAX_PROCESS_ID=": "the two-process example: tests/kernels/test_sharding.py runs it",
    "wait && cat": "the two-process example: tests/kernels/test_sharding.py runs it",
    "XLA_FLAGS=": "four fake devices must be set before JAX starts: test_sharding.py runs it",
    "jaxgames train backgammon --games 100000 --out runs/bg": (
        "trains for many minutes: tests/learn checks its pieces, benchmarks/learn.py runs it"
    ),
    "jaxgames train backgammon --games 200000 --out runs/bg --resume": "the same, resumed",
    "python3 -m venv": "the quick start: what CI itself runs",
    'jaxgames tables probe chess "8/8/8/8/8/2k5/8/K6R w - - 0 1" --dir tables': (
        "needs the table the line before builds (each command runs in a fresh folder): "
        "tests/search/test_tables.py builds and probes"
    ),
    ". .venv/bin/activate": "the quick start: what CI itself runs",
}


def not_run(command: str) -> bool:
    if command.startswith("jaxgames "):
        return command in NOT_RUN
    return any(command.startswith(prefix) for prefix in NOT_RUN)


def bash_commands(text: str) -> list[str]:
    """The command lines of the README's bash blocks, comments stripped."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def test_the_python_session_prints_what_it_says():
    result = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.attempted >= 10  # the session is there
    assert result.failed == 0


def test_every_command_line_is_run_or_says_why_not():
    commands = bash_commands(TEXT)
    assert len(commands) >= 20
    for command in commands:
        assert command.startswith("jaxgames ") or not_run(command), command


JAXGAMES_LINES = sorted(
    {c for c in bash_commands(TEXT) if c.startswith("jaxgames ") and not not_run(c)}
)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder with the files the README's commands read."""
    (tmp_path / "positions.txt").write_text("4453 12\n44\n# a comment\n3246313 -2\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", JAXGAMES_LINES)
def test_a_readme_command_runs(capsys, workdir, command):
    argv = shlex.split(command)[1:]
    if argv[0] != "bench":
        argv.append("--quiet")
    else:
        argv += ["--out", str(workdir / "bench")]  # not into the repository's results
    status = main(argv)
    _, err = capsys.readouterr()
    assert status == 0, err


def test_the_capability_table_lists_the_games_that_have_each_capability():
    import jaxgames.capabilities as capabilities
    from jaxgames.registry import list_games, make

    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|$", TEXT, re.MULTILINE)
    assert len(rows) >= 10
    games = {name: make(name) for name in list_games()}
    for capability, listed in rows:
        protocol = getattr(capabilities, capability)
        having = {name for name, game in games.items() if isinstance(game, protocol)}
        # a game listed with a parameter ("othello with `score=discs`") has it when so made
        named = {entry.split()[0] for entry in listed.split(", ")}
        plain = {entry for entry in listed.split(", ") if " " not in entry}
        assert plain <= having <= named, (capability, sorted(having), listed)
