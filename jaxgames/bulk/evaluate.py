"""Bulk evaluation: many positions through a batch search, in chunks, one row per position.

    rows = jaxgames.evaluate("connect4", ["4453", "4455"], algorithm="alphabeta", depth=4)

Positions stream through in chunks of ``chunk_size`` (default :data:`DEFAULT_CHUNK_SIZE`,
1024: the memory of a chunk's search, not of the whole input, bounds what is held). Each
chunk is stacked into one batch, padded to a bucket size (:func:`padded_size`), spread over
the local devices (:func:`jaxgames.kernels.shard_batch`) when there is more than one, and
handed to ``jaxgames.search.<algorithm>_batch(game, states, depth, **options)``; the padding
rows are dropped.

The buckets are 64, 256, 1024, ... (powers of 4) below the chunk size, and the chunk size
itself, each rounded up to a multiple of the device count when sharded; a chunk is padded to
the smallest that holds it. Why: a search is compiled once per batch shape, and padding rows
(copies of the chunk's position with the fewest plies left, the cheapest to search) are
searched like the others. With one size for all
chunks, a short input or a short last chunk is searched at the full size (a dozen positions
as 1024 roots); with a size per chunk length, nearly every input compiles anew. Powers of 4
bound the padding (beyond 64 positions, under 3 padding rows per position) and keep the
compiled shapes, and the persistent compilation cache's entries, to a handful per chunk size.

Best moves and principal variations are named from the game's table of move names where it
has one (:class:`jaxgames.capabilities.FixedMoveNames`), by indexing it with the searches'
actions; other games name each move in its position (the root's, then each PV ply's, the
PVs replayed with the batched step).

Positions may be given as

* positions lines: a position in the game's notation and an optional label after it
  (:func:`jaxgames.positions.parse_line`);
* :class:`jaxgames.positions.Position` records, as :func:`jaxgames.positions.read_positions`
  yields them (``position`` is their text, the state is used as parsed);
* parsed states (one state each, not batched; ``position`` is ``game.format(state)``).

Every row is a JSON-serialisable dict, in input order:

* ``position``: the position as given (without its label);
* ``label``: what followed the position on its line (``""`` when nothing), as positions
  files carry scores or names after the position (:mod:`jaxgames.positions`);
* ``to_move``: the player whose value ``value`` is: the player to move at the root, or 0 at a
  terminal root or a chance node;
* ``value``: the root's backed-up value for ``to_move``, on the game's utility scale (at a
  terminal root: the utility of player 0);
* ``score``: only for games with :class:`~jaxgames.capabilities.Scoring`:
  ``game.score_from_value(value)``
  (connect four: the public solvers' distance score of a win or loss proven within the
  depth; 0 otherwise, as the heuristic's values all round to 0);
* ``best_move``: the chosen move in the game's notation (``""`` at a terminal root or a chance
  node, or at depth 0);
* ``pv``: the principal variation, moves in the game's notation separated by spaces;
* ``nodes``: nodes the search visited below the root (the root included);
* ``depth``, ``algorithm``: what was run.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import jax
import numpy as np

from jaxgames.bulk.distributed import initialize_distributed, process_slice
from jaxgames.capabilities import Scoring
from jaxgames.game import CHANCE, Game, GameError
from jaxgames.positions import Position, parse_line

DEFAULT_CHUNK_SIZE = 1024
"""Positions per chunk: one batch search at a time, and one flush of the CLI's output."""


MEMORY_SHARE = 0.25
"""The share of this machine's memory one chunk's roots may take (:func:`check_chunk_memory`)."""


class Chunk(NamedTuple):
    """The rows of one chunk and what it cost."""

    rows: list[dict[str, Any]]
    seconds: float  # wall time: reading, search and rows (the first chunk's includes compiling)
    nodes: int  # nodes visited below the chunk's roots (padding rows excluded)


