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
(``tests/search/test_maxn.py`` has two trees that differ only below such a cut and back up different
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
:func:`paranoid_batch`: every root a job of the lane engine, :mod:`jaxgames.search.lanes`,
each lane its own depth-first search with an explicit stack), or one deep search through the
host driver of :mod:`jaxgames.search.host` (:func:`maxn`, :func:`paranoid` with
``mode="host"``: the top ``split`` plies expanded on the host, level by level and without
pruning, the frontier searched by the lanes, one job per node, the values backed up the top
by the maxⁿ or the paranoid rule).

A frame holds its node's moves as a compact list (at most the game's ``max_moves`` with
:class:`~jaxgames.capabilities.MoveLists`, else ``num_actions``), in action order, generated
when the node becomes current and read one by one: a frame never holds, nor scans, an array
as wide as the action space.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

from jaxgames import progress
from jaxgames.capabilities import MoveLists
from jaxgames.game import Game, GameError
from jaxgames.kernels import (
    batch_size,
    leaf_values,
    local_mesh,
    pad_to,
    shard_batch,
    shard_multiple,
    stack,
    to_numpy,
)
from jaxgames.search import lanes as engine
from jaxgames.search.horizon import needed_depth
from jaxgames.search.host import BackupRule, host_driver, one_root, paranoid_backup
from jaxgames.search.minimax import backup
from jaxgames.search.result import BatchSearchResult, SearchResult

PRUNINGS = ("auto", "none", "shallow", "alphabeta")
FEW_LISTS = 8
"""While at most one lane in FEW_LISTS needs a move list in an event, the lists are made
one lane at a time; else for every lane at once.

A list costs the game's move generation, the dearest part of an event for most games, and
few lanes need one per event (one per node opened: about one lane in the branching factor).
A vmapped generation costs about the lanes it is given (its loops run until the slowest
lane is done), so generating for every lane whenever any needed a list paid for the whole
width almost every event (benchmarks/README.md has the measurement). Where most lanes
need one (small branching factors), one batch costs less than as many rounds."""


# ---------------------------------------------------------------- frames
class Constants(NamedTuple):
    """The pruning tests' constants, traced (other bounds compile nothing new)."""

    shallow_base: jax.Array  # float32: S - (n - 2) L
    own_max: jax.Array  # float32: the most any one component can be


class Frame(NamedTuple):
    """One node on a lane's path, unpacked (a frame is stored as one float32 row)."""

    mover: jax.Array  # int32
    count: jax.Array  # int32: moves in the node's list; -1: not generated yet
    cursor: jax.Array  # int32: moves searched (the list's next entry)
    best_move: jax.Array  # int32: -1 until a child has reported
    last: jax.Array  # int32: the move most recently expanded
    threshold: jax.Array  # float32: shallow pruning once best[mover] >= threshold
    alpha: jax.Array  # float32: paranoid window on the root player's component
    beta: jax.Array  # float32
    cut: jax.Array  # bool: the node's remaining moves are pruned
    best: jax.Array  # float32[P]: the best child's vector so far
    pv: jax.Array  # int32[F]: the best line found from the node (-1 padded)


_SCALARS = Frame._fields[:9]
_INTS = frozenset(("mover", "count", "cursor", "best_move", "last"))


def _pack(frame: Frame) -> jax.Array:
    """A frame as one float32 row ``[scalars | best (P) | pv (F)]``: an event then reads
    and writes whole rows, not a column per field (integers below 2**24 are exact)."""
    scalars = jnp.stack([jnp.asarray(getattr(frame, k), jnp.float32) for k in _SCALARS])
    return jnp.concatenate([scalars, frame.best.astype(jnp.float32), frame.pv.astype(jnp.float32)])


def _unpack(row: jax.Array, players: int) -> Frame:
    fields = {
        k: row[i].astype(jnp.int32) if k in _INTS else row[i] > 0.5 if k == "cut" else row[i]
        for i, k in enumerate(_SCALARS)
    }
    at = len(_SCALARS)
    return Frame(**fields, best=row[at : at + players], pv=row[at + players :].astype(jnp.int32))


