"""Bulk evaluation: rows per position in input order, chunking, inputs of every kind."""

import importlib
import json

import numpy as np
import pytest

import jaxgames
from jaxgames import GameError, bulk, search
from jaxgames.positions import read_positions

# A few connect-four positions: openings and the public solvers' middle-game positions.
POSITIONS = ["4453", "44", "3246313", "2416615552", "44455554221"]
DEPTH = 2
CHUNK = 2  # one chunk size throughout: every chunk compiles to the same shapes


@pytest.fixture(scope="module")
def game():
    return jaxgames.make("connect4")


@pytest.fixture(scope="module")
def rows(game):
    return jaxgames.evaluate(game, POSITIONS, algorithm="minimax", depth=DEPTH, chunk_size=CHUNK)


def reference(game, text):
    """One root searched on its own: (value for the side to move, optimal moves, PV)."""
    state = game.parse(text)
    result = search.minimax(game, state, depth=DEPTH)
    mover = int(game.player(state))
    optimal = {game.action_to_string(state, a) for a in result.optimal_actions(mover)}
    return float(result.value[mover]), optimal, result


def test_one_row_per_position_in_input_order(rows, game):
    assert [r["position"] for r in rows] == POSITIONS
    for r in rows:
        assert list(r) == bulk.columns(game)
        assert r["depth"] == DEPTH and r["algorithm"] == "minimax"
    json.loads(json.dumps(rows))  # plain JSON types only


def test_rows_agree_with_one_root_at_a_time(rows, game):
    for r in rows:
        value, optimal, result = reference(game, r["position"])
        state = game.parse(r["position"])
        assert r["to_move"] == int(game.player(state))
        assert r["value"] == pytest.approx(value, abs=1e-6)
        assert r["best_move"] in optimal
        assert r["score"] == game.score_from_value(value)
        assert r["nodes"] == result.stats["nodes"]
        # the PV is legal moves in notation, starting with the best move
        moves = r["pv"].split()
        assert moves[0] == r["best_move"] and len(moves) == DEPTH
        for move in moves:
            state = game.step(state, game.string_to_action(state, move))


def test_a_proven_loss_gets_the_solvers_score(rows):
    lost = rows[POSITIONS.index("44455554221")]
    assert lost["score"] == -15 and lost["value"] == pytest.approx(-15 / 18)


def test_chunk_size_does_not_change_the_rows(rows, game):
    whole = jaxgames.evaluate(game, POSITIONS, algorithm="minimax", depth=DEPTH, chunk_size=8)
    assert whole == rows


def test_positions_may_be_text_records_or_states(rows, game):
    records = [p for p in read_positions(game, None) if p.text in POSITIONS]  # the sample's
    from_records = jaxgames.evaluate(
        game, records, algorithm="minimax", depth=DEPTH, chunk_size=CHUNK
    )
    by_text = {r["position"]: r for r in rows}
    assert from_records == [by_text[p.text] for p in records]
    states = [game.parse(p) for p in POSITIONS[:CHUNK]]
    from_states = jaxgames.evaluate(
        game, states, algorithm="minimax", depth=DEPTH, chunk_size=CHUNK
    )
    assert [r["position"] for r in from_states] == [game.format(s) for s in states]
    assert [r["value"] for r in from_states] == [r["value"] for r in rows[:CHUNK]]


def test_iter_evaluate_streams_chunk_by_chunk(game):
    pulled = []

    def source():
        for text in POSITIONS:
            pulled.append(text)
            yield text

    rows = jaxgames.iter_evaluate(
        game, source(), algorithm="minimax", depth=DEPTH, chunk_size=CHUNK
    )
    assert pulled == []  # nothing read before a row is asked for
    first = next(rows)
    assert first["position"] == POSITIONS[0] and len(pulled) == CHUNK
    assert len(list(rows)) == len(POSITIONS) - 1


def test_a_terminal_root_has_player_0s_utility_and_no_moves(game):
    (row,) = jaxgames.evaluate(
        "connect4", ["4455667"], algorithm="minimax", depth=DEPTH, chunk_size=CHUNK
    )
    assert row["to_move"] == 0 and row["value"] == 1.0 and row["score"] == 18  # x won
    assert row["best_move"] == "" and row["pv"] == "" and row["nodes"] == 1


def test_games_without_a_score_have_no_score_column():
    (row,) = jaxgames.evaluate("tictactoe", ["x...o...."], algorithm="minimax", depth=1)
    assert "score" not in row and row["to_move"] == 0 and row["nodes"] == 8


