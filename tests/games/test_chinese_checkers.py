"""Chinese checkers against an independent pure-Python reference and against OpenSpiel.

The reference below builds the star from its row layout in doubled coordinates (row ``r``,
column ``c``; neighbours at ``(0, +-2)`` and ``(+-1, +-1)``), not from the cube coordinates the
game uses, and finds moves by enumerating every jump chain one by one (a depth-first search
over hops that never revisits a hole), as a player would, rather than by a closure.
"""

from __future__ import annotations

import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jaxgames.kernels import playouts, stack

import jaxgames
from jaxgames import GameError
from jaxgames.search import maxn_batch, minimax_batch

pytestmark = pytest.mark.slow  # compiles many programs: outside the fast subset

CORNERS = ("N", "NE", "SE", "S", "SW", "NW")
SEATS = {2: ("N", "S"), 3: ("N", "SE", "SW"), 4: ("N", "NE", "S", "SW"), 6: CORNERS}
OPPOSITE = {"N": "S", "S": "N", "NE": "SW", "SW": "NE", "SE": "NW", "NW": "SE"}
STEPS = ((0, 2), (0, -2), (1, 1), (1, -1), (-1, 1), (-1, -1))


# ---------------------------------------------------------------- independent reference
@functools.cache
def reference_board(k: int):
    """(holes [(row, col)] in row-major order, {hole: corner name or None})."""
    center = 3 * k
    holes, corner = [], {}
    for r in range(4 * k + 1):
        up = {center - r + 2 * i for i in range(r + 1)} if r <= 3 * k else set()
        down = {center - (4 * k - r) + 2 * i for i in range(4 * k - r + 1)} if r >= k else set()
        for c in sorted(up | down):
            holes.append((r, c))
            if r < k:
                name = "N"
            elif r > 3 * k:
                name = "S"
            elif c not in up:
                name = "NE" if c > center else "NW"
            elif c not in down:
                name = "SE" if c > center else "SW"
            else:
                name = None
            corner[(r, c)] = name
    return holes, corner


def reference_start(k: int, n: int) -> dict:
    holes, corner = reference_board(k)
    seat = {name: p for p, name in enumerate(SEATS[n])}
    return {h: seat.get(corner[h]) for h in holes}


def chains(board: dict, start, at, visited: set, moves: set) -> None:
    """Every jump chain from ``at`` that lands on no hole twice; a chain may stop after
    any hop, so every landing is a move from ``start``."""
    for dr, dc in STEPS:
        over, to = (at[0] + dr, at[1] + dc), (at[0] + 2 * dr, at[1] + 2 * dc)
        jumpable = over in board and board[over] is not None and to in board
        if jumpable and board[to] is None and to not in visited:
            moves.add((start, to))
            chains(board, start, to, visited | {to}, moves)


def reference_moves(board: dict, mover: int) -> set:
    """Every (from, to) of the mover: steps, and the end of every jump chain (DFS)."""
    moves = set()
    for start in sorted(h for h, p in board.items() if p == mover):
        for dr, dc in STEPS:
            to = (start[0] + dr, start[1] + dc)
            if to in board and board[to] is None:
                moves.add((start, to))
        work = dict(board)
        work[start] = None  # the moving piece has left its hole
        chains(work, start, start, {start}, moves)
    return moves


def reference_random_position(k: int, n: int, rng: random.Random, fill: float = 1.0) -> dict:
    """Every player's pieces on random holes (a crowded or sparse board)."""
    holes, _ = reference_board(k)
    pieces = k * (k + 1) // 2
    chosen = rng.sample(holes, n * pieces)
    board = {h: None for h in holes}
    for i, h in enumerate(chosen):
        board[h] = i // pieces
    return board


# ---------------------------------------------------------------- helpers
def game_of(n: int, k: int, limit: int = 1000):
    return jaxgames.make("chinese_checkers", players=n, size=k, move_limit=limit)


def to_state(game, board: dict, mover: int, ply: int = 0):
    holes, _ = reference_board(game.size)
    cells = np.asarray([0 if board[h] is None else board[h] + 1 for h in holes], np.int8)
    return game.init()._replace(
        board=jnp.asarray(cells), to_move=jnp.int32(mover), ply=jnp.int32(ply)
    )


@functools.cache
def observe(game):
    """One jitted, vmapped look at a batch: legal masks, leaf values, terminal flags, move
    lists."""

    def look(s):
        return game.legal_mask(s), game.evaluate(s), game.terminal(s), game.legal_moves(s)

    return jax.jit(jax.vmap(look))


