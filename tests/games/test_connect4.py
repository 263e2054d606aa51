"""Connect four against an independent pure-Python reference and against OpenSpiel."""

from __future__ import annotations

import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from connect4_reference import Ref, random_game, ref_play
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import Hashing

GAME = jaxgames.make("connect4")
SMALL = jaxgames.make("connect4", width=5, height=4, connect=3)
CONFIGS = [(7, 6, 4), (5, 4, 3), (4, 4, 4), (5, 3, 3), (3, 1, 3), (1, 5, 2)]


def game_of(w: int, h: int, k: int):
    return jaxgames.make("connect4", width=w, height=h, connect=k)


@functools.cache
def compiled(game):
    """(step, observe) of a game, each compiled once."""

    def observe(state):
        return {
            "player": game.player(state),
            "legal": game.legal_mask(state),
            "terminal": game.terminal(state),
            "utility": game.utility(state),
            "evaluate": game.evaluate(state),
            "hash": game.hash(state),
        }

    return jax.jit(game.step), jax.jit(observe)


def play(game, moves: list[int]):
    step, _ = compiled(game)
    state = game.init()
    for m in moves:
        state = step(state, jnp.int32(m))
    return state


def assert_same_state(a, b) -> None:
    for name, x, y in zip(a._fields, a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)


# ---------------------------------------------------------------- static facts
def test_static_facts():
    assert GAME.spec == "connect4" and GAME.params == {}
    assert jaxgames.make("connect4", width=7, height=6) == GAME
    assert jaxgames.make("connect4", width=7).spec == "connect4"
    assert SMALL.spec == "connect4:connect=3,height=4,width=5"
    assert jaxgames.make("connect4:width=5,height=4,connect=3") == SMALL
    assert (GAME.num_players, GAME.num_actions, GAME.max_game_length) == (2, 7, 42)
    assert (SMALL.num_actions, SMALL.max_game_length) == (5, 20)
    assert (GAME.utility_min, GAME.utility_max, GAME.zero_sum, isinstance(GAME, Hashing)) == (
        -1.0,
        1.0,
        True,
        True,
    )
    assert (GAME.score_base, GAME.max_score) == (22, 18)
    assert (SMALL.score_base, SMALL.max_score) == (11, 8)


@pytest.mark.parametrize(
    "params, where",
    [
        ({"width": 10}, "width 10"),
        ({"width": 0}, "width 0"),
        ({"height": 0}, "height 0"),
        ({"connect": 1}, "connect 1"),
        ({"connect": 8}, "connect 8"),
        ({"width": 3, "height": 3, "connect": 4}, "connect 4"),
        ({"width": 7.5}, "width"),
        ({"height": "six"}, "height"),
        ({"connect": True}, "connect"),
    ],
)
def test_bad_params(params, where):
    with pytest.raises(GameError) as err:
        jaxgames.make("connect4", **params)
    message = str(err.value)
    assert "\n" not in message and where in message


def test_unknown_param():
    with pytest.raises(GameError, match="connect4"):
        jaxgames.make("connect4", depth=3)


# ---------------------------------------------------------------- random playthroughs
@pytest.mark.parametrize("w, h, k", CONFIGS)
def test_random_games_match_reference(w, h, k):
    game = game_of(w, h, k)
    step, observe = compiled(game)
    rng = random.Random(w * 100 + h * 10 + k)
    for _ in range(40 if (w, h) == (7, 6) else 20):
        moves = random_game(rng, w, h, k)
        state, ref = game.init(), Ref(w, h, k)
        for i in range(len(moves) + 1):
            obs = observe(state)
            assert np.flatnonzero(np.asarray(obs["legal"])).tolist() == ref.legal()
            assert bool(obs["terminal"]) == ref.over()
            assert int(obs["player"]) == ref.n % 2
            u = ref.utility()
            np.testing.assert_allclose(np.asarray(obs["utility"]), [u, -u], rtol=1e-6)
            assert game.format(state) == ref.grid()
            again = game.parse(game.format(state))  # hash recomputed from scratch
            assert_same_state(again, state)
            if (h + 1) * w <= 64:  # the stones as bitboards, bit = column * (h + 1) + row
                assert np.asarray(state.words[2:]).tolist() == ref_bitboards(ref)
            if i < len(moves):
                state = step(state, jnp.int32(moves[i]))
                ref.play(moves[i])


