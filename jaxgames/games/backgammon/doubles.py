"""Exact counting and decoding of the distinct plays of a doubles roll: a dynamic program
along the chains of points ``p, p - d, p - 2d, ...`` (lanes on the last axis), without the
legal mask, and the code of a play given as moves per source.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.games.backgammon.counting import _above, _down, _pick, _sel
from jaxgames.games.backgammon.encoding import (
    _BINOM,
    _PTS,
    BAR,
)


def _chain_orders() -> tuple[np.ndarray, np.ndarray]:
    """For each die d: the 24 points in chain-major order (chains of points congruent mod d,
    each from its top point down), and which entries start a chain."""
    order = np.zeros((6, 24), np.int32)
    start = np.zeros((6, 24), np.bool_)
    for d in range(1, 7):
        seq, first = [], []
        for rho in range(1, d + 1):
            chain = list(range(rho, 25, d))[::-1]
            seq += chain
            first += [i == 0 for i in range(len(chain))]
        order[d - 1], start[d - 1] = seq, first
    return order, start


_CHAIN_ORDER, _CHAIN_START = _chain_orders()
_CHAIN_INDEX = np.argsort(_CHAIN_ORDER, axis=1)  # [6, 24]: step of point p + 1 in the order


class _DoublesTable(NamedTuple):
    n: jax.Array  # int32[B]: number of distinct plays
    total: jax.Array  # [B]: moves in each play (the maximum playable, <= 4)
    n_nb: jax.Array  # [B]: plays without a bear-off
    n_bx: jax.Array  # [B]: plays bearing off from the d-point only
    n_t: jax.Array  # [5, B]: plays whose lowest overshooting bear-off is from point t + 1
    hist: jax.Array  # [24, 2, 5, 5, B]: forward counts (step, family, moves so far, m here)
    mask: jax.Array  # bool[24, 2, 5, 5, B]: allowed (m here, m at the point above) per step
    starts: jax.Array  # bool[24, B]: chain starts
    d: jax.Array  # [B]: the die
    drain: jax.Array  # [26, B]: moves per point when every checker above is moved on
    drain_above: jax.Array  # [26, B]: sum of drain over points above p
    nbar: jax.Array  # [B]: checkers entered from the bar first


def _by_die(d: jax.Array, table: np.ndarray) -> jax.Array:
    """``table[d[b] - 1]`` per lane for a static ``table [6, N]`` -> ``[N, B]``."""
    return jnp.asarray(table)[d - 1].T


def _chain_gather(v: jax.Array, d: jax.Array) -> jax.Array:
    """``v[points in chain-major order for die d]``: [26, B] -> [24, B]."""
    return jnp.take_along_axis(v, _by_die(d, _CHAIN_ORDER), axis=0)


def _chain_scatter(v: jax.Array, d: jax.Array) -> jax.Array:
    """Inverse of :func:`_chain_gather`: [24, B] in chain order -> [26, B] by point."""
    out = jnp.take_along_axis(v, _by_die(d, _CHAIN_INDEX), axis=0)
    zero = jnp.zeros_like(v[:1])
    return jnp.concatenate([zero, out, zero])


def _doubles_table(own, opp, d) -> _DoublesTable:
    """Count the distinct plays of doubles ``d`` (lanes on the last axis) by the
    moves-per-source vector ``m``.

    After the bar (entered first, as far as it goes), a play is ``m`` over points 1..24 with
    ``m[p] <= c[p] + m[p + d]`` (checkers there, counting arrivals), moves only to open
    points, at most ``4 - entered`` moves in all, and the most moves possible. Bear-offs
    split the plays into disjoint families: no bear-off (NB); bear-offs from the d-point
    only (BX: every checker outside the home board must come in, i.e. ``m = c + m[p + d]``
    there); and, for ``t < d``, plays whose lowest overshooting bear-off is from ``t``
    (every point above ``t`` is emptied, so the play is fixed by ``m[t]``). NB and BX are
    counted by a dynamic program along the chains of points ``p, p - d, p - 2d, ...``
    (state: moves so far, moves from the previous point of the chain); the ``t`` family in
    closed form.
    """
    c = own.astype(jnp.int32)
    d = d.astype(jnp.int32)
    size = d.shape[0]
    x = jnp.arange(_PTS)[:, None]
    zero = jnp.zeros_like(c[:1])
    opn = jnp.concatenate([zero, opp.astype(jnp.int32)[24:0:-1], zero]) < 2
    bar = c[BAR]
    entry = _sel(opn, BAR - d)
    nbar = jnp.where(entry, jnp.minimum(bar, 4), 0)
    budget = jnp.where((bar > 0) & ~entry, 0, 4 - nbar)
    c1 = jnp.where(x == BAR, 0, c) + jnp.where(x == BAR - d[None, :], nbar[None, :], 0)
    points = _by_die(d, _CHAIN_ORDER)  # [24, B]
    starts = _by_die(d, _CHAIN_START)
    caps = _chain_gather(c1, d)
    moves_ok = _chain_gather(_down(opn, d, False), d) & (points > d[None, :])
    m = jnp.arange(5)[None, :, None, None]
    mp = jnp.arange(5)[None, None, :, None]
    cap = caps[:, None, None, :]
    avail = m <= cap + mp
    moving = m > 0
    allowed = moves_ok[:, None, None, :]
    outside = (points >= 7)[:, None, None, :]
    at_d = (points == d[None, :])[:, None, None, :]
    below = (points < d[None, :])[:, None, None, :]
    nb_ok = avail & (~moving | allowed) & ~((at_d | below) & moving)
    bx_ok = avail & (~moving | allowed | at_d) & ~(outside & (m != cap + mp))
    bx_ok = bx_ok & ~(below & moving) & ~(at_d & ~moving)
    mask = jnp.stack([nb_ok, bx_ok], axis=1)  # [24, 2, m, mp, B]
    first = (jnp.arange(5) == 0)[None, None, :, None]

    def forward(alpha, inputs):  # alpha [2, k, m, B]
        mask_i, start_i = inputs
        base = jnp.where(start_i, jnp.sum(alpha, axis=2, keepdims=True) * first, alpha)
        maskn = mask_i.astype(jnp.int32)
        moved = sum(base[:, :, None, j] * maskn[:, None, :, j] for j in range(5))  # [2, k, m]
        cols = [
            jnp.concatenate([jnp.zeros_like(moved[:, :mm, mm]), moved[:, : 5 - mm, mm]], axis=1)
            for mm in range(5)
        ]
        new = jnp.stack(cols, axis=2)  # [2, k + m, m]
        return new, new

    alpha0 = jnp.zeros((2, 5, 5, size), jnp.int32).at[:, 0, 0].set(1)
    last, hist = jax.lax.scan(forward, alpha0, (mask, starts))
    n_nb = jnp.sum(last[0], axis=1)  # [5 k, B]
    n_bx = jnp.sum(last[1], axis=1)
    # Drain: every checker on or above p moved on (top-down along the chains).
    drain_seq = jax.lax.scan(
        lambda acc, inp: (inp[0] + jnp.where(inp[1], 0, acc),) * 2,
        jnp.zeros((size,), jnp.int32),
        (caps, starts),
    )[1]
    drain = _chain_scatter(drain_seq, d)  # [26, B]
    inner = jnp.where((x >= 1) & (x <= 24), drain, 0)
    bad = (inner > 0) & (x > d[None, :]) & ~_down(opn, d, False)
    drain_above = _above(inner)
    bad_above = _above(bad) > 0
    t = jnp.arange(1, 6)[:, None]
    k = jnp.arange(5)
    extra = k[None, :, None] - drain_above[1:6][:, None, :]  # [5 t, 5 k, B]
    n_t = (
        ((t < d[None, :]) & ~bad_above[1:6])[:, None, :]
        & (extra >= 1)
        & (extra <= drain[1:6][:, None, :])
    ).astype(jnp.int32)
    counts = n_nb + n_bx + jnp.sum(n_t, axis=0)  # [5 k, B]
    playable = (counts > 0) & (k[:, None] <= budget[None, :])
    total = jnp.max(jnp.where(playable, k[:, None], 0), axis=0)
    return _DoublesTable(
        n=_sel(counts, total),
        total=total,
        n_nb=_sel(n_nb, total),
        n_bx=_sel(n_bx, total),
        n_t=jnp.sum(jnp.where((k[:, None] == total[None, :])[None], n_t, 0), axis=1),
        hist=hist,
        mask=mask,
        starts=starts,
        d=d,
        drain=drain,
        drain_above=drain_above,
        nbar=nbar,
    )


def _doubles_pick(tab: _DoublesTable, r: jax.Array) -> jax.Array:
    """int32[B]: the code of the ``r``-th distinct doubles play, ``0 <= r < tab.n``."""
    r = r.astype(jnp.int32)
    x = jnp.arange(_PTS)[:, None]
    in_dp = r < tab.n_nb + tab.n_bx
    nb = r < tab.n_nb
    rank = jnp.where(nb, r, r - tab.n_nb)
    hist = jnp.where(nb, tab.hist[:, 0], tab.hist[:, 1])  # [24, k, m, B]
    mask = jnp.where(nb, tab.mask[:, 0], tab.mask[:, 1])  # [24, m, mp, B]
    five = jnp.arange(5)[:, None, None]
    m_last, rank = _pick(_sel(hist[23], tab.total), rank)

    def backward(carry, inputs):
        k, m_here, rank = carry
        h_prev, mask_i, start_i = inputs
        k = k - m_here
        row = _sel(h_prev, k)  # [m_prev, B]
        allowed = jnp.sum(jnp.where(five == m_here[None, None], mask_i, False), axis=0)
        m_prev, rank = _pick(row * jnp.where(start_i, 1, allowed), rank)
        return (k, m_prev, rank), m_prev

    _, moves = jax.lax.scan(
        backward,
        (tab.total, m_last, rank),
        (hist[:23], mask[1:], tab.starts[1:]),
        reverse=True,
    )  # moves[i] = m at step i, i = 0..22
    m_dp = _chain_scatter(jnp.concatenate([moves, m_last[None]]), tab.d)
    j, _ = _pick(tab.n_t, r - tab.n_nb - tab.n_bx)
    t = (j + 1)[None, :]
    m_t = jnp.where((x > t) & (x <= 24), tab.drain, 0)
    m_t = m_t + jnp.where(x == t, (tab.total - _sel(tab.drain_above, j + 1))[None, :], 0)
    m = jnp.where(in_dp[None, :], m_dp, m_t)
    m = jnp.where(x == BAR, tab.nbar[None, :], m)
    return _doubles_code(m)


def _doubles_code(m: jax.Array) -> jax.Array:
    """int32[B]: the doubles code of plays given as moves per source ``m [26, B]``."""
    from_here = _above(m) + m  # moves from points >= p
    x = jnp.arange(_PTS)[:, None]
    s = [jnp.sum((x >= 1) & (from_here >= j + 1), axis=0) for j in range(4)]
    binom = jnp.asarray(_BINOM)
    return (binom[s[0] + 3, 4] + binom[s[1] + 2, 3] + binom[s[2] + 1, 2] + s[3]).astype(jnp.int32)
