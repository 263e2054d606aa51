"""Shared test setup: the tests' own games and the reference tables."""

import os
import pathlib
import sys
import tempfile

# The tests check values, not speed, and most of their time is XLA compiling programs that run
# for milliseconds: LLVM's optimisation level 0 compiles about 30 % faster on the CPU backend
# (one test file: 212 s -> 148 s of CPU). Set before JAX starts its backend; subprocess tests
# inherit it. A run that sets its own level keeps it.
_LEVEL = "--xla_backend_optimization_level"
if _LEVEL not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_LEVEL}=0".strip()

import jax  # noqa: E402
import pytest  # noqa: E402

# Hypothesis examples must stay few: each new array shape is a new XLA compilation.
from hypothesis import settings  # noqa: E402

from jaxgames.compilation import use_persistent_cache  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile("jaxgames", max_examples=10, deadline=None)
settings.load_profile("jaxgames")

REFERENCE = pathlib.Path(__file__).parent / "reference"

# One persistent compilation cache for the whole run, empty at its start: the same program
# compiled again after the per-module drop below (or in a subprocess test) is loaded, not
# recompiled, and nothing of an earlier run or of the user's own cache is read.
# (Test workers started by pytest-xdist inherit the folder of the process that started them.)
if "JAXGAMES_TEST_CACHE" not in os.environ:
    os.environ["JAXGAMES_TEST_CACHE"] = tempfile.mkdtemp(prefix="jaxgames-tests-xla-")
os.environ["JAXGAMES_CACHE_DIR"] = os.environ["JAXGAMES_TEST_CACHE"]
use_persistent_cache()

# JAX's backend starts now, with the devices of the environment: the command line run inside
# this process (`jaxgames evaluate`) would otherwise split the CPU into one device per core
# for every test after it. Subprocess tests choose their devices themselves.
jax.devices()


@pytest.fixture(autouse=True, scope="module")
def _drop_compiled_programs():
    """Drop every compiled XLA program after each test module.

    Each program the CPU backend compiles keeps its own memory mappings, and the whole suite
    compiles thousands: in one process they pass Linux's default limit of 65,530 mappings
    per process (``vm.max_map_count``), and the next compilation crashes the interpreter.
    Modules rarely share programs, so dropping them costs little recompilation.
    """
    yield
    jax.clear_caches()
