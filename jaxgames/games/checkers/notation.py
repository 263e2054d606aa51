"""Checkers notation (host side): PDN FEN positions in and out, moves written ``11-15`` or
``15x24`` (one jump), or as OpenSpiel writes them (``a3b4``), and OpenSpiel's board drawing.
"""

from __future__ import annotations

import re

import numpy as np

from jaxgames.game import GameError, whole_number
from jaxgames.games.checkers.board import (
    FROM,
    IS_CAPTURE,
    NUM_ACTIONS,
    SQUARE_AT,
    TO,
    CheckersState,
    py_captures,
    square_row_column,
)

START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
_EXTRA = re.compile(r"(quiet|jump)=(\S+)$")
_ITEM = re.compile(r"(K?)(\d+)(?:-(\d+))?$")
_NUMERIC_MOVE = re.compile(r"(\d+)([-x])(\d+)$")
_OPENSPIEL_MOVE = re.compile(r"([a-h])([1-8])([a-h])([1-8])$")
# OpenSpiel's drawing: player 0 (Black here) is "o" and its king "8"; player 1 "+" and "*"
_DRAWN = {(0, False): "o", (0, True): "8", (1, False): "+", (1, True): "*"}


def openspiel_square(square: int) -> str:
    """The square (0-based) as OpenSpiel's coordinates: square 1 is ``g1``."""
    row, column = square_row_column(square)
    return "abcdefgh"[column] + str(8 - row)


