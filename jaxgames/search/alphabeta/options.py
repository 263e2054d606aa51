"""What an alpha-beta search may do, and what it does by default for each game.

:class:`AlphaBetaOptions` is the user's view: one frozen, hashable dataclass whose fields
default to ``None`` ("the search decides"). :func:`resolve` turns it, for one game and
depth, into a :class:`Config`, the static facts one compiled search is built from. The
defaults come from :data:`TUNING` (per game, measured) and from what the game can do (its
capabilities); options a caller sets always win.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

from jaxgames.capabilities import (
    Checks,
    ExactValues,
    Hashing,
    ImmediateLosses,
    LookaheadOrdering,
    MoveLists,
    NoisyMoves,
    NullMove,
    ValueBounds,
)
from jaxgames.game import Game, GameError
from jaxgames.tuning import ALPHABETA as TUNING


@dataclasses.dataclass(frozen=True)
class ProbCut:
    """A ProbCut model (Buro 1995): a shallow search predicts the deep one linearly.

    At a node with ``depth`` plies left, the one-ply look-ahead ``v'`` (the best EVAL or
    UTILITY among the children, from the mover's side) predicts the ``depth``-ply value as
    ``v ~ a * v' + b`` with residual standard deviation ``sigma``. The node is cut, returning
    the bound, when the prediction clears the window by ``t`` standard deviations:
    ``a v' + b - t sigma >= beta`` (fail high) or ``a v' + b + t sigma <= alpha`` (fail low).
    INEXACT: a cut can change the value and the move. Fit one with
    :func:`jaxgames.search.fit_probcut`.
    """

    depth: int
    a: float
    b: float
    sigma: float
    t: float = 1.5
    shallow: int = 1  # the look-ahead depth; only 1 is implemented

    def as_tuple(self) -> tuple:
        return (
            int(self.depth),
            int(self.shallow),
            float(self.a),
            float(self.b),
            float(self.sigma),
            float(self.t),
        )


@dataclasses.dataclass(frozen=True)
class Singular:
    """Singular extensions (Anantharaman, Campbell and Hsu 1990), the PV-singular test.

    At a node with at least ``min_depth`` plies left whose search ends with an exact value
    (``alpha < v < beta``), the best move is *singular* when its value beats every other
    move's (fail-soft) value by at least ``margin``; it is then searched again one ply
    deeper, and the node's value becomes the larger of that value and the runner-up's. At
    most ``max_extensions`` extensions lie on any path. The result is the value of a deeper,
    selective search, not the depth-limited minimax value (``stats["exact"]`` is False).
    """

    min_depth: int = 2
    margin: float = 0.1
    max_extensions: int = 1

    def as_tuple(self) -> tuple:
        if self.min_depth < 1 or self.max_extensions < 1 or not self.margin >= 0:
            raise GameError(
                "alphabeta: singular needs min_depth >= 1, max_extensions >= 1, margin >= 0;"
                f" got {self}"
            )
        return (int(self.min_depth), float(self.margin), int(self.max_extensions))


@dataclasses.dataclass(frozen=True)
class AlphaBetaOptions:
    """How alpha-beta searches. ``None`` means "the search's default for this game"
    (:data:`TUNING`, then :data:`DEFAULTS`); every exact option returns the minimax value.

    Ordering (exact):
        hint: order by the game's own scores (:class:`~jaxgames.capabilities.MoveOrdering`,
            or :class:`~jaxgames.capabilities.ListOrdering`): captures, threats first.
        lookahead: order by the game's scores of each move played out
            (:class:`~jaxgames.capabilities.LookaheadOrdering`: the reply's mobility,
            "fastest first"); they replace the hint, killers and history as the order, the
            previous PV's and the table's moves still first.
        lookahead_depth: the look-ahead orders only nodes with at least this many plies
            left (to the horizon, and to the game's end as its ``plies_left`` bounds it);
            nearer the end, where most nodes are and the order saves little, the hint
            orders (0: every node).
        killers: two killer moves per ply.
        history: the history heuristic (per player and move, bonus remaining_depth^2).
        iterative_deepening: search depths 1..depth, each with the previous PV first.

    Exact pruning and solving:
        tt: a transposition table shared by all lanes (needs
            :class:`~jaxgames.capabilities.Hashing`); ``tt_bits``: 2**tt_bits entries.
        tt_min_depth: with ``tt=None``, the table is on for searches this deep or deeper.
        bounds: narrow every node's window to the game's
            :class:`~jaxgames.capabilities.ValueBounds`.
        last_ply: a node one ply above the horizon is settled in one event (all its moves
            stepped and evaluated at once).
        solver: find each root's value by null-window searches that close in on it
            (bisection of the value range, each test one fail-soft search; MTD-style), the
            table keeping the bounds they prove; for exact solving, where values are few.
        losing_moves: never search a move the game marks as losing at once
            (:class:`~jaxgames.capabilities.ImmediateLosses`) while another remains.
        helpers: once no root waits, idle lanes help the searches still running (same
            root, other move order, one shared table).
        exact_values: take the positions the game knows exactly
            (:class:`~jaxgames.capabilities.ExactValues`: an endgame table, a game's
            nearly full board played out) as leaves.

    Selective (INEXACT, off by default): ``beam`` (keep the n best moves by a one-ply
    look-ahead), ``probcut`` (:class:`ProbCut`), ``null_move`` (null-move pruning with
    reduction R, needs :class:`~jaxgames.capabilities.NullMove`), ``singular``
    (:class:`Singular` or True), ``lmr`` (late move reductions: from the ``lmr``-th move
    of a node with 3 or more plies left, a quiet move is searched a ply shallower with a
    null window first, and again in full only when it beats alpha).

    Extensions (a deeper, selective search: not the depth-limited minimax value, off by
    default): ``check_extensions``: where the game has
    :class:`~jaxgames.capabilities.Checks`, a move that gives check is searched a ply
    deeper, at most ``max_extensions`` times on a path.

    Engine: ``quiescence`` (plies past the horizon through noisy moves, 0 off), ``lanes``
    (searches side by side per device), ``events`` (events between refills), ``shrink``
    (narrowing factor once the queue is empty; 0 or 1 off).
    """

    hint: bool | None = None
    lookahead: bool | None = None
    lookahead_depth: int | None = None
    killers: bool | None = None
    history: bool | None = None
    iterative_deepening: bool | None = None
    tt: bool | None = None
    tt_bits: int | None = None
    tt_min_depth: int | None = None
    bounds: bool | None = None
    last_ply: bool | None = None
    solver: bool | None = None
    losing_moves: bool | None = None
    helpers: bool | None = None
    exact_values: bool | None = None
    quiescence: int = 0
    beam: int = 0
    probcut: ProbCut | None = None
    null_move: int = 0
    singular: Singular | bool | None = None
    lmr: int = 0
    check_extensions: bool | None = None
    max_extensions: int | None = None
    lanes: int | None = None
    events: int | None = None
    shrink: int | None = None

    def replace(self, **changes: Any) -> AlphaBetaOptions:
        return dataclasses.replace(self, **changes)


DEFAULTS: dict[str, Any] = {
    "hint": True,
    "lookahead": False,
    "lookahead_depth": 0,
    "killers": True,
    "history": True,
    "iterative_deepening": True,
    "tt": None,  # from tt_min_depth
    "tt_bits": 16,
    "tt_min_depth": 0,
    "bounds": True,
    "last_ply": False,
    "solver": False,
    "losing_moves": True,
    "helpers": False,
    "exact_values": True,
    "check_extensions": False,
    "max_extensions": 4,
    "lanes": 512,
    "events": 16,
    "shrink": 4,
    "probcut": None,
    "singular": None,
}
"""The search's own defaults, where neither the caller nor :data:`TUNING` says otherwise."""


FRAME_STEP = 8
"""Stack frames per lane are rounded up to a multiple of this."""


class Config(NamedTuple):
    """The static facts of one compiled search (hashable: part of the compilation key)."""

    frames: int  # stack frames per lane
    max_moves: int  # M: moves held per node
    listed: bool  # moves held as a compact list (else the action index is the move)
    quiescence: int
    hint: bool
    lookahead: bool  # order by the game's LookaheadOrdering scores
    lookahead_depth: int  # ... at nodes with this many plies left or more (0: all)
    killers: bool
    history: bool
    tt_bits: int  # 0: no table
    beam: int
    probcut: tuple | None
    null_move: int
    singular: tuple | None
    bounds: bool
    last_ply: bool
    losing: bool
    check_ext: int  # most check extensions on a path (0: off)
    lmr: int
    complete: bool  # the table marks values of searches that reached every end
    eval_leaves: bool  # some leaf may be at the horizon: EVAL is needed (else UTILITY only)
    exact: bool  # the game knows exact values of some positions (tables): they are leaves


class Resolved(NamedTuple):
    """A search's options after defaults: the compiled part and the run's own."""

    config: Config
    target: int  # the depth asked for (after the game's own limit)
    iterative_deepening: bool
    solver: bool
    helpers: bool
    lanes: int
    events: int
    shrink: int
    exact: bool
    summary: dict[str, Any]  # what ran, for stats["ordering"]


def defaults_for(game: Game) -> dict[str, Any]:
    """The defaults a search of ``game`` starts from: :data:`DEFAULTS`, then the game's
    :data:`TUNING` entry."""
    return {**DEFAULTS, **TUNING.get(game.name, {})}


AT_END = "at_end"
"""A :data:`TUNING` value of ``solver``, ``lookahead``, ``exact_values`` or ``tt``: on where
the search reaches every end of the game (exact solving) and, for the solver, no root window
is asked for; off elsewhere (a search cut off by EVAL has values without end, a midgame
node is cheaper than the look-ahead that orders its moves, and a game whose midgame lines
seldom meet pays for a table it rarely hits)."""
BEFORE_END = "before_end"
"""A :data:`TUNING` value of ``iterative_deepening``: on only where the search does not
reach every end (in an exact endgame its shallow passes end on EVAL and order little)."""


WITHOUT_QUEUE = "without_queue"
"""A :data:`TUNING` value of ``iterative_deepening``: on only where every root has a lane of
its own (no root waits in the queue). There the longest search sets the time, and the
previous depth's move order shortens it most; with a queue, lanes stay busy and the fewer
nodes of one search to the full depth win."""


def _where_end(value: Any, reaches_end: bool, queued: bool = False) -> Any:
    """A :data:`TUNING` value, :data:`AT_END`, :data:`BEFORE_END` or
    :data:`WITHOUT_QUEUE` made a bool."""
    if value == AT_END:
        return reaches_end
    if value == BEFORE_END:
        return not reaches_end
    if value == WITHOUT_QUEUE:
        return not queued
    return value


def resolve(
    game: Game,
    depth: int,
    options: AlphaBetaOptions,
    reaches_end: bool = False,
    windowed: bool = False,
    roots_per_device: int = 0,
) -> Resolved:
    """The options in force for a search of ``game`` to ``depth``; bad values are refused
    in one line. ``reaches_end``: ``depth`` covers every ply every root can still last;
    ``windowed``: the caller gives the roots a window (the solver is then never a default);
    ``roots_per_device``: the roots each device searches (more than its lanes: a queue)."""
    given = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    chosen = defaults_for(game)
    chosen.update({k: v for k, v in given.items() if v is not None})
    queued = roots_per_device > int(chosen["lanes"])
    for name in ("solver", "lookahead", "iterative_deepening", "exact_values", "tt"):
        chosen[name] = _where_end(chosen[name], reaches_end, queued)
    if given["solver"] is None and windowed:
        chosen["solver"] = False  # a default solver never overrides the caller's window
    lanes, events, shrink = int(chosen["lanes"]), int(chosen["events"]), int(chosen["shrink"])
    if lanes < 1:
        raise GameError(f"alphabeta: lanes must be >= 1, got {lanes}")
    if shrink < 0:
        raise GameError(f"alphabeta: shrink must be >= 0 (0 or 1: no shrinking), got {shrink}")
    if events < 1:
        raise GameError(f"alphabeta: events must be >= 1, got {events}")
    null_move = int(chosen["null_move"])
    if null_move < 0:
        raise GameError(f"alphabeta: null_move must be >= 0 (the reduction R), got {null_move}")
    if null_move and not isinstance(game, NullMove):
        raise GameError(f"alphabeta: {game.name} has no null move (null_step), so null_move=0")
    quiescence = int(chosen["quiescence"])
    if quiescence < 0:
        raise GameError(f"alphabeta: quiescence must be >= 0, got {quiescence}")
    lookahead_depth = int(chosen["lookahead_depth"])
    if lookahead_depth < 0:
        raise GameError(f"alphabeta: lookahead_depth must be >= 0, got {lookahead_depth}")
    singular = chosen["singular"]
    singular = Singular() if singular is True else (singular or None)
    probcut = chosen["probcut"]
    beam, lmr = int(chosen["beam"]), int(chosen["lmr"])
    selective = bool(
        beam or probcut is not None or null_move or singular or lmr or chosen["check_extensions"]
    )
    tt = chosen["tt"]
    tt = depth >= int(chosen["tt_min_depth"]) if tt is None else bool(tt)
    tt_bits = int(chosen["tt_bits"]) if (tt and isinstance(game, Hashing)) else 0
    max_moves = int(game.max_moves) if isinstance(game, MoveLists) else game.num_actions
    check_ext = int(chosen["max_extensions"]) if chosen["check_extensions"] else 0
    check_ext = check_ext if isinstance(game, Checks) else 0
    max_ext = singular.as_tuple()[2] if singular else 0
    plain = not (quiescence or selective or check_ext)
    lookahead = bool(chosen["lookahead"]) and isinstance(game, LookaheadOrdering)
    iterative = bool(chosen["iterative_deepening"]) and depth > 1 and not chosen["solver"]
    frames = max(depth, 1) + quiescence + max_ext + check_ext + 1
    config = Config(
        # a multiple of FRAME_STEP: searches a few plies apart (each ply of a game played
        # out, roots lowered to the depth they need) share one compiled program
        frames=-(-frames // FRAME_STEP) * FRAME_STEP,
        max_moves=max_moves,
        listed=max_moves < game.num_actions or isinstance(game, MoveLists),
        quiescence=quiescence if isinstance(game, NoisyMoves) else 0,
        hint=bool(chosen["hint"]),
        lookahead=lookahead,
        lookahead_depth=lookahead_depth if lookahead else 0,
        killers=bool(chosen["killers"]) and not lookahead,  # the look-ahead orders alone
        history=bool(chosen["history"]) and not lookahead,
        tt_bits=tt_bits,
        beam=beam,
        probcut=probcut.as_tuple() if probcut is not None else None,
        null_move=null_move,
        singular=singular.as_tuple() if singular else None,
        bounds=bool(chosen["bounds"]) and isinstance(game, ValueBounds),
        last_ply=bool(chosen["last_ply"]) and plain,
        losing=bool(chosen["losing_moves"]) and isinstance(game, ImmediateLosses),
        check_ext=check_ext,
        lmr=lmr,
        complete=tt_bits > 0 and game.max_game_length > 0 and not selective and not quiescence,
        eval_leaves=not (reaches_end and plain and not iterative),
        exact=bool(chosen["exact_values"]) and isinstance(game, ExactValues),
    )
    summary = {
        "hint": config.hint,
        "lookahead": config.lookahead,
        "lookahead_depth": config.lookahead_depth,
        "killers": config.killers,
        "history": config.history,
        "iterative_deepening": iterative,
        "last_ply": config.last_ply,
        "tt": bool(tt_bits),
        "bounds": config.bounds,
        "solver": bool(chosen["solver"]),
        "losing_moves": config.losing,
        "helpers": bool(chosen["helpers"]),
        "check_extensions": bool(check_ext),
        "lanes": lanes,
        "tt_min_depth": int(chosen["tt_min_depth"]),
        "exact_values": config.exact,
    }
    return Resolved(
        config=config,
        target=depth,
        iterative_deepening=iterative,
        solver=bool(chosen["solver"]),
        helpers=bool(chosen["helpers"]),
        lanes=lanes,
        events=events,
        shrink=shrink,
        exact=not selective,
        summary=summary,
    )


def from_keywords(options: AlphaBetaOptions | None, keywords: dict[str, Any]) -> AlphaBetaOptions:
    """``options`` with ``keywords`` set on it (the public calls take either)."""
    base = options or AlphaBetaOptions()
    names = {f.name for f in dataclasses.fields(AlphaBetaOptions)}
    unknown = sorted(set(keywords) - names)
    if unknown:
        raise GameError(
            f"alphabeta: unknown option {unknown[0]!r}; options: {', '.join(sorted(names))}"
        )
    return dataclasses.replace(base, **keywords)
