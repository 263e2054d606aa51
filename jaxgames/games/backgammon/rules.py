"""The backgammon game: the :class:`Backgammon` class, its traced protocol (the start, whose
turn, chance, the legal mask and compact move lists, exact sampling, ``step``, utility) and
its host-side helpers, with the evaluation (:mod:`.evaluation`) and notation
(:mod:`.notation`) mixed in.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, two_player_utility
from jaxgames.games.backgammon.doubles import _doubles_pick, _doubles_table
from jaxgames.games.backgammon.encoding import (
    _PTS,
    _ZOBRIST,
    _ZOBRIST_ROLL,
    _ZOBRIST_SIDE,
    BAR,
    DOUBLES_CODES,
    DOUBLES_SOURCES,
    MAX_PLAYS,
    NON_DOUBLES_CODES,
    NUM_CHECKERS,
    OFF,
    ROLL_PROBS,
    ROLLS,
    START,
    BackgammonState,
    _i32,
    _zob,
)
from jaxgames.games.backgammon.evaluation import BackgammonEvaluation
from jaxgames.games.backgammon.learned import BackgammonLearning, load_eval_network
from jaxgames.games.backgammon.legal import _doubles_mask, _non_doubles_mask
from jaxgames.games.backgammon.non_doubles import (
    _bearoff_grid,
    _non_doubles_pick,
    _non_doubles_table,
)
from jaxgames.games.backgammon.notation import BackgammonNotation


def _decode_moves(action: jax.Array, dice: jax.Array):
    """(sources int32[4], dice int32[4]) of a code: source 0 means no move."""
    hi, lo = _i32(dice[0]), _i32(dice[1])
    a = jnp.clip(_i32(action), 0, DOUBLES_CODES - 1)
    # non-doubles
    nd = jnp.clip(a, 0, NON_DOUBLES_CODES - 1)
    order = nd // (_PTS * _PTS)
    s1 = (nd // _PTS) % _PTS
    s2 = nd % _PTS
    e1 = jnp.where(order == 0, hi, lo)
    e2 = jnp.where(order == 0, lo, hi)
    nd_src = jnp.stack([s1, s2, jnp.int32(0), jnp.int32(0)])
    nd_die = jnp.stack([e1, e2, e1, e1])
    d_src = jnp.asarray(DOUBLES_SOURCES, jnp.int32)[a]
    d_die = jnp.stack([hi, hi, hi, hi])
    doubles = hi == lo
    return jnp.where(doubles, d_src, nd_src), jnp.where(doubles, d_die, nd_die)


class Backgammon(BackgammonNotation, BackgammonLearning, BackgammonEvaluation, Game):
    """Backgammon with full-turn moves (one action per distinct play) and dice as chance."""

    name = "backgammon"
    num_players = 2
    num_actions = DOUBLES_CODES
    num_chance_outcomes = len(ROLLS)
    utility_min = -3.0
    utility_max = 3.0
    zero_sum = True
    max_moves = MAX_PLAYS  # the MoveLists capability: compact lists of legal plays
    max_game_length = 4000
    """Backgammon games have no bound (hits send checkers back). In 32,768 uniformly random
    games from the start: 192 steps on average (a step is a roll or a play), 99.9% under
    600, the longest 772. 4,000 steps (2,000 turns) is a generous cap for loops over whole
    games; a lane still running there is scored by EVAL."""

    def __init__(self, eval: str = "") -> None:
        """``eval``: a checkpoint of a network trained by :mod:`jaxgames.learn` to use as
        EVAL instead of the hand-set evaluation (``make("backgammon", eval="net.npz")``);
        every search that reads EVAL then uses the network."""
        self.params: dict[str, Any] = {"eval": eval} if eval else {}
        self._net = load_eval_network(eval, self.name, self.num_features) if eval else None

    def evaluate(self, state: BackgammonState) -> jax.Array:
        """EVAL: the learned network's (when made with ``eval=``), else the hand-set one
        (:class:`~jaxgames.games.backgammon.evaluation.BackgammonEvaluation`)."""
        if self._net is not None:
            return self._learned_evaluate(state)
        return BackgammonEvaluation.evaluate(self, state)

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> BackgammonState:
        """The starting position, ``x`` to roll."""
        return self._state_from_boards(START, START, 0, (0, 0))

    def player(self, state: BackgammonState) -> jax.Array:
        """int32: ``CHANCE`` before the roll, else the player to move (0 = x, 1 = o)."""
        return jnp.where(state.dice[0] == 0, jnp.int32(CHANCE), _i32(state.player))

    def terminal(self, state: BackgammonState) -> jax.Array:
        """bool: one side has borne off all 15 checkers."""
        return (state.own[OFF] == NUM_CHECKERS) | (state.opp[OFF] == NUM_CHECKERS)

    def _mover_score(self, state: BackgammonState) -> jax.Array:
        """int32: points won (+) or lost (-) by the side of ``own`` (0 before the end)."""

        def points(loser):
            none_off = loser[OFF] == 0
            back = (loser[BAR] > 0) | jnp.any(loser[19:25] > 0)
            return 1 + none_off.astype(jnp.int32) + (none_off & back).astype(jnp.int32)

        won = state.own[OFF] == NUM_CHECKERS
        lost = state.opp[OFF] == NUM_CHECKERS
        return jnp.where(won, points(state.opp), jnp.where(lost, -points(state.own), 0))

    def utility(self, state: BackgammonState) -> jax.Array:
        """float32[2]: ``[u, -u]``, ``u`` = +-1/2/3 for a single game/gammon/backgammon
        won by x (+) or o (-); zeros before the end."""
        u = self._mover_score(state).astype(jnp.float32)
        return two_player_utility(jnp.where(state.player == 0, u, -u))

    def chance_probs(self, state: BackgammonState) -> jax.Array:
        """float32[21]: 1/36 for doubles, 1/18 for the others (:data:`ROLLS` order)."""
        return jnp.asarray(ROLL_PROBS)

    def legal_mask(self, state: BackgammonState) -> jax.Array:
        """bool[23751]: at a decision, one code per distinct play (see the module doc); at a
        chance node the 21 rolls; all False at a terminal state.

        Both families are computed for every state (a non-doubles 2 x 26 x 26 grid and the
        23751 doubles codes, checked without gathers), which is dear. To draw random moves,
        :meth:`sample_actions` is far cheaper (``benchmarks/backgammon.py`` times both)."""
        hi, lo = _i32(state.dice[0]), _i32(state.dice[1])
        nd = _non_doubles_mask(state.own, state.opp, hi, lo).reshape(-1)
        nd = jnp.concatenate([nd, jnp.zeros((DOUBLES_CODES - NON_DOUBLES_CODES,), jnp.bool_)])
        dd = _doubles_mask(state.own, state.opp, hi)
        chance = jnp.arange(DOUBLES_CODES) < len(ROLLS)
        mask = jnp.where(hi == 0, chance, jnp.where(hi == lo, dd, nd))
        return mask & ~self.terminal(state)

    def legal_moves(self, state: BackgammonState) -> jax.Array:
        """int32[3060]: the legal actions (:meth:`legal_mask`'s, in increasing order), then
        ``-1`` (the MoveLists capability; see the module doc for the bound).

        One state's list is made by the one branch its dice need (``lax.switch``): the
        2 x 26 x 26 non-doubles grid (five rolls in six), the doubles plays decoded by rank
        (as :meth:`sample_actions` draws them, then sorted), or the 21 rolls. Vectorized
        over a batch, every branch runs for every state: a search that makes lists calls it
        one state at a time."""
        hi, lo = _i32(state.dice[0]), _i32(state.dice[1])

        def listed(mask):
            # the positions of the set entries, by a running count: cheaper than nonzero
            at = jnp.cumsum(mask, dtype=jnp.int32) - 1
            where = jnp.where(mask, at, MAX_PLAYS)
            codes = jnp.arange(mask.shape[0], dtype=jnp.int32)
            return jnp.full((MAX_PLAYS,), -1, jnp.int32).at[where].set(codes, mode="drop")

        def doubles():
            # the plays counted and decoded by rank (the sampler's dynamic program), in a
            # batch as small as their number allows: most rolls have tens of plays, and the
            # 23751-wide mask costs about ten times more
            tab = jax.lax.optimization_barrier(
                _doubles_table(state.own[:, None], state.opp[:, None], jnp.clip(hi, 1, 6)[None])
            )
            n = tab.n[0]

            def decode(size):
                def branch():
                    ranks = jnp.minimum(jnp.arange(size, dtype=jnp.int32), n - 1)
                    wide = jax.tree.map(lambda x: jnp.broadcast_to(x, (*x.shape[:-1], size)), tab)
                    here = jnp.arange(size) < n
                    codes = jnp.sort(jnp.where(here, _doubles_pick(wide, ranks), DOUBLES_CODES))
                    codes = jnp.where(here, codes, -1).astype(jnp.int32)
                    return jnp.full((MAX_PLAYS,), -1, jnp.int32).at[:size].set(codes)

                return branch

            sizes = (64, 256, 1024, MAX_PLAYS)
            bucket = sum((n > size).astype(jnp.int32) for size in sizes[:-1])
            return jax.lax.switch(bucket, [decode(size) for size in sizes])

        branches = [
            lambda: jnp.full((MAX_PLAYS,), -1, jnp.int32),  # a finished game
            lambda: listed(jnp.arange(len(ROLLS) + 1) < len(ROLLS)),  # the rolls
            lambda: listed(_non_doubles_mask(state.own, state.opp, hi, lo).reshape(-1)),
            doubles,
        ]
        which = jnp.where(hi == 0, 1, jnp.where(hi == lo, 3, 2))
        return jax.lax.switch(jnp.where(self.terminal(state), 0, which), branches)

    def num_plays(self, state: BackgammonState) -> jax.Array:
        """int32: the number of legal actions (distinct plays at a decision, 21 at a chance
        node, 0 at a terminal state), counted without building the 23751-wide mask."""
        own, opp = state.own[:, None], state.opp[:, None]
        hi, lo = _i32(state.dice[0])[None], _i32(state.dice[1])[None]
        n_nd = _non_doubles_table(own, opp, hi, lo).n[0]
        n_dd = _doubles_table(own, opp, jnp.clip(hi, 1, 6)).n[0]
        n = jnp.where(hi[0] == 0, len(ROLLS), jnp.where(hi[0] == lo[0], n_dd, n_nd))
        return jnp.where(self.terminal(state), 0, n)

    def sample_action(self, state: BackgammonState, uniform: jax.Array) -> jax.Array:
        """A random action drawn as random playouts draw it, from one uniform ``u`` in [0, 1).

        At a decision: a uniformly random legal action (the ``floor(u * n)``-th of the ``n``
        distinct plays, in an order of its own); at a chance node: a roll drawn by
        :meth:`chance_probs` (inverse CDF). The same distribution as sampling
        :meth:`legal_mask` / :meth:`chance_probs`, but counting and decoding the plays
        directly (a few thousand operations instead of the 23751-wide mask). One state at a
        time; :meth:`sample_actions`, the protocol's batched sampler hint, is cheaper.
        """
        states = jax.tree.map(lambda x: x[None], state)
        return self.sample_actions(states, jnp.asarray(uniform, jnp.float32)[None])[0]

    def sample_actions(self, states: BackgammonState, uniform: jax.Array) -> jax.Array:
        """Batched :meth:`sample_action`: states ``[B]``, uniform ``float32[B]`` -> int32[B].

        The sampling capability (:class:`~jaxgames.capabilities.Sampling`): random playouts
        draw through it.
        Cheaper than ``vmap(sample_action)``: the play counting runs only when some lane is
        at a decision (a real ``lax.cond``; random games in lockstep alternate whole batches
        of chance and decision steps), with the lanes on the last axis, the doubles counter
        only on the lanes that rolled doubles (gathered in chunks of ``B // 5`` lanes) and
        the bear-off grid only on the lanes bearing off (chunks of ``B // 4``).
        """
        hi = states.dice[:, 0].astype(jnp.int32)
        lo = states.dice[:, 1].astype(jnp.int32)
        u = jnp.asarray(uniform, jnp.float32)
        size = hi.shape[0]
        cdf = jnp.cumsum(jnp.asarray(ROLL_PROBS))
        roll = jnp.minimum(jnp.sum(cdf[None, :] <= (u * cdf[-1])[:, None], axis=1), 20)
        deciding = (hi > 0) & ~jax.vmap(self.terminal)(states)
        doubles = deciding & (hi == lo)

        def rank(n, uu):
            return jnp.minimum((uu * n).astype(jnp.int32), n - 1)

        # The barriers keep XLA from fusing (and so recomputing) the counting tables into
        # the decoding that reads them (recomputing them there was slower).
        barrier = jax.lax.optimization_barrier

        def chunked(want, fn, args, outs, chunk):
            """``fn`` on the lanes in ``want`` only, ``chunk`` at a time (lanes on the last
            axis of every array); ``outs`` are the results for the other lanes."""
            order = jnp.cumsum(want) - 1  # rank of each wanted lane
            total = jnp.sum(want)

            def body(carry):
                start, outs = carry
                sel = want & (order >= start) & (order < start + chunk)
                (idx,) = jnp.nonzero(sel, size=chunk, fill_value=size)
                safe = jnp.minimum(idx, size - 1)
                got = barrier(fn(*(a[..., safe] for a in args)))
                outs = tuple(
                    o.at[..., idx].set(v, mode="drop") for o, v in zip(outs, got, strict=True)
                )
                return start + chunk, outs

            return jax.lax.while_loop(lambda c: c[0] < total, body, (jnp.int32(0), outs))[1]

        def bearoff(c, blocked, above, out, high, low, h, l):  # regime 3 lanes only
            want = deciding & (hi != lo) & (c[BAR] == 0) & (out <= 1)
            outs = (
                jnp.zeros((7, size), jnp.int32),
                jnp.zeros((7, 7, size), jnp.bool_),
                jnp.zeros((7, 7, size), jnp.bool_),
                jnp.zeros((7, 7, size), jnp.bool_),
            )
            args = (c, blocked, above, out, high, low, h, l)
            return chunked(want, _bearoff_grid, args, outs, max(1, size // 4))

        def decide(_):
            own, opp = states.own.T, states.opp.T  # [26, B]
            tab = barrier(_non_doubles_table(own, opp, hi, lo, bearoff))
            codes = _non_doubles_pick(tab, rank(tab.n, u), hi, lo)

            def with_doubles(own, opp, d, uu):
                tab = barrier(_doubles_table(own, opp, jnp.clip(d, 1, 6)))
                return (_doubles_pick(tab, rank(tab.n, uu)),)

            args = (own, opp, hi, u)
            return chunked(doubles, with_doubles, args, (codes,), max(1, size // 5))[0]

        codes = jax.lax.cond(jnp.any(deciding), decide, lambda _: jnp.zeros_like(hi), None)
        return jnp.where(hi == 0, roll, codes).astype(jnp.int32)

    def step(self, state: BackgammonState, action: jax.Array) -> BackgammonState:
        """Roll (at a chance node: outcome ``action``) or play code ``action`` and pass the
        turn. Any action traces safely; an illegal one gives an unspecified state."""
        at_chance = state.dice[0] == 0
        rolled = self._roll(state, action)
        played = self._play(state, action)
        return jax.tree.map(lambda r, p: jnp.where(at_chance, r, p), rolled, played)

    def _roll(self, state: BackgammonState, action: jax.Array) -> BackgammonState:
        k = jnp.clip(_i32(action), 0, len(ROLLS) - 1)
        return state._replace(
            dice=jnp.asarray(ROLLS)[k], hash=state.hash ^ jnp.asarray(_ZOBRIST_ROLL)[k]
        )

    def _play(self, state: BackgammonState, action: jax.Array) -> BackgammonState:
        srcs, dies = _decode_moves(action, state.dice)
        p = _i32(state.player)
        q = 1 - p
        idx = jnp.arange(_PTS, dtype=jnp.int32)

        def move(carry, se):  # one checker move from s by e (none when s == 0)
            own, opp, key = carry
            s, e = se
            valid = s > 0
            t = jnp.maximum(s - e, 0)
            ns, nt, nb = own[s], own[t], opp[BAR]
            hit = valid & (t >= 1) & (opp[25 - t] == 1)
            own = own + valid * ((idx == t).astype(jnp.int32) - (idx == s).astype(jnp.int32))
            opp = opp + hit * ((idx == BAR).astype(jnp.int32) - (idx == 25 - t).astype(jnp.int32))
            mv = _zob(p, s, ns) ^ _zob(p, s, ns - 1) ^ _zob(p, t, nt) ^ _zob(p, t, nt + 1)
            hk = _zob(q, 25 - t, 1) ^ _zob(q, BAR, nb) ^ _zob(q, BAR, nb + 1)
            key = key ^ jnp.where(valid, mv, 0) ^ jnp.where(hit, hk, 0)
            return (own, opp, key), None

        start = (_i32(state.own), _i32(state.opp), state.hash)
        (own, opp, key), _ = jax.lax.scan(move, start, (srcs, dies))
        roll = self._roll_index(state.dice)
        key = key ^ jnp.asarray(_ZOBRIST_ROLL)[roll] ^ jnp.asarray(_ZOBRIST_SIDE)
        return BackgammonState(
            own=opp.astype(jnp.int8),
            opp=own.astype(jnp.int8),
            dice=jnp.zeros((2,), jnp.int8),
            player=(1 - state.player).astype(jnp.int8),
            hash=key,
        )

    @staticmethod
    def _roll_index(dice: jax.Array) -> jax.Array:
        hi, lo = _i32(dice[0]), _i32(dice[1])
        return jnp.clip(hi * (hi - 1) // 2 + lo - 1, 0, len(ROLLS) - 1)

    def hash(self, state: BackgammonState) -> jax.Array:
        """uint32[2]: Zobrist key of both boards, the side to move and the dice."""
        return state.hash

    # ------------------------------------------------------------------ host helpers
    def _state_from_boards(self, own, opp, player: int, dice) -> BackgammonState:
        own = np.asarray(own, np.int8)
        opp = np.asarray(opp, np.int8)
        hi, lo = max(dice), min(dice)
        key = np.zeros((2,), np.uint32)
        boards = (own, opp) if player == 0 else (opp, own)
        for p, board in enumerate(boards):
            for i in range(_PTS):
                key ^= _ZOBRIST[p, i, int(board[i])]
        if player == 1:
            key ^= _ZOBRIST_SIDE
        if hi:
            key ^= _ZOBRIST_ROLL[hi * (hi - 1) // 2 + lo - 1]
        return BackgammonState(
            own=jnp.asarray(own),
            opp=jnp.asarray(opp),
            dice=jnp.asarray(np.array([hi, lo], np.int8)),
            player=jnp.int8(player),
            hash=jnp.asarray(key),
        )

    def recompute_hash(self, state: BackgammonState) -> np.ndarray:
        """uint32[2]: the Zobrist key of a concrete state computed from scratch."""
        own, opp = np.asarray(state.own), np.asarray(state.opp)
        dice = np.asarray(state.dice)
        fresh = self._state_from_boards(own, opp, int(state.player), (int(dice[0]), int(dice[1])))
        return np.asarray(fresh.hash)

    @functools.cached_property
    def _jit(self) -> dict[str, Any]:
        return {
            "legal": jax.jit(self.legal_mask),
            "step": jax.jit(self.step),
            "steps": jax.jit(jax.vmap(self.step, in_axes=(None, 0))),
        }

    def legal_actions(self, state: BackgammonState) -> np.ndarray:
        """int[]: the legal actions of a concrete state (host side)."""
        return np.flatnonzero(np.asarray(self._jit["legal"](state)))

    def plays(self, state: BackgammonState) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
        """{action: (own, opp)}: each legal play of a decision state and the position it
        leads to, both boards from the mover's side (26 counts each: off, 1..24, bar)."""
        actions = self.legal_actions(state)
        if not len(actions):
            return {}
        # Pad to one of three sizes so that few batch shapes are ever compiled.
        size = next(n for n in (256, 4096, 1 << 15) if n >= len(actions))
        padded = np.zeros((size,), np.int32)
        padded[: len(actions)] = actions
        children = self._jit["steps"](state, jnp.asarray(padded))
        # After the play the boards swap: the child's opp is the mover's board.
        mine = np.asarray(children.opp)
        theirs = np.asarray(children.own)
        return {
            int(a): (tuple(int(v) for v in mine[i]), tuple(int(v) for v in theirs[i]))
            for i, a in enumerate(actions)
        }

    def moves_of(self, state: BackgammonState, action: int) -> list[tuple[int, int, bool]]:
        """The checker moves of code ``action`` as ``(from, to, hit)`` in play order
        (mover's numbering, 25 = bar, 0 = off), replayed on the host."""
        own = np.asarray(state.own).astype(int).copy()
        opp = np.asarray(state.opp).astype(int).copy()
        hi, lo = (int(v) for v in np.asarray(state.dice))
        action = int(action)
        if hi == lo:
            steps = [(int(s), hi) for s in DOUBLES_SOURCES[action]]
        else:
            order, s1, s2 = action // (_PTS * _PTS), (action // _PTS) % _PTS, action % _PTS
            first, second = (hi, lo) if order == 0 else (lo, hi)
            steps = [(s1, first), (s2, second)]
        moves = []
        for s, e in steps:
            if s <= 0:
                continue
            t = max(s - e, 0)
            hit = t >= 1 and opp[25 - t] == 1
            own[s] -= 1
            own[t] += 1
            if hit:
                opp[25 - t] = 0
                opp[BAR] += 1
            moves.append((s, t, bool(hit)))
        return moves
