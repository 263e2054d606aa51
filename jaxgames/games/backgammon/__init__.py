"""Backgammon (money-game scoring, no doubling cube), with full-turn moves.

Rules: two players (``x`` = player 0, ``o`` = player 1) each move 15 checkers around 24
points toward their home board and bear them off. Each player numbers the points from their
own side: a checker moves from the 24-point toward the 1-point, the home board is points
1..6, the bar is "point 25" and borne-off checkers are "point 0". A turn is a roll of two
dice; each die moves one checker that many points, doubles move four times. A checker on the
bar must enter (on the opponent's home board, point ``25 - die``) before any other checker
moves. A point held by two or more opposing checkers is blocked; landing on a single opposing
checker (a blot) hits it and sends it to the bar. Checkers are borne off only while all 15
are in the home board (or off); a die larger than the highest occupied point bears off from
that point only when no checker stands higher. A player must use both dice when possible
(for doubles: as many moves as possible); when only one die can be used, the larger one when
either could be; when nothing can be played the turn passes. The first player to bear off
all 15 checkers wins 1 point, 2 (a gammon) when the loser bore off none, 3 (a backgammon)
when the loser bore off none and still has a checker on the bar or in the winner's home
board. The opening is simplified: the game starts with an ordinary roll for ``x`` (doubles
allowed) instead of the one-die-each roll that decides who starts.

Game graph: a CHANCE node rolls both dice (21 outcomes, see below) and a DECISION node
chooses a whole turn's play; they alternate, starting with the chance node. A decision where
nothing can be played has exactly one legal action, the pass (the empty play).

Chance outcomes: outcome ``k`` is the roll :data:`ROLLS` ``[k] = (hi, lo)``, ordered by
``hi`` then ``lo``: ``11, 21, 22, 31, 32, 33, 41, ..., 66``; doubles have probability 1/36,
the 15 others 1/18.

Actions (``num_actions = 23751``): one action per DISTINCT position the roll can lead to.

* Non-doubles (``hi > lo``): ``action = order * 676 + s1 * 26 + s2`` (codes ``0..1351``),
  where ``order`` 0 plays the high die first and 1 the low die first, ``s1`` is the point
  the first checker leaves and ``s2`` the point the second leaves (in the mover's own
  numbering, looked up on the board as it is after the first move). A point is ``1..24``,
  ``25`` is the bar and ``0`` means "no move". Several codes can give the same position (one
  checker moving ``hi + lo`` either way round, two independent moves in either order, two
  checkers borne off with either die); of each such group only the smallest legal code is
  legal, so the legal actions and the resulting positions are in one-to-one correspondence.
  The rules for which codes coincide are exact (no hashing; see ``_non_doubles_mask``).
* Doubles ``d``: a play is a multiset of at most four sources (points left, ``25`` = bar),
  applied in non-increasing order (the bar first). Every legal play can be reordered that
  way and stays legal (moving from a higher point first never blocks a lower move, empties
  the bar first and only helps bearing off), and two different multisets give different
  positions (the change of the mover's checkers ``sum(e[s - d] - e[s])`` over the sources
  determines the multiset). The codes are the non-increasing sequences
  ``s1 >= s2 >= s3 >= s4`` over ``0..25`` (``0`` = no move, so shorter plays are padded with
  zeros at the end): ``C(29, 4) = 23751`` of them, numbered by the combinatorial number system
  ``action = C(s1 + 3, 4) + C(s2 + 2, 3) + C(s3 + 1, 2) + C(s4, 1)``.

  The empty play (code 0 in both families) is the pass.

Why no position can exceed the action space: every legal play of a non-doubles roll is at
most two checker moves, each named by its source (26 symbols) and the order of the dice (2),
so it has a code in ``2 * 26 * 26``; every legal play of doubles is a multiset of at most four
sources, which has exactly one code among the ``C(29, 4)`` non-increasing sequences. Hence the
number of legal actions of any position is at most 23751; the largest found in random and
constructed positions is 2,226 (1-1 with single checkers on 15 points), and random
games rarely see more than a few hundred.

Compact move lists (the MoveLists capability, :meth:`Backgammon.legal_moves`): no position has
more than ``max_moves = 3060`` legal plays, so a search holds a list of 3,060 moves per node,
not 23,751 slots. Proof: a play gives each of the mover's checkers a number of steps (dice
used), and the position it leads to follows from those numbers alone (a hit happens on every
point a checker lands on that holds a single opposing checker, in any order of the moves).
So the distinct positions are at most the ways to share the play's ``n <= 4`` steps among the
checkers, where checkers on the same point are alike: for each point, a partition of its
share into at most as many parts as it has checkers. With 15 checkers on 15 different points
that is ``C(15 + 4 - 1, 4) = 3060`` ways for 4 steps; any other spread of the checkers (and
fewer steps) gives fewer, as counting the ways over every spread of up to 15 checkers shows.
Non-doubles plays are at most ``15 * 15`` pairs of checkers, 2 * 15 single checkers moving
both dice and 15 single moves, far fewer.

Random playouts (the Sampling capability, :meth:`Backgammon.sample_actions`): a uniform draw
from the 23751-wide legal mask is dear (the whole mask is built, then sampled over). The
game therefore also counts the distinct plays of a roll and
decodes the ``r``-th one directly, exactly and without the mask: closed forms over the 26
points for non-doubles, and for doubles a dynamic program along the chains of points
``p, p - d, p - 2d, ...`` (see ``_doubles_table``), a small fixed amount of work per lane.
``sample_actions(states, uniform)`` draws with the kernel's distribution (uniform over the
legal actions, ``chance_probs`` at chance nodes) from one uniform per lane, and the playout
kernel draws through it (``benchmarks/backgammon.py`` measures both ways; the figures are
in ``benchmarks/README.md``).

State (:class:`BackgammonState`): ``own`` and ``opp`` (int8[26]) are the checkers of the
player to move (or to roll) and of the opponent, each in its owner's numbering (index 0 off,
1..24 points, 25 bar); ``dice`` (int8[2], ``(hi, lo)``, ``(0, 0)`` at a chance node);
``player`` (int8, whose checkers ``own`` holds) and ``hash`` (uint32[2], the Zobrist key).
After a play the two halves swap, so the rules are always written from the mover's side.

Utility: ``[u, -u]`` with ``u = +1/+2/+3`` when ``x`` won a single game / gammon /
backgammon, negative when ``o`` did; ``utility_min = -3``, ``utility_max = 3``.

Notation (host side, :meth:`Backgammon.parse` / :meth:`Backgammon.format`):

* the board string: each player's checkers in the owner's own numbering, then whose turn
  it is and the dice (``-`` when the dice are still to be rolled)::

      x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31

  Entries are ``point:count`` with point ``1..24``, ``bar`` or ``off``; borne-off checkers
  are implied (15 minus those on the board; an ``off`` entry must agree). ``dice=31`` and
  ``dice=13`` are the same roll.
* GNU Backgammon's position ID (14 characters) plus optional dice and player:
  ``"4HPwATDgc/ABMA"`` (start, ``x`` to roll), ``"4HPwATDgc/ABMA:31"`` (``x`` to play 3-1),
  ``"4HPwATDgc/ABMA:31:o"``. The ID is written from the side of the player on roll; as GNU
  Backgammon prints it, its first half holds the checkers of the player NOT on roll and the
  second half those of the player on roll (:meth:`Backgammon.position_id`).

Moves are written as GNU Backgammon writes them: ``"24/18 13/10"``, ``"bar/22 6/off"``,
``"24/18*/13"`` (a hit on the way), ``"8/5(2) 6/3(2)"``, and ``"pass"`` for the empty play.
:meth:`Backgammon.string_to_action` reads any order of the parts and finds the play by the
position it leads to. At a chance node an outcome is written as its dice, ``"31"``.

The code lives in these modules:

* :mod:`.encoding`: board indices, action code sizes, rolls, Zobrist keys, the state;
* :mod:`.legal`: the legal mask of a roll (every code checked at once);
* :mod:`.counting`, :mod:`.non_doubles`, :mod:`.doubles`: the exact counting and decoding
  of the distinct plays of a roll that random playouts and compact move lists use;
* :mod:`.rules`: the :class:`Backgammon` game (``step``, sampling, move lists, utility);
* :mod:`.evaluation`: the evaluation;
* :mod:`.notation`: board strings, position IDs and moves (host side).
* :mod:`.gnubg_player`: GNU Backgammon as an opponent (a ``gnubg`` process, host side).
"""

