"""Chinese checkers for 2, 3, 4 or 6 players on a star (hexagram) board.

Board. The star of triangle side ``k`` (``size``) is the union of two big triangles on a
hexagonal grid. In cube coordinates ``(x, y, z)`` with ``x + y + z = 0`` its holes are::

    max(x, y, z) <= k      or      min(x, y, z) >= -k

a central hexagon (``3k^2 + 3k + 1`` holes, every ``|coordinate| <= k``) and six corner
triangles of ``P = k (k + 1) / 2`` holes each (one coordinate beyond ``+-k``). ``k = 4`` is the
standard 121-hole board (61 + 6 x 10, ten pieces per player); ``k = 2`` (37 holes, 3 pieces)
and ``k = 3`` (73 holes, 6 pieces) are smaller stars for tests. Holes are numbered row by row
from the top (row ``z + 2k``, ``4k + 1`` rows), left to right within a row (by ``x``): the
numbering of OpenSpiel's ``chinese_checkers`` on the standard board.

Corners, clockwise from the top: 0 north, 1 north-east, 2 south-east, 3 south, 4 south-west,
5 north-west; corner ``c`` faces corner ``(c + 3) % 6``. Seats (as in OpenSpiel): 2 players
in corners 0, 3; 3 players in 0, 2, 4; 4 players in 0, 1, 3, 4; 6 players in all six.
Player ``p`` starts with its pieces filling its corner and races them into the opposite one.
Players move in turn, 0, 1, 2, ...

Rules. A move takes one of the mover's pieces and either steps it to an adjacent empty hole,
or jumps it over an adjacent piece (anyone's) to the empty hole just beyond, in a straight
line, and may keep jumping from there (a chain of any length, stopping where it likes). The
piece's own starting hole counts as empty during its chain. No other restriction: pieces
may stop in or cross any corner. A player wins when all of its pieces are in its target
corner (only the mover can complete this). The game also ends after ``move_limit`` moves in
all (plies), so every game ends. A player with no move at all (extremely rare) passes. An
opponent's piece left in a player's target corner blocks that player's win; the move limit
then ends the game and EVAL, below, scores it.

Action space (fixed, ``num_actions = P * H + 1``): action ``r * H + t`` moves the mover's
``r``-th piece, counting its pieces in hole order, to hole ``t`` (``0 <= r < P``,
``0 <= t < H``); action ``P * H`` is the pass, legal only when nothing else is. A move is a
(from hole, to hole) pair: every destination a piece can reach, by a step or by any chain of
jumps, is ONE action, however many chains lead there, so the legal actions are exactly the
distinct (from, to) pairs and no position can have more moves than this space holds
(``P * H``: 1,210 on the standard board, against 14,641 for all hole pairs).

Move lists (:class:`~jaxgames.capabilities.MoveLists`). ``legal_moves`` lists the legal
actions in action order, at most ``max_moves`` of them, a bound proven from the board alone:
a jump moves a piece by twice a direction, so a chain of jumps never leaves the class of
holes congruent to its start modulo 2 (in any two cube coordinates: four classes), while a
step always does. A piece in class ``c`` thus reaches at most its ``<= 6`` neighbours and
the holes of ``c`` that no piece of the mover's ``m_c`` in ``c`` stands on (its own hole is
not a destination): ``m_c (6 + |c| - m_c)`` for the class, maximised over the ways ``P``
pieces can share the classes (and never more than ``P`` times the empty holes). On the
standard board that is 352 moves (3 players) against 1,210 (piece, hole) slots.

Utility and EVAL (``float32[n]``, every component >= 0, the sum at most 1, as maxn shallow
pruning needs). Let ``D_p`` be the sum over player ``p``'s pieces of the hex distance
``max(|dx|, |dy|, |dz|)`` to the apex of its target corner, and ``R_p = D_p - B`` with ``B``
that sum for pieces filling the target corner, so ``R_p = 0`` exactly when ``p`` is home, and
``R_p <= R0`` (``R0``: ``R_p`` at the start, where the pieces are as far as they can be).
With ``w_p = R0 + 2 (R0 - R_p)`` (from ``R0`` at the start to ``3 R0`` at home)::

    EVAL(s)_p = w_p / sum_q w_q                    (shares of progress, summing to 1)
    UTILITY(s) = one-hot of the winner             (a win)
               = EVAL(s)                           (the move limit, no winner)

so ``utility_min = 0``, ``utility_max = 1`` and ``utility_sum_max = 1 + 1e-6`` (the shares sum
to 1 up to float32 rounding). Two players make a constant-sum game (``e_1 = 1 - e_0``), not
zero-sum.

State: ``board`` (int8[H]: 0 empty, ``p + 1`` a piece of player ``p``), ``to_move``,
``ply`` (moves played) and ``winner`` (-1: none).

Notation (host side). A hole is its row letter (``a`` = top row) and its 1-based place in the
row from the left: ``a1`` is the north apex, ``e1`` .. ``e13`` the widest row of the standard
board (``hole_name`` / ``hole_index``; a plain hole number is also read). A move is
``from-to``, e.g. ``d1-e5``, or ``pass``. A position is the rows from the top separated by
``/``, each hole ``.`` (empty) or the digit of the player whose piece it is, then the player
to move and the number of moves played::

    0/00/000/0000/............./............/.../1111/111/11/1 0 0

(rows elided here). ``start`` (or ``""``) is the initial position.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError, split_fields, whole_number

SEATS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
"""Corners of the players, by number of players (player ``p`` sits in ``SEATS[n][p]``)."""

CORNER_NAMES = ("north", "north-east", "south-east", "south", "south-west", "north-west")

# Cube directions (dx, dy, dz) and the move each is on the drawn board.
_DIRECTIONS = (
    (1, -1, 0),  # right
    (-1, 1, 0),  # left
    (1, 0, -1),  # up-right
    (-1, 0, 1),  # down-left
    (0, 1, -1),  # up-left
    (0, -1, 1),  # down-right
)  # direction d ^ 1 is the opposite of d
_SIZES = range(1, 6)
_ROW_LETTERS = "abcdefghijklmnopqrstu"


def _shift(rows: jax.Array, dx: int, dz: int) -> jax.Array:
    """Move every bit of a bitboard ``uint32[..., R]`` by ``(dx, dz)``: the result's row ``r``
    bit ``c`` is the input's row ``r - dz`` bit ``c - dx`` (zero beyond the edges)."""
    if dz > 0:
        pad = jnp.zeros((*rows.shape[:-1], dz), rows.dtype)
        rows = jnp.concatenate([pad, rows[..., :-dz]], axis=-1)
    elif dz < 0:
        pad = jnp.zeros((*rows.shape[:-1], -dz), rows.dtype)
        rows = jnp.concatenate([rows[..., -dz:], pad], axis=-1)
    if dx > 0:
        return rows << jnp.uint32(dx)
    if dx < 0:
        return rows >> jnp.uint32(-dx)
    return rows


