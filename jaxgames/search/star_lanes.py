"""Expectiminimax with Star1/Star2 pruning, many roots at once on the device (lockstep lanes).

The same search as the host driver of :mod:`jaxgames.search.expectiminimax`, written as an
explicit stack per lane so that a batch of roots runs in one jitted ``lax.while_loop``: each
lane (one root) holds ``depth + 1`` frames and advances by one event per iteration (open the
next child of the top frame, or return the top frame's value to its parent). Lanes that
finish take the next root from a work queue.

Values are player 0's, in ``[L, U]`` (the game's utility bounds). A chance frame keeps, per
outcome r, bounds ``lo[r] <= value(r) <= hi[r]`` (``L``/``U`` until known); its value is then
bounded by ``sum p lo`` and ``sum p hi``, and outcome r is searched with the window that
decides a cut (Ballard's Star1)::

    A_r = (alpha - sum_{s != r} p_s hi_s) / p_r        B_r = (beta - sum_{s != r} p_s lo_s) / p_r

A fail-soft answer ``v`` raises ``lo[r]`` (``v >= B_r``), lowers ``hi[r]`` (``v <= A_r``), or
fixes both (exact). The frame stops as soon as ``sum p lo >= beta`` or ``sum p hi <= alpha``.
With Star2, a first pass over the outcomes probes each one's decision node by its first
move only (a MAX node's first move bounds it from below, a MIN node's from above) before
the full pass. With ``"alphabeta"``, chance frames search every outcome with ``[L, U]``;
with ``"none"``, decision frames do not cut either.

Decision moves are tried in the game's ``move_order_scores`` order (lowest action first
among equals); there is no transposition table, so Star2's second pass searches a probed
move again.
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import progress
from jaxgames.capabilities import MoveOrdering
from jaxgames.game import CHANCE, Game
from jaxgames.kernels import batch_size, leaf_values, to_numpy
from jaxgames.kernels.expand import branch_width
from jaxgames.search.result import BatchSearchResult

MAX, MIN, CHANCE_KIND = 0, 1, 2
PRUNING_CODES = {"none": 0, "alphabeta": 1, "star1": 2, "star2": 3}


class Frames(NamedTuple):
    """One lane's stack; F = frames, W = branching width, K = chance outcomes."""

    state: Any  # [F] states
    kind: jax.Array  # int32[F]: MAX, MIN or CHANCE_KIND
    alpha: jax.Array  # float32[F]: the window the frame was opened with
    beta: jax.Array  # float32[F]
    best: jax.Array  # float32[F]: decision frames: best child value so far
    best_move: jax.Array  # int32[F]
    keys: jax.Array  # float32[F, W]: order of the branches not yet tried (-inf: none)
    count: jax.Array  # int32[F]: branches to try in this pass
    cursor: jax.Array  # int32[F]: branches tried in this pass
    phase: jax.Array  # int32[F]: chance frames: 0 = Star2 probing pass, 1 = full pass
    prob: jax.Array  # float32[F, K]
    lo: jax.Array  # float32[F, K]: bounds on each outcome's value
    hi: jax.Array  # float32[F, K]
    pv: jax.Array  # int32[F, F]
    last: jax.Array  # int32[F]: the branch most recently opened at each frame
    cut: jax.Array  # int32[F]: chance frames: 1 = failed high, 2 = failed low (full pass)
    probed: jax.Array  # bool[F, K]: chance frames: Star2 probed outcome r's first move ...
    probe: jax.Array  # float32[F, K, 3]: ... and got (value, alpha, beta)
    reuse: jax.Array  # float32[F, 4]: decision frames: (known?, value, alpha, beta) of move 1


class Lane(NamedTuple):
    frames: Frames
    sp: jax.Array  # int32[]
    done: jax.Array  # bool[]
    root: jax.Array  # int32[]: -1 when idle
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]: decision frames left before their last move
    chance_cutoffs: jax.Array  # int32[]: chance frames left early in the full pass
    probe_cutoffs: jax.Array  # int32[]: chance frames left in the probing pass


