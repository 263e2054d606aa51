"""Several devices and several processes, simulated on the CPU in subprocesses.

``--xla_force_host_platform_device_count`` makes one CPU look like several devices; it must
be set before JAX is imported, hence the subprocesses. Two processes on localhost join JAX's
multi-process runtime for real (``jax.distributed.initialize``).
"""

import json
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jaxgames
import jaxgames.search
from jaxgames import kernels

pytestmark = pytest.mark.slow  # compiles many searches: outside the fast subset

POSITIONS = ["4453", "44", "3246313", "2416615552", "44455554221"]
DEPTH = 2

FOUR_DEVICES = textwrap.dedent(
    """
    import json, sys
    import jax, jax.numpy as jnp, numpy as np
    import jaxgames, jaxgames.search
    from jaxgames import kernels

    positions, depth = json.loads(sys.argv[1]), int(sys.argv[2])
    game = jaxgames.make("connect4")
    states = kernels.pad_to(kernels.stack([game.parse(p) for p in positions]), 8)
    sharded = kernels.shard_batch(states)
    actions = jax.device_put(np.arange(8, dtype=np.int32) % 7, kernels.batch_sharding())
    step = kernels.batched(game).step(sharded, actions)
    legal = kernels.batched(game).legal_mask(sharded)
    plain = kernels.batched(game).step(states, np.arange(8, dtype=np.int32) % 7)

    seen = []  # the sharding of every batch the bulk evaluation hands to the search
    search = jaxgames.search.minimax_batch
    def spy(game, states, depth, **options):
        leaf = jax.tree.leaves(states)[0]
        seen.append([leaf.shape[0], len(leaf.sharding.device_set)])
        return search(game, states, depth, **options)
    jaxgames.search.minimax_batch = spy
    rows = jaxgames.evaluate(game, positions, algorithm="minimax", depth=depth, chunk_size=3)

    print(json.dumps({
        "devices": jax.device_count(),
        "step_devices": len(step.board.sharding.device_set),
        "legal_devices": len(legal.sharding.device_set),
        "shard_rows": [s.data.shape[0] for s in step.board.addressable_shards],
        "same_as_one_device": bool(np.array_equal(step.board, plain.board)),
        "searched": seen,
        "rows": rows,
    }))
    """
)


