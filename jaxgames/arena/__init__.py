"""The arena: matches between agents (searches with their options), scores and Elo."""

from jaxgames.arena.agents import Agent, AlphaBetaAgent, MCTSAgent, RandomAgent, parse_agent
from jaxgames.arena.match import GameRecord, MatchResult, elo_difference, elo_interval, match

__all__ = [
    "Agent",
    "AlphaBetaAgent",
    "GameRecord",
    "MCTSAgent",
    "MatchResult",
    "RandomAgent",
    "elo_difference",
    "elo_interval",
    "match",
    "parse_agent",
]
