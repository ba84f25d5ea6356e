"""Toy Skirmish as a built-in ruleset: the package tests/test_adding_a_built_in_ruleset.py copies into a
copy of bot/core/rulesets/ (with its data/toy/ and the registry's line), as docs/architecture.md's
checklist "Adding a built-in ruleset" says."""

from .ruleset import RULESET

__all__ = ["RULESET"]
