"""Go against OpenSpiel's ``go`` (random games compared step by step) and hand-worked
positions: captures, suicide, simple ko, positional superko, scoring, the Zobrist key and
the GTP notation.

Compilation dominates: the OpenSpiel comparison compiles one lockstep program per board
size, and the hand-built checks share one jitted step/legal pair per game.
"""

from __future__ import annotations

import random

import jax
import numpy as np
import pytest

import jaxgames
from jaxgames import GameError
from jaxgames.bench.go_oracle import compare_with_openspiel
from jaxgames.capabilities import Hashing
from jaxgames.games.go.notation import host_key

GO5 = jaxgames.make("go:size=5")


class Runner:
    """A game with its step, legal mask, utility and playout mask jitted once."""

    def __init__(self, game):
        self.game = game
        self.step = jax.jit(game.step)
        self.legal = jax.jit(game.legal_mask)
        self.utility = jax.jit(game.utility)
        self.playout = jax.jit(game.playout_mask)
        self.hash = jax.jit(game.hash)
        self.evaluate = jax.jit(game.evaluate)

    def play(self, state, *vertices: str):
        for v in vertices:
            a = self.action(v)
            assert bool(np.asarray(self.legal(state))[a]), f"{v} should be legal"
            state = self.step(state, a)
        return state

    def action(self, vertex: str) -> int:
        g = self.game
        return g.num_points if vertex == "pass" else g._point_of(vertex, "test")

    def is_legal(self, state, vertex: str) -> bool:
        return bool(np.asarray(self.legal(state))[self.action(vertex)])

    def at(self, state, vertex: str) -> int:
        return int(np.asarray(state.board)[self.action(vertex)])


@pytest.fixture(scope="module")
def go5():
    return Runner(GO5)


# ---------------------------------------------------------------- OpenSpiel as the oracle
@pytest.mark.parametrize("size,games", [(9, 20), (5, 10), (13, 3)])
def test_random_games_match_openspiel(size, games):
    """Legal action sets, boards and terminal flags at every step, returns at the end."""
    result = compare_with_openspiel(size, games, seed=size)
    assert result["mismatch_reports"] == []
    assert result["mismatches"] == 0
    assert result["steps_compared"] > games * 20
    finished = result["two_passes"] + result["length_limit"]
    assert finished + result["ended_by_repetition"] == games


def test_conventions_match_openspiel():
    import pyspiel

    oracle = pyspiel.load_game("go", {"board_size": 9, "komi": 7.5})
    game = jaxgames.make("go")
    assert game.num_actions == oracle.num_distinct_actions() == 82
    assert game.max_game_length == oracle.max_game_length() == 162
    state = oracle.new_initial_state()
    for a in (0, 1, 8, 9, 40, 72, 80, 81):
        theirs = state.action_to_string(a).split()[1].upper()
        assert game.action_to_string(game.init(), a).upper() == theirs
    assert game.player(game.init()) == 0 == state.current_player()


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "spec,words",
    [
        ("go:size=4", "size must be 5..19, got 4"),
        ("go:size=20", "size must be 5..19, got 20"),
        ("go:size=nine", "size must be a whole number"),
        ("go:komi=abc", "komi must be a number"),
        ("go:superko=3", "superko must be true or false"),
    ],
)
def test_bad_parameters(spec, words):
    with pytest.raises(GameError) as err:
        jaxgames.make(spec)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_registered():
    assert "go" in jaxgames.list_games()
    game = jaxgames.make("go:size=13,komi=6.5,superko=true")
    assert (game.size, game.komi, game.superko, game.num_actions) == (13, 6.5, True, 170)
    assert isinstance(game, Hashing)


# ---------------------------------------------------------------- hand-worked positions
def test_single_capture(go5):
    # White C3 surrounded on three sides; Black C4 takes its last liberty
    s = go5.play(GO5.init(), "C2", "C3", "B3", "pass", "D3", "pass")
    assert go5.at(s, "C3") == -1
    s = go5.play(s, "C4")
    assert go5.at(s, "C3") == 0 and go5.at(s, "C4") == 1
    assert int(np.sum(np.asarray(s.board) == 1)) == 4 and int(np.sum(np.asarray(s.board))) == 4


def test_corner_chain_capture(go5):
    # White A1 B1 (one chain), Black A2 B2 then C1 takes its last liberty: both removed
    s = go5.play(GO5.init(), "A2", "A1", "B2", "B1", "C1")
    assert go5.at(s, "A1") == 0 and go5.at(s, "B1") == 0
    assert int(np.asarray(s.chain)[0]) == GO5.num_points  # empty points have no chain
    # both points are now legal for White again? A1: neighbours A2 (black), B1 (empty): yes
    assert go5.is_legal(s, "A1") and go5.is_legal(s, "B1")


def test_suicide_is_illegal(go5):
    # Black to move; White A2 and B1 (each with free liberties) make A1 Black's suicide
    s = GO5.parse("...../...../...../O..../.O... X")
    assert not go5.is_legal(s, "A1")
    assert go5.is_legal(s, "E5")
    # White may play there (its own stones give it liberties)
    w = GO5.parse("...../...../...../O..../.O... O")
    assert go5.is_legal(w, "A1")


