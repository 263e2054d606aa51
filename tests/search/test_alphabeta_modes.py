"""The two ways to search one root: one device lane, or the host driver over a frontier."""

import numpy as np
import pytest

import jaxgames
from jaxgames.search import alphabeta, minimax

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset


@pytest.mark.parametrize("moves", ["4453", "3246313", "44455554221", "4455"])
def test_host_driver_and_device_search_give_the_minimax_value(moves):
    game = jaxgames.make("connect4")
    state = game.parse(moves)
    reference = minimax(game, state, 3)
    mover = len(moves) % 2
    for mode in ("device", "host"):
        result = alphabeta(game, state, 3, mode=mode)
        assert result.stats["mode"] == mode
        np.testing.assert_allclose(result.value, reference.value, atol=1e-6)
        # the chosen move keeps the value: its minimax value one ply less deep equals the root's
        after = minimax(game, game.step(state, result.best_action), 2).value
        np.testing.assert_allclose(after[mover], reference.value[mover], atol=1e-6)
        assert result.pv and result.pv[0] == result.best_action


def test_unknown_mode_is_refused():
    game = jaxgames.make("connect4")
    with pytest.raises(jaxgames.GameError, match="mode"):
        alphabeta(game, game.init(), 2, mode="gpu")