def look_at(game, state):
    """(legal mask, EVAL, terminal) of one state, through the compiled batch function."""
    return tuple(np.asarray(x)[0] for x in observe(game)(stack([state])))[:3]


@functools.cache
def stepper(game):
    return jax.jit(game.step)


def our_moves(game, state, mask) -> list:
    holes, _ = reference_board(game.size)
    out = []
    for a in np.flatnonzero(mask):
        text = game.action_to_string(state, int(a))
        if text != "pass":
            source, to = text.split("-")
            out.append((holes[game.hole_index(source)], holes[game.hole_index(to)]))
    return out


def compare_with_reference(game, boards_and_movers) -> int:
    states = [to_state(game, b, m) for b, m in boards_and_movers]
    masks, values, _, lists = (np.asarray(x) for x in observe(game)(stack(states)))
    most = 0
    for (board, mover), state, mask, listed in zip(
        boards_and_movers, states, masks, lists, strict=True
    ):
        # the compact list is the mask's actions, in action order, then -1
        count = int(mask.sum())
        assert listed[:count].tolist() == np.flatnonzero(mask).tolist()
        assert (listed[count:] == -1).all()
        ours = our_moves(game, state, mask)
        assert len(ours) == len(set(ours)), "one action per (from, to)"
        expected = reference_moves(board, mover)
        assert set(ours) == expected
        assert mask[game.pass_action] == (not expected)
        most = max(most, int(mask.sum()))
    assert (values >= 0).all() and (values.sum(axis=1) <= game.utility_sum_max).all()
    return most


# ---------------------------------------------------------------- board and start
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_board_layout_matches_the_reference(k):
    game = game_of(2, k)
    holes, corner = reference_board(k)
    assert game.num_holes == len(holes) == 6 * k * k + 6 * k + 1
    assert game.pieces == k * (k + 1) // 2
    assert game.num_actions == game.pieces * game.num_holes + 1
    rows = [r for r, _ in holes]
    assert game.row_lengths == [rows.count(r) for r in range(4 * k + 1)]
    names = [CORNERS[c] if c >= 0 else None for c in game.corner]
    assert names == [corner[h] for h in holes]
    # every corner is the farthest a player's pieces can be from its target apex, so
    # R_p <= R0 and EVAL's weights w_p = R0 + 2 (R0 - R_p) stay positive
    six = game_of(6, k)
    for p in range(6):
        far = np.sort(six.distance[p])[-six.pieces :].sum()
        assert far == six.distance[p][six.home[p]].sum()
    # the game's neighbour table is the reference's adjacency
    index = {h: i for i, h in enumerate(holes)}
    for i, (r, c) in enumerate(holes):
        ours = {int(j) for j in game.neighbor[i] if j < game.num_holes}
        assert ours == {index[(r + a, c + b)] for a, b in STEPS if (r + a, c + b) in index}


def openspiel_board(state, n: int) -> list:
    """OpenSpiel's board string (players printed 1..n) as a list of 0/p+1 per hole."""
    text = str(state).split("Player")[0]
    return [0 if ch == "." else int(ch) for line in text.splitlines() for ch in line.split()]


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_start_positions_and_seats_match_openspiel(n):
    pyspiel = pytest.importorskip("pyspiel")
    ours = np.asarray(game_of(n, 4).init().board).tolist()
    state = pyspiel.load_game("chinese_checkers", {"players": n}).new_initial_state()
    assert ours == openspiel_board(state, n)
    start = reference_start(4, n)
    assert ours == [0 if p is None else p + 1 for p in start.values()]


# ---------------------------------------------------------------- move generation
@pytest.mark.parametrize("n, k", [(3, 2), (6, 2), (3, 4)])
def test_move_generation_agrees_with_the_reference_on_random_boards(n, k):
    game = game_of(n, k)
    rng = random.Random(n * 10 + k)
    cases = [(reference_random_position(k, n, rng), rng.randrange(n)) for _ in range(60)]
    most = compare_with_reference(game, cases)
    assert most <= game.max_moves < game.num_actions - 1  # the list's bound holds


