"""Agents of the arena: anything that picks a move in each of a batch of positions.

An agent is written as ``KIND[:key=value,...]`` (``mcts:simulations=800``,
``alphabeta:depth=6``, ``random``); :func:`parse_agent` reads it. Every agent moves in a
whole batch of positions at once, so the arena plays its games in lockstep.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, Protocol

import jax
import numpy as np

from jaxgames.game import Game, GameError
from jaxgames.kernels import random_actions


class Agent(Protocol):
    """Moves in a batch of positions (decision nodes of unfinished games)."""

    spec: str  # how it was written

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        """int32[N]: a move in each of the ``N`` states."""
        ...


@functools.partial(jax.jit, static_argnums=0)
def _random_moves(game: Game, states: Any, key: jax.Array) -> jax.Array:
    uniform = jax.random.uniform(key, (jax.tree.leaves(states)[0].shape[0],))
    return random_actions(game, states, uniform)


@dataclasses.dataclass(frozen=True)
class RandomAgent:
    """A legal move uniformly at random."""

    spec: str = "random"

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        return np.asarray(_random_moves(game, states, jax.random.key(seed)))


@dataclasses.dataclass(frozen=True)
class MCTSAgent:
    """``mcts_batch`` with UCT and random rollouts; the move with the most visits."""

    spec: str
    simulations: int = 800
    c: float = 1.0
    rollouts: int = 1
    solver: bool = False

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        from jaxgames.search.mcts import UCT, Rollouts, mcts_batch

        result = mcts_batch(
            game,
            states,
            self.simulations,
            seed,
            selection=UCT(self.c),
            evaluator=Rollouts(self.rollouts),
            solver=self.solver,
        )
        return result.action


@dataclasses.dataclass(frozen=True)
class AlphaBetaAgent:
    """``alphabeta_batch`` to a fixed depth with the game's default options."""

    spec: str
    depth: int = 4

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        from jaxgames.search import alphabeta_batch

        return np.asarray(alphabeta_batch(game, states, self.depth).best_action)


KINDS: dict[str, tuple[Callable[..., Agent], dict[str, type]]] = {
    "random": (RandomAgent, {}),
    "mcts": (
        MCTSAgent,
        {"simulations": int, "c": float, "rollouts": int, "solver": bool},
    ),
    "alphabeta": (AlphaBetaAgent, {"depth": int}),
}
"""Agent kinds: the constructor and the options it takes (with their types)."""


def _value(text: str, kind: type, where: str) -> Any:
    if kind is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise GameError(f"{where}: expected true or false, got {text!r}")
    try:
        return kind(text)
    except ValueError:
        raise GameError(f"{where}: expected {kind.__name__}, got {text!r}") from None


def parse_agent(spec: str) -> Agent:
    """``KIND[:key=value,...]`` -> an agent; a bad spec is a one-line :class:`GameError`."""
    kind, _, rest = spec.strip().partition(":")
    if kind not in KINDS:
        raise GameError(f"agent {spec!r}: unknown kind {kind!r}; known: {', '.join(KINDS)}")
    make, options = KINDS[kind]
    values: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, text = item.partition("=")
        if not eq or key not in options:
            known = ", ".join(options) or "none"
            raise GameError(f"agent {spec!r}: unknown option {item!r}; {kind} takes: {known}")
        values[key] = _value(text, options[key], f"agent {spec!r}: {key}")
    for key in ("simulations", "depth", "rollouts"):
        if key in values and values[key] < 1:
            raise GameError(f"agent {spec!r}: {key} must be >= 1, got {values[key]}")
    return make(spec=spec.strip(), **values)


__all__ = ["Agent", "AlphaBetaAgent", "KINDS", "MCTSAgent", "RandomAgent", "parse_agent"]
