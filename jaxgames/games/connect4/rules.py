"""The connect-four game: the :class:`ConnectFour` class, its parameters and tables, and its
traced protocol (the empty board, legal moves, ``step``, terminal states, the distance-score
utility, value bounds), with the bitboards (:mod:`.bitboards`), evaluation
(:mod:`.evaluation`) and notation (:mod:`.notation`) mixed in.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames import bitboard
from jaxgames.game import Game, GameError, two_player_utility, zobrist_table
from jaxgames.games.connect4.bitboards import ConnectFourBitboards
from jaxgames.games.connect4.board import (
    _DEFAULTS,
    _MAX_HEIGHT,
    _MAX_WIDTH,
    _ZOBRIST_SEED,
    ConnectFourState,
    _all_lines,
    _lines_through,
)
from jaxgames.games.connect4.evaluation import ConnectFourEvaluation
from jaxgames.games.connect4.learned import ConnectFourLearning
from jaxgames.games.connect4.notation import ConnectFourNotation


class ConnectFour(
    ConnectFourNotation, ConnectFourLearning, ConnectFourEvaluation, ConnectFourBitboards, Game
):
    """Connect four on any board (7x6 by default); player 0 (``x``) moves first.

    Args:
        width: columns, 1..9 (so a column is one digit in move sequences).
        height: rows, 1..127.
        connect: stones in a line needed to win, 2..max(width, height).
        eval: a checkpoint of a network trained by :mod:`jaxgames.learn` to use as EVAL
            instead of the threat heuristic (``make("connect4", eval="net.npz")``; see
            :mod:`.learned`); every search that reads EVAL then uses the network.

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
    moves_are_places = True  # PlaceMoves: an action is a column, the same wherever played

    def __init__(self, width: int = 7, height: int = 6, connect: int = 4, eval: str = "") -> None:
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
        board_spec = self.spec  # what the checkpoint of a network for this board records
        if eval:
            self.params["eval"] = eval
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
        self._net = None
        if eval:  # imported here: a game made without a network needs no Equinox
            from jaxgames.learn.network import load_eval_network

            self._net = load_eval_network(eval, board_spec, self.num_features)

    def evaluate(self, state: ConnectFourState) -> jax.Array:
        """EVAL: the learned network's (when made with ``eval=``), else the threat heuristic
        (:meth:`~jaxgames.games.connect4.evaluation.ConnectFourEvaluation.evaluate`)."""
        if self._net is not None:
            return self._learned_evaluate(state)
        return ConnectFourEvaluation.evaluate(self, state)

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
