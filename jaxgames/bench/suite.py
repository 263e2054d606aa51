"""The ``jaxgames bench`` run: every workload of every game on every backend and batch size,
a line of the table per row as it is measured, then the JSON and the plots (what each
workload is and the JSON schema: :mod:`jaxgames.bench`)."""

from __future__ import annotations

import datetime
import functools
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import jax
import numpy as np

import jaxgames
from jaxgames import progress
from jaxgames.bench.config import (
    DEFAULT_CAPS,
    FULL_BATCHES,
    FULL_PEER_BUDGET_S,
    FULL_REPEATS,
    FULL_SAMPLE_S,
    GAMES,
    PEER_MODULES,
    QUICK_BATCHES,
    QUICK_CAPS,
    QUICK_GAMES,
    QUICK_PEER_BUDGET_S,
    QUICK_REPEATS,
    QUICK_SAMPLE_S,
    QUICK_SEARCH_DEPTH,
    SYNTHETIC_GAMES,
    UNITS,
    WORKLOADS,
    BenchConfig,
    GameBench,
    Settings,
)
from jaxgames.bench.helpers import (
    available,
    human,
    import_time,
    machine_info,
    measure,
    one_line,
    package_versions,
    write_json,
)
from jaxgames.bench.peers import openspiel_playouts, pgx_peer, python_chess_step
from jaxgames.bench.plots import write_plots
from jaxgames.bench.random_play import positions
from jaxgames.game import Game
from jaxgames.kernels import batch_size, batched, expectation, playouts, random_actions
from jaxgames.registry import list_games, make, parse_spec


# ---------------------------------------------------------------- machine and versions
def versions() -> dict[str, str]:
    """Versions of jaxgames, JAX and the peers ("absent" when not installed)."""
    found = package_versions(("jax", "jaxlib", "numpy", "pgx", "open_spiel", "chess", "matplotlib"))
    return {"jaxgames": jaxgames.__version__} | {d: v or "absent" for d, v in found.items()}


def platforms(wanted: Sequence[str] | None = None) -> list[str]:
    """The JAX platforms to run on: ``cpu`` first, then the accelerators present.

    Raises:
        ValueError: a wanted platform is not present.
    """
    present = ["cpu"]
    for device in jax.devices():
        if device.platform not in present:
            present.append(device.platform)
    if wanted is None:
        return present
    missing = [p for p in wanted if p not in present]
    if missing:
        raise ValueError(f"bench: backend {missing[0]!r} is not present (have {present})")
    return list(dict.fromkeys(wanted))


@dataclass
class Job:
    """One thing to time: a call of no arguments, its work, and how to read extra rates.

    Attributes:
        call: the measured call.
        extra: (last output, seconds per call) -> extra rates for the JSON row.
        params: workload parameters for the JSON row (search depth, algorithm).
    """

    call: Callable[[], Any]
    extra: Callable[[Any, float], dict[str, float]] | None = None
    params: dict[str, Any] = field(default_factory=dict)


@functools.partial(jax.jit, static_argnums=0)
def _step_once(game: Game, states: Any, key: jax.Array) -> Any:
    """Legal mask (or chance probabilities) and one random step of every state ``[B]``."""
    uniform = jax.random.uniform(key, (batch_size(states),))  # [B]
    return jax.vmap(game.step)(states, random_actions(game, states, uniform))


def job(game: Game, workload: str, states: Any, n: int, key: jax.Array, depth: int) -> Job:
    """The jaxgames call of ``workload`` on ``states`` (already on the device).

    Args:
        game: the game.
        workload: one of :data:`WORKLOADS`.
        states: a batch ``[n]`` of positions (chance nodes for ``expectation``).
        n: the batch size.
        key: a PRNG key (the same in every call, so every call does the same work).
        depth: plies of ``search``.
    """
    if workload == "step":
        return Job(lambda: _step_once(game, states, key))
    if workload == "playouts":
        start = jax.device_put(batched(game).init(n), _device_of(states))
        return Job(
            lambda: playouts(game, start, 1, key),
            extra=lambda out, s: {"moves_per_s": float(np.asarray(out.lengths).sum()) / s},
        )
    if workload == "eval":
        return Job(lambda: batched(game).leaf_values(states))
    if workload == "expectation":
        return Job(lambda: expectation(game, states))
    if workload == "search":
        from jaxgames import bulk

        algorithm = bulk.default_algorithm(game)
        search = bulk.batch_search(algorithm)
        return Job(
            lambda: search(game, states, depth),
            extra=lambda out, s: {"nodes_per_s": float(out.stats["nodes"]) / s},
            params={"depth": depth, "algorithm": algorithm},
        )
    raise ValueError(f"bench: unknown workload {workload!r}")


