"""Multi-player search: Korf's shallow-pruning result, paranoid beside it, Chinese checkers.

    python benchmarks/multiplayer.py                # every section
    python benchmarks/multiplayer.py --quick        # smoke run (multiplayer_<backend>_quick.json)
    python benchmarks/multiplayer.py --sections korf --players 3 4

Sections (``--sections``; all by default):

* ``korf``: Korf (1991) on synthetic uniform trees of branching ``b`` with ``n`` players
  (``--players``, movers in turn, every leaf ``n`` integers >= 0 summing to ``S = 1000``,
  the game's static ``utility_sum_max``). Two orderings:

  - ``best``: Korf's best case, built top down (:class:`KorfTree`): a node's first child
    carries the node's own maxⁿ vector ``m``; every later child ``x`` (mover ``i``, under a
    parent of mover ``j``) gets ``w_i`` drawn from ``[S - m_j, S]`` and ``w_j = S - w_i``, so
    ``x``'s first child proves ``w_i >= S - beta_j`` and ``x`` is cut right after it. Shallow
    pruning then reads ``F(d) = F(d - 1) + (b - 1) F(d - 2)`` leaves, whose growth rate is
    ``(1 + sqrt(4b - 3)) / 2``.
  - ``random``: every leaf a random split of ``S`` into ``n`` parts (sorted hashed cut points).

  For each depth ``d`` the mean leaves per tree of maxⁿ with shallow pruning alone (Korf's
  analysis has no immediate pruning; ``immediate=False``) and of paranoid search (alpha-beta
  for the root player against the coalition, no move ordering) are measured; plain maxⁿ reads
  ``b^d``. The asymptotic branching factor is fitted as the slope of ``ln(leaves)`` against
  ``d`` over the deepest ``--fit`` depths (``exp`` of it), and printed next to
  ``(1 + sqrt(4b - 3)) / 2`` (best) and ``b`` (random); paranoid's best case for reference is
  ``b^((n - 1) / n)`` (Sturtevant and Korf 2000), reached only under ITS best ordering, which
  these trees do not have.
* ``playouts``: random playouts of Chinese checkers (standard 121-hole board, ``--cc-players``
  players, ``--move-limit`` plies) through ``jaxgames.kernels.playouts`` across batch sizes:
  playouts/s and moves/s, compile time apart (first call), median of ``--repeats`` runs.
* ``maxn``: maxⁿ of positions from seeded random Chinese-checkers play (standard board,
  6-30 random plies) at depth ``--cc-depth`` across batch sizes (one lane per root, up to 256
  lanes): nodes/s and positions/s, for plain maxⁿ, shallow pruning and paranoid; the values
  of shallow and plain are compared (they must be equal). One timed call after the first.
* ``single``: one root at a time, ``maxn(mode="device")`` (one lane) against
  ``maxn(mode="host")`` (the top ``min(2, depth - 1)`` plies on the host, the frontier as one
  batch of lanes).

Timing: each jitted search compiles once per (game, depth, batch size, options); a first call
on the same inputs is made and reported as ``first_call_s`` (compilation included), then the
call is repeated and timed. The machine is recorded in the JSON; absolute rates only mean
something on the machine they were taken on (and a shared machine makes them noisy).

The figures of the latest run and what they show: ``benchmarks/README.md`` ("Multi-player")
and ``benchmarks/results/multiplayer_cpu.json``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxgames.kernels import playouts, stack, take

import jaxgames
from jaxgames.bench.helpers import (
    load_average,
    machine_info,
    result_path,
    sample,
    table_of,
    write_json,
)
from jaxgames.bench.searches import one_at_a_time, single_row, single_table
from jaxgames.game import Game
from jaxgames.games.uniform_tree import node_hash
from jaxgames.search import maxn, maxn_batch, paranoid_batch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTIONS = ("korf", "playouts", "maxn", "single")
S = 1000  # every leaf of the synthetic trees sums to S


# ---------------------------------------------------------------- synthetic n-player trees
class KorfState(NamedTuple):
    level: jax.Array  # int32[]: depth of the node in the full tree (0 at the top)
    index: jax.Array  # int32[]: index of the node in its level
    seed: jax.Array  # uint32[]: which tree of the family
    value: jax.Array  # int32[n]: "best": the node's maxⁿ vector (built top down)


class KorfTree(Game):
    """Uniform trees of branching ``b`` and height ``height``, ``n`` players moving in turn
    (mover = level % n), for node counts; see the module docstring for the two orderings.

    A root at level ``height - d`` is the root of a tree of depth ``d``, so one compiled
    search (depth ``height``) serves every depth; roots of different seeds batch together.
    """

    name = "korf_tree"
    num_chance_outcomes = 0
    zero_sum = False
    utility_min = 0.0

    def __init__(self, branching: int, players: int, height: int, ordering: str) -> None:
        if branching**height >= 2**31:
            raise ValueError("branching**height must stay below 2**31")
        self.branching, self.num_players, self.height = branching, players, height
        self.ordering = ordering
        self.num_actions = branching
        self.max_game_length = height
        self.utility_max = float(S)
        self.utility_sum_max = float(S)
        self.params = {"b": branching, "n": players, "height": height, "ordering": ordering}

    def root(self, seed: int, depth: int) -> KorfState:
        """The root of tree ``seed`` of depth ``depth``; its maxⁿ vector (best ordering) is
        a split of S between the root's mover and the player before it."""
        level = self.height - depth
        n = self.num_players
        value = np.zeros((n,), np.int32)
        mover = level % n
        share = int(node_hash(seed, level, 0, np) % np.uint32(S + 1))
        value[mover], value[(mover - 1) % n] = share, S - share
        return KorfState(
            level=np.int32(level), index=np.int32(0), seed=np.uint32(seed % 2**32), value=value
        )

    def init(self) -> KorfState:
        return jax.tree.map(jnp.asarray, self.root(0, self.height))

    def player(self, s: KorfState) -> jax.Array:
        return (s.level % self.num_players).astype(jnp.int32)

    def legal_mask(self, s: KorfState) -> jax.Array:
        return jnp.broadcast_to(s.level < self.height, (self.branching,))

    def step(self, s: KorfState, action: jax.Array) -> KorfState:
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, self.branching - 1)
        index = s.index * self.branching + a
        level = s.level + 1
        n = self.num_players
        j = s.level % n  # the parent's mover
        i = level % n  # the child's mover
        m_j = s.value[j]
        draw = node_hash(s.seed, level, index) % (m_j.astype(jnp.uint32) + jnp.uint32(1))
        w_i = S - m_j + draw.astype(jnp.int32)
        players = jnp.arange(n)
        later = jnp.where(players == i, w_i, jnp.where(players == j, S - w_i, 0))
        value = jnp.where(a == 0, s.value, later).astype(jnp.int32)
        return KorfState(level.astype(jnp.int32), index.astype(jnp.int32), s.seed, value)

    def terminal(self, s: KorfState) -> jax.Array:
        return s.level >= self.height

    def utility(self, s: KorfState) -> jax.Array:
        if self.ordering == "best":
            return s.value.astype(jnp.float32)
        # random: sorted hashed cut points split S into n parts
        k = jnp.arange(self.num_players - 1, dtype=jnp.uint32)
        cuts = node_hash(s.seed ^ (k * jnp.uint32(0x9E3779B9)), s.level, s.index) % jnp.uint32(
            S + 1
        )
        edges = jnp.concatenate(
            [jnp.zeros((1,)), jnp.sort(cuts).astype(jnp.float32), jnp.full((1,), float(S))]
        )
        return jnp.diff(edges).astype(jnp.float32)


