"""mctx's searches on any jaxgames game: ``mctx.muzero_policy`` or
``mctx.gumbel_muzero_policy`` with the game's own rules as the model (mctx is an optional
dependency: ``pip install mctx``).

The embedding is the game state; the recurrent function steps it, rewards the mover with
its utility when the game ends (a finished game is absorbing: discount 0), and passes
``-1`` as discount where the mover changes (values are the mover's, as mctx expects for
two-player games). Leaves are valued by a
:class:`~jaxgames.search.mcts.policies.LeafEvaluator` (default: one random rollout,
uniform priors); its logits become mctx's prior logits, with illegal moves masked.
Deterministic games of one or two players (mctx has no chance nodes of its own).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxgames.game import Game, GameError
from jaxgames.kernels import batch_size
from jaxgames.search.mcts.policies import LeafEvaluator, Rollouts

POLICIES = ("muzero", "gumbel_muzero")
MASKED = -1e9  # prior logit of an illegal move


def _mctx() -> Any:
    try:
        import mctx
    except ImportError:
        raise GameError("mctx_policy: mctx is not installed (pip install mctx)") from None
    return mctx


def _masked(game: Game, states: Any, logits: jax.Array) -> jax.Array:
    legal = jax.vmap(game.legal_mask)(states)
    return jnp.where(legal, logits, MASKED)


def _mover_value(game: Game, states: Any, values: jax.Array) -> jax.Array:
    mover = jnp.clip(jax.vmap(game.player)(states), 0, game.num_players - 1)
    return jnp.take_along_axis(values, mover[:, None], axis=1)[:, 0]


def mctx_policy(
    game: Game,
    states: Any,
    key: jax.Array,
    num_simulations: int,
    evaluator: LeafEvaluator | None = None,
    policy: str = "gumbel_muzero",
    **options: Any,
) -> Any:
    """Run mctx's ``policy`` (``"muzero"`` or ``"gumbel_muzero"``) from each of ``B``
    roots; ``options`` go to the mctx function (``max_depth``, ``dirichlet_fraction``,
    ``max_num_considered_actions``, ...). Returns mctx's ``PolicyOutput`` (``action``
    [B], ``action_weights`` [B, A], ``search_tree``). Trace it under ``jax.jit`` for speed
    (the game and the evaluator static)."""
    mctx = _mctx()
    if policy not in POLICIES:
        raise GameError(f"mctx_policy: policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if game.num_chance_outcomes or game.num_players > 2:
        raise GameError(
            f"mctx_policy: needs a deterministic game of one or two players; {game.name} has "
            f"{game.num_players} players and {game.num_chance_outcomes} chance outcomes"
        )
    evaluate = evaluator if evaluator is not None else Rollouts()
    b = batch_size(states)
    rows = jnp.arange(b)

    def recurrent_fn(params, key, action, state):
        del params
        mover = jax.vmap(game.player)(state)
        nxt = jax.vmap(game.step)(state, action)
        done = jax.vmap(game.terminal)(nxt)
        utility = jax.vmap(game.utility)(nxt)
        evaluation = evaluate(game, nxt, key)
        same = jax.vmap(game.player)(nxt) == mover
        out = mctx.RecurrentFnOutput(
            reward=jnp.where(done, utility[rows, jnp.clip(mover, 0, game.num_players - 1)], 0.0),
            discount=jnp.where(done, 0.0, jnp.where(same, 1.0, -1.0)),
            prior_logits=_masked(game, nxt, evaluation.logits),
            value=jnp.where(done, 0.0, _mover_value(game, nxt, evaluation.value)),
        )
        return out, nxt

    key, root_key = jax.random.split(key)
    evaluation = evaluate(game, states, root_key)
    root = mctx.RootFnOutput(
        prior_logits=_masked(game, states, evaluation.logits),
        value=_mover_value(game, states, evaluation.value),
        embedding=states,
    )
    invalid = ~jax.vmap(game.legal_mask)(states)
    search = mctx.gumbel_muzero_policy if policy == "gumbel_muzero" else mctx.muzero_policy
    return search(
        None,
        key,
        root,
        recurrent_fn,
        num_simulations,
        invalid_actions=invalid,
        **options,
    )


__all__ = ["POLICIES", "mctx_policy"]