def ref_bitboards(ref: Ref) -> list[int]:
    """x's and o's stones as two 64-bit bitboards in Pons's layout (a spare bit atop each
    column), each split into (low, high) 32-bit words."""
    boards = {"x": 0, "o": 0}
    for c, col in enumerate(ref.cols):
        for r, piece in enumerate(col):
            boards[piece] |= 1 << (c * (ref.h + 1) + r)
    mask = (1 << 32) - 1
    return [boards["x"] & mask, boards["x"] >> 32, boards["o"] & mask, boards["o"] >> 32]


def reorder(rng: random.Random, w: int, h: int, k: int, moves: list[int]) -> list[int]:
    """Another legal order of ``moves`` reaching the same board (same-player swaps)."""
    final = ref_play(w, h, k, moves).cols
    out = list(moves)
    for _ in range(200):
        i, j = sorted(rng.sample(range(len(out)), 2)) if len(out) > 1 else (0, 0)
        if i == j or (j - i) % 2:
            continue
        cand = list(out)
        cand[i], cand[j] = cand[j], cand[i]
        ref = Ref(w, h, k)
        ok = True
        for m in cand:
            if ref.over() or m not in ref.legal():
                ok = False
                break
            ref.play(m)
        if ok and ref.cols == final:
            out = cand
    return out


@pytest.mark.parametrize("w, h, k", [(7, 6, 4), (5, 4, 3)])
def test_hash_independent_of_move_order(w, h, k):
    game = game_of(w, h, k)
    rng = random.Random(11)
    seen: dict[tuple, str] = {}
    changed = 0
    for _ in range(40):
        moves = random_game(rng, w, h, k, stop=0.05)
        other = reorder(rng, w, h, k, moves)
        changed += other != moves
        a, b = play(game, moves), play(game, other)
        assert_same_state(a, b)
        key = tuple(np.asarray(game.hash(a)).tolist())
        seen.setdefault(key, game.format(a))
        assert seen[key] == game.format(a), "two positions share a hash"
    assert changed > 20


# ---------------------------------------------------------------- OpenSpiel oracle
@pytest.mark.parametrize("w, h, k", [(7, 6, 4), (5, 4, 3)])
def test_against_openspiel(w, h, k):
    # OpenSpiel: action = column from the left (0-based), player 0 is "x" and moves first,
    # the board prints top row first; returns are +-1 (we scale by the distance score).
    pyspiel = pytest.importorskip("pyspiel")
    oracle = pyspiel.load_game("connect_four", {"columns": w, "rows": h, "x_in_row": k})
    game = game_of(w, h, k)
    step, observe = compiled(game)
    rng = random.Random(5)
    for _ in range(40):
        ref, state = oracle.new_initial_state(), game.init()
        while True:
            obs = observe(state)
            assert bool(obs["terminal"]) == ref.is_terminal()
            assert game.format(state) == str(ref).strip().replace("\n", "/")
            if ref.is_terminal():
                u = np.asarray(obs["utility"])
                np.testing.assert_array_equal(np.sign(u), ref.returns())
                if u[0] != 0:
                    assert 1 / game.max_score - 1e-6 <= abs(u[0]) <= 1.0
                break
            assert int(obs["player"]) == ref.current_player()
            legal = ref.legal_actions()
            assert np.flatnonzero(np.asarray(obs["legal"])).tolist() == legal
            a = rng.choice(legal)
            ref.apply_action(a)
            state = step(state, jnp.int32(a))


# ---------------------------------------------------------------- every line wins
def board_lines(w: int, h: int, k: int) -> list[list[tuple[int, int]]]:
    """Every line of k cells as (column, row) pairs, enumerated independently."""
    lines = []
    for c in range(w):
        for r in range(h):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + i * dc, r + i * dr) for i in range(k)]
                if all(0 <= x < w and 0 <= y < h for x, y in cells):
                    lines.append(cells)
    return lines


