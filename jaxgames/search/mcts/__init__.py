"""Monte Carlo tree search: many trees at once on the device.

``mcts_batch(game, states, simulations)`` grows one tree per root in fixed arrays
(:mod:`~jaxgames.search.mcts.tree`), all trees in lockstep (:mod:`~jaxgames.search.mcts.search`);
selection rules and leaf evaluators are typed callables (:mod:`~jaxgames.search.mcts.policies`).
"""

from jaxgames.search.mcts.policies import (
    PUCT,
    UCT,
    Evaluation,
    LeafEvaluator,
    PolicyValue,
    Rollouts,
    SelectionRule,
    StaticEval,
    ValueFunction,
)
from jaxgames.search.mcts.search import CHANCE_MODES, MCTSResult, mcts, mcts_batch
from jaxgames.search.mcts.tree import Tree

__all__ = [
    "CHANCE_MODES",
    "Evaluation",
    "LeafEvaluator",
    "MCTSResult",
    "PUCT",
    "PolicyValue",
    "Rollouts",
    "SelectionRule",
    "StaticEval",
    "Tree",
    "UCT",
    "ValueFunction",
    "mcts",
    "mcts_batch",
]