def _fns(game: Game, depth: int, pruning: int, lookahead: bool):
    width = branch_width(game)
    k = max(game.num_chance_outcomes, 1)
    frames_n = depth + 1
    low, high = float(game.utility_min), float(game.utility_max)
    decision_cuts = pruning >= 1
    chance_cuts = pruning >= 2
    star2 = pruning == 3

    def open_frame(lane: Lane, t, state, alpha, beta, probe, reuse, active):
        """Frame ``t`` for ``state`` with window (alpha, beta), if ``active``.

        ``probe``: search the first move only; ``reuse``: float32[4], what a probe learnt
        about the first move (known?, value, alpha, beta)."""
        f = lane.frames
        player = game.player(state)
        kind = jnp.where(player == CHANCE, CHANCE_KIND, jnp.clip(player, 0, 1))
        legal = jnp.zeros((width,), jnp.bool_).at[: game.num_actions].set(game.legal_mask(state))
        hint = (
            jnp.zeros((width,), jnp.float32)
            .at[: game.num_actions]
            .set(
                game.move_order_scores(state)
                if isinstance(game, MoveOrdering)
                else jnp.zeros((game.num_actions,), jnp.float32)
            )
        )
        if game.num_chance_outcomes:
            prob = game.chance_probs(state)
        else:
            prob = jnp.zeros((k,), jnp.float32)
        outcome_keys = (
            jnp.full((width,), -jnp.inf)
            .at[:k]
            .set(jnp.where(prob > 0, -jnp.arange(k, dtype=jnp.float32), -jnp.inf))
        )
        is_chance = kind == CHANCE_KIND
        if lookahead:  # best-first by the children's EVAL, from the mover's side
            children = jax.vmap(game.step, in_axes=(None, 0))(state, jnp.arange(game.num_actions))
            look = jax.vmap(lambda c: leaf_values(game, c)[0])(children)  # [A]
            look = jnp.where(kind == MAX, look, -look)
            hint = hint.at[: game.num_actions].set(look)
        keys = jnp.where(is_chance, outcome_keys, jnp.where(legal, hint, -jnp.inf))
        count = jnp.where(is_chance, jnp.sum(prob > 0), jnp.sum(legal)).astype(jnp.int32)
        count = jnp.where(probe & ~is_chance, jnp.minimum(count, 1), count)
        best = jnp.where(kind == MAX, -jnp.inf, jnp.inf)

        def put(column, value):
            value = jnp.asarray(value, column.dtype)
            return column.at[t].set(jnp.where(active, value, column[t]))

        frames = Frames(
            state=jax.tree.map(put, f.state, state),
            kind=put(f.kind, kind),
            alpha=put(f.alpha, alpha),
            beta=put(f.beta, beta),
            best=put(f.best, best),
            best_move=put(f.best_move, -1),
            keys=put(f.keys, keys),
            count=put(f.count, count),
            cursor=put(f.cursor, 0),
            phase=put(f.phase, jnp.where(is_chance & star2, 0, 1)),
            prob=put(f.prob, prob),
            lo=put(f.lo, jnp.full((k,), low, jnp.float32)),
            hi=put(f.hi, jnp.full((k,), high, jnp.float32)),
            pv=put(f.pv, jnp.full((frames_n,), -1, jnp.int32)),
            last=put(f.last, -1),
            cut=put(f.cut, 0),
            probed=put(f.probed, jnp.zeros((k,), jnp.bool_)),
            probe=put(f.probe, jnp.zeros((k, 3), jnp.float32)),
            reuse=put(f.reuse, reuse),
        )
        return lane._replace(frames=frames)

    def frame_value(f: Frames, t):
        """The fail-soft value of frame ``t`` as it stands."""
        return jnp.where(f.kind[t] == CHANCE_KIND, _chance_value(f, t), f.best[t])

    def stopped(f: Frames, t):
        """Has frame ``t`` reached a cutoff?"""
        kind, alpha, beta, best = f.kind[t], f.alpha[t], f.beta[t], f.best[t]
        p = f.prob[t]
        chance_cut = (f.cut[t] > 0) | ((p @ f.lo[t]) >= beta) | ((p @ f.hi[t]) <= alpha)
        decision_cut = jnp.where(kind == MAX, best >= beta, best <= alpha)
        return jnp.where(
            kind == CHANCE_KIND,
            chance_cut & chance_cuts,
            decision_cut & decision_cuts,
        )

    def child_window(f: Frames, t, move):
        """The window for the child ``move`` of frame ``t``."""
        kind, alpha, beta, best = f.kind[t], f.alpha[t], f.beta[t], f.best[t]
        r = jnp.clip(move, 0, k - 1)
        p, lo, hi = f.prob[t], f.lo[t], f.hi[t]
        pr = jnp.maximum(p[r], 1e-30)
        a = (alpha - (p @ hi - p[r] * hi[r])) / pr
        b = (beta - (p @ lo - p[r] * lo[r])) / pr
        chance_window = (jnp.maximum(a, low), jnp.minimum(b, high)) if chance_cuts else (low, high)
        if decision_cuts:
            dec_alpha = jnp.where(kind == MAX, jnp.maximum(alpha, best), alpha)
            dec_beta = jnp.where(kind == MAX, beta, jnp.minimum(beta, best))
        else:
            dec_alpha, dec_beta = jnp.float32(low), jnp.float32(high)
        is_chance = kind == CHANCE_KIND
        return (
            jnp.where(is_chance, chance_window[0], dec_alpha).astype(jnp.float32),
            jnp.where(is_chance, chance_window[1], dec_beta).astype(jnp.float32),
        )

    def give(lane: Lane, t, move, value, c_alpha, c_beta, c_kind, c_exact, c_pv, active):
        """Report the child ``move``'s fail-soft ``value`` (searched with (c_alpha, c_beta);
        ``c_exact``: a leaf, whose value is exact whatever the window)."""
        f = lane.frames
        kind = f.kind[t]
        # decision frames: a better move
        improves = active & jnp.where(kind == MAX, value > f.best[t], value < f.best[t])
        improves = improves & (kind != CHANCE_KIND)
        line = jnp.concatenate([move[None], c_pv[:-1]])
        # chance frames: tighten the outcome's bounds
        r = jnp.clip(move, 0, k - 1)
        probing = f.phase[t] == 0
        lo_r, hi_r = f.lo[t, r], f.hi[t, r]
        # a window clipped at L (or U) cannot be failed on that side: no value lies beyond
        exact = c_exact | (
            ((value > c_alpha) | (c_alpha <= low)) & ((value < c_beta) | (c_beta >= high))
        )
        fail_high = ~exact & (value >= c_beta)
        fail_low = ~exact & (value <= c_alpha)
        new_lo = jnp.where(
            probing & ~c_exact,
            jnp.where((c_kind == MAX) & (value > c_alpha), jnp.maximum(lo_r, value), lo_r),
            jnp.where(exact | fail_high, value, lo_r),
        )
        new_hi = jnp.where(
            probing & ~c_exact,
            jnp.where((c_kind == MIN) & (value < c_beta), jnp.minimum(hi_r, value), hi_r),
            jnp.where(exact | fail_low, value, hi_r),
        )
        on_chance = active & (kind == CHANCE_KIND)
        record = on_chance & probing & ~c_exact  # a probed decision node reports
        # a full-pass answer outside its window decides the frame (Star1), whatever the
        # rounding of the sums says
        cut = jnp.where(fail_high, 1, jnp.where(fail_low, 2, 0))
        cut = jnp.where(on_chance & ~probing & chance_cuts, cut, 0)
        frames = f._replace(
            best=f.best.at[t].set(jnp.where(improves, value, f.best[t])),
            best_move=f.best_move.at[t].set(jnp.where(improves, move, f.best_move[t])),
            pv=f.pv.at[t].set(jnp.where(improves, line, f.pv[t])),
            lo=f.lo.at[t, r].set(jnp.where(on_chance, new_lo, lo_r)),
            hi=f.hi.at[t, r].set(jnp.where(on_chance, new_hi, hi_r)),
            cut=f.cut.at[t].set(jnp.maximum(f.cut[t], cut)),
            probed=f.probed.at[t, r].set(f.probed[t, r] | record),
            probe=f.probe.at[t, r].set(
                jnp.where(record, jnp.stack([value, c_alpha, c_beta]), f.probe[t, r])
            ),
        )
        return lane._replace(frames=frames)

    def advance(lane: Lane) -> Lane:
        f = lane.frames
        sp = lane.sp
        live = ~lane.done
        kind = f.kind[sp]
        cursor, count = f.cursor[sp], f.count[sp]
        is_chance = kind == CHANCE_KIND
        cut = stopped(f, sp)
        more = cursor < count
        expand = live & more & ~cut
        next_pass = live & ~more & ~cut & is_chance & (f.phase[sp] == 0)
        finish = live & ~expand & ~next_pass

        # ---- the next branch
        row = f.keys[sp]
        move = jnp.argmax(row).astype(jnp.int32)
        parent = jax.tree.map(lambda x: x[sp], f.state)
        child = game.step(parent, move)
        c_player = game.player(child)
        c_kind = jnp.where(c_player == CHANCE, CHANCE_KIND, jnp.clip(c_player, 0, 1))
        c_alpha, c_beta = child_window(f, sp, move)
        remaining = depth - sp
        is_leaf = game.terminal(child) | (remaining - 1 <= 0)
        leaf = leaf_values(game, child)[0]
        probing = is_chance & (f.phase[sp] == 0)
        skip = probing & (c_kind == CHANCE_KIND) & ~is_leaf  # a chance node has no probe
        r = jnp.clip(move, 0, k - 1)
        known = is_chance & ~probing & (f.lo[sp, r] == f.hi[sp, r])  # exact from the probe
        skip = skip | known
        # a decision frame's first move, already searched by Star2's probe: its answer
        # stands if it decides the window the move would be searched with now
        held, w, w_alpha, w_beta = (
            f.reuse[sp, 0] > 0,
            f.reuse[sp, 1],
            f.reuse[sp, 2],
            f.reuse[sp, 3],
        )
        settled_before = (w > w_alpha) & (w < w_beta)
        usable = (
            settled_before | ((w >= w_beta) & (w >= c_beta)) | ((w <= w_alpha) & (w <= c_alpha))
        )
        reused = ~is_chance & (cursor == 0) & held & usable
        settle = expand & (is_leaf | reused) & ~known
        push = expand & ~is_leaf & ~skip & ~reused

        # ---- the finished frame, for its parent
        up = jnp.maximum(sp - 1, 0)
        value = frame_value(f, sp)
        left_early = finish & (cursor < count)
        lane = lane._replace(
            cutoffs=lane.cutoffs + (left_early & ~is_chance).astype(jnp.int32),
            chance_cutoffs=lane.chance_cutoffs
            + (left_early & is_chance & (f.phase[sp] == 1)).astype(jnp.int32),
            probe_cutoffs=lane.probe_cutoffs
            + (left_early & is_chance & (f.phase[sp] == 0)).astype(jnp.int32),
            nodes=lane.nodes + ((settle & ~reused) | push).astype(jnp.int32),
            leaves=lane.leaves + (settle & ~reused).astype(jnp.int32),
        )
        # the branch is used up in this pass; a new pass restores the outcome order
        f = lane.frames
        restored = (
            jnp.full((width,), -jnp.inf)
            .at[:k]
            .set(jnp.where(f.prob[sp] > 0, -jnp.arange(k, dtype=jnp.float32), -jnp.inf))
        )
        keys = jnp.where(next_pass, restored, jnp.where(expand, row.at[move].set(-jnp.inf), row))
        f = f._replace(
            keys=f.keys.at[sp].set(keys),
            cursor=f.cursor.at[sp].set(jnp.where(next_pass, 0, cursor + expand)),
            phase=f.phase.at[sp].set(jnp.where(next_pass, 1, f.phase[sp])),
            last=f.last.at[sp].set(jnp.where(expand, move, f.last[sp])),
        )
        lane = lane._replace(frames=f)
        # a settled leaf reports to this frame; a finished frame reports to its parent
        lane = give(
            lane,
            jnp.where(settle, sp, up),
            jnp.where(settle, move, f.last[up]),
            jnp.where(settle, jnp.where(reused, w, leaf), value),
            jnp.where(settle, c_alpha, f.alpha[sp]),
            jnp.where(settle, c_beta, f.beta[sp]),
            kind,
            settle & ~reused,
            jnp.where(settle, jnp.full((frames_n,), -1, jnp.int32), f.pv[sp]),
            settle | (finish & (sp > 0)),
        )
        from_probe = is_chance & ~probing & f.probed[sp, r]
        reuse = jnp.where(
            from_probe, jnp.concatenate([jnp.ones((1,)), f.probe[sp, r]]), jnp.zeros((4,))
        )
        lane = open_frame(lane, sp + 1, child, c_alpha, c_beta, probing, reuse, push)
        return lane._replace(
            sp=jnp.where(push, sp + 1, jnp.where(finish, up, sp)),
            done=lane.done | (finish & (sp == 0)),
        )

    def start(root, root_id):
        """A lane searching ``root`` (``root_id < 0``: idle)."""
        frames = Frames(
            state=jax.tree.map(lambda x: jnp.zeros((frames_n, *x.shape), x.dtype), root),
            kind=jnp.zeros((frames_n,), jnp.int32),
            alpha=jnp.zeros((frames_n,), jnp.float32),
            beta=jnp.zeros((frames_n,), jnp.float32),
            best=jnp.zeros((frames_n,), jnp.float32),
            best_move=jnp.full((frames_n,), -1, jnp.int32),
            keys=jnp.full((frames_n, width), -jnp.inf, jnp.float32),
            count=jnp.zeros((frames_n,), jnp.int32),
            cursor=jnp.zeros((frames_n,), jnp.int32),
            phase=jnp.ones((frames_n,), jnp.int32),
            prob=jnp.zeros((frames_n, k), jnp.float32),
            lo=jnp.zeros((frames_n, k), jnp.float32),
            hi=jnp.zeros((frames_n, k), jnp.float32),
            pv=jnp.full((frames_n, frames_n), -1, jnp.int32),
            last=jnp.full((frames_n,), -1, jnp.int32),
            cut=jnp.zeros((frames_n,), jnp.int32),
            probed=jnp.zeros((frames_n, k), jnp.bool_),
            probe=jnp.zeros((frames_n, k, 3), jnp.float32),
            reuse=jnp.zeros((frames_n, 4), jnp.float32),
        )
        zero = jnp.int32(0)
        lane = Lane(frames, zero, root_id < 0, root_id, jnp.int32(1), zero, zero, zero, zero)
        no_reuse = jnp.zeros((4,), jnp.float32)
        lane = open_frame(lane, 0, root, jnp.float32(low), jnp.float32(high), False, no_reuse, True)
        # a terminal root, or depth 0, is its own leaf: no branch to try, the value fixed
        is_leaf = game.terminal(root) | (depth <= 0)
        leaf = leaf_values(game, root)[0]
        f = lane.frames
        f = f._replace(
            kind=f.kind.at[0].set(jnp.where(is_leaf, MAX, f.kind[0])),
            best=f.best.at[0].set(jnp.where(is_leaf, leaf, f.best[0])),
            count=f.count.at[0].set(jnp.where(is_leaf, 0, f.count[0])),
        )
        return lane._replace(frames=f, leaves=is_leaf.astype(jnp.int32))

    return start, advance, frames_n