def game_completing(w, h, k, line, winner, rng) -> list[int]:
    """A legal game whose last move, by ``winner`` (0 or 1), completes ``line``; no one
    connects earlier. Found by random play of fillers around the line."""
    targets = set(line)
    vertical = len({c for c, _ in line}) == 1
    for _ in range(500):
        final = max(line, key=lambda cr: cr[1]) if vertical else rng.choice(line)
        ref, moves = Ref(w, h, k), []
        while ref.legal():
            me = ref.n % 2 == winner
            nxt = {c: (c, len(ref.cols[c])) for c in ref.legal()}
            placed = all(ref.at(c, r) == "xo"[winner] for c, r in targets - {final})
            if me and placed and final in nxt.values():
                ref.play(final[0])
                moves.append(final[0])
                return moves
            aims = [c for c, cell in nxt.items() if me and cell in targets and cell != final]
            fillers = [c for c, cell in nxt.items() if cell not in targets]
            options = aims if aims and rng.random() < 0.7 else fillers or aims
            options = [c for c in options if not ref.wins_with(c)]
            if not options:
                break
            m = rng.choice(options)
            ref.play(m)
            moves.append(m)
    raise AssertionError(f"no game found for line {line}")


@pytest.mark.parametrize("w, h, k", [(7, 6, 4), (5, 4, 3)])
def test_every_line_wins(w, h, k):
    game = game_of(w, h, k)
    step, observe = compiled(game)
    rng = random.Random(3)
    lines = board_lines(w, h, k)
    assert len(lines) == len(game.lines)
    directions = set()
    for line in lines:
        directions.add((line[1][0] - line[0][0], line[1][1] - line[0][1]))
        for winner in (0, 1):
            moves = game_completing(w, h, k, line, winner, rng)
            ref = ref_play(w, h, k, moves)
            assert ref.winner == "xo"[winner]
            assert all(ref.at(c, r) == "xo"[winner] for c, r in line)
            state = game.init()
            for m in moves:
                assert not bool(observe(state)["terminal"])
                state = step(state, jnp.int32(m))
            obs = observe(state)
            assert bool(obs["terminal"]) and int(state.winner) == winner
            assert not np.asarray(obs["legal"]).any()
            u = ref.utility()
            np.testing.assert_allclose(np.asarray(obs["utility"]), [u, -u], rtol=1e-6)
            assert_same_state(game.parse(game.moves_to_string(moves)), state)
    assert directions == {(1, 0), (0, 1), (1, 1), (1, -1)}


# ---------------------------------------------------------------- distance scores
DRAW_7X6 = "467542311242375735765675733135661624214421"


@pytest.mark.parametrize(
    "wh_k, moves, over, score",
    [
        # 7x6: score_base 22, max_score 18.
        ((7, 6, 4), "4455", False, 0),
        ((7, 6, 4), "4455667", True, 22 - 4),  # x: 4 5 6 7 on the bottom row
        ((7, 6, 4), "12121232", True, -(22 - 4)),  # o: column 2
        ((7, 6, 4), "11223355664", True, 22 - 6),  # x: bottom row 1..6 with 6 stones
        ((7, 6, 4), "7172776364", True, -(22 - 5)),  # o: bottom 1..4 with 5 stones
        ((7, 6, 4), DRAW_7X6, True, 0),  # full board, no line
        # 5x4 connect 3: score_base (20+1)//2+1 = 11, max_score 8.
        ((5, 4, 3), "11223", True, 11 - 3),
        ((5, 4, 3), "121252", True, -(11 - 3)),  # o: column 2
        ((5, 4, 3), "51435542", True, -(11 - 4)),  # o: bottom 1 2 3 with 4 stones
        # 5x3 connect 3 (odd cell count): score_base (15+1)//2+1 = 9, max_score 6.
        ((5, 3, 3), "11223", True, 9 - 3),
        ((5, 3, 3), "51435542", True, -(9 - 4)),
    ],
)
def test_distance_scores(wh_k, moves, over, score):
    w, h, k = wh_k
    game = game_of(w, h, k)
    max_score = (w * h + 1) // 2 + 1 - k
    digits = [int(c) - 1 for c in moves]
    ref = ref_play(w, h, k, digits)
    assert ref.over() == over and round(ref.utility() * max_score) == score
    state = play(game, digits)
    assert_same_state(game.parse(moves), state)
    assert bool(game.terminal(state)) == over
    u = np.asarray(game.utility(state))
    assert abs(u[0] - score / max_score) < 1e-6 and u[1] == -u[0]
    assert game.score_from_value(u[0]) == score
    assert game.score_from_value(u[1]) == -score
    if over:
        assert not np.asarray(game.legal_mask(state)).any()
    else:
        assert u.tolist() == [0.0, 0.0]


