"""Backgammon (money-game scoring, no doubling cube), with full-turn moves.

Rules: two players (``x`` = player 0, ``o`` = player 1) each move 15 checkers around 24
points toward their home board and bear them off. Each player numbers the points from their
own side: a checker moves from the 24-point toward the 1-point, the home board is points
1..6, the bar is "point 25" and borne-off checkers are "point 0". A turn is a roll of two
dice; each die moves one checker that many points, doubles move four times. A checker on the
bar must enter (on the opponent's home board, point ``25 - die``) before any other checker
moves. A point held by two or more opposing checkers is blocked; landing on a single opposing
checker (a blot) hits it and sends it to the bar. Checkers are borne off only while all 15
are in the home board (or off); a die larger than the highest occupied point bears off from
that point only when no checker stands higher. A player must use both dice when possible
(for doubles: as many moves as possible); when only one die can be used, the larger one when
either could be; when nothing can be played the turn passes. The first player to bear off
all 15 checkers wins 1 point, 2 (a gammon) when the loser bore off none, 3 (a backgammon)
when the loser bore off none and still has a checker on the bar or in the winner's home
board. The opening is simplified: the game starts with an ordinary roll for ``x`` (doubles
allowed) instead of the one-die-each roll that decides who starts.

Game graph: a CHANCE node rolls both dice (21 outcomes, see below) and a DECISION node
chooses a whole turn's play; they alternate, starting with the chance node. A decision where
nothing can be played has exactly one legal action, the pass (the empty play).

Chance outcomes: outcome ``k`` is the roll :data:`ROLLS` ``[k] = (hi, lo)``, ordered by
``hi`` then ``lo``: ``11, 21, 22, 31, 32, 33, 41, ..., 66``; doubles have probability 1/36,
the 15 others 1/18.

Actions (``num_actions = 23751``): one action per DISTINCT position the roll can lead to.

* Non-doubles (``hi > lo``): ``action = order * 676 + s1 * 26 + s2`` (codes ``0..1351``),
  where ``order`` 0 plays the high die first and 1 the low die first, ``s1`` is the point
  the first checker leaves and ``s2`` the point the second leaves (in the mover's own
  numbering, looked up on the board as it is after the first move). A point is ``1..24``,
  ``25`` is the bar and ``0`` means "no move". Several codes can give the same position (one
  checker moving ``hi + lo`` either way round, two independent moves in either order, two
  checkers borne off with either die); of each such group only the smallest legal code is
  legal, so the legal actions and the resulting positions are in one-to-one correspondence.
  The rules for which codes coincide are exact (no hashing; see ``_non_doubles_mask``).
* Doubles ``d``: a play is a multiset of at most four sources (points left, ``25`` = bar),
  applied in non-increasing order (the bar first). Every legal play can be reordered that
  way and stays legal (moving from a higher point first never blocks a lower move, empties
  the bar first and only helps bearing off), and two different multisets give different
  positions (the change of the mover's checkers ``sum(e[s - d] - e[s])`` over the sources
  determines the multiset). The codes are the non-increasing sequences
  ``s1 >= s2 >= s3 >= s4`` over ``0..25`` (``0`` = no move, so shorter plays are padded with
  zeros at the end): ``C(29, 4) = 23751`` of them, numbered by the combinatorial number system
  ``action = C(s1 + 3, 4) + C(s2 + 2, 3) + C(s3 + 1, 2) + C(s4, 1)``.

  The empty play (code 0 in both families) is the pass.

Why no position can exceed the action space: every legal play of a non-doubles roll is at
most two checker moves, each named by its source (26 symbols) and the order of the dice (2),
so it has a code in ``2 * 26 * 26``; every legal play of doubles is a multiset of at most four
sources, which has exactly one code among the ``C(29, 4)`` non-increasing sequences. Hence the
number of legal actions of any position is at most 23751; the largest found in random and
constructed positions is 2,226 (1-1 with single checkers on 15 points), and random
games rarely see more than a few hundred.

Compact move lists (the MoveLists capability, :meth:`Backgammon.legal_moves`): no position has
more than ``max_moves = 3060`` legal plays, so a search holds a list of 3,060 moves per node,
not 23,751 slots. Proof: a play gives each of the mover's checkers a number of steps (dice
used), and the position it leads to follows from those numbers alone (a hit happens on every
point a checker lands on that holds a single opposing checker, in any order of the moves).
So the distinct positions are at most the ways to share the play's ``n <= 4`` steps among the
checkers, where checkers on the same point are alike: for each point, a partition of its
share into at most as many parts as it has checkers. With 15 checkers on 15 different points
that is ``C(15 + 4 - 1, 4) = 3060`` ways for 4 steps; any other spread of the checkers (and
fewer steps) gives fewer, as counting the ways over every spread of up to 15 checkers shows.
Non-doubles plays are at most ``15 * 15`` pairs of checkers, 2 * 15 single checkers moving
both dice and 15 single moves, far fewer.

Random playouts (the Sampling capability, :meth:`Backgammon.sample_actions`): a uniform draw
from the 23751-wide legal mask costs about 0.1 ms per lane and step on a CPU (building the
mask and sampling over it). The game therefore also counts the distinct plays of a roll and
decodes the ``r``-th one directly, exactly and without the mask: closed forms over the 26
points for non-doubles, and for doubles a dynamic program along the chains of points
``p, p - d, p - 2d, ...`` (see ``_doubles_table``), a few microseconds per lane.
``sample_actions(states, uniform)`` draws with the kernel's distribution (uniform over the
legal actions, ``chance_probs`` at chance nodes) from one uniform per lane, and the playout
kernel draws through it (``benchmarks/backgammon.py`` measures both ways: about 150 times
faster than through the mask).

State (:class:`BackgammonState`): ``own`` and ``opp`` (int8[26]) are the checkers of the
player to move (or to roll) and of the opponent, each in its owner's numbering (index 0 off,
1..24 points, 25 bar); ``dice`` (int8[2], ``(hi, lo)``, ``(0, 0)`` at a chance node);
``player`` (int8, whose checkers ``own`` holds) and ``hash`` (uint32[2], the Zobrist key).
After a play the two halves swap, so the rules are always written from the mover's side.

Utility: ``[u, -u]`` with ``u = +1/+2/+3`` when ``x`` won a single game / gammon /
backgammon, negative when ``o`` did; ``utility_min = -3``, ``utility_max = 3``.

Notation (host side, :meth:`Backgammon.parse` / :meth:`Backgammon.format`):

* the board string: each player's checkers in the owner's own numbering, then whose turn
  it is and the dice (``-`` when the dice are still to be rolled)::

      x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31

  Entries are ``point:count`` with point ``1..24``, ``bar`` or ``off``; borne-off checkers
  are implied (15 minus those on the board; an ``off`` entry must agree). ``dice=31`` and
  ``dice=13`` are the same roll.
* GNU Backgammon's position ID (14 characters) plus optional dice and player:
  ``"4HPwATDgc/ABMA"`` (start, ``x`` to roll), ``"4HPwATDgc/ABMA:31"`` (``x`` to play 3-1),
  ``"4HPwATDgc/ABMA:31:o"``. The ID is written from the side of the player on roll; as GNU
  Backgammon prints it, its first half holds the checkers of the player NOT on roll and the
  second half those of the player on roll (:meth:`Backgammon.position_id`).

Moves are written as GNU Backgammon writes them: ``"24/18 13/10"``, ``"bar/22 6/off"``,
``"24/18*/13"`` (a hit on the way), ``"8/5(2) 6/3(2)"``, and ``"pass"`` for the empty play.
:meth:`Backgammon.string_to_action` reads any order of the parts and finds the play by the
position it leads to. At a chance node an outcome is written as its dice, ``"31"``.
"""

