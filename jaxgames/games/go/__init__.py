"""Go on a 5x5 to 19x19 board, with OpenSpiel's rules (``go:size=9,komi=7.5,superko=false``).

Rules: Black (player 0) and White (player 1) alternate placing a stone on an empty point or
passing. After a placement, the opponent's chains left without a liberty (an empty point
next to one of their stones) are captured (removed). A placement that leaves its own chain
without a liberty (suicide) is illegal. Simple ko: a placement that captures exactly one
stone, at a point whose neighbours on the board are all the opponent's, makes the captured
point illegal for the next move. With ``superko=true``, a placement that makes a
whole-board position seen earlier in the game is illegal (positional superko). The pass is
always legal. The game ends after two passes in a row or ``2 * size**2`` steps (passes
count). Scoring is Tromp-Taylor area: each side's stones plus the empty points that reach
only its stones; Black wins when its area minus White's exceeds ``komi``.

Encoding:

* Points ``0..size**2 - 1`` are ``row * size + col``, row 0 at the bottom (GTP row 1) and
  col 0 at the left (column A): ``A1`` = 0, ``B1`` = 1, ``A2`` = ``size``; the pass is
  ``size**2``. These are OpenSpiel's action ids.
* :class:`GoState`: ``board`` int8[N] (1 Black, -1 White, 0 empty), ``chain`` int16[N] (each
  stone's chain id, a point of the chain; ``N`` where empty) kept by ``step`` so that the
  legal moves need no flood fill, ``player``, ``ko`` (-1 none), ``passes`` (in a row),
  ``moves`` (steps played), the stones' Zobrist key in two uint32 words (updated in
  ``step``: the placed stone and every captured one XORed), and with superko the keys after
  every step (``uint32[2 * size**2]`` per word; empty without superko).

Legal moves (:func:`board.legal_points`): each chain's lowest and highest liberty come from
one segment reduction over the chain ids; an empty point is legal when it has an empty
neighbour, or a neighbour chain of the mover's with two liberties or more, or an opponent's
chain in atari (it captures), and it is not the ko point. With superko, the key after each
candidate move is formed (each opponent chain's key by bit-parity segment sums) and
compared with the history.

Utility: ``[1, -1]``, ``[0, 0]`` or ``[-1, 1]`` for Black and White by the sign of
:meth:`Go.score` (area margin less komi; the area by flood fill with
``lax.while_loop``). EVAL: ``0.99 * tanh(score / size)``. Hash: the stones' key XOR keys
for White to move and the ko point. :func:`playout_mask`: the moves of a fast random
playout (no filling one's own eye; pass only when nothing else is left).

Notation: GTP vertices ``A1``..``T19`` (no ``I``) and ``pass``; a position is a move list
from the start (``D4 E5 pass C3``) or a board string (see :data:`Go.position_formats`).

The code lives in these modules:

* :mod:`.board`: the state, neighbour shifts and the traced rules (legal points, area,
  eyes, the playout mask);
* :mod:`.rules`: the :class:`Go` game (``step``, terminal states, utility, the key);
* :mod:`.evaluation`: EVAL;
* :mod:`.notation`: vertices, move lists, board strings, and the host rules that replay
  a move list.
"""

from jaxgames.games.go.board import GoState, areas, legal_points, own_eyes, playout_mask
from jaxgames.games.go.notation import COLUMNS, vertex_name
from jaxgames.games.go.rules import Go

__all__ = [
    "COLUMNS",
    "Go",
    "GoState",
    "areas",
    "legal_points",
    "own_eyes",
    "playout_mask",
    "vertex_name",
]
