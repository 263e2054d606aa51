"""What the verbs of the ``jaxgames`` command share: the usage error, argument checks, the
report of skipped lines, and whether progress is shown."""

from __future__ import annotations

import argparse
import sys

from jaxgames.positions import BadLine


class UsageError(Exception):
    """Bad command-line usage: reported in one line, exit status 2."""


def positive(value: int, flag: str, verb: str, least: int = 1) -> int:
    """``value``, or a usage error naming ``flag`` when it is below ``least``."""
    if value < least:
        raise UsageError(f"{verb}: {flag} must be >= {least}, got {value}")
    return value


def nothing_valid(message: str, bad: list[BadLine]) -> str:
    """The one line of a run that found no position: how many lines were skipped, and why the
    first was (the per-line reports would make it several lines)."""
    if not bad:
        return message
    count = f"{len(bad)} line{'s' if len(bad) > 1 else ''} skipped"
    return f"{message} ({count}; {bad[0].source}: {bad[0].message})"


def report_bad(bad: list[BadLine]) -> None:
    """One line on stderr per bad input line skipped."""
    for line in bad:
        print(f"jaxgames: skipped {line.source}: {line.message}", file=sys.stderr)


def shown(args: argparse.Namespace) -> bool | str:
    """The progress display on stderr (:func:`jaxgames.progress.status_line`): ``--progress``
    as given; by default a status line when stderr is a terminal; none with ``--quiet``."""
    choice = getattr(args, "progress", "auto")
    if args.quiet or choice == "off":
        return False
    if choice == "auto":
        return sys.stderr.isatty()
    return choice
