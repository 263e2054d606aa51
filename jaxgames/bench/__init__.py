"""``jaxgames bench``: throughput of every kernel of every game, on every JAX backend, beside peers.

One run measures, for each game, each workload, each backend present (``cpu`` always; ``gpu``
and ``tpu`` when JAX sees them) and each batch size:

* ``step``: the legal mask of a batch of positions and one uniformly random legal step from
  each (at a chance node, an outcome drawn by its probability). Unit: steps/s.
* ``playouts``: B random games from the start position to their end
  (:func:`jaxgames.kernels.playouts`, one playout per lane). Unit: playouts/s.
* ``eval``: :func:`jaxgames.kernels.leaf_values` (UTILITY or EVAL) of a batch. Unit: leaves/s.
* ``expectation``: :func:`jaxgames.kernels.expectation` over the chance outcomes of a batch of
  chance nodes (games with chance only). Unit: chance nodes/s.
* ``search``: the game's default bulk search (alpha-beta for deterministic two-player
  zero-sum games, expectiminimax for games with chance, minimax otherwise) of a batch of
  roots at a small fixed depth. Unit: positions/s (nodes/s in ``extra``).

Positions come from seeded random play: lane ``i`` plays ``k_i`` uniformly random moves from
the start (``k_i`` uniform in ``0..max_plies``), never stepping into a finished game; for
``expectation`` it then plays on to the next chance node. The same seed gives the same
positions on every backend, and the same uniforms drive the peers' random play.

Timing: the first call (tracing, compilation and one run) is ``first_call_s``; a second call
picks how many calls make one timed sample (enough to last a few milliseconds); then
``repeats`` samples are timed (fewer, but at least three, when they would take more than 30 s),
each call ended by ``block_until_ready``, and their median per call is ``seconds``.
``compile_s`` is ``first_call_s - seconds`` (at least 1 us). Import times are measured in
fresh interpreters (``python -c "import jaxgames"``, and so on).

Peers, when installed (``pip install -e ".[bench]"``; "absent" in ``versions`` otherwise):

* pgx (``tic_tac_toe``, ``connect_four``, ``othello``, ``chess``, ``backgammon``): ``step`` and
  ``playouts`` in the same harness on the same backend and batch sizes (jitted ``vmap`` of
  pgx's ``step``, the same random-legal-move sampler). ``step`` runs on the same positions
  where pgx numbers actions as jaxgames does (checked: the legal masks of all positions must
  agree), else on pgx's own random play with the same ply counts (``positions`` says which).
* OpenSpiel (``pyspiel``): ``playouts``, whole random games one at a time from Python over its
  C++ games, for a fixed time budget (one thread; batch size does not apply).
* python-chess: ``step`` for chess on the same positions (FEN): generate the legal moves,
  push a random one, pop it.

Each peer entry carries ``ratio = jaxgames throughput / peer throughput``.

The package: :mod:`~jaxgames.bench.helpers` (machine, versions, import and compile timing,
repeated samples, tables, JSON; shared with the scripts in ``benchmarks/``),
:mod:`~jaxgames.bench.random_play` (the positions), :mod:`~jaxgames.bench.peers` (pgx,
OpenSpiel, python-chess), :mod:`~jaxgames.bench.compiled` (playouts compiled ahead of time),
:mod:`~jaxgames.bench.plots`, :mod:`~jaxgames.bench.config` (what a run measures) and
:mod:`~jaxgames.bench.suite` (the run itself). How fast things are is in
``benchmarks/README.md`` and ``benchmarks/results/*.json``.

Output: a table on the terminal (one line per row, as it is measured), a JSON file and PNG
plots in ``out_dir`` (default ``benchmarks/results`` under the current directory):
``bench_<backend>[_quick].json``, ``bench_<backend>[_quick]_<game>.png`` (throughput against
batch size, log-log, one line per backend and peer) and, when an accelerator is present,
``bench_<backend>[_quick]_speedup.png`` (accelerator over CPU). ``<backend>`` is JAX's
default backend.

JSON schema (every number finite; those under ``rows`` and ``import_time_s`` positive)::

    {
      "schema": 1,
      "command": str,                   # the command line
      "quick": bool,
      "started": str,                   # ISO 8601, local time
      "total_s": float,                 # the whole run
      "machine": {"cpu": str, "cores": int, "platform": str, "python": str,
                  "accelerators": [str],  # device kinds of the gpu/tpu devices, [] if none
                  "load_average": [float, float, float]},  # at the start (absent on Windows)
      "versions": {"jaxgames": str, "jax": str, "jaxlib": str, "numpy": str,
                   "pgx": str, "open_spiel": str, "chess": str, "matplotlib": str},
                                        # a version, or "absent"
      "backends": [str],                # e.g. ["cpu", "gpu"]
      "import_time_s": {"jax": float, "jaxgames": float, "jaxgames.kernels": float,
                        "pgx": float | "absent", "pyspiel": ..., "chess": ...},
      "config": {"games": [str], "workloads": [str], "batches": [int] | "default",
                 "repeats": int,
                 "seed": int, "peers": bool},
      "rows": [{
        "game": str, "workload": str, "backend": str, "device": str, "batch": int,
        "unit": str,                    # e.g. "steps/s"
        "items": int,                   # units of work per call (the batch)
        "first_call_s": float, "compile_s": float,
        "seconds": float,               # median per call
        "seconds_min": float, "seconds_max": float,
        "repeats": int, "calls_per_repeat": int,
        "throughput": float,            # items / seconds, in "unit"
        "extra": {str: float},          # optional: "moves_per_s", "nodes_per_s", ...
        "params": {str: int | str},     # optional: search "depth" and "algorithm"
        "peers": [{                     # optional
          "name": str,                  # "pgx", "open_spiel", "python-chess"
          "backend": str, "throughput": float, "ratio": float,
          "positions": str,             # "same", "start", "own random play, same ply counts"
          "seconds": float, "first_call_s": float, "compile_s": float,  # when measured
          "extra": {str: float}, "note": str}]       # optional
      }],
      "skipped": [{"game": str, "workload": str, "backend": str, "error": str}],
      "notes": [str],
      "files": [str]                    # the PNG and JSON files written (base names)
    }
"""

from jaxgames.bench.config import DEFAULT_OUT, GAMES, UNITS, WORKLOADS, BenchConfig, GameBench
from jaxgames.bench.random_play import positions
from jaxgames.bench.suite import run

__all__ = [
    "DEFAULT_OUT",
    "GAMES",
    "UNITS",
    "WORKLOADS",
    "BenchConfig",
    "GameBench",
    "positions",
    "run",
]
