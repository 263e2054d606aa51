"""Chess endgame tables by retrograde analysis: build time, size, W/D/L, longest mates against
the published ones, python-chess verification, and probing inside alpha-beta.

    python benchmarks/tables.py                           # KQK KRK KBBK KBNK KPK KQKR
    python benchmarks/tables.py --endings KQK KRK --verify 200

For each ending (built fresh into a temporary folder unless ``--dir``): the build time
(its dependencies are built first and timed on their own rows), numbers and legal positions,
the file's size on disk, won/drawn/lost counts for the side to move, and the longest win in
plies and moves (moves = (plies + 1) / 2: the winner moves first and makes the last move)
beside the published longest mate. Then, with python-chess (which nobody here wrote) as the
oracle, ``--verify`` random legal positions per ending: every claim holds move by move (a
win in n has a move to a loss in n - 1 and none to a quicker loss; every move of a loss in n
reaches a win in at most n - 1 and one in exactly n - 1; a loss in 0 is python-chess's
checkmate; a draw has no move to a loss and a move to a draw, or is stalemate or
insufficient material); and ``--playouts`` won positions (the longest among them) played
out with both sides following the table: checkmate must come after exactly the predicted
plies. Last, ``--search`` random positions of some endings searched by alpha-beta at
``--depth`` with and without the tables: nodes, table hits, and how many values equal the
table's exact one (the result less ``MATE_STEP`` per ply to mate, counted from the
children) and have its sign.

Published longest mates (moves, the winner to move): KQK 10, KRK 16, KPK 28 (Peter
Karrer's maximum-DTM statistics, as quoted on the Kirill Kryukov endgame discussion board,
"Longest Mate in kqk"), KBBK 19 (Wikipedia, "Checkmate", the two-bishops section: "a
maximum of 19 moves"), KBNK 33 (OEIS A225556, a(8) = 33, Kotesovec), KQKR 35 (the Mace chess
engine blog, "Chess endgame table base KQKR", 2010).

Writes ``results/tables_<backend>.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

import jax
import numpy as np

import jaxgames
from jaxgames.bench.helpers import command_line, machine_info, result_path, table, write_json
from jaxgames.bench.peers import python_chess
from jaxgames.search import tables as tb
from jaxgames.search.alphabeta import alphabeta_batch

HERE = os.path.dirname(os.path.abspath(__file__))
ENDINGS = ["KQK", "KRK", "KBBK", "KBNK", "KPK", "KQKR"]
PUBLISHED_MOVES = {"KQK": 10, "KRK": 16, "KBBK": 19, "KBNK": 33, "KPK": 28, "KQKR": 35}
PAD = 256  # probes in batches of this many states: one compiled shape
GAME = jaxgames.make("chess")
chess = python_chess()  # not benchmarks/chess.py, which shares its name


class Oracle:
    """Table values of FENs, and python-chess's view of their moves."""

    def __init__(self, tables: tb.TableSet) -> None:
        self.tables = tables

    def probe(self, fens: list[str]) -> tuple[np.ndarray, np.ndarray]:
        wdl, dist = [], []
        for start in range(0, len(fens), PAD):
            part = fens[start : start + PAD]
            part = part + [part[0]] * (PAD - len(part))
            states = jax.tree.map(lambda *x: np.stack(x), *[GAME.parse(f) for f in part])
            got = tb.probe(GAME, states, self.tables)
            wdl.append(got.wdl[: len(fens) - start])
            dist.append(got.distance[: len(fens) - start])
        return np.concatenate(wdl).astype(int), np.concatenate(dist).astype(int)

    def children(self, boards: list[chess.Board]) -> list[list[tuple[chess.Move, int, int]]]:
        """For each board, each legal move and the result after it for the side then to move
        (python-chess's game ends first, else the table)."""
        out: list[list[Any]] = []
        pending: list[tuple[int, int, str]] = []
        for b, board in enumerate(boards):
            row = []
            for move in board.legal_moves:
                board.push(move)
                if board.is_checkmate():
                    row.append([move, -1, 0])
                elif board.is_stalemate() or board.is_insufficient_material():
                    row.append([move, 0, -1])
                else:
                    row.append([move, None, None])
                    pending.append((b, len(row) - 1, board.fen()))
                board.pop()
            out.append(row)
        if pending:
            wdl, dist = self.probe([f for _, _, f in pending])
            for (b, i, _), w, d in zip(pending, wdl, dist, strict=True):
                out[b][i][1:] = [int(w), int(d)]
        return [[tuple(k) for k in row] for row in out]


