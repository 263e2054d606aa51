"""Explicit game trees: any finite tree written as nested lists / dicts is a Game.

Every textbook example (AIMA's Figure 5.2, three-player maxⁿ trees, expectiminimax trees with
chance nodes) then runs through the same kernels and searches as a real game.

Node grammar (JSON-compatible)::

    5                                   a leaf: utility [5, -5] with 2 players ([5] with 1)
    [1, 2, 6]                           with num_players == 3: a vector leaf (exactly n numbers)
    {"utility": [3, 1]}                 a leaf given as a full utility vector (any n)
    [child, child, ...]                 a decision node (non-empty)
    {"children": [...], "player": p, "eval": v}
                                        a decision node with an explicit mover and/or EVAL
    {"chance": [[0.5, child], [0.5, child]], "eval": v}
                                        a chance node: probabilities >= 0, summing to 1

The player at a decision node is, by default, ``k % num_players`` where ``k`` counts the
decision nodes above it (chance nodes take no turn, so MAX / chance / MIN / chance alternates as
in AIMA's backgammon tree; without chance nodes ``k`` is the depth, and the root is player 0).
``players=[p0, p1, ...]`` gives the mover per decision level instead (cycled when the tree is
deeper), and ``{"player": p, ...}`` overrides both for one node. EVAL of an internal node is the
zero vector unless written (a scalar v reads as [v, -v] with 2 players, else a vector of n).

The whole tree is flattened at construction to numpy tables (children, mover, chance
probabilities, leaf utilities, EVAL, hash keys); a state is the node id and its depth, and every
protocol function is a gather on those tables. ``utility_min`` / ``utility_max`` are the extremes
over every leaf component and every EVAL (including the default 0 of internal nodes);
``zero_sum`` is True when every leaf and EVAL vector sums to 0.

Positions are paths of child indices from the root, ``"0.1"`` (second child of the first
child); ``""`` or ``"root"`` is the root, which :meth:`ExplicitTree.format` writes as ``"root"``.
"""

from __future__ import annotations

import json
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import CHANCE, Game, GameError, whole_number

# ---------------------------------------------------------------------- built-in examples

AIMA_FIG_5_2 = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
"""AIMA Figure 5.2: MAX at the root, three MIN nodes B, C, D; minimax value 3 (move a1)."""

AIMA_FIG_5_4_THREE_PLAYER = [
    [[[1, 2, 6], [4, 2, 3]], [[6, 1, 2], [7, 4, 1]]],
    [[[5, 1, 1], [1, 5, 2]], [[7, 7, 1], [5, 4, 5]]],
]
"""AIMA Figure 5.4: players A, B, C move at depths 0, 1, 2; maxⁿ value (1, 2, 6)."""

MATEY_NEGAMAX_4PLY = [
    [[[8, 20], [18, 16]], [[24, 20], [10, 12, 4]]],
    [[[8, 21], [11, 5, 10]], [[32, 27], [10, 9, 4, 3]]],
]
"""A 4-ply MAX/MIN/MAX/MIN tree (leaves from the root player's view); minimax value 16."""

MIT_6034_THREE_PLAYER = [
    [[[1, 2, 3], [4, 2, 1]], [[6, 1, 2], [7, 4, -1]]],
    [[[5, -1, -1], [-1, 5, 2]], [[7, 7, -1], [5, 4, 5]]],
]
"""MIT 6.034 three-player tree, players 1, 2, 3 by level; maxⁿ value (1, 2, 3)."""

EXAMPLES: dict[str, tuple[Any, int]] = {
    "aima": (AIMA_FIG_5_2, 2),
    "aima_3player": (AIMA_FIG_5_4_THREE_PLAYER, 3),
    "matey": (MATEY_NEGAMAX_4PLY, 2),
    "mit_3player": (MIT_6034_THREE_PLAYER, 3),
}
"""Built-in trees by name: (tree, number of players)."""

_AIMA_MOVE_NAMES = {"": "a", "0": "b", "1": "c", "2": "d"}  # AIMA's move names: a1, b2, ...

_LEAF, _DECISION, _CHANCE = 0, 1, 2


class State(NamedTuple):
    """A position in an explicit tree."""

    node: jax.Array  # int32 scalar: node id (preorder; the root is 0)
    depth: jax.Array  # int32 scalar: number of steps from the root


