"""Chess against python-chess (an oracle nobody here wrote) and the published perft tables."""

from __future__ import annotations

import csv
import functools
import random

import chess
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import REFERENCE
from jaxgames.kernels import batched, stack, take, to_numpy

import jaxgames
from jaxgames import GameError
from jaxgames.games import chess as jchess
from jaxgames.search.alphabeta import Singular, alphabeta_batch
from jaxgames.search.levels import expand_levels
from jaxgames.search.perft import perft

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

GAME = jaxgames.make("chess")
ANY_NOISY = jax.jit(GAME.any_noisy)
with open(REFERENCE / "chess_perft.csv", encoding="utf-8") as _f:
    PERFT = list(csv.DictReader(_f))
FENS = {row["position"]: row["fen"] for row in PERFT}
MAX_218 = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"
# Random games start from these: the start, the perft positions (castling, en passant and
# promotions early), and endgames where mates, stalemates, under-promotions, the 50-move
# rule, repetitions and insufficient material come quickly.
ORACLE_STARTS = [
    *FENS.values(),
    "7k/8/6K1/8/8/8/5Q2/8 w - - 0 1",  # queen against king: mates and stalemates
    "k7/8/1K6/8/8/8/8/7R w - - 90 80",  # rook against king, clock near 100
    "8/3P1k2/8/8/8/8/4p1K1/8 w - - 0 1",  # promotion races
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # castling through attacked squares
    "4k3/8/8/2pP4/8/8/8/4K2R w K c6 0 2",  # en passant on the first move
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",  # en passant that would expose the king
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # back-rank mates
]


def status_of(board: chess.Board) -> int:
    """python-chess's verdict in our status codes (the same order of precedence)."""
    if board.is_checkmate():
        return jchess.CHECKMATE
    if board.is_stalemate():
        return jchess.STALEMATE
    if board.is_insufficient_material():
        return jchess.INSUFFICIENT
    if board.is_repetition(3):
        return jchess.THREEFOLD
    if board.is_fifty_moves():
        return jchess.FIFTY_MOVES
    return jchess.ONGOING


