"""Othello against the published perft table, OpenSpiel and an independent pure-Python reference.

Compilation dominates the run time, so every check that runs the game on the device goes
through a few kernels compiled once: a batched lockstep step/observe pair, the perft
expansion (shared with the child checks) and one alpha-beta search per depth.
"""

from __future__ import annotations

import csv
import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import REFERENCE
from jaxgames.kernels import expand_all, stack, take, to_numpy, unstack
from othello_reference import DIRECTIONS, Ref

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import Hashing
from jaxgames.games.othello import EVAL_FEATURES
from jaxgames.search import ProbCut, alphabeta_batch, minimax_batch, perft

GAME = jaxgames.make("othello")
PASS = 64
PERFT_TABLE = list(csv.DictReader((REFERENCE / "othello_perft.csv").open()))
START = "---------------------------OX------XO--------------------------- X"


# ---------------------------------------------------------------- independent reference
def ref_play(actions: list[int]) -> Ref:
    ref = Ref()
    for a in actions:
        ref.play(a)
    return ref


def random_game(rng: random.Random, stop: float = 0.0) -> list[int]:
    ref, actions = Ref(), []
    while ref.actions() and not rng.random() < stop:
        a = rng.choice(ref.actions())
        ref.play(a)
        actions.append(a)
    return actions


def reference_perft(ref: Ref, depth: int) -> tuple[list[int], list[int], int]:
    """(sequences of exactly n plies, how many of them end the game, for n = 1..depth - 1,
    and the number of passes among all plies); a pass is a ply, finished games stop."""
    counts = [0] * depth
    finished = [0] * (depth - 1)
    passes = [0]

    def walk(node: Ref, ply: int) -> None:
        for a in node.actions():
            counts[ply] += 1
            passes[0] += a == PASS
            if ply + 1 < depth:
                child = node.copy()
                child.play(a)
                finished[ply] += not child.actions()
                walk(child, ply + 1)

    walk(ref, 0)
    return counts, finished, passes[0]


def potential_mobility(ref: Ref) -> int:
    """Empty squares next to an opponent disc minus those next to an own disc."""

    def next_to(side: str) -> int:
        count = 0
        for s in range(64):
            row, col = divmod(s, 8)
            if ref.cells[s] == "-" and any(
                0 <= row + dr < 8
                and 0 <= col + dc < 8
                and ref.cells[(row + dr) * 8 + col + dc] == side
                for dr, dc in DIRECTIONS
            ):
                count += 1
        return count

    return next_to(ref.other(ref.to_move)) - next_to(ref.to_move)


def reference_solve(ref: Ref) -> int:
    """Win/draw/loss (+1/0/-1) for the side to move, by brute force: negamax over every
    line, memoised on the position, stopping a node's loop only at a win (nothing beats)."""

    @functools.cache
    def value(cells: tuple, to_move: str) -> int:
        node = Ref(list(cells), to_move)
        actions = node.actions()
        if not actions:
            diff = node.difference() * (1 if to_move == "X" else -1)
            return (diff > 0) - (diff < 0)
        best = -1
        for a in actions:
            child = node.copy()
            child.play(a)
            best = max(best, -value(tuple(child.cells), child.to_move))
            if best == 1:
                break
        return best

    return value(tuple(ref.cells), ref.to_move)


# ---------------------------------------------------------------- batched device helpers
@functools.cache
def kernels():
    """(step, observe), each vmapped and compiled once for any batch of the same size."""

    def observe(state):
        return {
            "player": GAME.player(state),
            "legal": GAME.legal_mask(state),
            "terminal": GAME.terminal(state),
            "utility": GAME.utility(state),
            "evaluate": GAME.evaluate(state),
            "hash": GAME.hash(state),
            "difference": GAME.disc_difference(state),
            "stable": GAME.stable_discs(state),
            "features": GAME.eval_features(state),
            "lookahead": GAME.lookahead_scores(state),
            "exact": GAME.exact_values(state),
        }

    return jax.jit(jax.vmap(GAME.step)), jax.jit(jax.vmap(observe))


