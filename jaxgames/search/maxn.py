"""Multi-player search: maxⁿ with shallow pruning, paranoid search, separate evaluations.

**maxⁿ** (Luckhardt and Irani 1986; the seeds' multi-player backup). Every node carries the
whole utility vector; the player to move takes the child that is best for itself::

    V(s) = UTILITY(s)                              if TERMINAL-TEST(s)
         = EVAL(s)                                 at the depth limit
         = V(RESULT(s, a*)),  a* = argmax_a V(RESULT(s, a))[PLAYER(s)]

Tie-breaking: among children equally good for the mover, the LOWEST action wins (children
are searched in action order and a later child replaces the best only when strictly
better). This is the rule of :func:`jaxgames.search.minimax`, so both return the same vector.

**Shallow pruning** (Korf 1991, "Multi-player alpha-beta pruning"). With static bounds
``L <= V_k`` for every component and ``sum_k V_k <= S`` (the game's ``utility_min`` and
``utility_sum_max``), take a node ``x`` whose mover ``i`` has found a child worth ``v`` so far,
below a parent whose mover ``j != i`` already holds a child worth ``beta_j`` to ``j``. The
value ``w`` that ``x`` will back up has ``w_i >= v_i``, so::

    w_j  <=  S - w_i - (n - 2) L  <=  S - v_i - (n - 2) L

and once ``v_i >= S - (n - 2) L - beta_j`` (Korf: ``v_i >= S - beta_j`` with ``L = 0``) the
parent can never prefer ``x`` (it takes a later child only when strictly better), so ``x``'s
remaining children are pruned and ``x`` returns ``v``, which the parent does not take.
*Immediate pruning* (same paper): once ``v_i`` reaches the most any component can be,
``min(U, S - (n - 1) L)``, no later child can be strictly better. Neither changes the value,
nor the move: the result equals plain maxⁿ exactly (ties included). In the best case the
leaves grow by the asymptotic branching factor ``(1 + sqrt(4b - 3)) / 2``
(``F(d) = F(d - 1) + (b - 1) F(d - 2)``); on random trees pruning does not reduce it.

**No deep pruning.** In two-player alpha-beta a bound from the grandparent prunes a
grandchild. With three players that is wrong: if the root (player 1) holds 5 and, two levels
down, player 3 finds a value that leaves player 1 at most 4, that subtree's value can still
change what player 2 picks at the node in between, and thereby what reaches the root
(``tests/test_maxn.py`` has two trees that differ only below such a cut and back up different
root values). Only the parent's bound is used here.

**Paranoid search** (Sturtevant and Korf 2000): the root player ``r`` assumes every other
player plays to minimise ``V_r``. The coalition is one opponent, so this is two-player
alpha-beta on the scalar ``V_r`` (fail-soft, windows ``(alpha, beta)`` on ``V_r``, deep cutoffs
allowed). The vector returned is that of the leaf the principal variation ends in; its
component ``r`` is the paranoid value.

**Separate evaluation functions** (Korf 1989, "Generalized game trees", section 2). Each
player has its own EVAL and nodes carry the vector of them; the mover picks by its own
component, which is exactly the maxⁿ backup (Korf's pair ``(f_MAX, f_MIN)``, with MIN
minimising its function, is the vector ``[f_MAX, -f_MIN]`` here). Alpha-beta is only sound
when the functions order positions alike: for two players, when the game is zero-sum (or
when the caller asserts it, ``agree=True``, e.g. for a constant-sum game). Otherwise the
search backs up the full vectors (shallow pruning stays exact, but without a real bound on
the sum it never fires).

Execution, as for alpha-beta: many roots at once on the device (:func:`maxn_batch`,
:func:`paranoid_batch`: every lane runs its own depth-first search with an explicit stack in
one jitted loop, lanes refilled from a work queue), or one deep search with a host driver
(:func:`maxn`, :func:`paranoid` with ``mode="host"``: the top ``split`` plies are expanded on
the host, level by level and without pruning, the frontier is searched by the lanes, one lane
per node, and the values are backed up the top of the tree).
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import progress
from jaxgames.game import Game, GameError
from jaxgames.kernels import batch_size, batched, leaf_values, pad_to, stack, to_numpy
from jaxgames.search.horizon import needed_depth
from jaxgames.search.result import BatchSearchResult, SearchResult

PRUNINGS = ("auto", "none", "shallow", "alphabeta")
_NONE, _SHALLOW, _PARANOID = 0, 1, 2


class Frames(NamedTuple):
    """One lane's explicit stack, F = depth + 1 frames (frame t: the node t plies down)."""

    state: Any  # [F] states
    mover: jax.Array  # int32[F]
    moves: jax.Array  # bool[F, A]: legal moves not searched yet
    best: jax.Array  # float32[F, P]: the best child's vector so far
    best_move: jax.Array  # int32[F]: -1 until a child has reported
    threshold: jax.Array  # float32[F]: shallow pruning once best[mover] >= threshold
    alpha: jax.Array  # float32[F]: paranoid window on the root player's component
    beta: jax.Array  # float32[F]
    cut: jax.Array  # bool[F]: the frame's remaining moves are pruned
    last: jax.Array  # int32[F]: the move most recently expanded
    pv: jax.Array  # int32[F, F]: pv[t] = best line found from frame t (-1 padded)


