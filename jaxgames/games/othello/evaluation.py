"""The Othello evaluation (:data:`EVAL_FEATURES`: mobility, corners, stability, ...), move
ordering, the fitted ProbCut model and the exact-endgame search depth.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.bitboard import and_ as _and
from jaxgames.bitboard import any_ as _any
from jaxgames.bitboard import choose as _choose
from jaxgames.bitboard import const as _const
from jaxgames.bitboard import count as _count
from jaxgames.bitboard import not_ as _not
from jaxgames.bitboard import or_ as _or
from jaxgames.bitboard import xor as _xor
from jaxgames.game import two_player_utility
from jaxgames.games.othello.board import (
    _CORNER_GROUPS,
    _CORNERS,
    OthelloState,
    _flips,
    _full_lines,
    _moves,
    _neighbours,
    _square_bit,
    _stable,
    _unpack,
)

EVAL_FEATURES = (
    ("mobility", 1.0),
    ("potential_mobility", 0.5),
    ("corners", 8.0),
    ("x_squares", -4.0),
    ("c_squares", -1.5),
    ("stable", 2.0),
    ("endgame_discs", 1.0),
)
"""The features of EVAL and their weights, each a difference "side to move minus opponent":

* ``mobility``: legal placements.
* ``potential_mobility``: empty squares next to an opponent disc (where moves may appear)
  minus empty squares next to an own disc.
* ``corners``: discs on a1, h1, a8, h8.
* ``x_squares``: discs on b2, g2, b7, g7 whose corner is still empty (they give the corner
  away).
* ``c_squares``: discs on the edge squares next to an empty corner (b1, a2, ...).
* ``stable``: discs that can never be flipped, a lower bound: a disc is stable when along
  each of the four lines through it (row, column, two diagonals) it touches the board's
  edge or a stable disc of its colour on one side, or (for the row and the column) the line
  is full; found by :data:`_STABLE_ROUNDS` rounds from the empty set (so chains grow from
  the corners). Tested for soundness: no disc it marks is ever flipped afterwards.
* ``endgame_discs``: the disc difference times ``max(0, 1 - empties / 20)``, which counts
  only in the last 20 empty squares and fully at the end (disc parity decides the game).
