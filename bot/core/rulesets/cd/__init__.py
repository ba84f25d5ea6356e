"""Command Decision: Test of Battle.

The ruleset class lives in ``ruleset.py``; the registry (``bot.core.rulesets``) reads ``RULESET``."""

from .ruleset import RULESET

__all__ = ["RULESET"]
