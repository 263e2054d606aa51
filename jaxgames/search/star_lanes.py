"""Expectiminimax with Star1/Star2 pruning, many roots at once: each root a job of the lane
engine (:mod:`jaxgames.search.lanes`), searched by one lane with an explicit stack.

The same search as the host driver of :mod:`jaxgames.search.expectiminimax`. Values are
player 0's, in ``[L, U]`` (the game's utility bounds). A chance frame keeps, per outcome r,
bounds ``lo[r] <= value(r) <= hi[r]`` (``L``/``U`` until known); its value is then bounded
by ``sum p lo`` and ``sum p hi``, and outcome r is searched with the window that decides a
cut (Ballard's Star1)::

    A_r = (alpha - sum_{s != r} p_s hi_s) / p_r        B_r = (beta - sum_{s != r} p_s lo_s) / p_r

A fail-soft answer ``v`` raises ``lo[r]`` (``v >= B_r``), lowers ``hi[r]`` (``v <= A_r``), or
fixes both (exact). The frame stops as soon as ``sum p lo >= beta`` or ``sum p hi <= alpha``.
With Star2, a first pass over the outcomes probes each one's decision node by its first
move only (a MAX node's first move bounds it from below, a MIN node's from above) before
the full pass; a decision node's probed first move is not searched again where the probe's
answer decides the window it would get. With ``"alphabeta"``, chance frames search every
outcome with ``[L, U]``; with ``"none"``, decision frames do not cut either.

Frames do not scale with the action space. A decision frame's moves are generated once,
when the node is opened, into a compact list of at most ``M`` moves (the game's
:class:`~jaxgames.capabilities.MoveLists`, else the legal mask's first ``M`` actions),
sorted best first by the ordering (the game's hint, or the one-ply look-ahead), so an event
reads the move at the frame's cursor. A chance frame's list is the chance outcomes of
nonzero probability, in outcome order. Lists are made in a pass of their own before each
event, for the lanes that opened a decision node only (see :meth:`Search.fill`).

An event of a lane pops its current frame if that is done (reporting the value to the
parent) and then expands the (new) current frame. Two shortcuts save whole events without
changing any value or count:

* at the horizon's edge (children are leaves), an event settles up to ``W`` children at
  once: they are stepped and valued together, then folded into the frame one by one in
  order, stopping where the one-at-a-time search would have cut;
* a chance child one ply above the horizon (its outcomes are leaves) is valued in the event
  that reaches it, its outcomes stepped and folded together the same way (Star1 within
  its window; a probing pass over leaves is the full pass, so Star2 adds nothing there).

Decision moves are tried in the game's ordering (lowest action, or list position, first
among equals); there is no transposition table, so Star2's second pass opens a probed
decision node again: its list is copied from the probe's just above the horizon's edge
(where most probes are), made again elsewhere.
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

from jaxgames import progress
from jaxgames.capabilities import ListOrdering, MoveLists, MoveOrdering
from jaxgames.game import CHANCE, Game
from jaxgames.kernels import batch_size, leaf_values, local_mesh, shard_batch, to_numpy
from jaxgames.search import lanes as engine
from jaxgames.search.result import BatchSearchResult

MAX, MIN, CHANCE_KIND = 0, 1, 2
PRUNING_CODES = {"none": 0, "alphabeta": 1, "star1": 2, "star2": 3}
ORDERS = ("none", "hint", "lookahead")  # "none": the list's own order (no hint to follow)
MIN_LEAF_BATCH = 8  # children settled per event at the horizon's edge, at least


class Config(NamedTuple):
    """What one compiled search is (static)."""

    depth: int  # plies below each root
    outcomes: int  # K: chance outcomes (1 for a deterministic game)
    max_moves: int  # M: moves a decision frame holds
    leaf_batch: int  # W: children stepped and valued together in an event (>= K)
    low: float  # the game's utility bounds
    high: float
    pruning: int  # PRUNING_CODES
    order: str  # one of ORDERS
    move_dtype: str  # "int16" where every action fits, else "int32"
    keep_lists: bool  # Star2: the probing pass keeps its lists for the full pass (below)

    @property
    def frames(self) -> int:
        return self.depth + 1


class Frame(NamedTuple):
    """One frame, unpacked (values are player 0's)."""

    kind: jax.Array  # int32: MAX, MIN or CHANCE_KIND
    alpha: jax.Array  # float32: the window the frame was opened with
    beta: jax.Array  # float32
    best: jax.Array  # float32: decision frames: best child value so far
    best_move: jax.Array  # int32
    count: jax.Array  # int32: children to try in this pass
    cursor: jax.Array  # int32: children tried in this pass (their place in the list)
    phase: jax.Array  # int32: chance frames: 0 = Star2 probing pass, 1 = full pass
    last: jax.Array  # int32: the move (outcome) of the child most recently opened
    cut: jax.Array  # int32: chance frames: 1 = failed high, 2 = failed low (full pass)
    probe_only: jax.Array  # bool: a Star2 probe: search the first move only
    reuse: jax.Array  # float32[4]: decision frames: (known?, value, alpha, beta) of move 1
    prob: jax.Array  # float32[K]: chance frames: P(outcome)
    lo: jax.Array  # float32[K]: bounds on each outcome's value
    hi: jax.Array  # float32[K]
    probed: jax.Array  # bool[K]: Star2 probed outcome r's first move ...
    probe: jax.Array  # float32[K, 3]: ... and got (value, alpha, beta)
    outcomes: jax.Array  # int32[K]: the outcomes of nonzero probability, then -1
    kept: jax.Array  # int32[K]: the length of outcome r's list kept by the probe (-1: none)
    pv: jax.Array  # int32[F]: the best line from this frame (-1 padded)


_INTS = frozenset(
    ("kind", "best_move", "count", "cursor", "phase", "last", "cut", "outcomes", "kept", "pv")
)
_BOOLS = frozenset(("probe_only", "probed"))


def _shapes(config: Config) -> dict[str, tuple[int, ...]]:
    k = config.outcomes
    shapes = dict.fromkeys(Frame._fields, ())
    shapes.update(reuse=(4,), prob=(k,), lo=(k,), hi=(k,), probed=(k,), probe=(k, 3))
    shapes.update(outcomes=(k,), kept=(k,), pv=(config.frames,))
    return shapes


def _offsets(config: Config) -> dict[str, int]:
    """Where each field of a frame starts in its packed row."""
    at, out = 0, {}
    for name, shape in _shapes(config).items():
        out[name] = at
        at += int(np.prod(shape))
    return out


def pack(frame: Frame) -> jax.Array:
    """A frame as one float32 row (integers below 2**24 are exact): an event then reads and
    writes whole rows, where a column per field made dozens of small gathers and scatters."""
    return jnp.concatenate([jnp.asarray(x, jnp.float32).reshape(-1) for x in frame])


def unpack(row: jax.Array, config: Config) -> Frame:
    """The inverse of :func:`pack`."""
    fields, at = {}, 0
    for name, shape in _shapes(config).items():
        size = int(np.prod(shape))
        x = row[at : at + size].reshape(shape)
        at += size
        fields[name] = x.astype(jnp.int32) if name in _INTS else (x > 0.5) if name in _BOOLS else x
    return Frame(**fields)


def empty(config: Config) -> Frame:
    k, f = config.outcomes, config.frames
    i0, f0, no = jnp.int32(0), jnp.float32(0.0), jnp.int32(-1)
    return Frame(
        kind=i0,
        alpha=f0,
        beta=f0,
        best=f0,
        best_move=no,
        count=i0,
        cursor=i0,
        phase=jnp.int32(1),
        last=no,
        cut=i0,
        probe_only=jnp.bool_(False),
        reuse=jnp.zeros((4,), jnp.float32),
        prob=jnp.zeros((k,), jnp.float32),
        lo=jnp.zeros((k,), jnp.float32),
        hi=jnp.zeros((k,), jnp.float32),
        probed=jnp.zeros((k,), jnp.bool_),
        probe=jnp.zeros((k, 3), jnp.float32),
        outcomes=jnp.full((k,), -1, jnp.int32),
        kept=jnp.full((k,), -1, jnp.int32),
        pv=jnp.full((f,), -1, jnp.int32),
    )


class Lane(NamedTuple):
    """One lane: its stack and counters. F = frames, R = row width, M = moves, W = batch."""

    state: Any  # [F] states
    rows: jax.Array  # float32[F, R]: each frame packed
    moves: jax.Array  # int16/int32[F, M + W]: decision frames' lists, best first, then -1
    kept: jax.Array  # int16/int32[K, M] (or [0, 0]): the lists the probing pass made
    sp: jax.Array  # int32[]: the current frame
    pending: jax.Array  # bool[]: the current frame's list is still to be made
    done: jax.Array  # bool[]
    job: jax.Array  # int32[]: the root searched (-1: idle)
    iteration: jax.Array  # int32[]
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]: decision frames left before their last move
    chance_cutoffs: jax.Array  # int32[]: chance frames left early in the full pass
    probe_cutoffs: jax.Array  # int32[]: chance frames left in the probing pass


