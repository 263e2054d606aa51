"""SGF game records of Go (host side, plain Python): read a record's main line into its
positions and actions, and write a played game.

SGF (FF[4], ``GM[1]``) is a tree of nodes in parentheses, each node ``;`` and properties
``ID[value][value]...``. Only the main line is read (the first variation wherever the
record branches) of the first game in the file. Read: ``SZ`` (square boards 5..19), ``KM``
(komi; 0 when absent), ``AB``/``AW``/``AE`` setup stones (single points or ``aa:cc``
rectangles) in the nodes before the first move, ``PL`` (the side to move first), ``RE``,
and the moves ``B[..]``/``W[..]``; a pass is ``B[]`` or, on boards of 19 and less,
``B[tt]``. A move out of turn (two Black moves in a row) is taken as it is: the side to
move is set to the move's colour, as GTP does. Other properties are kept as text.

Coordinates: SGF letters ``a``.. count from the top-left corner, the column first and the
row from the TOP (``aa`` is GTP's ``A19`` on 19x19); GTP rows count from the bottom and
the letters skip ``I``. Points here are the game's actions, ``row * size + col`` with row 0
at the bottom.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from jaxgames.game import GameError
from jaxgames.games.go.board import BLACK, EMPTY, WHITE, GoState
from jaxgames.games.go.notation import HostGo, host_chain, vertex_name

LETTERS = "abcdefghijklmnopqrstuvwxyz"
_IDENT = re.compile(r"[A-Za-z]+")
SETUP = ("AB", "AW", "AE")
COLOURS = {"B": 0, "W": 1}


@dataclasses.dataclass
class SgfRecord:
    """The main line of one SGF game record."""

    size: int = 19
    komi: float = 0.0
    black: list[int] = dataclasses.field(default_factory=list)  # setup stones (points)
    white: list[int] = dataclasses.field(default_factory=list)
    first: int | None = None  # PL: 0 Black, 1 White, None when not given
    moves: list[tuple[int, int]] = dataclasses.field(default_factory=list)  # (colour, action)
    result: str | None = None  # RE as written
    root: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # root properties

    @property
    def actions(self) -> list[int]:
        """The moves' actions (points, ``size**2`` for a pass), colours left out."""
        return [a for _, a in self.moves]


# ---------------------------------------------------------------------------- reading


def _nodes(text: str) -> list[list[tuple[str, list[str]]]]:
    """The main line's nodes, each a list of ``(identifier, values)`` in order, of the
    first game tree in ``text``: its sequence, then its first variation's, and so on (the
    first ``)`` ends the main line)."""
    i, n = 0, len(text)
    nodes: list[list[tuple[str, list[str]]]] = []
    depth = 0

    def skip_space(i: int) -> int:
        while i < n and text[i].isspace():
            i += 1
        return i

    i = skip_space(i)
    if i >= n or text[i] != "(":
        raise GameError("sgf: a game record starts with '(' then ';'")
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "(":
            depth += 1
            i = skip_space(i + 1)
            if i >= n or text[i] != ";":
                raise GameError(f"sgf: expected ';' after '(' at character {i + 1}")
        elif ch == ")":
            break
        elif ch == ";":
            nodes.append([])
            i += 1
        elif ch.isalpha():
            match = _IDENT.match(text, i)
            assert match is not None
            # FF[3] allowed lower-case letters inside identifiers (CoPyright): drop them
            ident = "".join(c for c in match.group(0) if c.isupper())
            i = skip_space(match.end())
            if i >= n or text[i] != "[":
                raise GameError(f"sgf: property {ident or match.group(0)!r} has no value")
            values = []
            while i < n and text[i] == "[":
                value, i = _value(text, i + 1)
                values.append(value)
                i = skip_space(i)
            if not nodes:
                raise GameError("sgf: a property before the first node's ';'")
            nodes[-1].append((ident, values))
        else:
            raise GameError(f"sgf: unexpected {ch!r} at character {i + 1}")
    else:
        if depth == 0 or not nodes:
            raise GameError("sgf: no game record")
        raise GameError("sgf: the record ends before its closing ')'")
    if not nodes:
        raise GameError("sgf: the game record has no node")
    return nodes


def _value(text: str, i: int) -> tuple[str, int]:
    """The value starting at ``text[i]`` (just after its ``[``) and the index after its
    ``]``. A backslash escapes the next character (``\\]``, ``\\\\``); a backslash before a
    line break (a soft break) removes both."""
    out = []
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            if i + 1 >= n:
                break
            nxt = text[i + 1]
            if nxt in "\r\n":  # soft line break
                i += 2
                if nxt == "\r" and i < n and text[i] == "\n":
                    i += 1
                continue
            out.append(nxt)
            i += 2
        elif ch == "]":
            return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    raise GameError("sgf: a property value is not closed by ']'")