def _write(x: Any, i: jax.Array, value: Any, active: Any) -> Any:
    """Row ``i`` of every leaf of ``x`` set to ``value`` where ``active``; an inactive write
    goes to an out-of-range row and is dropped (the old row is not read)."""

    def one(column, v):
        n = column.shape[0]
        return column.at[jnp.where(active, i, n)].set(jnp.asarray(v, column.dtype), mode="drop")

    return jax.tree.map(one, x, value)


# ---------------------------------------------------------------- backup rules
class Rule(Protocol):
    """How a frame takes its children's vectors and when it prunes the rest (static)."""

    def prefers(self, frame: Frame, value: jax.Array, root_player: jax.Array) -> jax.Array:
        """bool: the frame's mover takes ``value`` over its best so far (strictly better:
        ties keep the earlier, lower action)."""
        ...

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        """``(threshold, alpha, beta)`` of a new child frame of ``parent`` whose mover is
        ``mover``."""
        ...

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        """The frame's window and ``cut`` after a child reported."""
        ...


def _own(frame: Frame, players: int) -> jax.Array:
    return jnp.clip(frame.mover, 0, players - 1)


@dataclasses.dataclass(frozen=True)
class Plain:
    """maxⁿ without pruning: every node reads all its children."""

    players: int

    def prefers(self, frame: Frame, value: jax.Array, root_player: jax.Array) -> jax.Array:
        own = _own(frame, self.players)
        return value[own] > frame.best[own]

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        return jnp.float32(jnp.inf), parent.alpha, parent.beta

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        return frame


@dataclasses.dataclass(frozen=True)
class Shallow(Plain):
    """Korf's shallow pruning (the parent's bound only), and immediate pruning."""

    immediate: bool = True

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        # the parent's bound: only a parent whose mover differs, and that holds a child
        held = (parent.best_move >= 0) & (parent.mover != mover)
        beta_j = parent.best[_own(parent, self.players)]
        return jnp.where(held, k.shallow_base - beta_j, jnp.inf), parent.alpha, parent.beta

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        own = frame.best[_own(frame, self.players)]
        cut = own >= frame.threshold
        if self.immediate:
            cut = cut | (own >= k.own_max)
        return frame._replace(cut=cut)


@dataclasses.dataclass(frozen=True)
class Paranoid:
    """Two-player alpha-beta on the root player's component (fail-soft, deep cutoffs)."""

    def prefers(self, frame: Frame, value: jax.Array, root_player: jax.Array) -> jax.Array:
        score, held = value[root_player], frame.best[root_player]
        return jnp.where(frame.mover == root_player, score > held, score < held)

    def child(self, parent: Frame, mover: jax.Array, k: Constants) -> tuple[Any, Any, Any]:
        return jnp.float32(jnp.inf), parent.alpha, parent.beta

    def settle(self, frame: Frame, root_player: jax.Array, k: Constants) -> Frame:
        score = frame.best[root_player]
        maximizing = frame.mover == root_player
        alpha = jnp.where(maximizing, jnp.maximum(frame.alpha, score), frame.alpha)
        beta = jnp.where(maximizing, frame.beta, jnp.minimum(frame.beta, score))
        return frame._replace(alpha=alpha, beta=beta, cut=alpha >= beta)


# ---------------------------------------------------------------- lanes
class Plan(NamedTuple):
    """A job's one search."""

    depth: jax.Array  # int32: plies below the root (0 for padding: settled at once)
    root_player: jax.Array  # int32: paranoid: the player the coalition plays against


class Outcome(NamedTuple):
    value: jax.Array  # float32[P]
    best_move: jax.Array  # int32
    pv: jax.Array  # int32[F]


class Counters(NamedTuple):
    nodes: jax.Array  # the root and every child expanded
    leaves: jax.Array  # positions scored by UTILITY or EVAL
    cutoffs: jax.Array  # frames left with moves unsearched


