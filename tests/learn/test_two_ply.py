"""The learned EVAL inside expectiminimax: which depth is backgammon's 2-ply, checked by
hand against the network, and the lockstep two-ply player of :mod:`jaxgames.learn`."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxgames.kernels import take

import jaxgames
from jaxgames.games.backgammon import ROLL_PROBS
from jaxgames.learn.network import make_net, save_checkpoint
from jaxgames.learn.selfplay import TWO_PLY, play_match, two_ply_values
from jaxgames.search import expectiminimax

# a bear-off with a few checkers a side: few plays, so the hand computation is small, and
# no side can finish in one roll but for doubles (leaves are mostly network values)
ROOT = "x: 6:1 5:1 4:2 3:1 o: 6:2 5:1 3:1 2:1 to_move=x dice=21"


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    net = make_net((198, 8, 1), seed=5)
    path = str(tmp_path_factory.mktemp("net") / "net.npz")
    save_checkpoint(path, net, {"game": "backgammon"})
    return jaxgames.make("backgammon", eval=path), net


def _x_value(game, net, leaves) -> np.ndarray:
    """float[N]: x's value of positions after a play, straight from the network (2p - 1 for
    the side that just moved), UTILITY at finished games."""
    p = np.asarray(jax.vmap(net)(jax.vmap(game.features)(leaves)))
    e = 2.0 * p - 1.0
    mover = 1 - np.asarray(leaves.player)  # after a play the side to roll is the other one
    value = np.where(mover == 0, e, -e)
    done = np.asarray(jax.vmap(game.terminal)(leaves))
    return np.where(done, np.asarray(jax.vmap(game.utility)(leaves))[:, 0], value)


def _hand_two_ply(game, net, root) -> tuple[list, np.ndarray]:
    """Each of x's plays: the roll-weighted mean over o's 21 rolls of x's value after o's
    best reply (o minimises x's value), o's replies valued by the network directly."""
    plays = game.legal_actions(root)
    afters = jax.vmap(game.step, in_axes=(None, 0))(root, jnp.asarray(plays))
    values = []
    for i in range(len(plays)):
        after = take(afters, i)
        if bool(game.terminal(after)):
            values.append(float(game.utility(after)[0]))
            continue
        rolled = jax.vmap(game.step, in_axes=(None, 0))(after, jnp.arange(21))
        masks = np.asarray(jax.vmap(game.legal_mask)(rolled))  # [21, A]
        roll, reply = np.nonzero(masks)
        leaves = jax.vmap(game.step)(take(rolled, roll), jnp.asarray(reply, jnp.int32))
        x_value = _x_value(game, net, leaves)
        best = np.array([x_value[roll == r].min() for r in range(21)])  # o's best reply
        values.append(float(np.dot(ROLL_PROBS.astype(np.float64), best)))
    return plays, np.array(values)


def test_depth_three_is_two_ply_and_depth_two_is_one_ply(learned):
    game, net = learned
    root = game.parse(ROOT)
    plays, two_ply = _hand_two_ply(game, net, root)
    afters = jax.vmap(game.step, in_axes=(None, 0))(root, jnp.asarray(plays))
    one_ply = _x_value(game, net, afters)
    assert len(plays) > 1 and not np.allclose(two_ply, one_ply, atol=1e-3)
    # depth counts every level: 1 = our play, 2 = + the opponent's roll, 3 = + the reply
    depth3 = expectiminimax(game, root, 3)
    assert float(depth3.value[0]) == pytest.approx(two_ply.max(), abs=1e-5)
    assert depth3.best_action == plays[int(np.argmax(two_ply))]
    # EVAL at a decision ignores the dice, so a search ending at the opponent's decision
    # (after its roll) values every play exactly as 1 ply does
    for depth in (1, 2):
        result = expectiminimax(game, root, depth, pruning="none")
        assert float(result.value[0]) == pytest.approx(one_ply.max(), abs=1e-5)


def test_learned_eval_at_chance_and_decision_nodes(learned):
    game, net = learned
    root = game.parse(ROOT)
    after = game.step(root, jnp.int32(game.legal_actions(root)[0]))  # o to roll
    assert int(game.player(after)) < 0
    e = 2.0 * float(net(game.features(after))) - 1.0  # x made it: the network speaks for x
    assert np.asarray(game.evaluate(after)) == pytest.approx([e, -e], abs=1e-6)
    for roll in (0, 7, 20):  # o to play: the same value whatever the dice
        decision = game.step(after, jnp.int32(roll))
        assert int(game.player(decision)) == 1
        assert np.asarray(game.evaluate(decision)) == pytest.approx([e, -e], abs=1e-6)


def test_lockstep_two_ply_values_every_play_as_the_hand_computation(learned):
    game, net = learned
    root = game.parse(ROOT)
    plays, two_ply = _hand_two_ply(game, net, root)
    states = jax.tree.map(lambda x: jnp.stack([x, x]), root)  # lane 1 does not move
    keep = len(plays) + 2
    counts = jnp.asarray([len(plays), 0], jnp.int32)
    candidates, values = two_ply_values(game, states, counts, keep)
    values = np.asarray(values)
    assert np.isneginf(values[1]).all() and np.isneginf(values[0, len(plays) :]).all()
    afters = jax.vmap(game.step, in_axes=(None, 0))(root, jnp.asarray(plays))
    boards = np.concatenate([np.asarray(afters.own), np.asarray(afters.opp)], axis=1)
    for j in range(len(plays)):
        board = np.concatenate([np.asarray(candidates.own[j]), np.asarray(candidates.opp[j])])
        match = np.flatnonzero((boards == board).all(axis=1))
        assert len(match) == 1
        assert values[0, j] == pytest.approx(two_ply[match[0]], abs=1e-5)
    # candidates come best 1-ply first: keep=1 is the 1-ply choice
    one_ply = _x_value(game, net, afters)
    first, _ = two_ply_values(game, states, counts, 1)
    board = np.concatenate([np.asarray(first.own[0]), np.asarray(first.opp[0])])
    assert np.array_equal(board, boards[int(np.argmax(one_ply))])


@pytest.mark.slow  # compiles the 1-ply and the 2-ply programs of a match
def test_two_ply_match_runs_in_seat_swapped_pairs(learned):
    game, net = learned
    score = play_match(game, TWO_PLY, "net", 2, net_b=net, lanes=2, keep=2, max_turns=3)
    assert score.games == 2 and score.moves > 0
