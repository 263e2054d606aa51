"""Monte Carlo tree search of ``B`` trees at once: one jitted loop of simulations, each
``select`` (every tree walks down from its root), ``expand`` (the new leaves of all trees
stepped, valued and added in one batch) and ``backward`` (each tree's values summed up its
path).

A decision node picks a child by its :class:`~jaxgames.search.mcts.policies.SelectionRule`
from the mover's component of the children's mean values (maxⁿ-style with more than two
players). A chance node's children are its outcomes, and ``chance`` says how they are
weighed:

* ``"expectation"``: outcomes are visited in proportion to their probabilities (the one
  furthest behind its share next), and a chance node's value is the exact expectation
  over its visited outcomes, ``sum p_i Q_i / sum p_i``; what it passes up keeps every
  ancestor's sum equal to visits times that expectation.
* ``"sample"``: an outcome is drawn by its probability and values are plain averages (an
  unbiased estimate of the expectation).

With ``solver`` (two-player zero-sum games), each node carries bounds on its exact value:
a finished game's utility, a decision node's best (or worst) of its children's, a chance
node's expectation of them. Proven children (equal bounds) and children that can no longer
change their parent's value are never selected again; a proven root stops simulating and
its move is one that keeps the proven value.

RAVE: a selection rule that reads all-moves-as-first statistics (an
:class:`~jaxgames.search.mcts.policies.AMAFRule`, such as
:class:`~jaxgames.search.mcts.policies.RAVE`) makes the search keep them, in games whose
moves are places (:class:`~jaxgames.capabilities.PlaceMoves`): ``backward`` walks up the
path carrying the moves each player made below (the edges it came up by, then the
rollouts' moves, which :class:`~jaxgames.search.mcts.policies.Rollouts` reports when asked),
and adds the simulation to the AMAF statistics of every edge of every node on the path
whose move the node's mover played at that node or later.

Tree reuse: :func:`descend` keeps the subtree below the move played (and below the
opponent's reply, a chance outcome, ...), and ``mcts_batch(..., tree=kept)`` goes on
simulating from it, so that what the last search learned about the new position (visits,
values, proofs) counts in the next one.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.capabilities import PlaceMoves
from jaxgames.game import CHANCE, Game, GameError
from jaxgames.kernels import batch_size, local_mesh, shard_batch, stack
from jaxgames.search.lanes import run_on_devices
from jaxgames.search.mcts import tree as trees
from jaxgames.search.mcts.policies import (
    UCT,
    AMAFRule,
    LeafEvaluator,
    Outcome,
    PlayedMoves,
    Rollouts,
    SelectionRule,
    Utility,
)
from jaxgames.search.mcts.tree import NO_NODE, Tree

CHANCE_MODES = ("expectation", "sample")
GOLDEN = 0.6180339887  # the golden ratio's fraction: a low-discrepancy step
EDGES_PER_NODE = 64
"""Edges kept per node by default for games whose lists can be wider than
:data:`FULL_LISTS_UP_TO` (a node whose list does not fit stays a leaf): their lists are
mostly far shorter than their bound (a bound of some 200 moves, some 35 typical)."""
FULL_LISTS_UP_TO = 128
"""Games whose widest list is at most this get room for a full list at every node: their
lists are mostly near their bound (a board game that places stones on a small board: 82
at most, some 50-80 in play)."""


@dataclasses.dataclass(frozen=True)
class MCTSConfig:
    """What one compiled search is (hashable: it keys the compiled program; the number of
    simulations is not part of it, so budgets under one node budget share a program)."""

    nodes: int
    edges: int
    selection: SelectionRule
    evaluator: LeafEvaluator
    chance: str
    solver: bool
    dirichlet: tuple[float, float] | None  # (alpha, fraction) mixed into the root priors
    outcome: Outcome  # how a finished game scores

    @property
    def amaf(self) -> bool:
        """Whether the trees keep all-moves-as-first statistics (the rule reads them)."""
        return isinstance(self.selection, AMAFRule)


class MCTSResult(NamedTuple):
    """What ``B`` searches found; ``W`` is the widest list a node can have.

    ``action`` is the move chosen by :func:`choose_actions` defaults (most visits; a move
    keeping the proven value where the root is proven)."""

    action: np.ndarray  # int32[B]: the chosen move (-1 at a finished game)
    value: np.ndarray  # float32[B, P]: the root's mean value (its exact value if proven)
    moves: np.ndarray  # int32[B, W]: the root's moves (or outcomes), then -1
    visits: np.ndarray  # int32[B, W]: simulations through each
    q: np.ndarray  # float32[B, W]: each move's mean value for the root's mover
    prior: np.ndarray  # float32[B, W]
    proven: np.ndarray  # bool[B]: the root's exact value is known
    lower: np.ndarray  # float32[B]: bounds on the root's exact value for player 0
    upper: np.ndarray  # float32[B]
    tree: Tree  # the trees ([B] leading): to inspect, or to keep with :func:`descend`
    stats: dict[str, Any]


def _pick(game: Game, config: MCTSConfig, tree: Tree, node: jax.Array, uniform: jax.Array):
    """``(slot, ok)``: the slot of ``node``'s list a simulation goes through, and whether
    it has one (``False`` at a finished game or a node without a list)."""
    e = trees.edges_of(game, tree, node)
    mover = tree.player[node]
    choice = e.valid
    if config.solver:
        open_ = e.lower < e.upper
        improves = jnp.where(mover == 0, e.upper > tree.lower[node], e.lower < tree.upper[node])
        keep = e.valid & open_ & jnp.where(mover == CHANCE, True, improves)
        choice = jnp.where(jnp.any(keep), keep, e.valid)
    # ties broken in a random rotation of a fixed order (uniform[1]); drawing fresh random
    # numbers at every level of every descent costs more than the rest of the choice
    slots = jnp.arange(e.valid.shape[0], dtype=jnp.float32)
    noise = jnp.mod(uniform[1] + slots * GOLDEN, 1.0) * 1e-6
    visits = tree.visits[node]
    if config.chance == "sample":
        weights = jnp.where(choice, e.prob, 0.0)
        cdf = jnp.cumsum(weights)
        u = uniform[0] * cdf[-1]
        at_chance = jnp.minimum(jnp.sum(cdf <= u), e.valid.shape[0] - 1)
        at_chance = jnp.where(choice[at_chance], at_chance, jnp.argmax(choice))
    else:  # the outcome furthest behind its share of the visits
        behind = e.prob * (visits + 1) - e.visits
        at_chance = jnp.argmax(jnp.where(choice, behind + noise, -jnp.inf))
    view = jnp.clip(mover, 0, game.num_players - 1)
    # the rules see values on [0, 1] (UCB1's reward range), whatever the game's scale
    low, span = game.utility_min, max(game.utility_max - game.utility_min, 1e-9)
    mean = (tree.value_sum[node, view] / jnp.maximum(visits, 1) - low) / span
    scaled = e._replace(mean=(e.mean - low) / span, amaf_mean=(e.amaf_mean - low) / span)
    scores = config.selection(scaled, visits, mean, view)
    at_decision = jnp.argmax(jnp.where(choice, scores + noise, -jnp.inf))
    slot = jnp.where(mover == CHANCE, at_chance, at_decision)
    ok = (tree.first[node] >= 0) & ~tree.terminal[node] & jnp.any(e.valid)
    return slot, e.index[slot], e.child[slot], ok


def _select(game: Game, config: MCTSConfig, tree: Tree, key: jax.Array):
    """``(node, edge)``: where a simulation leaves the tree: through ``edge`` of ``node``
    to a child not in the tree yet, or at ``node`` itself (``edge = -1``: a finished game,
    or a node without a list)."""

    first = jax.random.uniform(key, (2,))

    def body(carry):
        node, _, _, depth = carry
        # one uniform pair per descent, moved along a low-discrepancy sequence per level
        uniform = jnp.mod(first + depth.astype(jnp.float32) * GOLDEN, 1.0)
        _, edge, child, ok = _pick(game, config, tree, node, uniform)
        deeper = ok & (child >= 0)
        return jnp.where(deeper, child, node), jnp.where(ok, edge, -1), deeper, depth + 1

    limit = tree.parent.shape[0]
    start = (jnp.int32(0), jnp.int32(-1), jnp.bool_(True), jnp.int32(0))
    node, edge, _, _ = jax.lax.while_loop(lambda c: c[2] & (c[3] < limit), body, start)
    return node, edge


def _bounds(game: Game, tree: Tree, node: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``node``'s bounds from its children's (player 0's side)."""
    e = trees.edges_of(game, tree, node)
    mover = tree.player[node]
    lo_max = jnp.max(jnp.where(e.valid, e.lower, -jnp.inf))
    up_max = jnp.max(jnp.where(e.valid, e.upper, -jnp.inf))
    lo_min = jnp.min(jnp.where(e.valid, e.lower, jnp.inf))
    up_min = jnp.min(jnp.where(e.valid, e.upper, jnp.inf))
    lo_exp = jnp.sum(jnp.where(e.valid, e.prob * e.lower, 0.0))
    up_exp = jnp.sum(jnp.where(e.valid, e.prob * e.upper, 0.0))
    lower = jnp.where(mover == CHANCE, lo_exp, jnp.where(mover == 0, lo_max, lo_min))
    upper = jnp.where(mover == CHANCE, up_exp, jnp.where(mover == 0, up_max, up_min))
    listed = (tree.first[node] >= 0) & ~tree.terminal[node] & jnp.any(e.valid)
    return jnp.where(listed, lower, tree.lower[node]), jnp.where(listed, upper, tree.upper[node])


