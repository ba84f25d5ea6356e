"""Rulesets beyond the built-in ones, loaded at start-up by every entry point (``bot.cli.main``).

A plug-in is a module exporting ``RULESET`` (a ``bot.core.ruleset.Ruleset``), named either in
the environment variable ``REFEREE_RULESETS`` (comma-separated module names, importable from the
working directory or the installed packages) or by an installed package's entry point in the
group ``referee.rulesets`` (``[project.entry-points."referee.rulesets"] mine = "mypkg.rules:RULESET"``).
Loading lives here, outside the rules core, which imports nothing by name but its own packages.
"""

from __future__ import annotations

import os
from importlib import import_module
from importlib.metadata import entry_points

from bot.core.rulesets import RulesetRefused, register

PLUGINS_ENV = "REFEREE_RULESETS"
ENTRY_POINT_GROUP = "referee.rulesets"


class PluginUnusable(RuntimeError):
    """A ruleset plug-in that cannot be imported or registered; the message names it."""


def load_plugins() -> list[str]:
    """Import and register every plug-in ruleset; returns their names. Loading again is harmless."""
    loaded = []
    for module in filter(None, (part.strip() for part in os.environ.get(PLUGINS_ENV, "").split(","))):
        loaded.append(_register(module, lambda name=module: import_module(name).RULESET))
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        loaded.append(_register(entry.value, entry.load))
    return loaded


def _register(where: str, load) -> str:  # type: ignore[no-untyped-def]
    try:
        ruleset = load()
    except Exception as exc:  # ImportError, AttributeError, an error of the module itself
        raise PluginUnusable(f"the ruleset plug-in {where} cannot be loaded: {type(exc).__name__}: {exc}") from exc
    try:
        return register(ruleset).name
    except RulesetRefused as exc:
        raise PluginUnusable(f"the ruleset plug-in {where} is refused: {exc}") from exc
