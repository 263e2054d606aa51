"""Tic-tac-toe (noughts and crosses) on a 3x3 board.

Rules: two players take turns placing their mark on an empty square; X (player 0) moves
first, O (player 1) second. The first to get three marks in a row, column or diagonal wins;
if all nine squares fill up without a line, the game is a draw.

Encoding:

* Action ``a`` in ``0..8`` marks square ``a``, row-major from the top-left::

      0 1 2
      3 4 5
      6 7 8

* :class:`TicTacToeState` holds ``board`` (int8[9]: 0 empty, 1 X, 2 O), ``num_moves``
  (int32, marks on the board; the player to move is ``num_moves % 2``), ``winner`` (int8:
  -1 none, 0 X, 1 O) and ``hash`` (uint32[2], the Zobrist key, kept incrementally).
* Utility ``[u, -u]`` with ``u = +1`` when X wins, ``-1`` when O wins, ``0`` for a draw.

Notation (host side, :meth:`TicTacToe.parse` / :meth:`TicTacToe.format`):

* a board of 9 cells from ``x``, ``o``, ``.`` (``-`` is also empty; case-insensitive),
  rows optionally separated by ``/`` or newlines (then exactly 3 rows of 3 cells), spaces
  ignored: ``"x.o/.x./..o"``. The side to move follows from the counts (X moves first);
* a move list of square digits played in order from the empty board: ``"4 0 8"`` or
  ``"408"``;
* ``""`` or ``"start"`` for the empty board.

A move is written as its square digit, ``"4"``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError, two_player_utility, zobrist_table
from jaxgames.games.boards import check_turns

# The 8 lines of three squares: 3 rows, 3 columns, 2 diagonals.
LINES: np.ndarray = np.array(
    [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
        [0, 4, 8],
        [2, 4, 6],
    ],
    dtype=np.int32,
)  # [8, 3]

_ZOBRIST_SEED = 0x7A7
ZOBRIST: np.ndarray = zobrist_table(_ZOBRIST_SEED, 9, 2)  # [9, 2, 2]: square, player, word
ZOBRIST_SIDE: np.ndarray = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]: O to move

# Host side (parse): the lines as bit masks of squares, the keys as 64-bit Python ints.
_LINE_MASKS = tuple(sum(1 << int(i) for i in line) for line in LINES)
_HOST_ZOBRIST = [[int(z[0]) | int(z[1]) << 32 for z in square] for square in ZOBRIST]
_HOST_SIDE = int(ZOBRIST_SIDE[0]) | int(ZOBRIST_SIDE[1]) << 32

_CELL_CHARS = {"x": 1, "o": 2, ".": 0, "-": 0}
_SYMBOLS = ".xo"
_DIGITS = "0123456789"
_BOARD_CHARS = "xo.-/\n\r"  # any of these: a board, else a move list


class TicTacToeState(NamedTuple):
    """A tic-tac-toe position."""

    board: jax.Array  # int8[9]: 0 empty, 1 X, 2 O
    num_moves: jax.Array  # int32[]: marks on the board
    winner: jax.Array  # int8[]: -1 none, 0 X, 1 O
    hash: jax.Array  # uint32[2]: Zobrist key


class TicTacToe(Game):
    """Tic-tac-toe on 3x3, the squares numbered 0-8 row by row; X (player 0) moves first."""

    name = "tictactoe"
    num_players = 2
    num_actions = 9
    move_names = tuple(str(a) for a in range(9))  # FixedMoveNames: the square digits
    moves_are_places = True  # PlaceMoves: an action is a point, the same wherever played
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    max_game_length = 9

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> TicTacToeState:
        """The empty board, X to move."""
        return TicTacToeState(
            board=jnp.zeros((9,), jnp.int8),
            num_moves=jnp.int32(0),
            winner=jnp.int8(-1),
            hash=jnp.zeros((2,), jnp.uint32),
        )

    def player(self, state: TicTacToeState) -> jax.Array:
        """int32: 0 when X is to move, 1 when O is."""
        return (state.num_moves % 2).astype(jnp.int32)

    def legal_mask(self, state: TicTacToeState) -> jax.Array:
        """bool[9]: the empty squares; all False when the game is over."""
        return (state.board == 0) & ~self.terminal(state)

    def step(self, state: TicTacToeState, action: jax.Array) -> TicTacToeState:
        """Mark square ``action`` for the player to move (any action traces safely)."""
        p = self.player(state)  # int32[]
        piece = (p + 1).astype(jnp.int8)
        # jnp.asarray: a parsed state has numpy leaves, which have no .at (a no-op when traced)
        board = jnp.asarray(state.board).at[action].set(piece)  # [9]
        win = jnp.any(jnp.all(board[LINES] == piece, axis=1))
        key = jnp.asarray(ZOBRIST)[action, p] ^ jnp.asarray(ZOBRIST_SIDE)  # [2]
        return TicTacToeState(
            board=board,
            num_moves=state.num_moves + 1,
            winner=jnp.where(win, p.astype(jnp.int8), state.winner),
            hash=state.hash ^ key,
        )

    def terminal(self, state: TicTacToeState) -> jax.Array:
        """bool: a line is complete or the board is full."""
        return (state.winner >= 0) | (state.num_moves >= 9)

    def utility(self, state: TicTacToeState) -> jax.Array:
        """float32[2]: ``[u, -u]``, u = +1 X won, -1 O won, 0 otherwise (draw or not over)."""
        u = jnp.where(state.winner == 0, 1.0, jnp.where(state.winner == 1, -1.0, 0.0))
        return two_player_utility(u)

    def evaluate(self, state: TicTacToeState) -> jax.Array:
        """float32[2]: ``[e, -e]`` with ``e = (open_x - open_o) / 9`` off terminal states.

        ``open_x`` is the number of the 8 lines holding no O (still winnable by X), ``open_o``
        the number holding no X; so ``|e| <= 8/9 < 1``. At terminal states it is ``utility``.
        """
        lines = state.board[LINES]  # [8, 3]
        open_x = jnp.sum(~jnp.any(lines == 2, axis=1))
        open_o = jnp.sum(~jnp.any(lines == 1, axis=1))
        e = (open_x - open_o).astype(jnp.float32) / 9.0
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    def plies_left(self, state: TicTacToeState) -> jax.Array:
        """The empty squares: one mark a ply."""
        return jnp.int32(9) - state.num_moves

    def hash(self, state: TicTacToeState) -> jax.Array:
        """uint32[2]: the Zobrist key (squares x marks, plus a key when O is to move)."""
        return state.hash

    # ------------------------------------------------------------------ host side
    position_formats = (
        ("board: rows from the top, '/' between rows; x, o, and . or - empty", "x.o/.x./..o"),
        ("move list: the squares played from the start, 0-8 row by row, no spaces", "480"),
        ("the empty board", "start"),
    )

    def parse(self, text: str) -> TicTacToeState:
        """A board string, a move list of square digits, or ``""``/``"start"`` -> state.

        Text holding any of ``x o . - /`` or a line break is read as a board, other text as
        a move list (square digits, spaces and commas). The state's leaves are numpy arrays
        (host memory, stacked into batches without a device transfer per field).

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self._state_from_board([0] * 9)
        if not any(c.lower() in _BOARD_CHARS for c in stripped):
            return self._parse_moves(stripped)
        if any(c in _DIGITS for c in stripped):
            raise GameError(
                f"{self.name}: {stripped!r} mixes square digits and board marks: a move list "
                "holds only the digits of squares, a board only x, o, . and - (rows split by /)"
            )
        return self._parse_board(text)

    def _parse_moves(self, text: str) -> TicTacToeState:
        board = [0] * 9
        stones = [0, 0]  # each player's squares as bits
        move = 0
        over = False
        for pos, c in enumerate(text, start=1):
            if c.isspace():  # "048 1" is the move list 048 and a label, never 0481
                raise GameError(
                    f"{self.name}: move list {text!r} has a space at character {pos}; a move "
                    "list is one word (in a positions file, what follows is a label)"
                )
            if c == ",":
                continue
            move += 1
            where = f"{self.name}: move {move} ({c!r}) at character {pos}"
            if c not in _DIGITS:
                raise GameError(f"{where}: not a square digit 0-8")
            square = int(c)
            if square > 8:
                raise GameError(f"{where}: square {square} does not exist (squares are 0-8)")
            if over:
                raise GameError(f"{where}: the game is already over")
            if board[square]:
                raise GameError(f"{where}: square {square} is taken")
            p = (move - 1) % 2
            board[square] = 1 + p
            stones[p] |= 1 << square
            over = _has_line(stones[p]) or move == 9
        return self._state_from_board(board)

    def _parse_board(self, text: str) -> TicTacToeState:
        cells: list[int] = []
        rows: list[int] = [0]  # cells per row
        for pos, c in enumerate(text, start=1):
            if c in "/\n\r":
                rows.append(0)
            elif c.isspace():
                continue
            elif c.lower() in _CELL_CHARS:
                cells.append(_CELL_CHARS[c.lower()])
                rows[-1] += 1
            else:
                raise GameError(
                    f"{self.name}: bad character {c!r} at character {pos} (expected x, o, . or -)"
                )
        rows = [n for n in rows if n]
        if len(rows) > 1:
            if len(rows) != 3:
                raise GameError(f"{self.name}: board has {len(rows)} row(s), expected 3")
            for i, n in enumerate(rows, start=1):
                if n != 3:
                    raise GameError(f"{self.name}: row {i} has {n} cells, expected 3")
        if len(cells) != 9:
            raise GameError(f"{self.name}: board has {len(cells)} cells, expected 9")
        x_line = any(all(cells[i] == 1 for i in line) for line in LINES)
        o_line = any(all(cells[i] == 2 for i in line) for line in LINES)
        check_turns(
            self.name, "board", cells.count(1), cells.count(2), x_line, o_line, "three in a row"
        )
        return self._state_from_board(cells)

    def _state_from_board(self, cells: list[int]) -> TicTacToeState:
        """A consistent state (winner, move count, Zobrist key) from a host board."""
        n = key = 0
        for square, piece in enumerate(cells):
            if piece:
                n += 1
                key ^= _HOST_ZOBRIST[square][piece - 1]
        if n % 2:
            key ^= _HOST_SIDE
        return TicTacToeState(
            board=np.asarray(cells, np.int8),
            num_moves=np.asarray(n, np.int32),
            winner=np.asarray(_winner(cells), np.int8),
            hash=np.asarray([key & 0xFFFFFFFF, key >> 32], np.uint32),
        )

    def sample_positions(self) -> list[str]:
        """A few positions as boards: the empty board, openings and a forced win."""
        return [".../.../...", ".../.x./...", "x../.o./...", "xo./.x./...", "xx./oo./..."]

    def format(self, state: TicTacToeState) -> str:
        """State -> ``"x.o/.x./..o"`` (rows top to bottom, separated by ``/``)."""
        board = np.asarray(state.board)
        return "/".join(
            "".join(_SYMBOLS[int(v)] for v in board[r * 3 : r * 3 + 3]) for r in range(3)
        )

    def action_to_string(self, state: TicTacToeState, action: int) -> str:
        """The square digit ``"0"``..``"8"``."""
        return str(int(action))

    def string_to_action(self, state: TicTacToeState, text: str) -> int:
        """A square digit -> action. Raises GameError when malformed or illegal."""
        t = text.strip()
        if len(t) != 1 or t not in _DIGITS:
            raise GameError(f"{self.name}: bad move {text!r}; expected a square digit 0-8")
        action = int(t)
        self._check_legal(state, action, text)
        return action


def _has_line(stones: int) -> bool:
    """Host-side: the squares ``stones`` (bit ``i``: square ``i``) complete a line."""
    return any(stones & mask == mask for mask in _LINE_MASKS)


def _winner(cells: list[int]) -> int:
    """Host-side: -1 no line, 0 X has a line, 1 O has a line (X checked first)."""
    for piece in (1, 2):
        if _has_line(sum(1 << i for i, c in enumerate(cells) if c == piece)):
            return piece - 1
    return -1