class Lane(NamedTuple):
    frames: Frames
    sp: jax.Array  # int32[]: the current frame
    done: jax.Array  # bool[]
    root: jax.Array  # int32[]: which root this lane searches (-1: idle)
    root_player: jax.Array  # int32[]: paranoid: the player the coalition plays against
    nodes: jax.Array  # int32[]: the root and every child expanded
    leaves: jax.Array  # int32[]: positions scored by UTILITY or EVAL
    cutoffs: jax.Array  # int32[]: frames left with moves unsearched


class Results(NamedTuple):
    value: jax.Array  # float32[N, P]
    best_move: jax.Array  # int32[N]
    pv: jax.Array  # int32[N, F]
    nodes: jax.Array  # int32[N]
    leaves: jax.Array  # int32[N]
    cutoffs: jax.Array  # int32[N]


def _set(x: jax.Array, i: jax.Array, value: Any, active: Any = True) -> jax.Array:
    """``x.at[i].set(value)`` when ``active``, else ``x`` (one row scattered per lane)."""
    value = jnp.asarray(value, x.dtype)
    return x.at[i].set(jnp.where(active, value, x[i]))


def _fns(game: Game, depth: int, mode: int, immediate: bool, bounds: jax.Array):
    """The lockstep search's functions: ``(start, event, frames_n)``; ``start(root, id,
    root_player)`` makes one lane, ``event(lanes)`` advances a batch of lanes by one event.

    ``bounds``: float32[2] = (S - (n - 2) L, the most one component can be), the constants
    of the pruning tests (traced, so other bounds need no new compilation).
    """
    num_actions = game.num_actions
    n = game.num_players
    frames_n = depth + 1
    shallow_base, own_max = bounds[0], bounds[1]
    actions = jnp.arange(num_actions)

    def open_frame(lane: Lane, t, state, active, legal=None):
        """Frame ``t`` for ``state`` (``legal``: its legal mask, computed if None), a child
        of frame ``t - 1``, if ``active``."""
        f = lane.frames
        if legal is None:
            legal = game.legal_mask(state)
        up = jnp.maximum(t - 1, 0)
        mover = game.player(state).astype(jnp.int32)
        parent_mover = f.mover[up]
        threshold = jnp.float32(jnp.inf)
        if mode == _SHALLOW:
            # the parent's bound: only a parent whose mover differs, and that holds a child
            held = (f.best_move[up] >= 0) & (parent_mover != mover)
            beta_j = f.best[up, jnp.clip(parent_mover, 0, n - 1)]
            threshold = jnp.where(held, shallow_base - beta_j, jnp.inf)

        def put(column, value):
            return _set(column, t, value, active)

        frames = Frames(
            state=jax.tree.map(put, f.state, state),
            mover=put(f.mover, mover),
            moves=put(f.moves, legal),
            best=put(f.best, jnp.zeros((n,), jnp.float32)),
            best_move=put(f.best_move, -1),
            threshold=put(f.threshold, threshold),
            alpha=put(f.alpha, f.alpha[up]),
            beta=put(f.beta, f.beta[up]),
            cut=put(f.cut, False),
            last=put(f.last, -1),
            pv=put(f.pv, jnp.full((frames_n,), -1, jnp.int32)),
        )
        return lane._replace(frames=frames)

    def give(lane: Lane, t, value, move, child_pv, active):
        """Report a child's vector ``value`` (reached by ``move``) to frame ``t``."""
        f = lane.frames
        mover = jnp.clip(f.mover[t], 0, n - 1)
        current = f.best[t]
        first = f.best_move[t] < 0
        if mode == _PARANOID:
            r = lane.root_player
            maximizing = f.mover[t] == r
            score, held = value[r], current[r]
            better = jnp.where(maximizing, score > held, score < held)
        else:
            better = value[mover] > current[mover]  # strictly: ties keep the lower action
        improves = active & (first | better)
        best = jnp.where(improves, value, current)
        line = jnp.concatenate([move[None], child_pv[:-1]])
        frames = f._replace(
            best=_set(f.best, t, best, improves),
            best_move=_set(f.best_move, t, move, improves),
            pv=_set(f.pv, t, line, improves),
        )
        if mode == _SHALLOW:
            own = best[mover]
            cut = own >= f.threshold[t]
            if immediate:
                cut = cut | (own >= own_max)
            frames = frames._replace(cut=_set(frames.cut, t, cut, active))
        elif mode == _PARANOID:
            score = best[lane.root_player]
            alpha = jnp.where(maximizing, jnp.maximum(f.alpha[t], score), f.alpha[t])
            beta = jnp.where(maximizing, f.beta[t], jnp.minimum(f.beta[t], score))
            frames = frames._replace(
                alpha=_set(frames.alpha, t, alpha, active),
                beta=_set(frames.beta, t, beta, active),
                cut=_set(frames.cut, t, alpha >= beta, active),
            )
        return lane._replace(frames=frames)

    def plan(lane: Lane) -> tuple[jax.Array, Any, jax.Array, jax.Array]:
        """The next event's move and child: (move, child, is_leaf, push)."""
        f = lane.frames
        sp = lane.sp
        row = f.moves[sp]  # [A]
        expand = ~lane.done & jnp.any(row) & ~f.cut[sp]
        move = jnp.argmax(row).astype(jnp.int32)  # moves in action order
        child = game.step(jax.tree.map(lambda x: x[sp], f.state), move)
        is_leaf = game.terminal(child) | (sp + 1 >= depth)
        return move, child, is_leaf, expand & ~is_leaf

    def advance(lane: Lane, move, child, is_leaf, legal) -> Lane:
        """One event: expand the next child of the current frame, or return the frame.

        ``legal``: the child's legal mask when it is pushed (computed for the whole batch
        only when some lane pushes: leaves, most events, need none).
        """
        f = lane.frames
        sp = lane.sp
        live = ~lane.done
        row = f.moves[sp]  # [A]
        more = jnp.any(row)
        expand = live & more & ~f.cut[sp]
        finish = live & ~expand
        settle = expand & is_leaf
        push = expand & ~is_leaf
        up = jnp.maximum(sp - 1, 0)
        lane = lane._replace(
            frames=f._replace(
                moves=_set(f.moves, sp, row & (actions != move), expand),
                last=_set(f.last, sp, move, expand),
            ),
            nodes=lane.nodes + expand.astype(jnp.int32),
            leaves=lane.leaves + settle.astype(jnp.int32),
            cutoffs=lane.cutoffs + (finish & more).astype(jnp.int32),
        )
        # one report: a settled leaf to this frame, or this finished frame to its parent
        f = lane.frames
        lane = give(
            lane,
            jnp.where(settle, sp, up),
            jnp.where(settle, leaf_values(game, child), f.best[sp]),
            jnp.where(settle, move, f.last[up]),
            jnp.where(settle, jnp.full((frames_n,), -1, jnp.int32), f.pv[sp]),
            settle | (finish & (sp > 0)),
        )
        lane = open_frame(lane, sp + 1, child, push, legal)
        return lane._replace(
            sp=jnp.where(push, sp + 1, jnp.where(finish, up, sp)),
            done=lane.done | (finish & (sp == 0)),
        )

    def start(root, root_id, root_player) -> Lane:
        """A lane searching ``root`` (``root_id < 0``: idle)."""
        frames = Frames(
            state=jax.tree.map(lambda x: jnp.zeros((frames_n, *x.shape), x.dtype), root),
            mover=jnp.zeros((frames_n,), jnp.int32),
            moves=jnp.zeros((frames_n, num_actions), jnp.bool_),
            best=jnp.zeros((frames_n, n), jnp.float32),
            best_move=jnp.full((frames_n,), -1, jnp.int32),
            threshold=jnp.full((frames_n,), jnp.inf, jnp.float32),
            alpha=jnp.full((frames_n,), -jnp.inf, jnp.float32),
            beta=jnp.full((frames_n,), jnp.inf, jnp.float32),
            cut=jnp.zeros((frames_n,), jnp.bool_),
            last=jnp.full((frames_n,), -1, jnp.int32),
            pv=jnp.full((frames_n, frames_n), -1, jnp.int32),
        )
        zero = jnp.int32(0)
        lane = Lane(frames, zero, root_id < 0, root_id, root_player, jnp.int32(1), zero, zero)
        lane = open_frame(lane, 0, root, True)  # frame 0 is its own "parent": no bound
        f = lane.frames
        is_leaf = game.terminal(root) | (depth <= 0)
        f = f._replace(
            threshold=f.threshold.at[0].set(jnp.inf),
            alpha=f.alpha.at[0].set(-jnp.inf),
            beta=f.beta.at[0].set(jnp.inf),
            moves=f.moves.at[0].set(f.moves[0] & ~is_leaf),
            best=f.best.at[0].set(leaf_values(game, root)),  # a leaf root keeps its value
        )
        return lane._replace(frames=f, leaves=is_leaf.astype(jnp.int32))

    def event(lanes: Lane) -> Lane:
        """One event of every lane (``lanes`` batched)."""
        move, child, is_leaf, push = jax.vmap(plan)(lanes)
        legal = jax.lax.cond(
            jnp.any(push),
            lambda c: jax.vmap(game.legal_mask)(c),
            lambda c: jnp.zeros((push.shape[0], num_actions), jnp.bool_),
            child,
        )
        return jax.vmap(advance)(lanes, move, child, is_leaf, legal)

    return start, event, frames_n


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4, 5))
def _search(
    game: Game,
    depth: int,
    mode: int,
    immediate: bool,
    num_lanes: int,
    events: int,
    roots: Any,
    root_players: jax.Array,
    bounds: jax.Array,
    count: jax.Array,
) -> Results:
    """The first ``count`` roots searched by ``num_lanes`` lanes fed from a work queue (the
    batch is padded to few shapes; the padding is never searched)."""
    start, event, frames_n = _fns(game, depth, mode, immediate, bounds)
    n = batch_size(roots)
    lane_ids = jnp.arange(num_lanes, dtype=jnp.int32)
    starts = jax.vmap(start)

    def fresh(ids):
        safe = jnp.clip(ids, 0, n - 1)
        return starts(jax.tree.map(lambda x: x[safe], roots), ids, root_players[safe])

    lanes = fresh(jnp.where(lane_ids < count, lane_ids, -1))
    results = Results(
        value=jnp.zeros((n, game.num_players), jnp.float32),
        best_move=jnp.full((n,), -1, jnp.int32),
        pv=jnp.full((n, frames_n), -1, jnp.int32),
        nodes=jnp.zeros((n,), jnp.int32),
        leaves=jnp.zeros((n,), jnp.int32),
        cutoffs=jnp.zeros((n,), jnp.int32),
    )

    def cond(carry):
        return jnp.any(carry[0].root >= 0)

    def body(carry):
        lanes, results, next_root = carry
        lanes = jax.lax.fori_loop(0, events, lambda _, x: event(x), lanes)
        finished = lanes.done & (lanes.root >= 0)
        slot = jnp.where(finished, lanes.root, n)  # out of range: dropped
        f = lanes.frames
        results = Results(
            value=results.value.at[slot].set(f.best[:, 0], mode="drop"),
            best_move=results.best_move.at[slot].set(f.best_move[:, 0], mode="drop"),
            pv=results.pv.at[slot].set(f.pv[:, 0], mode="drop"),
            nodes=results.nodes.at[slot].set(lanes.nodes, mode="drop"),
            leaves=results.leaves.at[slot].set(lanes.leaves, mode="drop"),
            cutoffs=results.cutoffs.at[slot].set(lanes.cutoffs, mode="drop"),
        )
        rank = jnp.cumsum(finished.astype(jnp.int32)) - 1
        ids = next_root + rank
        ids = jnp.where(finished & (ids < count), ids, -1)
        new = fresh(ids)

        def pick(a, b):
            return jnp.where(finished.reshape((-1,) + (1,) * (a.ndim - 1)), a, b)

        lanes = jax.tree.map(pick, new, lanes)
        return lanes, results, next_root + jnp.sum(finished.astype(jnp.int32))

    _, results, _ = jax.lax.while_loop(cond, body, (lanes, results, jnp.int32(num_lanes)))
    return results


