"""Go against OpenSpiel's ``go`` as the oracle: seeded random games (uniform among
OpenSpiel's legal actions) played in lockstep, many games in one batch on the jaxgames side
(one compiled step/legal/terminal/utility program per board size), and at every step the
legal action set, the board, the terminal flag and at the end the returns compared.

OpenSpiel ends a game as a draw when a placement repeats an earlier board (its
``superko_`` flag); jaxgames' ``superko=false`` plays on under simple ko. Such a game is
compared up to that step and counted apart (``ended_by_repetition``).

Used by ``tests/games/test_go.py`` (a few games) and ``benchmarks/go_rules.py`` (the sweep).
"""

from __future__ import annotations

import functools
import random
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxgames
from jaxgames.game import Game


@functools.partial(jax.jit, static_argnums=0)
def _advance(game: Game, states: Any, actions: jax.Array, active: jax.Array) -> tuple:
    """Step the active lanes; the new states' legal masks, terminal flags and utilities."""
    stepped = jax.vmap(game.step)(states, actions)
    states = jax.tree.map(
        lambda new, old: jnp.where(active.reshape((-1,) + (1,) * (new.ndim - 1)), new, old),
        stepped,
        states,
    )
    return (
        states,
        jax.vmap(game.legal_mask)(states),
        jax.vmap(game.terminal)(states),
        jax.vmap(game.utility)(states),
    )


def compare_with_openspiel(
    size: int, games: int, seed: int, komi: float = 7.5, max_reports: int = 5
) -> dict[str, Any]:
    """Play ``games`` random games of ``size`` x ``size`` Go in both implementations.

    Returns a summary: games, steps compared, how the games ended (two passes, the length
    limit, OpenSpiel's repetition rule), the number of mismatches and the first
    ``max_reports`` of them in words, the seconds of the first (compiling) call and of the
    whole run.
    """
    import pyspiel

    t_start = time.perf_counter()
    game = jaxgames.make("go", size=size, komi=komi, superko=False)
    oracle = pyspiel.load_game("go", {"board_size": size, "komi": float(komi)})
    n = size * size
    rng = random.Random(seed)
    theirs = [oracle.new_initial_state() for _ in range(games)]
    states = jax.tree.map(lambda x: jnp.broadcast_to(x, (games, *x.shape)), game.init())
    actions = np.zeros((games,), np.int32)
    active = np.zeros((games,), bool)
    t0 = time.perf_counter()
    states, masks, terminals, utilities = jax.block_until_ready(
        _advance(game, states, actions, active)
    )
    first_call_s = time.perf_counter() - t0
    live = np.ones((games,), bool)
    mismatches: list[str] = []
    counts = {"two_passes": 0, "length_limit": 0, "ended_by_repetition": 0}
    steps = 0

    def report(i: int, ply: int, what: str) -> None:
        if len(mismatches) < max_reports:
            mismatches.append(f"{size}x{size} game {i} step {ply}: {what}")
        else:
            mismatches.append("")
        live[i] = False

    ply = 0
    while live.any():
        masks_np, terminals_np = np.asarray(masks), np.asarray(terminals)
        utilities_np, boards = np.asarray(utilities), np.asarray(states.board)
        for i in np.nonzero(live)[0]:
            state = theirs[i]
            if state.is_terminal():
                history = state.history()
                passes = len(history) >= 2 and history[-1] == history[-2] == n
                if not passes and len(history) < oracle.max_game_length():
                    counts["ended_by_repetition"] += 1  # OpenSpiel's draw by repetition
                    live[i] = False
                    continue
                if not terminals_np[i]:
                    report(i, ply, "OpenSpiel's game is over, ours is not")
                    continue
                if list(utilities_np[i]) != list(state.returns()):
                    report(i, ply, f"returns {state.returns()} vs ours {utilities_np[i]}")
                    continue
                counts["two_passes" if passes else "length_limit"] += 1
                live[i] = False
                continue
            if terminals_np[i]:
                report(i, ply, "our game is over, OpenSpiel's is not")
                continue
            legal = state.legal_actions()
            ours = np.nonzero(masks_np[i])[0].tolist()
            if ours != legal:
                diff = sorted(set(ours) ^ set(legal))
                report(i, ply, f"legal actions differ at {diff}")
                continue
            steps += 1
            action = rng.choice(legal)
            state.apply_action(action)
            actions[i] = action
        active[:] = live
        states, masks, terminals, utilities = _advance(game, states, actions, active)
        boards = np.asarray(states.board)
        for i in np.nonzero(live)[0]:
            planes = np.asarray(theirs[i].observation_tensor(0)).reshape(4, n)
            black, white = boards[i] == 1, boards[i] == -1
            if not ((planes[0] == black).all() and (planes[1] == white).all()):
                report(i, ply + 1, "boards differ")
        ply += 1
    return {
        "size": size,
        "komi": komi,
        "games": games,
        "seed": seed,
        "steps_compared": steps,
        **counts,
        "mismatches": len(mismatches),
        "mismatch_reports": [m for m in mismatches if m],
        "first_call_s": round(first_call_s, 3),
        "seconds": round(time.perf_counter() - t_start, 3),
    }
