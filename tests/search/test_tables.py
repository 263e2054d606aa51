"""Endgame tables by retrograde analysis (jaxgames.search.tables, chess's endings), checked
against python-chess, which nobody here wrote: every claim of the table holds move by move,
a mate in 0 is python-chess's checkmate, and play that follows the table mates in exactly
the predicted number of plies. The published longest mates: KQK 10 moves, KRK 16 moves."""

from __future__ import annotations

import chess
import jax
import numpy as np
import pytest

import jaxgames
from jaxgames.cli import main
from jaxgames.search import tables as tb
from jaxgames.search.alphabeta import alphabeta_batch

GAME = jaxgames.make("chess")
PAD = 64  # probes go in batches of this many states: one compiled shape
SAMPLE = 60  # random positions per ending checked move by move


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tables")
    for name in ("KQK", "KRK"):
        assert tb.build(GAME, name, directory).built
    return directory


@pytest.fixture(scope="module")
def tables(folder):
    return tb.open_tables(GAME, folder, ["KQK", "KRK"])


def probe_fens(tables, fens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The table's (wdl, distance) of each FEN, in padded batches."""
    wdl, dist = [], []
    for start in range(0, len(fens), PAD):
        part = fens[start : start + PAD]
        part = part + [part[0]] * (PAD - len(part))
        states = jax.tree.map(lambda *x: np.stack(x), *[GAME.parse(f) for f in part])
        got = tb.probe(GAME, states, tables)
        wdl.append(got.wdl[: len(fens) - start])
        dist.append(got.distance[: len(fens) - start])
    return np.concatenate(wdl).astype(int), np.concatenate(dist).astype(int)


def children(tables, board: chess.Board) -> list[tuple[chess.Move, int, int]]:
    """Each legal move and the result after it for the side then to move, by python-chess's
    game ends, else by the table."""
    moves, fens, out = list(board.legal_moves), [], {}
    for i, move in enumerate(moves):
        board.push(move)
        if board.is_checkmate():
            out[i] = (-1, 0)
        elif board.is_stalemate() or board.is_insufficient_material():
            out[i] = (0, -1)
        else:
            fens.append((i, board.fen()))
        board.pop()
    if fens:
        wdl, dist = probe_fens(tables, [f for _, f in fens])
        for (i, _), w, d in zip(fens, wdl, dist, strict=True):
            out[i] = (int(w), int(d))
    return [(moves[i], *out[i]) for i in range(len(moves))]


def claims_hold(tables, fen: str, wdl: int, dist: int) -> bool:
    board = chess.Board(fen)
    kids = children(tables, board)
    assert all(w != tb.NOT_FOUND for _, w, _ in kids), fen
    if wdl == 1:  # a move to a loss in dist - 1, none to a quicker loss
        return dist % 2 == 1 and min(d for _, w, d in kids if w == -1) == dist - 1
    if wdl == -1:
        if dist == 0:
            return board.is_checkmate()
        return all(w == 1 and d <= dist - 1 for _, w, d in kids) and any(
            d == dist - 1 for _, _, d in kids
        )
    no_loss = all(w != -1 for _, w, _ in kids)
    return no_loss and (
        any(w == 0 for _, w, _ in kids) or board.is_stalemate() or board.is_insufficient_material()
    )


def sample(name: str, count: int, seed: int = 0) -> list[str]:
    space = GAME.table_space(name)
    rng = np.random.default_rng(seed)
    index = rng.choice(space.size, 4 * count, replace=False)
    legal = index[space.expand(index).valid][:count]
    return [space.describe(int(i)) for i in legal]


def test_build_is_atomic_and_a_second_build_is_instant(folder):
    files = sorted(p.name for p in (folder / "chess").iterdir())
    assert files == ["KQK.npz", "KRK.npz"]  # no temporary left behind
    report = tb.build(GAME, "KRK", folder)
    assert not report.built  # found with its metadata, not rebuilt
    assert report.meta["game"] == "chess" and report.meta["table"] == "KRK"
    assert report.meta["index_version"] == 1 and len(report.meta["checksum"]) == 64


def test_published_longest_mates(tables):
    # KQK: mate in 10 moves (19 plies with the winner to move); KRK: 16 moves (31 plies)
    assert tables.meta["KQK"]["longest_win"] == 19 and tables.meta["KQK"]["longest_loss"] == 20
    assert tables.meta["KRK"]["longest_win"] == 31 and tables.meta["KRK"]["longest_loss"] == 32


@pytest.mark.parametrize("name", ["KQK", "KRK"])
def test_claims_hold_move_by_move_in_python_chess(tables, name):
    fens = sample(name, SAMPLE, seed=len(name))
    # both colourings: the same positions with the colours swapped and the board mirrored
    fens += [chess.Board(f).mirror().fen() for f in fens[:20]]
    wdl, dist = probe_fens(tables, fens)
    assert np.all(wdl != tb.NOT_FOUND)
    assert {1, -1} <= set(wdl.tolist())
    bad = [f for f, w, d in zip(fens, wdl, dist, strict=True) if not claims_hold(tables, f, w, d)]
    assert bad == []


def test_mirrored_positions_have_the_same_value(tables):
    fens = sample("KRK", 40, seed=3)
    mirrored = [chess.Board(f).mirror().fen() for f in fens]
    a, b = probe_fens(tables, fens), probe_fens(tables, mirrored)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_following_the_table_mates_in_exactly_the_predicted_plies(tables):
    fen = "8/8/8/8/8/2k5/8/K6R w - - 0 1"  # a KRK win
    wdl, dist = (int(x[0]) for x in probe_fens(tables, [fen]))
    assert wdl == 1
    board = chess.Board(fen)
    for left in range(dist, 0, -1):
        kids = children(tables, board)
        if left % 2 == 1:  # the winner: the quickest mate
            move, _, d = min((k for k in kids if k[1] == -1), key=lambda k: k[2])
        else:  # the loser: the longest resistance
            move, _, d = max(kids, key=lambda k: k[2])
        assert d == left - 1
        board.push(move)
    assert board.is_checkmate() and len(board.move_stack) == dist


def test_bad_names_are_refused_in_one_line():
    for name, words in (("KXK", "not a material"), ("KK", "insufficient"), ("KRKQ", "kept as")):
        with pytest.raises(jaxgames.GameError, match=words):
            GAME.table_space(name)


def test_cli_build_and_probe(folder, capsys):
    assert main(["tables", "build", "chess", "KRK", "--dir", str(folder), "-q"]) == 0
    assert "present" in capsys.readouterr().out
    fen = "8/8/8/8/8/2k5/8/K6R w - - 0 1"
    assert main(["tables", "probe", "chess", fen, "--dir", str(folder)]) == 0
    out = capsys.readouterr().out
    wdl, dist = (int(x[0]) for x in probe_fens(tb.open_tables(GAME, folder), [fen]))
    assert out.startswith(f"win, mate in {dist} plies ({(dist + 1) // 2} moves); best move ")
    assert (
        main(["tables", "probe", "chess", "8/8/8/8/8/2k5/8/KQ5R w - - 0 1", "--dir", str(folder)])
        == 2
    )
    assert "no loaded chess table holds" in capsys.readouterr().err
    assert main(["tables", "probe", "chess", "8/8/8/8 w - -", "--dir", str(folder)]) == 2
    assert "FEN" in capsys.readouterr().err
    assert main(["tables", "build", "chess", "KZK", "--dir", str(folder)]) == 2
    assert "not a material" in capsys.readouterr().err
    assert main(["tables", "probe", "chess", fen, "--dir", str(folder / "none")]) == 2
    assert "no chess tables" in capsys.readouterr().err


def test_alphabeta_takes_table_positions_as_exact_leaves(folder):
    fens = sample("KRK", 32, seed=5) + sample("KQK", 32, seed=6)
    fens = [f for f in fens if not chess.Board(f).is_game_over(claim_draw=False)]
    fens = (fens * 2)[:PAD]
    game = jaxgames.make("chess", tables=str(folder))
    wdl, dist = probe_fens(game.tables, fens)
    states = jax.tree.map(lambda *x: np.stack(x), *[game.parse(f) for f in fens])
    result = alphabeta_batch(game, states, 1)
    mover = np.asarray(states.turn, int)
    value = result.value[np.arange(len(fens)), mover]
    # every child is a table position (or a mate, stalemate or bare kings): the value is
    # the root's result, its distance counted from the children (n - 1 plies)
    step = np.float32(tb.MATE_STEP)
    want = np.where(wdl == 0, 0.0, wdl * (np.float32(1.0) - step * (dist - 1))).astype(np.float32)
    assert np.array_equal(value, want)
    assert result.stats["exact_hits"] > 0
    # the best move keeps the result at the table's distance: a quickest win, a longest defence
    best = result.best_action
    for i in range(8):
        board = chess.Board(fens[i])
        uci = GAME.action_to_string(states_row(states, i), int(best[i]))
        kid = next(k for k in children(game.tables, board) if k[0].uci() == uci)
        assert kid[1] == -wdl[i] and (wdl[i] == 0 or kid[2] == dist[i] - 1)


def states_row(states, i):
    return jax.tree.map(lambda x: x[i], states)


def test_games_with_other_tables_are_other_games(folder):
    # compiled searches are cached by the game: other tables must make another game
    one = tb.with_tables(GAME, folder, ["KRK"])
    assert one != tb.with_tables(GAME, folder, ["KQK", "KRK"])
    assert one == tb.with_tables(GAME, folder, ["KRK"]) and one != GAME
