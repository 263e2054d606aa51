"""What a player of an imperfect-information game can believe: worlds drawn consistent with
what they have seen (determinization), and AND-OR search over belief states.

* :func:`observation_history` -- what one player has seen, as arrays;
* :func:`sample_world` -- ``n`` complete states consistent with it, batched: exact (uniform
  over the consistent worlds) for a game that lists them
  (:class:`~jaxgames.capabilities.Determinization`), else by rejection: random games from
  the start, kept where the player's information-state key matches (drawn with the
  probability of random play, not uniformly);
* :func:`and_or_search` -- the seeds' AND-OR-GRAPH-SEARCH over belief states (sets of
  possible true states, :class:`~jaxgames.capabilities.BeliefStates`): OR over the
  player's actions, AND over the observations that can follow; a guaranteed win ("guaranteed
  checkmate" in Kriegspiel) is a conditional :class:`Plan`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import BeliefStates, Determinization, ImperfectInformation
from jaxgames.game import Game, GameError, State
from jaxgames.kernels import random_actions


class ObservationHistory(NamedTuple):
    """What a player has seen (one, or a batch ``[B]`` with every field's leading axis)."""

    player: jax.Array  # int32[]: the observer
    key: jax.Array  # int32[]: their information-state key
    record: Any  # the game's own record (Determinization.observation_history), or int32[]


def _need_imperfect(game: Game, what: str) -> None:
    if not isinstance(game, ImperfectInformation):
        raise GameError(f"{what}: {game.name} is not a game of imperfect information")


def observation_history(game: Game, state: State, player: jax.Array) -> ObservationHistory:
    """What ``player`` has seen up to ``state`` (ONE state; ``vmap`` it for a batch)."""
    _need_imperfect(game, "observation_history")
    player = jnp.asarray(player, jnp.int32)
    record = (
        game.observation_history(state, player)
        if isinstance(game, Determinization)
        else jnp.int32(0)
    )
    return ObservationHistory(player, game.information_state_key(state, player), record)


@functools.partial(jax.jit, static_argnums=(0, 3))
def _exact(game: Game, history: ObservationHistory, key: jax.Array, n: int) -> State:
    """[B, n] worlds drawn uniformly from each history's consistent list."""

    def one(record, k):
        worlds, valid = game.worlds(record)  # [W], bool[W]
        logits = jnp.where(valid, 0.0, -jnp.inf)
        pick = jax.random.categorical(k, logits, shape=(n,))  # [n]
        return jax.tree.map(lambda x: x[pick], worlds)

    keys = jax.random.split(key, history.player.shape[0])
    return jax.vmap(one)(history.record, keys)


@functools.partial(jax.jit, static_argnums=(0, 3))
def _rejection_round(game: Game, history: ObservationHistory, key: jax.Array, lanes: int):
    """For each history, ``lanes`` random games from the start: the first state of each where
    the observer is to move with the same information-state key, and whether one came."""

    def one(player, target, k):
        start = jax.tree.map(lambda x: jnp.broadcast_to(x, (lanes,) + jnp.shape(x)), game.init())

        def body(i, carry):
            states, found, kept = carry
            hit = jax.vmap(
                lambda s: (
                    (game.player(s) == player)
                    & ~game.terminal(s)
                    & (game.information_state_key(s, player) == target)
                )
            )(states)
            newly = hit & ~found
            kept = jax.tree.map(
                lambda a, b: jnp.where(newly.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
                states,
                kept,
            )
            u = jax.random.uniform(jax.random.fold_in(k, i), (lanes,))
            moves = random_actions(game, states, u)
            live = ~jax.vmap(game.terminal)(states) & ~(found | newly)
            stepped = jax.vmap(game.step)(states, moves)
            states = jax.tree.map(
                lambda a, b: jnp.where(live.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
                stepped,
                states,
            )
            return states, found | newly, kept

        found0 = jnp.zeros((lanes,), bool)
        _, found, kept = jax.lax.fori_loop(
            0, game.max_game_length + 1, body, (start, found0, start)
        )
        return kept, found

    keys = jax.random.split(key, history.player.shape[0])
    return jax.vmap(one)(history.player, history.key, keys)


def sample_world(
    game: Game,
    observation_history: ObservationHistory,
    key: jax.Array | int,
    n: int,
    *,
    method: str = "auto",
    max_rounds: int = 64,
    lanes: int = 1024,
) -> State:
    """``n`` complete states consistent with what a player has seen, for each of a batch
    of observation histories.

    Args:
        game: a game with :class:`~jaxgames.capabilities.ImperfectInformation`.
        observation_history: a batch ``[B]`` of :func:`observation_history` (at the
            observer's turn).
        key: a JAX key or an int seed.
        n: worlds per history.
        method: ``"exact"`` (uniform over the game's list of consistent worlds, needs
            :class:`~jaxgames.capabilities.Determinization`), ``"rejection"`` (random games
            from the start kept where the key matches: each world with the probability that
            random play reaches it), or ``"auto"`` (exact where the game lists worlds).
        max_rounds: rejection rounds before giving up.
        lanes: random games per history in each rejection round.

    Returns:
        States ``[B, n]``; each gives the observer the same information-state key (and so
        the same observations) as the history.

    Raises:
        GameError: no capability to draw by, or rejection found fewer than ``n`` worlds.
    """
    _need_imperfect(game, "sample_world")
    if n < 1:
        raise GameError(f"sample_world: n must be >= 1, got {n}")
    key = jax.random.key(key) if isinstance(key, int) else key
    if method == "auto":
        method = "exact" if isinstance(game, Determinization) else "rejection"
    if method == "exact":
        if not isinstance(game, Determinization):
            raise GameError(f"sample_world: {game.name} does not list its worlds (exact)")
        return _exact(game, observation_history, key, n)
    if method != "rejection":
        raise GameError(f"sample_world: method must be exact, rejection or auto, got {method!r}")
    batch = int(np.shape(observation_history.player)[0])
    worlds: list[list[Any]] = [[] for _ in range(batch)]
    for round_ in range(max_rounds):
        kept, found = _rejection_round(
            game, observation_history, jax.random.fold_in(key, round_), max(lanes, n)
        )
        kept, found = jax.device_get((kept, found))
        for b in range(batch):
            for lane in np.flatnonzero(found[b])[: n - len(worlds[b])]:
                worlds[b].append(jax.tree.map(lambda x, b=b, lane=lane: x[b, lane], kept))
        if all(len(w) == n for w in worlds):
            break
    short = [b for b in range(batch) if len(worlds[b]) < n]
    if short:
        raise GameError(
            f"sample_world: rejection found {len(worlds[short[0]])} of {n} worlds for "
            f"history {short[0]} in {max_rounds} rounds (a history random play rarely reaches)"
        )
    per_history = [jax.tree.map(lambda *y: np.stack(y), *w) for w in worlds]  # each [n]
    return jax.tree.map(lambda *x: jnp.asarray(np.stack(x)), *per_history)  # [B, n]


# ---------------------------------------------------------------------- AND-OR search
@dataclasses.dataclass(frozen=True)
class Plan:
    """A conditional plan: play ``action``, then follow the branch of the observation that
    comes (``"win"``: the game is won there)."""

    action: int
    then: dict[str, Plan | str]

    def show(self, indent: int = 0) -> str:
        """The plan as indented text, one line per observation."""
        pad = "  " * indent
        lines = [f"{pad}play {self.action}"]
        for name, sub in self.then.items():
            if isinstance(sub, Plan):
                lines.append(f"{pad}  if {name}:")
                lines.append(sub.show(indent + 2))
            else:
                lines.append(f"{pad}  if {name}: {sub}")
        return "\n".join(lines)


@dataclasses.dataclass
class AndOrResult:
    """Whether the player has a guaranteed win from a belief state, and how."""

    win: bool
    plan: Plan | None  # None where there is no guaranteed win
    stats: dict[str, Any]


def and_or_search(
    game: Game, belief: np.ndarray, table: dict[bytes, Plan | None] | None = None
) -> AndOrResult:
    """Decide whether the player to move wins from ``belief`` whatever the true state and
    whatever the opponent does (AND-OR-GRAPH-SEARCH over belief states, host side).

    OR over :meth:`~jaxgames.capabilities.BeliefStates.belief_actions`; AND over the
    observations :meth:`~jaxgames.capabilities.BeliefStates.belief_outcomes` says can
    follow (every one must lead to a win). Belief states already decided are remembered
    (a transposition table keyed by the set); the game's outcomes must make progress (each
    next belief is smaller or later), so the search ends without a cycle check.

    Args:
        game: a game with :class:`~jaxgames.capabilities.BeliefStates`.
        belief: ``bool[S]``, nonempty.
        table: belief states decided before (by this function, for the same game), kept
            across calls: searches from many beliefs share what they proved.

    Returns:
        An :class:`AndOrResult`; its ``plan`` wins against every opponent behaviour in
        every state of ``belief``.
    """
    if not isinstance(game, BeliefStates):
        raise GameError(f"and_or_search: {game.name} has no belief states (BeliefStates)")
    belief = np.asarray(belief, bool)
    if belief.shape != (game.num_belief_states,) or not belief.any():
        raise GameError(
            f"and_or_search: a belief is a nonempty bool[{game.num_belief_states}] mask"
        )
    table = {} if table is None else table
    counts = {"or_nodes": 0, "and_nodes": 0}

    def or_search(b: np.ndarray) -> Plan | None:
        tag = np.packbits(b).tobytes()
        if tag in table:
            return table[tag]
        counts["or_nodes"] += 1
        found = None
        for action in game.belief_actions(b):
            counts["and_nodes"] += 1
            branches: dict[str, Plan | str] = {}
            for name, result in game.belief_outcomes(b, int(action)):
                if isinstance(result, str):
                    if result != "win":
                        break
                    branches[name] = "win"
                else:
                    sub = or_search(result)
                    if sub is None:
                        break
                    branches[name] = sub
            else:  # every observation leads to a win
                found = Plan(int(action), branches)
                break
        table[tag] = found
        return found

    plan = or_search(belief)
    return AndOrResult(plan is not None, plan, {**counts, "table_size": len(table)})


__all__ = [
    "AndOrResult",
    "ObservationHistory",
    "Plan",
    "and_or_search",
    "observation_history",
    "sample_world",
]
