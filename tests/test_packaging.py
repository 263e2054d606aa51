"""The installed package holds every package of the source tree.

`pyproject.toml` lists its packages by name (the kernels live outside `jaxgames/`), so a new
subpackage that is not added there works from a checkout and is missing from a wheel.
"""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _source_packages() -> set[str]:
    found = set()
    for init in (ROOT / "jaxgames").rglob("__init__.py"):
        found.add(".".join(init.parent.relative_to(ROOT).parts))
    for init in (ROOT / "kernels").rglob("__init__.py"):
        found.add(".".join(("jaxgames", *init.parent.relative_to(ROOT).parts)))
    return found


def test_every_source_package_is_listed_for_installation():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(project["tool"]["setuptools"]["packages"])
    assert _source_packages() - listed == set()
    assert listed - _source_packages() == set()
