"""What a game can do beyond the protocol's functions, as typed capabilities.

A game has a capability when it implements the capability's methods and facts (a
:class:`typing.Protocol`); a search that uses one asks ``isinstance(game, Capability)``
and says so in its docstring. The base class :class:`jaxgames.game.Game` implements none of
them, so a game has exactly the capabilities it defines. ``capabilities(game)`` lists them.

Each method takes ONE state, like the protocol's functions, unless it says otherwise.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

import jax
import numpy as np

State = Any


@runtime_checkable
class Hashing(Protocol):
    """A 64-bit Zobrist key of a position, kept incrementally: transposition tables."""

    def hash(self, state: State) -> jax.Array:
        """``uint32[2]``: the key; equal positions have equal keys."""
        ...


@runtime_checkable
class MoveOrdering(Protocol):
    """Which moves to search first (captures, threats): alpha-beta's ordering hint."""

    def move_order_scores(self, state: State) -> jax.Array:
        """``float32[num_actions]``: higher means "search this move earlier"; positive
        scores mark moves searched before the search's own orderings (killers, history)."""
        ...


@runtime_checkable
class MoveLists(Protocol):
    """A position's legal moves as a compact list: searches then hold ``max_moves`` moves
    per node, not ``num_actions`` slots. Without it a list is made from ``legal_mask``."""

    max_moves: int  # the most legal moves any position has (a proven bound)

    def legal_moves(self, state: State) -> jax.Array:
        """``int32[max_moves]``: the legal actions, in any order, then ``-1``."""
        ...


@runtime_checkable
class ListOrdering(Protocol):
    """Ordering scores for the moves of a compact list, without the whole action space."""

    def move_scores(self, state: State, moves: jax.Array) -> jax.Array:
        """``float32[M]`` for ``moves`` ``int32[M]`` (``-1`` entries: any value), on the
        scale of :meth:`MoveOrdering.move_order_scores`."""
        ...


@runtime_checkable
class LookaheadOrdering(Protocol):
    """Ordering scores that need each move played out (the reply's mobility: Othello's
    "fastest first"): dearer than :class:`MoveOrdering`, so alpha-beta uses them only where
    its ``lookahead`` option asks (by default, in searches that reach every end)."""

    def lookahead_scores(self, state: State) -> jax.Array:
        """``float32[num_actions]``: higher means "search this move earlier"; any value on
        illegal actions."""
        ...


@runtime_checkable
class NoisyMoves(Protocol):
    """Moves that change the material balance (captures, promotions): quiescence search
    goes on past the horizon through them only."""

    def noisy_moves(self, state: State, moves: jax.Array) -> jax.Array:
        """``bool[M]``: which of ``moves`` (``int32[M]`` actions, ``-1`` entries: any
        value) are noisy."""
        ...

    def any_noisy(self, state: State) -> jax.Array:
        """``bool``: the position has a legal noisy move."""
        ...


@runtime_checkable
class Checks(Protocol):
    """Whether the side to move is in check: check extensions, and no null move there."""

    def in_check(self, state: State) -> jax.Array:
        """``bool``."""
        ...


@runtime_checkable
class NullMove(Protocol):
    """Passing: null-move pruning."""

    def null_step(self, state: State) -> State:
        """The position after the side to move passes (the hash follows)."""
        ...

    def null_ok(self, state: State) -> jax.Array:
        """``bool``: a pass may be tried here (not in check, zugzwang unlikely)."""
        ...


@runtime_checkable
class ValueBounds(Protocol):
    """Bounds on the value of every search from a position (a win is at best one move
    away): alpha-beta narrows each node's window to them."""

    def value_bounds(self, state: State) -> jax.Array:
        """``float32[2]``: ``(low, high)`` for the player to move; the utility of every
        terminal state and the EVAL of every state reachable from ``state`` lie within."""
        ...


@runtime_checkable
class ImmediateLosses(Protocol):
    """Moves that lose at once, so a solver never searches them (Pons's "losing moves":
    in connect four, a move that lets the opponent connect next)."""

    def losing_moves(self, state: State) -> jax.Array:
        """``bool[num_actions]``: legal moves no better for the mover than every unmarked
        legal move, as a search that sees the opponent's reply finds (a move that lets the
        opponent win next, where another does not). A search with two plies or more left
        may skip them while an unmarked legal move remains: the value is unchanged."""
        ...


@runtime_checkable
class Enumeration(Protocol):
    """A numbering of the game's whole state space: value iteration and retrograde
    analysis solve it, cycles included."""

    num_states: int

    def state_index(self, state: State) -> jax.Array:
        """``int32`` in ``[0, num_states)`` of a non-terminal state."""
        ...

    def state_from_index(self, index: jax.Array) -> State:
        """The inverse of :meth:`state_index`."""
        ...