def _update(game: Game, config: MCTSConfig, tree: Tree, node, v):
    """``(total, passed)``: ``node``'s new value sum once ``v`` (float32[P]) comes up
    through it, and what it passes to its parent."""
    total = tree.value_sum[node] + v
    if config.chance == "expectation" and game.num_chance_outcomes:
        e = trees.edges_of(game, tree, node)
        seen = e.valid & (e.visits > 0)
        weight = jnp.sum(jnp.where(seen, e.prob, 0.0))
        expected = jnp.sum(jnp.where(seen[:, None], e.prob[:, None] * e.mean, 0.0), axis=0)
        exact = (tree.player[node] == CHANCE) & (weight > 0)
        n = tree.visits[node]
        total = jnp.where(exact, (n + 1) * expected / jnp.maximum(weight, 1e-30), total)
    return total, total - tree.value_sum[node]  # keeps each ancestor's sum = visits x mean


def _amaf(game: Game, forest: Tree, node, live, below, value, played) -> Tree:
    """All-moves-as-first: add one simulation (value float32[B, P]) to each edge of
    ``node`` (int32[B], where ``live``) whose move the node's mover played at the node or
    later: in the tree (``below``, bool[B, P, A]: the moves each player made on the path
    from the node down) or in the rollouts (``played``: their share and mean value)."""
    rows = jnp.arange(node.shape[0])[:, None]
    width, e_max = trees.list_width(game), forest.action.shape[1]
    slots = jnp.arange(width)
    first, count = forest.first[rows[:, 0], node], forest.count[rows[:, 0], node]
    mover = forest.player[rows[:, 0], node]
    valid = (first[:, None] >= 0) & (slots < count[:, None]) & (live & (mover >= 0))[:, None]
    index = jnp.clip(first[:, None] + slots, 0, e_max - 1)  # [B, W]
    action = jnp.maximum(forest.action[rows, index], 0)
    p = jnp.clip(mover, 0, game.num_players - 1)[:, None]
    in_tree = below[rows, p, action]
    mine = jnp.take_along_axis(value, p, axis=1)  # [B, 1]
    visits = jnp.where(in_tree, 1.0, played.share[rows, p, action])
    sums = jnp.where(in_tree, mine, played.value[rows, p, action])
    at = jnp.where(valid, index, e_max)  # out of range: dropped
    return forest._replace(
        amaf_visits=forest.amaf_visits.at[rows, at].add(visits, mode="drop"),
        amaf_sum=forest.amaf_sum.at[rows, at].add(sums, mode="drop"),
    )


