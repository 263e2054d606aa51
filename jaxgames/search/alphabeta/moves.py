"""A node's moves: generated once into a compact list, each with an ordering key.

The list comes from the game's :class:`~jaxgames.capabilities.MoveLists` when it has one,
else from ``legal_mask`` (the first ``M`` legal actions); where every action slot is a
move (``M`` equals the action space, nothing listed), the slot's index is the move. The
keys, higher first: the previous principal variation's move and the table's move, then
moves the game's hint marks (positive scores: captures, wins, blocks), killers, history,
then the rest by the hint; or, with ``lookahead``, after the first two by the game's
scores of the moves played out; ``-inf`` for no move.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.capabilities import (
    ListOrdering,
    MoveLists,
    MoveOrdering,
    NoisyMoves,
)
from jaxgames.game import Game
from jaxgames.kernels import leaf_values
from jaxgames.search.alphabeta.options import Config

PV_BONUS = 4e6
HINT_BONUS = 2e6
KILLER_BONUS = 1e6
HISTORY_CAP = 5e5


def generate(game: Game, config: Config, state) -> tuple[jax.Array, jax.Array]:
    """``(moves, legal)``: int32[M] (the actions, or empty where the slot is the move) and
    bool[M] (which slots hold a legal move)."""
    if not config.listed:
        return jnp.zeros((0,), jnp.int32), game.legal_mask(state)
    if isinstance(game, MoveLists):
        moves = game.legal_moves(state).astype(jnp.int32)
    else:
        (moves,) = jnp.nonzero(game.legal_mask(state), size=config.max_moves, fill_value=-1)
        moves = moves.astype(jnp.int32)
    return moves, moves >= 0


def actions(config: Config, moves: jax.Array) -> jax.Array:
    """int32[M]: the action of every slot."""
    return moves if config.listed else jnp.arange(config.max_moves, dtype=jnp.int32)


def hint_scores(game: Game, config: Config, state, moves: jax.Array) -> jax.Array:
    """The game's ordering scores of the slots (zeros without a hint)."""
    if isinstance(game, ListOrdering) and config.listed:
        return game.move_scores(state, moves).astype(jnp.float32)
    if isinstance(game, MoveOrdering):
        scores = game.move_order_scores(state).astype(jnp.float32)
        return scores[jnp.maximum(moves, 0)] if config.listed else scores
    return jnp.zeros((config.max_moves,), jnp.float32)


def noisy(game: Game, config: Config, state, moves: jax.Array) -> jax.Array:
    """bool[M]: the slots whose move is noisy (quiescence searches only those)."""
    if not isinstance(game, NoisyMoves):
        return jnp.zeros((config.max_moves,), jnp.bool_)
    return game.noisy_moves(state, actions(config, moves))


def not_losing(game: Game, config: Config, state, moves, legal) -> jax.Array:
    """bool[M]: the legal slots to search: those the game does not mark as losing at once,
    or all of them where it marks every one."""
    if not config.losing:
        return legal
    losing = game.losing_moves(state)[jnp.maximum(actions(config, moves), 0)]
    keep = legal & ~losing
    return jnp.where(jnp.any(keep), keep, legal)


def keys(
    game: Game,
    config: Config,
    state,
    moves: jax.Array,
    searched: jax.Array,
    killers: jax.Array,
    history: jax.Array,
    pv_move: jax.Array,
    tt_move: jax.Array,
    in_quiescence: jax.Array,
) -> jax.Array:
    """float32[M]: ordering keys of the slots to search (``searched``), ``-inf`` elsewhere.

    Args:
        killers: int32[2], the frame's killer moves.
        history: float32[2, A] (or [2, 0]), the lane's history table.
        pv_move, tt_move: int32, moves searched first (-1: none).
    """
    acts = actions(config, moves)
    out = jnp.zeros((config.max_moves,), jnp.float32)
    if config.lookahead:  # the moves played out order them alone (fastest first)
        scores = game.lookahead_scores(state).astype(jnp.float32)
        out = scores[jnp.maximum(moves, 0)] if config.listed else scores
    elif config.hint:
        hint = hint_scores(game, config, state, moves)
        out = out + jnp.where(hint > 0, HINT_BONUS, 0.0) + hint
    if config.killers:
        out = out + jnp.where(acts == killers[0], KILLER_BONUS, 0.0)
        out = out + jnp.where(acts == killers[1], KILLER_BONUS / 2, 0.0)
    out = out + jnp.where(acts == pv_move, PV_BONUS, 0.0)
    out = out + jnp.where(acts == tt_move, PV_BONUS, 0.0)
    if config.history:  # last: a pushed frame gets it after the event (opening.add_history)
        mover = jnp.clip(game.player(state), 0, 1)
        out = out + history[mover][jnp.maximum(acts, 0)]
    if config.beam:  # rank by the one-ply look-ahead alone and keep the best `beam` moves
        mover = jnp.clip(game.player(state), 0, game.num_players - 1)
        look = jax.vmap(lambda a: leaf_values(game, game.step(state, a))[mover])(
            jnp.maximum(acts, 0)
        )
        out = jnp.where(in_quiescence, out, look)
    return jnp.where(searched, out, -jnp.inf)