def _fmix32(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finaliser (a bijection on uint32), numpy."""
    x = np.asarray(x, np.uint32).copy()
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x85EBCA6B)
    x ^= x >> np.uint32(13)
    x *= np.uint32(0xC2B2AE35)
    x ^= x >> np.uint32(16)
    return x


def _show(path: tuple[int, ...]) -> str:
    return ".".join(map(str, path)) if path else "root"


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


class _Node(NamedTuple):
    kind: int
    player: int
    children: list[int]
    probs: list[float]
    utility: list[float]
    eval: list[float]
    path: tuple[int, ...]
    depth: int


class _Builder:
    """Flatten a nested tree into a preorder list of nodes, checking the grammar."""

    def __init__(self, name: str, num_players: int, players: list[int] | None) -> None:
        self.name = name
        self.n = num_players
        self.players = players
        self.nodes: list[_Node | None] = []

    def fail(self, path: tuple[int, ...], what: str) -> GameError:
        return GameError(f"{self.name}: node at '{_show(path)}' {what}")

    def vector(self, x: Any, path: tuple[int, ...], what: str) -> list[float]:
        """A scalar (2 players: [v, -v]; 1 player: [v]) or a vector of n numbers."""
        if _is_number(x):
            v = float(x)
            if not math.isfinite(v):
                raise self.fail(path, f"has a non-finite {what} {x!r}")
            if self.n == 1:
                return [v]
            if self.n == 2:
                return [v, -v]
            raise self.fail(
                path, f"has the number {x!r} as {what}; a {self.n}-player tree needs {self.n}"
            )
        if isinstance(x, (list, tuple)) and all(_is_number(c) for c in x):
            if len(x) != self.n:
                raise self.fail(
                    path, f"has {what} {list(x)!r} of {len(x)} numbers; expected {self.n}"
                )
            out = [float(c) for c in x]
            if not all(math.isfinite(c) for c in out):
                raise self.fail(path, f"has a non-finite {what} {list(x)!r}")
            return out
        raise self.fail(path, f"has a {what} that is neither a number nor {self.n} numbers")

    def mover(self, path: tuple[int, ...], decisions_above: int, explicit: Any) -> int:
        if explicit is not None:
            if not isinstance(explicit, (int, np.integer)) or isinstance(explicit, bool):
                raise self.fail(path, f"has player {explicit!r}; expected an integer")
            if not 0 <= int(explicit) < self.n:
                raise self.fail(path, f"has player {explicit}; expected 0..{self.n - 1}")
            return int(explicit)
        if self.players:
            return self.players[decisions_above % len(self.players)]
        return decisions_above % self.n

    def add(self, x: Any, path: tuple[int, ...], depth: int, decisions_above: int) -> int:
        node_id = len(self.nodes)
        self.nodes.append(None)  # reserve the preorder slot
        zeros = [0.0] * self.n
        kind, player, children, probs, utility, ev = _LEAF, 0, [], [], zeros, None
        if isinstance(x, dict):
            keys = set(x)
            unknown = keys - {"utility", "children", "chance", "player", "eval"}
            if unknown:
                raise self.fail(path, f"has unknown key(s) {sorted(unknown)}")
            forms = keys & {"utility", "children", "chance"}
            if len(forms) != 1:
                raise self.fail(path, "needs exactly one of 'utility', 'children', 'chance'")
            if "utility" in x:
                if keys - {"utility"}:
                    raise self.fail(path, "is a leaf: 'utility' takes no other keys")
                utility = self.vector(x["utility"], path, "utility")
            elif "children" in x:
                kind, sub = _DECISION, x["children"]
                if not isinstance(sub, (list, tuple)):
                    raise self.fail(path, "has 'children' that is not a list")
                player = self.mover(path, decisions_above, x.get("player"))
                children = list(sub)
            else:
                if "player" in x:
                    raise self.fail(path, "is a chance node and takes no 'player'")
                kind, player = _CHANCE, CHANCE
                pairs = x["chance"]
                if not isinstance(pairs, (list, tuple)):
                    raise self.fail(path, "has 'chance' that is not a list of [prob, child]")
                for i, pair in enumerate(pairs):
                    if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                        raise self.fail(path, f"has chance outcome {i} that is not [prob, child]")
                    p = pair[0]
                    if not _is_number(p) or not math.isfinite(float(p)) or float(p) < 0:
                        raise self.fail(path, f"has chance outcome {i} with bad probability {p!r}")
                    probs.append(float(p))
                    children.append(pair[1])
                if children and abs(sum(probs) - 1.0) > 1e-6:
                    raise self.fail(path, f"has chance probabilities summing to {sum(probs):g}")
            if "eval" in x:
                ev = self.vector(x["eval"], path, "eval")
        elif isinstance(x, (list, tuple)):
            if self.n > 2 and x and all(_is_number(c) for c in x):
                utility = self.vector(x, path, "utility")  # a vector leaf
            else:
                kind, children = _DECISION, list(x)
                player = self.mover(path, decisions_above, None)
        elif _is_number(x):
            utility = self.vector(x, path, "utility")
        else:
            raise self.fail(path, f"is a {type(x).__name__}; expected a number, list or dict")

        if kind != _LEAF and not children:
            raise self.fail(path, "has an empty list of children")
        if kind == _LEAF:
            # The player who would move here (for PLAYER(s) at terminals).
            player = self.mover(path, decisions_above, None)
            ev = utility
        below = decisions_above + (kind == _DECISION)
        child_ids = [self.add(c, (*path, i), depth + 1, below) for i, c in enumerate(children)]
        self.nodes[node_id] = _Node(
            kind, player, child_ids, probs, utility, ev or zeros, path, depth
        )
        return node_id


def _load_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        raise GameError(f"tree: {what} is not valid JSON ({err})") from None


class ExplicitTree(Game):
    """Any finite game tree given as nested lists, chance nodes and vector utilities too.

    Args:
        tree: the tree as nested lists / dicts, or as a JSON string of it. May also be a
            wrapper ``{"tree": ..., "num_players": n, "players": [...]}``.
        num_players: number of players (default: 2, or the built-in example's count).
        players: the mover per decision level, a list of ints or a string ``"0/1/2"``.
        file: path of a JSON file holding the tree (or the wrapper above).
        name: a built-in example: ``aima`` (Figure 5.2, the default), ``aima_3player``
            (Figure 5.4), ``matey`` (a 4-ply minimax tree, value 16), ``mit_3player``.

    At most one of ``tree``, ``file`` and ``name`` may be given.
    """

    name = "tree"

    def __init__(
        self,
        tree: Any = None,
        num_players: int | None = None,
        players: Any = None,
        file: str | None = None,
        name: str | None = None,
    ) -> None:
        given = [k for k, v in (("tree", tree), ("file", file), ("name", name)) if v is not None]
        if len(given) > 1:
            raise GameError(f"tree: give at most one of tree, file, name (got {', '.join(given)})")
        params: dict[str, Any] = {}
        default_players = 2
        if name is not None:
            if name not in EXAMPLES:
                raise GameError(
                    f"tree: unknown example {name!r}; known: {', '.join(sorted(EXAMPLES))}"
                )
            tree, default_players = EXAMPLES[name]
            params["name"] = name
        elif file is not None:
            try:
                with open(file, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError as err:
                raise GameError(f"tree: cannot read file {file!r} ({err.strerror})") from None
            tree = _load_json(text, f"file {file!r}")
            params["file"] = str(file)
        elif tree is None:
            tree = AIMA_FIG_5_2
        else:
            if isinstance(tree, str):
                tree = _load_json(tree, "the tree text")
            try:
                params["tree"] = json.dumps(tree, separators=(",", ":"))
            except (TypeError, ValueError) as err:
                raise GameError(f"tree: the tree is not JSON-compatible ({err})") from None
        given_num_players, given_players = num_players, players
        if isinstance(tree, dict) and "tree" in tree:  # wrapper {"tree": ..., ...}
            extra = set(tree) - {"tree", "num_players", "players"}
            if extra:
                raise GameError(f"tree: unknown wrapper key(s) {sorted(extra)}")
            num_players = num_players if num_players is not None else tree.get("num_players")
            players = players if players is not None else tree.get("players")
            tree = tree["tree"]

        n = default_players if num_players is None else num_players
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise GameError(f"tree: num_players must be a positive integer, got {n!r}")
        n = int(n)
        player_list = self._players(players, n)
        if given_num_players is not None:
            params["num_players"] = n
        if given_players is not None:
            params["players"] = "/".join(map(str, player_list))
        self.params = params
        self.num_players = n

        builder = _Builder("tree", n, player_list)
        try:
            builder.add(tree, (), 0, 0)
        except RecursionError:
            raise GameError("tree: the tree is nested too deeply") from None
        nodes: list[_Node] = builder.nodes  # type: ignore[assignment]
        self._build_tables(nodes)
        self._move_names: dict[int, str] = {}
        if name == "aima" or (name is None and file is None and not params.get("tree")):
            for i, node in enumerate(nodes):
                prefix = _AIMA_MOVE_NAMES.get(".".join(map(str, node.path)))
                if prefix and node.kind == _DECISION:
                    self._move_names[i] = prefix

    @staticmethod
    def _players(players: Any, n: int) -> list[int] | None:
        if players is None:
            return None
        if isinstance(players, str):
            parts = [p for p in players.replace(",", "/").replace(".", "/").split("/") if p]
            try:
                out = [int(p) for p in parts]
            except ValueError:
                raise GameError(f"tree: players {players!r} is not a list of integers") from None
        elif isinstance(players, (int, np.integer)) and not isinstance(players, bool):
            out = [int(players)]
        elif isinstance(players, (list, tuple)) and all(
            isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in players
        ):
            out = [int(p) for p in players]
        else:
            raise GameError(f"tree: players {players!r} is not a list of integers")
        if not out:
            raise GameError("tree: players is empty")
        bad = [p for p in out if not 0 <= p < n]
        if bad:
            raise GameError(f"tree: players {out} names player {bad[0]}; expected 0..{n - 1}")
        return out

    def _build_tables(self, nodes: list[_Node]) -> None:
        num_nodes = len(nodes)
        n = self.num_players
        decision_width = max([len(x.children) for x in nodes if x.kind == _DECISION] or [0])
        chance_width = max([len(x.children) for x in nodes if x.kind == _CHANCE] or [0])
        self.num_actions = max(decision_width, 1)
        self.num_chance_outcomes = chance_width
        width = max(self.num_actions, chance_width)

        children = np.full((num_nodes, width), -1, np.int32)
        probs = np.zeros((num_nodes, max(chance_width, 1)), np.float32)
        legal = np.zeros((num_nodes, self.num_actions), np.bool_)
        player = np.zeros((num_nodes,), np.int32)
        utility = np.zeros((num_nodes, n), np.float32)
        evals = np.zeros((num_nodes, n), np.float32)
        for i, x in enumerate(nodes):
            k = len(x.children)
            children[i, :k] = x.children
            player[i] = x.player
            evals[i] = x.eval
            if x.kind == _DECISION:
                legal[i, :k] = True
            elif x.kind == _CHANCE:
                probs[i, :k] = x.probs
                legal[i, : min(k, self.num_actions)] = np.asarray(x.probs[: self.num_actions]) > 0
            else:
                utility[i] = x.utility
        is_leaf = np.array([x.kind == _LEAF for x in nodes])
        leaf_utilities = utility[is_leaf]
        bounds = np.concatenate([leaf_utilities.ravel(), evals.ravel()])
        self.utility_min = float(bounds.min())
        self.utility_max = float(bounds.max())
        self.zero_sum = bool(
            n >= 2
            and np.all(np.abs(leaf_utilities.sum(axis=1)) <= 1e-6)
            and np.all(np.abs(evals.sum(axis=1)) <= 1e-6)
        )
        self.max_game_length = max(x.depth for x in nodes)
        # per node and player: the extremes of that player's component over the leaf
        # utilities and EVALs of the subtree (preorder: children come after their parent)
        own = np.where(is_leaf[:, None], utility, evals)  # [nodes, n]: what a search returns
        low, high = own.copy(), own.copy()
        for i in range(num_nodes - 1, -1, -1):
            kids = children[i][children[i] >= 0]
            if len(kids):
                low[i] = np.minimum(low[i], low[kids].min(axis=0))
                high[i] = np.maximum(high[i], high[kids].max(axis=0))
        ids = np.arange(num_nodes, dtype=np.uint32)
        keys = np.stack([_fmix32(ids), _fmix32(ids ^ np.uint32(0x9E3779B9))], axis=1)

        self.num_nodes = num_nodes
        self._paths = [x.path for x in nodes]
        self._path_to_node = {x.path: i for i, x in enumerate(nodes)}
        self._np_children = children
        self._np_is_leaf = is_leaf
        self._children = jnp.asarray(children)
        self._probs = jnp.asarray(probs)
        self._legal = jnp.asarray(legal)
        self._player = jnp.asarray(player)
        self._is_leaf = jnp.asarray(is_leaf)
        self._utility = jnp.asarray(utility)
        self._eval = jnp.asarray(evals)
        self._keys = jnp.asarray(keys)
        self._bounds = jnp.asarray(np.stack([low, high], axis=-1))  # [nodes, n, 2]

    # ------------------------------------------------------------------ protocol (traced)
    def _node(self, state: State) -> jax.Array:
        return jnp.clip(state.node, 0, self.num_nodes - 1)

    def init(self) -> State:
        return State(node=jnp.int32(0), depth=jnp.int32(0))

    def player(self, state: State) -> jax.Array:
        return self._player[self._node(state)]

    def legal_mask(self, state: State) -> jax.Array:
        return self._legal[self._node(state)]

    def step(self, state: State, action: jax.Array) -> State:
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, self._children.shape[1] - 1)
        child = self._children[self._node(state), a]
        ok = child >= 0  # stepping a leaf or past the last child leaves the state unchanged
        return State(
            node=jnp.where(ok, child, state.node).astype(jnp.int32),
            depth=jnp.where(ok, state.depth + 1, state.depth).astype(jnp.int32),
        )

    def terminal(self, state: State) -> jax.Array:
        return self._is_leaf[self._node(state)]

    def utility(self, state: State) -> jax.Array:
        return self._utility[self._node(state)]

    def chance_probs(self, state: State) -> jax.Array:
        return self._probs[self._node(state), : self.num_chance_outcomes]

    def evaluate(self, state: State) -> jax.Array:
        return self._eval[self._node(state)]  # equals the utility at leaves

    def hash(self, state: State) -> jax.Array:
        return self._keys[self._node(state)]

    def value_bounds(self, state: State) -> jax.Array:
        """The extremes of the mover's component over the leaf utilities and EVALs below the
        node (the utility bounds at a chance node, which has no mover)."""
        node = self._node(state)
        mover = self._player[node]
        own = self._bounds[node, jnp.clip(mover, 0, self.num_players - 1)]  # [2]
        every = jnp.asarray([self.utility_min, self.utility_max], jnp.float32)
        return jnp.where(mover >= 0, own, every)

    # ------------------------------------------------------------------ host side
    def state_at(self, node: int) -> State:
        """The state of node id ``node`` (preorder numbering, root 0)."""
        node = int(node)
        return State(node=jnp.int32(node), depth=jnp.int32(len(self._paths[node])))

    position_formats = (
        ("path: the child indices from the root, separated by '.'", "0.1"),
        ("the root", "root"),
    )

    def parse(self, text: str) -> State:
        raw = text
        text = text.strip()
        if text.startswith("root"):
            text = text[4:].lstrip(".")
        node, path = 0, ()
        for i, step in enumerate(text.split(".") if text else [], start=1):
            where = f"the node at '{_show(path)}'" if path else "the root"
            try:
                k = whole_number(step.strip())
            except ValueError:
                raise GameError(
                    f"tree: step {i} ({step!r}) of {raw!r}: not a child index"
                ) from None
            count = int((self._np_children[node] >= 0).sum())
            if self._np_is_leaf[node]:
                raise GameError(f"tree: step {i} ({step!r}) of {raw!r}: {where} is a leaf")
            if not 0 <= k < count:
                raise GameError(
                    f"tree: step {i} ({step!r}) of {raw!r}: {where} has {count} children"
                )
            node = int(self._np_children[node, k])
            path = (*path, k)
        return self.state_at(node)

    def format(self, state: State) -> str:
        return _show(self._paths[int(np.asarray(state.node))])

    def action_to_string(self, state: State, action: int) -> str:
        prefix = self._move_names.get(int(np.asarray(state.node)))
        return f"{prefix}{int(action) + 1}" if prefix else str(int(action))

    def string_to_action(self, state: State, text: str) -> int:
        prefix = self._move_names.get(int(np.asarray(state.node)))
        t = text.strip()
        if prefix and t.startswith(prefix) and t[len(prefix) :].isdigit():
            action = int(t[len(prefix) :]) - 1
            self._check_legal(state, action, text)
            return action
        return super().string_to_action(state, t)
