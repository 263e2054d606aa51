"""Tic-tac-toe through the kernels and searches, against published counts and exact values."""

import functools
import json

import jax
import numpy as np
import pytest
from conftest import REFERENCE
from jaxgames.kernels import batched, pad_to, playouts, stack

import jaxgames
from jaxgames.search import distinct_positions, perft, solve
from jaxgames.search.levels import expand_levels

PUBLISHED = json.loads((REFERENCE / "tictactoe.json").read_text())
# Perft of tic-tac-toe (games stop at a win): the well-known sequence, OEIS A008907's partials.
PUBLISHED_PERFT = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@pytest.fixture(scope="module")
def game():
    return jaxgames.make("tictactoe")


@pytest.fixture(scope="module")
def full_tree(game):
    return expand_levels(game, stack([game.init()]), None)


def test_perft_equals_the_published_counts(game):
    assert perft(game, game.init(), 9).counts == PUBLISHED_PERFT


def test_complete_games_split_by_outcome(game, full_tree):
    kernels = batched(game)
    outcome = {"X": 0, "O": 0, "draw": 0}
    by_length = {}
    for ply, states in enumerate(full_tree.states):
        n = len(np.asarray(states.board))
        padded = pad_to(states, n)
        done = np.asarray(kernels.terminal(padded))
        u = np.asarray(kernels.utility(padded))[done, 0]
        for name, count in (("X", (u > 0).sum()), ("O", (u < 0).sum()), ("draw", (u == 0).sum())):
            outcome[name] += int(count)
            if count:
                by_length[f"{ply}:{name}"] = int(count)
    assert sum(outcome.values()) == PUBLISHED["games_total"] == 255_168
    assert outcome == PUBLISHED["games_by_outcome"]
    assert by_length == PUBLISHED["games_by_length_and_outcome"]


def test_distinct_positions_per_ply(game):
    counts = distinct_positions(game, game.init(), 9)
    assert sum(counts) == PUBLISHED["positions_total_including_empty"] == 5478
    assert {str(ply): n for ply, n in enumerate(counts)} == PUBLISHED["positions_by_ply"]


def test_solve_the_empty_board_is_a_draw_with_every_first_move_optimal(game):
    result = solve(game, game.init())
    assert result.value.tolist() == [0.0, 0.0]
    expected = sorted(
        int(sq) for sq, v in PUBLISHED["minimax_value_after_first_move_at_square"].items() if v == 0
    )
    assert result.optimal_actions(0) == expected == list(range(9))
    assert len(result.pv) == 9  # perfect play fills the board


@functools.cache
def random_play_outcome(board: tuple, to_move: int) -> tuple[float, float, float]:
    """Exact (P[X wins], P[O wins], P[draw]) under uniformly random play, by recursion."""
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return (1.0, 0.0, 0.0) if board[a] == 1 else (0.0, 1.0, 0.0)
    empty = [i for i in range(9) if not board[i]]
    if not empty:
        return (0.0, 0.0, 1.0)
    total = np.zeros(3)
    for square in empty:
        child = list(board)
        child[square] = to_move + 1
        total += random_play_outcome(tuple(child), 1 - to_move)
    return tuple(total / len(empty))


@pytest.mark.parametrize("position", ["", "x...o...."])
def test_random_playout_frequencies_match_exact_probabilities(game, position):
    state = game.parse(position)
    board = tuple(int(v) for v in np.asarray(state.board))
    exact = np.array(random_play_outcome(board, int(game.player(state))))
    m = 20_000
    result = playouts(game, stack([state]), m, jax.random.key(42))
    u = np.asarray(result.utilities)[0, :, 0]
    freq = np.array([(u > 0).mean(), (u < 0).mean(), (u == 0).mean()])
    sigma = np.sqrt(exact * (1 - exact) / m)
    assert np.all(np.abs(freq - exact) <= 5 * sigma + 1e-12), (freq, exact)
