"""Othello (Reversi) on the standard 8x8 board, with bitboards on pairs of uint32.

Rules: Black (``X``, player 0) and White (``O``, player 1) alternate placing a disc of their
colour on an empty square. A placement is legal when, along at least one of the eight
directions (horizontal, vertical, diagonal), it brackets a contiguous run of one or more
opponent discs between the new disc and another disc of the mover's colour; every bracketed
run, in every direction, is flipped. A player with no legal placement must pass, and may pass
only then. The game is over when neither player can place a disc (a full board is the usual
case); the player with more discs wins. The start has White on d4 and e5, Black on e4 and
d5, Black to move.

Encoding:

* Squares ``0..63`` are ``row * 8 + col``: ``a1`` = 0, ``h1`` = 7, ``a8`` = 56, ``h8`` = 63
  (columns ``a``-``h`` from the left, rows ``1``-``8`` from the top, as printed).
* A bitboard is a pair of uint32 words: ``lo`` holds squares 0-31 (bit ``i`` = square
  ``i``), ``hi`` squares 32-63 (bit ``i`` = square ``32 + i``). x64 stays off: 64-bit shifts
  are written as pairs of 32-bit shifts with the carry moved between the words.
* Actions: ``0..63`` place a disc on that square; ``64`` (:data:`PASS`) passes, legal only
  when no placement is.
* :class:`OthelloState` holds the discs relative to the side to move, ``own`` and ``opp``
  (so a move is ``own, opp = opp ^ flips, own | square | flips``: no branch on the colour),
  ``moves`` (the legal squares of the side to move, kept so that ``legal_mask`` costs
  nothing and ``terminal`` is a read), ``player`` (int8, 0 Black, 1 White), ``passes``
  (int8: 0 the side to move can place a disc, 1 it must pass, 2 neither side can: game
  over), ``opp_mobility`` (int8: the other side's placements, which ``step`` generates
  anyway to set ``passes``; EVAL's mobility term reads it) and ``hash`` (the Zobrist key,
  kept incrementally). Every 64-bit quantity is a :class:`Words` pair of uint32 scalars
  ``(lo, hi)`` rather than one ``uint32[2]`` array: with ``[B, 2]`` fields XLA's CPU backend
  computed the whole move generation once per word, unvectorised (many times slower per
  step).

Move generation: for each direction ``d`` (a shift by +-1, +-7, +-8 or +-9 squares),
``t = shift(own) & opp'``, then five times ``t |= shift(t) & opp'``, and the moves are
``shift(t) & empty``; ``opp'`` is ``opp`` without the a- and h-files for the six directions
that move sideways, so nothing wraps from one row to the next. Flips of a placement ``m``:
the same flood started from ``m``, kept where it ends on an own disc. The four axes are
walked by a ``fori_loop`` (both directions of an axis per iteration, unrolled inside): fully
unrolled, XLA copied the floods into every consumer of their result, which made alpha-beta
several times slower per node and its compilation several times longer.

Zobrist key: ``Z[square, Black]`` are random; ``Z[square, White] = Z[square, Black] ^
D(square)`` with ``D`` a fixed linear, invertible bit mix (xorshift steps). A move XORs in
the side key, ``Z[placed, Black]`` and ``D(flips, plus the placed square if White moved)``:
a few shifts, where independent White keys would need one table lookup per flipped disc.
Positions with the same occupied squares never share a key (``D`` is invertible); others
collide with probability ``2**-64`` as with any Zobrist key.

Utility: win/draw/loss by disc count, ``[1, -1]``, ``[0, 0]`` or ``[-1, 1]`` for Black and
White (:func:`jaxgames.game.two_player_utility`); :meth:`Othello.disc_difference` gives the
final disc difference (Black minus White, optionally with the empty squares given to the
winner as in World Othello Federation scoring).

Notation (host side, :meth:`Othello.parse` / :meth:`Othello.format`):

* a board string: 64 characters, ``a1`` to ``h1``, then ``a2`` ... ``h8``, each ``X``
  (Black), ``O`` (White) or ``-`` (empty; ``.`` also reads as empty; case-insensitive),
  then the side to move ``X`` or ``O``, e.g. the start is
  ``"---------------------------OX------XO--------------------------- X"``. Spaces, ``/``
  between rows and a trailing ``;`` are ignored.
* a move list from the start: ``"f5d6c3d3c4"``, each move a column letter and a row digit;
  a pass is ``ps`` (or ``pa``); a forced pass may also be left out (it is inserted, since it
  is the only legal move). ``""`` or ``"start"`` is the start position.

A move is written ``"f5"``; the pass is ``"ps"``.

Evaluation (:meth:`Othello.evaluate`): ``tanh`` of a weighted sum of features, see
:data:`EVAL_FEATURES` and :meth:`Othello.eval_features`. Exact endgames: alpha-beta to the
end, see :meth:`Othello.endgame_depth`. Forward pruning: the fitted ProbCut model
:data:`PROBCUT` (``ProbCut(**game.probcut_params)``).

The code lives in these modules:

* :mod:`.board`: square masks, :class:`Words` and :class:`OthelloState`, the bitboard
  operations (traced, and host versions on Python ints);
* :mod:`.rules`: the :class:`Othello` game (``step``, terminal states, utility, the key);
* :mod:`.evaluation`: the evaluation, move ordering, ProbCut and the endgame depth;
* :mod:`.notation`: board strings, move lists and moves (host side).
"""

from jaxgames.games.othello.board import PASS, OthelloState, Words
from jaxgames.games.othello.evaluation import EVAL_FEATURES, EVAL_SCALE, PROBCUT
from jaxgames.games.othello.notation import START_TEXT, square_name
from jaxgames.games.othello.rules import Othello, OthelloDiscs

__all__ = [
    "EVAL_FEATURES",
    "EVAL_SCALE",
    "PASS",
    "PROBCUT",
    "START_TEXT",
    "Othello",
    "OthelloDiscs",
    "OthelloState",
    "Words",
    "square_name",
]