def korf_factor(b: int) -> float:
    """Korf's best-case asymptotic branching factor of shallow pruning."""
    return (1 + math.sqrt(4 * b - 3)) / 2


def recurrence(b: int, d: int) -> int:
    f = [1, b]
    while len(f) <= d:
        f.append(f[-1] + (b - 1) * f[-2])
    return f[d]


def fit_factor(depths: list[int], leaves: list[float], last: int) -> float:
    """exp of the least-squares slope of ln(leaves) against depth over the last depths."""
    d = np.asarray(depths[-last:], float)
    y = np.log(np.asarray(leaves[-last:], float))
    return float(math.exp(np.polyfit(d, y, 1)[0]))


def bench_korf(players: list[int], plan: dict, trees: int, fit: int) -> dict[str, Any]:
    print("\n== Korf: leaves per tree on synthetic n-player trees (S = 1000, L = 0)")
    rows, fits = [], []
    for n in players:
        for b, top in plan.items():
            for ordering in ("best", "random"):
                game = KorfTree(b, n, top, ordering)
                count = trees if ordering == "random" else 2  # the best case is deterministic
                depths = list(range(1, top + 1))
                roots = stack([game.root(seed, d) for d in depths for seed in range(count)])
                t0 = time.perf_counter()
                shallow = maxn_batch(game, roots, top, pruning="shallow", immediate=False)
                para = paranoid_batch(game, roots, top)
                seconds = time.perf_counter() - t0
                sl = shallow.stats["leaves_per_root"].reshape(len(depths), count).mean(axis=1)
                pl = para.stats["leaves_per_root"].reshape(len(depths), count).mean(axis=1)
                for d, s_leaves, p_leaves in zip(depths, sl, pl, strict=True):
                    row = {
                        "players": n,
                        "b": b,
                        "ordering": ordering,
                        "depth": d,
                        "trees": count,
                        "plain_leaves": b**d,
                        "shallow_leaves": float(s_leaves),
                        "paranoid_leaves": float(p_leaves),
                    }
                    if ordering == "best":
                        row["korf_recurrence"] = recurrence(b, d)
                    rows.append(row)
                theory = korf_factor(b) if ordering == "best" else float(b)
                entry = {
                    "players": n,
                    "b": b,
                    "ordering": ordering,
                    "max_depth": top,
                    "fit_depths": depths[-fit:],
                    "shallow_abf": fit_factor(depths, list(sl), fit),
                    "paranoid_abf": fit_factor(depths, list(pl), fit),
                    "korf_prediction": theory,
                    "korf_prediction_formula": "(1 + sqrt(4b - 3)) / 2"
                    if ordering == "best"
                    else "b",
                    "paranoid_best_case_reference": b ** ((n - 1) / n),
                    "plain_abf": float(b),
                    "shallow_leaves_at_max_depth_vs_plain": float(sl[-1] / b**top),
                    "seconds": seconds,
                }
                if ordering == "best":
                    entry["matches_recurrence_exactly"] = bool(
                        all(r == recurrence(b, d) for r, d in zip(sl, depths, strict=True))
                    )
                fits.append(entry)
                print(
                    f"n={n} b={b} {ordering:6s} d<={top}: shallow ABF {entry['shallow_abf']:.3f} "
                    f"(Korf: {theory:.3f}), paranoid ABF {entry['paranoid_abf']:.3f}, plain {b}; "
                    f"leaves at d={top}: shallow {sl[-1]:,.0f}, paranoid {pl[-1]:,.0f}, "
                    f"plain {b**top:,}  [{seconds:.1f} s]",
                    flush=True,
                )
    print()
    table_of(
        fits,
        {
            "n": "players",
            "b": "b",
            "ordering": "ordering",
            "shallow ABF": lambda f: f"{f['shallow_abf']:.3f}",
            "Korf": lambda f: f"{f['korf_prediction']:.3f}",
            "paranoid ABF": lambda f: f"{f['paranoid_abf']:.3f}",
            "b^((n-1)/n)": lambda f: f"{f['paranoid_best_case_reference']:.3f}",
            "plain": "plain_abf",
            "shallow/plain at max d": lambda f: f"{f['shallow_leaves_at_max_depth_vs_plain']:.3f}",
        },
    )
    return {"rows": rows, "fits": fits, "sum_bound": S, "fit_over_last_depths": fit}


