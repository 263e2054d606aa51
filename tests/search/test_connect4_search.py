"""Connect four through the kernels and searches: perft and exact values from outside."""

import csv
import functools

import numpy as np
import pytest
from conftest import REFERENCE

import jaxgames
from jaxgames.search import distinct_positions, perft, solve

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

PERFT_TABLE = list(csv.DictReader((REFERENCE / "connect4_perft.csv").open()))
POSITIONS_TABLE = list(csv.DictReader((REFERENCE / "connect4_positions_per_ply.csv").open()))


# ---------------------------------------------------------------- independent reference
def wins(cols: tuple, width: int, height: int, connect: int, col: int) -> bool:
    """Does the stone just dropped in ``col`` complete a line? (plain Python)"""
    row = len(cols[col]) - 1
    me = cols[col][row]

    def at(c, r):
        return cols[c][r] if 0 <= c < width and 0 <= r < len(cols[c]) else None

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while at(c, r) == me:
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= connect:
            return True
    return False


def reference_perft(width: int, height: int, connect: int, depth: int) -> list[int]:
    counts = [0] * depth

    def walk(cols, ply, to_move):
        for col in range(width):
            if len(cols[col]) < height:
                child = cols[:col] + (cols[col] + (to_move,),) + cols[col + 1 :]
                counts[ply] += 1
                if ply + 1 < depth and not wins(child, width, height, connect, col):
                    walk(child, ply + 1, 1 - to_move)

    walk(tuple(() for _ in range(width)), 0, 0)
    return counts


def reference_score(width: int, height: int, connect: int, moves: str = "") -> int:
    """Pons's score of a position for the side to move, by plain memoised negamax."""
    base = (width * height + 1) // 2 + 1

    @functools.cache
    def negamax(cols: tuple, played: int) -> int:
        to_move = played % 2
        best = None
        for col in range(width):
            if len(cols[col]) == height:
                continue
            child = cols[:col] + (cols[col] + (to_move,),) + cols[col + 1 :]
            if wins(child, width, height, connect, col):
                score = base - (played // 2 + 1)  # my stones at the end, this one included
            elif played + 1 == width * height:
                score = 0
            else:
                score = -negamax(child, played + 1)
            best = score if best is None else max(best, score)
        return best

    cols = [()] * width
    for i, ch in enumerate(moves):
        col = int(ch) - 1
        cols[col] = cols[col] + (i % 2,)
    return negamax(tuple(cols), len(moves))


# ---------------------------------------------------------------- tests
def test_perft_equals_the_published_table_to_ply_8():
    game = jaxgames.make("connect4")
    result = perft(game, game.init(), 8)
    expected = [int(row["paths_of_exactly_this_length"]) for row in PERFT_TABLE[:8]]
    assert result.counts == expected
    assert sum(result.terminal[:7]) == int(PERFT_TABLE[7]["games_ended_before_this_ply"])


@pytest.mark.parametrize("size", [(7, 6, 4, 5), (5, 4, 3, 7), (4, 4, 2, 6)])
def test_perft_equals_an_independent_enumeration(size):
    width, height, connect, depth = size
    game = jaxgames.make("connect4", width=width, height=height, connect=connect)
    assert perft(game, game.init(), depth).counts == reference_perft(width, height, connect, depth)


def test_perft_equals_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    counts = [0] * 5

    def walk(state, ply):
        for action in state.legal_actions():
            child = state.child(action)
            counts[ply] += 1
            if ply + 1 < len(counts) and not child.is_terminal():
                walk(child, ply + 1)

    walk(pyspiel.load_game("connect_four").new_initial_state(), 0)
    game = jaxgames.make("connect4")
    assert perft(game, game.init(), 5).counts == counts


def test_distinct_positions_per_ply_equal_oeis_a212693():
    game = jaxgames.make("connect4")
    counts = distinct_positions(game, game.init(), 8)
    assert counts == [int(row["published_oeis_A212693"]) for row in POSITIONS_TABLE[:9]]


@pytest.mark.parametrize("size", [(4, 4, 3), (4, 4, 4), (5, 3, 3), (3, 4, 3)])
def test_full_solve_of_small_boards_matches_an_independent_solver(size):
    width, height, connect = size
    game = jaxgames.make("connect4", width=width, height=height, connect=connect)
    result = solve(game, game.init())
    assert game.score_from_value(result.value[0]) == reference_score(width, height, connect)
    for action in range(width):  # the value after every first move, from the mover's side
        after = reference_score(width, height, connect, str(action + 1))
        assert game.score_from_value(-result.action_values[action, 1]) == -after


def test_solve_late_positions_with_the_published_scores():
    """Late-game positions of the public test set whose exact scores are published."""
    game = jaxgames.make("connect4")
    lines = (REFERENCE / "connect4_pons" / "Test_L3_R1").read_text().split("\n")[:4]
    for line in lines:
        moves, score = line.split()
        if len(moves) < 34:  # keep the full solve small
            continue
        result = solve(game, game.parse(moves))
        mover = len(moves) % 2
        assert game.score_from_value(result.value[mover]) == int(score), moves


def test_solve_agrees_with_the_independent_solver_on_late_positions():
    rng = np.random.default_rng(3)
    game = jaxgames.make("connect4", width=5, height=4)
    checked = 0
    while checked < 5:
        moves = "".join(str(rng.integers(1, 6)) for _ in range(10))
        try:
            state = game.parse(moves)
        except jaxgames.GameError:
            continue  # a full column or an already finished game
        if bool(game.terminal(state)):
            continue
        result = solve(game, state)
        mover = len(moves) % 2
        assert game.score_from_value(result.value[mover]) == reference_score(5, 4, 4, moves)
        checked += 1