# ---------------------------------------------------------------- algorithms and columns
ALGORITHMS: dict[str, str] = {
    "alphabeta": "alphabeta_batch",
    "expectiminimax": "expectiminimax_batch",
    "maxn": "maxn_batch",
    "minimax": "minimax_batch",
    "paranoid": "paranoid_batch",
}
"""The searches bulk evaluation runs, by name: each a ``jaxgames.search`` batch search
``(game, states [N], depth, **options) -> BatchSearchResult``."""


def known_algorithms() -> list[str]:
    """The algorithms bulk evaluation can run (:data:`ALGORITHMS`)."""
    return sorted(ALGORITHMS)


def default_algorithm(game: Game) -> str:
    """The search a game gets when none is named: expectiminimax for games with chance
    nodes, alpha-beta for two-player zero-sum games, maxⁿ (with shallow pruning where the
    game's bounds allow it) otherwise."""
    if game.num_chance_outcomes:
        return "expectiminimax"
    if game.num_players == 2 and game.zero_sum:
        return "alphabeta"
    return "maxn"


def batch_search(algorithm: str) -> Callable[..., Any]:
    """The batch search named ``algorithm``, or a one-line :class:`GameError`."""
    import jaxgames.search as search

    if algorithm not in ALGORITHMS:
        known = ", ".join(known_algorithms())
        raise GameError(f"evaluate: unknown algorithm {algorithm!r}; known: {known}")
    return getattr(search, ALGORITHMS[algorithm])


def columns(game: Game) -> list[str]:
    """The fields of a row, in order (``score`` only for games that have one)."""
    names = ["position", "label", "to_move", "value", "score", "best_move", "pv", "nodes"]
    if not isinstance(game, Scoring):
        names.remove("score")
    return [*names, "depth", "algorithm"]


# ---------------------------------------------------------------- evaluation
def evaluate(
    game: Game | str, positions: Iterable[Any], *args: Any, **options: Any
) -> list[dict[str, Any]]:
    """Search every position and return one row per position, in input order.

    The arguments are those of :func:`iter_chunks`:
    ``evaluate(game, positions, algorithm="auto", depth=4, chunk_size=None, *,
    distributed=False, **options)``.
    """
    return list(iter_evaluate(game, positions, *args, **options))


def iter_evaluate(
    game: Game | str, positions: Iterable[Any], *args: Any, **options: Any
) -> Iterator[dict[str, Any]]:
    """Like :func:`evaluate`, but yields the rows one by one as each chunk is done.

    The arguments (those of :func:`iter_chunks`) are checked at the call, before the first
    row is asked for.
    """
    chunks = iter_chunks(game, positions, *args, **options)
    return (row for chunk in chunks for row in chunk.rows)


def iter_chunks(
    game: Game | str,
    positions: Iterable[Any],
    algorithm: str = "auto",
    depth: int = 4,
    chunk_size: int | None = None,
    *,
    distributed: bool = False,
    shard: bool | None = None,
    **options: Any,
) -> Iterator[Chunk]:
    """The chunks of a bulk evaluation, as they are done.

    Args:
        game: a :class:`Game`, or a name or spec string (``"connect4:width=5,height=4"``).
        positions: strings, :class:`~jaxgames.positions.Position` records or parsed states
            (see the module docstring).
        algorithm: ``"alphabeta"``, ``"expectiminimax"``, ``"minimax"``, ... (see
            :func:`known_algorithms`); ``"auto"`` (default): :func:`default_algorithm`.
        depth: plies searched below each root (>= 0).
        chunk_size: positions per batch search (default :data:`DEFAULT_CHUNK_SIZE`).
        distributed: run under JAX's multi-process runtime (:func:`initialize_distributed`)
            and evaluate only this process's contiguous slice of the positions; the rows
            returned are that slice's.
        shard: spread each chunk over the local devices; ``None`` (default) does so when
            there is more than one.
        **options: passed to the batch search (e.g. ``max_nodes`` for minimax).

    Raises:
        GameError: unknown game or algorithm, a position that does not parse, a bad depth or
            chunk size.
    """
    if isinstance(game, str):
        from jaxgames.registry import make

        game = make(game)
    if algorithm == "auto":
        algorithm = default_algorithm(game)
    search = batch_search(algorithm)
    if not isinstance(depth, int | np.integer) or depth < 0:
        raise GameError(f"evaluate: depth must be a whole number >= 0, got {depth!r}")
    size = DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size
    if not isinstance(size, int | np.integer) or size < 1:
        raise GameError(f"evaluate: chunk size must be >= 1, got {chunk_size!r}")
    if distributed:
        index, count = initialize_distributed()
        positions = process_slice(list(positions), index, count)
    return _chunks(game, iter(positions), algorithm, search, int(depth), int(size), shard, options)


