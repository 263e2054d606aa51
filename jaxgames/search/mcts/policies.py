"""What varies in a Monte Carlo tree search, as typed callables: how a decision node picks
a child (:class:`SelectionRule`), and how a new leaf is valued (:class:`LeafEvaluator`).

Selection: :class:`UCT` (UCB1 applied to trees, Kocsis and Szepesvári 2006),
:class:`PUCT` (with priors, as AlphaZero) and :class:`RAVE` (UCT blended with
all-moves-as-first values, Gelly and Silver 2007; a rule that reads those statistics is an
:class:`AMAFRule`, and the search keeps them for it). Leaf values: :class:`Rollouts`
(random playouts to the end, the playout kernel), :class:`StaticEval` (the game's EVAL),
:class:`ValueFunction` and :class:`PolicyValue` (a user's functions of one state, the
latter AlphaZero-style with prior logits over the action space). How a finished game
scores (:class:`Outcome`): :class:`Utility` (the game's utility, default) or :class:`WinLoss`
(won, drawn or lost only, as OpenSpiel's bots see games whose utility also rewards a quick
win).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

import jax
import jax.numpy as jnp

from jaxgames.game import Game
from jaxgames.kernels import leaf_values, playouts
from jaxgames.search.mcts.tree import Edges

UNVISITED = 1e9
"""A score above any UCB value: every child is tried once before any is tried twice."""


class SelectionRule(Protocol):
    """Scores of a decision node's children; the search takes the highest."""

    def __call__(
        self, edges: Edges, visits: jax.Array, mean: jax.Array, mover: jax.Array
    ) -> jax.Array:
        """float32[W] from the node's list ``edges``, its ``visits`` (int32), its mean
        value for the mover (float32) and the ``mover`` (int32); values (``mean``, the
        children's ``edges.mean`` and ``edges.amaf_mean``) are scaled to [0, 1] by the
        game's utility range; invalid slots are masked by the search."""
        ...


@runtime_checkable
class AMAFRule(Protocol):
    """A selection rule that reads all-moves-as-first statistics (``edges.amaf_visits``
    and ``edges.amaf_mean``): the search keeps them for it, in games whose moves are places
    (:class:`~jaxgames.capabilities.PlaceMoves`) only."""

    uses_amaf: ClassVar[bool]  # True

    def __call__(
        self, edges: Edges, visits: jax.Array, mean: jax.Array, mover: jax.Array
    ) -> jax.Array: ...


@dataclasses.dataclass(frozen=True)
class UCT:
    """UCB1: ``Q + c * sqrt(ln N / n)``, every child once first (in prior order).

    ``Q`` is the mover's mean value scaled to [0, 1] by the game's utility range (UCB1's
    reward range): OpenSpiel's MCTS, which adds ``c`` to returns in [-1, 1], searches as
    this one does with half its ``c``."""

    c: float = math.sqrt(2.0)

    def __call__(self, edges: Edges, visits, mean, mover) -> jax.Array:
        n = jnp.maximum(edges.visits, 1).astype(jnp.float32)
        log_n = jnp.log(jnp.maximum(visits, 1).astype(jnp.float32))
        ucb = edges.mean[:, mover] + self.c * jnp.sqrt(log_n / n)
        return jnp.where(edges.visits == 0, UNVISITED + edges.prior, ucb)


@dataclasses.dataclass(frozen=True)
class PUCT:
    """``Q + c * prior * sqrt(N) / (1 + n)`` (Silver et al. 2017); an unvisited child's
    ``Q`` is the node's own mean value (first-play urgency at the parent's value)."""

    c: float = 1.25

    def __call__(self, edges: Edges, visits, mean, mover) -> jax.Array:
        q = jnp.where(edges.visits > 0, edges.mean[:, mover], mean)
        explore = jnp.sqrt(jnp.maximum(visits, 1).astype(jnp.float32)) / (1.0 + edges.visits)
        return q + self.c * edges.prior * explore


@dataclasses.dataclass(frozen=True)
class RAVE:
    """UCT with rapid action value estimation (Gelly and Silver 2007, as in MoGo): each
    child's value blends its own mean ``Q`` with its all-moves-as-first mean ``Q~``,

        ``(1 - beta) * Q + beta * Q~ + c * sqrt(ln N / max(n, 1))``,
        ``beta = sqrt(equivalence / (3 N + equivalence))``,

    ``N`` the node's visits and ``n`` the child's: Gelly and Silver's hand-selected
    schedule, where ``equivalence`` (their ``k``) is the number of visits at which the two
    estimates weigh alike (beta = 1/2); as ``N`` grows beta falls to 0 and the rule is
    UCT's. ``Q~`` of a move is the mover's mean value over the simulations through the node
    in which the mover played that move at any later turn, in the tree or in the rollout
    (every visit of the child is one of them). A child not visited yet is valued by ``Q~``
    alone, or ``unseen`` (first-play urgency, on the [0, 1] scale) before its move was ever
    played after the node, so the search need not try every move once. The default ``c`` is
    small: the AMAF values already spread the visits (Gelly and Silver report that MoGo with
    RAVE played best with little or no exploration term).
    """

    c: float = 0.1
    equivalence: float = 1000.0
    unseen: float = 1.0
    uses_amaf: ClassVar[bool] = True

    def __call__(self, edges: Edges, visits, mean, mover) -> jax.Array:
        n = edges.visits.astype(jnp.float32)
        big_n = jnp.maximum(visits, 1).astype(jnp.float32)
        beta = jnp.sqrt(self.equivalence / (3.0 * big_n + self.equivalence))
        seen = edges.amaf_visits > 0
        q = edges.mean[:, mover]
        blended = jnp.where(seen, (1.0 - beta) * q + beta * edges.amaf_mean, q)
        first = jnp.where(seen, edges.amaf_mean, self.unseen)
        value = jnp.where(edges.visits > 0, blended, first)
        return value + self.c * jnp.sqrt(jnp.log(big_n) / jnp.maximum(n, 1.0))


