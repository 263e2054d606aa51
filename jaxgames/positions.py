"""Reading positions, one per line, with errors that name the file and line.

A positions line is a position in the game's notation, then, optionally, a label: whatever
follows the position (the score of a ``<moves> <score>`` test set, an EPD operation, a
name). Each game says where its position ends (:meth:`jaxgames.game.Game.split_position`:
a move string is one word, a FEN has 4 or 6 fields, ...), so a label is never read as part
of the position, and a line whose position part does not parse is an error naming the line.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from jaxgames.game import Game, GameError

COMMENT = "#"


class Position(NamedTuple):
    source: str  # "FILE:LINE", or "sample:N" for built-in positions
    text: str  # the position as given (the line without its label)
    state: Any  # the parsed state
    label: str = ""  # what followed the position on its line ("" when nothing)


class BadLine(NamedTuple):
    source: str
    text: str
    message: str


class InputError(GameError):
    """Input that cannot be read at all (missing file, strict mode and a bad line)."""


def parse_line(game: Game, line: str) -> tuple[str, str, Any]:
    """``(position, label, state)`` of one positions line (:class:`GameError` if the
    position part does not parse)."""
    position, label = game.split_position(line)
    return position, label, game.parse(position)


def is_position_line(line: str) -> bool:
    """False for the blank and comment lines a positions file may hold."""
    text = line.strip()
    return bool(text) and not text.startswith(COMMENT)


def source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _lines(path: str) -> Iterator[tuple[int, str]]:
    if path == "-":
        yield from enumerate(sys.stdin, start=1)
        return
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115 (closed below)
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a positions file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read positions file: {err.strerror}") from None
    with handle:
        number = 0
        try:
            for number, line in enumerate(handle, start=1):  # noqa: B007 (read on error)
                yield number, line
        except UnicodeDecodeError as err:
            raise InputError(f"{path}:{number + 1}: not a UTF-8 text file ({err.reason})") from None


def check_file(path: str | None) -> int | None:
    """Read a positions file through once before any work: it exists, is readable and is
    UTF-8 text. Returns its number of position lines (None for stdin, which is read once,
    or the built-in sample). Raises :class:`InputError` naming the file (and line)."""
    if path is None or path == "-":
        return None
    decoder = codecs.getincrementaldecoder("utf-8")()
    count, number = 0, 0
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):  # noqa: B007 (read on error)
                count += is_position_line(decoder.decode(raw))
            decoder.decode(b"", final=True)
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a positions file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read positions file: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise InputError(f"{path}:{max(number, 1)}: not a UTF-8 text file ({err.reason})") from None
    return count


def read_positions(
    game: Game,
    path: str | None,
    strict: bool = False,
    bad: list[BadLine] | None = None,
    lines: Iterable[tuple[int, str]] | None = None,
) -> Iterator[Position]:
    """Parse positions one per line from ``path`` (``-`` for stdin, ``None`` for the sample).

    Blank lines and lines starting with ``#`` are skipped. Each line is a position and an
    optional label (see the module docstring).

    Args:
        strict: raise :class:`InputError` at the first bad line instead of skipping it.
        bad: a list that receives a :class:`BadLine` for every skipped line.
        lines: ``(number, line)`` pairs to read instead of the file (already read once);
            errors still name ``path``.
    """
    if path is None:
        for i, text in enumerate(game.sample_positions(), start=1):
            yield Position(f"sample:{i}", text, game.parse(text))
        return
    for number, raw in _lines(path) if lines is None else lines:
        if not is_position_line(raw):
            continue
        source = f"{source_name(path)}:{number}"
        try:
            text, label, state = parse_line(game, raw)
        except GameError as err:
            if strict:
                raise InputError(f"{source}: {err}") from None
            if bad is not None:
                bad.append(BadLine(source, raw.strip(), str(err)))
            continue
        yield Position(source, text, state, label)


def read_lines(path: str) -> list[tuple[int, str]]:
    """Every ``(number, line)`` of a positions file or stdin, held in memory (``--strict``
    checks them all before any work, then evaluates them)."""
    return list(_lines(path))
