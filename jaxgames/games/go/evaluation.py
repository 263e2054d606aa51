"""Go evaluation: ``tanh`` of the Tromp-Taylor area margin (komi included) over a scale."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.game import two_player_utility
from jaxgames.games.go.board import GoState

EVAL_LIMIT = 0.99  # a heuristic never equals a proven win or loss


class GoEvaluation:
    """EVAL for :class:`~jaxgames.games.go.Go` (a mixin)."""

    size: int

    @property
    def eval_scale(self) -> float:
        """Points of area margin at which EVAL reaches ``tanh(1)``: the board's side."""
        return float(self.size)

    def evaluate(self, state: GoState) -> jax.Array:
        """float32[2]: ``[e, -e]``, ``e = 0.99 * tanh(score / size)`` with ``score`` the
        area margin for Black less komi (:meth:`Go.score`); at the end it is ``utility``."""
        e = EVAL_LIMIT * jnp.tanh(self.score(state) / self.eval_scale)  # type: ignore[attr-defined]
        return jnp.where(
            self.terminal(state),
            self.utility(state),
            two_player_utility(e),  # type: ignore[attr-defined]
        )
