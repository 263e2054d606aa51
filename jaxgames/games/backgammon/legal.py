"""The backgammon legal mask: which action codes of a roll are legal, one per distinct
position the roll can lead to (a 2 x 26 x 26 grid for non-doubles, the 23,751 codes for
doubles), checked for every code at once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.games.backgammon.encoding import (
    _D_EQ,
    _D_LEN,
    _D_NBAR,
    _D_SRC,
    _PTS,
    BAR,
    DOUBLES_CODES,
    _i32,
)


def _board_features(own: jax.Array, opp: jax.Array):
    """Per-lane facts of the mover's board used by the move rules (all int32)."""
    c = _i32(own)  # [26]
    o = _i32(opp)
    # Opponent's checkers on the mover's point t are on the opponent's point 25 - t.
    opp_at = jnp.concatenate([jnp.zeros((1,), jnp.int32), o[24:0:-1], jnp.zeros((1,), jnp.int32)])
    blocked = opp_at >= 2  # [26], index = mover's point
    blot = opp_at == 1
    # above[s]: checkers on points above s (bar included).
    above = jnp.cumsum(c[::-1])[::-1] - c  # [26]
    out = above[6]  # checkers on 7..24 and the bar
    return c, blocked, blot, above, out


def _single_moves(c, blocked, above, out, die):
    """bool[26]: which sources can move one checker by ``die`` on the original board."""
    s = jnp.arange(_PTS, dtype=jnp.int32)
    t = s - die
    open_dest = ~blocked[jnp.clip(t, 0, 25)]
    bear = (out == 0) & ((t == 0) | (above == 0))
    dest_ok = jnp.where(t >= 1, open_dest, bear)
    return (s >= 1) & (c >= 1) & ((c[BAR] == 0) | (s == BAR)) & dest_ok


def _two_move_grid(c, blocked, above, out, e1, e2):
    """bool[26, 26]: code (s1, s2) plays die e1 from s1, then die e2 from s2, both legal."""
    s1 = jnp.arange(_PTS, dtype=jnp.int32)[:, None]  # [26, 1]
    s2 = jnp.arange(_PTS, dtype=jnp.int32)[None, :]  # [1, 26]
    m1 = _single_moves(c, blocked, above, out, e1)[:, None]
    t1 = s1 - e1
    landed = (t1 >= 1) & (s2 == t1)
    avail = c[None, :] - (s2 == s1) + landed >= 1
    bar_ok = (c[BAR] - (s1 == BAR) == 0) | (s2 == BAR)
    t2 = s2 - e2
    open_dest = ~blocked[jnp.clip(t2, 0, 25)]  # [1, 26]
    out_now = out - ((s1 >= 7) & (t1 <= 6))
    above_now = above[None, :] - ((s1 > s2) & (t1 <= s2))
    bear = (out_now == 0) & ((t2 == 0) | (above_now == 0))
    dest_ok = jnp.where(t2 >= 1, open_dest, bear)
    return m1 & (s2 >= 1) & avail & bar_ok & dest_ok


def _non_doubles_mask(own, opp, hi, lo):
    """bool[2, 26, 26]: the legal non-doubles codes, one per distinct resulting position.

    A two-move code ``(order, a, b)`` (first die ``e1``, second ``e2``) is one of:

    * a chain, ``b == a - e1``: one checker moves ``a -> a - e1 -> ...`` (hitting a blot on
      ``a - e1`` if there is one);
    * an anti-chain, ``a == b - e2``: one checker goes ``b -> a -> ...`` in effect (``a``
      holds one of the mover's checkers, so nothing is hit there);
    * independent: two checker moves, ``a`` by ``e1`` and ``b`` by ``e2``.

    Chains and anti-chains of one source ``x`` via ``x - hi`` and via ``x - lo`` give the same
    position unless a blot is hit on the way; independent codes coincide with the same moves
    in the other order, and, when both checkers stand on points ``<= lo`` (so each die bears
    either off), with the dice swapped between them. Any other two codes differ in the
    mover's checkers or in the hits. Of each group the smallest legal code is kept.
    """
    c, blocked, blot, above, out = _board_features(own, opp)
    g0 = _two_move_grid(c, blocked, above, out, hi, lo)  # order 0: hi first
    g1 = _two_move_grid(c, blocked, above, out, lo, hi)  # order 1: lo first
    a = jnp.arange(_PTS, dtype=jnp.int32)[:, None]
    b = jnp.arange(_PTS, dtype=jnp.int32)[None, :]
    chain0 = (b == a - hi) & (b >= 1)
    anti0 = (a == b - lo) & (a >= 1)
    chain1 = (b == a - lo) & (b >= 1)
    anti1 = (a == b - hi) & (a >= 1)
    # Per source x (vectors over x): legality of the four one-checker codes.
    an0 = jnp.any(g0 & anti0, axis=0)  # (0, x - lo, x)
    ch0 = jnp.any(g0 & chain0, axis=1)  # (0, x, x - hi)
    an1 = jnp.any(g1 & anti1, axis=0)  # (1, x - hi, x)
    x = jnp.arange(_PTS, dtype=jnp.int32)
    hit_h = blot[jnp.clip(x - hi, 0, 25)] & (x - hi >= 1)
    hit_l = blot[jnp.clip(x - lo, 0, 25)] & (x - lo >= 1)
    quiet_ch0 = ch0 & ~hit_h
    sup_ch0 = ~hit_h & an0
    sup_an1 = an0 | quiet_ch0
    sup_ch1 = ~hit_l & (an0 | quiet_ch0 | an1)
    # Independent codes.
    bo4 = (a >= 1) & (a <= lo) & (b >= 1) & (b <= lo)
    g0t, g1t = g0.T, g1.T
    sup_i0 = bo4 & (a > b) & g0t
    sup_i1 = g0t | (bo4 & (g0 | ((a > b) & g1t)))
    keep0 = g0 & ~(chain0 & sup_ch0[:, None])
    keep0 = keep0 & ~(~chain0 & ~anti0 & sup_i0)
    keep1 = g1 & ~(anti1 & sup_an1[None, :]) & ~(chain1 & sup_ch1[:, None])
    keep1 = keep1 & ~(~chain1 & ~anti1 & sup_i1)
    two = jnp.stack([keep0, keep1])  # [2, 26, 26]
    any_two = jnp.any(g0) | jnp.any(g1)
    single_hi = _single_moves(c, blocked, above, out, hi)
    single_lo = _single_moves(c, blocked, above, out, lo)
    any_hi, any_lo = jnp.any(single_hi), jnp.any(single_lo)
    singles = jnp.stack(
        [single_hi[:, None] & (b == 0), (single_lo & ~any_hi)[:, None] & (b == 0)]
    )  # [2, 26, 26]
    pass_only = jnp.zeros((2, _PTS, _PTS), jnp.bool_).at[0, 0, 0].set(True)
    return jnp.where(any_two, two, jnp.where(any_hi | any_lo, singles, pass_only))


