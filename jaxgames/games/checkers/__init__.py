"""Checkers (English draughts) on 8x8, with OpenSpiel's rules and action ids.

Rules (as OpenSpiel's ``checkers`` plays them, which serves as the oracle): Black (player 0)
and White alternate; men move one square diagonally forward, kings in all four diagonal
directions. A capture jumps an adjacent enemy piece onto the empty square beyond and removes
it; capturing is compulsory when possible (any capture may be chosen, not necessarily the
longest). A capture is continued by the same piece while it can jump again: **a multi-jump is
played as several steps by the same player** (one action per jump, as OpenSpiel does), and
mid-jump only that piece may move, and only by jumping. A man reaching the far row is crowned
and its move ends there, even when it could jump on as a king. The side to move with no legal
move has lost. After 40 steps in a row without a capture (both sides' steps, including the
men's; each jump resets the count) the game is over and drawn.

Encoding:

* Squares ``0..31`` are the standard square numbers 1-32 less one. Black (player 0, OpenSpiel's
  first player, which OpenSpiel calls White and draws ``o`` at the bottom) starts on 1-12 and
  moves towards 32; White (player 1) starts on 21-32. Square 1 is OpenSpiel's ``g1``, square 4
  ``a1``, square 32 ``b8``: the board seen from Black's side, as OpenSpiel draws it.
* Actions are OpenSpiel's 512 ids ``((row * 8 + column) * 4 + direction) * 2 + kind``: the
  moving piece's square (row 0 = rank 8 of OpenSpiel's drawing), the direction (0 up-left,
  1 up-right, 2 down-right, 3 down-left on that drawing) and the kind (0 a step, 1 a jump).
* :class:`CheckersState` holds three 32-square sets as uint32 (each side's pieces, the kings),
  the side to move, the jumping piece mid-jump (or -1), the steps since the last capture and
  the Zobrist key (kept incrementally). Moves are generated with shifts of whole sets (the
  shift differs between even and odd ranks; masks drop the edges), as 8 source-square sets
  (4 directions x step/jump) that map onto the action ids by one gather.

Utility: ``[1, -1]`` when White cannot move, ``[-1, 1]`` when Black cannot, ``[0, 0]`` for the
40-step draw. EVAL: material (men 1, kings 1.5) through ``tanh``, below 0.9 in size.

Notation (host side): PDN FEN positions (``W:W21,22,K30:B1,2,K3``; side to move, White's and
Black's squares, ``K`` before a king), with ``quiet=N`` and ``jump=S`` fields for the step
count and a mid-jump piece; moves ``11-15`` and ``15x24`` (one jump), or OpenSpiel's ``a3b4``;
:meth:`Checkers.draw` gives OpenSpiel's drawing.

Capabilities: Hashing, MoveLists (48 moves at most) and PositionTables (endgame tables of up
to 4 pieces, one per material signature, a turn a whole move: see :mod:`.endgames`).

Perft from the start counts whole moves in the published tables (Aart Bik; Martin Fierz's
Cake): a multi-jump is one move there and several steps here; ``perft(..., turns=True)``
counts whole turns.

The code lives in these modules: :mod:`.board` (squares, actions, the state, move
generation), :mod:`.rules` (the game), :mod:`.evaluation`, :mod:`.notation`,
:mod:`.endgames` (positions of up to 4 pieces numbered per material signature, their whole
moves, for endgame tables).
"""

from jaxgames.games.checkers.board import CheckersState
from jaxgames.games.checkers.notation import START_FEN
from jaxgames.games.checkers.rules import Checkers

__all__ = ["START_FEN", "Checkers", "CheckersState"]
