"""Explicit game trees (jaxgames.games.tree) against an independent pure-Python reference.

The reference below (``ref_value``) reads the raw nested lists / dicts itself and computes
minimax / expectimax / maxⁿ by recursion; it shares no code with the package. The package side
is walked only through the Game protocol (``init``, ``player``, ``legal_mask``, ``step``,
``terminal``, ``utility``, ``chance_probs``).
"""

from __future__ import annotations

import json
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import REFERENCE

import jaxgames
from jaxgames import CHANCE, GameError
from jaxgames.games.tree import ExplicitTree

AIMA = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
AIMA_3P = [
    [[[1, 2, 6], [4, 2, 3]], [[6, 1, 2], [7, 4, 1]]],
    [[[5, 1, 1], [1, 5, 2]], [[7, 7, 1], [5, 4, 5]]],
]


def textbook() -> dict:
    return json.loads((REFERENCE / "textbook_trees.json").read_text())


# ---------------------------------------------------------------------- independent reference
def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _vec(x, n):
    if _is_num(x):
        return (float(x),) if n == 1 else (float(x), -float(x))
    return tuple(float(c) for c in x)


def ref_value(node, n=2, players=None, level=0):
    """Minimax / expectimax / maxⁿ value vector of a raw tree; ties go to the first child.

    ``level`` counts decision nodes above (chance nodes take no turn).
    """

    def mover(explicit=None):
        if explicit is not None:
            return explicit
        return players[level % len(players)] if players else level % n

    if _is_num(node) or (isinstance(node, list) and n > 2 and all(_is_num(c) for c in node)):
        return _vec(node, n)
    if isinstance(node, dict) and "utility" in node:
        return _vec(node["utility"], n)
    if isinstance(node, dict) and "chance" in node:
        total = [0.0] * n
        for p, child in node["chance"]:
            v = ref_value(child, n, players, level)
            total = [t + p * c for t, c in zip(total, v, strict=True)]
        return tuple(total)
    if isinstance(node, dict):
        who, children = mover(node.get("player")), node["children"]
    else:
        who, children = mover(), node
    best = None
    for child in children:
        v = ref_value(child, n, players, level + 1)
        if best is None or v[who] > best[who]:
            best = v
    return best


def ref_count(node, n=2, reachable=True):
    """Number of nodes of a raw tree; with ``reachable``, not those below probability-0
    outcomes (which a walk over the legal outcomes never visits)."""
    if _is_num(node) or (isinstance(node, list) and n > 2 and all(_is_num(c) for c in node)):
        return 1
    if isinstance(node, dict) and "utility" in node:
        return 1
    if isinstance(node, dict) and "chance" in node:
        kids = [c for p, c in node["chance"] if p > 0 or not reachable]
        return 1 + sum(ref_count(c, n, reachable) for c in kids)
    children = node["children"] if isinstance(node, dict) else node
    return 1 + sum(ref_count(c, n, reachable) for c in children)


# ---------------------------------------------------------------------- protocol walker
class Walker:
    """Walks a game through its protocol functions; one jitted call per node."""

    def __init__(self, game):
        self.game = game
        width = max(game.num_actions, game.num_chance_outcomes)
        actions = jnp.arange(width, dtype=jnp.int32)

        def info(state):
            children = jax.vmap(game.step, in_axes=(None, 0))(state, actions)
            return (
                game.terminal(state),
                game.player(state),
                game.legal_mask(state),
                game.utility(state),
                game.chance_probs(state),
                children,
            )

        self.info = jax.jit(info)
        self.nodes = 0
        self.leaves = 0

    def value(self, state, path=()):
        """(value vector, best action or None) by expectimax / maxⁿ over the protocol."""
        terminal, player, legal, utility, probs, children = jax.device_get(self.info(state))
        self.nodes += 1
        if terminal:
            self.leaves += 1
            assert not legal.any(), path
            return tuple(float(u) for u in utility), None
        child = lambda a: jax.tree.map(lambda x: x[a], children)  # noqa: E731
        if player == CHANCE:
            assert abs(float(probs.sum()) - 1.0) < 1e-5, path
            shared = min(legal.size, probs.size)
            assert np.array_equal(legal[:shared], probs[:shared] > 0), path
            assert not legal[shared:].any(), path
            total = np.zeros(self.game.num_players)
            for k in np.flatnonzero(probs > 0):  # the outcomes that can happen
                v, _ = self.value(child(k), (*path, int(k)))
                total += probs[k] * np.asarray(v)
            return tuple(float(t) for t in total), None
        best, best_a = None, None
        assert legal.any(), path
        for a in np.flatnonzero(legal):
            v, _ = self.value(child(a), (*path, int(a)))
            if best is None or v[player] > best[player]:
                best, best_a = v, int(a)
        return best, best_a