def lockstep(games: list[list[int]]):
    """Play every game side by side on the device, one ply per call.

    Returns a list over plies of (states [G], observations [G]) as numpy; a game that has
    ended keeps stepping with action 0 and its later rows are ignored by the callers.
    """
    step, observe = kernels()
    states = stack([GAME.init()] * len(games))
    out = []
    for ply in range(max(len(g) for g in games) + 1):
        out.append((to_numpy(states), jax.tree.map(np.asarray, observe(states))))
        actions = np.asarray([g[ply] if ply < len(g) else 0 for g in games], np.int32)
        states = step(states, actions)
    return out


@functools.cache
def played_games() -> tuple[list[list[int]], list]:
    rng = random.Random(2024)
    games = [random_game(rng) for _ in range(48)]
    return games, lockstep(games)


def state_equal(a, b) -> bool:
    return all(
        np.array_equal(np.asarray(x), np.asarray(y))
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True)
    )


# ---------------------------------------------------------------- static facts
def test_static_facts():
    assert "othello" in jaxgames.list_games()
    assert GAME.spec == "othello" and GAME.params == {}
    assert (GAME.num_players, GAME.num_actions, GAME.num_chance_outcomes) == (2, 65, 0)
    assert (GAME.utility_min, GAME.utility_max, GAME.zero_sum, isinstance(GAME, Hashing)) == (
        -1.0,
        1.0,
        True,
        True,
    )
    assert GAME.max_game_length == 120
    assert GAME.format(GAME.init()) == START


def test_unknown_param():
    with pytest.raises(GameError, match="othello"):
        jaxgames.make("othello", size=6)


# ---------------------------------------------------------------- perft
def test_perft_equals_the_published_table():
    # Depth 9 is the first with forced passes (24 sequences end in one); it costs about a
    # second more than depth 7 because the last ply is counted from the legal masks.
    result = perft(GAME, GAME.init(), 9)
    column = "sequences_exactly_d_plies_pass_is_a_ply__edax_and_openspiel_convention"
    assert result.counts == [int(row[column]) for row in PERFT_TABLE[:9]]
    assert result.terminal[:8] == [int(row["games_over_before_ply_d"]) for row in PERFT_TABLE[1:9]]


def test_perft_with_passes_and_endings_equals_the_reference():
    """Late positions, where passes and finished games come within a few plies."""
    rng = random.Random(7)
    passes = ended = 0
    for i in range(12):
        actions = random_game(rng)[: -(3 + i % 5)]  # 3-7 plies before the end of a game
        ref = ref_play(actions)
        counts, finished, found = reference_perft(ref, 5)
        result = perft(GAME, GAME.parse(ref.text()), 5)
        assert result.counts == counts
        assert result.terminal[:4] == finished
        passes += found
        ended += sum(finished)
    assert passes > 0 and ended > 0


def test_perft_equals_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    counts = [0] * 4

    def walk(state, ply):
        for action in state.legal_actions():
            counts[ply] += 1
            if ply + 1 < len(counts):
                walk(state.child(action), ply + 1)

    walk(pyspiel.load_game("othello").new_initial_state(), 0)
    assert perft(GAME, GAME.init(), 4).counts == counts


# ---------------------------------------------------------------- random play vs oracles
def test_random_games_match_the_reference():
    games, plies = played_games()
    positions = 0
    for g, actions in enumerate(games):
        ref = Ref()
        for ply in range(len(actions) + 1):
            states, obs = plies[ply]
            state = take(states, g)
            assert GAME.format(state) == ref.text()
            assert np.flatnonzero(obs["legal"][g]).tolist() == ref.actions()
            assert bool(obs["terminal"][g]) == ref.over()
            assert int(obs["player"][g]) == (0 if ref.to_move == "X" else 1)
            u = float(np.sign(ref.difference())) if ref.over() else 0.0
            assert obs["utility"][g].tolist() == [u, -u]
            assert int(obs["difference"][g]) == ref.difference()
            # the incremental hash equals the one parse computes from scratch
            assert state_equal(GAME.parse(ref.text()), state)
            positions += 1
            if ply < len(actions):
                ref.play(actions[ply])
    assert positions > 2500
    assert any(PASS in g for g in games)  # passes were played


