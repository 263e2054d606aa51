"""Connect four for learning: the network's input encoding and a learned network as the
game's EVAL.

Encoding (the :class:`jaxgames.learn.ValueEncoding` capability, ``num_features = 4 * cells
+ 2``, 170 on 7x6), from the side of the player who just moved (the viewer; the opponent is
to move), cells in the game's order (``r * width + c``, row 0 at the bottom):

* the viewer's stones, then the opponent's (two planes of ``cells`` units, 0 or 1);
* the viewer's connecting cells, then the opponent's (two planes: the empty cells where a
  stone of that side would complete a line, :meth:`winning_cells`). Threats and their rows
  (odd or even, the heart of connect-four strategy) are what a small network finds hard to
  build from the stones alone, and the game computes them anyway;
* the connecting cells each side could play at once (a stone lands there), ``/ 2``: the
  opponent is to move, so one of theirs is a lost position; two of the viewer's are a win
  unless the opponent connects first.

The side to move is always the viewer's opponent, so no unit says whose turn it is.

The learned EVAL (``make("connect4", eval=checkpoint)``) maps the network's win
probability ``p`` for the viewer to ``e = (2 p - 1) / (2 * max_score)`` on the utility
scale, the same band as the hand-written heuristic's (:meth:`evaluate`): strictly inside
``1 / max_score``, the smallest value of a decided game, so alpha-beta never prefers a
heuristic value to a proven win or loss, and its score bounds (:meth:`value_bounds`) stay
valid.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.game import two_player_utility
from jaxgames.games.connect4.board import ConnectFourState

# self-play options for jaxgames.learn: no dice, so exploration must come from random
# moves (a greedy player would replay one game)
LEARN_OPTIONS = {"epsilon": 0.1}


class ConnectFourLearning:
    """The network's encoding and the learned EVAL (a mixin of
    :class:`~jaxgames.games.connect4.ConnectFour`)."""

    learn_options = LEARN_OPTIONS

    @property
    def num_features(self) -> int:
        return 4 * self.cells + 2

    def viewer(self, state: ConnectFourState) -> jax.Array:
        """int32: the player the features speak for: the one who made the last move."""
        return (1 - self.player(state)).astype(jnp.int32)

    def features(self, state: ConnectFourState) -> jax.Array:
        """float32[4 * cells + 2]: the encoding of the module doc, for :meth:`viewer`."""
        me = self.viewer(state)
        piece = (me + 1).astype(jnp.int8)
        board = state.board  # [cells]
        mine = board == piece
        theirs = (board != 0) & ~mine
        connecting = self.winning_cells(state)  # [2, cells]: x's row, then o's
        my_cells, their_cells = connecting[me], connecting[1 - me]  # [cells] each
        # the cell a stone would land on in each column (none in a full column)
        row = jnp.arange(self.cells) // self.width
        col = jnp.arange(self.cells) % self.width
        landing = row == state.heights.astype(jnp.int32)[col]  # [cells]
        threats = [jnp.sum(my_cells & landing), jnp.sum(their_cells & landing)]
        playable = jnp.stack(threats).astype(jnp.float32)  # [2]
        planes = jnp.stack([mine, theirs, my_cells, their_cells]).astype(jnp.float32)
        return jnp.concatenate([planes.reshape(-1), playable / 2.0])

    def _learned_evaluate(self, state: ConnectFourState) -> jax.Array:
        """float32[2]: ``[e, -e]`` with ``e = (2 p - 1) / (2 * max_score)`` for ``x``, ``p``
        the network's win probability for the viewer (see the module doc); at terminal
        states, the utility."""
        p = self._net(self.features(state))
        e_viewer = (2.0 * p - 1.0) / (2.0 * self.max_score)
        e = jnp.where(self.viewer(state) == 0, e_viewer, -e_viewer)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))
