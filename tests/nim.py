"""A tiny game written only for the tests: Nim with a die.

One heap of ``heap`` stones. A player removes 1, 2 or 3 stones; whoever takes the last stone
wins. With ``dice=True`` a chance node follows every move that leaves stones: a fair coin
removes one more stone when at least two are left (so chance nodes and their probabilities go
through the kernels, and every game still ends). Written here, with
no code from the package's games, so kernels and searches can be checked on a game whose
values a few lines of plain Python compute independently.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax.numpy as jnp

from jaxgames.game import CHANCE, Game, two_player_utility


class NimState(NamedTuple):
    stones: jnp.ndarray  # int32[]
    to_move: jnp.ndarray  # int32[]: 0 or 1
    at_chance: jnp.ndarray  # bool[]
    winner: jnp.ndarray  # int32[]: -1 while running


class Nim(Game):
    """Nim: take 1-3 stones, last stone wins (optionally a coin adds a stone back)."""

    name = "nim"
    num_players = 2
    num_actions = 3

    def __init__(self, heap: int = 7, dice: bool = False):
        self.heap = heap
        self.dice = dice
        self.num_chance_outcomes = 2 if dice else 0
        self.max_game_length = 2 * heap
        self.params = {"heap": heap, "dice": dice}

    def init(self) -> NimState:
        return NimState(jnp.int32(self.heap), jnp.int32(0), jnp.bool_(False), jnp.int32(-1))

    def player(self, s: NimState):
        return jnp.where(s.at_chance, CHANCE, s.to_move).astype(jnp.int32)

    def legal_mask(self, s: NimState):
        take = jnp.arange(1, 4)
        return (take <= s.stones) & ~s.at_chance & (s.winner < 0)

    def chance_probs(self, s: NimState):
        return jnp.array([0.5, 0.5], jnp.float32)

    def step(self, s: NimState, a):
        coin = jnp.where(s.at_chance & (s.stones >= 2), a, 0) if self.dice else 0
        taken = jnp.where(s.at_chance, 0, a + 1)
        stones = s.stones - taken - coin
        won = ~s.at_chance & (stones == 0)
        winner = jnp.where(won, s.to_move, s.winner)
        to_move = jnp.where(s.at_chance, s.to_move, 1 - s.to_move)
        at_chance = jnp.bool_(self.dice) & ~s.at_chance & ~won
        return NimState(stones.astype(jnp.int32), to_move, at_chance, winner.astype(jnp.int32))

    def terminal(self, s: NimState):
        return s.winner >= 0

    def utility(self, s: NimState):
        u = jnp.where(s.winner == 0, 1.0, jnp.where(s.winner == 1, -1.0, 0.0))
        return two_player_utility(u)

    def parse(self, text: str) -> NimState:
        return self.init()._replace(stones=jnp.int32(int(text)))

    def format(self, s: NimState) -> str:
        return str(int(s.stones))


@functools.cache
def nim_value(stones: int, to_move: int, dice: bool, at_chance: bool = False) -> float:
    """Exact value for player 0 by plain recursion (independent of the package)."""
    if at_chance:
        fewer = stones - 1 if stones >= 2 else stones
        return 0.5 * nim_value(stones, to_move, dice) + 0.5 * nim_value(fewer, to_move, dice)
    values = []
    for take in (1, 2, 3):
        if take > stones:
            continue
        left = stones - take
        if left == 0:
            values.append(1.0 if to_move == 0 else -1.0)
        else:
            values.append(nim_value(left, 1 - to_move, dice, at_chance=dice))
    return max(values) if to_move == 0 else min(values)
