"""Where the rows of a bulk evaluation go: JSONL, CSV or a terminal table, to a file or a
stream, resumable.

An output file is checked before any work (its folder exists, it can be written) and
touched only when the first new rows are ready: a run that fails before that leaves an
existing file byte for byte as it was and creates none. A resumed file keeps its complete
rows; the partial last line a killed run may have left is cut off only when new rows follow.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
from typing import IO, Any

from jaxgames.game import GameError

FORMATS = ("jsonl", "csv", "table")


class OutputError(GameError):
    """An output that cannot be written, or holds rows of another run."""


def choose_format(fmt: str | None, path: str | None) -> str:
    """The format asked for, else csv for a ``.csv`` file, jsonl for another file and a
    table for the terminal."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise OutputError(f"unknown output format {fmt!r}; known: {', '.join(FORMATS)}")
        if fmt == "table" and path:
            raise OutputError("--format table is for the terminal; use jsonl or csv")
        return fmt
    if path:
        return "csv" if path.lower().endswith(".csv") else "jsonl"
    return "table"


def check_writable(path: str, flag: str = "--out") -> None:
    """Refuse, in one line naming ``flag``, an output path that cannot be written: a
    directory, a missing folder, a file or folder without write permission. Nothing is
    changed: an existing file is opened for appending and closed, a new one is tried as a
    temporary file in its folder and removed."""
    if os.path.isdir(path):
        raise OutputError(f"{flag} {path}: is a directory; give a file name")
    if os.path.exists(path) and not os.path.isfile(path):  # a device or a pipe: not resumable
        raise OutputError(
            f"{flag} {path}: not a regular file (a device or a pipe); give a file name"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OutputError(f"{flag} {path}: the folder {folder} does not exist")
    try:
        if os.path.exists(path):
            with open(path, "ab"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".jaxgames-check-"):
                pass
    except OSError as err:
        raise OutputError(f"{flag} {path}: cannot write there ({err.strerror})") from None


def read_existing(path: str, fmt: str, columns: list[str]) -> tuple[list[dict[str, Any]], int]:
    """The complete rows already in ``path`` and the bytes they take (with a CSV header).

    A last line without its newline (left by a run killed while writing) is not counted;
    the file itself is not changed. A file that is not an output of this format is refused.
    """
    if not os.path.exists(path):
        return [], 0
    rows: list[dict[str, Any]] = []
    keep = 0
    foreign = f"{path}: not an output of `jaxgames evaluate --format {fmt}`"
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                break  # the partial line of a killed run
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
                if fmt == "csv":
                    fields = next(csv.reader([line]))
                    if number == 1:
                        if fields != columns:
                            raise ValueError
                    elif len(fields) == len(columns):
                        rows.append(dict(zip(columns, fields, strict=True)))
                    else:
                        raise ValueError
                else:
                    row = json.loads(line)
                    if not isinstance(row, dict) or not isinstance(row.get("position"), str):
                        raise ValueError
                    rows.append(row)
            except (ValueError, StopIteration):
                raise OutputError(f"{foreign} (line {number}); choose another --out") from None
            keep += len(raw)
    return rows, keep


_TABLE_WIDTHS = {
    "position": 38,
    "label": 8,
    "to_move": 7,
    "value": 8,
    "score": 5,
    "best_move": 9,
    "nodes": 8,
}


def jsonl(rows: list[dict[str, Any]]) -> str:
    """Rows as JSON lines, one row a line."""
    return "".join(json.dumps(row) + "\n" for row in rows)


def check_resume(
    path: str, done: list[dict[str, Any]], positions: Any, depth: int, algorithm: str
) -> None:
    """Consume the first ``len(done)`` input ``positions`` (texts or records), checking that
    they are those of the rows ``done`` already in ``path``, searched by ``algorithm`` at
    ``depth``."""
    for number, row in enumerate(done, start=1):
        if str(row.get("depth")) != str(depth) or row.get("algorithm") != algorithm:
            raise OutputError(
                f"{path}: row {number} is {row.get('algorithm')} at depth {row.get('depth')}, "
                f"not {algorithm} at depth {depth}; choose another --out"
            )
        item = next(positions, None)
        text = item if isinstance(item, str) or item is None else item.text
        if text != row["position"]:
            raise OutputError(
                f"{path}: the output file belongs to other input (row {number} is position "
                f"{row['position']!r}, input position {number} is "
                f"{'missing' if text is None else repr(text)}); choose another --out"
            )


def table_line(row: dict[str, Any], columns: list[str]) -> str:
    """One aligned line of the terminal table (numbers right-aligned, text cut to width)."""
    cells = []
    for col in [c for c in columns if c != "pv"] + ["pv"]:  # the PV, of any length, goes last
        if col in ("depth", "algorithm"):
            continue
        value = row[col]
        if isinstance(value, float):
            value = f"{value:+.4f}"
        text = str(value)
        width = _TABLE_WIDTHS.get(col)
        if width is None:  # the PV takes what it needs
            cells.append(text)
            continue
        if len(text) > width:
            text = text[: width - 1] + "…"
        cells.append(text.ljust(width) if col in ("position", "label") else text.rjust(width))
    return " ".join(cells)


class RowWriter:
    """Rows in one format to a file (appended, resumable) or a stream.

    Args:
        path: the output file, or None for ``stream``.
        fmt: ``jsonl``, ``csv`` or ``table``.
        columns: the fields of a row, in order.
        keep: bytes of ``path`` to keep (:func:`read_existing`); the rest, a partial last
            line, is cut off before the first new rows.
        legend: lines printed after a table's rows (what its columns mean).
    """

    def __init__(
        self,
        path: str | None,
        fmt: str,
        columns: list[str],
        keep: int = 0,
        legend: list[str] | None = None,
        stream: IO[str] | None = None,
    ) -> None:
        self.path, self.fmt, self.columns, self.keep = path, fmt, columns, keep
        self.legend = legend or []
        self.stream = stream
        self.handle: IO[str] | None = None
        self.written = 0

    def _open(self) -> IO[str]:
        if self.path is None:
            return self.stream or sys.stdout
        new = not os.path.exists(self.path)
        if not new and os.path.getsize(self.path) > self.keep:
            with open(self.path, "r+b") as handle:
                handle.truncate(self.keep)  # the partial last line of a killed run
        handle = open(self.path, "a", encoding="utf-8", newline="")  # noqa: SIM115
        if self.fmt == "csv" and self.keep == 0:
            csv.writer(handle, lineterminator="\n").writerow(self.columns)
        return handle

    def write(self, rows: list[dict[str, Any]]) -> None:
        """Append rows and flush (the first call opens the output and writes any header)."""
        if not rows:
            return
        if self.handle is None:
            self.handle = self._open()
            if self.fmt == "table":
                self.handle.write(table_line({c: c for c in self.columns}, self.columns) + "\n")
            if self.fmt == "csv" and self.path is None:
                csv.writer(self.handle, lineterminator="\n").writerow(self.columns)
        out = self.handle
        if self.fmt == "csv":
            writer = csv.DictWriter(out, fieldnames=self.columns, lineterminator="\n")
            writer.writerows(rows)
        elif self.fmt == "table":
            out.writelines(table_line(row, self.columns) + "\n" for row in rows)
        else:
            out.write(jsonl(rows))
        out.flush()
        self.written += len(rows)

    def close(self) -> None:
        """Print a table's legend (when it has rows) and close the file."""
        if self.handle is None:
            return
        if self.fmt == "table" and self.written:
            self.handle.writelines(line + "\n" for line in self.legend)
            self.handle.flush()
        if self.path is not None:
            self.handle.close()
        self.handle = None


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in its folder, renamed over it
    at the end: a failure leaves no half file and an existing one as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".jaxgames-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
