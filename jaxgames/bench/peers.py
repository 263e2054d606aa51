"""The peers of the benchmarks, driven in the same harness as jaxgames where they can be:
pgx (a jitted ``vmap`` of its ``step`` with jaxgames' random-move sampler), OpenSpiel (whole
games from Python) and python-chess. Each is imported only when used."""

from __future__ import annotations

import functools
import importlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.bench.config import PYTHON_CHESS_MAX_POSITIONS, GameBench, Settings
from jaxgames.bench.helpers import measure, rates
from jaxgames.bench.random_play import max_plies, play_keys, where_lanes
from jaxgames.game import Game
from jaxgames.kernels import batch_size, batched, sample_legal, take, unstack


@functools.cache
def pgx_env(name: str) -> Any:
    """pgx's environment of a game (made once: its jitted calls are cached by it)."""
    import pgx

    return pgx.make(name)


@functools.partial(jax.jit, static_argnums=(0, 1, 3))
def pgx_random_play(env: Any, n: int, seed: int, plies: int) -> Any:
    """pgx's positions by the random play of :func:`jaxgames.bench.random_play.positions`
    (the same uniforms)."""
    k_len, k_play, k_step = play_keys(seed)
    targets = jax.random.randint(k_len, (n,), 0, plies + 1)
    states = jax.vmap(env.init)(jax.random.split(k_step, n))

    def body(t: jax.Array, states: Any) -> Any:
        uniform = jax.random.uniform(jax.random.fold_in(k_play, t), (n,))
        action = sample_legal(states.legal_action_mask, uniform)
        keys = jax.random.split(jax.random.fold_in(k_step, t), n)
        stepped = jax.vmap(env.step)(states, action, keys)
        go = (t < targets) & ~stepped.terminated
        return jax.tree.map(lambda new, old: where_lanes(go, new, old), stepped, states)

    return jax.lax.fori_loop(0, plies, body, states)


@functools.partial(jax.jit, static_argnums=0)
def _pgx_step_once(env: Any, states: Any, key: jax.Array) -> Any:
    """pgx's step of every state, with the same sampler as :func:`_step_once`."""
    n = states.legal_action_mask.shape[0]
    k_u, k_s = jax.random.split(key)
    action = sample_legal(states.legal_action_mask, jax.random.uniform(k_u, (n,)))
    return jax.vmap(env.step)(states, action, jax.random.split(k_s, n))


@functools.partial(jax.jit, static_argnums=(0, 1))
def pgx_playouts(env: Any, n: int, key: jax.Array) -> jax.Array:
    """``n`` random pgx games from the start to their end; returns their lengths int32[n]."""
    k_init, k_loop = jax.random.split(key)
    states = jax.vmap(env.init)(jax.random.split(k_init, n))

    def cond(carry: tuple) -> jax.Array:
        return ~jnp.all(carry[0].terminated)

    def body(carry: tuple) -> tuple:
        states, length, key = carry
        key, k_u, k_s = jax.random.split(key, 3)
        mask = states.legal_action_mask | states.terminated[:, None]  # finished: any action
        action = sample_legal(mask, jax.random.uniform(k_u, (n,)))
        length = length + (~states.terminated).astype(jnp.int32)
        states = jax.vmap(env.step)(states, action, jax.random.split(k_s, n))
        return states, length, key

    zeros = jnp.zeros((n,), jnp.int32)
    return jax.lax.while_loop(cond, body, (states, zeros, k_loop))[1]


def pgx_peer(
    game: Game,
    spec: GameBench,
    workload: str,
    ours: Any,
    n: int,
    key: jax.Array,
    cfg: Settings,
) -> dict[str, Any] | None:
    """pgx's ``step`` or ``playouts`` on the current default device, or None (no such work).

    Args:
        ours: jaxgames' positions (numpy), to check whether pgx's are the same.
        cfg: the run's settings; ``cfg.backend`` is the backend measured.
    """
    if workload not in ("step", "playouts"):
        return None
    env = pgx_env(spec.pgx)
    if workload == "playouts":
        timing = measure(lambda: pgx_playouts(env, n, key), cfg.repeats, cfg.min_sample_s)
        where = "start"
        extra = {"moves_per_s": float(np.asarray(timing.output).sum()) / timing.seconds}
    else:
        states = pgx_random_play(env, n, cfg.seed, max_plies(game))
        where = _same_positions(game, ours, states)
        timing = measure(lambda: _pgx_step_once(env, states, key), cfg.repeats, cfg.min_sample_s)
        extra = {}
    peer = {
        "name": "pgx",
        "backend": cfg.backend,
        "throughput": n / timing.seconds,
        "positions": where,
        "first_call_s": timing.first_call_s,
        "compile_s": timing.compile_s,
        "seconds": timing.seconds,
    }
    if extra:
        peer["extra"] = extra
    if spec.pgx_note:
        peer["note"] = spec.pgx_note
    return peer


