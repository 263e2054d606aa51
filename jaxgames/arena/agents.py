"""Agents of the arena: anything that picks a move in each of a batch of positions.

An agent is written as ``KIND[:key=value,...]`` (``mcts:simulations=800``,
``alphabeta:depth=6``, ``random``); :func:`parse_agent` reads it. Every agent moves in a
whole batch of positions at once, so the arena plays its games in lockstep. An agent that
replays the games in another engine (OpenSpiel's bots) is a :class:`ReplayAgent`: it is
given each game's actions from the start instead of converting states.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, ClassVar, Protocol

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


class ReplayAgent(Protocol):
    """Moves in a batch of games given as their actions from the start (chance outcomes
    and opening included), for engines that hold their own states."""

    spec: str
    replays: ClassVar[bool]  # True: the arena passes ``histories``

    def __call__(
        self, game: Game, states: Any, seed: int, histories: list[list[int]]
    ) -> np.ndarray:
        """int32[N]: a move in each of the ``N`` games."""
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
    """``mcts_batch`` with UCT (``selection=uct``, ``c`` 1 by default) or RAVE
    (``selection=rave``: all-moves-as-first values blended in, ``equivalence`` visits where
    they weigh half, ``c`` RAVE's default unless given; games whose moves are places);
    leaves valued by ``rollouts`` random playouts (``leaf=rollouts``) or by the game's EVAL
    (``leaf=eval``); finished games scored by their utility or as won, drawn or lost
    (``outcome=winloss``); the move with the most visits."""

    spec: str
    simulations: int = 800
    c: float | None = None
    selection: str = "uct"
    equivalence: float = 1000.0
    rollouts: int = 1
    leaf: str = "rollouts"
    chance: str = "expectation"
    outcome: str = "utility"
    solver: bool = False

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        from jaxgames.search.mcts import (
            RAVE,
            UCT,
            Rollouts,
            StaticEval,
            Utility,
            WinLoss,
            mcts_batch,
        )

        if self.selection == "rave":
            rave = RAVE(equivalence=self.equivalence)
            rule = rave if self.c is None else dataclasses.replace(rave, c=self.c)
        else:
            rule = UCT(1.0 if self.c is None else self.c)
        evaluator = Rollouts(self.rollouts) if self.leaf == "rollouts" else StaticEval()
        result = mcts_batch(
            game,
            states,
            self.simulations,
            seed,
            selection=rule,
            evaluator=evaluator,
            chance=self.chance,
            solver=self.solver,
            outcome=WinLoss() if self.outcome == "winloss" else Utility(),
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


@dataclasses.dataclass(frozen=True)
class ExpectiminimaxAgent:
    """``expectiminimax_batch`` to a fixed depth (chance plies count) with its defaults."""

    spec: str
    depth: int = 2

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        from jaxgames.search import expectiminimax_batch

        return np.asarray(expectiminimax_batch(game, states, self.depth).best_action)


@dataclasses.dataclass(frozen=True)
class PIMCAgent:
    """Perfect-information Monte Carlo (:func:`jaxgames.search.pimc.pimc`): ``worlds``
    worlds consistent with what the mover has seen, each action solved exactly in each, the
    best average. Games of imperfect information."""

    spec: str
    worlds: int = 16

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        from jaxgames.search.pimc import pimc

        return pimc(game, states, self.worlds, seed).action


@dataclasses.dataclass(frozen=True)
class ISMCTSAgent:
    """Single-observer information-set MCTS (:func:`jaxgames.search.ismcts.ismcts`), one
    world drawn per simulation; the root action with the most visits; ``merge=true``: the
    opponent's unseen moves lead to one node. Games of imperfect information without chance
    nodes."""

    spec: str
    simulations: int = 1000
    c: float = 0.7
    merge: bool = False

    def __call__(self, game: Game, states: Any, seed: int) -> np.ndarray:
        from jaxgames.search.ismcts import ismcts

        return ismcts(game, states, self.simulations, seed, self.c, self.merge).action


OPENSPIEL_GAMES = {"connect4": "connect_four", "tictactoe": "tic_tac_toe"}
"""Games whose action numbers are OpenSpiel's (checked move by move in the games' tests)."""


@dataclasses.dataclass(frozen=True)
class OpenSpielMCTSAgent:
    """OpenSpiel's C++ ``MCTSBot`` with random rollouts, one game at a time (one thread).

    ``c`` is on this library's scale: UCT here adds ``c`` times the exploration term to
    values in [0, 1], OpenSpiel to returns in [-1, 1], so the bot gets ``uct_c = 2 c`` and
    the two explore alike."""

    spec: str
    simulations: int = 800
    c: float = 1.0
    rollouts: int = 1
    replays: ClassVar[bool] = True

    def __call__(
        self, game: Game, states: Any, seed: int, histories: list[list[int]]
    ) -> np.ndarray:
        try:
            import pyspiel
        except ImportError:
            missing = "OpenSpiel is not installed (pip install open_spiel)"
            raise GameError(f"agent {self.spec!r}: {missing}") from None
        if game.spec not in OPENSPIEL_GAMES:
            known = ", ".join(OPENSPIEL_GAMES)
            raise GameError(
                f"agent {self.spec!r}: no OpenSpiel twin of {game.spec}; known: {known}"
            )
        spiel_game = pyspiel.load_game(OPENSPIEL_GAMES[game.spec])
        bot = pyspiel.MCTSBot(
            spiel_game,
            pyspiel.RandomRolloutEvaluator(self.rollouts, seed),
            2.0 * self.c,
            self.simulations,
            1000,  # MB of tree memory
            False,  # solve: plain MCTS, as the rollouts-only bot is benchmarked
            seed,
            False,  # verbose
        )
        chosen = []
        for history in histories:
            state = spiel_game.new_initial_state()
            for action in history:
                state.apply_action(action)
            chosen.append(bot.step(state))
        return np.asarray(chosen, np.int32)


KINDS: dict[str, tuple[Callable[..., Agent | ReplayAgent], dict[str, Any]]] = {
    "random": (RandomAgent, {}),
    "mcts": (
        MCTSAgent,
        {
            "simulations": int,
            "c": float,
            "rollouts": int,
            "leaf": ("rollouts", "eval"),
            "chance": ("expectation", "sample"),
            "outcome": ("utility", "winloss"),
            "solver": bool,
            "selection": ("uct", "rave"),
            "equivalence": float,
        },
    ),
    "alphabeta": (AlphaBetaAgent, {"depth": int}),
    "expectiminimax": (ExpectiminimaxAgent, {"depth": int}),
    "pimc": (PIMCAgent, {"worlds": int}),
    "ismcts": (ISMCTSAgent, {"simulations": int, "c": float, "merge": bool}),
    "openspiel": (OpenSpielMCTSAgent, {"simulations": int, "c": float, "rollouts": int}),
}
"""Agent kinds: the constructor and the options it takes (their types, or their choices)."""


def _value(text: str, kind: Any, where: str) -> Any:
    if isinstance(kind, tuple):
        if text not in kind:
            raise GameError(f"{where}: expected one of {', '.join(kind)}, got {text!r}")
        return text
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


def parse_agent(spec: str) -> Agent | ReplayAgent:
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
    for key in ("simulations", "depth", "rollouts", "worlds"):
        if key in values and values[key] < 1:
            raise GameError(f"agent {spec!r}: {key} must be >= 1, got {values[key]}")
    return make(spec=spec.strip(), **values)


__all__ = [
    "Agent",
    "AlphaBetaAgent",
    "ExpectiminimaxAgent",
    "ISMCTSAgent",
    "PIMCAgent",
    "KINDS",
    "MCTSAgent",
    "OPENSPIEL_GAMES",
    "OpenSpielMCTSAgent",
    "RandomAgent",
    "ReplayAgent",
    "parse_agent",
]
