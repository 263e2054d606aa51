"""Every batched kernel agrees with the unbatched protocol functions (property tests)."""

import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jaxgames.kernels import (
    batched,
    expand,
    expand_all,
    playouts,
    sample_actions,
    sample_legal,
    stack,
    take,
    unstack,
)
from nim import Nim

import jaxgames
from jaxgames.capabilities import Hashing
from jaxgames.game import CHANCE

BATCH = 12  # one batch size for every kernel: one compilation per game and kernel

CHANCE_TREE = [{"chance": [[0.25, [1, 5]], [0.75, [[-2, 3], 4]]]}, [0, {"chance": [[1.0, 2]]}]]

GAMES = {
    "nim": lambda: Nim(9),
    "nim_dice": lambda: Nim(9, dice=True),
    "tictactoe": lambda: jaxgames.make("tictactoe"),
    "connect4": lambda: jaxgames.make("connect4"),
    "connect4_5x4": lambda: jaxgames.make("connect4", width=5, height=4),
    "tree_chance": lambda: jaxgames.make("tree", tree=CHANCE_TREE),
    "uniform_tree": lambda: jaxgames.make("uniform_tree", branching=3, depth=5, ordering="best"),
}


@functools.cache
def unbatched(game):
    return {
        name: jax.jit(getattr(game, name))
        for name in [
            "player",
            "legal_mask",
            "step",
            "terminal",
            "utility",
            "evaluate",
            "chance_probs",
        ]
    } | ({"hash": jax.jit(game.hash)} if isinstance(game, Hashing) else {})


def random_states(game, seed: int, n: int = BATCH) -> list:
    """n states reached by uniformly random play with the UNBATCHED protocol functions."""
    f = unbatched(game)
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(n):
        state = game.init()
        for _ in range(int(rng.integers(0, game.max_game_length + 1))):
            if bool(f["terminal"](state)):
                break
            if int(f["player"](state)) == CHANCE:
                probs = np.asarray(f["chance_probs"](state), np.float64)
                action = rng.choice(len(probs), p=probs / probs.sum())
            else:
                action = rng.choice(np.flatnonzero(np.asarray(f["legal_mask"](state))))
            state = f["step"](state, jnp.int32(action))
        states.append(state)
    return states


@pytest.fixture(scope="module", params=sorted(GAMES))
def game(request):
    return GAMES[request.param]()


def assert_trees_equal(a, b):
    chex.assert_trees_all_equal_structs(a, b)
    chex.assert_trees_all_equal(a, b)


@given(seed=st.integers(0, 2**31 - 1))
def test_batched_equals_unbatched(game, seed):
    states = random_states(game, seed)
    batch = stack(states)
    kernels = batched(game)
    f = unbatched(game)
    for name in f:
        if name == "step":
            continue
        got = getattr(kernels, name)(batch)
        for i, state in enumerate(states):
            chex.assert_trees_all_close(got[i], f[name](state), custom_message=name)
    leaves = np.asarray(kernels.leaf_values(batch))
    for i, state in enumerate(states):  # a leaf is scored by UTILITY if terminal, else EVAL
        scorer = f["utility"] if bool(f["terminal"](state)) else f["evaluate"]
        np.testing.assert_allclose(leaves[i], np.asarray(scorer(state)))
    actions = np.random.default_rng(seed).integers(0, game.num_actions, BATCH).astype(np.int32)
    stepped = unstack(kernels.step(batch, actions))
    for i, state in enumerate(states):
        assert_trees_equal(stepped[i], f["step"](state, jnp.int32(actions[i])))


@given(seed=st.integers(0, 2**31 - 1))
def test_expand_lists_every_legal_child_in_order(game, seed):
    states = random_states(game, seed)
    front = expand(game, stack(states))
    f = unbatched(game)
    expected = []
    for i, state in enumerate(states):
        if int(f["player"](state)) == CHANCE and not bool(f["terminal"](state)):
            probs = np.asarray(f["chance_probs"](state))
            expected += [(i, k, probs[k]) for k in np.flatnonzero(probs > 0)]
        else:
            legal = np.asarray(f["legal_mask"](state))
            expected += [(i, a, 1.0) for a in np.flatnonzero(legal)]
    count = int(front.count)
    assert count == len(expected)
    got = list(
        zip(
            np.asarray(front.parent)[:count].tolist(),
            np.asarray(front.action)[:count].tolist(),
            np.asarray(front.prob)[:count].tolist(),
            strict=True,
        )
    )
    assert [(p, a) for p, a, _ in got] == [(p, int(a)) for p, a, _ in expected]
    np.testing.assert_allclose([q for *_, q in got], [q for *_, q in expected], rtol=1e-6)
    children = unstack(take(front.children, slice(0, count)))
    for child, (parent, action, _) in zip(children, expected, strict=True):
        assert_trees_equal(child, f["step"](states[parent], jnp.int32(action)))