class Outcome(NamedTuple):
    value: jax.Array  # float32: the root's value for player 0
    best_move: jax.Array  # int32
    pv: jax.Array  # int32[F]


class Counters(NamedTuple):
    nodes: jax.Array
    leaves: jax.Array
    cutoffs: jax.Array
    chance_cutoffs: jax.Array
    probe_cutoffs: jax.Array


def _write(x: Any, i: jax.Array, value: Any, active: Any = True) -> Any:
    """Row ``i`` of every leaf of ``x`` set to ``value`` where ``active``; an inactive write
    goes to an out-of-range row and is dropped, so the old row is not read."""

    def one(column, v):
        n = column.shape[0]
        return column.at[jnp.where(active, i, n)].set(jnp.asarray(v, column.dtype), mode="drop")

    return jax.tree.map(one, x, value)


def _select(mask: jax.Array, new: Any, old: Any) -> Any:
    return jax.tree.map(lambda a, b: jnp.where(mask, a, b), new, old)


def _chance_value(f: Frame) -> jax.Array:
    """A chance frame's fail-soft value (:func:`_fail_soft`)."""
    return _fail_soft(f.prob @ f.lo, f.prob @ f.hi, f.alpha, f.beta, f.cut)


def _fail_soft(p_lo, p_hi, alpha, beta, cut) -> jax.Array:
    """A chance node's fail-soft value from ``sum p lo`` and ``sum p hi``: ``sum p lo``
    once all is known, or the bound that cleared the window (at least beta on a fail high,
    at most alpha on a fail low)."""
    high = (cut == 1) | (p_lo >= beta)
    low = (cut == 2) | (p_hi <= alpha)
    return jnp.where(high, jnp.maximum(p_lo, beta), jnp.where(low, jnp.minimum(p_hi, alpha), p_lo))


