"""Backgammon for learning: pubeval's inputs, the network's choice among afterstates, the
learned EVAL and checkpoints."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxgames
from jaxgames.game import GameError
from jaxgames.games.backgammon.learned import PUBEVAL_CONTACT, PUBEVAL_RACE, is_race
from jaxgames.learn.afterstates import bucket
from jaxgames.learn.network import load_checkpoint, make_net, save_checkpoint
from jaxgames.learn.selfplay import NetScorer, _decide, _roll

GAME = jaxgames.make("backgammon")
POSITIONS = [
    "x: 24:2 13:5 8:3 6:5 o: 24:2 13:5 8:3 6:5 to_move=x dice=31",
    "x: bar:1 20:1 13:4 8:3 6:5 5:1 o: 24:1 22:1 13:5 8:2 6:5 3:1 to_move=x dice=64",
    "x: 6:4 5:3 3:2 1:1 o: 6:5 4:4 2:2 to_move=x dice=22",
]


def _pubeval_reference(mover: np.ndarray, opponent: np.ndarray, race: bool) -> float:
    """pubeval.c's setx() and score, transcribed loop by loop on its pos[] array (mover's
    checkers positive on the mover's points, the opponent's negative)."""
    pos = np.zeros(28, int)
    for j in range(1, 25):
        pos[j] = mover[j] if mover[j] else -opponent[25 - j]
    pos[0], pos[25], pos[26] = -opponent[25], mover[25], mover[0]
    if pos[26] == 15:
        return 99999999.0
    x = np.zeros(122)
    for j in range(1, 25):
        n = pos[25 - j]
        if n == -1:
            x[5 * (j - 1)] = 1
        if n == 1:
            x[5 * (j - 1) + 1] = 1
        if n >= 2:
            x[5 * (j - 1) + 2] = 1
        if n == 3:
            x[5 * (j - 1) + 3] = 1
        if n >= 4:
            x[5 * (j - 1) + 4] = (n - 3) / 2
    x[120] = -pos[0] / 2
    x[121] = pos[26] / 15
    return float(np.dot(PUBEVAL_RACE if race else PUBEVAL_CONTACT, x))


@pytest.mark.parametrize("text", POSITIONS)
def test_pubeval_matches_the_c_reference_on_every_play(text):
    before = GAME.parse(text)
    race = bool(is_race(before.own, before.opp))
    actions = GAME.legal_actions(before)
    afters = jax.vmap(GAME.step, in_axes=(None, 0))(before, jnp.asarray(actions))
    ours = np.asarray(jax.jit(jax.vmap(GAME.pubeval, in_axes=(None, 0)))(before, afters))
    for i in range(len(actions)):
        mover, other = np.asarray(afters.opp[i], int), np.asarray(afters.own[i], int)
        assert ours[i] == pytest.approx(_pubeval_reference(mover, other, race), abs=1e-4)


def test_race_detection():
    assert not is_race(GAME.init().own, GAME.init().opp)
    assert is_race(GAME.parse(POSITIONS[2]).own, GAME.parse(POSITIONS[2]).opp)


def test_features_are_tesauro_units_from_the_movers_side():
    after = GAME.parse("x: 6:5 5:1 off:9 o: 24:2 13:4 bar:1 off:8 to_move=o dice=-")
    f = np.asarray(GAME.features(after))
    assert f.shape == (198,)
    six = f[4 * 5 : 4 * 6]  # x (who just moved) on its 6-point: 5 checkers
    assert list(six) == [1, 1, 1, 1]
    assert list(f[4 * 4 : 4 * 5]) == [1, 0, 0, 0]
    assert f[96 + 4 * 23 : 96 + 4 * 24].tolist() == [1, 1, 0, 0]  # o's 24-point
    assert f[192:196] == pytest.approx([0, 0.5, 9 / 15, 8 / 15])  # bars, then borne off
    assert f[196] == pytest.approx((30 + 5) / 100)


def test_the_network_plays_its_best_afterstate():
    """The lockstep choice equals the best of all legal plays scored one by one."""
    net = make_net((198, 8, 1), seed=3)
    states = jax.tree.map(lambda *x: jnp.stack(x), *[GAME.parse(t) for t in POSITIONS])
    states, counts = _roll(GAME, states, jnp.zeros((3,)))  # decisions: nothing rolled
    assert list(np.asarray(counts)) == [len(GAME.legal_actions(GAME.parse(t))) for t in POSITIONS]
    chosen, moved = _decide(
        GAME,
        bucket(int(counts.sum())),
        NetScorer(),
        None,
        net,
        None,
        states,
        counts,
        jnp.ones((3,), bool),
        jax.random.key(0),
        jnp.float32(0.0),
    )
    assert np.asarray(moved).all()
    for i, text in enumerate(POSITIONS):
        state = GAME.parse(text)
        actions = GAME.legal_actions(state)
        afters = jax.vmap(GAME.step, in_axes=(None, 0))(state, jnp.asarray(actions))
        values = np.asarray(jax.vmap(net)(jax.vmap(GAME.features)(afters)))
        best = int(np.argmax(values))
        for got, want in zip(jax.tree.leaves(chosen), jax.tree.leaves(afters), strict=True):
            assert np.array_equal(np.asarray(got[i]), np.asarray(want[best]))


def test_learned_eval_and_checkpoint(tmp_path):
    net = make_net((198, 8, 1), seed=1)
    path = str(tmp_path / "net.npz")
    size = save_checkpoint(path, net, {"game": "backgammon", "games": 5})
    assert size > 0
    loaded, meta, _ = load_checkpoint(path)
    assert meta["games"] == 5 and loaded.sizes == (198, 8, 1)
    game = jaxgames.make("backgammon", eval=path)
    assert game.spec == f"backgammon:eval={path}"
    state = GAME.parse("x: 6:5 5:1 off:9 o: 24:2 13:4 bar:1 off:8 to_move=o dice=-")
    p = float(net(GAME.features(state)))  # x just moved: the network speaks for x
    assert np.asarray(game.evaluate(state)) == pytest.approx([2 * p - 1, 1 - 2 * p], abs=1e-5)
    done = GAME.parse("x: off:15 o: 24:2 13:4 off:9 to_move=o dice=-")
    assert np.asarray(game.evaluate(done)).tolist() == np.asarray(GAME.utility(done)).tolist()


def test_bad_checkpoints_are_one_line_errors(tmp_path):
    with pytest.raises(GameError, match="no such file"):
        jaxgames.make("backgammon", eval=str(tmp_path / "missing.npz"))
    other = str(tmp_path / "c4.npz")
    save_checkpoint(other, make_net((198, 4, 1)), {"game": "connect4"})
    with pytest.raises(GameError, match="not 'backgammon'"):
        jaxgames.make("backgammon", eval=other)
    junk = tmp_path / "junk.npz"
    junk.write_text("not a checkpoint")
    with pytest.raises(GameError, match="not a .npz checkpoint"):
        jaxgames.make("backgammon", eval=str(junk))


def test_train_command_errors(tmp_path, capsys):
    from jaxgames.cli import main

    def one_line(argv, words):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err

    one_line(["train", "tictactoe", "--games", "5", "--out", str(tmp_path)], "no value encoding")
    one_line(["train", "backgammon", "--games", "0", "--out", str(tmp_path)], "--games must be")
    save_checkpoint(str(tmp_path / "checkpoint.npz"), make_net((198, 4, 1)), {"game": "backgammon"})
    one_line(["train", "backgammon", "--games", "5", "--out", str(tmp_path)], "--resume")
