"""Frontier expansion: N states -> their children, compacted to the legal (state, action) pairs."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels.states import batch_size, check_batch, concat, pad_to, take

from jaxgames.game import CHANCE, Game


class Frontier(NamedTuple):
    """Children of a batch of parents, legal pairs first.

    Only the first ``count`` entries are real; the rest are padding (parent 0, action 0).
    """

    children: Any  # states [N * W]
    parent: jax.Array  # int32[N * W]: index of the parent in the input batch
    action: jax.Array  # int32[N * W]: action (or chance outcome) that led to the child
    prob: jax.Array  # float32[N * W]: P(outcome) below a chance node, 1 below a decision
    count: jax.Array  # int32[]: number of real children


def branch_width(game: Game) -> int:
    """Size of the per-node branching axis: actions and chance outcomes share it."""
    return max(game.num_actions, game.num_chance_outcomes)


def branch_weights(game: Game, state: Any) -> tuple[jax.Array, jax.Array]:
    """Which branches of one state exist, and their probabilities.

    Returns:
        (mask bool[W], prob float32[W]): at a decision node the legal actions with weight 1;
        at a chance node the outcomes with non-zero probability and their probabilities.
    """
    width = branch_width(game)
    legal = jnp.zeros((width,), jnp.bool_).at[: game.num_actions].set(game.legal_mask(state))
    prob = legal.astype(jnp.float32)
    if game.num_chance_outcomes:
        chance = jnp.zeros((width,), jnp.float32)
        chance = chance.at[: game.num_chance_outcomes].set(game.chance_probs(state))
        at_chance = (game.player(state) == CHANCE) & ~game.terminal(state)
        prob = jnp.where(at_chance, chance, prob)
        legal = jnp.where(at_chance, chance > 0, legal)
    return legal, prob


@functools.partial(jax.jit, static_argnums=0)
def expand(game: Game, states: Any) -> Frontier:
    """Expand a batch of N states into all children (one jitted kernel).

    Args:
        game: the game (static).
        states: a batch ``[N]`` of states.

    Returns:
        A :class:`Frontier` of capacity ``N * W`` (``W = max(num_actions, K)``) whose first
        ``count`` entries are the children in (parent, action) order.
    """
    mask, prob = jax.vmap(functools.partial(branch_weights, game))(states)  # [N, W]
    n, width = mask.shape
    flat = mask.reshape(-1)  # [N * W]
    (index,) = jnp.nonzero(flat, size=n * width, fill_value=0)  # [N * W]
    parent = (index // width).astype(jnp.int32)
    action = (index % width).astype(jnp.int32)
    parents = take(states, parent)
    children = jax.vmap(game.step)(parents, action)
    return Frontier(
        children=children,
        parent=parent,
        action=action,
        prob=prob.reshape(-1)[index],
        count=flat.sum(dtype=jnp.int32),
    )


@functools.partial(jax.jit, static_argnums=0)
def _weights(game: Game, states: Any) -> tuple[jax.Array, jax.Array]:
    return jax.vmap(functools.partial(branch_weights, game))(states)  # [N, W] each


@functools.partial(jax.jit, static_argnums=0)
def _step_pairs(game: Game, states: Any, parent: jax.Array, action: jax.Array) -> Any:
    return jax.vmap(game.step)(take(states, parent), action)


SPARSE_WIDTH = 64
"""Above this branching width :func:`expand_all` steps only the legal (parent, action) pairs."""


def expand_all(game: Game, states: Any, chunk: int = 2048, sparse: bool | None = None) -> Frontier:
    """Expand any number of states on the host side, ``chunk`` parents per kernel call.

    Every call is padded to ``chunk`` parents so the kernel compiles once.

    Args:
        sparse: step only the legal (parent, action) pairs, found from the legal masks on
            the host, in padded chunks of ``chunk`` children; the fused :func:`expand` steps
            all ``N * W`` pairs, which wastes the work of the illegal ones when the action
            space is wide and sparse (one action per whole turn, or per from-to square
            pair). Default: sparse when the branching width exceeds :data:`SPARSE_WIDTH`.

    Returns:
        A :class:`Frontier` of numpy arrays with exactly ``count`` entries.
    """
    if sparse is None:
        sparse = branch_width(game) > SPARSE_WIDTH
    n = check_batch(game, states, "expand_all")
    pieces, parents, actions, probs = [], [], [], []
    for start in range(0, n, chunk):
        part = take(states, slice(start, start + chunk))
        size = batch_size(part)
        padded = pad_to(part, chunk)
        if sparse:
            mask, prob = (np.asarray(x)[:size] for x in _weights(game, padded))
            parent, action = np.nonzero(mask)
            for lo in range(0, parent.size, chunk):
                p, a = parent[lo : lo + chunk], action[lo : lo + chunk]
                m = p.size
                fill = chunk - m
                kids = _step_pairs(
                    game, padded, np.pad(p, (0, fill)).astype(np.int32), np.pad(a, (0, fill))
                )
                pieces.append(take(jax.tree.map(np.asarray, kids), slice(0, m)))
                parents.append(p + start)
                actions.append(a)
                probs.append(prob[p, a])
            continue
        front = expand(game, padded)
        parent = np.asarray(front.parent)
        count = int(front.count)
        real = parent[:count] < size  # drop children of padding parents
        keep = np.flatnonzero(real)
        pieces.append(take(jax.tree.map(np.asarray, front.children), keep))
        parents.append(parent[keep] + start)
        actions.append(np.asarray(front.action)[keep])
        probs.append(np.asarray(front.prob)[keep])
    if not pieces:
        empty = np.zeros((0,), np.int32)
        return Frontier(take(states, slice(0, 0)), empty, empty, np.zeros((0,), np.float32), 0)
    parent = np.concatenate(parents).astype(np.int32)
    return Frontier(
        children=concat(pieces),
        parent=parent,
        action=np.concatenate(actions).astype(np.int32),
        prob=np.concatenate(probs).astype(np.float32),
        count=int(parent.shape[0]),
    )
