"""The learning-curve plot: score against each baseline over the games trained."""

from __future__ import annotations

from typing import Any


def plot_curve(curve: list[dict[str, Any]], path: str, title: str = "learning curve") -> str:
    """Write a PNG of ``curve`` rows (``games`` and a score per baseline) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [k for k in (curve[0] if curve else {}) if k not in ("games", "seconds")]
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in names:
        ax.plot(
            [r["games"] for r in curve],
            [r[name] for r in curve],
            marker="o",
            label=f"against {name}",
        )
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("self-play games trained")
    ax.set_ylabel("score (wins / games, 1-ply greedy)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
