"""GNU Backgammon as an opponent: a long-lived ``gnubg`` process runs :data:`DRIVER` in its
embedded Python, reads one position per JSON line on stdin and answers its chosen play.

Conventions (checked against ``gnubg.positionfromid``): GNU Backgammon's board is two
lists of 25 counts, first the player NOT on roll, then the player on roll, each in its
owner's numbering with index ``p - 1`` for point ``p`` and index 24 the bar (borne-off
checkers are implied). A play is a flat tuple ``(from, to, from, to, ...)`` of 1-based
points, 25 the bar, ``to`` 0 for borne off, padded with zeros; doubles give up to four
steps, and a checker moving on past a hit gives one step per die.

The play comes back as steps, not notation: :func:`apply_play` makes the position it leads
to, and :func:`play_match_gnubg` finds our action with that afterstate (so notation never
has to agree).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.games.backgammon.encoding import BAR, NUM_CHECKERS, OFF
from jaxgames.learn.afterstates import bucket, pairs, plays_by_rank
from jaxgames.learn.selfplay import (
    MatchScore,
    NetScorer,
    _batched,
    _decide,
    _pair_uniforms,
    _roll,
    _where,
)

REPLY = "PLAY "  # the driver's answers start with this: gnubg prints other lines too

# Runs inside gnubg (``gnubg -t -q -p FILE``). Cubeless 0-ply, no noise: gnubg's fastest
# setting. Money game without the Jacoby rule, so gammons and backgammons count as in our
# game (with Jacoby and a centred cube gnubg would price gammons at 0). The dice are the
# 4th argument of findbestmove, so no gnubg game has to be set up.
DRIVER = """
import json, sys
import gnubg

gnubg.command("set jacoby off")
PLIES = int("@PLIES@")
cube = gnubg.cubeinfo(1, -1, 0, 0)
context = gnubg.evalcontext(0, PLIES, 0, 0, 0.0)
sys.stdout.write("%sready\\n" % REPLY)
sys.stdout.flush()
for line in sys.stdin:
    ask = json.loads(line)
    board = (tuple(ask["board"][0]), tuple(ask["board"][1]))
    play = gnubg.findbestmove(board, cube, context, tuple(ask["dice"]))
    sys.stdout.write(REPLY + json.dumps([int(x) for x in play]) + "\\n")
    sys.stdout.flush()
""".replace("REPLY", repr(REPLY))


def find_gnubg() -> str | None:
    """The ``gnubg`` program: on the PATH, or where Debian and Ubuntu put it."""
    return shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


def to_gnubg_board(own: Sequence[int], opp: Sequence[int]) -> list[list[int]]:
    """GNU Backgammon's board of a position (``own`` on roll; our 26-vectors: 0 off,
    1..24 points, 25 bar)."""
    return [[int(x) for x in opp[1:26]], [int(x) for x in own[1:26]]]


def from_gnubg_board(board: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """``(own, opp)`` 26-vectors of GNU Backgammon's board (the inverse of
    :func:`to_gnubg_board`; off counts filled in)."""
    out = []
    for half in (board[1], board[0]):
        v = np.zeros(26, np.int64)
        v[1:26] = half
        v[OFF] = NUM_CHECKERS - v[1:26].sum()
        out.append(v)
    return out[0], out[1]


def apply_play(
    own: Sequence[int], opp: Sequence[int], play: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """The boards ``(own, opp)`` after GNU Backgammon's play (flat ``(from, to, ...)``
    steps), hits included, in the same numbering as before (the mover still ``own``)."""
    own = np.array(own, np.int64)
    opp = np.array(opp, np.int64)
    for i in range(0, len(play) - 1, 2):
        src, dst = int(play[i]), int(play[i + 1])
        if src <= 0:  # padding: the play had fewer steps
            break
        own[src] -= 1
        own[dst] += 1  # dst 0 is OFF
        if OFF < dst < BAR and opp[25 - dst] == 1:  # a blot on our point dst: hit
            opp[25 - dst] = 0
            opp[BAR] += 1
    if own.min() < 0:
        raise ValueError(f"gnubg play {tuple(play)} moves a checker that is not there")
    return own, opp


class GnubgPlayer:
    """A running ``gnubg`` that answers plays (``plies`` 0: its fastest evaluation)."""

    def __init__(self, program: str, plies: int = 0) -> None:
        fd, self._script = tempfile.mkstemp(suffix=".py", prefix="gnubg_driver_")
        with os.fdopen(fd, "w") as f:
            # the plies go into the script: gnubg would read an extra argument as a file
            f.write(DRIVER.replace("@PLIES@", str(int(plies))))
        self.plies = plies
        self.seconds = 0.0  # wall time of the round trips (gnubg's thinking and the pipe)
        self.asked = 0
        self._proc = subprocess.Popen(
            [program, "-t", "-q", "-p", self._script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._read()  # "ready": gnubg is up

    def _read(self) -> str:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            if line.startswith(REPLY):
                return line[len(REPLY) :].strip()
        raise RuntimeError(f"gnubg stopped (exit code {self._proc.wait()})")

    def play(self, own: Sequence[int], opp: Sequence[int], dice: Sequence[int]) -> list[int]:
        """GNU Backgammon's play for the player on roll (``own``) with ``dice``."""
        assert self._proc.stdin is not None
        t0 = time.perf_counter()
        ask = dict(board=to_gnubg_board(own, opp), dice=[int(d) for d in dice])
        self._proc.stdin.write(json.dumps(ask) + "\n")
        self._proc.stdin.flush()
        reply = json.loads(self._read())
        self.seconds += time.perf_counter() - t0
        self.asked += 1
        return reply

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        os.unlink(self._script)

    def __enter__(self) -> GnubgPlayer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@functools.partial(jax.jit, static_argnums=(0, 1))
