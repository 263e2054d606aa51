"""Backgammon notation (host side): the board string and GNU Backgammon's position ID in and
out, and moves written as GNU Backgammon writes them (``"24/18 13/10"``, ``"bar/22*"``,
``"6/off(2)"``).
"""

from __future__ import annotations

import base64
import re

import numpy as np

from jaxgames.game import GameError, split_fields
from jaxgames.games.backgammon.encoding import (
    _PTS,
    BAR,
    NUM_CHECKERS,
    OFF,
    ROLLS,
    BackgammonState,
)

_POSITION_ID = re.compile(r"[A-Za-z0-9+/]{14}(:[^:\s]*){0,2}")  # ID[:dice[:player]]


class BackgammonNotation:
    """The host-side notation of :class:`~jaxgames.games.backgammon.Backgammon` (a mixin: it
    reads the plays and moves of the game it is mixed into)."""

    def action_to_string(self, state: BackgammonState, action: int) -> str:
        """GNU Backgammon style: ``"24/18 13/10"``, ``"bar/22*"``, ``"6/off(2)"``; ``"pass"``
        for the empty play; at a chance node the roll, ``"31"``."""
        dice = np.asarray(state.dice)
        if int(dice[0]) == 0:
            hi, lo = ROLLS[int(action)]
            return f"{hi}{lo}"
        moves = self.moves_of(state, int(action))
        if not moves:
            return "pass"
        return _format_moves(moves)

    def string_to_action(self, state: BackgammonState, text: str) -> int:
        """Move text (any order of its parts) -> the legal action leading to that position.

        Raises:
            GameError: malformed text, or no legal play (or more than one) matches.
        """
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {text!r} after the game is over")
        low = text.strip().lower()
        dice = np.asarray(state.dice)
        if int(dice[0]) == 0:
            digits = re.sub(r"[\s\-]", "", low)
            if len(digits) != 2 or not digits.isdigit() or not all(c in "123456" for c in digits):
                raise GameError(f"{self.name}: bad roll {text!r}; expected two dice like '31'")
            hi, lo = max(int(digits[0]), int(digits[1])), min(int(digits[0]), int(digits[1]))
            return int(hi * (hi - 1) // 2 + lo - 1)
        if low.isdigit():
            action = int(low)
            self._check_legal(state, action, text)
            return action
        own0 = np.asarray(state.own).astype(int)
        delta, marked = _parse_moves(text, self.name)
        target = own0.copy()
        for point, n in delta.items():
            target[point] += n
        if np.any(target < 0):
            raise GameError(f"{self.name}: move {text!r} moves checkers that are not there")
        candidates = []
        for action, (mine, _) in self.plays(state).items():
            if tuple(target) == mine:
                candidates.append(action)
        if not candidates:
            raise GameError(f"{self.name}: illegal move {text!r} for dice {dice[0]}{dice[1]}")
        if len(candidates) > 1:
            hits = {a: {to for _, to, h in self.moves_of(state, a) if h} for a in candidates}
            dests = _dests(text)
            exact = [a for a in candidates if hits[a] == marked]
            loose = [a for a in candidates if hits[a] - dests == marked - dests]
            candidates = exact if len(exact) == 1 else loose
            if len(candidates) != 1:
                raise GameError(
                    f"{self.name}: move {text!r} is ambiguous; mark hits on the way with '*' "
                    "(e.g. 24/18*/13)"
                )
        return candidates[0]

    def position_id(self, state: BackgammonState) -> str:
        """GNU Backgammon's 14-character position ID, from the side of the player on roll.

        Bits: for each of the two players (first the player NOT on roll, then the player on
        roll, as GNU Backgammon prints it), for points 1..24 then the bar in that player's
        numbering, one ``1`` per checker and a ``0`` after each point; 80 bits packed
        least-significant bit first into 10 bytes, written as base64 without the last 2
        characters.
        """
        return position_id(np.asarray(state.own), np.asarray(state.opp))

    def format(self, state: BackgammonState) -> str:
        """State -> ``"x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31"``."""
        own, opp = np.asarray(state.own), np.asarray(state.opp)
        p = int(state.player)
        boards = {p: own, 1 - p: opp}
        parts = []
        for side in (0, 1):
            board = boards[side]
            entries = []
            if board[BAR]:
                entries.append(f"bar:{int(board[BAR])}")
            for point in range(24, 0, -1):
                if board[point]:
                    entries.append(f"{point}:{int(board[point])}")
            if board[OFF]:
                entries.append(f"off:{int(board[OFF])}")
            parts.append(f"{'xo'[side]}: " + " ".join(entries))
        dice = np.asarray(state.dice)
        roll = f"{int(dice[0])}{int(dice[1])}" if dice[0] else "-"
        return " ".join(parts) + f" to_move={'xo'[p]} dice={roll}"

    position_formats = (
        ("GNU Backgammon position ID, optionally :dice and :player to move", "4HPwATDgc/ABMA:31"),
        (
            "board: each side's checkers as point:count (bar:, off:), then to_move= and dice=",
            "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31",
        ),
        ("the start, x to roll", "start"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """A position ID is one field; a board string runs to its ``to_move=`` and
        ``dice=`` fields (the first other field after them starts the label)."""
        fields = line.split()
        if not fields or _POSITION_ID.fullmatch(fields[0]):
            return split_fields(line, 1)
        count, closing = 0, False
        for field in fields:
            tail = field.lower().startswith(("to_move=", "dice="))
            if closing and not tail:
                break
            closing = closing or tail
            count += 1
        return split_fields(line, count)

    def parse(self, text: str) -> BackgammonState:
        """A board string (see the module doc), a position ID (``"ID"``, ``"ID:31"``,
        ``"ID:31:o"``), or ``""``/``"start"`` -> state.

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self.init()
        if _POSITION_ID.fullmatch(stripped):
            return self._parse_id(stripped)
        return self._parse_board(stripped)

    def _parse_id(self, text: str) -> BackgammonState:
        fields = text.split(":")
        try:
            own, opp = from_position_id(fields[0])
        except ValueError as err:
            raise GameError(f"{self.name}: position ID {fields[0]!r}: {err}") from None
        dice = (0, 0)
        if len(fields) > 1 and fields[1].strip() not in ("", "-", "00"):
            dice = _parse_dice(fields[1].strip(), self.name, f"dice {fields[1]!r} after the ID")
        player = 0
        if len(fields) > 2:
            who = fields[2].strip().lower()
            if who not in ("x", "o"):
                raise GameError(f"{self.name}: player {fields[2]!r} after the ID: expected x or o")
            player = "xo".index(who)
        return self._checked(own, opp, player, dice)

    def _parse_board(self, text: str) -> BackgammonState:
        boards: dict[int, np.ndarray] = {}
        offs: dict[int, int] = {}
        side = None
        player = None
        dice = None
        for match in re.finditer(r"\S+", text):
            token, pos = match.group(0), match.start() + 1
            low = token.lower()
            where = f"{self.name}: token {token!r} at character {pos}"
            if low in ("x:", "o:"):
                side = "xo".index(low[0])
                if side in boards:
                    raise GameError(f"{where}: player {low[0]} is listed twice")
                boards[side] = np.zeros((_PTS,), np.int64)
                continue
            if low.startswith("to_move="):
                who = low.split("=", 1)[1]
                if who not in ("x", "o"):
                    raise GameError(f"{where}: to_move must be x or o")
                player = "xo".index(who)
                continue
            if low.startswith("dice="):
                value = low.split("=", 1)[1]
                dice = (0, 0) if value in ("-", "", "00") else _parse_dice(value, self.name, where)
                continue
            m = re.fullmatch(r"(bar|off|\d+):(\d+)", low)
            if not m:
                raise GameError(
                    f"{where}: expected 'x:', 'o:', 'point:count', 'to_move=' or 'dice='"
                )
            if side is None:
                raise GameError(f"{where}: a point comes before 'x:' or 'o:'")
            name, count = m.group(1), int(m.group(2))
            if name == "off":
                offs[side] = count
                continue
            point = BAR if name == "bar" else int(name)
            if not 1 <= point <= BAR:
                raise GameError(f"{where}: point {point} is not 1..24 or bar")
            if boards[side][point]:
                raise GameError(f"{where}: point {name} of {'xo'[side]} is listed twice")
            boards[side][point] = count
        for side in (0, 1):
            if side not in boards:
                raise GameError(
                    f"{self.name}: no checkers listed for {'xo'[side]} ('{'xo'[side]}:')"
                )
            on = int(boards[side][1:].sum())
            if on > NUM_CHECKERS:
                raise GameError(
                    f"{self.name}: {'xo'[side]} has {on} checkers on the board (max 15)"
                )
            boards[side][OFF] = NUM_CHECKERS - on
            if side in offs and offs[side] != boards[side][OFF]:
                raise GameError(
                    f"{self.name}: {'xo'[side]} lists off:{offs[side]} but has {on} checkers on "
                    f"the board (off must be {NUM_CHECKERS - on})"
                )
        if player is None:
            raise GameError(f"{self.name}: missing to_move=x or to_move=o")
        p = player
        return self._checked(boards[p], boards[1 - p], p, dice or (0, 0))

    def _checked(self, own, opp, player: int, dice) -> BackgammonState:
        own = np.asarray(own, np.int64)
        opp = np.asarray(opp, np.int64)
        for name, board in (("mover", own), ("opponent", opp)):
            if board.sum() != NUM_CHECKERS or np.any(board < 0):
                raise GameError(f"{self.name}: the {name} does not have 15 checkers")
        for t in range(1, 25):
            if own[t] and opp[25 - t]:
                raise GameError(
                    f"{self.name}: both players have checkers on point {t} of the player to move"
                )
        if own[OFF] == NUM_CHECKERS and opp[OFF] == NUM_CHECKERS:
            raise GameError(f"{self.name}: both players have borne off all checkers")
        return self._state_from_boards(own, opp, player, dice)

    def sample_positions(self) -> list[str]:
        """A few positions: the start (to roll and with a roll), a middle game, a position
        with a checker on the bar, a bear-off and a doubles roll."""
        return [
            "start",
            "4HPwATDgc/ABMA:31",
            "x: 24:2 13:4 8:2 7:2 6:5 o: 24:2 13:5 8:3 6:4 5:1 to_move=x dice=64",
            "x: bar:1 24:1 13:5 8:3 6:5 o: 13:5 8:3 6:5 5:2 to_move=x dice=52",
            "x: 6:3 5:3 4:2 3:2 2:1 1:1 o: 6:4 5:4 4:3 3:2 to_move=x dice=44",
            "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=o dice=11",
        ]


# ---------------------------------------------------------------------- host functions
def _parse_dice(value: str, name: str, where: str) -> tuple[int, int]:
    digits = value.replace("-", "")
    if len(digits) != 2 or not all(c in "123456" for c in digits):
        raise GameError(f"{name}: {where}: dice must be two digits 1..6 like 31")
    a, b = int(digits[0]), int(digits[1])
    return max(a, b), min(a, b)


def _point_name(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def _format_moves(moves: list[tuple[int, int, bool]]) -> str:
    """GNU Backgammon style text of checker moves ``(from, to, hit)`` in play order."""
    paths: list[list[tuple[int, bool]]] = []  # each: [(point, hit on arrival), ...]
    for s, t, hit in moves:
        for path in paths:
            if path[-1][0] == s and s != OFF:
                path.append((t, hit))
                break
        else:
            paths.append([(s, False), (t, hit)])
    texts = []
    for path in paths:
        parts = [_point_name(path[0][0])]
        for i, (p, hit) in enumerate(path[1:], start=1):
            last = i == len(path) - 1
            if hit or last:
                parts.append(_point_name(p) + ("*" if hit else ""))
        texts.append(("/".join(parts), path[0][0], path[-1][0]))
    texts.sort(key=lambda x: (-x[1], -x[2], x[0]))
    out = []
    i = 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j][0] == texts[i][0]:
            j += 1
        out.append(texts[i][0] + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


_MOVE_TOKEN = re.compile(r"^((?:bar|off|\d+)\*?(?:/(?:bar|off|\d+)\*?)+)(?:\((\d)\))?$")


def _parse_point(text: str, name: str, token: str) -> int:
    if text == "bar":
        return BAR
    if text == "off":
        return OFF
    p = int(text)
    if not 0 <= p <= BAR:
        raise GameError(f"{name}: point {p} in move {token!r} is not 1..24, bar or off")
    return p


def _parse_moves(text: str, name: str) -> tuple[dict[int, int], set[int]]:
    """Move text -> (change of the mover's counts per point, points marked as hit)."""
    t = text.strip().lower()
    if t in ("pass", "", "-"):
        return {}, set()
    delta: dict[int, int] = {}
    marked: set[int] = set()
    for token in t.replace(",", " ").split():
        m = _MOVE_TOKEN.match(token)
        if not m:
            raise GameError(
                f"{name}: bad move part {token!r}; expected e.g. 24/18, bar/22*, 6/off(2)"
            )
        times = int(m.group(2) or 1)
        points = []
        for part in m.group(1).split("/"):
            hit = part.endswith("*")
            p = _parse_point(part.rstrip("*"), name, token)
            if hit:
                marked.add(p)
            points.append(p)
        if any(b >= a and a != BAR for a, b in zip(points, points[1:], strict=False)) or any(
            b == BAR for b in points[1:]
        ):
            raise GameError(f"{name}: move part {token!r} does not move toward home")
        delta[points[0]] = delta.get(points[0], 0) - times
        delta[points[-1]] = delta.get(points[-1], 0) + times
    return delta, marked


def _dests(text: str) -> set[int]:
    out = set()
    for token in text.strip().lower().replace(",", " ").split():
        last = token.split("(")[0].split("/")[-1].rstrip("*")
        out.add(BAR if last == "bar" else OFF if last == "off" else int(last))
    return out


def position_id(own, opp) -> str:
    """GNU Backgammon position ID of (player on roll's board, opponent's board), each a
    26-vector in its owner's numbering (0 off, 1..24, 25 bar)."""
    bits: list[int] = []
    for board in (opp, own):  # the player NOT on roll first, as GNU Backgammon prints
        for point in range(1, 26):
            bits.extend([1] * int(board[point]))
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    key = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(key).decode("ascii")[:14]


def from_position_id(pid: str) -> tuple[np.ndarray, np.ndarray]:
    """(own, opp) boards (26-vectors, off counts filled in) of a GNU Backgammon position ID.

    Raises:
        ValueError: not 14 base64 characters, or not a valid position.
    """
    if not re.fullmatch(r"[A-Za-z0-9+/]{14}", pid):
        raise ValueError("expected 14 base64 characters (A-Z a-z 0-9 + /)")
    key = base64.b64decode(pid + "==")
    bits = [(key[i] >> j) & 1 for i in range(10) for j in range(8)]
    boards = [np.zeros((_PTS,), np.int64), np.zeros((_PTS,), np.int64)]
    pos = 0
    for half in range(2):
        for point in range(1, 26):
            while pos < 80 and bits[pos]:
                boards[half][point] += 1
                pos += 1
            pos += 1
    opp, own = boards
    for label, board in (("player on roll", own), ("opponent", opp)):
        on = int(board[1:].sum())
        if on > NUM_CHECKERS:
            raise ValueError(f"the {label} has {on} checkers (max 15)")
        board[OFF] = NUM_CHECKERS - on
    return own, opp
