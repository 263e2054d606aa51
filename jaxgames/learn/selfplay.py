"""Games in lockstep where every move is chosen by scoring afterstates: TD(lambda)
self-play training, and matches between afterstate scorers (a network, pubeval, random).

A turn of the B lanes is two device calls: roll the dice where a lane is at a chance node
and count each lane's plays; then list every lane's afterstates as one flat padded list
(:mod:`jaxgames.learn.afterstates`), score them in one batched call and play the best of
each lane (or, with probability epsilon, a random one). The host only reads the total
number of plays, to choose the list's bucket size. Training adds a third call: the
TD(lambda) step on the lanes' new afterstates (:mod:`jaxgames.learn.td`), after which
finished games start again, so the lanes stay busy.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels import random_actions
from jaxgames.learn.afterstates import (
    ValueEncoding,
    best_per_lane,
    bucket,
    pairs,
    play_counts,
    plays_by_rank,
)
from jaxgames.learn.network import ValueNet
from jaxgames.learn.td import Traces, init_traces, td_lambda_step

State = Any


# ---------------------------------------------------------------------- scorers
@dataclasses.dataclass(frozen=True)
class NetScorer:
    """The network's win probability of each afterstate, for the side that moved."""

    name: str = "net"

    def __call__(self, game: Game, params: Any, before: State, after: State, key) -> jax.Array:
        return jax.vmap(params)(jax.vmap(game.features)(after))


@dataclasses.dataclass(frozen=True)
class RandomScorer:
    """Uniform random scores: a uniformly random play."""

    name: str = "random"

    def __call__(self, game: Game, params: Any, before: State, after: State, key) -> jax.Array:
        return jax.random.uniform(key, (jax.tree.leaves(after)[0].shape[0],))


@dataclasses.dataclass(frozen=True)
class MethodScorer:
    """A game's own play scorer ``game.<method>(before, after)`` (backgammon's pubeval)."""

    name: str

    def __call__(self, game: Game, params: Any, before: State, after: State, key) -> jax.Array:
        return jax.vmap(getattr(game, self.name))(before, after)


def scorer(game: Game, name: str) -> Callable:
    """``"net"``, ``"random"`` or a scorer the game defines (``"pubeval"``)."""
    if name == "net":
        return NetScorer()
    if name == "random":
        return RandomScorer()
    if callable(getattr(game, name, None)) and name in getattr(game, "play_scorers", ()):
        return MethodScorer(name)
    known = ", ".join(("net", "random", *getattr(game, "play_scorers", ())))
    raise GameError(f"scorer {name!r}: unknown for {game.spec}; known: {known}")


def check_learnable(game: Game) -> None:
    """A one-line GameError unless ``game`` can be learned here."""
    if game.num_players != 2 or not game.zero_sum:
        raise GameError(f"learn: {game.spec} is not a two-player zero-sum game")
    if not isinstance(game, ValueEncoding):
        raise GameError(f"learn: {game.spec} has no value encoding (features and viewer)")


# ---------------------------------------------------------------------- device calls
def _where(mask: jax.Array, a: State, b: State) -> State:
    def pick(x, y):
        return jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - 1)), x, y)

    return jax.tree.map(pick, a, b)


@functools.partial(jax.jit, static_argnums=0)
def _roll(game: Game, states: State, uniform: jax.Array) -> tuple[State, jax.Array]:
    """Roll where a lane is at a chance node; then each lane's play count (int32[B])."""
    done = jax.vmap(game.terminal)(states)
    chance = (jax.vmap(game.player)(states) == CHANCE) & ~done
    rolled = jax.vmap(game.step)(states, random_actions(game, states, uniform))
    states = _where(chance, rolled, states)
    return states, play_counts(game, states)


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _decide(
    game: Game,
    size: int,
    scorer_a: Callable,
    scorer_b: Callable | None,
    params_a: Any,
    params_b: Any,
    states: State,
    counts: jax.Array,
    use_a: jax.Array,
    key: jax.Array,
    epsilon: jax.Array,
) -> tuple[State, jax.Array]:
    """Every lane with plays moves to its best-scored afterstate (scorer A where ``use_a``,
    else B); with probability ``epsilon`` to a random one. Returns ``(states, moved)``."""
    lanes = counts.shape[0]
    lane, rank, valid = pairs(counts, size)  # [P] each
    before = jax.tree.map(lambda x: x[lane], states)
    after = jax.vmap(game.step)(before, plays_by_rank(game, states, lane, rank))
    key_a, key_b, key_explore, key_rank = jax.random.split(key, 4)
    scores = scorer_a(game, params_a, before, after, key_a)  # [P]
    if scorer_b is not None:
        scores_b = scorer_b(game, params_b, before, after, key_b)
        scores = jnp.where(use_a[lane], scores, scores_b)
    best, moved = best_per_lane(scores, lane, valid, lanes)
    explore = jax.random.uniform(key_explore, (lanes,)) < epsilon
    starts = jnp.cumsum(counts) - counts
    random_rank = (jax.random.uniform(key_rank, (lanes,)) * counts).astype(jnp.int32)
    random_pick = starts + jnp.minimum(random_rank, jnp.maximum(counts - 1, 0))
    pick = jnp.where(explore & moved, random_pick, best)
    chosen = jax.tree.map(lambda x: x[pick], after)
    return _where(moved, chosen, states), moved