def walk(game, state=None):
    w = Walker(game)
    value, action = w.value(game.init() if state is None else state)
    return value, action, w


def close(a, b, tol=1e-4):
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------------- textbook examples
def test_aima_fig_5_2():
    game = jaxgames.make("tree")
    assert game is jaxgames.make("tree")
    value, action, w = walk(game)
    assert value == (3.0, -3.0) and action == 0
    assert w.leaves == 9 and w.nodes == 13 == game.num_nodes
    for i, expected in enumerate([3, 2, 2]):
        assert walk(game, game.step(game.init(), i))[0] == (expected, -expected)
    named = jaxgames.make("tree:name=aima")
    assert named is jaxgames.make("tree:name=aima") and named.spec == "tree:name=aima"
    assert walk(named)[0] == (3.0, -3.0)
    # AIMA's move names
    root = game.init()
    assert [game.action_to_string(root, a) for a in range(3)] == ["a1", "a2", "a3"]
    assert game.action_to_string(game.parse("2"), 0) == "d1"
    assert game.string_to_action(game.parse("1"), "c3") == 2
    assert game.string_to_action(root, "1") == 1
    with pytest.raises(GameError):
        game.string_to_action(root, "a4")
    assert (game.num_actions, game.num_chance_outcomes, game.max_game_length) == (3, 0, 2)
    assert (game.utility_min, game.utility_max, game.zero_sum) == (-14.0, 14.0, True)


def test_reference_json_matches_builtins():
    ref = textbook()
    aima = ref["aima_fig_5_2"]
    assert aima["tree"] == AIMA and ExplicitTree(name="aima").params == {"name": "aima"}
    assert ref_value(aima["tree"])[0] == aima["minimax_root"] == 3
    assert [ref_value(c, players=[1])[0] for c in aima["tree"]] == aima["minimax_children"]
    matey = ref["matey_negamax_4ply"]
    from jaxgames.games.tree import EXAMPLES

    assert EXAMPLES["matey"] == (matey["tree_minimax_root_player_utilities"], 2)
    assert EXAMPLES["mit_3player"] == (ref["mit_6034_three_player_maxn"]["tree"], 3)
    assert EXAMPLES["aima"] == (aima["tree"], 2) and EXAMPLES["aima_3player"] == (AIMA_3P, 3)
    for name, tree, n in (
        ("aima", aima["tree"], 2),
        ("matey", matey["tree_minimax_root_player_utilities"], 2),
        ("mit_3player", ref["mit_6034_three_player_maxn"]["tree"], 3),
    ):
        assert walk(jaxgames.make(f"tree:name={name}"))[0] == walk(ExplicitTree(tree, n))[0]
        assert ExplicitTree(name=name).num_nodes == ref_count(tree, n)


def test_matey_4ply():
    ref = textbook()["matey_negamax_4ply"]
    tree = ref["tree_minimax_root_player_utilities"]

    def negamax(node):  # the source's convention: value(node) = -max(value(children))
        return node if _is_num(node) else -max(negamax(c) for c in node)

    raw = ref["source_tree_raw_values"]
    assert negamax(raw) == ref["source_root_value_raw"] == -16
    assert ref_value(tree)[0] == ref["minimax_root"] == 16
    game = jaxgames.make("tree:name=matey")
    value, _, w = walk(game)
    assert value == (16.0, -16.0) and w.leaves == ref["leaves_total"] == 20
    assert game.max_game_length == 4


def test_three_player_maxn():
    ref = textbook()["mit_6034_three_player_maxn"]
    mit = jaxgames.make("tree:name=mit_3player")
    assert mit.num_players == 3 and not mit.zero_sum
    value, action, _ = walk(mit)
    assert value == tuple(ref["maxn_root"]) == ref_value(ref["tree"], 3)
    assert action == 0
    for i, expected in enumerate(ref["maxn_level2"]):
        assert walk(mit, mit.parse(str(i)))[0] == tuple(expected)
    for i, row in enumerate(ref["maxn_level3"]):
        for j, expected in enumerate(row):
            assert walk(mit, mit.parse(f"{i}.{j}"))[0] == tuple(expected)

    aima3 = jaxgames.make("tree:name=aima_3player")
    assert walk(aima3)[0] == (1.0, 2.0, 6.0) == ref_value(AIMA_3P, 3)
    assert [int(aima3.player(aima3.parse(p))) for p in ("", "0", "0.1", "1.1.0")] == [0, 1, 2, 0]
    # leaves lie in [1, 7]; the bounds also cover the default EVAL (0) of internal nodes
    assert (aima3.utility_min, aima3.utility_max) == (0.0, 7.0)


