"""A small pure-Python backgammon move generator, written from the rules, for the tests.

It shares no code with the package's JAX game: it is the independent oracle that the game's
tests compare against, and it is itself checked against outside truth (published opening-roll
counts, GNU Backgammon's move lists and OpenSpiel) in ``test_backgammon_reference.py``.

Conventions
-----------
A position is always seen from the player ON ROLL, as a pair ``(own, opp)``. Each side is a
tuple of 26 ints, in that side's OWN numbering:

* index 0: checkers borne off;
* indices 1..24: checkers on the points, numbered from that side's own perspective: a side
  moves its checkers from 24 towards 1, and its home board is 1..6;
* index 25: checkers on the bar.

Both sides count in their own numbering, so own point ``p`` is opponent point ``25 - p``.
A side always has 15 checkers in total, and no point holds checkers of both sides.

A single checker move is a pair ``(source, die)`` with ``source`` in 1..25 (25 = the bar);
the checker lands on ``source - die``, or is borne off when that is 0 or less.

The results of a whole roll (``legal_plays``) are still seen from the same player's view,
not swapped; ``swap`` gives the position from the other player's view, i.e. ready for the
opponent's roll.

Rules implemented (standard backgammon, no doubling cube):

* checkers on the bar must all enter (on opponent's home board = own points 19..24) before
  any other checker moves;
* a point held by 2+ opposing checkers is blocked; landing on a lone opposing checker (a
  blot) hits it: it goes to the opponent's bar;
* bearing off only when all 15 own checkers are in the home board or already off; a die
  larger than needed bears off from a point only when no own checker is on a higher point;
* doubles are played four times; the player must use as many dice as possible (both dice,
  or as many of the four as possible); if only one die of a non-double can be used and
  either could be, the larger must be used; if nothing can be played the position is
  unchanged (a single "pass" play).

Position IDs follow GNU Backgammon: 80 bits, for each of two halves the points 1..24 then the
bar, each as that many 1-bits followed by a 0-bit, packed least significant bit first into 10
bytes and written as 14 base64 characters. GNU Backgammon prints the half of the player NOT
on roll first, then the half of the player on roll (checked against its own output when the
fixtures in ``reference/gnubg_backgammon.json`` were made).
"""

from __future__ import annotations

import base64
import random
from collections.abc import Sequence

Side = tuple[int, ...]
"""26 ints: [0] borne off, [1..24] points in this side's own numbering, [25] bar."""
Position = tuple[Side, Side]
"""``(own, opp)`` from the view of the player on roll."""
Move = tuple[int, int]
"""One checker move ``(source, die)``; source 25 is the bar."""

OFF = 0
BAR = 25
NUM_CHECKERS = 15

_START_SIDE: Side = tuple(
    {6: 5, 8: 3, 13: 5, 24: 2}.get(i, 0) for i in range(26)
)  # 5 on the 6-point, 3 on the 8, 5 on the mid-point (13), 2 on the 24 (the back checkers)
START: Position = (_START_SIDE, _START_SIDE)
"""The standard starting position (the same from either side's view)."""


def swap(own: Side, opp: Side) -> Position:
    """The same position from the other player's view (e.g. after the turn passes)."""
    return opp, own


def check_position(own: Side, opp: Side) -> None:
    """Raise ``ValueError`` unless ``(own, opp)`` is a well-formed position."""
    for side in (own, opp):
        if len(side) != 26 or min(side) < 0 or sum(side) != NUM_CHECKERS:
            raise ValueError(f"a side needs 26 non-negative counts summing to 15: {side}")
    for p in range(1, 25):
        if own[p] and opp[25 - p]:
            raise ValueError(f"both sides on own point {p}")


def _all_home(own: Side) -> bool:
    """True when every own checker not yet borne off is in the home board (points 1..6)."""
    return not any(own[7:26])


