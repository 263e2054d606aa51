"""One event of a Star lane (pop the current frame if it is done, then expand the next
child), and the other hooks the lane engine calls."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxgames.search import lanes as engine
from jaxgames.search.star_lanes.frames import (
    CHANCE_KIND,
    MAX,
    Frame,
    Lane,
    Outcome,
    empty,
    fail_soft,
    pack,
    select,
    unpack,
)
from jaxgames.search.star_lanes.lists import fill
from jaxgames.search.star_lanes.nodes import Nodes


class Search(Nodes):
    """The lane engine's hooks of one compiled expectiminimax search."""

    def start(self, root, job, iteration, plan, helper, old, same, shared) -> Lane:
        """A lane searching ``root`` (``job < 0``: idle); ``old``, the lane it was."""
        del plan, helper, same, shared
        config = self.config
        f = config.frames
        empty_row = pack(empty(config))
        depth = config.depth
        frame = self.open(
            root,
            jnp.float32(config.low),
            jnp.float32(config.high),
            False,
            jnp.zeros((4,), jnp.float32),
        )
        # a terminal root, or depth 0, is its own leaf: no branch to try, the value fixed
        is_leaf = self.game.terminal(root) | (depth <= 0)
        frame = frame._replace(
            kind=jnp.where(is_leaf, MAX, frame.kind),
            # a root searched deeper is a leaf only when the game is over: UTILITY alone
            best=jnp.where(
                is_leaf,
                self.leaf(root) if depth <= 0 else self.game.utility(root)[0],
                frame.best,
            ),
            count=jnp.where(is_leaf, 0, frame.count),
        )
        rows = jnp.broadcast_to(empty_row, (f, empty_row.shape[0])).at[0].set(pack(frame))
        state = jax.tree.map(lambda x: jnp.zeros((f, *x.shape), x.dtype).at[0].set(x), root)
        zero = jnp.int32(0)
        if old is None:
            moves = jnp.full((f, config.max_moves + config.leaf_batch), -1, config.move_dtype)
            kept = jnp.zeros(
                (config.outcomes, config.max_moves) if config.keep_lists else (0, 0),
                config.move_dtype,
            )
        else:  # nothing is read there before it is written: the lists need no clearing
            moves, kept = old.moves, old.kept
        return Lane(
            state=state,
            rows=rows,
            moves=moves,
            kept=kept,
            sp=zero,
            pending=(job >= 0) & ~is_leaf & (frame.kind != CHANCE_KIND),
            done=job < 0,
            job=job,
            iteration=iteration,
            nodes=jnp.int32(1),
            leaves=is_leaf.astype(jnp.int32),
            cutoffs=zero,
            chance_cutoffs=zero,
            probe_cutoffs=zero,
        )

    def advance(self, lanes: Lane, shared: Any) -> tuple[Lane, Any]:
        """One event of every lane: the list pass, then each lane's :meth:`event`."""
        lanes = fill(self, lanes)
        return jax.vmap(self.event)(lanes), shared

    def event(self, lane: Lane) -> Lane:
        """Pop the current frame if it is done, then expand the (new) current frame."""
        lane, cur = self.pop(lane)
        return self.expand(lane, cur)

    def pop(self, lane: Lane) -> tuple[Lane, Frame]:
        """A frame with nothing left (or cut) reports to its parent and leaves the stack;
        returns the lane and its current frame after that."""
        config = self.config
        sp = lane.sp
        up = jnp.maximum(sp - 1, 0)
        cur = unpack(lane.rows[sp], config)
        par = unpack(lane.rows[up], config)
        is_chance = cur.kind == CHANCE_KIND
        ahead = self.ahead(cur)
        more = ahead.cursor < ahead.count
        stop = self.stopped(cur)
        finish = ~lane.done & (~more | stop)
        left_early = finish & stop & (cur.cursor < cur.count)
        reported = self.give(
            par,
            par.last,
            self.value(cur),
            cur.alpha,
            cur.beta,
            cur.kind,
            jnp.bool_(False),
            cur.pv,
            finish & (sp > 0),
        )
        lane = lane._replace(
            rows=engine.write_row(lane.rows, up, pack(reported), finish & (sp > 0)),
            sp=jnp.where(finish, up, sp),
            done=lane.done | (finish & (sp == 0)),
            cutoffs=lane.cutoffs + (left_early & ~is_chance).astype(jnp.int32),
            chance_cutoffs=lane.chance_cutoffs
            + (left_early & is_chance & (cur.phase == 1)).astype(jnp.int32),
            probe_cutoffs=lane.probe_cutoffs
            + (left_early & is_chance & (cur.phase == 0)).astype(jnp.int32),
        )
        return lane, select(finish, reported, cur)

    def expand(self, lane: Lane, cur: Frame) -> Lane:
        """Expand the current frame's next child (at the horizon's edge, up to W of them):
        settle it here (a leaf, a reused probe answer, a fringe chance node), or push its
        frame."""
        game, config = self.game, self.config
        k, w = config.outcomes, config.leaf_batch
        sp = lane.sp
        is_chance = cur.kind == CHANCE_KIND
        stop = self.stopped(cur)
        cur = self.ahead(cur)
        probing = is_chance & (cur.phase == 0)
        expand = ~lane.done & (cur.cursor < cur.count) & ~stop
        remaining = config.depth - sp  # plies below the current frame
        edge = remaining <= 1  # its children are leaves
        # the children from the cursor on, in list order: moves, or outcomes
        listed = jax.lax.dynamic_slice(lane.moves, (sp, cur.cursor), (1, w))[0]
        outs = jnp.concatenate([cur.outcomes, jnp.full((w,), -1, jnp.int32)])
        outs = jax.lax.dynamic_slice(outs, (jnp.minimum(cur.cursor, k),), (w,))
        acts = jnp.where(is_chance, outs, listed.astype(jnp.int32))
        move = acts[0]
        parent = jax.tree.map(lambda x: x[sp], lane.state)
        child = game.step(parent, jnp.maximum(move, 0))
        c_kind = self.kind(child)
        c_alpha, c_beta = self.child_window(cur, move)
        terminal = game.terminal(child)
        # a chance child one ply above the horizon is valued now: its outcomes are leaves
        fringe = ~edge & (remaining == 2) & (c_kind == CHANCE_KIND) & ~terminal
        c_prob = self.probs(child)
        (c_outs,) = jnp.nonzero(c_prob > 0, size=k, fill_value=-1)
        c_outs = jnp.full((w,), -1, jnp.int32).at[:k].set(c_outs.astype(jnp.int32))
        # one batch of W children serves both: the current frame's next ones at the edge,
        # the fringe chance child's outcomes elsewhere
        base = select(edge, parent, child)
        batch = jnp.where(edge, acts, c_outs)
        values = jax.vmap(lambda a: self.leaf(game.step(base, jnp.maximum(a, 0))))(batch)
        reused, pw = self.reused_probe(cur, is_chance, c_alpha, c_beta)

        # -- at the edge: up to W leaves at once; elsewhere: one child, settled here (a
        # leaf, a reused probe answer, a fringe chance node) or opened as a frame
        at_edge = expand & edge
        single = expand & ~edge
        skip = probing & (c_kind == CHANCE_KIND) & ~terminal  # a chance node has no probe
        settle = single & ~skip & (terminal | reused | fringe)
        push = single & ~skip & ~terminal & ~reused & ~fringe
        fringed = settle & fringe & ~reused
        # one fold serves both (a lane does one or the other): the edge frame's next
        # children, or the fringe node's outcomes
        possible = jnp.sum(c_prob > 0)
        folded, taken, (sum_lo, sum_hi) = self.fold(
            select(edge, cur, self.fringe_frame(c_alpha, c_beta, c_prob)),
            batch,
            values.at[0].set(jnp.where(reused, pw, values[0])),
            jnp.where(edge, cur.count - cur.cursor, possible),
            at_edge | fringed,
        )
        # the fringe node's value from the same sums that decided where it stopped
        fringe_value = fail_soft(sum_lo, sum_hi, c_alpha, c_beta, jnp.int32(0))
        leaf_now = terminal & ~reused
        finished = game.utility(child)[0]  # a terminal child (EVAL is not needed)
        settled_value = jnp.where(reused, pw, jnp.where(terminal, finished, fringe_value))
        no_line = jnp.full((config.frames,), -1, jnp.int32)
        given = self.give(
            cur, move, settled_value, c_alpha, c_beta, c_kind, leaf_now, no_line, settle
        )
        here = select(at_edge, folded, given)
        here = here._replace(
            cursor=here.cursor + jnp.where(at_edge, taken, single.astype(jnp.int32)),
            last=jnp.where(single, move, here.last),
        )
        searched = taken - (reused & (taken > 0)).astype(jnp.int32)
        leaves = jnp.where(at_edge, searched, 0) + (settle & leaf_now)
        leaves = leaves + jnp.where(fringed, taken, 0)
        # a fringe node left early counts as its frame would (Star2 probes leaves first)
        fringe_cut = (fringed & (taken < possible)).astype(jnp.int32)
        lane = lane._replace(
            nodes=lane.nodes + leaves + (fringed | push).astype(jnp.int32),
            leaves=lane.leaves + leaves,
            chance_cutoffs=lane.chance_cutoffs + (0 if self.star2 else fringe_cut),
            probe_cutoffs=lane.probe_cutoffs + (fringe_cut if self.star2 else 0),
        )
        opened = self.child_frame(cur, is_chance & ~probing, probing, move, child, c_alpha, c_beta)
        rows = engine.write_row(lane.rows, sp, pack(here), expand)
        rows = engine.write_row(rows, sp + 1, pack(opened), push)
        return lane._replace(
            rows=rows,
            state=engine.write_row(lane.state, sp + 1, child, push),
            sp=jnp.where(push, sp + 1, sp),
            pending=push & (c_kind != CHANCE_KIND),
        )

    def reused_probe(self, cur: Frame, is_chance, c_alpha, c_beta) -> tuple[Any, Any]:
        """Star2: a decision frame's first move, already searched by the probe: its answer
        stands if it decides the window the move would be searched with now. Returns
        whether it stands, and the answer."""
        held, pw, pw_alpha, pw_beta = cur.reuse[0] > 0, cur.reuse[1], cur.reuse[2], cur.reuse[3]
        usable = ((pw > pw_alpha) & (pw < pw_beta)) | ((pw >= pw_beta) & (pw >= c_beta))
        usable = usable | ((pw <= pw_alpha) & (pw <= c_alpha))
        return ~is_chance & (cur.cursor == 0) & held & usable, pw

    def fringe_frame(self, c_alpha, c_beta, c_prob) -> Frame:
        """The frame a fringe chance child would have: its outcomes are folded into it at
        once, not searched one by one."""
        config = self.config
        k = config.outcomes
        return empty(config)._replace(
            kind=jnp.int32(CHANCE_KIND),
            alpha=c_alpha,
            beta=c_beta,
            prob=c_prob,
            lo=jnp.full((k,), config.low, jnp.float32),
            hi=jnp.full((k,), config.high, jnp.float32),
        )

    def child_frame(self, cur: Frame, full_pass, probing, move, child, c_alpha, c_beta) -> Frame:
        """The frame of the child pushed; in a chance frame's full pass, it carries what
        the probe found of the child's first move (``reuse``)."""
        r = jnp.clip(move, 0, self.config.outcomes - 1)
        from_probe = full_pass & cur.probed[r]
        reuse = jnp.where(
            from_probe, jnp.concatenate([jnp.ones((1,)), cur.probe[r]]), jnp.zeros((4,))
        )
        return self.open(child, c_alpha, c_beta, probing, reuse)

    def outcome(self, lane: Lane) -> Outcome:
        """The root's value, best move and principal variation."""
        top = unpack(lane.rows[0], self.config)
        return Outcome(self.value(top), top.best_move, top.pv)
