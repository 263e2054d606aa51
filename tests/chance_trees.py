"""Random stochastic trees with explicit movers and a plain-Python EXPECTIMINIMAX over them
(the oracle of the expectiminimax and Monte Carlo tree search tests)."""

import numpy as np

import jaxgames


def brute(node, depth=None):
    """EXPECTIMINIMAX of a tree written with explicit movers, from player 0's side.

    A leaf is a number; a decision node ``{"children": [...], "player": p, "eval": e}``; a
    chance node ``{"chance": [[p, child], ...], "eval": e}``. With a depth, nodes at the
    cutoff score their ``eval`` (0 when absent), as H-MINIMAX does.
    """
    if not isinstance(node, dict):
        return float(node)
    if depth == 0:
        return float(node.get("eval", 0.0))
    below = None if depth is None else depth - 1
    if "chance" in node:
        return sum(p * brute(child, below) for p, child in node["chance"] if p > 0)
    values = [brute(child, below) for child in node["children"]]
    return max(values) if node["player"] == 0 else min(values)


def random_tree(
    rng, depth, player=0, regular=True, zero_prob=0.0, informed=False, chance_width=(1, 3)
):
    """A random stochastic tree, leaves in [-9, 9], EVAL on every internal node.

    ``informed``: EVAL is the node's true value plus noise (a good evaluation function, so
    ordering by it is good ordering); otherwise EVAL is random.

    ``regular``: MAX, chance, MIN, chance, ... (Ballard's *-minimax trees); otherwise node
    kinds are drawn at random (chance below chance, early leaves, the same mover twice).
    ``zero_prob``: chance that an outcome gets probability 0.
    """

    def grow(level, player, chance_next):
        if level == depth or (not regular and level > 0 and rng.random() < 0.15):
            return int(rng.integers(-9, 10))
        is_chance = chance_next if regular else rng.random() < 0.4
        width = int(rng.integers(1, 4))
        if is_chance:
            width = int(rng.integers(chance_width[0], chance_width[1] + 1))
        noise = int(rng.integers(-9, 10))
        if is_chance:
            weights = rng.random(width) + 0.05
            weights[rng.random(width) < zero_prob] = 0.0
            if weights.sum() == 0:
                weights[0] = 1.0
            probs = [float(w) for w in weights / weights.sum()]
            top = int(np.argmax(weights))  # the rounding residue goes to the likeliest
            probs[top] = 1.0 - (sum(probs) - probs[top])
            next_player = 1 - player if regular else int(rng.integers(0, 2))
            node = {"chance": [[p, grow(level + 1, next_player, False)] for p in probs]}
        else:
            kids = [grow(level + 1, player, True) for _ in range(width)]
            node = {"children": kids, "player": player}
        node["eval"] = float(np.clip(brute(node) + noise / 4, -9, 9)) if informed else noise
        return node

    return grow(0, player, False)


def forest(trees):
    """One explicit-tree game whose root's children are the trees (one compile for all)."""
    game = jaxgames.make("tree", tree={"children": trees, "player": 0})
    return game, [game.parse(str(i)) for i in range(len(trees))]
