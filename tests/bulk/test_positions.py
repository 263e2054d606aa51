"""Positions lines: a position, then an optional label; never another position.

Each game's notation is read by an independent oracle written here (or python-chess, or the
backgammon reference), and every line the property tests make, valid positions with labels,
truncated positions, random text and extra whitespace, must either parse to exactly the
position the oracle reads in its position part, or give a one-line GameError.
"""

import json
import random
import re

import chess
import numpy as np
import pytest
from backgammon_reference import from_position_id
from conftest import REFERENCE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from othello_reference import Ref as OthelloRef

import jaxgames
from jaxgames.game import GameError
from jaxgames.positions import parse_line, read_positions

PONS = REFERENCE / "connect4_pons"
AIMA_TREE = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]  # AIMA figure 5.2: every path is 2 steps
LINE_EXAMPLES = 60  # hypothesis examples per game and property: parsing compiles nothing new


# ---------------------------------------------------------------- oracles
def connect4_oracle(text: str) -> str | None:
    """The grid (rows from the top, '/' between) that a 7x6 move string or grid names."""
    if text in ("", "start"):
        text = ""
    if any(c in "xo.-/" for c in text.lower()):
        rows = text.lower().replace("-", ".").split("/")
        if len(rows) != 6 or any(len(r) != 7 or set(r) - set("xo.") for r in rows):
            return None
        cols = ["".join(r[c] for r in reversed(rows)) for c in range(7)]
        if any(re.search(r"\.[xo]", col) for col in cols):
            return None  # a stone above an empty cell
        nx, no = text.lower().count("x"), text.lower().count("o")
        return "/".join(rows) if nx - no in (0, 1) and not _c4_lines(rows) else None
    cols: list[str] = [""] * 7
    for i, c in enumerate(text):
        if c not in "1234567" or len(cols[int(c) - 1]) == 6 or _c4_won(cols):
            return None
        cols[int(c) - 1] += "xo"[i % 2]
    return "/".join(
        "".join(cols[c][r] if r < len(cols[c]) else "." for c in range(7))
        for r in reversed(range(6))
    )


def _c4_cells(cols: list[str]) -> dict[tuple[int, int], str]:
    return {(c, r): p for c, col in enumerate(cols) for r, p in enumerate(col)}


def _c4_won(cols: list[str]) -> bool:
    cells = _c4_cells(cols)
    return any(
        all(cells.get((c + i * dc, r + i * dr)) == p for i in range(4))
        for (c, r), p in cells.items()
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
    )


def _c4_lines(rows: list[str]) -> bool:
    """A grid with a line is only accepted by rules this oracle does not model: skip it."""
    cols = ["".join(r[c] for r in reversed(rows)).rstrip(".") for c in range(7)]
    return _c4_won(cols)


def tictactoe_oracle(text: str) -> str | None:
    if text in ("", "start"):
        return ".../.../..."
    if any(c in "xo.-/" for c in text.lower()):
        cells = text.lower().replace("-", ".").replace("/", "")
        rows = text.split("/")
        if len(cells) != 9 or set(cells) - set("xo.") or (len(rows) > 1 and len(rows) != 3):
            return None
        if any(len(r) != 3 for r in rows) and len(rows) == 3:
            return None
        nx, no = cells.count("x"), cells.count("o")
        if nx - no not in (0, 1) or _ttt_line(cells, "x") or _ttt_line(cells, "o"):
            return None  # lines: a rule this oracle does not model
        return "/".join(cells[i : i + 3] for i in (0, 3, 6))
    cells = ["."] * 9
    for i, c in enumerate(text.replace(",", "")):
        if not c.isdigit() or int(c) > 8 or cells[int(c)] != "." or _ttt_over(cells):
            return None
        cells[int(c)] = "xo"[i % 2]
    return "/".join("".join(cells[i : i + 3]) for i in (0, 3, 6))


_TTT_LINES = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
]


def _ttt_line(cells, p) -> bool:
    return any(all(cells[i] == p for i in line) for line in _TTT_LINES)


def _ttt_over(cells) -> bool:
    return _ttt_line(cells, "x") or _ttt_line(cells, "o") or "." not in cells


def chess_oracle(text: str) -> str | None:
    """python-chess's FEN of the position (clocks included)."""
    body, _, moves = text.partition(" moves")
    body = body.strip()
    try:
        if body in ("", "startpos", "start"):
            board = chess.Board()
        else:
            if len(body.split()) not in (4, 6):
                return None
            board = chess.Board(body)
            if board.status() & ~chess.STATUS_BAD_CASTLING_RIGHTS:
                return None  # positions python-chess finds invalid: not checked here
        for move in moves.split():
            board.push(board.parse_uci(move))
    except ValueError:
        return None
    return board.fen()