# Successor codes of :class:`TableExpansion` (values 1, 2, ... name a dependency's table).
SUCCESSOR_NONE = -1  # no move in this slot
SUCCESSOR_SELF = 0  # the successor is in the same table
SUCCESSOR_DRAW = -2  # the successor is a draw the rules decide at once (bare kings)
SUCCESSOR_LOSS = -3  # the successor ends the game, lost by the player then to move (the
# move took the opponent's last piece): the move wins at once


class TableExpansion(NamedTuple):
    """What a sub-space says of a chunk of its numbers ``[B]`` (host side, numpy)."""

    valid: np.ndarray  # bool[B]: the number names a legal position
    terminal: np.ndarray  # bool[B]: the rules end the game there
    end_value: np.ndarray  # int8[B]: at a terminal, for the player to move: -1 lost, 0 drawn
    kid_table: np.ndarray  # int8[B, M]: per move, SUCCESSOR_* or 1..D (a dependency)
    kid_index: np.ndarray  # int32[B, M]: the successor's number in that table


@runtime_checkable
class TableSpace(Protocol):
    """A numbered sub-space of a two-player game's positions (an ending, by material) whose
    moves lead into itself, into smaller sub-spaces (its dependencies: a capture, a
    promotion) or to an immediate draw: what retrograde analysis solves
    (:mod:`jaxgames.search.tables`). HOST side, batched over numpy arrays of numbers."""

    name: str  # the sub-space's name, as the game's table files are named
    size: int  # N: numbers 0..N-1 (some may name no legal position)
    version: int  # the numbering's version: a table built with another is rebuilt
    max_successors: int  # M: the most moves of any position of the sub-space
    dependencies: tuple[str, ...]  # sub-spaces moves lead to, coded 1, 2, ... in order

    def expand(self, index: np.ndarray) -> TableExpansion:
        """The positions ``index int[B]`` and their successors (``M`` slots each)."""
        ...

    def describe(self, index: int) -> str:
        """The position numbered ``index``, in the game's notation (``parse`` reads it)."""
        ...


@runtime_checkable
class PositionTables(Protocol):
    """Sub-spaces a game numbers for tables of exact values built by retrograde analysis
    (chess endings by material, checkers endgames by material signature)."""

    table_names: tuple[str, ...]  # the sub-spaces the game publishes tables of

    def table_space(self, name: str) -> TableSpace:
        """The sub-space called ``name`` (GameError, one line, for an unknown one)."""
        ...

    def table_name(self, name: str) -> str:
        """The name the table holding sub-space ``name`` is kept under (``KKQ`` -> ``KQK``:
        one table serves both colourings)."""
        ...

    def table_key(self, state: State, names: tuple[str, ...]) -> tuple[jax.Array, jax.Array]:
        """``(slot int32, index int32)``: which of the tables ``names`` holds ``state``
        (``-1``: none) and its number there (traced, ONE state)."""
        ...


@runtime_checkable
class ExactValues(Protocol):
    """Exact values of some positions known without search (an endgame table): a search
    takes them as leaves (:func:`jaxgames.search.tables.with_tables` gives a game this)."""

    def exact_values(self, state: State) -> tuple[jax.Array, jax.Array]:
        """``(known bool, values float32[num_players])``: whether the value is known, and
        it, on the utility scale: the utility of the end perfect play reaches, a win or
        loss moved towards 0 by a small step per ply to the end (a quicker win is better)."""
        ...


@runtime_checkable
class Sampling(Protocol):
    """A random legal move drawn without building the legal mask (BATCHED)."""

    def sample_actions(self, states: State, uniform: jax.Array) -> jax.Array:
        """``states [B]``, ``uniform float32[B]`` in ``[0, 1)`` -> ``int32[B]``: uniform
        among the legal actions at decisions, by ``chance_probs`` at chance nodes."""
        ...


@runtime_checkable
class Scoring(Protocol):
    """An integer score beside the utility (connect four's distance score)."""

    score_meaning: str  # one line: what the score says (the table's legend)

    def score_from_value(self, value: float) -> int:
        """The score of a value on the utility scale (same player's side)."""
        ...


@runtime_checkable
class SolutionSummary(Protocol):
    """Readable lines about a solved game (``jaxgames solve``)."""

    def solution_summary(self, result: Any) -> list[str]: ...


@runtime_checkable
class FixedMoveNames(Protocol):
    """Move names that do not depend on the position: bulk evaluation names best moves and
    principal variations by indexing this table, with no state per root and no replay."""

    move_names: tuple[str, ...]  # the name of each action, ``num_actions`` of them, as
    # ``action_to_string`` writes it in every position


