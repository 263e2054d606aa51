"""TD(lambda) on Sutton's random walk, and the afterstate choice with a fixed network."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxgames.learn.afterstates import best_per_lane, bucket, pairs
from jaxgames.learn.network import make_net
from jaxgames.learn.td import init_traces, td_lambda_step

WALK = 5  # states A..E; stepping off the right end pays 1, off the left end 0
TRUE_VALUES = np.arange(1, WALK + 1) / (WALK + 1)  # 1/6 .. 5/6 (Sutton & Barto, Example 6.2)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _walk(lanes: int, steps: int, lam: float = 0.8, lr: float = 0.5, seed: int = 0):
    net = make_net((WALK, 1), seed=seed, init_scale=0.0)  # every state starts at 1/2
    optimizer = optax.sgd(lr)
    opt_state = optimizer.init(net)
    traces = init_traces(net, lanes, WALK)
    where = jnp.full((lanes,), WALK // 2)  # all lanes start in the middle state C

    def body(carry, key):
        net, opt_state, traces, where = carry
        step = jnp.where(jax.random.bernoulli(key, 0.5, (lanes,)), 1, -1)
        nxt = where + step
        done = (nxt < 0) | (nxt >= WALK)
        reward = (nxt >= WALK).astype(jnp.float32)
        features = jax.nn.one_hot(jnp.clip(nxt, 0, WALK - 1), WALK)
        sign = jnp.ones((lanes,), jnp.float32)
        net, opt_state, traces, _ = td_lambda_step(
            net, opt_state, optimizer, lam, traces, features, sign, done, reward
        )
        # a finished lane starts again in C, its first afterstate the start state
        restart = jax.nn.one_hot(jnp.full((lanes,), WALK // 2), WALK)
        traces = traces._replace(
            prev_features=jnp.where(done[:, None], restart, traces.prev_features),
            has_prev=traces.has_prev | done,
        )
        return (net, opt_state, traces, jnp.where(done, WALK // 2, nxt)), None

    # the first afterstate of every lane is C itself
    traces = traces._replace(
        prev_features=jax.nn.one_hot(where, WALK), has_prev=jnp.ones((lanes,), jnp.bool_)
    )
    keys = jax.random.split(jax.random.key(seed), steps)
    (net, *_), _ = jax.lax.scan(body, (net, opt_state, traces, where), keys)
    return jax.vmap(net)(jnp.eye(WALK))


def test_td_lambda_random_walk_reaches_true_values():
    values = np.asarray(_walk(64, 3000))
    rms = float(np.sqrt(np.mean((values - TRUE_VALUES) ** 2)))
    assert rms < 0.03, (values, rms)
    assert np.all(np.diff(values) > 0)


def test_td_zero_random_walk_reaches_true_values():
    values = np.asarray(_walk(64, 3000, lam=0.0))
    assert np.sqrt(np.mean((values - TRUE_VALUES) ** 2)) < 0.03, values


def test_pairs_and_best_per_lane():
    counts = jnp.asarray([3, 0, 2, 1], jnp.int32)
    size = bucket(int(counts.sum()), smallest=8)
    assert size == 8
    lane, rank, valid = pairs(counts, size)
    assert list(np.asarray(lane)[:6]) == [0, 0, 0, 2, 2, 3]
    assert list(np.asarray(rank)[:6]) == [0, 1, 2, 0, 1, 0]
    assert list(np.asarray(valid)) == [True] * 6 + [False] * 2
    scores = jnp.asarray([0.1, 0.7, 0.7, 0.2, 0.1, 0.5, 9.0, 9.0])  # ties: the first wins
    best, found = best_per_lane(scores, lane, valid, 4)
    assert list(np.asarray(found)) == [True, False, True, True]
    assert list(np.asarray(best)[[0, 2, 3]]) == [1, 3, 5]
