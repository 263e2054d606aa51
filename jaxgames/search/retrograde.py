"""Value iteration over a game's whole state space: exact values for games with cycles.

A tree search never ends on a game whose graph has cycles (a dice race where a turn can
score nothing, a game where both sides may pass). When the states fit in memory, the game
can instead be solved outright: number every state, then sweep them all at once, backing
each one up from its children, until the values stop changing (Bellman's value iteration,
the fixed-point form of retrograde analysis).

The hint a game gives
---------------------
A game opts in by enumerating its states (the capability
:class:`~jaxgames.capabilities.Enumeration`):

* ``num_states``: the number ``N > 0`` of enumerated states (0: none, after all);
* ``state_index(state)``: int32 number in ``[0, N)`` of a non-terminal state (traced);
* ``state_from_index(index)``: the state with that number (traced).

Every non-terminal child (by a legal action, or a chance outcome of positive probability) of
an enumerated state must itself be enumerated, and ``state_from_index(state_index(s))`` must
give ``s`` back field for field. Terminal states need no number: a child that is terminal is
scored by ``utility`` directly. The enumeration may include unreachable states (they cost
only time) and terminal ones. Both requirements are checked while the tables are built; a
:class:`~jaxgames.game.GameError` names the first state that breaks them.

Values
------
Two-player zero-sum games only (``utility = [u, -u]``): a state's value is stored as player
0's component ``u`` (player 1's is ``-u``), as a float64 array over the enumerated states.
The backup rule is the expectiminimax one:

* a terminal state has its utility;
* a chance node has ``sum_r P(r) V(child_r)``;
* a decision node has the child value best for the player to move (max for player 0, min for
  player 1); the policy picks that action, the lowest-numbered one on exact ties.

With ``policy`` given (one action per state), decision nodes take the given action instead:
that is policy evaluation, the probability-weighted outcome of both players following it.

How it runs
-----------
1. Tables (once, on the device, batched over chunks of states): each state's player and
   branch mask, every child's number, terminal flag and utility.
2. Sweeps (on the device, one jitted ``lax.while_loop``): each sweep updates every chance
   node from the current values, then every decision node from the fresh chance values, so
   information moves two plies per sweep (a red-black Gauss-Seidel order). A round stops
   when the largest change of a sweep drops to its threshold: in round 0, 16 float32
   epsilons of the largest utility (about 2e-6 for utilities in [-1, 1]); later, the larger
   of ``tol / 2`` and 16 float32 epsilons of the previous residual.
3. Precision (x64 stays off, so the device works in float32, whose spacing near 0.5 is
   6e-8): round 0 converges as far as float32 allows. Each later round keeps the values so
   far as a float64 base ``B`` on the host and solves, in float32 on the device, for the
   small correction ``d``: with ``g[s, a] = V_B(child) - B(s)`` and ``c[s] = sum_r P(r)
   V_B(child_r) - B(s)`` computed in float64 (``V_B`` is ``B``, or the utility of a
   terminal child), a sweep is ``d(s) = max_a (g[s, a] + d(child_a))`` at decisions (min for
   player 1) and ``d(s) = c[s] + sum_r P(r) d(child_r)`` at chance nodes. ``d`` is small, so
   float32 holds it to about 1e-7 of its size. After each round the host sets ``B += d`` and
   computes the float64 Bellman residual ``max |T(B) - B|``; it stops once that is at most
   ``tol``. Chance probabilities are renormalised in float64 for the host's sums (``1/6`` in
   float32 is 1.0000000298 / 6, a bias that would otherwise build up over long games).

The result's ``residual`` is that float64 residual. The error of the values can exceed it
by the inverse of the gap in the sweeps' rate of convergence: where each sweep shrinks the
change only a little, the values can be several times further from the solution than the
residual says, and a smaller ``tol`` costs more sweeps.

Sweeps are wide (every state at once) and few per round-trip to the host, which suits an
accelerator; a Gauss-Seidel order along the game's progress would need fewer sweeps but
thousands of tiny sequential steps per sweep.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import Enumeration
from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels.expand import branch_weights, branch_width

TERMINAL, CHANCE_NODE, PLAYER0, PLAYER1 = 0, 1, 2, 3
"""Node kinds in :attr:`ValueIterationResult.kind`."""

_CHUNK = 1 << 16  # states per table-building call (one compiled shape)
_EPS32 = float(np.finfo(np.float32).eps)


@dataclass
class ValueIterationResult:
    """The solved state space of a game.

    Attributes:
        game: the game solved.
        values: float64[N], player 0's value of every enumerated state (player 1's is its
            negation).
        policy: int32[N], the optimal action (or the given one, for policy evaluation) at
            each decision state; -1 at chance nodes and terminal states.
        kind: int8[N], ``TERMINAL``, ``CHANCE_NODE``, ``PLAYER0`` or ``PLAYER1`` (who decides).
        sweeps: device sweeps over all states, all rounds together.
        rounds: refinement rounds (round 0 in float32, then float64 corrections).
        residual: ``max |T(V) - V|`` in float64 after the last round.
        converged: True when ``residual <= tol`` was reached within ``max_sweeps``.
        time_s: wall time of the whole solve (tables, compilation, sweeps, host checks).
        stats: ``states``, ``tables_s``, ``sweep_s``, ``host_s`` and ``residuals`` per round.
    """

    game: Game
    values: np.ndarray
    policy: np.ndarray
    kind: np.ndarray
    sweeps: int
    rounds: int
    residual: float
    converged: bool
    time_s: float
    stats: dict[str, Any] = field(default_factory=dict)

    def values_of(self, states: Any) -> np.ndarray:
        """float64[B, 2]: the value vectors ``[v, -v]`` of a batch of states (any states:
        terminal ones get their utility)."""
        index, terminal, utility = _lookup(self.game)(states)
        v = np.where(np.asarray(terminal), np.asarray(utility), self.values[np.asarray(index)])
        return np.stack([v, -v], axis=-1)

    def best_actions(self, states: Any) -> np.ndarray:
        """int32[B]: the policy's action in a batch of states, -1 at chance and terminal."""
        index, terminal, _ = _lookup(self.game)(states)
        return np.where(np.asarray(terminal), -1, self.policy[np.asarray(index)]).astype(np.int32)

    def value(self, state: Any) -> np.ndarray:
        """float64[2]: the value vector ``[v, -v]`` of one state."""
        return self.values_of(_one(state))[0]

    def best_action(self, state: Any) -> int:
        """The policy's action in one state (-1 at a chance node or terminal state)."""
        return int(self.best_actions(_one(state))[0])