# ---------------------------------------------------------------- options
def pruning_bounds(game: Game, bounds: tuple[float, float] | None = None) -> tuple[float, float]:
    """``(L, S)``: a lower bound on every component and an upper bound on their sum.

    ``bounds`` overrides the game's facts (an explicit tree knows its leaves, not its sum).
    By default ``L = utility_min`` and ``S`` is the tightest of ``utility_sum_max``,
    ``n * utility_max`` and, for zero-sum games, 0.
    """
    if bounds is not None:
        low, total = (float(b) for b in bounds)
        return low, total
    total = min(float(game.utility_sum_max), game.num_players * float(game.utility_max))
    if game.zero_sum:
        total = min(total, 0.0)
    return float(game.utility_min), total


def resolve_pruning(game: Game, pruning: str, agree: bool | None = None) -> str:
    """The pruning a maxⁿ search runs: ``"none"``, ``"shallow"`` or ``"alphabeta"``.

    ``"auto"``: two-player alpha-beta when there are two players whose evaluations agree on
    the order of positions (``agree``; by default: the game is zero-sum), else shallow
    pruning (Korf 1989: alpha-beta is only sound when the functions agree).
    """
    if pruning not in PRUNINGS:
        raise GameError(f"maxn: pruning must be one of {', '.join(PRUNINGS)}, got {pruning!r}")
    agrees = game.zero_sum if agree is None else bool(agree)
    if pruning == "auto":
        return "alphabeta" if game.num_players == 2 and agrees else "shallow"
    if pruning == "alphabeta" and not (game.num_players == 2 and agrees):
        raise GameError(
            f"maxn: pruning='alphabeta' needs two players whose evaluations agree; "
            f"{game.name} has {game.num_players} players"
            + ("" if game.num_players != 2 else " and is not zero-sum (pass agree=True)")
        )
    return pruning


