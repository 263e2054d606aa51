"""Quiescence search against a plain-Python reference, on the tests' Nim with noisy moves."""

import functools

import jax.numpy as jnp
import numpy as np
import pytest
from jaxgames.kernels import stack
from nim import Nim

from jaxgames.game import two_player_utility
from jaxgames.search import alphabeta_batch, minimax_batch

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset


def nim_eval(stones: int) -> float:
    """EVAL for the player to move: hopeful unless the heap is a multiple of 4."""
    return 0.25 if stones % 4 else -0.25


class NoisyNim(Nim):
    """Nim whose 'take three' move is noisy, with a non-trivial EVAL."""

    name = "noisy_nim"

    def evaluate(self, s):
        mine = jnp.where(s.stones % 4 != 0, 0.25, -0.25)
        e = jnp.where(s.to_move == 0, mine, -mine)
        return jnp.where(self.terminal(s), self.utility(s), two_player_utility(e))

    def noisy_moves(self, s, moves):
        return moves == 2  # taking three

    def any_noisy(self, s):
        return self.legal_mask(s)[2]


@functools.cache
def reference(stones: int, remaining: int, qdepth: int) -> float:
    """Depth-limited negamax with quiescence (stand pat at EVAL), plain Python."""
    if stones == 0:
        return -1.0  # the previous player took the last stone
    if remaining <= 0:
        stand = nim_eval(stones)
        if remaining <= -qdepth or stones < 3:
            return stand
        return max(stand, -reference(stones - 3, remaining - 1, qdepth))
    return max(-reference(stones - t, remaining - 1, qdepth) for t in (1, 2, 3) if t <= stones)


@pytest.mark.parametrize("qdepth", [1, 3])
def test_quiescence_equals_the_reference(qdepth):
    game = NoisyNim(20)
    heaps = list(range(3, 21))
    roots = stack([game.parse(str(h)) for h in heaps])
    for depth in (1, 2, 3):
        result = alphabeta_batch(game, roots, depth, quiescence=qdepth)
        for i, heap in enumerate(heaps):
            assert result.value[i, 0] == pytest.approx(reference(heap, depth, qdepth)), heap


def test_games_without_noisy_moves_are_unaffected():
    game = Nim(12)  # no move is noisy: quiescence must change nothing
    roots = stack([game.parse(str(h)) for h in range(1, 13)])
    plain = minimax_batch(game, roots, 3)
    quiet = alphabeta_batch(game, roots, 3, quiescence=4)
    np.testing.assert_allclose(quiet.value, plain.value)
