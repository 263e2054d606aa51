"""Othello notation (host side): board strings and move lists in and out, and moves written
``"f5"`` (the pass ``"ps"``).
"""

from __future__ import annotations

import re
from typing import Any

from jaxgames.game import GameError, split_fields
from jaxgames.games.othello.board import (
    PASS,
    OthelloState,
    _py_flips,
    _py_moves,
)

START_TEXT = "---------------------------OX------XO--------------------------- X"
_COLUMNS = "abcdefgh"
_BOARD_CHARS = {"x": 0, "o": 1, "-": None, ".": None}
_SIDE_CHARS = {"x": 0, "o": 1}
_MOVE_TOKEN = re.compile(r"([a-h][1-8]|ps|pa|pass)", re.IGNORECASE)


def square_name(square: int) -> str:
    """``0..63`` -> ``"a1".."h8"``; the pass -> ``"ps"``."""
    if square == PASS:
        return "ps"
    return _COLUMNS[square % 8] + str(square // 8 + 1)


class OthelloNotation:
    """The host-side notation of :class:`~jaxgames.games.othello.Othello` (a mixin: it makes
    states with the host helpers of the game it is mixed into)."""

    position_formats = (
        (
            "board: 64 squares a1..h1, a2..h2, ..., h8 (X black, O white, - empty), then the "
            "side to move (attached or after a space, a trailing ';' allowed)",
            "---------------------------OX------XO--------------------------- X",
        ),
        ("move list: squares a1..h8 from the start, ps a pass, no spaces", "f5d6c3"),
        ("the start", "start"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """A board string is the board field and, unless the side to move is attached to
        it, the next field (``<64 squares> X; H5:+6; ...``); a move list is one field."""
        first = line.split(None, 1)[0] if line.strip() else ""
        if any(c in "xXoO-." for c in first):
            squares = sum(c not in "/;" for c in first)
            return split_fields(line, 1 if squares >= 65 else 2)
        return split_fields(line, 1)

    def parse(self, text: str) -> OthelloState:
        """A board string with the side to move, a move list, or ``""``/``"start"`` -> state.

        Text holding ``x``, ``o``, ``-`` or ``.`` is a board string; other text a move list.
        The state's leaves are numpy arrays (host memory).

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self._host_state(0x0000000810000000, 0x0000001008000000, 0)
        if any(c in "xXoO-." for c in stripped):
            return self._parse_board(stripped)
        black, white, player, _ = self._replay(stripped)
        return self._host_state(black, white, player)

    def _parse_board(self, text: str) -> OthelloState:
        chars = [c for c in text if not (c.isspace() or c == "/")]
        if chars and chars[-1] == ";":
            chars.pop()
        if len(chars) != 65:
            raise GameError(
                f"{self.name}: board string has {len(chars)} characters without spaces, "
                "expected 64 squares (X, O, -) and the side to move (X or O)"
            )
        black = white = 0
        for square, c in enumerate(chars[:64]):
            if c.lower() not in _BOARD_CHARS:
                raise GameError(
                    f"{self.name}: bad character {c!r} for square {square_name(square)} "
                    "(expected X, O, - or .)"
                )
            colour = _BOARD_CHARS[c.lower()]
            if colour == 0:
                black |= 1 << square
            elif colour == 1:
                white |= 1 << square
        side = chars[64].lower()
        if side not in _SIDE_CHARS:
            raise GameError(f"{self.name}: bad side to move {chars[64]!r} (expected X or O)")
        return self._host_state(black, white, _SIDE_CHARS[side])

    def parse_moves(self, text: str) -> list[int]:
        """A move list ``"f5d6c3"`` -> actions ``[37, 43, 18]``, forced passes included.

        Raises:
            GameError: a bad token, an illegal move, a move after the end.
        """
        stripped = text.strip()
        if stripped.lower() in ("", "start"):
            return []
        return self._replay(stripped)[3]

    def moves_to_string(self, actions: Any) -> str:
        """Actions ``[37, 43, 18]`` -> ``"f5d6c3"`` (a pass is ``"ps"``)."""
        return "".join(square_name(int(a)) for a in actions)

    def _replay(self, text: str) -> tuple[int, int, int, list[int]]:
        """Play a move list from the start on host boards: (black, white, player, actions)."""
        black, white, player = 0x0000000810000000, 0x0000001008000000, 0
        actions: list[int] = []
        pos = 0
        while pos < len(text):
            if text[pos].isspace():  # "f5d6 3" is the move list f5d6 and a label
                raise GameError(
                    f"{self.name}: move list {text!r} has a space at character {pos + 1}; a "
                    "move list is one word (in a positions file, what follows is a label)"
                )
            if text[pos] in ",;":
                pos += 1
                continue
            match = _MOVE_TOKEN.match(text, pos)
            where = f"{self.name}: move {len(actions) + 1} at character {pos + 1}"
            if not match:
                raise GameError(
                    f"{where}: bad move {text[pos : pos + 2]!r}; expected a1..h8 or ps (pass)"
                )
            token = match.group(0).lower()
            own, opp = (black, white) if player == 0 else (white, black)
            moves = _py_moves(own, opp)
            if not moves and not _py_moves(opp, own):
                raise GameError(f"{where} ({token!r}): the game is already over")
            if token[0] == "p":
                if moves:
                    raise GameError(f"{where}: pass while a disc can be placed")
                square = PASS
            else:
                if not moves:  # a forced pass left out of the list: insert it
                    actions.append(PASS)
                    player = 1 - player
                    continue
                square = _COLUMNS.index(token[0]) + 8 * (int(token[1]) - 1)
                if not moves >> square & 1:
                    raise GameError(f"{where}: illegal move {token!r}")
            if square != PASS:
                flips = _py_flips(own, opp, square)
                own, opp = own | (1 << square) | flips, opp & ~flips
                black, white = (own, opp) if player == 0 else (opp, own)
            actions.append(square)
            player = 1 - player
            pos = match.end()
        return black, white, player, actions

    def format(self, state: OthelloState) -> str:
        """State -> board string: 64 squares ``a1..h8`` of ``X``/``O``/``-``, a space, the
        side to move."""
        black, white, player = self._host_boards(state)
        squares = "".join(
            "X" if black >> s & 1 else ("O" if white >> s & 1 else "-") for s in range(64)
        )
        return f"{squares} {'XO'[player]}"

    def action_to_string(self, state: OthelloState, action: int) -> str:
        """``"a1".."h8"``, or ``"ps"`` for the pass."""
        return square_name(int(action))

    def string_to_action(self, state: OthelloState, text: str) -> int:
        """``"f5"`` or ``"ps"``/``"pass"`` -> action. Raises GameError when malformed or illegal."""
        t = text.strip().lower()
        if t in ("ps", "pa", "pass"):
            action = PASS
        elif len(t) == 2 and t[0] in _COLUMNS and t[1] in "12345678":
            action = _COLUMNS.index(t[0]) + 8 * (int(t[1]) - 1)
        else:
            raise GameError(f"{self.name}: bad move {text!r}; expected a1..h8 or ps (pass)")
        self._check_legal(state, action, text)
        return action

    def sample_positions(self) -> list[str]:
        """A dozen positions: the start, openings as move lists, and a late board string."""
        return [
            "",
            "f5",
            "f5d6",
            "f5f6",
            "f5d6c3d3c4",
            "f5d6c5f4e3",
            "f5f6e6f4e3",
            "f5d6c3d3c4f4c5b3c2",
            "f5f6e6f4g5e7f7h5e3d3",
            "f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1",
            "f5d6c4d3c3f4c5b3c2e3d2c6b4a4",
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
        ]
