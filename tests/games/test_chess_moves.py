"""Chess's compact move lists and per-move hints (the capabilities ``MoveLists``,
``ListOrdering`` and ``Checks``) against python-chess, an oracle nobody here wrote, and
against the game's own full-width masks, on one batch of positions compiled once."""

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
from jaxgames.kernels import stack, to_numpy

import jaxgames
from jaxgames.capabilities import Checks, ListOrdering, MoveLists
from jaxgames.games import chess as jchess

GAME = jaxgames.make("chess")
BATCH = 256  # one batch size: one compilation
MAX_218 = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"
with open(REFERENCE / "chess_perft.csv", encoding="utf-8") as _f:
    PERFT_FENS = sorted({row["fen"] for row in csv.DictReader(_f)})
# Positions that must be in the batch: the perft positions, the most moves, the rare rules,
# and finished games (mate, stalemate, insufficient material, the 50-move rule).
FIXED = [
    *PERFT_FENS,
    MAX_218,
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # castling both ways, both sides
    "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",  # castling through an attacked square
    "4k3/8/8/2pP4/8/8/8/4K2R w K c6 0 2",  # en passant
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",  # en passant that would expose the king
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",  # under-promotions, captures onto rank 1
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",  # the same for white
    "4k3/8/8/8/8/8/4q3/4K2R w K - 0 1",  # in check, castling right kept
    "4k3/8/8/8/1b6/8/3q4/4K3 w - - 0 1",  # check: only king moves and the capture
    "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",  # double check: only the king moves
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # checkmate
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "8/8/8/8/8/8/8/K6k w - - 0 1",  # insufficient material: the game is over
    "k7/8/1K6/8/8/8/8/7R w - - 100 80",  # the 50-move rule: the game is over
]
STARTS = [
    *PERFT_FENS,
    "7k/8/6K1/8/8/8/5Q2/8 w - - 0 1",  # queen against king: mates and stalemates
    "8/3P1k2/8/8/8/8/4p1K1/8 w - - 0 1",  # promotion races
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "4k3/8/8/2pP4/8/8/8/4K2R w K c6 0 2",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # back-rank mates
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
]