def _check(game: Game, depth: int, what: str) -> None:
    if game.num_chance_outcomes:
        raise GameError(f"{what}: {game.name} has chance nodes; use expectiminimax")
    if depth < 0:
        raise GameError(f"{what}: depth must be >= 0, got {depth}")


def _lanes(
    game: Game,
    states: Any,
    depth: int,
    mode: int,
    immediate: bool,
    bounds: tuple[float, float],
    root_players: Any,
    lanes: int,
    events: int,
    pruning: str,
) -> BatchSearchResult:
    start_time = time.perf_counter()
    n = batch_size(states)
    if n == 0:
        raise GameError(f"{pruning}: no positions")
    depth = needed_depth(game, states, depth)
    if root_players is None:
        root_players = jax.vmap(game.player)(jax.tree.map(jnp.asarray, states))
    # pad to a power of two (few compiled shapes for the host driver's frontiers and for
    # bulk chunks); padded roots are never searched
    size = 1 << (n - 1).bit_length()
    roots = jax.tree.map(jnp.asarray, pad_to(to_numpy(states), size))
    root_players = np.pad(np.asarray(root_players, np.int32), (0, size - n))
    low, total = bounds
    players = game.num_players

    def others(count: int) -> float:  # count * L, with no other player counting 0 (L = -inf)
        return count * low if count > 0 else 0.0

    own_max = min(float(game.utility_max), total - others(players - 1))
    constants = jnp.asarray([total - others(players - 2), own_max], jnp.float32)
    res = progress.compiled_call(
        _search,
        game,
        int(depth),
        mode,
        bool(immediate),
        min(int(lanes), size),
        int(events),
        roots,
        jnp.asarray(root_players, jnp.int32),
        constants,
        jnp.int32(n),
        what=f"{pruning} maxn of {n:,} positions",
    )
    res = jax.tree.map(lambda x: np.asarray(x)[:n], res)
    return BatchSearchResult(
        value=res.value.astype(np.float32),
        best_action=res.best_move.astype(np.int32),
        pv=res.pv[:, :depth].astype(np.int32),
        nodes=res.nodes.astype(np.int64),
        stats={
            "nodes": int(res.nodes.sum()),
            "leaves": int(res.leaves.sum()),
            "cutoffs": int(res.cutoffs.sum()),
            "leaves_per_root": res.leaves.astype(np.int64),
            "cutoffs_per_root": res.cutoffs.astype(np.int64),
            "pruning": pruning,
            "bounds": (low, total),
            "time_s": time.perf_counter() - start_time,
        },
    )