def _size(values: list[str]) -> int:
    text = values[0].strip()
    if ":" in text:
        raise GameError(f"sgf: SZ[{text}]: only square boards are played")
    if not text.isdigit():
        raise GameError(f"sgf: SZ[{text}] is not a board size")
    return int(text)


def sgf_point(value: str, size: int, where: str) -> int:
    """An SGF point (``"dd"``; ``""``, or ``"tt"`` up to 19x19, is the pass) -> the action."""
    if value == "" or (value == "tt" and size <= 19):
        return size * size
    if len(value) != 2 or value[0] not in LETTERS or value[1] not in LETTERS:
        raise GameError(f"sgf: {where}: {value!r} is not a point (two letters a..)")
    col, row_from_top = LETTERS.index(value[0]), LETTERS.index(value[1])
    if col >= size or row_from_top >= size:
        raise GameError(f"sgf: {where}: {value!r} is off the {size}x{size} board")
    return (size - 1 - row_from_top) * size + col


def sgf_name(action: int, size: int) -> str:
    """An action -> its SGF point (``""`` for the pass)."""
    if action == size * size:
        return ""
    row, col = divmod(action, size)
    return LETTERS[col] + LETTERS[size - 1 - row]


def _points(values: list[str], size: int, where: str) -> list[int]:
    """A list of points, with FF[4]'s compressed rectangles ``aa:cc``."""
    points = []
    for value in values:
        if ":" in value:
            a, b = (sgf_point(v, size, where) for v in value.split(":", 1))
            if size * size in (a, b):
                raise GameError(f"sgf: {where}: {value!r} is not a rectangle of points")
            (r1, c1), (r2, c2) = divmod(a, size), divmod(b, size)
            for r in range(min(r1, r2), max(r1, r2) + 1):
                for c in range(min(c1, c2), max(c1, c2) + 1):
                    points.append(r * size + c)
        else:
            point = sgf_point(value, size, where)
            if point == size * size:
                raise GameError(f"sgf: {where}: a setup stone needs a point")
            points.append(point)
    return points


def parse_sgf(text: str) -> SgfRecord:
    """An SGF text -> the :class:`SgfRecord` of its first game's main line.

    Raises:
        GameError: one line naming what is wrong (not SGF, not Go, a bad point, setup
        stones after the first move, ...).
    """
    nodes = _nodes(text)
    root = {ident: values for ident, values in nodes[0]}
    game_type = root.get("GM", ["1"])[0].strip()
    if game_type != "1":
        raise GameError(f"sgf: GM[{game_type}] is not Go (GM[1])")
    record = SgfRecord(root=root)
    if "SZ" in root:
        record.size = _size(root["SZ"])
    size = record.size
    if "KM" in root and root["KM"][0].strip():
        try:
            record.komi = float(root["KM"][0])
        except ValueError:
            raise GameError(f"sgf: KM[{root['KM'][0]}] is not a number") from None
    if "RE" in root:
        record.result = root["RE"][0]
    board: dict[int, int] = {}
    for number, node in enumerate(nodes):
        for ident, values in node:
            where = f"node {number + 1} {ident}"
            if ident in SETUP:
                if record.moves:
                    raise GameError(f"sgf: {where}: setup stones after the first move")
                for point in _points(values, size, where):
                    if ident == "AE":
                        board.pop(point, None)
                    else:
                        board[point] = BLACK if ident == "AB" else WHITE
            elif ident == "PL" and not record.moves:
                colour = values[0].strip().upper()[:1]
                if colour not in COLOURS:
                    raise GameError(f"sgf: {where}: {values[0]!r} is not B or W")
                record.first = COLOURS[colour]
            elif ident in COLOURS:
                record.moves.append((COLOURS[ident], sgf_point(values[0].strip(), size, where)))
    record.black = sorted(p for p, v in board.items() if v == BLACK)
    record.white = sorted(p for p, v in board.items() if v == WHITE)
    return record


# ---------------------------------------------------------------------------- replaying


def setup_position(record: SgfRecord, superko: bool = False) -> HostGo:
    """The position before the first move: the setup stones, and the side to move (``PL``,
    else the first move's colour, else Black)."""
    host = HostGo(record.size, superko)
    for point in record.black:
        host.board[point] = BLACK
    for point in record.white:
        host.board[point] = WHITE
    for point in range(record.size * record.size):
        if host.board[point] != EMPTY and not host_chain(host.board, point, record.size)[1]:
            name = vertex_name(point, record.size)
            raise GameError(f"sgf: the setup stones at {name} have no liberty")
    if record.first is not None:
        host.player = record.first
    elif record.moves:
        host.player = record.moves[0][0]
    return host


