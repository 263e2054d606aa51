"""Phantom tic-tac-toe, as OpenSpiel's ``phantom_ttt`` (default parameters: classical
version, observation type ``reveal-nothing``).

Rules: tic-tac-toe on a 3x3 board, X (player 0) first, where each player sees only their own
marks. A player moves by naming a cell they have not seen taken. If the cell is empty their
mark goes there and the turn passes; if the opponent holds it the move is refused, the cell
shows as the opponent's in the player's view from then on, and the same player moves again.
Nothing of the opponent's tries, refused or not, is shown. Three in a row wins (+1 / -1); a
full board without a line is a draw.

Encoding (OpenSpiel's):

* Action ``a`` in ``0..8`` names cell ``a``, row-major from the top-left; the legal actions
  are the cells empty in the mover's view.
* :class:`PhantomState` holds the true ``board`` (int8[9]: 0 empty, 1 X, 2 O), each player's
  ``view`` (int8[2, 9], same code), each player's ``tries`` in order (int8[2, 9], -1
  unused; a player tries a cell at most once, since a try marks it in their view),
  ``num_tries`` (int32[2]), ``num_moves`` (marks on the board; the mover is
  ``num_moves % 2``) and ``winner`` (int8: -1 none, 0 X, 1 O).
* ``observation(state, p)``: OpenSpiel's ``observation_tensor``: float32[27] = the one-hot
  of each cell of ``p``'s view, planes (empty, O, X) of 9 cells.
* ``information_state_key(state, p)``: ``p``'s tries in order, each with whether it was
  refused, in one mixed-radix number: exactly the partition of OpenSpiel's
  ``information_state_string`` (the view and the player's own tries, from which each other
  follows).

Capabilities beyond :class:`~jaxgames.capabilities.ImperfectInformation`:
:class:`~jaxgames.capabilities.Determinization` (the complete states a player cannot tell
from the true one, listed: the opponent's possible hidden marks) and
:class:`~jaxgames.capabilities.PerfectInformationView` (the true board as plain
tic-tac-toe, for searches that assume the world known, PIMC), and
:class:`~jaxgames.capabilities.BeliefStates` (a player's belief as a set of possible
true boards over the enumerated tic-tac-toe boards, for AND-OR search).

Notation: the tries from the start, both players interleaved, space-separated cell digits
(``"4 4 0"``: X takes 4, O's try of 4 is refused, O takes 0), or ``start``.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError, two_player_utility
from jaxgames.games.poker import MoveListNotation
from jaxgames.games.tictactoe import LINES, ZOBRIST, ZOBRIST_SIDE, TicTacToe, TicTacToeState

RADIX = np.array([2 * (9 - i) + 1 for i in range(9)], np.int64)  # [9]: 0 ends, else rank/refused
PLACE = np.concatenate([[1], np.cumprod(RADIX)[:-1]]).astype(np.int32)  # [9]: digit weights
KEYS_PER_PLAYER = int(np.prod(RADIX))  # 654,729,075: two players' keys fit in int32
# Every set of cells as a bit pattern (row i: the cells of number i); the worlds of a player
# are the sets of hidden opponent cells, filtered.
SUBSETS: np.ndarray = ((np.arange(512)[:, None] >> np.arange(9)) & 1).astype(bool)  # [512, 9]
_HAS_LINE: np.ndarray = SUBSETS[:, LINES].all(axis=2).any(axis=1)  # [512]
_PLANE = np.array([0, 2, 1], np.int32)  # cell code (empty, X, O) -> OpenSpiel plane (empty, O, X)


class PhantomState(NamedTuple):
    """A phantom tic-tac-toe position (the true board and what each player knows)."""

    board: jax.Array  # int8[9]: 0 empty, 1 X, 2 O
    view: jax.Array  # int8[2, 9]: each player's view, same code
    tries: jax.Array  # int8[2, 9]: each player's tried cells in order, -1 unused
    num_tries: jax.Array  # int32[2]
    num_moves: jax.Array  # int32[]: marks on the board
    winner: jax.Array  # int8[]: -1 none, 0 X, 1 O


class PhantomHistory(NamedTuple):
    """What one player has seen: their view and their tries (their information state)."""

    player: jax.Array  # int32[]
    view: jax.Array  # int8[9]
    tries: jax.Array  # int8[9]: -1 unused
    num_tries: jax.Array  # int32[]


class PhantomTicTacToe(MoveListNotation, Game):
    """Phantom tic-tac-toe, OpenSpiel's ``phantom_ttt`` with its default parameters."""

    name = "phantom_tictactoe"
    num_players = 2
    num_actions = 9
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    max_game_length = 17  # 9 marks and at most 8 refused tries (OpenSpiel's bound)
    observation_shape = (27,)
    max_worlds = 512  # Determinization: candidate hidden sets, one per set of cells

    def __init__(self) -> None:
        self.params = {}

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> PhantomState:
        """The empty board; nobody has seen anything."""
        return PhantomState(
            board=jnp.zeros((9,), jnp.int8),
            view=jnp.zeros((2, 9), jnp.int8),
            tries=jnp.full((2, 9), -1, jnp.int8),
            num_tries=jnp.zeros((2,), jnp.int32),
            num_moves=jnp.int32(0),
            winner=jnp.int8(-1),
        )

    def player(self, state: PhantomState) -> jax.Array:
        """int32: 0 (X) or 1 (O); a refused try leaves the same player to move."""
        return (state.num_moves % 2).astype(jnp.int32)

    def legal_mask(self, state: PhantomState) -> jax.Array:
        """bool[9]: the cells empty in the mover's view; none once the game is over."""
        return (state.view[self.player(state)] == 0) & ~self.terminal(state)

    def step(self, state: PhantomState, action: jax.Array) -> PhantomState:
        """Try cell ``action``: taken if empty, else refused and revealed to the mover."""
        p = self.player(state)
        a = jnp.asarray(action, jnp.int32)
        piece = (p + 1).astype(jnp.int8)
        board = jnp.asarray(state.board)
        refused = board[a] != 0
        new_board = jnp.where(refused, board, board.at[a].set(piece))  # [9]
        seen = jnp.where(refused, board[a], piece)  # what the mover now sees at a
        slot = jnp.minimum(state.num_tries[p], 8)
        win = jnp.any(jnp.all(new_board[LINES] == piece, axis=1)) & ~refused
        return PhantomState(
            board=new_board,
            view=jnp.asarray(state.view).at[p, a].set(seen),
            tries=jnp.asarray(state.tries).at[p, slot].set(a.astype(jnp.int8)),
            num_tries=jnp.asarray(state.num_tries).at[p].add(1),
            num_moves=state.num_moves + jnp.where(refused, 0, 1).astype(jnp.int32),
            winner=jnp.where(win, p.astype(jnp.int8), state.winner),
        )

    def terminal(self, state: PhantomState) -> jax.Array:
        """bool: a line on the true board, or the board full."""
        return (state.winner >= 0) | (state.num_moves >= 9)

    def utility(self, state: PhantomState) -> jax.Array:
        """float32[2]: ``[u, -u]``, u = +1 X won, -1 O won, 0 otherwise."""
        u = jnp.where(state.winner == 0, 1.0, jnp.where(state.winner == 1, -1.0, 0.0))
        return two_player_utility(u)

    def plies_left(self, state: PhantomState) -> jax.Array:
        """Each step either fills a cell or reveals one to a player: at most the empty
        cells plus the cells each player has still not seen of the other's."""
        return jnp.int32(self.max_game_length) - jnp.sum(state.num_tries)

    # ------------------------------------------------------------------ imperfect information
    def observation(self, state: PhantomState, player: jax.Array) -> jax.Array:
        """float32[27]: the one-hot of ``player``'s view, planes (empty, O, X) x 9 cells."""
        plane = jnp.asarray(_PLANE)[state.view[player].astype(jnp.int32)]  # [9]
        return jax.nn.one_hot(plane, 3, dtype=jnp.float32).T.reshape(27)

    def information_state_key(self, state: PhantomState, player: jax.Array) -> jax.Array:
        """int32: ``player``'s tries in order and which were refused, as one number."""
        return _history_key(self.observation_history(state, player))

    # ------------------------------------------------------------------ determinization
    def observation_history(self, state: PhantomState, player: jax.Array) -> PhantomHistory:
        """Everything ``player`` has seen: their view and their tries."""
        player = jnp.asarray(player, jnp.int32)
        return PhantomHistory(
            player=player,
            view=state.view[player],
            tries=state.tries[player],
            num_tries=state.num_tries[player],
        )

    def worlds(self, history: PhantomHistory) -> tuple[PhantomState, jax.Array]:
        """The complete states consistent with ``history`` at the player's turn, one per
        candidate set of hidden opponent cells (``max_worlds`` of them, with a mask).

        A world places the opponent's marks the player has not seen on cells empty in the
        player's view, as many as the turn says the opponent has (as many as X's for O's
        marks when X is to move, one more for X's when O is), with no line of the opponent
        (the game would be over). Every such set is reachable: the revealed cells first, in
        the order the player ran into them, then the hidden ones. The opponent's own
        knowledge is not observable and the world takes the least: their own marks only.

        Returns:
            ``(states [512], valid bool[512])``.
        """
        p = history.player
        me = (p + 1).astype(jnp.int8)
        opp_piece = (2 - p).astype(jnp.int8)
        mine = history.view == me  # [9]
        revealed = history.view == opp_piece  # [9]
        opp_marks = jnp.sum(mine) + p  # X to move: as many as X's; O to move: one more
        hidden = jnp.asarray(SUBSETS)  # [512, 9]
        fits = ~jnp.any(hidden & (mine | revealed)[None, :], axis=1)
        count = jnp.sum(hidden, axis=1) + jnp.sum(revealed) == opp_marks
        theirs = hidden | revealed[None, :]  # [512, 9]
        line = jnp.any(jnp.all(theirs[:, LINES], axis=2), axis=1)
        valid = fits & count & ~line  # [512]
        # the opponent's tries: revealed cells in the order the player ran into them, then
        # the hidden ones
        order_of = jnp.full((9,), 99, jnp.int32)
        tried = jnp.maximum(history.tries, 0).astype(jnp.int32)
        order_of = order_of.at[tried].min(
            jnp.where(history.tries >= 0, jnp.arange(9, dtype=jnp.int32), 99)
        )  # [9]: when the player tried each cell
        rank = jnp.where(
            revealed[None, :],
            order_of[None, :],
            jnp.where(hidden, 20 + jnp.arange(9)[None, :], 40 + jnp.arange(9)[None, :]),
        )  # [512, 9]
        order = jnp.argsort(rank, axis=1).astype(jnp.int8)  # [512, 9]
        n_opp = jnp.sum(theirs, axis=1).astype(jnp.int32)  # [512]
        opp_tries = jnp.where(jnp.arange(9)[None, :] < n_opp[:, None], order, jnp.int8(-1))
        board = jnp.where(mine, me, jnp.int8(0))[None, :] + jnp.where(theirs, opp_piece, 0)
        board = board.astype(jnp.int8)  # [512, 9]
        opp_view = jnp.where(theirs, opp_piece, jnp.int8(0)).astype(jnp.int8)  # [512, 9]
        view = jnp.where(
            p == 0,
            jnp.stack([jnp.broadcast_to(history.view, (512, 9)), opp_view], 1),
            jnp.stack([opp_view, jnp.broadcast_to(history.view, (512, 9))], 1),
        )
        own_tries = jnp.broadcast_to(history.tries, (512, 9))
        tries = jnp.where(
            p == 0, jnp.stack([own_tries, opp_tries], 1), jnp.stack([opp_tries, own_tries], 1)
        )
        num_tries = jnp.where(
            p == 0,
            jnp.stack([jnp.full((512,), history.num_tries), n_opp], 1),
            jnp.stack([n_opp, jnp.full((512,), history.num_tries)], 1),
        ).astype(jnp.int32)
        states = PhantomState(
            board=board,
            view=view.astype(jnp.int8),
            tries=tries.astype(jnp.int8),
            num_tries=num_tries,
            num_moves=(jnp.sum(mine) + n_opp).astype(jnp.int32),
            winner=jnp.full((512,), -1, jnp.int8),
        )
        return states, valid

    # ------------------------------------------------------------------ perfect information
    @functools.cached_property
    def perfect_information_game(self) -> TicTacToe:
        """Plain tic-tac-toe: the true board, seen by both."""
        return TicTacToe()

    def perfect_information_state(self, state: PhantomState) -> TicTacToeState:
        """The true board as a tic-tac-toe position (its Zobrist key rebuilt)."""
        board = state.board
        p_of = jnp.clip(board.astype(jnp.int32) - 1, 0, 1)  # [9]
        keys = jnp.asarray(ZOBRIST)[jnp.arange(9), p_of]  # [9, 2]
        keys = jnp.where((board > 0)[:, None], keys, jnp.uint32(0))
        key = jax.lax.reduce(keys, jnp.uint32(0), jax.lax.bitwise_xor, (0,))
        key = key ^ jnp.where(state.num_moves % 2 == 1, jnp.asarray(ZOBRIST_SIDE), jnp.uint32(0))
        return TicTacToeState(board=board, num_moves=state.num_moves, winner=state.winner, hash=key)

    # ------------------------------------------------------------------ belief states (host)
    @property
    def num_belief_states(self) -> int:
        """S: the unfinished tic-tac-toe boards (no line, not full), :data:`BOARDS`."""
        return len(BOARDS)

    def belief(self, state: PhantomState, player: int) -> np.ndarray:
        """bool[S]: the boards ``player`` thinks possible at their turn: their own marks,
        the opponent's marks they ran into, and as many more opponent marks as the turn
        says, anywhere else (the same set as :meth:`worlds`' boards)."""
        view = np.asarray(state.view)[player]
        me, opp = player + 1, 2 - player
        mine, revealed = view == me, view == opp
        count = mine.sum() + player
        boards = BOARDS  # [S, 9]
        return (
            np.all((boards == me) == mine, axis=1)
            & np.all((boards == opp) | ~revealed, axis=1)
            & ((boards == opp).sum(axis=1) == count)
        )

    def belief_actions(self, belief: np.ndarray) -> np.ndarray:
        """The cells empty in some board of ``belief``: a try of a cell the opponent holds
        in every board shows nothing new and leaves the same player to move."""
        return np.flatnonzero(np.any(BOARDS[belief] == 0, axis=0))

    def belief_outcomes(self, belief: np.ndarray, action: int) -> list[tuple[str, object]]:
        """``refused`` (the boards where the opponent holds the cell; the same player moves
        again) and ``taken``: ``"win"`` when the mark completes a line, ``"fail"`` when
        the board fills or some reply of the opponent (any empty cell) completes their line
        or fills the board, else the boards after every reply (the player's next turn)."""
        boards = BOARDS[belief]  # [k, 9]
        me = 1 if (boards[0] != 0).sum() % 2 == 0 else 2
        outcomes: list[tuple[str, object]] = []
        refused = belief.copy()
        refused[belief] = (boards[:, action] != 0) & (boards[:, action] != me)
        if refused.any():
            outcomes.append(("refused", refused))
        placed = boards[boards[:, action] == 0].copy()
        if not len(placed):
            return outcomes
        placed[:, action] = me
        if np.all(_lines(placed, me)):
            return outcomes + [("taken", "win")]
        if np.any((placed != 0).all(axis=1)) or np.any(_lines(placed, me)):
            return outcomes + [("taken", "fail")]  # a draw (the mixed case cannot happen)
        replies = np.repeat(placed[:, None, :], 9, axis=1)  # [k, 9, 9]: each reply cell
        empty = placed == 0  # [k, 9]
        replies[:, np.arange(9), np.arange(9)] = np.where(empty, 3 - me, 0)
        replies = replies[empty]  # [r, 9]
        if np.any(_lines(replies, 3 - me)) or np.any((replies != 0).all(axis=1)):
            return outcomes + [("taken", "fail")]
        after = np.zeros_like(belief)
        after[INDEX[_codes(replies)]] = True
        return outcomes + [("taken", after)]

    # ------------------------------------------------------------------ host side
    position_formats = (("the tries from the start, cell digits 0-8 row by row", "4 4 0"),)

    def moves_played(self, state: PhantomState) -> list[int]:
        """Both players' tries interleaved: a player tries until one is taken."""
        view = np.asarray(state.view)
        tries = [list(np.asarray(state.tries)[p][: int(state.num_tries[p])]) for p in (0, 1)]
        played, p = [], 0
        while tries[0] or tries[1]:
            if not tries[p]:
                break
            cell = int(tries[p].pop(0))
            played.append(cell)
            if view[p, cell] == p + 1:  # taken: the turn passes
                p = 1 - p
        return played

    def action_to_string(self, state: PhantomState, action: int) -> str:
        """The cell digit ``"0"``..``"8"``."""
        return str(int(action))

    def string_to_action(self, state: PhantomState, text: str) -> int:
        """A cell digit, empty in the mover's view. Raises GameError otherwise."""
        t = text.strip()
        if len(t) != 1 or not t.isdigit() or t == "9":
            raise GameError(f"{self.name}: bad move {text!r}; expected a cell digit 0-8")
        action = int(t)
        self._check_legal(state, action, text)
        return action

    def sample_positions(self) -> list[str]:
        """The start, an opening, and a refused try."""
        return ["start", "4", "4 4 0"]