def pick(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random move, nudged towards the rare rules: mates, castling, en passant, checks,
    captures and promotions."""
    moves = list(board.legal_moves)
    if len(board.piece_map()) <= 7:  # few pieces: look for a mate or a stalemate
        ends = [m for m in moves if _ends(board, m)]
        if ends and rng.random() < 0.7:
            return rng.choice(ends)
    for wanted in (
        [m for m in moves if board.is_castling(m) or board.is_en_passant(m)],
        [m for m in moves if m.promotion or board.gives_check(m)],
        [m for m in moves if board.is_capture(m)],
    ):
        if wanted and rng.random() < 0.4:
            return rng.choice(wanted)
    return rng.choice(moves)


def _ends(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate() or board.is_stalemate()
    finally:
        board.pop()


@functools.cache
def positions() -> list[str]:
    """``BATCH`` distinct FENs: :data:`FIXED`, then positions of seeded random games."""
    rng = random.Random(20240218)
    fens = list(dict.fromkeys(FIXED))
    game = 0
    while len(fens) < BATCH:
        board = chess.Board(STARTS[game % len(STARTS)])
        game += 1
        for _ in range(rng.randrange(8, 40)):
            if board.is_game_over() or len(fens) >= BATCH:
                break
            board.push(pick(board, rng))
            if board.fen() not in fens and rng.random() < 0.5:
                fens.append(board.fen())
    return fens


def _all(states):
    moves = jax.vmap(GAME.legal_moves)(states)
    return {
        "moves": moves,
        "mask": jax.vmap(GAME.legal_mask)(states),
        "scores": jax.vmap(GAME.move_scores)(states, moves),
        "order": jax.vmap(GAME.move_order_scores)(states),
        "noisy": jax.vmap(GAME.noisy_moves)(states, moves),
        "noisy_mask": jax.vmap(GAME.noisy_mask)(states),
        "in_check": jax.vmap(GAME.in_check)(states),
    }


@functools.cache
def computed() -> tuple[list[str], dict[str, np.ndarray]]:
    """Every quantity of every position, from one compiled, batched call."""
    fens = positions()
    states = stack([to_numpy(GAME.parse(fen)) for fen in fens])
    out = jax.jit(_all)(jax.tree.map(jnp.asarray, states))
    return fens, {k: np.asarray(v) for k, v in out.items()}


def expected_moves(board: chess.Board) -> list[chess.Move]:
    """python-chess's legal moves, none where our rules end the game without a claim
    (insufficient material, 100 plies without a capture or pawn move; a mate stands)."""
    if board.is_insufficient_material() or board.halfmove_clock >= 100:
        return []
    return list(board.legal_moves)


def mvv_lva(board: chess.Board, move: chess.Move) -> int:
    """The documented ordering score from python-chess's view of the move: ``16 * victim
    - attacker`` for captures (1, 3, 3, 5, 9; the king attacks as 10), plus ``16 * (value
    - 1)`` of a promoted piece."""
    value = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    score = 0
    if board.is_capture(move):
        victim = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
        attacker = board.piece_type_at(move.from_square)
        score += 16 * value[victim] - (10 if attacker == chess.KING else value[attacker])
    if move.promotion:
        score += 16 * (value[move.promotion] - 1)
    return score


def test_chess_has_the_capabilities():
    assert isinstance(GAME, MoveLists) and GAME.max_moves == 218
    assert isinstance(GAME, ListOrdering)
    assert isinstance(GAME, Checks)


def test_the_batch_exercises_the_rare_rules():
    fens, _ = computed()
    assert len(fens) == BATCH == len(set(fens))
    seen = set()
    for fen in fens:
        board = chess.Board(fen)
        moves = list(board.legal_moves)
        seen |= {
            name
            for name, hit in (
                ("castling", any(board.is_castling(m) for m in moves)),
                ("en_passant", any(board.is_en_passant(m) for m in moves)),
                ("promotion", any(m.promotion for m in moves)),
                ("check", board.is_check()),
                ("checkmate", board.is_checkmate()),
                ("stalemate", board.is_stalemate()),
                ("218", len(moves) == 218),
            )
            if hit
        }
    assert seen == {"castling", "en_passant", "promotion", "check", "checkmate", "stalemate", "218"}


def test_legal_moves_are_the_mask_and_python_chess():
    fens, out = computed()
    errors = []
    for fen, moves, mask in zip(fens, out["moves"], out["mask"], strict=True):
        n = int(np.sum(moves >= 0))
        listed = moves[:n]
        board = chess.Board(fen)
        truth = {GAME.uci_to_action(m.uci()) for m in expected_moves(board)}
        if not (np.all(listed >= 0) and np.all(moves[n:] == -1)):
            errors.append(f"{fen}: the moves are not a prefix followed by -1")
        elif len(set(listed.tolist())) != n:
            errors.append(f"{fen}: duplicate moves")
        elif set(listed.tolist()) != set(np.flatnonzero(mask).tolist()):
            errors.append(f"{fen}: the list is not the legal mask")
        elif set(listed.tolist()) != truth:
            errors.append(f"{fen}: the list is not python-chess's legal moves")
    assert not errors, "\n".join(errors[:10])
    assert max(int(np.sum(m >= 0)) for m in out["moves"]) == 218  # MAX_218 fills the list


def test_noisy_moves_and_scores_of_the_listed_moves():
    fens, out = computed()
    errors = []
    for i, fen in enumerate(fens):
        moves = out["moves"][i]
        listed = moves >= 0
        board = chess.Board(fen)
        by_action = {GAME.uci_to_action(m.uci()): m for m in board.legal_moves}
        gathered_noisy = out["noisy_mask"][i][np.maximum(moves, 0)] & listed
        gathered_order = out["order"][i][np.maximum(moves, 0)]
        if not np.array_equal(out["noisy"][i], gathered_noisy):
            errors.append(f"{fen}: noisy_moves is not noisy_mask at the listed moves")
        if not np.array_equal(out["scores"][i][listed], gathered_order[listed]):
            errors.append(f"{fen}: move_scores is not move_order_scores at the listed moves")
        if listed.any() and out["scores"][i][~listed].max(initial=-np.inf) >= 0:
            errors.append(f"{fen}: a -1 entry scores as high as a legal move")
        noisy_listed, scores_listed = out["noisy"][i][listed], out["scores"][i][listed]
        for a, noisy, score in zip(moves[listed], noisy_listed, scores_listed, strict=True):
            move = by_action[int(a)]
            if bool(noisy) != (board.is_capture(move) or move.promotion is not None):
                errors.append(f"{fen}: {move.uci()} noisy {bool(noisy)}")
            if score != mvv_lva(board, move):
                errors.append(f"{fen}: {move.uci()} scores {score}, not {mvv_lva(board, move)}")
    assert not errors, "\n".join(errors[:10])
    assert np.any(out["scores"] > 0) and np.any(out["noisy"])


def test_in_check_is_python_chess():
    fens, out = computed()
    checks = [chess.Board(fen).is_check() for fen in fens]
    np.testing.assert_array_equal(out["in_check"], checks)
    assert any(checks)


@pytest.mark.parametrize("fen", [MAX_218, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"])
def test_list_of_a_full_and_an_empty_position(fen):
    """The list holds all 218 moves of the richest position, and nothing after a mate."""
    fens, out = computed()
    moves = out["moves"][fens.index(fen)]
    want = chess.Board(fen).legal_moves.count()
    assert int(np.sum(moves >= 0)) == want and moves.shape == (jchess.MAX_MOVES,)