def _doubles_mask(own, opp, d):
    """bool[23751]: the legal doubles codes (each a distinct position).

    Code j's moves are checked in order against the board as the earlier moves left it:
    the count on its source (``c[s] - earlier moves from s + earlier arrivals from s + d``),
    the bar (all bar checkers entered first), an open landing point, or for a bear-off all
    checkers home (``out`` minus earlier moves that came home) and, from below the die, no
    checker above (``above[s]`` minus earlier moves from above that landed at or below).
    The per-point facts are packed into 26-bit masks, so each check is a shift and an AND
    per code (no gathers). Only the longest plays are kept.
    """
    c, blocked, _, above, out = _board_features(own, opp)
    s = jnp.arange(_PTS, dtype=jnp.int32)
    can_move = (s - d >= 1) & ~blocked[jnp.clip(s - d, 0, 25)]

    def bits(flags):  # bool[26] -> a 26-bit mask
        return jnp.sum(jnp.where(flags, jnp.left_shift(1, s), 0))

    at_least = [bits(c >= k) for k in (1, 2, 3, 4)]
    exactly_above = [bits(above == k) for k in (0, 1, 2, 3)]
    moves = bits(can_move)
    src = jnp.asarray(_D_SRC)  # int8[4, C]
    eq = jnp.asarray(_D_EQ)
    nbar = jnp.asarray(_D_NBAR)
    ok = jnp.ones((DOUBLES_CODES,), jnp.bool_)
    for j in range(4):
        sj = src[j].astype(jnp.int32)
        arr = jnp.zeros((DOUBLES_CODES,), jnp.int32)
        home = jnp.zeros((DOUBLES_CODES,), jnp.int32)
        cross = jnp.zeros((DOUBLES_CODES,), jnp.int32)
        for i in range(j):
            si = src[i].astype(jnp.int32)
            arr = arr + (si == sj + d)
            home = home + ((si >= 7) & (si - d <= 6))
            cross = cross + ((si > sj) & (si - d <= sj))
        need = 1 + eq[j] - arr  # checkers needed on the source originally
        have = jnp.where(
            need == 1,
            at_least[0],
            jnp.where(need == 2, at_least[1], jnp.where(need == 3, at_least[2], at_least[3])),
        )
        avail = (need <= 0) | ((jnp.right_shift(have, sj) & 1) == 1)
        clear = jnp.where(
            cross == 0,
            exactly_above[0],
            jnp.where(
                cross == 1,
                exactly_above[1],
                jnp.where(cross == 2, exactly_above[2], exactly_above[3]),
            ),
        )
        bear = (out == home) & ((sj == d) | ((jnp.right_shift(clear, sj) & 1) == 1))
        dest = jnp.where(sj - d >= 1, (jnp.right_shift(moves, sj) & 1) == 1, bear)
        bar_ok = (sj == BAR) | (c[BAR] == nbar)
        ok = ok & ((sj == 0) | (avail & bar_ok & dest))
    length = jnp.asarray(_D_LEN)
    best = jnp.max(jnp.where(ok, length, 0))
    return ok & (length == best)
