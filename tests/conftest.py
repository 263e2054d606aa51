"""Shared test setup: the tests' own games and the reference tables."""

import os
import pathlib
import sys

# Hypothesis examples must stay few: each new array shape is a new XLA compilation.
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile("jaxgames", max_examples=10, deadline=None)
settings.load_profile("jaxgames")

REFERENCE = pathlib.Path(__file__).parent / "reference"