# ---------------------------------------------------------------- many roots
def maxn_batch(
    game: Game,
    states: Any,
    depth: int,
    *,
    pruning: str = "auto",
    bounds: tuple[float, float] | None = None,
    agree: bool | None = None,
    immediate: bool = True,
    lanes: int = 256,
    events: int = 16,
) -> BatchSearchResult:
    """Depth-limited maxⁿ of many roots at once, one lane per root (see the module docstring).

    Args:
        game: a deterministic game with any number of players.
        states: a batch ``[N]`` of roots.
        depth: plies below each root.
        pruning: ``"shallow"`` (Korf's shallow and immediate pruning), ``"none"`` (every
            node), ``"alphabeta"`` (two players whose evaluations agree: two-player
            alpha-beta, deep cutoffs included) or ``"auto"`` (alpha-beta where sound, else
            shallow; see :func:`resolve_pruning`). Every choice returns the maxⁿ vector.
        bounds: ``(L, S)`` overriding the game's ``utility_min`` and sum bound
            (:func:`pruning_bounds`); wrong bounds give wrong values.
        agree: for two players, whether their evaluations order positions alike (default:
            the game is zero-sum); only then is alpha-beta used.
        immediate: also prune once the mover's component reaches its maximum.
        lanes: searches run side by side (at most N); events: lane steps between refills.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` has ``nodes`` (roots and every child
        expanded), ``leaves``, ``cutoffs`` (nodes left with children unsearched), their
        per-root arrays, ``pruning`` (what ran), ``bounds`` and ``time_s``.
    """
    _check(game, depth, "maxn")
    pruning = resolve_pruning(game, pruning, agree)
    mode = {"none": _NONE, "shallow": _SHALLOW, "alphabeta": _PARANOID}[pruning]
    return _lanes(
        game,
        states,
        depth,
        mode,
        immediate,
        pruning_bounds(game, bounds),
        None,
        lanes,
        events,
        pruning,
    )