def test_suicide_that_captures_is_legal(go5):
    # White A2 B1 each in atari (Black A3 B2 C1): Black A1 captures both
    s = GO5.parse("...../...../X..../OX.../.OX.. X")
    assert go5.is_legal(s, "A1")
    s = go5.step(s, 0)
    assert go5.at(s, "A2") == 0 and go5.at(s, "B1") == 0 and go5.at(s, "A1") == 1
    # no ko: two stones were taken
    assert int(s.ko) == -1


def test_self_atari_fill_of_own_last_liberty_is_illegal(go5):
    # Black B1 chain's last liberty is A1; White surrounds: A2 and C1 and B2 white.
    s = GO5.parse("...../...../...../OO.../.XO.. X")
    assert not go5.is_legal(s, "A1")  # joins B1, whose only liberty was A1: suicide


def test_simple_ko(go5):
    board = "...../.XO../XO.O./.XO../..... X"  # rows 5..1: ko shape on rows 2-4
    s = GO5.parse(board)
    # Black C3 is surrounded by White on all four sides and takes White B3
    assert go5.is_legal(s, "C3")
    s = go5.step(s, go5.action("C3"))
    assert go5.at(s, "B3") == 0 and go5.at(s, "C3") == 1
    assert int(s.ko) == go5.action("B3")
    assert not go5.is_legal(s, "B3")  # White may not retake at once
    assert GO5.format(s).endswith("ko=B3")
    s = go5.play(s, "E1", "E5")  # an exchange elsewhere
    assert go5.is_legal(s, "B3")  # now it may
    s = go5.step(s, go5.action("B3"))
    assert go5.at(s, "C3") == 0 and int(s.ko) == go5.action("C3")


def test_pass_clears_ko(go5):
    s = go5.play(GO5.parse("...../.XO../XO.O./.XO../..... X"), "C3", "pass", "E5")
    assert go5.is_legal(s, "B3")


# A double ko on 7x7: Black can take at C2 (ko 1), White at F6 (ko 2). The cycle
#   Black C2, White F6, Black pass, White B2, Black E6  -> the starting board again,
#   White pass, Black C2 -> the board after the first move: a repeat.
DOUBLE_KO = "....OX./...OX.X/....OX./......./.XO..../XO.O.../.XO.... X"


@pytest.mark.parametrize("superko", [False, True])
def test_superko_refuses_a_repeated_board(superko):
    game = jaxgames.make("go", size=7, superko=superko)
    run = Runner(game)
    s = game.parse(DOUBLE_KO)
    s = run.play(s, "C2", "F6", "pass", "B2")
    assert run.is_legal(s, "E6")  # the starting board was given, never played: allowed
    s = run.play(s, "E6", "pass")
    assert game.format(s).split()[0] == DOUBLE_KO.split()[0]
    assert int(s.ko) == -1
    # the same capture as the first move: legal under simple ko, a repeat under superko
    assert run.is_legal(s, "C2") == (not superko)
    assert run.is_legal(s, "A7")


# ---------------------------------------------------------------- scoring and utility
def test_area_scoring_and_ties(go5):
    empty = GO5.init()
    assert float(GO5.score(empty)) == -7.5  # no stones: no area, White has komi
    s = go5.play(empty, "C3")
    assert float(GO5.score(s)) == 25 - 7.5  # one stone owns the whole board
    even = jaxgames.make("go:size=5,komi=0")
    run = Runner(even)
    s = run.play(even.init(), "A1", "E5", "pass", "pass")
    assert bool(even.terminal(s))
    assert float(even.score(s)) == 0.0  # every empty point reaches both: neutral
    assert list(np.asarray(run.utility(s))) == [0.0, 0.0]
    s = run.play(even.init(), "A1", "pass", "pass")
    assert list(np.asarray(run.utility(s))) == [1.0, -1.0]


def test_evaluate_bounded_and_utility_at_the_end(go5):
    s = go5.play(GO5.init(), "C3")
    e = np.asarray(go5.evaluate(s))
    assert 0 < e[0] < 1 and e[1] == -e[0]
    s = go5.play(s, "pass", "pass")
    assert list(np.asarray(go5.evaluate(s))) == list(np.asarray(go5.utility(s))) == [1.0, -1.0]


def test_length_limit_and_pass_always_legal(go5):
    assert GO5.max_game_length == 50
    s = go5.play(GO5.init(), "C3", "pass")
    assert np.asarray(go5.legal(s))[GO5.num_points]  # the pass, whatever else is legal
    last = s._replace(moves=np.int16(49))
    assert not bool(GO5.terminal(last))
    s = go5.step(last, go5.action("D4"))
    assert bool(GO5.terminal(s)) and not np.asarray(go5.legal(s)).any()
    s = go5.play(GO5.init(), "C3", "pass", "pass")
    assert bool(GO5.terminal(s)) and not np.asarray(go5.legal(s)).any()