def test_random_games_match_openspiel():
    # OpenSpiel: action = row * 8 + col with row 0 = "1" (top), 64 = pass; player 0 is Black
    # ("x"), who moves first; its board prints rows 1-8 top down; returns are +-1/0.
    pyspiel = pytest.importorskip("pyspiel")
    oracle = pyspiel.load_game("othello")
    games, plies = played_games()
    for g, actions in enumerate(games):
        state = oracle.new_initial_state()
        for ply in range(len(actions) + 1):
            states, obs = plies[ply]
            assert bool(obs["terminal"][g]) == state.is_terminal()
            planes = np.asarray(state.observation_tensor(0)).reshape(3, 64)  # empty, x, o
            ours = GAME.format(take(states, g))[:64]
            assert "".join("-XO"[int(np.argmax(planes[:, s]))] for s in range(64)) == ours
            if state.is_terminal():
                assert obs["utility"][g].tolist() == state.returns()
                break
            assert int(obs["player"][g]) == state.current_player()
            assert np.flatnonzero(obs["legal"][g]).tolist() == state.legal_actions()
            state.apply_action(actions[ply])


def test_every_child_matches_the_oracles():
    """Hundreds of positions from random play: every legal move's resulting board."""
    pyspiel = pytest.importorskip("pyspiel")
    oracle = pyspiel.load_game("othello")
    games, plies = played_games()
    picks = [(g, ply) for g in range(len(games)) for ply in range(0, len(games[g]), 9)]
    assert len(picks) >= 300
    roots = stack([take(plies[ply][0], g) for g, ply in picks])
    front = expand_all(GAME, roots)  # the perft kernels: no new compilation
    children = unstack(front.children)
    by_parent: dict[int, list[tuple[int, object]]] = {}
    for parent, action, child in zip(front.parent, front.action, children, strict=True):
        by_parent.setdefault(int(parent), []).append((int(action), child))
    checked = 0
    for i, (g, ply) in enumerate(picks):
        ref = ref_play(games[g][:ply])
        spiel = oracle.new_initial_state()
        for a in games[g][:ply]:
            spiel.apply_action(a)
        kids = by_parent.get(i, [])
        assert [a for a, _ in kids] == ref.actions() == spiel.legal_actions()
        for action, child in kids:
            expected = ref.copy()
            expected.play(action)
            assert GAME.format(child) == expected.text()
            planes = np.asarray(spiel.child(action).observation_tensor(0)).reshape(3, 64)
            board = "".join("-XO"[int(np.argmax(planes[:, s]))] for s in range(64))
            assert board == expected.text()[:64]
            assert state_equal(GAME.parse(expected.text()), child)  # hash from scratch
            checked += 1
    assert checked > 2000


def test_hashes_of_distinct_positions_differ():
    games, plies = played_games()
    seen: dict[tuple, str] = {}
    for g, actions in enumerate(games):
        for ply in range(len(actions) + 1):
            states, obs = plies[ply]
            text = GAME.format(take(states, g))
            key = tuple(obs["hash"][g].tolist())
            assert seen.setdefault(key, text) == text
    assert len(seen) > 2500


def test_transposed_move_orders_give_the_same_state():
    for one, other in (("d3c3c4e3", "c4c3d3e3"), ("d3c3b3e3f3", "d3e3f3c3b3")):
        a, b = GAME.parse(one), GAME.parse(other)
        assert GAME.format(a) == GAME.format(b) == ref_play(GAME.parse_moves(one)).text()
        assert state_equal(a, b)  # the incremental keys agree too