class Lane(NamedTuple):
    """One lane: the path from its root, F = depth + 1 frames (frame t: t plies down)."""

    state: Any  # [F] states
    rows: jax.Array  # float32[F, R]: each frame packed
    moves: jax.Array  # int16 or int32[F, M]: each frame's moves, in action order, -1 padded
    sp: jax.Array  # int32[]: the current frame
    done: jax.Array  # bool[]
    job: jax.Array  # int32[]: the root searched (-1: idle)
    iteration: jax.Array  # int32[]
    depth: jax.Array  # int32[]: this search's plies
    root_player: jax.Array  # int32[]
    nodes: jax.Array  # int32[]
    leaves: jax.Array  # int32[]
    cutoffs: jax.Array  # int32[]


def max_moves(game: Game) -> int:
    """The moves a frame holds: the game's ``max_moves`` bound, else its action space."""
    return int(game.max_moves) if isinstance(game, MoveLists) else game.num_actions


def move_list(game: Game, state: Any) -> jax.Array:
    """int32[M]: ``state``'s legal moves in action order, then -1 (children are searched in
    action order: ties go to the lowest action, and shallow pruning relies on it)."""
    if isinstance(game, MoveLists):
        top = jnp.iinfo(jnp.int32).max
        moves = game.legal_moves(state).astype(jnp.int32)
        moves = jnp.sort(jnp.where(moves < 0, top, moves))  # a list may come in any order
        return jnp.where(moves == top, -1, moves)
    (moves,) = jnp.nonzero(game.legal_mask(state), size=game.num_actions, fill_value=-1)
    return moves.astype(jnp.int32)


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
        cur = _unpack(lane.rows[sp], self.players)
        par = _unpack(lane.rows[up], self.players)
        more = (cur.count < 0) | (cur.cursor < cur.count)
        finish = ~lane.done & (~more | cur.cut)
        report = finish & (sp > 0)
        reported = self.give(par, cur.best, par.last, cur.pv, report, lane.root_player)
        lane = lane._replace(
            rows=_write(lane.rows, up, _pack(reported), report),
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
        rows = _write(lane.rows, sp, _pack(here), expand | fresh)
        rows = _write(rows, sp + 1, _pack(opened), push)
        return lane._replace(
            state=_write(lane.state, sp + 1, child, push),
            rows=rows,
            moves=_write(lane.moves, sp, row.astype(self.move_dtype), fresh),
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
        row = _pack(top)
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
        top = _unpack(lane.rows[0], self.players)
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


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4, 5, 6))
def _run(
    game: Game,
    rule: Rule,
    frames: int,
    phases: tuple[int, ...],
    events: int,
    helpers: bool,
    mesh: Mesh | None,
    roots: Any,
    plans: Plan,
    constants: Constants,
) -> engine.Jobs:
    """Every root settled, on one device or each device its contiguous share."""

    def one_device(roots, plans, constants):
        program = Search(game, rule, frames, constants).program()
        outcome_like = Outcome(
            jnp.zeros((game.num_players,), jnp.float32),
            jnp.int32(-1),
            jnp.full((frames,), -1, jnp.int32),
        )
        zero = jnp.int32(0)
        jobs, _ = engine.run(
            program,
            roots,
            plans,
            outcome_like,
            Counters(zero, zero, zero),
            None,
            phases,
            events,
            helpers,
        )
        return jobs

    return engine.on_devices(one_device, mesh, (roots, plans), constants)