class Results(NamedTuple):
    value: jax.Array  # float32[N]: player 0's value
    best_move: jax.Array  # int32[N]
    pv: jax.Array  # int32[N, F]
    nodes: jax.Array  # int32[N]
    leaves: jax.Array  # int32[N]
    cutoffs: jax.Array  # int32[N]
    chance_cutoffs: jax.Array  # int32[N]
    probe_cutoffs: jax.Array  # int32[N]


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4, 5))
def _search(
    game: Game, depth: int, pruning: int, lookahead: bool, num_lanes: int, events: int, roots
) -> Results:
    """Every root searched by ``num_lanes`` lanes fed from a work queue."""
    start, advance, frames_n = _fns(game, depth, pruning, lookahead)
    n = batch_size(roots)
    lane_ids = jnp.arange(num_lanes, dtype=jnp.int32)
    starts = jax.vmap(start)
    first = jnp.where(lane_ids < n, lane_ids, -1)
    lanes = starts(jax.tree.map(lambda x: x[jnp.clip(lane_ids, 0, n - 1)], roots), first)
    results = Results(
        value=jnp.zeros((n,), jnp.float32),
        best_move=jnp.full((n,), -1, jnp.int32),
        pv=jnp.full((n, frames_n), -1, jnp.int32),
        nodes=jnp.zeros((n,), jnp.int32),
        leaves=jnp.zeros((n,), jnp.int32),
        cutoffs=jnp.zeros((n,), jnp.int32),
        chance_cutoffs=jnp.zeros((n,), jnp.int32),
        probe_cutoffs=jnp.zeros((n,), jnp.int32),
    )
    advance_all = jax.vmap(advance)

    def cond(carry):
        return jnp.any(carry[0].root >= 0)

    def body(carry):
        lanes, results, next_root = carry
        lanes = jax.lax.fori_loop(0, events, lambda _, x: advance_all(x), lanes)
        finished = lanes.done & (lanes.root >= 0)
        slot = jnp.where(finished, lanes.root, n)  # out of range: dropped
        f = lanes.frames
        results = Results(
            value=results.value.at[slot].set(jax.vmap(lambda fr: _root_value(fr))(f), mode="drop"),
            best_move=results.best_move.at[slot].set(f.best_move[:, 0], mode="drop"),
            pv=results.pv.at[slot].set(f.pv[:, 0], mode="drop"),
            nodes=results.nodes.at[slot].set(lanes.nodes, mode="drop"),
            leaves=results.leaves.at[slot].set(lanes.leaves, mode="drop"),
            cutoffs=results.cutoffs.at[slot].set(lanes.cutoffs, mode="drop"),
            chance_cutoffs=results.chance_cutoffs.at[slot].set(lanes.chance_cutoffs, mode="drop"),
            probe_cutoffs=results.probe_cutoffs.at[slot].set(lanes.probe_cutoffs, mode="drop"),
        )
        rank = jnp.cumsum(finished.astype(jnp.int32)) - 1
        fresh = next_root + rank
        fresh = jnp.where(finished & (fresh < n), fresh, -1)
        new = starts(jax.tree.map(lambda x: x[jnp.clip(fresh, 0, n - 1)], roots), fresh)

        def pick(a, b):
            return jnp.where(finished.reshape((-1,) + (1,) * (a.ndim - 1)), a, b)

        lanes = jax.tree.map(pick, new, lanes)
        return lanes, results, next_root + jnp.sum(finished.astype(jnp.int32))

    _, results, _ = jax.lax.while_loop(cond, body, (lanes, results, jnp.int32(num_lanes)))
    return results