def backgammon_oracle(text: str) -> tuple | None:
    """(own, opp, dice) of a GNU Backgammon position ID with optional :dice."""
    pid, _, dice_text = text.partition(":")
    if len(pid) != 14 or not re.fullmatch(r"[A-Za-z0-9+/]{14}", pid) or ":" in dice_text:
        return None
    try:
        own, opp = from_position_id(pid)
    except (ValueError, AssertionError):
        return None
    if dice_text in ("", "-", "00"):
        dice = (0, 0)
    elif re.fullmatch(r"[1-6][1-6]", dice_text):
        dice = tuple(sorted((int(dice_text[0]), int(dice_text[1])), reverse=True))
    else:
        return None
    return tuple(own), tuple(opp), dice


def pig_oracle(text: str) -> tuple | None:
    if text in ("", "start"):
        return (0, 0, 0, 0, 0)
    fields: dict[str, int] = {}
    rolling = 0
    for token in text.split():
        key, eq, value = token.partition("=")
        if token == "rolling" and not rolling:
            rolling = 1
        elif eq and key in ("p0", "p1", "turn", "to_move") and key not in fields:
            if not value.isdigit():
                return None
            fields[key] = int(value)
        else:
            return None
    if "p0" not in fields or "p1" not in fields or fields.get("to_move", 0) > 1:
        return None
    p0, p1, turn, mover = (
        fields["p0"],
        fields["p1"],
        fields.get("turn", 0),
        fields.get("to_move", 0),
    )
    own = (p0, p1)[mover]
    if max(p0, p1) >= 100 or turn == 1 or own + turn >= 106 or (rolling and own + turn >= 100):
        return None
    return (p0, p1, turn, mover, rolling)


def othello_oracle(text: str) -> str | None:
    """The board string (64 squares, a space, the side) of an Othello board or move list,
    read by the rules-from-scratch reference of the Othello tests."""
    if text in ("", "start"):
        return OthelloRef().text()
    squares = [c for c in text if c not in " /"]
    if squares and squares[-1] == ";":
        squares.pop()
    if any(c in "xXoO-." for c in text):
        if len(squares) != 65 or set("".join(squares[:64]).upper()) - set("XO-."):
            return None
        if squares[64].upper() not in "XO":
            return None
        cells = ["-" if c == "." else c for c in "".join(squares[:64]).upper()]
        return "".join(cells) + " " + squares[64].upper()
    ref = OthelloRef()
    for token in re.findall(r"..?", text.replace(",", "").replace(";", "")):
        token = token.lower()
        if ref.over():
            return None
        if token == "ps":
            if ref.actions() != [64]:
                return None
            ref.play(64)
            continue
        if not re.fullmatch(r"[a-h][1-8]", token):
            return None
        if ref.actions() == [64]:
            ref.play(64)  # a forced pass may be left out of a move list
        square = "abcdefgh".index(token[0]) + 8 * (int(token[1]) - 1)
        if square not in ref.actions():
            return None
        ref.play(square)
    return ref.text()


CC_ROWS = [1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1]


def chinese_checkers_oracle(text: str) -> str | None:
    """Rows, player to move and ply, checked field by field; the canonical text."""
    fields = text.split()
    if len(fields) not in (2, 3):
        return None
    rows = fields[0].replace("-", ".").split("/")
    if [len(r) for r in rows] != CC_ROWS or set("".join(rows)) - set(".01"):
        return None
    if any("".join(rows).count(p) != 10 for p in "01"):
        return None
    if not all(re.fullmatch(r"[0-9]+", f) for f in fields[1:]):
        return None
    player, ply = int(fields[1]), int(fields[2]) if len(fields) == 3 else 0
    if player > 1 or ply > 1000:
        return None
    return f"{'/'.join(rows)} {player} {ply}"


def path_oracle(branching: list[int] | int, depth: int):
    """The path of a node of a tree of the given branching (per node of an explicit tree:
    the child counts along the leftmost nodes are enough for the paths tested here)."""

    def read(text: str) -> str | None:
        if text in ("", "root"):
            return "root"
        steps = text.removeprefix("root.").split(".")
        if len(steps) > depth or not all(re.fullmatch(r"[0-9]+", s) for s in steps):
            return None
        if any(int(s) >= branching for s in steps):
            return None
        return ".".join(str(int(s)) for s in steps)

    return read


