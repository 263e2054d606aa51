"""Random playouts: many positions x many playouts, each lane stopping at its own terminal."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels.batched import leaf_values
from jaxgames.kernels.expand import branch_weights
from jaxgames.kernels.states import batch_size, check_batch, repeat, state_shapes

from jaxgames.capabilities import Sampling
from jaxgames.game import Game


class PlayoutResult(NamedTuple):
    """Outcome of ``M`` random playouts from each of ``N`` positions."""

    mean_utility: jax.Array  # float32[N, P]: mean final utility vector per position
    mean_length: jax.Array  # float32[N]: mean number of steps played per position
    utilities: jax.Array  # float32[N, M, P]: each playout's final utility
    lengths: jax.Array  # int32[N, M]: each playout's number of steps
    truncated: jax.Array  # bool[N, M]: stopped by ``max_steps`` before a terminal state
    played: jax.Array | None = None  # bool[N, M, P, A]: player p played action a in the
    # playout (``record_moves`` only; None otherwise)


def sample_actions(weights: jax.Array, uniform: jax.Array) -> jax.Array:
    """Draw one branch per row with probability proportional to ``weights``.

    Inverse-CDF sampling: the branch is the number of cumulative weights ``<= u * total``,
    clamped to the last branch of positive weight, so a zero-weight branch (an illegal move,
    an impossible outcome) is never drawn, even when rounding pushes ``u * total`` to
    ``total``.

    Args:
        weights: float32[B, W], non-negative; each row has a positive entry.
        uniform: float32[B] in [0, 1).

    Returns:
        int32[B].
    """
    cdf = jnp.cumsum(weights, axis=-1)  # [B, W]
    threshold = uniform * cdf[:, -1]  # [B]
    drawn = jnp.sum(cdf <= threshold[:, None], axis=-1)  # [B]
    width = weights.shape[-1]
    last_positive = width - 1 - jnp.argmax((weights > 0)[:, ::-1], axis=-1)  # [B]
    return jnp.minimum(drawn, last_positive).astype(jnp.int32)


def sample_legal(mask: jax.Array, uniform: jax.Array) -> jax.Array:
    """Draw one legal action per row uniformly: the ``k``-th legal one, ``k = floor(u * n)``.

    Integer-only, and cheaper than :func:`sample_actions` for decision nodes.

    Args:
        mask: bool[B, A], each row with a True entry (rows without one return 0).
        uniform: float32[B] in [0, 1).

    Returns:
        int32[B].
    """
    count = mask.sum(axis=-1, dtype=jnp.int32)  # [B]
    k = jnp.minimum((uniform * count).astype(jnp.int32), count - 1)  # [B]
    num_actions = mask.shape[-1]
    if num_actions <= 16:
        ranks = jnp.cumsum(mask, axis=-1, dtype=jnp.int32)  # [B, A]
        return jnp.sum(ranks <= k[:, None], axis=-1, dtype=jnp.int32)
    if num_actions <= 2 * _BLOCK:
        # a prefix sum as a product with a triangular matrix: XLA's CPU cumsum costs
        # O(A^2) per row anyway, and a matrix product does that work far faster (exact:
        # counts below 2^24 are exact in float32)
        upper = jnp.asarray(np.triu(np.ones((num_actions, num_actions), np.float32)))
        ranks = mask.astype(jnp.float32) @ upper  # [B, A]
        return jnp.sum(ranks <= k[:, None].astype(jnp.float32), axis=-1, dtype=jnp.int32)
    # wide action spaces: a prefix sum over every action is slow on a CPU, so find the
    # block of _BLOCK actions that holds the k-th legal one, then the action inside it
    num_blocks = -(-num_actions // _BLOCK)
    padded = jnp.pad(mask, ((0, 0), (0, num_blocks * _BLOCK - num_actions)))
    blocks = padded.reshape(mask.shape[0], num_blocks, _BLOCK)  # [B, NB, 64]
    per_block = blocks.sum(axis=-1, dtype=jnp.int32)  # [B, NB]
    through = jnp.cumsum(per_block, axis=-1)  # [B, NB]: legal actions up to each block's end
    block = jnp.sum(through <= k[:, None], axis=-1, dtype=jnp.int32)  # [B]
    before = jnp.take_along_axis(through - per_block, block[:, None], axis=-1)[:, 0]  # [B]
    row = jnp.take_along_axis(blocks, block[:, None, None], axis=1)[:, 0]  # [B, 64]
    ranks = jnp.cumsum(row, axis=-1, dtype=jnp.int32)  # [B, 64]
    inside = jnp.sum(ranks <= (k - before)[:, None], axis=-1, dtype=jnp.int32)
    return block * _BLOCK + inside


_BLOCK = 64


def random_actions(game: Game, states: Any, uniform: jax.Array) -> jax.Array:
    """One random move per state, as random playouts draw it: uniform among the legal
    actions at decisions, by ``chance_probs`` at chance nodes, through the game's own
    sampler when it has one (:class:`~jaxgames.capabilities.Sampling`).

    Args:
        states: a batch ``[B]``.
        uniform: float32[B] in [0, 1).

    Returns:
        int32[B].
    """
    if isinstance(game, Sampling):  # the game's own sampler: same distribution, no mask
        return game.sample_actions(states, uniform)
    if game.num_chance_outcomes:
        _, weights = jax.vmap(functools.partial(branch_weights, game))(states)  # [B, W]
        return sample_actions(weights, uniform)
    return sample_legal(jax.vmap(game.legal_mask)(states), uniform)


def phase_sizes(lanes: int, min_lanes: int = 256, max_phases: int = 3) -> list[int]:
    """Batch sizes of the successive phases of a playout loop: ``L, L/2, L/4, ...``.

    Random games differ in length, and a lockstep loop runs as long as its longest lane, so
    with one phase half the work of a batch goes to lanes that are already done. Each phase
    runs until its live lanes fit in the next, smaller one; they are then compacted into it.
    """
    sizes = [lanes]
    while len(sizes) < max_phases and sizes[-1] % 2 == 0 and sizes[-1] // 2 >= min_lanes:
        sizes.append(sizes[-1] // 2)
    return sizes


def compaction_pays(max_steps: int, lanes: int) -> bool:
    """Whether phased compaction is worth its extra compilation (measured in
    ``benchmarks/playouts.py``: it pays for games of 20+ steps, costs for 9-step ones)."""
    return max_steps >= 20 and lanes >= 512


@functools.partial(jax.jit, static_argnums=(0, 2, 4, 5, 6))
def _playouts(
    game: Game,
    states: Any,
    num_playouts: int,
    key: jax.Array,
    max_steps: int,
    compact: bool = True,
    record_moves: bool = False,
):
    lanes = repeat(states, num_playouts)  # [L = N * M]
    total = batch_size(lanes)
    terminal_of = jax.vmap(game.terminal)
    values_of = jax.vmap(functools.partial(leaf_values, game))
    shape = (game.num_players, game.num_actions)

    def body(carry):
        lanes, done, length, t, key, moved = carry
        key, sub = jax.random.split(key)
        uniform = jax.random.uniform(sub, (done.shape[0],))  # [S]
        action = random_actions(game, lanes, uniform)
        if record_moves:  # who played what; chance outcomes and finished lanes write nowhere
            mover = jax.vmap(game.player)(lanes)
            row = jnp.where(done | (mover < 0), moved.shape[0], jnp.arange(done.shape[0]))
            moved = moved.at[row, jnp.maximum(mover, 0), action].set(True, mode="drop")
        stepped = jax.vmap(game.step)(lanes, action)
        lanes = jax.tree.map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (new.ndim - 1)), old, new),
            stepped,
            lanes,
        )
        length = length + (~done).astype(jnp.int32)
        done = done | terminal_of(lanes)
        return lanes, done, length, t + 1, key, moved

    values = jnp.zeros((total, game.num_players), jnp.float32)  # [L, P]
    lengths = jnp.zeros((total,), jnp.int32)  # [L]
    finished = jnp.zeros((total,), jnp.bool_)  # [L]
    # [L, P, A] when recording the moves played, else an empty carry that costs nothing
    played = jnp.zeros((total, *shape) if record_moves else (0,), jnp.bool_)
    moved = played  # [S, P, A]: the lanes' own, in the loop
    slot = jnp.arange(total, dtype=jnp.int32)  # [S]: which playout each lane is playing
    done = terminal_of(lanes)
    length = jnp.zeros((total,), jnp.int32)
    t = jnp.int32(0)
    sizes = phase_sizes(total) if compact else [total]
    for phase in range(len(sizes)):
        fits_next = sizes[phase + 1] if phase + 1 < len(sizes) else 0

        def cond(carry, fits_next=fits_next):
            _, done, _, t, _, _ = carry
            return (t < max_steps) & (jnp.sum(~done) > fits_next)

        lanes, done, length, t, key, moved = jax.lax.while_loop(
            cond, body, (lanes, done, length, t, key, moved)
        )
        # Record this phase's lanes (finished ones are final; the rest are overwritten later,
        # or, after the last phase, scored by EVAL as cut off by max_steps).
        if len(sizes) == 1:  # lanes never moved: no scatter needed
            values, lengths, finished, played = values_of(lanes), length, done, moved
        else:
            values = values.at[slot].set(values_of(lanes), mode="drop")
            lengths = lengths.at[slot].set(length, mode="drop")
            finished = finished.at[slot].set(done, mode="drop")
            if record_moves:
                played = played.at[slot].set(moved, mode="drop")
        if fits_next:
            (live,) = jnp.nonzero(~done, size=fits_next, fill_value=0)  # [S_next]
            real = jnp.arange(fits_next) < jnp.sum(~done)
            lanes = jax.tree.map(lambda x, live=live: x[live], lanes)
            slot = jnp.where(real, slot[live], total)  # padding lanes write nowhere
            done = ~real
            length = length[live]
            if record_moves:
                moved = moved[live]

    n = total // num_playouts
    utilities = values.reshape(n, num_playouts, -1)
    lengths = lengths.reshape(n, num_playouts)
    return PlayoutResult(
        mean_utility=utilities.mean(axis=1),
        mean_length=lengths.mean(axis=1, dtype=jnp.float32),
        utilities=utilities,
        lengths=lengths,
        truncated=~finished.reshape(n, num_playouts),
        played=played.reshape(n, num_playouts, *shape) if record_moves else None,
    )


def _checked(
    game: Game, states: Any, num_playouts: int, max_steps: int | None, where: str
) -> tuple[int, int]:
    """(N, the step bound) of a playout request, or a one-line error naming ``where``."""
    if num_playouts < 1:
        raise ValueError(f"{where}: num_playouts must be >= 1, got {num_playouts}")
    steps = max_steps if max_steps is not None else game.max_game_length
    if steps < 1:
        raise ValueError(f"{where}: {game.name} has no max_game_length; pass max_steps")
    return check_batch(game, states, where), steps


def playouts(
    game: Game,
    states: Any,
    num_playouts: int,
    key: jax.Array,
    max_steps: int | None = None,
    compact: bool | None = None,
    record_moves: bool = False,
) -> PlayoutResult:
    """Play ``num_playouts`` uniformly random games to the end from each of N states.

    Decisions pick a legal action uniformly; chance nodes draw an outcome by
    ``chance_probs``. All ``N * M`` lanes advance together in a ``lax.while_loop``; a lane
    that reaches a terminal state stops changing. With ``compact`` the loop runs in phases
    (:func:`phase_sizes`): once the live lanes fit in half the batch they are gathered into
    it, so the long tail of a few long games does not drag the whole batch along.

    Args:
        game: the game.
        states: a batch ``[N]`` of states.
        num_playouts: playouts per state ``M``.
        key: a JAX PRNG key.
        max_steps: safety bound on the loop; defaults to ``game.max_game_length`` (games
            whose graph has cycles must give one). A lane still running at the bound is
            scored by ``evaluate`` and flagged ``truncated``.
        compact: run in shrinking phases (see above); results are the same in distribution.
            ``None`` (default) compacts when it pays: games that can last 20 steps or more,
            and at least 512 lanes. Each phase compiles the loop body again.
        record_moves: also report which actions each player played in each playout
            (``played``, for all-moves-as-first statistics); a separate compiled program,
            so playouts that do not ask pay nothing for it.

    Returns:
        A :class:`PlayoutResult`.
    """
    steps = _checked(game, states, num_playouts, max_steps, "playouts")[1]
    if compact is None:
        compact = compaction_pays(steps, batch_size(states) * num_playouts)
    return _playouts(
        game, states, int(num_playouts), key, int(steps), bool(compact), bool(record_moves)
    )


class PlayoutMeans(NamedTuple):
    """What many playouts from each of ``N`` positions came to, summed on the host."""

    mean_utility: np.ndarray  # float64[N, P]
    mean_length: np.ndarray  # float64[N]
    total_length: int  # steps played in all playouts
    truncated: int  # playouts stopped by max_steps
    compile_s: float  # compilation of the playout loop (0 when already compiled)
    run_s: float  # the playouts themselves


def state_bytes(game: Game) -> int:
    """Bytes of one state of ``game`` (from its shapes; nothing is computed)."""
    shapes = state_shapes(game)
    return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in jax.tree.leaves(shapes))


def lanes_that_fit(game: Game, budget_bytes: int = 1 << 30) -> int:
    """Playout lanes one round may hold within ``budget_bytes``: each lane's state, the
    copies the loop makes of it (the stepped state, the compaction's gathers) and its
    move generation, a few times the state's size (a power of two, 1,024 at least)."""
    per_lane = 8 * state_bytes(game) + 4 * game.num_actions + 256
    return max(1024, 1 << max(0, (budget_bytes // per_lane).bit_length() - 1))


class RoundPlan(NamedTuple):
    """How ``num_playouts`` playouts from each of ``n`` positions split into rounds of at
    most ``lanes`` lanes: ``group`` positions a round, ``per_round`` playouts of each."""

    n: int
    num_playouts: int
    group: int
    per_round: int

    @classmethod
    def of(cls, n: int, num_playouts: int, lanes: int) -> RoundPlan:
        lanes = max(1, lanes)
        group = min(n, lanes)
        return cls(n, num_playouts, group, max(1, min(num_playouts, lanes // group)))

    @property
    def count(self) -> int:
        """Rounds in all."""
        return -(-self.n // self.group) * -(-self.num_playouts // self.per_round)

    def rounds(self) -> Iterator[tuple[int, int]]:
        """``(first position, playouts of it already done)`` of each round, in order."""
        for start in range(0, self.n, self.group):
            for done in range(0, self.num_playouts, self.per_round):
                yield start, done


def playout_means(
    game: Game,
    states: Any,
    num_playouts: int,
    key: jax.Array,
    max_steps: int | None = None,
    max_lanes: int | None = None,
) -> PlayoutMeans:
    """Mean utility and length of ``num_playouts`` random playouts from each of N states,
    any number of them: the playouts run in rounds of at most ``max_lanes`` lanes (default
    :func:`lanes_that_fit`), every round of the same shapes (one compilation), their sums
    kept in float64 on the host. Counts past 2**31 and requests larger than memory are
    fine; each round is counted to :mod:`jaxgames.progress`.
    """
    from jaxgames import progress

    n, steps = _checked(game, states, num_playouts, max_steps, "playout_means")
    plan = RoundPlan.of(n, num_playouts, int(max_lanes or lanes_that_fit(game)))
    group, per_round = plan.group, plan.per_round
    compact = compaction_pays(steps, group * per_round)
    host = jax.tree.map(np.asarray, states)
    utility = np.zeros((n, game.num_players), np.float64)
    length = np.zeros((n,), np.float64)
    truncated = 0
    compile_s = run_s = 0.0
    for i, (start, done) in enumerate(plan.rounds()):
        real = min(group, n - start)  # the last group is padded with its first position
        part = jax.tree.map(lambda x, start=start: x[start : start + group], host)
        if real < group:
            part = jax.tree.map(
                lambda x, real=real: np.concatenate([x, np.repeat(x[:1], group - real, 0)]), part
            )
        sub = jax.random.fold_in(key, i)
        args = (game, part, per_round, sub, int(steps), bool(compact))
        if i == 0:
            t0 = time.perf_counter()
            with progress.phase("compiling the playouts"):
                _playouts.lower(*args).compile()
            compile_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        with progress.phase("playing"):
            out = jax.block_until_ready(_playouts(*args))
        run_s += time.perf_counter() - t0
        take_n = min(per_round, num_playouts - done)  # the last round may play extra: unused
        utility[start : start + real] += np.asarray(out.utilities, np.float64)[:real, :take_n].sum(
            1
        )
        lengths = np.asarray(out.lengths, np.int64)[:real, :take_n]
        length[start : start + real] += lengths.sum(1)
        truncated += int(np.asarray(out.truncated)[:real, :take_n].sum())
        progress.count(i + 1, plan.count, "rounds")
    return PlayoutMeans(
        mean_utility=utility / num_playouts,
        mean_length=length / num_playouts,
        total_length=int(length.sum()),
        truncated=truncated,
        compile_s=compile_s,
        run_s=run_s,
    )
