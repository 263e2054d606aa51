"""Tic-tac-toe against an independent pure-Python reference and against OpenSpiel."""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import Hashing

GAME = jaxgames.make("tictactoe")
STEP = jax.jit(GAME.step)


@jax.jit
def observe(state):
    """Every protocol function of one state, in one compiled call."""
    return {
        "player": GAME.player(state),
        "legal": GAME.legal_mask(state),
        "terminal": GAME.terminal(state),
        "utility": GAME.utility(state),
        "evaluate": GAME.evaluate(state),
        "hash": GAME.hash(state),
    }


# ---------------------------------------------------------------- independent reference
# Board: a list of 9 strings " ", "X", "O", squares numbered row-major from the top-left.
REF_LINES = (
    [[3 * r + c for c in range(3)] for r in range(3)]
    + [[3 * r + c for r in range(3)] for c in range(3)]
    + [[0, 4, 8], [2, 4, 6]]
)


def ref_winner(board: list[str]) -> str | None:
    for a, b, c in REF_LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


def ref_over(board: list[str]) -> bool:
    return ref_winner(board) is not None or " " not in board


def ref_legal(board: list[str]) -> list[int]:
    return [] if ref_over(board) else [i for i in range(9) if board[i] == " "]


def ref_to_move(board: list[str]) -> int:
    return (9 - board.count(" ")) % 2


def ref_play(moves: list[int]) -> list[str]:
    board = [" "] * 9
    for i, m in enumerate(moves):
        assert m in ref_legal(board)
        board[m] = "XO"[i % 2]
    return board


def ref_u(board: list[str]) -> float:
    return {"X": 1.0, "O": -1.0, None: 0.0}[ref_winner(board)]


def random_game(rng: random.Random, stop_early: bool = False) -> list[int]:
    board, moves = [" "] * 9, []
    while ref_legal(board):
        if stop_early and rng.random() < 0.15:
            break
        m = rng.choice(ref_legal(board))
        board[m] = "XO"[len(moves) % 2]
        moves.append(m)
    return moves


def play(moves: list[int]):
    state = GAME.init()
    for m in moves:
        state = STEP(state, jnp.int32(m))
    return state


def assert_same_state(a, b) -> None:
    for name, x, y in zip(a._fields, a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)


# ---------------------------------------------------------------- static facts
def test_static_facts():
    assert GAME.name == "tictactoe" and GAME.spec == "tictactoe"
    assert (GAME.num_players, GAME.num_actions, GAME.max_game_length) == (2, 9, 9)
    assert (GAME.utility_min, GAME.utility_max, GAME.zero_sum) == (-1.0, 1.0, True)
    assert isinstance(GAME, Hashing) and GAME.num_chance_outcomes == 0
    obs = observe(GAME.init())
    assert int(obs["player"]) == 0 and not bool(obs["terminal"])
    assert np.asarray(obs["legal"]).all()


# ---------------------------------------------------------------- random playthroughs
def test_random_games_match_reference():
    rng = random.Random(1234)
    for _ in range(150):
        moves = random_game(rng)
        state, board = GAME.init(), [" "] * 9
        for i in range(len(moves) + 1):
            obs = observe(state)
            legal = np.flatnonzero(np.asarray(obs["legal"])).tolist()
            assert legal == ref_legal(board)
            assert bool(obs["terminal"]) == ref_over(board)
            assert int(obs["player"]) == ref_to_move(board)
            u = ref_u(board) if ref_over(board) else 0.0
            np.testing.assert_array_equal(np.asarray(obs["utility"]), [u, -u])
            # the hash recomputed from scratch equals the incremental one
            again = GAME.parse(GAME.format(state))
            assert_same_state(again, state)
            if i < len(moves):
                state = STEP(state, jnp.int32(moves[i]))
                board[moves[i]] = "XO"[i % 2]