# ---------------------------------------------------------------- Chinese checkers
def cc_positions(game, count: int, seed: int, plies: tuple[int, int]) -> Any:
    """``count`` positions reached by seeded uniformly random play (``plies`` moves)."""
    legal_mask, step = jax.jit(game.legal_mask), jax.jit(game.step)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.init()
        for _ in range(rng.randint(*plies)):
            legal = np.flatnonzero(np.asarray(legal_mask(state)))
            state = step(state, jnp.int32(rng.choice(legal.tolist())))
        if not bool(game.terminal(state)):
            out.append(jax.tree.map(np.asarray, state))
    return stack(out)


def bench_playouts(players: int, limit: int, sizes: list[int], repeats: int) -> list[dict]:
    game = jaxgames.make("chinese_checkers", players=players, move_limit=limit)
    print(f"\n== random playouts, Chinese checkers {players} players, move limit {limit}")
    rows = []
    for batch in sizes:
        states = stack([game.init()] * batch)
        key = jax.random.PRNGKey(0)
        first, times, out = sample(lambda s=states, k=key: playouts(game, s, 1, k), repeats)
        median = statistics.median(times)
        moves = int(np.asarray(out.lengths).sum())
        rows.append(
            {
                "game": game.spec,
                "batch": batch,
                "first_call_s": first,
                "median_s": median,
                "min_s": min(times),
                "max_s": max(times),
                "playouts_per_s": batch / median,
                "moves_per_s": moves / median,
                "mean_length": moves / batch,
                "won": int((np.asarray(out.utilities).max(axis=2) == 1).sum()),
            }
        )
    table_of(
        rows,
        {
            "batch": "batch",
            "playouts/s": "playouts_per_s",
            "moves/s": "moves_per_s",
            "median s": "median_s",
            "first call s": "first_call_s",
        },
    )
    return rows