def playable(host: HostGo, action: int) -> str | None:
    """None when the side to move may play ``action`` in ``host`` by the board's rules
    (suicide, ko, superko), else why not. Unlike :meth:`HostGo.why_illegal`, two passes or
    the length limit do not end the game here: a record (or a GTP controller) may go on."""
    board_only = copy.copy(host)
    board_only.passes, board_only.moves = 0, 0
    return board_only.why_illegal(action)


def host_positions(record: SgfRecord, superko: bool = False) -> list[HostGo]:
    """Every position of the main line on the host: the setup, then one after each move
    (a move out of turn is played by its own colour; moves after two passes or past the
    length limit are played too, see :func:`playable`). Raises GameError on an illegal
    move, naming it."""
    host = setup_position(record, superko)
    positions = [copy.deepcopy(host)]
    for number, (colour, action) in enumerate(record.moves):
        host.player = colour
        why = playable(host, action)
        if why is not None:
            name = f"{'BW'[colour]}[{sgf_name(action, record.size)}]"
            where = f"move {number + 1} {name} ({vertex_name(action, record.size)})"
            raise GameError(f"sgf: {where} is illegal: {why}")
        host.play(action)
        positions.append(copy.deepcopy(host))
    return positions


def read_sgf(text: str, game: Any = None) -> tuple[Any, list[GoState], list[int]]:
    """An SGF text -> ``(game, states, actions)``: the Go game of its size and komi (or
    ``game``, whose size must match), the states of the main line (the setup position,
    then one after each move: ``len(actions) + 1``, numpy leaves) and the moves' actions.

    Raises:
        GameError: one line naming what is wrong.
    """
    from jaxgames.registry import make

    record = parse_sgf(text)
    if game is None:
        game = make("go", size=record.size, komi=komi_param(record.komi))
    elif game.size != record.size:
        raise GameError(f"sgf: the record is {record.size}x{record.size}, the game {game.spec}")
    states = [game._host_state(h) for h in host_positions(record, game.superko)]
    return game, states, record.actions


def komi_param(komi: float) -> int | float:
    """The komi as a game parameter: a whole number as an int, so that ``KM[7]``, GTP's
    ``komi 7`` and the spec ``go:komi=7`` make the same game."""
    return int(komi) if math.isfinite(komi) and komi == int(komi) else komi


# ---------------------------------------------------------------------------- writing


def result_string(score: float) -> str:
    """Black's margin -> ``"B+3.5"``, ``"W+0.5"`` or ``"0"`` (a tie): SGF's ``RE`` and GTP's
    ``final_score``."""
    score = float(score)
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(
    size: int,
    komi: float,
    actions: Iterable[int],
    result: str | None = None,
    *,
    colours: Sequence[int] | None = None,
    black: Iterable[int] = (),
    white: Iterable[int] = (),
    first: int = 0,
    properties: dict[str, str] | None = None,
) -> str:
    """A played game -> SGF text (FF[4], one line per 10 moves).

    Args:
        size, komi: the board and komi (``SZ``, ``KM``).
        actions: the moves (points, ``size**2`` the pass; written ``B[]``/``W[]``).
        result: ``RE`` (``"B+3.5"``, ``"W+R"``, ``"0"``, see :func:`result_string`).
        colours: each move's colour (0 Black, 1 White); default: alternating from ``first``.
        black, white: setup stones (``AB``, ``AW``) in the root.
        first: who moves first (written as ``PL`` when it is White).
        properties: more root properties, such as ``{"PB": "gnugo", "PW": "jaxgames"}``.
    """
    actions = [int(a) for a in actions]
    if colours is None:
        colours = [(first + i) % 2 for i in range(len(actions))]
    if len(colours) != len(actions):
        raise GameError(f"sgf: {len(colours)} colours for {len(actions)} moves")
    root = f"(;FF[4]GM[1]CA[UTF-8]AP[jaxgames]SZ[{size}]KM[{float(komi):g}]"
    if result is not None:
        root += f"RE[{_escape(result)}]"
    for ident, value in (properties or {}).items():
        root += f"{ident}[{_escape(str(value))}]"
    for ident, points in (("AB", black), ("AW", white)):
        names = "".join(f"[{sgf_name(int(p), size)}]" for p in points)
        if names:
            root += ident + names
    if first == 1:
        root += "PL[W]"
    lines = [root]
    for start in range(0, len(actions), 10):
        lines.append(
            "".join(
                f";{'BW'[c]}[{sgf_name(a, size)}]"
                for c, a in zip(
                    colours[start : start + 10], actions[start : start + 10], strict=True
                )
            )
        )
    return "\n".join(lines) + ")\n"


__all__ = [
    "SgfRecord",
    "host_positions",
    "komi_param",
    "parse_sgf",
    "playable",
    "read_sgf",
    "result_string",
    "setup_position",
    "sgf_name",
    "sgf_point",
    "write_sgf",
]
