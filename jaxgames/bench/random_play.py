"""Positions from seeded random play, the same on every backend: the inputs of ``jaxgames
bench`` and of the benchmark scripts that want positions of any game.

Lane ``i`` plays ``k_i`` uniformly random moves from the start (``k_i`` uniform in
``0..max_plies``), never stepping into a finished game. The same seed gives the same
positions on every backend, and the same uniforms drive pgx's random play
(:func:`jaxgames.bench.peers.pgx_random_play`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game
from jaxgames.kernels import batched, random_actions, stack, take, to_numpy


def play_keys(seed: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(ply counts, move uniforms, peer step keys): shared by jaxgames' and pgx's play."""
    k_len, k_play, k_step = jax.random.split(jax.random.key(seed), 3)
    return k_len, k_play, k_step


@functools.partial(jax.jit, static_argnums=(0, 1, 3, 4))
def _random_play(game: Game, n: int, seed: int, max_plies: int, to_chance: bool) -> Any:
    """``n`` positions: lane ``i`` plays ``k_i ~ U{0..max_plies}`` random moves from the start.

    A move that would finish the game is not made (the lane keeps its position), so no
    position is terminal. With ``to_chance`` a lane goes on after ``k_i`` moves until it
    stands at a chance node (bounded by ``max_plies`` more moves).

    Returns:
        A batch ``[n]`` of states.
    """
    k_len, k_play, _ = play_keys(seed)
    targets = jax.random.randint(k_len, (n,), 0, max_plies + 1)  # [n]
    states = batched(game).init(n)
    player_of, terminal_of = jax.vmap(game.player), jax.vmap(game.terminal)

    def body(t: jax.Array, states: Any) -> Any:
        uniform = jax.random.uniform(jax.random.fold_in(k_play, t), (n,))  # [n]
        stepped = jax.vmap(game.step)(states, random_actions(game, states, uniform))
        want = t < targets
        if to_chance:
            want = want | (player_of(states) != CHANCE)
        go = want & ~terminal_of(stepped)  # [n]
        return jax.tree.map(lambda new, old: where_lanes(go, new, old), stepped, states)

    plies = 2 * max_plies if to_chance else max_plies
    return jax.lax.fori_loop(0, plies, body, states)


def where_lanes(cond: jax.Array, new: jax.Array, old: jax.Array) -> jax.Array:
    """``where`` of a per-lane condition ``bool[B]`` over arrays ``[B, ...]``."""
    return jnp.where(cond.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)


def max_plies(game: Game) -> int:
    """How deep random play goes to make positions: half a game, at most 40 moves."""
    return max(1, min(game.max_game_length // 2, 40))


def positions(game: Game, n: int, seed: int, chance: bool = False) -> Any:
    """``n`` positions from seeded random play, as numpy arrays (see :func:`_random_play`).

    Args:
        chance: only chance nodes (for ``expectation``): lanes that did not reach one are
            replaced by copies of those that did.

    Returns:
        A batch ``[n]`` of states (numpy).

    Raises:
        RuntimeError: ``chance`` and no lane reached a chance node.
    """
    with jax.default_device(jax.devices("cpu")[0]):  # the same positions for every backend
        states = to_numpy(_random_play(game, n, seed, max_plies(game), chance))
        if not chance:
            return states
        f = batched(game)
        at_chance = np.asarray((f.player(states) == CHANCE) & ~f.terminal(states))  # [n]
    index = np.flatnonzero(at_chance)
    if index.size == 0:
        raise RuntimeError(f"random play reached no chance node of {game.name}")
    return to_numpy(take(states, np.resize(index, n)))


def position_texts(game: Game, n: int, seed: int) -> list[str]:
    """:func:`positions` as text, each checked to parse back to the same state.

    Raises:
        RuntimeError: a position does not survive ``format`` and ``parse``.
    """
    states = positions(game, n, seed)
    texts = [game.format(jax.tree.map(lambda x, i=i: x[i], states)) for i in range(n)]
    back = to_numpy(stack([game.parse(t) for t in texts]))
    for a, b in zip(jax.tree.leaves(back), jax.tree.leaves(states), strict=True):
        if not np.array_equal(np.asarray(a), np.asarray(b)):
            raise RuntimeError(f"{game.name}: a random-play position does not survive format/parse")
    return texts
