"""Backgammon for learning: the plays of a batch of rolls enumerated by rank, the network's
input encoding, Tesauro's pubeval, and a learned network as the game's EVAL.

Afterstates (the :class:`jaxgames.learn.Afterstates` capability): :meth:`play_counts`
counts the distinct plays of each lane's roll and :meth:`plays_by_rank` decodes the
``r``-th play of lane ``i`` for a flat list of ``(i, r)`` pairs, with the same exact counting
tables the random sampler uses (built once per lane, then gathered per pair). So the
afterstates of a whole batch are one padded list of a few thousand plays, not 3,060 slots
per lane.

Encoding (the :class:`jaxgames.learn.ValueEncoding` capability, ``num_features = 198``),
from the side of the player who just moved (the one not on roll), Tesauro's TD-Gammon units
for the board, made relative to that side:

* for the mover's checkers on each of the mover's points 1..24, four units: ``n >= 1``,
  ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` when ``n > 3`` (96 units); the same for the
  opponent's checkers on the opponent's points 1..24 (96 units);
* the checkers on the bar ``/ 2`` and borne off ``/ 15``, for each side (4 units);
* the two pip counts ``/ 100`` (2 units). TD-Gammon's last two units said whose turn it
  was; here the side to roll is always the opponent of the side the features are for, so
  those units would be constant, and the race (a sum the network would otherwise have to
  learn) takes their place.

Pubeval (Tesauro's public linear evaluator, ``pubeval.c``, 1993, "provided as a public
service to the backgammon programming community"; the same weights are in GNU Backgammon's
sources with its input scaling folded in): two weight vectors of 122 (race and contact),
the contact set used unless the position BEFORE the move is a race. Inputs, from the
mover's side, for the mover's points 24 down to 1 (block ``k`` is point ``24 - k``): an
opponent blot there, a mover's blot, ``n >= 2``, ``n == 3``, ``(n - 3) / 2`` for ``n >= 4``;
then the opponent's bar ``/ 2`` and the mover's borne-off ``/ 15``. The play with the highest
score is chosen; bearing off the last checker scores highest.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import two_player_utility
from jaxgames.games.backgammon.doubles import _doubles_pick, _doubles_table
from jaxgames.games.backgammon.encoding import _PTS, BAR, NUM_CHECKERS, OFF, BackgammonState
from jaxgames.games.backgammon.non_doubles import _non_doubles_pick, _non_doubles_table

# fmt: off
# Tesauro's pubeval.c weights, in its input order (see the module doc for the source).
PUBEVAL_RACE: np.ndarray = np.array([
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121, 0.07217,
    -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000, -2.29847, -2.34631,
    0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456, -0.34240, 0.00000, -1.34640,
    -2.46556, -0.13022, -0.01591, 0.00000, 0.27448, 0.60015, 0.48302, 0.25236, 0.00000,
    0.39521, 0.68178, 0.05281, 0.09266, 0.00000, 0.24855, -0.06844, -0.37646, 0.05685,
    0.00000, 0.17405, 0.00430, 0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035,
    -0.16270, 0.00000, 0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366,
    1.16242, 0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
    -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707, 0.00000,
    -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412, -0.09308, -1.26062,
    0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000, 2.19605, 3.85390, 0.88296,
    2.30052, 0.00000, 0.92321, 1.08744, -0.11696, -0.78560, 0.00000, -0.09795, -0.83050,
    -1.09167, -4.94251, 0.00000, -1.00316, -3.66465, -2.56906, -9.67677, 0.00000, -2.77982,
    -7.26713, -3.40177, -12.32252, 0.00000, 3.42040,
], np.float32)  # [122]
PUBEVAL_CONTACT: np.ndarray = np.array([
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654, -0.92830,
    -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220, -0.73667, 0.89032,
    -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389, -1.80390, -0.83425, -0.97741,
    -1.41371, 0.24500, 0.10970, -1.36476, -1.05572, 1.15420, 0.11069, -0.38319, -0.74816,
    -0.59244, 0.81116, -0.39511, 0.11424, -0.73169, -0.56074, 1.09792, 0.15977, 0.13786,
    -1.18435, -0.43363, 1.06169, -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099,
    -0.06295, -0.75882, -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070,
    0.40868, -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
    1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936, -0.90750,
    0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983, 0.52698, 0.82132,
    -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276, -0.36214, 4.37655, 0.45481,
    0.21746, 0.10504, -0.61977, 3.54001, 0.04612, -0.18108, 0.63211, -0.87046, 2.47673,
    -0.48016, -1.27157, 0.86505, -1.11342, 1.24612, -0.82385, -2.77082, 1.23606, -1.59529,
    0.10438, -1.30206, -4.11520, 5.62596, -2.75800,
], np.float32)  # [122]
# fmt: on

NUM_FEATURES = 198
_PIPS = np.arange(_PTS, dtype=np.float32)  # [26]: a checker's pips by index (bar 25, off 0)


def _tesauro_units(board: jax.Array) -> jax.Array:
    """float32[96]: four units per point 1..24 of one side's board (int[26], own numbering)."""
    n = board[1:25].astype(jnp.float32)
    units = jnp.stack([n >= 1, n >= 2, n >= 3, jnp.maximum(n - 3.0, 0.0) / 2.0], axis=-1).astype(
        jnp.float32
    )
    return units.reshape(-1)


