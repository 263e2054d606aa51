"""The connect-four evaluation (a threat heuristic), the connecting cells, the losing moves
and the move ordering, on bitboards where the board fits in 64 bits and on line sums (shifted
slices of the grid) elsewhere.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxgames import bitboard
from jaxgames.game import two_player_utility
from jaxgames.games.connect4.board import (
    ConnectFourState,
)


class ConnectFourEvaluation:
    """The evaluation and search hints of :class:`~jaxgames.games.connect4.ConnectFour` (a
    mixin: it reads the board, the bitboard operations and the utility of the game it is
    mixed into)."""

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
