"""Connect four (and its m,n,k-with-gravity variants) on a ``width`` x ``height`` board.

Rules: two players take turns dropping a stone into a column that is not full; it falls to
the lowest empty cell. The first to line up ``connect`` of their stones horizontally,
vertically or diagonally wins; if the board fills up first, the game is a draw. The default
is the classic 7 columns x 6 rows, connect 4. Player 0 (``x``) moves first.

Encoding:

* Action ``a`` in ``0..width-1`` drops a stone into column ``a``, counted from the left.
* Cell ``r * width + c`` is row ``r`` (0 = bottom) and column ``c`` (0 = left).
* :class:`ConnectFourState` holds ``board`` (int8[H*W]: 0 empty, 1 x, 2 o), ``heights``
  (int8[W], stones per column), ``num_moves`` (int32; the player to move is
  ``num_moves % 2``), ``winner`` (int8: -1 none, 0 x, 1 o) and ``words`` (uint32[6]: the
  Zobrist key, then x's and o's stones as bitboards in Pons's layout, two words each; all
  kept incrementally by ``step``; the bitboards stay zero where (H + 1) * W > 64).

Utility: the distance score of the public connect-four solvers (Pascal Pons, "Solving
Connect 4"), scaled to ``[-1, 1]``. With ``score_base = (cells + 1) // 2 + 1`` (22 on 7x6)
and ``max_score = score_base - connect`` (18 on 7x6), a player who wins having played ``k``
stones scores ``score_base - k``; the utility for player 0 is ``+score / max_score`` when
player 0 won, ``-score / max_score`` when player 1 won and ``0`` for a draw. Faster wins are
worth more; the sign is win/draw/loss. :meth:`ConnectFour.score_from_value` turns a value
back into the integer score. (When ``max_score`` would be below 1, no player can ever
connect, every game is a draw, and ``max_score`` is set to 1.)

Notation (host side, :meth:`ConnectFour.parse` / :meth:`ConnectFour.format`):

* move sequences as the public solvers write them: digits ``1..width``, column 1 leftmost,
  the first character is the first player's move, e.g. ``"4453"``; ``""`` or ``"start"`` is
  the empty board;
* a grid: ``height`` rows, top row first, ``width`` cells each from ``x``, ``o``, ``.``
  (``-`` is also empty; case-insensitive; spaces ignored), rows separated by ``/`` or
  newlines: ``"......./......./......./......./...o.../...xx.."``. The side to move follows
  from the counts.

A move is written as its 1-based column digit, ``"4"``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import bitboard
from jaxgames.bitboard import Bits
from jaxgames.game import Game, GameError, two_player_utility, zobrist_table

_DEFAULTS = {"width": 7, "height": 6, "connect": 4}
_MAX_WIDTH = 9  # column digits stay single characters
_MAX_HEIGHT = 127  # heights are int8
_ZOBRIST_SEED = 0xC4
_CELL_CHARS = {"x": 1, "o": 2, ".": 0, "-": 0}
_SYMBOLS = ".xo"
_DIGITS = "0123456789"
_GRID_CHARS = "xo.-/\n\r"  # any of these: a grid, else a move sequence
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


class ConnectFour(Game):
    """Connect four on any board (7x6 by default); player 0 (``x``) moves first.

    Args:
        width: columns, 1..9 (so a column is one digit in move sequences).
        height: rows, 1..127.
        connect: stones in a line needed to win, 2..max(width, height).

    Attributes:
        score_base: ``(width * height + 1) // 2 + 1``; a win with ``k`` stones scores
            ``score_base - k``.
        max_score: ``score_base - connect`` (at least 1), the score of the fastest win; the
            utility is ``score / max_score``.
        lines: ``int32[L, connect]`` every line of the board (numpy).
    """

    name = "connect4"
    num_players = 2
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True

    def __init__(self, width: int = 7, height: int = 6, connect: int = 4) -> None:
        for key, value in (("width", width), ("height", height), ("connect", connect)):
            if not isinstance(value, int | np.integer) or isinstance(value, bool):
                raise GameError(f"connect4: {key} must be an integer, got {value!r}")
        width, height, connect = int(width), int(height), int(connect)
        if not 1 <= width <= _MAX_WIDTH:
            raise GameError(f"connect4: width {width} is out of range 1..{_MAX_WIDTH}")
        if not 1 <= height <= _MAX_HEIGHT:
            raise GameError(f"connect4: height {height} is out of range 1..{_MAX_HEIGHT}")
        if not 2 <= connect <= max(width, height):
            raise GameError(
                f"connect4: connect {connect} is out of range 2..{max(width, height)} "
                f"(max of width and height)"
            )
        self.width, self.height, self.connect = width, height, connect
        given = {"width": width, "height": height, "connect": connect}
        self.params: dict[str, Any] = {k: v for k, v in given.items() if v != _DEFAULTS[k]}
        self.cells = width * height
        self.num_actions = width
        self.max_game_length = self.cells
        self.score_base = (self.cells + 1) // 2 + 1
        self.max_score = max(1, self.score_base - connect)
        self.lines = _all_lines(width, height, connect)  # [L, connect]
        self._through = _lines_through(self.lines, self.cells)  # [cells, M, connect]
        self._zobrist = zobrist_table(_ZOBRIST_SEED, self.cells, 2)  # [cells, 2, 2]
        self._zobrist_side = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]: o to move
        # the centre column(s) of the board: a bonus per stone in the heuristic
        centre = np.zeros((width,), np.float32)
        centre[(width - 1) // 2] = centre[width // 2] = 1.0
        self._centre_bonus = np.tile(centre, (height, 1))  # [H, W]
        # bitboards (Pons's layout, below) where (H + 1) * W bits fit in 64
        self._cell_bits = None
        if (height + 1) * width <= 64:
            col, row = np.arange(self.cells) % width, np.arange(self.cells) // width
            self._cell_bits = (col * (height + 1) + row).astype(np.int32)  # [cells]
            self._board_bits = sum(1 << int(b) for b in self._cell_bits)
            # per direction (the bit step along a line): the first bits of its lines
            self._line_starts: dict[int, int] = {}
            for line in self.lines:
                bits = sorted(int(self._cell_bits[c]) for c in line)
                step = bits[1] - bits[0] if len(bits) > 1 else 1
                self._line_starts[step] = self._line_starts.get(step, 0) | 1 << bits[0]
            centre_cells = np.flatnonzero(self._centre_bonus.reshape(-1))
            self._centre_bits = sum(1 << int(self._cell_bits[c]) for c in centre_cells)
        self._centre_order = -np.abs(np.arange(width) - (width - 1) / 2).astype(np.float32)
        # host side (parse): stones as Python ints in Pons's layout whatever the board's
        # size (a spare bit atop each column, so no line wraps), Zobrist keys as 64-bit ints
        self._column_of = {str(c + 1): c for c in range(width)}
        self._host_zobrist = [int(z[0]) | int(z[1]) << 32 for z in self._zobrist.reshape(-1, 2)]
        self._host_side = int(self._zobrist_side[0]) | int(self._zobrist_side[1]) << 32
        self.move_names = tuple(str(c + 1) for c in range(width))  # FixedMoveNames

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> ConnectFourState:
        """The empty board, ``x`` to move."""
        return ConnectFourState(
            board=jnp.zeros((self.cells,), jnp.int8),
            heights=jnp.zeros((self.width,), jnp.int8),
            num_moves=jnp.int32(0),
            winner=jnp.int8(-1),
            words=jnp.zeros((6,), jnp.uint32),
        )

    def player(self, state: ConnectFourState) -> jax.Array:
        """int32: 0 when ``x`` is to move, 1 when ``o`` is."""
        return (state.num_moves % 2).astype(jnp.int32)

    def legal_mask(self, state: ConnectFourState) -> jax.Array:
        """bool[W]: the columns that are not full; all False when the game is over."""
        return (state.heights < self.height) & ~self.terminal(state)

    def step(self, state: ConnectFourState, action: jax.Array) -> ConnectFourState:
        """Drop a stone of the player to move into column ``action``.

        Only the lines through the new cell are checked for a win. Any action traces
        safely; dropping into a full column or stepping a finished game gives an
        unspecified state of the same shapes.
        """
        p = self.player(state)  # int32[]
        piece = (p + 1).astype(jnp.int8)
        col = jnp.asarray(action, jnp.int32)
        cell = state.heights[col].astype(jnp.int32) * self.width + col  # int32[]
        # jnp.asarray: a parsed state has numpy leaves, which have no .at (a no-op when traced)
        board = jnp.asarray(state.board).at[cell].set(piece, mode="drop")  # [cells]
        key = jnp.asarray(self._zobrist)[cell, p] ^ jnp.asarray(self._zobrist_side)  # [2]
        words = state.words ^ jnp.concatenate([key, jnp.zeros((4,), jnp.uint32)])
        if self._cell_bits is not None:  # the mover's bitboard gains the stone; a line of
            # the mover anywhere is new (the game would have ended before)
            bit = col * (self.height + 1) + state.heights[col].astype(jnp.int32)
            x, o = self._stones(state)
            mine = bitboard.or_(bitboard.choose(p == 0, x, o), bitboard.square(bit))
            x, o = bitboard.choose(p == 0, mine, x), bitboard.choose(p == 0, o, mine)
            words = jnp.concatenate([words[:2], jnp.stack([*x, *o])])
            win = self._connects(mine)
        else:
            through = jnp.asarray(self._through)[cell]  # [M, connect]
            # one always-empty cell past the end stands for the padding index, so the
            # gather needs no bounds handling
            padded = jnp.concatenate([board, jnp.zeros((1,), board.dtype)])  # [cells + 1]
            stones = padded.at[through].get(mode="promise_in_bounds")  # [M, connect]
            win = jnp.any(jnp.all(stones == piece, axis=1))
        return ConnectFourState(
            board=board,
            heights=jnp.asarray(state.heights).at[col].add(jnp.int8(1), mode="drop"),
            num_moves=state.num_moves + 1,
            winner=jnp.where(win, p.astype(jnp.int8), state.winner),
            words=words,
        )

    def terminal(self, state: ConnectFourState) -> jax.Array:
        """bool: someone connected or the board is full."""
        return (state.winner >= 0) | (state.num_moves >= self.cells)

    def utility(self, state: ConnectFourState) -> jax.Array:
        """float32[2]: ``[u, -u]``, ``u = +-(score_base - k) / max_score`` for a win by
        player 0 (+) or 1 (-) with ``k`` stones of the winner on the board; 0 otherwise."""
        k = (state.num_moves + 1) // 2  # the winner made the last move
        score = (self.score_base - k).astype(jnp.float32) / self.max_score
        u = jnp.where(state.winner == 0, score, jnp.where(state.winner == 1, -score, 0.0))
        return two_player_utility(u)

    def evaluate(self, state: ConnectFourState) -> jax.Array:
        """float32[2]: ``[e, -e]``, a threat heuristic off terminal states.

        ``raw = sum over lines of w(x stones) [line holds no o] - w(o stones) [no x]
        + (x stones - o stones in the centre column(s))`` with ``w(n) = n * n``, and
        ``e = tanh(raw / 16) / (2 * max_score)``. So ``|e| <= 1 / (2 * max_score)``,
        strictly less than ``1 / max_score``, the smallest value of a decided game: a
        heuristic never outranks a proven win or loss. At terminal states it is ``utility``.
        """
        if self._cell_bits is not None:
            raw = self._raw_heuristic_bits(state)
        else:
            grid = state.board.reshape(self.height, self.width)  # [H, W]
            x, o = (grid == 1).astype(jnp.int32), (grid == 2).astype(jnp.int32)

            def weight(n):  # n * n for an open line of n < connect stones (a full line: 0)
                return jnp.where(n < self.connect, n * n, 0)

            raw = sum(
                jnp.sum(jnp.where(no == 0, weight(nx), 0) - jnp.where(nx == 0, weight(no), 0))
                for nx, no in zip(self._line_sums(x), self._line_sums(o), strict=True)
            )
            raw = raw + jnp.sum((x - o) * jnp.asarray(self._centre_bonus, jnp.int32))
        e = jnp.tanh(raw.astype(jnp.float32) / 16.0) / (2.0 * self.max_score)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    # ------------------------------------------------------------------ lines as slices
    def _starts(self) -> tuple[tuple[int, int, int, int], ...]:
        """Per direction: (rows, cols) of the grid of line starts and the (row, col) step
        of a line; directions whose lines do not fit on the board are left out."""
        k, h, w = self.connect, self.height, self.width
        dirs = ((h, w - k + 1, 0, 1), (h - k + 1, w, 1, 0))  # -, |
        dirs += ((h - k + 1, w - k + 1, 1, 1), (h - k + 1, w - k + 1, 1, -1))  # /, \
        return tuple(d for d in dirs if d[0] > 0 and d[1] > 0)

    def _line_sums(self, grid: jax.Array) -> list[jax.Array]:
        """Per direction, ``[rows, cols]``: the sum of ``grid [H, W]`` over each line of
        ``connect`` cells, indexed by where the line starts (shifted slices of the grid: no
        gathers, no matrix products, so the work fuses into a few elementwise loops)."""
        out = []
        for rows, cols, dr, dc in self._starts():
            c0 = 0 if dc >= 0 else self.connect - 1  # a \ line starts at its right end
            out.append(
                sum(
                    grid[i * dr : i * dr + rows, c0 + i * dc : c0 + i * dc + cols]
                    for i in range(self.connect)
                )
            )
        return out

    def _through_cells(self, per_line: list[jax.Array]) -> jax.Array:
        """``[H, W]``: for each cell, the sum of ``per_line`` (as from :meth:`_line_sums`)
        over the lines through it (the transpose of :meth:`_line_sums`)."""
        k = self.connect
        total = jnp.zeros((self.height, self.width), per_line[0].dtype)
        for values, (_, _, dr, dc) in zip(per_line, self._starts(), strict=True):
            c0 = 0 if dc >= 0 else k - 1
            pad = jnp.pad(values, k - 1)  # pad[R, C] = values[R - k + 1, C - k + 1]
            for i in range(k):  # the cell is the i-th of the line that starts i steps back
                r, c = k - 1 - i * dr, k - 1 - c0 - i * dc
                total = total + pad[r : r + self.height, c : c + self.width]
        return total

    def winning_cells(self, state: ConnectFourState) -> jax.Array:
        """bool[2, H*W]: the empty cells where a stone of ``x`` (row 0) or ``o`` (row 1)
        would complete a line."""
        if self._cell_bits is not None:
            x, o, free = self._bitboards(state, jnp.int8(1))
            rows = [self._unpack(self._winning(side, free)) for side in (x, o)]
            return jnp.stack(rows)
        grid = state.board.reshape(self.height, self.width)  # [H, W]
        rows = [self._ready_cells(grid, piece, self.connect - 1, 1) > 0 for piece in (1, 2)]
        return jnp.stack(rows).reshape(2, self.cells) & (state.board == 0)

    def _ready_cells(self, grid: jax.Array, piece: int | jax.Array, stones: int, empty: int):
        """int32[H, W]: per cell, the lines through it holding ``stones`` stones of ``piece``
        and ``empty`` empty cells."""
        mine = self._line_sums((grid == piece).astype(jnp.int32))
        free = self._line_sums((grid == 0).astype(jnp.int32))
        pairs = zip(mine, free, strict=True)
        ready = [((m == stones) & (f == empty)).astype(jnp.int32) for m, f in pairs]
        return self._through_cells(ready)

    # ------------------------------------------------------------------ bitboards
    # Pons's layout: bit ``col * (H + 1) + row``, an always-empty row on top of each column,
    # so that a line running off the board's top or across two columns meets an empty bit.
    # Used where (H + 1) * W <= 64 (7x6: 49 bits), as two uint32 words.
    def _bitboards(self, state: ConnectFourState, piece: jax.Array) -> tuple[Bits, Bits, Bits]:
        """The stones of ``piece``, of the other side, and the empty cells, as bitboards."""
        x, o = self._stones(state)
        is_x = piece == 1
        mine, theirs = bitboard.choose(is_x, x, o), bitboard.choose(is_x, o, x)
        free = bitboard.and_(bitboard.const(self._board_bits), bitboard.not_(bitboard.or_(x, o)))
        return mine, theirs, free

    @staticmethod
    def _stones(state: ConnectFourState) -> tuple[Bits, Bits]:
        """x's and o's stones as bitboards (from ``words``)."""
        w = state.words
        return (w[2], w[3]), (w[4], w[5])

    def _connects(self, stones: Bits) -> jax.Array:
        """bool: ``stones`` hold a line of ``connect`` in some direction.

        The directions' line bits end in one reduction (``jnp.any`` over a stack), not in a
        chain of ORs: XLA copies an elementwise chain into every consumer of the state's
        winner (the search has a dozen), where a reduction is computed once.
        """
        lines = []
        for step in self._line_starts:
            line = stones
            for j in range(1, self.connect):
                line = bitboard.and_(line, bitboard.shift(stones, -j * step))
            lines += [line[0], line[1]]
        return jnp.any(jnp.stack(lines) != 0)

    def _winning(self, stones: Bits, free: Bits) -> Bits:
        """The ``free`` bits that complete a line of ``connect`` with ``stones`` (for each
        direction and each place of the empty bit in the line, the AND of the shifted
        stones)."""
        k, out = self.connect, bitboard.const(0)
        for step in self._line_starts:  # the directions in which a line fits
            # bit b holds stones[b + j * step]; a line fits, so |j * step| < 64
            ahead = {j: bitboard.shift(stones, -j * step) for j in range(1 - k, k) if j != 0}
            for i in range(k):  # the empty bit is the i-th of the line
                offsets = [j for j in range(-i, k - i) if j != 0]
                line = ahead[offsets[0]]
                for j in offsets[1:]:
                    line = bitboard.and_(line, ahead[j])
                out = bitboard.or_(out, line)
        return bitboard.and_(out, free)

    def _raw_heuristic_bits(self, state: ConnectFourState) -> jax.Array:
        """int32: the heuristic's ``raw`` sum on bitboards.

        Per direction, the stones of a side in the ``connect`` cells from each line start
        are counted bit-sliced: a ripple adder over the shifted stones, so bit ``b`` of plane
        ``i`` is bit ``i`` of the count ``n`` of the line starting at ``b``. The lines
        holding no opponent stone add ``n * n = sum_i 4^i b_i + sum_{i<j} 2^(i+j+1) b_i b_j``,
        one popcount per term. A full line (``n = connect``) must add 0: with ``connect`` a
        power of two the adder keeps ``log2(connect)`` planes, so ``n = connect`` wraps to
        0 for free (for four in a row: 3 popcounts, where masking each ``n`` took 9 ANDs);
        otherwise the full lines are taken off again.
        """
        x, o, _ = self._bitboards(state, jnp.int8(1))
        k, raw = self.connect, jnp.int32(0)
        wraps = k & (k - 1) == 0  # a power of two
        width = k.bit_length() - 1 if wraps else k.bit_length()  # planes of the counter
        for step, starts in self._line_starts.items():
            for own, other, sign in ((x, o, 1), (o, x, -1)):
                planes: list[Bits] = []
                blocked = bitboard.const(0)
                for j in range(k):
                    carry = bitboard.shift(own, -j * step)  # bit b: own[b + j * step]
                    blocked = bitboard.or_(blocked, bitboard.shift(other, -j * step))
                    for i, plane in enumerate(planes):
                        planes[i], carry = bitboard.xor(plane, carry), bitboard.and_(plane, carry)
                    if len(planes) < width:  # else the carry out of the top plane is dropped
                        planes.append(carry)
                open_lines = bitboard.and_(bitboard.const(starts), bitboard.not_(blocked))
                square = jnp.int32(0)
                for i, plane_i in enumerate(planes):
                    mine = bitboard.and_(open_lines, plane_i)
                    square = square + 4**i * bitboard.count(mine)
                    for j in range(i + 1, len(planes)):
                        both = bitboard.and_(mine, planes[j])
                        square = square + 2 ** (i + j + 1) * bitboard.count(both)
                if not wraps:
                    full = open_lines
                    for i, plane in enumerate(planes):
                        full = bitboard.and_(full, plane if k >> i & 1 else bitboard.not_(plane))
                    square = square - k * k * bitboard.count(full)
                raw = raw + sign * square
        centre = bitboard.const(self._centre_bits)
        return (
            raw
            + bitboard.count(bitboard.and_(x, centre))
            - bitboard.count(bitboard.and_(o, centre))
        )

    def _unpack(self, bits: Bits) -> jax.Array:
        """bool[H*W] from a bitboard in the cell order of ``board``."""
        index = jnp.asarray(self._cell_bits)  # [cells]
        word = jnp.where(index < 32, bits[0], bits[1])
        return ((word >> (index & 31).astype(jnp.uint32)) & 1) == 1

    def losing_moves(self, state: ConnectFourState) -> jax.Array:
        """bool[W]: the moves that let the opponent connect with their next stone (Pons's
        "non-losing moves", part 10): where the opponent has a connecting cell the mover
        can play, every other move; and a move right under an opponent's connecting cell.
        None where the mover connects at once (that ends the game first), and none on
        boards over 64 bits (no claim there: nothing is pruned)."""
        if self._cell_bits is None:
            return jnp.zeros((self.width,), jnp.bool_)
        piece = (self.player(state) + 1).astype(jnp.int8)
        heights = state.heights.astype(jnp.int32)  # [W]
        open_column = heights < self.height
        mine, theirs, free = self._bitboards(state, piece)
        bit = jnp.arange(self.width) * (self.height + 1) + heights  # [W]: landing bits
        move, above = bitboard.square(bit), bitboard.square(bit + 1)
        win_mine, win_theirs = self._winning(mine, free), self._winning(theirs, free)
        wins = bitboard.any_(bitboard.and_(win_mine, move)) & open_column
        forced = bitboard.any_(bitboard.and_(win_theirs, move)) & open_column  # must block
        under = bitboard.any_(bitboard.and_(win_theirs, above))
        losing = jnp.where(jnp.any(forced), ~forced, under) & open_column
        return jnp.where(jnp.any(wins), False, losing)

    def move_order_scores(self, state: ConnectFourState) -> jax.Array:
        """float32[W], in this order (Pons, "Solving Connect 4", parts 5, 9 and 10):

        * a move that connects (``2e5``), then one that blocks the opponent's connection
          (``1e5``): positive, so searched before the search's own orderings;
        * the rest by the mover's connecting cells after the move (the empty cells that
          would complete a line of theirs), centre columns breaking ties
          (``-|col - centre|``), all below 0;
        * last, far below, a move that gives the opponent a connecting cell right above it.
        """
        piece = (self.player(state) + 1).astype(jnp.int8)
        heights = state.heights.astype(jnp.int32)  # [W]
        open_column = heights < self.height  # [W]
        if self._cell_bits is not None:
            mine, theirs, free = self._bitboards(state, piece)
            bit = jnp.arange(self.width) * (self.height + 1) + heights  # [W]: landing bits
            move, above = bitboard.square(bit), bitboard.square(bit + 1)  # [W] each
            win_mine, win_theirs = self._winning(mine, free), self._winning(theirs, free)
            wins = bitboard.any_(bitboard.and_(win_mine, move))
            blocks = bitboard.any_(bitboard.and_(win_theirs, move))
            under = bitboard.any_(bitboard.and_(win_theirs, above)) & open_column
            after = self._winning(
                bitboard.or_(mine, move), bitboard.and_(free, bitboard.not_(move))
            )
            threats = bitboard.count(after)  # [W]
        else:  # boards over 64 bits: the same from line sums, one board per move
            grid = state.board.reshape(self.height, self.width)  # [H, W]
            empty = grid == 0
            row = jnp.arange(self.height)[:, None]
            landing = (row == heights[None, :]) & empty  # [H, W]: one cell per open column
            mine = (self._ready_cells(grid, piece, self.connect - 1, 1) > 0) & empty
            theirs = (self._ready_cells(grid, 3 - piece, self.connect - 1, 1) > 0) & empty
            wins, blocks = jnp.any(mine & landing, 0), jnp.any(theirs & landing, 0)
            under = jnp.any(theirs & (row == heights[None, :] + 1), 0)

            def threats_after(col):
                placed = jnp.where(landing & (jnp.arange(self.width) == col), piece, grid)
                ready = self._ready_cells(placed, piece, self.connect - 1, 1) > 0
                return jnp.sum(ready & (placed == 0), dtype=jnp.int32)

            threats = jax.vmap(threats_after)(jnp.arange(self.width))
        rest = 4.0 * (threats - self.cells).astype(jnp.float32) + jnp.asarray(self._centre_order)
        score = jnp.where(wins, 2e5, jnp.where(blocks, 1e5, rest))
        return score - jnp.where(under & ~wins, 1.5e6, 0.0)

    # Measured in benchmarks/alphabeta.py (ordering section): with the ordering above, killer
    # moves, the history heuristic and iterative deepening each search more nodes, not fewer;
    # and 128 lanes searched depth 6 and 8 and the late-game test set faster than 256 (by 8%,
    # 24% and 20%; 4% slower at depth 4), and 256 faster than 512; last_ply made bulk search
    # 38-54% faster at depths 4-8 (one device) and the late-game solve 7-14% slower (on
    # Othello, whose 65 action slots hold about 10 legal moves, it was 28% slower at depth 4);
    # the transposition table made depths 4, 5 and 7 slower (by 14%, 9% and 10%: it saved
    # 1%, 5% and 19% of the nodes), 6 and 8 no faster (8: 29% fewer nodes), and the
    # late-game solve faster

    def value_bounds(self, state: ConnectFourState) -> jax.Array:
        """float32[2]: the mover wins at best with their next stone and loses at worst to the
        opponent's next one (Pons's score bound): ``high = (score_base - k) / max_score`` with
        ``k = max(stones of the mover + 1, connect)``, ``low`` the same for the opponent. Both
        lie at least ``1 / (2 * max_score)`` from 0, beyond every EVAL and the draw."""
        n = state.num_moves
        mine, theirs = n // 2 + 1, (n + 1) // 2 + 1  # stones of each side after its next move
        floor = 0.5 / self.max_score
        high = (self.score_base - jnp.maximum(mine, self.connect)) / self.max_score
        low = (self.score_base - jnp.maximum(theirs, self.connect)) / self.max_score
        return jnp.stack([jnp.minimum(-low, -floor), jnp.maximum(high, floor)]).astype(jnp.float32)

    def plies_left(self, state: ConnectFourState) -> jax.Array:
        """The empty cells: one stone a ply."""
        return jnp.int32(self.cells) - state.num_moves

    def hash(self, state: ConnectFourState) -> jax.Array:
        """uint32[2]: the Zobrist key (cells x stones, plus a key when ``o`` is to move)."""
        return state.words[:2]

    # ------------------------------------------------------------------ scores
    score_meaning = (
        "the public solvers' distance score for to_move: positive, a win with that many "
        "stones to spare (22 - stones played by the winner on 7x6), negative a loss, 0 a "
        "draw or nothing proven within the depth"
    )

    def score_from_value(self, value: float) -> int:
        """The Pons distance score of a value on the utility scale (same player's side)."""
        return int(round(float(value) * self.max_score))

    # ------------------------------------------------------------------ host side
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
        if nx not in (no, no + 1):
            raise GameError(
                f"{self.name}: grid has {nx} x and {no} o; x moves first, so the number of "
                "x must equal the number of o or exceed it by one"
            )
        _, x, o = self._host_stones(board)
        x_line, o_line = self._has_line(x), self._has_line(o)
        if x_line and o_line:
            raise GameError(f"{self.name}: both x and o have {self.connect} in a row")
        if x_line and nx != no + 1:
            raise GameError(f"{self.name}: x has {self.connect} in a row but o moved after it")
        if o_line and nx != no:
            raise GameError(f"{self.name}: o has {self.connect} in a row but x moved after it")
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
