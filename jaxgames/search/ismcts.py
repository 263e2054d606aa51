"""Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley and Whitehouse 2012,
"Information Set Monte Carlo Tree Search", Algorithm 2), many roots at once on the device.

One tree per root, grown for the root's player to move (the observer). Each iteration
draws a world (a determinization) consistent with what the observer has seen
(:func:`~jaxgames.search.belief.sample_world`), and in it:

* **select**: from the root, while every action legal in this world has been tried at the
  node, take the action maximising ``Q/n + c sqrt(ln n' / n)``, where ``n'`` (the
  *availability* count) is how many times the action was legal when its node was visited,
  not the node's visits: an action seen in few worlds is not penalised for it;
* **expand** one action legal in this world and not tried yet at the node (at random);
* **simulate**: random play to the end, in this world;
* **backpropagate**: each edge on the path counts the visit and the result for the player
  who chose it; each node on the path counts every action legal there in this world as
  available once more.

What a node is: an information set of the observer. The child of an edge is looked up by
the observer's information-state key after the action and the player then to move (up to
:data:`OUTCOMES` of them per edge), so what the observer learns from an action (a move
refused because of something hidden, a peek at a hidden card) splits the tree, and worlds the
observer cannot tell apart share a node. The opponent's actions are edges as if the
observer saw them, as in SO-ISMCTS: below the root the tree is then finer than what the
observer sees where the opponent's moves are hidden (the paper's POM variant would merge
them). The root, which chooses the move, is the observer's information set exactly. Games
without chance nodes.

This is its own loop, not :mod:`jaxgames.search.mcts`: that engine's node holds one state
and its edges the moves of that state, where an ISMCTS node stands for many states and
its edges are the union of their moves, with availability counts.
"""

from __future__ import annotations

import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import Game, GameError
from jaxgames.search.belief import observation_history, sample_world


class ISMCTSResult(NamedTuple):
    """What ``B`` searches found (``A`` actions)."""

    action: np.ndarray  # int32[B]: the root action with the most visits
    visits: np.ndarray  # int32[B, A]: the root's edge visits
    q: np.ndarray  # float32[B, A]: the root's mean results for the observer, in [0, 1]
    stats: dict[str, Any]


class _Tree(NamedTuple):
    child: jax.Array  # int32[M, A, K]: the node after the action, one per outcome the
    # observer told apart (their information-state key after it), -1 none
    key: jax.Array  # int32[M, A, K]: that key
    visits: jax.Array  # float32[M, A]: n, per edge
    total: jax.Array  # float32[M, A]: summed results for the node's mover, in [0, 1]
    avail: jax.Array  # float32[M, A]: n', times the action was legal at a visit
    mover: jax.Array  # int32[M]
    size: jax.Array  # int32[]: nodes in use


OUTCOMES = 4
"""Information sets of the observer kept per edge (K): what the observer can tell apart
after one action (a try that may be refused: taken or refused; after the opponent's move:
one)."""


