"""SGF records of Go: random games played with the jitted rules written and read back state
by state; hand-written records (setup stones, a capture, passes, escapes, a variation)
read to boards worked out by hand; a record composed by hand from a GTP move list read to
the same states as the move list."""

from __future__ import annotations

import shutil
import subprocess

import jax
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.games.go.board import BLACK, EMPTY, WHITE
from jaxgames.games.go.sgf import (
    parse_sgf,
    read_sgf,
    result_string,
    sgf_name,
    sgf_point,
    write_sgf,
)

GO5 = jaxgames.make("go:size=5,komi=0.5")


def chains(chain) -> set[frozenset[int]]:
    """The chains as sets of points (the ids may differ: stepping names a chain by its last
    stone, a parsed position by its lowest point)."""
    chain = np.asarray(chain)
    return {frozenset(np.nonzero(chain == c)[0].tolist()) for c in set(chain.tolist())}


def assert_same_state(a, b, where=""):
    for field in a._fields:
        x, y = np.asarray(getattr(a, field)), np.asarray(getattr(b, field))
        if field == "chain":
            assert chains(x) == chains(y), f"{where}: the chains differ"
        else:
            assert x.shape == y.shape and (x == y).all(), f"{where}: {field} differs: {x} vs {y}"


def board_of(game, state) -> dict[str, int]:
    """The stones as {vertex: colour}."""
    board = np.asarray(state.board)
    return {game.action_to_string(state, p): int(v) for p, v in enumerate(board) if v != EMPTY}


@pytest.fixture(scope="module")
def rules():
    return jax.jit(GO5.step), jax.jit(GO5.legal_mask), jax.jit(GO5.score)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_games_written_and_read_back_state_by_state(rules, seed):
    step, legal, score = rules
    rng = np.random.default_rng(seed)
    state = GO5.init()
    states, actions = [jax.tree.map(np.asarray, state)], []
    while True:
        mask = np.asarray(legal(state))
        if not mask.any():
            break
        # passes rarely, so that boards fill up and stones get captured
        weights = mask * np.where(np.arange(mask.size) == GO5.pass_action, 0.05, 1.0)
        action = int(rng.choice(mask.size, p=weights / weights.sum()))
        state = step(state, action)
        states.append(jax.tree.map(np.asarray, state))
        actions.append(action)
    result = result_string(float(score(state)))
    text = write_sgf(5, 0.5, actions, result)
    assert text.startswith("(;FF[4]GM[1]") and f"RE[{result}]" in text
    game, read, read_actions = read_sgf(text)
    assert game == GO5 and read_actions == actions and len(read) == len(states)
    for i, (a, b) in enumerate(zip(read, states, strict=True)):
        assert_same_state(a, b, f"seed {seed} step {i}")
    record = parse_sgf(text)
    assert record.result == result and record.komi == 0.5 and record.size == 5
    if seed == 0:  # the games do capture: a stone placed and later gone
        placed = {a for a in actions if a < 25}
        assert any(np.asarray(states[-1].board)[p] == EMPTY for p in placed)


HAND = r"""
(;FF[4]GM[1]SZ[5]KM[0.5]RE[B+R]PB[someone]C[setup \] and \\ escapes]
AB[ba][dd:ee]AW[aa][cd]
;B[ab]C[captures A5]
;W[]
;B[ec]
;W[tt]
;W[bd]
(;B[bc];W[cc])
(;B[ae])
)
"""