class ChineseCheckersState(NamedTuple):
    """A Chinese-checkers position."""

    board: jax.Array  # int8[H]: 0 empty, p + 1 a piece of player p
    to_move: jax.Array  # int32[]: the player to move
    ply: jax.Array  # int32[]: moves played (all players)
    winner: jax.Array  # int8[]: -1 none, else the player who brought every piece home


def star_holes(size: int) -> np.ndarray:
    """Cube coordinates ``int32[H, 3]`` of the star of triangle side ``size``, in hole order
    (rows from the top, ``z`` ascending; left to right, ``x`` ascending)."""
    k = size
    holes = [
        (x, y, -x - y)
        for x in range(-2 * k, 2 * k + 1)
        for y in range(-2 * k, 2 * k + 1)
        if abs(x + y) <= 2 * k and (max(x, y, -x - y) <= k or min(x, y, -x - y) >= -k)
    ]
    holes.sort(key=lambda c: (c[2], c[0]))
    return np.asarray(holes, np.int32)


def corner_of(cube: np.ndarray, size: int) -> np.ndarray:
    """``int32[H]``: the corner (0..5, clockwise from north) of each hole, -1 in the hexagon."""
    x, y, z = cube[:, 0], cube[:, 1], cube[:, 2]
    k = size
    corner = np.full(len(cube), -1, np.int32)
    for c, inside in enumerate((z < -k, x > k, y < -k, z > k, x < -k, y > k)):
        corner[inside] = c
    return corner


