"""Go notation (host side): GTP vertices (``A1`` .. ``T19``, the letters skip ``I``, row 1
at the bottom) and ``pass``; positions as move lists (``D4 E5 pass C3``) or board strings;
a board drawing; and the host rules that replay a move list (plain Python, no tracing).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from jaxgames.game import GameError, split_fields
from jaxgames.games.go.board import BLACK, EMPTY, NO_KO, WHITE, GoState, zobrist_words

COLUMNS = "ABCDEFGHJKLMNOPQRST"
_TOKEN = re.compile(r"[^\s,]+")
_VERTEX = re.compile(r"([A-Za-z])(\d{1,2})")


def vertex_name(action: int, size: int) -> str:
    """Action -> GTP vertex: ``0`` -> ``"A1"``, ``size**2`` -> ``"pass"``."""
    if action == size * size:
        return "pass"
    return COLUMNS[action % size] + str(action // size + 1)


def host_neighbours(point: int, size: int) -> list[int]:
    row, col = divmod(point, size)
    out = []
    if row > 0:
        out.append(point - size)
    if row < size - 1:
        out.append(point + size)
    if col > 0:
        out.append(point - 1)
    if col < size - 1:
        out.append(point + 1)
    return out


def host_chain(board: list[int], point: int, size: int) -> tuple[set[int], set[int]]:
    """(the stones of the chain at ``point``, its liberties), by a plain search."""
    colour = board[point]
    stones, liberties, todo = {point}, set(), [point]
    while todo:
        q = todo.pop()
        for r in host_neighbours(q, size):
            if board[r] == EMPTY:
                liberties.add(r)
            elif board[r] == colour and r not in stones:
                stones.add(r)
                todo.append(r)
    return stones, liberties


def host_key(board: list[int], size: int) -> int:
    """The 64-bit Zobrist key of the stones, from scratch."""
    zlo, zhi = zobrist_words(size * size)
    key = 0
    for point, v in enumerate(board):
        if v != EMPTY:
            c = 0 if v == BLACK else 1
            key ^= int(zlo[point, c]) | int(zhi[point, c]) << 32
    return key


class HostGo:
    """A position on the host (Python lists), with OpenSpiel's rules: what ``parse`` replays."""

    def __init__(self, size: int, superko: bool) -> None:
        self.size, self.superko = size, superko
        self.board = [EMPTY] * (size * size)
        self.player, self.ko, self.passes, self.moves = 0, NO_KO, 0, 0
        self.history: list[int] = []  # board keys after each step

    def why_illegal(self, point: int) -> str | None:
        """None when the side to move may play ``point`` (or pass: ``size**2``), else why not."""
        n = self.size * self.size
        if self.passes >= 2 or self.moves >= 2 * n:
            return "the game is already over"
        if point == n:
            return None
        if self.board[point] != EMPTY:
            return "the point is occupied"
        if point == self.ko:
            return "it retakes the ko at once"
        after, _ = self._placed(point)
        if not host_chain(after, point, self.size)[1]:
            return "it is suicide"
        if self.superko and host_key(after, self.size) in self.history:
            return "it repeats an earlier position (superko)"
        return None

    def _placed(self, point: int) -> tuple[list[int], list[int]]:
        me = BLACK if self.player == 0 else WHITE
        board = list(self.board)
        board[point] = me
        captured: list[int] = []
        for r in host_neighbours(point, self.size):
            if board[r] == -me:
                stones, liberties = host_chain(board, r, self.size)
                if not liberties:
                    for q in stones:
                        board[q] = EMPTY
                    captured.extend(stones)
        return board, sorted(set(captured))

    def play(self, point: int) -> None:
        """Play a legal move (no check here: see :meth:`why_illegal`)."""
        n = self.size * self.size
        if point == n:
            self.ko, self.passes = NO_KO, self.passes + 1
        else:
            me = BLACK if self.player == 0 else WHITE
            in_eye = all(self.board[r] == -me for r in host_neighbours(point, self.size))
            self.board, captured = self._placed(point)
            self.ko = captured[0] if in_eye and len(captured) == 1 else NO_KO
            self.passes = 0
        self.player = 1 - self.player
        self.moves += 1
        self.history.append(host_key(self.board, self.size))