def _same_positions(game: Game, ours: Any, theirs: Any) -> str:
    """Whether pgx stands on our positions: "same" when its legal masks equal ours on every
    position (the same actions were played from the same start), else it played its own
    random games with the same ply counts (its actions are numbered otherwise)."""
    mask = np.asarray(batched(game).legal_mask(ours))  # [B, A]
    other = np.asarray(theirs.legal_action_mask)  # [B, A']
    if mask.shape == other.shape and np.array_equal(mask, other):
        return "same"
    return "own random play, same ply counts"


def openspiel_playouts(game: Game, spec: GameBench, budget_s: float, seed: int) -> dict[str, Any]:
    """OpenSpiel's whole random games from the start for ``budget_s`` (at least three), as a
    peer entry of ``jaxgames bench``: see :func:`play_openspiel`."""
    spiel = play_openspiel(spec.openspiel, spec.openspiel_params(game), budget_s, 3, seed)
    return {
        "name": "open_spiel",
        "backend": "cpu",
        "throughput": spiel.games / spiel.seconds,
        "positions": "start",
        "seconds": spiel.seconds,
        "extra": {"moves_per_s": spiel.moves / spiel.seconds, "games": float(spiel.games)},
        "note": "C++ games driven from Python, one game at a time, one thread",
    }


@dataclass
class SpielGames:
    """OpenSpiel's random games: how many, their moves, each game's returns, the time."""

    games: int
    moves: int
    returns: list[list[float]]
    seconds: float


def play_openspiel(
    name: str,
    params: dict[str, Any] | None = None,
    seconds: float = 0.0,
    min_games: int = 1,
    seed: int = 0,
) -> SpielGames:
    """Whole random OpenSpiel games from the start, one at a time from Python over its C++
    game, until ``seconds`` have passed and at least ``min_games`` are played.

    Chance nodes draw their outcome by its probability, decisions uniformly from
    ``legal_actions`` (Python's ``random.Random(seed)``).
    """
    import pyspiel

    os_game = pyspiel.load_game(name, params or {})
    rng = random.Random(seed)
    games = moves = 0
    returns = []
    t0 = time.perf_counter()
    while games < min_games or time.perf_counter() - t0 < seconds:
        state = os_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        returns.append(list(state.returns()))
        games += 1
    return SpielGames(games, moves, returns, time.perf_counter() - t0)


def python_chess() -> Any:
    """python-chess, with its UCI driver.

    A benchmark script named ``chess.py`` run from its folder puts that folder first on the
    path, where its own file would be found first: path entries holding a plain
    ``chess.py`` are skipped (python-chess is a package, never a lone file).
    """
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if not os.path.isfile(os.path.join(p or ".", "chess.py"))]
    try:
        module = importlib.import_module("chess")
        importlib.import_module("chess.engine")
        return module
    finally:
        sys.path[:] = saved


def python_chess_step(game: Game, states: Any, cfg: Settings) -> dict[str, Any]:
    """python-chess on the same positions: legal moves, push a random one, pop it."""
    chess = python_chess()

    n = min(batch_size(states), PYTHON_CHESS_MAX_POSITIONS)
    boards = [chess.Board(game.format(s)) for s in unstack(take(states, np.arange(n)))]
    rng = random.Random(cfg.seed)

    def call() -> int:
        for board in boards:
            board.push(rng.choice(list(board.legal_moves)))
            board.pop()
        return n

    timing = measure(call, cfg.repeats, cfg.min_sample_s)
    return {
        "name": "python-chess",
        "backend": "cpu",
        "throughput": n / timing.seconds,
        "positions": "same" if n == batch_size(states) else f"same (the first {n})",
        "seconds": timing.seconds,
        "note": "pure Python, one position at a time",
    }