# ---------------------------------------------------------------- utility and EVAL
def test_eval_is_bounded_antisymmetric_and_utility_at_the_end():
    games, plies = played_games()
    for g, actions in enumerate(games):
        for ply in range(len(actions) + 1):
            _, obs = plies[ply]
            e, u = obs["evaluate"][g], obs["utility"][g]
            assert e[0] == -e[1]
            if obs["terminal"][g]:
                assert e.tolist() == u.tolist()
            else:
                assert abs(e[0]) < 1.0


def test_stable_discs_never_flip():
    """The stability lower bound is sound: a disc it marks keeps its colour to the end."""
    games, plies = played_games()
    marked = 0
    for g, actions in enumerate(games):
        final = ref_play(actions).cells
        for ply in range(len(actions) + 1):
            states, obs = plies[ply]
            cells = GAME.format(take(states, g))[:64]
            for s in np.flatnonzero(obs["stable"][g]):
                assert cells[s] == final[s], (g, ply, s)
                marked += 1
    assert marked > 1000


def test_eval_features_equal_their_definitions():
    """Every feature but stability recomputed from its definition on the reference board."""
    names = [n for n, _ in EVAL_FEATURES]
    corners = {0: (9, (1, 8)), 7: (14, (6, 15)), 56: (49, (57, 48)), 63: (54, (62, 55))}
    games, plies = played_games()
    for g, actions in enumerate(games[:12]):
        ref = Ref()
        for ply in range(len(actions) + 1):
            f = dict(zip(names, plies[ply][1]["features"][g].tolist(), strict=True))
            me, you = ref.to_move, ref.other(ref.to_move)

            def diff(squares, ref=ref, me=me, you=you):
                cells = [ref.cells[s] for s in squares]
                return cells.count(me) - cells.count(you)

            empties = ref.cells.count("-")
            assert f["mobility"] == len(ref.placements(me)) - len(ref.placements(you))
            assert f["potential_mobility"] == potential_mobility(ref)
            assert f["corners"] == diff(corners)
            open_corners = [c for c in corners if ref.cells[c] == "-"]
            assert f["x_squares"] == diff([corners[c][0] for c in open_corners])
            assert f["c_squares"] == diff([s for c in open_corners for s in corners[c][1]])
            phase = max(0.0, 1.0 - empties / 20)
            assert f["endgame_discs"] == pytest.approx(diff(range(64)) * phase, abs=1e-5)
            if ply < len(actions):
                ref.play(actions[ply])


def test_stable_discs_on_a_constructed_position():
    # Black owns a1 and b1 (anchored on the corner) and the full row 8; White's h2 and g2 are
    # next to an empty corner and not stable.
    cells = ["-"] * 64
    for s in (0, 1, 27, 28, *range(56, 64)):
        cells[s] = "X"
    for s in (14, 15, 35, 36):
        cells[s] = "O"
    state = GAME.parse("".join(cells) + " X")
    stable = np.flatnonzero(np.asarray(GAME.stable_discs(state))).tolist()
    assert stable == [0, 1, *range(56, 64)]


def test_disc_difference_and_a_wipeout():
    # Only Black discs: nobody can move, the game is over, Black wins 5-0 (64-0 by WOF).
    cells = ["-"] * 64
    for s in (0, 9, 18, 27, 36):
        cells[s] = "X"
    state = GAME.parse("".join(cells) + " O")
    assert bool(GAME.terminal(state))
    assert not np.asarray(GAME.legal_mask(state)).any()
    assert np.asarray(GAME.utility(state)).tolist() == [1.0, -1.0]
    assert np.asarray(GAME.evaluate(state)).tolist() == [1.0, -1.0]
    assert int(GAME.disc_difference(state)) == 5
    assert int(GAME.disc_difference(state, empties_to_winner=True)) == 64


def test_move_order_scores_put_corners_first():
    scores = np.asarray(GAME.move_order_scores(GAME.init()))
    assert np.flatnonzero(scores > 0).tolist() == [0, 7, 56, 63]
    assert scores[[9, 14, 49, 54]].max() < scores[[1, 8, 6, 15]].min() < scores[20]


