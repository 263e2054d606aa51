"""Readers of the public reference sets some benchmarks check their answers against: the
connect-four solver test sets (``<moves> <score>`` lines) and the FFORUM Othello problems
(``.obf``: a board, the side to move, every listed move with its exact disc difference)."""

from __future__ import annotations

from typing import Any

FFORUM_FIRST = 20  # the number of the file's first problem


def pons_lines(path: str, limit: int | None = None) -> list[list[Any]]:
    """The first ``limit`` (default all) ``[moves, score]`` pairs of a connect-four test set."""
    lines: list[list[Any]] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if limit is not None and len(lines) >= limit:
                break
            fields = line.split()
            if len(fields) == 2:
                lines.append([fields[0], int(fields[1])])
    return lines


def fforum_positions(path: str, wanted: str) -> dict[str, Any]:
    """The FFORUM problems asked for (``"20,21"``, ``"20-25"``, ``"all"``), by number: the
    board and side to move, its empty squares, and every listed move with its score."""
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    last = FFORUM_FIRST + len(lines)
    numbers = list(range(FFORUM_FIRST, last))
    if wanted != "all":
        chosen: list[int] = []
        for part in wanted.split(","):
            lo, _, hi = part.partition("-")
            chosen += list(range(int(lo), int(hi or lo) + 1))
        numbers = [k for k in chosen if FFORUM_FIRST <= k < last]
    items: dict[str, Any] = {}
    for k in numbers:
        fields = [x.strip() for x in lines[k - FFORUM_FIRST].split(";") if x.strip()]
        board_side = fields[0]
        moves = []
        for entry in fields[1:]:
            name, score = entry.split(":")
            moves.append([name.lower(), int(score)])
        items[str(k)] = {
            "position": board_side,
            "empties": board_side.split()[0].count("-"),
            "moves": moves,
        }
    return items