def _back(board: jax.Array) -> jax.Array:
    """int32: the highest index (bar 25) holding one of the side's checkers (0: all off)."""
    held = board[1:] > 0
    return jnp.max(jnp.where(held, jnp.arange(1, _PTS), 0))


def pubeval_inputs(mover: jax.Array, opponent: jax.Array) -> jax.Array:
    """float32[122]: pubeval's inputs for a position after the mover's play (each board
    int[26] in its owner's numbering)."""
    points = jnp.arange(24, 0, -1)  # block k: the mover's point 24 - k
    n = mover[points].astype(jnp.float32)
    opp_blot = opponent[25 - points] == 1  # the opponent's point 25 - p is the mover's p
    block = jnp.stack(
        [
            (opp_blot & (n == 0)).astype(jnp.float32),
            (n == 1).astype(jnp.float32),
            (n >= 2).astype(jnp.float32),
            (n == 3).astype(jnp.float32),
            jnp.maximum(n - 3.0, 0.0) / 2.0,
        ],
        axis=-1,
    )  # [24, 5]
    tail = jnp.stack([opponent[BAR] / 2.0, mover[OFF] / 15.0]).astype(jnp.float32)
    return jnp.concatenate([block.reshape(-1), tail])


def is_race(own: jax.Array, opp: jax.Array) -> jax.Array:
    """bool: no contact left (every checker of each side is past all of the other's)."""
    return _back(own) + _back(opp) < 25


