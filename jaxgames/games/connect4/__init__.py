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

The code lives in these modules:

* :mod:`.board`: limits and defaults, :class:`ConnectFourState`, the lines of a board;
* :mod:`.rules`: the :class:`ConnectFour` game (``step``, terminal states, utility);
* :mod:`.bitboards`: the bitboard operations (boards of at most 64 bits);
* :mod:`.evaluation`: the heuristic, connecting cells, losing moves and move ordering;
* :mod:`.notation`: move sequences, grids and moves (host side).
"""

from jaxgames.games.connect4.board import ConnectFourState
from jaxgames.games.connect4.rules import ConnectFour

__all__ = ["ConnectFour", "ConnectFourState"]