# ---------------------------------------------------------------------- chance and grammar
CHANCE_TREE = [
    {"chance": [[0.5, [3, 7]], [0.25, [[1, 9], 4]], [0.25, {"utility": -2}]]},
    {"chance": [[0.9, 1], [0.1, {"chance": [[0.5, 20], [0.5, [0, 40]]]}]], "eval": 2},
    {"player": 1, "children": [5, 6, {"chance": [[1.0, [8, -8]], [0.0, 100]]}]},
]


def test_chance_tree_expectimax():
    game = ExplicitTree(CHANCE_TREE)
    # By hand. Chance nodes take no turn, so the decision nodes right below them are MIN's.
    c0 = 0.5 * min(3, 7) + 0.25 * min(max(1, 9), 4) + 0.25 * -2  # [[1, 9], 4]: MIN over a MAX
    c1 = 0.9 * 1 + 0.1 * (0.5 * 20 + 0.5 * min(0, 40))
    c2 = min(5, 6, 1.0 * max(8, -8) + 0.0 * 100)  # explicit MIN; [8, -8] is two levels down
    assert (c0, c1, c2) == (2.0, 1.9, 5.0)
    expected = max(c0, c1, c2)
    value, action, w = walk(game)
    assert close(value, (expected, -expected))
    assert close(value, ref_value(CHANCE_TREE))
    assert action == [c0, c1, c2].index(expected)
    assert game.num_chance_outcomes == 3 and game.num_actions == 3
    assert w.nodes == ref_count(CHANCE_TREE) == game.num_nodes - 1  # one outcome has P = 0
    assert game.num_nodes == ref_count(CHANCE_TREE, reachable=False)
    # chance node facts
    s = game.parse("1")
    assert int(game.player(s)) == CHANCE
    assert np.allclose(game.chance_probs(s), [0.9, 0.1, 0.0])
    assert game.legal_mask(s).tolist() == [True, True, False]
    assert np.allclose(game.evaluate(s), [2, -2]) and np.allclose(game.evaluate(game.init()), 0)
    zero_prob = game.parse("2.2")
    assert game.legal_mask(zero_prob).tolist() == [True, False, False]
    assert int(game.player(game.parse("2.2.0"))) == 0
    assert int(game.player(game.parse("0.1"))) == 1  # MIN below the chance node
    assert np.allclose(game.utility(game.parse("0.2")), [-2, 2])
    assert np.allclose(game.evaluate(game.parse("0.2")), [-2, 2])  # EVAL = UTILITY at leaves
    assert (game.utility_min, game.utility_max) == (-100.0, 100.0)


def _random_tree(rng: random.Random, n: int, depth: int):
    """A random raw tree with decision, chance, explicit-player and dict-leaf nodes."""

    def leaf():
        if n == 2:
            v = rng.randint(-9, 9)
            return {"utility": v} if rng.random() < 0.2 else v
        return [rng.randint(-5, 9) for _ in range(n)]

    if depth == 0 or rng.random() < 0.15:
        return leaf()
    k = rng.randint(1, 4)
    kids = [_random_tree(rng, n, depth - 1) for _ in range(k)]
    r = rng.random()
    if r < 0.25:
        weights = [rng.randint(0, 4) for _ in kids]
        weights[0] += 1
        total = sum(weights)
        return {"chance": [[w / total, c] for w, c in zip(weights, kids, strict=True)]}
    if r < 0.4:
        return {"player": rng.randrange(n), "children": kids}
    return kids