class Search:
    """The per-lane functions of one compiled expectiminimax search."""

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
        return jnp.where(f.kind == CHANCE_KIND, _chance_value(f), f.best)

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

    # ------------------------------------------------------------ the lane engine's hooks
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

    def fill(self, lanes: Lane) -> Lane:
        """The lists of the decision frames opened since the last event, one lane after
        another, for those lanes only: a lockstep pass over every lane would make a list
        per lane and event (move generation is by far a game's dearest function), and one
        state at a time the game's own branches (``lax.cond``) really branch.

        With ``keep_lists`` (Star2), the lists that the probing pass of a chance frame just
        above the horizon's edge makes for its decision children are kept (one such frame
        is open per lane at a time), and its full pass, opening the same nodes again,
        copies them instead of making them twice."""
        config = self.config
        k, m = config.outcomes, config.max_moves
        width = lanes.sp.shape[0]
        (which,) = jnp.nonzero(lanes.pending, size=width, fill_value=0)
        at = _offsets(config)  # one lane at a time, every op counts: the few fields only

        def one(j, lanes: Lane) -> Lane:
            i = which[j]
            sp = lanes.sp[i]
            state = jax.tree.map(lambda x: x[i, sp], lanes.state)
            rows = lanes.rows
            if not config.keep_lists:
                moves, count = self.moves(state)
            else:
                up = jnp.maximum(sp - 1, 0)
                r = jnp.clip(rows[i, up, at["last"]].astype(jnp.int32), 0, k - 1)
                kept_count = rows[i, up, at["kept"] + r].astype(jnp.int32)
                chance = rows[i, up, at["kind"]] == CHANCE_KIND
                probing = rows[i, up, at["phase"]] == 0
                level = (sp == config.depth - 1) & chance
                again = level & ~probing & (kept_count >= 0)
                # the kept list is sliced out first: a branch that closed over the whole
                # buffer would take all of it
                kept = jax.lax.dynamic_slice(lanes.kept, (i, r, 0), (1, 1, m))[0, 0]
                moves, count = jax.lax.cond(
                    again, lambda: (kept.astype(jnp.int32), kept_count), lambda: self.moves(state)
                )
                keep = level & probing
                rows = rows.at[i, up, at["kept"] + r].set(
                    jnp.where(keep, count, kept_count).astype(rows.dtype)
                )
                row = jnp.where(keep, moves, kept).astype(lanes.kept.dtype)
                lanes = lanes._replace(
                    kept=jax.lax.dynamic_update_slice(lanes.kept, row[None, None], (i, r, 0))
                )
            probe_only = rows[i, sp, at["probe_only"]] > 0.5
            count = jnp.where(probe_only, jnp.minimum(count, 1), count)
            return lanes._replace(
                moves=jax.lax.dynamic_update_slice(
                    lanes.moves, moves.astype(lanes.moves.dtype)[None, None], (i, sp, 0)
                ),
                rows=rows.at[i, sp, at["count"]].set(count.astype(rows.dtype)),
            )

        count = jnp.sum(lanes.pending, dtype=jnp.int32)
        lanes = jax.lax.fori_loop(0, count, one, lanes)
        return lanes._replace(pending=jnp.zeros_like(lanes.pending))

    def advance(self, lanes: Lane, shared: Any) -> tuple[Lane, Any]:
        """One event of every lane."""
        lanes = self.fill(lanes)
        return jax.vmap(self.event)(lanes), shared

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

    def event(self, lane: Lane) -> Lane:
        """Pop the current frame if it is done, then expand the (new) current frame."""
        game, config = self.game, self.config
        k, w = config.outcomes, config.leaf_batch
        no_line = jnp.full((config.frames,), -1, jnp.int32)
        # ---- pop: a frame with nothing left reports to its parent
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
            rows=_write(lane.rows, up, pack(reported), finish & (sp > 0)),
            sp=jnp.where(finish, up, sp),
            done=lane.done | (finish & (sp == 0)),
            cutoffs=lane.cutoffs + (left_early & ~is_chance).astype(jnp.int32),
            chance_cutoffs=lane.chance_cutoffs
            + (left_early & is_chance & (cur.phase == 1)).astype(jnp.int32),
            probe_cutoffs=lane.probe_cutoffs
            + (left_early & is_chance & (cur.phase == 0)).astype(jnp.int32),
        )
        cur = _select(finish, reported, cur)
        sp = lane.sp

        # ---- expand the current frame's next child (at the edge, up to W of them)
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
        base = _select(edge, parent, child)
        batch = jnp.where(edge, acts, c_outs)
        values = jax.vmap(lambda a: self.leaf(game.step(base, jnp.maximum(a, 0))))(batch)

        # Star2: a decision frame's first move, already searched by the probe: its answer
        # stands if it decides the window the move would be searched with now
        held, pw, pw_alpha, pw_beta = cur.reuse[0] > 0, cur.reuse[1], cur.reuse[2], cur.reuse[3]
        usable = ((pw > pw_alpha) & (pw < pw_beta)) | ((pw >= pw_beta) & (pw >= c_beta))
        usable = usable | ((pw <= pw_alpha) & (pw <= c_alpha))
        reused = ~is_chance & (cur.cursor == 0) & held & usable

        # -- at the edge: up to W leaves at once; elsewhere: one child, settled here (a
        # leaf, a reused probe answer, a fringe chance node) or opened as a frame
        at_edge = expand & edge
        single = expand & ~edge
        skip = probing & (c_kind == CHANCE_KIND) & ~terminal  # a chance node has no probe
        settle = single & ~skip & (terminal | reused | fringe)
        push = single & ~skip & ~terminal & ~reused & ~fringe
        fringed = settle & fringe & ~reused
        fringe_frame = empty(config)._replace(
            kind=jnp.int32(CHANCE_KIND),
            alpha=c_alpha,
            beta=c_beta,
            prob=c_prob,
            lo=jnp.full((k,), config.low, jnp.float32),
            hi=jnp.full((k,), config.high, jnp.float32),
        )
        # one fold serves both (a lane does one or the other): the edge frame's next
        # children, or the fringe node's outcomes
        possible = jnp.sum(c_prob > 0)
        folded, taken, (sum_lo, sum_hi) = self.fold(
            _select(edge, cur, fringe_frame),
            batch,
            values.at[0].set(jnp.where(reused, pw, values[0])),
            jnp.where(edge, cur.count - cur.cursor, possible),
            at_edge | fringed,
        )
        searched = taken - (reused & (taken > 0)).astype(jnp.int32)
        fringe_taken = taken
        # its value from the same sums that decided where it stopped
        fringe_value = _fail_soft(sum_lo, sum_hi, c_alpha, c_beta, jnp.int32(0))
        leaf_now = terminal & ~reused
        finished = game.utility(child)[0]  # a terminal child (EVAL is not needed)
        settled_value = jnp.where(reused, pw, jnp.where(terminal, finished, fringe_value))
        given = self.give(
            cur, move, settled_value, c_alpha, c_beta, c_kind, leaf_now, no_line, settle
        )
        here = _select(at_edge, folded, given)
        here = here._replace(
            cursor=here.cursor + jnp.where(at_edge, taken, single.astype(jnp.int32)),
            last=jnp.where(single, move, here.last),
        )
        fringe_leaves = jnp.where(fringed, fringe_taken, 0)
        leaves = jnp.where(at_edge, searched, 0) + (settle & leaf_now) + fringe_leaves
        # a fringe node left early counts as its frame would (Star2 probes leaves first)
        fringe_cut = (fringed & (fringe_taken < possible)).astype(jnp.int32)
        lane = lane._replace(
            nodes=lane.nodes + leaves + (fringed | push).astype(jnp.int32),
            leaves=lane.leaves + leaves,
            chance_cutoffs=lane.chance_cutoffs + (0 if self.star2 else fringe_cut),
            probe_cutoffs=lane.probe_cutoffs + (fringe_cut if self.star2 else 0),
        )
        # the child's frame
        r = jnp.clip(move, 0, k - 1)
        from_probe = is_chance & ~probing & cur.probed[r]
        reuse = jnp.where(
            from_probe, jnp.concatenate([jnp.ones((1,)), cur.probe[r]]), jnp.zeros((4,))
        )
        opened = self.open(child, c_alpha, c_beta, probing, reuse)
        rows = _write(lane.rows, sp, pack(here), expand)
        rows = _write(rows, sp + 1, pack(opened), push)
        return lane._replace(
            rows=rows,
            state=_write(lane.state, sp + 1, child, push),
            sp=jnp.where(push, sp + 1, sp),
            pending=push & (c_kind != CHANCE_KIND),
        )

    def outcome(self, lane: Lane) -> Outcome:
        top = unpack(lane.rows[0], self.config)
        return Outcome(self.value(top), top.best_move, top.pv)


