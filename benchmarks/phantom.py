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