def claim_holds(board: chess.Board, wdl: int, dist: int, kids: list) -> bool:
    if any(w == tb.NOT_FOUND for _, w, _ in kids):
        return False
    if wdl == 1:
        losses = [d for _, w, d in kids if w == -1]
        return dist % 2 == 1 and bool(losses) and min(losses) == dist - 1
    if wdl == -1:
        if dist == 0:
            return board.is_checkmate()
        return all(w == 1 and d <= dist - 1 for _, w, d in kids) and any(
            d == dist - 1 for _, _, d in kids
        )
    if wdl == 0:
        no_loss = all(w != -1 for _, w, _ in kids)
        escape = any(w == 0 for _, w, _ in kids)
        return no_loss and (escape or board.is_stalemate() or board.is_insufficient_material())
    return False


def sample(name: str, count: int, seed: int) -> list[str]:
    space = GAME.table_space(name)
    rng = np.random.default_rng(seed)
    index = rng.choice(space.size, min(space.size, 3 * count), replace=False)
    legal = index[space.expand(index).valid][:count]
    return [space.describe(int(i)) for i in legal]


def verify(oracle: Oracle, name: str, count: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    fens = sample(name, count, seed)
    # half of them colour-flipped: the table answers both colourings
    fens = [chess.Board(f).mirror().fen() if i % 2 else f for i, f in enumerate(fens)]
    wdl, dist = oracle.probe(fens)
    boards = [chess.Board(f) for f in fens]
    kids = oracle.children(boards)
    held = [
        claim_holds(b, int(w), int(d), k)
        for b, w, d, k in zip(boards, wdl, dist, kids, strict=True)
    ]
    failed = [f for f, ok in zip(fens, held, strict=True) if not ok]
    return {
        "positions": len(fens),
        "held": int(sum(held)),
        "failed": len(failed),
        "failed_examples": failed[:5],
        "won": int((wdl == 1).sum()),
        "drawn": int((wdl == 0).sum()),
        "lost": int((wdl == -1).sum()),
        "mates_at_0": int(((wdl == -1) & (dist == 0)).sum()),
        "seconds": round(time.perf_counter() - started, 2),
    }


def longest_win(name: str, folder: str) -> str:
    table_ = tb.load(GAME, name, folder)
    index = int(np.argmax(np.where(table_.distance % 2 == 1, table_.distance, -1)))
    return GAME.table_space(name).describe(index)


def play_out(oracle: Oracle, name: str, count: int, seed: int, folder: str) -> dict[str, Any]:
    """Won positions played to the end with both sides following the table."""
    fens = sample(name, 4 * count, seed + 1)
    wdl, dist = oracle.probe(fens)
    won = [f for f, w in zip(fens, wdl, strict=True) if w == 1][: count - 1]
    won.append(longest_win(name, folder))
    boards = [chess.Board(f) for f in won]
    _, predicted = oracle.probe(won)
    left = predicted.copy()
    exact = np.ones(len(won), bool)
    while (left > 0).any():
        live = [i for i in range(len(won)) if left[i] > 0]
        kids = oracle.children([boards[i] for i in live])
        for i, row in zip(live, kids, strict=True):
            if left[i] % 2 == 1:  # the winner: the quickest mate
                options = [k for k in row if k[1] == -1]
                move, _, d = min(options, key=lambda k: k[2]) if options else (None, 0, -9)
            else:  # the loser: the longest resistance
                move, _, d = max(row, key=lambda k: k[2])
            if move is None or d != left[i] - 1:
                exact[i], left[i] = False, 0
                continue
            boards[i].push(move)
            left[i] -= 1
    pairs = zip(boards, predicted, strict=True)
    mated = [b.is_checkmate() and len(b.move_stack) == p for b, p in pairs]
    return {
        "games": len(won),
        "mated_in_predicted_plies": int(sum(m and e for m, e in zip(mated, exact, strict=True))),
        "longest_start": won[-1],
        "longest_plies": int(predicted[-1]),
    }


def search_rows(name: str, folder: str, count: int, depth: int, seed: int) -> dict[str, Any]:
    """Alpha-beta of random positions of one ending, with and without probing."""
    fens = [f for f in sample(name, 2 * count, seed + 2) if not chess.Board(f).is_game_over()]
    fens = (fens * 2)[:count]
    names = (name, *GAME.table_space(name).dependencies)
    tabled = tb.with_tables(GAME, folder, names)
    wdl, dist = Oracle(tabled.tables).probe(fens)
    # the exact value at a root all of whose children a table holds: its result, less
    # MATE_STEP per ply from its children (n - 1)
    exact = np.where(wdl == 0, 0.0, wdl * (1.0 - np.float32(tb.MATE_STEP) * (dist - 1)))
    exact = exact.astype(np.float32)
    states = jax.tree.map(lambda *x: np.stack(x), *[GAME.parse(f) for f in fens])
    mover = np.asarray(states.turn, int)
    out: dict[str, Any] = {"ending": name, "positions": len(fens), "depth": depth}
    for label, game in (("without", GAME), ("with", tabled)):
        started = time.perf_counter()
        result = alphabeta_batch(game, states, depth)
        value = result.value[np.arange(len(fens)), mover]
        out[label] = {
            "nodes": int(result.stats["nodes"]),
            "exact_hits": int(result.stats["exact_hits"]),
            "agree_with_table": int((value == exact).sum()),
            "same_sign_as_table": int((np.sign(np.round(value, 6)) == wdl).sum()),
            "seconds": round(time.perf_counter() - started, 2),
            "compile_s": round(float(result.stats["compile_s"]), 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endings", nargs="+", default=ENDINGS)
    parser.add_argument("--dir", default=None, help="tables folder (default: a fresh temporary)")
    parser.add_argument("--verify", type=int, default=1000, help="positions checked per ending")
    parser.add_argument("--playouts", type=int, default=20, help="won positions played out")
    parser.add_argument("--search", nargs="*", default=["KRK", "KQKR"], help="endings searched")
    parser.add_argument("--search-positions", type=int, default=64)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--note", default="", help="a line for the JSON (e.g. machine load)")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)
    folder = args.dir or tempfile.mkdtemp(prefix="jaxgames-tables-")

    result: dict[str, Any] = {
        "benchmark": "tables",
        "command": command_line("tables.py", argv),
        "machine": machine_info(),
        "note": args.note,
        "distance": "plies to mate for the side to move (odd: won, even: lost); moves = "
        "(plies + 1) // 2; 50-move rule and repetitions ignored",
    }
    rows = []
    for name in args.endings:
        report = tb.build(GAME, name, folder, log=lambda line: print(line, flush=True))
        meta = report.meta
        moves = (meta["longest_win"] + 1) // 2
        rows.append(
            {
                "ending": meta["table"],
                "build_s": meta["build_s"],
                "successors_s": meta["successors_s"],
                "sweeps": meta["sweeps"],
                "numbers": meta["size"],
                "positions": meta["size"] - meta["broken"],
                "file_bytes": os.path.getsize(report.path),
                "won": meta["wins"],
                "drawn": meta["draws"],
                "lost": meta["losses"],
                "longest_win_plies": meta["longest_win"],
                "longest_loss_plies": meta["longest_loss"],
                "longest_mate_moves": moves,
                "published_moves": PUBLISHED_MOVES.get(name),
                "agrees_with_published": PUBLISHED_MOVES.get(name) == moves,
            }
        )
    tables = tb.open_tables(GAME, folder)
    oracle = Oracle(tables)
    for row in rows:
        name = row["ending"]
        if args.verify:
            row["verification"] = verify(oracle, name, args.verify, args.seed)
            print(f"{name}: verification {row['verification']}", flush=True)
        if args.playouts:
            row["playouts"] = play_out(oracle, name, args.playouts, args.seed, folder)
            print(f"{name}: playouts {row['playouts']}", flush=True)
    table(
        ["ending", "build s", "positions", "bytes", "won", "drawn", "lost", "mate", "published",
         "verified", "played"],
        [
            [r["ending"], r["build_s"], r["positions"], r["file_bytes"], r["won"], r["drawn"],
             r["lost"], r["longest_mate_moves"], r["published_moves"],
             f"{r.get('verification', {}).get('held', 0)}/"
             f"{r.get('verification', {}).get('positions', 0)}",
             f"{r.get('playouts', {}).get('mated_in_predicted_plies', 0)}/"
             f"{r.get('playouts', {}).get('games', 0)}"]
            for r in rows
        ],
    )  # fmt: skip
    result["rows"] = rows
    searches = []
    for name in args.search:
        searches.append(search_rows(name, folder, args.search_positions, args.depth, args.seed))
        print(f"search {searches[-1]}", flush=True)
    result["search"] = searches
    out = write_json(result, result_path(args.out, HERE, "tables"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
