"""One search tree in fixed arrays: nodes, and the edges of their compact move lists.

A tree holds at most ``N`` nodes and ``E`` edges. A node's children are the edges of its
move list (or, at a chance node, of its outcomes), stored side by side in the edge pool
from ``first`` on, ``count`` of them: the list a node has, never a slot per action, so a
game with 1,924 action slots and 35 legal moves costs 35 edges. An edge's ``child`` is the
node it leads to once a simulation has gone through it (``-1`` before). Every array of a
tree carries its shape (``N`` nodes, ``E`` edges, ``W`` the widest list a node can have,
``P`` players); :mod:`jaxgames.search.mcts.search` works on ``B`` trees at once (a leading
``[B]`` on everything).

Values are utility vectors (one component per player), summed over the simulations that
went through a node, so that each player reads its own component: with two players this is
plain UCT, with more it is maxⁿ-style UCT. ``lower`` and ``upper`` bound the node's exact
value for player 0 (score-bounded MCTS, Cazenave and Saffidine 2010; with win/loss only it
is the MCTS-Solver of Winands, Björnsson and Saito 2008): equal bounds mean the node is
proven.

A search whose selection rule reads all-moves-as-first statistics (RAVE) keeps two more
edge arrays: ``amaf_visits`` and ``amaf_sum``, for each edge (node, move a), the
simulations through the node in which the node's mover played ``a`` at that node or any
later turn (in the tree or in the rollout), and their summed values for that mover (a leaf
valued by ``k`` rollouts counts the share of them that played the move, so the visits are
floats). Other searches keep ``None`` there (no arrays at all).

:func:`descend` keeps the subtree below one of the root's children, renumbered into the
same arrays, for the next search to go on from (tree reuse between moves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxgames.capabilities import MoveLists
from jaxgames.game import CHANCE, Game

NO_NODE = -1


class Tree(NamedTuple):
    """One tree (``N`` nodes, ``E`` edges, lists at most ``W`` wide, ``P`` players)."""

    state: Any  # [N] states
    parent: jax.Array  # int32[N]: the parent node (-1 at the root and in unused slots)
    edge_in: jax.Array  # int32[N]: the edge from the parent
    player: jax.Array  # int32[N]: the player to move, CHANCE at a chance node
    terminal: jax.Array  # bool[N]
    visits: jax.Array  # int32[N]: simulations through the node
    value_sum: jax.Array  # float32[N, P]: their summed values
    first: jax.Array  # int32[N]: the node's first edge (-1: no list, a leaf for now)
    count: jax.Array  # int32[N]: the node's edges
    lower: jax.Array  # float32[N]: the exact value for player 0 is at least this
    upper: jax.Array  # float32[N]: ... and at most this
    action: jax.Array  # int32[E]: an edge's move (or chance outcome)
    prior: jax.Array  # float32[E]: its prior probability (uniform without a policy)
    prob: jax.Array  # float32[E]: its chance probability (1 below a decision)
    child: jax.Array  # int32[E]: the node it leads to (-1: not created yet)
    nodes: jax.Array  # int32[]: nodes used
    edges: jax.Array  # int32[]: edges used
    amaf_visits: jax.Array | None = None  # float32[E]: all-moves-as-first visits (RAVE)
    amaf_sum: jax.Array | None = None  # float32[E]: their summed values for the node's mover


def list_width(game: Game) -> int:
    """``W``: the widest list a node can have (moves, or chance outcomes)."""
    moves = int(game.max_moves) if isinstance(game, MoveLists) else game.num_actions
    return max(moves, game.num_chance_outcomes)


def branches(game: Game, state: Any) -> tuple[jax.Array, jax.Array]:
    """``(actions int32[W], prob float32[W])``: a node's list, then ``-1``; at a decision
    node its legal moves with probability 1, at a chance node its outcomes of positive
    probability with theirs; nothing at a finished game."""
    width = list_width(game)
    if isinstance(game, MoveLists):
        moves = game.legal_moves(state).astype(jnp.int32)
        moves = jnp.full((width,), -1, jnp.int32).at[: moves.shape[0]].set(moves)
    else:
        (moves,) = jnp.nonzero(game.legal_mask(state), size=width, fill_value=-1)
        moves = moves.astype(jnp.int32)
    if game.num_chance_outcomes:
        probs = game.chance_probs(state)
        (outcomes,) = jnp.nonzero(probs > 0, size=width, fill_value=-1)
        chance = game.player(state) == CHANCE
        moves = jnp.where(chance, outcomes.astype(jnp.int32), moves)
        p = jnp.where(outcomes >= 0, probs[jnp.maximum(outcomes, 0)], 0.0)
        prob = jnp.where(chance, p, (moves >= 0).astype(jnp.float32))
    else:
        prob = (moves >= 0).astype(jnp.float32)
    done = game.terminal(state)
    return jnp.where(done, -1, moves), jnp.where(done, 0.0, prob)


def empty(game: Game, root: Any, nodes: int, edges: int, amaf: bool = False) -> Tree:
    """A tree with room for ``nodes`` nodes and ``edges`` edges, nothing in it yet (with
    ``amaf``, with all-moves-as-first statistics)."""
    p = game.num_players
    i32 = lambda n, v: jnp.full((n,), v, jnp.int32)  # noqa: E731
    return Tree(
        state=jax.tree.map(lambda x: jnp.broadcast_to(x, (nodes, *x.shape)), root),
        parent=i32(nodes, NO_NODE),
        edge_in=i32(nodes, -1),
        player=i32(nodes, 0),
        terminal=jnp.zeros((nodes,), jnp.bool_),
        visits=i32(nodes, 0),
        value_sum=jnp.zeros((nodes, p), jnp.float32),
        first=i32(nodes, -1),
        count=i32(nodes, 0),
        lower=jnp.full((nodes,), game.utility_min, jnp.float32),
        upper=jnp.full((nodes,), game.utility_max, jnp.float32),
        action=i32(edges, -1),
        prior=jnp.zeros((edges,), jnp.float32),
        prob=jnp.zeros((edges,), jnp.float32),
        child=i32(edges, NO_NODE),
        nodes=jnp.int32(0),
        edges=jnp.int32(0),
        amaf_visits=jnp.zeros((edges,), jnp.float32) if amaf else None,
        amaf_sum=jnp.zeros((edges,), jnp.float32) if amaf else None,
    )


def add_node(
    game: Game,
    tree: Tree,
    state: Any,
    parent: jax.Array,
    edge: jax.Array,
    logits: jax.Array,
    wanted: jax.Array | bool = True,
    outcome: Callable[[Game, jax.Array], jax.Array] | None = None,
) -> tuple[Tree, jax.Array]:
    """Add ``state`` below ``edge`` of ``parent`` (``-1``: the root) with its list, the
    moves' priors read from ``logits`` (float32[A], or zeros for uniform priors), where
    ``wanted``. A tree out of nodes adds nothing (the index returned is ``-1``); a tree out
    of edges adds the node without a list (it stays a leaf). ``outcome`` scores a finished
    game for its solver bounds (default: its utility). Returns the tree and the new
    node's index. Writes that are not made go out of range and are dropped, so the tree is
    updated in place, never copied; a list's padding past its ``count`` lands on edges not
    used yet (or beyond the pool, dropped)."""
    n_max, e_max = tree.parent.shape[0], tree.action.shape[0]
    width = list_width(game)
    room = wanted & (tree.nodes < n_max)
    at = jnp.where(room, tree.nodes, n_max)  # out of range: every write below is dropped
    moves, prob = branches(game, state)
    count = jnp.sum(moves >= 0, dtype=jnp.int32)
    chance = game.player(state) == CHANCE
    done = game.terminal(state)
    listed = room & ~done & (count > 0) & (tree.edges + count <= e_max)
    prior = jax.nn.softmax(jnp.where(moves >= 0, logits[jnp.maximum(moves, 0)], -jnp.inf))
    prior = jnp.where(chance, prob, jnp.where(moves >= 0, prior, 0.0))
    start = jnp.where(listed, tree.edges, e_max)
    span = start + jnp.arange(width)

    def put(column, value):
        return column.at[at].set(value, mode="drop")

    def put_edges(column, value):
        return column.at[span].set(value, mode="drop")

    scored = game.utility(state) if outcome is None else outcome(game, game.utility(state))
    utility = scored[0] if game.num_players else jnp.float32(0)
    tree = tree._replace(
        state=jax.tree.map(put, tree.state, state),
        parent=put(tree.parent, parent),
        edge_in=put(tree.edge_in, edge),
        player=put(tree.player, game.player(state)),
        terminal=put(tree.terminal, done),
        first=put(tree.first, jnp.where(listed, tree.edges, -1)),
        count=put(tree.count, jnp.where(listed, count, 0)),
        lower=put(tree.lower, jnp.where(done, utility, game.utility_min)),
        upper=put(tree.upper, jnp.where(done, utility, game.utility_max)),
        action=put_edges(tree.action, moves),
        prior=put_edges(tree.prior, prior),
        prob=put_edges(tree.prob, prob),
        child=put_edges(tree.child, jnp.full((width,), NO_NODE, jnp.int32)),
        nodes=tree.nodes + room.astype(jnp.int32),
        edges=tree.edges + jnp.where(listed, count, 0),
    )
    if tree.amaf_visits is not None:
        zero = jnp.zeros((width,), jnp.float32)
        tree = tree._replace(
            amaf_visits=put_edges(tree.amaf_visits, zero), amaf_sum=put_edges(tree.amaf_sum, zero)
        )
    # link the parent's edge to the new node
    tree = tree._replace(
        child=tree.child.at[jnp.where(room & (edge >= 0), edge, e_max)].set(at, mode="drop")
    )
    return tree, jnp.where(room, at, NO_NODE)


class Edges(NamedTuple):
    """A node's list as seen from the node, ``W`` slots (``valid`` marks the real ones)."""

    index: jax.Array  # int32[W]: edge indices
    valid: jax.Array  # bool[W]
    action: jax.Array  # int32[W]
    prior: jax.Array  # float32[W]
    prob: jax.Array  # float32[W]
    child: jax.Array  # int32[W]: child nodes (-1: not created)
    visits: jax.Array  # int32[W]: the children's visits (0 where not created)
    mean: jax.Array  # float32[W, P]: the children's mean values (0 where unvisited)
    lower: jax.Array  # float32[W]: the children's bounds (the value range where not created)
    upper: jax.Array  # float32[W]
    amaf_visits: jax.Array  # float32[W]: all-moves-as-first visits (0 in a tree without them)
    amaf_mean: jax.Array  # float32[W]: their mean value for the node's mover (0 where none)