def _device_of(tree: Any) -> jax.Device:
    return next(iter(jax.tree.leaves(tree)[0].devices()))


def default_games(quick: bool) -> list[str]:
    """The games of a run with no ``--games``: a small set when quick, else every real game."""
    if quick:
        return [g for g in QUICK_GAMES if g in list_games()]
    return [g for g in list_games() if g not in SYNTHETIC_GAMES]


def batches_for(
    workload: str, spec: GameBench, batches: Sequence[int] | None, quick: bool
) -> list[int]:
    """The batch sizes of one workload: explicit ones as given, defaults under the caps."""
    if batches is not None:
        return sorted(set(batches))
    cap = spec.caps.get(workload, DEFAULT_CAPS[workload])
    if quick:
        cap = min(cap, QUICK_CAPS.get(workload, cap))
    sizes = [b for b in (QUICK_BATCHES if quick else FULL_BATCHES) if b <= cap]
    return sizes or [min(QUICK_BATCHES)]


def applies(game: Game, workload: str) -> bool:
    """Whether a workload means something for a game (expectation needs chance nodes)."""
    return workload != "expectation" or game.num_chance_outcomes > 0


class Reporter:
    """The terminal table, printed a line per row as rows are measured, and skip lines."""

    HEADER = (
        f"{'game':<16} {'workload':<11} {'backend':<7} {'batch':>6} {'first s':>8} "
        f"{'median ms':>10} {'throughput':>11}  {'unit':<15} peers (throughput, jaxgames/peer)"
    )

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err

    def header(self) -> None:
        print(self.HEADER, file=self.out, flush=True)

    def row(self, row: dict[str, Any]) -> None:
        print(format_row(row), file=self.out, flush=True)

    def skip(self, what: str, err: BaseException) -> None:
        print(f"jaxgames bench: skipped {what}: {one_line(err)}", file=self.err, flush=True)


def format_row(row: dict[str, Any]) -> str:
    """One line of the terminal table."""
    peers = "; ".join(
        f"{p['name']} {human(p['throughput'])} {p['ratio']:.2f}x"
        if "ratio" in p
        else f"{p['name']} failed (see the JSON)"
        for p in row.get("peers", [])
    )
    return (
        f"{row['game']:<16} {row['workload']:<11} {row['backend']:<7} {row['batch']:>6} "
        f"{row['first_call_s']:>8.2f} {row['seconds'] * 1e3:>10.3f} "
        f"{human(row['throughput']):>11}  {row['unit']:<15} {peers}"
    ).rstrip()