def _reward(game: Game, states: State) -> jax.Array:
    """float32[B]: player 0's result for learning: 1 won, 0 lost, 1/2 drawn."""
    u = jax.vmap(game.utility)(states)[:, 0]
    return jnp.where(u > 0, 1.0, jnp.where(u < 0, 0.0, 0.5)).astype(jnp.float32)


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _learn(
    game: Game,
    optimizer: optax.GradientTransformation,
    lam: float,
    net: ValueNet,
    opt_state: Any,
    traces: Traces,
    states: State,
    moved: jax.Array,
    turns: jax.Array,
    max_turns: int,
) -> tuple[ValueNet, Any, Traces, State, jax.Array, jax.Array, jax.Array]:
    """The TD(lambda) step on the lanes that moved; finished games (and games past
    ``max_turns`` decisions, dropped unscored) start again."""
    features = jax.vmap(game.features)(states)  # [B, F]
    sign = jnp.where(jax.vmap(game.viewer)(states) == 0, 1.0, -1.0)
    done = jax.vmap(game.terminal)(states)
    net, opt_state, traces, loss = td_lambda_step(
        net, opt_state, optimizer, lam, traces, features, sign, done, _reward(game, states), moved
    )
    turns = turns + moved.astype(jnp.int32)
    cut = (turns >= max_turns) & ~done
    restart = done | cut
    fresh = jax.tree.map(lambda x: jnp.broadcast_to(x, (moved.shape[0], *x.shape)), game.init())
    states = _where(restart, fresh, states)
    traces = traces._replace(
        trace=jax.tree.map(
            lambda e: jnp.where(cut.reshape((-1,) + (1,) * (e.ndim - 1)), 0.0, e), traces.trace
        ),
        has_prev=traces.has_prev & ~restart,
    )
    return net, opt_state, traces, states, jnp.where(restart, 0, turns), loss, jnp.sum(done)


def _uniforms(key: jax.Array, lanes: int) -> jax.Array:
    return jax.random.uniform(key, (lanes,))


def _batched(game: Game, lanes: int) -> State:
    return jax.tree.map(lambda x: jnp.broadcast_to(x, (lanes, *x.shape)), game.init())


# ---------------------------------------------------------------------- training
@dataclasses.dataclass
class SelfPlay:
    """TD(lambda) self-play on ``lanes`` games in lockstep (state kept between calls of
    :meth:`run`, so training goes on where it stopped)."""

    game: Game
    net: ValueNet
    optimizer: optax.GradientTransformation
    lam: float = 0.7
    epsilon: float = 0.0
    lanes: int = 128
    seed: int = 0
    max_turns: int = 1000  # decisions per game before it is dropped unscored
    games_done: int = 0
    moves_done: int = 0
    opt_state: Any = None
    seconds: float = 0.0

    def __post_init__(self) -> None:
        check_learnable(self.game)
        if self.opt_state is None:
            self.opt_state = self.optimizer.init(self.net)
        self.traces = init_traces(self.net, self.lanes, self.game.num_features)
        self.states = _batched(self.game, self.lanes)
        self.turns = jnp.zeros((self.lanes,), jnp.int32)
        self.key = jax.random.key(self.seed + 7919 * self.games_done)
        self.last_loss = float("nan")

    def run(self, games: int, on_turn: Callable[[SelfPlay], None] | None = None) -> None:
        """Play until ``games`` more games have finished."""
        target = self.games_done + games
        epsilon = jnp.float32(self.epsilon)
        while self.games_done < target:
            t0 = time.perf_counter()
            self.key, k_roll, k_move = jax.random.split(self.key, 3)
            states, counts = _roll(self.game, self.states, _uniforms(k_roll, self.lanes))
            size = bucket(int(jnp.sum(counts)))
            states, moved = _decide(
                self.game,
                size,
                NetScorer(),
                None,
                self.net,
                None,
                states,
                counts,
                moved_all(self.lanes),
                k_move,
                epsilon,
            )
            (self.net, self.opt_state, self.traces, self.states, self.turns, loss, finished) = (
                _learn(
                    self.game,
                    self.optimizer,
                    self.lam,
                    self.net,
                    self.opt_state,
                    self.traces,
                    states,
                    moved,
                    self.turns,
                    self.max_turns,
                )
            )
            self.games_done += int(finished)
            self.moves_done += int(jnp.sum(moved))
            self.last_loss = float(loss)
            self.seconds += time.perf_counter() - t0
            if on_turn is not None:
                on_turn(self)