def _lines(boards: np.ndarray, piece: int) -> np.ndarray:
    """bool[k]: which of ``boards`` (int8[k, 9]) hold a line of ``piece``."""
    return np.all(boards[:, LINES] == piece, axis=2).any(axis=1)


def _codes(boards: np.ndarray) -> np.ndarray:
    """int[k]: each board as a base-3 number (cell i: digit i)."""
    return boards.astype(np.int64) @ (3 ** np.arange(9))


def _unfinished_boards() -> np.ndarray:
    """int8[S, 9]: every board of legal play with no line and an empty cell."""
    all_boards = (np.arange(3**9)[:, None] // 3 ** np.arange(9)) % 3  # [19683, 9]
    x, o = (all_boards == 1).sum(1), (all_boards == 2).sum(1)
    keep = ((x == o) | (x == o + 1)) & (x + o < 9)
    keep &= ~_lines(all_boards, 1) & ~_lines(all_boards, 2)
    return all_boards[keep].astype(np.int8)


BOARDS: np.ndarray = _unfinished_boards()  # [S, 9]: the belief states' enumerated list
INDEX: np.ndarray = np.full(3**9, -1, np.int64)  # [19683]: base-3 code -> row of BOARDS
INDEX[_codes(BOARDS)] = np.arange(len(BOARDS))


def _history_key(history: PhantomHistory) -> jax.Array:
    """int32: the player's tries, each as its rank among the cells not tried before and
    whether it was refused, in mixed radix (digit 0: no try), plus the player's offset."""
    tries = history.tries.astype(jnp.int32)  # [9]
    earlier = jnp.tril(jnp.ones((9, 9), bool), -1)  # [i, j]: j before i
    below = (tries[None, :] < tries[:, None]) & earlier & (tries[None, :] >= 0)
    rank = tries - jnp.sum(below, axis=1)  # [9]
    cell = jnp.maximum(tries, 0)
    refused = history.view[cell] != (history.player + 1)
    digit = jnp.where(tries >= 0, 1 + 2 * rank + refused.astype(jnp.int32), 0)
    key = jnp.sum(digit * jnp.asarray(PLACE))
    return (key + history.player * KEYS_PER_PLAYER).astype(jnp.int32)


assert 2 * KEYS_PER_PLAYER < 2**31 and math.prod(int(r) for r in RADIX) == KEYS_PER_PLAYER
