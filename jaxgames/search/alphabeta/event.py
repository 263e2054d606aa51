"""One event of one lane: finish the current frame if it is done, then expand a move.

In negamax form, every value is seen from the player to move at its node::

    ALPHA-BETA(s, d, alpha, beta):
        if TERMINAL-TEST(s): return UTILITY(s)[PLAYER(s)]
        if d == 0:           return EVAL(s)[PLAYER(s)]          (H-MINIMAX cutoff)
        best = -inf
        for a in ORDERED-ACTIONS(s):
            v = ALPHA-BETA(RESULT(s, a), d-1, -beta, -alpha), negated when the mover changes
            best = max(best, v); alpha = max(alpha, v)
            if alpha >= beta: break                                 (a cutoff)
        return best                                                 (fail-soft)

An event has two halves. :meth:`Search.pop`: a current frame with no move left (or cut)
reports its value to its parent, gives its entry to the table and leaves the stack.
:meth:`Search.choose` then picks the (new) current frame's next move (the highest key) and
computes its child: its window, whether it is a leaf, whether the table or ProbCut settles
it; :meth:`Search.conclude` reports a settled child to the frame, or pushes the child's
frame (opened by :mod:`~jaxgames.search.alphabeta.opening`, only for the lanes that
push). With ``last_ply``, a child one ply above the horizon needs no frame:
:meth:`Search.fringe` steps and evaluates all its moves at once and its exact value goes
straight to its parent.

Options that change the tree (quiescence, null move, singular and check extensions, late
move reductions, ProbCut, beam) each have their own few lines here, each under ``if
config.<option>``, so a search compiles only what it uses.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.game import Game
from jaxgames.kernels import leaf_values
from jaxgames.search.alphabeta import frames, moves, table
from jaxgames.search.alphabeta.frames import Frame, Lane, Stack
from jaxgames.search.alphabeta.opening import (
    Opening,
    add_history,
    memory_at,
    open_frame,
    open_pushed,
)
from jaxgames.search.alphabeta.options import Config

NEG_INF = -jnp.inf
NULL_MOVE = -2  # the move of a null move (the side to move passes)
UNROLL = 16  # the fringe steps up to this many moves one by one (each a constant)
NULL_WIDTH = 2.0**-20
"""The width of a null window ``(g - NULL_WIDTH, g)``: not ``nextafter``, whose step below
0 is a denormal that XLA's CPU code flushes to 0 (an empty window). A value strictly
inside the window is simply exact (fail-soft), so any width is correct."""


class Child(NamedTuple):
    """What the expanding half hands from choosing the move to concluding, per lane (values
    from the current frame's mover's side unless named for the child)."""

    sp: jax.Array  # int32: the current frame
    cur: Frame
    expand: jax.Array  # bool: this event expands a child
    slot: jax.Array  # int32: the child's slot in the current frame's list
    move: jax.Array  # int32: the child's move (NULL_MOVE for the null-move probe)
    null_now: jax.Array  # bool: the child is the null-move probe
    parent: Any  # the current frame's state
    child: Any  # the state after the move
    remaining: jax.Array  # int32: plies left below the child
    extend: jax.Array  # int32: plies the child is extended by (singular, check)
    reduce: jax.Array  # bool: the child is searched reduced (late move reduction)
    sign: jax.Array  # float32: +1 when the child's mover is the frame's, else -1
    alpha: jax.Array  # float32: the child's window, from its mover's side
    beta: jax.Array  # float32
    terminal: jax.Array  # bool: the child is a finished game
    leaf_value: jax.Array  # float32: the child's leaf value (frame's side)
    is_leaf: jax.Array  # bool: finished, or at the horizon
    on_pv: jax.Array  # bool: the child is on the previous principal variation
    complete: jax.Array  # bool: the child's search reaches every end
    tt_value: jax.Array  # float32: the table's (or the fringe's) value (child's side)
    tt_stop: jax.Array  # bool: the table settles the child
    tt_move: jax.Array  # int32: the table's move for the child (-1: none)
    probcut_stop: jax.Array  # bool
    probcut_value: jax.Array  # float32 (child's side)
    exact_hit: jax.Array  # bool: the game's exact value settles the child (a table)
    frontier: jax.Array  # bool: the child is one ply above the horizon (last_ply)


class Search:
    """The per-lane functions of one compiled alpha-beta search."""

    def __init__(self, game: Game, config: Config) -> None:
        self.game, self.config = game, config
        self.players = game.num_players

    # ------------------------------------------------------------ helpers
    def _view(self, mover: jax.Array) -> jax.Array:
        return jnp.clip(mover, 0, self.players - 1)

    def _leaf(self, state) -> jax.Array:
        """A leaf's value vector: UTILITY of a finished game, else EVAL; where every leaf of
        the search is a finished game (``config.eval_leaves`` off), UTILITY alone, so EVAL
        is not computed at every node for nothing."""
        values = (
            leaf_values(self.game, state) if self.config.eval_leaves else self.game.utility(state)
        )
        if self.config.exact:  # a position the game knows exactly (a table) is worth that
            known, exact = self._exact(state)
            values = jnp.where(known, exact, values)
        return values

    def _exact(self, state) -> tuple[jax.Array, jax.Array]:
        """(known, values): the game's exact value of a position the game is not over in
        (:class:`~jaxgames.capabilities.ExactValues`)."""
        known, exact = self.game.exact_values(state)
        return known & ~self.game.terminal(state), exact

    def _complete(self, state, remaining: jax.Array) -> jax.Array:
        """A search of ``remaining`` plies from ``state`` reaches every end."""
        if not self.config.complete:
            return jnp.bool_(False)
        return remaining >= self.game.plies_left(state)

    def _tt_move(self, table_, state) -> jax.Array:
        entry = table.probe(table_, self.game.hash(state), self.config.tt_bits)
        return jnp.where(entry.hit, entry.move, -1)

    # ------------------------------------------------------------ a node opened
    # ------------------------------------------------------------ a value reported
    def give(self, lane: Lane, fr: Frame, sp, value, move, child_pv, remaining, active):
        """Report ``value`` (the frame's mover's side) of ``move`` to ``fr`` (stack index
        ``sp``). Returns the lane (killers, history, cutoffs) and the updated frame. A null
        move's report counts only when it reaches beta; it is never a best move."""
        config = self.config
        is_null = move == NULL_MOVE
        old_best = fr.best
        if config.null_move:
            active = active & (~is_null | (value >= fr.beta))
        if config.lmr:  # a reduced child that beats alpha is searched again, in full
            again = active & fr.reduced & (value > fr.alpha)
            active = active & ~again
            fr = fr._replace(
                research=again,
                keys=jnp.where(again, fr.keys.at[fr.last_slot].set(jnp.inf), fr.keys),
                cursor=jnp.where(again, fr.cursor - 1, fr.cursor),
            )
        improves = active & (value > old_best)
        line = jnp.concatenate([move[None], child_pv[:-1]])  # [F]
        line = jnp.where(is_null, -1, line)
        out = fr._replace(
            best=jnp.where(improves, value, fr.best),
            best_move=jnp.where(improves & ~is_null, move, fr.best_move),
            pv=jnp.where(improves, line, fr.pv),
            alpha=jnp.where(active, jnp.maximum(fr.alpha, value), fr.alpha),
            reduced=jnp.bool_(False),
        )
        if config.singular:  # the runner-up, for the singularity test
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
        if config.killers:
            k = lane.killers[sp]
            new_k = jnp.where(move == k[0], k, jnp.stack([move, k[0]]))
            killers = lane.killers.at[sp].set(jnp.where(quiet_cut, new_k, k))
            lane = lane._replace(killers=killers)
        if config.history:
            mover = jnp.clip(fr.mover, 0, 1)
            bonus = jnp.where(quiet_cut, (remaining * remaining).astype(jnp.float32), 0.0)
            # one entry changes: read and write that entry alone (a whole row of the
            # action space rewritten twice an event cost a fifth of a wide game's search)
            slot = jnp.maximum(move, 0)
            raised = lane.history[mover, slot] + jnp.where(move >= 0, bonus, 0.0)
            history = lane.history.at[mover, slot].set(jnp.minimum(raised, moves.HISTORY_CAP))
            lane = lane._replace(history=history)
        return lane, out

    # ------------------------------------------------------------ first half: pop
    def pop(self, lane: Lane, table_: jax.Array) -> tuple[Lane, Frame, Any]:
        """A current frame that has no move left to search (or was cut) reports its value
        to its parent and leaves the stack; the parent becomes current. Returns the lane,
        the current frame after this, and the finished frame's write to the table.

        Popping and expanding in the same event keeps every lane expanding a node in
        nearly every event, where one or the other per event spent half the events (and
        all the game's work in them) on returns."""
        game, config = self.game, self.config
        sp = lane.sp
        up = jnp.maximum(sp - 1, 0)
        cur = frames.unpack(lane.stack.rows[sp], config)
        par = frames.unpack(lane.stack.rows[up], config)
        finish = ~lane.done & ~self._can_expand(cur)
        if config.singular:
            # a node whose value is exact, with enough plies left, whose best move beats
            # every other by `margin`, searches that move again one ply deeper
            min_depth, margin, max_ext = config.singular
            singular = (
                finish
                & (cur.remaining >= min_depth)
                & (cur.ext < max_ext)
                & (cur.extended == 0)
                & (cur.best_move >= 0)
                & (cur.best > cur.alpha0)
                & (cur.best < cur.beta)
                & (cur.best - cur.second >= margin)
            )
            finish = finish & ~singular
            cur = jax.tree.map(
                lambda a, b: jnp.where(singular, a, b), _singular_again(config, cur), cur
            )
        value = cur.best
        up_value = jnp.where(par.mover == cur.mover, value, -value)
        lane, reported = self.give(
            lane, par, up, up_value, par.last_move, cur.pv, par.remaining, finish & (sp > 0)
        )
        rows = frames.write(lane.stack.rows, up, frames.pack(reported), finish & (sp > 0))
        if config.singular:
            rows = frames.write(rows, sp, frames.pack(cur), singular)
        lane = lane._replace(
            stack=lane.stack._replace(rows=rows),
            sp=jnp.where(finish, up, sp),
            done=lane.done | (finish & (sp == 0)),
        )
        store = None
        if config.tt_bits:  # the finished frame's entry
            state = jax.tree.map(lambda x: x[sp], lane.stack.state)
            lower = value >= cur.beta
            if config.bounds:  # reaching a window narrowed to `high` proves the value is `high`
                lower = lower & (value < game.value_bounds(state)[1])
            flag = jnp.where(
                value <= cur.alpha0, table.UPPER, jnp.where(lower, table.LOWER, table.EXACT)
            )
            store = table.store(
                table_,
                game.hash(state),
                config.tt_bits,
                value,
                cur.remaining,
                self._complete(state, cur.remaining),
                flag,
                cur.best_move,
                finish,
            )
        current = jax.tree.map(lambda a, b: jnp.where(finish, a, b), reported, cur)
        return lane, current, store

    def _can_expand(self, fr: Frame) -> jax.Array:
        more = fr.cursor < fr.count
        if self.config.null_move:
            more = more | fr.null_pending
        return more & (fr.best < fr.beta)

    # ------------------------------------------------------------ second half: expand
    def choose(self, lane: Lane, cur: Frame, table_: jax.Array) -> Child:
        """The current frame's next move, and its child: window, leaf or not, settled by
        the table or ProbCut or not."""
        game, config = self.game, self.config
        sp = lane.sp
        expand = ~lane.done & self._can_expand(cur)
        null_now = (cur.null_pending & expand) if config.null_move else jnp.bool_(False)
        # selection on demand: the best remaining move (first among equals); a cutoff
        # usually comes before the rest need ordering, so no full sort is paid for
        slot = jnp.argmax(cur.keys).astype(jnp.int32)
        move = frames.move_at(cur, slot, config)
        parent = jax.tree.map(lambda x: x[sp], lane.stack.state)
        child = game.step(parent, jnp.maximum(move, 0))
        move, child, remaining, alpha, beta, extend, reduce = self._selective(
            cur, slot, move, parent, child, null_now
        )
        child_mover = game.player(child)
        same = child_mover == cur.mover
        sign = jnp.where(same, 1.0, -1.0)
        c_alpha = jnp.where(same, alpha, -beta)
        c_beta = jnp.where(same, beta, -alpha)
        terminal = game.terminal(child)
        horizon = remaining <= 0
        if config.quiescence:  # past the horizon only positions with noisy moves go on
            horizon = (remaining <= -config.quiescence) | (
                (remaining <= 0) & ~game.any_noisy(child)
            )
        leaf_value = self._leaf(child)[self._view(cur.mover)]
        if config.quiescence:
            # stand pat before the frame is opened: a quiescence node whose EVAL already
            # reaches its beta would return EVAL at once, so it is settled here as a leaf
            # of that value, without generating and ordering its moves
            horizon = horizon | ((remaining <= 0) & (sign * leaf_value >= c_beta))
        exact_hit = jnp.bool_(False)
        if config.exact:  # known exactly: a leaf at any depth (its value is in leaf_value)
            exact_hit = self._exact(child)[0]
        is_leaf = terminal | horizon | exact_hit
        on_pv = cur.on_pv & (move == lane.prev_pv[sp]) & ~null_now
        complete = self._complete(child, remaining)
        tt_value, tt_stop, tt_move = jnp.float32(0.0), jnp.bool_(False), jnp.int32(-1)
        if config.tt_bits:
            entry = table.probe(table_, game.hash(child), config.tt_bits)
            tt_move = jnp.where(entry.hit, entry.move, -1)
            # no cutoff on the previous PV, so that the new PV is searched out in full
            usable = table.answers(entry, remaining, complete) & (remaining > 0) & ~is_leaf
            tt_stop = usable & ~on_pv & table.settles(entry, c_alpha, c_beta)
            tt_value = entry.value
        probcut_stop, probcut_value = jnp.bool_(False), jnp.float32(0.0)
        if config.probcut is not None:
            at_depth = (remaining == config.probcut[0]) & ~is_leaf & ~tt_stop
            probcut_stop, probcut_value = self._probcut(child, at_depth, c_alpha, c_beta)
        frontier = jnp.bool_(False)
        if config.last_ply:
            frontier = (remaining == 1) & ~is_leaf & ~tt_stop
        return Child(
            sp=sp,
            cur=cur,
            expand=expand,
            slot=slot,
            move=move,
            null_now=null_now,
            parent=parent,
            child=child,
            remaining=remaining,
            extend=extend,
            reduce=reduce,
            sign=sign,
            alpha=c_alpha,
            beta=c_beta,
            terminal=terminal,
            leaf_value=leaf_value,
            is_leaf=is_leaf,
            on_pv=on_pv,
            complete=complete,
            tt_value=tt_value,
            tt_stop=tt_stop,
            tt_move=tt_move,
            probcut_stop=probcut_stop,
            probcut_value=probcut_value,
            exact_hit=exact_hit,
            frontier=frontier,
        )

    def _selective(self, cur: Frame, slot, move, parent, child, null_now) -> tuple:
        """The options that change the tree at the chosen move: the null-move probe in its
        place, singular and check extensions, late move reductions. Returns the move, the
        child, its plies left, the window (the frame's side), its extension and whether it
        is searched reduced."""
        game, config = self.game, self.config
        remaining = cur.remaining - 1
        alpha, beta = cur.alpha, cur.beta
        if config.null_move:  # the probe: the side to move passes, R plies shallower
            move = jnp.where(null_now, NULL_MOVE, move)
            passed = game.null_step(parent)
            child = jax.tree.map(lambda p, c: jnp.where(null_now, p, c), passed, child)
            remaining = remaining - jnp.where(null_now, config.null_move, 0)
            alpha = jnp.where(null_now, beta - NULL_WIDTH, alpha)
        extend = jnp.int32(0)
        if config.singular:
            extend = ((cur.extended == 1) & ~null_now).astype(jnp.int32)
        if config.check_ext:
            checks = game.in_check(child) & (cur.ext + extend < config.check_ext) & ~null_now
            extend = extend + checks.astype(jnp.int32)
        remaining = remaining + extend
        reduce = jnp.bool_(False)
        if config.lmr:
            # late move reductions: a quiet move late in the list, with 3 plies or more
            # left, is first searched a ply shallower with a null window at alpha
            quiet = ~moves.noisy(game, config, parent, cur.moves)[slot]
            reduce = (
                (cur.cursor >= config.lmr)
                & (cur.remaining >= 3)
                & quiet
                & ~null_now
                & ~cur.research
                & (extend == 0)
                & ~cur.on_pv
            )
            remaining = remaining - reduce.astype(jnp.int32)
            beta = jnp.where(reduce, alpha + NULL_WIDTH, beta)
        return move, child, remaining, alpha, beta, extend, reduce

    def _probcut(self, child, at_depth, alpha, beta) -> tuple[jax.Array, jax.Array]:
        """ProbCut (Buro 1995) at ``child`` (window from its mover's side): a shallow search
        (here one ply) predicts the deep value by a fitted line, and a prediction outside
        the window by ``t`` standard deviations settles the child at the window's edge.
        Returns whether it is settled, and the value."""
        game = self.game
        _, _, a, b, sigma, t = self.config.probcut
        view = self._view(game.player(child))
        values = jax.vmap(lambda x: leaf_values(game, game.step(child, x))[view])(
            jnp.arange(game.num_actions)
        )
        shallow = jnp.max(jnp.where(game.legal_mask(child), values, NEG_INF))
        predicted = a * shallow + b
        high = at_depth & (predicted - t * sigma >= beta)
        low = at_depth & (predicted + t * sigma <= alpha)
        return high | low, jnp.where(high, beta, alpha)

    def fringe(self, child) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """The exact value of a node one ply above the horizon (for its mover), its best
        move, its number of moves and how many of its children the game's exact values
        (tables) settled: the best leaf value (UTILITY of a finished game, else EVAL, or
        the exact value) among all its children, computed at once."""
        game, config = self.game, self.config
        listed, legal = moves.generate(game, config, child)
        acts = moves.actions(config, listed)
        view = self._view(game.player(child))

        def hit(grandchild) -> jax.Array:
            return self._exact(grandchild)[0] if config.exact else jnp.bool_(False)

        if config.max_moves > UNROLL:

            def one(a):
                grandchild = game.step(child, a)
                return self._leaf(grandchild)[view], hit(grandchild)

            values, hits = jax.vmap(one)(jnp.maximum(acts, 0))
            values = jnp.where(legal, values, NEG_INF)
            slot = jnp.argmax(values)
            exact = jnp.sum(hits & legal, dtype=jnp.int32)
            return jnp.max(values), acts[slot], jnp.sum(legal, dtype=jnp.int32), exact
        # few moves: each stepped as a constant where the slot is the move (its index folds
        # into the step), and each value stays elementwise over the lanes
        best, best_move, exact = jnp.float32(NEG_INF), jnp.int32(0), jnp.int32(0)
        for i in range(config.max_moves):
            a = jnp.maximum(acts[i], 0) if config.listed else i
            grandchild = game.step(child, a)
            value = self._leaf(grandchild)[view]
            exact = exact + (legal[i] & hit(grandchild)).astype(jnp.int32)
            better = legal[i] & (value > best)  # the first of equal values, as argmax
            best, best_move = jnp.where(better, value, best), jnp.where(better, a, best_move)
        return best, best_move, jnp.sum(legal, dtype=jnp.int32), exact

    def settles(self, c: Child) -> jax.Array:
        """bool: the child is settled in this event (no frame of its own)."""
        return c.is_leaf | c.tt_stop | c.probcut_stop | c.frontier

    def conclude(self, lane: Lane, c: Child, fringed, opened: jax.Array) -> Lane:
        """Report a settled child to the current frame, or push the child's frame
        (``opened``, packed; see :meth:`open_pushed`)."""
        config = self.config
        cur = c.cur
        child_pv = jnp.full((config.frames,), -1, jnp.int32)
        tt_value = c.tt_value
        fringe_leaves = fringe_exact = jnp.int32(0)
        if config.last_ply:
            f_value, f_move, f_count, f_exact = fringed
            fringe_exact = jnp.where(c.frontier, f_exact, 0)
            child_pv = child_pv.at[0].set(jnp.where(c.frontier, f_move, -1))
            fringe_leaves = jnp.where(c.frontier, f_count, 0)
            tt_value = jnp.where(c.frontier, f_value, tt_value)
        settle = self.settles(c)
        settled = jnp.where(
            c.is_leaf,
            c.leaf_value,
            c.sign * jnp.where(c.tt_stop | c.frontier, tt_value, c.probcut_value),
        )
        push = c.expand & ~settle
        moved = c.expand & ~c.null_now  # a null probe takes no move off the list
        here = cur._replace(
            cursor=jnp.where(moved, cur.cursor + 1, cur.cursor),
            keys=jnp.where(moved, cur.keys.at[c.slot].set(NEG_INF), cur.keys),
            last_move=jnp.where(c.expand, c.move, cur.last_move),
            last_slot=jnp.where(c.expand, c.slot, cur.last_slot),
            reduced=jnp.where(c.expand, c.reduce, cur.reduced),
            research=jnp.where(c.expand, jnp.bool_(False), cur.research),
        )
        if config.null_move:
            here = here._replace(null_pending=here.null_pending & ~c.expand)
        if config.singular:  # the extended search of a singular move has begun
            here = here._replace(
                extended=jnp.where(c.expand & (cur.extended == 1), 2, here.extended)
            )
        expanded = c.expand.astype(jnp.int32)
        lane = lane._replace(
            nodes=lane.nodes + expanded + jnp.where(c.expand, fringe_leaves, 0),
            leaves=lane.leaves
            + (c.expand & c.is_leaf).astype(jnp.int32)
            + jnp.where(c.expand, fringe_leaves, 0),
            tt_hits=lane.tt_hits + (c.expand & c.tt_stop).astype(jnp.int32),
            exact_hits=lane.exact_hits
            + (c.expand & c.exact_hit).astype(jnp.int32)
            + jnp.where(c.expand & c.frontier, fringe_exact, 0),
            cut_short=lane.cut_short
            + (
                c.expand & ((c.is_leaf & ~c.terminal) | c.tt_stop | c.probcut_stop | c.frontier)
            ).astype(jnp.int32),
        )
        lane, here = self.give(
            lane, here, c.sp, settled, c.move, child_pv, cur.remaining, c.expand & settle
        )
        rows = frames.write(lane.stack.rows, c.sp, frames.pack(here), c.expand)
        rows = frames.write(rows, c.sp + 1, opened, push)
        state = frames.write(lane.stack.state, c.sp + 1, c.child, push)
        return lane._replace(
            stack=Stack(state=state, rows=rows), sp=jnp.where(push, c.sp + 1, c.sp)
        )

    # ------------------------------------------------------------ a lane's search
    def start(self, root, job, iteration, plan, helper, old: Lane | None, same, table_):
        """Open a search of ``root`` by ``plan`` (depth, window) in a fresh stack; keeps
        the lane's killers, history and PV when it searches the same job again."""
        game, config = self.game, self.config
        f = config.frames
        depth, alpha, beta = plan.depth, plan.alpha, plan.beta
        killers = jnp.full((f, 2), -1, jnp.int32)
        history = jnp.zeros((2, game.num_actions if config.history else 0), jnp.float32)
        prev_pv = jnp.full((f,), -1, jnp.int32)
        if old is not None:
            killers = jnp.where(same, old.killers, killers)
            history = jnp.where(same, old.history, history)
            prev_pv = jnp.where(same, old.stack.rows[0, -f:].astype(jnp.int32), prev_pv)
        empty_row = frames.pack(frames.empty(config))
        lane = Lane(
            stack=Stack(
                state=jax.tree.map(lambda x: jnp.zeros((f, *x.shape), x.dtype), root),
                rows=jnp.broadcast_to(empty_row, (f, empty_row.shape[0])),
            ),
            sp=jnp.int32(0),
            done=job < 0,
            job=job,
            iteration=iteration,
            depth=depth,
            helper=helper,
            killers=killers,
            history=history,
            prev_pv=prev_pv,
            nodes=jnp.int32(1),
            leaves=jnp.int32(0),
            cutoffs=jnp.int32(0),
            tt_hits=jnp.int32(0),
            exact_hits=jnp.int32(0),
            cut_short=jnp.int32(0),
        )
        # the root window: the plan's, within the utility bounds (no value lies outside
        # them, so a move proven to reach the best possible value ends the search at once)
        low = jnp.maximum(alpha, jnp.float32(game.utility_min))
        high = jnp.minimum(beta, jnp.float32(game.utility_max))
        tt_move = self._tt_move(table_, root) if config.tt_bits else jnp.int32(-1)
        root_node = Opening(
            sp=jnp.int32(0),
            state=root,
            alpha=low,
            beta=high,
            on_pv=jnp.bool_(True),
            remaining=depth,
            tt_move=tt_move,
            after_null=jnp.bool_(False),
            ext=jnp.int32(0),
        )
        opened = open_frame(game, config, root_node, memory_at(lane, 0), helper)
        terminal = game.terminal(root)
        is_leaf = terminal if config.quiescence else terminal | (depth <= 0)
        leaf = self._leaf(root)[self._view(game.player(root))]
        opened = opened._replace(
            best=jnp.where(is_leaf, leaf, opened.best),
            count=jnp.where(is_leaf, 0, opened.count),
        )
        stack = Stack(
            state=frames.write(lane.stack.state, 0, root),
            rows=lane.stack.rows.at[0].set(frames.pack(opened)),
        )
        return lane._replace(
            stack=stack,
            leaves=is_leaf.astype(jnp.int32),
            cut_short=(is_leaf & ~terminal).astype(jnp.int32),
        )

    def advance(self, lanes: Lane, shared: tuple) -> tuple[Lane, tuple]:
        """One event of every lane. ``shared`` is the table and the previous event's writes
        to it, which go in first: the table's old buffer then has no reader left and XLA
        updates it in place (reading first and writing after made it copy the table at
        every event). Only events where some lane's child is one ply above the horizon pay
        for :meth:`fringe`: ``lax.cond`` runs it for the whole batch or skips it (per lane
        it could not be skipped in lockstep)."""
        table_, pending = shared
        if pending is not None:
            table_ = table.flush(table_, pending)
        lanes, current, store = jax.vmap(self.pop, in_axes=(0, None))(lanes, table_)
        c = jax.vmap(self.choose, in_axes=(0, 0, None))(lanes, current, table_)
        fringed = None
        if self.config.last_ply:
            need = c.expand & c.frontier
            width = need.shape[0]
            fringed = jax.lax.cond(
                jnp.any(need),
                lambda children: jax.vmap(self.fringe)(children),
                lambda children: (
                    jnp.zeros((width,), jnp.float32),
                    jnp.zeros((width,), jnp.int32),
                    jnp.zeros((width,), jnp.int32),
                    jnp.zeros((width,), jnp.int32),
                ),
                c.child,
            )
        pushed = Opening(
            sp=c.sp + 1,
            state=c.child,
            alpha=c.alpha,
            beta=c.beta,
            on_pv=c.on_pv,
            remaining=c.remaining,
            tt_move=c.tt_move,
            after_null=c.null_now,
            ext=c.cur.ext + c.extend,
        )
        push = c.expand & ~self.settles(c)
        opened = open_pushed(self.game, self.config, lanes, pushed, push)
        lanes = jax.vmap(self.conclude)(lanes, c, fringed, opened)
        if self.config.history:
            lanes = add_history(self.config, lanes, push)
        if store is not None:
            slot, row, writes = store
            pending = (jnp.where(writes, slot, table_.shape[0]), row)  # out of range: none
        return lanes, (table_, pending)


def _singular_again(config: Config, cur: Frame) -> Frame:
    """A singular node searches its best move again: only that move left, the runner-up
    as its value so far, and the next child one ply deeper (``extended`` 1)."""
    again = jnp.where(frames.slots_of(cur, config) == cur.best_move, 0.0, NEG_INF)
    line = jnp.full((config.frames,), -1, jnp.int32).at[0].set(cur.second_move)
    return cur._replace(
        keys=again,
        count=cur.cursor + 1,
        best=cur.second,
        best_move=cur.second_move,
        pv=line,
        alpha=jnp.maximum(cur.alpha0, cur.second),
        extended=jnp.int32(1),
    )


__all__ = ["NULL_MOVE", "Search"]