def bench_game(
    spec_text: str,
    cfg: Settings,
    workloads: Sequence[str],
    batches: Sequence[int] | None,
    backends: Sequence[str],
    report: Reporter,
    skipped: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Every row of one game: workloads x backends x batch sizes, with their peers.

    Failures are reported in one line and recorded in ``skipped``; the rest goes on.
    """
    rows: list[dict[str, Any]] = []
    try:
        game = make(spec_text)
        base, params = parse_spec(spec_text)
    except Exception as err:  # an unfinished game must not stop the suite
        report.skip(spec_text, err)
        skipped.append({"game": spec_text, "workload": "*", "backend": "*", "error": one_line(err)})
        return rows
    spec = GAMES.get(base, GameBench())
    ctx = _GameRun(game, spec_text, spec, cfg, peers=cfg.peers and not params)
    for workload in [w for w in workloads if applies(game, w)]:
        for backend in backends:
            cfg.backend = backend
            for n in batches_for(workload, spec, batches, cfg.quick):
                try:
                    with progress.phase(f"{spec_text} {workload} on {backend}, batch {n}"):
                        row = ctx.row(workload, backend, n)
                except Exception as err:  # one bad row must not stop the suite
                    report.skip(f"{spec_text} {workload} ({backend}, batch {n})", err)
                    skipped.append(
                        {
                            "game": spec_text,
                            "workload": workload,
                            "backend": backend,
                            "error": one_line(err),
                        }
                    )
                    continue
                rows.append(row)
                report.row(row)
    return rows


class _GameRun:
    """One game's measurements: its positions (made once per batch size and shared by every
    backend and peer) and OpenSpiel's batch-independent playouts."""

    def __init__(self, game: Game, spec_text: str, spec: GameBench, cfg: Settings, peers: bool):
        """Set up one game's run.

        Args:
            game: the game made from ``spec_text``.
            spec: how it is benchmarked.
            cfg: the run's settings.
            peers: measure the peers (only for a game with its default parameters: the
                game the peers implement).
        """
        self.game, self.spec_text, self.spec, self.cfg, self.peers = (
            game,
            spec_text,
            spec,
            cfg,
            peers,
        )
        self.depth = QUICK_SEARCH_DEPTH if cfg.quick else spec.search_depth
        self.key = jax.random.key(cfg.seed)  # the same in every call: every call, the same work
        self.pool: dict[tuple[int, bool], Any] = {}  # (batch, chance) -> positions (numpy)
        self.spiel: dict[str, Any] = {}  # OpenSpiel's playouts, measured once

    def row(self, workload: str, backend: str, n: int) -> dict[str, Any]:
        """The JSON row of one workload at batch ``n`` on ``backend``, with its peers."""
        chance = workload == "expectation"
        if (n, chance) not in self.pool:
            self.pool[n, chance] = positions(self.game, n, self.cfg.seed, chance)
        ours = self.pool[n, chance]
        device = jax.devices(backend)[0]
        with jax.default_device(device):
            states = jax.device_put(ours, device)
            key = jax.device_put(self.key, device)  # every input on the one device
            row = measure_row(
                self.game, self.spec_text, workload, states, n, key, self.depth, self.cfg
            )
            row["device"] = device.device_kind
            if self.peers:
                found = peers_of(self.game, self.spec, workload, ours, n, key, self.cfg)
                add_ratios(row, found + self.spiel_peer(workload))
        return row

    def spiel_peer(self, workload: str) -> list[dict[str, Any]]:
        """OpenSpiel's playouts (measured once per game, attached to every playouts row)."""
        spec = self.spec
        if workload != "playouts" or not spec.openspiel or not available("pyspiel"):
            return []
        if "playouts" not in self.spiel:
            self.spiel["playouts"] = _guard(
                lambda: openspiel_playouts(self.game, spec, self.cfg.peer_budget_s, self.cfg.seed),
                "open_spiel",
            )
        return [dict(self.spiel["playouts"])]


def measure_row(
    game: Game,
    spec_text: str,
    workload: str,
    states: Any,
    n: int,
    key: jax.Array,
    depth: int,
    cfg: Settings,
) -> dict[str, Any]:
    """Time jaxgames' call of one workload and build its JSON row (without peers)."""
    work = job(game, workload, states, n, key, depth)
    timing = measure(work.call, cfg.repeats, cfg.min_sample_s)
    row: dict[str, Any] = {
        "game": spec_text,
        "workload": workload,
        "backend": cfg.backend,
        "batch": n,
        "unit": UNITS[workload],
        "items": n,
        **timing.fields(),
        "throughput": n / timing.seconds,
    }
    if work.extra is not None:
        row["extra"] = work.extra(timing.output, timing.seconds)
    if work.params:
        row["params"] = work.params
    return row


def peers_of(
    game: Game, spec: GameBench, workload: str, ours: Any, n: int, key: jax.Array, cfg: Settings
) -> list[dict[str, Any]]:
    """The batch-dependent peers of one row (pgx; python-chess on CPU), when installed."""
    found = []
    if spec.pgx and available("pgx"):
        peer = _guard(lambda: pgx_peer(game, spec, workload, ours, n, key, cfg), "pgx")
        if peer is not None:
            found.append(peer)
    if spec.python_chess and workload == "step" and cfg.backend == "cpu" and available("chess"):
        found.append(_guard(lambda: python_chess_step(game, ours, cfg), "python-chess"))
    return found


def _guard(fn: Callable[[], dict[str, Any] | None], name: str) -> dict[str, Any] | None:
    """A peer's measurement, or an entry naming its error (a peer never stops a row)."""
    try:
        return fn()
    except Exception as err:  # a peer's failure is recorded in its entry
        return {"name": name, "error": one_line(err)}


def add_ratios(row: dict[str, Any], peers: list[dict[str, Any]]) -> None:
    """Attach the peers to the row, each with ``ratio = jaxgames / peer`` throughput."""
    for peer in peers:
        if "throughput" in peer:
            peer["ratio"] = row["throughput"] / peer["throughput"]
    if peers:
        row["peers"] = peers


