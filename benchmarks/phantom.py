"""Phantom tic-tac-toe: ISMCTS and PIMC in the arena, and the side-by-side check against
OpenSpiel, one run.

    python benchmarks/phantom.py                    # 200 games per match, seats rotated
    python benchmarks/phantom.py --games 20 --simulations 300 --worlds 8

Matches (``jaxgames.arena.match``, all games of a match in lockstep, seats swapped every
other game): ``ismcts:simulations=S`` against ``random`` (issue 24 asks for at least 90 %
of the games won), ``pimc:worlds=W`` against ``random``, and ``ismcts`` against ``pimc``.
Before them, ``--oracle-games`` random games played in jaxgames and OpenSpiel side by side
(legal actions, both observation tensors, returns at every step).

Writes ``results/phantom_<backend>.json``.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxgames
from jaxgames.arena.match import match
from jaxgames.bench.helpers import command_line, machine_info, result_path, table, write_json

HERE = os.path.dirname(os.path.abspath(__file__))


def oracle_games(n: int, seed: int = 24) -> dict[str, Any]:
    """``n`` random games in lockstep against OpenSpiel's ``phantom_ttt``: mismatches."""
    import pyspiel

    game = jaxgames.make("phantom_tictactoe")

    @jax.jit
    def facts(states):
        def one(s):
            obs = jnp.stack([game.observation(s, p) for p in range(2)])
            return game.legal_mask(s), game.terminal(s), game.utility(s), obs

        return jax.vmap(one)(states)

    @jax.jit
    def advance(states, actions, live):
        stepped = jax.vmap(game.step)(states, actions)
        return jax.tree.map(
            lambda a, b: jnp.where(live.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
            stepped,
            states,
        )

    started = time.perf_counter()
    rng = random.Random(seed)
    spiel = pyspiel.load_game("phantom_ttt")
    theirs = [spiel.new_initial_state() for _ in range(n)]
    ours = jax.tree.map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), game.init())
    checked = mismatches = 0
    while True:
        legal, done, utility, obs = jax.device_get(facts(ours))
        actions = np.zeros(n, np.int32)
        for g, s in enumerate(theirs):
            checked += 1
            if s.is_terminal():
                mismatches += not done[g] or not np.array_equal(utility[g], s.returns())
                continue
            same = list(np.flatnonzero(legal[g])) == s.legal_actions() and all(
                np.array_equal(obs[g, p], s.observation_tensor(p)) for p in range(2)
            )
            mismatches += not same
            actions[g] = rng.choice(s.legal_actions())
        live = np.array([not s.is_terminal() for s in theirs])
        if not live.any():
            break
        for g in np.flatnonzero(live):
            theirs[g].apply_action(int(actions[g]))
        ours = advance(ours, jnp.asarray(actions), jnp.asarray(live))
    return {
        "games": n,
        "states_checked": checked,
        "mismatches": mismatches,
        "seconds": round(time.perf_counter() - started, 2),
    }


LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def best_against_random() -> dict[str, float]:
    """The highest win probability any player can reach against the uniformly random
    player, moving first and moving second: exact expectimax over the player's
    information states (its own marks, the cells it found taken) with the exact
    distribution of the opponent's hidden marks, in plain Python, independent of the
    library. The random player's mark is uniform over the empty cells whatever it
    tries first (a refused try is retried among the rest), and its refused tries are
    not seen. This is the ceiling for the "ISMCTS against random" rows."""

    def won(marks: int) -> bool:
        return any(all(marks >> i & 1 for i in line) for line in LINES)

    def normalised(weights: dict[int, float]) -> tuple[tuple[int, float], ...]:
        total = sum(weights.values())
        return tuple(sorted((w, round(p / total, 15)) for w, p in weights.items()))

    @functools.cache
    def choose(own: int, found: int, worlds: tuple[tuple[int, float], ...]) -> float:
        best = 0.0
        for cell in range(9):
            if (own | found) >> cell & 1:
                continue
            taken = {w: p for w, p in worlds if w >> cell & 1}
            free = {w: p for w, p in worlds if not w >> cell & 1}
            value = 0.0
            if taken:  # refused: the player learns the cell and tries again
                value += sum(taken.values()) * choose(own, found | 1 << cell, normalised(taken))
            if free:
                mine = own | 1 << cell
                after = 1.0 if won(mine) else reply(mine, found, normalised(free))
                value += sum(free.values()) * after
            best = max(best, value)
        return best

    @functools.cache
    def reply(own: int, found: int, worlds: tuple[tuple[int, float], ...]) -> float:
        value, going_on = 0.0, {}
        for w, p in worlds:
            empty = [c for c in range(9) if not (own | w) >> c & 1]
            for cell in empty:  # a full board is a draw: no win
                theirs = w | 1 << cell
                if not won(theirs) and (own | theirs) != 511:
                    going_on[theirs] = going_on.get(theirs, 0.0) + p / len(empty)
        if going_on:
            value = sum(going_on.values()) * choose(own, found, normalised(going_on))
        return value

    first, second = choose(0, 0, ((0, 1.0),)), reply(0, 0, ((0, 1.0),))
    return {"first": first, "second": second, "alternating": (first + second) / 2}


def one_match(game, agents: list[str], games: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    result = match(game, agents, games=games, seed=seed)
    row = {
        "agents": agents,
        "games": games,
        "wins": result.wins,
        "draws": result.draws,
        "losses": result.losses,
        "win_rate": result.wins / games,
        "score": result.score,
        "elo": result.elo,
        "elo_95": [result.elo_low, result.elo_high],
        "seconds_per_move": result.seconds_per_move(),
        "wall_s": round(time.perf_counter() - started, 1),
        # the first agent's wins when it moved first and when it moved second
        "wins_by_seat": [
            sum(r.seats[seat] == agents[0] and r.utility[seat] > 0 for r in result.records)
            for seat in (0, 1)
        ],
        "games_by_seat": [
            sum(r.seats[seat] == agents[0] for r in result.records) for seat in (0, 1)
        ],
    }
    print(result.summary(), f"({row['wall_s']} s)", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (even)")
    parser.add_argument("--simulations", type=int, default=1000, help="ISMCTS per move")
    parser.add_argument("--worlds", type=int, default=16, help="PIMC worlds per move")
    parser.add_argument("--oracle-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--note", default="", help="a line for the JSON (e.g. machine load)")
    parser.add_argument("--out", default=None, help="JSON path (default: results/ by backend)")
    args = parser.parse_args(argv)

    result: dict[str, Any] = {
        "benchmark": "phantom",
        "command": command_line("phantom.py", argv),
        "machine": machine_info(),
        "note": args.note,
    }
    if args.oracle_games:
        result["openspiel_oracle"] = oracle_games(args.oracle_games)
        print(f"phantom_ttt vs OpenSpiel: {result['openspiel_oracle']}", flush=True)
    result["best_win_rate_against_random"] = best_against_random()
    print(f"best possible win rate against random: {result['best_win_rate_against_random']}")
    game = jaxgames.make("phantom_tictactoe")
    ismcts = f"ismcts:simulations={args.simulations}"
    pimc = f"pimc:worlds={args.worlds}"
    rows = [
        one_match(game, [ismcts, "random"], args.games, args.seed),
        one_match(game, [pimc, "random"], args.games, args.seed),
        one_match(game, [ismcts, pimc], args.games, args.seed),
    ]
    table(
        ["first", "second", "games", "+", "=", "-", "score", "s/move (first, second)"],
        [
            [r["agents"][0], r["agents"][1], r["games"], r["wins"], r["draws"], r["losses"],
             f"{r['score']:.3f}", ", ".join(f"{s:.3f}" for s in r["seconds_per_move"])]
            for r in rows
        ],
    )  # fmt: skip
    result["matches"] = rows
    out = write_json(result, result_path(args.out, HERE, "phantom"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
