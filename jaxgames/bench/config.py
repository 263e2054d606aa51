"""What ``jaxgames bench`` measures: the workloads, the default sizes, each game's depth, caps
and peers, and the settings of one run."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jaxgames.game import Game

WORKLOADS = ("step", "playouts", "eval", "expectation", "search")
UNITS = {
    "step": "steps/s",
    "playouts": "playouts/s",
    "eval": "leaves/s",
    "expectation": "chance nodes/s",
    "search": "positions/s",
}
SYNTHETIC_GAMES = frozenset({"tree", "uniform_tree"})  # test trees, not games to benchmark
QUICK_GAMES = ("tictactoe", "connect4", "pig")
QUICK_BATCHES = (64, 256)
FULL_BATCHES = (64, 256, 1024, 4096, 16384)
# Largest default batch per workload: a whole search or playout of the largest batches is
# long on a CPU. Explicit --batches are used as given.
DEFAULT_CAPS = {"step": 16384, "playouts": 4096, "eval": 16384, "expectation": 4096, "search": 1024}
QUICK_CAPS = {"search": 64}  # a batch search is slow to compile: one size in a quick run
QUICK_SEARCH_DEPTH = 2
QUICK_REPEATS, FULL_REPEATS = 3, 5
QUICK_SAMPLE_S, FULL_SAMPLE_S = 0.002, 0.01  # a timed sample lasts at least this long
QUICK_PEER_BUDGET_S, FULL_PEER_BUDGET_S = 0.3, 3.0  # OpenSpiel: whole games for this long
PYTHON_CHESS_MAX_POSITIONS = 1024  # python-chess runs on the first positions of the batch
DEFAULT_OUT = os.path.join("benchmarks", "results")
PEER_MODULES = {"pgx": "pgx", "open_spiel": "pyspiel", "python-chess": "chess"}


@dataclass(frozen=True)
class GameBench:
    """How one game is benchmarked: its search depth, batch caps and peers.

    Attributes:
        search_depth: plies of the ``search`` workload in a full run.
        caps: largest default batch per workload (over :data:`DEFAULT_CAPS`).
        pgx: the game's name in pgx, or None.
        openspiel: the game's name in OpenSpiel, or None.
        openspiel_params: the game -> OpenSpiel game parameters.
        python_chess: python-chess is a peer of ``step`` (positions as FEN).
        pgx_note: what differs in pgx's version of the game.
    """

    search_depth: int = 2
    caps: dict[str, int] = field(default_factory=dict)
    pgx: str | None = None
    openspiel: str | None = None
    openspiel_params: Callable[[Game], dict[str, Any]] = lambda game: {}
    python_chess: bool = False
    pgx_note: str = ""


GAMES: dict[str, GameBench] = {
    "tictactoe": GameBench(search_depth=4, pgx="tic_tac_toe", openspiel="tic_tac_toe"),
    "connect4": GameBench(search_depth=4, pgx="connect_four", openspiel="connect_four"),
    "othello": GameBench(search_depth=3, caps={"search": 256}, pgx="othello", openspiel="othello"),
    "chess": GameBench(
        search_depth=2,
        caps={"step": 4096, "eval": 4096, "playouts": 256, "search": 256},
        pgx="chess",
        openspiel="chess",
        python_chess=True,
        pgx_note="pgx ends every game at 512 plies",
    ),
    "backgammon": GameBench(
        search_depth=2,
        caps={"step": 1024, "eval": 4096, "playouts": 256, "expectation": 256, "search": 64},
        pgx="backgammon",
        openspiel="backgammon",
        pgx_note="a pgx action moves one checker; a jaxgames action plays a whole roll",
    ),
    "pig": GameBench(
        search_depth=4, openspiel="pig", openspiel_params=lambda game: {"winscore": game.goal}
    ),
    "chinese_checkers": GameBench(search_depth=2, caps={"search": 256}),
}


@dataclass
class BenchConfig:
    """What one run measures; ``None`` takes the default of the mode (quick or full).

    Attributes:
        quick: small batches, shallow search, few repeats: a smoke run.
        games: game specs (default: :data:`QUICK_GAMES` when quick, else every registered
            game but the synthetic trees).
        workloads: a subset of :data:`WORKLOADS`.
        batches: batch sizes (default :data:`QUICK_BATCHES` or :data:`FULL_BATCHES`, capped
            per workload).
        backends: JAX platforms to run on (default: every one present).
        repeats: timed samples per row (the median is reported).
        out_dir: where the JSON and PNG files go.
        peers: measure the peers that are installed.
        seed: seed of the positions' random play.
        command: the command line, recorded in the JSON.
    """

    quick: bool = False
    games: Sequence[str] | None = None
    workloads: Sequence[str] = WORKLOADS
    batches: Sequence[int] | None = None
    backends: Sequence[str] | None = None
    repeats: int | None = None
    out_dir: str = DEFAULT_OUT
    peers: bool = True
    seed: int = 0
    command: str = "jaxgames bench"


@dataclass
class Settings:
    """Resolved settings shared by every measurement of a run."""

    quick: bool
    repeats: int
    min_sample_s: float
    peer_budget_s: float
    seed: int
    peers: bool
    backend: str | None = None  # the backend being measured