class GoNotation:
    """The host-side notation of :class:`~jaxgames.games.go.Go` (a mixin)."""

    size: int
    superko: bool

    position_formats = (
        (
            "move list: GTP vertices from the start (letters skip I, row 1 at the bottom), "
            "pass, separated by spaces or commas",
            "D4 E5 pass C3",
        ),
        (
            "board: rows from the top separated by '/', X black, O white, . empty, then the "
            "side to move X or O and, when there is one, the ko point as ko=C3",
            "...../..X../.XOX./..O../..... O",
        ),
        ("the start", "start"),
    )

    # -------------------------------------------------------------- moves
    def action_to_string(self, state: Any, action: int) -> str:
        """``"A1"`` .. (GTP vertex), or ``"pass"``."""
        return vertex_name(int(action), self.size)

    def _point_of(self, token: str, where: str) -> int:
        """GTP vertex or pass -> action; GameError naming ``where`` otherwise."""
        n = self.size * self.size
        if token.lower() == "pass":
            return n
        match = _VERTEX.fullmatch(token)
        if not match:
            raise GameError(f"{where}: not a vertex like D4, nor pass")
        letter, row = match.group(1).upper(), int(match.group(2))
        if letter == "I":
            raise GameError(f"{where}: column I is not used (GTP letters skip I)")
        col = COLUMNS.find(letter)
        if not 0 <= col < self.size or not 1 <= row <= self.size:
            last = COLUMNS[self.size - 1]
            raise GameError(
                f"{where}: off the {self.size}x{self.size} board (A1..{last}{self.size})"
            )
        return (row - 1) * self.size + col

    def string_to_action(self, state: Any, text: str) -> int:
        """``"D4"`` or ``"pass"`` -> action. Raises GameError when malformed or illegal."""
        action = self._point_of(text.strip(), f"go: move {text!r}")
        self._check_legal(state, action, text)  # type: ignore[attr-defined]
        return action

    def moves_to_string(self, actions: Any) -> str:
        """Actions -> ``"D4 E5 pass"``."""
        return " ".join(vertex_name(int(a), self.size) for a in actions)

    def parse_moves(self, text: str) -> list[int]:
        """A move list -> actions. Raises GameError (a bad or illegal move, named with its
        number and place)."""
        return self._replay(text)[1]

    def _replay(self, text: str) -> tuple[HostGo, list[int]]:
        host = HostGo(self.size, self.superko)
        actions: list[int] = []
        stripped = text.strip()
        if stripped.lower() in ("", "start"):
            return host, actions
        for match in _TOKEN.finditer(text):
            token = match.group(0)
            where = f"go: move {len(actions) + 1} {token!r} at character {match.start() + 1}"
            point = self._point_of(token, where)
            why = host.why_illegal(point)
            if why is not None:
                raise GameError(f"{where}: illegal, {why}")
            host.play(point)
            actions.append(point)
        return host, actions

    # -------------------------------------------------------------- positions
    def split_position(self, line: str) -> tuple[str, str]:
        """A board string is two fields (three with ``ko=``); a move list is every field
        that reads as a move (a vertex or pass), the rest is the label."""
        fields = line.split()
        if not fields:
            return "", ""
        if "/" in fields[0]:
            count = 3 if len(fields) > 2 and fields[2].lower().startswith("ko=") else 2
            return split_fields(line, count)
        count = 0
        for field in fields:
            if not all(
                t.lower() == "pass" or _VERTEX.fullmatch(t) for t in filter(None, field.split(","))
            ):
                break
            count += 1
        if count == 0:
            return split_fields(line, 1)
        return split_fields(line, count)

    def parse(self, text: str) -> GoState:
        """A move list, a board string, or ``""``/``"start"`` -> state (numpy leaves).

        A board string gives no history: passes and steps played start at 0, and superko
        compares only with positions after it.

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if "/" in stripped:
            return self._parse_board(stripped)
        host, _ = self._replay(stripped)
        return self._host_state(host)

    def _parse_board(self, text: str) -> GoState:
        fields = text.split()
        if len(fields) not in (2, 3):
            raise GameError(
                f"go: board string {text!r} needs the rows, the side to move (X or O) and "
                "optionally ko=<vertex>"
            )
        rows = fields[0].split("/")
        if len(rows) != self.size:
            raise GameError(f"go: board string has {len(rows)} rows, expected {self.size}")
        host = HostGo(self.size, self.superko)
        for r, row in enumerate(rows):
            if len(row) != self.size:
                raise GameError(
                    f"go: board row {r + 1} from the top has {len(row)} points, expected "
                    f"{self.size}"
                )
            for c, ch in enumerate(row):
                value = {"x": BLACK, "o": WHITE, ".": EMPTY, "+": EMPTY}.get(ch.lower())
                if value is None:
                    raise GameError(
                        f"go: bad character {ch!r} at {COLUMNS[c]}{self.size - r} "
                        "(expected X, O or .)"
                    )
                host.board[(self.size - 1 - r) * self.size + c] = value
        side = fields[1].lower()
        if side not in ("x", "o"):
            raise GameError(f"go: bad side to move {fields[1]!r} (expected X or O)")
        host.player = 0 if side == "x" else 1
        for point in range(self.size * self.size):
            if host.board[point] != EMPTY and not host_chain(host.board, point, self.size)[1]:
                raise GameError(f"go: the chain at {vertex_name(point, self.size)} has no liberty")
        if len(fields) == 3:
            if not fields[2].lower().startswith("ko="):
                raise GameError(f"go: bad field {fields[2]!r}; expected ko=<vertex>")
            ko = self._point_of(fields[2][3:], "go: ko point")
            if ko == self.size * self.size or host.board[ko] != EMPTY:
                raise GameError(f"go: ko point {fields[2][3:]!r} must be an empty point")
            host.ko = ko
        return self._host_state(host)

    def _host_state(self, host: HostGo) -> GoState:
        """A consistent state (chain ids, key, history) from a host position."""
        n = self.size * self.size
        chain = np.full((n,), n, np.int16)
        for point in range(n):
            if host.board[point] != EMPTY and chain[point] == n:
                stones, _ = host_chain(host.board, point, self.size)
                chain[sorted(stones)] = min(stones)
        key = host_key(host.board, self.size)
        length = 2 * n if self.superko else 0
        history = np.zeros((length,), np.uint64)
        if self.superko:
            history[: len(host.history)] = host.history[:length]
        return GoState(
            board=np.asarray(host.board, np.int8),
            chain=chain,
            player=np.asarray(host.player, np.int8),
            ko=np.asarray(host.ko, np.int16),
            passes=np.asarray(host.passes, np.int8),
            moves=np.asarray(host.moves, np.int16),
            hash_lo=np.asarray(key & 0xFFFFFFFF, np.uint32),
            hash_hi=np.asarray(key >> 32, np.uint32),
            history_lo=(history & 0xFFFFFFFF).astype(np.uint32),
            history_hi=(history >> np.uint64(32)).astype(np.uint32),
        )

    def format(self, state: GoState) -> str:
        """State -> board string: rows from the top joined by ``/`` (``X``, ``O``, ``.``),
        the side to move, and ``ko=<vertex>`` when a ko point is set."""
        board = np.asarray(state.board)
        rows = []
        for r in range(self.size - 1, -1, -1):
            line = board[r * self.size : (r + 1) * self.size]
            rows.append("".join({BLACK: "X", WHITE: "O"}.get(int(v), ".") for v in line))
        text = "/".join(rows) + " " + "XO"[int(np.asarray(state.player))]
        ko = int(np.asarray(state.ko))
        if ko >= 0:
            text += f" ko={vertex_name(ko, self.size)}"
        return text

    def draw(self, state: GoState) -> str:
        """A board drawing as OpenSpiel prints one: rows numbered from the top, ``X`` black,
        ``O`` white, ``+`` empty, the column letters below."""
        board = np.asarray(state.board)
        lines = []
        for r in range(self.size - 1, -1, -1):
            line = board[r * self.size : (r + 1) * self.size]
            cells = "".join({BLACK: "X", WHITE: "O"}.get(int(v), "+") for v in line)
            lines.append(f"{r + 1:>2} {cells}")
        lines.append("   " + COLUMNS[: self.size])
        return "\n".join(lines)

    def sample_positions(self) -> list[str]:
        """A few positions: the start and short openings."""
        c = COLUMNS[self.size // 2] + str(self.size // 2 + 1)
        return ["", c, f"{c} C3", f"{c} C3 pass"]