def _program(game: Game, config: Config) -> engine.LaneProgram:
    search = Search(game, config)
    return engine.LaneProgram(
        start=search.start,
        advance=search.advance,
        outcome=search.outcome,
        iterate=lambda plan, outcome: (jnp.bool_(True), plan),  # one search per root
        counters=lambda lane: Counters(
            lane.nodes, lane.leaves, lane.cutoffs, lane.chance_cutoffs, lane.probe_cutoffs
        ),
        rewidth=lambda shared, width: shared,
    )


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _search(
    game: Game, config: Config, phases: tuple[int, ...], events: int, mesh: Mesh | None, roots
) -> engine.Jobs:
    """Every root settled, on one device or each device its share of the roots."""
    program = _program(game, config)

    def one_device(roots):
        n = batch_size(roots)
        jobs, _ = engine.run(
            program,
            roots,
            jnp.zeros((n,), jnp.int32),
            Outcome(jnp.float32(0.0), jnp.int32(-1), jnp.full((config.frames,), -1, jnp.int32)),
            Counters(*(jnp.int32(0) for _ in Counters._fields)),
            None,
            phases,
            events,
            False,
        )
        return jobs

    return engine.on_devices(one_device, mesh, (roots,))


def make_config(game: Game, depth: int, pruning: str, order: str, leaf_batch: int = 0) -> Config:
    """The static description of a search (see :func:`star_lanes`)."""
    k = max(game.num_chance_outcomes, 1)
    m = int(game.max_moves) if isinstance(game, MoveLists) else game.num_actions
    if order == "hint" and not isinstance(game, (MoveOrdering, ListOrdering)):
        order = "none"  # no hint: the list's own order
    return Config(
        depth=depth,
        outcomes=k,
        max_moves=m,
        leaf_batch=max(leaf_batch or MIN_LEAF_BATCH, k),
        low=float(game.utility_min),
        high=float(game.utility_max),
        pruning=PRUNING_CODES[pruning],
        order=order,
        move_dtype="int16" if game.num_actions < 2**15 else "int32",
        keep_lists=pruning == "star2" and k > 1 and depth >= 2,
    )