@pytest.mark.parametrize("game", ["tictactoe", "tree_chance"], indirect=True)
def test_sparse_expansion_equals_the_fused_kernel(game):
    """The host-compacted expansion (for wide action spaces) gives the same children."""
    states = stack(random_states(game, 3) * 3)
    fused = expand_all(game, states, chunk=4, sparse=False)
    sparse = expand_all(game, states, chunk=4, sparse=True)
    assert sparse.count == fused.count
    for a, b in zip(fused[1:4], sparse[1:4], strict=True):
        np.testing.assert_array_equal(a, b)
    assert_trees_equal(fused.children, sparse.children)


def test_playouts_end_in_terminal_states_with_consistent_lengths(game):
    states = stack(random_states(game, 7, n=3))
    result = playouts(game, states, 4, jax.random.key(0))
    assert result.utilities.shape == (3, 4, game.num_players)
    assert not bool(result.truncated.any())
    assert bool((result.lengths <= game.max_game_length).all())
    u = np.asarray(result.utilities)
    assert (u >= game.utility_min - 1e-6).all() and (u <= game.utility_max + 1e-6).all()
    np.testing.assert_allclose(np.asarray(result.mean_utility), u.mean(axis=1), rtol=1e-6)


@given(
    weights=st.lists(
        st.lists(st.sampled_from([0.0, 0.0, 1e-3, 0.25, 1.0, 3.0]), min_size=6, max_size=6),
        min_size=8,
        max_size=8,
    ).filter(lambda rows: all(any(w > 0 for w in row) for row in rows)),
    uniform=st.lists(st.sampled_from([0.0, 0.3, 0.5, 0.999, 1.0 - 2**-24]), min_size=8, max_size=8),
)
def test_sampling_never_draws_a_zero_weight_branch(weights, uniform):
    w = np.asarray(weights, np.float32)
    drawn = np.asarray(sample_actions(jnp.asarray(w), jnp.asarray(uniform, jnp.float32)))
    assert (w[np.arange(8), drawn] > 0).all()


def test_sampling_follows_the_weights():
    weights = jnp.tile(jnp.array([[0.0, 1.0, 0.0, 3.0]], jnp.float32), (40_000, 1))
    drawn = np.asarray(sample_actions(weights, jax.random.uniform(jax.random.key(1), (40_000,))))
    freq = np.bincount(drawn, minlength=4) / drawn.size
    sigma = np.sqrt(0.25 * 0.75 / drawn.size)
    assert freq[0] == 0 and freq[2] == 0
    assert abs(freq[1] - 0.25) < 5 * sigma


@given(
    width=st.sampled_from([65, 1000]),
    seed=st.integers(0, 2**31 - 1),
    density=st.sampled_from([0.001, 0.02, 0.5]),
    uniform=st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0 - 2**-24]), min_size=8, max_size=8),
)
def test_wide_legal_sampling_draws_the_k_th_legal_action(width, seed, density, uniform):
    """Wider action spaces take other paths (a triangular product; block, then action):
    the same draws."""
    rng = np.random.default_rng(seed)
    mask = rng.random((8, width)) < density
    mask[np.arange(8), rng.integers(0, width, 8)] = True  # every row has a legal action
    drawn = np.asarray(sample_legal(jnp.asarray(mask), jnp.asarray(uniform, jnp.float32)))
    for row, u, a in zip(mask, uniform, drawn, strict=True):
        legal = np.flatnonzero(row)
        assert a == legal[min(int(np.float32(u) * np.float32(len(legal))), len(legal) - 1)]


@given(
    rows=st.lists(
        st.lists(st.booleans(), min_size=7, max_size=7).filter(any), min_size=8, max_size=8
    ),
    uniform=st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0 - 2**-24]), min_size=8, max_size=8),
)
def test_uniform_legal_sampling_only_draws_legal_actions(rows, uniform):
    mask = np.asarray(rows)
    drawn = np.asarray(sample_legal(jnp.asarray(mask), jnp.asarray(uniform, jnp.float32)))
    assert mask[np.arange(8), drawn].all()
    # the k-th legal action for k = floor(u * n): the draw is uniform over the legal ones
    for row, u, a in zip(mask, uniform, drawn, strict=True):
        legal = np.flatnonzero(row)
        assert a == legal[min(int(np.float32(u) * np.float32(len(legal))), len(legal) - 1)]


def test_a_wrong_batch_is_one_line_naming_the_kernel():
    """The public kernels check their input's shapes and dtypes (chex) before tracing."""
    game = jaxgames.make("connect4")
    single = game.init()  # one state, not a batch
    other = stack([jaxgames.make("tictactoe").init()] * 2)
    halved = jax.tree.map(lambda x: np.asarray(x).astype(np.int16), stack([single] * 2))
    for bad in (single, other, halved):
        for call, where in (
            (lambda s: playouts(game, s, 2, jax.random.key(0)), "playouts"),
            (lambda s: expand_all(game, s), "expand_all"),
        ):
            with pytest.raises(jaxgames.GameError, match=f"^{where}: not a batch") as info:
                call(bad)
            assert "\n" not in str(info.value)