def test_lookahead_scores_count_the_replies_each_move_leaves():
    """Fastest first: minus the opponent's placements after each legal move (a forced pass
    counts 0), the corner table breaking ties; checked by playing every move on the
    pure-Python board."""
    games, plies = played_games()
    order = np.asarray(GAME.move_order_scores(GAME.init()))
    checked = 0
    for g in range(0, len(games), 3):
        for ply in range(0, len(games[g]), 7):
            ref = ref_play(games[g][:ply])
            scores = plies[ply][1]["lookahead"][g]
            for square in ref.placements(ref.to_move):
                child = ref.copy()
                child.play(square)
                replies = len(child.placements(child.to_move))
                assert scores[square] == pytest.approx(order[square] - replies), (
                    ref.text(),
                    square,
                )
                checked += 1
    assert checked > 500


# ---------------------------------------------------------------- notation
def test_notation_round_trips():
    games, plies = played_games()
    for g in range(8):
        actions = games[g]
        text = GAME.moves_to_string(actions)
        assert GAME.parse_moves(text) == actions
        state = GAME.parse(text)
        assert state_equal(state, take(plies[len(actions)][0], g))
        assert state_equal(GAME.parse(GAME.format(state)), state)
        without_passes = text.replace("ps", "")
        assert GAME.parse_moves(without_passes) == actions  # forced passes are inserted
    for text in GAME.sample_positions():
        state = GAME.parse(text)
        assert state_equal(GAME.parse(GAME.format(state)), state)
    assert GAME.parse_moves("F5d6,C3") == [37, 43, 18]
    assert GAME.moves_to_string([37, 43, 18, 64]) == "f5d6c3ps"
    assert state_equal(GAME.parse(""), GAME.init()) and state_equal(
        GAME.parse("start"), GAME.init()
    )
    assert state_equal(GAME.parse(START.lower().replace("-", ".") + ";"), GAME.init())
    state = GAME.parse("f5")
    assert GAME.action_to_string(state, 43) == "d6"
    assert GAME.string_to_action(state, "D6") == 43
    assert GAME.action_to_string(state, PASS) == "ps"


@pytest.mark.parametrize(
    "text, where",
    [
        ("f5d6z9", "character 5"),
        ("f5f5", "illegal move 'f5'"),
        ("f5ps", "pass while"),
        ("a1", "illegal move 'a1'"),
        ("X" * 64 + " O" + "f5", "characters"),
        ("-" * 63 + " X", "characters"),
        ("-" * 63 + "Z X", "square h8"),
        ("-" * 64 + " Q", "side to move"),
    ],
)
def test_bad_positions_raise_one_line_errors(text, where):
    with pytest.raises(GameError) as err:
        GAME.parse(text)
    message = str(err.value)
    assert "\n" not in message and where in message and message.startswith("othello")


def test_moves_after_the_end_and_bad_moves_raise():
    games, _ = played_games()
    text = GAME.moves_to_string(games[0])
    with pytest.raises(GameError, match="already over"):
        GAME.parse(text + "a1")
    state = GAME.parse("f5")
    for bad in ("z9", "f", "ps", "f5"):
        with pytest.raises(GameError) as err:
            GAME.string_to_action(state, bad)
        assert "\n" not in str(err.value)


# ---------------------------------------------------------------- search
def random_positions(n: int, seed: int, plies: tuple[int, int]) -> list[Ref]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        actions = random_game(rng)
        cut = rng.randint(*plies)
        if cut < len(actions):
            out.append(ref_play(actions[:cut]))
    return out


def test_alphabeta_equals_minimax():
    refs = random_positions(48, 11, (4, 50))
    roots = stack([GAME.parse(r.text()) for r in refs])
    ab = alphabeta_batch(GAME, roots, 3)
    mm = minimax_batch(GAME, roots, 3)
    np.testing.assert_allclose(ab.value, mm.value, atol=1e-6)
    assert ab.stats["cutoffs"] > 0