def test_nobody_can_connect():
    # 3x1 connect 3: x gets 2 stones at most, so every game is a draw.
    game = game_of(3, 1, 3)
    assert game.max_score == 1
    state = game.parse("123")
    assert bool(game.terminal(state)) and np.asarray(game.utility(state)).tolist() == [0, 0]


# ---------------------------------------------------------------- notation
def move_strings(w: int, h: int, k: int):
    return st.randoms(use_true_random=False).map(
        lambda r: "".join(str(m + 1) for m in random_game(r, w, h, k, stop=0.03))
    )


@settings(max_examples=40, deadline=None)
@given(text=move_strings(7, 6, 4))
def test_round_trips_7x6(text):
    check_round_trips(GAME, text)


@settings(max_examples=25, deadline=None)
@given(text=move_strings(5, 4, 3))
def test_round_trips_5x4(text):
    check_round_trips(SMALL, text)


def check_round_trips(game, text: str) -> None:
    actions = game.parse_moves(text)
    assert game.moves_to_string(actions) == text
    assert actions == [int(c) - 1 for c in text]
    state = game.parse(text)
    assert_same_state(state, play(game, actions))
    grid = game.format(state)
    assert grid.count("/") == game.height - 1
    assert all(len(row) == game.width for row in grid.split("/"))
    for variant in (
        grid,
        grid.upper(),
        grid.replace("/", "\n"),
        grid.replace("/", "\r\n") + "\n",
        grid.replace(".", "-"),
        " / ".join(" ".join(row) for row in grid.split("/")),
    ):
        assert_same_state(game.parse(variant), state)
    for a in np.flatnonzero(np.asarray(game.legal_mask(state))):
        move = game.action_to_string(state, int(a))
        assert move == str(a + 1) and game.string_to_action(state, move) == a


def test_start():
    for text in ("", "start", " Start\n"):
        assert_same_state(GAME.parse(text), GAME.init())
        assert GAME.parse_moves(text) == []
    assert_same_state(GAME.parse("/".join(["......."] * 6)), GAME.init())


@pytest.mark.parametrize(
    "text, where",
    [
        ("44584", "move 4 ('8') at character 4: column 8 does not exist"),
        ("440", "move 3 ('0') at character 3: column 0 does not exist"),
        ("4444444", "move 7 ('4') at character 7: column 4 is full"),
        ("44556671", "move 8 ('1') at character 8: the game is already over"),
        ("44556671", "move 8 ('1') at character 8: the game is already over"),
        ("4453 12", "has a space at character 5"),
        ("44a5", "move 3 ('a') at character 3"),
        ("......./......./......./......./......./...x..q", "'q' at character 47"),
        ("......./......./......./......./...x...", "5 row(s), expected 6"),
        ("......./......./......./......./......./...x..", "row 6 has 6 cells, expected 7"),
        ("......./......./......./...x.../......./.......", "column 4"),
        ("......./......./......./......./......./xx.....", "2 x and 0 o"),
        ("......./......./......./......./......./o......", "0 x and 1 o"),
        ("......./......./oooo.../oooo.../xxxx.../xxxx...", "both x and o"),
        ("......./......./......./o....../ooo..../xxxx...", "o moved after it"),
        ("......./......./o....../o....../ox...../oxx.xx.", "x moved after it"),
    ],
)
def test_malformed_input(text, where):
    with pytest.raises(GameError) as err:
        GAME.parse(text)
    message = str(err.value)
    assert "\n" not in message and message.startswith("connect4: ")
    assert where in message