def test_the_move_bound_rests_on_jumps_keeping_their_class():
    """The bound's premise, checked on the reference's own moves: a jump chain ends in its
    start's class (rows and columns of the doubled layout, both modulo 2 of the cube
    coordinates' pair), a step never does; the bound's value on the standard board."""
    rng = random.Random(3)
    for n, k in ((3, 2), (6, 3), (2, 4)):
        for _ in range(20):
            board = reference_random_position(k, n, rng)
            mover = rng.randrange(n)
            for (r0, c0), (r1, c1) in reference_moves(board, mover):
                step = abs(r1 - r0) + abs(c1 - c0) <= 2
                # doubled layout: (row, col) = (z, 2x + z) up to offsets; the class of
                # (x, z) modulo 2 is that of (row, (col - row) / 2) modulo 2
                same = (r1 - r0) % 2 == 0 and ((c1 - r1) - (c0 - r0)) // 2 % 2 == 0
                assert same != step, ((r0, c0), (r1, c1))
    assert game_of(3, 4).max_moves == 352 and game_of(3, 4).num_actions == 1211


def openspiel_turn_moves(state) -> dict:
    """OpenSpiel plays a jump chain as one hop per action, then more hops or a pass: every
    (from, to) one whole turn can make, each with one action sequence that makes it."""
    mover = state.current_player()
    found: dict = {}

    def explore(s, origin, at, actions):
        for a in s.legal_actions():
            text = s.action_to_string(mover, a)
            if text == "Pass":  # ends a chain where it stands
                found.setdefault((origin, at), [*actions, a])
                continue
            child = s.clone()
            child.apply_action(a)
            source, to = (int(x) for x in text.replace("=>", "-").replace("->", "-").split("-"))
            start = source if origin is None else origin
            if child.is_terminal() or child.current_player() != mover:
                found.setdefault((start, to), [*actions, a])
            else:  # mid-chain: the same player hops on, or passes
                explore(child, start, to, [*actions, a])

    explore(state, None, None, [])
    return {key: seq for key, seq in found.items() if key[0] != key[1]}


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_whole_turns_agree_with_openspiel_along_random_games(n):
    pyspiel = pytest.importorskip("pyspiel")
    game = game_of(n, 4)
    step = stepper(game)
    os_state = pyspiel.load_game("chinese_checkers", {"players": n}).new_initial_state()
    state = game.init()
    rng = random.Random(n)
    for _ in range(24):
        assert np.asarray(state.board).tolist() == openspiel_board(os_state, n)
        assert int(state.to_move) == os_state.current_player()
        mask = look_at(game, state)[0]
        theirs = openspiel_turn_moves(os_state)
        pairs = {}
        for a in np.flatnonzero(mask):
            source, to = game.action_to_string(state, int(a)).split("-")
            pairs[(game.hole_index(source), game.hole_index(to))] = int(a)
        assert set(pairs) == set(theirs)
        move = rng.choice(sorted(pairs))
        for a in theirs[move]:
            os_state.apply_action(a)
        state = step(state, jnp.int32(pairs[move]))


def test_a_blocked_player_passes():
    """Player 0's three pieces fill the north corner; every hole they could step or jump to
    is taken: the pass is the only move, and it hands the turn on."""
    game = game_of(6, 2)
    holes, _ = reference_board(2)
    board = dict.fromkeys(holes)
    north = [(0, 6), (1, 5), (1, 7)]
    walls = [(2, 4), (2, 6), (2, 8), (3, 3), (3, 5), (3, 7), (3, 9)]
    spare = [h for h in holes if h not in north + walls]
    for h in north:
        board[h] = 0
    others = walls + spare[: 15 - len(walls)]
    for i, h in enumerate(others):
        board[h] = 1 + i // 3
    assert reference_moves(board, 0) == set()
    state = to_state(game, board, 0)
    mask = look_at(game, state)[0]
    assert np.flatnonzero(mask).tolist() == [game.pass_action]
    listed = np.asarray(jax.jit(game.legal_moves)(state))
    assert listed[0] == game.pass_action and (listed[1:] == -1).all()
    after = stepper(game)(state, game.pass_action)
    assert int(after.to_move) == 1 and (np.asarray(after.board) == np.asarray(state.board)).all()
    assert game.action_to_string(state, game.pass_action) == "pass"


# ---------------------------------------------------------------- notation
@settings(max_examples=20)
@given(seed=st.integers(0, 2**31 - 1), n=st.sampled_from([2, 3, 6]))
def test_positions_and_moves_round_trip(seed, n):
    game = game_of(n, 2)
    rng = random.Random(seed)
    state = to_state(
        game, reference_random_position(2, n, rng), rng.randrange(n), rng.randrange(99)
    )
    text = game.format(state)
    again = game.parse(text)
    for field in ("board", "to_move", "ply"):
        assert np.array_equal(np.asarray(getattr(again, field)), np.asarray(getattr(state, field)))
    assert game.format(again) == text
    mask = look_at(game, state)[0]
    for a in np.flatnonzero(mask):
        move = game.action_to_string(state, int(a))
        assert game.string_to_action(state, move) == a
        source, to = move.split("-")
        numeric = f"{game.hole_index(source)}-{game.hole_index(to)}"
        assert game.string_to_action(state, numeric) == a