def test_hand_written_record_with_setup_a_capture_and_a_variation():
    record = parse_sgf(HAND)
    assert record.size == 5 and record.komi == 0.5 and record.result == "B+R"
    assert record.root["C"] == ["setup ] and \\ escapes"]
    assert record.root["PB"] == ["someone"]
    # setup: B5 and the rectangle D2..E1 black, A5 and C2 white
    assert [GO5.action_to_string(None, p) for p in record.black] == ["D1", "E1", "D2", "E2", "B5"]
    assert [GO5.action_to_string(None, p) for p in record.white] == ["C2", "A5"]
    game, states, actions = read_sgf(HAND)
    assert game == GO5
    # the main line: the first variation (B3, C3), not the second (A1)
    names = [GO5.action_to_string(None, a) for a in actions]
    assert names == ["A4", "pass", "E3", "pass", "B2", "B3", "C3"]
    assert len(states) == 8
    setup = board_of(game, states[0])
    assert setup == {
        "B5": BLACK,
        "D2": BLACK,
        "E2": BLACK,
        "D1": BLACK,
        "E1": BLACK,
        "A5": WHITE,
        "C2": WHITE,
    }
    assert int(states[0].player) == 0  # no PL: the first move's colour
    # A4 takes A5's last liberty (B5 is black): A5 is captured, no ko (A4 is not in an eye)
    assert board_of(game, states[1]).get("A5") is None and int(states[1].ko) == -1
    # W passes, B plays E3, W passes, and W plays again (out of turn): B2
    assert int(states[4].player) == 0  # Black would be to move
    assert board_of(game, states[5])["B2"] == WHITE and int(states[5].player) == 0
    final = board_of(game, states[-1])
    black = {v for v, c in final.items() if c == BLACK}
    white = {v for v, c in final.items() if c == WHITE}
    assert black == {"B5", "A4", "B3", "E3", "D2", "E2", "D1", "E1"}
    assert white == {"C3", "B2", "C2"}
    assert int(states[-1].player) == 0 and int(states[-1].moves) == 7
    # Tromp-Taylor by hand: black 8 stones + A5 (reaches only black); the two other empty
    # regions (B4..E5 with D3, and A3..C1) touch both colours; white 3 stones
    assert float(jax.jit(game.score)(states[-1])) == 8 + 1 - 3 - 0.5


# A short 9x9 game as GTP vertices, and the same game written as SGF by hand (columns
# a..i with no gap for I; rows from the top: row 9 is a, row 1 is i). It ends with White
# capturing the black stone in the J9 corner (H9 and J8).
GTP_GAME = ["E5", "C3", "E3", "G5", "G3", "C6", "D7", "F7", "C5", "B5"]
GTP_GAME += ["pass", "D6", "J9", "H1", "pass", "H9", "A1", "J8"]
SGF_GAME = (
    "(;GM[1]FF[4]SZ[9]KM[7.5]"
    ";B[ee];W[cg];B[eg];W[ge];B[gg];W[cd];B[dc];W[fc];B[ce];W[be]"
    ";B[];W[dd];B[ia];W[hi];B[tt];W[ha];B[ai];W[ib])"
)


def test_hand_composed_record_reads_as_the_gtp_move_list():
    go9 = jaxgames.make("go:size=9,komi=7.5")
    game, states, actions = read_sgf(SGF_GAME)
    assert game == go9
    assert [go9.action_to_string(None, a) for a in actions] == GTP_GAME
    for k in range(len(GTP_GAME) + 1):
        assert_same_state(states[k], go9.parse(" ".join(GTP_GAME[:k])), f"after {k} moves")
    final = board_of(go9, states[-1])
    assert "J9" not in final and final["H9"] == WHITE and final["J8"] == WHITE
    assert final["A1"] == BLACK and final["H1"] == WHITE
    # and written back: the same move text
    assert write_sgf(9, 7.5, actions).split("KM[7.5]")[1].replace("\n", "") == (
        SGF_GAME.split("KM[7.5]")[1].replace("B[tt]", "B[]")
    )


def test_points_and_results():
    assert sgf_point("aa", 19, "t") == 18 * 19  # A19
    assert sgf_point("ss", 19, "t") == 18  # T1
    assert sgf_point("tt", 19, "t") == sgf_point("", 19, "t") == 19 * 19
    assert all(sgf_point(sgf_name(a, 9), 9, "t") == a for a in range(82))
    assert [result_string(x) for x in (3.5, -0.5, 0.0, 4.0)] == ["B+3.5", "W+0.5", "0", "B+4"]


