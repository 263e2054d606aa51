"""Alpha-beta search, many roots at once on the device (the seeds' ALPHA-BETA-SEARCH).

In negamax form, every value is seen from the player to move at its node::

    ALPHA-BETA(s, d, alpha, beta):
        if TERMINAL-TEST(s): return UTILITY(s)[PLAYER(s)]
        if d == 0:           return EVAL(s)[PLAYER(s)]          (H-MINIMAX cutoff)
        best = -inf
        for a in ORDERED-ACTIONS(s):
            s' = RESULT(s, a)
            v  = ALPHA-BETA(s', d-1, -beta, -alpha) negated when PLAYER(s') != PLAYER(s)
            if v > best: best = v
            alpha = max(alpha, v)
            if alpha >= beta: break                                 (a cutoff)
        return best                                                 (fail-soft)

The recursion becomes an explicit stack per lane: each lane (one root) holds ``depth + q + 1``
frames (state, window, best value, ordered moves, next-move cursor, principal variation; all
but the state packed into one float32 row per frame), and
one ``lax.while_loop`` advances every lane by one event per iteration (expand the next child,
or return the finished frame to its parent). Lanes run in lockstep and stop on their own.
With ``last_ply``, a child one ply above the horizon needs no frame: all its moves are stepped
and evaluated at once, and its exact value, the best leaf value (UTILITY or EVAL) among its
children, is reported to its parent in the event that reached it.

Move ordering, each switchable so its effect can be measured: the game's own hint
(``move_order_scores``: captures first), iterative deepening (the previous depth's principal
variation searched first), killer moves per ply, the history heuristic, and the move stored
in the transposition table. The transposition table is shared by all lanes, keyed by the
game's Zobrist hash, and stores (value, bound type, remaining depth, best move); it only
answers for the same remaining depth, so the value is always exactly the depth-limited
minimax value. Replacement: a slot is taken over by any other position, but for the same
position a deeper result, or an exact one over a bound of the same depth, is kept.
Lock-less: an entry is stored as ``(key ^ data, data)`` and read back only if
the XOR checks, so a torn write by two lanes at once reads as a miss.

Where the game gives ``value_bounds(s)`` (no value below ``s`` outside ``[low, high]``), each
node's window is narrowed to them: ``beta = min(beta, high)``, so a move reaching ``high``
ends the node at once (for a game scored by the speed of a win, as in Pons's solver: nobody
wins sooner than with their next move), and a node whose window lies outside its bounds
returns ``high`` (or ``low``) without a move. A fail-soft value of the narrowed window is
still a valid bound for the caller's window; only "reaches ``high``" means "equals ``high``",
which the table records as exact.

The roots' window is the game's utility range unless the caller gives one (``window``):
then the value is fail-soft, exact inside the window and a bound at or beyond its edges, so
a null window asks one yes/no question (does the side to move win?) for fewer nodes.

Pruning never changes the value: the result equals :func:`jaxgames.search.minimax_batch`
(to float32 rounding: the same EVAL may be compiled into differently fused code).
Forward pruning (beam, ProbCut, null-move pruning) and singular extensions do, and are off
by default (see their options). A null move is one more kind of event of a frame: before its
first move, the frame opens a child for the position after the game's ``null_step``, with a
null window at beta and ``R`` plies fewer; only "the pass already reaches beta" is reported
back. Each frame keeps its own plies left, so reductions and extensions need no more frames
than extensions add.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec

from jaxgames import progress
from jaxgames.game import Game, GameError
from jaxgames.kernels import batch_size, leaf_values, local_mesh, shard_batch, stack, to_numpy
from jaxgames.search.horizon import needed_depth
from jaxgames.search.result import BatchSearchResult, SearchResult

NEG_INF = -jnp.inf
_PV_BONUS = 4e6  # ordering keys: PV / TT move, then hinted moves, killers, history
_HINT_BONUS = 2e6
_KILLER_BONUS = 1e6
_HISTORY_CAP = 5e5
_MIN_LANES_TO_SHRINK = 128  # narrower phases cost a compile each: only for wide searches
_UNROLL_ACTIONS = 16  # last_ply steps up to this many action slots one by one (see fringe)


class Options(NamedTuple):
    """Static options of one compiled search (hashable: part of the compilation key)."""

    max_depth: int  # stack frames for the main search
    quiescence: int  # extra frames for quiescence (0: off)
    hint: bool  # the game's move_order_scores
    killers: bool
    history: bool
    tt_bits: int  # log2 of the transposition table size (0: no table)
    beam: int  # 0: off; else keep the n best moves by a one-ply look-ahead
    probcut: tuple | None  # (depth, shallow_depth, a, b, sigma, t) or None
    null_move: int = 0  # 0: off; else the depth reduction R of the null-move search
    singular: tuple | None = None  # (min_depth, margin, max_extensions) or None
    bounds: bool = False  # narrow each window to the game's value_bounds
    last_ply: bool = False  # a node one ply above the horizon is settled in one event


class Frame(NamedTuple):
    """One frame of a lane's stack, unpacked. Values are from the frame's mover's side."""

    mover: jax.Array  # int32
    alpha: jax.Array  # float32
    beta: jax.Array  # float32
    alpha0: jax.Array  # float32: alpha on entry (bound type for the TT)
    best: jax.Array  # float32
    best_move: jax.Array  # int32
    last_move: jax.Array  # int32: the move most recently expanded
    count: jax.Array  # int32: moves to search
    cursor: jax.Array  # int32: next move to search
    on_pv: jax.Array  # bool: the path to this frame follows the previous PV
    remaining: jax.Array  # int32: plies left below the frame (<= 0: quiescence)
    null_pending: jax.Array  # bool: the frame's next event is its null-move probe
    after_null: jax.Array  # bool: the frame was reached by a null move
    second: jax.Array  # float32: best value among the moves that are not `best_move`
    second_move: jax.Array  # int32
    ext: jax.Array  # int32: singular extensions on the path to the frame
    extended: jax.Array  # int32: 0, 1 (the next child is searched a ply deeper), 2 (done)
    keys: jax.Array  # float32[A]: ordering keys of the moves not yet searched (-inf: none)
    pv: jax.Array  # int32[F]: the best line found from this frame (-1 padded)


_SCALARS = Frame._fields[:-2]
_INTS = frozenset(
    {"mover", "best_move", "last_move", "count", "cursor", "remaining", "second_move", "ext"}
    | {"extended"}
)
_BOOLS = frozenset(("on_pv", "null_pending", "after_null"))


def _pack(frame: Frame) -> jax.Array:
    """A frame as one float32 row ``[scalars | keys | pv]`` (ints below 2**24 are exact).

    One row per frame makes an event two reads and two writes of the stack, where a column
    per field made it dozens of small gathers, scatters and loop-carried copies, whose fixed
    cost dominated a narrow search on CPU.
    """
    scalars = jnp.stack([jnp.asarray(getattr(frame, k), jnp.float32) for k in _SCALARS])
    return jnp.concatenate([scalars, frame.keys.astype(jnp.float32), frame.pv.astype(jnp.float32)])


def _unpack(row: jax.Array, num_actions: int) -> Frame:
    """The inverse of :func:`_pack`."""
    n = len(_SCALARS)
    fields = {}
    for i, k in enumerate(_SCALARS):
        x = row[i]
        fields[k] = x.astype(jnp.int32) if k in _INTS else (x > 0.5) if k in _BOOLS else x
    keys = row[n : n + num_actions]
    pv = row[n + num_actions :].astype(jnp.int32)
    return Frame(**fields, keys=keys, pv=pv)


def _empty_frame(num_actions: int, frames_n: int) -> Frame:
    i0, f0, no = jnp.int32(0), jnp.float32(0.0), jnp.int32(-1)
    return Frame(
        mover=i0,
        alpha=f0,
        beta=f0,
        alpha0=f0,
        best=f0,
        best_move=no,
        last_move=no,
        count=i0,
        cursor=i0,
        on_pv=jnp.bool_(False),
        remaining=i0,
        null_pending=jnp.bool_(False),
        after_null=jnp.bool_(False),
        second=jnp.float32(-jnp.inf),
        second_move=no,
        ext=i0,
        extended=i0,
        keys=jnp.full((num_actions,), -jnp.inf, jnp.float32),
        pv=jnp.full((frames_n,), -1, jnp.int32),
    )