def _search_one(
    game: Game, c: float, merge: bool, simulations: int, worlds: Any, mover: jax.Array, key
):
    """One root's search for the observer ``mover``: ``worlds [S]`` (one per iteration)."""
    a_n, m = game.num_actions, simulations + 1
    depth_max = game.max_game_length + 1
    tree = _Tree(
        child=jnp.full((m, a_n, OUTCOMES), -1, jnp.int32),
        key=jnp.zeros((m, a_n, OUTCOMES), jnp.int32),
        visits=jnp.zeros((m, a_n), jnp.float32),
        total=jnp.zeros((m, a_n), jnp.float32),
        avail=jnp.zeros((m, a_n), jnp.float32),
        mover=jnp.zeros((m,), jnp.int32).at[0].set(mover),
        size=jnp.int32(1),
    )

    def iteration(i, tree: _Tree) -> _Tree:
        world = jax.tree.map(lambda x: x[i], worlds)
        k_select, k_roll = jax.random.split(jax.random.fold_in(key, i))

        # select and expand: until a new node is made or the game ends. The descent only
        # reads the tree; what it changes is recorded and written once after it, so that
        # the tree is not copied at every step of the loop.
        def go_on(carry):
            return ~carry[4]

        def descend(carry):
            node, state, path_n, path_a, _, depth, path_legal, new_edge = carry
            legal = game.legal_mask(state)  # [A]
            tried = tree.visits[node] > 0
            untried = legal & ~tried
            u = jax.random.uniform(jax.random.fold_in(k_select, depth), (a_n,))
            n = jnp.maximum(tree.visits[node], 1.0)
            ucb = tree.total[node] / n + c * jnp.sqrt(
                jnp.log(jnp.maximum(tree.avail[node], 1.0)) / n
            )
            expand = jnp.any(untried)
            score = jnp.where(
                expand, jnp.where(untried, u, -1.0), jnp.where(legal, ucb + 1e-6 * u, -jnp.inf)
            )
            action = jnp.argmax(score).astype(jnp.int32)
            after = game.step(state, action)
            # the child is the observer's information set after the action: look its key
            # up among the action's outcomes seen so far
            seen_as = game.information_state_key(after, mover)
            # the opponent's moves the observer does not see lead to the same information
            # set of the observer: with merge_hidden, they share one column of children
            column = jnp.where(merge & (tree.mover[node] != mover), 0, action)
            outcomes = tree.child[node, column]  # [K]
            nxt = game.player(after)  # part of the node too: a node has one mover
            match = (
                (outcomes >= 0)
                & (tree.key[node, column] == seen_as)
                & (tree.mover[jnp.maximum(outcomes, 0)] == nxt)
            )
            free = outcomes < 0
            slot = jnp.where(jnp.any(match), jnp.argmax(match), jnp.argmax(free))
            known = jnp.where(jnp.any(match), outcomes[slot], -1)
            done = game.terminal(after)
            room = jnp.any(match) | jnp.any(free)  # else: simulate from here, add nothing
            make = (known < 0) & ~done & room & (tree.size < m)
            path_n = path_n.at[depth].set(node)
            path_a = path_a.at[depth].set(action)
            path_legal = path_legal.at[depth].set(legal)
            new_edge = jnp.where(make, jnp.stack([node, column, slot, seen_as, nxt]), new_edge)
            stop = (known < 0) | done | expand
            return known, after, path_n, path_a, stop, depth + 1, path_legal, new_edge

        path0 = jnp.full((depth_max,), -1, jnp.int32)
        _, state, path_n, path_a, _, depth, path_legal, new_edge = jax.lax.while_loop(
            go_on,
            descend,
            (
                jnp.int32(0),
                world,
                path0,
                path0,
                jnp.bool_(False),
                0,
                jnp.zeros((depth_max, a_n), bool),
                jnp.full((5,), -1, jnp.int32),
            ),
        )
        made = new_edge[0] >= 0
        e_node, e_column, e_slot, e_key, e_mover = (jnp.maximum(x, 0) for x in new_edge)
        on_path = jnp.arange(depth_max) < depth
        nodes = jnp.where(on_path, path_n, m - 1)  # row m - 1 soaks up the padding
        tree = tree._replace(
            avail=tree.avail.at[nodes].add((path_legal & on_path[:, None]).astype(jnp.float32)),
            child=tree.child.at[e_node, e_column, e_slot].set(
                jnp.where(made, tree.size, tree.child[e_node, e_column, e_slot])
            ),
            key=tree.key.at[e_node, e_column, e_slot].set(
                jnp.where(made, e_key, tree.key[e_node, e_column, e_slot])
            ),
            mover=tree.mover.at[jnp.where(made, tree.size, m - 1)].set(
                jnp.where(made, e_mover, tree.mover[m - 1])
            ),
            size=tree.size + made.astype(jnp.int32),
        )

        # simulate: random play to the end of this world
        def roll(carry):
            s, j = carry
            legal = game.legal_mask(s)
            logits = jnp.where(legal, 0.0, -jnp.inf)
            a = jax.random.categorical(jax.random.fold_in(k_roll, j), logits)
            return game.step(s, a), j + 1

        final, _ = jax.lax.while_loop(
            lambda carry: ~game.terminal(carry[0]) & (carry[1] < depth_max), roll, (state, 0)
        )
        result = (game.utility(final) - game.utility_min) / (game.utility_max - game.utility_min)

        # backpropagate along the path
        actions = jnp.where(on_path, path_a, 0)
        reward = result[tree.mover[nodes]] * on_path
        return tree._replace(
            visits=tree.visits.at[nodes, actions].add(on_path.astype(jnp.float32)),
            total=tree.total.at[nodes, actions].add(reward),
        )

    return jax.lax.fori_loop(0, simulations, iteration, tree)


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _search(
    game: Game, c: float, merge: bool, simulations: int, worlds: Any, movers: jax.Array, key
):
    keys = jax.random.split(key, movers.shape[0])
    trees = jax.vmap(lambda w, p, k: _search_one(game, c, merge, simulations, w, p, k))(
        worlds, movers, keys
    )
    return trees.visits[:, 0], trees.total[:, 0], trees.size