# Each name is re-exported as ``X as X``; the private ones are read by the tests, which
# check the samplers' tables directly.
from jaxgames.games.backgammon.doubles import _doubles_pick as _doubles_pick
from jaxgames.games.backgammon.doubles import _doubles_table as _doubles_table
from jaxgames.games.backgammon.encoding import BAR as BAR
from jaxgames.games.backgammon.encoding import DOUBLES_CODES as DOUBLES_CODES
from jaxgames.games.backgammon.encoding import DOUBLES_SOURCES as DOUBLES_SOURCES
from jaxgames.games.backgammon.encoding import MAX_PLAYS as MAX_PLAYS
from jaxgames.games.backgammon.encoding import NON_DOUBLES_CODES as NON_DOUBLES_CODES
from jaxgames.games.backgammon.encoding import NUM_CHECKERS as NUM_CHECKERS
from jaxgames.games.backgammon.encoding import OFF as OFF
from jaxgames.games.backgammon.encoding import ROLL_PROBS as ROLL_PROBS
from jaxgames.games.backgammon.encoding import ROLLS as ROLLS
from jaxgames.games.backgammon.encoding import START as START
from jaxgames.games.backgammon.encoding import BackgammonState as BackgammonState
from jaxgames.games.backgammon.encoding import doubles_rank as doubles_rank
from jaxgames.games.backgammon.non_doubles import _non_doubles_pick as _non_doubles_pick
from jaxgames.games.backgammon.non_doubles import _non_doubles_table as _non_doubles_table
from jaxgames.games.backgammon.notation import from_position_id as from_position_id
from jaxgames.games.backgammon.notation import position_id as position_id
from jaxgames.games.backgammon.rules import Backgammon as Backgammon
from jaxgames.games.backgammon.rules import _decode_moves as _decode_moves
