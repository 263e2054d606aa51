"""The PNG plots of ``jaxgames bench``: per game, throughput against batch size (log-log),
one line per backend and peer; with an accelerator, its speedup over the CPU."""

from __future__ import annotations

import math
import os
from typing import Any

from jaxgames.bench.config import WORKLOADS


def write_plots(result: dict[str, Any], out_dir: str, stem: str) -> tuple[list[str], list[str]]:
    """PNG plots: per game, throughput against batch size (log-log) for each workload, one
    line per backend and peer; and, with an accelerator, its speedup over the CPU.

    Returns:
        (paths written, notes for what was not drawn).
    """
    try:
        from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
    except ImportError:
        return [], ['plots need matplotlib: pip install -e ".[bench]"']
    rows = result["rows"]
    paths = []
    for game in dict.fromkeys(r["game"] for r in rows):
        workloads = [
            w for w in WORKLOADS if any(r["game"] == game and r["workload"] == w for r in rows)
        ]
        cols = min(3, len(workloads))
        nrows = math.ceil(len(workloads) / cols)
        fig = Figure(figsize=(4.6 * cols, 3.6 * nrows), layout="constrained")
        axes = fig.subplots(nrows, cols, squeeze=False).ravel()
        for ax, workload in zip(axes, workloads, strict=False):
            plot_workload(ax, [r for r in rows if r["game"] == game and r["workload"] == workload])
        for ax in axes[len(workloads) :]:
            ax.set_visible(False)
        fig.suptitle(f"{game}: throughput vs batch size ({result['machine']['cpu']})", fontsize=9)
        paths.append(os.path.join(out_dir, f"{stem}_{game}.png"))
        fig.savefig(paths[-1], dpi=100)
    notes = []
    accelerators = [b for b in result["backends"] if b != "cpu"]
    if accelerators and any(r["backend"] == "cpu" for r in rows):
        paths.append(os.path.join(out_dir, f"{stem}_speedup.png"))
        plot_speedup(Figure(figsize=(7, 4.5), layout="constrained"), rows, accelerators, paths[-1])
    elif accelerators:
        notes.append("no CPU rows to compare the accelerator with: no speedup plot")
    elif rows:
        notes.append("no accelerator present: no speedup plot (run on a GPU machine)")
    return paths, notes


def _series(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[int, float]]:
    """(implementation, backend) -> {batch: throughput}, jaxgames and every peer."""
    series: dict[tuple[str, str], dict[int, float]] = {}
    for r in rows:
        series.setdefault(("jaxgames", r["backend"]), {})[r["batch"]] = r["throughput"]
        for p in r.get("peers", []):
            if "throughput" in p:
                series.setdefault((p["name"], p["backend"]), {})[r["batch"]] = p["throughput"]
    return series


def plot_workload(ax: Any, rows: list[dict[str, Any]]) -> None:
    """One workload's throughput against batch size, log-log, one line per series."""
    for (name, backend), points in _series(rows).items():
        batches = sorted(points)
        style = "-" if name == "jaxgames" else "--"
        marker = "o" if name == "jaxgames" else "s"
        ax.plot(
            batches, [points[b] for b in batches], style, marker=marker, label=f"{name} {backend}"
        )
    _batch_axis(ax, sorted({r["batch"] for r in rows}))
    ax.set_yscale("log")
    ax.set_ylabel(rows[0]["unit"])
    ax.set_title(rows[0]["workload"], fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def _batch_axis(ax: Any, batches: list[int]) -> None:
    """A log-2 batch axis labelled with the batch sizes themselves (64, 256, ...)."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(batches, [str(b) for b in batches])
    ax.minorticks_off()  # no unlabelled 2^k ticks between the sizes (log y is set after)
    ax.set_xlabel("batch size")


def plot_speedup(fig: Any, rows: list[dict[str, Any]], accelerators: list[str], path: str) -> None:
    """Throughput of each accelerator over the CPU's, per game and workload, against batch."""
    axes = fig.subplots(1, len(accelerators), squeeze=False).ravel()
    cpu = {
        (r["game"], r["workload"], r["batch"]): r["throughput"]
        for r in rows
        if r["backend"] == "cpu"
    }
    for ax, backend in zip(axes, accelerators, strict=True):
        lines: dict[tuple[str, str], dict[int, float]] = {}
        for r in rows:
            base = cpu.get((r["game"], r["workload"], r["batch"]))
            if r["backend"] == backend and base:
                lines.setdefault((r["game"], r["workload"]), {})[r["batch"]] = (
                    r["throughput"] / base
                )
        games = list(dict.fromkeys(game for game, _ in lines))
        for (game, workload), points in lines.items():
            batches = sorted(points)
            ax.plot(
                batches,
                [points[b] for b in batches],
                marker="o",
                color=f"C{WORKLOADS.index(workload)}",  # colour: workload; line style: game
                linestyle=("-", "--", ":", "-.")[games.index(game) % 4],
                label=f"{game} {workload}",
            )
        ax.axhline(1.0, color="grey", lw=0.8)
        _batch_axis(ax, sorted({r["batch"] for r in rows if r["backend"] == backend}))
        ax.set_yscale("log")
        ax.set_ylabel(f"{backend} / cpu throughput")
        ax.set_title(f"speedup of {backend} over cpu", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    fig.savefig(path, dpi=100)
