"""A Go engine speaking the Go Text Protocol, version 2 (GTP), around any arena agent.

:class:`GtpEngine` holds the game on the host (the rules of :mod:`jaxgames.games.go`) and
answers one command line at a time (:meth:`GtpEngine.handle`); ``jaxgames gtp`` feeds it
stdin. ``genmove`` asks the agent (``mcts:simulations=2000``, ``random``, ...) for a move
in the current position, a batch of one. The agent's search is compiled before the first
``genmove`` is answered: at start-up, and again after a ``boardsize`` or ``komi`` that
changes the game (each board size and komi is its own compiled program), the agent is run
once: MCTS on a finished game of the same shapes (compiled, its search ends at once), other
agents on the empty board.

The engine plays by the game's rules (simple ko, or positional superko with
``superko=true``; suicide illegal; Tromp-Taylor area scoring for ``final_score``), with
what GTP needs beyond them: a move of either colour at any time (``play b`` twice sets
Black to move again), and no end of the game in the engine's view: the controller decides
when it is over, so two passes or the game's length limit do not stop ``play`` or
``genmove`` (the search still sees the last pass: passing again ends its game).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from jaxgames.arena.agents import MCTSAgent, parse_agent
from jaxgames.game import GameError
from jaxgames.games.go.notation import COLUMNS, HostGo, vertex_name
from jaxgames.games.go.rules import MAX_SIZE, MIN_SIZE, Go
from jaxgames.games.go.sgf import (
    host_positions,
    komi_param,
    parse_sgf,
    playable,
    result_string,
)
from jaxgames.kernels import stack
from jaxgames.registry import make

COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "final_score",
    "showboard",
    "loadsgf",
    "time_settings",
    "time_left",
)
"""The commands answered, in the order ``list_commands`` gives them."""

_COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


class GtpError(Exception):
    """A command that fails: answered ``? message``."""


def _clean(line: str) -> str:
    """GTP's preprocessing of a command line: control characters other than HT and LF
    removed, a comment (from ``#``) cut off, HT turned into a space."""
    line = "".join(c for c in line if c in "\t\n" or not (ord(c) < 32 or ord(c) == 127))
    return line.split("#", 1)[0].replace("\t", " ").strip()


class GtpEngine:
    """A GTP engine: :meth:`handle` takes one command line and returns the full response
    (``"= D4\\n\\n"``, ``"? illegal move\\n\\n"``; ``""`` for a blank or comment line).

    Args:
        game: a Go game or spec (``"go:size=9,komi=7.5"``); ``boardsize`` and ``komi`` make
            the same game with another size or komi.
        agent: an agent spec (:func:`jaxgames.arena.parse_agent`) that picks the moves.
        seed: the agent's seed at the first move; each move after adds one.
        warm: run a warm-up search whenever the game changes (at start-up, after
            ``boardsize``/``komi``), so that ``genmove`` never waits for compilation.
        log: called with one line about each warm-up and move (the CLI's stderr), or None.
    """

    def __init__(
        self,
        game: Go | str = "go",
        agent: str = "mcts:simulations=800,selection=rave",
        *,
        seed: int = 0,
        warm: bool = True,
        log: Callable[[str], None] | None = None,
    ) -> None:
        game = make(game) if isinstance(game, str) else game
        if not isinstance(game, Go):
            raise GameError(f"gtp: the engine plays go, not {game.name}")
        self.agent = parse_agent(agent)
        if getattr(self.agent, "replays", False):
            raise GameError(f"gtp: agent {agent!r} replays games elsewhere; it cannot play go")
        self.seed = seed
        self.warm = warm
        self.log = log
        self.done = False  # True once ``quit`` is answered
        self._warmed: set[Go] = set()
        self._score: dict[Go, Callable] = {}
        self.game = game
        self._new_game(game)

    # ------------------------------------------------------------------ state
    def _new_game(self, game: Go) -> None:
        """An empty board of ``game`` (compiled first, when warm-ups are on)."""
        if self.warm and game not in self._warmed:
            started = time.perf_counter()
            self.agent(game, stack([self._warm_up_state(game)]), self.seed)
            self._warmed.add(game)
            if self.log:
                seconds = time.perf_counter() - started
                self.log(f"warm-up: {self.agent.spec} on {game.spec} in {seconds:.1f} s")
        self.game = game
        self.positions: list[HostGo] = [HostGo(game.size, game.superko)]
        self.moves: list[tuple[int, int]] = []  # (colour, action) played since the start

    def _warm_up_state(self, game: Go) -> Any:
        """What the warm-up searches: for MCTS, a finished game (two passes): the same
        shapes, so the same compiled program, and its search ends at once; for the other
        agents the empty board (alpha-beta, for one, decides on the host what a finished
        root needs and would compile nothing)."""
        host = HostGo(game.size, game.superko)
        if isinstance(self.agent, MCTSAgent):
            host.passes = 2
        return game._host_state(host)

    @property
    def position(self) -> HostGo:
        """The current position (host rules)."""
        return self.positions[-1]

    def state(self, colour: int | None = None) -> Any:
        """The current position as a state of the game, as the search sees it: ``colour``
        to move (default: the side to move), the last pass kept (a second one ends its
        game), the move count kept low enough that the search has at least
        ``1.5 * size**2`` steps left before the game's length limit, and with superko, the
        boards of those recent steps."""
        host = copy.copy(self.position)
        if colour is not None:
            host.player = colour
        n = self.game.num_points
        host.moves = min(host.moves, n // 2)
        host.passes = min(host.passes, 1)
        host.history = host.history[len(host.history) - host.moves :] if host.moves else []
        return self.game._host_state(host)

    def _play(self, colour: int, action: int) -> None:
        host = copy.deepcopy(self.position)
        host.player = colour
        why = playable(host, action)
        if why is not None:
            raise GtpError("illegal move")
        host.play(action)
        self.positions.append(host)
        self.moves.append((colour, action))

    def score(self) -> float:
        """Black's Tromp-Taylor area margin less komi, in the current position."""
        if self.game not in self._score:
            self._score[self.game] = jax.jit(self.game.score)
        return float(self._score[self.game](self.game._host_state(self.position)))

    # ------------------------------------------------------------------ protocol
    def handle(self, line: str) -> str:
        """One command line -> its response, ending with a blank line (GTP 2)."""
        text = _clean(line)
        if not text:
            return ""
        words = text.split()
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
            if not words:
                return f"?{ident} missing command\n\n"
        name, args = words[0], words[1:]
        if name not in COMMANDS:
            return f"?{ident} unknown command\n\n"
        try:
            result = getattr(self, f"cmd_{name}")(args)
        except GtpError as err:
            return f"?{ident} {err}\n\n"
        head, *rest = result.split("\n")  # no blank line inside a response
        result = "\n".join([head, *(line for line in rest if line.strip())])
        return f"={ident} {result}\n\n"

    @staticmethod
    def _colour(word: str) -> int:
        colour = _COLOURS.get(word.lower())
        if colour is None:
            raise GtpError("invalid color")
        return colour

    def _vertex(self, word: str) -> int:
        """A GTP vertex or ``pass`` -> the action; ``syntax error`` when it is not one,
        ``illegal move`` when it is off the board."""
        size = self.game.size
        if word.lower() == "pass":
            return size * size
        letter, digits = word[:1].upper(), word[1:]
        if letter not in COLUMNS + "UVWXYZ" or not digits.isdigit() or letter == "I":
            raise GtpError("syntax error")
        col, row = (COLUMNS + "UVWXYZ").index(letter), int(digits)
        if not (col < size and 1 <= row <= size):
            raise GtpError("illegal move")
        return (row - 1) * size + col

    def cmd_protocol_version(self, args: list[str]) -> str:
        return "2"

    def cmd_name(self, args: list[str]) -> str:
        return "jaxgames"

    def cmd_version(self, args: list[str]) -> str:
        from jaxgames import __version__

        return f"{__version__} ({self.agent.spec})"

    def cmd_known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error")
        return "true" if args[0] in COMMANDS else "false"

    def cmd_list_commands(self, args: list[str]) -> str:
        return "\n".join(COMMANDS)

    def cmd_quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    def cmd_boardsize(self, args: list[str]) -> str:
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("syntax error")
        size = int(args[0])
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        self._new_game(make("go", **{**self.game.params, "size": size}))
        return ""

    def cmd_clear_board(self, args: list[str]) -> str:
        self._new_game(self.game)
        return ""

    def cmd_komi(self, args: list[str]) -> str:
        try:
            komi = float(args[0]) if len(args) == 1 else float("nan")
        except ValueError:
            komi = float("nan")
        if komi != komi:
            raise GtpError("syntax error")
        try:
            game = make("go", **{**self.game.params, "komi": komi_param(komi)})
        except GameError:
            raise GtpError("unacceptable komi") from None
        if game != self.game:  # the board stays as it is
            positions, moves = self.positions, self.moves
            self._new_game(game)
            self.positions, self.moves = positions, moves
        return ""

    def cmd_play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error")
        colour, action = self._colour(args[0]), self._vertex(args[1])
        self._play(colour, action)
        return ""

    def cmd_genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error")
        colour = self._colour(args[0])
        started = time.perf_counter()
        seed = self.seed + len(self.moves)
        action = int(np.asarray(self.agent(self.game, stack([self.state(colour)]), seed))[0])
        name = self.play_chosen(colour, action)
        if self.log:
            seconds = time.perf_counter() - started
            self.log(f"move {len(self.moves)}: {'BW'[colour]} {name} in {seconds:.2f} s")
        return name

    def play_chosen(self, colour: int, action: int) -> str:
        """Play the move the agent chose for ``colour`` (a pass if it is not legal here) and
        return its vertex name: ``genmove``'s second half, for drivers that search many
        engines' positions in one batch."""
        n = self.game.num_points
        host = copy.copy(self.position)
        host.player = colour  # GTP: either colour may be asked to move
        if not 0 <= action <= n or playable(host, action) is not None:
            action = n  # nothing found (or a superko repeat older than the search saw)
        self._play(colour, action)
        return vertex_name(action, self.game.size)

    def cmd_undo(self, args: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo")
        self.positions.pop()
        self.moves.pop()
        return ""

    def cmd_final_score(self, args: list[str]) -> str:
        return result_string(self.score())

    def cmd_showboard(self, args: list[str]) -> str:
        host = self.position
        drawing = self.game.draw(self.game._host_state(host))
        to_move = "Black (X)" if host.player == 0 else "White (O)"
        return f"\n{drawing}\n{to_move} to move, {len(self.moves)} moves played"

    def cmd_loadsgf(self, args: list[str]) -> str:
        """``loadsgf FILE [N]``: the position before move ``N`` of the file's main line
        (all of it without ``N``); the board size and komi become the record's."""
        if len(args) not in (1, 2) or (len(args) == 2 and not args[1].isdigit()):
            raise GtpError("syntax error")
        try:
            with open(args[0], encoding="utf-8", errors="replace") as f:
                record = parse_sgf(f.read())
            if not MIN_SIZE <= record.size <= MAX_SIZE:
                raise GtpError("unacceptable size")
            if len(args) == 2:
                record.moves = record.moves[: max(int(args[1]) - 1, 0)]
            komi = komi_param(record.komi)
            game = make("go", **{**self.game.params, "size": record.size, "komi": komi})
            positions = host_positions(record, game.superko)
        except OSError:
            raise GtpError("cannot load file") from None
        except GameError:
            raise GtpError("cannot load file") from None
        self._new_game(game)
        self.positions, self.moves = positions, list(record.moves)
        return ""

    def cmd_time_settings(self, args: list[str]) -> str:
        return ""  # accepted; the agent's budget is its number of simulations

    def cmd_time_left(self, args: list[str]) -> str:
        return ""


__all__ = ["COMMANDS", "GtpEngine", "GtpError"]