def _search(
    game: Game,
    states: Any,
    depth: int,
    rule: Rule,
    bounds: tuple[float, float],
    root_players: Any,
    lanes: int,
    events: int,
    shrink: int,
    helpers: bool,
    pruning: str,
) -> BatchSearchResult:
    """``states`` [N] searched as jobs of the lane engine (the batch padded to few shapes,
    each device its share where there are several; padding is settled at once)."""
    started = time.perf_counter()
    n = batch_size(states)
    if n == 0:
        raise GameError(f"{pruning}: no positions")
    if lanes < 1 or events < 1 or shrink < 0:
        raise GameError(
            f"{pruning}: lanes and events must be >= 1 and shrink >= 0, got "
            f"{lanes}, {events}, {shrink}"
        )
    depth = needed_depth(game, states, depth)
    if root_players is None:
        root_players = jax.vmap(game.player)(jax.tree.map(jnp.asarray, states))
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and n >= devices else None
    size = 1 << (n - 1).bit_length()
    if mesh is not None:
        size = shard_multiple(size, mesh)
    share = size // (devices if mesh is not None else 1)
    num_lanes = max(1, min(share, lanes)) if not helpers else lanes
    phases = engine.lane_phases(num_lanes, shrink) if not helpers else (num_lanes,)
    roots = jax.tree.map(jnp.asarray, pad_to(to_numpy(states), size))
    plans = Plan(
        depth=jnp.asarray(np.where(np.arange(size) < n, depth, 0), jnp.int32),
        root_player=jnp.asarray(np.pad(np.asarray(root_players, np.int32), (0, size - n))),
    )
    if mesh is not None:
        roots, plans = shard_batch((roots, plans), mesh)
    low, total = bounds
    players = game.num_players

    def others(count: int) -> float:  # count * L, with no other player counting 0 (L = -inf)
        return count * low if count > 0 else 0.0

    own_max = min(float(game.utility_max), total - others(players - 1))
    constants = Constants(jnp.float32(total - others(players - 2)), jnp.float32(own_max))
    args = (game, rule, depth + 1, phases, events, helpers, mesh, roots, plans, constants)
    compile_start = time.perf_counter()
    with progress.phase(f"compiling {pruning} maxn of {n:,} positions"):
        _run.lower(*args).compile()
    compile_s = time.perf_counter() - compile_start
    with progress.phase(f"{pruning} maxn of {n:,} positions"):
        jobs = _run(*args)
    out = jax.tree.map(lambda x: np.asarray(x)[:n], (jobs.outcome, jobs.counters))
    outcome, counters = out
    return BatchSearchResult(
        value=outcome.value.astype(np.float32),
        best_action=outcome.best_move.astype(np.int32),
        pv=outcome.pv[:, :depth].astype(np.int32),
        nodes=counters.nodes.astype(np.int64),
        stats={
            "nodes": int(counters.nodes.sum()),
            "leaves": int(counters.leaves.sum()),
            "cutoffs": int(counters.cutoffs.sum()),
            "leaves_per_root": counters.leaves.astype(np.int64),
            "cutoffs_per_root": counters.cutoffs.astype(np.int64),
            "pruning": pruning,
            "bounds": (low, total),
            "time_s": time.perf_counter() - started,
            "compile_s": compile_s,
            "lanes": num_lanes,
            "lane_phases": list(phases),
            "devices": devices if mesh is not None else 1,
        },
    )


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