def _chunks(
    game: Game,
    positions: Iterator[Any],
    algorithm: str,
    search: Callable[..., Any],
    depth: int,
    size: int,
    shard: bool | None,
    options: dict[str, Any],
) -> Iterator[Chunk]:
    from jaxgames.kernels import local_mesh, pad_to, shard_batch, shard_multiple, stack

    mesh = local_mesh()
    if shard is None:
        shard = mesh.size > 1
    while True:
        start = time.perf_counter()
        batch = list(itertools.islice(positions, size))  # reading and parsing count too
        if not batch:
            return
        texts, labels, states = zip(*(_position(game, p) for p in batch), strict=True)
        n = len(states)
        padded = padded_size(n, size)
        padded = shard_multiple(padded, mesh) if shard else padded
        stacked = stack(list(states))
        roots = pad_to(stacked, padded, _filler(game, stacked, padded > n))
        result = search(game, shard_batch(roots, mesh) if shard else roots, depth, **options)
        rows = _rows(game, list(texts), list(labels), roots, n, result, depth, algorithm)
        nodes = int(np.asarray(result.nodes)[:n].sum())
        yield Chunk(rows, time.perf_counter() - start, nodes)


def _filler(game: Game, states: Any, needed: bool) -> int:
    """The state a short chunk is padded with: the one with the fewest plies left, whose
    copies cost the search least (the first where the game bounds no length). Padding
    copies are searched like the chunk's own positions; a copy of a long search, queued
    last, ran on alone at the end of the chunk."""
    from jaxgames.search.horizon import plies_left_each

    left = plies_left_each(game, states) if needed else None
    return 0 if left is None else int(np.argmin(left))


def check_chunk_memory(game: Game, chunk_size: int) -> None:
    """Refuse a chunk size whose roots (padded, sharded, and the frames' copies: about four
    times the states) would take more than :data:`MEMORY_SHARE` of this machine's memory."""
    from jaxgames.kernels.playout import state_bytes

    held = chunk_size * state_bytes(game) * 4
    if held > MEMORY_SHARE * _memory_bytes():
        raise GameError(
            f"evaluate: --chunk {chunk_size:,} would hold about {held / 2**30:,.1f} GiB of "
            f"{game.spec} positions at once; use a smaller --chunk"
        )


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def padded_size(n: int, chunk_size: int) -> int:
    """The batch size a chunk of ``n <= chunk_size`` positions is padded to: the smallest of
    64, 256, 1024, ... (below ``chunk_size``) and ``chunk_size`` that holds it (before
    rounding up to the device count; see the module docstring)."""
    bucket = 64
    while bucket < chunk_size:
        if n <= bucket:
            return bucket
        bucket *= 4
    return chunk_size


def _position(game: Game, item: Any) -> tuple[str, str, Any]:
    """(position as given, label, state) of one input item."""
    if isinstance(item, str):
        return parse_line(game, item)
    if isinstance(item, Position):
        return item.text, item.label, item.state
    return game.format(item), "", item


def _number(x: Any) -> float:
    """A float32 as the shortest decimal that reads back to it (and never ``-0.0``)."""
    return float(str(np.float32(x))) + 0.0


def _numbers(values: np.ndarray) -> list[float]:
    """:func:`_number` of each float32, worked out once per distinct value (a search's
    values repeat: proven scores, draws)."""
    distinct, index = np.unique(values, return_inverse=True)
    numbers = [_number(x) for x in distinct]
    return [numbers[i] for i in index.reshape(-1).tolist()]


