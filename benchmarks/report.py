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


def human(x: float) -> str:
    """1234567 -> '1.23M' (3 significant digits with a k/M/G suffix)."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def markdown(result: dict[str, Any]) -> str:
    """The rows of a ``jaxgames bench`` JSON as a Markdown table, peers and ratios inline."""
    lines = [
        "| game | workload | backend | batch | compile s | median ms | throughput | unit | peers"
        " (throughput, jaxgames/peer) |",
        "|---|---|---|---:|---:|---:|---:|---|---|",
    ]
    for r in result["rows"]:
        peers = "; ".join(
            f"{p['name']} {human(p['throughput'])} **{p['ratio']:.2f}x**"
            for p in r.get("peers", [])
            if p.get("ratio")
        )
        lines.append(
            f"| {r['game']} | {r['workload']} | {r['backend']} | {r['batch']} | "
            f"{r['compile_s']:.2f} | {1e3 * r['seconds']:.3g} | {human(r['throughput'])} | "
            f"{r['unit']} | {peers} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    import json
    import sys

    with open(sys.argv[1], encoding="utf-8") as f:
        print(markdown(json.load(f)))