def test_malformed_moves():
    for text, where in (("12x", "move 3 ('x') at character 3"), ("128", "column 8")):
        with pytest.raises(GameError) as err:
            GAME.parse_moves(text)
        assert "\n" not in str(err.value) and where in str(err.value)
    state = GAME.parse("444444")
    for text in ("4", "8", "0", "x", "", "12"):
        with pytest.raises(GameError) as err:
            GAME.string_to_action(state, text)
        assert "\n" not in str(err.value)
    with pytest.raises(GameError, match="over"):
        GAME.string_to_action(GAME.parse("4455667"), "1")
    with pytest.raises(GameError, match="row 4 has 6 cells, expected 5"):
        SMALL.parse("...../...../...../......")


# ---------------------------------------------------------------- evaluation, tracing
@pytest.mark.parametrize("w, h, k", [(7, 6, 4), (5, 4, 3), (9, 7, 4)])  # 9x7: no bitboards
def test_evaluate_bounds(w, h, k):
    game = game_of(w, h, k)
    step, observe = compiled(game)
    rng = random.Random(17)
    bound = 1.0 / game.max_score
    nonzero = 0
    for _ in range(25):
        moves = random_game(rng, w, h, k)
        state, ref = game.init(), Ref(w, h, k)
        for i in range(len(moves) + 1):
            obs = observe(state)
            e = np.asarray(obs["evaluate"])
            assert e[0] == -e[1]
            if bool(obs["terminal"]):
                np.testing.assert_array_equal(e, np.asarray(obs["utility"]))
            else:
                assert abs(e[0]) <= bound / 2 + 1e-7 < bound
                np.testing.assert_allclose(e[0], ref.heuristic(), rtol=1e-5, atol=1e-7)
                nonzero += e[0] != 0
            if i < len(moves):
                state = step(state, jnp.int32(moves[i]))
                ref.play(moves[i])
    assert nonzero > 0
    # a lone x in the centre column is good for x
    assert float(game.evaluate(game.parse(str(w // 2 + 1)))[0]) > 0


def test_step_traces_safely_on_any_input():
    batch_step = jax.jit(jax.vmap(GAME.step))
    full = GAME.parse("444444")
    done = GAME.parse("4455667")
    states = jax.tree.map(lambda *xs: jnp.stack(xs), GAME.init(), full, done, done, full)
    out = batch_step(states, jnp.array([3, 3, 0, -1, 99], jnp.int32))
    for x, y in zip(out, states, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype
    # a legal lane is unaffected by the garbage lanes
    assert_same_state(jax.tree.map(lambda x: x[0], out), GAME.parse("4"))


# ---------------------------------------------------------------- search hints
@pytest.mark.parametrize("w, h, k", CONFIGS)
def test_value_bounds_hold_along_random_games(w, h, k):
    """Every state's (low, high) holds the mover's EVAL and the mover's view of the game's
    final utility, and ``high`` is reached exactly by a win with the next stone."""
    game = game_of(w, h, k)
    step, observe = compiled(game)
    bounds = jax.jit(game.value_bounds)
    rng = random.Random(23 + w + h + k)
    reached = 0
    for _ in range(12):
        moves = random_game(rng, w, h, k)
        final = ref_play(w, h, k, moves).utility()  # for x
        state, ref = game.init(), Ref(w, h, k)
        for i in range(len(moves)):
            low, high = np.asarray(bounds(state)).tolist()
            low, high = low - 1e-6, high + 1e-6  # float32 against Python's float64
            side = 1.0 if ref.mover() == "x" else -1.0
            e = float(observe(state)["evaluate"][ref.n % 2])
            assert low <= e <= high and low <= side * final <= high, (moves[:i], low, high)
            for c in ref.legal():
                if ref.wins_with(c):  # the fastest win left: the high bound itself
                    after = ref_play(w, h, k, [*moves[:i], c])
                    assert side * after.utility() == pytest.approx(high, abs=2e-6)
                    reached += 1
            state = step(state, jnp.int32(moves[i]))
            ref.play(moves[i])
    if (w, h, k) in ((7, 6, 4), (5, 4, 3)):  # on the narrowest boards nobody ever connects
        assert reached > 0


@pytest.mark.parametrize("w, h, k", [(7, 6, 4), (5, 4, 3), (9, 7, 4)])
def test_move_order_scores_follow_the_documented_ranking(w, h, k):
    """Against plain Python on random boards (7x6 and 5x4 on bitboards, 9x7 too wide for
    them): the connecting cells of each side, and per legal move its class (connects, blocks,
    gives the opponent the cell above, the rest) and, among the rest, the difference of
    scores = 4 x (the mover's connecting cells after the move) + centre distance."""
    game = game_of(w, h, k)
    scores_of, cells_of = jax.jit(game.move_order_scores), jax.jit(game.winning_cells)
    rng = random.Random(5)
    seen = set()

    def connecting(ref: Ref, piece: str) -> list[bool]:  # cell order of the board
        return [
            ref.at(c, r) is None and ref.completes(c, r, piece) for r in range(h) for c in range(w)
        ]

    for _ in range(80):
        moves = random_game(rng, w, h, k, stop=0.03)
        ref = ref_play(w, h, k, moves)
        if ref.over():
            continue
        state = play(game, moves)
        me, them = ref.mover(), "xo"[1 - ref.n % 2]
        cells = np.asarray(cells_of(state))  # [2, H*W]
        assert cells[0].tolist() == connecting(ref, "x"), moves
        assert cells[1].tolist() == connecting(ref, "o"), moves
        scores = np.asarray(scores_of(state), np.float64)
        rest = {}
        for c in ref.legal():
            r = len(ref.cols[c])
            wins, blocks = ref.completes(c, r, me), ref.completes(c, r, them)
            under = r + 1 < h and ref.completes(c, r + 1, them) and not wins
            s = scores[c]
            if under:
                assert s < -1e6, (moves, c)
                seen.add("under")
            elif wins:
                assert s >= 2e5, (moves, c)
                seen.add("wins")
            elif blocks:
                assert 1e5 <= s < 2e5, (moves, c)
                seen.add("blocks")
            else:
                assert -1e6 < s < 0, (moves, c)
                after = ref_play(w, h, k, [*moves, c])
                threats = sum(connecting(after, me))
                rest[c] = 4 * threats - abs(c - (w - 1) / 2)
        for a in rest:
            for b in rest:
                assert scores[a] - scores[b] == pytest.approx(rest[a] - rest[b]), (moves, a, b)
        if len(rest) > 1:
            seen.add("rest")
    assert seen == {"wins", "blocks", "under", "rest"}


# ---------------------------------------------------------------- host states, move names
def test_parsed_states_are_numpy_and_every_function_takes_them():
    init = GAME.init()
    for text in ("", "4453", "4455667", "......./......./......./......./...o.../..oxx.."):
        state = GAME.parse(text)
        for name, x, y in zip(state._fields, state, init, strict=True):
            assert isinstance(x, np.ndarray), name  # host memory: no transfer per field
            assert x.dtype == y.dtype and x.shape == np.shape(y), name
    state = GAME.parse("445")
    assert_same_state(GAME.step(state, 2), GAME.parse("4453"))  # eagerly, numpy leaves
    assert_same_state(GAME.step(state, jnp.int32(2)), GAME.parse("4453"))
    np.testing.assert_array_equal(GAME.legal_mask(state), np.ones(7, bool))
    batch = jax.tree.map(lambda *xs: np.stack(xs), state, GAME.parse("4453"))
    out = jax.jit(jax.vmap(GAME.step))(batch, jnp.array([2, 0], jnp.int32))
    assert_same_state(jax.tree.map(lambda x: x[0], out), GAME.parse("4453"))


@pytest.mark.parametrize("spec", ["connect4", "connect4:width=5,height=4", "connect4:width=9"])
def test_move_names_are_the_column_digits(spec):
    from jaxgames.capabilities import FixedMoveNames

    game = jaxgames.make(spec)
    assert isinstance(game, FixedMoveNames)
    state = game.parse("")
    assert game.move_names == tuple(game.action_to_string(state, a) for a in range(game.width))
