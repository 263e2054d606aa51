"""The backgammon evaluation: a hand-set linear function of the race, blots, made points, the
prime, the bar and borne-off checkers, squashed onto the utility range.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.game import two_player_utility
from jaxgames.games.backgammon.encoding import (
    _PTS,
    BAR,
    OFF,
    BackgammonState,
)


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


class BackgammonEvaluation:
    """The evaluation of :class:`~jaxgames.games.backgammon.Backgammon` (a mixin: it reads
    the terminal test and utility of the game it is mixed into)."""

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
