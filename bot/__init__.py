"""Referee: a Discord bot that referees tactical board wargames."""

__version__ = "0.1.0"
