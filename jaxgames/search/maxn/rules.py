"""maxⁿ's backup rules: how a frame takes its children's vectors and when it prunes the
rest (plain maxⁿ, Korf's shallow pruning, paranoid alpha-beta; see the package docstring)."""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import jax
import jax.numpy as jnp

from jaxgames.search.maxn.frames import Constants, Frame


class Rule(Protocol):
    """How a frame takes its children's vectors and when it prunes the rest (static)."""

    def prefers(self, frame: Frame, value: jax.Array, root_player: jax.Array) -> jax.Array:
        """bool: the frame's mover takes ``value`` over its best so far (strictly better:
        ties keep the earlier, lower action)."""
        ...

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        """``(threshold, alpha, beta)`` of a new child frame of ``parent`` whose mover is
        ``mover``."""
        ...

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        """The frame's window and ``cut`` after a child reported."""
        ...


def _own(frame: Frame, players: int) -> jax.Array:
    return jnp.clip(frame.mover, 0, players - 1)


@dataclasses.dataclass(frozen=True)
class Plain:
    """maxⁿ without pruning: every node reads all its children."""

    players: int

    def prefers(self, frame: Frame, value: jax.Array, root_player: jax.Array) -> jax.Array:
        own = _own(frame, self.players)
        return value[own] > frame.best[own]

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        return jnp.float32(jnp.inf), parent.alpha, parent.beta

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        return frame


@dataclasses.dataclass(frozen=True)
class Shallow(Plain):
    """Korf's shallow pruning (the parent's bound only), and immediate pruning."""

    immediate: bool = True

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        # the parent's bound: only a parent whose mover differs, and that holds a child
        held = (parent.best_move >= 0) & (parent.mover != mover)
        beta_j = parent.best[_own(parent, self.players)]
        return jnp.where(held, k.shallow_base - beta_j, jnp.inf), parent.alpha, parent.beta

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        own = frame.best[_own(frame, self.players)]
        cut = own >= frame.threshold
        if self.immediate:
            cut = cut | (own >= k.own_max)
        return frame._replace(cut=cut)


@dataclasses.dataclass(frozen=True)
class Paranoid:
    """Two-player alpha-beta on the root player's component (fail-soft, deep cutoffs)."""

    def prefers(self, frame: Frame, value: jax.Array, root_player: jax.Array) -> jax.Array:
        score, held = value[root_player], frame.best[root_player]
        return jnp.where(frame.mover == root_player, score > held, score < held)

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        return jnp.float32(jnp.inf), parent.alpha, parent.beta

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        score = frame.best[root_player]
        maximizing = frame.mover == root_player
        alpha = jnp.where(maximizing, jnp.maximum(frame.alpha, score), frame.alpha)
        beta = jnp.where(maximizing, frame.beta, jnp.minimum(frame.beta, score))
        return frame._replace(alpha=alpha, beta=beta, cut=alpha >= beta)