from __future__ import annotations

import base64
import functools
import itertools
import math
import re
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, GameError, split_fields, two_player_utility, zobrist_table

NUM_CHECKERS = 15
BAR = 25
OFF = 0
_PTS = 26  # indices 0 (off) .. 25 (bar)
NON_DOUBLES_CODES = 2 * _PTS * _PTS  # 1352
DOUBLES_CODES = math.comb(29, 4)  # 23751
MAX_PLAYS = math.comb(15 + 4 - 1, 4)  # 3060: the most legal plays of any position (module doc)

ROLLS: np.ndarray = np.array(
    [(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)], dtype=np.int8
)  # [21, 2]
ROLL_PROBS: np.ndarray = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0 / 36.0, 1.0 / 18.0).astype(
    np.float32
)
START: np.ndarray = np.zeros((_PTS,), np.int8)
START[[24, 13, 8, 6]] = [2, 5, 3, 5]

_ZOBRIST_SEED = 0xB6
# [player, point index in that player's numbering, count 0..15, word]; count 0 has key 0,
# so an empty point contributes nothing and the key of a board is the XOR over its points.
_ZOBRIST = zobrist_table(_ZOBRIST_SEED, 2, _PTS, NUM_CHECKERS + 1)
_ZOBRIST[:, :, 0] = 0
_ZOBRIST_SIDE = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]: o is to move / to roll
_ZOBRIST_ROLL = zobrist_table(_ZOBRIST_SEED + 2, len(ROLLS))  # [21, 2]: the dice rolled


def doubles_rank(s1: int, s2: int, s3: int, s4: int) -> int:
    """The code of the non-increasing source sequence ``s1 >= s2 >= s3 >= s4`` (0 = none)."""
    return math.comb(s1 + 3, 4) + math.comb(s2 + 2, 3) + math.comb(s3 + 1, 2) + s4


def _doubles_sources() -> np.ndarray:
    """``int8[23751, 4]``: the sources of every doubles code, in code order."""
    table = np.zeros((DOUBLES_CODES, 4), np.int8)
    for s1 in range(_PTS):
        for s2 in range(s1 + 1):
            for s3 in range(s2 + 1):
                for s4 in range(s3 + 1):
                    table[doubles_rank(s1, s2, s3, s4)] = (s1, s2, s3, s4)
    return table


DOUBLES_SOURCES: np.ndarray = _doubles_sources()  # [23751, 4]
# Doubles facts that do not depend on the die: per code and move j, how many earlier moves
# leave the same point, and how many moves leave the bar; the play's length.
_D_SRC = DOUBLES_SOURCES.T.copy()  # [4, C]
_D_EQ = np.stack([(_D_SRC[:j] == _D_SRC[j]).sum(axis=0) for j in range(4)]).astype(
    np.int8
)  # [4, C]
_D_NBAR = (_D_SRC == BAR).sum(axis=0).astype(np.int8)  # [C]
_D_LEN = (_D_SRC > 0).sum(axis=0).astype(np.int8)  # [C]
_BINOM = np.array([[math.comb(n, k) for k in range(5)] for n in range(30)], np.int32)


class BackgammonState(NamedTuple):
    """A backgammon position, from the side of the player to move (or to roll)."""

    own: jax.Array  # int8[26]: mover's checkers, mover's numbering (0 off, 1..24, 25 bar)
    opp: jax.Array  # int8[26]: opponent's checkers, opponent's numbering
    dice: jax.Array  # int8[2]: (hi, lo); (0, 0) at a chance node
    player: jax.Array  # int8[]: 0 when own holds x's checkers, 1 when o's
    hash: jax.Array  # uint32[2]: Zobrist key


def _i32(x: jax.Array) -> jax.Array:
    return jnp.asarray(x, jnp.int32)


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


# ---------------------------------------------------------------------- exact sampling
# Counting the distinct plays of a roll and decoding the r-th one, without the 23751-wide
# mask: what a random playout needs (see Backgammon.sample_actions). Written for a batch
# with the lanes on the LAST axis (arrays [..., B]): the per-lane vectors here are short
# (26 points, 5 counts), and elementwise work over a trailing batch axis vectorizes on a
# CPU where a vmapped leading batch axis does not (measured about 3x faster).


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
    # Independent pairs, regime 0.
    n_low = jnp.sum(low, axis=0, dtype=jnp.int32)
    rows = high * (
        n_low[None, :]
        - (low & (c == 1))
        - (_down(low, hi, False) & (xh >= 1))
        - (_up(low, lo, False) & (x + lo[None, :] <= BAR))
    )
    # Regimes 1 and 2: the bar.
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