def move_bound(cube: np.ndarray, pieces: int, players: int) -> int:
    """The most legal moves any position can have (see the module docstring): the best
    split of the mover's ``pieces`` among the four jump classes of ``m (6 + |c| - m)``
    moves per class, at most ``pieces`` times the empty holes, and at least 1 (the pass)."""
    classes = np.bincount((cube[:, 0] % 2) * 2 + (cube[:, 2] % 2), minlength=4)
    # each class's count is concave in m: taking the largest marginal gains in turn is optimal
    gains = [6 + int(size) - 2 * m - 1 for size in classes for m in range(min(pieces, size))]
    best = sum(sorted(gains, reverse=True)[:pieces])
    return max(1, min(best, pieces * (len(cube) - players * pieces)))


class ChineseCheckers(Game):
    """Chinese checkers for 2, 3, 4 or 6 players on a star board of any size.

    Args:
        players: 2, 3, 4 or 6.
        size: the corner triangles' side ``k`` (1..5); 4 is the standard 121-hole board with
            10 pieces per player, 2 a 37-hole star with 3 pieces for tests.
        move_limit: the game ends after this many moves in all (plies), at least 1.
    """

    name = "chinese_checkers"
    num_chance_outcomes = 0
    utility_min = 0.0
    utility_max = 1.0
    utility_sum_max = 1.0 + 1e-6
    zero_sum = False

    def __init__(self, players: int = 2, size: int = 4, move_limit: int = 1000) -> None:
        for key, value in (("players", players), ("size", size), ("move_limit", move_limit)):
            if not isinstance(value, int | np.integer) or isinstance(value, bool):
                raise GameError(f"chinese_checkers: {key} must be an integer, got {value!r}")
        players, size, move_limit = int(players), int(size), int(move_limit)
        if players not in SEATS:
            raise GameError(f"chinese_checkers: players must be 2, 3, 4 or 6, got {players}")
        if size not in _SIZES:
            raise GameError(f"chinese_checkers: size must be 1..5, got {size}")
        if move_limit < 1:
            raise GameError(f"chinese_checkers: move_limit must be >= 1, got {move_limit}")
        given = {"players": players, "size": size, "move_limit": move_limit}
        defaults = {"players": 2, "size": 4, "move_limit": 1000}
        self.params: dict[str, Any] = {k: v for k, v in given.items() if v != defaults[k]}
        self.num_players = players
        self.size = size
        self.move_limit = move_limit
        self.max_game_length = move_limit
        self.seats = SEATS[players]

        cube = star_holes(size)  # [H, 3]
        h = len(cube)
        self.num_holes = h
        self.pieces = size * (size + 1) // 2
        self.num_actions = self.pieces * h + 1
        self.pass_action = self.pieces * h
        self.max_moves = move_bound(cube, self.pieces, players)
        self.cube = cube
        index = {tuple(c): i for i, c in enumerate(cube.tolist())}
        # Geometry tables (numpy; sentinel index h = off the board).
        neighbor = np.full((h, 6), h, np.int32)  # [H, 6]: the adjacent hole (h: none)
        for i, c in enumerate(cube.tolist()):
            for d, step in enumerate(_DIRECTIONS):
                neighbor[i, d] = index.get(tuple(a + b for a, b in zip(c, step, strict=True)), h)
        self.neighbor = neighbor
        corner = corner_of(cube, size)
        self.corner = corner
        self.home = np.stack([np.flatnonzero(corner == s) for s in self.seats])  # [n, P]
        self.target = np.stack([np.flatnonzero(corner == (s + 3) % 6) for s in self.seats])
        apex = [np.argmax(np.abs(cube).max(axis=1) * (corner == (s + 3) % 6)) for s in self.seats]
        dist = np.abs(cube[None, :, :] - cube[np.asarray(apex)][:, None, :]).max(axis=2)
        self.distance = dist.astype(np.int32)  # [n, H]: hex distance to the target apex
        base = dist[0, self.target[0]].sum()
        self._base = int(base)
        self._r0 = int(dist[0, self.home[0]].sum() - base)  # R_p at the start (its maximum)
        start = np.zeros((h,), np.int8)
        for p in range(players):
            start[self.home[p]] = p + 1
        self._start = start

        # Row layout for the notation.
        rows = cube[:, 2] + 2 * size
        self.row = rows.astype(np.int32)
        self.col = np.zeros(h, np.int32)
        for r in range(4 * size + 1):
            members = np.flatnonzero(rows == r)
            self.col[members] = np.arange(len(members))
        self.row_lengths = [int((rows == r).sum()) for r in range(4 * size + 1)]

        # Bitboard layout: row z + 2k, bit x + 2k (at most 21 bits per row).
        hole_col = (cube[:, 0] + 2 * size).astype(np.uint32)
        counts = np.bincount(rows, minlength=4 * size + 1)
        self._shifts = [(dx, dz) for dx, _, dz in _DIRECTIONS]
        self._j_bit = jnp.asarray(np.left_shift(np.uint32(1), hole_col))  # [H]
        self._j_row_start = jnp.asarray(np.cumsum(counts) - counts, jnp.int32)  # [R]
        self._j_row_end = jnp.asarray(np.cumsum(counts), jnp.int32)  # [R]
        self._j_hole_row = jnp.asarray(rows.astype(np.int32))
        self._j_hole_col = jnp.asarray(hole_col)
        star = np.zeros((4 * size + 1,), np.uint32)
        np.bitwise_or.at(star, rows, np.left_shift(np.uint32(1), hole_col))
        self._j_star = jnp.asarray(star)
        # Device copies of the tables used by the traced functions.
        self._j_target = jnp.asarray(self.target.astype(np.int32))
        self._j_distance = jnp.asarray(self.distance)

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> ChineseCheckersState:
        return ChineseCheckersState(
            board=jnp.asarray(self._start),
            to_move=jnp.int32(0),
            ply=jnp.int32(0),
            winner=jnp.int8(-1),
        )

    def player(self, state: ChineseCheckersState) -> jax.Array:
        return state.to_move.astype(jnp.int32)

    def _pieces(self, state: ChineseCheckersState) -> jax.Array:
        """int32[P]: the holes of the mover's pieces, in hole order."""
        mine = state.board == (state.to_move + 1).astype(jnp.int8)
        return jnp.nonzero(mine, size=self.pieces, fill_value=0)[0].astype(jnp.int32)

    def _rows(self, cells: jax.Array) -> jax.Array:
        """bool[H] -> uint32[R]: one bit per hole, row ``z + 2k``, bit ``x + 2k``.

        Holes are numbered row by row, so a row's word is a difference of two prefix sums
        (uint32 arithmetic wraps, and each row's bits are distinct: the difference is exact).
        """
        words = jnp.where(cells, self._j_bit, jnp.uint32(0))  # [H]
        prefix = jnp.concatenate([jnp.zeros((1,), jnp.uint32), jnp.cumsum(words, dtype=jnp.uint32)])
        return prefix[self._j_row_end] - prefix[self._j_row_start]

    def destinations(self, state: ChineseCheckersState) -> jax.Array:
        """bool[P, H]: the holes each of the mover's pieces (in hole order) can reach.

        On bitboards: row ``r`` of the board is a uint32 whose bit ``c`` is the hole at
        ``(x, z) = (c - 2k, r - 2k)``, so each hex direction is a shift of rows and of bits.
        Steps: the empty neighbours. Jumps: the closure of one jump from the holes reached
        so far, ``reach' = reach | OR_d (shift(reach, 2d) & shift(occupied, d) & empty)``,
        iterated to a fixed point (a lane stops changing when its sets stop growing). The
        piece's own hole counts as empty, and is not a destination.
        """
        pos = self._pieces(state)  # [P]
        rows = jnp.arange(len(self.row_lengths))
        own = jnp.where(
            rows[None, :] == self._j_hole_row[pos][:, None], self._j_bit[pos][:, None], 0
        )
        own = own.astype(jnp.uint32)  # [P, R]: each piece's own hole
        occupied = self._rows(state.board != 0)[None, :] & ~own  # [P, R]
        empty = self._j_star[None, :] & ~occupied
        steps = jnp.zeros_like(own)
        landing = []  # per direction: holes a jump along it may land on
        for dx, dz in self._shifts:
            steps = steps | (_shift(own, dx, dz) & empty)
            landing.append(_shift(occupied, dx, dz) & empty)

        def grow(carry):
            reach, _ = carry
            new = reach
            for (dx, dz), land in zip(self._shifts, landing, strict=True):
                new = new | (_shift(reach, 2 * dx, 2 * dz) & land)
            return new, jnp.any(new != reach)

        reach, _ = jax.lax.while_loop(lambda c: c[1], grow, (own, jnp.bool_(True)))
        words = (steps | reach) & ~own  # [P, R]
        bits = words[:, self._j_hole_row] >> self._j_hole_col  # [P, H]
        return (bits & jnp.uint32(1)).astype(jnp.bool_)

    def legal_mask(self, state: ChineseCheckersState) -> jax.Array:
        moves = self.destinations(state).reshape(-1)  # [P * H]
        live = ~self.terminal(state)
        blocked = ~jnp.any(moves)
        return jnp.concatenate([moves & live, (blocked & live)[None]])

    def legal_moves(self, state: ChineseCheckersState) -> jax.Array:
        """int32[max_moves]: the legal actions in action order, then -1 (the pass alone
        when nothing else is legal; none at the end)."""
        moves = self.destinations(state).reshape(-1)  # [P * H]
        live = ~self.terminal(state)
        (listed,) = jnp.nonzero(moves & live, size=self.max_moves, fill_value=-1)
        blocked = live & ~jnp.any(moves)
        return listed.at[0].set(jnp.where(blocked, self.pass_action, listed[0])).astype(jnp.int32)

    def step(self, state: ChineseCheckersState, action: jax.Array) -> ChineseCheckersState:
        h = self.num_holes
        action = jnp.asarray(action, jnp.int32)
        is_pass = action >= self.pass_action
        rank = jnp.clip(action // h, 0, self.pieces - 1)
        to = jnp.clip(action % h, 0, h - 1)
        source = self._pieces(state)[rank]
        piece = (state.to_move + 1).astype(jnp.int8)
        moved = state.board.at[source].set(jnp.int8(0)).at[to].set(piece)
        board = jnp.where(is_pass, state.board, moved)
        # only the mover can complete its corner
        home = jnp.all(board[self._j_target[state.to_move]] == piece)
        winner = jnp.where((state.winner < 0) & home, state.to_move, state.winner)
        return ChineseCheckersState(
            board=board,
            to_move=((state.to_move + 1) % self.num_players).astype(jnp.int32),
            ply=(state.ply + 1).astype(jnp.int32),
            winner=winner.astype(jnp.int8),
        )

    def terminal(self, state: ChineseCheckersState) -> jax.Array:
        return (state.winner >= 0) | (state.ply >= self.move_limit)

    def remaining(self, state: ChineseCheckersState) -> jax.Array:
        """int32[n]: ``R_p``, each player's total distance still to cover (0: home)."""
        owner = state.board.astype(jnp.int32) - 1  # [H]: -1 empty
        players = jnp.arange(self.num_players)
        mine = owner[None, :] == players[:, None]  # [n, H]
        return jnp.sum(jnp.where(mine, self._j_distance, 0), axis=1) - self._base

    def shares(self, state: ChineseCheckersState) -> jax.Array:
        """EVAL: ``float32[n]``, ``w_p / sum_q w_q`` with ``w_p = R0 + 2 (R0 - R_p)``."""
        w = (3 * self._r0 - 2 * self.remaining(state)).astype(jnp.float32)
        return w / jnp.sum(w)

    def utility(self, state: ChineseCheckersState) -> jax.Array:
        won = jax.nn.one_hot(state.winner.astype(jnp.int32), self.num_players, dtype=jnp.float32)
        at_limit = jnp.where(state.ply >= self.move_limit, self.shares(state), 0.0)
        return jnp.where(state.winner >= 0, won, at_limit)

    def evaluate(self, state: ChineseCheckersState) -> jax.Array:
        return jnp.where(self.terminal(state), self.utility(state), self.shares(state))

    def move_order_scores(self, state: ChineseCheckersState) -> jax.Array:
        """Progress of each move: distance to the mover's target apex saved (pass: 0)."""
        dist = self._j_distance[state.to_move]  # [H]
        gain = dist[self._pieces(state)][:, None] - dist[None, :]  # [P, H]
        return jnp.concatenate([gain.reshape(-1).astype(jnp.float32), jnp.zeros((1,))])

    # ------------------------------------------------------------------ host side
    @functools.cached_property
    def _host_fns(self) -> tuple:
        """(legal_mask, step, move_order_scores) compiled once, for the host-side helpers
        (eagerly, the jump closure's loop would dispatch op by op)."""
        return jax.jit(self.legal_mask), jax.jit(self.step), jax.jit(self.move_order_scores)

    def _check_legal(self, state: Any, action: int, text: str | None = None) -> None:
        shown = text if text is not None else str(action)
        if not 0 <= action < self.num_actions:
            raise GameError(f"{self.name}: move {shown!r} is outside the action space")
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {shown!r} after the game is over")
        if not bool(np.asarray(self._host_fns[0](state))[action]):
            raise GameError(f"{self.name}: illegal move {shown!r}")

    def hole_name(self, hole: int) -> str:
        """``"e5"``: row letter (``a`` = top) and 1-based place in the row from the left."""
        if not 0 <= hole < self.num_holes:
            raise GameError(f"{self.name}: hole {hole} does not exist")
        return f"{_ROW_LETTERS[self.row[hole]]}{self.col[hole] + 1}"

    def hole_index(self, name: str) -> int:
        """The hole named ``name`` (``"e5"``), or given by its number (``"27"``)."""
        text = name.strip().lower()
        if text.isdigit():
            hole = int(text)
            if hole >= self.num_holes:
                raise GameError(f"{self.name}: hole {name!r} does not exist")
            return hole
        row = _ROW_LETTERS.find(text[:1]) if text else -1
        if row < 0 or row >= len(self.row_lengths) or not text[1:].isdigit():
            raise GameError(f"{self.name}: {name!r} is not a hole (row letter, place)")
        place = int(text[1:]) - 1
        if not 0 <= place < self.row_lengths[row]:
            raise GameError(
                f"{self.name}: row {text[0]} has {self.row_lengths[row]} holes, not {place + 1}"
            )
        return int(np.flatnonzero((self.row == row) & (self.col == place))[0])

    def _host(self, state: ChineseCheckersState) -> tuple[np.ndarray, int, int, int]:
        return (
            np.asarray(state.board, np.int8),
            int(np.asarray(state.to_move)),
            int(np.asarray(state.ply)),
            int(np.asarray(state.winner)),
        )

    def action_to_string(self, state: ChineseCheckersState, action: int) -> str:
        action = int(action)
        if action == self.pass_action:
            return "pass"
        if not 0 <= action < self.pass_action:
            raise GameError(f"{self.name}: action {action} is outside the action space")
        board, mover, _, _ = self._host(state)
        mine = np.flatnonzero(board == mover + 1)
        rank, to = divmod(action, self.num_holes)
        if rank >= len(mine):
            raise GameError(f"{self.name}: action {action} names piece {rank} of {len(mine)}")
        return f"{self.hole_name(int(mine[rank]))}-{self.hole_name(to)}"

    def string_to_action(self, state: ChineseCheckersState, text: str) -> int:
        """``"d1-e5"`` (or ``"3-14"``, hole numbers) or ``"pass"`` -> action."""
        raw = text.strip().lower()
        if raw == "pass":
            action = self.pass_action
        else:
            parts = raw.replace("=>", "-").replace("->", "-").split("-")
            if len(parts) != 2:
                raise GameError(f"{self.name}: bad move {text!r}; expected from-to, e.g. d1-e5")
            source, to = (self.hole_index(p) for p in parts)
            board, mover, _, _ = self._host(state)
            if board[source] != mover + 1:
                raise GameError(f"{self.name}: move {text!r}: no piece of player {mover} there")
            rank = int(np.searchsorted(np.flatnonzero(board == mover + 1), source))
            action = rank * self.num_holes + to
        self._check_legal(state, action, text)
        return action

    position_formats = (
        (
            "rows of holes from the top, '/' between rows (. empty, a digit the player "
            "there), then the player to move and the ply",
            "0/00/000/0000/............./............/.........../........../........./"
            "........../.........../............/............./1111/111/11/1 0 0",
        ),
        ("the start", "start"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """Rows, player to move and ply: three fields (two, ply 0, when nothing follows)."""
        return split_fields(line, 3)

    def parse(self, text: str) -> ChineseCheckersState:
        """A position (see the module docstring) or ``start`` -> state.

        Raises:
            GameError: one line naming what is wrong and where.
        """
        raw = text.strip()
        if raw.lower() in ("", "start"):
            return self.init()
        fields = raw.split()
        if len(fields) not in (2, 3):
            raise GameError(
                f"{self.name}: position {text!r} needs rows, the player to move and the ply"
            )
        rows = fields[0].split("/")
        if len(rows) != len(self.row_lengths):
            raise GameError(
                f"{self.name}: {len(rows)} rows, expected {len(self.row_lengths)} "
                f"(size {self.size})"
            )
        board = np.zeros((self.num_holes,), np.int8)
        digits = "".join(str(p) for p in range(self.num_players))
        i = 0
        for r, (row, length) in enumerate(zip(rows, self.row_lengths, strict=True)):
            if len(row) != length:
                raise GameError(
                    f"{self.name}: row {_ROW_LETTERS[r]} has {len(row)} holes, expected {length}"
                )
            for c, ch in enumerate(row):
                if ch in ".-":
                    board[i] = 0
                elif ch in digits:
                    board[i] = int(ch) + 1
                else:
                    raise GameError(
                        f"{self.name}: hole {_ROW_LETTERS[r]}{c + 1} holds {ch!r}; expected '.' "
                        f"or a player digit 0..{self.num_players - 1}"
                    )
                i += 1
        for p in range(self.num_players):
            count = int((board == p + 1).sum())
            if count != self.pieces:
                raise GameError(
                    f"{self.name}: player {p} has {count} pieces on the board, expected "
                    f"{self.pieces}"
                )
        try:
            to_move = whole_number(fields[1])
            ply = whole_number(fields[2]) if len(fields) == 3 else 0
        except ValueError:
            raise GameError(f"{self.name}: bad player to move or ply in {text!r}") from None
        if not 0 <= to_move < self.num_players:
            raise GameError(
                f"{self.name}: player to move {to_move} is not 0..{self.num_players - 1}"
            )
        if not 0 <= ply <= self.move_limit:
            raise GameError(f"{self.name}: ply {ply} is outside 0..{self.move_limit}")
        home = [p for p in range(self.num_players) if np.all(board[self.target[p]] == p + 1)]
        if len(home) > 1:
            raise GameError(f"{self.name}: players {home} are all home; at most one can win")
        return ChineseCheckersState(
            board=jnp.asarray(board),
            to_move=jnp.int32(to_move),
            ply=jnp.int32(ply),
            winner=jnp.int8(home[0] if home else -1),
        )

    def format(self, state: ChineseCheckersState) -> str:
        board, mover, ply, _ = self._host(state)
        chars = np.where(board == 0, ".", (board.astype(np.int32) - 1).astype(str))
        rows, i = [], 0
        for length in self.row_lengths:
            rows.append("".join(chars[i : i + length]))
            i += length
        return f"{'/'.join(rows)} {mover} {ply}"

    def sample_positions(self) -> list[str]:
        """The start and the position after each player's first forward step."""
        legal_mask, step, scores = self._host_fns
        state = self.init()
        out = [self.format(state)]
        for _ in range(self.num_players):
            legal = np.flatnonzero(np.asarray(legal_mask(state)))
            gain = np.asarray(scores(state))[legal]
            state = step(state, jnp.int32(legal[np.argmax(gain)]))
        out.append(self.format(state))
        return out
