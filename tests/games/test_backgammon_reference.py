"""Checks of the tests' pure-Python backgammon reference against outside truth.

The reference (``backgammon_reference.py``) is the oracle for the JAX game, so it is itself
checked here against three sources nobody on this project wrote:

* the published opening-roll counts (``reference/backgammon_opening.json``);
* GNU Backgammon's own move lists for 300 positions (``reference/gnubg_backgammon.json``),
  which also pin down the position-ID encoding and gammon/backgammon scoring;
* OpenSpiel's backgammon, played at random, with full (gammon/backgammon) scoring.
"""

from __future__ import annotations

import json
import random

import backgammon_reference as bg
import pytest
from conftest import REFERENCE

OPENING = json.loads((REFERENCE / "backgammon_opening.json").read_text())
GNUBG = json.loads((REFERENCE / "gnubg_backgammon.json").read_text())


def _roll(text: str) -> tuple[int, int]:
    d1, d2 = text.split("-")
    return int(d1), int(d2)


def _after_play(pid: str) -> bg.Position:
    """A play's ID in the fixture (opponent on roll) as a position from the mover's view."""
    return bg.swap(*bg.from_position_id(pid))


# Published opening-roll counts -----------------------------------------------------------


def test_opening_table_is_complete() -> None:
    rolls = {_roll(row["roll"]) for row in OPENING["rolls"]}
    assert rolls == {(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)}


@pytest.mark.parametrize("row", OPENING["rolls"], ids=lambda row: row["roll"])
def test_opening_roll_counts(row: dict) -> None:
    dice = _roll(row["roll"])
    assert len(bg.legal_plays(*bg.START, dice)) == row["distinct_plays"]
    assert bg.count_sequences(*bg.START, dice) == row["ordered_checker_move_sequences"]
    # The count must not depend on which die is named first.
    assert bg.legal_plays(*bg.START, dice[::-1]) == bg.legal_plays(*bg.START, dice)


# GNU Backgammon ----------------------------------------------------------------------------


def test_start_position_id() -> None:
    # The ID GNU Backgammon shows for a new game.
    assert bg.position_id(*bg.START) == "4HPwATDgc/ABMA"
    assert bg.from_position_id("4HPwATDgc/ABMA") == bg.START


def test_position_id_half_order() -> None:
    """gnubg writes the player NOT on roll first: after 24/13 from the start, that's the mover."""
    evidence = GNUBG["half_order_evidence"]
    own, opp = bg.from_position_id(evidence["id_after"])
    mover = list(bg.START[0])
    mover[24], mover[13] = 1, 6
    assert (own, opp) == (bg.START[0], tuple(mover))
    # gnubg.board() lists (not on roll, on roll), each point 1..24 then the bar.
    assert evidence["gnubg_board_after"] == [list(opp[1:]), list(own[1:])]


@pytest.mark.parametrize(
    "entry", GNUBG["positions"], ids=lambda e: f"{e['position_id']}-{e['dice']}"
)
def test_legal_plays_match_gnubg(entry: dict) -> None:
    own, opp = tuple(entry["own"]), tuple(entry["opp"])
    bg.check_position(own, opp)
    assert bg.position_id(own, opp) == entry["position_id"]
    assert bg.from_position_id(entry["position_id"]) == (own, opp)
    expected = {_after_play(pid) for pid in entry["plays"]}
    assert len(expected) == len(entry["plays"]) == max(1, entry["num_plays_listed"])
    assert bg.legal_plays(own, opp, entry["dice"]) == expected
    if entry["num_plays_listed"] == 0:  # gnubg found no move: the only play is to pass
        assert entry["plays"] == [bg.position_id(opp, own)]


def test_gnubg_scoring_of_finished_games() -> None:
    """Single game / gammon / backgammon as gnubg scored the game-ending plays (cube 1)."""
    scored = [
        (pid, points)
        for entry in GNUBG["positions"]
        for pid, points in entry.get("game_over_points", {}).items()
    ]
    assert {points for _, points in scored} == {1, 2, 3}
    for pid, points in scored:
        mover_own, mover_opp = _after_play(pid)
        assert bg.result(mover_own, mover_opp) == points, pid
        assert bg.result(mover_opp, mover_own) == -points, pid


def test_gnubg_fixture_covers_the_rules() -> None:
    tags = [tag for entry in GNUBG["positions"] for tag in entry["tags"]]
    for tag in (
        "start",
        "own_bar",
        "opp_bar",
        "both_bars",
        "bearoff",
        "doubles",
        "doubles_partial",
        "no_move",
        "one_die",
        "larger_die_rule",
        "both_dice_forced",
        "hit",
        "bear_off_larger_die",
        "game_ending",
    ):
        assert tags.count(tag) >= 5, tag
    assert tags.count("scoring") == 4  # hand-made: single, gammon, two kinds of backgammon