def on_four_devices(script: str, *args: str) -> dict:
    """Run ``script`` in a fresh interpreter that sees 4 CPU devices; its last line, as JSON."""
    env = dict(
        os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS="--xla_force_host_platform_device_count=4"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def assert_same_rows(got, expected):
    """Equal rows; values to float32 rounding (this process may run on another backend)."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert {**g, "value": 0} == {**e, "value": 0}
        assert g["value"] == pytest.approx(e["value"], abs=1e-6)


def test_a_chunk_is_sharded_over_four_devices_and_gives_the_same_rows():
    got = on_four_devices(FOUR_DEVICES, json.dumps(POSITIONS), str(DEPTH))
    assert got["devices"] == 4
    # (a) a jitted batched kernel on sharded input runs on, and returns, all 4 devices
    assert got["step_devices"] == 4 and got["legal_devices"] == 4
    assert got["shard_rows"] == [2, 2, 2, 2] and got["same_as_one_device"]
    # the bulk evaluation pads each chunk of 3 to 4 rows, one per device
    assert got["searched"] == [[4, 4], [4, 4]]
    # (b) and its rows are those of a run on one device
    one_device = jaxgames.evaluate(
        "connect4", POSITIONS, algorithm="minimax", depth=DEPTH, chunk_size=3
    )
    assert_same_rows(got["rows"], one_device)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_two_processes_each_evaluate_their_slice(tmp_path):
    positions = tmp_path / "positions.txt"
    positions.write_text("\n".join(POSITIONS) + "\n")
    out = tmp_path / "rows.jsonl"
    address = f"localhost:{free_port()}"
    argv = ["evaluate", "connect4", str(positions), "--algo", "minimax", "--depth", str(DEPTH)]
    argv += ["--chunk", "2", "--out", str(out), "--distributed"]
    procs = []
    for index in range(2):
        env = dict(
            os.environ,
            JAX_PLATFORMS="cpu",
            JAX_COORDINATOR_ADDRESS=address,
            JAX_NUM_PROCESSES="2",
            JAX_PROCESS_ID=str(index),
        )
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "jaxgames", *argv],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results = []
    for proc in procs:
        try:
            results.append(proc.communicate(timeout=300))
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            pytest.fail("the two processes did not finish")
    for index, (proc, (_, err)) in enumerate(zip(procs, results, strict=True)):
        assert proc.returncode == 0, err
        assert f"process {index} of 2:" in err
    parts = [tmp_path / f"rows.jsonl.part{i}" for i in range(2)]
    rows = [json.loads(line) for part in parts for line in part.read_text().splitlines()]
    one_process = jaxgames.evaluate(
        "connect4", POSITIONS, algorithm="minimax", depth=DEPTH, chunk_size=2
    )
    assert [r["position"] for r in rows] == POSITIONS
    assert len(parts[0].read_text().splitlines()) == 2  # the first of two contiguous slices
    assert_same_rows(rows, one_process)


ALPHABETA_ON_FOUR_DEVICES = textwrap.dedent(
    """
    import json, sys
    import jax
    import jaxgames
    from jaxgames import kernels, search

    positions = json.loads(sys.argv[1])
    game = jaxgames.make("connect4")
    states = kernels.stack([game.parse(p) for p in positions])
    result = search.alphabeta_batch(game, states, 4)
    print(json.dumps({
        "devices": result.stats["devices"],
        "value": result.value.tolist(),
        "best": result.best_action.tolist(),
    }))
    """
)


def test_alphabeta_searches_each_device_share_and_gives_the_same_values():
    positions = POSITIONS + ["4455", "", "52753311433677442422121"]  # 8: two per device
    got = on_four_devices(ALPHABETA_ON_FOUR_DEVICES, json.dumps(positions))
    assert got["devices"] == 4  # one work queue per device, under shard_map
    game = jaxgames.make("connect4")
    one = jaxgames.search.alphabeta_batch(
        game, kernels.stack([game.parse(p) for p in positions]), 4
    )
    np.testing.assert_allclose(got["value"], one.value, atol=1e-6)
    # ties may break differently (each device has its own table), values may not: the move
    # each chose must have the value of the position
    for i, p in enumerate(positions):
        state = game.parse(p)
        child = game.step(state, got["best"][i])
        after = jaxgames.search.minimax(game, child, 3).value
        np.testing.assert_allclose(after, one.value[i], atol=1e-6)


EXPECTIMINIMAX_ON_FOUR_DEVICES = textwrap.dedent(
    """
    import json, sys
    import jaxgames
    from jaxgames import kernels, search

    positions = json.loads(sys.argv[1])
    game = jaxgames.make("pig", goal=10)
    states = kernels.stack([game.parse(p) for p in positions])
    result = search.expectiminimax_batch(game, states, 3)
    print(json.dumps({"devices": result.stats["devices"], "value": result.value.tolist()}))
    """
)


def test_expectiminimax_lanes_search_each_device_share_and_give_the_plain_values():
    """Star2 lanes under shard_map (a work queue per device, two roots each): every value
    is plain expectiminimax's, from the host driver's recursion."""
    positions = [
        f"p0={a} p1={b} turn={t} to_move={m}{' rolling' if r else ''}"
        for a, b, t, m, r in [
            (0, 0, 0, 0, 0), (7, 3, 2, 1, 0), (8, 9, 0, 0, 1), (5, 5, 4, 1, 1),
            (9, 0, 0, 1, 0), (2, 8, 3, 0, 1), (6, 6, 0, 0, 0), (1, 9, 5, 1, 0),
        ]
    ]  # fmt: skip
    got = on_four_devices(EXPECTIMINIMAX_ON_FOUR_DEVICES, json.dumps(positions))
    assert got["devices"] == 4
    game = jaxgames.make("pig", goal=10)
    for p, value in zip(positions, got["value"], strict=True):
        plain = jaxgames.search.expectiminimax(game, game.parse(p), 3, pruning="none")
        np.testing.assert_allclose(value, plain.value, atol=1e-5)


SPLIT = textwrap.dedent(
    """
    import json, sys
    import jax
    from jaxgames import kernels

    asked = None if sys.argv[1] == "none" else int(sys.argv[1])
    first = kernels.split_cpu(asked)
    jax.numpy.zeros(1)  # the backend starts
    again = kernels.split_cpu(8)  # too late now: nothing changes
    print(json.dumps({"set": first, "again": again, "devices": jax.local_device_count()}))
    """
)


@pytest.mark.parametrize(
    "asked, flags, expected",
    [
        ("3", "", {"set": True, "devices": 3}),
        ("none", "", {"set": (os.cpu_count() or 1) > 1, "devices": os.cpu_count() or 1}),
        ("1", "", {"set": False, "devices": 1}),
        ("3", "--xla_force_host_platform_device_count=2", {"set": False, "devices": 2}),
    ],
)
def test_split_cpu_before_jax_starts_and_never_after(asked, flags, expected):
    """The CPU split into devices before the first computation; a device count already in
    XLA_FLAGS, a count of 1, or a backend already running leave things as they are."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS=flags)
    proc = subprocess.run(
        [sys.executable, "-c", SPLIT, asked], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got == {**expected, "again": False}


WIDE = textwrap.dedent(
    """
    import json, os
    import jax
    from jaxgames import kernels
    from jaxgames.kernels.cpu import has_avx512

    first = kernels.wide_vectors()
    jax.numpy.zeros(1)  # the backend starts
    again = kernels.wide_vectors()  # too late now: nothing changes
    print(json.dumps({"set": first, "again": again, "avx512": has_avx512(),
                      "flags": os.environ.get("XLA_FLAGS", "")}))
    """
)


@pytest.mark.parametrize("flags", ["", "--xla_cpu_prefer_vector_width=256"])
def test_wide_vectors_only_on_avx512_before_jax_starts_and_never_over_the_user(flags):
    """512-bit vectors are asked for where /proc/cpuinfo lists AVX-512, before the first
    computation, and never over a width the user already set."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS=flags)
    proc = subprocess.run(
        [sys.executable, "-c", WIDE], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    wanted = got["avx512"] and not flags
    assert (got["set"], got["again"]) == (wanted, False)
    width = "--xla_cpu_prefer_vector_width=512" if wanted else flags
    assert got["flags"] == width


def test_has_avx512_reads_the_cpu_flags(tmp_path):
    from jaxgames.kernels.cpu import has_avx512

    with_it, without = tmp_path / "a", tmp_path / "b"
    with_it.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512bw\n")
    without.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2\n")
    assert has_avx512(str(with_it)) and not has_avx512(str(without))
    assert not has_avx512(str(tmp_path / "missing"))