class Frames(NamedTuple):
    """One lane's explicit stack; F = frames."""

    state: Any  # [F] states
    rows: jax.Array  # float32[F, R]: each frame packed by _pack


class Lane(NamedTuple):
    frames: Frames
    sp: jax.Array  # int32[]: the current frame
    done: jax.Array  # bool[]: this search is finished
    root: jax.Array  # int32[]: which root this lane searches (-1: idle, no work left)
    depth: jax.Array  # int32[]: the depth of this search (iterative deepening raises it)
    killers: jax.Array  # int32[F, 2]
    history: jax.Array  # float32[2, A]: per mover
    prev_pv: jax.Array  # int32[F]: principal variation of the previous iteration
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]
    tt_hits: jax.Array  # int32[]
    cut_short: jax.Array  # int32[]: leaves scored by EVAL, TT or ProbCut rather than UTILITY


# ---------------------------------------------------------------- transposition table
def _tt_index(key: jax.Array, bits: int) -> jax.Array:
    return (key[1] & jnp.uint32((1 << bits) - 1)).astype(jnp.int32)


def _tt_pack(value, depth, flag, move) -> jax.Array:
    d1 = jax.lax.bitcast_convert_type(jnp.float32(value), jnp.uint32)
    d2 = (
        (jnp.uint32(depth) & jnp.uint32(0xFF))
        | (jnp.uint32(flag) << 8)
        | (jnp.uint32(move + 1) << 10)
    )
    return jnp.stack([d1, d2])


def _tt_probe(table: jax.Array, key: jax.Array, bits: int):
    """(hit, value, depth, flag, move) for ``key``; a torn or foreign entry is a miss."""
    entry = table[_tt_index(key, bits)]  # [4]
    d1, d2 = entry[2], entry[3]
    hit = ((entry[0] ^ d1) == key[0]) & ((entry[1] ^ d2) == key[1]) & (d2 != 0)
    value = jax.lax.bitcast_convert_type(d1, jnp.float32)
    depth = (d2 & jnp.uint32(0xFF)).astype(jnp.int32)
    flag = ((d2 >> 8) & jnp.uint32(3)).astype(jnp.int32)
    move = (d2 >> 10).astype(jnp.int32) - 1
    return hit, value, depth, flag, move


def _get(x: jax.Array, i: jax.Array) -> jax.Array:
    """``x[i]`` along the leading axis (a lane's frame ``i``)."""
    return x[i]


def _set(x: jax.Array, i: jax.Array, value: Any, active: Any = True) -> jax.Array:
    """``x.at[i].set(value)`` when ``active``, else ``x`` unchanged.

    Under ``vmap`` this is one scatter of a row per lane. (A dense masked select over all
    frames measured 10-15% slower on CPU: it rewrites every frame of every lane.)
    """
    value = jnp.asarray(value, x.dtype)
    return x.at[i].set(jnp.where(active, value, x[i]))


EXACT, LOWER, UPPER = 0, 1, 2
NULL_MOVE = -2  # the move index of a null move (the side to move passes)


def _write(x: Any, i: jax.Array, value: Any, active: Any = True) -> Any:
    """Row ``i`` of every leaf of ``x`` set to ``value`` when ``active``, else ``x`` unchanged.

    An inactive write goes to an out-of-range row and is dropped, so the old row is not read.
    """

    def one(column, v):
        n = column.shape[0]
        return column.at[jnp.where(active, i, n)].set(jnp.asarray(v, column.dtype), mode="drop")

    return jax.tree.map(one, x, value)


# ---------------------------------------------------------------- one lane
class Event(NamedTuple):
    """What an event's first half (``choose``) hands to its second (``conclude``), per lane.
    Values are from the current frame's mover's side unless named for the child."""

    sp: jax.Array  # int32: stack index of the current frame
    up: jax.Array  # int32: its parent's (0 at the root)
    cur: Frame  # the current frame
    par: Frame  # its parent
    remaining: jax.Array  # int32: plies left below the current frame
    cursor: jax.Array  # int32: the current frame's next move to search
    alpha: jax.Array  # float32: the current window (a null window at beta for a null probe)
    beta: jax.Array  # float32
    best: jax.Array  # float32: the current frame's best value so far
    mover: jax.Array  # int32: the current frame's mover
    null_now: jax.Array  # bool: this event's child is the null-move probe
    expand: jax.Array  # bool: this event expands a child
    finish: jax.Array  # bool: this event returns the current frame to its parent
    singular: jax.Array  # bool: this event starts a singular extension
    row: jax.Array  # float32[A]: the current frame's ordering keys
    move: jax.Array  # int32: the child's move
    parent: Any  # the current frame's state
    child: Any  # the state after ``move``
    c_remaining: jax.Array  # int32: plies left below the child
    extend_now: jax.Array  # bool: the child is searched a ply deeper (singular)
    child_mover: jax.Array  # int32
    sign: jax.Array  # float32: +1 when the child's mover is the frame's, else -1
    c_alpha: jax.Array  # float32: the child's window, from its mover's side
    c_beta: jax.Array  # float32
    terminal: jax.Array  # bool: the child is a finished game
    parent_view: jax.Array  # float32: the child's leaf value
    is_leaf: jax.Array  # bool: the child is a leaf (finished, or at the horizon)
    on_pv: jax.Array  # bool: the child is on the previous principal variation
    tt_value: jax.Array  # float32: the table's value for the child (child's side)
    tt_stop: jax.Array  # bool: the table settles the child
    child_tt_move: jax.Array  # int32: the table's move for the child (-1: none)
    probcut_stop: jax.Array  # bool: ProbCut settles the child
    probcut_value: jax.Array  # float32: then its value (child's side)
    frontier: jax.Array  # bool: the child is one ply above the horizon (``last_ply``)


