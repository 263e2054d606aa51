"""The Game protocol: a game as pure functions of one fixed-shape state.

A game in the seeds (Russell & Norvig, "Adversarial Search") is defined by

* ``S0``              -- the initial state                        -> :meth:`Game.init`
* ``PLAYER(s)``       -- which player has the move in ``s``       -> :meth:`Game.player`
* ``ACTIONS(s)``      -- the set of legal moves in ``s``          -> :meth:`Game.legal_mask`
* ``RESULT(s, a)``    -- the transition model                     -> :meth:`Game.step`
* ``TERMINAL-TEST(s)`` -- true when the game is over               -> :meth:`Game.terminal`
* ``UTILITY(s, p)``   -- the final numeric value for player ``p`` -> :meth:`Game.utility`

plus, for stochastic games, the distribution ``P(r)`` over the outcomes of a chance node
(:meth:`Game.chance_probs`) and, for depth-limited search, the heuristic ``EVAL(s)``
(:meth:`Game.evaluate`).

Every method takes ONE state and is written with ``jax.numpy`` so that it can be traced,
``jit``-ted and lifted over a batch with ``vmap`` (see :mod:`jaxgames.kernels`). A state is a
pytree (a ``NamedTuple`` of arrays) whose shapes and dtypes never change. The action space is
fixed (``num_actions``); the legal actions of a state are a boolean mask over it. At a chance
node, ``player(s) == CHANCE`` and outcome ``k`` is applied as ``step(s, k)``.

Host-side methods (``parse``, ``format``, ``action_to_string``, ``string_to_action``) work on
concrete states and are never traced.
"""

from __future__ import annotations

import re
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

State = Any
"""A game state: a pytree of fixed-shape arrays (each game defines its own NamedTuple)."""

CHANCE: int = -1
"""Value of ``player(s)`` at a chance node."""


class GameError(ValueError):
    """Bad input for a game: a malformed position, an unknown move, a bad parameter.

    The message is one line that names what was wrong and where.
    """