def bench_maxn(players: int, depth: int, sizes: list[int], repeats: int) -> list[dict]:
    game = jaxgames.make("chinese_checkers", players=players)
    print(f"\n== maxⁿ, Chinese checkers {players} players, depth {depth}, random-play positions")
    pool = cc_positions(game, max(sizes), seed=0, plies=(6, 30))
    rows = []
    for batch in sizes:
        roots = take(pool, slice(0, batch))
        out = {}
        for label, run in (
            ("none", lambda r=roots: maxn_batch(game, r, depth, pruning="none")),
            ("shallow", lambda r=roots: maxn_batch(game, r, depth, pruning="shallow")),
            ("paranoid", lambda r=roots: paranoid_batch(game, r, depth)),
        ):
            first, times, res = sample(run, repeats)
            median = statistics.median(times)
            out[label] = res
            rows.append(
                {
                    "game": game.spec,
                    "depth": depth,
                    "batch": batch,
                    "search": label,
                    "first_call_s": first,
                    "median_s": median,
                    "nodes": res.stats["nodes"],
                    "leaves": res.stats["leaves"],
                    "cutoffs": res.stats["cutoffs"],
                    "nodes_per_s": res.stats["nodes"] / median,
                    "positions_per_s": batch / median,
                    "nodes_per_position": res.stats["nodes"] / batch,
                }
            )
        rows[-2]["values_equal_plain"] = bool(
            np.array_equal(out["shallow"].value, out["none"].value)
        )
    table_of(
        rows,
        {
            "batch": "batch",
            "search": "search",
            "nodes/s": "nodes_per_s",
            "positions/s": "positions_per_s",
            "nodes/pos": "nodes_per_position",
            "cutoffs": "cutoffs",
            "first call s": "first_call_s",
        },
    )
    return rows


def bench_single(players: int, depths: list[int], count: int) -> list[dict]:
    game = jaxgames.make("chinese_checkers", players=players)
    print(f"\n== single roots, Chinese checkers {players} players, {count} positions")
    pool = cc_positions(game, count, seed=1, plies=(6, 30))
    states = [take(pool, i) for i in range(count)]
    rows = []
    for depth in depths:
        values = {}
        split = min(2, depth - 1)  # the host driver keeps the top plies, at least one
        for mode in ("device", "host"):
            kw = {"lanes": 1} if mode == "device" else {"split": split}
            first, times, results = one_at_a_time(
                lambda s, m=mode, d=depth, kw=kw: maxn(game, s, d, pruning="shallow", mode=m, **kw),
                states,
            )
            values[mode] = [r.value.tolist() for r in results]
            nodes = sum(int(r.stats["nodes"]) for r in results)
            row = single_row(depth, mode, first, times, nodes)
            rows.append({**row, "split": split if mode == "host" else None})
        rows[-1]["values_agree_with_device"] = values["device"] == values["host"]
    single_table(rows)
    return rows


# ---------------------------------------------------------------- output
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, *_quick.json")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--players", nargs="+", type=int, default=[3, 4], help="korf: n")
    parser.add_argument("--trees", type=int, default=24, help="korf: random trees per depth")
    parser.add_argument("--fit", type=int, default=3, help="korf: depths in the ABF fit")
    parser.add_argument("--cc-players", type=int, default=3)
    parser.add_argument("--move-limit", type=int, default=200)
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=None)
    parser.add_argument("--cc-depth", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    quick = args.quick
    start = time.perf_counter()
    result: dict[str, Any] = {
        "machine": machine_info(),
        "quick": quick,
        "argv": sys.argv[1:] if argv is None else argv,
        "jaxgames": jaxgames.__version__,
        # other work on the machine skews the rates (not the node counts): record it
        "load_average_at_start": load_average(),
    }
    if "korf" in args.sections:
        plan = {2: 8, 3: 5, 4: 4} if quick else {2: 14, 3: 9, 4: 7, 5: 6}
        result["korf"] = bench_korf(args.players, plan, 8 if quick else args.trees, args.fit)
    sizes = args.batch_sizes or ([1, 16, 64] if quick else [1, 16, 64, 256, 1024])
    if "playouts" in args.sections:
        limit = 60 if quick else args.move_limit
        result["playouts"] = bench_playouts(args.cc_players, limit, sizes, args.repeats)
    if "maxn" in args.sections:
        msizes = [s for s in sizes if s <= 256] or [1]
        result["maxn"] = bench_maxn(args.cc_players, args.cc_depth, msizes, 1)
    if "single" in args.sections:
        depths = [2] if quick else [2, 3]
        result["single"] = bench_single(args.cc_players, depths, 3 if quick else 4)
    result["total_runtime_s"] = time.perf_counter() - start
    result["load_average_at_end"] = load_average()
    out = write_json(result, result_path(args.out, HERE, "multiplayer", quick))
    print(f"\ntotal {result['total_runtime_s']:.0f} s; wrote {os.path.relpath(out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