def _rule(game: Game, pruning: str, immediate: bool) -> Rule:
    players = game.num_players
    if pruning == "none":
        return Plain(players)
    if pruning == "shallow":
        return Shallow(players, bool(immediate))
    return Paranoid()


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
    shrink: int = 4,
) -> BatchSearchResult:
    """Depth-limited maxⁿ of many roots at once, each root a job of the lane engine (see
    the module docstring).

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
        lanes: searches run side by side (per device, at most N); events: lane steps
            between refills; shrink: once no root waits, the busy lanes move to loops this
            many times narrower (:func:`~jaxgames.search.lanes.lane_phases`; 0 or 1: never).

    With several local devices and at least as many roots, each device searches its own
    contiguous share of the roots with its own lanes and queue.

    Returns:
        A :class:`BatchSearchResult`; ``stats`` has ``nodes`` (roots and every child
        expanded), ``leaves``, ``cutoffs`` (nodes left with children unsearched), their
        per-root arrays, ``pruning`` (what ran), ``bounds``, ``time_s``, ``compile_s`` and
        what ran (``lanes``, ``lane_phases``, ``devices``).
    """
    _check(game, depth, "maxn")
    pruning = resolve_pruning(game, pruning, agree)
    return _search(
        game,
        states,
        depth,
        _rule(game, pruning, immediate),
        pruning_bounds(game, bounds),
        None,
        lanes,
        events,
        shrink,
        False,
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
    shrink: int = 4,
) -> BatchSearchResult:
    """Paranoid search of many roots at once: alpha-beta on the root player's component,
    every other player minimising it (Sturtevant and Korf 2000).

    Args:
        root_players: int32[N], the player each search is paranoid for (default: each
            root's player to move; the host driver passes its own root's player).
        lanes, events, shrink: as for :func:`maxn_batch`.

    Returns:
        A :class:`BatchSearchResult`; ``value[i]`` is the vector of the leaf root ``i``'s
        principal variation ends in, and ``value[i, r]`` (``r`` its root player) the
        paranoid value. ``stats`` as for :func:`maxn_batch`.
    """
    _check(game, depth, "paranoid")
    return _search(
        game,
        states,
        depth,
        Paranoid(),
        pruning_bounds(game),
        root_players,
        lanes,
        events,
        shrink,
        False,
        "paranoid",
    )


# ---------------------------------------------------------------- one root
def _mode(mode: str, depth: int, split: int, what: str) -> str:
    if mode not in ("auto", "device", "host"):
        raise GameError(f"{what}: mode must be auto, device or host, got {mode!r}")
    if mode == "auto":  # as measured on a multi-player board game (see maxn)
        mode = "host" if depth >= 3 else "device"
    return "host" if mode == "host" and depth > split else "device"


def _root_player(game: Game, state: Any) -> int:
    return int(np.asarray(game.player(jax.tree.map(jnp.asarray, state))))


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
    :func:`maxn_batch` (one job per frontier node, ``depth - split`` plies each), the vectors
    backed up the top by the maxⁿ rule (:func:`jaxgames.search.host.host_driver`).
    ``"auto"``: the host driver from depth 3 (in ``benchmarks/multiplayer.py``, one
    three-player root of its star-board game at a time on a 2-core CPU, the single lane was
    faster at depth 2 and the host driver at depth 3). The values are the same.

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
    if _mode(mode, depth, split, "maxn") != "host":
        return one_root(maxn_batch(game, stack([to_numpy(state)]), depth, **options), started)
    back_up: BackupRule = backup
    if (
        pruning == "alphabeta"
    ):  # the frontier searched, and the top backed up, for the root's player
        root_player = _root_player(game, state)
        back_up = paranoid_backup(root_player)

        def search(frontier: Any, plies: int) -> BatchSearchResult:
            return _search(
                game,
                frontier,
                plies,
                Paranoid(),
                pruning_bounds(game, bounds),
                np.full(batch_size(frontier), root_player, np.int32),
                lanes,
                events,
                4,
                False,
                "alphabeta",
            )

    else:

        def search(frontier: Any, plies: int) -> BatchSearchResult:
            return maxn_batch(game, frontier, plies, **options)

    return host_driver(game, state, depth, split, search, back_up)


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
    if _mode(mode, depth, split, "paranoid") != "host":
        batch = paranoid_batch(game, stack([to_numpy(state)]), depth, lanes=lanes, events=events)
        return one_root(batch, started)
    root_player = _root_player(game, state)

    def search(frontier: Any, plies: int) -> BatchSearchResult:
        players = np.full(batch_size(frontier), root_player, np.int32)
        return paranoid_batch(
            game, frontier, plies, root_players=players, lanes=lanes, events=events
        )

    return host_driver(game, state, depth, split, search, paranoid_backup(root_player))


__all__ = [
    "maxn",
    "maxn_batch",
    "paranoid",
    "paranoid_batch",
    "pruning_bounds",
    "resolve_pruning",
]
