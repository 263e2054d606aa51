"""TD(lambda) with eligibility traces, for B episodes in lockstep.

The network ``v(x)`` gives the win probability of the player a position's features speak
for (its ``viewer``). Learning runs on one fixed side, player 0: ``V(x) = v(x)`` when the
viewer is player 0 and ``1 - v(x)`` otherwise, so ``grad V = sign * grad v`` with ``sign =
+-1``, and a game's afterstates form one chain ``x_0, x_1, ...`` with the final reward ``z``
(1 when player 0 won, 0 when it lost, 1/2 for a draw) and no reward before. Each lane ``b``
keeps its trace ``e_b`` (a pytree shaped like the network) and its last afterstate; after
each new afterstate ``x_{t+1}``:

    delta_b = V(x_{t+1}) - V(x_t)      (z instead of V(x_{t+1}) when the game is over)
    w      += alpha * mean_b(delta_b * e_b)          (through optax: the "gradient" is
                                                      -mean_b(delta_b e_b))
    e_b     = lambda * e_b + grad V(x_{t+1})         (0 when the game is over)

which is Sutton's backward view (``e_t = lambda e_{t-1} + grad V(x_t)``, ``w += alpha
delta_t e_t``) run on B games at once, their updates averaged. With one lane and plain SGD
it is exactly TD-Gammon's rule.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxgames.learn.network import ValueNet


class Traces(NamedTuple):
    """The learner's per-lane memory between afterstates."""

    trace: Any  # pytree like the network, each leaf [B, *leaf.shape]: eligibility traces
    prev_features: jax.Array  # float32[B, F]: each lane's last afterstate
    prev_sign: jax.Array  # float32[B]: +1 when its viewer is player 0, -1 otherwise
    has_prev: jax.Array  # bool[B]: the lane has an afterstate in this episode


def init_traces(net: ValueNet, lanes: int, num_features: int) -> Traces:
    """Zero traces for ``lanes`` lanes, no previous afterstate."""
    return Traces(
        trace=jax.tree.map(lambda w: jnp.zeros((lanes, *w.shape), w.dtype), net),
        prev_features=jnp.zeros((lanes, num_features), jnp.float32),
        prev_sign=jnp.ones((lanes,), jnp.float32),
        has_prev=jnp.zeros((lanes,), jnp.bool_),
    )


def _fixed_side(net: ValueNet, features: jax.Array, sign: jax.Array) -> jax.Array:
    """float32[]: the probability that player 0 wins (``sign`` +1: the viewer is player 0)."""
    v = net(features)
    return jnp.where(sign > 0, v, 1.0 - v)


def td_lambda_step(
    net: ValueNet,
    opt_state: Any,
    optimizer: optax.GradientTransformation,
    lam: float,
    traces: Traces,
    features: jax.Array,
    sign: jax.Array,
    done: jax.Array,
    reward: jax.Array,
    active: jax.Array | None = None,
) -> tuple[ValueNet, Any, Traces, jax.Array]:
    """One TD(lambda) step on B lanes: each lane has just reached a new afterstate.

    Args:
        features: float32[B, F]: the new afterstates.
        sign: float32[B]: +1 where their viewer is player 0, -1 otherwise.
        done: bool[B]: the game ended with that afterstate (its value is ``reward``).
        reward: float32[B]: the final reward for player 0 (read where ``done``).
        active: bool[B] or None: lanes that moved this step (others keep their traces).

    Returns:
        ``(net, opt_state, traces, loss)``; ``loss`` is the mean squared TD error of the
        lanes that had a previous afterstate (a progress figure, not what is minimized).
    """
    lanes = features.shape[0]
    active = jnp.ones((lanes,), jnp.bool_) if active is None else active
    value_and_grad = jax.vmap(jax.value_and_grad(_fixed_side), in_axes=(None, 0, 0))
    v_new, grad_new = value_and_grad(net, features, sign)  # [B], tree of [B, ...]
    v_prev = jax.vmap(_fixed_side, in_axes=(None, 0, 0))(
        net, traces.prev_features, traces.prev_sign
    )
    target = jnp.where(done, reward, v_new)
    learn = active & traces.has_prev
    delta = jnp.where(learn, target - v_prev, 0.0)  # [B]
    count = jnp.maximum(jnp.sum(learn), 1)

    def direction(e):  # -mean_b(delta_b e_b): optax descends along it
        return -jnp.tensordot(delta, e, axes=(0, 0)) / count

    updates, opt_state = optimizer.update(jax.tree.map(direction, traces.trace), opt_state, net)
    net = optax.apply_updates(net, updates)

    def next_trace(e, g):
        keep = active & ~done
        shape = (lanes,) + (1,) * (e.ndim - 1)
        grown = lam * e + g
        return jnp.where(keep.reshape(shape), grown, jnp.where(active.reshape(shape), 0.0, e))

    traces = Traces(
        trace=jax.tree.map(next_trace, traces.trace, grad_new),
        prev_features=jnp.where(active[:, None], features, traces.prev_features),
        prev_sign=jnp.where(active, sign, traces.prev_sign),
        has_prev=jnp.where(active, ~done, traces.has_prev),
    )
    loss = jnp.sum(delta**2) / count
    return net, opt_state, traces, loss