def run(config: BenchConfig, out: TextIO | None = None, err: TextIO | None = None) -> dict:
    """Run the benchmark suite: print the table, write the JSON and the plots.

    Args:
        config: what to measure (:class:`BenchConfig`).
        out, err: where the table and the one-line notes go (default stdout, stderr).

    Returns:
        The result, as written to the JSON file (see the module docstring); ``"path"`` is
        added: the JSON file's path.

    Raises:
        ValueError: bad settings (unknown workload or backend, batch or repeats below 1).
    """
    out, err = out or sys.stdout, err or sys.stderr
    started = time.perf_counter()
    unknown = [w for w in config.workloads if w not in WORKLOADS]
    if unknown:
        raise ValueError(f"bench: unknown workload {unknown[0]!r}; known: {', '.join(WORKLOADS)}")
    if config.batches is not None and min(config.batches, default=1) < 1:
        raise ValueError("bench: batch sizes must be >= 1")
    if config.repeats is not None and config.repeats < 1:
        raise ValueError(f"bench: repeats must be >= 1, got {config.repeats}")
    backends = platforms(config.backends)
    cfg = Settings(
        quick=config.quick,
        repeats=config.repeats or (QUICK_REPEATS if config.quick else FULL_REPEATS),
        min_sample_s=QUICK_SAMPLE_S if config.quick else FULL_SAMPLE_S,
        peer_budget_s=QUICK_PEER_BUDGET_S if config.quick else FULL_PEER_BUDGET_S,
        seed=config.seed,
        peers=config.peers,
    )
    games = list(config.games) if config.games else default_games(config.quick)
    report = Reporter(out, err)
    result: dict[str, Any] = {
        "schema": 1,
        "command": config.command,
        "quick": config.quick,
        "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_info(),
        "versions": versions(),
        "backends": backends,
        "config": {
            "games": games,
            "workloads": list(config.workloads),
            "batches": sorted(set(config.batches)) if config.batches else "default",
            "repeats": cfg.repeats,
            "seed": cfg.seed,
            "peers": cfg.peers,
        },
    }
    report.header()
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for spec_text in games:
        rows += bench_game(
            spec_text, cfg, config.workloads, config.batches, backends, report, skipped
        )
    result["import_time_s"] = import_times(cfg)
    result["rows"] = rows
    result["skipped"] = skipped
    result["notes"] = busy_note(result["machine"])
    stem = f"bench_{jax.default_backend()}{'_quick' if config.quick else ''}"
    os.makedirs(config.out_dir, exist_ok=True)
    plots, notes = write_plots(result, config.out_dir, stem)
    result["notes"] += notes
    path = os.path.join(config.out_dir, stem + ".json")
    result["files"] = [os.path.basename(p) for p in plots] + [os.path.basename(path)]
    result["total_s"] = time.perf_counter() - started
    write_json(result, path, allow_nan=False)
    print_summary(result, path, plots, out)
    return {**result, "path": path}


def busy_note(machine: dict[str, Any]) -> list[str]:
    """A note when other work shared the machine at the start (the timings are not final)."""
    load = machine.get("load_average", [0.0])[0]
    if load > machine["cores"]:
        return [f"the machine was busy: load average {load:.1f} on {machine['cores']} cores"]
    return []


def import_times(cfg: Settings) -> dict[str, float | str]:
    """Import times in fresh processes: jaxgames and its kernels; in a full run also JAX
    alone (the floor) and the installed peers."""
    if cfg.quick:  # each fresh interpreter costs seconds: jaxgames' own imports only
        runs, modules = 1, ["jaxgames", "jaxgames.kernels"]
    else:
        runs, modules = 3, ["jax", "jaxgames", "jaxgames.kernels"]
        if cfg.peers:
            modules += list(PEER_MODULES.values())
    times = {m: import_time(m, runs) if available(m) else None for m in modules}
    return {m: "absent" if t is None else t for m, t in times.items()}


def print_summary(result: dict[str, Any], path: str, plots: list[str], out: TextIO) -> None:
    """Import times, notes and the files written, after the table."""
    times = ", ".join(
        f"{m} {t:.2f} s" if isinstance(t, float) else f"{m} {t}"
        for m, t in result["import_time_s"].items()
    )
    print(f"import time: {times}", file=out)
    for note in result["notes"]:
        print(f"note: {note}", file=out)
    if result["skipped"]:
        print(f"skipped: {len(result['skipped'])} (see above)", file=out)
    print(
        f"{len(result['rows'])} rows in {result['total_s']:.1f} s; wrote {path}"
        + (f" and {len(plots)} plots" if plots else ""),
        file=out,
        flush=True,
    )