def pick(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random move, nudged towards the rare rules: mate or stalemate when one is there
    (looked for with few pieces left), captures and promotions half the time."""
    moves = list(board.legal_moves)
    if len(board.piece_map()) <= 7:
        for move in moves:
            board.push(move)
            ends = board.is_checkmate() or board.is_stalemate()
            board.pop()
            if ends and rng.random() < 0.7:
                return move
    rare = [m for m in moves if board.is_castling(m) or board.is_en_passant(m)]
    if rare and rng.random() < 0.5:
        return rng.choice(rare)
    noisy = [m for m in moves if board.is_capture(m) or m.promotion]
    if noisy and rng.random() < 0.5:
        return rng.choice(noisy)
    return rng.choice(moves)


@functools.cache
def oracle_run(lanes: int = 32, plies: int = 100, seed: int = 7):
    """Play ``lanes`` random games side by side (one batched, compiled step for all of them)
    and python-chess alongside; record every disagreement and which rules were exercised."""
    rng = random.Random(seed)
    starts = [ORACLE_STARTS[i % len(ORACLE_STARTS)] for i in range(lanes)]
    boards = [chess.Board(fen) for fen in starts]
    states = jax.tree.map(np.array, stack([to_numpy(GAME.parse(fen)) for fen in starts]))
    step = batched(GAME).step
    seen: dict[str, int] = {}
    errors: list[str] = []
    positions = 0
    games = lanes
    done = np.zeros((lanes,), bool)

    def hit(name: str) -> None:
        seen[name] = seen.get(name, 0) + 1

    for _ply in range(plies):
        actions = np.zeros((lanes,), np.int32)
        for i, board in enumerate(boards):
            if done[i]:
                continue
            state = take(states, i)
            positions += 1
            where = f"lane {i}, {board.fen()}"
            if GAME.format(state) != board.fen():
                errors.append(f"{where}: FEN {GAME.format(state)}")
            key = jchess._key_of(state.board, int(state.turn), int(state.castling), int(state.ep))
            if not np.array_equal(key, state.hash):
                errors.append(f"{where}: incremental hash differs from recomputation")
            if bool(state.in_check) != board.is_check():
                errors.append(f"{where}: in_check {bool(state.in_check)}")
            status = status_of(board)
            if int(state.status) != status:
                errors.append(f"{where}: status {int(state.status)} != {status}")
            hit(jchess.STATUS_NAMES[status])
            if board.is_check():
                hit("check")
            if status != jchess.ONGOING:
                if np.any(state.moves):
                    errors.append(f"{where}: legal moves at a terminal state")
                # A new game in this lane, from the next start position.
                games += 1
                fen = ORACLE_STARTS[games % len(ORACLE_STARTS)]
                boards[i] = board = chess.Board(fen)
                fresh = to_numpy(GAME.parse(fen))
                for field, value in zip(states, fresh, strict=True):
                    field[i] = value
                state = take(states, i)
            moves = list(board.legal_moves)
            codes = [GAME.uci_to_action(m.uci()) for m in moves]
            if len(set(codes)) != len(codes) or min(codes) < 0:
                errors.append(f"{where}: moves do not map to distinct actions")
            ours = set(GAME.legal_actions(state))
            if ours != set(codes):
                extra = [GAME.action_to_string(state, a) for a in ours - set(codes)]
                missing = [m.uci() for m, c in zip(moves, codes, strict=True) if c not in ours]
                errors.append(f"{where}: extra {extra} missing {missing}")
                done[i] = True
                continue
            noisy = {
                c for m, c in zip(moves, codes, strict=True) if board.is_capture(m) or m.promotion
            }
            if set(np.flatnonzero(np.asarray(GAME.noisy_mask(state)))) != noisy:
                errors.append(f"{where}: noisy moves differ")
            if bool(ANY_NOISY(state)) != bool(noisy):
                errors.append(f"{where}: any_noisy {bool(ANY_NOISY(state))}, noisy {noisy}")
            move = pick(board, rng)
            action = GAME.uci_to_action(move.uci())
            if GAME.action_to_string(state, action) != move.uci():
                errors.append(f"{where}: UCI of {move.uci()} reads back differently")
            sampled = rng.random() < 0.1 or move.promotion or board.is_castling(move)
            if sampled and GAME.san(state, action) != board.san(move):
                errors.append(f"{where}: SAN {GAME.san(state, action)} != {board.san(move)}")
            for name, flag in (
                ("castling", board.is_castling(move)),
                ("en_passant", board.is_en_passant(move)),
                ("promotion", move.promotion is not None),
                ("under_promotion", move.promotion not in (None, chess.QUEEN)),
                ("capture", board.is_capture(move)),
            ):
                if flag:
                    hit(name)
            actions[i] = action
            board.push(move)
        if done.all():
            break
        stepped = to_numpy(step(states, jnp.asarray(actions)))
        states = jax.tree.map(
            lambda new, old: np.where(done.reshape((-1,) + (1,) * (new.ndim - 1)), old, new),
            stepped,
            states,
        )
    return positions, seen, errors


# ---------------------------------------------------------------- rules against the oracle
def test_random_play_matches_python_chess():
    positions, seen, errors = oracle_run()
    assert not errors, "\n".join(errors[:10])
    assert positions >= 1000
    for rule in (
        "castling",
        "en_passant",
        "promotion",
        "under_promotion",
        "check",
        "checkmate",
        "stalemate",
        "insufficient",
        "fifty",
    ):
        assert seen.get(rule, 0) > 0, f"random play never exercised {rule}: {seen}"


def test_start_is_the_same_inside_and_outside_a_trace():
    """The start is built by the compiled parse outside a trace, op by op inside one (a
    fresh game each time: the start is cached once built); both are python-chess's."""
    outside = jaxgames.make("chess").init()
    inside = jax.jit(jaxgames.make("chess").init)()
    assert GAME.format(outside) == chess.Board().fen()
    for a, b in zip(jax.tree.leaves(outside), jax.tree.leaves(inside), strict=True):
        np.testing.assert_array_equal(a, b)
    assert sorted(GAME.legal_actions(outside)) == sorted(
        GAME.string_to_action(outside, m.uci()) for m in chess.Board().legal_moves
    )


def test_threefold_repetition_ends_the_game():
    board = chess.Board()
    state = GAME.init()
    step = GAME._step_jit  # the game's own compiled step (shared with parse and san)
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for move in shuffle * 2:
        assert int(state.status) == jchess.ONGOING
        state = step(state, jnp.int32(GAME.string_to_action(state, move)))
        board.push_uci(move)
    assert board.is_repetition(3)
    assert int(state.status) == jchess.THREEFOLD
    assert GAME.terminal(state) and not np.any(GAME.legal_mask(state))
    np.testing.assert_array_equal(GAME.utility(state), [0.0, 0.0])
    # The same moves written as a move list in the position text.
    assert int(GAME.parse("startpos moves " + " ".join(shuffle * 2)).status) == jchess.THREEFOLD


def test_218_moves():
    state = GAME.parse(MAX_218)
    assert int(np.sum(GAME.legal_mask(state))) == 218 == chess.Board(MAX_218).legal_moves.count()


@pytest.mark.parametrize(
    "fen",
    [
        MAX_218,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # castling
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",  # under-promotions, captures onto rank 1
        "4k3/8/8/2pP4/8/8/8/4K2R w K c6 0 2",  # en passant
        "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1",  # mates among the moves
    ],
)
def test_sampler_draws_every_legal_move_once(fen):
    """The playout sampler (move planes, no mask): with ``u = (j + 1/2) / n`` for the ``n``
    legal moves it must draw each of python-chess's legal moves exactly once, so it is
    uniform; a finished game gives action 0."""
    board = chess.Board(fen)
    n = board.legal_moves.count()
    state = GAME.parse(fen)
    uniform = (np.arange(n) + 0.5) / n
    states = stack([state] * n)
    drawn = np.asarray(jax.jit(GAME.sample_actions)(states, jnp.asarray(uniform, jnp.float32)))
    ucis = sorted(GAME.action_to_string(state, int(a)) for a in drawn)
    assert ucis == sorted(m.uci() for m in board.legal_moves)
    mated = GAME.parse("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert int(mated.status) == jchess.CHECKMATE
    assert int(jax.jit(GAME.sample_actions)(stack([mated]), jnp.full((1,), 0.7))[0]) == 0


def test_action_space_is_exact():
    """Every (from, to, promotion) of any move maps to its own action and back."""
    seen = set()
    for a in range(GAME.num_actions):
        key = (int(jchess.ACTIONS.frm[a]), int(jchess.ACTIONS.to[a]), int(jchess.ACTIONS.under[a]))
        assert key not in seen
        seen.add(key)
    assert GAME.num_actions == 1792 + 132
    # Every queen or knight move and every pawn move with promotion is an action.
    for frm in chess.SQUARES:
        for to in chess.SQUARES:
            if frm == to:
                continue
            df, dr = abs(frm % 8 - to % 8), abs(frm // 8 - to // 8)
            geometric = df == 0 or dr == 0 or df == dr or {df, dr} == {1, 2}
            assert (GAME.uci_to_action(chess.Move(frm, to).uci()) >= 0) == geometric


# ---------------------------------------------------------------- perft
def perft_rows(max_nodes: int):
    return [
        pytest.param(
            row["fen"],
            int(row["depth"]),
            int(row["nodes_published"]),
            id=f"{row['position']}-d{row['depth']}",
        )
        for row in PERFT
        if int(row["nodes_published"]) <= max_nodes and int(row["depth"]) <= 4
    ]


@pytest.mark.parametrize("fen,depth,nodes", perft_rows(500_000))
def test_perft_published(fen, depth, nodes):
    assert perft(GAME, GAME.parse(fen), depth).counts[-1] == nodes


def breakdown(fen: str, depth: int) -> dict[str, int]:
    """Captures, en passant, castles, promotions, checks and mates among the moves of the
    last ply (built level by level, every child classified from its parent and action)."""
    levels = expand_levels(GAME, stack([to_numpy(GAME.parse(fen))]), depth)
    edges, parents, children = levels.edges[-1], levels.states[-2], levels.states[-1]
    board = parents.board[edges.parent]  # [E, 64]
    frm, to = jchess.ACTIONS.frm[edges.action], jchess.ACTIONS.to[edges.action]
    rows = np.arange(len(frm))
    piece, target = board[rows, frm] & 7, board[rows, to]
    ep = (piece == jchess.PAWN) & (to == parents.ep[edges.parent])
    return {
        "captures": int(np.sum((target != 0) | ep)),
        "ep": int(np.sum(ep)),
        "castles": int(np.sum((piece == jchess.KING) & (np.abs(to - frm) == 2))),
        "promotions": int(np.sum((piece == jchess.PAWN) & np.isin(to // 8, (0, 7)))),
        "checks": int(np.sum(children.in_check[edges.child])),
        "checkmates": int(np.sum(children.status[edges.child] == jchess.CHECKMATE)),
    }


@pytest.mark.parametrize(
    "name,depth",
    [("initial", 3), ("kiwipete", 2), ("position3", 3), ("position4", 3), ("position5", 2)],
)
def test_perft_breakdown(name, depth):
    row = next(r for r in PERFT if r["position"] == name and int(r["depth"]) == depth)
    kinds = ("captures", "ep", "castles", "promotions", "checks", "checkmates")
    if row["breakdown_published"]:
        fields = row["breakdown_published_fields"].split("/")
        published = dict(zip(fields, map(int, row["breakdown_published"].split("/")), strict=True))
    else:  # no published breakdown: python-chess's recomputation
        published = {k: int(row[f"{k}_python_chess"]) for k in kinds}
    ours = breakdown(row["fen"], depth)
    for key, value in ours.items():
        assert published[key] == value, (key, ours, published)


# ---------------------------------------------------------------- evaluation and hints
def test_evaluation_is_bounded_symmetric_and_material_first():
    fens = [row["fen"] for row in PERFT[::7]] + ["4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1"]
    for fen in fens:
        value = np.asarray(GAME.evaluate(GAME.parse(fen)))
        mirrored = np.asarray(GAME.evaluate(GAME.parse(chess.Board(fen).mirror().fen())))
        assert -1.0 < value[0] < 1.0 and value[0] == -value[1]
        np.testing.assert_allclose(mirrored, -value, atol=1e-5)  # summation order
    up_a_queen = GAME.evaluate(GAME.parse("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"))[0]
    up_a_pawn = GAME.evaluate(GAME.parse("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"))[0]
    assert 0.2 < up_a_pawn < up_a_queen < 0.999
    mate = GAME.parse("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 moves a1a8")
    assert int(mate.status) == jchess.CHECKMATE
    np.testing.assert_array_equal(GAME.evaluate(mate), [1.0, -1.0])


def test_move_order_is_mvv_lva():
    # White can take the queen with a pawn or a rook, a rook with the knight, a pawn with the
    # queen, and promote.
    state = GAME.parse("3q3k/1P6/2r5/1P6/1N6/8/8/3R3K w - - 0 1")
    scores = np.asarray(GAME.move_order_scores(state))
    noisy = np.asarray(GAME.noisy_mask(state))
    by_uci = {GAME.action_to_string(state, a): scores[a] for a in GAME.legal_actions(state)}
    assert by_uci["d1d8"] > by_uci["b4c6"] > 0  # queen before rook
    assert by_uci["b7b8q"] > by_uci["b7b8n"] > 0 and by_uci["b5c6"] > by_uci["b4c6"]
    assert by_uci["h1g1"] == 0 and not noisy[GAME.string_to_action(state, "h1g1")]
    assert all(noisy[GAME.string_to_action(state, m)] for m in ("d1d8", "b7b8r", "b5c6"))


# ---------------------------------------------------------------- search
HORIZON = "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1"
MATE_IN_1_WHITE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"  # Ra8#
MATE_IN_1_BLACK = "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1"  # Ra1#
MATE_IN_2 = "k7/8/2K5/8/8/8/8/7R w - - 0 1"  # 1. Kb6 Kb8 2. Rh8#
SEARCH_ROOTS = [HORIZON, MATE_IN_1_WHITE, MATE_IN_1_BLACK, MATE_IN_2]


def mating_moves(fen: str) -> set[str]:
    """The moves after which the side to move mates next move whatever the reply
    (python-chess)."""
    board, out = chess.Board(fen), set()
    for move in list(board.legal_moves):
        board.push(move)
        replies = list(board.legal_moves)
        forced = bool(replies)
        for reply in replies:
            board.push(reply)
            forced &= any(_mates(board, m) for m in list(board.legal_moves))
            board.pop()
        board.pop()
        if forced:
            out.add(move.uci())
    return out


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    mate = board.is_checkmate()
    board.pop()
    return mate


@functools.cache
def search(depth: int, quiescence: int):
    roots = stack([to_numpy(GAME.parse(fen)) for fen in SEARCH_ROOTS])
    result = alphabeta_batch(GAME, roots, depth, quiescence=quiescence)
    moves = [
        GAME.action_to_string(GAME.parse(f), int(a))
        for f, a in zip(SEARCH_ROOTS, result.best_action, strict=True)
    ]
    return result.value, moves


def test_horizon_effect_fixed_by_quiescence():
    """White (queen against two pawns) sees, one ply deep, Qxd5 win a pawn; but the pawn is
    defended (e6xd5 wins the queen), beyond the horizon. Quiescence plays the captures out."""
    value, moves = search(1, 0)
    assert moves[0] == "d1d5"  # misjudged: the queen is lost on the next ply
    after_capture = GAME.evaluate(GAME.parse(HORIZON + " moves d1d5"))[0]
    assert value[0, 0] == pytest.approx(after_capture)
    fixed, moves_q = search(1, 4)
    assert moves_q[0] != "d1d5"
    assert fixed[0, 0] < value[0, 0]
    # The two-ply full-width search agrees with quiescence that Qxd5 is bad.
    exchange = GAME.evaluate(GAME.parse(HORIZON + " moves d1d5 e6d5"))[0]
    assert exchange < 0 < fixed[0, 0]


def test_mates_found_at_their_depth():
    value, moves = search(1, 4)
    np.testing.assert_array_equal(value[1], [1.0, -1.0])
    np.testing.assert_array_equal(value[2], [-1.0, 1.0])
    assert moves[1:3] == ["a1a8", "a8a1"]
    assert value[3, 0] < 1.0  # no mate in one
    value, moves = search(3, 4)
    np.testing.assert_array_equal(value[3], [1.0, -1.0])
    assert moves[3] in mating_moves(MATE_IN_2)  # Kb6 and Kc7 both mate next move


def test_null_move_and_singular_extensions_keep_the_mates():
    """Null-move pruning (R = 2) and singular extensions on: the mates are still found at
    their depth, and quiescence still refuses the poisoned pawn."""
    roots = stack([to_numpy(GAME.parse(fen)) for fen in SEARCH_ROOTS])
    result = alphabeta_batch(
        GAME, roots, 4, quiescence=4, null_move=2, singular=Singular(2, 0.05, 1)
    )
    np.testing.assert_array_equal(result.value[1:4, 0], [1.0, -1.0, 1.0])
    moves = [
        GAME.action_to_string(GAME.parse(f), int(a))
        for f, a in zip(SEARCH_ROOTS, result.best_action, strict=True)
    ]
    assert moves[1:3] == ["a1a8", "a8a1"] and moves[0] != "d1d5"
    assert moves[3] in mating_moves(MATE_IN_2)
    assert result.stats["exact"] is False


def test_null_step_matches_python_chess():
    """A pass (python-chess's ``Move.null()``) from positions of random play: the FEN, and
    the incrementally kept key equals the one computed from scratch for that FEN."""
    rng = random.Random(11)
    fens, boards = [], []
    for _ in range(3):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 120:
            if not board.is_check():
                fens.append(board.fen())
                after = board.copy()
                after.push(chess.Move.null())
                boards.append(after)
            board.push(rng.choice(list(board.legal_moves)))
    assert len(fens) >= 100
    states = stack([to_numpy(GAME.parse(fen)) for fen in fens])
    passed = to_numpy(jax.jit(jax.vmap(GAME.null_step))(jax.tree.map(jnp.asarray, states)))
    ok = np.asarray(jax.vmap(GAME.null_ok)(jax.tree.map(jnp.asarray, states)))
    for i, board in enumerate(boards):
        state = take(passed, i)
        assert GAME.format(state) == board.fen(), fens[i]
        np.testing.assert_array_equal(state.hash, GAME.parse(board.fen()).hash)
        has_piece = any(
            board.pieces(kind, not board.turn)
            for kind in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
        )
        assert ok[i] == has_piece, fens[i]
    in_check = GAME.parse("4k3/8/8/8/8/8/4q3/4K2R w K - 0 1")
    assert bool(in_check.in_check) and not bool(GAME.null_ok(in_check))


# ---------------------------------------------------------------- notation
def test_notation_round_trips_and_errors():
    state = GAME.parse("startpos moves e2e4 e7e5 g1f3")
    assert GAME.format(state) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert GAME.string_to_action(state, "Nc6") == GAME.string_to_action(state, "b8c6")
    assert GAME.san(state, GAME.string_to_action(state, "b8c6")) == "Nc6"
    for bad in ("e2e5", "z9z9", "Ke2", "e7e8"):
        with pytest.raises(GameError):
            GAME.string_to_action(state, bad)
    for bad_fen in (
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K2R x K - 0 1",
        "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
    ):
        with pytest.raises(GameError):
            GAME.parse(bad_fen)
    assert "chess" in jaxgames.list_games()
