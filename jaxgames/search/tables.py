"""Tables of exact values by retrograde analysis: win, draw or loss and the distance to
the end, for every position of a numbered sub-space of a two-player game.

A game offers sub-spaces through the capability
:class:`~jaxgames.capabilities.PositionTables`; each is a
:class:`~jaxgames.capabilities.TableSpace`: ``size`` numbers, and, for a chunk of them,
which are legal positions, which end the game (and how), and every legal move's successor:
a number in the same sub-space, a number in a smaller one it depends on (a capture, a
promotion), an immediate draw, or an immediate end lost by the player then to move (the
move took the last piece).

What a table stores
-------------------
One ``int16`` per number, for the player to move: the distance to the end in plies under
perfect play (the winner ends it as soon as it can, the loser as late as it can), or
:data:`DRAW` (-1), or :data:`BROKEN` (-2) for a number that names no legal position. A
distance's parity says who wins: odd, the player to move wins (they make the last move);
even, they lose (0: the game is over and they have lost). The distance runs through
captures and promotions into the smaller tables, so it is a pure distance to the end (to
mate, where the game ends in one), not to the next conversion. Rules that would end a long
game early (a move-count limit, repetitions) are not applied, as in every distance-to-mate
table.

How it is built
---------------
1. Successors, once: the sub-space is expanded in chunks into one compact array
   ``int32[N, M]`` of successor positions (``M``: the most moves of any position, never
   the game's whole action space), where a successor outside the sub-space points at a
   fixed slot holding its value from the smaller table (read now), a draw slot, or a
   padding slot for unused moves.
2. Sweeps (jitted, one per ply ``n = 1, 2, ...``): at odd ``n`` a position not yet decided
   with a successor lost in ``n - 1`` is won in ``n``; at even ``n`` a position all of
   whose successors are won (in ``n - 1`` at most) is lost in ``n``. Backward induction
   from the ends: a sweep whose ply passes every fixed slot's distance and decides
   nothing new is the last; every position still undecided is a draw.
3. The table is written compressed (``np.savez_compressed``) with its metadata (game,
   sub-space, numbering version, size, SHA-256 of the values, counts, build time) to a
   temporary file that replaces the final one only when complete: a build is atomic, and
   one interrupted leaves the tables it finished (its dependencies come first). Building a
   table that exists with the same metadata returns at once.

Where tables live: ``--dir`` / ``directory``, else ``$JAXGAMES_TABLES``, else
``$XDG_CACHE_HOME/jaxgames/tables`` (``~/.cache/jaxgames/tables``), in a folder per game.

Probing: :func:`open_tables` loads a game's tables into one device array;
:func:`probe` answers a batch of states (a gather, usable inside jitted code through
:func:`probe_one`); :func:`with_tables` gives a game the capability
:class:`~jaxgames.capabilities.ExactValues`, so alpha-beta (and the bulk evaluator) takes
table positions as exact leaves.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import progress
from jaxgames.capabilities import (
    SUCCESSOR_DRAW,
    SUCCESSOR_LOSS,
    SUCCESSOR_SELF,
    MoveLists,
    PositionTables,
    TableSpace,
)
from jaxgames.game import Game, GameError

DRAW = -1  # the stored value of a drawn position
BROKEN = -2  # the stored value of a number that names no legal position
NOT_FOUND = -2  # the WDL :func:`probe` gives a position no loaded table holds
_FINAL_DRAW = -3  # during the build: a draw the rules decide (never revisited)
MATE_STEP = 2.0**-20
"""What each ply to the end takes off a won position's exact value in a search (and adds to
a lost one's): a table position won in ``d`` plies is worth ``utility_max - d * MATE_STEP``
to the side to move, so a search prefers the quicker win and the longer defence, and a win
the search itself reaches (the game's utility) is worth a table position lost in 0. Exact
in float32 (multiples of 2^-20 near 1); 1,000 plies still leave a win above 0.999."""
FORMAT = 1  # the file layout's version
ENV_DIR = "JAXGAMES_TABLES"
_CHUNK = 1 << 16  # numbers expanded per call of the game's generator


def default_directory() -> Path:
    """``$JAXGAMES_TABLES``, else ``$XDG_CACHE_HOME/jaxgames/tables``, else
    ``~/.cache/jaxgames/tables``."""
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "jaxgames" / "tables"


def _check_game(game: Game, verb: str) -> None:
    if not isinstance(game, PositionTables):
        raise GameError(f"tables {verb}: {game.name} offers no sub-spaces for tables")
    if game.num_players != 2 or not game.zero_sum:
        raise GameError(f"tables {verb}: {game.name} is not a two-player zero-sum game")


def table_path(game: Game, name: str, directory: str | os.PathLike | None = None) -> Path:
    """Where the table ``name`` of ``game`` is kept."""
    base = Path(directory).expanduser() if directory is not None else default_directory()
    return base / game.name / f"{name}.npz"


# ---------------------------------------------------------------- files
@dataclasses.dataclass(frozen=True)
class Table:
    """A loaded table: its values and its metadata."""

    name: str
    distance: np.ndarray  # int16[N]: plies to the end (odd: won), DRAW, BROKEN
    meta: dict[str, Any]

    @property
    def size(self) -> int:
        return int(self.distance.shape[0])


def _checksum(distance: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(distance, "<i2").tobytes()).hexdigest()


def _expected(game: Game, space: TableSpace) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "game": game.name,
        "table": space.name,
        "index_version": int(space.version),
        "size": int(space.size),
    }


def _read(path: Path) -> tuple[np.ndarray, dict[str, Any]]:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            distance = data["distance"]
    except (OSError, ValueError, KeyError) as err:
        raise GameError(f"tables: {path} is not a readable table ({err})") from None
    return distance, meta


def load(game: Game, name: str, directory: str | os.PathLike | None = None) -> Table:
    """Load the table ``name`` of ``game``, its metadata and checksum checked.

    Raises:
        GameError: no such sub-space, no file (build it first), or a file that does not
            match (another numbering version, a corrupt file).
    """
    _check_game(game, "load")
    space = game.table_space(name)
    path = table_path(game, space.name, directory)
    if not path.exists():
        raise GameError(
            f"tables: no {game.name} table {space.name} in {path.parent} (build it with "
            f"'jaxgames tables build {game.name} {space.name}')"
        )
    distance, meta = _read(path)
    for key, want in _expected(game, space).items():
        if meta.get(key) != want:
            raise GameError(
                f"tables: {path} has {key} {meta.get(key)!r}, expected {want!r}; rebuild it"
            )
    if distance.shape != (space.size,) or _checksum(distance) != meta.get("checksum"):
        raise GameError(f"tables: {path} fails its checksum; rebuild it")
    return Table(space.name, distance.astype(np.int16), meta)


def _write(path: Path, distance: np.ndarray, meta: dict[str, Any]) -> None:
    """Write atomically: a temporary file in the same folder, renamed when complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            np.savez_compressed(out, distance=distance, meta=np.asarray(json.dumps(meta)))
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


# ---------------------------------------------------------------- build
class BuildReport(NamedTuple):
    """What :func:`build` did."""

    path: Path
    built: bool  # False: the table was there already
    meta: dict[str, Any]


def build(
    game: Game,
    name: str,
    directory: str | os.PathLike | None = None,
    log: Callable[[str], None] | None = None,
) -> BuildReport:
    """Build the table ``name`` of ``game`` (and first the tables it depends on) by
    retrograde analysis, unless it exists with matching metadata.

    Args:
        game: a two-player zero-sum game with :class:`~jaxgames.capabilities.PositionTables`.
        name: the sub-space (an ending, named as the game names them).
        directory: where tables live (default: :func:`default_directory`).
        log: called with a line for each step (dependencies, phases, the result).

    Returns:
        A :class:`BuildReport` (the file, whether it was built now, its metadata).
    """
    _check_game(game, "build")
    space = game.table_space(name)
    path = table_path(game, space.name, directory)
    if path.exists():
        try:
            return BuildReport(path, False, load(game, space.name, directory).meta)
        except GameError as err:  # another version, a corrupt file: built again
            if log:
                log(f"{space.name}: {err}; building it again")
    deps = []
    for dep in space.dependencies:  # each built (atomically) before this one starts
        build(game, dep, directory, log)
        deps.append(load(game, dep, directory))
    started = time.perf_counter()
    with progress.phase(f"{space.name}: successors"):
        ext_size, kids, dist = _successors(game, space, deps, log)
    expanded = time.perf_counter() - started
    with progress.phase(f"{space.name}: sweeps"):
        dist, sweeps = _solve(space, kids, dist, ext_size, log)
    del kids
    meta = _expected(game, space)
    meta.update(_summary(dist))
    meta.update(
        {
            "checksum": _checksum(dist),
            "distance": "plies to the end (mate) for the player to move; odd: won, even: "
            "lost, -1: draw, -2: no legal position; 50-move rule and repetitions ignored",
            "dependencies": {d.name: d.meta["checksum"] for d in deps},
            "sweeps": sweeps,
            "successors_s": round(expanded, 3),
            "build_s": round(time.perf_counter() - started, 3),
        }
    )
    _write(path, dist, meta)
    if log:
        log(
            f"{space.name}: {meta['wins']:,} won, {meta['draws']:,} drawn, {meta['losses']:,} "
            f"lost (to move); longest win {meta['longest_win']} plies; {meta['build_s']:.1f} s"
        )
    return BuildReport(path, True, meta)


def _summary(dist: np.ndarray) -> dict[str, int]:
    won = (dist >= 0) & (dist % 2 == 1)
    lost = (dist >= 0) & (dist % 2 == 0)
    return {
        "wins": int(won.sum()),
        "draws": int((dist == DRAW).sum()),
        "losses": int(lost.sum()),
        "broken": int((dist == BROKEN).sum()),
        "longest_win": int(dist[won].max(initial=0)),
        "longest_loss": int(dist[lost].max(initial=0)),
    }


def _successors(
    game: Game, space: TableSpace, deps: list[Table], log: Callable[[str], None] | None
) -> tuple[int, np.ndarray, np.ndarray]:
    """Expand every number once. Returns the size of the value array the sweeps work on
    (``N`` positions, then the fixed slots), the successors ``int32[N, M]`` (positions
    in that array) and the starting values ``int16[N]``.

    The value array: ``[0, N)`` the sub-space; ``N + d`` for ``d < L`` holds ``d`` (a
    successor in a smaller table at distance ``d``, ``L`` one past the longest); ``N + L``
    a draw; ``N + L + 1`` holds 1, the padding of unused move slots: odd, so never a loss
    that wins the position, and a win of 1 ply, so never keeping a loss from being found.
    """
    n, width = space.size, space.max_successors
    longest = max((int(d.distance.max(initial=0)) for d in deps), default=0)
    fixed = longest + 1
    draw_slot, pad_slot = n + fixed, n + fixed + 1
    kids = np.empty((n, width), np.int32)
    dist = np.empty((n,), np.int16)
    for start in range(0, n, _CHUNK):
        index = np.arange(start, min(start + _CHUNK, n), dtype=np.int64)
        e = space.expand(index)
        code = np.asarray(e.kid_table)
        target = np.asarray(e.kid_index).astype(np.int64)
        pos = np.full(code.shape, pad_slot, np.int64)
        pos = np.where(code == SUCCESSOR_SELF, target, pos)
        pos = np.where(code == SUCCESSOR_DRAW, draw_slot, pos)
        pos = np.where(code == SUCCESSOR_LOSS, n, pos)  # the fixed slot holding 0: lost
        for k, table in enumerate(deps, start=1):
            here = code == k
            value = table.distance[np.where(here, target, 0)].astype(np.int64)
            if np.any(here & (value == BROKEN)):
                i = int(index[np.flatnonzero(np.any(here & (value == BROKEN), axis=1))[0]])
                raise GameError(
                    f"tables: a move from {space.name} number {i} leads to a broken number of "
                    f"{table.name} (the game's numbering is inconsistent)"
                )
            pos = np.where(here, np.where(value >= 0, n + value, draw_slot), pos)
        valid = np.asarray(e.valid)
        pos[~valid | np.asarray(e.terminal)] = pad_slot
        kids[start : start + index.size] = pos
        start_value = np.where(np.asarray(e.end_value) < 0, 0, _FINAL_DRAW)
        dist[start : start + index.size] = np.where(
            ~valid, BROKEN, np.where(np.asarray(e.terminal), start_value, DRAW)
        )
        progress.count(start + index.size, n, "positions")
    # every move inside the sub-space must lead to a legal position
    inside = kids < n
    bad_rows = np.any(inside & (dist[np.where(inside, kids, 0)] == BROKEN), axis=1)
    if bad_rows.any():
        i = int(np.flatnonzero(bad_rows)[0])
        raise GameError(
            f"tables: a move from {space.name} number {i} leads to a number that names no "
            "legal position (the game's numbering is inconsistent)"
        )
    if log:
        log(f"{space.name}: {n:,} numbers, {int((dist != BROKEN).sum()):,} legal positions")
    return pad_slot + 1, kids, dist


@jax.jit
def _sweep(values: jax.Array, kids: jax.Array, ply: jax.Array) -> tuple[jax.Array, jax.Array]:
    """One ply of backward induction: ``values int16[N + L + 2]`` (the fixed slots
    last), ``kids int32[N, M]``. Returns the new values and how many were decided."""
    n = kids.shape[0]
    own = values[:n]  # [N]
    ply16 = ply.astype(jnp.int16)

    def won():  # a move to a position lost in ply - 1
        return jnp.any(values[kids] == ply16 - 1, axis=1)

    def lost():  # every move to a position won in at most ply - 1
        d = values[kids]
        return jnp.all((d >= 0) & (d % 2 == 1) & (d < ply16), axis=1)

    new = (own == DRAW) & jax.lax.cond(ply % 2 == 1, won, lost)  # [N]
    own = jnp.where(new, ply16, own)
    return values.at[:n].set(own), jnp.sum(new, dtype=jnp.int32)


def _solve(
    space: TableSpace,
    kids: np.ndarray,
    dist: np.ndarray,
    ext_size: int,
    log: Callable[[str], None] | None,
) -> tuple[np.ndarray, int]:
    """Sweep ply by ply until nothing more can be decided; the final values and sweeps."""
    n = space.size
    fixed = ext_size - n - 2
    values = np.empty((ext_size,), np.int16)
    values[:n] = dist
    values[n : n + fixed] = np.arange(fixed, dtype=np.int16)
    values[n + fixed] = _FINAL_DRAW
    values[n + fixed + 1] = 1
    device_values = jnp.asarray(values)
    device_kids = jnp.asarray(kids)
    ply = 0
    while True:
        ply += 1
        device_values, decided = _sweep(device_values, device_kids, jnp.int32(ply))
        decided = int(decided)
        progress.count(ply, None, "plies")
        if log and decided:
            log(f"{space.name}: ply {ply}: {decided:,} positions {'won' if ply % 2 else 'lost'}")
        if decided == 0 and ply > fixed:
            break
    out = np.asarray(device_values[:n])
    out = np.where(out == _FINAL_DRAW, DRAW, out).astype(np.int16)
    return out, ply


# ---------------------------------------------------------------- probing
@dataclasses.dataclass(frozen=True, eq=False)
class TableSet:
    """A game's loaded tables, in one device array for gathers."""

    game: str
    names: tuple[str, ...]  # the tables, in slot order
    offsets: np.ndarray  # int64[T]: where each starts in `distance`
    distance: jax.Array  # int16[sum of sizes]
    directory: Path
    meta: dict[str, dict[str, Any]]


def open_tables(
    game: Game,
    directory: str | os.PathLike | None = None,
    names: tuple[str, ...] | list[str] | None = None,
) -> TableSet:
    """Load ``names`` (default: every table of ``game`` found in the folder).

    Raises:
        GameError: a named table is missing or does not match; none found at all.
    """
    _check_game(game, "probe")
    base = Path(directory).expanduser() if directory is not None else default_directory()
    if names is None:
        folder = base / game.name
        found = sorted(p.stem for p in folder.glob("*.npz")) if folder.is_dir() else []
        names = [n for n in found if _known(game, n)]
        if not names:
            raise GameError(
                f"tables: no {game.name} tables in {folder} (build one with 'jaxgames tables "
                f"build {game.name} NAME')"
            )
    tables = [load(game, game.table_name(n), base) for n in names]
    sizes = [t.size for t in tables]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return TableSet(
        game=game.name,
        names=tuple(t.name for t in tables),
        offsets=offsets,
        distance=jnp.asarray(np.concatenate([t.distance for t in tables])),
        directory=base,
        meta={t.name: t.meta for t in tables},
    )


def _known(game: Game, name: str) -> bool:
    try:
        return game.table_space(name).name == name
    except GameError:
        return False


class Probe(NamedTuple):
    """Table values of positions, for the player to move."""

    wdl: Any  # int8[...]: 1 won, 0 drawn, -1 lost, NOT_FOUND (-2): no table holds it
    distance: Any  # int16[...]: plies to the end (mate); -1 for draws and misses


def probe_one(game: Game, tables: TableSet, state: Any, distance: Any = None) -> Probe:
    """The table value of ONE state (traced: a gather; use under ``jit``/``vmap``).
    ``distance``: the tables' values (default ``tables.distance``), passed as an argument
    of a jitted function so that its program does not hold them as a constant."""
    distance = tables.distance if distance is None else distance
    slot, index = game.table_key(state, tables.names)
    offsets = jnp.asarray(tables.offsets.astype(np.int32))
    stored = distance[offsets[jnp.maximum(slot, 0)] + index]
    found = (slot >= 0) & (stored != BROKEN)
    decided = found & (stored >= 0)
    wdl = jnp.where(decided, jnp.where(stored % 2 == 1, 1, -1), jnp.where(found, 0, NOT_FOUND))
    return Probe(wdl.astype(jnp.int8), jnp.where(decided, stored, -1).astype(jnp.int16))


@functools.cache
def _probe_batch(game: Game, tables: TableSet) -> Callable:
    one = functools.partial(probe_one, game, tables)
    return jax.jit(jax.vmap(lambda state, distance: one(state, distance), in_axes=(0, None)))


def probe(game: Game, states: Any, tables: TableSet | None = None) -> Probe:
    """Table values of a batch of states ``[B]`` (host arrays back): ``(wdl int8[B],
    distance int16[B])``, see :class:`Probe`. ``tables`` default: every table of the
    game in the default folder."""
    if tables is None:
        tables = open_tables(game)
    out = _probe_batch(game, tables)(states, tables.distance)
    return Probe(np.asarray(out.wdl), np.asarray(out.distance))


@functools.cache
def _children(game: Game, tables: TableSet) -> Callable:
    """Jitted: one state and its legal actions ``int32[K]`` (``-1``: none) -> each child's
    result for its player to move, ``(wdl int8[K], distance int16[K])``; a child the
    rules end at once is scored by them (lost: in 0 plies)."""

    def child(state, action, distance):
        kid = game.step(state, jnp.maximum(action, 0))
        got = probe_one(game, tables, kid, distance)
        utility = game.utility(kid)[jnp.clip(game.player(kid), 0, 1)]
        over = game.terminal(kid)
        wdl = jnp.where(over, jnp.sign(utility).astype(jnp.int8), got.wdl)
        distance = jnp.where(over, jnp.where(utility != 0, 0, -1), got.distance)
        return wdl, distance.astype(jnp.int16)

    return jax.jit(jax.vmap(child, in_axes=(None, 0, None)))


def best_moves(game: Game, tables: TableSet, state: Any) -> tuple[Probe, list[int]]:
    """The table value of one state and its best moves (host side): a win's moves to a
    loss in the fewest plies, a draw's moves to a draw, a loss's moves to a win in the
    most plies. Empty when the game is over or no table holds the state."""
    root = probe(game, jax.tree.map(lambda x: jnp.asarray(x)[None], state), tables)
    root = Probe(int(root.wdl[0]), int(root.distance[0]))
    if root.wdl == NOT_FOUND or bool(game.terminal(state)):
        return root, []
    if isinstance(game, MoveLists):
        actions = np.asarray(game.legal_moves(state), np.int32)
    else:
        mask = np.asarray(game.legal_mask(state))
        actions = np.where(mask, np.arange(mask.size), -1).astype(np.int32)
    kids = _children(game, tables)(state, actions, tables.distance)
    wdl, distance = (np.asarray(x, np.int64) for x in kids)
    legal = actions >= 0
    if root.wdl == 1:
        chosen = legal & (wdl == -1)
        chosen &= distance == (distance[chosen].min() if chosen.any() else 0)
    elif root.wdl == 0:
        chosen = legal & (wdl == 0)
    else:
        chosen = legal & (wdl == 1)
        chosen &= distance == (distance[chosen].max() if chosen.any() else 0)
    return root, [int(a) for a in actions[chosen]]


# ---------------------------------------------------------------- a game that knows them
class _ExactFromTables:
    """Mixed into a copy of a game by :func:`with_tables`: the capability
    :class:`~jaxgames.capabilities.ExactValues` read off the tables."""

    tables: TableSet

    def _key(self) -> tuple:
        # the loaded tables are part of what the game is: compiled searches are cached by it
        return (*super()._key(), self.tables.names, str(self.tables.directory))

    def exact_values(self, state: Any) -> tuple[jax.Array, jax.Array]:
        """``(known, values float32[2])``: the table's result of ``state`` on the utility
        scale, for a win or loss in ``d`` plies ``+-(utility_max - d * MATE_STEP)``, 0 for a
        draw; known when a loaded table holds it."""
        got = probe_one(self, self.tables, state)
        known = got.wdl != NOT_FOUND
        decided = (got.wdl == 1) | (got.wdl == -1)
        size = jnp.float32(self.utility_max) - jnp.float32(MATE_STEP) * got.distance
        mine = jnp.where(decided, got.wdl.astype(jnp.float32) * size, 0.0)
        u0 = jnp.where(self.player(state) == 0, mine, -mine)
        return known, jnp.stack([u0, -u0])


@functools.cache
def _with_exact_class(cls: type) -> type:
    return type(f"{cls.__name__}WithTables", (_ExactFromTables, cls), {})


def with_tables(
    game: Game,
    directory: str | os.PathLike | None = None,
    names: tuple[str, ...] | list[str] | None = None,
) -> Game:
    """``game`` with its tables loaded: the same game (rules, notation, capabilities)
    that also has :class:`~jaxgames.capabilities.ExactValues`, so alpha-beta and
    ``jaxgames.evaluate`` take every position a table holds as an exact leaf (counted in
    their ``exact_hits``). ``make(name, tables=DIR)`` makes one too."""
    tables = open_tables(game, directory, names)
    out = copy.copy(game)
    out.__class__ = _with_exact_class(type(game))
    out.tables = tables
    out.params = {**game.params, "tables": str(tables.directory)}
    return out


__all__ = [
    "BROKEN",
    "DRAW",
    "MATE_STEP",
    "NOT_FOUND",
    "BuildReport",
    "Probe",
    "Table",
    "TableSet",
    "best_moves",
    "build",
    "default_directory",
    "load",
    "open_tables",
    "probe",
    "probe_one",
    "table_path",
    "with_tables",
]
