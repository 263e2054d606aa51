"""The connect-four board: the game's limits and defaults, :class:`ConnectFourState`, and the
lines of ``connect`` cells of a board (numpy, built when a game is made).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import numpy as np

_DEFAULTS = {"width": 7, "height": 6, "connect": 4}
_MAX_WIDTH = 9  # column digits stay single characters
_MAX_HEIGHT = 127  # heights are int8
_ZOBRIST_SEED = 0xC4
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # (d_row, d_col): -, |, /, \


class ConnectFourState(NamedTuple):
    """A connect-four position."""

    board: jax.Array  # int8[H*W]: 0 empty, 1 x (first player), 2 o; cell = row*W + col
    heights: jax.Array  # int8[W]: stones in each column
    num_moves: jax.Array  # int32[]: stones on the board
    winner: jax.Array  # int8[]: -1 none, 0 x, 1 o
    words: jax.Array  # uint32[6]: the Zobrist key (2 words), then x's and o's stones as
    # bitboards (2 words each, Pons's layout, below; zeros on boards of more than 64 bits,
    # which do without them). One array: each array of the state costs the search per node


def _all_lines(width: int, height: int, connect: int) -> np.ndarray:
    """Every line of ``connect`` cells on the board, as cell indices ``int32[L, connect]``."""
    lines = []
    for dr, dc in _DIRECTIONS:
        for r in range(height):
            for c in range(width):
                r_end, c_end = r + dr * (connect - 1), c + dc * (connect - 1)
                if 0 <= r_end < height and 0 <= c_end < width:
                    lines.append([(r + dr * i) * width + c + dc * i for i in range(connect)])
    return np.asarray(lines, np.int32).reshape(-1, connect)


def _lines_through(lines: np.ndarray, cells: int) -> np.ndarray:
    """``int32[cells, M, connect]``: the lines through each cell, padded with lines of the
    out-of-range index ``cells`` (read as an always-empty cell)."""
    through: list[list[np.ndarray]] = [[] for _ in range(cells)]
    for line in lines:
        for cell in line:
            through[cell].append(line)
    m = max(1, max(len(t) for t in through))
    table = np.full((cells, m, lines.shape[1]), cells, np.int32)
    for cell, ts in enumerate(through):
        if ts:
            table[cell, : len(ts)] = np.stack(ts)
    return table