class BackgammonLearning:
    """Afterstates, the network's encoding, pubeval and the learned EVAL (a mixin of
    :class:`~jaxgames.games.backgammon.Backgammon`)."""

    num_features = NUM_FEATURES
    play_scorers = ("pubeval",)  # afterstate scorers of jaxgames.learn's matches

    # --------------------------------------------------------------- afterstates
    def play_counts(self, states: BackgammonState) -> jax.Array:
        """int32[B]: the distinct plays of each lane's roll (the pass counts as one play);
        0 at chance nodes and finished games. States ``[B]``, batched."""
        own, opp = states.own.T, states.opp.T  # [26, B]
        hi = states.dice[:, 0].astype(jnp.int32)
        lo = states.dice[:, 1].astype(jnp.int32)
        n_nd = _non_doubles_table(own, opp, hi, lo).n
        n_dd = _doubles_table(own, opp, jnp.clip(hi, 1, 6)).n
        n = jnp.where(hi == lo, n_dd, n_nd)
        done = jax.vmap(self.terminal)(states)
        return jnp.where((hi == 0) | done, 0, n).astype(jnp.int32)

    def plays_by_rank(self, states: BackgammonState, lane: jax.Array, rank: jax.Array) -> jax.Array:
        """int32[P]: the action code of play ``rank[j]`` of lane ``lane[j]`` (states
        ``[B]``, ``lane``/``rank`` int32[P], ``0 <= rank < play_counts[lane]``). The counting
        tables are built once per lane and gathered per pair."""
        own, opp = states.own.T, states.opp.T  # [26, B]
        hi = states.dice[:, 0].astype(jnp.int32)
        lo = states.dice[:, 1].astype(jnp.int32)
        nd = _non_doubles_table(own, opp, hi, lo)
        dd = _doubles_table(own, opp, jnp.clip(hi, 1, 6))
        nd_pairs = jax.tree.map(lambda x: x[..., lane], nd)
        dd_pairs = jax.tree.map(lambda x: x[..., lane], dd)
        h, lw = hi[lane], lo[lane]
        r_nd = jnp.clip(rank, 0, jnp.maximum(nd_pairs.n - 1, 0))
        r_dd = jnp.clip(rank, 0, jnp.maximum(dd_pairs.n - 1, 0))
        codes = jnp.where(
            h == lw, _doubles_pick(dd_pairs, r_dd), _non_doubles_pick(nd_pairs, r_nd, h, lw)
        )
        return codes.astype(jnp.int32)

    # --------------------------------------------------------------- encoding
    def viewer(self, state: BackgammonState) -> jax.Array:
        """int32: the player the features speak for: the one who just moved (not on roll)."""
        return (1 - state.player).astype(jnp.int32)

    def features(self, state: BackgammonState) -> jax.Array:
        """float32[198]: the encoding of the module doc, from the side of :meth:`viewer`."""
        mover, other = state.opp, state.own  # after a play the halves have swapped
        pips = jnp.asarray(_PIPS)
        side = []
        for board in (mover, other):
            side.append(_tesauro_units(board))
        extra = jnp.stack(
            [
                mover[BAR] / 2.0,
                other[BAR] / 2.0,
                mover[OFF] / 15.0,
                other[OFF] / 15.0,
                jnp.dot(mover.astype(jnp.float32), pips) / 100.0,
                jnp.dot(other.astype(jnp.float32), pips) / 100.0,
            ]
        ).astype(jnp.float32)
        return jnp.concatenate(side + [extra])

    # --------------------------------------------------------------- pubeval
    def pubeval(self, before: BackgammonState, after: BackgammonState) -> jax.Array:
        """float32: pubeval's score of the play that led from ``before`` (a decision) to
        ``after``; higher is better for the mover."""
        mover, other = after.opp, after.own
        weights = jnp.where(
            is_race(before.own, before.opp),
            jnp.asarray(PUBEVAL_RACE),
            jnp.asarray(PUBEVAL_CONTACT),
        )
        score = jnp.dot(weights, pubeval_inputs(mover, other))
        return jnp.where(mover[OFF] == NUM_CHECKERS, jnp.float32(1e8), score)

    # --------------------------------------------------------------- learned EVAL
    def _learned_evaluate(self, state: BackgammonState) -> jax.Array:
        """float32[2]: ``[e, -e]`` for x with ``e = 2 p - 1``, ``p`` the network's win
        probability (a single game's expected score; gammons not modelled, so ``|e| < 1``).

        What it returns where:

        * at a chance node (the side that just played, the viewer, is not on roll): the
          network's value of the position as that side's afterstate, exactly what the
          network was trained on;
        * at a decision node: the same position read the same way, as the afterstate of
          the side NOT on roll, with the dice ignored: the value before the roll, for both
          players (the side to move gets ``-e_viewer``). It equals the value of the chance
          node just above, so a search whose leaves are the opponent's decisions (depth 2
          below a decision) ranks plays exactly as 1 ply does; backgammon's 2-ply (our
          play, the opponent's 21 rolls, its best reply) is expectiminimax depth 3;
        * at terminal states: the utility (gammons and backgammons count 2 and 3)."""
        p = self._net(self.features(state))  # for viewer = the side not on roll / to move
        e_viewer = 2.0 * p - 1.0
        e = jnp.where(self.viewer(state) == 0, e_viewer, -e_viewer)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))


def load_eval_network(path: str, game_name: str, num_features: int):
    """The network of checkpoint ``path`` for a game's EVAL (a one-line GameError if it is
    not a checkpoint of this game); imported here so that making the game without ``eval``
    does not import Equinox."""
    from jaxgames.learn.network import load_eval_network as load

    return load(path, game_name, num_features)