def _one(state: Any) -> Any:
    return jax.tree.map(lambda x: jnp.asarray(x)[None], state)


@functools.cache
def _lookup(game: Game):
    """Jitted: a batch of states -> (index int32[B], terminal bool[B], utility0 float32[B])."""

    def one(state):
        return game.state_index(state), game.terminal(state), game.utility(state)[0]

    return jax.jit(jax.vmap(one))


@functools.cache
def _states(game: Game):
    return jax.jit(jax.vmap(game.state_from_index))


def enumerate_states(game: Game, index: Any = None) -> Any:
    """The enumerated states with these numbers (default: all ``N``), as one batch.

    Args:
        game: a game with ``num_states > 0``.
        index: int array ``[B]`` of state numbers, or None for ``0..N-1``.

    Returns:
        A batch ``[B]`` of states (device arrays).
    """
    _check_game(game)
    if index is None:
        index = np.arange(game.num_states, dtype=np.int32)
    return _states(game)(jnp.asarray(index, jnp.int32))


def _check_game(game: Game) -> None:
    if not (isinstance(game, Enumeration) and game.num_states):
        raise GameError(
            f"value_iteration: {game.name} does not enumerate its states (num_states is 0; "
            "see jaxgames.search.retrograde)"
        )
    if game.num_players != 2 or not game.zero_sum:
        raise GameError(
            f"value_iteration: {game.name} is not a two-player zero-sum game; only those are "
            "solved (values are stored for player 0)"
        )


# ---------------------------------------------------------------- tables (device, once)
@functools.partial(jax.jit, static_argnums=0)
def _table_chunk(game: Game, index: jax.Array) -> dict[str, jax.Array]:
    """Everything value iteration needs about states ``index`` (int32[C]) and their children."""
    n = game.num_states
    width = branch_width(game)
    branches = jnp.arange(width, dtype=jnp.int32)  # [W]

    def one(i):
        s = game.state_from_index(i)
        mask, prob = branch_weights(game, s)  # [W], [W]
        kids = jax.vmap(game.step, in_axes=(None, 0))(s, branches)  # [W] states
        kid_terminal = jax.vmap(game.terminal)(kids)  # [W]
        kid_index = jax.vmap(game.state_index)(kids)  # [W]
        in_range = (kid_index >= 0) & (kid_index < n)
        back = jax.vmap(game.state_from_index)(jnp.clip(kid_index, 0, n - 1))
        same = jax.tree.map(lambda a, b: jnp.all((a == b).reshape(width, -1), axis=1), back, kids)
        same = functools.reduce(jnp.logical_and, jax.tree.leaves(same), in_range)  # [W]
        return {
            "player": game.player(s),
            "terminal": game.terminal(s),
            "utility": game.utility(s)[0],
            "index_ok": game.state_index(s) == i,
            "mask": mask,
            "prob": prob,
            "kid_terminal": kid_terminal,
            "kid_utility": jax.vmap(game.utility)(kids)[:, 0],
            "kid_index": kid_index,
            "kid_ok": kid_terminal | ~mask | same,
        }

    return jax.vmap(one)(index)