def edges_of(game: Game, tree: Tree, node: jax.Array) -> Edges:
    """The list of ``node`` with what its children know."""
    width = list_width(game)
    e_max = tree.action.shape[0]
    slots = jnp.arange(width)
    valid = (tree.first[node] >= 0) & (slots < tree.count[node])
    index = jnp.clip(tree.first[node] + slots, 0, e_max - 1)
    child = jnp.where(valid, tree.child[index], NO_NODE)
    made = child >= 0
    safe = jnp.maximum(child, 0)
    visits = jnp.where(made, tree.visits[safe], 0)
    mean = tree.value_sum[safe] / jnp.maximum(visits, 1)[:, None]
    if tree.amaf_visits is None:
        amaf_visits = amaf_mean = jnp.zeros((width,), jnp.float32)
    else:
        amaf_visits = jnp.where(valid, tree.amaf_visits[index], 0.0)
        amaf_mean = jnp.where(
            amaf_visits > 0, tree.amaf_sum[index] / jnp.maximum(amaf_visits, 1e-30), 0.0
        )
    return Edges(
        index=index,
        valid=valid,
        action=jnp.where(valid, tree.action[index], -1),
        prior=jnp.where(valid, tree.prior[index], 0.0),
        prob=jnp.where(valid, tree.prob[index], 0.0),
        child=child,
        visits=visits,
        mean=jnp.where((visits > 0)[:, None], mean, 0.0),
        lower=jnp.where(made, tree.lower[safe], game.utility_min),
        upper=jnp.where(made, tree.upper[safe], game.utility_max),
        amaf_visits=amaf_visits,
        amaf_mean=amaf_mean,
    )