def _backward(
    game: Game, config: MCTSConfig, forest: Tree, leaf, value, active, played=None, came=None
) -> Tree:
    """Add ``value`` (float32[B, P]) to every node from ``leaf`` (int32[B]) up to each
    root, all trees a level at a time. The loop runs over the batch, not inside a vmap: a
    vmapped loop whose trees stop at different depths would select between the old and
    the new forest, a copy of every tree at every level.

    With AMAF statistics, ``played`` says what the rollouts played and ``came`` (int32[B])
    is the edge the simulation took below the leaf without adding a node (-1: none)."""
    b = leaf.shape[0]
    rows = jnp.arange(b)
    beyond = forest.parent.shape[1]  # out of range: a finished tree's writes are dropped
    update = jax.vmap(functools.partial(_update, game, config))
    bounds = jax.vmap(functools.partial(_bounds, game))
    if config.amaf:
        below = jnp.zeros((b, game.num_players, game.num_actions), jnp.bool_)
    else:
        below = came = jnp.zeros((b,), jnp.int32)  # unused

    def body(carry):
        forest, node, v, below, came = carry
        live = node >= 0
        safe = jnp.maximum(node, 0)
        if config.amaf:  # the move made here (the edge come up by) counts from here up
            mover = forest.player[rows, safe]
            made = live & (came >= 0) & (mover >= 0)
            a = forest.action[rows, jnp.maximum(came, 0)]
            p = jnp.where(made, jnp.clip(mover, 0, game.num_players - 1), game.num_players)
            below = below.at[rows, p, jnp.maximum(a, 0)].set(True, mode="drop")
            forest = _amaf(game, forest, safe, live, below, value, played)
            came = forest.edge_in[rows, safe]
        total, passed = update(forest, safe, v)
        at = jnp.where(live, safe, beyond)
        forest = forest._replace(
            visits=forest.visits.at[rows, at].add(1, mode="drop"),
            value_sum=forest.value_sum.at[rows, at].set(total, mode="drop"),
        )
        if config.solver:
            lower, upper = bounds(forest, safe)
            forest = forest._replace(
                lower=forest.lower.at[rows, at].set(lower, mode="drop"),
                upper=forest.upper.at[rows, at].set(upper, mode="drop"),
            )
        up = jnp.where(live, forest.parent[rows, safe], NO_NODE)
        return forest, up, passed, below, came

    start = (forest, jnp.where(active, leaf, NO_NODE), value, below, came)
    forest, *_ = jax.lax.while_loop(lambda c: jnp.any(c[1] >= 0), body, start)
    return forest


