"""Othello (Reversi) on the standard 8x8 board, with bitboards on pairs of uint32.

Rules: Black (``X``, player 0) and White (``O``, player 1) alternate placing a disc of their
colour on an empty square. A placement is legal when, along at least one of the eight
directions (horizontal, vertical, diagonal), it brackets a contiguous run of one or more
opponent discs between the new disc and another disc of the mover's colour; every bracketed
run, in every direction, is flipped. A player with no legal placement must pass, and may pass
only then. The game is over when neither player can place a disc (a full board is the usual
case); the player with more discs wins. The start has White on d4 and e5, Black on e4 and
d5, Black to move.

Encoding:

* Squares ``0..63`` are ``row * 8 + col``: ``a1`` = 0, ``h1`` = 7, ``a8`` = 56, ``h8`` = 63
  (columns ``a``-``h`` from the left, rows ``1``-``8`` from the top, as printed).
* A bitboard is a pair of uint32 words: ``lo`` holds squares 0-31 (bit ``i`` = square
  ``i``), ``hi`` squares 32-63 (bit ``i`` = square ``32 + i``). x64 stays off: 64-bit shifts
  are written as pairs of 32-bit shifts with the carry moved between the words.
* Actions: ``0..63`` place a disc on that square; ``64`` (:data:`PASS`) passes, legal only
  when no placement is.
* :class:`OthelloState` holds the discs relative to the side to move, ``own`` and ``opp``
  (so a move is ``own, opp = opp ^ flips, own | square | flips``: no branch on the colour),
  ``moves`` (the legal squares of the side to move, kept so that ``legal_mask`` costs
  nothing and ``terminal`` is a read), ``player`` (int8, 0 Black, 1 White), ``passes``
  (int8: 0 the side to move can place a disc, 1 it must pass, 2 neither side can: game
  over), ``opp_mobility`` (int8: the other side's placements, which ``step`` generates
  anyway to set ``passes``; EVAL's mobility term reads it) and ``hash`` (the Zobrist key,
  kept incrementally). Every 64-bit quantity is a :class:`Words` pair of uint32 scalars
  ``(lo, hi)`` rather than one ``uint32[2]`` array: with ``[B, 2]`` fields XLA's CPU backend
  computed the whole move generation once per word, unvectorised (measured 10-30x slower
  per step at B = 4096).

Move generation: for each direction ``d`` (a shift by +-1, +-7, +-8 or +-9 squares),
``t = shift(own) & opp'``, then five times ``t |= shift(t) & opp'``, and the moves are
``shift(t) & empty``; ``opp'`` is ``opp`` without the a- and h-files for the six directions
that move sideways, so nothing wraps from one row to the next. Flips of a placement ``m``:
the same flood started from ``m``, kept where it ends on an own disc. The four axes are
walked by a ``fori_loop`` (both directions of an axis per iteration, unrolled inside): fully
unrolled, XLA copied the floods into every consumer of their result, which made alpha-beta
7x slower per node and its compilation 4x longer.

Zobrist key: ``Z[square, Black]`` are random; ``Z[square, White] = Z[square, Black] ^
D(square)`` with ``D`` a fixed linear, invertible bit mix (xorshift steps). A move XORs in
the side key, ``Z[placed, Black]`` and ``D(flips, plus the placed square if White moved)``:
a few shifts, where independent White keys would need one table lookup per flipped disc.
Positions with the same occupied squares never share a key (``D`` is invertible); others
collide with probability ``2**-64`` as with any Zobrist key.

Utility: win/draw/loss by disc count, ``[1, -1]``, ``[0, 0]`` or ``[-1, 1]`` for Black and
White (:func:`jaxgames.game.two_player_utility`); :meth:`Othello.disc_difference` gives the
final disc difference (Black minus White, optionally with the empty squares given to the
winner as in World Othello Federation scoring).

Notation (host side, :meth:`Othello.parse` / :meth:`Othello.format`):

* a board string: 64 characters, ``a1`` to ``h1``, then ``a2`` ... ``h8``, each ``X``
  (Black), ``O`` (White) or ``-`` (empty; ``.`` also reads as empty; case-insensitive),
  then the side to move ``X`` or ``O``, e.g. the start is
  ``"---------------------------OX------XO--------------------------- X"``. Spaces, ``/``
  between rows and a trailing ``;`` are ignored.
* a move list from the start: ``"f5d6c3d3c4"``, each move a column letter and a row digit;
  a pass is ``ps`` (or ``pa``); a forced pass may also be left out (it is inserted, since it
  is the only legal move). ``""`` or ``"start"`` is the start position.

A move is written ``"f5"``; the pass is ``"ps"``.

Evaluation (:meth:`Othello.evaluate`): ``tanh`` of a weighted sum of features, see
:data:`EVAL_FEATURES` and :meth:`Othello.eval_features`. Exact endgames: alpha-beta to the
end, see :meth:`Othello.endgame_depth`. Forward pruning: the fitted ProbCut model
:data:`PROBCUT` (``ProbCut(**game.probcut_params)``).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxgames.bitboard import MASK64 as _MASK64
from jaxgames.bitboard import Bits
from jaxgames.bitboard import and_ as _and
from jaxgames.bitboard import any_ as _any
from jaxgames.bitboard import const as _const
from jaxgames.bitboard import count as _count
from jaxgames.bitboard import not_ as _not
from jaxgames.bitboard import or_ as _or
from jaxgames.bitboard import shift as _shift
from jaxgames.bitboard import shift_by as _shift_by
from jaxgames.bitboard import xor as _xor
from jaxgames.game import Game, GameError, split_fields, two_player_utility, zobrist_table

PASS = 64
"""The pass action."""

_ZOBRIST_SEED = 0x07E1
_FILE_A = 0x0101010101010101
_FILE_H = 0x8080808080808080
_ROW_1 = 0xFF
_ROW_8 = 0xFF << 56
_NOT_A = _MASK64 ^ _FILE_A
_NOT_H = _MASK64 ^ _FILE_H
_INTERIOR = _NOT_A & _NOT_H
_CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)

# (shift, mask of the opponent discs a run may pass through): the a- and h-files are left
# out for the sideways directions, so that a run never wraps from one row to the next.
_DIRECTIONS = ((1, _INTERIOR), (-1, _INTERIOR), (8, _MASK64), (-8, _MASK64))
_DIRECTIONS += ((9, _INTERIOR), (-9, _INTERIOR), (7, _INTERIOR), (-7, _INTERIOR))
# (shift, mask applied after the shift) for "the squares next to a set": a shift that moves
# east can only wrap onto the a-file, one that moves west onto the h-file.
_NEIGHBOURS = ((1, _NOT_A), (-1, _NOT_H), (8, _MASK64), (-8, _MASK64))
_NEIGHBOURS += ((9, _NOT_A), (-9, _NOT_H), (7, _NOT_H), (-7, _NOT_A))
# (shift, the squares with no neighbour that way) for the stability test, by axis.
_AXES = (
    ((1, _FILE_H), (-1, _FILE_A)),
    ((8, _ROW_8), (-8, _ROW_1)),
    ((9, _FILE_H | _ROW_8), (-9, _FILE_A | _ROW_1)),
    ((7, _FILE_A | _ROW_8), (-7, _FILE_H | _ROW_1)),
)
_NEIGHBOUR_MASK = dict(_NEIGHBOURS)

# corner, X-square (diagonal neighbour), C-squares (edge neighbours)
_CORNER_GROUPS = (
    (0, 9, (1, 8)),  # a1: b2; b1, a2
    (7, 14, (6, 15)),  # h1: g2; g1, h2
    (56, 49, (57, 48)),  # a8: b7; b8, a7
    (63, 54, (62, 55)),  # h8: g7; g8, h7
)

START_TEXT = "---------------------------OX------XO--------------------------- X"
_COLUMNS = "abcdefgh"
_BOARD_CHARS = {"x": 0, "o": 1, "-": None, ".": None}
_SIDE_CHARS = {"x": 0, "o": 1}
_MOVE_TOKEN = re.compile(r"([a-h][1-8]|ps|pa|pass)", re.IGNORECASE)

EVAL_FEATURES = (
    ("mobility", 1.0),
    ("potential_mobility", 0.5),
    ("corners", 8.0),
    ("x_squares", -4.0),
    ("c_squares", -1.5),
    ("stable", 2.0),
    ("endgame_discs", 1.0),
)
"""The features of EVAL and their weights, each a difference "side to move minus opponent":