def _build_tables(game: Game) -> dict[str, np.ndarray]:
    """The tables of all ``N`` states on the host (chunks of ``_CHUNK``, one compiled shape)."""
    n = game.num_states
    chunk = min(_CHUNK, n)
    parts: list[dict[str, np.ndarray]] = []
    for start in range(0, n, chunk):
        index = np.minimum(np.arange(start, start + chunk), n - 1).astype(np.int32)
        out = jax.device_get(_table_chunk(game, jnp.asarray(index)))
        parts.append({k: v[: min(chunk, n - start)] for k, v in out.items()})
    tables = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    _check_tables(game, tables)
    return tables


def _check_tables(game: Game, t: dict[str, np.ndarray]) -> None:
    """Raise GameError naming the first state whose enumeration or moves are inconsistent."""
    name = f"value_iteration: {game.name}"
    bad = np.flatnonzero(~t["index_ok"])
    if bad.size:
        i = int(bad[0])
        raise GameError(f"{name}: state_index(state_from_index({i})) is not {i}")
    live = ~t["terminal"]
    bad = np.flatnonzero(live & ~t["kid_ok"].all(axis=1))
    if bad.size:
        i = int(bad[0])
        a = int(np.flatnonzero(~t["kid_ok"][i])[0])
        raise GameError(
            f"{name}: the child of state {i} by branch {a} is not enumerated (state_index out "
            "of range, or state_from_index does not give the child back)"
        )
    player = t["player"]
    bad = np.flatnonzero(live & (player != CHANCE) & ((player < 0) | (player > 1)))
    if bad.size:
        raise GameError(f"{name}: state {int(bad[0])} has player {int(player[bad[0]])}")
    bad = np.flatnonzero(live & ~t["mask"].any(axis=1))
    if bad.size:
        raise GameError(f"{name}: state {int(bad[0])} is not terminal but has no moves")


# ---------------------------------------------------------------- layout (host)
@dataclass
class _Layout:
    """States split by kind: decisions first, then chance nodes, then one sentinel slot.

    Positions index the ``ext`` value array ``[decisions..., chances..., 0]``; a branch into a
    terminal child (or an illegal branch) points at the sentinel and carries its utility in
    ``leaf``.
    """

    dec: np.ndarray  # int64[D]: state numbers of the decision states
    chance: np.ndarray  # int64[C]: state numbers of the chance nodes
    dec_pos: np.ndarray  # int32[D, A]
    dec_leaf: np.ndarray  # float64[D, A]
    dec_mask: np.ndarray  # bool[D, A]: legal (and, for policy evaluation, the given action)
    dec_sign: np.ndarray  # float64[D]: +1 player 0 (max), -1 player 1 (min)
    ch_pos: np.ndarray  # int32[C, K]
    ch_leaf: np.ndarray  # float64[C, K]
    ch_p64: np.ndarray  # float64[C, K]: probabilities renormalised in float64
    ch_p32: np.ndarray  # float32[C, K]

    @property
    def sentinel(self) -> int:
        return self.dec.size + self.chance.size