def _step_leaves(game: Game, tree: Tree, node, edge):
    """The state a simulation ends at (per tree)."""
    here = jax.tree.map(lambda x: x[node], tree.state)
    action = tree.action[jnp.maximum(edge, 0)]
    child = game.step(here, action)
    return jax.tree.map(lambda c, h: jnp.where(edge >= 0, c, h), child, here)


def _leaf_values(game: Game, config: MCTSConfig, states, key):
    """``(value, logits, played)``: the leaves' values (a finished game's scored by the
    outcome), prior logits, and with AMAF statistics the moves their rollouts played
    (none played, where the evaluator does not say)."""
    evaluation = config.evaluator(game, states, key)
    done = jax.vmap(game.terminal)(states)
    scored = jax.vmap(lambda s: config.outcome(game, game.utility(s)))(states)
    value = jnp.where(done[:, None], scored, evaluation.value)
    played = evaluation.played
    if config.amaf and played is None:
        nothing = jnp.zeros((value.shape[0], game.num_players, game.num_actions), jnp.float32)
        played = PlayedMoves(nothing, nothing)
    return value, evaluation.logits, played


def _roots(game: Game, config: MCTSConfig, roots, key, kept: Tree | None) -> Tree:
    """``B`` trees, each holding its root with its list (priors from the evaluator, with
    Dirichlet noise where asked): new ones, or the ``kept`` trees, where a kept tree that
    is empty gets its root and a kept root gets fresh noise on its priors."""
    b = batch_size(roots)
    _, logits, _ = _leaf_values(game, config, roots, key)
    if config.dirichlet is not None:
        alpha, fraction = config.dirichlet
        prior = jax.nn.softmax(logits, axis=-1)
        noise = jax.random.dirichlet(
            jax.random.fold_in(key, 1), jnp.full((game.num_actions,), alpha), (b,)
        )
        logits = jnp.log((1 - fraction) * prior + fraction * noise + 1e-30)

    def one(root, logit):
        empty = trees.empty(game, root, config.nodes, config.edges, config.amaf)
        tree, _ = trees.add_node(
            game, empty, root, jnp.int32(-1), jnp.int32(-1), logit, outcome=config.outcome
        )
        return tree

    if kept is None:
        return jax.vmap(one)(roots, logits)

    def again(tree, root, logit, key):
        new = tree.nodes == 0
        tree, _ = trees.add_node(
            game, tree, root, jnp.int32(-1), jnp.int32(-1), logit, new, config.outcome
        )
        if config.dirichlet is not None:  # the kept root's priors came without noise
            tree = _noisy_root(game, config, tree, key, ~new)
        return tree

    keys = jax.random.split(jax.random.fold_in(key, 2), b)
    return jax.vmap(again)(kept, roots, logits, keys)