def _search_fns(game: Game, opt: Options):
    """Per-lane functions of the lockstep search, closed over the game and options."""
    num_actions = game.num_actions
    max_extensions = opt.singular[2] if opt.singular else 0
    frames_n = opt.max_depth + opt.quiescence + max_extensions + 1
    use_tt = opt.tt_bits > 0
    actions = jnp.arange(num_actions)

    def move_keys(state, frame, lane, mask, pv_move, tt_move, ply_is_q):
        """Ordering keys (higher first) for one node's moves; -inf for the excluded."""
        keys = jnp.zeros((num_actions,), jnp.float32)
        if opt.hint:
            hint = game.move_order_scores(state)
            keys = keys + jnp.where(hint > 0, _HINT_BONUS, 0.0) + hint
        if opt.killers:
            k = _get(lane.killers, frame)
            keys = keys + jnp.where(actions == k[0], _KILLER_BONUS, 0.0)
            keys = keys + jnp.where(actions == k[1], _KILLER_BONUS / 2, 0.0)
        if opt.history:
            mover = jnp.clip(game.player(state), 0, 1)
            keys = keys + lane.history[mover]
        keys = keys + jnp.where(actions == pv_move, _PV_BONUS, 0.0)
        keys = keys + jnp.where(actions == tt_move, _PV_BONUS, 0.0)
        if opt.beam:
            children = jax.vmap(lambda a: game.step(state, a))(actions)
            mover = game.player(state)
            look = jax.vmap(lambda c: leaf_values(game, c)[mover])(children)
            # beam: rank by the one-ply look-ahead alone and keep the best `beam` moves
            keys = jnp.where(ply_is_q, keys, look)
        return jnp.where(mask, keys, -jnp.inf)

    def tt_best_move(table, state):
        """The move the transposition table holds for ``state`` (-1: none)."""
        hit, _, _, _, move = _tt_probe(table, game.hash(state), opt.tt_bits)
        return jnp.where(hit, move, -1)

    def new_frame(
        lane, frame, state, alpha, beta, on_pv, remaining, tt_move, after_null=False, ext=0
    ) -> Frame:
        """The frame of ``state`` (stack index ``frame``) opened with window (alpha, beta).

        ``tt_move`` is the transposition table's move for ``state`` (-1: none); the caller
        has already probed the table for this state, so it is not probed twice.
        """
        mover = game.player(state)
        legal = game.legal_mask(state)
        in_q = remaining <= 0  # a quiescence frame: noisy moves only, stand pat at EVAL
        best = NEG_INF
        if opt.quiescence or opt.null_move:
            static = leaf_values(game, state)[jnp.clip(mover, 0, game.num_players - 1)]
        if opt.quiescence:
            legal = jnp.where(in_q, legal & game.noisy_mask(state), legal)
            best = jnp.where(in_q, static, NEG_INF)
        null_pending = jnp.bool_(False)
        if opt.null_move:
            # Null-move pruning (Beal 1989; Donninger 1993): not at the root or on the
            # previous PV, never twice in a row, only with R + 1 plies left, where the game
            # allows a pass (not in check, say), and where EVAL already reaches beta
            null_pending = (
                (frame > 0)
                & ~jnp.asarray(after_null)
                & ~on_pv
                & (remaining >= opt.null_move + 1)
                & game.null_ok(state)
                & (static >= beta)
            )
        if opt.bounds:
            # No value below the node lies outside (low, high): a move reaching `high` cuts
            # (beta <= high), and a window already outside the bounds needs no move at all:
            # `high` is then an upper bound at or below alpha, `low` a lower one at or above
            # beta. Fail-soft values of a narrowed window stay valid for the caller's window.
            low, high = game.value_bounds(state)
            best = jnp.where(
                high <= alpha, high, jnp.where(low >= beta, jnp.maximum(best, low), best)
            )
            beta = jnp.minimum(beta, high)
        pv_move = jnp.where(on_pv, _get(lane.prev_pv, frame), -1)
        keys = move_keys(state, frame, lane, legal, pv_move, tt_move, in_q)
        count = jnp.sum(legal, dtype=jnp.int32)
        if opt.beam:
            count = jnp.where(in_q, count, jnp.minimum(count, opt.beam))
        return _empty_frame(num_actions, frames_n)._replace(
            mover=mover,
            alpha=jnp.maximum(alpha, best),
            beta=beta,
            alpha0=alpha,
            best=best,
            keys=keys,
            count=count,
            on_pv=on_pv,
            remaining=remaining,
            null_pending=null_pending,
            after_null=jnp.asarray(after_null),
            ext=jnp.asarray(ext, jnp.int32),
        )

    def give(lane, fr: Frame, frame, value, move, child_pv, remaining, active):
        """Report ``value`` (frame's mover's side) of ``move`` to ``fr``, stack index ``frame``.

        Returns the lane (killers, history, cutoffs) and the updated frame. A null move's
        report counts only when it reaches beta (the frame is cut); it is never a best move,
        killer or history entry.
        """
        is_null = move == NULL_MOVE
        old_best = fr.best
        if opt.null_move:
            active = active & (~is_null | (value >= fr.beta))
        improves = active & (value > old_best)
        line = jnp.concatenate([move[None], child_pv[:-1]])  # [F]
        line = jnp.where(is_null, -1, line)
        out = fr._replace(
            best=jnp.where(improves, value, fr.best),
            best_move=jnp.where(improves & ~is_null, move, fr.best_move),
            pv=jnp.where(improves, line, fr.pv),
            alpha=jnp.where(active, jnp.maximum(fr.alpha, value), fr.alpha),
        )
        if opt.singular:  # the runner-up, for the singularity test
            loser = jnp.where(improves, old_best, value)
            loser_move = jnp.where(improves, fr.best_move, move)
            better = active & ~is_null & (loser > fr.second)
            out = out._replace(
                second=jnp.where(better, loser, fr.second),
                second_move=jnp.where(better, loser_move, fr.second_move),
            )
        cut = active & (value >= fr.beta)
        lane = lane._replace(cutoffs=lane.cutoffs + cut.astype(jnp.int32))
        quiet_cut = cut & (remaining > 0) & ~is_null
        if opt.killers:
            k = _get(lane.killers, frame)
            new_k = jnp.where(move == k[0], k, jnp.stack([move, k[0]]))
            lane = lane._replace(killers=_set(lane.killers, frame, new_k, quiet_cut))
        if opt.history:
            mover = jnp.clip(fr.mover, 0, 1)
            bonus = jnp.where(quiet_cut, (remaining * remaining).astype(jnp.float32), 0.0)
            hot = (jnp.arange(2)[:, None] == mover) & (actions[None, :] == move)
            history = jnp.minimum(lane.history + jnp.where(hot, bonus, 0.0), _HISTORY_CAP)
            lane = lane._replace(history=history)
        return lane, out

    def choose(lane: Lane, table: jax.Array) -> Event:
        """An event's first half: the current frame expands its next child (settled at once
        when it is a leaf or the table answers for it), or is finished."""
        sp = lane.sp
        up = jnp.maximum(sp - 1, 0)
        cur = _unpack(_get(lane.frames.rows, sp), num_actions)  # the current frame
        par = _unpack(_get(lane.frames.rows, up), num_actions)  # its parent
        remaining = cur.remaining  # plies left below the current frame
        live = ~lane.done
        cursor, count = cur.cursor, cur.count
        alpha, beta, best = cur.alpha, cur.beta, cur.best
        mover = cur.mover
        null_now = cur.null_pending if opt.null_move else jnp.bool_(False)
        expand = live & ((cursor < count) | null_now) & (best < beta)
        finish = live & ~expand
        singular = jnp.bool_(False)
        if opt.singular:
            # Singular extensions (Anantharaman, Campbell and Hsu 1990), PV-singular form:
            # at a node whose value is exact (alpha0 < best < beta) with ``min_depth`` plies
            # left, a best move that beats every other move by ``margin`` is searched again
            # one ply deeper; the node's value becomes max(that value, the runner-up's)
            min_depth, margin, max_ext = opt.singular
            singular = (
                finish
                & (remaining >= min_depth)
                & (cur.ext < max_ext)
                & (cur.extended == 0)
                & (cur.best_move >= 0)
                & (best > cur.alpha0)
                & (best < beta)
                & (best - cur.second >= margin)
            )
            finish = finish & ~singular

        # ---- the next child of the current frame (computed by every lane, used by some)
        # selection on demand: the best remaining move (first among equals); a cutoff
        # usually comes before the rest need ordering, so no full sort is paid for
        row = cur.keys  # [A]
        move = jnp.argmax(row).astype(jnp.int32)
        parent = jax.tree.map(lambda x: _get(x, sp), lane.frames.state)
        child = game.step(parent, move)
        c_remaining = remaining - 1
        if opt.null_move:  # the probe: the side to move passes, searched R plies shallower
            move = jnp.where(null_now, NULL_MOVE, move)
            passed = game.null_step(parent)
            child = jax.tree.map(lambda p, c: jnp.where(null_now, p, c), passed, child)
            c_remaining = c_remaining - jnp.where(null_now, opt.null_move, 0)
            # a null window at beta: only "value >= beta" is asked
            alpha = jnp.where(null_now, jnp.nextafter(beta, NEG_INF), alpha)
        extend_now = jnp.bool_(False)
        if opt.singular:
            extend_now = (cur.extended == 1) & ~null_now
            c_remaining = c_remaining + extend_now.astype(jnp.int32)
        child_mover = game.player(child)
        same = child_mover == mover
        sign = jnp.where(same, 1.0, -1.0)
        c_alpha = jnp.where(same, alpha, -beta)
        c_beta = jnp.where(same, beta, -alpha)
        terminal = game.terminal(child)
        horizon = c_remaining <= 0
        if opt.quiescence:  # past the horizon only positions with noisy moves go on
            noisy = game.any_noisy(child)
            horizon = (c_remaining <= -opt.quiescence) | ((c_remaining <= 0) & ~noisy)
        parent_view = leaf_values(game, child)[jnp.clip(mover, 0, game.num_players - 1)]
        is_leaf = terminal | horizon
        on_pv = cur.on_pv & (move == _get(lane.prev_pv, sp)) & ~null_now
        tt_value = jnp.float32(0.0)
        tt_stop = jnp.bool_(False)
        child_tt_move = jnp.int32(-1)
        if use_tt:
            hit, value, t_depth, flag, t_move = _tt_probe(table, game.hash(child), opt.tt_bits)
            child_tt_move = jnp.where(hit, t_move, -1)
            # no cutoff on the previous PV, so that the new PV is searched out in full
            usable = hit & (t_depth == c_remaining) & (c_remaining > 0) & ~is_leaf & ~on_pv
            tt_stop = usable & (
                (flag == EXACT)
                | ((flag == LOWER) & (value >= c_beta))
                | ((flag == UPPER) & (value <= c_alpha))
            )
            tt_value = value
        probcut_stop = jnp.bool_(False)
        probcut_value = jnp.float32(0.0)
        if opt.probcut is not None:
            pc_depth, _, a, b, sigma, t = opt.probcut
            at_depth = (c_remaining == pc_depth) & ~is_leaf & ~tt_stop
            children = jax.vmap(lambda x: game.step(child, x))(actions)
            legal = game.legal_mask(child)
            shallow = jnp.max(
                jnp.where(
                    legal,
                    jax.vmap(lambda c: leaf_values(game, c)[child_mover])(children),
                    -jnp.inf,
                )
            )
            predicted = a * shallow + b
            high = at_depth & (predicted - t * sigma >= c_beta)
            low = at_depth & (predicted + t * sigma <= c_alpha)
            probcut_stop = high | low
            probcut_value = jnp.where(high, c_beta, c_alpha)
        # with last_ply, a child whose moves all reach the horizon is settled by `fringe`
        frontier = jnp.bool_(False)
        if opt.last_ply:
            frontier = (c_remaining == 1) & ~is_leaf & ~tt_stop
        return Event(
            sp=sp,
            up=up,
            cur=cur,
            par=par,
            remaining=remaining,
            cursor=cursor,
            alpha=alpha,
            beta=beta,
            best=best,
            mover=mover,
            null_now=null_now,
            expand=expand,
            finish=finish,
            singular=singular,
            row=row,
            move=move,
            parent=parent,
            child=child,
            c_remaining=c_remaining,
            extend_now=extend_now,
            child_mover=child_mover,
            sign=sign,
            c_alpha=c_alpha,
            c_beta=c_beta,
            terminal=terminal,
            parent_view=parent_view,
            is_leaf=is_leaf,
            on_pv=on_pv,
            tt_value=tt_value,
            tt_stop=tt_stop,
            child_tt_move=child_tt_move,
            probcut_stop=probcut_stop,
            probcut_value=probcut_value,
            frontier=frontier,
        )

    def fringe(child) -> tuple[jax.Array, jax.Array, jax.Array]:
        """The exact value of a node one ply above the horizon (for its mover), its best
        move and its number of moves: the best leaf value (UTILITY of a finished game, else
        EVAL) among all its children, computed at once."""
        legal = game.legal_mask(child)  # [A]
        view = jnp.clip(game.player(child), 0, game.num_players - 1)
        if num_actions > _UNROLL_ACTIONS:
            grand = jax.vmap(lambda a: game.step(child, a))(actions)  # [A]
            values = jax.vmap(lambda g: leaf_values(game, g)[view])(grand)  # [A]
            values = jnp.where(legal, values, -jnp.inf)
            best_move = jnp.argmax(values).astype(jnp.int32)
            return jnp.max(values), best_move, jnp.sum(legal, dtype=jnp.int32)
        # Few actions: each is stepped as a constant (its index folds into the step) and
        # each value stays elementwise over the lanes, where a vmap over the actions made
        # one reduction with the step and EVAL inside it (1.4x slower per event)
        best, best_move = jnp.float32(-jnp.inf), jnp.int32(0)
        for a in range(num_actions):
            value = leaf_values(game, game.step(child, a))[view]
            better = legal[a] & (value > best)  # the first of equal values, as argmax
            best, best_move = jnp.where(better, value, best), jnp.where(better, a, best_move)
        return best, best_move, jnp.sum(legal, dtype=jnp.int32)

    def conclude(lane: Lane, table: jax.Array, ev: Event, fringed) -> tuple[Lane, Any]:
        """An event's second half: report the settled child (or the finished frame) and
        open the child's frame when it is searched further. ``fringed`` is
        :func:`fringe` of the child, where it is one ply above the horizon."""
        (
            sp,
            up,
            cur,
            par,
            remaining,
            cursor,
            alpha,
            beta,
            best,
            mover,
            null_now,
            expand,
            finish,
            singular,
            row,
            move,
            parent,
            child,
            c_remaining,
            extend_now,
            child_mover,
            sign,
            c_alpha,
            c_beta,
            terminal,
            parent_view,
            is_leaf,
            on_pv,
            tt_value,
            tt_stop,
            child_tt_move,
            probcut_stop,
            probcut_value,
            frontier,
        ) = ev
        child_pv = jnp.full((frames_n,), -1, jnp.int32)
        fringe_leaves = jnp.int32(0)
        if opt.last_ply:
            # the child's moves all reach the horizon: its exact value is the best of its
            # children's leaf values (all computed at once: no frame, no pruning among them)
            f_value, f_move, f_count = fringed
            child_pv = child_pv.at[0].set(jnp.where(frontier, f_move, -1))
            fringe_leaves = jnp.where(frontier, f_count, 0)
            tt_value = jnp.where(frontier, f_value, tt_value)
        settle = is_leaf | tt_stop | probcut_stop | frontier
        # the child's value from the current frame's side, when it is settled right away
        settled = jnp.where(
            is_leaf,
            parent_view,
            sign * jnp.where(tt_stop | frontier, tt_value, probcut_value),
        )
        push = expand & ~settle

        # ---- the finished frame's value, for its parent
        value = best
        up_value = jnp.where(par.mover == mover, value, -value)

        # ---- the current frame after this event's move
        moved = expand & ~null_now  # a null probe takes no move off the list
        here = cur._replace(
            cursor=jnp.where(moved, cursor + 1, cursor),
            keys=jnp.where(moved & (actions == move), -jnp.inf, row),
            last_move=jnp.where(expand, move, cur.last_move),
        )
        if opt.null_move:
            here = here._replace(null_pending=here.null_pending & ~expand)
        if opt.singular:
            # a singular node searches its best move again: only that move left, the
            # runner-up as its value so far, and the next child one ply deeper
            again = jnp.where(actions == cur.best_move, 0.0, -jnp.inf)
            line = jnp.full((frames_n,), -1, jnp.int32).at[0].set(cur.second_move)
            here = here._replace(
                keys=jnp.where(singular, again, here.keys),
                count=jnp.where(singular, cursor + 1, here.count),
                best=jnp.where(singular, cur.second, here.best),
                best_move=jnp.where(singular, cur.second_move, here.best_move),
                pv=jnp.where(singular, line, here.pv),
                alpha=jnp.where(singular, jnp.maximum(cur.alpha0, cur.second), here.alpha),
                extended=jnp.where(
                    singular | (extend_now & expand),
                    jnp.where(singular, 1, 2),
                    here.extended,
                ),
            )
        lane = lane._replace(
            nodes=lane.nodes + expand.astype(jnp.int32) + jnp.where(expand, fringe_leaves, 0),
            leaves=lane.leaves
            + (expand & is_leaf).astype(jnp.int32)
            + jnp.where(expand, fringe_leaves, 0),
            tt_hits=lane.tt_hits + (expand & tt_stop).astype(jnp.int32),
            cut_short=lane.cut_short
            + (expand & ((is_leaf & ~terminal) | tt_stop | probcut_stop | frontier)).astype(
                jnp.int32
            ),
        )
        # ---- one report: a settled child to this frame, or this frame to its parent
        target = jnp.where(finish, up, sp)
        lane, report = give(
            lane,
            jax.tree.map(lambda p, h: jnp.where(finish, p, h), par, here),
            target,
            jnp.where(expand, settled, up_value),
            jnp.where(expand, move, par.last_move),
            jnp.where(expand, child_pv, cur.pv),
            jnp.where(expand, remaining, par.remaining),
            (expand & settle) | (finish & (sp > 0)),
        )
        opened = new_frame(
            lane,
            sp + 1,
            child,
            c_alpha,
            c_beta,
            on_pv,
            c_remaining,
            child_tt_move,
            null_now,
            cur.ext + extend_now.astype(jnp.int32),
        )
        rows = _write(lane.frames.rows, target, _pack(report))
        rows = _write(rows, sp + 1, _pack(opened), push)
        state = _write(lane.frames.state, sp + 1, child, push)
        lane = lane._replace(
            frames=Frames(state=state, rows=rows),
            sp=jnp.where(push, sp + 1, jnp.where(finish, up, sp)),
            done=lane.done | (finish & (sp == 0)),
        )
        # the transposition-table entry of the finished frame
        store = None
        if use_tt:
            lower = value >= beta
            if opt.bounds:  # reaching a window narrowed to `high` proves the value is `high`
                lower = lower & (value < game.value_bounds(parent)[1])
            flag = jnp.where(value <= cur.alpha0, UPPER, jnp.where(lower, LOWER, EXACT))
            key = game.hash(parent)
            entry = _tt_pack(value, jnp.maximum(remaining, 0), flag, cur.best_move)
            # replacement: a slot holding another position is overwritten; one holding this
            # position keeps a deeper result, or an exact one of the same depth
            held, _, held_depth, held_flag, _ = _tt_probe(table, key, opt.tt_bits)
            keep = held & (
                (held_depth > remaining)
                | ((held_depth == remaining) & (held_flag == EXACT) & (flag != EXACT))
            )
            store = (
                _tt_index(key, opt.tt_bits),
                jnp.concatenate([key ^ entry, entry]),
                # quiescence frames are not stored, nor depths the entry's 8 bits cannot hold
                finish & (remaining > 0) & (remaining < 256) & ~keep,
            )
        return lane, store

    def start(job, root_id, depth, prev_pv, killers, history, table):
        root, window = job  # the root state and its search window float32[2]
        empty = _pack(_empty_frame(num_actions, frames_n))
        lane = Lane(
            frames=Frames(
                state=jax.tree.map(lambda x: jnp.zeros((frames_n, *x.shape), x.dtype), root),
                rows=jnp.broadcast_to(empty, (frames_n, empty.shape[0])),
            ),
            sp=jnp.int32(0),
            done=root_id < 0,
            root=root_id,
            depth=depth,
            killers=killers,
            history=history,
            prev_pv=prev_pv,
            nodes=jnp.int32(1),
            leaves=jnp.int32(0),
            cutoffs=jnp.int32(0),
            tt_hits=jnp.int32(0),
            cut_short=jnp.int32(0),
        )
        # the root window: the caller's, within the utility bounds (no value lies outside
        # them, so a move proven to reach the best possible value ends the search at once)
        low = jnp.maximum(window[0], jnp.float32(game.utility_min))
        high = jnp.minimum(window[1], jnp.float32(game.utility_max))
        root_tt_move = tt_best_move(table, root) if use_tt else jnp.int32(-1)
        opened = new_frame(lane, 0, root, low, high, jnp.bool_(True), depth, root_tt_move)
        # a terminal root, or depth 0: the root is a leaf
        terminal = game.terminal(root)
        is_leaf = terminal | (depth <= 0)
        if opt.quiescence:
            is_leaf = terminal
        mover = jnp.clip(game.player(root), 0, game.num_players - 1)
        leaf = leaf_values(game, root)[mover]
        opened = opened._replace(
            best=jnp.where(is_leaf, leaf, opened.best),
            count=jnp.where(is_leaf, 0, opened.count),
        )
        frames = Frames(
            state=_write(lane.frames.state, 0, root),
            rows=lane.frames.rows.at[0].set(_pack(opened)),
        )
        return lane._replace(
            frames=frames,
            leaves=is_leaf.astype(jnp.int32),
            cut_short=(is_leaf & ~terminal).astype(jnp.int32),
        )

    def advance(lanes: Lane, table: jax.Array) -> tuple[Lane, Any]:
        """One event of every lane. Only events where some lane's child is one ply above
        the horizon pay for :func:`fringe`: ``lax.cond`` runs it for the whole batch or
        skips it (the lanes run in lockstep, so per lane it could not be skipped)."""
        ev = jax.vmap(choose, in_axes=(0, None))(lanes, table)
        fringed = None
        if opt.last_ply:
            need = ev.expand & ev.frontier
            width = need.shape[0]
            fringed = jax.lax.cond(
                jnp.any(need),
                lambda children: jax.vmap(fringe)(children),
                lambda children: (
                    jnp.zeros((width,), jnp.float32),
                    jnp.zeros((width,), jnp.int32),
                    jnp.zeros((width,), jnp.int32),
                ),
                ev.child,
            )
        return jax.vmap(conclude, in_axes=(0, None, 0, 0))(lanes, table, ev, fringed)

    return start, advance, frames_n


