"""Checkers against the published perft table and OpenSpiel's ``checkers`` (the oracle its
rules follow): random games compared step by step, OpenSpiel's own perft in steps, and
positions that exercise each rule (forced capture, multi-jumps, crowning, the draw).

Compilation dominates: the random games share one step/observe program (also used for the
hash and move-list checks), and perft compiles its two kernels once.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
from jaxgames.kernels import stack, take, to_numpy

import jaxgames
from jaxgames import GameError
from jaxgames.capabilities import Hashing, MoveLists, capabilities
from jaxgames.search import perft

GAME = jaxgames.make("checkers")

# Perft from the start in whole moves (a multi-jump is one move), as published by Aart Bik
# ("Perft for Checkers", aartbik.com/MISC/checkers.html, and the TalkChess thread "perft for
# 8x8 checkers", 2009) and matched by Martin Fierz's Cake (checker-board.blogspot.com,
# February 2009). Bik notes that duplicate captures (a king taking the same pieces in
# another order) are not merged; they first occur at depth 12.
PUBLISHED_PERFT = [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128]


@functools.cache
def observe_kernel():
    def observe(state):
        return {
            "legal": GAME.legal_mask(state),
            "moves": GAME.legal_moves(state),
            "terminal": GAME.terminal(state),
            "utility": GAME.utility(state),
            "evaluate": GAME.evaluate(state),
            "hash": GAME.hash(state),
            "player": GAME.player(state),
        }

    return jax.jit(jax.vmap(observe)), jax.jit(jax.vmap(GAME.step))


def observe(states):
    return jax.device_get(observe_kernel()[0](states))


def play(text: str, moves: list[str]):
    """The position after ``moves`` (each a step in our notation) from ``text``."""
    state = GAME.parse(text)
    step = observe_kernel()[1]
    for move in moves:
        action = GAME.string_to_action(state, move)
        state = take(to_numpy(step(stack([state]), np.asarray([action], np.int32))), 0)
    return state


def legal_names(state) -> list[str]:
    obs = observe(stack([state]))
    return sorted(GAME.action_to_string(state, a) for a in np.flatnonzero(obs["legal"][0]))


# ---------------------------------------------------------------- static facts
def test_static_facts():
    assert "checkers" in jaxgames.list_games()
    assert (GAME.num_players, GAME.num_actions, GAME.num_chance_outcomes) == (2, 512, 0)
    assert (GAME.utility_min, GAME.utility_max, GAME.zero_sum) == (-1.0, 1.0, True)
    assert isinstance(GAME, Hashing) and isinstance(GAME, MoveLists)
    assert {"Hashing", "MoveLists"} <= set(capabilities(GAME))
    assert (
        GAME.format(GAME.init())
        == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )
    with pytest.raises(GameError, match="checkers"):
        jaxgames.make("checkers", size=10)


# ---------------------------------------------------------------- perft
def test_perft_in_whole_moves_equals_the_published_table():
    result = perft(GAME, GAME.init(), 7, turns=True)  # depth 10 and 11: benchmarks/checkers.py
    assert result.counts == PUBLISHED_PERFT[:7]


def test_perft_in_steps_equals_openspiels():
    pyspiel = pytest.importorskip("pyspiel")
    counts = [0] * 5

    def walk(state, ply):
        for action in state.legal_actions():
            counts[ply] += 1
            if ply + 1 < len(counts):
                walk(state.child(action), ply + 1)

    walk(pyspiel.load_game("checkers").new_initial_state(), 0)
    assert perft(GAME, GAME.init(), 5).counts == counts


# ---------------------------------------------------------------- OpenSpiel, step by step
def test_random_games_match_openspiel():
    pytest.importorskip("pyspiel")
    from jaxgames.bench.checkers_oracle import compare_with_openspiel

    row = compare_with_openspiel(games=100, seed=25)
    assert row["mismatches"] == 0, row["mismatch_reports"]
    assert row["states_compared"] > 5000
    # the games reach what the rules are about: multi-jumps, kings, both endings
    assert row["steps_continuing_a_multi_jump"] > 50 and row["most_kings_on_a_board"] >= 4
    assert row["wins"] > 0 and row["draws_40_steps"] > 0


def test_hash_move_lists_and_text_along_random_games():
    """The incremental key equals the one parse computes; the move list is the mask's
    actions; format and parse go round; EVAL stays within the bounds."""
    rng = np.random.default_rng(3)
    state = stack([GAME.init()] * 16)
    step = observe_kernel()[1]
    seen = 0
    alive = np.ones((16,), bool)  # a finished game's later states are not positions
    for _ in range(120):
        obs = observe(state)
        host = to_numpy(state)
        actions = np.zeros((16,), np.int32)
        for g in np.flatnonzero(alive):
            one = take(host, g)
            again = GAME.parse(GAME.format(one))
            assert all(
                np.array_equal(x, y)
                for x, y in zip(jax.tree.leaves(again), jax.tree.leaves(one), strict=True)
            )
            legal = np.flatnonzero(obs["legal"][g])
            moves = obs["moves"][g]
            assert sorted(moves[moves >= 0].tolist()) == legal.tolist()
            assert np.all(moves[len(legal) :] == -1)
            assert np.all(np.abs(obs["evaluate"][g]) <= 1)
            alive[g] = legal.size > 0
            if legal.size:
                actions[g] = rng.choice(legal)
                seen += 1
        state = step(state, actions)
    assert seen > 1000


# ---------------------------------------------------------------- rules in positions
def test_captures_are_compulsory_and_a_multi_jump_continues_with_the_same_piece():
    # Black: a man on 9 can take 14 (9x18); a king on 21 can take 25 and then 26 (21x30x23)
    text = "B:W14,25,26:B9,K21"
    state = GAME.parse(text)
    assert legal_names(state) == ["21x30", "9x18"]
    mid = play(text, ["21x30"])
    assert GAME.format(mid) == "B:W14,26:B9,K30 jump=30"  # the same side, mid-jump
    assert int(mid.player) == 0 and legal_names(mid) == ["30x23"]
    after = play(text, ["21x30", "30x23"])
    assert int(after.player) == 1 and int(after.jumper) == -1
    assert GAME.format(after) == "W:W14:B9,K23"


def test_crowning_ends_the_move():
    # the man on 21 takes 25 and is crowned on 30; as a king it could take 26 next, but
    # the crowning ends the move (OpenSpiel's rule)
    state = play("B:W25,26,32:B21", ["21x30"])
    assert GAME.format(state) == "W:W26,32:BK30"
    assert int(state.player) == 1


def test_the_40_step_draw_and_the_loss_without_moves():
    state = play("B:WK32:BK1 quiet=38", ["1-5", "32-28"])
    obs = observe(stack([state]))
    assert bool(obs["terminal"][0]) and obs["utility"][0].tolist() == [0.0, 0.0]
    # a side without a move has lost: White's last man on 29 is blocked by 25 and 26 (the
    # men on 21 and 22 guard the jumps)
    blocked = GAME.parse("W:W29:B21,22,25,26")
    obs = observe(stack([blocked]))
    assert bool(obs["terminal"][0]) and obs["utility"][0].tolist() == [1.0, -1.0]
    gone = observe(stack([GAME.parse("W:W:BK5")]))
    assert bool(gone["terminal"][0]) and gone["utility"][0].tolist() == [1.0, -1.0]


# ---------------------------------------------------------------- notation
def test_moves_in_every_notation():
    start = GAME.init()
    assert GAME.string_to_action(start, "12-16") == 322
    assert GAME.string_to_action(start, "a3b4") == 322  # OpenSpiel's name of that move
    assert GAME.openspiel_action_string(322) == "a3b4"
    assert GAME.action_to_string(start, 322) == "12-16"
    for bad, message in (
        ("12-17", "illegal"),
        ("12x16", "illegal"),
        ("15x24x31", "one jump at a time"),
        ("e2e4x", "bad move"),
    ):
        with pytest.raises(GameError, match=message):
            GAME.string_to_action(start, bad)


def test_positions_in_and_out():
    assert GAME.format(GAME.parse("B:W21-32:B1-12")) == GAME.format(GAME.init())
    tagged = GAME.parse('[FEN "W:W21,22,K30:B1,2,K3."]')
    assert GAME.format(tagged) == "W:W21,22,K30:B1,2,K3"
    assert GAME.split_position("B:WK32:BK1 quiet=3 draw-ish") == ("B:WK32:BK1 quiet=3", "draw-ish")
    assert GAME.draw(GAME.init()).splitlines()[0] == "8.+.+.+.+"
    for bad, message in (
        ("X:W1:B2", "bad FEN"),
        ("B:W1,1:B2", "twice"),
        ("B:W33:B2", "outside"),
        ("B:W1:B29", "crowning row"),
        ("B:W1-13:B20", "more than 12"),
        ("B:W5:B1 jump=1", "no jump"),
        ("B:W5:B1 ply=3", "unexpected"),
    ):
        with pytest.raises(GameError, match=message):
            GAME.parse(bad)


def test_the_command_line_shows_a_position(capsys):
    from jaxgames.cli import main

    assert main(["show", "checkers", "B:W18:B14"]) == 0
    out = capsys.readouterr().out
    assert "moves:    14x23" in out
