"""Backgammon encoding: the board's indices (0 off, 1..24 points, 25 bar), the action codes'
sizes, the 21 rolls and their probabilities, the doubles codes' sources, the Zobrist keys and
:class:`BackgammonState`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import zobrist_table

NUM_CHECKERS = 15
BAR = 25
OFF = 0
_PTS = 26  # indices 0 (off) .. 25 (bar)
NON_DOUBLES_CODES = 2 * _PTS * _PTS  # 1352
DOUBLES_CODES = math.comb(29, 4)  # 23751
MAX_PLAYS = math.comb(15 + 4 - 1, 4)  # 3060: the most legal plays of any position (module doc)

ROLLS: np.ndarray = np.array(
    [(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)], dtype=np.int8
)  # [21, 2]
ROLL_PROBS: np.ndarray = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0 / 36.0, 1.0 / 18.0).astype(
    np.float32
)
START: np.ndarray = np.zeros((_PTS,), np.int8)
START[[24, 13, 8, 6]] = [2, 5, 3, 5]

_ZOBRIST_SEED = 0xB6
# [player, point index in that player's numbering, count 0..15, word]; count 0 has key 0,
# so an empty point contributes nothing and the key of a board is the XOR over its points.
_ZOBRIST = zobrist_table(_ZOBRIST_SEED, 2, _PTS, NUM_CHECKERS + 1)
_ZOBRIST[:, :, 0] = 0
_ZOBRIST_SIDE = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]: o is to move / to roll
_ZOBRIST_ROLL = zobrist_table(_ZOBRIST_SEED + 2, len(ROLLS))  # [21, 2]: the dice rolled


def doubles_rank(s1: int, s2: int, s3: int, s4: int) -> int:
    """The code of the non-increasing source sequence ``s1 >= s2 >= s3 >= s4`` (0 = none)."""
    return math.comb(s1 + 3, 4) + math.comb(s2 + 2, 3) + math.comb(s3 + 1, 2) + s4


def _doubles_sources() -> np.ndarray:
    """``int8[23751, 4]``: the sources of every doubles code, in code order."""
    table = np.zeros((DOUBLES_CODES, 4), np.int8)
    for s1 in range(_PTS):
        for s2 in range(s1 + 1):
            for s3 in range(s2 + 1):
                for s4 in range(s3 + 1):
                    table[doubles_rank(s1, s2, s3, s4)] = (s1, s2, s3, s4)
    return table


DOUBLES_SOURCES: np.ndarray = _doubles_sources()  # [23751, 4]
# Doubles facts that do not depend on the die: per code and move j, how many earlier moves
# leave the same point, and how many moves leave the bar; the play's length.
_D_SRC = DOUBLES_SOURCES.T.copy()  # [4, C]
_D_EQ = np.stack([(_D_SRC[:j] == _D_SRC[j]).sum(axis=0) for j in range(4)]).astype(
    np.int8
)  # [4, C]
_D_NBAR = (_D_SRC == BAR).sum(axis=0).astype(np.int8)  # [C]
_D_LEN = (_D_SRC > 0).sum(axis=0).astype(np.int8)  # [C]
_BINOM = np.array([[math.comb(n, k) for k in range(5)] for n in range(30)], np.int32)


class BackgammonState(NamedTuple):
    """A backgammon position, from the side of the player to move (or to roll)."""

    own: jax.Array  # int8[26]: mover's checkers, mover's numbering (0 off, 1..24, 25 bar)
    opp: jax.Array  # int8[26]: opponent's checkers, opponent's numbering
    dice: jax.Array  # int8[2]: (hi, lo); (0, 0) at a chance node
    player: jax.Array  # int8[]: 0 when own holds x's checkers, 1 when o's
    hash: jax.Array  # uint32[2]: Zobrist key


def _i32(x: jax.Array) -> jax.Array:
    return jnp.asarray(x, jnp.int32)


def _zob(p: jax.Array, point: jax.Array, count: jax.Array) -> jax.Array:
    return jnp.asarray(_ZOBRIST)[p, point, jnp.clip(count, 0, NUM_CHECKERS)]