CASES = {
    # game: (oracle, what our state reads as for the oracle's comparison)
    "connect4": (connect4_oracle, lambda g, s: g.format(s)),
    "tictactoe": (tictactoe_oracle, lambda g, s: g.format(s)),
    "chess": (chess_oracle, lambda g, s: g.format(s)),
    "backgammon": (
        backgammon_oracle,
        lambda g, s: (
            tuple(int(x) for x in np.asarray(s.own)),
            tuple(int(x) for x in np.asarray(s.opp)),
            tuple(int(x) for x in np.asarray(s.dice)),
        ),
    ),
    "othello": (othello_oracle, lambda g, s: g.format(s)),
    "chinese_checkers": (chinese_checkers_oracle, lambda g, s: g.format(s)),
    "uniform_tree:branching=3,depth=4": (path_oracle(3, 4), lambda g, s: g.format(s)),
    "tree": (path_oracle(3, 2), lambda g, s: g.format(s)),
    "pig": (
        pig_oracle,
        lambda g, s: (
            *(int(x) for x in np.asarray(s.scores)),
            int(s.turn),
            int(s.to_move),
            int(s.rolling),
        ),
    ),
}


def valid_positions(name: str) -> list[str]:
    """Position texts from outside: the reference files, and random play of the oracles."""
    rng = random.Random(7)
    if name == "connect4":
        return [line.split()[0] for line in (PONS / "Test_L2_R1").read_text().splitlines()[:40]]
    if name == "tictactoe":
        out = []
        for _ in range(40):
            squares = rng.sample(range(9), rng.randint(0, 4))
            out.append("".join(map(str, squares)) or "start")
        return out
    if name == "chess":
        rows = (REFERENCE / "chess_perft.csv").read_text().splitlines()[1:]
        fens = sorted({row.split(",")[1] for row in rows})
        played = []
        for _ in range(20):  # python-chess's random play, some with the UCI move list
            board, moves = chess.Board(), []
            for _ in range(rng.randint(1, 40)):
                legal = list(board.legal_moves)
                if not legal:
                    break
                moves.append(rng.choice(legal).uci())
                board.push_uci(moves[-1])
            played.append(
                board.fen() if rng.random() < 0.5 else "startpos moves " + " ".join(moves)
            )
        return fens + played + ["startpos"]
    if name == "backgammon":
        data = json.loads((REFERENCE / "gnubg_backgammon.json").read_text())
        return [f"{p['position_id']}:{p['dice'][0]}{p['dice'][1]}" for p in data["positions"][:40]]
    if name == "pig":
        return [
            f"p0={rng.randint(0, 99)} p1={rng.randint(0, 99)} turn={rng.choice([0, 2, 5])} "
            f"to_move={rng.randint(0, 1)}"
            for _ in range(30)
        ] + ["start"]
    if name == "othello":
        fforum = (REFERENCE / "othello_fforum_20_39.obf").read_text().splitlines()
        boards = [" ".join(line.split()[:2]) for line in fforum]
        games = []
        for _ in range(20):
            ref, names = OthelloRef(), []
            for _ in range(rng.randint(1, 30)):
                if ref.over():
                    break
                action = rng.choice(ref.actions())
                ref.play(action)
                names.append(
                    "ps" if action == 64 else "abcdefgh"[action % 8] + str(action // 8 + 1)
                )
            games.append("".join(names))
        return boards + games
    if name == "chinese_checkers":
        return jaxgames.make(name).sample_positions()
    if name.startswith("uniform_tree") or name == "tree":
        return ["root"] + [
            ".".join(str(rng.randrange(3)) for _ in range(rng.randint(1, 4))) for _ in range(20)
        ]
    raise AssertionError(name)


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    name = request.param
    game = jaxgames.make(name, tree=AIMA_TREE) if name == "tree" else jaxgames.make(name)
    oracle, ours = CASES[name]
    texts = [t for t in valid_positions(name) if oracle(t) is not None]
    assert len(texts) >= min(10, len(valid_positions(name))), name  # the oracle reads them
    return game, oracle, ours, texts


def check_line(game, oracle, ours, line: str, position: str | None = None, label: str = ""):
    """``line`` parses to exactly what the oracle reads in its position part, or raises a
    one-line GameError; with ``position`` given, the split must find exactly it."""
    try:
        text, got_label, state = parse_line(game, line)
    except GameError as err:
        assert "\n" not in str(err) and str(err)
        assert position is None, f"{line!r}: {err}"  # a valid position with a label parses
        return
    if position is not None:
        assert (text, got_label) == (position, label), line
    expected = oracle(text)
    assert expected is not None, f"{line!r}: parsed {text!r}, which the oracle refuses"
    assert ours(game, state) == expected, line


labels = st.from_regex(r"[-+]?[0-9]{1,3}( [A-Za-z0-9:;.+=-]{1,6}){0,2}", fullmatch=True)
spaces = st.sampled_from([" ", "  ", "\t", " \t "])
edges = st.sampled_from(["", " ", "\t", "  "])
line_settings = settings(
    max_examples=LINE_EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@line_settings
@given(data=st.data())
def test_a_position_with_a_label_is_exactly_that_position(case, data):
    game, oracle, ours, texts = case
    position = data.draw(st.sampled_from(texts))
    label = data.draw(labels)
    line = data.draw(edges) + position + data.draw(spaces) + label + data.draw(edges)
    check_line(game, oracle, ours, line, position, label)
    check_line(game, oracle, ours, data.draw(edges) + position + data.draw(edges), position, "")


@line_settings
@given(data=st.data())
def test_a_truncated_position_is_what_it_names_or_an_error(case, data):
    game, oracle, ours, texts = case
    position = data.draw(st.sampled_from(texts))
    cut = position[: data.draw(st.integers(0, max(len(position) - 1, 0)))]
    label = data.draw(st.one_of(st.just(""), labels))
    line = cut + (data.draw(spaces) + label if label else "")
    if not line.strip():
        return  # a blank line is no position (the reader skips it)
    check_line(game, oracle, ours, line)


@line_settings
@given(data=st.data())
def test_random_text_is_a_position_the_oracle_agrees_on_or_an_error(case, data):
    game, oracle, ours, _ = case
    text = data.draw(
        st.one_of(
            st.text(max_size=40), st.binary(max_size=40).map(lambda b: b.decode("utf-8", "replace"))
        )
    )
    if not text.strip() or "\n" in text.strip():
        return
    check_line(game, oracle, ours, text)


# ---------------------------------------------------------------- files, through the CLI
def test_a_pons_line_is_its_moves_and_its_score(tmp_path):
    """`4453 12` is the position 4453 with the label 12, never the six stones 445312."""
    game = jaxgames.make("connect4")
    path = tmp_path / "lines.txt"
    path.write_text("4453 12\n32164625\t11\n")
    got = [(p.text, p.label, game.format(p.state)) for p in read_positions(game, str(path))]
    assert got == [
        ("4453", "12", connect4_oracle("4453")),
        ("32164625", "11", connect4_oracle("32164625")),
    ]


@pytest.mark.parametrize(
    "name", ["Test_L1_R1", "Test_L1_R2", "Test_L1_R3", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1"]
)
def test_every_pons_line_reads_as_its_first_field(name):
    game = jaxgames.make("connect4")
    path = PONS / name
    lines = path.read_text().splitlines()
    got = list(read_positions(game, str(path)))
    assert len(got) == len(lines) == 1000
    for record, line in zip(got, lines, strict=True):
        moves, score = line.split()
        assert (record.text, record.label) == (moves, score)
        assert game.format(record.state) == connect4_oracle(moves)


def test_every_fforum_line_reads_as_its_board_and_side():
    """The FFORUM endgame file: 64 squares, the side with a ';', then the moves as a label."""
    game = jaxgames.make("othello")
    path = REFERENCE / "othello_fforum_20_39.obf"
    lines = path.read_text().splitlines()
    got = list(read_positions(game, str(path)))
    assert len(got) == len(lines) == 20
    for record, line in zip(got, lines, strict=True):
        board, side, *moves = line.split()
        assert record.text == f"{board} {side}" and record.label == " ".join(moves)
        assert game.format(record.state) == f"{board} {side.rstrip(';')}"


def test_perft_fens_with_labels_read_as_python_chess_reads_them(tmp_path):
    game = jaxgames.make("chess")
    rows = (REFERENCE / "chess_perft.csv").read_text().splitlines()[1:]
    fens = sorted({row.split(",")[1] for row in rows})
    path = tmp_path / "fens.epd"
    path.write_text("".join(f'{fen} bm Nf3; id "{i}";\n' for i, fen in enumerate(fens)))
    got = list(read_positions(game, str(path)))
    assert [p.text for p in got] == fens
    assert [p.label for p in got] == [f'bm Nf3; id "{i}";' for i in range(len(fens))]
    assert [game.format(p.state) for p in got] == [chess.Board(f).fen() for f in fens]


def test_gnubg_ids_with_labels_read_as_the_reference_decodes_them(tmp_path):
    game = jaxgames.make("backgammon")
    data = json.loads((REFERENCE / "gnubg_backgammon.json").read_text())["positions"][:30]
    path = tmp_path / "ids.txt"
    path.write_text(
        "".join(
            f"{p['position_id']}:{p['dice'][0]}{p['dice'][1]} {i}\n" for i, p in enumerate(data)
        )
    )
    got = list(read_positions(game, str(path)))
    oracle, ours = CASES["backgammon"]
    for i, (record, p) in enumerate(zip(got, data, strict=True)):
        text = f"{p['position_id']}:{p['dice'][0]}{p['dice'][1]}"
        assert (record.text, record.label) == (text, str(i))
        assert ours(game, record.state) == oracle(text)
