"""Perfect-information Monte Carlo ("averaging over clairvoyance", GIB's method in bridge).

For each root: draw ``N`` worlds consistent with what the player to move has seen
(:func:`~jaxgames.search.belief.sample_world`), play each legal action in each world, solve
every resulting position exactly as if everything were seen, and choose the action with the
best value averaged over the worlds. All roots' worlds and actions go to ONE batched
:func:`~jaxgames.search.alphabeta.alphabeta_batch` call (``B * N * A`` positions).

The positions are solved in the game's :class:`~jaxgames.capabilities.PerfectInformationView`
where it has one (the true board as a plain game), else in the game itself (its search then
sees the true state, which is clairvoyance too).

Its known flaw: each world is solved as if the player will know the world later, so an
action that keeps options open only for a clairvoyant player looks best, and an action that
gathers the information needed later looks worthless (strategy fusion; see the tests).
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import PerfectInformationView
from jaxgames.game import Game, GameError
from jaxgames.search.alphabeta import alphabeta_batch
from jaxgames.search.belief import observation_history, sample_world


class PIMCResult(NamedTuple):
    """What PIMC chose at each of ``B`` roots (``A`` actions)."""

    action: np.ndarray  # int32[B]: the action with the best average
    values: np.ndarray  # float32[B, A]: each action's value averaged over worlds, for the
    # mover (NaN where illegal)
    stats: dict[str, Any]


@functools.partial(jax.jit, static_argnums=0)
def _histories(game: Game, states: Any):
    movers = jax.vmap(game.player)(states)
    return movers, jax.vmap(functools.partial(observation_history, game))(states, movers)


@functools.partial(jax.jit, static_argnums=0)
def _children(game: Game, worlds: Any) -> tuple[Any, jax.Array, jax.Array]:
    """Every action in every world: states [B, N, A], their terminal flags and utilities."""
    actions = jnp.arange(game.num_actions)
    step_all = jax.vmap(lambda s: jax.vmap(lambda a: game.step(s, a))(actions))
    children = jax.vmap(step_all)(worlds)  # [B, N, A]
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[3:]), children)
    done = jax.vmap(game.terminal)(flat)
    utility = jax.vmap(game.utility)(flat)
    if isinstance(game, PerfectInformationView):
        flat = jax.vmap(game.perfect_information_state)(flat)
    return flat, done, utility


def pimc(
    game: Game,
    states: Any,
    worlds: int = 16,
    key: jax.Array | int = 0,
    depth: int | None = None,
) -> PIMCResult:
    """PIMC at each of a batch ``[B]`` of decision states (each for the player to move).

    Args:
        game: a two-player zero-sum game with
            :class:`~jaxgames.capabilities.ImperfectInformation` (worlds are drawn by
            :func:`~jaxgames.search.belief.sample_world`: exact or by rejection).
        states: the true states ``[B]``; only what the mover has seen is read from them.
        worlds: ``N``, worlds per root.
        key: a JAX key or an int seed.
        depth: plies of each exact search; None: to the end of the game.

    Returns:
        A :class:`PIMCResult`.
    """
    if game.num_players != 2 or not game.zero_sum:
        raise GameError(f"pimc: {game.name} is not a two-player zero-sum game")
    started = time.perf_counter()
    key = jax.random.key(key) if isinstance(key, int) else key
    movers, history = _histories(game, states)
    drawn = sample_world(game, history, key, worlds)  # [B, N]
    roots, done, utility = _children(game, drawn)
    solver = game.perfect_information_game if isinstance(game, PerfectInformationView) else game
    depth = solver.max_game_length if depth is None else depth
    solved = alphabeta_batch(solver, roots, depth)
    b, a = int(movers.shape[0]), game.num_actions
    value = np.where(np.asarray(done)[:, None], np.asarray(utility), solved.value)  # [BNA, 2]
    value = value.reshape(b, worlds, a, 2)
    mover = np.asarray(movers)
    mine = value[np.arange(b), :, :, mover]  # [B, N, A]
    legal = np.asarray(jax.vmap(game.legal_mask)(states))  # [B, A]: the same in every world
    average = np.where(legal, mine.mean(axis=1), np.nan).astype(np.float32)
    action = np.where(legal.any(1), np.argmax(np.where(legal, average, -np.inf), axis=1), -1)
    stats = {
        "worlds": worlds,
        "positions": int(b * worlds * a),
        "nodes": int(solved.stats.get("nodes", 0)),
        "time_s": time.perf_counter() - started,
    }
    return PIMCResult(action.astype(np.int32), average, stats)


__all__ = ["PIMCResult", "pimc"]