def test_setup_and_white_first_round_trip():
    text = write_sgf(5, 6.5, [12, 25, 13], black=[0, 1], white=[24], first=1)
    assert "PL[W]" in text and "AB[ae][be]" in text and "AW[ea]" in text
    record = parse_sgf(text)
    assert record.first == 1 and record.moves == [(1, 12), (0, 25), (1, 13)]
    game, states, _ = read_sgf(text)
    assert game.komi == 6.5 and int(states[0].player) == 1
    assert board_of(game, states[-1]) == {
        "A1": BLACK,
        "B1": BLACK,
        "E5": WHITE,
        "C3": WHITE,
        "D3": WHITE,
    }


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "starts with"),
        ("(;GM[2]SZ[8])", "not Go"),
        ("(;SZ[5];B[aa", "not closed"),
        ("(;SZ[5];B[aa]", "before its closing"),
        ("(;SZ[5];B[zz])", "off the 5x5 board"),
        ("(;SZ[5];B[aa];W[aa])", "move 2 W[aa] (A5) is illegal: the point is occupied"),
        ("(;SZ[5];B[aa];AB[bb])", "setup stones after the first move"),
        ("(;SZ[7:5])", "square"),
        ("(;SZ[5]KM[abc])", "not a number"),
        ("(;SZ[5]AB[ab][ba]AW[aa])", "no liberty"),
    ],
)
def test_bad_records(text, words):
    with pytest.raises(GameError) as err:
        read_sgf(text)
    assert words in str(err.value)


GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_gnu_go_reads_our_records_and_we_read_its(rules, tmp_path):
    """An independent SGF reader and writer: GNU Go loads our record of a random game (its
    stones listed), and its ``printsgf`` of the same game, played to it move by move (the
    position as setup stones and the side to move), reads back to our final position."""
    step, legal, score = rules
    rng = np.random.default_rng(7)
    state, actions = GO5.init(), []
    while len(actions) < 60:
        mask = np.asarray(legal(state))
        if not mask.any():
            break
        weights = mask * np.where(np.arange(mask.size) == GO5.pass_action, 0.02, 1.0)
        action = int(rng.choice(mask.size, p=weights / weights.sum()))
        state, actions = step(state, action), [*actions, action]
    record = tmp_path / "ours.sgf"
    record.write_text(write_sgf(5, 0.5, actions, result_string(float(score(state)))))
    names = [GO5.action_to_string(None, a) for a in actions]
    script = [f"loadsgf {record}", "list_stones black", "list_stones white", "clear_board"]
    script += [f"play {'bw'[i % 2]} {name}" for i, name in enumerate(names)]
    script += ["printsgf", "quit"]
    proc = subprocess.run(
        [GNUGO, "--mode", "gtp", "--boardsize", "5", "--komi", "0.5"],
        input="\n".join(script) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = [a.strip() for a in proc.stdout.split("\n\n") if a.strip()]
    assert len(answers) == len(script) and all(a.startswith("=") for a in answers), answers
    ours = board_of(GO5, state)
    assert set(answers[1][1:].split()) == {v for v, c in ours.items() if c == BLACK}
    assert set(answers[2][1:].split()) == {v for v, c in ours.items() if c == WHITE}
    captured = {GO5.action_to_string(None, a) for a in actions if a < 25} - set(ours)
    assert captured  # the game has captures
    printed = answers[-2][1:]
    assert "AB[" in printed and "AW[" in printed
    game, states, moves = read_sgf(printed)
    assert game.size == 5 and moves == [] and len(states) == 1  # (its KM is its own komi)
    assert board_of(GO5, states[0]) == ours
    assert int(states[0].player) == int(state.player)