def move_destination(own: Side, opp: Side, source: int, die: int) -> int | None:
    """Where the checker on ``source`` lands with ``die`` (0 = borne off), or None if illegal.

    Checks everything about a single checker move: the bar-first rule, blocked points and the
    bear-off rules. (Whether the whole roll is then played fully is ``legal_sequences``'s job.)
    """
    if not 1 <= die <= 6 or not 1 <= source <= BAR or own[source] == 0:
        return None
    if own[BAR] and source != BAR:
        return None  # checkers on the bar must enter first
    target = source - die
    if target >= 1:
        return None if opp[25 - target] >= 2 else target
    # Bearing off.
    if not _all_home(own):
        return None
    if target < 0 and any(own[source + 1 : 7]):
        return None  # a larger die bears off only from the highest occupied point
    return OFF


def apply_move(own: Side, opp: Side, source: int, die: int) -> Position:
    """Play one checker move ``(source, die)``; raise ``ValueError`` if it is illegal."""
    target = move_destination(own, opp, source, die)
    if target is None:
        raise ValueError(f"illegal checker move {source}/{source - die}")
    new_own = list(own)
    new_own[source] -= 1
    new_own[target] += 1
    new_opp = list(opp)
    if target != OFF and opp[25 - target] == 1:
        new_opp[25 - target] = 0  # hit: the blot goes to the opponent's bar
        new_opp[BAR] += 1
    return tuple(new_own), tuple(new_opp)


def checker_moves(own: Side, opp: Side, die: int) -> list[tuple[int, Position]]:
    """All legal single checker moves with one die: ``(source, resulting position)``."""
    if own[OFF] == NUM_CHECKERS:
        return []  # the game is over
    return [
        (source, apply_move(own, opp, source, die))
        for source in range(BAR, 0, -1)
        if move_destination(own, opp, source, die) is not None
    ]


def _dice_list(dice: Sequence[int]) -> list[int]:
    d1, d2 = dice
    return [d1] * 4 if d1 == d2 else [d1, d2]


def _sequences(
    own: Side,
    opp: Side,
    dice_left: list[int],
    prefix: tuple[Move, ...],
    out: list[tuple[tuple[Move, ...], Position]],
) -> None:
    """Depth-first: extend ``prefix`` with every legal move of every remaining die value.

    A sequence ends when no remaining die can be played (or none is left); every such end is
    appended to ``out``, whatever its length: ``legal_sequences`` keeps the longest.
    """
    extended = False
    for die in sorted(set(dice_left), reverse=True):
        rest = list(dice_left)
        rest.remove(die)
        for source, (o, p) in checker_moves(own, opp, die):
            extended = True
            _sequences(o, p, rest, (*prefix, (source, die)), out)
    if not extended:
        out.append((prefix, (own, opp)))


def legal_sequences(
    own: Side, opp: Side, dice: Sequence[int]
) -> list[tuple[tuple[Move, ...], Position]]:
    """Every ordered checker-move sequence that is a legal way to play the whole roll.

    Returns ``(moves, resulting position)`` pairs, moves being ``(source, die)``. Only
    sequences of the maximal playable length are kept (both dice / as many of four as
    possible); for a non-double of which only one die can be played, only the larger die when
    it can be played. With no legal move the result is ``[((), (own, opp))]``.
    """
    found: list[tuple[tuple[Move, ...], Position]] = []
    _sequences(own, opp, _dice_list(dice), (), found)
    longest = max(len(moves) for moves, _ in found)
    found = [(moves, pos) for moves, pos in found if len(moves) == longest]
    d1, d2 = dice
    if longest == 1 and d1 != d2:
        larger = max(d1, d2)
        if any(moves[0][1] == larger for moves, _ in found):
            found = [(moves, pos) for moves, pos in found if moves[0][1] == larger]
    return found


def legal_plays(own: Side, opp: Side, dice: Sequence[int]) -> set[Position]:
    """The distinct positions ``(own, opp)`` (same player's view) after legally playing ``dice``.

    Distinct plays are counted by resulting position: ``24/23 13/11`` and ``13/11 24/23`` are
    one play. With no legal move the only play leaves the position unchanged.
    """
    return {pos for _, pos in legal_sequences(own, opp, dice)}


def count_sequences(own: Side, opp: Side, dice: Sequence[int]) -> int:
    """Number of ordered checker-move sequences of maximal legal length for ``dice``.

    A sequence is an ordered list of ``(source, die)`` moves; for a non-double both die orders
    count (2-1 from the start: 15 with the 2 first + 15 with the 1 first = 30), and for a
    double, moving checkers from different points in different orders counts separately
    (1-1 from the start: 245); checkers on the same point are not told apart. This is the
    definition that reproduces all 21 published opening counts. The no-move "pass" counts as
    one (empty) sequence.
    """
    return len(legal_sequences(own, opp, dice))


