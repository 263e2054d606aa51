"""Reading positions, one per line, with errors that name the file and line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any, NamedTuple

from jaxgames.game import Game, GameError


class Position(NamedTuple):
    source: str  # "FILE:LINE", or "sample:N" for built-in positions
    text: str  # the position as given
    state: Any  # the parsed state


class BadLine(NamedTuple):
    source: str
    text: str
    message: str


class InputError(GameError):
    """Input that cannot be read at all (missing file, strict mode and a bad line)."""


def _lines(path: str) -> Iterator[tuple[int, str]]:
    if path == "-":
        yield from enumerate(sys.stdin, start=1)
        return
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115 (closed below)
    except OSError as err:
        raise InputError(f"{path}: cannot read positions file: {err.strerror}") from None
    with handle:
        try:
            yield from enumerate(handle, start=1)
        except UnicodeDecodeError as err:
            raise InputError(f"{path}: not a UTF-8 text file ({err.reason})") from None


def read_positions(
    game: Game, path: str | None, strict: bool = False, bad: list[BadLine] | None = None
) -> Iterator[Position]:
    """Parse positions one per line from ``path`` (``-`` for stdin, ``None`` for the sample).

    Blank lines and lines starting with ``#`` are skipped. Anything after the position on a
    line, separated by whitespace, is ignored when the game's notation has no spaces?  No:
    the whole stripped line is the position, except that a trailing field separated by a
    tab is dropped (so ``<position>\\t<label>`` files work).

    Args:
        strict: raise :class:`InputError` at the first bad line instead of skipping it.
        bad: a list that receives a :class:`BadLine` for every skipped line.
    """
    if path is None:
        for i, text in enumerate(game.sample_positions(), start=1):
            yield Position(f"sample:{i}", text, game.parse(text))
        return
    for number, raw in _lines(path):
        text = raw.split("\t", 1)[0].strip()
        if not text or text.startswith("#"):
            continue
        source = f"{path if path != '-' else '<stdin>'}:{number}"
        try:
            text, state = _parse_line(game, text)
        except GameError as err:
            if strict:
                raise InputError(f"{source}: {err}") from None
            if bad is not None:
                bad.append(BadLine(source, text, str(err)))
            continue
        yield Position(source, text, state)


def _parse_line(game: Game, text: str) -> tuple[str, Any]:
    try:
        return text, game.parse(text)
    except GameError:
        first = text.split(None, 1)[0]
        if first == text:
            raise
        try:
            return first, game.parse(first)
        except GameError:
            pass
        raise
