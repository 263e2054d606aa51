"""Connect four for learning: the encoding on hand-built positions and the learned EVAL."""

from __future__ import annotations

import numpy as np
import pytest

import jaxgames
from jaxgames.game import GameError
from jaxgames.learn.afterstates import ValueEncoding
from jaxgames.learn.network import make_net, save_checkpoint

GAME = jaxgames.make("connect4")
W, H, CELLS = 7, 6, 42


def _planes(text: str) -> tuple[np.ndarray, np.ndarray]:
    """``(planes [4, H, W], playable [2])`` of the position after the moves ``text``."""
    f = np.asarray(GAME.features(GAME.parse(text)))
    assert f.shape == (GAME.num_features,) == (4 * CELLS + 2,)
    return f[: 4 * CELLS].reshape(4, H, W), f[4 * CELLS :]


def test_connect4_has_a_value_encoding():
    assert isinstance(GAME, ValueEncoding)


def test_stones_are_seen_from_the_side_that_just_moved():
    planes, playable = _planes("4453")  # x: d1 e1, o: d2 c1; x to move, so o's view
    assert int(GAME.viewer(GAME.parse("4453"))) == 1
    mine, theirs = np.argwhere(planes[0]).tolist(), np.argwhere(planes[1]).tolist()
    assert sorted(mine) == [[0, 2], [1, 3]]  # [row, col], row 0 the bottom
    assert sorted(theirs) == [[0, 3], [0, 4]]
    assert planes[2:].sum() == 0 and playable.tolist() == [0.0, 0.0]


def test_mirrored_positions_encode_mirrored():
    left, _ = _planes("4453")
    right, _ = _planes("4435")  # the same moves reflected about the centre column
    np.testing.assert_array_equal(left, right[:, :, ::-1])


def test_connecting_cells_and_threats_that_can_be_played():
    # x: a1 b1 c1, o: a2 b2; o to move, so x's view: x connects at d1 (playable now)
    planes, playable = _planes("11223")
    assert np.argwhere(planes[2]).tolist() == [[0, 3]]
    assert planes[3].sum() == 0
    assert playable.tolist() == [0.5, 0.0]
    # after o's c2 (o: a2 b2 c2, x to move; o's view): o connects at d2, above an empty d1
    planes, playable = _planes("112233")
    assert np.argwhere(planes[2]).tolist() == [[1, 3]]
    assert np.argwhere(planes[3]).tolist() == [[0, 3]]
    assert playable.tolist() == [0.0, 0.5]


@pytest.fixture(scope="module")
def small_net_game(tmp_path_factory):
    net = make_net((GAME.num_features, 8, 1), seed=3)
    path = str(tmp_path_factory.mktemp("c4") / "net.npz")
    save_checkpoint(path, net, {"game": "connect4"})
    return net, jaxgames.make("connect4", eval=path), path


@pytest.mark.parametrize("text", ["", "4", "4453", "11223", "334455"])
def test_learned_eval_is_the_network_on_the_features(small_net_game, text):
    net, game, _ = small_net_game
    state = game.parse(text)
    p = float(net(GAME.features(state)))
    e_viewer = (2 * p - 1) / (2 * GAME.max_score)
    e_x = e_viewer if int(GAME.viewer(state)) == 0 else -e_viewer
    value = np.asarray(game.evaluate(state))
    np.testing.assert_allclose(value, [e_x, -e_x], rtol=1e-5, atol=1e-7)
    assert abs(e_x) < 1 / GAME.max_score  # below every decided game's value


def test_learned_eval_is_the_utility_at_the_end(small_net_game):
    _, game, _ = small_net_game
    won = game.parse("1212121")  # x connects in column 1
    np.testing.assert_array_equal(np.asarray(game.evaluate(won)), np.asarray(game.utility(won)))


def test_learned_eval_rejects_another_games_checkpoint(tmp_path):
    path = str(tmp_path / "bg.npz")
    save_checkpoint(path, make_net((GAME.num_features, 4, 1)), {"game": "backgammon"})
    with pytest.raises(GameError, match="backgammon"):
        jaxgames.make("connect4", eval=path)
    path = str(tmp_path / "small.npz")
    save_checkpoint(path, make_net((GAME.num_features + 1, 4, 1)), {"game": "connect4"})
    with pytest.raises(GameError, match="inputs"):
        jaxgames.make("connect4", eval=path)