def _noisy_root(game: Game, config: MCTSConfig, tree: Tree, key, wanted) -> Tree:
    """``tree`` with Dirichlet noise mixed into its root's move priors, where ``wanted``.
    The noise is drawn over every list slot and renormalised over the moves: a Dirichlet
    restricted to some of its components and renormalised is the Dirichlet of those."""
    alpha, fraction = config.dirichlet
    e = trees.edges_of(game, tree, jnp.int32(0))
    noise = jnp.where(e.valid, jax.random.dirichlet(key, jnp.full(e.valid.shape, alpha)), 0.0)
    noise = noise / jnp.maximum(jnp.sum(noise), 1e-30)
    prior = (1 - fraction) * e.prior + fraction * noise
    decision = tree.player[0] != CHANCE  # a chance root's priors are its probabilities
    at = jnp.where(e.valid & wanted & decision, e.index, tree.prior.shape[0])
    return tree._replace(prior=tree.prior.at[at].set(prior, mode="drop"))


def _grow(game: Game, config: MCTSConfig, roots, key, simulations, kept=None) -> Tree:
    key, root_key = jax.random.split(key)
    forest = _roots(game, config, roots, root_key, kept)
    b = batch_size(roots)

    def open_roots(forest: Tree) -> jax.Array:
        """bool[B]: trees still worth a simulation (not finished, not proven)."""
        active = ~forest.terminal[:, 0] | (forest.visits[:, 0] == 0)
        if config.solver:
            active &= forest.lower[:, 0] < forest.upper[:, 0]
        return active

    def simulate(carry):
        forest, key, done = carry
        key, k_select, k_eval = jax.random.split(key, 3)
        node, edge = jax.vmap(functools.partial(_select, game, config))(
            forest, jax.random.split(k_select, b)
        )
        leaves = jax.vmap(functools.partial(_step_leaves, game))(forest, node, edge)
        value, logits, played = _leaf_values(game, config, leaves, k_eval)

        def expand(tree, leaf, node, edge, logit, active):
            tree, new = trees.add_node(
                game, tree, leaf, node, edge, logit, active & (edge >= 0), config.outcome
            )
            return tree, jnp.where(new >= 0, new, node), jnp.where(new >= 0, -1, edge)

        active = open_roots(forest)
        forest, leaf, came = jax.vmap(expand)(forest, leaves, node, edge, logits, active)
        forest = _backward(game, config, forest, leaf, value, active, played, came)
        return forest, key, done + 1

    def more(carry):
        forest, _, done = carry
        return (done < simulations) & jnp.any(open_roots(forest))

    forest, _, _ = jax.lax.while_loop(more, simulate, (forest, key, jnp.int32(0)))
    return forest


@dataclasses.dataclass(frozen=True)
class _Trees:
    """What one device runs: its share of the roots, each tree grown to the budget (a
    hashable value, so that equal searches share one compilation)."""

    game: Game
    config: MCTSConfig

    def __call__(self, roots: Any, keys: jax.Array, *rest: Any) -> Tree:
        """``rest``: ``(simulations,)``, or ``(kept trees, simulations)`` to go on from."""
        *kept, simulations = rest
        return _grow(self.game, self.config, roots, keys[0], simulations, *kept)