class Game:
    """Base class of every game. Subclasses set the static facts and implement the methods.

    Static facts (class or instance attributes):
        name: registry name, e.g. ``"connect4"``.
        num_players: number of players ``n``; utilities are ``float32[n]``.
        num_actions: size ``A`` of the fixed action space.
        num_chance_outcomes: size ``K`` of the chance-outcome space (0: deterministic game).
        utility_min, utility_max: bounds on every component of ``utility`` and ``evaluate``
            (alpha-beta on chance nodes and maxn shallow pruning need them).
        utility_sum_max: an upper bound on the SUM of the components of ``utility`` and
            ``evaluate`` (maxn shallow pruning needs it with ``utility_min``). The default,
            infinity, claims nothing; searches then fall back on what the other facts imply
            (``num_players * utility_max``, or 0 for zero-sum games).
        zero_sum: True when the utility components always sum to zero.
        max_game_length: an upper bound on the number of steps (decisions and chance
            outcomes) from ``init()`` to a terminal state; loops over whole games use it.
        params: the keyword parameters the game was made with (``make(name, **params)``).
    """

    name: str = "game"
    num_players: int = 2
    num_actions: int = 0
    num_chance_outcomes: int = 0
    utility_min: float = -1.0
    utility_max: float = 1.0
    utility_sum_max: float = float("inf")
    zero_sum: bool = True
    max_game_length: int = 0
    params: dict[str, Any] = {}

    # ------------------------------------------------------------------ protocol (traced)
    def init(self) -> State:
        """S0: the initial state."""
        raise NotImplementedError

    def player(self, state: State) -> jax.Array:
        """PLAYER(s): int32 index of the player to move, or ``CHANCE`` at a chance node."""
        raise NotImplementedError

    def legal_mask(self, state: State) -> jax.Array:
        """ACTIONS(s) as ``bool[num_actions]``. All False at a terminal state.

        At a chance node the mask is not used (it may be all False): searches and kernels
        read the outcomes from :meth:`chance_probs`.
        """
        raise NotImplementedError

    def step(self, state: State, action: jax.Array) -> State:
        """RESULT(s, a): the state after action (or chance outcome) ``a``.

        Must be safe to trace with any action on any state (under ``vmap`` masked lanes run
        too); the result of an illegal action or of stepping a terminal state is unspecified
        but has the same shapes and dtypes.
        """
        raise NotImplementedError

    def terminal(self, state: State) -> jax.Array:
        """TERMINAL-TEST(s): bool, True when the game is over."""
        raise NotImplementedError

    def utility(self, state: State) -> jax.Array:
        """UTILITY(s, p) for every player p at once: ``float32[num_players]``.

        Only meaningful at terminal states (zeros elsewhere). Two-player zero-sum games
        return ``[u, -u]``.
        """
        raise NotImplementedError

    def chance_probs(self, state: State) -> jax.Array:
        """P(r) at a chance node: ``float32[num_chance_outcomes]`` summing to 1."""
        return jnp.zeros((self.num_chance_outcomes,), jnp.float32)

    def evaluate(self, state: State) -> jax.Array:
        """EVAL(s): a heuristic ``float32[num_players]`` on the utility scale, bounded by
        ``utility_min``/``utility_max``. At terminal states it equals ``utility``.

        The default is the neutral estimate (all zeros, or ``utility`` when terminal).
        """
        return jnp.where(
            self.terminal(state), self.utility(state), jnp.zeros((self.num_players,), jnp.float32)
        )

    def plies_left(self, state: State) -> jax.Array:
        """int32: an upper bound on the steps (decisions and chance outcomes) left before
        the game ends from ``state``; searches never look deeper. The default is
        ``max_game_length`` (0, "unknown", for a game that sets none); a game that can tell
        more (stones still to place) says so."""
        return jnp.int32(self.max_game_length)

    # Beyond these, a game may have capabilities (hashing, move ordering, compact move
    # lists, noisy moves, null move, value bounds, enumeration, sampling, scoring): typed
    # protocols in jaxgames.capabilities, which a game has by implementing their methods.

    # ------------------------------------------------------------------ host side
    position_formats: tuple[tuple[str, str], ...] = ()
    """The notations :meth:`parse` reads, as ``(description, example)`` pairs (shown by
    ``jaxgames show GAME`` and the command line's help)."""

    def parse(self, text: str) -> State:
        """Position text (the game's notation) -> state. Raises :class:`GameError`.

        The whole text is one position: anything the notation does not allow (a trailing
        label, a space inside a move string) is an error, never part of another position.
        """
        raise NotImplementedError

    def split_position(self, line: str) -> tuple[str, str]:
        """A line of a positions file -> ``(position, label)``.

        Each game says where its position ends, so whatever follows (a score, a name) is
        the line's label and never read as part of the position. The default: the position
        is the first whitespace-separated field (move strings, grids, IDs and paths have no
        spaces); a game whose notation has several fields (a FEN) overrides it. A text
        holding a line break is one position given whole (a multi-line board).
        """
        if "\n" in line.strip():
            return line.strip(), ""
        return split_fields(line, 1)

    def format(self, state: State) -> str:
        """State -> position text that :meth:`parse` reads back."""
        raise NotImplementedError

    def action_to_string(self, state: State, action: int) -> str:
        """The move ``action`` in the game's move notation."""
        return str(int(action))

    def string_to_action(self, state: State, text: str) -> int:
        """Move notation -> action index. Raises :class:`GameError` for unknown or illegal."""
        try:
            action = int(text)
        except ValueError:
            raise GameError(f"{self.name}: bad move {text!r}") from None
        self._check_legal(state, action, text)
        return action

    def sample_positions(self) -> list[str]:
        """A few positions in the game's notation: the built-in default input of the CLI."""
        return [self.format(self.init())]

    # ------------------------------------------------------------------ helpers
    def _check_legal(self, state: State, action: int, text: str | None = None) -> None:
        """Raise GameError unless ``action`` is legal in the concrete ``state``."""
        shown = text if text is not None else str(action)
        if not 0 <= action < self.num_actions:
            raise GameError(f"{self.name}: move {shown!r} is outside the action space")
        if bool(self.terminal(state)):
            raise GameError(f"{self.name}: move {shown!r} after the game is over")
        if not bool(np.asarray(self.legal_mask(state))[action]):
            raise GameError(f"{self.name}: illegal move {shown!r}")

    @property
    def spec(self) -> str:
        """The command-line spelling of this game: ``name`` or ``name:k=v,...``."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))

    def _key(self) -> tuple:
        return (type(self), self.name, tuple(sorted((k, repr(v)) for k, v in self.params.items())))

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"make({self.spec!r})"


def whole_number(text: str) -> int:
    """A whole number written in ASCII digits (no sign, no underscore, no other script's
    digits, which ``int`` would accept); ValueError otherwise."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"not a whole number: {text!r}")
    return int(text)


def split_fields(line: str, count: int) -> tuple[str, str]:
    """``(the first count whitespace-separated fields, the rest)`` of ``line``, each as
    written there (inner spacing kept), stripped."""
    spans = [m.span() for m in re.finditer(r"\S+", line)]
    if len(spans) <= count:
        return line.strip(), ""
    return line[: spans[count - 1][1]].strip(), line[spans[count][0] :].strip()


def two_player_utility(u: jax.Array) -> jax.Array:
    """``[u, -u]`` as float32[2] for a two-player zero-sum game (u from player 0's side)."""
    u = jnp.asarray(u, jnp.float32)
    return jnp.stack([u, -u])


def zobrist_table(seed: int, *shape: int) -> np.ndarray:
    """Random 64-bit Zobrist keys as ``uint32[*shape, 2]`` (numpy, built at import time)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**32, size=(*shape, 2), dtype=np.uint64).astype(np.uint32)