@functools.partial(jax.jit, static_argnums=0)
def _histories(game: Game, states: Any):
    movers = jax.vmap(game.player)(states)
    return movers, jax.vmap(functools.partial(observation_history, game))(states, movers)


def ismcts(
    game: Game,
    states: Any,
    simulations: int = 1000,
    key: jax.Array | int = 0,
    c: float = 0.7,
    merge_hidden: bool = False,
) -> ISMCTSResult:
    """SO-ISMCTS at each of a batch ``[B]`` of decision states, for the player to move.

    Args:
        game: a game with :class:`~jaxgames.capabilities.ImperfectInformation` and no chance
            nodes; worlds are drawn by :func:`~jaxgames.search.belief.sample_world`.
        states: the true states ``[B]``; only what the mover has seen is read from them.
        simulations: iterations per root (one world each).
        key: a JAX key or an int seed.
        c: the exploration constant on results scaled to [0, 1] (0.7, as in the paper).
        merge_hidden: the opponent's edges (each with its own statistics, by which the
            opponent selects) all lead to the observer's one next information set, as the
            observer cannot tell them apart (the tree's nodes are then exactly the
            observer's information sets, as in the paper's POM variant, except that the
            opponent still picks among his own moves rather than among classes of them).

    Returns:
        An :class:`ISMCTSResult`.
    """
    if game.num_chance_outcomes:
        raise GameError(f"ismcts: {game.name} has chance nodes; this ISMCTS takes none")
    if simulations < 1:
        raise GameError(f"ismcts: simulations must be >= 1, got {simulations}")
    started = time.perf_counter()
    key = jax.random.key(key) if isinstance(key, int) else key
    k_worlds, k_search = jax.random.split(key)
    movers, history = _histories(game, states)
    worlds = sample_world(game, history, k_worlds, simulations)  # [B, S]
    visits, total, size = jax.device_get(
        _search(game, float(c), bool(merge_hidden), simulations, worlds, movers, k_search)
    )
    legal = np.asarray(jax.vmap(game.legal_mask)(states))
    q = np.where(visits > 0, total / np.maximum(visits, 1), 0.0).astype(np.float32)
    score = np.where(legal, visits + 1e-3 * q, -1.0)
    action = np.where(legal.any(1), np.argmax(score, axis=1), -1).astype(np.int32)
    stats = {
        "simulations": simulations,
        "nodes": int(np.sum(size)),
        "time_s": time.perf_counter() - started,
    }
    return ISMCTSResult(action, visits.astype(np.int32), q, stats)


__all__ = ["ISMCTSResult", "ismcts"]
