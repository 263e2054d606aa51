"""Null-move pruning and singular extensions, against a pure-Python reference search.

Both change the value a search returns, so the check is not "equals minimax" but "equals
the same rule written independently": a plain recursive negamax over the same random trees,
moves in index order (the engine's order when every ordering aid is off), with the null-move
rule (Beal 1989; Donninger 1993) and the PV-singular extension (Anantharaman, Campbell and
Hsu 1990) as the alphabeta docstrings define them. The trees are random games in which the
side to move may pass, so a null move is a real move of the game.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames.game import Game, GameError
from jaxgames.search import Singular, alphabeta_batch

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

BRANCHING, DEPTH, TREES = 3, 5, 64
NODES = sum(BRANCHING**k for k in range(DEPTH + 1))  # node ids: root 0, child id*b + a + 1


class PassState(NamedTuple):
    tree: jax.Array  # int32[]: which random tree
    node: jax.Array  # int32[]
    ply: jax.Array  # int32[]: moves made (passes do not count)
    turn: jax.Array  # int32[]: the player to move


class PassingTrees(Game):
    """``TREES`` random b-ary trees of depth ``DEPTH``; the side to move may pass.

    Leaves score ``values[tree, node]`` for player 0, EVAL of an inner node is
    ``evals[tree, node]`` for player 0 (whoever moves), and passing is allowed where
    ``ok[tree, node]``. Every number is a multiple of 1/16, so float32 sums are exact.
    """

    name = "passing_trees"
    num_actions = BRANCHING
    max_game_length = DEPTH

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.params = {"seed": seed}
        self.values = rng.integers(-16, 17, (TREES, NODES)) / 16.0
        self.evals = rng.integers(-16, 17, (TREES, NODES)) / 16.0
        self.ok = rng.random((TREES, NODES)) < 0.7
        self._values = jnp.asarray(self.values, jnp.float32)
        self._evals = jnp.asarray(self.evals, jnp.float32)
        self._ok = jnp.asarray(self.ok)

    def roots(self, count: int) -> PassState:
        zeros = np.zeros(count, np.int32)
        return PassState(np.arange(count, dtype=np.int32) % TREES, zeros, zeros, zeros)

    def init(self) -> PassState:
        return jax.tree.map(lambda x: jnp.asarray(x[0]), self.roots(1))

    def player(self, state):
        return state.turn

    def legal_mask(self, state):
        return jnp.broadcast_to(state.ply < DEPTH, (BRANCHING,))

    def step(self, state, action):
        return PassState(
            state.tree, state.node * BRANCHING + action + 1, state.ply + 1, 1 - state.turn
        )

    def null_step(self, state):
        return state._replace(turn=1 - state.turn)

    def null_ok(self, state):
        return self._ok[state.tree, state.node]

    def terminal(self, state):
        return state.ply >= DEPTH

    def utility(self, state):
        v = self._values[state.tree, state.node]
        return jnp.stack([v, -v])

    def evaluate(self, state):
        v = jnp.where(
            self.terminal(state),
            self._values[state.tree, state.node],
            self._evals[state.tree, state.node],
        )
        return jnp.stack([v, -v])


# ------------------------------------------------------------------ the reference
def reference(game: PassingTrees, tree: int, depth: int, null_r: int, singular) -> float:
    """Negamax with the null-move rule and PV-singular extensions; value for player 0."""
    f32 = np.float32
    values, evals, ok = game.values[tree], game.evals[tree], game.ok[tree]

    def leaf(node, ply, turn):  # UTILITY at the end of the tree, else EVAL; mover's side
        v = values[node] if ply >= DEPTH else evals[node]
        return f32(v if turn == 0 else -v)

    def search(node, ply, turn, remaining, alpha, beta, root, after_null, ext):
        alpha0 = alpha
        if (
            null_r
            and not root
            and not after_null
            and remaining >= null_r + 1
            and ok[node]
            and leaf(node, ply, turn) >= beta
        ):
            v = -child(
                node,
                ply,
                1 - turn,
                remaining - 1 - null_r,
                -beta,
                -np.nextafter(beta, f32(-np.inf)),
                True,
                ext,
            )
            if v >= beta:
                return v
        best, best_move, second = f32(-np.inf), -1, f32(-np.inf)
        for a in range(BRANCHING):
            v = -child(
                node * BRANCHING + a + 1,
                ply + 1,
                1 - turn,
                remaining - 1,
                -beta,
                -alpha,
                False,
                ext,
            )
            if v > best:
                second = max(second, best)
                best, best_move = v, a
            else:
                second = max(second, v)
            alpha = max(alpha, v)
            if best >= beta:
                break
        if singular is not None:
            min_depth, margin, max_ext = singular
            if (
                remaining >= min_depth
                and ext < max_ext
                and alpha0 < best < beta
                and best - second >= f32(margin)
            ):
                again = best_move
                best = second
                v = -child(
                    node * BRANCHING + again + 1,
                    ply + 1,
                    1 - turn,
                    remaining,
                    -beta,
                    -max(alpha0, second),
                    False,
                    ext + 1,
                )
                best = max(best, v)
        return best

    def child(node, ply, turn, remaining, alpha, beta, after_null, ext):
        if ply >= DEPTH or remaining <= 0:
            return leaf(node, ply, turn)
        return search(node, ply, turn, remaining, alpha, beta, False, after_null, ext)

    return float(search(0, 0, 0, depth, f32(-1), f32(1), True, False, 0))


FAST = dict(hint=False, killers=False, history=False, iterative_deepening=False, tt=False)


@pytest.fixture(scope="module")
def game() -> PassingTrees:
    return PassingTrees(seed=7)


@pytest.mark.parametrize(
    "null_r, singular, depth",
    [(1, None, 5), (2, None, 4), (0, Singular(2, 0.25, 1), 4), (1, Singular(1, 0.125, 2), 4)],
)
def test_selective_search_equals_the_reference(game, null_r, singular, depth):
    roots = game.roots(TREES)
    got = alphabeta_batch(game, roots, depth, null_move=null_r, singular=singular, **FAST)
    want = [
        reference(game, t, depth, null_r, singular.as_tuple() if singular else None)
        for t in range(TREES)
    ]
    np.testing.assert_array_equal(got.value[:, 0], np.asarray(want, np.float32))
    assert got.stats["exact"] is False


def test_the_reference_differs_from_minimax(game):
    """The options do something here: the rule changes some values of these trees."""
    plain = [reference(game, t, 4, 0, None) for t in range(TREES)]
    nulls = [reference(game, t, 4, 1, None) for t in range(TREES)]
    sing = [reference(game, t, 4, 0, (2, 0.25, 1)) for t in range(TREES)]
    assert plain != nulls and plain != sing
    exact = alphabeta_batch(game, game.roots(TREES), 4, **FAST)
    np.testing.assert_array_equal(exact.value[:, 0], np.asarray(plain, np.float32))
    assert not any(math.isnan(v) for v in plain)


def test_null_move_needs_a_game_with_passes():
    c4 = jaxgames.make("connect4")
    with pytest.raises(GameError, match="no null move"):
        alphabeta_batch(c4, jax.tree.map(lambda x: x[None], c4.init()), 2, null_move=2)
    with pytest.raises(GameError, match="null_move must be >= 0"):
        alphabeta_batch(c4, jax.tree.map(lambda x: x[None], c4.init()), 2, null_move=-1)
    with pytest.raises(GameError, match="singular needs"):
        alphabeta_batch(
            c4, jax.tree.map(lambda x: x[None], c4.init()), 2, singular=Singular(min_depth=0)
        )