@functools.lru_cache(maxsize=8)
def moved_all(lanes: int) -> jax.Array:
    return jnp.ones((lanes,), jnp.bool_)


# ---------------------------------------------------------------------- two-ply player
TWO_PLY = "eval2ply"  # the player name of :func:`play_match` for the two-ply search below
REPLY_LANES = 512  # rolled positions whose replies are listed in one call (bounds memory)


def _pick(values: jax.Array, index: jax.Array) -> jax.Array:
    """float32[N]: ``values[n, index[n]]`` (values ``[N, players]``, index int32[N])."""
    return jnp.take_along_axis(values, index[:, None].astype(jnp.int32), axis=1)[:, 0]


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _two_ply_candidates(
    game: Game, size: int, keep: int, states: State, counts: jax.Array
) -> tuple[State, jax.Array, State, jax.Array, jax.Array]:
    """The ``keep`` best plays of each lane by 1-ply EVAL (forward pruning), and every roll
    of each. States ``[B]`` at decisions, ``counts`` int32[B] (0: the lane does not move).

    Returns ``(candidates [B*keep], cand_valid bool[B, keep], rolled [B*keep*K],
    rolled_counts int32[B*keep*K], probs float32[B*keep, K])`` with ``K`` the chance
    outcomes: candidate ``j`` of lane ``i`` is row ``i * keep + j``, best 1-ply value first."""
    lanes = counts.shape[0]
    lane, rank, valid = pairs(counts, size)  # [P] each
    before = jax.tree.map(lambda x: x[lane], states)
    after = jax.vmap(game.step)(before, plays_by_rank(game, states, lane, rank))
    mover = jax.vmap(game.player)(before)
    one_ply = _pick(jax.vmap(game.evaluate)(after), mover)  # [P]: EVAL for the mover
    masked = jnp.where(valid, one_ply, -jnp.inf)
    order = jnp.lexsort((-masked, lane))  # [P]: by lane, best first within a lane
    starts = jnp.cumsum(counts) - counts
    sorted_lane = lane[order]
    within = jnp.arange(size, dtype=jnp.int32) - starts[sorted_lane]  # rank by 1-ply value
    kept = valid[order] & (within < keep)
    cand = (
        jnp.zeros((lanes, keep), jnp.int32)
        .at[jnp.where(kept, sorted_lane, lanes), jnp.where(kept, within, 0)]
        .set(order.astype(jnp.int32), mode="drop")
    )  # [B, keep]: index into the flat list
    cand_valid = jnp.arange(keep)[None, :] < jnp.minimum(counts, keep)[:, None]  # [B, keep]
    candidates = jax.tree.map(lambda x: x[cand.reshape(-1)], after)  # [B*keep]
    outcomes = jnp.arange(game.num_chance_outcomes, dtype=jnp.int32)  # [K]
    rolled = jax.vmap(jax.vmap(game.step, in_axes=(None, 0)), in_axes=(0, None))(
        candidates, outcomes
    )  # [B*keep, K]
    rolled = jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), rolled)  # [B*keep*K]
    live = jnp.repeat(cand_valid.reshape(-1), game.num_chance_outcomes)
    rolled_counts = jnp.where(live, play_counts(game, rolled), 0)  # 0 below a finished game
    probs = jax.vmap(game.chance_probs)(candidates)  # [B*keep, K]
    return candidates, cand_valid, rolled, rolled_counts, probs


@functools.partial(jax.jit, static_argnums=(0, 1))
def _best_replies(
    game: Game, size: int, rolled: State, start: jax.Array, counts: jax.Array
) -> jax.Array:
    """float32[W]: the mover's EVAL of its best reply in each of the rolled positions
    ``rolled[start : start + W]`` (``counts`` int32[W] plays; -inf where 0)."""
    width = counts.shape[0]
    rolled = jax.tree.map(lambda x: jax.lax.dynamic_slice_in_dim(x, start, width), rolled)
    lane, rank, valid = pairs(counts, size)  # [P] each
    before = jax.tree.map(lambda x: x[lane], rolled)
    leaf = jax.vmap(game.step)(before, plays_by_rank(game, rolled, lane, rank))
    value = _pick(jax.vmap(game.evaluate)(leaf), jax.vmap(game.player)(before))  # [P]
    value = jnp.where(valid, value, -jnp.inf)
    return jax.ops.segment_max(value, lane, num_segments=counts.shape[0])