def test_playout_mask_keeps_own_eyes(go5):
    # Black A2 B2 B1 make A1 Black's eye; Black to move
    s = GO5.parse("...../...../...../XX.../.X... X")
    legal, playout = np.asarray(go5.legal(s)), np.asarray(go5.playout(s))
    a1 = go5.action("A1")
    assert legal[a1] and not playout[a1]
    assert not playout[GO5.num_points]  # other moves are left: no pass
    assert playout[go5.action("C3")]
    # a full board but for Black's two eyes: only the pass is left
    full = "XXXXX/XXXXX/XXXXX/X.XXX/XXX.X X"
    mask = np.asarray(go5.playout(GO5.parse(full)))
    assert mask.sum() == 1 and mask[GO5.num_points]


# ---------------------------------------------------------------- Zobrist key
def test_hash_independent_of_move_order(go5):
    a = go5.play(GO5.init(), "C3", "D4", "B2", "E5")
    b = go5.play(GO5.init(), "B2", "E5", "C3", "D4")
    assert np.array_equal(np.asarray(go5.hash(a)), np.asarray(go5.hash(b)))
    c = go5.play(GO5.init(), "B2", "D4", "C3", "E5")  # same stones, same side to move
    assert np.array_equal(np.asarray(go5.hash(a)), np.asarray(go5.hash(c)))
    d = go5.play(GO5.init(), "C3", "D4", "B2", "pass")  # a stone fewer
    assert not np.array_equal(np.asarray(go5.hash(a)), np.asarray(go5.hash(d)))


def test_hash_matches_recomputation_through_captures(go5):
    rng = random.Random(3)
    s = GO5.init()
    captures = 0
    for _ in range(GO5.max_game_length):
        legal = np.nonzero(np.asarray(go5.legal(s)))[0]
        if not len(legal):
            break
        points = [a for a in legal if a != GO5.num_points] or list(legal)
        before = int(np.sum(np.asarray(s.board) != 0))
        s = go5.step(s, rng.choice(points))
        after = int(np.sum(np.asarray(s.board) != 0))
        captures += after < before + 1
        key = int(s.hash_lo) | int(s.hash_hi) << 32
        assert key == host_key(np.asarray(s.board).tolist(), 5)
    assert captures > 0


# ---------------------------------------------------------------- notation
def test_vertices():
    g9, g19 = jaxgames.make("go"), jaxgames.make("go:size=19")
    assert [g9.action_to_string(None, a) for a in (0, 8, 9, 80, 81)] == [
        "A1",
        "J1",
        "A2",
        "J9",
        "pass",
    ]
    assert g19.action_to_string(None, 360) == "T19"
    assert g9.string_to_action(g9.init(), "j9") == 80
    with pytest.raises(GameError, match="off the 9x9 board"):
        g9.string_to_action(g9.init(), "K1")


def test_move_list_parse_equals_stepping(go5):
    text = "C3 D4 pass B2 C4 C2 D3 B3 D2 pass E4"
    parsed = GO5.parse(text)
    actions = GO5.parse_moves(text)
    assert GO5.moves_to_string(actions) == text
    s = GO5.init()
    for a in actions:
        s = go5.step(s, a)
    for field in ("board", "player", "ko", "passes", "moves", "hash_lo", "hash_hi"):
        assert np.array_equal(np.asarray(getattr(parsed, field)), np.asarray(getattr(s, field)))

    def partition(chain):  # chain ids differ between the two; the chains must not
        chain = np.asarray(chain)
        return {c: frozenset(np.nonzero(chain == c)[0]) for c in set(chain.tolist())}

    assert set(partition(parsed.chain).values()) == set(partition(s.chain).values())
    assert GO5.parse(GO5.format(parsed)).board.tolist() == parsed.board.tolist()
    assert GO5.parse("D4,E5 pass").moves == 3


def test_column_i_is_rejected():
    with pytest.raises(GameError) as err:
        GO5.parse("C3 I4 D4")
    message = str(err.value)
    assert "move 2 'I4' at character 4" in message and "column I" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "text,words",
    [
        ("C3 C3", "move 2 'C3' at character 4: illegal, the point is occupied"),
        ("C3 X", "move 2 'X' at character 4: not a vertex"),
        ("C3 F1", "off the 5x5 board"),
        ("pass pass C3", "the game is already over"),
    ],
)
def test_bad_move_lists(text, words):
    with pytest.raises(GameError, match=words):
        GO5.parse(text)


def test_split_position_and_board_strings():
    assert GO5.split_position("D4 E5 pass C3 0.5 name") == ("D4 E5 pass C3", "0.5 name")
    board = "...../.XO../XO.O./.XO../..... X"
    assert GO5.split_position(board + " ko=B3 label") == (board + " ko=B3", "label")
    assert GO5.split_position(board + " label") == (board, "label")
    with pytest.raises(GameError, match="has 4 rows"):
        GO5.parse("..../..../..../.... X")
    with pytest.raises(GameError, match="no liberty"):
        GO5.parse("...../...../...../OO.../XXO.. O")
    drawing = GO5.draw(GO5.parse(board))
    assert drawing.splitlines()[1] == " 4 +XO++" and drawing.splitlines()[-1] == "   ABCDE"
