"""No Honor in Surrender (Lock 'n Load Publishing).

The ruleset class lives in ``ruleset.py``; the registry (``bot.core.rulesets``) reads ``RULESET``."""

from .ruleset import RULESET

__all__ = ["RULESET"]
