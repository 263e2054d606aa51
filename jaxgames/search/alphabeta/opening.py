"""Opening a frame: a node's moves listed once, the ones to search picked and ordered, and
its window narrowed; and, per event, opening only the frames the lanes push.

Opening costs the game's move generation, ordering keys and, with quiescence or null
move, a static evaluation: the dearest part of an event for most games. In most events
few lanes push a child (most children are leaves, fringe nodes or table hits), and a
vmapped opening costs about the lanes it is given, so :func:`open_pushed` opens the pushed
frames in a compact batch when few lanes push one, rather than for every lane.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.game import Game
from jaxgames.kernels import leaf_values
from jaxgames.search.alphabeta import frames, moves
from jaxgames.search.alphabeta.frames import Frame, Lane
from jaxgames.search.alphabeta.options import Config
from jaxgames.search.lanes import on_picked

NEG_INF = -jnp.inf
COMPACT_FROM = 8
"""Lanes (per device) from which the frames pushed in an event are opened in a compact
batch of a quarter of the lanes whenever that many or fewer push one."""


class Memory(NamedTuple):
    """What opening a frame reads of its lane, per lane."""

    killers: jax.Array  # int32[2]: the killer moves at the frame's ply
    history: jax.Array  # float32[2, A] (or [2, 0]): the lane's history table
    pv_move: jax.Array  # int32: the previous principal variation's move at the frame's ply


def memory_at(lane: Lane, sp: jax.Array) -> Memory:
    """The :class:`Memory` a frame at stack index ``sp`` of ``lane`` reads."""
    return Memory(lane.killers[sp], lane.history, lane.prev_pv[sp])


class Opening(NamedTuple):
    """A node to open, per lane."""

    sp: jax.Array  # int32: its stack index
    state: Any
    alpha: jax.Array  # float32: its window, from its mover's side
    beta: jax.Array  # float32
    on_pv: jax.Array  # bool: the path to it follows the previous principal variation
    remaining: jax.Array  # int32: plies left below it (<= 0: quiescence)
    tt_move: jax.Array  # int32: the table's move for it (-1: none)
    after_null: jax.Array  # bool: it was reached by a null move
    ext: jax.Array  # int32: extensions on the path to it


def open_frame(game: Game, config: Config, o: Opening, memory: Memory, helper: Any = 0) -> Frame:
    """The frame of ``o.state`` opened with the window ``(o.alpha, o.beta)``."""
    mover = game.player(o.state)
    listed, legal = moves.generate(game, config, o.state)
    in_q = o.remaining <= 0  # a quiescence frame: noisy moves only, stand pat at EVAL
    best = jnp.float32(NEG_INF)
    beta = o.beta
    if config.quiescence or config.null_move:
        static = leaf_values(game, o.state)[jnp.clip(mover, 0, game.num_players - 1)]
    if config.quiescence:
        legal = jnp.where(in_q, legal & moves.noisy(game, config, o.state, listed), legal)
        best = jnp.where(in_q, static, NEG_INF)
    # a move that loses at once is seen to lose only with 2 plies left (the reply)
    searched = jnp.where(
        o.remaining >= 2, moves.not_losing(game, config, o.state, listed, legal), legal
    )
    null_pending = jnp.bool_(False)
    if config.null_move:
        # Null-move pruning (Beal 1989; Donninger 1993): not at the root or on the
        # previous PV, never twice in a row, only with R + 1 plies left, where the game
        # allows a pass (not in check, say), and where EVAL already reaches beta
        null_pending = (
            (o.sp > 0)
            & ~jnp.asarray(o.after_null)
            & ~o.on_pv
            & (o.remaining >= config.null_move + 1)
            & game.null_ok(o.state)
            & (static >= beta)
        )
    if config.bounds:
        # No value below the node lies outside (low, high): a move reaching `high` cuts
        # (beta <= high), and a window already outside the bounds needs no move at all.
        # Fail-soft values of a narrowed window stay valid for the caller's window.
        low, high = game.value_bounds(o.state)
        best = jnp.where(
            high <= o.alpha, high, jnp.where(low >= beta, jnp.maximum(best, low), best)
        )
        beta = jnp.minimum(beta, high)
    pv_move = jnp.where(o.on_pv, memory.pv_move, -1)
    keys = moves.keys(
        game,
        config,
        o.state,
        listed,
        searched,
        memory.killers,
        memory.history,
        pv_move,
        o.tt_move,
        in_q,
    )
    if not isinstance(helper, int) or helper:
        keys = _rotate(keys, helper)
    count = jnp.sum(searched, dtype=jnp.int32)
    if config.beam:
        count = jnp.where(in_q, count, jnp.minimum(count, config.beam))
    return frames.empty(config)._replace(
        mover=mover,
        alpha=jnp.maximum(o.alpha, best),
        beta=beta,
        alpha0=o.alpha,
        best=best,
        keys=keys,
        moves=listed,
        count=count,
        on_pv=o.on_pv,
        remaining=o.remaining,
        null_pending=null_pending,
        after_null=jnp.asarray(o.after_null),
        ext=jnp.asarray(o.ext, jnp.int32),
    )


def open_pushed(
    game: Game, config: Config, lanes: Lane, pushed: Opening, push: jax.Array
) -> jax.Array:
    """float32[L, R]: the packed frames of the lanes that ``push`` a child (zero rows
    elsewhere): in a compact batch of a quarter of the lanes when no more push one, for
    every lane at once when more do, and not at all when none does.

    With ``lookahead_depth``, every pushed frame is opened with the hint's order first, and
    those with that many plies left (below the horizon and before the game's end, as far
    as :meth:`~jaxgames.game.Game.plies_left` bounds it) again with the look-ahead's, in
    a batch of their own: they are few (most frames lie near the end), and the look-ahead
    plays out every move, so paying for it in every lane would cost most of the event."""
    width = push.shape[0]
    at = jnp.arange(width)
    inside = config._replace(history=False)  # added after the push: see add_history
    no_history = jnp.zeros((width, 2, 0), jnp.float32)
    memory = Memory(lanes.killers[at, pushed.sp], no_history, lanes.prev_pv[at, pushed.sp])
    if config.lookahead and config.lookahead_depth:
        left = pushed.remaining
        if game.max_game_length > 0:  # an exact endgame's depth is only a bound: use the game's
            left = jnp.minimum(left, jax.vmap(game.plies_left)(pushed.state))
        deep = push & (left >= config.lookahead_depth)
        near = _opened(game, inside._replace(lookahead=False), memory, pushed, push)
        return _opened(game, inside, memory, pushed, deep, near)
    return _opened(game, inside, memory, pushed, push)


def _opened(
    game: Game, config: Config, memory: Memory, pushed: Opening, which: jax.Array, base=None
) -> jax.Array:
    """``base`` (float32[L, R]) with the rows ``which`` replaced by the packed frames of
    ``pushed`` opened by ``config``: a compact batch of a quarter of the lanes when no more
    are asked for, every lane when more are, none when none is. Without ``base``, the other
    rows are zeros or anything (no one reads them)."""
    width = which.shape[0]
    keep = base is not None
    if base is None:
        base = jnp.zeros((width, frames.row_width(config)), jnp.float32)

    def open_packed(memory: Memory, o: Opening) -> jax.Array:
        return frames.pack(open_frame(game, config, o, memory))

    def compact(which):
        return on_picked(jax.vmap(open_packed), which, width // 4, (memory, pushed), base)

    def every(which):
        rows = jax.vmap(open_packed)(memory, pushed)
        return jnp.where(which[:, None], rows, base) if keep else rows

    count = jnp.sum(which, dtype=jnp.int32)
    if width < COMPACT_FROM:
        return jax.lax.cond(count > 0, every, lambda _: base, which)
    branch = jnp.where(count == 0, 0, jnp.where(count <= width // 4, 1, 2))
    return jax.lax.switch(branch, [lambda _: base, compact, every], which)


def add_history(config: Config, lanes: Lane, push: jax.Array) -> Lane:
    """``lanes`` with the history bonus added to the keys of the frames that ``push``
    pushed (now current), as :func:`moves.keys` adds it last, after the event.

    A history table read while opening, between the event's two writes of it, made XLA
    copy every lane's table twice per event. After the event it reads the same values: a
    lane pushes a frame or reports a value to its frame in an event, never both, and only
    a report changes its table."""
    at = jnp.arange(push.shape[0])
    rows = lanes.stack.rows[at, lanes.sp]  # [L, R]
    opened = jax.vmap(frames.unpack, in_axes=(0, None))(rows, config)
    acts = jax.vmap(frames.slots_of, in_axes=(0, None))(opened, config)  # [L, M]
    mover = jnp.clip(opened.mover, 0, 1)
    bonus = lanes.history[at[:, None], mover[:, None], jnp.maximum(acts, 0)]  # [L, M]
    add = opened.keys > NEG_INF
    if config.beam:  # beam keys are the look-ahead alone outside quiescence
        add = add & (opened.remaining[:, None] <= 0)
    keys = jnp.where(add, opened.keys + bonus, opened.keys)
    rows = jax.vmap(frames.write)(
        lanes.stack.rows, lanes.sp, jax.vmap(frames.pack)(opened._replace(keys=keys)), push
    )
    return lanes._replace(stack=lanes.stack._replace(rows=rows))


def _rotate(keys: jax.Array, helper) -> jax.Array:
    """A helper's root order: the ``helper``-th best move first (the rest as they were),
    so that helpers on one root start from different moves."""
    count = jnp.sum(keys > NEG_INF)
    rank = jnp.argsort(-keys)  # slots, best first
    first = rank[jnp.asarray(helper) % jnp.maximum(count, 1)]
    return jnp.where(jnp.arange(keys.shape[0]) == first, jnp.maximum(keys.max(), 0.0) + 1e7, keys)


__all__ = ["Memory", "Opening", "add_history", "memory_at", "open_frame", "open_pushed"]
