"""Vector helpers for counting the distinct plays of a roll and decoding the ``r``-th one
(:mod:`.non_doubles`, :mod:`.doubles`): sums, selections and shifts over the 26 points, with
the lanes of a batch on the last axis.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.games.backgammon.encoding import (
    _PTS,
    BAR,
)

# ---------------------------------------------------------------------- exact sampling
# Counting the distinct plays of a roll and decoding the r-th one, without the 23751-wide
# mask: what a random playout needs (see Backgammon.sample_actions). Written for a batch
# with the lanes on the LAST axis (arrays [..., B]): the per-lane vectors here are short
# (26 points, 5 counts), and elementwise work over a trailing batch axis vectorizes on a
# CPU where a vmapped leading batch axis does not.


def _above(v: jax.Array) -> jax.Array:
    """``out[p] = sum(v[q] for q > p)`` over the first axis (26 points), exactly."""
    upper = jnp.asarray(np.triu(np.ones((v.shape[0], v.shape[0]), np.float32), 1))
    return (upper @ v.astype(jnp.float32)).astype(jnp.int32)


def _prefix(v: jax.Array) -> jax.Array:
    """Inclusive prefix sums over the first axis, exactly (counts stay far below 2**24)."""
    if v.shape[0] <= 8:
        return jnp.stack(list(itertools.accumulate(v[i] for i in range(v.shape[0]))))
    lower = jnp.asarray(np.tril(np.ones((v.shape[0], v.shape[0]), np.float32)))
    return (lower @ v.astype(jnp.float32)).astype(jnp.int32)


def _sel(v: jax.Array, idx: jax.Array) -> jax.Array:
    """``v[idx[b], ..., b]`` for ``v [N, ..., B]`` and ``idx [B]`` (idx clipped to range)."""
    idx = jnp.clip(idx, 0, v.shape[0] - 1)
    if v.shape[0] <= 8:  # a masked sum beats a gather for a handful of rows
        hit = jnp.arange(v.shape[0]).reshape((-1,) + (1,) * (v.ndim - 1)) == idx
        return jnp.sum(jnp.where(hit, v, 0), axis=0).astype(v.dtype)
    idx = jnp.broadcast_to(idx.reshape((1,) * (v.ndim - 1) + idx.shape), (1,) + v.shape[1:])
    return jnp.take_along_axis(v, idx, axis=0)[0]


def _down(v: jax.Array, e: jax.Array, fill=0) -> jax.Array:
    """``out[x, b] = v[x - e[b], b]`` over the first axis, ``fill`` where ``x - e < 0``."""
    idx = jnp.arange(v.shape[0])[:, None] - e[None, :]
    got = jnp.take_along_axis(v, jnp.clip(idx, 0, v.shape[0] - 1), axis=0)
    return jnp.where(idx >= 0, got, fill)


def _up(v: jax.Array, e: jax.Array, fill=0) -> jax.Array:
    """``out[x, b] = v[x + e[b], b]`` over the first axis, ``fill`` past the end."""
    idx = jnp.arange(v.shape[0])[:, None] + e[None, :]
    got = jnp.take_along_axis(v, jnp.clip(idx, 0, v.shape[0] - 1), axis=0)
    return jnp.where(idx < v.shape[0], got, fill)


def _pick(weights: jax.Array, r: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Per lane: the entry that rank ``r`` falls in when ranks are dealt out by
    ``weights [N, B]`` in order, and the rank left inside that entry."""
    weights = weights.astype(jnp.int32)
    n = weights.shape[0]
    cum = _prefix(weights)
    j = jnp.minimum(jnp.sum(cum <= r[None, :], axis=0), n - 1)
    before = jnp.sum(jnp.where(jnp.arange(n)[:, None] < j[None, :], weights, 0), axis=0)
    return j, r - before


def _features(own: jax.Array, opp: jax.Array):
    """Per-lane facts of the mover's board ([26, B] int32 counts in, all [26, B] or [B])."""
    c = own.astype(jnp.int32)
    o = opp.astype(jnp.int32)
    zero = jnp.zeros_like(o[:1])
    opp_at = jnp.concatenate([zero, o[24:0:-1], zero])  # index = mover's point
    above = _above(c)
    return c, opp_at >= 2, opp_at == 1, above, above[6]


def _singles(c, blocked, above, out, e):
    """bool[26, B]: sources of a legal single move by die ``e`` on the original board."""
    x = jnp.arange(_PTS)[:, None]
    bear = (out[None, :] == 0) & ((x == e[None, :]) | (above == 0))
    dest_ok = jnp.where(x - e[None, :] >= 1, ~_down(blocked, e, True), bear)
    return (x >= 1) & (c >= 1) & ((c[BAR] == 0)[None, :] | (x == BAR)) & dest_ok
