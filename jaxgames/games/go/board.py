"""The Go board: the state (:class:`GoState`), neighbour shifts on the flat board, and the
traced rules every other module uses: legal points, area flood fill, eyes. Each function
reads the board size from the state's shapes, so it needs no game object.

Points are ``row * size + col`` with row 0 at the bottom (GTP row 1) and col 0 at the left
(GTP column A): OpenSpiel's action ids. A neighbour of every point is read by slicing the
board padded by one point on each side ([size + 2, size + 2]), never by a gather.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import zobrist_table

BLACK, WHITE, EMPTY = 1, -1, 0
"""Board values (int8)."""

OFF = 2
"""The value of a point beyond the edge, where a neighbour lookup needs one."""

NO_KO = -1

_ZOBRIST_SEED = 0x60


@functools.cache
def zobrist_words(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The Zobrist keys of a stone, ``uint32[N, 2]`` (point, colour: 0 Black, 1 White), as
    (low words, high words)."""
    keys = zobrist_table(_ZOBRIST_SEED + n, n, 2)  # [N, 2, 2]
    return np.ascontiguousarray(keys[..., 0]), np.ascontiguousarray(keys[..., 1])


def max_moves(n: int) -> int:
    """The length limit of a game on ``n`` points: ``2 * n`` steps, as OpenSpiel's."""
    return 2 * n


class GoState(NamedTuple):
    """One Go position; ``N = size * size``, ``H`` the superko history's length (0 without
    superko)."""

    board: jax.Array  # int8[N]: BLACK 1, WHITE -1, EMPTY 0
    chain: jax.Array  # int16[N]: a stone's chain id (a point of its chain); N where empty
    player: jax.Array  # int8: 0 Black to move, 1 White
    ko: jax.Array  # int16: the point the side to move may not take back now, or -1
    passes: jax.Array  # int8: consecutive passes just played
    moves: jax.Array  # int16: steps played (passes included)
    hash_lo: jax.Array  # uint32: Zobrist key of the stones (board only), low word
    hash_hi: jax.Array  # uint32: high word
    history_lo: jax.Array  # uint32[H]: board keys after steps 1..moves (superko only)
    history_hi: jax.Array  # uint32[H]


def board_size(state: GoState) -> int:
    """The board's side, from the state's shapes (static)."""
    return math.isqrt(state.board.shape[-1])


def neighbours(x: jax.Array, size: int, fill) -> tuple[jax.Array, ...]:
    """The value at each point's four neighbours (``fill`` beyond the edge): four ``[N]``
    arrays (south, north, west, east) of ``x`` ``[N]``."""
    grid = jnp.pad(x.reshape(size, size), 1, constant_values=fill)
    return (
        grid[:-2, 1:-1].reshape(-1),
        grid[2:, 1:-1].reshape(-1),
        grid[1:-1, :-2].reshape(-1),
        grid[1:-1, 2:].reshape(-1),
    )


def diagonals(x: jax.Array, size: int, fill) -> tuple[jax.Array, ...]:
    """The value at each point's four diagonal neighbours (``fill`` beyond the edge)."""
    grid = jnp.pad(x.reshape(size, size), 1, constant_values=fill)
    return (
        grid[:-2, :-2].reshape(-1),
        grid[:-2, 2:].reshape(-1),
        grid[2:, :-2].reshape(-1),
        grid[2:, 2:].reshape(-1),
    )


def next_to(mask: jax.Array, size: int) -> jax.Array:
    """bool[N]: points with a neighbour in ``mask``."""
    s, n, w, e = neighbours(mask, size, False)
    return s | n | w | e


def neighbour_table(size: int) -> np.ndarray:
    """int32[N, 4]: each point's neighbours (south, north, west, east), ``N`` beyond the edge."""
    n = size * size
    return np.stack(
        [np.asarray(a) for a in neighbours(np.arange(n), size, n)],
        axis=-1,  # type: ignore[arg-type]
    ).astype(np.int32)


def chain_liberty_bounds(state: GoState) -> tuple[jax.Array, jax.Array]:
    """(lowest, highest) liberty of each stone's chain, ``int32[N]`` each (garbage at empty
    points). A chain has no liberty when lowest is ``N``, one (is in atari) when the two are
    equal, two or more when they differ: one segment reduction per state, no flood fill."""
    size = board_size(state)
    n = size * size
    empty = state.board == EMPTY
    points = neighbours(jnp.arange(n, dtype=jnp.int32), size, n)
    low = jnp.full((n,), n, jnp.int32)
    high = jnp.full((n,), -1, jnp.int32)
    for free, point in zip(neighbours(empty, size, False), points, strict=True):
        low = jnp.minimum(low, jnp.where(free, point, n))
        high = jnp.maximum(high, jnp.where(free, point, -1))
    ids = state.chain.astype(jnp.int32)
    both = jax.ops.segment_min(jnp.stack([low, -high], -1), ids, num_segments=n + 1)  # [N+1, 2]
    per_point = both[ids]  # [N, 2]
    return per_point[:, 0], -per_point[:, 1]


