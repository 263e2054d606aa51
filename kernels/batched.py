"""Batched, jitted versions of every protocol function of a game, built once and cached."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.capabilities import Hashing
from jaxgames.game import Game


def leaf_values(game: Game, state: Any) -> jax.Array:
    """Value of one state as a leaf of a search: ``UTILITY(s)`` if terminal, else ``EVAL(s)``.

    Returns:
        float32[num_players].
    """
    return jnp.where(game.terminal(state), game.utility(state), game.evaluate(state))


class Batched(NamedTuple):
    """The protocol lifted over a leading batch axis ``[B]`` and jitted.

    Each field takes a batch of states (and, for ``step``, ``actions: int32[B]``); ``init``
    takes the batch size ``n`` (static).
    """

    init: Callable  # n -> states [n]
    player: Callable  # [B] -> int32[B]
    legal_mask: Callable  # [B] -> bool[B, A]
    step: Callable  # [B], int32[B] -> [B]
    terminal: Callable  # [B] -> bool[B]
    utility: Callable  # [B] -> float32[B, P]
    evaluate: Callable  # [B] -> float32[B, P]
    chance_probs: Callable  # [B] -> float32[B, K]
    leaf_values: Callable  # [B] -> float32[B, P]: utility at terminals, EVAL elsewhere
    hash: Callable | None  # [B] -> uint32[B, 2]; None without the Hashing capability


@functools.cache
def batched(game: Game) -> Batched:
    """Build (once per game) the batched, jitted protocol functions of ``game``."""

    def init(n: int) -> Any:
        state = game.init()
        return jax.tree.map(lambda x: jnp.broadcast_to(x, (n, *jnp.shape(x))), state)

    return Batched(
        init=jax.jit(init, static_argnums=0),
        player=jax.jit(jax.vmap(game.player)),
        legal_mask=jax.jit(jax.vmap(game.legal_mask)),
        step=jax.jit(jax.vmap(game.step)),
        terminal=jax.jit(jax.vmap(game.terminal)),
        utility=jax.jit(jax.vmap(game.utility)),
        evaluate=jax.jit(jax.vmap(game.evaluate)),
        chance_probs=jax.jit(jax.vmap(game.chance_probs)),
        leaf_values=jax.jit(jax.vmap(functools.partial(leaf_values, game))),
        hash=jax.jit(jax.vmap(game.hash)) if isinstance(game, Hashing) else None,
    )
