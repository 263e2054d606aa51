"""Exact counting and decoding of the distinct plays of a non-doubles roll, in closed forms
over the 26 points (lanes on the last axis), without the legal mask: what random playouts
draw through.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.games.backgammon.counting import (
    _down,
    _features,
    _pick,
    _sel,
    _singles,
    _up,
)
from jaxgames.games.backgammon.encoding import (
    _PTS,
    BAR,
    DOUBLES_CODES,
)


class _NonDoublesTable(NamedTuple):
    n: jax.Array  # int32[B]: number of distinct plays
    n_two: jax.Array  # [B]: two-move plays (0 when at most one die can be played)
    n_indep: jax.Array  # [B]: two-move plays moving two different checkers
    regime: jax.Array  # [B]: 0 no bar and 2+ checkers outside home, 1 one on the bar,
    #                    2 two or more on the bar, 3 bearing off (0 on the bar, <= 1 outside)
    rows: jax.Array  # [26, B]: regime 0: independent plays per high-die source
    low: jax.Array  # bool[26, B]: sources of legal single moves with the low die
    counts: jax.Array  # [26, B]: the mover's checkers
    bar_pairs: jax.Array  # bool[2, 26, B]: regime 1: (bar by hi, b by lo), (a by hi, bar by lo)
    slots: jax.Array  # [7, B]: regime 3: points 1..6 and the checker outside (or 0)
    keep: jax.Array  # bool[7, 7, B]: regime 3: one cell (slot a by hi, slot b by lo) per play
    hi_first: jax.Array  # bool[49, B]: regime 3: code (0, a, b) legal
    lo_first: jax.Array  # bool[49, B]: regime 3: code (1, b, a) legal
    one_checker: jax.Array  # [26, 3, B]: per (source, kind), the code of a one-checker play
    one_ok: jax.Array  # bool[26, 3, B]
    singles: jax.Array  # bool[26, B]: sources of the one-move plays
    single_die: jax.Array  # [B]: 0 when the one-move plays use the high die, 1 the low


def _bearoff_grid(c, blocked, above, out, high, low, hi, lo):
    """The bear-off regime's 7 x 7 grid (lanes on the last axis): (slots [7, B] = points
    1..6 and the one checker outside or 0, keep bool[7, 7, B] = one cell (slot a by hi,
    slot b by lo) per play, and the legality of codes (0, a, b) and (1, b, a), [7, 7, B])."""
    size = hi.shape[0]
    x = jnp.arange(_PTS)[:, None]
    outside = jnp.sum(jnp.where(x >= 7, x * c, 0), axis=0)
    o_pt = jnp.where(out == 1, outside, 0)
    slots = jnp.concatenate([jnp.broadcast_to(jnp.arange(1, 7)[:, None], (6, size)), o_pt[None]])

    def at_slots(v):  # [26, B] -> [7, B]
        return jnp.concatenate([v[1:7], _sel(v, o_pt)[None]])

    c_s, above_s = at_slots(c), at_slots(above)
    high_s, low_s = at_slots(high), at_slots(low)
    blk_lo_s = at_slots(_down(blocked, lo, True))
    blk_hi_s = at_slots(_down(blocked, hi, True))

    def grid(first_ok_a, e1, e2, c_b, above_b, blk_b, pa, pb):
        """Die e1 from slot a, then e2 from slot b (axes: a, b, lane)."""
        t1 = pa - e1
        landed = (t1 >= 1) & (pb == t1)
        avail = c_b - (pb == pa) + landed >= 1
        t2 = pb - e2
        out_now = out - ((pa >= 7) & (t1 <= 6))
        above_now = above_b - ((pa > pb) & (t1 <= pb))
        bear = (out_now == 0) & ((t2 == 0) | (above_now == 0))
        dest_ok = jnp.where(t2 >= 1, ~blk_b, bear)
        return first_ok_a & (pa >= 1) & (pb >= 1) & avail & dest_ok

    pa, pb = slots[:, None, :], slots[None, :, :]
    g0 = grid(high_s[:, None], hi, lo, c_s[None], above_s[None], blk_lo_s[None], pa, pb)
    g1 = grid(low_s[None, :], lo, hi, c_s[:, None], above_s[:, None], blk_hi_s[:, None], pb, pa)
    indep = (g0 | g1) & (pb != pa - hi) & (pa != pb - lo)
    bo4 = (pa >= 1) & (pa <= lo) & (pb >= 1) & (pb <= lo)
    keep = indep & ~(bo4 & (pa > pb) & jnp.swapaxes(indep, 0, 1))
    return slots, keep, g0, g1


def _one_checker_plays(c, blocked, blot, above, out, bar, high, low, hi, lo, x, xh, xl):
    """The one-checker plays of :func:`_non_doubles_table`, per source ``x`` (``xh``, ``xl``:
    ``x`` minus each die): their codes ``[26, 3, B]`` (via either point without a hit,
    hitting on ``x - hi``, hitting on ``x - lo``) and which are legal ``bool[26, 3, B]``."""
    not_bar = (bar[None, :] - (x == BAR)) == 0

    def onward(first, second, landed_above):  # the checker that landed moves on
        t = x - first[None, :] - second[None, :]
        out_now = out[None, :] - ((x >= 7) & (x - first[None, :] <= 6))
        bear = (out_now == 0) & ((t == 0) | (landed_above - 1 == 0))
        open_dest = ~_down(_down(blocked, first, True), second, True)
        return jnp.where(t >= 1, open_dest, bear)

    ch0 = high & (xh >= 1) & not_bar & onward(hi, lo, _down(above, hi))  # (0, x, x - hi)
    ch1 = low & (xl >= 1) & not_bar & onward(lo, hi, _down(above, lo))  # (1, x, x - lo)
    an0 = _down(high, lo, False) & (xl >= 1) & (c >= 1)  # (0, x - lo, x)
    an1 = _down(low, hi, False) & (xh >= 1) & (c >= 1)  # (1, x - hi, x)
    hit_h = _down(blot, hi, False) & (xh >= 1)
    hit_l = _down(blot, lo, False) & (xl >= 1)
    nn = _PTS * _PTS
    c_an0 = xl * _PTS + x
    c_ch0 = x * _PTS + xh
    c_an1 = nn + xh * _PTS + x
    c_ch1 = nn + x * _PTS + xl
    quiet_ch0 = ch0 & ~hit_h
    quiet_ch1 = ch1 & ~hit_l
    quiet = jnp.where(an0, c_an0, jnp.where(quiet_ch0, c_ch0, jnp.where(an1, c_an1, c_ch1)))
    one_checker = jnp.stack([quiet, c_ch0, c_ch1], axis=1)  # [26, 3, B]
    one_ok = jnp.stack([an0 | quiet_ch0 | an1 | quiet_ch1, ch0 & hit_h, ch1 & hit_l], axis=1)
    return one_checker, one_ok


def _bar_pairs(c, blocked, hi, lo, x, xh, xl):
    """Regimes 1 and 2 of :func:`_non_doubles_table`, checkers on the bar: whether each die
    enters (bool[B]) and the pairs (bar by hi, b by lo), (a by hi, bar by lo) (bool[2, 26, B])."""
    opn = ~blocked
    real = (x >= 1) & (x <= 24)
    enter_hi, enter_lo = _sel(opn, BAR - hi), _sel(opn, BAR - lo)
    low_any = real & (c >= 1) & (xl >= 1) & _down(opn, lo, False)
    high_any = real & (c >= 1) & (xh >= 1) & _down(opn, hi, False)
    bar_pairs = jnp.stack(
        [
            enter_hi[None, :] & low_any & (x != BAR - hi[None, :]),
            enter_lo[None, :] & high_any & (x != BAR - lo[None, :]),
        ]
    )
    return enter_hi, enter_lo, bar_pairs


def _non_doubles_table(own, opp, hi, lo, bearoff=None) -> _NonDoublesTable:
    """Count the distinct plays of non-double rolls ``hi > lo`` (lanes on the last axis),
    grouped as in :func:`_non_doubles_mask`, with O(26) vector formulas per lane.

    One-checker plays (per source ``x``: via either point without a hit, hitting on
    ``x - hi``, hitting on ``x - lo``) have closed forms. Independent pairs ``(a by hi,
    b by lo)``: with no checker on the bar and two or more outside the home board the two
    moves cannot interact (no bear-off is possible), so the pairs are the product of the
    single-move sources minus ``b == a`` with one checker there and the two one-checker
    diagonals; with one checker on the bar one move enters and the other is any move of
    the other die; with two or more only both entering; while bearing off (none on the
    bar, at most one outside) every source is one of the points 1..6 or the one checker
    outside, and a 7 x 7 grid of the exact two-move rules decides (:func:`_bearoff_grid`,
    or ``bearoff``, a function with its arguments and results that may compute it for the
    lanes in that regime only).
    """
    c, blocked, blot, above, out = _features(own, opp)
    hi, lo = hi.astype(jnp.int32), lo.astype(jnp.int32)
    size = hi.shape[0]
    x = jnp.arange(_PTS)[:, None]
    xh, xl = x - hi[None, :], x - lo[None, :]
    high = _singles(c, blocked, above, out, hi)
    low = _singles(c, blocked, above, out, lo)
    bar = c[BAR]
    # One-checker plays.
    one_checker, one_ok = _one_checker_plays(
        c, blocked, blot, above, out, bar, high, low, hi, lo, x, xh, xl
    )
    # Independent pairs, regime 0.
    n_low = jnp.sum(low, axis=0, dtype=jnp.int32)
    rows = high * (
        n_low[None, :]
        - (low & (c == 1))
        - (_down(low, hi, False) & (xh >= 1))
        - (_up(low, lo, False) & (x + lo[None, :] <= BAR))
    )
    # Regimes 1 and 2: the bar.
    enter_hi, enter_lo, bar_pairs = _bar_pairs(c, blocked, hi, lo, x, xh, xl)
    # Regime 3: bearing off, on 7 slots (only needed by lanes in that regime).
    regime = jnp.where(bar == 1, 1, jnp.where(bar >= 2, 2, jnp.where(out >= 2, 0, 3)))
    slots, keep, g0, g1 = (bearoff or _bearoff_grid)(c, blocked, above, out, high, low, hi, lo)
    n_by_regime = jnp.stack(
        [
            jnp.sum(rows, axis=0),
            jnp.sum(bar_pairs, axis=(0, 1), dtype=jnp.int32),
            (enter_hi & enter_lo).astype(jnp.int32),
            jnp.sum(keep, axis=(0, 1), dtype=jnp.int32),
        ]
    )
    n_indep = _sel(n_by_regime, regime)
    n_two = n_indep + jnp.sum(one_ok, axis=(0, 1), dtype=jnp.int32)
    n_hi = jnp.sum(high, axis=0, dtype=jnp.int32)
    singles = jnp.where((n_hi > 0)[None, :], high, low)
    n_single = jnp.maximum(jnp.where(n_hi > 0, n_hi, n_low), 1)  # 1: the pass
    return _NonDoublesTable(
        n=jnp.where(n_two > 0, n_two, n_single),
        n_two=n_two,
        n_indep=n_indep,
        regime=regime,
        rows=rows,
        low=low,
        counts=c,
        bar_pairs=bar_pairs,
        slots=slots,
        keep=keep,
        hi_first=g0.reshape(49, size),
        lo_first=g1.reshape(49, size),
        one_checker=one_checker,
        one_ok=one_ok,
        singles=singles,
        single_die=jnp.where(n_hi > 0, 0, 1),
    )


def _non_doubles_pick(tab: _NonDoublesTable, r: jax.Array, hi: jax.Array, lo: jax.Array):
    """int32[B]: the code of the ``r``-th distinct non-doubles play, ``0 <= r < tab.n``.

    Ranks run over the independent pairs first, then the one-checker plays (or, when at
    most one die can be played, over the one-move plays). Each group is dealt out in two
    levels of at most 26 entries (a row, then an entry of that row)."""
    r = r.astype(jnp.int32)
    hi, lo = hi.astype(jnp.int32), lo.astype(jnp.int32)
    nn = _PTS * _PTS
    x = jnp.arange(_PTS)[:, None]
    regime = tab.regime[None, :]

    # Independent pairs. Rows: the high-die source (regime 0), which die enters (1), the
    # only pair (2), the slot moved by the high die (3).
    def pad(v):  # [n, B] -> [26, B]
        return jnp.concatenate([v, jnp.zeros((_PTS - v.shape[0],) + r.shape, v.dtype)])

    keep = tab.keep.astype(jnp.int32)
    only = (x == 0).astype(jnp.int32)
    rows = jnp.where(regime == 0, tab.rows, only)
    rows = jnp.where(regime == 1, pad(tab.bar_pairs.sum(1, dtype=jnp.int32)), rows)
    rows = jnp.where(regime == 3, pad(keep.sum(1)), rows)
    i, rr = _pick(rows, r)
    lone = (x == i[None, :]) & (_sel(tab.counts, i) == 1)[None, :]
    cols = tab.low & ~lone & (x != (i - hi)[None, :]) & (x != (i + lo)[None, :])
    cols = jnp.where(regime == 1, _sel(tab.bar_pairs, i), cols)
    cols = jnp.where(regime == 2, only, cols)
    cols = jnp.where(regime == 3, pad(_sel(keep, i)), cols)
    j, _ = _pick(cols, rr)
    code0 = i * _PTS + j
    code1 = i * nn + BAR * _PTS + j
    code2 = jnp.full_like(r, BAR * _PTS + BAR)
    k = i * 7 + j  # regime 3: a cell of the 7 x 7 grid, and the smallest code of its play
    pa, pb = _sel(tab.slots, i), _sel(tab.slots, j)
    bo4 = (pa <= lo) & (pb <= lo)
    cands = jnp.stack([pa * _PTS + pb, pb * _PTS + pa, nn + pb * _PTS + pa, nn + pa * _PTS + pb])
    ok = jnp.stack(
        [
            _sel(tab.hi_first, k),
            bo4 & _sel(tab.hi_first, j * 7 + i),
            _sel(tab.lo_first, k),
            bo4 & _sel(tab.lo_first, j * 7 + i),
        ]
    )
    code3 = jnp.min(jnp.where(ok, cands, DOUBLES_CODES), axis=0)
    indep_code = _sel(jnp.stack([code0, code1, code2, code3]), tab.regime)
    # A one-checker play: the source, then which of its (up to) three plays.
    one_ok = tab.one_ok.astype(jnp.int32)
    src, rest = _pick(one_ok.sum(1), r - tab.n_indep)
    kind, _ = _pick(_sel(one_ok, src), rest)
    one_code = _sel(_sel(tab.one_checker, src), kind)
    two_code = jnp.where(r < tab.n_indep, indep_code, one_code)
    # A one-move play (or the pass).
    single, _ = _pick(tab.singles, r)
    single_code = jnp.where(jnp.any(tab.singles, axis=0), tab.single_die * nn + single * _PTS, 0)
    return jnp.where(tab.n_two > 0, two_code, single_code).astype(jnp.int32)
