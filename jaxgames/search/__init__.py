"""Game-agnostic search algorithms, one module per algorithm family.

Every search has the shape ``search.<name>(game, state, **options) -> SearchResult``.
"""

from jaxgames.search.alphabeta import (
    AlphaBetaOptions,
    ProbCut,
    Singular,
    alphabeta,
    alphabeta_batch,
    fit_probcut,
)
from jaxgames.search.belief import (
    AndOrResult,
    ObservationHistory,
    Plan,
    and_or_search,
    observation_history,
    sample_world,
)
from jaxgames.search.cfr import CFRResult, CFRSolver, GameTree, build_tree, cfr
from jaxgames.search.expectiminimax import PRUNINGS, expectiminimax, expectiminimax_batch
from jaxgames.search.ismcts import ISMCTSResult, ismcts
from jaxgames.search.maxn import maxn, maxn_batch, paranoid, paranoid_batch
from jaxgames.search.mcts import MCTSResult, mcts, mcts_batch
from jaxgames.search.minimax import minimax, minimax_batch, solve
from jaxgames.search.perft import PerftResult, distinct_positions, perft
from jaxgames.search.pimc import PIMCResult, pimc
from jaxgames.search.result import BatchSearchResult, SearchResult
from jaxgames.search.retrograde import ValueIterationResult, enumerate_states, value_iteration

__all__ = [
    "AndOrResult",
    "ISMCTSResult",
    "ObservationHistory",
    "PIMCResult",
    "Plan",
    "and_or_search",
    "ismcts",
    "observation_history",
    "pimc",
    "sample_world",
    "AlphaBetaOptions",
    "BatchSearchResult",
    "CFRResult",
    "CFRSolver",
    "GameTree",
    "build_tree",
    "cfr",
    "PRUNINGS",
    "PerftResult",
    "SearchResult",
    "alphabeta",
    "alphabeta_batch",
    "fit_probcut",
    "ProbCut",
    "Singular",
    "distinct_positions",
    "expectiminimax",
    "expectiminimax_batch",
    "MCTSResult",
    "maxn",
    "maxn_batch",
    "mcts",
    "mcts_batch",
    "minimax",
    "minimax_batch",
    "paranoid",
    "paranoid_batch",
    "perft",
    "solve",
    "ValueIterationResult",
    "enumerate_states",
    "value_iteration",
]