def legal_points(state: GoState) -> jax.Array:
    """bool[N]: the empty points the side to move may play (no suicide, not the ko point;
    no repeated whole-board position when the state keeps a superko history). Not masked
    at terminal states."""
    size = board_size(state)
    n = size * size
    me = (1 - 2 * state.player.astype(jnp.int32)).astype(jnp.int8)
    board = state.board
    empty = board == EMPTY
    low, high = chain_liberty_bounds(state)
    own_safe = (board == me) & (low < high)  # joining it leaves a liberty
    opp_atari = (board == -me) & (low == high)  # playing at its liberty captures it
    legal = empty & next_to(empty | own_safe | opp_atari, size)
    legal = legal & (jnp.arange(n) != state.ko)
    if state.history_lo.shape[-1]:
        legal = legal & ~_repeats(state, low == high)
    return legal


def _repeats(state: GoState, atari: jax.Array) -> jax.Array:
    """bool[N]: placing a stone here makes a board seen before (positional superko)."""
    size = board_size(state)
    n = size * size
    zlo, zhi = zobrist_words(n)
    me_index = state.player.astype(jnp.int32)
    me = (1 - 2 * me_index).astype(jnp.int8)
    opp = state.board == -me
    # each opponent chain's key (XOR of its stones' keys): bit parities by a segment sum
    key_lo = jnp.where(opp, jnp.asarray(zlo)[:, 1 - me_index], 0)
    key_hi = jnp.where(opp, jnp.asarray(zhi)[:, 1 - me_index], 0)
    shifts = jnp.arange(32, dtype=jnp.uint32)
    bits = jnp.concatenate(
        [(key_lo[:, None] >> shifts) & 1, (key_hi[:, None] >> shifts) & 1], -1
    ).astype(jnp.int32)  # [N, 64]
    ids = state.chain.astype(jnp.int32)
    parity = (jax.ops.segment_sum(bits, ids, num_segments=n + 1) & 1).astype(jnp.uint32)
    chain_lo = jnp.sum(parity[:, :32] << shifts, -1, dtype=jnp.uint32)  # XOR: bits disjoint
    chain_hi = jnp.sum(parity[:, 32:] << shifts, -1, dtype=jnp.uint32)
    captured_lo = jnp.where(opp & atari, chain_lo[ids], 0)  # [N] per stone: its chain's key
    captured_hi = jnp.where(opp & atari, chain_hi[ids], 0)
    ids_nb = neighbours(ids, size, n)
    lo_nb = neighbours(captured_lo, size, 0)
    hi_nb = neighbours(captured_hi, size, 0)
    new_lo = state.hash_lo ^ jnp.asarray(zlo)[:, me_index]
    new_hi = state.hash_hi ^ jnp.asarray(zhi)[:, me_index]
    for d in range(4):  # each distinct captured chain around the point once
        fresh = jnp.ones((n,), bool)
        for e in range(d):
            fresh = fresh & (ids_nb[d] != ids_nb[e])
        new_lo = new_lo ^ jnp.where(fresh, lo_nb[d], 0)
        new_hi = new_hi ^ jnp.where(fresh, hi_nb[d], 0)
    seen = jnp.arange(state.history_lo.shape[-1]) < state.moves
    same = (new_lo[:, None] == state.history_lo[None, :]) & (
        new_hi[:, None] == state.history_hi[None, :]
    )
    return jnp.any(same & seen[None, :], axis=-1)


def areas(board: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
    """(Black's, White's) Tromp-Taylor area, int32 each: stones, and empty points that
    reach stones of that colour only (through empty points). A flood fill by dilation."""
    black, white, empty = board == BLACK, board == WHITE, board == EMPTY

    def grow(carry):
        rb, rw, _ = carry
        nb = rb | (next_to(rb, size) & empty)
        nw = rw | (next_to(rw, size) & empty)
        return nb, nw, jnp.any(nb != rb) | jnp.any(nw != rw)

    rb, rw, _ = jax.lax.while_loop(lambda c: c[2], grow, (black, white, jnp.bool_(True)))
    black_area = jnp.sum(black | (empty & rb & ~rw), dtype=jnp.int32)
    white_area = jnp.sum(white | (empty & rw & ~rb), dtype=jnp.int32)
    return black_area, white_area


def own_eyes(state: GoState) -> jax.Array:
    """bool[N]: empty points that look like the mover's eye: every neighbour on the board
    is the mover's stone, and of the diagonal points on the board the opponent holds none
    (at the edge) or at most one (inside)."""
    size = board_size(state)
    me = (1 - 2 * state.player.astype(jnp.int32)).astype(jnp.int8)
    board = state.board
    around = neighbours(board, size, OFF)
    surrounded = (board == EMPTY) & jnp.all(
        jnp.stack([(v == me) | (v == OFF) for v in around]), axis=0
    )
    edge = jnp.any(jnp.stack([v == OFF for v in around]), axis=0)
    diag = diagonals(board, size, OFF)
    enemies = sum((v == -me).astype(jnp.int32) for v in diag)
    return surrounded & (enemies <= jnp.where(edge, 0, 1))


def playout_mask(state: GoState) -> jax.Array:
    """bool[N + 1]: the moves of a fast random playout: the legal points that do not fill
    one of the mover's own eyes (:func:`own_eyes`), and the pass only when none is left.
    All False at the end (two passes in a row, or the length limit)."""
    points = legal_points(state) & ~own_eyes(state)
    return jnp.concatenate([points, (~jnp.any(points))[None]]) & ~is_over(state)


def is_over(state: GoState) -> jax.Array:
    """bool: two passes in a row, or :func:`max_moves` steps played."""
    n = state.board.shape[-1]
    return (state.passes >= 2) | (state.moves >= max_moves(n))