class Outcome(Protocol):
    """How a finished game scores in the search: its utility vector float32[P] -> the
    value float32[P] backed up (at terminal nodes, their solver bounds and rollouts' ends)."""

    def __call__(self, game: Game, utility: jax.Array) -> jax.Array: ...


@dataclasses.dataclass(frozen=True)
class Utility:
    """The game's utility as it is."""

    def __call__(self, game: Game, utility: jax.Array) -> jax.Array:
        return utility


@dataclasses.dataclass(frozen=True)
class WinLoss:
    """Won, drawn or lost only (two-player zero-sum games): the sign of the utility at the
    game's largest win, so a win late counts as much as a win soon."""

    def __call__(self, game: Game, utility: jax.Array) -> jax.Array:
        return jnp.sign(utility) * game.utility_max


class PlayedMoves(NamedTuple):
    """What the playouts from ``B`` leaves played (all-moves-as-first statistics)."""

    share: jax.Array  # float32[B, P, A]: the share of the leaf's playouts in which player p
    # played action a
    value: jax.Array  # float32[B, P, A]: the mean over the playouts of p's value where p
    # played a (0 where not)


class Evaluation(NamedTuple):
    """What a leaf evaluator says of ``B`` states."""

    value: jax.Array  # float32[B, P]: the value for every player
    logits: jax.Array  # float32[B, A]: prior logits over the action space (zeros: uniform)
    played: PlayedMoves | None = None  # the moves its playouts played, where asked


class LeafEvaluator(Protocol):
    """Values (and priors) of a batch of new leaves."""

    def __call__(self, game: Game, states: Any, key: jax.Array) -> Evaluation: ...


def _uniform(game: Game, value: jax.Array) -> Evaluation:
    return Evaluation(value, jnp.zeros((value.shape[0], game.num_actions), jnp.float32))


@dataclasses.dataclass(frozen=True)
class Rollouts:
    """The mean final utility of ``count`` uniformly random playouts from each leaf (chance
    outcomes drawn by their probabilities); ``max_steps`` caps a playout (EVAL scores one
    cut off), by default the game's length bound. ``outcome`` scores each playout's end
    (unset: the search's own :class:`Outcome`). With ``played_moves`` (the search sets it
    for an :class:`AMAFRule`) the evaluation also says which moves each player played."""

    count: int = 1
    max_steps: int | None = None
    outcome: Outcome | None = None
    played_moves: bool = False

    def __call__(self, game: Game, states: Any, key: jax.Array) -> Evaluation:
        result = playouts(
            game, states, self.count, key, self.max_steps, record_moves=self.played_moves
        )
        if self.outcome is None:
            scored, mean = result.utilities, result.mean_utility
        else:
            scored = jax.vmap(jax.vmap(functools.partial(self.outcome, game)))(result.utilities)
            mean = scored.mean(axis=1)
        if not self.played_moves:
            return _uniform(game, mean)
        hit = result.played.astype(jnp.float32)  # [B, M, P, A]
        played = PlayedMoves(hit.mean(axis=1), (hit * scored[..., None]).mean(axis=1))
        return _uniform(game, mean)._replace(played=played)


@dataclasses.dataclass(frozen=True)
class StaticEval:
    """The game's EVAL (UTILITY at a finished game)."""

    def __call__(self, game: Game, states: Any, key: jax.Array) -> Evaluation:
        return _uniform(game, jax.vmap(functools.partial(leaf_values, game))(states))


@dataclasses.dataclass(frozen=True)
class ValueFunction:
    """A user's value of one state: ``fn(state) -> float32[P]`` (traced, vmapped)."""

    fn: Callable[[Any], jax.Array]

    def __call__(self, game: Game, states: Any, key: jax.Array) -> Evaluation:
        return _uniform(game, jax.vmap(self.fn)(states).astype(jnp.float32))


@dataclasses.dataclass(frozen=True)
class PolicyValue:
    """A user's (policy, value) of one state, AlphaZero-style: ``fn(state) -> (logits
    float32[A], value float32[P])`` (traced, vmapped); the logits of a node's legal moves
    become its children's priors."""

    fn: Callable[[Any], tuple[jax.Array, jax.Array]]

    def __call__(self, game: Game, states: Any, key: jax.Array) -> Evaluation:
        logits, value = jax.vmap(self.fn)(states)
        return Evaluation(value.astype(jnp.float32), logits.astype(jnp.float32))


__all__ = [
    "AMAFRule",
    "Evaluation",
    "LeafEvaluator",
    "Outcome",
    "PUCT",
    "PlayedMoves",
    "PolicyValue",
    "RAVE",
    "Rollouts",
    "SelectionRule",
    "StaticEval",
    "UCT",
    "Utility",
    "ValueFunction",
    "WinLoss",
]