def _validate(
    game: Game, simulations: int, chance: str, solver: bool, nodes, edges, selection
) -> None:
    if isinstance(selection, AMAFRule) and not (
        isinstance(game, PlaceMoves) and game.moves_are_places
    ):
        raise GameError(
            f"mcts: {type(selection).__name__} needs moves that are places (the PlaceMoves "
            f"capability: an action the same move wherever played); {game.name} has none"
        )
    if simulations < 1:
        raise GameError(f"mcts: simulations must be >= 1, got {simulations}")
    if chance not in CHANCE_MODES:
        raise GameError(f"mcts: chance must be one of {', '.join(CHANCE_MODES)}, got {chance!r}")
    if solver and not (game.num_players == 2 and game.zero_sum):
        raise GameError(
            f"mcts: the solver needs a two-player zero-sum game; {game.name} has "
            f"{game.num_players} players{'' if game.zero_sum else ' and is not zero-sum'}"
        )
    for name, value in (("nodes", nodes), ("edges", edges)):
        if value is not None and value < 1:
            raise GameError(f"mcts: {name} must be >= 1, got {value}")


def mcts_batch(
    game: Game,
    states: Any,
    simulations: int,
    key: jax.Array | int = 0,
    *,
    selection: SelectionRule | None = None,
    evaluator: LeafEvaluator | None = None,
    chance: str = "expectation",
    solver: bool = False,
    nodes: int | None = None,
    edges: int | None = None,
    dirichlet: tuple[float, float] | None = None,
    tree: Tree | None = None,
    outcome: Outcome | None = None,
) -> MCTSResult:
    """Monte Carlo tree search from each of ``B`` roots, all trees at once.

    Args:
        game: any game (chance nodes and any number of players).
        states: a batch ``[B]`` of roots.
        simulations: simulations per tree (each adds at most one node); with ``tree``,
            the simulations added to the kept ones.
        key: a PRNG key or an int seed; a search is deterministic for a key.
        selection: how decision nodes pick children: :class:`UCT` (default, ``c = sqrt 2``),
            :class:`PUCT`, or :class:`RAVE` (games whose moves are places,
            :class:`~jaxgames.capabilities.PlaceMoves`: the trees then keep
            all-moves-as-first statistics, and rollouts report the moves they played).
        evaluator: how new leaves are valued: :class:`Rollouts` (default, one random
            playout), :class:`StaticEval`, :class:`ValueFunction`, :class:`PolicyValue`.
        chance: ``"expectation"`` or ``"sample"`` (the module's docstring says how each
            weighs outcomes).
        solver: back up proven values (two-player zero-sum games).
        nodes: node budget per tree (default ``simulations + 1``; with ``tree``, its own).
        edges: edge budget per tree (default: the widest list per node when it is at most
            :data:`FULL_LISTS_UP_TO`, else :data:`EDGES_PER_NODE` per node; with ``tree``,
            its own).
        dirichlet: ``(alpha, fraction)``: Dirichlet noise mixed into the root priors (a
            kept root's too).
        tree: trees to go on from (``[B]`` leading), typically :func:`descend` of the last
            result's: each must be rooted at its state in ``states``, with this search's
            node and edge budgets. Its visits, values and bounds count as if simulated
            here; a tree left empty (the move was never expanded) starts afresh.
        outcome: how a finished game scores, at terminal nodes (their solver bounds too)
            and at the ends of :class:`Rollouts` whose own ``outcome`` is unset:
            :class:`Utility` (default) or :class:`WinLoss` (won, drawn or lost only; with
            the solver, it proves the win/draw/loss rather than the exact utility).

    Returns:
        An :class:`MCTSResult`.
    """
    _validate(game, simulations, chance, solver, nodes, edges, selection)
    started = time.perf_counter()
    roots = jax.tree.map(jnp.asarray, states)
    if tree is not None:
        nodes, edges = _check_kept(game, roots, tree, nodes, edges, selection)
    width = trees.list_width(game)
    n = int(nodes) if nodes is not None else simulations + 1
    per_node = width if width <= FULL_LISTS_UP_TO else EDGES_PER_NODE
    e = int(edges) if edges is not None else n * per_node + width
    outcome = outcome if outcome is not None else Utility()
    evaluator = evaluator if evaluator is not None else Rollouts()
    if isinstance(evaluator, Rollouts) and evaluator.outcome is None:
        evaluator = dataclasses.replace(evaluator, outcome=outcome)
    if isinstance(evaluator, Rollouts) and isinstance(selection, AMAFRule):
        evaluator = dataclasses.replace(evaluator, played_moves=True)
    config = MCTSConfig(
        nodes=n,
        edges=e,
        selection=selection if selection is not None else UCT(),
        evaluator=evaluator,
        chance=chance,
        solver=bool(solver),
        dirichlet=None if dirichlet is None else (float(dirichlet[0]), float(dirichlet[1])),
        outcome=outcome,
    )
    key = jax.random.key(key) if isinstance(key, int) else key
    # root parallelism: each local device grows its contiguous share of the trees
    devices = jax.local_device_count()
    mesh = local_mesh() if devices > 1 and batch_size(roots) % devices == 0 else None
    keys = jax.random.split(key, devices if mesh is not None else 1)
    sharded = (roots, keys) if tree is None else (roots, keys, tree)
    if mesh is not None:
        sharded = shard_batch(sharded, mesh)
    forest = run_on_devices(_Trees(game, config), mesh, sharded, (jnp.int32(simulations),))
    kept = np.zeros(batch_size(roots), np.int32) if tree is None else np.asarray(tree.visits[:, 0])
    return _result(game, config, jax.block_until_ready(forest), simulations, started, kept)


