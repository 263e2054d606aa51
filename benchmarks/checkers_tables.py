"""The checkers endgame database (every material of 2 to 4 pieces) by retrograde analysis:
counts, win/draw/loss, build time and size per number of pieces, longest wins per material,
a sample verified by full alpha-beta search and move by move, and probing inside alpha-beta.

    python benchmarks/checkers_tables.py                  # build all 41 tables, verify 200
    python benchmarks/checkers_tables.py --dir D --verify 200 --cap 11

A turn in the tables is a whole move (a multi-jump played to its end) and the 40-step draw
rule is ignored (see ``jaxgames/games/checkers/endgames.py``). Distances are in turns
(plies of whole moves), for the side to move; odd: won, even: lost.

1. Build: every table into a fresh temporary folder (unless ``--dir``), smallest first
   (``jaxgames.search.tables.build``, the path ``jaxgames tables build checkers all``
   takes), then the same build again, which must find every table present at once.
   Per number of pieces: numbers, legal positions, won/drawn/lost for the side to move,
   build time, bytes on disk; per material the longest win. The position counts are set
   against the published ones: J. Schaeffer et al., "Checkers Is Solved", Science 317
   (2007), Table 1, which counts boards (side to move not included, one-sided boards
   included): 2 pieces 6,972, 3 pieces 261,224, 4 pieces 7,092,774.
2. Verification of ``--verify`` random 4-piece positions, with the game's own rules (its
   ``step``, a multi-jump followed step by step), not the tables' move generator:
   move by move (a win in n has a move to a loss in n - 1 and none quicker; every move of a
   loss in n goes to a win in at most n - 1, one in exactly n - 1; a loss in 0 has no move;
   a draw has no move to a loss and one to a draw), and by full alpha-beta search without
   tables at every depth 0..``--cap`` steps: a win or loss in n turns is never proved below
   n steps and is proved by n + 2 steps (a 4-piece game has at most 3 jumps in all, so at
   most 2 extra steps), a draw is never proved won or lost.
3. Probing: ``--search`` random 4-piece positions searched by alpha-beta at ``--depth``
   with and without the tables: nodes, table hits, agreement with the table's value.

Writes ``results/checkers_tables_<backend>.json``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time
from math import comb
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxgames
from jaxgames.bench.helpers import command_line, machine_info, result_path, table, write_json
from jaxgames.games.checkers import endgames
from jaxgames.search import tables as tb
from jaxgames.search.alphabeta import alphabeta_batch

HERE = os.path.dirname(os.path.abspath(__file__))
GAME = jaxgames.make("checkers")
PAD = 256  # states per probe or search call: one compiled shape
PUBLISHED_BOARDS = {2: 6_972, 3: 261_224, 4: 7_092_774}  # Schaeffer et al. 2007, Table 1


def one_sided_boards(pieces: int) -> int:
    """Boards with ``pieces`` pieces all of one side (counted by the published table, not
    by ours: such a position is over)."""
    per_side = sum(comb(28, men) * comb(32 - men, pieces - men) for men in range(pieces + 1))
    return 2 * per_side


def stack(states: list[Any]) -> Any:
    return jax.tree.map(lambda *x: np.stack(x), *states)


def pad(states: list[Any]) -> Any:
    return stack(states + [states[0]] * (-len(states) % PAD))


def probe_states(tables: tb.TableSet, states: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    wdl, dist = [], []
    for start in range(0, len(states), PAD):
        part = states[start : start + PAD]
        got = tb.probe(GAME, pad(part), tables)
        wdl.append(got.wdl[: len(part)])
        dist.append(got.distance[: len(part)])
    return np.concatenate(wdl).astype(int), np.concatenate(dist).astype(int)


@functools.cache
def _step_all():
    def children(state):
        moves = GAME.legal_moves(state)  # [48]
        kids = jax.vmap(lambda a: GAME.step(state, jnp.maximum(a, 0)))(moves)
        return moves, kids

    return jax.jit(jax.vmap(children))


def take(states: Any, i: int) -> Any:
    return jax.tree.map(lambda x: x[i], states)


def turn_ends(states: list[Any]) -> list[list[Any]]:
    """For each state, the positions at the end of each of its whole moves, by the game's
    own ``step`` (a jump that leaves the same player to move is followed on)."""
    out: list[list[Any]] = [[] for _ in states]
    frontier = [(i, s) for i, s in enumerate(states)]
    while frontier:
        nxt = []
        for start in range(0, len(frontier), PAD):
            part = frontier[start : start + PAD]
            moves, kids = jax.device_get(_step_all()(pad([s for _, s in part])))
            for row, (owner, state) in enumerate(part):
                for k in np.flatnonzero(moves[row] >= 0):
                    kid = jax.tree.map(lambda x, r=row, c=k: x[r, c], kids)
                    if int(kid.player) == int(state.player) and int(kid.jumper) >= 0:
                        nxt.append((owner, kid))
                    else:
                        out[owner].append(kid)
        frontier = nxt
    return out


def claim_holds(wdl: int, dist: int, kids: list[tuple[int, int]]) -> bool:
    if any(w == tb.NOT_FOUND for w, _ in kids):
        return False
    if wdl == 1:
        losses = [d for w, d in kids if w == -1]
        return dist % 2 == 1 and bool(losses) and min(losses) == dist - 1
    if wdl == -1:
        if dist == 0:
            return not kids
        return all(w == 1 and d <= dist - 1 for w, d in kids) and any(
            d == dist - 1 for _, d in kids
        )
    return wdl == 0 and all(w != -1 for w, _ in kids) and any(w == 0 for w, _ in kids)


def sample_positions(count: int, seed: int, pieces: int = 4) -> list[str]:
    """``count`` random legal positions, uniform over the numbers of all tables of
    ``pieces`` pieces (a hole is drawn again)."""
    names = [endgames.material_name(m) for m in endgames.MATERIALS if sum(m) == pieces]
    sizes = np.asarray([GAME.table_space(n).size for n in names], np.int64)
    rng = np.random.default_rng(seed)
    out: list[str] = []
    while len(out) < count:
        which = rng.choice(len(names), p=sizes / sizes.sum())
        space = GAME.table_space(names[which])
        index = int(rng.integers(space.size))
        if space.expand(np.asarray([index])).valid[0]:
            out.append(space.describe(index))
    return out


def verify(tables: tb.TableSet, count: int, cap: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    fens = sample_positions(count, seed)
    states = [GAME.parse(f) for f in fens]
    wdl, dist = probe_states(tables, states)
    # move by move, by the game's own steps
    ends = turn_ends(states)
    flat = [k for row in ends for k in row]
    kid_wdl, kid_dist = probe_states(tables, flat) if flat else (np.zeros(0), np.zeros(0))
    # a move that takes the last piece ends the game: in no table, lost at once for the
    # side then to move (the rules say so: its utility)
    for k, kid in enumerate(flat):
        if kid_wdl[k] == tb.NOT_FOUND and bool(GAME.terminal(kid)):
            lost = float(GAME.utility(kid)[int(kid.player)]) < 0
            kid_wdl[k], kid_dist[k] = (-1, 0) if lost else (kid_wdl[k], kid_dist[k])
    held, at = [], 0
    for w, d, row in zip(wdl, dist, ends, strict=True):
        kids = list(zip(kid_wdl[at : at + len(row)], kid_dist[at : at + len(row)], strict=True))
        at += len(row)
        held.append(claim_holds(int(w), int(d), [(int(a), int(b)) for a, b in kids]))
    moves_s = time.perf_counter() - started
    # full search without tables at every depth up to the cap
    mover = np.asarray([int(s.player) for s in states])
    batch = pad(states)
    proved = np.full(len(states), -1)  # the first depth whose search proves a win or loss
    wrong_sign = np.zeros(len(states), bool)
    nodes = 0
    for depth in range(cap + 1):
        result = alphabeta_batch(GAME, batch, depth)
        value = np.asarray(result.value)[np.arange(len(states)), mover]
        nodes += int(result.stats["nodes"])
        decided = np.abs(value) == 1.0
        wrong_sign |= decided & (np.sign(value) != wdl)
        proved = np.where((proved < 0) & decided, depth, proved)
    decisive = wdl != 0
    needed = np.where(decisive, dist, 10**6)
    early = (proved >= 0) & (proved < needed)  # proved in fewer steps than turns: wrong
    late = decisive & (dist + 2 <= cap) & ((proved < 0) | (proved > dist + 2))
    draws_proved = (wdl == 0) & (proved >= 0)
    search_ok = ~(early | late | draws_proved | wrong_sign)
    in_reach = decisive & (dist + 2 <= cap)
    failed = [f for f, a, b in zip(fens, held, search_ok, strict=True) if not (a and b)]
    return {
        "positions": len(fens),
        "won": int((wdl == 1).sum()),
        "drawn": int((wdl == 0).sum()),
        "lost": int((wdl == -1).sum()),
        "move_by_move_held": int(sum(held)),
        "search_cap_steps": cap,
        "search_consistent": int(search_ok.sum()),
        "search_proved_exactly_in_reach": int((in_reach & search_ok & (proved >= 0)).sum()),
        "in_reach": int(in_reach.sum()),
        "extra_steps_to_prove": {
            str(k): int(((proved - dist)[in_reach & (proved >= 0)] == k).sum()) for k in range(3)
        },
        "search_nodes": nodes,
        "failed": len(failed),
        "failed_examples": failed[:5],
        "move_by_move_s": round(moves_s, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def probing(folder: str, count: int, depth: int, seed: int) -> dict[str, Any]:
    """Alpha-beta of random 4-piece positions with and without the tables."""
    fens = [f for f in sample_positions(2 * count, seed + 1)]
    states = [GAME.parse(f) for f in fens]
    live = [s for s in states if not bool(GAME.terminal(s))][:count]
    tabled = jaxgames.make("checkers", tables=folder)
    wdl, _ = probe_states(tabled.tables, live)
    mover = np.asarray([int(s.player) for s in live])
    batch = pad(live)
    out: dict[str, Any] = {"positions": len(live), "depth": depth}
    for label, game in (("without", GAME), ("with", tabled)):
        started = time.perf_counter()
        result = alphabeta_batch(game, batch, depth)
        value = np.asarray(result.value)[np.arange(len(live)), mover]
        out[label] = {
            "nodes": int(result.stats["nodes"]),
            "exact_hits": int(result.stats.get("exact_hits", 0)),
            # a table position won in d plies is worth 1 - d * MATE_STEP: compare signs
            "agree_with_table": int(
                (np.where(np.abs(value) < 0.5, 0, np.sign(value)) == wdl).sum()
            ),
            "seconds": round(time.perf_counter() - started, 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="tables folder (default: a fresh temporary)")
    parser.add_argument("--verify", type=int, default=200, help="4-piece positions verified")
    parser.add_argument("--cap", type=int, default=11, help="deepest verification search")
    parser.add_argument("--search", type=int, default=200, help="positions searched (probing)")
    parser.add_argument("--depth", type=int, default=2, help="probing search depth")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--note", default="", help="a line for the JSON (e.g. machine load)")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)
    folder = args.dir or tempfile.mkdtemp(prefix="jaxgames-checkers-tables-")

    result: dict[str, Any] = {
        "benchmark": "checkers_tables",
        "command": command_line("checkers_tables.py", argv),
        "machine": machine_info(),
        "note": args.note,
        "distance": "whole moves (turns) to the end for the side to move (odd: won, even: "
        "lost); a multi-jump is one turn; the 40-step draw rule ignored",
    }
    materials = []
    started = time.perf_counter()
    for name in GAME.table_names:
        report = tb.build(GAME, name, folder, log=None)
        meta = report.meta
        material = endgames.parse_name(name)
        materials.append(
            {
                "material": meta["table"],
                "pieces": sum(material),
                "numbers": meta["size"],
                "positions": meta["size"] - meta["broken"],
                "won": meta["wins"],
                "drawn": meta["draws"],
                "lost": meta["losses"],
                "longest_win": meta["longest_win"],
                "longest_loss": meta["longest_loss"],
                "build_s": meta["build_s"],
                "successors_s": meta["successors_s"],
                "sweeps": meta["sweeps"],
                "file_bytes": os.path.getsize(report.path),
            }
        )
        print(f"{meta['table']}: {materials[-1]}", flush=True)
    result["build_all_s"] = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    again = [tb.build(GAME, name, folder).built for name in GAME.table_names]
    result["second_build_s"] = round(time.perf_counter() - started, 2)
    result["second_build_rebuilt"] = int(sum(again))
    result["materials"] = materials

    by_pieces = []
    for pieces in (2, 3, 4):
        rows = [m for m in materials if m["pieces"] == pieces]
        row = {"pieces": pieces, "materials": len(rows)}
        for key in ("numbers", "positions", "won", "drawn", "lost", "file_bytes"):
            row[key] = sum(m[key] for m in rows)
        row["build_s"] = round(sum(m["build_s"] for m in rows), 1)
        row["longest_win"] = max(m["longest_win"] for m in rows)
        row["longest_win_material"] = max(rows, key=lambda m: m["longest_win"])["material"]
        boards = row["positions"] // 2 + one_sided_boards(pieces)
        row["boards_with_one_sided"] = boards
        row["published_boards"] = PUBLISHED_BOARDS[pieces]
        row["agrees_with_published"] = boards == PUBLISHED_BOARDS[pieces]
        by_pieces.append(row)
    result["by_pieces"] = by_pieces
    table(
        ["pieces", "tables", "positions", "won", "drawn", "lost", "build s", "bytes",
         "longest win", "boards", "published"],
        [[r["pieces"], r["materials"], r["positions"], r["won"], r["drawn"], r["lost"],
          r["build_s"], r["file_bytes"], f"{r['longest_win']} {r['longest_win_material']}",
          r["boards_with_one_sided"], r["published_boards"]] for r in by_pieces],
    )  # fmt: skip
    print(f"second build of all tables: {result['second_build_s']} s", flush=True)

    tables = tb.open_tables(GAME, folder)
    if args.verify:
        result["verification"] = verify(tables, args.verify, args.cap, args.seed)
        print(f"verification {result['verification']}", flush=True)
    if args.search:
        result["probing"] = probing(folder, args.search, args.depth, args.seed)
        print(f"probing {result['probing']}", flush=True)
    out = write_json(result, result_path(args.out, HERE, "checkers_tables"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
