"""Terminal tables for the benchmark scripts (shared, so every script prints alike)."""

from __future__ import annotations

from typing import Any


def table(header: list[str], rows: list[list[Any]]) -> None:
    """Print ``rows`` under ``header``, right-aligned; numbers >= 100 with thousands commas,
    other floats to 3 significant digits."""
    cells = [
        [
            f"{c:,.0f}"
            if isinstance(c, (int, float)) and not isinstance(c, bool) and abs(c) >= 100
            else (f"{c:.3g}" if isinstance(c, float) else str(c))
            for c in row
        ]
        for row in rows
    ]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    for row in cells:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)), flush=True)