def _layout(game: Game, t: dict[str, np.ndarray], policy: np.ndarray | None) -> _Layout:
    n = game.num_states
    live = ~t["terminal"]
    is_chance = live & (t["player"] == CHANCE)
    dec = np.flatnonzero(live & ~is_chance)
    chance = np.flatnonzero(is_chance)
    pos = np.full((n,), -1, np.int64)
    pos[dec] = np.arange(dec.size)
    pos[chance] = dec.size + np.arange(chance.size)
    sentinel = dec.size + chance.size

    def branches(rows: np.ndarray, width: int):
        mask = t["mask"][rows, :width]
        kid_terminal = t["kid_terminal"][rows, :width]
        inner = mask & ~kid_terminal
        kid = np.where(inner, t["kid_index"][rows, :width], 0)
        kid_pos = np.where(inner, pos[kid], sentinel).astype(np.int32)
        leaf = np.where(mask & kid_terminal, t["kid_utility"][rows, :width], 0.0)
        return mask, kid_pos, leaf.astype(np.float64)

    dec_mask, dec_pos, dec_leaf = branches(dec, game.num_actions)
    if policy is not None:
        policy = np.asarray(policy)
        if policy.shape != (n,):
            raise GameError(f"value_iteration: policy has shape {policy.shape}, expected ({n},)")
        chosen = policy[dec].astype(np.int64)
        ok = (chosen >= 0) & (chosen < game.num_actions)
        ok[ok] = dec_mask[np.flatnonzero(ok), chosen[ok]]
        if not ok.all():
            i = int(dec[np.flatnonzero(~ok)[0]])
            raise GameError(
                f"value_iteration: policy action {int(policy[i])} in state {i} is illegal"
            )
        dec_mask = np.zeros_like(dec_mask)
        dec_mask[np.arange(dec.size), chosen] = True
    ch_mask, ch_pos, ch_leaf = branches(chance, game.num_chance_outcomes)
    p = np.where(ch_mask, t["prob"][chance, : game.num_chance_outcomes], 0.0)
    p64 = p.astype(np.float64)
    p64 /= np.maximum(p64.sum(axis=1, keepdims=True), 1e-300)
    return _Layout(
        dec=dec,
        chance=chance,
        dec_pos=dec_pos,
        dec_leaf=dec_leaf,
        dec_mask=dec_mask,
        dec_sign=np.where(t["player"][dec] == 0, 1.0, -1.0),
        ch_pos=ch_pos,
        ch_leaf=ch_leaf,
        ch_p64=p64,
        ch_p32=p.astype(np.float32),
    )


