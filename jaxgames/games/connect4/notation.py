"""Connect-four notation (host side): move sequences (``"4453"``) and grids in and out, the
host-side line test and replay, and moves written as 1-based column digits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxgames.game import GameError
from jaxgames.games.boards import check_turns
from jaxgames.games.connect4.board import (
    ConnectFourState,
)

_CELL_CHARS = {"x": 1, "o": 2, ".": 0, "-": 0}
_SYMBOLS = ".xo"
_DIGITS = "0123456789"
_GRID_CHARS = "xo.-/\n\r"  # any of these: a grid, else a move sequence


class ConnectFourNotation:
    """The host-side notation of :class:`~jaxgames.games.connect4.ConnectFour` (a mixin: it
    reads the board's size and Zobrist keys of the game it is mixed into)."""

    position_formats = (
        ("move string: the columns played from the start, 1 = leftmost, no spaces", "4453"),
        (
            "grid: rows from the top, '/' between rows; x (first player), o, and . or - empty",
            "......./......./......./......./...o.../..oxx..",
        ),
        ("the empty board", "start"),
    )

    def parse(self, text: str) -> ConnectFourState:
        """A move sequence (``"4453"``), a grid, or ``""``/``"start"`` -> state.

        Text holding any of ``x o . - /`` or a line break is read as a grid, other text
        as a move sequence. A grid is checked for gravity, for the counts (``x`` equal to
        ``o`` or one more), for at most one player with a line and for that player having
        moved last; it is not searched for a full move order that reaches it.

        The state's leaves are numpy arrays (host memory: positions are parsed by the
        thousand and stacked into batches, and one device transfer per field each would
        cost more than the parsing); every function of the game takes them as they are.

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self._host_state(np.zeros((self.cells,), np.int8), 0, -1, 0, 0, 0)
        if stripped.isdigit() or not any(c.lower() in _GRID_CHARS for c in stripped):
            return self._replay(stripped)[1]
        if any(c in _DIGITS for c in stripped):
            raise GameError(
                f"{self.name}: {stripped!r} mixes column digits and grid marks: a move string "
                "holds only the digits of columns, a grid only x, o, . and - (rows split by /)"
            )
        return self._parse_grid(text)

    def parse_moves(self, text: str) -> list[int]:
        """A move sequence ``"4453"`` -> actions ``[3, 3, 4, 2]``.

        Raises:
            GameError: a non-digit, a missing or full column, a move after the end.
        """
        stripped = text.strip()
        if stripped.lower() == "start":
            return []
        return self._replay(stripped)[0]

    def moves_to_string(self, actions: Any) -> str:
        """Actions ``[3, 3, 4, 2]`` -> the move sequence ``"4453"``."""
        return "".join(str(int(a) + 1) for a in actions)

    def _has_line(self, stones: int) -> bool:
        """Whether ``stones`` (a Python int in Pons's layout, any board size) hold a line of
        ``connect``: one AND of shifted copies per direction. The spare bit atop each
        column is never set, so a vertical or diagonal run stops there instead of wrapping."""
        stride = self.height + 1
        for step in (1, stride, stride - 1, stride + 1):  # |, -, \, /
            line = stones
            for j in range(1, self.connect):
                line &= stones >> (j * step)
                if not line:
                    break
            if line:
                return True
        return False

    def _replay(self, text: str) -> tuple[list[int], ConnectFourState]:
        """Play a move sequence from the empty board on the host: (actions, state).

        A first pass plays the moves with no win test; when every move was a legal drop and
        neither player has a line at the end, no game ended early (lines never go away)
        and that is the state. Anything else (a bad character, a full column, a line) is
        played again move by move by :meth:`_replay_checked`, which tells which move ended
        the game and names the first fault."""
        column_of, height, width = self._column_of, self.height, self.width
        stride, zobrist = height + 1, self._host_zobrist
        heights = [0] * width
        board = bytearray(self.cells)
        stones = [0, 0]
        key = p = 0
        actions: list[int] = []
        for c in text:
            a = column_of.get(c)
            if a is None:
                break
            h = heights[a]
            if h >= height:
                break
            heights[a] = h + 1
            cell = h * width + a
            board[cell] = p + 1
            stones[p] |= 1 << (a * stride + h)
            key ^= zobrist[2 * cell + p]
            actions.append(a)
            p ^= 1
        else:
            x, o = stones
            if not (self._has_line(x) or self._has_line(o)):
                n = len(actions)
                host = np.frombuffer(board, np.int8).copy()
                return actions, self._host_state(host, n, -1, key, x, o, heights)
        return self._replay_checked(text)

    def _replay_checked(self, text: str) -> tuple[list[int], ConnectFourState]:
        """:meth:`_replay` with every move checked in order (errors, end of the game)."""
        stride, zobrist = self.height + 1, self._host_zobrist
        board = np.zeros((self.cells,), np.int8)
        heights = [0] * self.width
        stones = [0, 0]
        key = 0
        winner = -1
        actions: list[int] = []
        over = False
        for pos, c in enumerate(text, start=1):
            if c.isspace():  # "4453 12" is the move string 4453 and a label, never 445312
                raise GameError(
                    f"{self.name}: move string {text!r} has a space at character {pos}; a "
                    "move string is one word (in a positions file, what follows is a label)"
                )
            where = f"{self.name}: move {len(actions) + 1} ({c!r}) at character {pos}"
            if c not in _DIGITS:
                raise GameError(f"{where}: not a column digit 1..{self.width}")
            column = int(c)
            if not 1 <= column <= self.width:
                raise GameError(f"{where}: column {column} does not exist")
            if over:
                raise GameError(f"{where}: the game is already over")
            a = column - 1
            if heights[a] >= self.height:
                raise GameError(f"{where}: column {column} is full")
            cell = heights[a] * self.width + a
            p = len(actions) % 2
            board[cell] = p + 1
            stones[p] |= 1 << (a * stride + heights[a])
            key ^= zobrist[2 * cell + p]
            heights[a] += 1
            actions.append(a)
            if self._has_line(stones[p]):
                winner = p
            over = winner >= 0 or len(actions) == self.cells
        return actions, self._host_state(board, len(actions), winner, key, *stones)

    def _parse_grid(self, text: str) -> ConnectFourState:
        rows: list[list[int]] = [[]]
        for pos, c in enumerate(text, start=1):
            if c in "/\n\r":
                rows.append([])
            elif c.isspace():
                continue
            elif c.lower() in _CELL_CHARS:
                rows[-1].append(_CELL_CHARS[c.lower()])
            else:
                raise GameError(
                    f"{self.name}: bad character {c!r} at character {pos} "
                    "(expected x, o, . or - in a grid, or only digits in a move sequence)"
                )
        rows = [r for r in rows if r]
        if len(rows) != self.height:
            raise GameError(f"{self.name}: grid has {len(rows)} row(s), expected {self.height}")
        for i, row in enumerate(rows, start=1):
            if len(row) != self.width:
                raise GameError(f"{self.name}: row {i} has {len(row)} cells, expected {self.width}")
        grid = np.asarray(rows[::-1], np.int8)  # [H, W], row 0 = bottom
        for c in range(self.width):
            for r in range(1, self.height):
                if grid[r, c] and not grid[r - 1, c]:
                    raise GameError(
                        f"{self.name}: column {c + 1} has a stone in row "
                        f"{self.height - r} above an empty cell (rows counted from the top)"
                    )
        board = grid.reshape(-1)
        nx, no = int(np.sum(board == 1)), int(np.sum(board == 2))
        _, x, o = self._host_stones(board)
        x_line, o_line = self._has_line(x), self._has_line(o)
        check_turns(self.name, "grid", nx, no, x_line, o_line, f"{self.connect} in a row")
        return self._state_from_board(board)

    def _host_stones(self, board: np.ndarray) -> tuple[int, int, int]:
        """(Zobrist key of the stones, x's stones, o's stones) of a host board, as Python
        ints (stones in Pons's layout, as :meth:`_has_line` reads them)."""
        stride, zobrist = self.height + 1, self._host_zobrist
        key, stones = 0, [0, 0]
        for cell in np.flatnonzero(board).tolist():
            p = int(board[cell]) - 1
            key ^= zobrist[2 * cell + p]
            stones[p] |= 1 << ((cell % self.width) * stride + cell // self.width)
        return key, stones[0], stones[1]

    def _state_from_board(self, board: np.ndarray) -> ConnectFourState:
        """A consistent state (heights, winner, move count, Zobrist key) from a host board
        that obeys gravity and has at most one player with a line."""
        board = np.asarray(board, np.int8)
        key, x, o = self._host_stones(board)
        winner = 1 if self._has_line(o) else 0 if self._has_line(x) else -1
        return self._host_state(board, int(np.count_nonzero(board)), winner, key, x, o)

    def _host_state(
        self,
        board: np.ndarray,
        n: int,
        winner: int,
        key: int,
        x: int,
        o: int,
        heights: list[int] | None = None,
    ) -> ConnectFourState:
        """The state, numpy leaves, of a host board (int8[cells], obeying gravity) with
        ``n`` stones, its winner, the Zobrist key of its stones, the stones as ints and
        the stones per column (counted from the board when not given)."""
        if n % 2:
            key ^= self._host_side
        words = [key & 0xFFFFFFFF, key >> 32, 0, 0, 0, 0]
        if self._cell_bits is not None:  # the bitboards, where they fit in 64 bits
            words[2:] = [x & 0xFFFFFFFF, x >> 32, o & 0xFFFFFFFF, o >> 32]
        if heights is None:
            heights = np.count_nonzero(board.reshape(self.height, self.width), axis=0)
        return ConnectFourState(
            board=board,
            heights=np.asarray(heights, np.int8),
            num_moves=np.asarray(n, np.int32),
            winner=np.asarray(winner, np.int8),
            words=np.asarray(words, np.uint32),
        )

    def sample_positions(self) -> list[str]:
        """A dozen positions in move notation: the empty board, openings, and middle- and
        late-game positions from the public solvers' test sets (7x6 only)."""
        if (self.width, self.height, self.connect) != (7, 6, 4):
            return [""]
        return [
            "",
            "4",
            "44",
            "4453",
            "4455",
            "3246313",
            "44455554221",
            "2416615552",
            "274552224131661",
            "5455174361263362",
            "52753311433677442422121",
            "2252576253462244111563365343671351441",
        ]

    def format(self, state: ConnectFourState) -> str:
        """State -> grid, top row first, rows separated by ``/`` (``x`` = first player)."""
        grid = np.asarray(state.board).reshape(self.height, self.width)[::-1]
        return "/".join("".join(_SYMBOLS[int(v)] for v in row) for row in grid)

    def action_to_string(self, state: ConnectFourState, action: int) -> str:
        """The 1-based column digit, ``"1"``..``"W"``."""
        return str(int(action) + 1)

    def string_to_action(self, state: ConnectFourState, text: str) -> int:
        """A 1-based column digit -> action. Raises GameError when malformed or illegal."""
        t = text.strip()
        if len(t) != 1 or t not in _DIGITS or not 1 <= int(t) <= self.width:
            raise GameError(
                f"{self.name}: bad move {text!r}; expected a column digit 1..{self.width}"
            )
        action = int(t) - 1
        self._check_legal(state, action, text)
        return action
