"""The GNU Backgammon opponent's board conversion and play application (on our side), and,
where ``gnubg`` is installed, one play of it found among our afterstates."""

from __future__ import annotations

import numpy as np
import pytest

import jaxgames
from jaxgames.games.backgammon.gnubg_player import (
    GnubgPlayer,
    apply_play,
    find_gnubg,
    from_gnubg_board,
    to_gnubg_board,
)

GAME = jaxgames.make("backgammon")
POSITIONS = [
    "4HPwATDgc/ABMA:31",
    "x: bar:1 6:14 o: 24:2 13:5 8:3 6:5 to_move=x dice=61",
    "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 5:4 3:1 to_move=x dice=44",
]


def _boards(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = GAME.parse(text)
    return np.asarray(s.own, np.int64), np.asarray(s.opp, np.int64), np.asarray(s.dice)


@pytest.mark.parametrize("text", POSITIONS)
def test_board_round_trip(text: str) -> None:
    own, opp, _ = _boards(text)
    back_own, back_opp = from_gnubg_board(to_gnubg_board(own, opp))
    assert (back_own == own).all() and (back_opp == opp).all()


def test_apply_play_hits_and_bears_off() -> None:
    own, opp, _ = _boards(POSITIONS[2])
    new_own, new_opp = apply_play(own, opp, (13, 9, 13, 9, 6, 2, 6, 2))
    assert new_own[13] == 3 and new_own[9] == 2 and new_own[6] == 3 and new_own[2] == 2
    assert (new_opp == opp).all()
    new_own, new_opp = apply_play(own, opp, (6, 2, 6, 2, 24, 20, 24, 20))
    # our 22-point is o's 3-point, where o has a blot; 24/20 passes it by without landing
    assert (new_opp == opp).all()
    new_own, new_opp = apply_play(own, opp, (6, 2, 6, 2, 24, 22, 0, 0))
    assert new_opp[3] == 0 and new_opp[25] == 1
    own, opp, _ = _boards("x: 3:2 1:13 o: 6:14 5:1 to_move=x dice=31")
    new_own, new_opp = apply_play(own, opp, (3, 0, 1, 0))
    assert new_own[0] == 2 and new_own[3] == 1 and new_own[1] == 12


@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_plays_are_our_afterstates() -> None:
    with GnubgPlayer(find_gnubg()) as gnubg:
        for text in POSITIONS:
            own, opp, dice = _boards(text)
            new_own, new_opp = apply_play(own, opp, gnubg.play(own, opp, dice))
            state = GAME.parse(text)
            afters = [GAME.step(state, a) for a in GAME.legal_actions(state)]
            assert any(
                (np.asarray(a.opp) == new_own).all() and (np.asarray(a.own) == new_opp).all()
                for a in afters
            ), text