@pytest.mark.parametrize("n, seed", [(2, 0), (2, 1), (2, 2), (3, 3), (3, 4), (4, 5)])
def test_random_trees_match_reference(n, seed):
    rng = random.Random(seed)
    tree = _random_tree(rng, n, 5)
    while not isinstance(tree, (list, dict)) or ref_count(tree, n) < 8:
        tree = _random_tree(rng, n, 5)
    players = [rng.randrange(n) for _ in range(3)] if seed % 2 else None
    game = ExplicitTree(tree, num_players=n, players=players)
    value, _, w = walk(game)
    assert close(value, ref_value(tree, n, players)), (value, ref_value(tree, n, players))
    assert w.nodes == ref_count(tree, n)
    assert game.num_nodes == ref_count(tree, n, reachable=False)
    # the bounds cover every leaf component and the default EVAL (0) of internal nodes
    components = [c for x in _leaves(tree, n) for c in ref_value(x, n)] + [0.0]
    assert game.utility_min == pytest.approx(min(components))
    assert game.utility_max == pytest.approx(max(components))


def _is_leaf(node, n):
    if isinstance(node, dict):
        return "utility" in node
    return _is_num(node) or (n > 2 and all(_is_num(c) for c in node))


def _leaves(node, n):
    if _is_leaf(node, n):
        yield node
    elif isinstance(node, dict) and "chance" in node:
        for _, c in node["chance"]:
            yield from _leaves(c, n)
    else:
        for c in node["children"] if isinstance(node, dict) else node:
            yield from _leaves(c, n)


def test_players_and_explicit_movers():
    tree = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
    # player 1 at the root: MIN moves first, then MAX
    game = ExplicitTree(tree, players=[1, 0])
    assert walk(game)[0] == (6.0, -6.0) == ref_value(tree, players=[1, 0])
    assert game.params["players"] == "1/0"
    assert jaxgames.make("tree:players=1/0").params["players"] == "1/0"
    assert ExplicitTree(tree, players="1/0").params == game.params
    single = ExplicitTree(tree, players=0)  # MAX at every level
    assert walk(single)[0] == (14.0, -14.0)
    explicit = ExplicitTree([{"player": 0, "children": [1, 5]}, [9, 2]])
    assert walk(explicit)[0] == (5.0, -5.0)  # MAX moves twice on the left: max(5, min(9, 2))
    one = ExplicitTree([[1, 4], [2]], num_players=1)
    assert walk(one)[0] == (4.0,) and not one.zero_sum


def test_general_sum_and_eval_vectors():
    game = ExplicitTree(
        {"children": [{"utility": [1, 1]}, {"utility": [3, -5]}], "eval": [0.5, 0.5]}
    )
    assert not game.zero_sum
    assert walk(game)[0] == (3.0, -5.0)
    assert np.allclose(game.evaluate(game.init()), [0.5, 0.5])
    zero_sum_3p = ExplicitTree([[1, -1, 0], [2, -3, 1]], num_players=3)
    assert zero_sum_3p.zero_sum and walk(zero_sum_3p)[0] == (2.0, -3.0, 1.0)
    leaf_root = ExplicitTree(7)
    assert bool(leaf_root.terminal(leaf_root.init())) and walk(leaf_root)[0] == (7.0, -7.0)
    assert leaf_root.num_actions == 1 and leaf_root.max_game_length == 0


@pytest.mark.parametrize(
    "tree, n, words",
    [
        ({"chance": [[0.5, 1], [0.4, 2]]}, 2, "summing to 0.9"),
        ([1, {"chance": [[1.5, 1], [-0.5, 2]]}], 2, "bad probability"),
        ([[1, 2, 3], [4, 5]], 3, "of 2 numbers; expected 3"),
        ([[1, 2, 3], 4], 3, "needs 3"),
        ([1, []], 2, "empty list of children"),
        ([1, {"chance": []}], 2, "empty list of children"),
        ({"children": []}, 2, "empty list of children"),
        ([], 2, "empty list of children"),
        ([1, "x"], 2, "is a str"),
        ([1, True], 2, "is a bool"),
        ({"children": [1, 2], "player": 2}, 2, "has player 2"),
        ({"children": [1], "utility": 3}, 2, "exactly one of"),
        ({"kids": [1]}, 2, "unknown key"),
        ({"chance": [[0.5, 1, 2]]}, 2, "not [prob, child]"),
        ({"children": [1, 2], "eval": [1, 2, 3]}, 2, "expected 2"),
    ],
)
def test_bad_trees(tree, n, words):
    with pytest.raises(GameError) as err:
        ExplicitTree(tree, num_players=n)
    message = str(err.value)
    assert words in message and "\n" not in message and message.startswith("tree: ")


