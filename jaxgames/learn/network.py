"""The value network: a small multilayer perceptron in Equinox, and its checkpoints.

``ValueNet`` maps a feature vector (``float32[F]``, the game's encoding of a position) to
the probability that the player who made the position wins: ``sigmoid`` hidden units and a
``sigmoid`` output, as in TD-Gammon (198-40-1 there). The network is an Equinox module, so
it is a pytree of arrays: ``jax.grad`` differentiates it, ``optax`` updates it and
``jax.vmap`` scores a batch of positions with it, with no framework state besides.

Checkpoints are one plain ``.npz`` file: the arrays of the module (``leaf_0``,
``leaf_1``, ...) and of the optimizer state, plus ``meta`` (a JSON string: the game, the
layer sizes, the games trained, the training options, the learning curve). Nothing in it
is pickled, so a checkpoint loads with numpy alone and cannot run code.
"""

from __future__ import annotations

import json
import os
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.game import GameError

CHECKPOINT_FORMAT = 1


class ValueNet(eqx.Module):
    """``features float32[F] -> float32[]`` in (0, 1): the win probability of the side that
    made the position (sigmoid hidden layers, sigmoid output)."""

    layers: list[eqx.nn.Linear]

    def __init__(self, sizes: tuple[int, ...], key: jax.Array) -> None:
        if len(sizes) < 2 or any(s < 1 for s in sizes):
            raise GameError(f"network sizes {sizes}: need at least inputs and one output >= 1")
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [
            eqx.nn.Linear(n_in, n_out, key=k)
            for n_in, n_out, k in zip(sizes[:-1], sizes[1:], keys, strict=True)
        ]

    @property
    def sizes(self) -> tuple[int, ...]:
        return (self.layers[0].in_features,) + tuple(layer.out_features for layer in self.layers)

    def logit(self, features: jax.Array) -> jax.Array:
        """float32[]: the output before its sigmoid (features ``float32[F]``)."""
        h = features
        for layer in self.layers[:-1]:
            h = jax.nn.sigmoid(layer(h))
        return self.layers[-1](h)[0]

    def __call__(self, features: jax.Array) -> jax.Array:
        """float32[]: the win probability of the side that made the position."""
        return jax.nn.sigmoid(self.logit(features))


def make_net(sizes: tuple[int, ...], seed: int = 0, init_scale: float = 1.0) -> ValueNet:
    """A fresh network; ``init_scale`` scales the initial weights (a small output layer
    starts every position near 0.5, so early self-play is close to random, as TD-Gammon's
    was)."""
    net = ValueNet(tuple(int(s) for s in sizes), jax.random.key(seed))
    if init_scale != 1.0:
        net = jax.tree.map(lambda w: w * init_scale, net)
    return net


def score_batch(net: ValueNet, features: jax.Array) -> jax.Array:
    """float32[N]: the network on ``features float32[N, F]``."""
    return jax.vmap(net)(features)


# ---------------------------------------------------------------------- checkpoints
def save_checkpoint(path: str, net: ValueNet, meta: dict[str, Any], opt_state: Any = None) -> int:
    """Write ``net`` (and the optimizer state, for resuming) with ``meta`` to ``path``
    (``.npz``), atomically (a temporary file, then a rename). Returns the file's size in
    bytes."""
    arrays: dict[str, np.ndarray] = {}
    for i, leaf in enumerate(jax.tree.leaves(net)):
        arrays[f"leaf_{i}"] = np.asarray(leaf)
    opt_leaves = jax.tree.leaves(opt_state) if opt_state is not None else []
    for i, leaf in enumerate(opt_leaves):
        arrays[f"opt_{i}"] = np.asarray(leaf)
    full = dict(meta, format=CHECKPOINT_FORMAT, sizes=list(net.sizes), opt_leaves=len(opt_leaves))
    arrays["meta"] = np.asarray(json.dumps(full))
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = path + ".tmp.npz"
    np.savez(tmp, **arrays)
    os.replace(tmp, path)
    return os.path.getsize(path)


def read_meta(path: str) -> dict[str, Any]:
    """The metadata of a checkpoint (a one-line GameError when it is not one)."""
    with _open(path) as data:
        return json.loads(str(data["meta"]))


def load_checkpoint(path: str, opt_state_like: Any = None) -> tuple[ValueNet, dict, Any]:
    """``(net, meta, opt_state)`` from a checkpoint written by :func:`save_checkpoint`;
    ``opt_state`` is rebuilt on the structure of ``opt_state_like`` (None: not read)."""
    with _open(path) as data:
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != CHECKPOINT_FORMAT:
            raise GameError(f"checkpoint {path!r}: unknown format {meta.get('format')!r}")
        template = make_net(tuple(meta["sizes"]))
        leaves, treedef = jax.tree.flatten(template)
        loaded = [jnp.asarray(data[f"leaf_{i}"]) for i in range(len(leaves))]
        for old, new in zip(leaves, loaded, strict=True):
            if old.shape != new.shape:
                raise GameError(f"checkpoint {path!r}: array of shape {new.shape}, not {old.shape}")
        net = jax.tree.unflatten(treedef, loaded)
        opt_state = None
        if opt_state_like is not None and meta.get("opt_leaves"):
            opt_leaves, opt_def = jax.tree.flatten(opt_state_like)
            if len(opt_leaves) == meta["opt_leaves"]:
                opt_state = jax.tree.unflatten(
                    opt_def, [jnp.asarray(data[f"opt_{i}"]) for i in range(len(opt_leaves))]
                )
    return net, meta, opt_state


def load_eval_network(path: str, game_name: str, num_features: int) -> ValueNet:
    """The network of checkpoint ``path`` for a game's EVAL (a one-line GameError if it is
    not a checkpoint of this game or its inputs are not the game's encoding)."""
    net, meta, _ = load_checkpoint(path)
    if meta.get("game") != game_name:
        raise GameError(f"eval {path!r}: a checkpoint of {meta.get('game')!r}, not {game_name!r}")
    if net.sizes[0] != num_features:
        raise GameError(f"eval {path!r}: {net.sizes[0]} inputs, the encoding has {num_features}")
    return net


def _open(path: str):
    if not os.path.isfile(path):
        raise GameError(f"checkpoint {path!r}: no such file")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise GameError(f"checkpoint {path!r}: not a .npz checkpoint ({err})") from None
    if "meta" not in data.files:
        data.close()
        raise GameError(f"checkpoint {path!r}: no metadata (not written by jaxgames.learn)")
    return data
