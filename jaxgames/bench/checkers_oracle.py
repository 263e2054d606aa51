"""Checkers against OpenSpiel's ``checkers`` as the oracle: seeded random games (uniform
among OpenSpiel's legal actions) played in lockstep, all games in one batch on the jaxgames
side (one compiled step/observe program), and at every step the player to move, the legal
action ids and their names, the board, the terminal flag and at the end the returns
compared. Action ids are OpenSpiel's, so one action is played on both sides.

Used by ``tests/games/test_checkers.py`` (100 games) and ``benchmarks/checkers.py`` (500).
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
from jaxgames.kernels import stack, take


@functools.partial(jax.jit, static_argnums=0)
def _advance(game: Game, states: Any, actions: jax.Array, active: jax.Array) -> tuple:
    """Step the active lanes; what is compared of the new states."""
    stepped = jax.vmap(game.step)(states, actions)
    states = jax.tree.map(lambda new, old: jnp.where(active, new, old), stepped, states)
    return states, _observe(game, states)


def _observe(game: Game, states: Any) -> dict[str, jax.Array]:
    return {
        "player": jax.vmap(game.player)(states),  # [G]
        "legal": jax.vmap(game.legal_mask)(states),  # [G, 512]
        "terminal": jax.vmap(game.terminal)(states),  # [G]
        "utility": jax.vmap(game.utility)(states),  # [G, 2]
    }


def compare_with_openspiel(games: int, seed: int, max_reports: int = 5) -> dict[str, Any]:
    """Play ``games`` random games in both implementations, comparing every step.

    Returns a summary: games, states compared, steps played, how the games ended (a win,
    the 40-step draw), jumps and crownings seen, the number of mismatches and the first
    ``max_reports`` of them in words, and the seconds of the whole run.
    """
    import pyspiel

    t_start = time.perf_counter()
    game = jaxgames.make("checkers")
    oracle = pyspiel.load_game("checkers")
    rng = random.Random(seed)
    spiel = [oracle.new_initial_state() for _ in range(games)]
    states = stack([game.init()] * games)
    obs = jax.device_get(jax.jit(functools.partial(_observe, game))(states))
    active = np.ones((games,), bool)
    mismatches: list[str] = []
    count = {"states": 0, "steps": 0, "wins": 0, "draws": 0, "multi_jump_steps": 0, "kings": 0}

    def report(i: int, ply: int, what: str) -> None:
        mismatches.append(f"game {i} step {ply}: {what}")
        active[i] = False

    ply = 0
    while active.any():
        actions = np.zeros((games,), np.int32)
        host = jax.device_get(states)
        for i in np.flatnonzero(active):
            o, state = spiel[i], take(host, i)
            count["states"] += 1
            if game.draw(state) != str(o):
                report(i, ply, f"board\n{game.draw(state)}vs OpenSpiel's\n{o}")
                continue
            if bool(obs["terminal"][i]) != o.is_terminal():
                report(i, ply, f"terminal {bool(obs['terminal'][i])} vs {o.is_terminal()}")
                continue
            if o.is_terminal():
                if obs["utility"][i].tolist() != o.returns():
                    report(i, ply, f"returns {obs['utility'][i].tolist()} vs {o.returns()}")
                count["wins" if o.returns()[0] else "draws"] += 1
                active[i] = False
                continue
            legal = np.flatnonzero(obs["legal"][i]).tolist()
            if legal != o.legal_actions():
                report(i, ply, f"legal {legal} vs {o.legal_actions()} at {game.format(state)}")
                continue
            names = [game.openspiel_action_string(a) for a in legal]
            if names != [o.action_to_string(a) for a in legal]:
                report(i, ply, f"action names {names}")
                continue
            if int(obs["player"][i]) != o.current_player():
                report(i, ply, f"player {int(obs['player'][i])} vs {o.current_player()}")
                continue
            actions[i] = rng.choice(legal)
            before = o.current_player()
            o.apply_action(int(actions[i]))
            count["steps"] += 1
            count["multi_jump_steps"] += int(not o.is_terminal() and o.current_player() == before)
            board = "".join(line[1:] for line in str(o).splitlines()[:8])  # no rank labels
            count["kings"] = max(count["kings"], board.count("8") + board.count("*"))
        states, obs = _advance(game, states, actions, active)
        obs = jax.device_get(obs)
        ply += 1
    return {
        "games": games,
        "seed": seed,
        "states_compared": count["states"],
        "steps_played": count["steps"],
        "wins": count["wins"],
        "draws_40_steps": count["draws"],
        "steps_continuing_a_multi_jump": count["multi_jump_steps"],
        "most_kings_on_a_board": count["kings"],
        "longest_game_steps": ply - 1,
        "mismatches": len(mismatches),
        "mismatch_reports": mismatches[:max_reports],
        "seconds": time.perf_counter() - t_start,
    }