@pytest.mark.slow
def test_exact_endgame_solves_agree_with_brute_force():
    # 48, 49 and 50 plies of random play: 12, 11 and 10 empty squares (fewer after a pass)
    refs = [r for plies in (48, 49, 50) for r in random_positions(4, plies, (plies, plies))]
    roots = stack([GAME.parse(r.text()) for r in refs])
    depth = GAME.endgame_depth(roots)
    assert depth == 2 * max(r.cells.count("-") for r in refs) == 24
    result = alphabeta_batch(GAME, roots, depth, iterative_deepening=False)
    for i, ref in enumerate(refs):
        mover = 0 if ref.to_move == "X" else 1
        assert result.value[i, mover] == reference_solve(ref), ref.text()
    assert {int(v) for v in result.value[:, 0]} == {-1, 1}  # both sides win somewhere


def test_exact_values_play_out_the_last_empty_square():
    """Known exactly: the positions with one empty square and the game still on, worth the
    disc difference the reference board reaches by playing its forced moves out."""
    games, plies = played_games()
    seen = 0
    for g, actions in enumerate(games):
        for ply in range(len(actions) + 1):
            ref = ref_play(actions[:ply])
            known, values = (np.asarray(x[g]) for x in plies[ply][1]["exact"])
            assert bool(known) == (ref.cells.count("-") == 1 and not ref.over()), ref.text()
            if known:
                end = ref.copy()
                while not end.over():
                    end.play(end.actions()[0])
                black = (end.difference() > 0) - (end.difference() < 0)
                np.testing.assert_allclose(values, [black, -black])
                seen += 1
    assert seen >= 20


def test_fforum_20_every_move_scores_the_published_disc_difference():
    """FFORUM #20 (6 empty squares): each legal move's child solved to the end by default
    options (fastest-first look-ahead, no iterative deepening), scored by discs."""
    game = jaxgames.make("othello", score="discs")
    line = (REFERENCE / "othello_fforum_20_39.obf").read_text().splitlines()[0]
    fields = [x.strip() for x in line.split(";") if x.strip()]
    root = game.parse(fields[0])
    mover = int(game.player(root))
    moves = [(name.lower(), int(score)) for name, score in (f.split(":") for f in fields[1:])]
    step = jax.jit(game.step)
    children = stack([to_numpy(step(root, game.string_to_action(root, m))) for m, _ in moves])
    result = alphabeta_batch(game, children, game.endgame_depth(children))
    got = [game.score_from_value(result.value[i, mover]) for i in range(len(moves))]
    assert got == [score for _, score in moves]
    assert result.stats["ordering"]["lookahead"]
    assert not result.stats["ordering"]["iterative_deepening"]


def test_probcut_parameters_load():
    params = GAME.probcut_params
    cut = ProbCut(**params)
    assert cut.depth >= 2 and cut.sigma > 0 and cut.shallow == 1
    assert jnp.isfinite(jnp.float32(cut.a)) and jnp.isfinite(jnp.float32(cut.b))


# ---------------------------------------------------------------- host states, move names
def test_parsed_states_are_numpy_and_every_function_takes_them():
    init = GAME.init()
    for text in ("", "f5d6c3", GAME.sample_positions()[-1]):
        state = GAME.parse(text)
        for x, y in zip(jax.tree.leaves(state), jax.tree.leaves(init), strict=True):
            assert isinstance(x, np.ndarray)  # host memory: no transfer per field
            assert x.dtype == y.dtype and x.shape == np.shape(y)
    stepped = GAME.step(GAME.parse("f5d6"), GAME.string_to_action(GAME.parse("f5d6"), "c3"))
    for x, y in zip(jax.tree.leaves(stepped), jax.tree.leaves(GAME.parse("f5d6c3")), strict=True):
        np.testing.assert_array_equal(x, y)


def test_move_names_are_the_square_names_and_ps():
    from jaxgames.capabilities import FixedMoveNames

    assert isinstance(GAME, FixedMoveNames)
    state = GAME.init()
    names = tuple(GAME.action_to_string(state, a) for a in range(GAME.num_actions))
    assert GAME.move_names == names and names[-1] == "ps"
