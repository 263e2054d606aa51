"""The ``match`` verb: agents play a game against each other; the score and Elo."""

from __future__ import annotations

import argparse

from jaxgames.cli.common import positive
from jaxgames.registry import make


def cmd_match(args: argparse.Namespace) -> int:
    from jaxgames.arena import match, parse_agent
    from jaxgames.bulk.output import check_writable, jsonl, write_atomically

    game = make(args.game)
    agents = [parse_agent(spec) for spec in args.agent]  # every spec checked before play
    games = positive(args.games, "--games", "match")
    positive(args.openings, "--openings", "match", least=0)
    if args.out:
        check_writable(args.out)
    result = match(game, agents, games=games, seed=args.seed, openings=args.openings)
    print(result.summary())
    if args.out:
        write_atomically(args.out, jsonl([r.as_row(i) for i, r in enumerate(result.records)]))
    return 0


def add_match(command) -> None:
    p = command("match", "play agents against each other: wins, draws, losses and Elo", False)
    p.add_argument("game", help="game name or spec, e.g. connect4")
    p.add_argument(
        "--agent",
        action="append",
        required=True,
        help="one per player, in seat order of the first game: random, "
        "mcts[:simulations=N,c=X,rollouts=K,solver=true], alphabeta[:depth=D]",
    )
    p.add_argument(
        "--games",
        type=int,
        default=20,
        help="games (a multiple of the players: seats rotate; default: %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.add_argument(
        "--openings",
        type=int,
        default=0,
        help="random plies before the agents play, shared by each group of games "
        "(default: %(default)s)",
    )
    p.add_argument("--out", help="write each game (seats, moves, utilities) as a JSON row")
    p.set_defaults(run=cmd_match)