@runtime_checkable
class PlaceMoves(Protocol):
    """Moves that are places: an action id is the same move whenever it is played (a point
    in Go, a square in tic-tac-toe or Othello, a column in connect four), so what a move
    did in one line of play says something of it in another: the all-moves-as-first
    statistics of RAVE (:class:`jaxgames.search.mcts.RAVE`). Not chess or backgammon, whose
    action ids name different moves in different positions."""

    moves_are_places: bool  # True: a marker, defined only by the games where it holds


@runtime_checkable
class ImperfectInformation(Protocol):
    """What each player knows in a game of imperfect information (poker): CFR and other
    information-set searches group histories by it. Hidden chance (the deal) uses the
    protocol's chance nodes (``chance_probs``, ``step(s, outcome)``) like any other.

    Both methods are meant for decision nodes and non-terminal states; elsewhere they return
    something of the right shape and dtype.
    """

    observation_shape: tuple[int, ...]  # the shape of :meth:`observation`

    def observation(self, state: State, player: jax.Array) -> jax.Array:
        """``float32[*observation_shape]``: what ``player`` sees now (their private cards,
        the public cards, the bets), as a fixed-shape array; two states a player cannot tell
        apart give the same array."""
        ...

    def information_state_key(self, state: State, player: jax.Array) -> jax.Array:
        """``int32 >= 0``: a number of ``player``'s information state (everything they have
        seen since the start, perfect recall): two histories get the same key exactly when
        ``player`` cannot tell them apart."""
        ...


@runtime_checkable
class Determinization(Protocol):
    """The complete states a player cannot tell from the true one, listed: exact draws of
    worlds (:func:`jaxgames.search.belief.sample_world`) where the game is small enough.

    Meant for the player's own decision points (what the list assumes about whose turn it
    is); a game says in its docstring what a world fixes of what nobody observed.
    """

    max_worlds: int  # the length of the candidate list

    def observation_history(self, state: State, player: jax.Array) -> Any:
        """Everything ``player`` has seen up to ``state``, as a pytree of fixed-shape arrays
        (equal exactly when :meth:`ImperfectInformation.information_state_key` is)."""
        ...

    def worlds(self, history: Any) -> tuple[State, jax.Array]:
        """``(states [max_worlds], valid bool[max_worlds])``: candidate complete states;
        the valid ones are exactly those consistent with ``history``."""
        ...


@runtime_checkable
class PerfectInformationView(Protocol):
    """A state seen by all: a perfect-information game whose positions are the true states
    of this one (PIMC solves sampled worlds in it, "averaging over clairvoyance")."""

    perfect_information_game: Any  # a Game: two-player zero-sum, deterministic

    def perfect_information_state(self, state: State) -> State:
        """The same position, every hidden thing shown; the same player to move."""
        ...


@runtime_checkable
class BeliefStates(Protocol):
    """A player's belief state as a set of possible true states, a bool mask over an
    enumerated list of them, and what each action can lead to (HOST side, numpy): AND-OR
    search over belief states (:func:`jaxgames.search.belief.and_or_search`)."""

    num_belief_states: int  # S: the length of the enumerated list

    def belief(self, state: State, player: int) -> np.ndarray:
        """``bool[S]``: the true states ``player`` thinks possible at ``state`` (their turn),
        opponent's behaviour unknown."""
        ...

    def belief_actions(self, belief: np.ndarray) -> np.ndarray:
        """``int[k]``: the actions worth trying from ``belief`` (each changes the belief or
        the board in some state of it)."""
        ...

    def belief_outcomes(self, belief: np.ndarray, action: int) -> list[tuple[str, Any]]:
        """After ``action`` from ``belief`` (nonempty), the observations that can follow,
        each as ``(name, result)``: ``result`` is ``"win"`` (the player has won in every
        state of that branch), ``"fail"`` (some state of it ends in a draw or a loss, for
        some behaviour of the opponent), or the next belief ``bool[S]`` (the player to move
        again)."""
        ...


ALL: tuple[type, ...] = (
    Hashing,
    MoveOrdering,
    MoveLists,
    ListOrdering,
    LookaheadOrdering,
    NoisyMoves,
    Checks,
    NullMove,
    ValueBounds,
    ImmediateLosses,
    Enumeration,
    PositionTables,
    ExactValues,
    Sampling,
    Scoring,
    SolutionSummary,
    FixedMoveNames,
    PlaceMoves,
    ImperfectInformation,
    Determinization,
    PerfectInformationView,
    BeliefStates,
)


def capabilities(game: Any) -> list[str]:
    """The names of the capabilities ``game`` has."""
    return [c.__name__ for c in ALL if isinstance(game, c)]