def star_lanes(
    game: Game,
    states: Any,
    depth: int,
    pruning: str,
    *,
    order: str = "hint",
    lanes: int = 256,
    events: int = 16,
    shrink: int = 4,
    leaf_batch: int = 0,
) -> BatchSearchResult:
    """Expectiminimax of many roots at once on the device (see the module docstring).

    Args:
        game: a two-player zero-sum game (chance nodes allowed).
        states: a batch ``[N]`` of roots.
        depth: plies below each root, chance plies included.
        pruning: ``"none"``, ``"alphabeta"``, ``"star1"`` or ``"star2"``.
        order: decision moves in the order of the game's hint (``"hint"``:
            :class:`~jaxgames.capabilities.ListOrdering` or ``MoveOrdering``; the list's
            own order without one), or best-first by the EVAL of every child
            (``"lookahead"``: steps every move of every node opened, worth it when the
            action space is narrow).
        lanes: searches run side by side (at most N are used; with several devices, per
            device).
        events: lane events between two refills from the work queue.
        shrink: once the queue is empty, busy lanes move to loops this many times narrower
            (:func:`jaxgames.search.lanes.lane_phases`; 0 or 1: never).
        leaf_batch: children stepped and valued together at the horizon's edge (0: the
            default, the number of chance outcomes and at least 8).

    With several local devices and N a multiple of their count, each device searches its
    own contiguous share of the roots with its own lanes and queue.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` holds the totals, ``compile_s``, ``lanes``,
        ``lane_phases`` and ``devices``.
    """
    started = time.perf_counter()
    n = batch_size(states)
    if n == 0:
        raise ValueError("expectiminimax: no positions")
    if order not in ("hint", "lookahead"):
        raise ValueError(f"expectiminimax: order must be 'hint' or 'lookahead', got {order!r}")
    config = make_config(game, depth, pruning, order, leaf_batch)
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and n % devices == 0 else None
    share = n // devices if mesh is not None else n
    num_lanes = max(1, min(share, lanes))
    phases = engine.lane_phases(num_lanes, shrink)
    roots = jax.tree.map(jnp.asarray, states)
    if mesh is not None:
        roots = shard_batch(roots, mesh)
    args = (game, config, phases, events, mesh, roots)
    compile_start = time.perf_counter()
    with progress.phase(f"compiling expectiminimax of {n:,} positions"):
        _search.lower(*args).compile()
    compile_s = time.perf_counter() - compile_start
    with progress.phase(f"expectiminimax of {n:,} positions"):
        jobs = to_numpy(_search(*args))
    value = np.asarray(jobs.outcome.value, np.float32)
    counters = {k: np.asarray(getattr(jobs.counters, k), np.int64) for k in Counters._fields}
    return BatchSearchResult(
        value=np.stack([value, -value], axis=1).astype(np.float32),
        best_action=np.asarray(jobs.outcome.best_move, np.int32),
        pv=np.asarray(jobs.outcome.pv[:, :depth], np.int32),
        nodes=counters["nodes"],
        stats={
            **{k: int(v.sum()) for k, v in counters.items()},
            "time_s": time.perf_counter() - started,
            "compile_s": compile_s,
            "lanes": num_lanes,
            "lane_phases": list(phases),
            "devices": devices if mesh is not None else 1,
            "max_moves": config.max_moves,
            "leaf_batch": config.leaf_batch,
        },
    )


__all__ = ["star_lanes"]
