"""A ``jaxgames bench`` JSON as a Markdown table, peers and ratios inline:
``python benchmarks/report.py benchmarks/results/bench_cpu.json``."""

from __future__ import annotations

import json
import sys
from typing import Any

from jaxgames.bench.helpers import human


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
    with open(sys.argv[1], encoding="utf-8") as f:
        print(markdown(json.load(f)))