"""
EVAL_SCALE = 32.0
"""``EVAL = 0.99 * tanh(sum_i w_i f_i / EVAL_SCALE)``: strictly inside (-1, 1)."""
_EVAL_LIMIT = 0.99
_ENDGAME_EMPTIES = 20.0

# Produced by `python benchmarks/othello.py --fit-probcut` (fit_probcut on 2000 positions from
# random self-play, seed 1, 10-44 plies; the command prints this line).
PROBCUT = {"depth": 2, "shallow": 1, "a": 1.0344, "b": -0.0813, "sigma": 0.0924, "t": 1.5}
"""Fitted ProbCut parameters (see :class:`jaxgames.search.ProbCut`): at a node with
``depth`` plies left the best one-ply look-ahead value ``v'`` (from the side to move)
predicts the ``depth``-ply value as ``a v' + b`` with residual deviation ``sigma``; the node
is cut when the prediction clears the window by ``t`` deviations. Least squares with
:func:`jaxgames.search.fit_probcut`. Depth 2 was chosen over 3 and 4 (fits on 1000
positions) because, in depth-6 searches of random-play positions, it saved the most nodes
for a similar share of changed best moves (``benchmarks/othello.py``, its ProbCut section,
measures both). Use as ``ProbCut(**game.probcut_params)``."""


class OthelloEvaluation:
    """The evaluation and search hints of :class:`~jaxgames.games.othello.Othello` (a mixin:
    it reads the terminal test, utility and move-order table of the game it is mixed into)."""

    def eval_features(self, state: OthelloState) -> jax.Array:
        """float32[F]: the features of :data:`EVAL_FEATURES`, side to move minus opponent."""
        own, opp = state.own, state.opp
        occupied = _or(own, opp)
        empty = _not(occupied)
        n_empty = 64 - _count(occupied)
        mobility = _count(state.moves) - state.opp_mobility.astype(jnp.int32)
        potential = _count(_and(empty, _neighbours(opp))) - _count(_and(empty, _neighbours(own)))
        corners = _count(_and(own, _const(_CORNERS))) - _count(_and(opp, _const(_CORNERS)))
        x_term = jnp.int32(0)
        c_term = jnp.int32(0)
        for corner, x_square, c_squares in _CORNER_GROUPS:
            open_corner = _any(_and(empty, _const(1 << corner)))
            xm = _const(1 << x_square)
            cm = _const((1 << c_squares[0]) | (1 << c_squares[1]))
            x_term = x_term + jnp.where(
                open_corner, _count(_and(own, xm)) - _count(_and(opp, xm)), 0
            )
            c_term = c_term + jnp.where(
                open_corner, _count(_and(own, cm)) - _count(_and(opp, cm)), 0
            )
        full = _full_lines(occupied)
        stable = _count(_stable(own, full)) - _count(_stable(opp, full))
        phase = jnp.maximum(0.0, 1.0 - n_empty.astype(jnp.float32) / _ENDGAME_EMPTIES)
        discs = (_count(own) - _count(opp)).astype(jnp.float32) * phase
        ints = jnp.stack([mobility, potential, corners, x_term, c_term, stable])
        return jnp.concatenate([ints.astype(jnp.float32), discs[None]])

    def evaluate(self, state: OthelloState) -> jax.Array:
        """float32[2]: ``[e, -e]`` for Black and White.

        ``e_mover = 0.99 * tanh(sum_i w_i f_i / EVAL_SCALE)`` over :data:`EVAL_FEATURES`
        (features from the side to move), turned to Black's side; strictly inside (-1, 1), so
        a heuristic never equals a proven win or loss. At the end it is ``utility``.
        """
        raw = jnp.dot(self.eval_features(state), jnp.asarray(self.eval_weights))
        e = _EVAL_LIMIT * jnp.tanh(raw / EVAL_SCALE)
        e = jnp.where(state.player == 0, e, -e)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    def move_order_scores(self, state: OthelloState) -> jax.Array:
        """float32[65]: corners first (+1, the only positive scores: the search tries them
        before its own ordering), then plain squares (-0.1), C-squares (-0.3) and X-squares
        (-0.4) last; the pass (0) is only ever legal alone."""
        return jnp.asarray(self._order)

    def lookahead_scores(self, state: OthelloState) -> jax.Array:
        """float32[65]: "fastest first", the classic endgame order: minus the replies each
        placement leaves the opponent (a move that forces a pass scores 0, the best), the
        corner table of :meth:`move_order_scores` breaking ties. Every square is played
        out (its flips and the reply's placements), so it costs about 64 steps."""
        own, opp = state.own, state.opp

        def replies(square: jax.Array) -> jax.Array:
            bit = _square_bit(square)
            flips = _flips(own, opp, bit)
            return _count(_moves(_xor(opp, flips), _or(_or(own, bit), flips)))

        mobility = jax.vmap(replies)(jnp.arange(64, dtype=jnp.int32)).astype(jnp.float32)
        order = jnp.asarray(self._order)
        return jnp.concatenate([order[:64] - mobility, order[64:]])

    def exact_values(self, state: OthelloState) -> tuple[jax.Array, jax.Array]:
        """``(known, values)``: the value of a position with one empty square, played out
        without search: the side to move places there if it can (then the board is full),
        else it passes and the opponent places there (``passes == 1`` says which)."""
        own, opp = state.own, state.opp
        empty = _not(_or(own, opp))
        placer_own = state.passes == 0  # the side to move places the last disc
        placer, other = _choose(placer_own, own, opp), _choose(placer_own, opp, own)
        placed = _count(placer) + _count(_flips(placer, other, empty)) + 1  # on a full board
        diff = 2 * placed - 64  # for the placer; the board is full: no empties to give
        black = jnp.where(placer_own == (state.player == 0), diff, -diff)
        known = (_count(empty) == 1) & (state.passes < 2)
        return known, two_player_utility(self.final_score(black))

    def stable_discs(self, state: OthelloState) -> jax.Array:
        """bool[64]: discs (of either colour) that the ``stable`` feature proves can never be
        flipped again; a lower bound on the truly stable discs."""
        own, opp = state.own, state.opp
        full = _full_lines(_or(own, opp))
        return _unpack(_or(_stable(own, full), _stable(opp, full)))

    def endgame_depth(self, states: Any) -> int:
        """A search depth that reaches the end of every game from a batch of states [N]:
        twice the most empty squares (each placement fills one, and a pass is always
        followed by a placement). Exact endgame solving is alpha-beta to this depth::

            depth = game.endgame_depth(states)
            result = jaxgames.search.alphabeta_batch(game, states, depth)

        ``result.value`` is then win/draw/loss (+-1, 0) for each player (the disc
        difference over 64 with ``score="discs"``). The bound costs stack frames, not
        search: a line ends where the game ends. Searched to the end, the defaults
        (``jaxgames/tuning.py``) order the moves fastest first (:meth:`lookahead_scores`),
        play the last empty square out (:meth:`exact_values`) and leave iterative deepening
        off: its shallower passes end on EVAL, not on finished games, and cost more than
        they save.
        """
        words = [np.asarray(w, np.uint64).reshape(-1) for w in (*states.own, *states.opp)]
        occupied = (words[0] | words[2]) | ((words[1] | words[3]) << np.uint64(32))
        empties = [64 - bin(int(x)).count("1") for x in occupied]
        return max(1, 2 * max(empties, default=0))