def _chance_value(f: Frames, t) -> jax.Array:
    """A chance frame's fail-soft value: ``sum p lo`` once all is known, or the bound that
    cleared the window (at least beta on a fail high, at most alpha on a fail low)."""
    p_lo = f.prob[t] @ f.lo[t]
    p_hi = f.prob[t] @ f.hi[t]
    high = (f.cut[t] == 1) | (p_lo >= f.beta[t])
    low = (f.cut[t] == 2) | (p_hi <= f.alpha[t])
    return jnp.where(
        high, jnp.maximum(p_lo, f.beta[t]), jnp.where(low, jnp.minimum(p_hi, f.alpha[t]), p_lo)
    )


def _root_value(f: Frames) -> jax.Array:
    """Frame 0's value once the lane is done (a chance root: its expectation)."""
    return jnp.where(f.kind[0] == CHANCE_KIND, _chance_value(f, 0), f.best[0])


def star_lanes(
    game: Game,
    states: Any,
    depth: int,
    pruning: str,
    *,
    order: str = "hint",
    lanes: int = 256,
    events: int = 16,
) -> BatchSearchResult:
    """Expectiminimax of many roots at once on the device (see the module docstring).

    Args:
        game: a two-player zero-sum game (chance nodes allowed).
        states: a batch ``[N]`` of roots.
        depth: plies below each root, chance plies included.
        pruning: ``"none"``, ``"alphabeta"``, ``"star1"`` or ``"star2"``.
        order: decision moves in the order of the game's ``move_order_scores``
            (``"hint"``), or best-first by the EVAL of every child (``"lookahead"``: steps
            every action of every node opened, worth it when the action space is narrow).
        lanes: searches run side by side (at most N are used).
        events: lane events between two refills from the work queue.
    """
    start_time = time.perf_counter()
    n = batch_size(states)
    if n == 0:
        raise ValueError("expectiminimax: no positions")
    roots = jax.tree.map(jnp.asarray, states)
    if order not in ("hint", "lookahead"):
        raise ValueError(f"expectiminimax: order must be 'hint' or 'lookahead', got {order!r}")
    lookahead = order == "lookahead"
    res = progress.compiled_call(
        _search,
        *(game, depth, PRUNING_CODES[pruning], lookahead, min(lanes, n), events, roots),
        what=f"expectiminimax of {n:,} positions",
    )
    res = to_numpy(res)
    value = np.stack([res.value, -res.value], axis=1).astype(np.float32)
    return BatchSearchResult(
        value=value,
        best_action=res.best_move.astype(np.int32),
        pv=res.pv[:, :depth],
        nodes=res.nodes.astype(np.int64),
        stats={
            "nodes": int(res.nodes.sum()),
            "leaves": int(res.leaves.sum()),
            "cutoffs": int(res.cutoffs.sum()),
            "chance_cutoffs": int(res.chance_cutoffs.sum()),
            "probe_cutoffs": int(res.probe_cutoffs.sum()),
            "time_s": time.perf_counter() - start_time,
        },
    )


__all__ = ["star_lanes"]