def _decode_moves(action: jax.Array, dice: jax.Array):
    """(sources int32[4], dice int32[4]) of a code: source 0 means no move."""
    hi, lo = _i32(dice[0]), _i32(dice[1])
    a = jnp.clip(_i32(action), 0, DOUBLES_CODES - 1)
    # non-doubles
    nd = jnp.clip(a, 0, NON_DOUBLES_CODES - 1)
    order = nd // (_PTS * _PTS)
    s1 = (nd // _PTS) % _PTS
    s2 = nd % _PTS
    e1 = jnp.where(order == 0, hi, lo)
    e2 = jnp.where(order == 0, lo, hi)
    nd_src = jnp.stack([s1, s2, jnp.int32(0), jnp.int32(0)])
    nd_die = jnp.stack([e1, e2, e1, e1])
    d_src = jnp.asarray(DOUBLES_SOURCES, jnp.int32)[a]
    d_die = jnp.stack([hi, hi, hi, hi])
    doubles = hi == lo
    return jnp.where(doubles, d_src, nd_src), jnp.where(doubles, d_die, nd_die)


def _longest_run(flags: jax.Array) -> jax.Array:
    """float32: the longest run of True in ``flags`` (bool[24]), by doubling on a bit mask:
    ``runs[k]`` has bit i set when flags i..i+k-1 all are (``runs[x + y] = runs[x] &
    (runs[y] >> x)``), and the length is found bit by bit from 16 down (a few dozen integer
    operations where a scan over the points took a hundred)."""
    bits = jnp.sum(jnp.where(flags, jnp.left_shift(1, jnp.arange(flags.shape[0])), 0))
    runs = {1: bits}
    for k in (2, 4, 8, 16):
        runs[k] = runs[k // 2] & jnp.right_shift(runs[k // 2], k // 2)
    length = jnp.int32(0)
    found = jnp.int32(-1)  # runs[0]: every bit
    for k in (16, 8, 4, 2, 1):
        longer = found & jnp.right_shift(runs[k], length)
        found = jnp.where(longer != 0, longer, found)
        length = jnp.where(longer != 0, length + k, length)
    return length.astype(jnp.float32)


def _zob(p: jax.Array, point: jax.Array, count: jax.Array) -> jax.Array:
    return jnp.asarray(_ZOBRIST)[p, point, jnp.clip(count, 0, NUM_CHECKERS)]


_POSITION_ID = re.compile(r"[A-Za-z0-9+/]{14}(:[^:\s]*){0,2}")  # ID[:dice[:player]]


class Backgammon(Game):
    """Backgammon with full-turn moves (one action per distinct play) and dice as chance."""

    name = "backgammon"
    num_players = 2
    num_actions = DOUBLES_CODES
    num_chance_outcomes = len(ROLLS)
    utility_min = -3.0
    utility_max = 3.0
    zero_sum = True
    max_moves = MAX_PLAYS  # the MoveLists capability: compact lists of legal plays
    max_game_length = 4000
    """Backgammon games have no bound (hits send checkers back). In 32,768 uniformly random
    games from the start: 192 steps on average (a step is a roll or a play), 99.9% under
    600, the longest 772. 4,000 steps (2,000 turns) is a generous cap for loops over whole
    games; a lane still running there is scored by EVAL."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> BackgammonState:
        """The starting position, ``x`` to roll."""
        return self._state_from_boards(START, START, 0, (0, 0))

    def player(self, state: BackgammonState) -> jax.Array:
        """int32: ``CHANCE`` before the roll, else the player to move (0 = x, 1 = o)."""
        return jnp.where(state.dice[0] == 0, jnp.int32(CHANCE), _i32(state.player))

    def terminal(self, state: BackgammonState) -> jax.Array:
        """bool: one side has borne off all 15 checkers."""
        return (state.own[OFF] == NUM_CHECKERS) | (state.opp[OFF] == NUM_CHECKERS)

    def _mover_score(self, state: BackgammonState) -> jax.Array:
        """int32: points won (+) or lost (-) by the side of ``own`` (0 before the end)."""

        def points(loser):
            none_off = loser[OFF] == 0
            back = (loser[BAR] > 0) | jnp.any(loser[19:25] > 0)
            return 1 + none_off.astype(jnp.int32) + (none_off & back).astype(jnp.int32)

        won = state.own[OFF] == NUM_CHECKERS
        lost = state.opp[OFF] == NUM_CHECKERS
        return jnp.where(won, points(state.opp), jnp.where(lost, -points(state.own), 0))

    def utility(self, state: BackgammonState) -> jax.Array:
        """float32[2]: ``[u, -u]``, ``u`` = +-1/2/3 for a single game/gammon/backgammon
        won by x (+) or o (-); zeros before the end."""
        u = self._mover_score(state).astype(jnp.float32)
        return two_player_utility(jnp.where(state.player == 0, u, -u))

    def chance_probs(self, state: BackgammonState) -> jax.Array:
        """float32[21]: 1/36 for doubles, 1/18 for the others (:data:`ROLLS` order)."""
        return jnp.asarray(ROLL_PROBS)

    def legal_mask(self, state: BackgammonState) -> jax.Array:
        """bool[23751]: at a decision, one code per distinct play (see the module doc); at a
        chance node the 21 rolls; all False at a terminal state.

        Both families are computed for every state (a non-doubles 2 x 26 x 26 grid and the
        23751 doubles codes, checked without gathers): about 0.1 ms per state on a CPU. To
        draw random moves, :meth:`sample_actions` is far cheaper."""
        hi, lo = _i32(state.dice[0]), _i32(state.dice[1])
        nd = _non_doubles_mask(state.own, state.opp, hi, lo).reshape(-1)
        nd = jnp.concatenate([nd, jnp.zeros((DOUBLES_CODES - NON_DOUBLES_CODES,), jnp.bool_)])
        dd = _doubles_mask(state.own, state.opp, hi)
        chance = jnp.arange(DOUBLES_CODES) < len(ROLLS)
        mask = jnp.where(hi == 0, chance, jnp.where(hi == lo, dd, nd))
        return mask & ~self.terminal(state)

    def legal_moves(self, state: BackgammonState) -> jax.Array:
        """int32[3060]: the legal actions (:meth:`legal_mask`'s, in increasing order), then
        ``-1`` (the MoveLists capability; see the module doc for the bound).

        One state's list is made by the one branch its dice need (``lax.switch``): the
        2 x 26 x 26 non-doubles grid (five rolls in six), the doubles plays decoded by rank
        (as :meth:`sample_actions` draws them, then sorted), or the 21 rolls. Vectorized
        over a batch, every branch runs for every state: a search that makes lists calls it
        one state at a time."""
        hi, lo = _i32(state.dice[0]), _i32(state.dice[1])

        def listed(mask):
            # the positions of the set entries, by a running count: cheaper than nonzero
            at = jnp.cumsum(mask, dtype=jnp.int32) - 1
            where = jnp.where(mask, at, MAX_PLAYS)
            codes = jnp.arange(mask.shape[0], dtype=jnp.int32)
            return jnp.full((MAX_PLAYS,), -1, jnp.int32).at[where].set(codes, mode="drop")

        def doubles():
            # the plays counted and decoded by rank (the sampler's dynamic program), in a
            # batch as small as their number allows: most rolls have tens of plays, and the
            # 23751-wide mask costs about ten times more
            tab = jax.lax.optimization_barrier(
                _doubles_table(state.own[:, None], state.opp[:, None], jnp.clip(hi, 1, 6)[None])
            )
            n = tab.n[0]

            def decode(size):
                def branch():
                    ranks = jnp.minimum(jnp.arange(size, dtype=jnp.int32), n - 1)
                    wide = jax.tree.map(lambda x: jnp.broadcast_to(x, (*x.shape[:-1], size)), tab)
                    here = jnp.arange(size) < n
                    codes = jnp.sort(jnp.where(here, _doubles_pick(wide, ranks), DOUBLES_CODES))
                    codes = jnp.where(here, codes, -1).astype(jnp.int32)
                    return jnp.full((MAX_PLAYS,), -1, jnp.int32).at[:size].set(codes)

                return branch

            sizes = (64, 256, 1024, MAX_PLAYS)
            bucket = sum((n > size).astype(jnp.int32) for size in sizes[:-1])
            return jax.lax.switch(bucket, [decode(size) for size in sizes])

        branches = [
            lambda: jnp.full((MAX_PLAYS,), -1, jnp.int32),  # a finished game
            lambda: listed(jnp.arange(len(ROLLS) + 1) < len(ROLLS)),  # the rolls
            lambda: listed(_non_doubles_mask(state.own, state.opp, hi, lo).reshape(-1)),
            doubles,
        ]
        which = jnp.where(hi == 0, 1, jnp.where(hi == lo, 3, 2))
        return jax.lax.switch(jnp.where(self.terminal(state), 0, which), branches)

    def num_plays(self, state: BackgammonState) -> jax.Array:
        """int32: the number of legal actions (distinct plays at a decision, 21 at a chance
        node, 0 at a terminal state), counted without building the 23751-wide mask."""
        own, opp = state.own[:, None], state.opp[:, None]
        hi, lo = _i32(state.dice[0])[None], _i32(state.dice[1])[None]
        n_nd = _non_doubles_table(own, opp, hi, lo).n[0]
        n_dd = _doubles_table(own, opp, jnp.clip(hi, 1, 6)).n[0]
        n = jnp.where(hi[0] == 0, len(ROLLS), jnp.where(hi[0] == lo[0], n_dd, n_nd))
        return jnp.where(self.terminal(state), 0, n)

    def sample_action(self, state: BackgammonState, uniform: jax.Array) -> jax.Array:
        """A random action drawn as random playouts draw it, from one uniform ``u`` in [0, 1).

        At a decision: a uniformly random legal action (the ``floor(u * n)``-th of the ``n``
        distinct plays, in an order of its own); at a chance node: a roll drawn by
        :meth:`chance_probs` (inverse CDF). The same distribution as sampling
        :meth:`legal_mask` / :meth:`chance_probs`, but counting and decoding the plays
        directly (a few thousand operations instead of the 23751-wide mask). One state at a
        time; :meth:`sample_actions`, the protocol's batched sampler hint, is cheaper.
        """
        states = jax.tree.map(lambda x: x[None], state)
        return self.sample_actions(states, jnp.asarray(uniform, jnp.float32)[None])[0]

    def sample_actions(self, states: BackgammonState, uniform: jax.Array) -> jax.Array:
        """Batched :meth:`sample_action`: states ``[B]``, uniform ``float32[B]`` -> int32[B].

        The sampling capability (:class:`~jaxgames.capabilities.Sampling`): random playouts
        draw through it.
        Cheaper than ``vmap(sample_action)``: the play counting runs only when some lane is
        at a decision (a real ``lax.cond``; random games in lockstep alternate whole batches
        of chance and decision steps), with the lanes on the last axis, the doubles counter
        only on the lanes that rolled doubles (gathered in chunks of ``B // 5`` lanes) and
        the bear-off grid only on the lanes bearing off (chunks of ``B // 4``).
        """
        hi = states.dice[:, 0].astype(jnp.int32)
        lo = states.dice[:, 1].astype(jnp.int32)
        u = jnp.asarray(uniform, jnp.float32)
        size = hi.shape[0]
        cdf = jnp.cumsum(jnp.asarray(ROLL_PROBS))
        roll = jnp.minimum(jnp.sum(cdf[None, :] <= (u * cdf[-1])[:, None], axis=1), 20)
        deciding = (hi > 0) & ~jax.vmap(self.terminal)(states)
        doubles = deciding & (hi == lo)

        def rank(n, uu):
            return jnp.minimum((uu * n).astype(jnp.int32), n - 1)

        # The barriers keep XLA from fusing (and so recomputing) the counting tables into
        # the decoding that reads them: measured 10-20% faster.
        barrier = jax.lax.optimization_barrier

        def chunked(want, fn, args, outs, chunk):
            """``fn`` on the lanes in ``want`` only, ``chunk`` at a time (lanes on the last
            axis of every array); ``outs`` are the results for the other lanes."""
            order = jnp.cumsum(want) - 1  # rank of each wanted lane
            total = jnp.sum(want)

            def body(carry):
                start, outs = carry
                sel = want & (order >= start) & (order < start + chunk)
                (idx,) = jnp.nonzero(sel, size=chunk, fill_value=size)
                safe = jnp.minimum(idx, size - 1)
                got = barrier(fn(*(a[..., safe] for a in args)))
                outs = tuple(
                    o.at[..., idx].set(v, mode="drop") for o, v in zip(outs, got, strict=True)
                )
                return start + chunk, outs

            return jax.lax.while_loop(lambda c: c[0] < total, body, (jnp.int32(0), outs))[1]

        def bearoff(c, blocked, above, out, high, low, h, l):  # regime 3 lanes only
            want = deciding & (hi != lo) & (c[BAR] == 0) & (out <= 1)
            outs = (
                jnp.zeros((7, size), jnp.int32),
                jnp.zeros((7, 7, size), jnp.bool_),
                jnp.zeros((7, 7, size), jnp.bool_),
                jnp.zeros((7, 7, size), jnp.bool_),
            )
            args = (c, blocked, above, out, high, low, h, l)
            return chunked(want, _bearoff_grid, args, outs, max(1, size // 4))

        def decide(_):
            own, opp = states.own.T, states.opp.T  # [26, B]
            tab = barrier(_non_doubles_table(own, opp, hi, lo, bearoff))
            codes = _non_doubles_pick(tab, rank(tab.n, u), hi, lo)

            def with_doubles(own, opp, d, uu):
                tab = barrier(_doubles_table(own, opp, jnp.clip(d, 1, 6)))
                return (_doubles_pick(tab, rank(tab.n, uu)),)

            args = (own, opp, hi, u)
            return chunked(doubles, with_doubles, args, (codes,), max(1, size // 5))[0]

        codes = jax.lax.cond(jnp.any(deciding), decide, lambda _: jnp.zeros_like(hi), None)
        return jnp.where(hi == 0, roll, codes).astype(jnp.int32)

    def step(self, state: BackgammonState, action: jax.Array) -> BackgammonState:
        """Roll (at a chance node: outcome ``action``) or play code ``action`` and pass the
        turn. Any action traces safely; an illegal one gives an unspecified state."""
        at_chance = state.dice[0] == 0
        rolled = self._roll(state, action)
        played = self._play(state, action)
        return jax.tree.map(lambda r, p: jnp.where(at_chance, r, p), rolled, played)

    def _roll(self, state: BackgammonState, action: jax.Array) -> BackgammonState:
        k = jnp.clip(_i32(action), 0, len(ROLLS) - 1)
        return state._replace(
            dice=jnp.asarray(ROLLS)[k], hash=state.hash ^ jnp.asarray(_ZOBRIST_ROLL)[k]
        )

    def _play(self, state: BackgammonState, action: jax.Array) -> BackgammonState:
        srcs, dies = _decode_moves(action, state.dice)
        p = _i32(state.player)
        q = 1 - p
        idx = jnp.arange(_PTS, dtype=jnp.int32)

        def move(carry, se):  # one checker move from s by e (none when s == 0)
            own, opp, key = carry
            s, e = se
            valid = s > 0
            t = jnp.maximum(s - e, 0)
            ns, nt, nb = own[s], own[t], opp[BAR]
            hit = valid & (t >= 1) & (opp[25 - t] == 1)
            own = own + valid * ((idx == t).astype(jnp.int32) - (idx == s).astype(jnp.int32))
            opp = opp + hit * ((idx == BAR).astype(jnp.int32) - (idx == 25 - t).astype(jnp.int32))
            mv = _zob(p, s, ns) ^ _zob(p, s, ns - 1) ^ _zob(p, t, nt) ^ _zob(p, t, nt + 1)
            hk = _zob(q, 25 - t, 1) ^ _zob(q, BAR, nb) ^ _zob(q, BAR, nb + 1)
            key = key ^ jnp.where(valid, mv, 0) ^ jnp.where(hit, hk, 0)
            return (own, opp, key), None

        start = (_i32(state.own), _i32(state.opp), state.hash)
        (own, opp, key), _ = jax.lax.scan(move, start, (srcs, dies))
        roll = self._roll_index(state.dice)
        key = key ^ jnp.asarray(_ZOBRIST_ROLL)[roll] ^ jnp.asarray(_ZOBRIST_SIDE)
        return BackgammonState(
            own=opp.astype(jnp.int8),
            opp=own.astype(jnp.int8),
            dice=jnp.zeros((2,), jnp.int8),
            player=(1 - state.player).astype(jnp.int8),
            hash=key,
        )

    @staticmethod
    def _roll_index(dice: jax.Array) -> jax.Array:
        hi, lo = _i32(dice[0]), _i32(dice[1])
        return jnp.clip(hi * (hi - 1) // 2 + lo - 1, 0, len(ROLLS) - 1)

    def hash(self, state: BackgammonState) -> jax.Array:
        """uint32[2]: Zobrist key of both boards, the side to move and the dice."""
        return state.hash

    def evaluate(self, state: BackgammonState) -> jax.Array:
        """float32[2]: ``[e, -e]``, a linear evaluation squashed onto (-3, 3).

        From the side of the player to move (or roll), with ``own``/``opp`` features:

        ``raw = 0.2 * (pips_opp - pips_own) / sqrt(1 + (pips_own + pips_opp) / 20)``
        ``      + 0.15 * (blots_opp - blots_own) + 0.1 * (made_own - made_opp)``
        ``      + 0.1 * (home_made_own - home_made_opp) + 0.15 * (prime_own - prime_opp)``
        ``      + 0.5 * (bar_opp - bar_own) + 0.1 * (off_own - off_opp) + 0.25 [to move]``

        * pips: the race (pip count = sum of point x checkers, the bar counting 25); a lead
          matters more when few pips remain, as in the racing rules of thumb: 10 pips ahead
          at 100 against 110 gives about +0.7, at 30 against 40 about +1.1 (other terms 0).
        * blots: single checkers that can be hit cost tempo and pips.
        * made points (2+ checkers on 1..24) block the opponent, home-board points also
          keep hit checkers out; the longest run of made points (prime) traps checkers.
        * a checker on the bar loses a whole turn until it enters: the largest weight.
        * borne-off checkers are progress the pip count already counts; a small bonus
          breaks ties toward bearing off.
        * the side with the dice in hand (or to roll) gains about half a roll.

        ``e = 2.5 * tanh(raw / 2)`` from that side, so ``|e| < 2.5 < 3``: a heuristic stays
        strictly inside the utility range, like a money-game equity with some gammons
        (the weights were set by hand, not fitted). At terminal states ``e`` is the utility.
        """
        c = state.own.astype(jnp.float32)
        o = state.opp.astype(jnp.float32)
        pts = jnp.arange(_PTS, dtype=jnp.float32)

        def side(b):
            on = b[1:25]
            pips = jnp.dot(b, pts)
            blots = jnp.sum(on == 1)
            made = on >= 2
            home = jnp.sum(made[:6])
            return pips, blots, jnp.sum(made), home, _longest_run(made), b[BAR], b[OFF]

        po, bo, mo, ho, pro, baro, offo = side(c)
        pp, bp, mp, hp, prp, barp, offp = side(o)
        race = (pp - po) / jnp.sqrt(1.0 + (po + pp) / 20.0)
        raw = (
            0.2 * race
            + 0.15 * (bp - bo)
            + 0.1 * (mo - mp)
            + 0.1 * (ho - hp)
            + 0.15 * (pro - prp)
            + 0.5 * (barp - baro)
            + 0.1 * (offo - offp)
            + 0.25
        )
        e = 2.5 * jnp.tanh(raw / 2.0)
        e = jnp.where(state.player == 0, e, -e)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    # ------------------------------------------------------------------ host helpers
    def _state_from_boards(self, own, opp, player: int, dice) -> BackgammonState:
        own = np.asarray(own, np.int8)
        opp = np.asarray(opp, np.int8)
        hi, lo = max(dice), min(dice)
        key = np.zeros((2,), np.uint32)
        boards = (own, opp) if player == 0 else (opp, own)
        for p, board in enumerate(boards):
            for i in range(_PTS):
                key ^= _ZOBRIST[p, i, int(board[i])]
        if player == 1:
            key ^= _ZOBRIST_SIDE
        if hi:
            key ^= _ZOBRIST_ROLL[hi * (hi - 1) // 2 + lo - 1]
        return BackgammonState(
            own=jnp.asarray(own),
            opp=jnp.asarray(opp),
            dice=jnp.asarray(np.array([hi, lo], np.int8)),
            player=jnp.int8(player),
            hash=jnp.asarray(key),
        )

    def recompute_hash(self, state: BackgammonState) -> np.ndarray:
        """uint32[2]: the Zobrist key of a concrete state computed from scratch."""
        own, opp = np.asarray(state.own), np.asarray(state.opp)
        dice = np.asarray(state.dice)
        fresh = self._state_from_boards(own, opp, int(state.player), (int(dice[0]), int(dice[1])))
        return np.asarray(fresh.hash)

    @functools.cached_property
    def _jit(self) -> dict[str, Any]:
        return {
            "legal": jax.jit(self.legal_mask),
            "step": jax.jit(self.step),
            "steps": jax.jit(jax.vmap(self.step, in_axes=(None, 0))),
        }

    def legal_actions(self, state: BackgammonState) -> np.ndarray:
        """int[]: the legal actions of a concrete state (host side)."""
        return np.flatnonzero(np.asarray(self._jit["legal"](state)))

    def plays(self, state: BackgammonState) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
        """{action: (own, opp)}: each legal play of a decision state and the position it
        leads to, both boards from the mover's side (26 counts each: off, 1..24, bar)."""
        actions = self.legal_actions(state)
        if not len(actions):
            return {}
        # Pad to one of three sizes so that few batch shapes are ever compiled.
        size = next(n for n in (256, 4096, 1 << 15) if n >= len(actions))
        padded = np.zeros((size,), np.int32)
        padded[: len(actions)] = actions
        children = self._jit["steps"](state, jnp.asarray(padded))
        # After the play the boards swap: the child's opp is the mover's board.
        mine = np.asarray(children.opp)
        theirs = np.asarray(children.own)
        return {
            int(a): (tuple(int(v) for v in mine[i]), tuple(int(v) for v in theirs[i]))
            for i, a in enumerate(actions)
        }

    def moves_of(self, state: BackgammonState, action: int) -> list[tuple[int, int, bool]]:
        """The checker moves of code ``action`` as ``(from, to, hit)`` in play order
        (mover's numbering, 25 = bar, 0 = off), replayed on the host."""
        own = np.asarray(state.own).astype(int).copy()
        opp = np.asarray(state.opp).astype(int).copy()
        hi, lo = (int(v) for v in np.asarray(state.dice))
        action = int(action)
        if hi == lo:
            steps = [(int(s), hi) for s in DOUBLES_SOURCES[action]]
        else:
            order, s1, s2 = action // (_PTS * _PTS), (action // _PTS) % _PTS, action % _PTS
            first, second = (hi, lo) if order == 0 else (lo, hi)
            steps = [(s1, first), (s2, second)]
        moves = []
        for s, e in steps:
            if s <= 0:
                continue
            t = max(s - e, 0)
            hit = t >= 1 and opp[25 - t] == 1
            own[s] -= 1
            own[t] += 1
            if hit:
                opp[25 - t] = 0
                opp[BAR] += 1
            moves.append((s, t, bool(hit)))
        return moves

    # ------------------------------------------------------------------ notation
    def action_to_string(self, state: BackgammonState, action: int) -> str:
        """GNU Backgammon style: ``"24/18 13/10"``, ``"bar/22*"``, ``"6/off(2)"``; ``"pass"``
        for the empty play; at a chance node the roll, ``"31"``."""
        dice = np.asarray(state.dice)
        if int(dice[0]) == 0:
            hi, lo = ROLLS[int(action)]
            return f"{hi}{lo}"
        moves = self.moves_of(state, int(action))
        if not moves:
            return "pass"
        return _format_moves(moves)

    def string_to_action(self, state: BackgammonState, text: str) -> int:
        """Move text (any order of its parts) -> the legal action leading to that position.

        Raises:
            GameError: malformed text, or no legal play (or more than one) matches.
        """
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {text!r} after the game is over")
        low = text.strip().lower()
        dice = np.asarray(state.dice)
        if int(dice[0]) == 0:
            digits = re.sub(r"[\s\-]", "", low)
            if len(digits) != 2 or not digits.isdigit() or not all(c in "123456" for c in digits):
                raise GameError(f"{self.name}: bad roll {text!r}; expected two dice like '31'")
            hi, lo = max(int(digits[0]), int(digits[1])), min(int(digits[0]), int(digits[1]))
            return int(hi * (hi - 1) // 2 + lo - 1)
        if low.isdigit():
            action = int(low)
            self._check_legal(state, action, text)
            return action
        own0 = np.asarray(state.own).astype(int)
        delta, marked = _parse_moves(text, self.name)
        target = own0.copy()
        for point, n in delta.items():
            target[point] += n
        if np.any(target < 0):
            raise GameError(f"{self.name}: move {text!r} moves checkers that are not there")
        candidates = []
        for action, (mine, _) in self.plays(state).items():
            if tuple(target) == mine:
                candidates.append(action)
        if not candidates:
            raise GameError(f"{self.name}: illegal move {text!r} for dice {dice[0]}{dice[1]}")
        if len(candidates) > 1:
            hits = {a: {to for _, to, h in self.moves_of(state, a) if h} for a in candidates}
            dests = _dests(text)
            exact = [a for a in candidates if hits[a] == marked]
            loose = [a for a in candidates if hits[a] - dests == marked - dests]
            candidates = exact if len(exact) == 1 else loose
            if len(candidates) != 1:
                raise GameError(
                    f"{self.name}: move {text!r} is ambiguous; mark hits on the way with '*' "
                    "(e.g. 24/18*/13)"
                )
        return candidates[0]

    def position_id(self, state: BackgammonState) -> str:
        """GNU Backgammon's 14-character position ID, from the side of the player on roll.

        Bits: for each of the two players (first the player NOT on roll, then the player on
        roll, as GNU Backgammon prints it), for points 1..24 then the bar in that player's
        numbering, one ``1`` per checker and a ``0`` after each point; 80 bits packed
        least-significant bit first into 10 bytes, written as base64 without the last 2
        characters.
        """
        return position_id(np.asarray(state.own), np.asarray(state.opp))

    def format(self, state: BackgammonState) -> str:
        """State -> ``"x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31"``."""
        own, opp = np.asarray(state.own), np.asarray(state.opp)
        p = int(state.player)
        boards = {p: own, 1 - p: opp}
        parts = []
        for side in (0, 1):
            board = boards[side]
            entries = []
            if board[BAR]:
                entries.append(f"bar:{int(board[BAR])}")
            for point in range(24, 0, -1):
                if board[point]:
                    entries.append(f"{point}:{int(board[point])}")
            if board[OFF]:
                entries.append(f"off:{int(board[OFF])}")
            parts.append(f"{'xo'[side]}: " + " ".join(entries))
        dice = np.asarray(state.dice)
        roll = f"{int(dice[0])}{int(dice[1])}" if dice[0] else "-"
        return " ".join(parts) + f" to_move={'xo'[p]} dice={roll}"

    position_formats = (
        ("GNU Backgammon position ID, optionally :dice and :player to move", "4HPwATDgc/ABMA:31"),
        (
            "board: each side's checkers as point:count (bar:, off:), then to_move= and dice=",
            "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31",
        ),
        ("the start, x to roll", "start"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """A position ID is one field; a board string runs to its ``to_move=`` and
        ``dice=`` fields (the first other field after them starts the label)."""
        fields = line.split()
        if not fields or _POSITION_ID.fullmatch(fields[0]):
            return split_fields(line, 1)
        count, closing = 0, False
        for field in fields:
            tail = field.lower().startswith(("to_move=", "dice="))
            if closing and not tail:
                break
            closing = closing or tail
            count += 1
        return split_fields(line, count)

    def parse(self, text: str) -> BackgammonState:
        """A board string (see the module doc), a position ID (``"ID"``, ``"ID:31"``,
        ``"ID:31:o"``), or ``""``/``"start"`` -> state.

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self.init()
        if _POSITION_ID.fullmatch(stripped):
            return self._parse_id(stripped)
        return self._parse_board(stripped)

    def _parse_id(self, text: str) -> BackgammonState:
        fields = text.split(":")
        try:
            own, opp = from_position_id(fields[0])
        except ValueError as err:
            raise GameError(f"{self.name}: position ID {fields[0]!r}: {err}") from None
        dice = (0, 0)
        if len(fields) > 1 and fields[1].strip() not in ("", "-", "00"):
            dice = _parse_dice(fields[1].strip(), self.name, f"dice {fields[1]!r} after the ID")
        player = 0
        if len(fields) > 2:
            who = fields[2].strip().lower()
            if who not in ("x", "o"):
                raise GameError(f"{self.name}: player {fields[2]!r} after the ID: expected x or o")
            player = "xo".index(who)
        return self._checked(own, opp, player, dice)

    def _parse_board(self, text: str) -> BackgammonState:
        boards: dict[int, np.ndarray] = {}
        offs: dict[int, int] = {}
        side = None
        player = None
        dice = None
        for match in re.finditer(r"\S+", text):
            token, pos = match.group(0), match.start() + 1
            low = token.lower()
            where = f"{self.name}: token {token!r} at character {pos}"
            if low in ("x:", "o:"):
                side = "xo".index(low[0])
                if side in boards:
                    raise GameError(f"{where}: player {low[0]} is listed twice")
                boards[side] = np.zeros((_PTS,), np.int64)
                continue
            if low.startswith("to_move="):
                who = low.split("=", 1)[1]
                if who not in ("x", "o"):
                    raise GameError(f"{where}: to_move must be x or o")
                player = "xo".index(who)
                continue
            if low.startswith("dice="):
                value = low.split("=", 1)[1]
                dice = (0, 0) if value in ("-", "", "00") else _parse_dice(value, self.name, where)
                continue
            m = re.fullmatch(r"(bar|off|\d+):(\d+)", low)
            if not m:
                raise GameError(
                    f"{where}: expected 'x:', 'o:', 'point:count', 'to_move=' or 'dice='"
                )
            if side is None:
                raise GameError(f"{where}: a point comes before 'x:' or 'o:'")
            name, count = m.group(1), int(m.group(2))
            if name == "off":
                offs[side] = count
                continue
            point = BAR if name == "bar" else int(name)
            if not 1 <= point <= BAR:
                raise GameError(f"{where}: point {point} is not 1..24 or bar")
            if boards[side][point]:
                raise GameError(f"{where}: point {name} of {'xo'[side]} is listed twice")
            boards[side][point] = count
        for side in (0, 1):
            if side not in boards:
                raise GameError(
                    f"{self.name}: no checkers listed for {'xo'[side]} ('{'xo'[side]}:')"
                )
            on = int(boards[side][1:].sum())
            if on > NUM_CHECKERS:
                raise GameError(
                    f"{self.name}: {'xo'[side]} has {on} checkers on the board (max 15)"
                )
            boards[side][OFF] = NUM_CHECKERS - on
            if side in offs and offs[side] != boards[side][OFF]:
                raise GameError(
                    f"{self.name}: {'xo'[side]} lists off:{offs[side]} but has {on} checkers on "
                    f"the board (off must be {NUM_CHECKERS - on})"
                )
        if player is None:
            raise GameError(f"{self.name}: missing to_move=x or to_move=o")
        p = player
        return self._checked(boards[p], boards[1 - p], p, dice or (0, 0))

    def _checked(self, own, opp, player: int, dice) -> BackgammonState:
        own = np.asarray(own, np.int64)
        opp = np.asarray(opp, np.int64)
        for name, board in (("mover", own), ("opponent", opp)):
            if board.sum() != NUM_CHECKERS or np.any(board < 0):
                raise GameError(f"{self.name}: the {name} does not have 15 checkers")
        for t in range(1, 25):
            if own[t] and opp[25 - t]:
                raise GameError(
                    f"{self.name}: both players have checkers on point {t} of the player to move"
                )
        if own[OFF] == NUM_CHECKERS and opp[OFF] == NUM_CHECKERS:
            raise GameError(f"{self.name}: both players have borne off all checkers")
        return self._state_from_boards(own, opp, player, dice)

    def sample_positions(self) -> list[str]:
        """A few positions: the start (to roll and with a roll), a middle game, a position
        with a checker on the bar, a bear-off and a doubles roll."""
        return [
            "start",
            "4HPwATDgc/ABMA:31",
            "x: 24:2 13:4 8:2 7:2 6:5 o: 24:2 13:5 8:3 6:4 5:1 to_move=x dice=64",
            "x: bar:1 24:1 13:5 8:3 6:5 o: 13:5 8:3 6:5 5:2 to_move=x dice=52",
            "x: 6:3 5:3 4:2 3:2 2:1 1:1 o: 6:4 5:4 4:3 3:2 to_move=x dice=44",
            "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=o dice=11",
        ]


# ---------------------------------------------------------------------- host functions
def _parse_dice(value: str, name: str, where: str) -> tuple[int, int]:
    digits = value.replace("-", "")
    if len(digits) != 2 or not all(c in "123456" for c in digits):
        raise GameError(f"{name}: {where}: dice must be two digits 1..6 like 31")
    a, b = int(digits[0]), int(digits[1])
    return max(a, b), min(a, b)


def _point_name(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def _format_moves(moves: list[tuple[int, int, bool]]) -> str:
    """GNU Backgammon style text of checker moves ``(from, to, hit)`` in play order."""
    paths: list[list[tuple[int, bool]]] = []  # each: [(point, hit on arrival), ...]
    for s, t, hit in moves:
        for path in paths:
            if path[-1][0] == s and s != OFF:
                path.append((t, hit))
                break
        else:
            paths.append([(s, False), (t, hit)])
    texts = []
    for path in paths:
        parts = [_point_name(path[0][0])]
        for i, (p, hit) in enumerate(path[1:], start=1):
            last = i == len(path) - 1
            if hit or last:
                parts.append(_point_name(p) + ("*" if hit else ""))
        texts.append(("/".join(parts), path[0][0], path[-1][0]))
    texts.sort(key=lambda x: (-x[1], -x[2], x[0]))
    out = []
    i = 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j][0] == texts[i][0]:
            j += 1
        out.append(texts[i][0] + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


_MOVE_TOKEN = re.compile(r"^((?:bar|off|\d+)\*?(?:/(?:bar|off|\d+)\*?)+)(?:\((\d)\))?$")


def _parse_point(text: str, name: str, token: str) -> int:
    if text == "bar":
        return BAR
    if text == "off":
        return OFF
    p = int(text)
    if not 0 <= p <= BAR:
        raise GameError(f"{name}: point {p} in move {token!r} is not 1..24, bar or off")
    return p


def _parse_moves(text: str, name: str) -> tuple[dict[int, int], set[int]]:
    """Move text -> (change of the mover's counts per point, points marked as hit)."""
    t = text.strip().lower()
    if t in ("pass", "", "-"):
        return {}, set()
    delta: dict[int, int] = {}
    marked: set[int] = set()
    for token in t.replace(",", " ").split():
        m = _MOVE_TOKEN.match(token)
        if not m:
            raise GameError(
                f"{name}: bad move part {token!r}; expected e.g. 24/18, bar/22*, 6/off(2)"
            )
        times = int(m.group(2) or 1)
        points = []
        for part in m.group(1).split("/"):
            hit = part.endswith("*")
            p = _parse_point(part.rstrip("*"), name, token)
            if hit:
                marked.add(p)
            points.append(p)
        if any(b >= a and a != BAR for a, b in zip(points, points[1:], strict=False)) or any(
            b == BAR for b in points[1:]
        ):
            raise GameError(f"{name}: move part {token!r} does not move toward home")
        delta[points[0]] = delta.get(points[0], 0) - times
        delta[points[-1]] = delta.get(points[-1], 0) + times
    return delta, marked


def _dests(text: str) -> set[int]:
    out = set()
    for token in text.strip().lower().replace(",", " ").split():
        last = token.split("(")[0].split("/")[-1].rstrip("*")
        out.add(BAR if last == "bar" else OFF if last == "off" else int(last))
    return out


def position_id(own, opp) -> str:
    """GNU Backgammon position ID of (player on roll's board, opponent's board), each a
    26-vector in its owner's numbering (0 off, 1..24, 25 bar)."""
    bits: list[int] = []
    for board in (opp, own):  # the player NOT on roll first, as GNU Backgammon prints
        for point in range(1, 26):
            bits.extend([1] * int(board[point]))
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    key = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(key).decode("ascii")[:14]


def from_position_id(pid: str) -> tuple[np.ndarray, np.ndarray]:
    """(own, opp) boards (26-vectors, off counts filled in) of a GNU Backgammon position ID.

    Raises:
        ValueError: not 14 base64 characters, or not a valid position.
    """
    if not re.fullmatch(r"[A-Za-z0-9+/]{14}", pid):
        raise ValueError("expected 14 base64 characters (A-Z a-z 0-9 + /)")
    key = base64.b64decode(pid + "==")
    bits = [(key[i] >> j) & 1 for i in range(10) for j in range(8)]
    boards = [np.zeros((_PTS,), np.int64), np.zeros((_PTS,), np.int64)]
    pos = 0
    for half in range(2):
        for point in range(1, 26):
            while pos < 80 and bits[pos]:
                boards[half][point] += 1
                pos += 1
            pos += 1
    opp, own = boards
    for label, board in (("player on roll", own), ("opponent", opp)):
        on = int(board[1:].sum())
        if on > NUM_CHECKERS:
            raise ValueError(f"the {label} has {on} checkers (max 15)")
        board[OFF] = NUM_CHECKERS - on
    return own, opp
