"""EXPECTIMINIMAX with Star1 and Star2 pruning (Ballard 1983), for games with chance nodes.

The seeds' definition, depth-limited with EVAL at the cutoff::

    EXPECTIMINIMAX(s, d) = UTILITY(s)                          if TERMINAL-TEST(s)
                         = EVAL(s)                             if d = 0
                         = max_a  E(RESULT(s, a), d - 1)        if PLAYER(s) = MAX
                         = min_a  E(RESULT(s, a), d - 1)        if PLAYER(s) = MIN
                         = sum_r P(r) E(RESULT(s, r), d - 1)   if PLAYER(s) = CHANCE

Every level counts as a ply, chance levels included (as in :func:`jaxgames.search.minimax`).

Pruning (two-player zero-sum games; values are player 0's, in ``[L, U]`` = the game's
utility bounds):

* ``"alphabeta"``: alpha-beta at decision nodes; a chance node searches every outcome with
  the full window.
* ``"star1"``: a chance node with window (alpha, beta) has, after its first i outcomes
  (probabilities p_j, values v_j, X = sum_{j<=i} p_j v_j, Y = the probability left)::

      X + Y * L  <=  value  <=  X + Y * U

  so it stops as soon as the left side reaches beta or the right side falls to alpha, and
  searches outcome i with the window (A_i, B_i) that decides exactly that::

      A_i = (alpha - X_{i-1} - U * Y_i) / p_i        B_i = (beta - X_{i-1} - L * Y_i) / p_i

* ``"star2"``: first a probing pass searches only the first (best-ordered) move of every
  outcome's node: at a MAX node that is a lower bound lo_i of its value, at a MIN node an
  upper bound hi_i. If ``sum p_i lo_i >= beta`` (or ``sum p_i hi_i <= alpha``) the chance
  node is cut without a full search; otherwise Star1 runs with the probed bounds in place
  of L and U (``sum_{j>i} p_j lo_j`` for ``L * Y_i``, and so on).

All three return exactly the plain expectiminimax value at the root (the root window is
``[L, U]``, and every cut returns a bound on the correct side of the window: fail-soft).
``"none"`` is plain expectiminimax: every node searched, utility vectors backed up for any
number of players.

Execution (as for alpha-beta): one root with a host-side driver (``mode="host"``: the top of
the tree lives on the host; every node it opens is expanded on the device in one batch:
legal moves or outcomes, the children, and their leaf values), or many roots at once on the
device (:func:`expectiminimax_batch`: Star1/Star2 in lockstep lanes of the lane engine, one
search per root, each node's moves a compact list made once; or level-by-level expansion
with segment backups).
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels import bucket_size, leaf_values, stack, take
from jaxgames.kernels.expand import branch_weights
from jaxgames.search.horizon import needed_depth
from jaxgames.search.minimax import minimax_batch
from jaxgames.search.result import BatchSearchResult, SearchResult
from jaxgames.search.star_lanes import star_lanes

PRUNINGS = ("none", "alphabeta", "star1", "star2")


class _Children(NamedTuple):
    """The children of one node, as the host driver sees them (numpy)."""

    states: Any  # [M] states (padded batch; only the first M are real)
    action: np.ndarray  # int32[M]: action or chance outcome
    prob: np.ndarray  # float64[M]: P(outcome) below a chance node, 1 below a decision
    player: np.ndarray  # int32[M]
    terminal: np.ndarray  # bool[M]
    value: np.ndarray  # float64[M, P]: UTILITY at terminals, EVAL elsewhere


@functools.partial(jax.jit, static_argnums=0)
def _branches(game: Game, state: Any) -> tuple[jax.Array, jax.Array]:
    return branch_weights(game, state)


@functools.partial(jax.jit, static_argnums=0)
def _children(game: Game, state: Any, actions: jax.Array):
    """Step one state by every action in ``actions`` [M] and describe the children."""
    children = jax.vmap(game.step, in_axes=(None, 0))(state, actions)
    return (
        children,
        jax.vmap(game.player)(children),
        jax.vmap(game.terminal)(children),
        jax.vmap(functools.partial(leaf_values, game))(children),
    )


@functools.partial(jax.jit, static_argnums=0)
def _player(game: Game, state: Any) -> jax.Array:
    return game.player(state)


def _bucket(n: int) -> int:
    return bucket_size(n, 8)


class _HostSearch:
    """The host-side driver: a recursive search whose node expansions run on the device."""

    def __init__(self, game: Game, pruning: str, order: bool, table: bool) -> None:
        self.game = game
        self.pruning = pruning
        self.order = order
        # (position, depth) -> (lower bound, upper bound, line); position -> its children
        self.table: dict[tuple[bytes, int], tuple[float, float, list[int]]] | None = (
            {} if table else None
        )
        self.children: dict[bytes, _Children] = {}
        self.low, self.high = float(game.utility_min), float(game.utility_max)
        self.stats = {
            "nodes": 0,
            "leaves": 0,
            "cutoffs": 0,
            "chance_cutoffs": 0,
            "probe_cutoffs": 0,
            "expansions": 0,
            "evaluated": 0,
            "tt_hits": 0,
        }

    # -------------------------------------------------------------- device work
    def expand(self, state: Any, is_chance: bool) -> _Children:
        """All children of one node (two device calls), kept when the table is on."""
        if self.table is not None:
            key = self._key(state)
            if key not in self.children:
                self.children[key] = self._expand(state, is_chance)
            return self.children[key]
        return self._expand(state, is_chance)

    def _expand(self, state: Any, is_chance: bool) -> _Children:
        self.stats["expansions"] += 1
        mask, prob = (np.asarray(x) for x in _branches(self.game, state))
        actions = np.flatnonzero(mask).astype(np.int32)
        m = actions.size
        self.stats["evaluated"] += m
        padded = np.zeros(_bucket(m), np.int32)
        padded[:m] = actions
        children, player, terminal, value = _children(self.game, state, padded)
        prob = prob[actions].astype(np.float64) if is_chance else np.ones(m)
        child = _Children(
            states=jax.tree.map(np.asarray, children),  # host arrays: cheap to slice
            action=actions,
            prob=prob,
            player=np.asarray(player)[:m],
            terminal=np.asarray(terminal)[:m],
            value=np.asarray(value, np.float64)[:m],
        )
        if self.order and not is_chance and m > 1:
            # one-ply look-ahead ordering: the mover's best-looking child first
            mover = int(np.asarray(_player(self.game, state)))
            order = np.argsort(-child.value[:, mover], kind="stable")
            child = _Children(
                states=jax.tree.map(lambda x: x[order], take(child.states, slice(0, m))),
                action=actions[order],
                prob=prob[order],
                player=child.player[order],
                terminal=child.terminal[order],
                value=child.value[order],
            )
        return child

    # -------------------------------------------------------------- plain (vectors)
    def plain(self, state: Any, info: tuple, depth: int) -> tuple[np.ndarray, list[int]]:
        """Plain EXPECTIMINIMAX over utility vectors (any number of players)."""
        player, terminal, value = info
        self.stats["nodes"] += 1
        if terminal or depth == 0:
            self.stats["leaves"] += 1
            return value, []
        kids = self.expand(state, player == CHANCE)
        if player == CHANCE:
            total = np.zeros(self.game.num_players)
            for i in range(kids.action.size):
                v, _ = self.plain(self._kid(kids, i), self._info(kids, i), depth - 1)
                total += kids.prob[i] * v
            return total, []
        best, best_line = None, []
        for i in range(kids.action.size):
            v, line = self.plain(self._kid(kids, i), self._info(kids, i), depth - 1)
            if best is None or v[player] > best[player] + 0.0:
                best, best_line = v, [int(kids.action[i]), *line]
        return best, best_line

    # -------------------------------------------------------------- pruned (scalars)
    def search(
        self, state: Any, info: tuple, depth: int, alpha: float, beta: float, probe: bool = False
    ) -> tuple[float, list[int]]:
        """Value for player 0 within the fail-soft window (alpha, beta), and the line.

        ``probe``: search only the first move (Star2's probe; the result bounds the node's
        value from one side and is not stored as the node's own).
        """
        player, terminal, value = info
        self.stats["nodes"] += 1
        if terminal or depth == 0:
            self.stats["leaves"] += 1
            return float(value[0]), []
        key = (self._key(state), depth) if self.table is not None and not probe else None
        if key is not None and key in self.table:
            low, high, line = self.table[key]
            if low >= beta or high <= alpha or low == high:
                self.stats["tt_hits"] += 1
                return (low if low >= beta or low == high else high), line
        if player == CHANCE:
            best, line = self.chance(state, depth, alpha, beta), []
        else:
            best, line = self.decision(state, player, depth, alpha, beta, probe)
        if key is not None:  # fail-soft: a bound below alpha / above beta, else exact
            low, high, old_line = self.table.get(key, (-np.inf, np.inf, []))
            if best <= alpha:
                high = min(high, best)
            elif best >= beta:
                low = max(low, best)
            else:
                low = high = best
            self.table[key] = (low, high, line if low == high else old_line)
        return best, line

    def decision(
        self, state: Any, player: int, depth: int, alpha: float, beta: float, probe: bool
    ) -> tuple[float, list[int]]:
        kids = self.expand(state, False)
        maximize = player == 0
        best = -np.inf if maximize else np.inf
        line: list[int] = []
        for i in range(1 if probe else kids.action.size):
            lo, hi = (max(alpha, best), beta) if maximize else (alpha, min(beta, best))
            v, sub = self.search(self._kid(kids, i), self._info(kids, i), depth - 1, lo, hi)
            if (v > best) if maximize else (v < best):
                best, line = v, [int(kids.action[i]), *sub]
            if (best >= beta) if maximize else (best <= alpha):
                if i + 1 < kids.action.size:
                    self.stats["cutoffs"] += 1
                break
        return best, line

    def chance(self, state: Any, depth: int, alpha: float, beta: float) -> float:
        kids = self.expand(state, True)
        p = kids.prob
        n = p.size
        low, high = self.low, self.high
        lo = np.full(n, low)  # known bounds on each outcome's value
        hi = np.full(n, high)
        if self.pruning == "alphabeta":
            total = 0.0
            for i in range(n):
                v, _ = self.search(self._kid(kids, i), self._info(kids, i), depth - 1, low, high)
                total += p[i] * v
            return total
        if self.pruning == "star2":  # probing pass
            for i in range(n):
                child_player, child_terminal, child_value = self._info(kids, i)
                if child_terminal or depth - 1 == 0:  # valued by the expansion already
                    lo[i] = hi[i] = float(child_value[0])
                elif child_player != CHANCE:
                    rest_lo = p @ lo - p[i] * lo[i]
                    rest_hi = p @ hi - p[i] * hi[i]
                    # the window that decides a cut; a probe that fails on the other
                    # side teaches nothing, and the bound stays L (or U)
                    a = max((alpha - rest_hi) / p[i], low)
                    b = min((beta - rest_lo) / p[i], high)
                    w, _ = self.search(
                        self._kid(kids, i), self._info(kids, i), depth - 1, a, b, probe=True
                    )
                    if child_player == 0 and w > a:  # MAX: its first move is a lower bound
                        lo[i] = max(lo[i], w)
                    if child_player == 1 and w < b:  # MIN: an upper bound
                        hi[i] = min(hi[i], w)
                if p @ lo >= beta:
                    self.stats["probe_cutoffs"] += 1
                    return float(p @ lo)
                if p @ hi <= alpha:
                    self.stats["probe_cutoffs"] += 1
                    return float(p @ hi)
        done = 0.0  # sum of p_j v_j over the outcomes searched in full
        for i in range(n):
            rest_lo = float(p[i + 1 :] @ lo[i + 1 :])
            rest_hi = float(p[i + 1 :] @ hi[i + 1 :])
            a = (alpha - done - rest_hi) / p[i]
            b = (beta - done - rest_lo) / p[i]
            v, _ = self.search(
                self._kid(kids, i),
                self._info(kids, i),
                depth - 1,
                max(a, low),
                min(b, high),
            )
            # an answer outside its window decides the node (Star1); the bound returned is
            # kept on its side of the window whatever the rounding of the sums
            if v >= b:
                self.stats["chance_cutoffs"] += 1
                return max(done + p[i] * v + rest_lo, beta)
            if v <= a:
                self.stats["chance_cutoffs"] += 1
                return min(done + p[i] * v + rest_hi, alpha)
            done += p[i] * v
        return done

    # -------------------------------------------------------------- helpers
    @staticmethod
    def _key(state: Any) -> bytes:
        return b"".join(np.asarray(x).tobytes() for x in jax.tree.leaves(state))

    @staticmethod
    def _kid(kids: _Children, i: int) -> Any:
        return jax.tree.map(lambda x: x[i], kids.states)

    @staticmethod
    def _info(kids: _Children, i: int) -> tuple:
        return int(kids.player[i]), bool(kids.terminal[i]), kids.value[i]


def _check(game: Game, depth: int, pruning: str) -> None:
    if pruning not in PRUNINGS:
        raise GameError(f"expectiminimax: pruning must be one of {', '.join(PRUNINGS)}")
    if depth < 0:
        raise GameError(f"expectiminimax: depth must be >= 0, got {depth}")
    if pruning != "none" and not (game.num_players == 2 and game.zero_sum):
        raise GameError(
            f"expectiminimax: pruning={pruning!r} needs a two-player zero-sum game; "
            f"{game.name} has {game.num_players} players (use pruning='none')"
        )


def expectiminimax(
    game: Game,
    state: Any,
    depth: int,
    *,
    pruning: str = "star2",
    mode: str = "host",
    order: bool = True,
    table: bool = True,
) -> SearchResult:
    """Depth-limited EXPECTIMINIMAX of one position.

    Args:
        game: any game; chance nodes average over ``chance_probs``. Pruning needs two
            players and zero sum.
        state: one state (not batched).
        depth: plies below the root, chance plies included.
        pruning: ``"star2"`` (default), ``"star1"``, ``"alphabeta"`` or ``"none"`` (see the
            module docstring); all give the same value.
        mode: ``"host"`` (default): the host-side driver, each node it opens expanded on
            the device in one batch; ``"device"``: one lane of
            :func:`expectiminimax_batch` (the whole search in one jitted loop, no table;
            two-player zero-sum games).
        order: search decision moves best-first by their one-ply look-ahead (EVAL).
        table: keep a transposition table of value bounds (and of expanded children) for
            the duration of the search, keyed by the exact position and depth, so that
            Star2's re-search after a probe, and transpositions, cost little. Not used by
            ``pruning="none"``.

    Returns:
        A :class:`SearchResult` (``value`` as the utility vector); ``stats`` has ``nodes``,
        ``leaves``, ``cutoffs`` (decision nodes), ``chance_cutoffs`` (Star1 cuts),
        ``probe_cutoffs`` (Star2 probing cuts), ``tt_hits``, ``expansions`` (nodes opened on
        the device: the real work), ``evaluated`` (children stepped and valued by those
        expansions) and ``time_s``. ``nodes`` counts visits: Star2 visits some nodes twice
        (probe, then search), which the table makes cheap.
    """
    _check(game, depth, pruning)
    if mode == "device":
        batch = expectiminimax_batch(
            game, stack([state]), depth, pruning=pruning, mode="lanes", lanes=1
        )
        pv = [int(a) for a in batch.pv[0] if a >= 0]
        return SearchResult(
            value=batch.value[0],
            best_action=int(batch.best_action[0]),
            pv=pv,
            stats=dict(batch.stats),
        )
    if mode != "host":
        raise GameError(f"expectiminimax: mode must be 'host' or 'device', got {mode!r}")
    start = time.perf_counter()
    driver = _HostSearch(game, pruning, order, table and pruning != "none")
    state = jax.tree.map(jnp.asarray, state)
    info = (
        int(np.asarray(game.player(state))),
        bool(np.asarray(game.terminal(state))),
        np.asarray(leaf_values(game, state), np.float64),
    )
    if pruning == "none":
        value, line = driver.plain(state, info, depth)
    else:
        v, line = driver.search(state, info, depth, driver.low, driver.high)
        value = np.array([v, -v])
    if info[0] == CHANCE:
        line = []
    stats = dict(driver.stats, time_s=time.perf_counter() - start)
    return SearchResult(
        value=np.asarray(value, np.float32),
        best_action=line[0] if line else -1,
        pv=line,
        stats=stats,
    )


def expectiminimax_batch(
    game: Game,
    states: Any,
    depth: int,
    *,
    pruning: str = "star2",
    mode: str = "auto",
    order: str = "auto",
    lanes: int = 256,
    events: int = 16,
) -> BatchSearchResult:
    """EXPECTIMINIMAX of many roots at once on the device.

    Args:
        states: a batch ``[N]`` of roots.
        depth: plies below each root, chance plies included.
        pruning: as for :func:`expectiminimax`; every choice gives the same values.
        mode: ``"lanes"``: every root its own search with Star1/Star2 in lockstep lanes
            (:mod:`jaxgames.search.star_lanes`; two-player zero-sum games); ``"levels"``:
            level-by-level expansion with segment backups, no pruning (chance nodes:
            ``segment_sum`` of P(r) * value), for any number of players. ``"auto"``: lanes
            when the game allows pruning, else levels.
        order: lanes only: ``"hint"`` (the game's ordering hint, ``ListOrdering`` or
            ``MoveOrdering``; the order of its move lists without one), ``"lookahead"``
            (EVAL of every child), or ``"auto"`` (look-ahead when there are at most 64
            actions).
        lanes, events: lanes only: searches side by side (per device, with several local
            devices and N a multiple of their count), and events between refills.
    """
    if mode == "auto":
        mode = "lanes" if game.num_players == 2 and game.zero_sum else "levels"
    if mode not in ("lanes", "levels"):
        raise GameError(f"expectiminimax: mode must be 'auto', 'lanes' or 'levels', got {mode!r}")
    if mode == "levels":
        _check(game, depth, "none")
        return minimax_batch(game, states, depth)
    _check(game, depth, pruning)
    if pruning == "none" and not (game.num_players == 2 and game.zero_sum):
        raise GameError("expectiminimax: lanes need a two-player zero-sum game; use mode='levels'")
    if order == "auto":
        order = "lookahead" if game.num_actions <= 64 else "hint"
    depth = needed_depth(game, states, depth)
    return star_lanes(game, states, depth, pruning, order=order, lanes=lanes, events=events)


__all__ = ["PRUNINGS", "expectiminimax", "expectiminimax_batch"]