@functools.partial(jax.jit, static_argnums=0)
def _two_ply_values(
    game: Game,
    states: State,
    candidates: State,
    cand_valid: jax.Array,
    rolled_counts: jax.Array,
    probs: jax.Array,
    best_reply: jax.Array,
) -> jax.Array:
    """float32[B, keep]: each candidate's two-ply value for the lane's mover: the
    probability-weighted mean over the rolls of minus the opponent's best reply (zero sum);
    UTILITY where the play ends the game; -inf for the lanes' missing candidates."""
    lanes, keep = cand_valid.shape
    outcomes = probs.shape[1]
    reply = jnp.where(rolled_counts > 0, -best_reply, 0.0).reshape(lanes * keep, outcomes)
    expected = jnp.sum(probs * reply, axis=1)  # [B*keep]
    mover = jnp.repeat(jax.vmap(game.player)(states), keep)  # [B*keep]
    done = jax.vmap(game.terminal)(candidates)
    final = _pick(jax.vmap(game.utility)(candidates), mover)
    value = jnp.where(done, final, expected).reshape(lanes, keep)
    return jnp.where(cand_valid, value, -jnp.inf)


@jax.jit
def _play_best(states: State, candidates: State, values: jax.Array, moving: jax.Array) -> State:
    """Each moving lane takes its best-valued candidate (the first on ties)."""
    lanes, keep = values.shape
    row = jnp.arange(lanes) * keep + jnp.argmax(values, axis=1)  # [B]
    return _where(moving, jax.tree.map(lambda x: x[row], candidates), states)


def two_ply_values(
    game: Game, states: State, counts: jax.Array, keep: int
) -> tuple[State, jax.Array]:
    """Two-ply search with the game's EVAL for every lane with plays (states ``[B]`` at
    decisions, ``counts`` int32[B], 0 for lanes that do not move): each of the ``keep``
    best plays by 1-ply EVAL (forward pruning; ``keep`` at least the plays: none pruned) is
    valued by the mean over the opponent's rolls of the opponent's best reply by 1-ply EVAL,
    EVAL read at the positions after the reply (the next chance nodes). That is
    ``expectiminimax`` at depth 3 (play, roll, reply). All replies are listed in flat lists
    of :data:`REPLY_LANES` rolled positions, scored in batched calls.

    Returns ``(candidates [B*keep], values float32[B, keep])``: candidate ``j`` of lane
    ``i`` is row ``i * keep + j``, values for the lane's mover (-inf: no such play)."""
    total = int(jnp.sum(counts))
    candidates, cand_valid, rolled, rolled_counts, probs = _two_ply_candidates(
        game, bucket(max(total, 1)), keep, states, counts
    )
    host_counts = np.asarray(rolled_counts)
    rows = host_counts.shape[0]
    width = min(REPLY_LANES, rows)
    best = np.full(rows, -np.inf, np.float32)
    for start in range(0, rows, width):
        stop = min(start + width, rows)
        chunk_total = int(host_counts[start:stop].sum())
        if chunk_total == 0:
            continue
        lo = stop - width  # a full-width window (one compiled shape), ending at ``stop``
        window_counts = np.where(np.arange(lo, stop) >= start, host_counts[lo:stop], 0)
        replies = _best_replies(
            game, bucket(chunk_total), rolled, jnp.int32(lo), jnp.asarray(window_counts)
        )
        best[start:stop] = np.asarray(replies)[start - lo :]
    values = _two_ply_values(
        game, states, candidates, cand_valid, rolled_counts, probs, jnp.asarray(best)
    )
    return candidates, values


# ---------------------------------------------------------------------- matches
@jax.jit
def _pair_uniforms(pair_keys: jax.Array, turn: jax.Array) -> jax.Array:
    """float32[B]: each lane's uniform for its chance node at ``turn`` (lanes of a pair
    share their key, so they share the draw)."""
    return jax.vmap(lambda k: jax.random.uniform(jax.random.fold_in(k, turn)))(pair_keys)


