"""RAVE (all-moves-as-first statistics in MCTS) against a plain-Python recount, a plain
tic-tac-toe minimax, and the published tic-tac-toe values; the playout kernel's record of
the moves played against the boards they make."""

import dataclasses
import functools
import json

import jax
import numpy as np
import pytest
from conftest import REFERENCE
from jaxgames.kernels import playouts, stack

import jaxgames
from jaxgames.capabilities import PlaceMoves
from jaxgames.game import GameError
from jaxgames.search.mcts import RAVE, UCT, Rollouts, descend, mcts_batch

pytestmark = pytest.mark.slow  # compiles searches: outside the fast subset

TICTACTOE = json.loads((REFERENCE / "tictactoe.json").read_text())
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
NODES = 256  # one node budget: the searches below share their compiled programs


def winner(board) -> int:
    """1 (X), 2 (O) or 0 of a board of 0/1/2 cells."""
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return int(board[a])
    return 0


@functools.cache
def minimax(board: tuple) -> int:
    """X's exact value (+1, 0, -1) of a board, the side to move from the counts."""
    won = winner(board)
    if won or 0 not in board:
        return {1: 1, 2: -1, 0: 0}[won]
    mark = 1 if board.count(1) == board.count(2) else 2
    values = [minimax(board[:i] + (mark,) + board[i + 1 :]) for i in range(9) if not board[i]]
    return max(values) if mark == 1 else min(values)


def best_moves(board: tuple) -> set[int]:
    """The moves that keep the exact value, for the side to move."""
    mark = 1 if board.count(1) == board.count(2) else 2
    value = minimax(board)
    moves = [i for i in range(9) if not board[i]]
    return {i for i in moves if minimax(board[:i] + (mark,) + board[i + 1 :]) == value}


def test_the_recount_oracle_agrees_with_the_published_values():
    assert minimax((0,) * 9) == TICTACTOE["minimax_value_empty_board_X_perspective"]
    after = TICTACTOE["minimax_value_after_first_move_at_square"]
    for a in range(9):
        assert minimax(tuple(1 if i == a else 0 for i in range(9))) == after[str(a)]


def test_playouts_report_the_moves_that_make_their_final_boards():
    # each playout's moves, put on its start board, make a finished game with its utility
    game = jaxgames.make("tictactoe")
    starts = ["x........", "xo.......", "xx./oo./...", "start"]
    states = stack([game.parse(s) for s in starts])
    out = playouts(game, states, 16, jax.random.key(3), record_moves=True)
    played = np.asarray(out.played)  # [N, M, P, A]
    plain = playouts(game, states, 16, jax.random.key(3))
    np.testing.assert_array_equal(out.utilities, plain.utilities)  # the same games
    assert plain.played is None
    boards = np.asarray(states.board)
    for n in range(len(starts)):
        for m in range(16):
            x, o = played[n, m, 0], played[n, m, 1]
            assert not (x & o).any() and not ((x | o) & (boards[n] > 0)).any()
            assert int(x.sum() + o.sum()) == int(out.lengths[n, m])
            final = boards[n] + x.astype(int) + 2 * o.astype(int)
            u = {1: 1.0, 2: -1.0, 0: 0.0}[winner(final)]
            assert float(out.utilities[n, m, 0]) == u
            assert winner(final) or (final > 0).all()  # played to the end


@dataclasses.dataclass(frozen=True)
class Recorded(Rollouts):
    """Rollouts that hand each batch's leaves, values and played moves to the host."""

    def __call__(self, game, states, key):
        evaluation = super().__call__(game, states, key)
        if evaluation.played is not None:
            jax.debug.callback(_record, states.board, evaluation.value, evaluation.played.share)
        return evaluation


CALLS: list = []


def _record(board, value, share):
    CALLS.append((np.asarray(board), np.asarray(value), np.asarray(share)))


def on_host(tree):
    return jax.tree.map(np.asarray, tree)


def recount(trees: list, calls: list, b: int):
    """AMAF visits and sums per edge of tree ``b``, recounted from the trees after each
    simulation (``trees[t]``: after ``t``) and the rollouts each simulation played."""
    final = trees[-1]
    visits = np.zeros(final.action.shape[1])
    sums = np.zeros(final.action.shape[1])
    for t in range(1, len(trees)):
        before, after = trees[t - 1], trees[t]
        path = [int(n) for n in np.flatnonzero(after.visits[b] - before.visits[b])]
        assert all(after.visits[b, n] - before.visits[b, n] == 1 for n in path)
        path.sort(key=lambda n: len(ancestors(final, b, n)))  # root first
        for upper, lower in zip(path, path[1:], strict=False):
            assert int(final.parent[b, lower]) == upper  # a line from the root down
        v = after.value_sum[b, 0] - before.value_sum[b, 0]  # the simulation's value
        board, value, share = calls[t]  # the rollout from this simulation's leaf
        np.testing.assert_array_equal(board[b], final.state.board[b, path[-1]])
        np.testing.assert_allclose(value[b], v, atol=1e-6)
        moves = [int(final.action[b, final.edge_in[b, n]]) for n in path[1:]]
        for i, node in enumerate(path):
            mover = int(final.player[b, node])
            later = {a for j, a in enumerate(moves[i:], i) if final.player[b, path[j]] == mover}
            first, count = int(final.first[b, node]), int(final.count[b, node])
            for e in range(first, first + count) if first >= 0 else ():
                a = int(final.action[b, e])
                if a in later or share[b, mover, a] > 0:
                    visits[e] += 1
                    sums[e] += v[mover]
    return visits, sums


