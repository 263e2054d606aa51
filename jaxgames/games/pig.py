"""Pig, the dice game: two players race to ``goal`` points (100 by default) with one die.

Rules (as in ``tests/reference/pig.json``): "2 players, one six-sided die; roll 1 -> turn
total lost and turn passes; hold -> bank turn total; first to reach GOAL wins (win is
declared as soon as banked score + turn total >= GOAL)." In detail:

* Player 0 moves first. On a turn the player to move decides again and again to *roll* or
  to *hold*. Holding is allowed at any time, a turn total of 0 included (then the turn just
  passes).
* A roll is a chance node with six equally likely outcomes. A 1 loses the turn total and
  passes the turn; a 2..6 is added to the turn total and the same player decides again.
* Holding adds the turn total to the player's banked score and passes the turn.
* The game ends, won by the player to move, as soon as that player's banked score plus turn
  total reaches ``goal``: no hold is needed. So a banked score is always below ``goal``.

Pig has no bound on its length (a player can roll 1 forever, and both players can hold at
a turn total of 0 forever), so its graph has cycles. :attr:`Pig.max_game_length` is only a
safety cap for loops over whole games (random playouts); exact values come from value
iteration over the whole state space (:mod:`jaxgames.search.retrograde`), which this game
enumerates (:attr:`Pig.num_states`, :meth:`Pig.state_index`, :meth:`Pig.state_from_index`).

Encoding:

* Decision actions: ``0`` roll, ``1`` hold (``num_actions = 2``).
* Chance outcomes: outcome ``k`` in ``0..5`` is the die face ``k + 1`` (as in OpenSpiel's
  ``pig``), each with probability 1/6 (``num_chance_outcomes = 6``).
* :class:`PigState` holds ``scores`` (int32[2], banked), ``turn`` (int32, the turn total of
  the player to move), ``to_move`` (int32, 0 or 1: whose turn it is, also while the die is
  in the air) and ``rolling`` (int32, 1 while a roll is pending: a chance node).
* Utility ``[u, -u]``: ``u = +1`` when player 0 won, ``-1`` when player 1 won.

Notation (host side, :meth:`Pig.parse` / :meth:`Pig.format`): space-separated fields
``p0=N p1=N turn=N to_move=P``, then the word ``rolling`` when a roll is pending (the die
is in the air: the next step is a chance outcome), e.g. ``"p0=12 p1=30 turn=5 to_move=1"``
or ``"p0=12 p1=30 turn=5 to_move=1 rolling"``. Fields may come in any order; ``turn`` and
``to_move`` default to 0; ``""`` or ``"start"`` is the initial position. A decision is
written ``roll`` or ``hold``, a chance outcome as its die face ``1``..``6``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, GameError, split_fields, two_player_utility

_DEFAULT_GOAL = 100
ROLL, HOLD = 0, 1
_DIE = 6
_ACTION_NAMES = ("roll", "hold")
_FIELDS = ("p0", "p1", "turn", "to_move")
_ROLLING = "rolling"
_INT32_LIMIT = 2**31


class PigState(NamedTuple):
    """A Pig position."""

    scores: jax.Array  # int32[2]: banked scores of players 0 and 1
    turn: jax.Array  # int32[]: turn total of the player to move (not banked yet)
    to_move: jax.Array  # int32[]: whose turn it is, 0 or 1
    rolling: jax.Array  # int32[]: 1 while a die roll is pending (a chance node), else 0


class Pig(Game):
    """Pig, the dice game: two players race to a goal (100 by default), rolling or holding."""

    name = "pig"
    num_players = 2
    num_actions = 2
    num_chance_outcomes = _DIE
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True

    def __init__(self, goal: int = _DEFAULT_GOAL) -> None:
        """Pig to ``goal`` points.

        Args:
            goal: points needed to win, an integer >= 1 (default 100).

        Raises:
            GameError: when ``goal`` is not an integer >= 1.

        ``max_game_length`` is ``20 * goal + 200``: Pig has no bound on its length, so this is
        only a safety cap for loops over whole games (a playout still running there is cut
        off and scored by EVAL). ``num_states`` is ``4 * goal * goal * (goal + 1) / 2``, or 0
        (no enumeration) when that does not fit in int32 (goal above about 1,000).
        """
        if not isinstance(goal, int | np.integer) or isinstance(goal, bool):
            raise GameError(f"pig: goal must be an integer, got {goal!r}")
        if goal < 1:
            raise GameError(f"pig: goal must be >= 1, got {goal}")
        self.goal = int(goal)
        self.params: dict[str, Any] = {} if self.goal == _DEFAULT_GOAL else {"goal": self.goal}
        # Safety cap only (Pig has no bound): uniformly random play at goal 100 takes 180
        # steps on average; the longest of 20,000 random games took 331.
        self.max_game_length = 20 * self.goal + 200
        # State enumeration (see state_index): the non-terminal (own score i, turn total k)
        # pairs, i + k < goal, numbered row by row: ``tri(i, k) = i * goal - i * (i - 1) / 2
        # + k``; _tri_own / _tri_turn invert it.
        self._tri = self.goal * (self.goal + 1) // 2
        own = np.repeat(np.arange(self.goal), self.goal - np.arange(self.goal))  # [T]
        row_start = own * self.goal - own * (own - 1) // 2  # [T]
        self._tri_own = own.astype(np.int32)  # [T]
        self._tri_turn = (np.arange(self._tri) - row_start).astype(np.int32)  # [T]
        size = 4 * self.goal * self._tri
        self.num_states = size if size < _INT32_LIMIT else 0  # int32 indices

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> PigState:
        """Both scores 0, turn total 0, player 0 to decide."""
        return PigState(
            scores=jnp.zeros((2,), jnp.int32),
            turn=jnp.int32(0),
            to_move=jnp.int32(0),
            rolling=jnp.int32(0),
        )

    def player(self, state: PigState) -> jax.Array:
        """int32: ``CHANCE`` while a roll is pending, else the player whose turn it is."""
        return jnp.where(state.rolling > 0, jnp.int32(CHANCE), state.to_move).astype(jnp.int32)

    def legal_mask(self, state: PigState) -> jax.Array:
        """bool[2]: roll and hold are always legal at a decision; all False at a pending roll
        (its outcomes come from :meth:`chance_probs`) and when the game is over."""
        decide = (state.rolling == 0) & ~self.terminal(state)
        return jnp.broadcast_to(decide, (self.num_actions,))

    def step(self, state: PigState, action: jax.Array) -> PigState:
        """Roll (0) or hold (1) at a decision; at a pending roll, die face ``action + 1``.

        Any action traces safely; out-of-range ones give unspecified states.
        """
        p = state.to_move  # int32[]
        other = 1 - p
        action = jnp.asarray(action, jnp.int32)
        # decision: roll -> the die is in the air; hold -> bank and pass the turn
        hold = action == HOLD
        banked = state.scores.at[p].add(state.turn)  # [2]
        decided = PigState(
            scores=jnp.where(hold, banked, state.scores),
            turn=jnp.where(hold, 0, state.turn),
            to_move=jnp.where(hold, other, p),
            rolling=jnp.where(hold, 0, 1).astype(jnp.int32),
        )
        # chance: face 1 loses the turn total and passes the turn; 2..6 add to it
        face = action + 1
        bust = face == 1
        rolled = PigState(
            scores=state.scores,
            turn=jnp.where(bust, 0, state.turn + face),
            to_move=jnp.where(bust, other, p),
            rolling=jnp.int32(0),
        )
        at_chance = state.rolling > 0
        return jax.tree.map(lambda c, d: jnp.where(at_chance, c, d), rolled, decided)

    def terminal(self, state: PigState) -> jax.Array:
        """bool: the player to move has banked score + turn total >= goal."""
        return state.scores[state.to_move] + state.turn >= self.goal

    def utility(self, state: PigState) -> jax.Array:
        """float32[2]: ``[u, -u]``, u = +1 player 0 won, -1 player 1 won, 0 not over."""
        winner_sign = jnp.where(state.to_move == 0, 1.0, -1.0)
        return two_player_utility(jnp.where(self.terminal(state), winner_sign, 0.0))

    def chance_probs(self, state: PigState) -> jax.Array:
        """float32[6]: 1/6 for each die face (meaningful at a pending roll)."""
        return jnp.full((_DIE,), 1.0 / _DIE, jnp.float32)

    def evaluate(self, state: PigState) -> jax.Array:
        """float32[2]: ``[e, -e]``, a race estimate, ``utility`` at terminal states.

        ``need_p`` is what player ``p`` still lacks to reach ``goal``, counting the turn
        total of the player to move as if banked; ``e = 0.9 * (need_1 - need_0) /
        (need_0 + need_1)``, so ``|e| <= 0.9``: ahead in the race means a positive value.
        """
        mover = jax.nn.one_hot(state.to_move, 2, dtype=jnp.int32)  # [2]
        need = jnp.maximum(self.goal - state.scores - mover * state.turn, 1)  # [2]
        need = need.astype(jnp.float32)
        e = 0.9 * (need[1] - need[0]) / (need[0] + need[1])
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    # ------------------------------------------------------------------ state enumeration
    def state_index(self, state: PigState) -> jax.Array:
        """int32 index in ``[0, num_states)`` of a non-terminal state (clipped elsewhere).

        With ``i`` the score of the player to move, ``j`` the opponent's, ``k`` the turn
        total (``i + k < goal``) and ``T = goal * (goal + 1) / 2``::

            index = ((to_move * 2 + rolling) * goal + j) * T + i * goal - i * (i - 1) / 2 + k

        so ``num_states = 4 * goal * T`` (2,020,000 for goal 100). Every ``(i, j, k)`` with
        ``i, j < goal`` and ``i + k < goal`` is numbered, unreachable ones (turn total 1)
        included. Terminal states need no index (value iteration reads their utility).
        """
        p = state.to_move
        i = jnp.clip(state.scores[p], 0, self.goal - 1)
        j = jnp.clip(state.scores[1 - p], 0, self.goal - 1)
        k = jnp.clip(state.turn, 0, self.goal - 1 - i)
        tri = i * self.goal - i * (i - 1) // 2 + k
        return (((p * 2 + state.rolling) * self.goal + j) * self._tri + tri).astype(jnp.int32)

    def state_from_index(self, index: jax.Array) -> PigState:
        """The state numbered ``index`` (see :meth:`state_index`), for index in range."""
        index = jnp.asarray(index, jnp.int32)
        tri = index % self._tri
        rest = index // self._tri
        j = rest % self.goal
        rest = rest // self.goal
        rolling = rest % 2
        p = rest // 2
        i = jnp.asarray(self._tri_own)[tri]
        k = jnp.asarray(self._tri_turn)[tri]
        scores = jnp.where(p == 0, jnp.stack([i, j]), jnp.stack([j, i])).astype(jnp.int32)
        return PigState(scores=scores, turn=k, to_move=p.astype(jnp.int32), rolling=rolling)

    # ------------------------------------------------------------------ host side
    position_formats = (
        (
            "fields: banked scores p0= and p1=, the turn total turn=, to_move=, and "
            "'rolling' when a roll is pending",
            "p0=12 p1=30 turn=5 to_move=1",
        ),
        ("the start", "start"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """The position is its leading ``key=value`` and ``rolling`` fields."""
        count = 0
        for field in line.split():
            key = field.partition("=")[0].lower()
            if not (key in _FIELDS and "=" in field) and key not in (_ROLLING, "start"):
                break
            count += 1
        return split_fields(line, max(count, 1))

    def parse(self, text: str) -> PigState:
        """``"p0=12 p1=30 turn=5 to_move=1"`` (plus ``rolling``), ``""`` or ``"start"``.

        Raises:
            GameError: one line naming the bad field: unknown or repeated fields, values that
            are not whole numbers, and positions no game can reach (a banked score at or
            above the goal, a turn total of 1, a turn total past the goal's last roll, a
            roll pending after the game is over).
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self.init()
        values: dict[str, int] = {}
        rolling = False
        for token in stripped.split():
            key, eq, raw = token.partition("=")
            key = key.lower()
            if not eq:
                if key != _ROLLING:
                    raise GameError(
                        f"{self.name}: bad field {token!r}; expected p0=, p1=, turn=, to_move= "
                        f"or {_ROLLING!r}"
                    )
                if rolling:
                    raise GameError(f"{self.name}: {_ROLLING!r} is given twice")
                rolling = True
                continue
            if key not in _FIELDS:
                raise GameError(
                    f"{self.name}: unknown field {key!r} in {token!r}; expected one of "
                    f"{', '.join(_FIELDS)}"
                )
            if key in values:
                raise GameError(f"{self.name}: field {key!r} is given twice")
            if not (raw.isascii() and raw.isdigit()):
                raise GameError(f"{self.name}: {key}={raw!r} is not a whole number >= 0")
            values[key] = int(raw)
        for key in ("p0", "p1"):
            if key not in values:
                raise GameError(f"{self.name}: missing field {key}= in {text!r}")
        p, turn = values.get("to_move", 0), values.get("turn", 0)
        if p not in (0, 1):
            raise GameError(f"{self.name}: to_move={p} is not a player (0 or 1)")
        scores = [values["p0"], values["p1"]]
        for q in (0, 1):
            if scores[q] >= self.goal:
                raise GameError(
                    f"{self.name}: p{q}={scores[q]} is not below the goal {self.goal} (the game "
                    "ends before a winning total is banked)"
                )
        if turn == 1:
            raise GameError(f"{self.name}: turn=1 cannot happen (a roll of 1 ends the turn)")
        if scores[p] + turn >= self.goal + _DIE:
            raise GameError(
                f"{self.name}: turn={turn} is out of reach: p{p} + turn must stay below "
                f"{self.goal + _DIE} (the game ends once it reaches {self.goal})"
            )
        if rolling and scores[p] + turn >= self.goal:
            raise GameError(f"{self.name}: {_ROLLING!r} after the game is over")
        return PigState(
            scores=jnp.asarray(scores, jnp.int32),
            turn=jnp.int32(turn),
            to_move=jnp.int32(p),
            rolling=jnp.int32(int(rolling)),
        )

    def format(self, state: PigState) -> str:
        """State -> ``"p0=12 p1=30 turn=5 to_move=1"``, plus ``" rolling"`` at a pending roll."""
        scores = np.asarray(state.scores)
        text = (
            f"p0={int(scores[0])} p1={int(scores[1])} turn={int(state.turn)} "
            f"to_move={int(state.to_move)}"
        )
        return text + f" {_ROLLING}" if int(state.rolling) else text

    def action_to_string(self, state: PigState, action: int) -> str:
        """``"roll"`` / ``"hold"`` at a decision, the die face ``"1"``..``"6"`` at a roll."""
        if int(state.rolling):
            return str(int(action) + 1)
        return _ACTION_NAMES[int(action)]

    def string_to_action(self, state: PigState, text: str) -> int:
        """``roll``/``hold`` at a decision, a die face ``1``..``6`` at a pending roll.

        Raises:
            GameError: malformed text, or a move of the wrong kind, or after the game is over.
        """
        t = text.strip().lower()
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {text!r} after the game is over")
        if int(state.rolling):
            if len(t) != 1 or not "1" <= t <= str(_DIE):
                raise GameError(f"{self.name}: bad die face {text!r}; a roll is pending (1-6)")
            return int(t) - 1
        if t not in _ACTION_NAMES:
            raise GameError(f"{self.name}: bad move {text!r}; expected 'roll' or 'hold'")
        return _ACTION_NAMES.index(t)

    def sample_positions(self) -> list[str]:
        """A few positions: the start, a pending roll, and late-game decisions."""
        g = self.goal
        return [
            self.format(self.init()),
            "p0=0 p1=0 turn=0 to_move=0 rolling",
            f"p0={41 * g // 100} p1={49 * g // 100} turn=0 to_move=0",
            f"p0={g // 2} p1={g // 2} turn=0 to_move=1",
            f"p0={g - 1} p1={g - 1} turn=0 to_move=0",
        ]

    def solution_summary(self, result: Any) -> list[str]:
        """Readable lines about a value-iteration result (``jaxgames solve pig``).

        Args:
            result: a :class:`jaxgames.search.retrograde.ValueIterationResult` of this game.

        Returns:
            The first player's optimal win probability, then for a few score pairs the turn
            totals at which the player to move holds under the optimal policy.
        """
        start = float(result.value(self.init())[0])
        lines = [f"win probability of the first player: {(1 + start) / 2:.8f} (goal {self.goal})"]
        g = self.goal
        pairs = [(0, 0), (0, g // 2), (g // 2, 0), (g // 2, g // 2), (41 * g // 100, 49 * g // 100)]
        pairs += [(3 * g // 4, 3 * g // 4), (g - 1, g - 1)]
        lines.append("optimal policy: the player to move holds at these turn totals, else rolls")
        lines.append(f"{'own':>5} {'opponent':>9}  holds at")
        pairs = list(dict.fromkeys(pairs))
        own, opp = (np.repeat(np.asarray(x, np.int32), g) for x in zip(*pairs, strict=True))
        turn = np.minimum(np.tile(np.arange(g, dtype=np.int32), len(pairs)), g - 1 - own)
        states = PigState(  # [len(pairs) * g]: every live turn total of each pair (padded)
            scores=jnp.asarray(np.stack([own, opp], axis=1)),
            turn=jnp.asarray(turn),
            to_move=jnp.zeros(turn.shape, jnp.int32),
            rolling=jnp.zeros(turn.shape, jnp.int32),
        )
        hold = (np.asarray(result.best_actions(states)) == HOLD).reshape(len(pairs), g)
        for row, (mine, theirs) in enumerate(pairs):
            turns = np.flatnonzero(hold[row, : g - mine]).tolist()
            lines.append(f"{mine:>5} {theirs:>9}  {_ranges(turns, g - mine - 1)}")
        return lines


def _ranges(values: list[int], last: int) -> str:
    """``[20, 21, 22, 30]`` -> ``"20-22, 30"``; a run up to ``last`` is written ``"20+"``."""
    if not values:
        return "never"
    runs: list[list[int]] = []
    for v in values:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    parts = []
    for lo, hi in runs:
        if hi == last and lo != hi:
            parts.append(f"{lo}+")
        else:
            parts.append(str(lo) if lo == hi else f"{lo}-{hi}")
    return ", ".join(parts)