def paranoid_batch(
    game: Game,
    states: Any,
    depth: int,
    *,
    root_players: Any = None,
    lanes: int = 256,
    events: int = 16,
) -> BatchSearchResult:
    """Paranoid search of many roots at once: alpha-beta on the root player's component,
    every other player minimising it (Sturtevant and Korf 2000).

    Args:
        root_players: int32[N], the player each search is paranoid for (default: each
            root's player to move; the host driver passes its own root's player).

    Returns:
        A :class:`BatchSearchResult`; ``value[i]`` is the vector of the leaf root ``i``'s
        principal variation ends in, and ``value[i, r]`` (``r`` its root player) the
        paranoid value. ``stats`` as for :func:`maxn_batch`.
    """
    _check(game, depth, "paranoid")
    return _lanes(
        game,
        states,
        depth,
        _PARANOID,
        True,
        pruning_bounds(game),
        root_players,
        lanes,
        events,
        "paranoid",
    )


# ---------------------------------------------------------------- one root
def _bucket(n: int) -> int:
    return max(16, 1 << (max(n, 1) - 1).bit_length())


def _on_device(fn, states) -> np.ndarray:
    """A batched kernel on ``states`` padded to a power of two (few compiled shapes)."""
    n = batch_size(states)
    return np.asarray(fn(pad_to(states, _bucket(n))))[:n]