def load_openspiel_minimax() -> tuple[Any, Any] | None:
    """(pyspiel, OpenSpiel's minimax algorithms), or None when OpenSpiel is not installed."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import minimax
    except ImportError:
        return None
    return pyspiel, minimax


def openspiel_alpha_beta(
    peer: tuple[Any, Any],
    game: Any,
    states: list,
    depth: int | None,
    evals: Callable[[int], Any] | None,
) -> dict[str, Any]:
    """Time OpenSpiel's ``alpha_beta_search`` (pure Python over its C++ game) on each state,
    then count its nodes in an untimed pass.

    Args:
        peer: :func:`load_openspiel_minimax`'s pair.
        game: the pyspiel game of the states.
        depth: the search depth (None: to the end).
        evals: the maximizing player -> the value function at the cutoff, or None.

    Returns:
        Positions, seconds, nodes and their rates, and ``values``: each root's value.
    """
    _, minimax = peer
    values = []
    t0 = time.perf_counter()
    for s in states:
        vf = evals(s.current_player()) if evals else None
        values.append(
            minimax.alpha_beta_search(game, state=s, value_function=vf, maximum_depth=depth)[0]
        )
    seconds = time.perf_counter() - t0
    original = minimax._alpha_beta
    count = [0]

    def counted(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    minimax._alpha_beta = counted  # the recursion looks the name up in the module
    try:
        for s in states:
            vf = evals(s.current_player()) if evals else None
            minimax.alpha_beta_search(game, state=s, value_function=vf, maximum_depth=depth)
    finally:
        minimax._alpha_beta = original
    n = len(states)
    return {
        "positions": n,
        "seconds": seconds,
        "positions_per_s": n / seconds,
        "nodes": count[0],
        "nodes_per_s": count[0] / seconds,
        "nodes_per_position": count[0] / n,
        "values": values,
    }


def middlegame_fens(
    n: int, seed: int, plies: tuple[int, int] = (20, 40), distinct: bool = True
) -> list[str]:
    """``n`` FENs after ``plies`` uniformly random moves from the start (python-chess,
    ``random.Random(seed)``), the game still on (a claimable draw counts as over); with
    ``distinct``, no FEN twice."""
    chess = python_chess()
    rng = random.Random(seed)
    fens: list[str] = []
    seen: set[str] = set()
    while len(fens) < n:
        board = chess.Board()
        for _ in range(rng.randint(*plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        fen = board.fen()
        if not board.is_game_over(claim_draw=True) and not (distinct and fen in seen):
            seen.add(fen)
            fens.append(fen)
    return fens


# ---------------------------------------------------------------- search peers
def find_stockfish() -> str | None:
    """The Stockfish executable on the path (or where Debian installs it), or None."""
    found = shutil.which("stockfish")
    if found:
        return found
    return "/usr/games/stockfish" if os.access("/usr/games/stockfish", os.X_OK) else None


def c4solver_peer(peers: str, sets: dict[str, Any], work: str) -> dict[str, Any]:
    """The C solver built with the system compiler, run on each set's lines: wall time of
    the process, nodes per position, and its scores checked against the file's."""
    exe, out = build_c(os.path.join(peers, "c4solver.c"), "c4solver", work)
    if exe is None:
        return out
    out["sets"] = {}
    for name, data in sets.items():
        if "skipped" in data:
            continue
        with open(data["lines_file"], encoding="utf-8") as f:
            text = f.read()
        proc, times = timed_runs(exe, text)
        parsed = [line.split() for line in proc.stdout.splitlines()]
        rows = [p for p in parsed if len(p) == 4]
        n = len(data["lines"])
        row = peer_row(n, times, sum(int(p[3]) for p in rows))
        row["mismatches"] = sum(p[1] != p[2] for p in rows) + (n - len(rows))
        out["sets"][name] = row
        print(f"C solver {name}: {fmt_peer(row)}", flush=True)
    return out


SHORT_RUN_S = 2.0
"""A peer's run shorter than this is repeated (:data:`REPEATS` runs, the median): a first
run of a fraction of a second pays for loading the new executable, and ranks nothing
against the scheduler's noise."""
REPEATS = 5


