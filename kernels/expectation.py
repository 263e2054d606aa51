"""Expectation over chance outcomes: the value of N chance nodes from all K outcomes at once.

At a chance node the seeds' EXPECTIMINIMAX takes the probability-weighted sum of its
outcomes' values::

    E(s) = sum_r P(r) * V(RESULT(s, r))

where ``V`` is any value function of a batch of states: the utility, EVAL
(:func:`jaxgames.kernels.leaf_values`, the default), a depth-limited search, or a rollout
estimate. Every (state, outcome) pair with ``P(r) > 0`` is stepped and valued in one batch;
outcomes of probability 0 are never valued, so they cost nothing in the result (not even a
NaN from a value function that cannot handle them) and, with the default compaction, no work.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels.batched import batched
from jaxgames.kernels.states import batch_size, check_batch, pad_to, repeat, take

from jaxgames.game import Game

ValueFn = Callable[[Any], Any]
"""A batch of states ``[M]`` -> values ``float32[M, num_players]``."""


@functools.partial(jax.jit, static_argnums=0)
def outcomes(game: Game, states: Any) -> tuple[Any, jax.Array]:
    """Every chance outcome of every state.

    Args:
        game: a game with chance nodes (static).
        states: a batch ``[N]`` of chance-node states.

    Returns:
        (children ``[N * K]`` in state-major order, probabilities ``float32[N, K]``).
    """
    k = game.num_chance_outcomes
    n = batch_size(states)
    probs = jax.vmap(game.chance_probs)(states)  # [N, K]
    outcome = jnp.tile(jnp.arange(k, dtype=jnp.int32), n)  # [N * K]
    children = jax.vmap(game.step)(repeat(states, k), outcome)
    return children, probs


def expectation(
    game: Game,
    states: Any,
    value_fn: ValueFn | None = None,
    *,
    compact: bool = True,
) -> np.ndarray:
    """Probability-weighted value of N chance nodes: ``sum_r P(r) * value_fn(RESULT(s, r))``.

    Args:
        game: a game with ``num_chance_outcomes > 0``.
        states: a batch ``[N]`` of states; each must be a chance node.
        value_fn: values of a batch of states ``[M] -> float32[M, P]``; default
            :func:`jaxgames.kernels.leaf_values` (UTILITY at terminals, EVAL elsewhere).
        compact: value only the children of non-zero probability (padded to a power of two,
            so ``value_fn`` compiles for few shapes). With ``False`` every child is valued
            and the impossible ones are masked out of the sum afterwards.

    Returns:
        float32[N, num_players].

    Raises:
        ValueError: the game has no chance outcomes, or probabilities are negative or do not
            sum to 1 (names the first bad state).
    """
    if not game.num_chance_outcomes:
        raise ValueError(f"expectation: {game.name} has no chance outcomes")
    value_fn = value_fn if value_fn is not None else batched(game).leaf_values
    n, k = check_batch(game, states, "expectation"), game.num_chance_outcomes
    children, probs = outcomes(game, states)
    probs = np.asarray(probs, np.float64)  # [N, K]
    bad = np.flatnonzero((probs < 0).any(axis=1) | (np.abs(probs.sum(axis=1) - 1) > 1e-5))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"expectation: state {i} is not a chance node (probabilities {probs[i].tolist()})"
        )
    possible = probs.ravel() > 0  # [N * K]
    if compact:
        index = np.flatnonzero(possible)
        size = max(1, 1 << (max(index.size, 1) - 1).bit_length())
        values = np.asarray(value_fn(pad_to(take(children, index), size)), np.float64)[
            : index.size
        ]  # [M, P]
        out = np.zeros((n, values.shape[1]))
        np.add.at(out, index // k, probs.ravel()[index, None] * values)
        return out.astype(np.float32)
    values = np.asarray(value_fn(children), np.float64)  # [N * K, P]
    values = np.where(possible[:, None], values, 0.0)  # impossible: no term, not even NaN
    return (probs[..., None] * values.reshape(n, k, -1)).sum(axis=1).astype(np.float32)
