"""The transposition table shared by all lanes of a device.

Keyed by the game's Zobrist hash; an entry holds (value, bound type, remaining depth, best
move). It answers only for the same remaining depth, so a depth-limited value stays exactly
the depth-limited minimax value; but an entry whose search reached the end of every line
(the remaining depth covered every ply the game can still last) is marked *complete* and
answers every search that also reaches every end, whatever its depth, its root or its
iteration: that is what makes the table pay across the null-window tests of a solver and
across the roots of a batch.

Replacement: a slot is taken over by any other position, but for the same position a deeper
result, or an exact one over a bound of the same depth, is kept. Lock-less: an entry is
stored as ``(key ^ data, data)`` and read back only if the XOR checks, so a torn write by
two lanes at once reads as a miss.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

EXACT, LOWER, UPPER = 0, 1, 2
COMPLETE = 255  # the depth field of an entry whose search reached every end
_DEPTHS = 254  # deeper depth-limited searches are not stored (8 bits hold the depth)


class Entry(NamedTuple):
    hit: jax.Array  # bool
    value: jax.Array  # float32
    depth: jax.Array  # int32 (COMPLETE: every line reached its end)
    flag: jax.Array  # int32: EXACT, LOWER or UPPER
    move: jax.Array  # int32 (-1: none)


def empty(bits: int) -> jax.Array:
    """uint32[2**bits, 4] (a 1-row table when bits is 0: no table)."""
    return jnp.zeros((1 << bits if bits else 1, 4), jnp.uint32)


def _index(key: jax.Array, bits: int) -> jax.Array:
    return (key[1] & jnp.uint32((1 << bits) - 1)).astype(jnp.int32)


def _data(value, depth, flag, move) -> jax.Array:
    d1 = jax.lax.bitcast_convert_type(jnp.float32(value), jnp.uint32)
    d2 = (
        (jnp.uint32(depth) & jnp.uint32(0xFF))
        | (jnp.uint32(flag) << 8)
        | (jnp.uint32(move + 1) << 10)
    )
    return jnp.stack([d1, d2])


def probe(table: jax.Array, key: jax.Array, bits: int) -> Entry:
    """The entry for ``key``; a torn or foreign entry is a miss."""
    entry = table[_index(key, bits)]  # [4]
    d1, d2 = entry[2], entry[3]
    hit = ((entry[0] ^ d1) == key[0]) & ((entry[1] ^ d2) == key[1]) & (d2 != 0)
    return Entry(
        hit=hit,
        value=jax.lax.bitcast_convert_type(d1, jnp.float32),
        depth=(d2 & jnp.uint32(0xFF)).astype(jnp.int32),
        flag=((d2 >> 8) & jnp.uint32(3)).astype(jnp.int32),
        move=(d2 >> 10).astype(jnp.int32) - 1,
    )


def answers(entry: Entry, remaining: jax.Array, complete: jax.Array) -> jax.Array:
    """The entry answers a search of ``remaining`` plies (``complete``: that search reaches
    every end): the same depth, or both complete."""
    return entry.hit & (
        (entry.depth == remaining) | ((entry.depth == COMPLETE) & jnp.asarray(complete))
    )


def settles(entry: Entry, alpha: jax.Array, beta: jax.Array) -> jax.Array:
    """The entry's value settles a node searched with the window ``(alpha, beta)``."""
    return (
        (entry.flag == EXACT)
        | ((entry.flag == LOWER) & (entry.value >= beta))
        | ((entry.flag == UPPER) & (entry.value <= alpha))
    )


def store(
    table: jax.Array,
    key: jax.Array,
    bits: int,
    value: jax.Array,
    remaining: jax.Array,
    complete: jax.Array,
    flag: jax.Array,
    move: jax.Array,
    active: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(slot, row, write)``: the write of one finished node, to be scattered by the caller
    (all lanes at once). Depth-limited results deeper than 8 bits hold are not stored."""
    depth = jnp.where(complete, COMPLETE, jnp.maximum(remaining, 0))
    entry = _data(value, depth, flag, move)
    held = probe(table, key, bits)
    held_depth = jnp.where(held.depth == COMPLETE, 1 << 9, held.depth)
    new_depth = jnp.where(complete, 1 << 9, depth)
    keep = held.hit & (
        (held_depth > new_depth)
        | ((held_depth == new_depth) & (held.flag == EXACT) & (flag != EXACT))
    )
    write = active & (remaining > 0) & (complete | (remaining <= _DEPTHS)) & ~keep
    return _index(key, bits), jnp.concatenate([key ^ entry, entry]), write


def flush(table_: jax.Array, pending: tuple) -> jax.Array:
    """The table with a round of writes in (slots out of range are dropped)."""
    slot, rows = pending
    return table_.at[slot].set(rows, mode="drop")


def no_writes(table_: jax.Array, lanes: int) -> tuple | None:
    """An empty round of writes for ``lanes`` lanes (None without a table)."""
    if table_.shape[0] <= 1:
        return None
    return (jnp.full((lanes,), table_.shape[0], jnp.int32), jnp.zeros((lanes, 4), jnp.uint32))