def test_bad_parameters(tmp_path):
    for kwargs, words in (
        ({"name": "nope"}, "unknown example"),
        ({"name": "aima", "tree": [1]}, "at most one"),
        ({"tree": "[1, 2"}, "not valid JSON"),
        ({"file": str(tmp_path / "missing.json")}, "cannot read"),
        ({"num_players": 0}, "num_players"),
        ({"players": [0, 2]}, "names player 2"),
        ({"players": "a/b"}, "not a list"),
    ):
        with pytest.raises(GameError, match=words):
            ExplicitTree(**kwargs)
    with pytest.raises(GameError, match="unknown example"):
        jaxgames.make("tree:name=nope")


def test_json_text_file_and_params(tmp_path):
    tree = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
    from_text = ExplicitTree(json.dumps(tree))
    from_list = jaxgames.make("tree", tree=tree)
    assert from_text.params == from_list.params == {"tree": "[[3,12,8],[2,4,6],[14,5,2]]"}
    assert from_text == from_list and hash(from_text) == hash(from_list)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"tree": AIMA_3P, "num_players": 3}))
    from_file = jaxgames.make("tree", file=str(path))
    assert from_file.num_players == 3 and from_file.params == {"file": str(path)}
    assert walk(from_file)[0] == (1.0, 2.0, 6.0)
    assert jaxgames.make(f"tree:file={path}") is from_file
    assert ExplicitTree(tree, num_players=2).params["num_players"] == 2
    assert ExplicitTree(name="aima") != ExplicitTree(name="matey")


# ---------------------------------------------------------------------- positions and kernels
def test_paths_round_trip():
    game = ExplicitTree(CHANCE_TREE)
    seen = set()
    for node in range(game.num_nodes):
        state = game.state_at(node)
        text = game.format(state)
        back = game.parse(text)
        assert int(back.node) == node and int(back.depth) == int(state.depth), text
        # the path is also what stepping from the root gives
        s = game.init()
        for step in text.split(".") if text != "root" else []:
            s = game.step(s, int(step))
        assert int(s.node) == node and int(s.depth) == int(state.depth)
        seen.add(text)
    assert len(seen) == game.num_nodes
    assert game.format(game.init()) == "root"
    for text in ("", "root", "  ", "root.2.2.0"[:4]):
        assert int(game.parse(text).node) == 0
    assert game.format(game.parse("root.2.2")) == "2.2"
    assert game.format(game.parse(" 0.1.0 ")) == "0.1.0"


@pytest.mark.parametrize(
    "text, words",
    [
        ("3", "step 1 ('3') of '3': the root has 3 children"),
        ("0.5", "step 2 ('5') of '0.5': the node at '0' has 3 children"),
        ("0.0.0.1", "step 4 ('1') of '0.0.0.1': the node at '0.0.0' is a leaf"),
        ("0.-1", "step 2 ('-1') of '0.-1'"),
        ("0.x", "step 2 ('x') of '0.x': not a child index"),
        ("0..1", "step 2 ('') of '0..1': not a child index"),
    ],
)
def test_bad_paths(text, words):
    game = ExplicitTree(CHANCE_TREE)
    with pytest.raises(GameError) as err:
        game.parse(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_traced_batched_and_hash():
    game = ExplicitTree(CHANCE_TREE)
    states = jax.tree.map(
        lambda *xs: jnp.stack(xs), *[game.state_at(i) for i in range(game.num_nodes)]
    )
    keys = np.asarray(jax.jit(jax.vmap(game.hash))(states))
    assert keys.dtype == np.uint32 and keys.shape == (game.num_nodes, 2)
    assert len({tuple(k) for k in keys}) == game.num_nodes
    # any action on any state is safe, with the same shapes and dtypes; leaves do not move
    step = jax.jit(jax.vmap(game.step, in_axes=(0, None)))
    for action in (-3, 0, 2, 99):
        out = step(states, jnp.int32(action))
        assert out.node.dtype == jnp.int32 and out.node.shape == (game.num_nodes,)
        assert np.all((np.asarray(out.node) >= 0) & (np.asarray(out.node) < game.num_nodes))
    leaves = np.asarray(jax.vmap(game.terminal)(states))
    moved = step(states, jnp.int32(0))
    assert np.array_equal(np.asarray(moved.node)[leaves], np.arange(game.num_nodes)[leaves])
    masks = jax.vmap(game.legal_mask)(states)
    assert masks.shape == (game.num_nodes, game.num_actions) and masks.dtype == jnp.bool_
    assert jax.vmap(game.chance_probs)(states).shape == (game.num_nodes, 3)
    no_chance = ExplicitTree()
    assert no_chance.chance_probs(no_chance.init()).shape == (0,)