def test_hash_independent_of_move_order():
    rng = random.Random(7)
    seen: dict[tuple, tuple] = {}
    for _ in range(60):
        moves = random_game(rng, stop_early=True)
        board = ref_play(moves)
        if ref_winner(board) is not None:
            moves = moves[:-1]  # without a winner every reordering is a legal game
            board = ref_play(moves)
        xs, os = moves[0::2], moves[1::2]
        rng.shuffle(xs)
        rng.shuffle(os)
        other = [None] * len(moves)
        other[0::2], other[1::2] = xs, os
        a, b = play(moves), play(other)
        assert_same_state(a, b)
        key = tuple(np.asarray(a.hash).tolist())
        seen.setdefault(key, tuple(board))
        assert seen[key] == tuple(board), "two positions share a hash"


# ---------------------------------------------------------------- OpenSpiel oracle
def test_against_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    oracle = pyspiel.load_game("tic_tac_toe")
    rng = random.Random(99)
    for _ in range(100):
        ref, state = oracle.new_initial_state(), GAME.init()
        while True:
            obs = observe(state)
            assert bool(obs["terminal"]) == ref.is_terminal()
            if ref.is_terminal():
                np.testing.assert_array_equal(np.asarray(obs["utility"]), ref.returns())
                break
            assert int(obs["player"]) == ref.current_player()
            legal = ref.legal_actions()
            assert np.flatnonzero(np.asarray(obs["legal"])).tolist() == legal
            a = rng.choice(legal)
            ref.apply_action(a)
            state = STEP(state, jnp.int32(a))
        # OpenSpiel's board printout uses the same squares and x/o symbols
        assert GAME.format(state) == str(ref).replace("\n", "/")


# ---------------------------------------------------------------- specific positions
@pytest.mark.parametrize(
    "moves, over, u",
    [
        ("03142", True, 1.0),  # x 0 1 2: top row
        ("0123456", True, 1.0),  # x 0 2 4 6: anti-diagonal at the 7th move
        ("041286", True, -1.0),  # o 4 2 6: anti-diagonal
        ("3041857", False, 0.0),  # x 3 4 8 7, o 0 1 5: no line yet
        ("012436587", True, 0.0),  # xox/xox/oxo: full board, no line
    ],
)
def test_hand_games(moves, over, u):
    digits = [int(c) for c in moves]
    board = ref_play(digits)
    assert (ref_over(board), ref_u(board)) == (over, u)  # the reference agrees by hand
    state = GAME.parse(moves)
    assert_same_state(state, play(digits))
    obs = observe(state)
    assert bool(obs["terminal"]) == over
    assert np.asarray(obs["utility"]).tolist() == [u, -u]


def test_known_boards():
    # O: 2 4 6 (anti-diagonal); X: 0 1 8.
    s = GAME.parse("xxo/.o./o.x")
    assert bool(GAME.terminal(s)) and np.asarray(GAME.utility(s)).tolist() == [-1.0, 1.0]
    # a full board, no line: a draw
    s = GAME.parse("xox/xox/oxo")
    assert bool(GAME.terminal(s)) and np.asarray(GAME.utility(s)).tolist() == [0.0, 0.0]
    assert not np.asarray(GAME.legal_mask(s)).any()
    # a line made with the last square is a win, not a draw
    s = GAME.parse("xox/oxo/xox")
    assert bool(GAME.terminal(s)) and np.asarray(GAME.utility(s)).tolist() == [1.0, -1.0]


# ---------------------------------------------------------------- notation
moves_strategy = st.randoms(use_true_random=False).map(lambda r: random_game(r, stop_early=True))


@settings(max_examples=60, deadline=None)
@given(moves=moves_strategy, sep=st.sampled_from(["", ","]))
def test_move_list_and_board_round_trip(moves, sep):
    text = sep.join(str(m) for m in moves)
    state = GAME.parse(text)
    assert_same_state(state, play(moves))
    board_text = GAME.format(state)
    assert len(board_text) == 11 and board_text.count("/") == 2
    assert_same_state(GAME.parse(board_text), state)
    # other spellings of the same board
    for variant in (
        board_text.upper(),
        board_text.replace("/", "\n"),
        board_text.replace("/", " "),
        board_text.replace("/", ""),
        board_text.replace(".", "-"),
        " " + " / ".join(board_text.split("/")) + "\n",
    ):
        assert_same_state(GAME.parse(variant), state)
    # move notation round trip on every legal move
    for a in np.flatnonzero(np.asarray(GAME.legal_mask(state))):
        text = GAME.action_to_string(state, int(a))
        assert text == str(a) and GAME.string_to_action(state, text) == a


