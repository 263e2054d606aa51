"""Helpers for batches of states: pytrees whose every leaf has a leading batch axis ``[B, ...]``."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

States = Any  # a game's state pytree with a leading batch axis on every leaf


def bucket_size(n: int, smallest: int = 1) -> int:
    """``n`` rounded up to a power of two, at least ``smallest`` (itself a power of two):
    batches padded to these sizes compile a handful of programs, not one per size."""
    return max(smallest, 1 << (max(n, 1) - 1).bit_length())


def batch_size(states: States) -> int:
    """The common leading dimension ``B`` of a batch of states."""
    return int(jax.tree.leaves(states)[0].shape[0])


def stack(state_list: list[Any]) -> States:
    """A list of single states -> one batch ``[B, ...]`` (numpy leaves)."""
    return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *state_list)


def unstack(states: States) -> list[Any]:
    """A batch ``[B, ...]`` -> a list of B single states (numpy leaves)."""
    states = to_numpy(states)
    return [jax.tree.map(lambda x, i=i: x[i], states) for i in range(batch_size(states))]


def state_shapes(game: Any) -> Any:
    """The shape and dtype of every leaf of one state of ``game`` (a pytree of
    ``jax.ShapeDtypeStruct``), read off ``game.init()`` run eagerly: a game may compute its
    start cheaply only outside a trace."""
    return jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), game.init())


def take(states: States, index: Any) -> States:
    """Gather states by index (or boolean mask) along the batch axis."""
    return jax.tree.map(lambda x: x[index], states)


def concat(batches: list[States]) -> States:
    """Concatenate batches along the batch axis (numpy)."""
    return jax.tree.map(lambda *xs: np.concatenate([np.asarray(x) for x in xs]), *batches)


def repeat(states: States, times: int) -> States:
    """Each state ``times`` times in a row: ``[B] -> [B * times]``."""
    return jax.tree.map(lambda x: jnp.repeat(x, times, axis=0), states)


def pad_to(states: States, size: int, filler: int = 0) -> States:
    """Pad a batch to ``size`` by repeating its state ``filler`` (the first by default;
    numpy).

    Kernels are compiled per input shape, so drivers pad their batches to a few fixed sizes.
    """
    n = batch_size(states)
    if n == size:
        return to_numpy(states)
    if n > size:
        raise ValueError(f"pad_to: batch of {n} is larger than {size}")
    if not 0 <= filler < n:
        raise ValueError(f"pad_to: filler {filler} is not one of the batch's {n} states")
    return jax.tree.map(
        lambda x: np.concatenate(
            [np.asarray(x), np.repeat(np.asarray(x)[filler : filler + 1], size - n, 0)]
        ),
        states,
    )


def to_numpy(states: States) -> States:
    """Bring every leaf to host memory as a numpy array."""
    return jax.tree.map(np.asarray, states)


def state_keys(states: States) -> np.ndarray:
    """One exact, hashable key per state: its leaves' bytes as a numpy void row ``[B]``.

    Two states get the same key exactly when every leaf is equal, so deduplication by key
    never merges different positions (unlike a hash, it cannot collide).
    """
    states = to_numpy(states)
    n = batch_size(states)
    rows = [np.ascontiguousarray(x).reshape(n, -1).view(np.uint8) for x in jax.tree.leaves(states)]
    rows = np.ascontiguousarray(np.concatenate(rows, axis=1))
    return rows.view(np.dtype((np.void, rows.shape[1]))).ravel()


def check_batch(game: Any, states: States, where: str) -> int:
    """The batch size ``N`` of ``states``, after checking (with chex) that they are a batch
    of ``game``'s states: the same pytree as its states, every leaf ``[N, ...]`` of the
    state's shape and dtype. Anything else (one unbatched state, a state of another game,
    a wrong dtype) is a one-line :class:`jaxgames.game.GameError` naming ``where``."""
    import chex

    from jaxgames.game import GameError

    try:
        n = batch_size(states)
        single = state_shapes(game)
        expected = jax.tree.map(lambda x: jax.ShapeDtypeStruct((n, *x.shape), x.dtype), single)
        chex.assert_trees_all_equal_structs(states, expected)
        chex.assert_trees_all_equal_shapes_and_dtypes(states, expected)
    except (AssertionError, ValueError, TypeError, IndexError) as err:
        detail = " ".join(str(err).split())
        raise GameError(
            f"{where}: not a batch [N, ...] of {game.name} states ({detail[:240]})"
        ) from None
    return n