def apply_play(own: Side, opp: Side, moves: Sequence[Move]) -> Position:
    """Play checker moves ``(source, die)`` in order, each checked as a single move.

    Returns the position from the same player's view. It does not check that the sequence
    uses the whole roll: compare against ``legal_plays`` for that.
    """
    for source, die in moves:
        own, opp = apply_move(own, opp, source, die)
    return own, opp


def game_over(own: Side, opp: Side) -> bool:
    """True when one side has borne off all 15 checkers."""
    return own[OFF] == NUM_CHECKERS or opp[OFF] == NUM_CHECKERS


def _points_won(winner: Side, loser: Side) -> int:
    if loser[OFF] > 0:
        return 1  # single game
    # Gammon; a backgammon if the loser still has a checker on the bar or in the winner's
    # home board (winner's points 1..6 = loser's points 19..24).
    if loser[BAR] or any(loser[19:25]):
        return 3
    return 2


def result(own: Side, opp: Side) -> int:
    """Game value for ``own``: +1/+2/+3 if own has borne off all 15 (single/gammon/backgammon),
    -1/-2/-3 if opp has, 0 while the game goes on. No doubling cube.

    Gammon: the loser has borne off no checker. Backgammon: a gammon where the loser also has
    a checker on the bar or in the winner's home board.
    """
    if own[OFF] == NUM_CHECKERS:
        return _points_won(own, opp)
    if opp[OFF] == NUM_CHECKERS:
        return -_points_won(opp, own)
    return 0


def roll_dice(rng: random.Random) -> tuple[int, int]:
    """Two independent fair dice."""
    return rng.randint(1, 6), rng.randint(1, 6)


def random_game_positions(seed: int, n: int) -> list[tuple[Side, Side, tuple[int, int]]]:
    """``n`` positions ``(own, opp, dice)`` met in random games, the player on roll's view.

    Each turn rolls two dice (the first roll of a game is re-rolled until it is not a double,
    as in the opening roll) and plays a uniformly random element of ``legal_plays`` (sorted
    first, so the result depends only on ``seed``). A finished game is followed by a new one.
    """
    rng = random.Random(seed)
    out: list[tuple[Side, Side, tuple[int, int]]] = []
    own, opp = START
    first_roll = True
    while len(out) < n:
        dice = roll_dice(rng)
        while first_roll and dice[0] == dice[1]:
            dice = roll_dice(rng)
        first_roll = False
        out.append((own, opp, dice))
        own, opp = rng.choice(sorted(legal_plays(own, opp, dice)))
        if game_over(own, opp):
            (own, opp), first_roll = START, True
        else:
            own, opp = swap(own, opp)
    return out


# GNU Backgammon position IDs ------------------------------------------------------------


def position_id(own: Side, opp: Side) -> str:
    """GNU Backgammon's position ID of ``(own, opp)`` with ``own`` on roll.

    The half of the player not on roll (``opp``) comes first, as GNU Backgammon prints it.
    """
    bits: list[int] = []
    for side in (opp, own):
        for point in range(1, 26):  # points 1..24, then the bar
            bits += [1] * side[point] + [0]
    bits += [0] * (80 - len(bits))
    data = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(data).decode("ascii")[:14]  # drop the "==" padding


def from_position_id(pid: str) -> Position:
    """Inverse of ``position_id``: ``(own, opp)`` with ``own`` the player on roll."""
    data = base64.b64decode(pid + "==")
    if len(data) != 10:
        raise ValueError(f"not a position ID: {pid!r}")
    halves = [[0] * 26, [0] * 26]
    half, point = 0, 1
    for i in range(80):
        if half == 2:
            break
        if (data[i // 8] >> (i % 8)) & 1:
            halves[half][point] += 1
        else:
            point += 1
            if point == 26:
                half, point = half + 1, 1
    for side in halves:
        side[OFF] = NUM_CHECKERS - sum(side[1:])
    opp, own = (tuple(side) for side in halves)
    check_position(own, opp)
    return own, opp