def test_start():
    for text in ("", "start", "  START ", ".........", ".../.../..."):
        assert_same_state(GAME.parse(text), GAME.init())


@pytest.mark.parametrize(
    "text, where",
    [
        ("404", "move 3 ('4') at character 3: square 4 is taken"),
        ("404", "move 3 ('4') at character 3: square 4 is taken"),
        ("0 4", "has a space at character 2"),
        ("49", "move 2 ('9') at character 2: square 9"),
        ("0314258", "move 6 ('5') at character 6: the game is already over"),
        ("x.q/.../...", "'q' at character 3"),
        ("x..4.....", "mixes square digits and board marks"),
        ("40a", "move 3 ('a') at character 3: not a square digit"),
        ("x..../.../...", "row 1 has 5 cells"),
        ("x../.../.../...", "4 row(s)"),
        ("xx.", "3 cells"),
        ("xo.xo.xo.ox", "11 cells"),
        ("xx.......", "2 x and 0 o"),
        ("o........", "0 x and 1 o"),
        ("xxx/ooo/...", "both x and o"),
        ("xxx/oo./o..", "x has three in a row but o moved after it"),
        ("ooo/xx./x.x", "o has three in a row but x moved after it"),
    ],
)
def test_malformed_input(text, where):
    with pytest.raises(GameError) as err:
        GAME.parse(text)
    message = str(err.value)
    assert "\n" not in message and message.startswith("tictactoe: ")
    assert where in message


def test_string_to_action_errors():
    state = GAME.parse("4")
    for text in ("4", "9", "x", "", "44", "-1"):
        with pytest.raises(GameError) as err:
            GAME.string_to_action(state, text)
        assert "\n" not in str(err.value)
    done = GAME.parse("03142")
    with pytest.raises(GameError, match="over"):
        GAME.string_to_action(done, "8")


# ---------------------------------------------------------------- evaluation, tracing
def test_evaluate_bounds():
    rng = random.Random(5)
    for _ in range(60):
        moves = random_game(rng)
        state = GAME.init()
        for i in range(len(moves) + 1):
            obs = observe(state)
            e = np.asarray(obs["evaluate"])
            assert e[0] == -e[1]
            if bool(obs["terminal"]):
                np.testing.assert_array_equal(e, np.asarray(obs["utility"]))
            else:
                assert abs(e[0]) <= 8 / 9 + 1e-6 < 1.0
            if i < len(moves):
                state = STEP(state, jnp.int32(moves[i]))
    # the documented formula: open lines for x minus open lines for o, over 9
    state = GAME.parse("4")  # x in the centre: 8 lines open for x, 4 for o
    assert np.isclose(float(GAME.evaluate(state)[0]), 4 / 9)


def test_step_traces_safely_on_any_input():
    batch_step = jax.jit(jax.vmap(GAME.step))
    done = GAME.parse("03142")
    states = jax.tree.map(lambda *xs: jnp.stack(xs), GAME.init(), GAME.parse("4"), done, done)
    out = batch_step(states, jnp.array([4, 4, 8, 100], jnp.int32))  # taken, over, garbage
    for x, y in zip(out, states, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype


# ---------------------------------------------------------------- host states, move names
def test_parsed_states_are_numpy_and_every_function_takes_them():
    init = GAME.init()
    for text in ("", "408", "x.o/.x./..o", "xxx/oo./..."):
        state = GAME.parse(text)
        for name, x, y in zip(state._fields, state, init, strict=True):
            assert isinstance(x, np.ndarray), name  # host memory: no transfer per field
            assert x.dtype == y.dtype and x.shape == np.shape(y), name
    assert_same_state(GAME.step(GAME.parse("40"), 8), GAME.parse("408"))  # eagerly


def test_move_names_are_the_square_digits():
    from jaxgames.capabilities import FixedMoveNames

    assert isinstance(GAME, FixedMoveNames)
    state = GAME.init()
    assert GAME.move_names == tuple(GAME.action_to_string(state, a) for a in range(9))