def _check_kept(game: Game, roots: Any, tree: Tree, nodes, edges, selection) -> tuple[int, int]:
    """The node and edge budgets of the kept trees ``tree``, checked against the search's
    (one-line GameErrors: a tree of another search, batch, game or position)."""
    b = batch_size(roots)
    shape = tuple(tree.parent.shape)
    if len(shape) != 2 or shape[0] != b:
        raise GameError(f"mcts: tree must hold one tree per root, [{b}, nodes], got {shape}")
    n, e = shape[1], int(tree.action.shape[-1])
    for name, asked, has in (("nodes", nodes, n), ("edges", edges, e)):
        if asked is not None and int(asked) != has:
            raise GameError(f"mcts: the tree has {name}={has}, the search asks for {asked}")
    if (tree.amaf_visits is not None) != isinstance(selection, AMAFRule):
        has = "has" if tree.amaf_visits is not None else "has no"
        raise GameError(
            f"mcts: the tree {has} all-moves-as-first statistics; search it with a selection "
            f"rule that {'reads' if tree.amaf_visits is not None else 'does not read'} them"
        )
    if jax.tree.structure(tree.state) != jax.tree.structure(roots) or any(
        t.shape[2:] != r.shape[1:] or t.dtype != r.dtype
        for t, r in zip(jax.tree.leaves(tree.state), jax.tree.leaves(roots), strict=True)
    ):
        raise GameError(f"mcts: the tree's states are not {game.name} states like the roots")
    for t, r in zip(jax.tree.leaves(tree.state), jax.tree.leaves(roots), strict=True):
        t, r = np.asarray(t[:, 0]), np.asarray(r)
        close = np.isclose(t, r) if np.issubdtype(r.dtype, np.floating) else t == r
        wrong = np.flatnonzero(~close.reshape(b, -1).all(axis=1))
        if wrong.size:
            raise GameError(
                f"mcts: tree {wrong[0]} is rooted elsewhere than its state "
                "(descend it by the moves played)"
            )
    return n, e


