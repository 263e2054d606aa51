"""Monte Carlo tree search as the peers run it: OpenSpiel's C++ ``MCTSBot`` with random
rollouts, and mctx's ``muzero_policy`` on a pgx environment with one random rollout per
leaf (what a JAX user assembles today). Each returns its simulations per second, or None
when the library is not installed."""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp

OPENSPIEL_NAMES = {
    "connect4": "connect_four",
    "othello": "othello",
    "chess": "chess",
    "backgammon": "backgammon",
    "tictactoe": "tic_tac_toe",
}
PGX_NAMES = {"connect4": "connect_four", "othello": "othello", "tictactoe": "tic_tac_toe"}


def openspiel_mcts(
    name: str, simulations: int, uct_c: float, min_seconds: float = 2.0, seed: int = 0
) -> dict[str, Any] | None:
    """``MCTSBot.step`` from the start position, one thread, repeated for ``min_seconds``:
    simulations per second (one random rollout per leaf)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, uct_c, simulations, 1000, False, seed, False)
    state = game.new_initial_state()
    while state.is_chance_node():  # backgammon opens with a roll
        state.apply_action(state.chance_outcomes()[0][0])
    searches, started = 0, time.perf_counter()
    while time.perf_counter() - started < min_seconds:
        bot.step(state)
        searches += 1
    seconds = time.perf_counter() - started
    return {
        "impl": "openspiel MCTSBot (C++), RandomRolloutEvaluator(1)",
        "uct_c": uct_c,
        "simulations": simulations,
        "searches": searches,
        "seconds": seconds,
        "simulations_per_s": simulations * searches / seconds,
    }


def _pgx_policy(name: str, batch: int, simulations: int):
    """A jitted ``key -> policy output`` running mctx's ``muzero_policy`` on ``batch``
    copies of pgx's start, each leaf valued by one random rollout."""
    import mctx
    import pgx

    env = pgx.make(PGX_NAMES[name])
    step = jax.vmap(env.step)
    rows = jnp.arange(batch)

    def rollout(state, key):
        """The return of one random game from ``state`` for its player to move."""
        player = state.current_player

        def body(carry):
            s, total, key = carry
            key, pick, keys = jax.random.split(key, 3)
            logits = jnp.where(s.legal_action_mask, 0.0, -1e9)
            action = jax.random.categorical(pick, logits)
            s = step(s, action, jax.random.split(keys, batch))
            return s, total + s.rewards[rows, player], key

        def more(carry):
            return ~jnp.all(carry[0].terminated | carry[0].truncated)

        start = (state, jnp.zeros((batch,), jnp.float32), key)
        return jax.lax.while_loop(more, body, start)[1]

    def recurrent_fn(params, key, action, state):
        player = state.current_player
        nxt = step(state, action, jax.random.split(key, batch))
        value = jnp.where(nxt.terminated, 0.0, rollout(nxt, key))
        out = mctx.RecurrentFnOutput(
            reward=nxt.rewards[rows, player],
            discount=jnp.where(nxt.terminated, 0.0, -1.0),
            prior_logits=jnp.where(nxt.legal_action_mask, 0.0, -1e9),
            value=value,
        )
        return out, nxt

    @jax.jit
    def policy(key):
        state = jax.vmap(env.init)(jax.random.split(key, batch))
        root = mctx.RootFnOutput(
            prior_logits=jnp.where(state.legal_action_mask, 0.0, -1e9),
            value=rollout(state, key),
            embedding=state,
        )
        return mctx.muzero_policy(
            None,
            key,
            root,
            recurrent_fn,
            simulations,
            invalid_actions=~state.legal_action_mask,
        )

    return policy


def mctx_pgx(name: str, batch: int, simulations: int) -> dict[str, Any] | None:
    """mctx's ``muzero_policy`` on pgx's ``name``: ``batch`` trees of ``simulations``, one
    random rollout per leaf; simulations per second of the second call."""
    if name not in PGX_NAMES:
        return None
    try:
        policy = _pgx_policy(name, batch, simulations)
    except ImportError:
        return None
    key = jax.random.key(0)
    started = time.perf_counter()
    jax.block_until_ready(policy(key))
    first = time.perf_counter() - started
    started = time.perf_counter()
    jax.block_until_ready(policy(jax.random.key(1)))
    seconds = time.perf_counter() - started
    return {
        "impl": "mctx muzero_policy on pgx, one random rollout per leaf",
        "batch": batch,
        "simulations": simulations,
        "first_call_s": first,
        "seconds": seconds,
        "compile_s": first - seconds,
        "simulations_per_s": batch * simulations / seconds,
    }


def mctx_adapter(name: str, batch: int, simulations: int, policy: str) -> dict[str, Any] | None:
    """mctx's ``policy`` (``"muzero"`` or ``"gumbel_muzero"``) through this library's
    adapter on its own game ``name``: ``batch`` trees from the start, one random rollout per
    leaf and uniform priors (the same leaf evaluator as ``mcts_batch``'s default), jitted;
    simulations per second of the second call (one device: the adapter does not shard)."""
    try:
        import mctx  # noqa: F401
    except ImportError:
        return None
    import jaxgames
    from jaxgames.kernels import stack
    from jaxgames.search.mcts import Rollouts
    from jaxgames.search.mcts.mctx_adapter import mctx_policy

    game = jaxgames.make(name)
    roots = stack([game.init()] * batch)
    search = jax.jit(
        lambda states, key: mctx_policy(game, states, key, simulations, Rollouts(), policy)
    )
    times = []
    for seed in (0, 1):
        started = time.perf_counter()
        jax.block_until_ready(search(roots, jax.random.key(seed)))
        times.append(time.perf_counter() - started)
    return {
        "impl": f"mctx {policy}_policy through jaxgames' adapter, Rollouts(1), uniform priors",
        "batch": batch,
        "simulations": simulations,
        "first_call_s": times[0],
        "seconds": times[1],
        "compile_s": times[0] - times[1],
        "simulations_per_s": batch * simulations / times[1],
    }


__all__ = ["OPENSPIEL_NAMES", "PGX_NAMES", "mctx_adapter", "mctx_pgx", "openspiel_mcts"]