def _paranoid_backup(game: Game, levels: Any, deepest: np.ndarray, root_player: int):
    """Back up the top levels by the paranoid rule for ``root_player`` (ties: lowest action)."""
    from jaxgames.search.minimax import Backup

    kernels = batched(game)
    depth = len(levels.edges)
    values: list[np.ndarray] = [None] * (depth + 1)  # type: ignore[list-item]
    best_edge: list[np.ndarray] = [None] * (depth + 1)  # type: ignore[list-item]
    values[depth] = deepest
    best_edge[depth] = np.full(len(deepest), -1, np.int32)
    for level in range(depth - 1, -1, -1):
        states, edges = levels.states[level], levels.edges[level]
        count = batch_size(states)
        value = _on_device(kernels.leaf_values, states).astype(np.float32)
        mover = _on_device(kernels.player, states)
        chosen = np.full(count, -1, np.int32)
        child = values[level + 1][edges.child]  # [E, P]
        key = np.where(mover[edges.parent] == root_player, 1.0, -1.0) * child[:, root_player]
        # per parent: the highest key, the first edge (lowest action) among ties
        order = np.lexsort((np.arange(len(key)), -key, edges.parent))
        first = order[np.r_[True, edges.parent[order][1:] != edges.parent[order][:-1]]]
        chosen[edges.parent[first]] = first
        has = chosen >= 0
        value[has] = child[chosen[has]]
        values[level], best_edge[level] = value, chosen
    return Backup(values, best_edge)


def _host_driver(
    game: Game,
    state: Any,
    depth: int,
    split: int,
    pruning: str,
    search: Any,
    root_player: int,
) -> SearchResult:
    """Top ``split`` plies on the host (no pruning), the frontier by the lanes, backed up."""
    from jaxgames.search.levels import expand_levels
    from jaxgames.search.minimax import backup, principal_variation, root_action_values

    start = time.perf_counter()
    levels = expand_levels(game, stack([to_numpy(state)]), split)
    frontier = levels.states[-1]
    plies = len(levels.edges)
    below = search(frontier, depth - plies)
    if pruning in ("alphabeta", "paranoid"):
        back = _paranoid_backup(game, levels, below.value, root_player)
    else:
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
    top = levels.states[:-1]
    top_nodes = sum(batch_size(s) for s in top)
    top_leaves = sum(
        batch_size(s) - len(np.unique(e.parent)) for s, e in zip(top, levels.edges, strict=True)
    )
    stats = dict(below.stats)
    for key in ("leaves_per_root", "cutoffs_per_root"):
        stats.pop(key, None)
    stats.update(
        {
            "nodes": int(top_nodes + below.nodes.sum()),
            "leaves": int(top_leaves + below.stats["leaves"]),
            "frontier": batch_size(frontier),
            "mode": "host",
            "time_s": time.perf_counter() - start,
        }
    )
    return SearchResult(
        value=np.asarray(back.values[0][0], np.float32),
        best_action=pv[0] if pv else -1,
        pv=pv,
        stats=stats,
        action_values=root_action_values(game, levels, back, 0),
    )


def _one_root(batch: BatchSearchResult, started: float) -> SearchResult:
    stats = dict(batch.stats)
    for key in ("leaves_per_root", "cutoffs_per_root"):
        stats.pop(key, None)
    stats.update({"mode": "device", "time_s": time.perf_counter() - started})
    return SearchResult(
        value=batch.value[0],
        best_action=int(batch.best_action[0]),
        pv=[int(a) for a in batch.pv[0] if a >= 0],
        stats=stats,
    )