def _root_frames(lanes: Lane, num_actions: int) -> Frame:
    """Frame 0 (the root) of every lane, unpacked: ``[L]`` per field."""
    return jax.vmap(lambda rows: _unpack(rows[0], num_actions))(lanes.frames.rows)


class Results(NamedTuple):
    """Per-root results, filled in as lanes finish their searches."""

    value: jax.Array  # float32[N]: for the root's mover
    best_move: jax.Array  # int32[N]
    pv: jax.Array  # int32[N, F]
    nodes: jax.Array  # int32[N]: over every iteration of iterative deepening
    leaves: jax.Array  # int32[N]
    cutoffs: jax.Array  # int32[N]
    tt_hits: jax.Array  # int32[N]


def lane_phases(num_lanes: int, shrink: int) -> tuple[int, ...]:
    """Lane counts of the successive phases of a batched search: ``L, L/s, L/s^2, ...``.

    Searches of different roots differ in size by orders of magnitude (in the exact solve of
    a public set of 1,000 late-game positions the largest takes 22 times the mean and 77
    times the median; see benchmarks/README.md), and a lockstep loop costs about the same
    per event however few of its lanes are still busy. So once the queue is empty and the
    busy lanes fit in ``L/s``, they are compacted into a loop that many lanes wide, whose
    events are cheaper. Each phase is compiled once more, so only searches of 128 lanes or
    more shrink, at most twice, and never below 8 lanes.

    Args:
        num_lanes: lanes of the first phase.
        shrink: the factor between phases (0 or 1: a single phase).
    """
    sizes = [num_lanes]
    if shrink > 1 and num_lanes >= _MIN_LANES_TO_SHRINK:
        while len(sizes) < 3 and sizes[-1] // shrink >= 8:
            sizes.append(sizes[-1] // shrink)
    return tuple(sizes)


def _search(
    game: Game,
    opt: Options,
    phases: tuple[int, ...],
    events: int,
    roots,
    target,
    first_depth,
    table,
):
    """Search every root to ``target`` plies with ``phases[0]`` lanes and a work queue.

    ``roots`` is the pair (states ``[N]``, windows float32``[N, 2]``).

    Lanes advance in lockstep, ``events`` events between refills. A lane that finishes either
    searches the same root one ply deeper (iterative deepening, from ``first_depth``) with
    the principal variation it just found first, or takes the next root from the queue, so
    lanes stay busy however unequal the searches are. When the queue is empty and the busy
    lanes fit in the next of ``phases``, they move to a narrower loop (:func:`lane_phases`).
    """
    start, advance, frames_n = _search_fns(game, opt)
    n = batch_size(roots)
    num_lanes = phases[0]
    lane_ids = jnp.arange(num_lanes, dtype=jnp.int32)
    starts = jax.vmap(start, in_axes=(0, 0, 0, 0, 0, 0, None))
    no_pv = jnp.full((num_lanes, frames_n), -1, jnp.int32)
    no_killers = jnp.full((num_lanes, frames_n, 2), -1, jnp.int32)
    no_history = jnp.zeros((num_lanes, 2, game.num_actions), jnp.float32)
    lanes = starts(
        jax.tree.map(lambda x: x[lane_ids], roots),
        lane_ids,
        jnp.full((num_lanes,), first_depth, jnp.int32),
        no_pv,
        no_killers,
        no_history,
        table,
    )
    results = Results(
        value=jnp.zeros((n,), jnp.float32),
        best_move=jnp.full((n,), -1, jnp.int32),
        pv=jnp.full((n, frames_n), -1, jnp.int32),
        nodes=jnp.zeros((n,), jnp.int32),
        leaves=jnp.zeros((n,), jnp.int32),
        cutoffs=jnp.zeros((n,), jnp.int32),
        tt_hits=jnp.zeros((n,), jnp.int32),
    )

    def write(table, pending):
        index, rows = pending
        return table.at[index].set(rows, mode="drop")

    def run_events(_, carry):
        # The previous event's table writes go in first, then this event reads: the table's
        # old buffer then has no reader left and XLA updates it in place (reading first and
        # writing after made it copy the whole table at every event).
        lanes, table, pending = carry
        if pending is not None:
            table = write(table, pending)
        lanes, store = advance(lanes, table)
        if store is not None:
            index, rows, writes = store
            pending = (jnp.where(writes, index, table.shape[0]), rows)  # out of range: none
        return lanes, table, pending

    def body(carry):
        lanes, table, results, next_root = carry
        width = lanes.root.shape[0]
        pending = None
        if opt.tt_bits:
            pending = (
                jnp.full((width,), table.shape[0], jnp.int32),
                jnp.zeros((width, 4), jnp.uint32),
            )
        lanes, table, pending = jax.lax.fori_loop(0, events, run_events, (lanes, table, pending))
        if pending is not None:
            table = write(table, pending)
        finished = lanes.done & (lanes.root >= 0)
        # a search whose every leaf was a finished game is exact at any depth: stop deepening
        # (not with beam or quiescence, whose nodes also stop on EVAL)
        exact_leaves = not opt.beam and not opt.quiescence
        complete = (lanes.cut_short == 0) if exact_leaves else jnp.zeros_like(finished)
        final = finished & ((lanes.depth >= target) | complete)
        slot = jnp.where(finished, lanes.root, n)  # out of range: dropped
        top = _root_frames(lanes, game.num_actions)
        final_slot = jnp.where(final, lanes.root, n)
        results = Results(
            value=results.value.at[final_slot].set(top.best, mode="drop"),
            best_move=results.best_move.at[final_slot].set(top.best_move, mode="drop"),
            pv=results.pv.at[final_slot].set(top.pv, mode="drop"),
            nodes=results.nodes.at[slot].add(lanes.nodes, mode="drop"),
            leaves=results.leaves.at[slot].add(lanes.leaves, mode="drop"),
            cutoffs=results.cutoffs.at[slot].add(lanes.cutoffs, mode="drop"),
            tt_hits=results.tt_hits.at[slot].add(lanes.tt_hits, mode="drop"),
        )
        # deeper on the same root, or the next root from the queue (or idle)
        rank = jnp.cumsum(final.astype(jnp.int32)) - 1
        fresh = next_root + rank
        fresh = jnp.where(fresh < n, fresh, -1)
        root_id = jnp.where(final, fresh, lanes.root)
        depth = jnp.where(final, first_depth, lanes.depth + 1)
        keep = ~final  # the same root: keep its PV, killers and history
        restart = finished & (root_id >= 0)
        new = starts(
            jax.tree.map(lambda x: x[jnp.maximum(root_id, 0)], roots),
            root_id,
            depth,
            jnp.where(keep[:, None], top.pv, -1),
            jnp.where(keep[:, None, None], lanes.killers, -1),
            jnp.where(keep[:, None, None], lanes.history, 0.0),
            table,
        )

        def pick(n_, o_):
            mask = restart.reshape((-1,) + (1,) * (n_.ndim - 1))
            return jnp.where(mask, n_, o_)

        lanes = jax.tree.map(pick, new, lanes)
        idle = finished & (root_id < 0)
        lanes = lanes._replace(root=jnp.where(idle, -1, lanes.root))
        next_root = next_root + jnp.sum(final.astype(jnp.int32))
        return lanes, table, results, next_root

    carry = (lanes, table, results, jnp.int32(num_lanes))
    for narrower in (*phases[1:], 0):

        def cond(carry, narrower=narrower):
            lanes, next_root = carry[0], carry[3]
            busy = lanes.root >= 0
            fits = (next_root >= n) & (jnp.sum(busy, dtype=jnp.int32) <= narrower)
            return jnp.any(busy) & ~fits

        carry = jax.lax.while_loop(cond, body, carry)
        if narrower:  # the busy lanes first (stable), then idle ones to fill the width
            lanes = carry[0]
            order = jnp.argsort(lanes.root < 0, stable=True)[:narrower]  # [narrower]
            lanes = jax.tree.map(lambda x, order=order: x[order], lanes)
            carry = (lanes, *carry[1:])
    _, table, results, _ = carry
    return results, table


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _search_on_devices(
    game: Game,
    opt: Options,
    phases: tuple[int, ...],
    events: int,
    mesh: Mesh | None,
    roots,
    target,
    first_depth,
    tables,
):
    """:func:`_search` on one device, or on every device of ``mesh`` with ``shard_map``.

    Each device takes its contiguous share of the roots, with its own lanes, work queue and
    transposition table (``tables`` is ``[devices, T, 4]``), so no device waits on another
    until the end.
    """
    if mesh is None:
        results, table = _search(game, opt, phases, events, roots, target, first_depth, tables[0])
        return results, table[None]

    def per_device(roots, tables):
        results, table = _search(game, opt, phases, events, roots, target, first_depth, tables[0])
        return results, table[None]

    axis = mesh.axis_names[0]
    return jax.shard_map(
        per_device,
        mesh=mesh,
        in_specs=(PartitionSpec(axis), PartitionSpec(axis)),
        out_specs=(PartitionSpec(axis), PartitionSpec(axis)),
        check_vma=False,
    )(roots, tables)


@dataclasses.dataclass(frozen=True)
class ProbCut:
    """A ProbCut model (Buro 1995): a shallow search predicts the deep one linearly.

    At a node with ``depth`` plies left, the one-ply look-ahead ``v'`` (the best EVAL or
    UTILITY among the children, from the mover's side) predicts the ``depth``-ply value as
    ``v ~ a * v' + b`` with residual standard deviation ``sigma``. The node is cut, returning
    the bound, when the prediction clears the window by ``t`` standard deviations:
    ``a v' + b - t sigma >= beta`` (fail high) or ``a v' + b + t sigma <= alpha`` (fail low).
    INEXACT: a cut can change the value and the move. Fit one with :func:`fit_probcut`.
    """

    depth: int
    a: float
    b: float
    sigma: float
    t: float = 1.5
    shallow: int = 1  # the look-ahead depth; only 1 is implemented

    def as_tuple(self) -> tuple:
        return (
            int(self.depth),
            int(self.shallow),
            float(self.a),
            float(self.b),
            float(self.sigma),
            float(self.t),
        )


def fit_probcut(game: Game, states: Any, depth: int, t: float = 1.5) -> ProbCut:
    """Fit :class:`ProbCut` for ``depth`` by least squares on positions ``states`` [N].

    Deep values come from exact alpha-beta at ``depth``, shallow ones at depth 1, both from
    the mover's side, over the given positions (sample them from play of the game).
    """
    mover = np.clip(np.asarray(jax.vmap(game.player)(jax.tree.map(jnp.asarray, states))), 0, 1)
    rows = np.arange(len(mover))
    deep = alphabeta_batch(game, states, depth).value[rows, mover]
    shallow = alphabeta_batch(game, states, 1).value[rows, mover]
    a, b = np.polyfit(shallow.astype(np.float64), deep.astype(np.float64), 1)
    sigma = float(np.std(deep - (a * shallow + b)))
    return ProbCut(depth=depth, a=float(a), b=float(b), sigma=max(sigma, 1e-6), t=t)


@dataclasses.dataclass(frozen=True)
class Singular:
    """Singular extensions (Anantharaman, Campbell and Hsu 1990), the PV-singular test.

    At a node with at least ``min_depth`` plies left whose search ends with an exact value
    (``alpha < v < beta``), the best move is *singular* when its value beats every other
    move's (fail-soft) value by at least ``margin``; it is then searched again one ply
    deeper, and the node's value becomes the larger of that value and the runner-up's. At
    most ``max_extensions`` extensions lie on any path. The result is the value of a deeper,
    selective search, not the depth-limited minimax value (``stats["exact"]`` is False).
    """

    min_depth: int = 2
    margin: float = 0.1
    max_extensions: int = 1

    def as_tuple(self) -> tuple:
        if self.min_depth < 1 or self.max_extensions < 1 or not self.margin >= 0:
            raise GameError(
                "alphabeta: singular needs min_depth >= 1, max_extensions >= 1, margin >= 0;"
                f" got {self}"
            )
        return (int(self.min_depth), float(self.margin), int(self.max_extensions))


def _validate(game: Game, depth: int) -> None:
    if game.num_players != 2 or not game.zero_sum:
        raise GameError(
            f"alphabeta: {game.name} is not a two-player zero-sum game; use maxn or minimax"
        )
    if game.num_chance_outcomes:
        raise GameError(f"alphabeta: {game.name} has chance nodes; use expectiminimax")
    if depth < 0:
        raise GameError(f"alphabeta: depth must be >= 0, got {depth}")


_TUNABLE_DEFAULTS = {
    "hint": True,
    "killers": True,
    "history": True,
    "iterative_deepening": True,
    "last_ply": False,
    "tt_min_depth": 0,
    "lanes": 512,
}


_COUNTS = frozenset(("lanes", "tt_min_depth"))  # the tunables that are numbers, not switches


def ordering_switches(game: Game, **given: Any) -> dict[str, Any]:
    """The ordering switches and lane count a search of ``game`` uses: those given (not
    None), else the game's ``search_defaults``, else the search's own defaults (every
    ordering switch on, ``last_ply`` off, the table from depth 0 (always), 512 lanes)."""
    unknown = set(game.search_defaults) - set(_TUNABLE_DEFAULTS)
    if unknown:
        raise GameError(f"{game.name}: search_defaults has unknown options {sorted(unknown)}")
    out = {**_TUNABLE_DEFAULTS, **game.search_defaults}
    out.update({k: v for k, v in given.items() if v is not None})
    return {k: v if k in _COUNTS else bool(v) for k, v in out.items()}


def alphabeta_batch(
    game: Game,
    states: Any,
    depth: int,
    *,
    hint: bool | None = None,
    killers: bool | None = None,
    history: bool | None = None,
    iterative_deepening: bool | None = None,
    tt: bool | None = None,
    tt_bits: int = 16,
    quiescence: int = 0,
    beam: int = 0,
    probcut: Any = None,
    null_move: int = 0,
    singular: Singular | bool | None = None,
    lanes: int | None = None,
    events: int = 16,
    shrink: int = 4,
    bounds: bool = True,
    window: tuple[Any, Any] | None = None,
    last_ply: bool | None = None,
) -> BatchSearchResult:
    """Depth-limited alpha-beta of many roots at once, each lane its own search.

    Args:
        game: a two-player zero-sum deterministic game.
        states: a batch ``[N]`` of roots (may be sharded across devices along N).
        depth: plies below each root.
        hint: order by the game's ``move_order_scores`` (captures first).
        killers: killer moves per ply.
        history: the history heuristic (per player and move, bonus remaining_depth^2).
        iterative_deepening: search depths 1..depth, each with the previous PV first.
            These four default to on, except where the game's ``search_defaults`` says
            otherwise (a game whose own ordering is strong searches fewer nodes without
            the others); a value passed here always wins. So does ``lanes``, and so does
            ``last_ply``.
        tt: a transposition table shared by all lanes (needs the game's hash); it only
            answers for the same remaining depth, so values stay exact. None: on for
            searches of at least the game's ``search_defaults["tt_min_depth"]`` plies
            (default 0: always); a shallow search finds few transpositions, and probing
            and storing then cost more than the nodes they save.
        tt_bits: the table holds 2**tt_bits entries.
        quiescence: plies of quiescence search past the horizon (noisy moves only, stand-pat
            at EVAL); 0 is off. Games without noisy moves are unaffected.
        beam: INEXACT forward pruning; keep only the ``beam`` best moves per node by a
            one-ply look-ahead (0: off).
        probcut: INEXACT forward pruning; a :class:`ProbCut` model (None: off).
        null_move: INEXACT; null-move pruning with depth reduction R = ``null_move`` (0: off;
            2 or 3 are usual). Before its moves, a node where EVAL reaches beta lets the
            opponent move twice (the game's ``null_step``), searched ``R + 1`` plies
            shallower with a null window at beta; if even that reaches beta, the node is cut.
            Not at the root, nor on the previous principal variation, nor twice in a row,
            nor where the game's ``null_ok`` says no. Wrong in zugzwang, hence inexact.
        singular: a :class:`Singular` (``True``: its defaults; None: off); a selective
            extension, so the value is no longer the depth-limited minimax value.
        lanes: searches run side by side (per device); roots beyond that wait in a queue and
            go to the first lane that finishes (more lanes: wider vector work, longer tail).
            With several local devices and N a multiple of their count, each device
            searches its own contiguous share of the roots (``shard_map`` over a mesh of
            the local devices), with its own queue and transposition table.
        events: lockstep events between refills of finished lanes.
        shrink: once the queue is empty, the busy lanes move to a loop ``shrink`` times
            narrower as soon as they fit in it (only from 128 lanes up, down to 8; see
            :func:`lane_phases`); 0 or 1 keeps one width to the end.
        bounds: narrow every node's window to the game's ``value_bounds`` (when it has
            them): a move that reaches the best value still possible cuts its siblings.
            Exact: the value is unchanged.
        last_ply: a node one ply above the horizon is settled in one event: all its
            moves are stepped and evaluated at once (vectorised over the action slots) and
            its exact value, the best of its children's leaf values, goes straight to its
            parent with no frame of its own. Exact, like alpha-beta (the same value); it
            gives up the cutoffs among those children (they count as leaves and nodes) for
            a third or more fewer lockstep events. It pays where the action slots are few
            and most of them legal, and costs where most slots are illegal (each is stepped
            and evaluated); so the search's own default is off, and a game turns it on in
            its ``search_defaults`` (measured per game in ``benchmarks/README.md``). The
            event pays for it only when some lane needs it (``lax.cond`` on the batch).
            Ignored with quiescence, forward pruning or extensions, whose last ply is not
            plain.
        window: the roots' search window ``(alpha, beta)``, for the side to move at each
            root: two numbers, or two arrays ``[N]`` (one window per root). None: the
            game's utility range, so every value is exact. With a window, the value is
            fail-soft (Knuth and Moore): inside ``(alpha, beta)`` it is exact; at or below
            alpha it is an upper bound (true <= value <= alpha), at or above beta a lower
            bound (beta <= value <= true), and the best move and PV are then only those of
            the bound. A null window answers one question cheaply: ``(-eps, eps)`` whether
            the side to move wins, draws or loses; a sequence of them (MTD(f), Plaat et
            al. 1996) finds the exact value.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` holds totals and per-root ``leaves``,
        ``cutoffs`` and ``tt_hits`` arrays, ``bound`` (int8 per root: 0 exact, -1 an upper
        bound, +1 a lower bound; all 0 without ``window``), and ``exact`` (False with
        forward pruning).
    """
    _validate(game, depth)
    start_time = time.perf_counter()
    depth = needed_depth(game, states, depth)
    switches = ordering_switches(
        game,
        hint=hint,
        killers=killers,
        history=history,
        iterative_deepening=iterative_deepening,
        last_ply=last_ply,
        lanes=lanes,
    )
    tt_min_depth = switches.pop("tt_min_depth")
    tt = depth >= tt_min_depth if tt is None else tt
    hint, killers, history = switches["hint"], switches["killers"], switches["history"]
    last_ply = switches["last_ply"]
    iterative_deepening, lanes = switches["iterative_deepening"], switches.pop("lanes")
    tt_bits = tt_bits if (tt and game.has_hash) else 0
    null_move = int(null_move)
    if int(lanes) < 1:
        raise GameError(f"alphabeta: lanes must be >= 1, got {lanes}")
    if int(shrink) < 0:
        raise GameError(f"alphabeta: shrink must be >= 0 (0 or 1: no shrinking), got {shrink}")
    if null_move < 0:
        raise GameError(f"alphabeta: null_move must be >= 0 (the reduction R), got {null_move}")
    if null_move and not game.has_null_move:
        raise GameError(f"alphabeta: {game.name} has no null move (null_step), so null_move=0")
    if singular is True:
        singular = Singular()
    singular = singular or None
    opt = Options(
        max_depth=max(depth, 1),
        quiescence=int(quiescence),
        hint=bool(hint),
        killers=bool(killers),
        history=bool(history),
        tt_bits=int(tt_bits),
        beam=int(beam),
        probcut=probcut.as_tuple() if probcut is not None else None,
        null_move=null_move,
        singular=singular.as_tuple() if singular is not None else None,
        bounds=bool(bounds) and game.has_value_bounds,
        last_ply=bool(last_ply)
        and not quiescence
        and not beam
        and probcut is None
        and not null_move
        and singular is None,
    )
    n = batch_size(states)
    alpha, beta = _root_window(game, window, n)
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and n % devices == 0 else None
    share = n // devices if mesh is not None else n  # roots per device
    num_lanes = min(share, int(lanes))
    roots = jax.tree.map(jnp.asarray, states)
    jobs = (roots, jnp.asarray(np.stack([alpha, beta], 1)))  # each root with its window
    tables = jnp.zeros((devices if mesh else 1, 1 << tt_bits if tt_bits else 1, 4), jnp.uint32)
    if mesh is not None:
        jobs = shard_batch(jobs, mesh)
        tables = shard_batch(tables, mesh)
    first = 1 if (iterative_deepening and depth > 1) else depth
    phases = lane_phases(num_lanes, int(shrink))
    results, _ = progress.compiled_call(
        _search_on_devices,
        *(game, opt, phases, int(events), mesh, jobs, jnp.int32(depth), jnp.int32(first), tables),
        what=f"alpha-beta of {n:,} positions",
    )
    value = np.asarray(results.value, np.float32)
    mover = np.clip(np.asarray(jax.vmap(game.player)(roots)), 0, 1)
    vectors = np.where(
        mover[:, None] == 0, np.stack([value, -value], 1), np.stack([-value, value], 1)
    )
    pv = np.asarray(results.pv[:, :depth], np.int32)
    per_root = {
        key: np.asarray(getattr(results, key), np.int64)
        for key in ("nodes", "leaves", "cutoffs", "tt_hits")
    }
    stats = {k: int(v.sum()) for k, v in per_root.items()}
    # fail-soft: a value at a window edge the utility range leaves room beyond is a bound
    upper = (value <= alpha) & (alpha > game.utility_min)
    lower = (value >= beta) & (beta < game.utility_max)
    stats.update(
        {
            "bound": np.where(upper, -1, np.where(lower, 1, 0)).astype(np.int8),
            "leaves_per_root": per_root["leaves"],
            "cutoffs_per_root": per_root["cutoffs"],
            "tt_hits_per_root": per_root["tt_hits"],
            "time_s": time.perf_counter() - start_time,
            "exact": not beam and probcut is None and not null_move and singular is None,
            "lanes": num_lanes,
            "lane_phases": list(phases),
            "devices": devices if mesh is not None else 1,
            "ordering": {**switches, "tt": bool(tt_bits), "bounds": opt.bounds},
        }
    )
    return BatchSearchResult(
        value=vectors.astype(np.float32),
        best_action=np.asarray(results.best_move, np.int32),
        pv=pv,
        nodes=per_root["nodes"],
        stats=stats,
    )


def _root_window(game: Game, window: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The roots' windows as two float32[N] arrays (alpha, beta); a bad one is refused."""
    if window is None:
        alpha, beta = game.utility_min, game.utility_max
    else:
        try:
            alpha, beta = window
        except (TypeError, ValueError):
            raise GameError(
                f"alphabeta: window must be a pair (alpha, beta), got {window!r}"
            ) from None
    try:
        alpha = np.broadcast_to(np.asarray(alpha, np.float32), (n,))
        beta = np.broadcast_to(np.asarray(beta, np.float32), (n,))
    except ValueError:
        raise GameError(
            f"alphabeta: window bounds must be numbers or arrays of one per root ({n}), got "
            f"shapes {np.shape(alpha)} and {np.shape(beta)}"
        ) from None
    bad = np.flatnonzero(~(alpha < beta))  # NaN is bad too
    if bad.size:
        i = int(bad[0])
        raise GameError(
            f"alphabeta: window needs alpha < beta, but root {i} has "
            f"({alpha[i]}, {beta[i]}) ({bad.size} roots in all)"
        )
    return alpha, beta


def alphabeta(
    game: Game,
    state: Any,
    depth: int,
    mode: str = "auto",
    split: int = 2,
    **options: Any,
) -> SearchResult:
    """Alpha-beta of one root.

    Two ways to run it:

    * ``"device"``: the root is one lane of :func:`alphabeta_batch`; the whole search runs in
      one jitted loop, one node per iteration.
    * ``"host"``: a host-side driver expands the top ``split`` plies level by level, ships
      the whole frontier to the device as one batch of independent alpha-beta searches
      (``depth - split`` plies each, one lane per frontier node), and backs their values up
      the top of the tree with the segment reductions of :mod:`jaxgames.search.minimax`.
      The top plies are searched without pruning; the frontier searches run side by side.

    ``"auto"`` takes the device search on a CPU: in ``benchmarks/alphabeta.py`` on a 2-core
    CPU, on 20 single roots of its game, its median time per root was the shorter at every
    depth measured (ms at depths 4, 6, 8 and 10: 2.6 against 5.6, 5.9 against 8.3, 20
    against 27, 73 against 126), the host driver's unpruned top plies costing it four
    times the nodes; over all 20 roots the host driver was the faster at depth 8 only (35
    against 27 positions/s: its frontier is spread over both cores). On an accelerator,
    where one lane's event costs a chain of kernel launches, ``"auto"`` takes the host
    driver from depth 6 (its frontier fills the lanes); that rule is not measured. Both
    return the exact alpha-beta value. With a ``window``, only the device search runs.

    Args:
        options: passed to :func:`alphabeta_batch` (ordering switches, TT, quiescence...).
    """
    _validate(game, depth)
    if mode not in ("auto", "device", "host"):
        raise GameError(f"alphabeta: mode must be auto, device or host, got {mode!r}")
    windowed = options.get("window") is not None
    if windowed and mode == "host":
        raise GameError("alphabeta: a window needs mode='device' (the host driver has none)")
    if mode == "auto":
        accelerator = jax.default_backend() != "cpu"
        mode = "host" if accelerator and depth >= 6 and not windowed else "device"
    if mode == "host" and depth > split:
        return _host_driver(game, state, depth, split, **options)
    result = alphabeta_batch(game, stack([to_numpy(state)]), depth, **options)
    stats = dict(result.stats)
    stats["nodes"] = int(result.nodes[0])
    stats["mode"] = "device"
    return SearchResult(
        value=result.value[0],
        best_action=int(result.best_action[0]),
        pv=[int(a) for a in result.pv[0] if a >= 0],
        stats=stats,
    )


def _host_driver(game: Game, state: Any, depth: int, split: int, **options: Any) -> SearchResult:
    from jaxgames.search.levels import expand_levels
    from jaxgames.search.minimax import backup, principal_variation, root_action_values

    start = time.perf_counter()
    levels = expand_levels(game, stack([to_numpy(state)]), split)
    frontier = levels.states[-1]
    plies = len(levels.edges)
    below = alphabeta_batch(game, frontier, depth - plies, **options)
    back = backup(game, levels, deepest=below.value)
    pv = principal_variation(levels, back, 0)
    node = 0  # follow the PV to its frontier node, then append that node's own PV
    for level, edges in enumerate(levels.edges):
        edge = back.best_edge[level][node]
        if edge < 0:
            break
        node = int(edges.child[edge])
    else:
        pv += [int(a) for a in below.pv[node] if a >= 0]
    top_nodes = sum(batch_size(s) for s in levels.states[:-1])
    stats = dict(below.stats)
    stats.update(
        {
            "nodes": int(top_nodes + below.nodes.sum()),
            "frontier": batch_size(frontier),
            "mode": "host",
            "time_s": time.perf_counter() - start,
        }
    )
    return SearchResult(
        value=back.values[0][0],
        best_action=pv[0] if pv else -1,
        pv=pv,
        stats=stats,
        action_values=root_action_values(game, levels, back, 0),
    )


__all__ = ["ProbCut", "Singular", "alphabeta", "alphabeta_batch", "fit_probcut"]