def timed_runs(
    exe: str, text: str, timeout: float | None = None
) -> tuple[subprocess.CompletedProcess, list[float]]:
    """``exe`` run on ``text`` (its standard input): the first run's process and the wall
    times of the runs, one, or :data:`REPEATS` where the first was shorter than
    :data:`SHORT_RUN_S`. ``timeout`` applies to the first run (raises
    ``subprocess.TimeoutExpired``)."""
    t0 = time.perf_counter()
    proc = subprocess.run([exe], input=text, capture_output=True, text=True, timeout=timeout)
    times = [time.perf_counter() - t0]
    while times[0] < SHORT_RUN_S and len(times) < REPEATS:
        t0 = time.perf_counter()
        subprocess.run([exe], input=text, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
    return proc, times


def peer_row(n: int, times: list[float], nodes: int) -> dict[str, Any]:
    """A peer process's row: the rates of ``n`` positions at the median of ``times``."""
    seconds = statistics.median(times)
    row = rates(n, seconds, seconds, nodes)
    row.pop("compile_s")
    row.pop("first_call_s")
    row.update(
        runs=len(times),
        note=f"whole process wall time, median of {len(times)} runs (nothing to compile)",
    )
    return row


def build_c(source: str, name: str, work: str) -> tuple[str | None, dict[str, Any]]:
    """``source`` built with the system C compiler into ``work``: (executable, the build's
    record), or (None, a record saying why not)."""
    compiler = shutil.which("cc")
    if compiler is None:
        return None, {"skipped": "skipped: no C compiler"}
    if not os.path.isfile(source):
        return None, {"skipped": f"skipped: {os.path.basename(source)} not found"}
    exe = os.path.join(tempfile.mkdtemp(dir=work), name)
    t0 = time.perf_counter()
    build = subprocess.run(
        [compiler, "-O3", "-march=native", "-o", exe, source], capture_output=True, text=True
    )
    out: dict[str, Any] = {
        "build": "cc -O3 -march=native",
        "build_s": time.perf_counter() - t0,
        "threads": 1,
    }
    if build.returncode != 0:
        return None, {**out, "error": "build failed: " + " | ".join(build.stderr.splitlines()[-3:])}
    return exe, out


def othello_endgame_peer(
    source: str, problems: dict[str, Any], work: str, timeout: float | None = None
) -> dict[str, Any]:
    """The plain C endgame solver of ``benchmarks/peers`` on each FFORUM problem: every
    legal move's exact score (full window, one core), checked against the file's, with the
    process's wall time and nodes; a problem past ``timeout`` seconds is recorded so."""
    exe, out = build_c(source, "othello_endgame", work)
    if exe is None:
        return out
    out["problems"] = {}
    for number, item in problems.items():
        try:
            proc, times = timed_runs(exe, item["position"] + "\n", timeout)
        except subprocess.TimeoutExpired:
            out["problems"][number] = {
                "empties": item["empties"],
                "skipped": f"skipped: past {timeout:g} s",
            }
            print(f"C endgame solver #{number}: past {timeout:g} s", flush=True)
            continue
        rows = [printed.split() for printed in proc.stdout.splitlines()]
        scores = {r[1]: int(r[2]) for r in rows if len(r) == 4}
        nodes = sum(int(r[3]) for r in rows if len(r) == 4)
        expected = dict(item["moves"])
        mismatched = [
            {"move": name, "expected": e, "got": scores.get(name)}
            for name, e in expected.items()
            if scores.get(name) != e
        ]
        row = peer_row(1, times, nodes)
        row.update(
            empties=item["empties"],
            moves=len(scores),
            scores=scores,
            mismatches=len(mismatched) + len(set(scores) - set(expected)),
            mismatched=mismatched,
        )
        out["problems"][number] = row
        print(
            f"C endgame solver #{number}: {row['seconds']:.2f} s, {nodes:,} nodes, "
            f"mismatches {row['mismatches']}",
            flush=True,
        )
    return out


def fmt_peer(row: dict[str, Any]) -> str:
    """A search peer's row in words."""
    return (
        f"{row['positions_per_s']:,.1f} pos/s, {row['nodes_per_position']:,.0f} nodes/pos, "
        f"{row['seconds']:.3f} s"
    )


def stockfish_peer(fens: list[str], depth: int) -> dict[str, Any]:
    """Stockfish ``go depth D`` on each FEN over python-chess's UCI driver, one thread: a
    first pass (the engine warming up), then a second, timed pass; a new game (hash
    cleared) at the start of each pass."""
    path = find_stockfish()
    if path is None:
        return {"skipped": "skipped: stockfish not installed"}
    try:
        chess = python_chess()
    except ImportError:
        return {"skipped": "skipped: python-chess not installed"}
    t0 = time.perf_counter()
    engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        engine.configure({"Threads": 1})
        start_s = time.perf_counter() - t0
        boards = [chess.Board(f) for f in fens]
        passes = []
        for _ in range(2):
            game = object()  # a new game key: python-chess sends ucinewgame once per pass
            nodes = 0
            t0 = time.perf_counter()
            for board in boards:
                info = engine.analyse(board, chess.engine.Limit(depth=depth), game=game)
                nodes += int(info.get("nodes", 0))
            passes.append((time.perf_counter() - t0, nodes))
        name = engine.id.get("name", "stockfish")
    finally:
        engine.quit()
    n = len(fens)
    row = rates(n, passes[0][0], passes[1][0], passes[1][1])
    row.pop("compile_s")  # nothing compiles: the first pass is the engine warming up
    row.update(
        engine=name, threads=1, depth=depth, engine_start_s=start_s, command=f"go depth {depth}"
    )
    print(f"Stockfish: {fmt_peer(row)}", flush=True)
    return row
