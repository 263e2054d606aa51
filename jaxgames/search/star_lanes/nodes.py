"""What the Star lanes do with one node and its frame: its kind, move list and window, the
report of a child's value (Star1 bounds, Star2 probes), the batch of leaves folded at once."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames.capabilities import ListOrdering, MoveLists, MoveOrdering
from jaxgames.game import CHANCE, Game
from jaxgames.kernels import leaf_values
from jaxgames.search.star_lanes.frames import (
    CHANCE_KIND,
    MAX,
    MIN,
    Config,
    Frame,
    chance_value,
    empty,
)


class Nodes:
    """The per-node functions of one compiled expectiminimax search."""

    def __init__(self, game: Game, config: Config) -> None:
        self.game, self.config = game, config
        self.decision_cuts = config.pruning >= 1
        self.chance_cuts = config.pruning >= 2
        self.star2 = config.pruning == 3

    # ------------------------------------------------------------ nodes
    def kind(self, state) -> jax.Array:
        player = self.game.player(state)
        return jnp.where(player == CHANCE, CHANCE_KIND, jnp.clip(player, 0, 1))

    def probs(self, state) -> jax.Array:
        if self.game.num_chance_outcomes:
            return self.game.chance_probs(state).astype(jnp.float32)
        return jnp.zeros((self.config.outcomes,), jnp.float32)

    def leaf(self, state) -> jax.Array:
        return leaf_values(self.game, state)[0]

    def moves(self, state) -> tuple[jax.Array, jax.Array]:
        """``(moves, count)``: int32[M] the legal moves best first (then -1), and how many."""
        game, config = self.game, self.config
        m = config.max_moves
        if isinstance(game, MoveLists):
            moves = game.legal_moves(state).astype(jnp.int32)
        else:
            (moves,) = jnp.nonzero(game.legal_mask(state), size=m, fill_value=-1)
            moves = moves.astype(jnp.int32)
        legal = moves >= 0
        count = jnp.sum(legal, dtype=jnp.int32)
        keys = None
        if config.order == "hint" and isinstance(game, ListOrdering):
            keys = game.move_scores(state, moves).astype(jnp.float32)
        elif config.order == "hint" and isinstance(game, MoveOrdering):
            keys = game.move_order_scores(state).astype(jnp.float32)[jnp.maximum(moves, 0)]
        elif config.order == "lookahead":  # best-first by the children's EVAL, mover's side
            look = jax.vmap(lambda a: self.leaf(game.step(state, a)))(jnp.maximum(moves, 0))
            keys = jnp.where(self.kind(state) == MAX, look, -look)
        if keys is not None:  # stable: the list's order among equal keys
            moves = moves[jnp.argsort(jnp.where(legal, -keys, jnp.inf), stable=True)]
        return moves, count

    def open(self, state, alpha, beta, probe_only, reuse) -> Frame:
        """The frame of ``state`` with window (alpha, beta); a decision frame's list (and
        count) comes later, from :meth:`fill`."""
        config = self.config
        kind = self.kind(state)
        is_chance = kind == CHANCE_KIND
        prob = self.probs(state)
        possible = prob > 0
        (outcomes,) = jnp.nonzero(possible, size=config.outcomes, fill_value=-1)
        k = config.outcomes
        return empty(config)._replace(
            kind=kind,
            alpha=jnp.asarray(alpha, jnp.float32),
            beta=jnp.asarray(beta, jnp.float32),
            best=jnp.where(kind == MAX, -jnp.inf, jnp.inf).astype(jnp.float32),
            count=jnp.where(is_chance, jnp.sum(possible, dtype=jnp.int32), 0),
            phase=jnp.where(is_chance & self.star2, 0, 1),
            probe_only=jnp.asarray(probe_only) & ~is_chance,
            reuse=reuse,
            prob=prob,
            lo=jnp.full((k,), config.low, jnp.float32),
            hi=jnp.full((k,), config.high, jnp.float32),
            outcomes=outcomes.astype(jnp.int32),
        )

    # ------------------------------------------------------------ a frame's state
    def stopped(self, f: Frame) -> jax.Array:
        """Has the frame reached a cutoff?"""
        chance_cut = (f.cut > 0) | ((f.prob @ f.lo) >= f.beta) | ((f.prob @ f.hi) <= f.alpha)
        decision_cut = jnp.where(f.kind == MAX, f.best >= f.beta, f.best <= f.alpha)
        return jnp.where(
            f.kind == CHANCE_KIND,
            chance_cut & self.chance_cuts,
            decision_cut & self.decision_cuts,
        )

    def value(self, f: Frame) -> jax.Array:
        """The frame's fail-soft value as it stands."""
        return jnp.where(f.kind == CHANCE_KIND, chance_value(f), f.best)

    def child_window(self, f: Frame, move) -> tuple[jax.Array, jax.Array]:
        """The window for the child ``move`` of the frame."""
        config = self.config
        low, high = config.low, config.high
        r = jnp.clip(move, 0, config.outcomes - 1)
        p, lo, hi = f.prob, f.lo, f.hi
        pr = jnp.maximum(p[r], 1e-30)
        if self.chance_cuts:
            a = (f.alpha - (p @ hi - p[r] * hi[r])) / pr
            b = (f.beta - (p @ lo - p[r] * lo[r])) / pr
            chance = (jnp.maximum(a, low), jnp.minimum(b, high))
        else:
            chance = (jnp.float32(low), jnp.float32(high))
        if self.decision_cuts:
            dec_alpha = jnp.where(f.kind == MAX, jnp.maximum(f.alpha, f.best), f.alpha)
            dec_beta = jnp.where(f.kind == MAX, f.beta, jnp.minimum(f.beta, f.best))
        else:
            dec_alpha, dec_beta = jnp.float32(low), jnp.float32(high)
        is_chance = f.kind == CHANCE_KIND
        return (
            jnp.where(is_chance, chance[0], dec_alpha).astype(jnp.float32),
            jnp.where(is_chance, chance[1], dec_beta).astype(jnp.float32),
        )

    def give(self, f: Frame, move, value, c_alpha, c_beta, c_kind, c_exact, c_pv, active):
        """Report the child ``move``'s fail-soft ``value`` (searched with (c_alpha, c_beta);
        ``c_exact``: a leaf, whose value is exact whatever the window)."""
        low, high = self.config.low, self.config.high
        is_chance = f.kind == CHANCE_KIND
        # decision frames: a better move
        improves = active & ~is_chance
        improves = improves & jnp.where(f.kind == MAX, value > f.best, value < f.best)
        line = jnp.concatenate([jnp.asarray(move, jnp.int32)[None], c_pv[:-1]])
        # chance frames: tighten the outcome's bounds
        r = jnp.clip(move, 0, self.config.outcomes - 1)
        probing = f.phase == 0
        lo_r, hi_r = f.lo[r], f.hi[r]
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
        on_chance = active & is_chance
        record = on_chance & probing & ~c_exact  # a probed decision node reports
        # a full-pass answer outside its window decides the frame (Star1), whatever the
        # rounding of the sums says
        cut = jnp.where(fail_high, 1, jnp.where(fail_low, 2, 0))
        cut = jnp.where(on_chance & ~probing & self.chance_cuts, cut, 0)
        return f._replace(
            best=jnp.where(improves, value, f.best),
            best_move=jnp.where(improves, move, f.best_move),
            pv=jnp.where(improves, line, f.pv),
            lo=f.lo.at[r].set(jnp.where(on_chance, new_lo, lo_r)),
            hi=f.hi.at[r].set(jnp.where(on_chance, new_hi, hi_r)),
            cut=jnp.maximum(f.cut, cut),
            probed=f.probed.at[r].set(f.probed[r] | record),
            probe=f.probe.at[r].set(
                jnp.where(record, jnp.stack([value, c_alpha, c_beta]), f.probe[r])
            ),
        )

    def fold(self, f: Frame, acts, values, avail, active):
        """Exact leaf values ``values`` [W] of the children ``acts`` [W] (the next ``avail``
        in list order) folded into the frame as the one-at-a-time search would: one by one,
        and nothing after a cutoff. The sequence is computed at once (running maxima,
        prefix sums), not in W steps. Returns the frame, how many children it took, and
        ``(sum p lo, sum p hi)`` of a chance frame after them."""
        w = acts.shape[0]
        index = jnp.arange(w, dtype=jnp.int32)
        valid = active & (index < avail)
        # decision frames: the best value after each child
        maximize = f.kind == MAX
        signed = jnp.where(maximize, values, -values)
        start = jnp.where(maximize, f.best, -f.best)
        running = jnp.maximum(jax.lax.cummax(jnp.where(valid, signed, -jnp.inf)), start)
        best_after = jnp.where(maximize, running, -running)
        decision_cut = jnp.where(maximize, best_after >= f.beta, best_after <= f.alpha)
        # chance frames: each child fixes its outcome's bounds; the sums after each child
        k = self.config.outcomes
        hit = (acts[:, None] == jnp.arange(k)[None, :]) & valid[:, None]  # [W, K]
        first = jnp.min(jnp.where(hit, index[:, None], w), axis=0)  # [K]: its child
        fixed = jnp.sum(jnp.where(hit, values[:, None], 0.0), axis=0)  # [K]
        after = first[None, :] <= index[:, None]  # [W, K]: fixed by child j
        lo_after = jnp.where(after, fixed[None, :], f.lo[None, :])
        hi_after = jnp.where(after, fixed[None, :], f.hi[None, :])
        sum_lo, sum_hi = lo_after @ f.prob, hi_after @ f.prob  # [W]
        chance_cut = (sum_lo >= f.beta) | (sum_hi <= f.alpha)
        is_chance = f.kind == CHANCE_KIND
        cut = jnp.where(is_chance, chance_cut & self.chance_cuts, decision_cut & self.decision_cuts)
        stops = valid & (cut | (index == jnp.minimum(avail, w) - 1))
        taken = jnp.where(jnp.any(stops), jnp.argmax(stops) + 1, 0).astype(jnp.int32)
        last = jnp.maximum(taken - 1, 0)
        # the best move: the first child of the best value among those taken, if it beats
        # the value the frame had
        among = jnp.where(index < taken, signed, -jnp.inf)
        better = (taken > 0) & ~is_chance & (jnp.max(among) > start)
        best_move = jnp.where(better, acts[jnp.argmax(among)], f.best_move)
        line = jnp.full(f.pv.shape, -1, jnp.int32).at[0].set(best_move)
        some = taken > 0
        frame = f._replace(
            best=jnp.where(some & ~is_chance, best_after[last], f.best),
            best_move=best_move,
            pv=jnp.where(better, line, f.pv),
            lo=jnp.where(some & is_chance, lo_after[last], f.lo),
            hi=jnp.where(some & is_chance, hi_after[last], f.hi),
        )
        sums = (
            jnp.where(some, sum_lo[last], f.prob @ f.lo),
            jnp.where(some, sum_hi[last], f.prob @ f.hi),
        )
        return frame, taken, sums

    def ahead(self, f: Frame) -> Frame:
        """The frame with its cursor where its next child is: a chance frame whose probing
        pass is over starts the full pass, and there passes over the outcomes the probes
        already fixed (there is nothing left to learn of them)."""
        if not self.star2:
            return f
        k = self.config.outcomes
        next_pass = (f.kind == CHANCE_KIND) & (f.phase == 0) & (f.cursor >= f.count)
        cursor = jnp.where(next_pass, 0, f.cursor)
        phase = jnp.where(next_pass, 1, f.phase)
        slots = jnp.arange(k, dtype=jnp.int32)
        r = jnp.clip(f.outcomes, 0, k - 1)
        open_slot = (slots >= cursor) & (slots < f.count) & (f.lo[r] != f.hi[r])
        first = jnp.min(jnp.where(open_slot, slots, f.count))
        full = (f.kind == CHANCE_KIND) & (phase == 1)
        return f._replace(cursor=jnp.where(full, first, cursor), phase=phase)