def ancestors(tree, b, node):
    out = []
    while node >= 0:
        out.append(node)
        node = int(tree.parent[b, node])
    return out


def test_amaf_statistics_equal_a_plain_python_recount():
    game = jaxgames.make("tictactoe")
    # near-final positions: lines end in the tree (terminal revisits) and in rollouts
    starts = ["x.o/.x./o..", "xox/.o./...", "start", "xx./oo./..."]
    roots = stack([game.parse(s) for s in starts])
    rule = RAVE(equivalence=50.0)
    trees = [None]
    for simulations in range(1, 13):  # one program; the key makes each a prefix of the next
        CALLS.clear()
        result = mcts_batch(
            game, roots, simulations, 7, selection=rule, evaluator=Recorded(), nodes=NODES
        )
        trees.append(on_host(result.tree))
    calls = list(CALLS)
    assert len(calls) == 13  # the roots' priors, then one batch per simulation
    blank = trees[1]._replace(
        visits=np.zeros_like(trees[1].visits), value_sum=np.zeros_like(trees[1].value_sum)
    )
    trees[0] = blank
    final = trees[-1]
    for b in range(len(starts)):
        visits, sums = recount(trees, calls, b)
        np.testing.assert_array_equal(final.amaf_visits[b], visits)
        np.testing.assert_allclose(final.amaf_sum[b], sums, atol=1e-5)
        assert visits.sum() > 12  # something was counted beyond the moves taken


STARTS = [
    "xx./oo./...",  # X wins at 2
    "xo./.x./..o",
    "x../.o./..x",  # O must take an edge, not a corner
    "xo./.../...",
    "o../.x./..x",  # O must block with a corner that makes no fork for X
    ".../.x./...",  # O must take a corner
    "xx./.o./...",  # O must block at 2
    "o.x/.x./...",  # O must block at 6
]
"""Positions whose side to move has a move that loses the value: wins, blocks, forks."""


def test_rave_chooses_a_minimax_move_as_simulations_grow():
    game = jaxgames.make("tictactoe")
    roots = stack([game.parse(s) for s in STARTS])
    boards = [tuple(int(c) for c in np.asarray(game.parse(s).board)) for s in STARTS]
    best = [best_moves(board) for board in boards]
    for moves, board in zip(best, boards, strict=True):
        assert len(moves) < board.count(0)  # a move here loses the value
    result = mcts_batch(game, roots, 3000, 0, selection=RAVE(), nodes=NODES)
    chosen = [int(a) for a in result.action]
    assert all(a in moves for a, moves in zip(chosen, best, strict=True)), (chosen, best)


def test_a_kept_tree_keeps_its_amaf_statistics_and_a_search_goes_on_from_it():
    game = jaxgames.make("tictactoe")
    roots = stack([game.parse(s) for s in STARTS])
    result = mcts_batch(game, roots, 60, 1, selection=RAVE(), nodes=NODES)
    old = on_host(result.tree)
    kept = on_host(descend(game, result, result.action))
    for b, action in enumerate(result.action):
        first, count = int(old.first[b, 0]), int(old.count[b, 0])
        slot = old.action[b, first : first + count].tolist().index(int(action))
        child = int(old.child[b, first + slot])
        was, now = int(old.first[b, child]), int(kept.first[b, 0])
        n = int(old.count[b, child])
        assert n == int(kept.count[b, 0])
        np.testing.assert_array_equal(
            kept.amaf_visits[b, now : now + n], old.amaf_visits[b, was : was + n]
        )
        np.testing.assert_array_equal(
            kept.amaf_sum[b, now : now + n], old.amaf_sum[b, was : was + n]
        )
        assert not kept.amaf_visits[b, int(kept.edges[b]) :].any()  # freed room is blank
    states = stack(
        [game.step(game.parse(s), int(a)) for s, a in zip(STARTS, result.action, strict=True)]
    )
    again = mcts_batch(game, states, 20, 2, selection=RAVE(), nodes=NODES, tree=kept)
    finished = np.asarray(jax.vmap(game.terminal)(states))  # won at once: nothing to search
    assert finished.sum() == 1
    np.testing.assert_array_equal(again.tree.visits[:, 0], kept.visits[:, 0] + 20 * ~finished)
    with pytest.raises(GameError, match="the tree has all-moves-as-first statistics"):
        mcts_batch(game, states, 20, 2, selection=UCT(), nodes=NODES, tree=kept)


def test_rave_needs_a_game_whose_moves_are_places():
    tree = jaxgames.make("tree", name="aima")
    assert not isinstance(tree, PlaceMoves)
    with pytest.raises(GameError, match="RAVE needs moves that are places") as error:
        mcts_batch(tree, stack([tree.init()]), 4, 0, selection=RAVE())
    assert "\n" not in str(error.value)
    for name in ("tictactoe", "connect4", "go", "othello"):
        assert isinstance(jaxgames.make(name), PlaceMoves), name
    assert not isinstance(jaxgames.make("chess"), PlaceMoves)
