"""One event of every maxⁿ lane: pop a finished frame, make the current frame's move list
if it has none, expand its next move; and the hooks the lane engine calls."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from jaxgames.game import Game
from jaxgames.kernels import leaf_values
from jaxgames.search import lanes as engine
from jaxgames.search.maxn.frames import (
    Constants,
    Counters,
    Frame,
    Lane,
    Outcome,
    Plan,
    max_moves,
    move_list,
    pack,
    unpack,
)
from jaxgames.search.maxn.rules import Rule

FEW_LISTS = 8
"""While at most one lane in FEW_LISTS needs a move list in an event, the lists are made
one lane at a time; else for every lane at once.

A list costs the game's move generation, the dearest part of an event for most games, and
few lanes need one per event (one per node opened: about one lane in the branching factor).
A vmapped generation costs about the lanes it is given (its loops run until the slowest
lane is done), so generating for every lane whenever any needed a list paid for the whole
width almost every event (benchmarks/README.md has the measurement). Where most lanes
need one (small branching factors), one batch costs less than as many rounds."""


class Search:
    """The lane program of one compiled maxⁿ search."""

    def __init__(self, game: Game, rule: Rule, frames: int, k: Constants) -> None:
        self.game, self.rule, self.frames, self.k = game, rule, frames, k
        self.players = game.num_players
        self.max_moves = max_moves(game)
        # a list is written whole when its node becomes current: half the bytes in int16
        self.move_dtype = jnp.int16 if game.num_actions < 2**15 else jnp.int32

    def give(self, fr: Frame, value, move, child_pv, active, root_player) -> Frame:
        """Report a child's vector ``value`` (reached by ``move``) to ``fr``."""
        first = fr.best_move < 0
        improves = active & (first | self.rule.prefers(fr, value, root_player))
        line = jnp.concatenate([move[None], child_pv[:-1]])
        out = fr._replace(
            best=jnp.where(improves, value, fr.best),
            best_move=jnp.where(improves, move, fr.best_move),
            pv=jnp.where(improves, line, fr.pv),
        )
        settled = self.rule.settle(out, root_player, self.k)
        return jax.tree.map(lambda a, b: jnp.where(active, a, b), settled, out)

    def pop(self, lane: Lane) -> tuple[Lane, Frame]:
        """A current frame with no move left (or cut) reports to its parent and leaves the
        stack; returns the lane and its current frame after that."""
        sp = lane.sp
        up = jnp.maximum(sp - 1, 0)
        cur = unpack(lane.rows[sp], self.players)
        par = unpack(lane.rows[up], self.players)
        more = (cur.count < 0) | (cur.cursor < cur.count)
        finish = ~lane.done & (~more | cur.cut)
        report = finish & (sp > 0)
        reported = self.give(par, cur.best, par.last, cur.pv, report, lane.root_player)
        lane = lane._replace(
            rows=engine.write_row(lane.rows, up, pack(reported), report),
            sp=jnp.where(finish, up, sp),
            done=lane.done | (finish & (sp == 0)),
            cutoffs=lane.cutoffs + (finish & more).astype(jnp.int32),
        )
        return lane, jax.tree.map(lambda a, b: jnp.where(finish, a, b), reported, cur)

    def lists(self, lanes: Lane, need: jax.Array) -> jax.Array:
        """int32[L, M]: the move lists of the current frames of the lanes that ``need`` one
        (-1 rows elsewhere): one lane at a time while few lanes need one, else all lanes
        in one batch (see :data:`FEW_LISTS`)."""
        width = need.shape[0]
        empty = jnp.full((width, self.max_moves), -1, jnp.int32)
        generate = jax.vmap(functools.partial(move_list, self.game))

        def some(pick, out):  # the lists of lanes ``pick`` (``width``: none) into ``out``
            safe = jnp.minimum(pick, width - 1)
            states = jax.tree.map(lambda x: x[safe, lanes.sp[safe]], lanes.state)
            return out.at[pick].set(generate(states), mode="drop")

        def one_by_one(need):
            def one(carry):
                left, out = carry
                lane = jnp.argmax(left).astype(jnp.int32)
                return left.at[lane].set(False), some(lane[None], out)

            return jax.lax.while_loop(lambda c: jnp.any(c[0]), one, (need, empty))[1]

        def all_at_once(need):
            return some(jnp.where(need, jnp.arange(width), width), empty)

        count = jnp.sum(need, dtype=jnp.int32)
        few = max(1, width // FEW_LISTS)
        branch = jnp.where(count == 0, 0, jnp.where(count <= few, 1, 2))
        return jax.lax.switch(branch, [lambda need: empty, one_by_one, all_at_once], need)

    def expand(self, lane: Lane, cur: Frame, fresh, listed) -> Lane:
        """Expand the current frame's next move: a leaf's vector reported to the frame,
        or the child pushed as a new frame (its list made when it becomes current).
        ``fresh``: the current frame's list was made this event, ``listed`` [M]."""
        game = self.game
        sp = lane.sp
        row = jnp.where(fresh, listed, lane.moves[sp].astype(jnp.int32))
        cur = cur._replace(count=jnp.where(fresh, jnp.sum(listed >= 0), cur.count))
        expand = ~lane.done & (cur.cursor < cur.count) & ~cur.cut
        move = row[jnp.clip(cur.cursor, 0, self.max_moves - 1)]
        parent = jax.tree.map(lambda x: x[sp], lane.state)
        child = game.step(parent, jnp.maximum(move, 0))
        is_leaf = game.terminal(child) | (sp + 1 >= lane.depth)
        settle = expand & is_leaf
        push = expand & ~is_leaf
        here = cur._replace(
            cursor=cur.cursor + expand.astype(jnp.int32), last=jnp.where(expand, move, cur.last)
        )
        no_line = jnp.full((self.frames,), -1, jnp.int32)
        here = self.give(here, leaf_values(game, child), move, no_line, settle, lane.root_player)
        mover = game.player(child).astype(jnp.int32)
        threshold, alpha, beta = self.rule.child(here, mover, self.k)
        opened = Frame(
            mover=mover,
            count=jnp.int32(-1),
            cursor=jnp.int32(0),
            best_move=jnp.int32(-1),
            last=jnp.int32(-1),
            threshold=threshold,
            alpha=alpha,
            beta=beta,
            cut=jnp.bool_(False),
            best=jnp.zeros((self.players,), jnp.float32),
            pv=no_line,
        )
        rows = engine.write_row(lane.rows, sp, pack(here), expand | fresh)
        rows = engine.write_row(rows, sp + 1, pack(opened), push)
        return lane._replace(
            state=engine.write_row(lane.state, sp + 1, child, push),
            rows=rows,
            moves=engine.write_row(lane.moves, sp, row.astype(self.move_dtype), fresh),
            sp=jnp.where(push, sp + 1, sp),
            nodes=lane.nodes + expand.astype(jnp.int32),
            leaves=lane.leaves + settle.astype(jnp.int32),
        )

    # ------------------------------------------------------------ the engine's callables
    def start(self, root, job, iteration, plan: Plan, helper, old, same, shared) -> Lane:
        """A lane searching ``root`` by ``plan``. maxⁿ shares nothing between lanes, so a
        helper (``helper`` > 0) searches the same tree in the same order: the engine's
        helpers are exact here, and no faster."""
        game, f = self.game, self.frames
        is_leaf = game.terminal(root) | (plan.depth <= 0)
        top = Frame(
            mover=game.player(root).astype(jnp.int32),
            count=jnp.where(is_leaf, 0, -1).astype(jnp.int32),
            cursor=jnp.int32(0),
            best_move=jnp.int32(-1),
            last=jnp.int32(-1),
            threshold=jnp.float32(jnp.inf),
            alpha=jnp.float32(-jnp.inf),
            beta=jnp.float32(jnp.inf),
            cut=jnp.bool_(False),
            best=leaf_values(game, root),  # a leaf root keeps its value
            pv=jnp.full((f,), -1, jnp.int32),
        )
        row = pack(top)
        return Lane(
            state=jax.tree.map(lambda x: jnp.zeros((f, *x.shape), x.dtype).at[0].set(x), root),
            rows=jnp.zeros((f, row.shape[0]), jnp.float32).at[0].set(row),
            moves=jnp.full((f, self.max_moves), -1, self.move_dtype),
            sp=jnp.int32(0),
            done=job < 0,
            job=job,
            iteration=iteration,
            depth=plan.depth,
            root_player=plan.root_player,
            nodes=jnp.int32(1),
            leaves=is_leaf.astype(jnp.int32),
            cutoffs=jnp.int32(0),
        )

    def advance(self, lanes: Lane, shared: Any) -> tuple[Lane, Any]:
        """One event of every lane: pop a finished frame, make the current frame's list if
        it has none, expand its next move."""
        lanes, cur = jax.vmap(self.pop)(lanes)
        need = ~lanes.done & (cur.count < 0)
        return jax.vmap(self.expand)(lanes, cur, need, self.lists(lanes, need)), shared

    def outcome(self, lane: Lane) -> Outcome:
        top = unpack(lane.rows[0], self.players)
        return Outcome(top.best, top.best_move, top.pv)

    def program(self) -> engine.LaneProgram:
        return engine.LaneProgram(
            start=self.start,
            advance=self.advance,
            outcome=self.outcome,
            iterate=lambda plan, outcome: (jnp.bool_(True), plan),  # one search per job
            counters=lambda lane: Counters(lane.nodes, lane.leaves, lane.cutoffs),
            rewidth=lambda shared, width: shared,
        )