def _result(
    game: Game,
    config: MCTSConfig,
    forest: Tree,
    simulations: int,
    started: float,
    kept: np.ndarray,
) -> MCTSResult:
    root = jnp.zeros((batch_size(forest.parent),), jnp.int32)
    e = jax.vmap(functools.partial(trees.edges_of, game))(forest, root)
    mover = np.asarray(forest.player[:, 0])
    view = np.clip(mover, 0, game.num_players - 1)
    visits = np.asarray(e.visits)
    mean = np.asarray(e.mean)  # [B, W, P]
    q = np.take_along_axis(mean, view[:, None, None], axis=2)[..., 0]
    valid = np.asarray(e.valid)
    moves = np.asarray(e.action)
    lower, upper = np.asarray(forest.lower[:, 0]), np.asarray(forest.upper[:, 0])
    proven = config.solver & (lower >= upper)
    root_visits = np.asarray(forest.visits[:, 0])
    value = np.asarray(forest.value_sum[:, 0]) / np.maximum(root_visits, 1)[:, None]
    if config.solver and game.num_players == 2:
        exact = np.stack([lower, -lower], axis=1)
        value = np.where(proven[:, None], exact, value)
    # most visits, then the higher mean; a proven root keeps to a move holding its value
    score = np.where(valid, visits + 1e-3 * np.tanh(q), -np.inf)
    if config.solver:  # a child whose value is at least the root's (for its mover)
        child_lo, child_up = np.asarray(e.lower), np.asarray(e.upper)
        keeps = np.where(
            (view == 0)[:, None], child_lo >= lower[:, None], child_up <= upper[:, None]
        )
        score = np.where(proven[:, None] & valid & keeps, score + 1e9, score)
    decided = valid.any(axis=1) & (mover != CHANCE)
    action = np.where(decided, moves[np.arange(len(moves)), np.argmax(score, axis=1)], -1)
    stats = {
        "simulations": simulations,
        "kept_visits": kept,  # int32[B]: the root's visits kept from an earlier search
        "nodes": np.asarray(forest.nodes),
        "edges": np.asarray(forest.edges),
        "time_s": time.perf_counter() - started,
    }
    if config.amaf:  # the root's moves' all-moves-as-first visits and mean values (mover's)
        stats["amaf_visits"] = np.asarray(e.amaf_visits)
        stats["amaf_q"] = np.asarray(e.amaf_mean)
    return MCTSResult(
        action=action.astype(np.int32),
        value=value.astype(np.float32),
        moves=moves,
        visits=visits,
        q=q.astype(np.float32),
        prior=np.asarray(e.prior),
        proven=np.asarray(proven),
        lower=lower,
        upper=upper,
        tree=forest,
        stats=stats,
    )


def mcts(game: Game, state: Any, simulations: int, key: jax.Array | int = 0, **options: Any):
    """:func:`mcts_batch` of one root; the result's arrays have no batch axis (its tree,
    and a ``tree`` to go on from, keep theirs: ``[1]``)."""
    result = mcts_batch(game, stack([state]), simulations, key, **options)
    return MCTSResult(
        *(x[0] if isinstance(x, np.ndarray) else x for x in result[:-2]),
        tree=result.tree,
        stats=result.stats,
    )


@functools.partial(jax.jit, static_argnums=0)
def _descend_all(game: Game, forest: Tree, actions: jax.Array) -> Tree:
    return jax.vmap(functools.partial(trees.descend, game))(forest, actions)


def descend(game: Game, searched: Tree | MCTSResult, actions: Any) -> Tree:
    """Tree reuse: each tree kept from its root's child by ``actions[b]`` on, to pass as
    ``mcts_batch(..., tree=)`` from the position that move leads to, so that the next
    search starts with what this one learned there instead of from nothing.

    Args:
        game: the game searched.
        searched: the trees (``[B]`` leading), or the result holding them.
        actions: int[B]: the move played at each root (at a chance root, the outcome); a
            negative entry leaves that tree as it is. Call again for each move after it
            (the opponent's, chance's).

    Returns:
        The trees, each rooted at the child (its subtree's visits, values and bounds kept,
        the rest dropped and its room freed), or empty at the stepped state where the
        child was never expanded (see :func:`jaxgames.search.mcts.tree.descend`).
    """
    forest = searched.tree if isinstance(searched, MCTSResult) else searched
    b = forest.parent.shape[0]
    actions = np.asarray(actions)
    if actions.shape != (b,) or not np.issubdtype(actions.dtype, np.integer):
        raise GameError(f"mcts: descend needs one int action per tree, [{b}], got {actions.shape}")
    return _descend_all(game, forest, jnp.asarray(actions, jnp.int32))


__all__ = ["CHANCE_MODES", "MCTSConfig", "MCTSResult", "descend", "mcts", "mcts_batch"]
