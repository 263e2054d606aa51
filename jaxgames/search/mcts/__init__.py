"""Monte Carlo tree search: many trees at once on the device.

``mcts_batch(game, states, simulations)`` grows one tree per root in fixed arrays
(:mod:`~jaxgames.search.mcts.tree`), all trees in lockstep (:mod:`~jaxgames.search.mcts.search`);
selection rules (UCT, PUCT, RAVE) and leaf evaluators are typed callables
(:mod:`~jaxgames.search.mcts.policies`).
``descend(game, result, actions)`` keeps each tree's subtree below the moves played, and
``mcts_batch(..., tree=kept)`` goes on from it (tree reuse between moves).
"""

from jaxgames.search.mcts.policies import (
    PUCT,
    RAVE,
    UCT,
    AMAFRule,
    Evaluation,
    LeafEvaluator,
    Outcome,
    PlayedMoves,
    PolicyValue,
    Rollouts,
    SelectionRule,
    StaticEval,
    Utility,
    ValueFunction,
    WinLoss,
)
from jaxgames.search.mcts.search import CHANCE_MODES, MCTSResult, descend, mcts, mcts_batch
from jaxgames.search.mcts.tree import Tree

__all__ = [
    "AMAFRule",
    "CHANCE_MODES",
    "Evaluation",
    "LeafEvaluator",
    "MCTSResult",
    "Outcome",
    "PUCT",
    "PlayedMoves",
    "PolicyValue",
    "RAVE",
    "Rollouts",
    "SelectionRule",
    "StaticEval",
    "Tree",
    "UCT",
    "Utility",
    "ValueFunction",
    "WinLoss",
    "descend",
    "mcts",
    "mcts_batch",
]
