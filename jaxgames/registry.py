"""The game registry: ``make("connect4", width=5)`` and ``list_games()``.

Games are registered by name with the module that defines them, and imported only when made,
so ``import jaxgames`` stays cheap.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from jaxgames.game import Game, GameError

# name -> "module:ClassName"; a game module registers itself here by being listed.
_REGISTRY: dict[str, str] = {
    "tictactoe": "jaxgames.games.tictactoe:TicTacToe",
    "connect4": "jaxgames.games.connect4:ConnectFour",
    "backgammon": "jaxgames.games.backgammon:Backgammon",
    "tree": "jaxgames.games.tree:ExplicitTree",
    "uniform_tree": "jaxgames.games.uniform_tree:UniformTree",
    "pig": "jaxgames.games.pig:Pig",
    "chinese_checkers": "jaxgames.games.chinese_checkers:ChineseCheckers",
    "chess": "jaxgames.games.chess:Chess",
    "checkers": "jaxgames.games.checkers:Checkers",
    "othello": "jaxgames.games.othello:Othello",
    "go": "jaxgames.games.go:Go",
    "kuhn_poker": "jaxgames.games.poker.kuhn:KuhnPoker",
    "leduc_poker": "jaxgames.games.poker.leduc:LeducPoker",
    "phantom_tictactoe": "jaxgames.games.phantom_tictactoe:PhantomTicTacToe",
}

_CACHE: dict[tuple, Game] = {}


def register(name: str, target: str) -> None:
    """Register a game class under ``name``; ``target`` is ``"module:ClassName"``."""
    _REGISTRY[name] = target


def list_games() -> list[str]:
    """Names of the registered games, sorted."""
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a command-line game spec ``name:k=v,k=v`` into the name and typed parameters.

    Values are read as int, then float, then true/false, else kept as strings.
    """
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise GameError(f"game spec {spec!r}: parameter {item!r} is not of the form key=value")
        params[key.strip()] = _typed(raw.strip())
    return name, params


def _typed(raw: str) -> Any:
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    return raw


def make(name: str, /, **params: Any) -> Game:
    """Make a game by name: ``make("connect4")``, ``make("connect4", width=5, height=4)``.

    ``name`` may also be a command-line spec such as ``"connect4:width=5,height=4"``;
    keyword parameters override those in the spec. ``tables=DIR`` (``chess:tables=DIR``)
    loads the game's endgame tables from ``DIR`` (:func:`jaxgames.search.tables.with_tables`):
    searches then take every position a table holds as an exact leaf. Games are cached, so
    the same name and parameters give the same object (and the same compiled kernels).

    Raises:
        GameError: unknown game or bad parameters (one line naming which).
    """
    base, spec_params = parse_spec(name)
    spec_params.update(params)
    if "tables" in spec_params:  # the game with its endgame tables loaded: a wrapper
        directory = spec_params.pop("tables")
        key = (
            base,
            "tables",
            str(directory),
            tuple(sorted((k, repr(v)) for k, v in spec_params.items())),
        )
        if key not in _CACHE:
            from jaxgames.search.tables import with_tables

            _CACHE[key] = with_tables(make(base, **spec_params), directory)
        return _CACHE[key]
    if base not in _REGISTRY:
        raise GameError(f"unknown game {base!r}; known games: {', '.join(list_games())}")
    key = (base, tuple(sorted((k, repr(v)) for k, v in spec_params.items())))
    if key not in _CACHE:
        cls = game_class(base)
        known = parameters(base)
        unknown = [k for k in spec_params if k not in known]
        if unknown:
            listed = ", ".join(f"{k} (default {v!r})" for k, v in known.items()) or "none"
            raise GameError(
                f"game {base!r} has no parameter {unknown[0]!r}; its parameters: {listed}"
            )
        try:
            game = cls(**spec_params)
        except TypeError as err:
            raise GameError(f"game {base!r}: {err}") from None
        _CACHE[key] = game
    return _CACHE[key]


def game_class(name: str) -> type[Game]:
    """The class registered under ``name`` (its module imported now)."""
    if name not in _REGISTRY:
        raise GameError(f"unknown game {name!r}; known games: {', '.join(list_games())}")
    module_name, class_name = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def parameters(name: str) -> dict[str, Any]:
    """The parameters a game is made with, and their defaults (from its constructor)."""
    signature = inspect.signature(game_class(name).__init__)
    return {
        p.name: p.default
        for p in list(signature.parameters.values())[1:]  # after self
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
