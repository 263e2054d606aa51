"""64-square bitboards as pairs of uint32 words, for traced code.

JAX keeps 64-bit integers off by default, so a bitboard (bit ``s`` set for square ``s``,
``a1 = 0`` ... ``h8 = 63``) is held as two uint32 arrays of one shape: word 0 for squares
0-31, word 1 for 32-63. Under ``vmap`` each word is a vector over the batch, so every
operation here is one elementwise vector instruction per word.

XLA's CPU backend fuses chains of these cheap operations into each consumer, recomputing
a shared chain once per consumer. Games that compute a value many later planes depend on
(attack maps, pins) should produce it as the output of a ``lax.fori_loop``, whose outputs
are materialised once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

Bits = tuple[jax.Array, jax.Array]
"""A bitboard inside traced code: (word 0, word 1), uint32 arrays of any common shape."""

MASK64 = (1 << 64) - 1


def const(value: int) -> Bits:
    """A constant bitboard from a Python integer (bit ``s`` for square ``s``)."""
    return np.uint32(value & 0xFFFFFFFF), np.uint32(value >> 32)


def and_(a: Bits, b: Bits) -> Bits:
    return a[0] & b[0], a[1] & b[1]


def or_(a: Bits, b: Bits) -> Bits:
    return a[0] | b[0], a[1] | b[1]


def xor(a: Bits, b: Bits) -> Bits:
    return a[0] ^ b[0], a[1] ^ b[1]


def not_(a: Bits) -> Bits:
    return ~a[0], ~a[1]


def any_(a: Bits) -> jax.Array:
    """bool: some bit is set."""
    return (a[0] | a[1]) != 0


def count(a: Bits) -> jax.Array:
    """Number of set bits, int32."""
    return (jax.lax.population_count(a[0]) + jax.lax.population_count(a[1])).astype(jnp.int32)


def keep_if(condition: jax.Array, a: Bits) -> Bits:
    """``a`` where ``condition`` holds, else the empty bitboard."""
    return (
        jnp.where(condition, a[0], 0).astype(jnp.uint32),
        jnp.where(condition, a[1], 0).astype(jnp.uint32),
    )


def choose(condition: jax.Array, a: Bits, b: Bits) -> Bits:
    """``a`` where ``condition`` holds, else ``b``."""
    return jnp.where(condition, a[0], b[0]), jnp.where(condition, a[1], b[1])


def shift(b: Bits, k: int) -> Bits:
    """Every bit ``k`` squares on (``k > 0``: toward h8, ``k < 0``: toward a1); bits that
    leave the 64 squares vanish. ``|k| < 64``, static."""
    lo, hi = b
    if k == 0:
        return b
    if k >= 32:
        return jnp.zeros_like(lo), lo << (k - 32)
    if k <= -32:
        return hi >> (-k - 32), jnp.zeros_like(hi)
    if k > 0:
        return lo << k, (hi << k) | (lo >> (32 - k))
    k = -k
    return (lo >> k) | (hi << (32 - k)), hi >> k


def shift_by(b: Bits, k: jax.Array, left: bool) -> Bits:
    """:func:`shift` by a traced amount ``k`` (uint32, 1..31) toward h8 (``left``) or a1."""
    lo, hi = b
    if left:
        return lo << k, (hi << k) | (lo >> (32 - k))
    return (lo >> k) | (hi << (32 - k)), hi >> k


def files_mask(files: set[int] | frozenset[int]) -> int:
    """The squares of the given files (0 = a ... 7 = h) as a Python integer."""
    return sum(1 << s for s in range(64) if s % 8 in files)


def step(b: Bits, d_file: int, d_rank: int) -> Bits:
    """Every bit moved ``d_file`` files and ``d_rank`` ranks (static); bits that would leave
    the board, across an edge file or past the first or last rank, vanish."""
    out = shift(b, 8 * d_rank + d_file)
    if d_file == 0:
        return out
    wrapped = set(range(d_file)) if d_file > 0 else set(range(8 + d_file, 8))
    return and_(out, const(MASK64 ^ files_mask(wrapped)))


_BIT_OF = np.tile(np.arange(32, dtype=np.uint32), 2)


def pack(mask: jax.Array) -> Bits:
    """``bool[64]`` (square order) -> bitboard."""
    words = mask.astype(jnp.uint32) << jnp.asarray(_BIT_OF)  # [64]: distinct bits
    return jnp.sum(words[:32], dtype=jnp.uint32), jnp.sum(words[32:], dtype=jnp.uint32)


def square(s: jax.Array) -> Bits:
    """The bitboard of one traced square ``0..63``."""
    s = jnp.asarray(s).astype(jnp.uint32)
    one = jnp.uint32(1) << (s & 31)
    return (
        jnp.where(s < 32, one, 0).astype(jnp.uint32),
        jnp.where(s >= 32, one, 0).astype(jnp.uint32),
    )