def _rows(
    game: Game,
    texts: list[str],
    labels: list[str],
    roots: Any,
    n: int,
    result: Any,
    depth: int,
    algorithm: str,
) -> list[dict[str, Any]]:
    from jaxgames.capabilities import FixedMoveNames
    from jaxgames.kernels import batched

    kernels = batched(game)
    player = np.asarray(kernels.player(roots))[:n]
    terminal = np.asarray(kernels.terminal(roots))[:n]
    mover = np.where((player >= 0) & (player < game.num_players) & ~terminal, player, 0)
    value = np.asarray(result.value)[:n]
    best = np.asarray(result.best_action)[:n]
    pv = np.asarray(result.pv)[:n]
    nodes = np.asarray(result.nodes)[:n].tolist()
    named = (best >= 0) & (player != CHANCE)  # roots that get a best move
    if isinstance(game, FixedMoveNames):
        best_moves, pvs = _names_from_table(game.move_names, best, named, pv)
    else:
        best_moves, pvs = _names_by_replay(game, roots, best, named, pv)
    values = _numbers(value[np.arange(n), mover])
    has_score = isinstance(game, Scoring)
    score_of: dict[float, int] = {}
    if has_score:
        score_of = {v: int(game.score_from_value(v)) for v in set(values)}
    rows = []
    for i, (v, to_move) in enumerate(zip(values, mover.tolist(), strict=True)):
        row: dict[str, Any] = {"position": texts[i], "label": labels[i]}
        row.update({"to_move": to_move, "value": v})
        if has_score:
            row["score"] = score_of[v]
        row["best_move"] = best_moves[i]
        row["pv"] = pvs[i]
        row["nodes"] = nodes[i]
        row["depth"] = depth
        row["algorithm"] = algorithm
        rows.append(row)
    return rows


def _names_from_table(
    names: tuple[str, ...], best: np.ndarray, named: np.ndarray, pv: np.ndarray
) -> tuple[list[str], list[str]]:
    """(best move, PV) of each root, named by indexing a game's fixed move names."""
    table = np.asarray([*names, ""], dtype=object)  # index -1: no move
    best_moves = table[np.where(named, best, -1)].tolist()
    alive = np.logical_and.accumulate(pv >= 0, axis=1)  # a PV ends at its first -1
    words = table[np.where(alive, pv, -1)].tolist()
    lengths = alive.sum(axis=1).tolist()
    return best_moves, [" ".join(w[:k]) for w, k in zip(words, lengths, strict=True)]


def _names_by_replay(
    game: Game, roots: Any, best: np.ndarray, named: np.ndarray, pv: np.ndarray
) -> tuple[list[str], list[str]]:
    """(best move, PV) of each root, each move named in its position by the game."""
    from jaxgames.kernels import to_numpy

    host_roots = to_numpy(roots)
    best_moves = []
    for i in range(len(best)):
        if named[i]:
            root = jax.tree.map(lambda x, i=i: x[i], host_roots)
            best_moves.append(game.action_to_string(root, int(best[i])))
        else:
            best_moves.append("")
    return best_moves, [" ".join(moves) for moves in _pv_names(game, host_roots, pv)]


def _pv_names(game: Game, roots: Any, pv: np.ndarray) -> list[list[str]]:
    """Each root's PV in move notation, replayed ply by ply with the batched, jitted step."""
    from jaxgames.kernels import batch_size, batched, to_numpy

    n, plies = pv.shape
    names: list[list[str]] = [[] for _ in range(n)]
    step = batched(game).step
    states = to_numpy(roots)
    total = batch_size(states)
    alive = np.ones(n, bool)
    for ply in range(plies):
        action = pv[:, ply]
        alive &= action >= 0
        if not alive.any():
            break
        for i in np.flatnonzero(alive):
            state = jax.tree.map(lambda x, i=i: x[i], states)
            names[i].append(game.action_to_string(state, int(action[i])))
        if ply + 1 < plies and (pv[:, ply + 1] >= 0).any():
            padded = np.zeros(total, np.int32)
            padded[:n] = np.where(alive, action, 0)  # dead lanes step anywhere, unused
            states = to_numpy(step(states, padded))
    return names