def _afterstates(game, size: int, states, counts):
    """Every lane's plays as one flat list: ``(after [P], lane int32[P], valid bool[P])``."""
    lane, rank, valid = pairs(counts, size)
    before = jax.tree.map(lambda x: x[lane], states)
    return jax.vmap(game.step)(before, plays_by_rank(game, states, lane, rank)), lane, valid


@jax.jit
def _take(states, after, pick: jax.Array, moving: jax.Array):
    return _where(moving, jax.tree.map(lambda x: x[pick], after), states)


def play_match_gnubg(
    game: Any,
    net: Any,
    gnubg: GnubgPlayer,
    games: int,
    seed: int = 0,
    lanes: int = 128,
    max_turns: int = 1000,
) -> tuple[MatchScore, dict[str, float]]:
    """``games`` games of the network (1 ply, greedy) against ``gnubg``, in seat-swapped
    pairs sharing their dice as in :func:`~jaxgames.learn.selfplay.play_match`. The
    network's lanes move in one batched call per turn; gnubg's lanes are asked one by one
    (a lane with a single play, the pass included, is not asked). Returns the network's
    score and the seconds and moves of each side."""
    games += games % 2
    base = jax.random.key(seed)
    wins = losses = moves = net_moves = 0
    points = net_seconds = 0.0
    t_start = time.perf_counter()
    for first in range(0, games, lanes):
        n = min(lanes, games - first)
        width = bucket(n, smallest=16)
        states = _batched(game, width)
        pair_keys = jax.vmap(lambda p: jax.random.fold_in(base, p))(
            jnp.asarray((first + np.arange(width)) // 2)
        )
        seat_net = jnp.asarray((first + np.arange(width)) % 2, jnp.int32)
        live = jnp.asarray(np.arange(width) < n)
        for turn in range(2 * max_turns + 2):
            states, counts = _roll(game, states, _pair_uniforms(pair_keys, jnp.int32(turn)))
            counts = jnp.where(live, counts, 0)
            if int(jnp.sum(counts)) == 0:
                if bool(jnp.all(jax.vmap(game.terminal)(states) | ~live)):
                    break
                continue
            use_net = jax.vmap(game.player)(states) == seat_net
            counts_net = jnp.where(use_net, counts, 0)
            counts_g = counts - counts_net
            total_net = int(jnp.sum(counts_net))
            if total_net:
                t0 = time.perf_counter()
                states, moved = _decide(
                    game, bucket(total_net), NetScorer(), None, net, None, states,
                    counts_net, use_net, jax.random.key(0), jnp.float32(0.0),
                )  # fmt: skip
                moved_n = int(jnp.sum(moved))
                net_seconds += time.perf_counter() - t0
                net_moves += moved_n
                moves += moved_n
            total_g = int(jnp.sum(counts_g))
            if total_g:
                states, moved_g = _gnubg_turn(game, gnubg, states, counts_g, total_g)
                moves += moved_g
        u = np.asarray(jax.vmap(game.utility)(states))[:n]
        mine = u[np.arange(n), np.asarray(seat_net)[:n]]
        wins += int(np.sum(mine > 0))
        losses += int(np.sum(mine < 0))
        points += float(np.sum(mine))
    score = MatchScore(games, wins, losses, points, moves, time.perf_counter() - t_start)
    return score, dict(
        net_seconds=net_seconds,
        net_moves=net_moves,
        gnubg_seconds=gnubg.seconds,
        gnubg_moves=gnubg.asked,
    )


def _gnubg_turn(game: Any, gnubg: GnubgPlayer, states: Any, counts: jax.Array, total: int):
    """gnubg plays in every lane with ``counts > 0``: its play is applied to the board and
    our action is the afterstate with that position (the boards swap after a play: the
    afterstate's ``opp`` is the mover's board)."""
    after, lane, valid = _afterstates(game, bucket(total), states, counts)
    after_own, after_opp = np.asarray(after.own), np.asarray(after.opp)
    lane, valid = np.asarray(lane), np.asarray(valid)
    host_counts = np.asarray(counts)
    own, opp, dice = np.asarray(states.own), np.asarray(states.opp), np.asarray(states.dice)
    starts = np.cumsum(host_counts) - host_counts
    pick = np.zeros(host_counts.shape[0], np.int32)
    for i in np.flatnonzero(host_counts):
        rows = np.arange(starts[i], starts[i] + host_counts[i])
        if host_counts[i] == 1:  # one play (or the pass): nothing to ask
            pick[i] = rows[0]
            continue
        new_own, new_opp = apply_play(own[i], opp[i], gnubg.play(own[i], opp[i], dice[i]))
        hit = rows[
            np.all(after_opp[rows] == new_own, axis=1) & np.all(after_own[rows] == new_opp, axis=1)
        ]
        if len(hit) != 1 or not valid[hit[0]] or lane[hit[0]] != i:
            raise RuntimeError(f"gnubg's play leads to no legal afterstate (lane {i})")
        pick[i] = hit[0]
    moving = jnp.asarray(host_counts > 0)
    return _take(states, after, jnp.asarray(pick), moving), int(np.sum(host_counts > 0))