@dataclasses.dataclass
class MatchScore:
    """A's results over a match: games, wins, points (gammons count 2, backgammons 3)."""

    games: int
    wins: int
    losses: int
    points: float  # A's total utility
    moves: int
    seconds: float

    @property
    def win_rate(self) -> float:
        return self.wins / max(self.games, 1)

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.games - self.losses + self.wins) / (2 * max(self.games, 1))

    def as_dict(self) -> dict[str, Any]:
        return dict(
            games=self.games,
            wins=self.wins,
            losses=self.losses,
            draws=self.games - self.wins - self.losses,
            win_rate=round(self.win_rate, 4),
            score=round(self.score, 4),
            points_per_game=round(self.points / max(self.games, 1), 4),
            moves=self.moves,
            seconds=round(self.seconds, 2),
        )


def play_match(
    game: Game,
    a: str,
    b: str,
    games: int,
    net_a: Any = None,
    net_b: Any = None,
    seed: int = 0,
    lanes: int = 256,
    max_turns: int = 1000,
    keep: int = 8,
) -> MatchScore:
    """``games`` games of 1-ply players ``a`` against ``b`` (scorer names, see
    :func:`scorer`), in pairs that swap the seats and share their dice: game ``2k`` has A as
    player 0, game ``2k + 1`` as player 1, and both draw the chance outcomes of their
    ``t``-th chance node from the same random number (so where play allows the same
    dice sequences fall to both sides). Games still running after ``max_turns`` decisions
    count as draws.

    ``a`` may also be :data:`TWO_PLY` (``"eval2ply"``): the two-ply search of
    :func:`two_ply_values` with the game's EVAL (``make("backgammon", eval=PATH)``),
    over the ``keep`` best plays by 1-ply EVAL."""
    check_learnable(game)
    if games < 1:
        raise GameError(f"match: games must be >= 1, got {games}")
    games += games % 2
    two_ply = a == TWO_PLY
    if two_ply and keep < 1:
        raise GameError(f"match: keep must be >= 1, got {keep}")
    scorer_a = None if two_ply else scorer(game, a)
    scorer_b = scorer(game, b)
    base = jax.random.key(seed)
    move_key = jax.random.fold_in(base, 2**30)  # the random scorer's draws, apart from dice
    wins = losses = moves = 0
    points = 0.0
    t0 = time.perf_counter()
    for first in range(0, games, lanes):
        n = min(lanes, games - first)
        width = bucket(n, smallest=16)  # few compiled shapes for the last, smaller chunk
        states = _batched(game, width)
        pair = (first + np.arange(width)) // 2
        seat_a = jnp.asarray((first + np.arange(width)) % 2, jnp.int32)
        live = jnp.asarray(np.arange(width) < n)
        pair_keys = jax.vmap(lambda p: jax.random.fold_in(base, p))(jnp.asarray(pair))
        for turn in range(2 * max_turns + 2):
            uniform = _pair_uniforms(pair_keys, jnp.int32(turn))
            states, counts = _roll(game, states, uniform)
            counts = jnp.where(live, counts, 0)
            total = int(jnp.sum(counts))
            if total == 0:
                if bool(jnp.all(jax.vmap(game.terminal)(states) | ~live)):
                    break
                continue
            use_a = jax.vmap(game.player)(states) == seat_a
            key = jax.random.fold_in(jax.random.fold_in(move_key, first), turn)
            if two_ply:  # B's lanes by its scorer, then A's by the search
                counts_a = jnp.where(use_a, counts, 0)
                counts_b = counts - counts_a
                total_b = int(jnp.sum(counts_b))
                if total_b:
                    states, moved = _decide(
                        game, bucket(total_b), scorer_b, None, net_b, None, states, counts_b,
                        use_a, key, jnp.float32(0.0),
                    )  # fmt: skip
                    moves += int(jnp.sum(moved))
                if total_b < total:
                    candidates, values = two_ply_values(game, states, counts_a, keep)
                    states = _play_best(states, candidates, values, counts_a > 0)
                    moves += int(jnp.sum(counts_a > 0))
                continue
            states, moved = _decide(
                game,
                bucket(total),
                scorer_a,
                scorer_b,
                net_a,
                net_b,
                states,
                counts,
                use_a,
                key,
                jnp.float32(0.0),
            )
            moves += int(jnp.sum(moved))
        u = np.asarray(jax.vmap(game.utility)(states))[:n]  # [n, 2]
        mine = u[np.arange(n), np.asarray(seat_a)[:n]]
        wins += int(np.sum(mine > 0))
        losses += int(np.sum(mine < 0))
        points += float(np.sum(mine))
    return MatchScore(games, wins, losses, points, moves, time.perf_counter() - t0)
