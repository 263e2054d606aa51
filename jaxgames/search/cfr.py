"""Counterfactual regret minimisation (CFR, CFR+) over a whole game tree, as array programs.

A game of imperfect information (the capability
:class:`~jaxgames.capabilities.ImperfectInformation`) small enough to enumerate (tens of
thousands of histories at most) is solved the way Zinkevich et al. (2007) describe,
but with no recursion per node and iteration:

1. **Once, on the host**, the histories are enumerated breadth-first with the game's own
   ``step`` (batched per depth level), and laid out level by level in one numbering: each
   history keeps its parent, the action into it, the probability of that chance outcome,
   its acting player, its information set and its terminal utilities. Information sets are
   the distinct ``(player, information_state_key)`` pairs of the decision nodes.
2. **Each iteration** is then a fixed sequence of array operations in one ``jax.jit``:
   reach probabilities flow forward level by level (a gather from the parent level and a
   multiply), values flow backward level by level (a segment sum over each level's
   children), and the regrets and average-strategy sums are updated with segment sums over
   the information sets. Iterations run in a ``lax.fori_loop`` on the device.

The order of updates is OpenSpiel's (``open_spiel/python/algorithms/cfr.py`` and the C++
``CFRSolver``), so that the exploitability curves agree iteration for iteration:

* **alternating updates** (the default of both ``CFRSolver`` and ``CFRPlusSolver``): in an
  iteration, player 0's regrets and average-strategy sums are updated from a pass under the
  current policy, player 0's policy is re-derived by regret matching, then player 1's pass
  runs under that new policy; ``alternating=False`` gives simultaneous updates;
* the average-strategy sum of an information set gains, for every history in it, the
  player's own reach times the current policy (times the iteration number with linear
  averaging);
* **CFR+** (``plus=True``, OpenSpiel's ``CFRPlusSolver``): regret matching+ (cumulative
  regrets floored at 0 after each player's update) and linear averaging (iteration ``t``
  weighted by ``t``) with no delay, since OpenSpiel's solver has none.

Exploitability is OpenSpiel's ``exploitability.exploitability``: ``NashConv / n``, where
NashConv sums each player's best-response gain against the average policy. A best response
is found with the same arrays: backward passes in which the responding player takes, at each
of their information sets, the action of highest counterfactual value (the sum over the
set's histories of the others' reach times the action's value); a decision is right once
every decision below it is, so ``d + 1`` passes suffice where ``d`` is the most decisions
that player makes in one game.

Values are float32 unless JAX's x64 mode is on (then float64, as OpenSpiel computes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import ImperfectInformation
from jaxgames.game import CHANCE, Game, GameError, State

TERMINAL = -2  # the player array's mark of a terminal history
_MAX_HISTORIES = 5_000_000  # enumeration refuses bigger games: the arrays live on one device


# ---------------------------------------------------------------- the tree, once on the host
@dataclass(frozen=True)
class GameTree:
    """Every history of a game, numbered level by level (breadth-first), as numpy arrays.

    Level ``d`` holds the histories ``offsets[d]:offsets[d + 1]``; the children of one
    history are contiguous and in the order of their parents, so segment sums over a level
    run on sorted indices. ``N`` histories, ``I`` information sets, ``A`` actions.
    """

    num_players: int
    num_actions: int
    offsets: tuple[int, ...]  # L + 1 level boundaries
    player: np.ndarray  # int32[N]: acting player, CHANCE, or TERMINAL
    parent: np.ndarray  # int32[N]: index of the parent history (the root: 0)
    action: np.ndarray  # int32[N]: the action or chance outcome into the history (root: 0)
    chance_prob: np.ndarray  # float64[N]: probability of the chance outcome into it, else 1
    parent_player: np.ndarray  # int32[N]: the parent's player (the root: CHANCE)
    infoset: np.ndarray  # int32[N]: information set of a decision node, else -1
    slot: np.ndarray  # int32[N]: infoset(parent) * A + action below a decision node, else 0
    utility: np.ndarray  # float64[N, P]: the returns of terminal histories, else 0
    infoset_player: np.ndarray  # int32[I]: whose information set
    infoset_key: np.ndarray  # int32[I]: the game's information_state_key of it
    legal: np.ndarray  # bool[I, A]: the legal actions there
    max_decisions: tuple[int, ...]  # per player: the most decisions they make in one game

    @property
    def num_histories(self) -> int:
        return int(self.player.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    def infoset_index(self, player: int, key: int) -> int:
        """The information set numbered ``key`` by the game for ``player``, or -1."""
        hit = np.flatnonzero((self.infoset_player == player) & (self.infoset_key == key))
        return int(hit[0]) if hit.size else -1


def _facts(game: Game):
    """A jitted batch function: what the enumeration needs of each state."""

    def one(state: State) -> dict[str, jax.Array]:
        player = game.player(state)
        return {
            "player": player,
            "terminal": game.terminal(state),
            "legal": game.legal_mask(state),
            "chance": game.chance_probs(state),
            "utility": game.utility(state),
            "key": game.information_state_key(state, jnp.maximum(player, 0)),
        }

    return jax.jit(jax.vmap(one))


_CHUNK = 1024  # states per batched call: one shape, so each function compiles once


def _chunked(fn: Any, *args: Any) -> Any:
    """``fn`` (batched) over the leading axis of ``args`` in chunks of :data:`_CHUNK` (the
    last one padded), results cut back to the batch and concatenated, as numpy arrays."""
    n = int(jax.tree.leaves(args)[0].shape[0])
    outs = []
    for lo in range(0, n, _CHUNK):
        m = min(_CHUNK, n - lo)
        # numpy slicing: eager JAX ops would compile once per shape
        part = jax.tree.map(
            lambda x, lo=lo, m=m: np.concatenate(
                [x[lo : lo + m], np.repeat(x[lo : lo + 1], _CHUNK - m, 0)]
            ),
            args,
        )
        outs.append(jax.tree.map(lambda x, m=m: np.asarray(x)[:m], fn(*part)))
    return jax.tree.map(lambda *xs: np.concatenate(xs), *outs)


def build_tree(game: Game, root: State | None = None) -> GameTree:
    """Enumerate every history of ``game`` from ``root`` (default: the start).

    Raises:
        GameError: the game lacks :class:`~jaxgames.capabilities.ImperfectInformation`, the
            tree passes the game's ``max_game_length`` or 5,000,000 histories, or two
            histories of one information set have different legal actions.
    """
    if not isinstance(game, ImperfectInformation):
        raise GameError(
            f"cfr: {game.name} does not have the ImperfectInformation capability "
            "(observation, information_state_key)"
        )
    facts = _facts(game)
    step = jax.jit(jax.vmap(game.step))
    width = max(game.num_actions, game.num_chance_outcomes)
    start = game.init() if root is None else root
    frontier = jax.tree.map(lambda x: np.asarray(x)[None], start)  # numpy, host side
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("player", "parent", "action", "prob")}
    cols.update(legal=[], utility=[], key=[])
    parent = np.zeros(1, np.int64)
    action = np.zeros(1, np.int64)
    prob = np.ones(1)
    offsets, total = [0], 0
    limit = max(game.max_game_length, 1) + 1
    while True:
        n = int(parent.shape[0])
        f = _chunked(facts, frontier)
        player = np.where(f["terminal"], TERMINAL, f["player"]).astype(np.int32)
        cols["player"].append(player)
        cols["parent"].append(parent + (offsets[-2] if len(offsets) > 1 else 0))
        cols["action"].append(action)
        cols["prob"].append(prob)
        cols["legal"].append(f["legal"][:, : game.num_actions].astype(bool))
        cols["utility"].append(f["utility"].astype(np.float64))
        cols["key"].append(f["key"].astype(np.int64))
        total += n
        offsets.append(total)
        # children: legal actions at decisions, outcomes of positive probability at chance
        weights = np.zeros((n, width))
        weights[:, : game.num_actions] = f["legal"]
        chance = player == CHANCE
        weights[chance] = 0.0
        weights[chance, : game.num_chance_outcomes] = f["chance"][chance]
        weights[player == TERMINAL] = 0.0
        parent, action = np.nonzero(weights > 0)  # row-major: children grouped by parent
        if parent.size == 0:
            break
        prob = np.where(chance[parent], weights[parent, action], 1.0)
        if len(offsets) > limit or total + parent.size > _MAX_HISTORIES:
            raise GameError(
                f"cfr: {game.name}'s tree is deeper than its max_game_length or larger than "
                f"{_MAX_HISTORIES:,} histories; CFR here enumerates whole trees"
            )
        parents = jax.tree.map(lambda x, rows=parent: x[rows], frontier)
        frontier = _chunked(step, parents, action.astype(np.int32))
    return _arrays(game, cols, tuple(offsets))


def _exact(probs: np.ndarray) -> np.ndarray:
    """float64 chance probabilities from the game's float32 ones: each snapped to the nearest
    fraction of denominator <= 1,000 where one lies within float32 rounding (a deal's 1/3 or
    1/5), so that a float64 run (x64 on) computes what float64 solvers compute."""
    out = probs.astype(np.float64)
    for value in np.unique(out):
        near = float(Fraction(float(value)).limit_denominator(1000))
        if abs(near - value) <= 1e-7 * value:
            out[out == value] = near
    return out


def _arrays(game: Game, cols: dict[str, list[np.ndarray]], offsets: tuple[int, ...]) -> GameTree:
    """The level columns -> one :class:`GameTree` (information sets numbered here)."""
    cat = {k: np.concatenate(v) for k, v in cols.items()}
    player = cat["player"]
    parent = cat["parent"].astype(np.int32)
    decision = player >= 0
    # information sets: distinct (player, key) of decision nodes
    pair = player.astype(np.int64) * (1 << 32) + cat["key"]
    uniq, inverse = np.unique(pair[decision], return_inverse=True)
    infoset = np.full(player.shape, -1, np.int32)
    infoset[decision] = inverse
    num_infosets = int(uniq.size)
    legal = np.zeros((num_infosets, game.num_actions), bool)
    legal[inverse] = cat["legal"][decision]
    if not (legal[inverse] == cat["legal"][decision]).all():
        raise GameError(
            f"cfr: {game.name} gives two histories of one information set different legal "
            "actions (its information_state_key merges histories a player can tell apart)"
        )
    parent_player = np.where(np.arange(player.size) == 0, CHANCE, player[parent]).astype(np.int32)
    below_decision = parent_player >= 0
    slot = np.where(below_decision, infoset[parent] * game.num_actions + cat["action"], 0)
    # each player's decisions on the way down, for the best response's passes
    counts = np.zeros((player.size, game.num_players), np.int32)
    for d in range(1, len(offsets) - 1):
        lo, hi = offsets[d], offsets[d + 1]
        counts[lo:hi] = counts[parent[lo:hi]]
        for p in range(game.num_players):
            counts[lo:hi, p] += parent_player[lo:hi] == p
    return GameTree(
        num_players=game.num_players,
        num_actions=game.num_actions,
        offsets=offsets,
        player=player,
        parent=parent,
        action=cat["action"].astype(np.int32),
        chance_prob=_exact(cat["prob"]),
        parent_player=parent_player,
        infoset=infoset,
        slot=slot.astype(np.int32),
        utility=cat["utility"],
        infoset_player=(uniq >> 32).astype(np.int32),
        infoset_key=(uniq & 0xFFFFFFFF).astype(np.int32),
        legal=legal,
        max_decisions=tuple(int(c) for c in counts.max(axis=0)),
    )


# ---------------------------------------------------------------- the iteration, on device
class CFRState(NamedTuple):
    """What CFR carries from one iteration to the next."""

    regrets: jax.Array  # [I, A]: cumulative counterfactual regrets
    strategy_sum: jax.Array  # [I, A]: reach-weighted sums of the current policies
    policy: jax.Array  # [I, A]: the current policy (regret matching of regrets)
    iteration: jax.Array  # int32[]: iterations done


def regret_matching(regrets: jax.Array, legal: jax.Array) -> jax.Array:
    """``[I, A]`` policy: positive regrets normalised, uniform over legal actions where no
    regret is positive (OpenSpiel's ``_regret_matching``)."""
    positive = jnp.where(legal, jnp.maximum(regrets, 0.0), 0.0)
    total = jnp.sum(positive, axis=-1, keepdims=True)
    uniform = legal / jnp.sum(legal, axis=-1, keepdims=True)
    return jnp.where(total > 0, positive / jnp.where(total > 0, total, 1.0), uniform)


def normalised(sums: jax.Array, legal: jax.Array) -> jax.Array:
    """``[I, A]``: the average policy from strategy sums (uniform where a set was never
    reached, as OpenSpiel's average policy)."""
    total = jnp.sum(sums, axis=-1, keepdims=True)
    uniform = legal / jnp.sum(legal, axis=-1, keepdims=True)
    return jnp.where(total > 0, sums / jnp.where(total > 0, total, 1.0), uniform)


class _Program:
    """The tree's arrays on the device and the level-by-level passes over them."""

    def __init__(self, tree: GameTree, dtype: Any) -> None:
        self.tree = tree
        self.dtype = dtype
        t = tree
        self.levels = [(t.offsets[d], t.offsets[d + 1]) for d in range(len(t.offsets) - 1)]
        f = jnp.asarray
        self.arrays = {
            "parent_local": f(t.parent - np.asarray(t.offsets)[_level_of(t)[t.parent]]),  # [N]
            "parent": f(t.parent),  # [N]
            "parent_player": f(t.parent_player),  # [N]
            "action": f(t.action),  # [N]
            "slot": f(t.slot),  # [N]
            "chance_prob": f(t.chance_prob, dtype=dtype),  # [N]
            "utility": f(t.utility, dtype=dtype),  # [N, P]
            "legal": f(t.legal),  # [I, A]
            "infoset": f(np.maximum(t.infoset, 0)),  # [N]
        }
        # per player: the edges below their decisions, and their decision nodes (static)
        self.edges = [np.flatnonzero(t.parent_player == p) for p in range(t.num_players)]
        self.nodes = [np.flatnonzero(t.player == p) for p in range(t.num_players)]
        self.num_slots = t.num_infosets * t.num_actions

    # ---- passes (traced)
    def edge_probs(self, a: dict, policy: jax.Array) -> jax.Array:
        """[N]: the probability of the step into each history under ``policy`` [I, A]."""
        by_policy = policy.reshape(-1)[a["slot"]]
        return jnp.where(a["parent_player"] >= 0, by_policy, a["chance_prob"])

    def forward(self, a: dict, edge: jax.Array, player: int) -> tuple[jax.Array, jax.Array]:
        """([N], [N]): each history's reach by ``player``'s own actions, and by everyone
        else's (the other players and chance: the counterfactual reach)."""
        mine = a["parent_player"] == player
        own_f = jnp.where(mine, edge, 1.0)  # [N]
        other_f = jnp.where(mine, 1.0, edge)  # [N]
        own = [own_f[:1]]
        other = [other_f[:1]]
        for lo, hi in self.levels[1:]:
            par = a["parent_local"][lo:hi]
            own.append(own[-1][par] * own_f[lo:hi])
            other.append(other[-1][par] * other_f[lo:hi])
        return jnp.concatenate(own), jnp.concatenate(other)

    def backward(self, a: dict, edge: jax.Array, utility: jax.Array) -> jax.Array:
        """[N]: each history's expected utility (one player's, ``utility`` [N]) when every
        step is taken with probability ``edge`` [N]."""
        values = [utility[self.levels[-1][0] : self.levels[-1][1]]]
        for d in range(len(self.levels) - 2, -1, -1):
            lo, hi = self.levels[d]
            clo, chi = self.levels[d + 1]
            kids = jax.ops.segment_sum(
                edge[clo:chi] * values[0],
                a["parent_local"][clo:chi],
                num_segments=hi - lo,
                indices_are_sorted=True,
            )
            values.insert(0, utility[lo:hi] + kids)
        return jnp.concatenate(values)

    def player_update(self, a: dict, policy: jax.Array, player: int) -> tuple[jax.Array, jax.Array]:
        """([I*A], [I]): ``player``'s instant regrets, and the summed own reach of each of
        their information sets, under ``policy`` (one forward and one backward pass)."""
        edge = self.edge_probs(a, policy)
        own, other = self.forward(a, edge, player)
        v = self.backward(a, edge, a["utility"][:, player])
        e = self.edges[player]
        par = a["parent"][e]
        regret = jax.ops.segment_sum(
            other[par] * (v[e] - v[par]), a["slot"][e], num_segments=self.num_slots
        )
        n = self.nodes[player]
        reach = jax.ops.segment_sum(own[n], a["infoset"][n], num_segments=self.tree.num_infosets)
        return regret, reach

    def iterate(self, a: dict, state: CFRState, plus: bool, alternating: bool) -> CFRState:
        """One CFR iteration (OpenSpiel's ``evaluate_and_update_policy``)."""
        t = state.iteration + 1
        weight = t.astype(self.dtype) if plus else jnp.asarray(1.0, self.dtype)
        shape = state.regrets.shape
        regrets, sums, policy = state.regrets, state.strategy_sum, state.policy
        if alternating:
            for p in range(self.tree.num_players):
                regret, reach = self.player_update(a, policy, p)
                regrets = regrets + regret.reshape(shape)
                sums = sums + weight * reach[:, None] * policy
                if plus:
                    regrets = jnp.maximum(regrets, 0.0)
                policy = regret_matching(regrets, a["legal"])
        else:
            for p in range(self.tree.num_players):
                regret, reach = self.player_update(a, state.policy, p)
                regrets = regrets + regret.reshape(shape)
                sums = sums + weight * reach[:, None] * state.policy
            if plus:
                regrets = jnp.maximum(regrets, 0.0)
            policy = regret_matching(regrets, a["legal"])
        return CFRState(regrets, sums, policy, t)

    def values(self, a: dict, policy: jax.Array) -> jax.Array:
        """[P]: every player's expected utility when all follow ``policy``."""
        edge = self.edge_probs(a, policy)
        return jnp.stack(
            [self.backward(a, edge, a["utility"][:, p])[0] for p in range(self.tree.num_players)]
        )

    def best_response_value(self, a: dict, policy: jax.Array, player: int) -> jax.Array:
        """The value to ``player`` of a best response to the others playing ``policy``."""
        edge = self.edge_probs(a, policy)
        _, other = self.forward(a, edge, player)
        e = self.edges[player]
        par = a["parent"][e]
        mine = a["parent_player"] == player
        utility = a["utility"][:, player]
        choice = jnp.argmax(a["legal"], axis=-1)  # any legal action to start
        for _ in range(self.tree.max_decisions[player]):
            pick = (a["action"] == choice[a["infoset"][a["parent"]]]).astype(self.dtype)
            v = self.backward(a, jnp.where(mine, pick, edge), utility)
            q = jax.ops.segment_sum(other[par] * v[e], a["slot"][e], num_segments=self.num_slots)
            q = jnp.where(a["legal"], q.reshape(a["legal"].shape), -jnp.inf)
            choice = jnp.argmax(q, axis=-1)
        pick = (a["action"] == choice[a["infoset"][a["parent"]]]).astype(self.dtype)
        return self.backward(a, jnp.where(mine, pick, edge), utility)[0]

    def report(self, a: dict, sums: jax.Array) -> dict[str, jax.Array]:
        """The average policy, its values, and each player's best-response value."""
        average = normalised(sums, a["legal"])
        br = jnp.stack(
            [self.best_response_value(a, average, p) for p in range(self.tree.num_players)]
        )
        return {"average": average, "values": self.values(a, average), "best_response": br}


def _level_of(tree: GameTree) -> np.ndarray:
    """int32[N]: the depth level of each history."""
    return np.repeat(np.arange(len(tree.offsets) - 1), np.diff(tree.offsets)).astype(np.int32)


# ---------------------------------------------------------------- public API
@dataclass
class CFRResult:
    """A CFR run's outcome.

    Attributes:
        iterations: iterations run.
        average_policy: float[I, A], the average strategy of every information set (the
            rows of ``tree.infoset_player`` / ``tree.infoset_key``).
        value: float[P], each player's expected utility when all play the average strategy.
        exploitability: NashConv / P of the average strategy (OpenSpiel's definition).
        nash_conv: the sum over players of their best-response gain.
        curve: ``(iteration, exploitability)`` at each checkpoint asked for.
        tree: the enumerated game.
        stats: ``seconds`` (iterations only, compiled already), ``iterations_per_s``,
            ``histories``,
            ``infosets``, ``build_s``.
    """

    iterations: int
    average_policy: np.ndarray
    value: np.ndarray
    exploitability: float
    nash_conv: float
    curve: list[tuple[int, float]]
    tree: GameTree
    stats: dict[str, Any] = field(default_factory=dict)

    def policy(self, game: Game, state: State) -> np.ndarray:
        """float[A]: the average strategy at a decision node ``state`` of ``game``."""
        player = int(game.player(state))
        if player < 0:
            raise GameError(f"cfr: {game.name}: no policy at a chance or terminal node")
        index = self.tree.infoset_index(player, int(game.information_state_key(state, player)))
        if index < 0:
            raise GameError(f"cfr: {game.name}: this information state is not in the tree")
        return self.average_policy[index]


class CFRSolver:
    """CFR (``plus=False``) or CFR+ (``plus=True``) on one game, run in chunks of iterations.

    ``run(n)`` does ``n`` more iterations on the device; ``evaluate()`` reports the average
    policy's value and exploitability. The tree is enumerated once, at construction.
    """

    def __init__(
        self,
        game: Game,
        plus: bool = False,
        alternating: bool = True,
        tree: GameTree | None = None,
    ) -> None:
        t0 = time.perf_counter()
        self.game = game
        self.tree = tree if tree is not None else build_tree(game)
        self.build_s = time.perf_counter() - t0
        self.plus, self.alternating = plus, alternating
        self.dtype = jax.dtypes.canonicalize_dtype(jnp.float64)  # float32 unless x64 is on
        self.program = _Program(self.tree, self.dtype)
        legal = self.program.arrays["legal"]
        zeros = jnp.zeros(legal.shape, self.dtype)
        self.state = CFRState(zeros, zeros, regret_matching(zeros, legal), jnp.int32(0))
        prog = self.program

        def run(a: dict, state: CFRState, n: jax.Array) -> CFRState:
            body = lambda _, s: prog.iterate(a, s, plus, alternating)  # noqa: E731
            return jax.lax.fori_loop(0, n, body, state)

        self._run = jax.jit(run)
        self._report = jax.jit(prog.report)

    @property
    def iterations(self) -> int:
        return int(self.state.iteration)

    def run(self, n: int) -> CFRState:
        """``n`` more iterations (one compiled loop whatever ``n``)."""
        if n < 0:
            raise GameError(f"cfr: iterations must be >= 0, got {n}")
        self.state = self._run(self.program.arrays, self.state, jnp.int32(n))
        return self.state

    def evaluate(self) -> dict[str, Any]:
        """``average_policy`` [I, A], ``value`` [P], ``nash_conv`` and ``exploitability``."""
        out = jax.device_get(self._report(self.program.arrays, self.state.strategy_sum))
        nash_conv = float(np.sum(out["best_response"]) - np.sum(out["values"]))
        return {
            "average_policy": np.asarray(out["average"]),
            "value": np.asarray(out["values"]),
            "best_response": np.asarray(out["best_response"]),
            "nash_conv": nash_conv,
            "exploitability": nash_conv / self.tree.num_players,
        }


def cfr(
    game: Game,
    iterations: int = 1000,
    *,
    plus: bool = False,
    alternating: bool = True,
    checkpoints: list[int] | None = None,
) -> CFRResult:
    """Solve ``game`` with CFR (or CFR+ with ``plus=True``) for ``iterations`` iterations.

    Args:
        game: a game with the :class:`~jaxgames.capabilities.ImperfectInformation`
            capability, small enough to enumerate.
        iterations: iterations to run.
        plus: CFR+ (regret matching+, linear averaging) instead of vanilla CFR.
        alternating: alternating updates (OpenSpiel's default) or simultaneous ones.
        checkpoints: iteration counts at which to record the exploitability (``curve``).

    Returns:
        A :class:`CFRResult`.

    Raises:
        GameError: the game lacks the capability or is too big to enumerate.
    """
    solver = CFRSolver(game, plus=plus, alternating=alternating)
    marks = sorted({c for c in (checkpoints or []) if 0 < c <= iterations} | {iterations})
    jax.block_until_ready(solver.run(0))  # compiles the loop, so the timing below is steady
    curve, seconds = [], 0.0
    for mark in marks:
        t0 = time.perf_counter()
        jax.block_until_ready(solver.run(mark - solver.iterations))
        seconds += time.perf_counter() - t0
        report = solver.evaluate()
        curve.append((mark, report["exploitability"]))
    tree = solver.tree
    return CFRResult(
        iterations=iterations,
        average_policy=report["average_policy"],
        value=report["value"],
        exploitability=report["exploitability"],
        nash_conv=report["nash_conv"],
        curve=curve if checkpoints else [],
        tree=tree,
        stats={
            "seconds": seconds,
            "iterations_per_s": iterations / seconds if seconds > 0 else None,
            "histories": tree.num_histories,
            "infosets": tree.num_infosets,
            "build_s": solver.build_s,
        },
    )