def _mode(mode: str, depth: int, split: int, what: str) -> str:
    if mode not in ("auto", "device", "host"):
        raise GameError(f"{what}: mode must be auto, device or host, got {mode!r}")
    if mode == "auto":  # as measured on a multi-player board game (see maxn)
        mode = "host" if depth >= 3 else "device"
    return "host" if mode == "host" and depth > split else "device"


def maxn(
    game: Game,
    state: Any,
    depth: int,
    *,
    pruning: str = "auto",
    bounds: tuple[float, float] | None = None,
    agree: bool | None = None,
    immediate: bool = True,
    mode: str = "auto",
    split: int = 2,
    lanes: int = 256,
    events: int = 16,
) -> SearchResult:
    """maxⁿ of one position (with Korf's shallow pruning, or alpha-beta where sound).

    Two ways to run it: ``"device"``, one lane of :func:`maxn_batch`; ``"host"``, the top
    ``split`` plies expanded on the host without pruning, their frontier searched by
    :func:`maxn_batch` (one lane per frontier node, ``depth - split`` plies each), the vectors
    backed up the top by the maxⁿ rule. ``"auto"``: the host driver from depth 3 (in
    ``benchmarks/multiplayer.py``, one three-player root of its star-board game at a time on a
    2-core CPU, the single lane was faster at depth 2 and the host driver at depth 3).
    The values are the same.

    Args:
        pruning, bounds, agree, immediate, lanes, events: as for :func:`maxn_batch`.

    Returns:
        A :class:`SearchResult` with the maxⁿ vector; ``stats`` has ``nodes``, ``leaves``,
        ``cutoffs``, ``pruning``, ``mode`` and ``time_s`` (and ``frontier`` on the host).
    """
    _check(game, depth, "maxn")
    started = time.perf_counter()
    pruning = resolve_pruning(game, pruning, agree)
    options = dict(
        pruning=pruning, bounds=bounds, agree=agree, immediate=immediate, lanes=lanes, events=events
    )
    if _mode(mode, depth, split, "maxn") == "host":
        root_player = int(np.asarray(game.player(jax.tree.map(jnp.asarray, state))))
        if pruning == "alphabeta":  # the frontier searched for the root's player

            def search(frontier, plies):
                players = np.full(batch_size(frontier), root_player, np.int32)
                return _lanes(
                    game,
                    frontier,
                    plies,
                    _PARANOID,
                    immediate,
                    pruning_bounds(game, bounds),
                    players,
                    lanes,
                    events,
                    "alphabeta",
                )

        else:

            def search(frontier, plies):
                return maxn_batch(game, frontier, plies, **options)

        return _host_driver(game, state, depth, split, pruning, search, root_player)
    return _one_root(maxn_batch(game, stack([to_numpy(state)]), depth, **options), started)


def paranoid(
    game: Game,
    state: Any,
    depth: int,
    *,
    mode: str = "auto",
    split: int = 2,
    lanes: int = 256,
    events: int = 16,
) -> SearchResult:
    """Paranoid search of one position: the player to move against the coalition of all
    others, two-player alpha-beta on its component (see :func:`paranoid_batch`).

    ``mode``: ``"device"`` (one lane), ``"host"`` (top ``split`` plies on the host, the
    frontier searched for the root's player by the lanes) or ``"auto"`` (host from depth 3).

    Returns:
        A :class:`SearchResult`: ``value`` is the vector of the principal variation's leaf,
        its root-player component the paranoid value.
    """
    _check(game, depth, "paranoid")
    started = time.perf_counter()
    root_player = int(np.asarray(game.player(jax.tree.map(jnp.asarray, state))))
    if _mode(mode, depth, split, "paranoid") == "host":

        def search(frontier, plies):
            players = np.full(batch_size(frontier), root_player, np.int32)
            return paranoid_batch(
                game, frontier, plies, root_players=players, lanes=lanes, events=events
            )

        return _host_driver(game, state, depth, split, "paranoid", search, root_player)
    batch = paranoid_batch(game, stack([to_numpy(state)]), depth, lanes=lanes, events=events)
    return _one_root(batch, started)


__all__ = [
    "maxn",
    "maxn_batch",
    "paranoid",
    "paranoid_batch",
    "pruning_bounds",
    "resolve_pruning",
]