@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_algorithms_agree_on_values_and_best_moves(game, algorithm):
    texts = POSITIONS[:4]
    got = jaxgames.evaluate(game, texts, algorithm=algorithm, depth=DEPTH, chunk_size=CHUNK)
    for text, row in zip(texts, got, strict=True):
        value, optimal, _ = reference(game, text)
        assert row["value"] == pytest.approx(value, abs=1e-6)
        assert row["best_move"] in optimal  # equal up to ties between equally good moves


def test_unknown_algorithm_is_one_line_naming_the_known_ones(game):
    with pytest.raises(GameError, match=r"unknown algorithm 'negascout'; known: .*minimax"):
        jaxgames.evaluate(game, POSITIONS, algorithm="negascout")


@pytest.mark.parametrize(
    "kwargs, words",
    [({"depth": -1}, "depth must be"), ({"chunk_size": 0}, "chunk size must be >= 1")],
)
def test_bad_arguments_are_refused_before_any_work(game, kwargs, words):
    with pytest.raises(GameError, match=words):
        jaxgames.iter_evaluate(game, POSITIONS, algorithm="minimax", **kwargs)


def test_a_position_that_does_not_parse_is_a_game_error(game):
    with pytest.raises(GameError, match="connect4"):
        jaxgames.evaluate(game, ["4453", "48"], algorithm="minimax", depth=1)


def test_process_slices_cover_the_input_in_order():
    items = list(range(11))
    for count in (1, 2, 3, 4):
        parts = [bulk.process_slice(items, i, count) for i in range(count)]
        assert sum(parts, []) == items
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert bulk.part_path("out.jsonl", 3, 12) == "out.jsonl.part03"
    assert bulk.part_path("out.jsonl", 1, 2) == "out.jsonl.part1"


def test_values_are_short_float32_decimals(rows):
    for r in rows:
        assert repr(r["value"]) == str(np.float32(r["value"]))  # not -0.012836587615311146


def test_rows_named_from_the_move_table_equal_the_rows_named_move_by_move(game):
    from jaxgames.capabilities import FixedMoveNames
    from jaxgames.games.connect4 import ConnectFour

    generic = ConnectFour()  # the same game, named through action_to_string and replays
    del generic.move_names
    assert isinstance(game, FixedMoveNames) and not isinstance(generic, FixedMoveNames)
    texts = [*POSITIONS, "445566", "4455667"]  # a PV cut short by a win, a finished game
    for algorithm in ("minimax", "alphabeta"):
        fast = jaxgames.evaluate(game, texts, algorithm, depth=DEPTH, chunk_size=CHUNK)
        slow = jaxgames.evaluate(generic, texts, algorithm, depth=DEPTH, chunk_size=CHUNK)
        assert json.dumps(fast) == json.dumps(slow)
    assert fast[-2]["pv"] in ("3", "7")  # x connects: the line ends there
    assert fast[-1]["best_move"] == fast[-1]["pv"] == ""


def test_chunks_are_padded_to_a_few_bucket_sizes():
    padded_size = importlib.import_module("jaxgames.bulk.evaluate").padded_size
    sizes = {n: padded_size(n, 1024) for n in range(1, 1025)}
    assert set(sizes.values()) == {64, 256, 1024}
    assert [sizes[n] for n in (1, 64, 65, 256, 257, 1000)] == [64, 64, 256, 256, 1024, 1024]
    assert padded_size(300, 4096) == 1024
    assert padded_size(1025, 4096) == 4096
    assert padded_size(70, 100) == 100
    assert padded_size(2, 2) == padded_size(1, 2) == 2


def test_short_chunks_are_padded_with_their_position_nearest_the_end(game):
    import jax
    from jaxgames.kernels import pad_to, stack

    evaluate_module = importlib.import_module("jaxgames.bulk.evaluate")
    texts = ["4", "445566", "44"]  # the most stones: the fewest plies left
    states = stack([game.parse(t) for t in texts])
    filler = evaluate_module._filler(game, states, needed=True)
    assert filler == 1
    assert evaluate_module._filler(game, states, needed=False) == 0
    padded = pad_to(states, 5, filler)
    rows = [np.concatenate([np.ravel(x[i]) for x in jax.tree.leaves(padded)]) for i in range(5)]
    assert not (rows[0] == rows[1]).all()  # the rows can be told apart
    assert all((rows[i] == rows[1]).all() for i in (3, 4))
    with pytest.raises(ValueError, match="filler 3"):
        pad_to(states, 5, 3)
