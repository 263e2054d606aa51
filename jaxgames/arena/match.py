"""A match between agents: many games in lockstep, seats rotated, openings shared, and the
score with its Elo difference.

Games come in groups of one game per seating (two for two players): the agents swap seats
within a group, and the group's games start from the same opening of ``openings`` random
plies (chance outcomes random too), so that neither agent profits from a lucky opening or
from moving first. All games advance a ply at a time; each agent moves in the games where
it is to move, in one batched call (padded to a power of two, so that a few batch sizes
compile); chance nodes draw their outcome by probability.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.arena.agents import Agent, ReplayAgent, _random_moves, parse_agent
from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels import repeat, take, to_numpy

Z_95 = 1.959963984540054  # the two-sided 95 % quantile of the normal distribution


@dataclasses.dataclass
class GameRecord:
    """One game: who sat where, the opening, the moves after it, the final utilities."""

    seats: list[str]  # the agent at each player's seat
    opening: list[str]  # the opening's plies in the game's notation
    moves: list[str]  # the plies the agents (and chance) played after it
    utility: list[float]  # float per player

    def as_row(self, index: int) -> dict[str, Any]:
        return {"game": index, **dataclasses.asdict(self)}


@dataclasses.dataclass
class MatchResult:
    """A match's games and score, from the first agent's side (two players: a win scores
    1, a draw 1/2; more players: a game's top utility, shared, counts as a win)."""

    agents: list[str]
    records: list[GameRecord]
    wins: int
    draws: int
    losses: int
    score: float  # points per game of the first agent, in [0, 1]
    elo: float  # the Elo difference the score implies (first agent minus the rest)
    elo_low: float  # its 95 % interval
    elo_high: float
    seconds: list[float] = dataclasses.field(default_factory=list)  # each agent's thinking
    decisions: list[int] = dataclasses.field(default_factory=list)  # moves each agent chose
    # of those, the calls that compiled: an agent's first call at each batch size
    first_seconds: list[float] = dataclasses.field(default_factory=list)
    first_decisions: list[int] = dataclasses.field(default_factory=list)

    def seconds_per_move(self) -> list[float]:
        """Each agent's thinking time per move it chose: its batched calls' wall time over
        the moves they answered (the cost of a move played in lockstep), leaving out the
        calls that compiled a program (an engine's start-up, not its time per move)."""
        return [
            (t - t0) / max(n - n0, 1)
            for t, n, t0, n0 in zip(
                self.seconds, self.decisions, self.first_seconds, self.first_decisions, strict=True
            )
        ]

    def summary(self) -> str:
        n = self.wins + self.draws + self.losses
        return (
            f"{self.agents[0]} vs {' vs '.join(self.agents[1:])}: {n} games, "
            f"+{self.wins} ={self.draws} -{self.losses}, score {self.score:.3f}, "
            f"Elo {_signed(self.elo)} [{_signed(self.elo_low)}, {_signed(self.elo_high)}] (95 %)"
        )


def _signed(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def elo_difference(score: float) -> float:
    """The Elo difference whose expected score is ``score``: ``-400 log10(1 / s - 1)``."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval(points: np.ndarray) -> tuple[float, float, float]:
    """``(elo, low, high)`` from per-game points (1, 1/2, 0): the Wilson score interval
    (95 %) of the score as a proportion of ``n`` games (draws count half), each end
    converted to Elo. Unlike the normal interval it stays open at a score of 0 or 1."""
    n = len(points)
    score = float(np.mean(points))
    z2n = Z_95**2 / n
    center = (score + z2n / 2) / (1 + z2n)
    half = Z_95 / (1 + z2n) * math.sqrt(score * (1 - score) / n + z2n / (4 * n))
    return elo_difference(score), elo_difference(center - half), elo_difference(center + half)


def _bucket(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


SMALLEST_SHARE = 8
"""A batch is padded to a power of two, and not below 1/8 of the first ply's: as games end,
the agents search fewer padded positions, yet at most four batch sizes compile."""


def _padded(moving: int, games: int, players: int) -> int:
    return max(_bucket(moving), _bucket(games // players) // SMALLEST_SHARE, 1)


@functools.partial(jax.jit, static_argnums=0)
def _info(game: Game, states: Any) -> tuple[jax.Array, jax.Array]:
    return jax.vmap(game.player)(states), jax.vmap(game.terminal)(states)


@functools.partial(jax.jit, static_argnums=0)
def _advance(game: Game, states: Any, actions: jax.Array, moving: jax.Array) -> Any:
    stepped = jax.vmap(game.step)(states, actions)
    return jax.tree.map(
        lambda new, old: jnp.where(moving.reshape((-1,) + (1,) * (new.ndim - 1)), new, old),
        stepped,
        states,
    )


def _names(game: Game, states: Any, actions: np.ndarray, rows: np.ndarray) -> list[str]:
    host = to_numpy(states)
    return [
        game.action_to_string(jax.tree.map(lambda x, i=i: x[i], host), int(actions[i]))
        for i in rows
    ]


def _openings(
    game: Game, groups: int, plies: int, seed: int
) -> tuple[Any, list[list[str]], list[list[int]]]:
    """``groups`` openings of ``plies`` random plies from the start: the states, the plies
    in the game's notation and as actions."""
    states = repeat(jax.tree.map(lambda x: jnp.asarray(x)[None], game.init()), groups)
    played: list[list[str]] = [[] for _ in range(groups)]
    actions_played: list[list[int]] = [[] for _ in range(groups)]
    for ply in range(plies):
        _, done = _info(game, states)
        done = np.asarray(done)
        actions = np.asarray(_random_moves(game, states, jax.random.key(seed * 7919 + ply)))
        live = np.flatnonzero(~done)
        for g, name in zip(live, _names(game, states, actions, live), strict=True):
            played[g].append(name)
            actions_played[g].append(int(actions[g]))
        states = _advance(game, states, jnp.asarray(actions), jnp.asarray(~done))
    return states, played, actions_played


def match(
    game: Game,
    agents: list[Agent | ReplayAgent | str],
    games: int = 2,
    seed: int = 0,
    openings: int = 0,
) -> MatchResult:
    """Play ``games`` games between ``agents`` (one per player, agent specs or agents).

    Args:
        game: the game (any number of players; chance nodes are drawn by probability).
        agents: one agent per seat; seats rotate within each group of ``len(agents)``
            games, which share an opening.
        games: games to play (a multiple of the number of agents, so seats are fair).
        seed: results are the same for the same seed.
        openings: random plies played before the agents take over.
    """
    seated = [parse_agent(a) if isinstance(a, str) else a for a in agents]
    n = game.num_players
    if len(seated) != n:
        raise GameError(f"match: {game.name} has {n} players; got {len(seated)} agents")
    if games < 1 or games % n:
        raise GameError(f"match: games must be a positive multiple of {n}, got {games}")
    if openings < 0:
        raise GameError(f"match: openings must be >= 0, got {openings}")
    groups = games // n
    start, opening_moves, opening_actions = _openings(game, groups, openings, seed)
    states = repeat(start, n)  # game g plays group g // n's opening
    seat_agent = np.array([[(s + g) % n for s in range(n)] for g in range(games)])  # [G, P]
    moves: list[list[str]] = [[] for _ in range(games)]
    histories = [list(opening_actions[g // n]) for g in range(games)]  # actions from the start
    seconds = [0.0] * len(seated)
    decisions = [0] * len(seated)
    first_seconds = [0.0] * len(seated)
    first_decisions = [0] * len(seated)
    compiled: set[tuple[int, int]] = set()  # (agent, batch size) called before
    for ply in range(max(game.max_game_length, 1)):
        mover, done = (np.asarray(x) for x in _info(game, states))
        if done.all():
            break
        actions = np.zeros(games, np.int32)
        chance = ~done & (mover == CHANCE)
        if chance.any():  # one draw per group, so the games of a group see the same luck
            drawn = np.asarray(_random_moves(game, states, jax.random.key(seed + 104729 * ply)))
            actions[chance] = drawn[chance]
        for index, agent in enumerate(seated):
            rows = np.flatnonzero(
                ~done & (mover >= 0) & (seat_agent[np.arange(games), np.maximum(mover, 0)] == index)
            )
            if not rows.size:
                continue
            started = time.perf_counter()
            if getattr(agent, "replays", False):  # its own engine: no padding, no compiling
                batch = take(states, jnp.asarray(rows))
                chosen = agent(game, batch, seed + 31 * ply + index, [histories[g] for g in rows])
                size = 0
            else:  # few batch sizes: a share of the games move at each ply
                size = _padded(rows.size, games, n)
                padded = np.resize(rows, size)
                chosen = agent(game, take(states, jnp.asarray(padded)), seed + 31 * ply + index)
            actions[rows] = np.asarray(chosen)[: rows.size]
            elapsed = time.perf_counter() - started
            seconds[index] += elapsed
            decisions[index] += int(rows.size)
            if size and (index, size) not in compiled:
                compiled.add((index, size))
                first_seconds[index] += elapsed
                first_decisions[index] += int(rows.size)
        live = np.flatnonzero(~done)
        for g, name in zip(live, _names(game, states, actions, live), strict=True):
            moves[g].append(name)
            histories[g].append(int(actions[g]))
        states = _advance(game, states, jnp.asarray(actions), jnp.asarray(~done))
    utility = np.asarray(jax.vmap(game.utility)(states))  # [G, P]
    records = [
        GameRecord(
            seats=[seated[seat_agent[g, p]].spec for p in range(n)],
            opening=opening_moves[g // n],
            moves=moves[g],
            utility=[float(u) for u in utility[g]],
        )
        for g in range(games)
    ]
    result = _scored([a.spec for a in seated], records, utility, seat_agent)
    return dataclasses.replace(
        result,
        seconds=seconds,
        decisions=decisions,
        first_seconds=first_seconds,
        first_decisions=first_decisions,
    )


def _scored(specs: list[str], records, utility: np.ndarray, seat_agent: np.ndarray):
    """The first agent's points per game: 1 for the top utility alone, 1/2 for a share of
    it with one other player (a draw), 0 below it."""
    seat = np.argmax(seat_agent == 0, axis=1)  # where the first agent sat in each game
    mine = utility[np.arange(len(utility)), seat]
    top = utility.max(axis=1)
    sharing = (utility == top[:, None]).sum(axis=1)
    points = np.where(mine < top, 0.0, 1.0 / sharing)
    wins = int(np.sum(points == 1.0))
    losses = int(np.sum(points == 0.0))
    elo, low, high = elo_interval(points)
    return MatchResult(
        agents=specs,
        records=records,
        wins=wins,
        draws=len(points) - wins - losses,
        losses=losses,
        score=float(points.mean()),
        elo=elo,
        elo_low=low,
        elo_high=high,
    )


__all__ = ["GameRecord", "MatchResult", "elo_difference", "elo_interval", "match"]
