"""The persistent compilation cache: where it lives, its off switch, a user's own JAX setting
left alone, and a second process finding what the first compiled.

JAX's configuration is global and this process's backend started at import (conftest), so
every case runs in a fresh interpreter.
"""

import json
import os
import subprocess
import sys

import pytest

import jaxgames
from jaxgames import compilation

pytestmark = pytest.mark.slow  # many fresh interpreters: outside the fast subset

# Set in a subprocess, prints what use_persistent_cache() returned and JAX's settings after.
PROBE = """
import json, jax
from jaxgames.compilation import use_persistent_cache
{before}
path = use_persistent_cache()
again = use_persistent_cache()
print(json.dumps({{
    "path": path,
    "again": again,
    "dir": jax.config.values["jax_compilation_cache_dir"],
    "min_time": jax.config.values["jax_persistent_cache_min_compile_time_secs"],
}}))
"""

JAX_DEFAULT_MIN_TIME = 1.0


def clean_env(tmp_path, **extra):
    """The environment without any cache setting of the caller's; HOME and XDG_CACHE_HOME
    in ``tmp_path`` so that nothing lands in the real user's cache."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            compilation.ENV,
            "JAX_COMPILATION_CACHE_DIR",
            "JAX_ENABLE_COMPILATION_CACHE",
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
            "JAX_LOG_COMPILES",
            "XDG_CACHE_HOME",
        )
    }
    env["HOME"] = str(tmp_path / "home")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def probe(env, before=""):
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(before=before)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_cache_directory_follows_the_environment_variable(tmp_path):
    ours = tmp_path / "cache" / "xla"
    got = probe(clean_env(tmp_path, JAXGAMES_CACHE_DIR=ours))
    assert got["path"] == got["again"] == got["dir"] == str(ours)
    assert ours.is_dir()
    assert got["min_time"] == 0.0  # every program kept, however quick to compile


def test_the_default_directory_is_under_the_users_cache(tmp_path):
    got = probe(clean_env(tmp_path, XDG_CACHE_HOME=tmp_path / "xdg"))
    assert got["path"] == str(tmp_path / "xdg" / "jaxgames" / "xla")
    got = probe(clean_env(tmp_path))  # no XDG_CACHE_HOME: ~/.cache
    assert got["path"] == str(tmp_path / "home" / ".cache" / "jaxgames" / "xla")


@pytest.mark.parametrize("off", ["off", "0", "OFF"])
def test_the_off_switch_leaves_jax_alone(tmp_path, off):
    got = probe(clean_env(tmp_path, JAXGAMES_CACHE_DIR=off, XDG_CACHE_HOME=tmp_path / "xdg"))
    assert got["path"] is None and got["dir"] is None
    assert got["min_time"] == JAX_DEFAULT_MIN_TIME
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()


def test_jax_caching_turned_off_by_the_user_stays_off(tmp_path):
    env = clean_env(tmp_path, JAXGAMES_CACHE_DIR=tmp_path / "ours")
    env["JAX_ENABLE_COMPILATION_CACHE"] = "false"
    got = probe(env)
    assert got["path"] is None and got["dir"] is None
    assert not (tmp_path / "ours").exists()


def test_a_users_own_jax_cache_is_never_overridden(tmp_path):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    env = clean_env(tmp_path, JAX_COMPILATION_CACHE_DIR=theirs, JAXGAMES_CACHE_DIR=ours)
    got = probe(env)
    assert got["path"] == got["dir"] == str(theirs)
    assert got["min_time"] == JAX_DEFAULT_MIN_TIME  # their thresholds too
    assert not ours.exists()
    # set in their program, before jaxgames runs
    before = f"jax.config.update('jax_compilation_cache_dir', {str(theirs)!r})"
    got = probe(clean_env(tmp_path, JAXGAMES_CACHE_DIR=ours), before=before)
    assert got["path"] == got["dir"] == str(theirs)
    assert not ours.exists()


def test_a_users_own_threshold_is_kept(tmp_path):
    env = clean_env(tmp_path, JAXGAMES_CACHE_DIR=tmp_path / "ours")
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "2.5"
    assert probe(env)["min_time"] == 2.5


def test_a_directory_that_cannot_be_made_means_no_cache_and_no_error(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    env = clean_env(tmp_path, JAXGAMES_CACHE_DIR=tmp_path / "file" / "xla")
    got = probe(env)
    assert got["path"] is None and got["dir"] is None
    assert got["min_time"] == JAX_DEFAULT_MIN_TIME


def show(env):
    return subprocess.run(
        [sys.executable, "-m", "jaxgames", "show", "tictactoe", "x.o/.x./..o"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_second_process_finds_what_the_first_compiled(tmp_path):
    """Two runs of `jaxgames show` with the same cache: the first writes the programs it
    compiled, the second loads them (JAX logs a persistent-cache hit) and writes nothing."""
    cache = tmp_path / "xla"
    env = clean_env(tmp_path, JAXGAMES_CACHE_DIR=cache, JAX_LOG_COMPILES=1)
    first = show(env)
    assert first.returncode == 0, first.stderr
    entries = sorted(os.listdir(cache))
    assert entries, "the first run wrote nothing to the cache"
    second = show(env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "cache hit" in second.stderr.lower()
    assert sorted(os.listdir(cache)) == entries  # everything was found: nothing new written


def test_the_evaluate_wrappers_turn_the_cache_on(monkeypatch):
    """`jaxgames.evaluate` and `iter_evaluate` call use_persistent_cache before searching
    (stubbed here: this process's JAX configuration stays as it is)."""
    from jaxgames import bulk

    calls = []
    monkeypatch.setattr(compilation, "use_persistent_cache", lambda: calls.append("cache"))
    monkeypatch.setattr(bulk, "evaluate", lambda *a, **k: calls.append("evaluate") or [])
    monkeypatch.setattr(bulk, "iter_evaluate", lambda *a, **k: iter(calls.append("iter") or []))
    assert jaxgames.evaluate("tictactoe", []) == []
    assert list(jaxgames.iter_evaluate("tictactoe", [])) == []
    assert calls == ["cache", "evaluate", "cache", "iter"]