* ``mobility``: legal placements.
* ``potential_mobility``: empty squares next to an opponent disc (where moves may appear)
  minus empty squares next to an own disc.
* ``corners``: discs on a1, h1, a8, h8.
* ``x_squares``: discs on b2, g2, b7, g7 whose corner is still empty (they give the corner
  away).
* ``c_squares``: discs on the edge squares next to an empty corner (b1, a2, ...).
* ``stable``: discs that can never be flipped, a lower bound: a disc is stable when along
  each of the four lines through it (row, column, two diagonals) it touches the board's
  edge or a stable disc of its colour on one side, or (for the row and the column) the line
  is full; found by :data:`_STABLE_ROUNDS` rounds from the empty set (so chains grow from
  the corners). Tested for soundness: no disc it marks is ever flipped afterwards.
* ``endgame_discs``: the disc difference times ``max(0, 1 - empties / 20)``, which counts
  only in the last 20 empty squares and fully at the end (disc parity decides the game).
"""
EVAL_SCALE = 32.0
"""``EVAL = 0.99 * tanh(sum_i w_i f_i / EVAL_SCALE)``: strictly inside (-1, 1)."""
_EVAL_LIMIT = 0.99
_ENDGAME_EMPTIES = 20.0
_STABLE_ROUNDS = 4
_MIX_SHIFTS = (13, -7, 17, 13, -7, 17)

# Produced by `python benchmarks/othello.py --fit-probcut` (fit_probcut on 2000 positions from
# random self-play, seed 1, 10-44 plies; the command prints this line).
PROBCUT = {"depth": 2, "shallow": 1, "a": 1.0344, "b": -0.0813, "sigma": 0.0924, "t": 1.5}
"""Fitted ProbCut parameters (see :class:`jaxgames.search.ProbCut`): at a node with
``depth`` plies left the best one-ply look-ahead value ``v'`` (from the side to move)
predicts the ``depth``-ply value as ``a v' + b`` with residual deviation ``sigma``; the node
is cut when the prediction clears the window by ``t`` deviations. Least squares with
:func:`jaxgames.search.fit_probcut`. Depth 2 was chosen over 3 and 4 (fits on 1000
positions) because, in depth-6 searches of 200 random-play positions, it saved the most
nodes (56% against 45% and 26% at ``t = 1.5``) for a similar share of changed best moves
(2%, 2%, 1%). Use as ``ProbCut(**game.probcut_params)``."""


class Words(NamedTuple):
    """A 64-bit value (a bitboard, a key) as two uint32 words."""

    lo: jax.Array  # uint32[]: bits 0-31 (squares a1-h4)
    hi: jax.Array  # uint32[]: bits 32-63 (squares a5-h8)


class OthelloState(NamedTuple):
    """An Othello position, discs relative to the side to move."""

    own: Words  # discs of the side to move
    opp: Words  # discs of the other side
    moves: Words  # legal placements of the side to move
    player: jax.Array  # int8[]: side to move, 0 Black (X), 1 White (O)
    passes: jax.Array  # int8[]: 0 can place, 1 must pass, 2 neither side can (game over)
    opp_mobility: jax.Array  # int8[]: placements the other side would have, were it to move
    hash: Words  # Zobrist key


# ---------------------------------------------------------------- bitboards (traced)
def _words(b: Bits) -> Words:
    return Words(jnp.asarray(b[0], jnp.uint32), jnp.asarray(b[1], jnp.uint32))


# The eight directions as four axes (+k and -k): shift, and the opponent-disc mask. The
# directions are walked by a fori_loop over the axes rather than unrolled: a loop's result
# is materialised once, whereas XLA's CPU backend copied an unrolled flood into every
# consumer (each field of the next state, the hash, the search's frame writes), which cost
# compile time and, in alpha-beta, most of the run time.
_AXIS_SHIFTS = np.asarray([1, 8, 9, 7], np.uint32)
_AXIS_MASKS = [_INTERIOR, _MASK64, _INTERIOR, _INTERIOR]
_AXIS_MASK_LO = np.asarray([m & 0xFFFFFFFF for m in _AXIS_MASKS], np.uint32)
_AXIS_MASK_HI = np.asarray([m >> 32 for m in _AXIS_MASKS], np.uint32)


def _axis(i: jax.Array, opp: Bits) -> tuple[jax.Array, Bits]:
    """(shift, opponent discs a run may pass through) of axis ``i``."""
    k = jnp.asarray(_AXIS_SHIFTS)[i]
    mask = (jnp.asarray(_AXIS_MASK_LO)[i], jnp.asarray(_AXIS_MASK_HI)[i])
    return k, _and(opp, mask)


def _moves(own: Bits, opp: Bits) -> Bits:
    """The legal placements of ``own`` against ``opp`` (a flood along each direction)."""
    empty = _not(_or(own, opp))

    def body(i, moves):
        k, o = _axis(i, opp)
        for left in (True, False):
            t = _and(_shift_by(own, k, left), o)
            for _ in range(5):  # a run is at most 6 discs long
                t = _or(t, _and(_shift_by(t, k, left), o))
            moves = _or(moves, _and(_shift_by(t, k, left), empty))
        return moves

    zero = jnp.zeros_like(own[0] | opp[0])
    return jax.lax.fori_loop(0, 4, body, (zero, zero))


def _flips(own: Bits, opp: Bits, square: Bits) -> Bits:
    """The discs flipped by placing ``square`` (one bit, or none for a pass)."""

    def body(i, flips):
        k, o = _axis(i, opp)
        for left in (True, False):
            t = _and(_shift_by(square, k, left), o)
            for _ in range(5):
                t = _or(t, _and(_shift_by(t, k, left), o))
            closed = _any(_and(_shift_by(t, k, left), own))  # the run ends on an own disc
            keep = jnp.uint32(0) - closed.astype(jnp.uint32)  # all ones or zero
            flips = _or(flips, (t[0] & keep, t[1] & keep))
        return flips

    zero = jnp.zeros_like(own[0] | opp[0] | square[0])
    return jax.lax.fori_loop(0, 4, body, (zero, zero))


def _neighbours(b: Bits) -> Bits:
    """The squares next to any square of ``b`` (8 directions)."""
    out = _const(0)
    for k, mask in _NEIGHBOURS:
        out = _or(out, _and(_shift(b, k), _const(mask)))
    return out


def _full_lines(occupied: Bits) -> tuple[Bits, Bits]:
    """(squares whose row is completely occupied, squares whose column is)."""
    words = []
    for w in occupied:  # a row is a byte: fold its 8 bits into bit 0, spread back
        t = w & (w >> 4)
        t = t & (t >> 2)
        t = t & (t >> 1)
        words.append((t & np.uint32(0x01010101)) * np.uint32(0xFF))
    v = occupied[0] & occupied[1]  # a column: the 8 rows folded onto one byte
    v = v & (v >> 16)
    v = v & (v >> 8)
    cols = (v & np.uint32(0xFF)) * np.uint32(0x01010101)
    return (words[0], words[1]), (cols, cols)


def _stable(own: Bits, full: tuple[Bits, Bits]) -> Bits:
    """A lower bound on the stable discs of ``own`` (see :data:`EVAL_FEATURES`); ``full`` is
    :func:`_full_lines` of the occupied squares.

    Along one line, a disc cannot be flipped when the line has no empty square (no move can
    be made on it), or when one of its two neighbours on the line is off the board or a
    stable disc of its colour (a flip would have to flip that neighbour too).
    """
    rows, cols = full
    zero = jnp.zeros_like(own[0] | rows[0])
    lines = (rows, cols, (zero, zero), (zero, zero))  # diagonals: no fullness test

    def round_(_, stable):
        safe = own
        for ((k1, edge1), (k2, edge2)), line in zip(_AXES, lines, strict=True):
            # a neighbour of x at x + k is in `stable` when x is in shift(stable, -k)
            n1 = _and(_shift(stable, -k1), _const(_NEIGHBOUR_MASK[-k1]))
            n2 = _and(_shift(stable, -k2), _const(_NEIGHBOUR_MASK[-k2]))
            axis = _or(_or(line, _const(edge1 | edge2)), _or(n1, n2))
            safe = _and(safe, axis)
        return safe

    return jax.lax.fori_loop(0, _STABLE_ROUNDS, round_, (zero, zero))


def _square_bit(action: jax.Array) -> Bits:
    """The bit of square ``action`` (none for the pass or anything out of 0..63)."""
    a = jnp.asarray(action, jnp.int32)
    one = jnp.uint32(1)
    lo = jnp.where((a >= 0) & (a < 32), one << jnp.clip(a, 0, 31).astype(jnp.uint32), 0)
    hi = jnp.where((a >= 32) & (a < 64), one << jnp.clip(a - 32, 0, 31).astype(jnp.uint32), 0)
    return lo.astype(jnp.uint32), hi.astype(jnp.uint32)


def _mix(b: Bits) -> Bits:
    """The GF(2)-linear, invertible map ``D`` of the Zobrist keys (see :class:`Othello`):
    two rounds of the xorshift64 steps ``x ^= x << 13; x ^= x >> 7; x ^= x << 17``."""
    for k in _MIX_SHIFTS:
        b = _xor(b, _shift(b, k))
    return b


def _unpack(b: Bits) -> jax.Array:
    """bool[64]: bit ``i`` of the bitboard."""
    shifts = jnp.arange(32, dtype=jnp.uint32)
    return jnp.concatenate([((b[0] >> shifts) & 1) != 0, ((b[1] >> shifts) & 1) != 0])


# ---------------------------------------------------------------- bitboards (host, int)
def _py_shift(x: int, k: int) -> int:
    return (x << k) & _MASK64 if k > 0 else x >> -k


def _py_moves(own: int, opp: int) -> int:
    """Host version of :func:`_moves` on Python ints."""
    empty = ~(own | opp) & _MASK64
    moves = 0
    for k, mask in _DIRECTIONS:
        o = opp & mask
        t = _py_shift(own, k) & o
        for _ in range(5):
            t |= _py_shift(t, k) & o
        moves |= _py_shift(t, k) & empty
    return moves


def _py_flips(own: int, opp: int, square: int) -> int:
    """Host version of :func:`_flips`: discs flipped by placing on ``square`` (0..63)."""
    m = 1 << square
    flips = 0
    for k, mask in _DIRECTIONS:
        o = opp & mask
        t = _py_shift(m, k) & o
        for _ in range(5):
            t |= _py_shift(t, k) & o
        if _py_shift(t, k) & own:
            flips |= t
    return flips


def _py_mix(x: int) -> int:
    """Host version of :func:`_mix`."""
    for k in _MIX_SHIFTS:
        x ^= _py_shift(x, k)
    return x


def _host_words(x: int) -> Words:
    return Words(np.asarray(x & 0xFFFFFFFF, np.uint32), np.asarray(x >> 32, np.uint32))


def _int(words: Words) -> int:
    return int(np.asarray(words.lo)) | (int(np.asarray(words.hi)) << 32)


def square_name(square: int) -> str:
    """``0..63`` -> ``"a1".."h8"``; the pass -> ``"ps"``."""
    if square == PASS:
        return "ps"
    return _COLUMNS[square % 8] + str(square // 8 + 1)


class Othello(Game):
    """Othello on 8x8 bitboards (64 squares and a pass); Black (player 0) moves first.

    Attributes:
        probcut_params: fitted ProbCut parameters (:data:`PROBCUT`), for
            ``jaxgames.search.ProbCut(**game.probcut_params)``.
        eval_weights: ``float32[F]`` the weights of :data:`EVAL_FEATURES`.
    """

    name = "othello"
    num_players = 2
    num_actions = 65
    num_chance_outcomes = 0
    utility_min = -1.0
    utility_max = 1.0
    zero_sum = True
    # 60 empty squares from the start, and a pass is always followed by a placement
    # (two passes in a row cannot happen: the game is over at the first of them)
    max_game_length = 120
    probcut_params = dict(PROBCUT)

    def __new__(cls, score: str = "wdl") -> Othello:
        # scored by discs, the game has the Scoring capability: another class
        return super().__new__(OthelloDiscs if score == "discs" and cls is Othello else cls)

    def __init__(self, score: str = "wdl") -> None:
        if score not in ("wdl", "discs"):
            raise GameError(f"othello: score must be 'wdl' or 'discs', got {score!r}")
        self.params: dict[str, Any] = {} if score == "wdl" else {"score": score}
        self.discs = score == "discs"
        self.eval_weights = np.asarray([w for _, w in EVAL_FEATURES], np.float32)  # [F]
        # Zobrist keys Z[square, colour]: Black's are random, White's are Black's XOR D(square)
        # with D the linear, invertible map _mix. A flip toggles a square's colour, so a move
        # changes the key by R[placed] ^ D(flips, and the placed square if White placed):
        # a few shifts instead of one table lookup per flipped disc. (Two positions with the
        # same occupied squares differ in White's set W, and D(W1 ^ W2) != 0: never equal.)
        random = zobrist_table(_ZOBRIST_SEED, 64)  # [64, 2]
        zobrist = np.zeros((64, 2, 2), np.uint32)  # [square, colour, word]
        for square in range(64):
            d = _py_mix(1 << square)
            zobrist[square, 0] = random[square]
            zobrist[square, 1] = random[square] ^ np.asarray([d & 0xFFFFFFFF, d >> 32], np.uint32)
        self._zobrist = zobrist
        self._zobrist_side = zobrist_table(_ZOBRIST_SEED + 1, 1)[0]  # [2]: White to move
        self._random_lo = np.append(random[:, 0], np.uint32(0))  # [65]: the pass places none
        self._random_hi = np.append(random[:, 1], np.uint32(0))  # [65]
        order = np.full((65,), -0.1, np.float32)  # plain squares: ties only
        for corner, x_square, c_squares in _CORNER_GROUPS:
            order[corner] = 1.0  # positive: searched first (the search's "hinted" moves)
            order[x_square] = -0.4
            order[list(c_squares)] = -0.3
        order[PASS] = 0.0
        self._order = order

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> OthelloState:
        """The start: White d4 e5, Black e4 d5, Black to move."""
        return self._state_from_bits(0x0000000810000000, 0x0000001008000000, 0)

    def player(self, state: OthelloState) -> jax.Array:
        """int32: 0 when Black is to move, 1 when White is."""
        return state.player.astype(jnp.int32)

    def legal_mask(self, state: OthelloState) -> jax.Array:
        """bool[65]: the legal squares, and the pass when there is none; all False at the end."""
        return jnp.concatenate([_unpack(state.moves), (state.passes == 1)[None]])

    def step(self, state: OthelloState, action: jax.Array) -> OthelloState:
        """Place a disc on square ``action`` and flip, or pass (``action == 64``).

        The new side to move's placements are generated here, and the other side's too, to
        tell "must pass" (``passes = 1``) from "game over" (``passes = 2``). An illegal
        action gives an unspecified state of the same shapes.
        """
        own, opp = state.own, state.opp
        square = _square_bit(action)  # (0, 0) for the pass
        flips = _flips(own, opp, square)
        new_own = _xor(opp, flips)  # the opponent moves next
        new_opp = _or(_or(own, square), flips)
        moves = _moves(new_own, new_opp)
        other = _moves(new_opp, new_own)
        passes = jnp.where(_any(moves), 0, jnp.where(_any(other), 1, 2)).astype(jnp.int8)
        # key ^= side ^ R[square] ^ D(flips ^ (square if White placed it)); see __init__
        a = jnp.clip(jnp.asarray(action, jnp.int32), 0, PASS)
        white = state.player == 1
        toggled = _xor(flips, (jnp.where(white, square[0], 0), jnp.where(white, square[1], 0)))
        d = _mix(toggled)
        key = (
            state.hash.lo ^ self._zobrist_side[0] ^ jnp.asarray(self._random_lo)[a] ^ d[0],
            state.hash.hi ^ self._zobrist_side[1] ^ jnp.asarray(self._random_hi)[a] ^ d[1],
        )
        return OthelloState(
            own=_words(new_own),
            opp=_words(new_opp),
            moves=_words(moves),
            player=(1 - state.player).astype(jnp.int8),
            passes=passes,
            opp_mobility=_count(other).astype(jnp.int8),
            hash=_words(key),
        )

    def terminal(self, state: OthelloState) -> jax.Array:
        """bool: neither side can place a disc."""
        return state.passes >= 2

    def disc_difference(self, state: OthelloState, empties_to_winner: bool = False) -> jax.Array:
        """int32: Black's discs minus White's.

        Args:
            empties_to_winner: give the empty squares to the player with more discs, as the
                World Othello Federation scores a finished game (a draw stays 0).
        """
        mine, theirs = _count(state.own), _count(state.opp)
        diff = jnp.where(state.player == 0, mine - theirs, theirs - mine)
        if empties_to_winner:
            empty = 64 - mine - theirs
            diff = diff + jnp.sign(diff) * empty
        return diff.astype(jnp.int32)

    def utility(self, state: OthelloState) -> jax.Array:
        """float32[2]: ``[u, -u]`` at the end (else 0): ``u = sign(Black discs - White
        discs)``, or with ``score="discs"`` the disc difference with the empty squares given
        to the winner, over 64 (the exact scores of endgame solvers: ``64 * u``)."""
        if self.discs:
            u = self.disc_difference(state, empties_to_winner=True).astype(jnp.float32) / 64.0
        else:
            u = jnp.sign(self.disc_difference(state)).astype(jnp.float32)
        return two_player_utility(jnp.where(self.terminal(state), u, 0.0))


    def eval_features(self, state: OthelloState) -> jax.Array:
        """float32[F]: the features of :data:`EVAL_FEATURES`, side to move minus opponent."""
        own, opp = state.own, state.opp
        occupied = _or(own, opp)
        empty = _not(occupied)
        n_empty = 64 - _count(occupied)
        mobility = _count(state.moves) - state.opp_mobility.astype(jnp.int32)
        potential = _count(_and(empty, _neighbours(opp))) - _count(_and(empty, _neighbours(own)))
        corners = _count(_and(own, _const(_CORNERS))) - _count(_and(opp, _const(_CORNERS)))
        x_term = jnp.int32(0)
        c_term = jnp.int32(0)
        for corner, x_square, c_squares in _CORNER_GROUPS:
            open_corner = _any(_and(empty, _const(1 << corner)))
            xm = _const(1 << x_square)
            cm = _const((1 << c_squares[0]) | (1 << c_squares[1]))
            x_term = x_term + jnp.where(
                open_corner, _count(_and(own, xm)) - _count(_and(opp, xm)), 0
            )
            c_term = c_term + jnp.where(
                open_corner, _count(_and(own, cm)) - _count(_and(opp, cm)), 0
            )
        full = _full_lines(occupied)
        stable = _count(_stable(own, full)) - _count(_stable(opp, full))
        phase = jnp.maximum(0.0, 1.0 - n_empty.astype(jnp.float32) / _ENDGAME_EMPTIES)
        discs = (_count(own) - _count(opp)).astype(jnp.float32) * phase
        ints = jnp.stack([mobility, potential, corners, x_term, c_term, stable])
        return jnp.concatenate([ints.astype(jnp.float32), discs[None]])

    def evaluate(self, state: OthelloState) -> jax.Array:
        """float32[2]: ``[e, -e]`` for Black and White.

        ``e_mover = 0.99 * tanh(sum_i w_i f_i / EVAL_SCALE)`` over :data:`EVAL_FEATURES`
        (features from the side to move), turned to Black's side; strictly inside (-1, 1), so
        a heuristic never equals a proven win or loss. At the end it is ``utility``.
        """
        raw = jnp.dot(self.eval_features(state), jnp.asarray(self.eval_weights))
        e = _EVAL_LIMIT * jnp.tanh(raw / EVAL_SCALE)
        e = jnp.where(state.player == 0, e, -e)
        return jnp.where(self.terminal(state), self.utility(state), two_player_utility(e))

    def move_order_scores(self, state: OthelloState) -> jax.Array:
        """float32[65]: corners first (+1, the only positive scores: the search tries them
        before its own ordering), then plain squares (-0.1), C-squares (-0.3) and X-squares
        (-0.4) last; the pass (0) is only ever legal alone."""
        return jnp.asarray(self._order)

    def plies_left(self, state: OthelloState) -> jax.Array:
        """Twice the empty squares: every placement fills one, and at most one pass comes
        before it (two passes in a row end the game)."""
        empty = 64 - _count(state.own) - _count(state.opp)
        return jnp.where(state.passes == 2, 0, 2 * empty).astype(jnp.int32)

    def hash(self, state: OthelloState) -> jax.Array:
        """uint32[2]: the Zobrist key, XOR of ``Z[square, colour]`` over the discs and a key
        when White is to move (``[lo, hi]`` words)."""
        return jnp.stack([state.hash.lo, state.hash.hi])

    # ------------------------------------------------------------------ helpers
    def stable_discs(self, state: OthelloState) -> jax.Array:
        """bool[64]: discs (of either colour) that the ``stable`` feature proves can never be
        flipped again; a lower bound on the truly stable discs."""
        own, opp = state.own, state.opp
        full = _full_lines(_or(own, opp))
        return _unpack(_or(_stable(own, full), _stable(opp, full)))

    def empties(self, state: OthelloState) -> jax.Array:
        """int32: empty squares."""
        return 64 - _count(_or(state.own, state.opp))

    def endgame_depth(self, states: Any) -> int:
        """A search depth that reaches the end of every game from a batch of states [N]:
        twice the most empty squares (each placement fills one, and a pass is always
        followed by a placement). Exact endgame solving is alpha-beta to this depth::

            depth = game.endgame_depth(states)
            result = jaxgames.search.alphabeta_batch(
                game, states, depth, iterative_deepening=False
            )

        ``result.value`` is then win/draw/loss (+-1, 0) for each player. The bound costs
        stack frames, not search: a line ends where the game ends. Iterative deepening is
        best off here: its shallower passes end on EVAL, not on finished games, and cost
        more than they save (on 32 positions with 10 empty squares: 576,283 nodes with it,
        61,077 without).
        """
        words = [np.asarray(w, np.uint64).reshape(-1) for w in (*states.own, *states.opp)]
        occupied = (words[0] | words[2]) | ((words[1] | words[3]) << np.uint64(32))
        empties = [64 - bin(int(x)).count("1") for x in occupied]
        return max(1, 2 * max(empties, default=0))

    # ------------------------------------------------------------------ host side
    move_names = tuple(square_name(a) for a in range(65))  # FixedMoveNames: a1..h8, ps
    _host_zobrist: list[list[int]] | None = None  # per colour, per square: 64-bit keys

    def _state_from_bits(self, black: int, white: int, player: int) -> OthelloState:
        """A consistent state (moves, passes, Zobrist key from scratch) from host boards."""
        return jax.tree.map(jnp.asarray, self._host_state(black, white, player))

    def _host_state(self, black: int, white: int, player: int) -> OthelloState:
        """:meth:`_state_from_bits` with numpy leaves, as :meth:`parse` gives them (host
        memory: parsed positions are stacked into batches with no device transfer each)."""
        own, opp = (black, white) if player == 0 else (white, black)
        moves, other = _py_moves(own, opp), _py_moves(opp, own)
        passes = 0 if moves else (1 if other else 2)
        if self._host_zobrist is None:
            self._host_zobrist = [
                [int(z[0]) | int(z[1]) << 32 for z in self._zobrist[:, colour]] for colour in (0, 1)
            ]
        key = 0
        for colour, board in enumerate((black, white)):
            keys = self._host_zobrist[colour]
            while board:
                low = board & -board
                key ^= keys[low.bit_length() - 1]
                board ^= low
        if player == 1:
            key ^= int(self._zobrist_side[0]) | int(self._zobrist_side[1]) << 32
        return OthelloState(
            own=_host_words(own),
            opp=_host_words(opp),
            moves=_host_words(moves),
            player=np.asarray(player, np.int8),
            passes=np.asarray(passes, np.int8),
            opp_mobility=np.asarray(bin(other).count("1"), np.int8),
            hash=_host_words(key),
        )

    def _host_boards(self, state: OthelloState) -> tuple[int, int, int]:
        """(black, white, player) of a concrete state, as Python ints."""
        own, opp, player = _int(state.own), _int(state.opp), int(np.asarray(state.player))
        return (own, opp, player) if player == 0 else (opp, own, player)

    position_formats = (
        (
            "board: 64 squares a1..h1, a2..h2, ..., h8 (X black, O white, - empty), then the "
            "side to move (attached or after a space, a trailing ';' allowed)",
            "---------------------------OX------XO--------------------------- X",
        ),
        ("move list: squares a1..h8 from the start, ps a pass, no spaces", "f5d6c3"),
        ("the start", "start"),
    )

    def split_position(self, line: str) -> tuple[str, str]:
        """A board string is the board field and, unless the side to move is attached to
        it, the next field (``<64 squares> X; H5:+6; ...``); a move list is one field."""
        first = line.split(None, 1)[0] if line.strip() else ""
        if any(c in "xXoO-." for c in first):
            squares = sum(c not in "/;" for c in first)
            return split_fields(line, 1 if squares >= 65 else 2)
        return split_fields(line, 1)

    def parse(self, text: str) -> OthelloState:
        """A board string with the side to move, a move list, or ``""``/``"start"`` -> state.

        Text holding ``x``, ``o``, ``-`` or ``.`` is a board string; other text a move list.
        The state's leaves are numpy arrays (host memory).

        Raises:
            GameError: one line naming what is wrong and where.
        """
        stripped = text.strip()
        if stripped == "" or stripped.lower() == "start":
            return self._host_state(0x0000000810000000, 0x0000001008000000, 0)
        if any(c in "xXoO-." for c in stripped):
            return self._parse_board(stripped)
        black, white, player, _ = self._replay(stripped)
        return self._host_state(black, white, player)

    def _parse_board(self, text: str) -> OthelloState:
        chars = [c for c in text if not (c.isspace() or c == "/")]
        if chars and chars[-1] == ";":
            chars.pop()
        if len(chars) != 65:
            raise GameError(
                f"{self.name}: board string has {len(chars)} characters without spaces, "
                "expected 64 squares (X, O, -) and the side to move (X or O)"
            )
        black = white = 0
        for square, c in enumerate(chars[:64]):
            if c.lower() not in _BOARD_CHARS:
                raise GameError(
                    f"{self.name}: bad character {c!r} for square {square_name(square)} "
                    "(expected X, O, - or .)"
                )
            colour = _BOARD_CHARS[c.lower()]
            if colour == 0:
                black |= 1 << square
            elif colour == 1:
                white |= 1 << square
        side = chars[64].lower()
        if side not in _SIDE_CHARS:
            raise GameError(f"{self.name}: bad side to move {chars[64]!r} (expected X or O)")
        return self._host_state(black, white, _SIDE_CHARS[side])

    def parse_moves(self, text: str) -> list[int]:
        """A move list ``"f5d6c3"`` -> actions ``[37, 43, 18]``, forced passes included.

        Raises:
            GameError: a bad token, an illegal move, a move after the end.
        """
        stripped = text.strip()
        if stripped.lower() in ("", "start"):
            return []
        return self._replay(stripped)[3]

    def moves_to_string(self, actions: Any) -> str:
        """Actions ``[37, 43, 18]`` -> ``"f5d6c3"`` (a pass is ``"ps"``)."""
        return "".join(square_name(int(a)) for a in actions)

    def _replay(self, text: str) -> tuple[int, int, int, list[int]]:
        """Play a move list from the start on host boards: (black, white, player, actions)."""
        black, white, player = 0x0000000810000000, 0x0000001008000000, 0
        actions: list[int] = []
        pos = 0
        while pos < len(text):
            if text[pos].isspace():  # "f5d6 3" is the move list f5d6 and a label
                raise GameError(
                    f"{self.name}: move list {text!r} has a space at character {pos + 1}; a "
                    "move list is one word (in a positions file, what follows is a label)"
                )
            if text[pos] in ",;":
                pos += 1
                continue
            match = _MOVE_TOKEN.match(text, pos)
            where = f"{self.name}: move {len(actions) + 1} at character {pos + 1}"
            if not match:
                raise GameError(
                    f"{where}: bad move {text[pos : pos + 2]!r}; expected a1..h8 or ps (pass)"
                )
            token = match.group(0).lower()
            own, opp = (black, white) if player == 0 else (white, black)
            moves = _py_moves(own, opp)
            if not moves and not _py_moves(opp, own):
                raise GameError(f"{where} ({token!r}): the game is already over")
            if token[0] == "p":
                if moves:
                    raise GameError(f"{where}: pass while a disc can be placed")
                square = PASS
            else:
                if not moves:  # a forced pass left out of the list: insert it
                    actions.append(PASS)
                    player = 1 - player
                    continue
                square = _COLUMNS.index(token[0]) + 8 * (int(token[1]) - 1)
                if not moves >> square & 1:
                    raise GameError(f"{where}: illegal move {token!r}")
            if square != PASS:
                flips = _py_flips(own, opp, square)
                own, opp = own | (1 << square) | flips, opp & ~flips
                black, white = (own, opp) if player == 0 else (opp, own)
            actions.append(square)
            player = 1 - player
            pos = match.end()
        return black, white, player, actions

    def format(self, state: OthelloState) -> str:
        """State -> board string: 64 squares ``a1..h8`` of ``X``/``O``/``-``, a space, the
        side to move."""
        black, white, player = self._host_boards(state)
        squares = "".join(
            "X" if black >> s & 1 else ("O" if white >> s & 1 else "-") for s in range(64)
        )
        return f"{squares} {'XO'[player]}"

    def action_to_string(self, state: OthelloState, action: int) -> str:
        """``"a1".."h8"``, or ``"ps"`` for the pass."""
        return square_name(int(action))

    def string_to_action(self, state: OthelloState, text: str) -> int:
        """``"f5"`` or ``"ps"``/``"pass"`` -> action. Raises GameError when malformed or illegal."""
        t = text.strip().lower()
        if t in ("ps", "pa", "pass"):
            action = PASS
        elif len(t) == 2 and t[0] in _COLUMNS and t[1] in "12345678":
            action = _COLUMNS.index(t[0]) + 8 * (int(t[1]) - 1)
        else:
            raise GameError(f"{self.name}: bad move {text!r}; expected a1..h8 or ps (pass)")
        self._check_legal(state, action, text)
        return action

    def sample_positions(self) -> list[str]:
        """A dozen positions: the start, openings as move lists, and a late board string."""
        return [
            "",
            "f5",
            "f5d6",
            "f5f6",
            "f5d6c3d3c4",
            "f5d6c5f4e3",
            "f5f6e6f4e3",
            "f5d6c3d3c4f4c5b3c2",
            "f5f6e6f4g5e7f7h5e3d3",
            "f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1",
            "f5d6c4d3c3f4c5b3c2e3d2c6b4a4",
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
        ]


class OthelloDiscs(Othello):
    """Othello scored by the final disc difference (``make("othello", score="discs")``)."""

    score_meaning = "the final disc difference for to_move (empty squares to the winner)"

    def score_from_value(self, value: float) -> int:
        """The disc difference of a value (same player's side)."""
        return int(round(float(value) * 64))


__all__ = ["EVAL_FEATURES", "PASS", "PROBCUT", "Othello", "OthelloState", "Words", "square_name"]