class CheckersNotation:
    """The host-side notation of :class:`~jaxgames.games.checkers.Checkers` (a mixin)."""

    position_formats = (
        (
            "PDN FEN: side to move (B moves first, from squares 1-12), then each side's "
            "squares 1-32, K before a king, ranges allowed; then optionally quiet=N (steps "
            "since the last capture) and jump=S (mid-jump, the piece on S must jump on)",
            "W:W21,22,K30:B1,2,K3",
        ),
        ("the start", "start"),
    )

    # ------------------------------------------------------------------ positions
    def split_position(self, line: str) -> tuple[str, str]:
        """The FEN field and any ``quiet=``/``jump=`` fields after it are the position."""
        fields = line.split()
        count = 1
        while count < len(fields) and _EXTRA.match(fields[count]):
            count += 1
        return " ".join(fields[:count]), " ".join(fields[count:])

    def parse(self, text: str) -> CheckersState:
        """PDN FEN (``W:W21,22:B1,2,K3``; a ``[FEN "..."]`` tag is read too) with optional
        ``quiet=N`` and ``jump=S`` fields, or ``""``/``"start"`` -> state (numpy leaves)."""
        text = text.strip()
        if text in ("", "start"):
            return self.host_state(0x00000FFF, 0xFFF00000, 0, 0)
        fields = text.split()
        tag = re.fullmatch(r'\[FEN\s+"([^"]*)"\]', " ".join(fields))
        if tag:
            fields = tag.group(1).split()
        fen, extras = fields[0], fields[1:]
        quiet, jumper = 0, -1
        for extra in extras:
            match = _EXTRA.match(extra)
            if not match:
                raise GameError(f"checkers: unexpected {extra!r} after the FEN {fen!r}")
            try:
                value = whole_number(match.group(2))
            except ValueError:
                raise GameError(f"checkers: {extra!r} is not a whole number") from None
            if match.group(1) == "quiet":
                quiet = value
            else:
                if not 1 <= value <= 32:
                    raise GameError(f"checkers: jump square {value} outside 1..32")
                jumper = value - 1
        black, white, kings, player = self._parse_fen(fen.rstrip("."))
        state = self.host_state(black, white, kings, player, jumper, quiet)
        if jumper >= 0:
            own, opp = (black, white) if player == 0 else (white, black)
            if not own >> jumper & 1:
                raise GameError(f"checkers: jump={jumper + 1} is not a piece of the side to move")
            if not py_captures(own, opp, kings, player) >> jumper & 1:
                raise GameError(f"checkers: the piece on {jumper + 1} has no jump (jump=)")
        return state

    def _parse_fen(self, fen: str) -> tuple[int, int, int, int]:
        parts = fen.split(":")
        if len(parts) != 3 or parts[0].upper() not in ("B", "W"):
            raise GameError(f"checkers: bad FEN {fen!r}; expected like 'W:W21,22:B1,2,K3'")
        player = 0 if parts[0].upper() == "B" else 1
        boards = {"B": 0, "W": 0}
        kings = 0
        for part in parts[1:]:
            colour = part[:1].upper()
            if colour not in boards or boards[colour]:
                raise GameError(f"checkers: bad FEN field {part!r} in {fen!r}")
            bits = 1 << 32  # marks the field as read, even when it lists no piece
            for item in filter(None, (x.strip() for x in part[1:].split(","))):
                match = _ITEM.match(item.upper())
                if not match:
                    raise GameError(f"checkers: bad square {item!r} in {fen!r}")
                first = int(match.group(2))
                last = int(match.group(3) or first)
                if not 1 <= first <= last <= 32:
                    raise GameError(f"checkers: square {item!r} outside 1..32 in {fen!r}")
                for square in range(first - 1, last):
                    if bits >> square & 1:
                        raise GameError(f"checkers: square {square + 1} listed twice")
                    bits |= 1 << square
                    if match.group(1):
                        kings |= 1 << square
            boards[colour] = bits
        black, white = boards["B"] & 0xFFFFFFFF, boards["W"] & 0xFFFFFFFF
        return black, white, kings, player

    def format(self, state: CheckersState) -> str:
        """State -> PDN FEN ``B:W21,...:B1,...,K3``, then ``quiet=N`` when N > 0 and
        ``jump=S`` mid-jump."""
        black, white, kings, player, jumper, quiet = self.host_fields(state)

        def listed(pieces: int) -> str:
            return ",".join(
                ("K" if kings >> s & 1 else "") + str(s + 1) for s in range(32) if pieces >> s & 1
            )

        text = f"{'BW'[player]}:W{listed(white)}:B{listed(black)}"
        if quiet:
            text += f" quiet={quiet}"
        if jumper >= 0:
            text += f" jump={jumper + 1}"
        return text

    def draw(self, state: CheckersState) -> str:
        """The board as OpenSpiel draws it: rank 8 first, ``o``/``8`` player 0's man/king
        (Black, on 1-12 at the start, drawn at the bottom), ``+``/``*`` player 1's, ``.``
        empty or a light square, the files below."""
        black, white, kings, *_ = self.host_fields(state)
        lines = []
        for row in range(8):
            line = str(8 - row)
            for column in range(8):
                s = int(SQUARE_AT[row, column])
                if s < 0 or not (black | white) >> s & 1:
                    line += "."
                else:
                    line += _DRAWN[(0 if black >> s & 1 else 1, bool(kings >> s & 1))]
            lines.append(line)
        return "\n".join(lines) + "\n abcdefgh\n"

    def sample_positions(self) -> list[str]:
        return [
            START_FEN,
            "W:W18,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,14",
            "B:WK14,K31:BK5,12",
        ]

    # ------------------------------------------------------------------ moves
    def action_to_string(self, state: CheckersState, action: int) -> str:
        """``"11-15"`` for a step, ``"15x24"`` for one jump (standard square numbers)."""
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            return str(a)
        sep = "x" if IS_CAPTURE[a] else "-"
        return f"{FROM[a] + 1}{sep}{TO[a] + 1}"

    def openspiel_action_string(self, action: int) -> str:
        """OpenSpiel's name of an action: the from and to squares, ``"a3b4"``."""
        a = int(action)
        return openspiel_square(int(FROM[a])) + openspiel_square(int(TO[a]))

    def string_to_action(self, state: CheckersState, text: str) -> int:
        """``"11-15"``, ``"15x24"`` (one jump), OpenSpiel's ``"a3b4"`` or an action id -> the
        legal action. Raises :class:`GameError`."""
        move = text.strip().lower()
        if move.isdigit():
            return super().string_to_action(state, move)
        numeric = _NUMERIC_MOVE.match(move)
        spiel = _OPENSPIEL_MOVE.match(move)
        if numeric:
            start, to = int(numeric.group(1)) - 1, int(numeric.group(3)) - 1
        elif spiel:
            start = int(SQUARE_AT[8 - int(spiel.group(2)), "abcdefgh".index(spiel.group(1))])
            to = int(SQUARE_AT[8 - int(spiel.group(4)), "abcdefgh".index(spiel.group(3))])
        elif re.fullmatch(r"\d+(x\d+){2,}", move):
            raise GameError(f"checkers: {text!r}: play a multi-jump one jump at a time (15x24)")
        else:
            raise GameError(f"checkers: bad move {text!r}; expected like 11-15, 15x24 or a3b4")
        legal = np.flatnonzero(np.asarray(self.legal_mask(state)))
        for a in legal:
            if FROM[a] == start and TO[a] == to:
                if numeric and (numeric.group(2) == "x") != bool(IS_CAPTURE[a]):
                    break
                return int(a)
        raise GameError(f"checkers: illegal move {text!r}")