def _host_backup(lay: _Layout, base: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One float64 Bellman backup of ``base`` (float64[D + C]) on the host.

    Returns:
        (new values float64[D + C], best action int32[D], signed child values float64[D, A]
        with -inf on masked branches).
    """
    ext = np.concatenate([base, [0.0]])
    kid_d = lay.dec_leaf + ext[lay.dec_pos]  # [D, A]
    signed = np.where(lay.dec_mask, lay.dec_sign[:, None] * kid_d, -np.inf)  # [D, A]
    best = np.argmax(signed, axis=1).astype(np.int32)  # first maximum: lowest action on ties
    new_d = lay.dec_sign * signed[np.arange(lay.dec.size), best]
    new_c = np.sum(lay.ch_p64 * (lay.ch_leaf + ext[lay.ch_pos]), axis=1)  # [C]
    return np.concatenate([new_d, new_c]), best, signed


# ---------------------------------------------------------------- sweeps (device)
@jax.jit
def _sweep_until(
    d: jax.Array,  # float32[D + C + 1]: the correction (last entry: sentinel, 0)
    dec_pos: jax.Array,  # int32[A, D]
    dec_h: jax.Array,  # float32[A, D]: sign * g, -inf on masked branches
    dec_sign: jax.Array,  # float32[D]
    ch_pos: jax.Array,  # int32[K, C]
    ch_p: jax.Array,  # float32[K, C]
    ch_c: jax.Array,  # float32[C]
    stop: jax.Array,  # float32[]: stop when the largest change is at most this
    max_sweeps: jax.Array,  # int32[]
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Sweep until the largest change is <= ``stop``: returns (d, last change, sweeps).

    Tables are branch-major and the branches are unrolled: one 1-D gather per branch is
    faster on CPU than one 2-D gather.
    """
    num_dec = dec_h.shape[1]
    zero = jnp.zeros((1,), d.dtype)

    def gather(values: jax.Array, pos: jax.Array) -> jax.Array:
        return values.at[pos].get(mode="promise_in_bounds")

    def sweep(d):
        new_c = ch_c  # [C]: chance nodes first
        for r in range(ch_pos.shape[0]):
            new_c = new_c + ch_p[r] * gather(d, ch_pos[r])
        fresh = jnp.concatenate([d[:num_dec], new_c, zero])
        best = jnp.full((num_dec,), -jnp.inf, d.dtype)  # [D]
        for a in range(dec_pos.shape[0]):
            best = jnp.maximum(best, dec_h[a] + dec_sign * gather(fresh, dec_pos[a]))
        return jnp.concatenate([dec_sign * best, new_c, zero])

    def cond(carry):
        _, change, count = carry
        return (change > stop) & (count < max_sweeps)

    def body(carry):
        d, _, count = carry
        new = sweep(d)
        return new, jnp.max(jnp.abs(new - d)), count + 1

    return jax.lax.while_loop(cond, body, (d, jnp.float32(jnp.inf), jnp.int32(0)))


def _correction(
    lay: _Layout,
    device: dict[str, jax.Array],
    base: np.ndarray,
    new: np.ndarray,
    signed: np.ndarray,
    stop: float,
    sweeps_left: int,
) -> tuple[np.ndarray, int]:
    """One round's correction ``d`` to the ``base`` values, from float64 differences to the
    base (the host backup's ``new`` and ``signed``), swept on the device until it moves
    less than ``stop`` or ``sweeps_left`` run out; and the sweeps it took."""
    g = np.where(lay.dec_mask, signed - (lay.dec_sign * base[: lay.dec.size])[:, None], -np.inf)
    c = new[lay.dec.size :] - base[lay.dec.size :]
    d, _, count = _sweep_until(
        jnp.zeros((lay.sentinel + 1,), jnp.float32),
        device["dec_pos"],
        jnp.asarray(g.T, jnp.float32),
        device["dec_sign"],
        device["ch_pos"],
        device["ch_p"],
        jnp.asarray(c, jnp.float32),
        jnp.float32(stop),
        jnp.int32(sweeps_left),
    )
    return np.asarray(d, np.float64)[:-1], int(count)


def value_iteration(
    game: Game,
    tol: float = 1e-11,
    policy: Any = None,
    max_sweeps: int = 100_000,
    max_rounds: int = 8,
) -> ValueIterationResult:
    """Solve every enumerated state of a two-player zero-sum game by value iteration.

    Args:
        game: a game with the state-enumeration hint (``num_states > 0``; see the module).
        tol: stop once the float64 Bellman residual ``max |T(V) - V|`` is at most this.
        policy: None for optimal play; or int[N], one action per state (read at decision
            states, where it must be legal) for the value of both players following it.
        max_sweeps: bound on the device sweeps, all rounds together.
        max_rounds: bound on the refinement rounds.

    Returns:
        A :class:`ValueIterationResult`; ``converged`` is False when a bound stopped it first.

    Raises:
        GameError: the game does not enumerate its states, is not two-player zero-sum, its
            enumeration is inconsistent, or ``policy`` is malformed or illegal.
    """
    _check_game(game)
    if policy is not None:
        policy = np.asarray(jax.device_get(policy))
    t0 = time.perf_counter()
    tables = _build_tables(game)
    lay = _layout(game, tables, policy)
    t_tables = time.perf_counter() - t0

    device = {
        "dec_pos": jnp.asarray(lay.dec_pos.T),
        "dec_sign": jnp.asarray(lay.dec_sign, jnp.float32),
        "ch_pos": jnp.asarray(lay.ch_pos.T),
        "ch_p": jnp.asarray(lay.ch_p32.T),
    }
    base = np.zeros((lay.sentinel,), np.float64)
    new, best, signed = _host_backup(lay, base)
    residuals: list[float] = []
    sweeps = rounds = 0
    sweep_s = host_s = 0.0
    bound = max(abs(game.utility_min), abs(game.utility_max), 1.0)
    residual = float(np.max(np.abs(new - base), initial=0.0))
    while residual > tol and rounds < max_rounds and sweeps < max_sweeps:
        # round 0 stops near float32's resolution, later ones at tol (their d is small)
        floor = 16 * _EPS32 * (bound if rounds == 0 else residual)
        t1 = time.perf_counter()
        stop = max(tol / 2, floor)
        d, count = _correction(lay, device, base, new, signed, stop, max_sweeps - sweeps)
        sweep_s += time.perf_counter() - t1
        sweeps += count
        rounds += 1
        t1 = time.perf_counter()
        base = base + d
        new, best, signed = _host_backup(lay, base)
        residual = float(np.max(np.abs(new - base), initial=0.0))
        residuals.append(residual)
        host_s += time.perf_counter() - t1

    n = game.num_states
    values = np.asarray(tables["utility"], np.float64).copy()
    values[lay.dec] = base[: lay.dec.size]
    values[lay.chance] = base[lay.dec.size :]
    chosen = np.full((n,), -1, np.int32)
    chosen[lay.dec] = best
    kind = np.full((n,), TERMINAL, np.int8)
    kind[lay.chance] = CHANCE_NODE
    kind[lay.dec] = np.where(lay.dec_sign > 0, PLAYER0, PLAYER1)
    return ValueIterationResult(
        game=game,
        values=values,
        policy=chosen,
        kind=kind,
        sweeps=sweeps,
        rounds=rounds,
        residual=residual,
        converged=residual <= tol,
        time_s=time.perf_counter() - t0,
        stats={
            "states": n,
            "tables_s": t_tables,
            "sweep_s": sweep_s,
            "host_s": host_s,
            "residuals": residuals,
        },
    )
