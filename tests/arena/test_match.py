"""The arena: games replayed move by move from their records, seats and openings shared, the
Elo formula against hand computation, and the command line. (MCTS against the exact
solver over 100 games is a benchmark: benchmarks/mcts_strength.py.)"""

import json
import math

import numpy as np
import pytest

import jaxgames
from jaxgames.arena import elo_difference, elo_interval, match, parse_agent
from jaxgames.cli import main
from jaxgames.game import GameError


def replay(game, record):
    """The final utilities of a record's game, replayed move by move from the start."""
    state = game.init()
    for text in record.opening + record.moves:
        state = game.step(state, game.string_to_action(state, text))
    assert bool(game.terminal(state))
    return np.asarray(game.utility(state)).tolist()


def test_records_replay_to_their_results_with_seats_swapped_and_openings_shared():
    game = jaxgames.make("tictactoe")
    result = match(game, ["random", "random"], games=8, seed=3, openings=2)
    assert len(result.records) == 8
    for g, record in enumerate(result.records):
        assert replay(game, record) == record.utility
        assert len(record.opening) == 2
        pair = result.records[g ^ 1]  # the other game of its pair
        assert pair.opening == record.opening and pair.seats == record.seats[::-1]
    assert result.wins + result.draws + result.losses == 8


def test_a_match_is_the_same_for_the_same_seed_and_differs_for_another():
    game = jaxgames.make("tictactoe")
    moves = lambda seed: [r.moves for r in match(game, ["random", "random"], 6, seed).records]  # noqa: E731
    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


def test_points_count_wins_draws_and_losses_from_the_first_agents_side():
    game = jaxgames.make("tictactoe")
    result = match(game, ["mcts:simulations=300", "random"], games=8, seed=1)
    points = [
        (1.0 if u[s] > u[1 - s] else 0.5 if u[s] == u[1 - s] else 0.0)
        for u, s in ((r.utility, r.seats.index("mcts:simulations=300")) for r in result.records)
    ]
    assert (result.wins, result.draws, result.losses) == (
        points.count(1.0),
        points.count(0.5),
        points.count(0.0),
    )
    assert result.score == pytest.approx(np.mean(points)) and result.losses == 0


def test_elo_against_hand_computation():
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(400 * math.log10(3))  # 3 to 1: +190.85
    assert elo_difference(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf
    # 6 wins, 2 draws, 2 losses: score 0.7; Wilson's 95 % interval by hand
    # (z = 1.96, n = 10): center (0.7 + 0.19208) / 1.38415 = 0.64450, half-width
    # 1.96 / 1.38415 * sqrt(0.021 + 0.0096040) = 0.24771: the score lies in [0.3968, 0.8922]
    elo, low, high = elo_interval(np.array([1.0] * 6 + [0.5] * 2 + [0.0] * 2))
    assert elo == pytest.approx(147.19, abs=0.01)
    assert low == pytest.approx(-400 * math.log10(1 / 0.39678 - 1), abs=0.2)
    assert high == pytest.approx(-400 * math.log10(1 / 0.89220 - 1), abs=0.2)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("minimax", "unknown kind 'minimax'; known: random, mcts, alphabeta, expectiminimax"),
        ("mcts:sims=3", "unknown option 'sims=3'; mcts takes: simulations, c, rollouts, leaf"),
        ("mcts:leaf=net", "leaf: expected one of rollouts, eval, got 'net'"),
        ("mcts:simulations=zero", "simulations: expected int, got 'zero'"),
        ("alphabeta:depth=0", "depth must be >= 1, got 0"),
        ("mcts:solver=maybe", "solver: expected true or false, got 'maybe'"),
        ("mcts:selection=amaf", "selection: expected one of uct, rave, got 'amaf'"),
    ],
)
def test_bad_agents_are_one_line_errors(spec, message):
    with pytest.raises(GameError, match=message):
        parse_agent(spec)


def test_openspiel_bot_plays_from_the_replayed_game_and_is_timed_per_move():
    pytest.importorskip("pyspiel")
    game = jaxgames.make("tictactoe")
    # the bot replays each game's actions (opening included) in OpenSpiel: its records must
    # replay here to the same results, and it never loses to random play at tic-tac-toe
    result = match(game, ["openspiel:simulations=300", "random"], games=8, seed=2, openings=1)
    for record in result.records:
        assert replay(game, record) == record.utility
    assert result.losses == 0 and result.wins >= 4
    assert result.decisions[0] + result.decisions[1] == sum(len(r.moves) for r in result.records)
    assert all(t > 0 for t in result.seconds_per_move())
    with pytest.raises(GameError, match="no OpenSpiel twin of pig"):
        match(jaxgames.make("pig"), ["openspiel", "random"], games=2)


def test_expectiminimax_agent_plays_a_chance_game():
    game = jaxgames.make("pig:goal=12")
    result = match(game, ["expectiminimax:depth=2", "random"], games=4, seed=0)
    for record in result.records:
        assert replay(game, record) == record.utility


def test_games_must_seat_every_agent_equally():
    game = jaxgames.make("tictactoe")
    with pytest.raises(GameError, match="games must be a positive multiple of 2, got 3"):
        match(game, ["random", "random"], games=3)
    with pytest.raises(GameError, match="tictactoe has 2 players; got 1 agents"):
        match(game, ["random"], games=2)


def test_the_match_command_prints_the_score_and_writes_the_games(capsys, tmp_path):
    out = tmp_path / "games.jsonl"
    argv = ["match", "tictactoe", "--agent", "random", "--agent", "random"]
    status = main([*argv, "--games", "4", "--openings", "1", "--out", str(out)])
    printed, _ = capsys.readouterr()
    assert status == 0
    assert printed.startswith("random vs random: 4 games, +") and "(95 %)" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["game"] for r in rows] == [0, 1, 2, 3] and len(rows[0]["opening"]) == 1
    status = main(["match", "tictactoe", "--agent", "random", "--agent", "mcts:c=x"])
    _, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and "c: expected float, got 'x'" in err
