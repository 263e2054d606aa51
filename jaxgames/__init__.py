"""jaxgames: batched game-tree evaluation in JAX.

Game rules are pure functions over fixed-shape arrays (:mod:`jaxgames.game`); the kernels in
:mod:`jaxgames.kernels` lift them over batches; :mod:`jaxgames.search` runs the classic
adversarial searches on top.
"""

from jaxgames.game import CHANCE, Game, GameError
from jaxgames.registry import list_games, make, register

__all__ = ["CHANCE", "Game", "GameError", "list_games", "make", "register"]
__version__ = "0.1.0"