# OpenSpiel ---------------------------------------------------------------------------------
#
# OpenSpiel's board: board(player, pos) for pos 0..23 in one fixed frame; player 0 (X) moves
# from pos 0 towards 23 (own point = 24 - pos), player 1 (O) from 23 towards 0 (own point =
# pos + 1). Bar and borne-off counts are in the observation tensor: after 2 x 24 x 4 point
# features come (bar, off, to-move) for the observing player, the same for the opponent,
# then the two dice. A legal action is two checker moves; a double is two decisions by the
# same player, so a double's plays are found by following both halves.

_OBS_BAR, _OBS_OFF, _OBS_DICE = 192, 193, 198


def _openspiel_position(state, player: int) -> bg.Position:
    """``(own, opp)`` from ``player``'s view, in the reference's convention."""

    def side(p: int) -> bg.Side:
        counts = [0] * 26
        for pos in range(24):
            counts[24 - pos if p == 0 else pos + 1] = state.board(p, pos)
        obs = state.observation_tensor(p)
        counts[bg.BAR], counts[bg.OFF] = int(obs[_OBS_BAR]), int(obs[_OBS_OFF])
        return tuple(counts)

    return side(player), side(1 - player)


def _openspiel_plays(state, player: int) -> set[bg.Position]:
    """Distinct positions after the whole roll, following both halves of a double."""
    plays = set()
    for action in state.legal_actions():
        child = state.child(action)
        if not child.is_terminal() and child.current_player() == player:
            plays |= {
                _openspiel_position(child.child(second), player) for second in child.legal_actions()
            }
        else:
            plays.add(_openspiel_position(child, player))
    return plays


def _openspiel_random_walk(seed: int, decisions: int):
    """Yield ``(state, player)`` at the start of ``decisions`` turns of random OpenSpiel play."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("backgammon", {"scoring_type": "full_scoring"})
    rng = random.Random(seed)
    state = game.new_initial_state()
    seen = 0
    while seen < decisions:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            player = state.current_player()
            yield state, player
            seen += 1
            state.apply_action(rng.choice(state.legal_actions()))
            if not state.is_terminal() and state.current_player() == player:
                state.apply_action(rng.choice(state.legal_actions()))  # second half of a double


def test_legal_plays_match_openspiel() -> None:
    doubles = 0
    for state, player in _openspiel_random_walk(seed=7, decisions=400):
        own, opp = _openspiel_position(state, player)
        bg.check_position(own, opp)
        obs = state.observation_tensor(player)
        dice = (int(obs[_OBS_DICE]), int(obs[_OBS_DICE + 1]))
        doubles += dice[0] == dice[1]
        assert bg.legal_plays(own, opp, dice) == _openspiel_plays(state, player), (
            bg.position_id(own, opp),
            dice,
        )
    assert doubles > 30


def test_scoring_matches_openspiel() -> None:
    """OpenSpiel's full scoring (1 / 2 gammon / 3 backgammon) at the end of random games."""
    values = set()
    for state, player in _openspiel_random_walk(seed=3, decisions=3000):
        for action in state.legal_actions():
            child = state.child(action)
            if child.is_terminal():
                own, opp = _openspiel_position(child, player)
                if bg.game_over(own, opp):
                    assert bg.result(own, opp) == child.returns()[player]
                    values.add(bg.result(own, opp))
    assert values == {1, 2, 3}


# The reference's own helpers ---------------------------------------------------------------


def test_random_game_positions_are_reproducible_and_legal() -> None:
    positions = bg.random_game_positions(seed=11, n=300)
    assert positions == bg.random_game_positions(seed=11, n=300)
    assert positions[0][:2] == bg.START and positions[0][2][0] != positions[0][2][1]
    for own, opp, _ in positions:
        bg.check_position(own, opp)
        assert bg.from_position_id(bg.position_id(own, opp)) == (own, opp)
        assert bg.swap(*bg.swap(own, opp)) == (own, opp)


def test_apply_play_and_sequences_agree() -> None:
    for own, opp, dice in bg.random_game_positions(seed=5, n=100):
        for moves, position in bg.legal_sequences(own, opp, dice):
            assert bg.apply_play(own, opp, moves) == position
    with pytest.raises(ValueError):
        bg.apply_play(*bg.START, [(13, 1)])  # own 12 = opponent's 13: five checkers there