def test_notation_of_the_standard_board():
    game = game_of(2, 4)
    start = game.format(game.init())
    assert start.startswith("0/00/000/0000/")
    assert start.endswith("/1111/111/11/1 0 0")
    assert game.format(game.parse("start")) == start
    assert [game.hole_name(h) for h in (0, 10, 22, 60, 120)] == ["a1", "e1", "e13", "i5", "q1"]
    assert game.hole_index("i5") == 60 and game.hole_index("60") == 60
    state = game.init()
    assert game.string_to_action(state, "c1-e5") == game.string_to_action(state, "3-14")
    after = stepper(game)(state, game.string_to_action(state, "c1-e5"))
    assert game.format(after).split()[1:] == ["1", "1"]
    for bad, match in [
        ("0/00 0", "rows"),
        (start.replace("0/00/", "0/0x/", 1), "holds"),
        (start.replace("0/00/", "0/0./", 1), "pieces"),
        (start.replace(" 0 0", " 5 0"), "to move"),
        (start.replace(" 0 0", " 0 5000"), "ply"),
    ]:
        with pytest.raises(GameError, match=match):
            game.parse(bad)
    for bad, match in [
        ("c1-c2", "illegal"),
        ("e1-e2", "no piece"),
        ("z9-a1", "hole"),
        ("c1", "from-to"),
    ]:
        with pytest.raises(GameError, match=match):
            game.string_to_action(state, bad)
    with pytest.raises(GameError, match="players"):
        jaxgames.make("chinese_checkers", players=5)
    with pytest.raises(GameError, match="size"):
        jaxgames.make("chinese_checkers", size=9)


# ---------------------------------------------------------------- utility, EVAL, playouts
def test_a_win_scores_one_hot_and_eval_is_bounded_shares():
    game = game_of(3, 2)
    holes, corner = reference_board(2)
    board = dict.fromkeys(holes)
    for h in [(8, 6), (7, 5), (6, 8)]:  # player 0: two pieces home, one step from (7, 7)
        board[h] = 0
    rest = [h for h in holes if board[h] is None and corner[h] == "N"]
    rest += [h for h in holes if board[h] is None and corner[h] is None][:3]
    for i, h in enumerate(rest):
        board[h] = 1 + i // 3
    state = to_state(game, board, 0)
    shares = look_at(game, state)[1]
    assert (shares > 0).all() and abs(shares.sum() - 1) < 1e-6 and shares[0] > 1 / 3
    name = {h: game.hole_name(i) for i, h in enumerate(holes)}
    won = stepper(game)(state, game.string_to_action(state, f"{name[(6, 8)]}-{name[(7, 7)]}"))
    mask, value, terminal = look_at(game, won)
    assert terminal and int(won.winner) == 0 and not mask.any()
    assert value.tolist() == [1, 0, 0]  # EVAL is UTILITY at a terminal: the winner's one-hot


def test_random_playouts_end_at_the_move_limit():
    game = game_of(3, 2, limit=60)
    result = playouts(game, stack([game.init()] * 8), 4, jax.random.PRNGKey(0))
    lengths = np.asarray(result.lengths)
    utilities = np.asarray(result.utilities)
    assert (lengths <= 60).all() and not np.asarray(result.truncated).any()
    assert (utilities >= 0).all() and np.allclose(utilities.sum(axis=2), 1, atol=1e-6)


# ---------------------------------------------------------------- search
def test_maxn_with_shallow_pruning_equals_plain_on_random_positions():
    """Three players, pieces scattered at random (uneven progress: shares far apart, so
    shallow pruning has something to cut), depth 3, against full-expansion maxⁿ."""
    game = game_of(3, 2)
    rng = random.Random(5)
    boards = [reference_random_position(2, 3, rng) for _ in range(24)]
    roots = stack([to_state(game, board, i % 3) for i, board in enumerate(boards)])
    plain = minimax_batch(game, roots, 3)
    shallow = maxn_batch(game, roots, 3, pruning="shallow")
    np.testing.assert_array_equal(shallow.value, plain.value)
    np.testing.assert_array_equal(shallow.best_action, plain.best_action)
    assert shallow.stats["cutoffs"] > 0 and shallow.stats["nodes"] < plain.stats["nodes"]