def descend(game: Game, tree: Tree, action: jax.Array) -> Tree:
    """The tree from the root's child by ``action`` (int32: a move, or at a chance root an
    outcome) on, so that the next search from that position starts with what this one
    learned: the child becomes the root, its whole subtree is kept with its visits, values
    and bounds (exact facts about those nodes, so a solver's proofs stay valid), and the
    rest is dropped, its room freed. A child never created, one without a list (the edge
    pool ran out when it was added: as a root it would stay a leaf), or an action not in
    the root's list gives an empty tree (:func:`empty`) at the stepped state; a negative
    action leaves the tree as it is (a finished game, a tree not moved).

    Nodes are created after their parents, so a parent's index is below its children's,
    and a node's list is created with it, so lists lie in the edge pool in node order: the
    kept nodes and edges, renumbered in order by a running count, keep both orders."""
    n_max, e_max = tree.parent.shape[0], tree.action.shape[0]
    root = edges_of(game, tree, jnp.int32(0))
    match = root.valid & (root.action == action)
    child = jnp.where(jnp.any(match), root.child[jnp.argmax(match)], NO_NODE)
    at = jnp.maximum(child, 0)
    kept = (child >= 0) & ((tree.first[at] >= 0) | tree.terminal[at])

    # the child's subtree: the nodes with the child among their ancestors, found by pointer
    # doubling (after k rounds a node has looked 2^k levels up), log N gathers of [N]
    nodes = jnp.arange(n_max, dtype=jnp.int32)
    used = nodes < tree.nodes
    up = jnp.where(used & (tree.parent >= 0), tree.parent, nodes)  # the root points to itself

    def double(_, carry):
        inside, up = carry
        return inside | inside[up], up[up]

    rounds = max(1, (n_max - 1).bit_length())
    inside, _ = jax.lax.fori_loop(0, rounds, double, (nodes == child, up))
    inside &= used & kept
    rank = jnp.cumsum(inside, dtype=jnp.int32) - 1  # a kept node's new index (the child: 0)
    (src,) = jnp.nonzero(inside, size=n_max, fill_value=0)  # new node j is old node src[j]
    live = nodes < jnp.sum(inside, dtype=jnp.int32)

    # each edge's owner: the last node whose list starts at or before it (lists in node order)
    slots = jnp.arange(e_max, dtype=jnp.int32)
    listed = used & (tree.first >= 0)
    starts = jnp.where(listed, tree.first, e_max)
    owner = jax.lax.cummax(jnp.zeros((e_max,), jnp.int32).at[starts].max(nodes, mode="drop"))
    keep_edge = (slots < tree.edges) & inside[owner]  # a kept node keeps its whole list
    edge_rank = jnp.cumsum(keep_edge, dtype=jnp.int32) - 1
    (edge_src,) = jnp.nonzero(keep_edge, size=e_max, fill_value=0)
    edge_live = slots < jnp.sum(keep_edge, dtype=jnp.int32)

    stepped = game.step(jax.tree.map(lambda x: x[0], tree.state), jnp.maximum(action, 0))
    start = jax.tree.map(lambda c, s: jnp.where(kept, c[at], s), tree.state, stepped)
    blank = empty(game, start, n_max, e_max, tree.amaf_visits is not None)  # unused slots

    def node_field(column, fill):
        mask = live.reshape(live.shape + (1,) * (column.ndim - 1))
        return jnp.where(mask, column[src], fill)

    def edge_field(column, fill):
        if column is None:  # no AMAF statistics
            return None
        return jnp.where(edge_live, column[edge_src], fill)

    def renumber(index, ranks):  # an old node (edge) index -> its new one, -1 stays -1
        return jnp.where(index >= 0, ranks[jnp.maximum(index, 0)], -1)

    below = live & (nodes > 0)  # every kept node but the new root has its parent kept
    old_child = tree.child[edge_src]
    out = Tree(
        state=jax.tree.map(node_field, tree.state, blank.state),
        parent=jnp.where(below, renumber(tree.parent[src], rank), NO_NODE),
        edge_in=jnp.where(below, renumber(tree.edge_in[src], edge_rank), -1),
        player=node_field(tree.player, blank.player),
        terminal=node_field(tree.terminal, blank.terminal),
        visits=node_field(tree.visits, blank.visits),
        value_sum=node_field(tree.value_sum, blank.value_sum),
        first=jnp.where(live, renumber(tree.first[src], edge_rank), -1),
        count=node_field(tree.count, blank.count),
        lower=node_field(tree.lower, blank.lower),
        upper=node_field(tree.upper, blank.upper),
        action=edge_field(tree.action, blank.action),
        prior=edge_field(tree.prior, blank.prior),
        prob=edge_field(tree.prob, blank.prob),
        child=jnp.where(edge_live, renumber(old_child, rank), NO_NODE),
        nodes=jnp.sum(inside, dtype=jnp.int32),
        edges=jnp.sum(keep_edge, dtype=jnp.int32),
        amaf_visits=edge_field(tree.amaf_visits, blank.amaf_visits),
        amaf_sum=edge_field(tree.amaf_sum, blank.amaf_sum),
    )
    return jax.tree.map(lambda old, new: jnp.where(action < 0, old, new), tree, out)


def proven(tree: Tree, node: jax.Array) -> jax.Array:
    """bool: the node's exact value is known."""
    return tree.lower[node] >= tree.upper[node]


__all__ = [
    "Edges",
    "NO_NODE",
    "Tree",
    "add_node",
    "branches",
    "descend",
    "edges_of",
    "empty",
    "list_width",
]
