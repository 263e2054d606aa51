"""A material evaluation of checkers positions, for depth-limited alpha-beta."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.game import two_player_utility

MAN, KING = 1.0, 1.5  # a king is worth about one and a half men (the usual rule of thumb)
EVAL_SCALE = 4.0  # a material lead of this many men maps to tanh(1) = 0.76
EVAL_BOUND = 0.9  # |EVAL| stays below this: any finished game counts more


class CheckersEvaluation:
    """EVAL(s) of :class:`~jaxgames.games.checkers.Checkers` (a mixin)."""

    def material(self, state) -> jax.Array:
        """float32: Black's material minus White's (men 1, kings 1.5)."""

        def worth(pieces: jax.Array) -> jax.Array:
            kings = jax.lax.population_count(pieces & state.kings).astype(jnp.float32)
            men = jax.lax.population_count(pieces & ~state.kings).astype(jnp.float32)
            return MAN * men + KING * kings

        return worth(state.black) - worth(state.white)

    def evaluate(self, state) -> jax.Array:
        """float32[2]: ``0.9 * tanh(material / 4)`` for Black, its negation for White; the
        utility at the end."""
        u = EVAL_BOUND * jnp.tanh(self.material(state) / EVAL_SCALE)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(u))
