"""The three rules systems. Each subpackage exports ``RULESET``, an instance of
``bot.core.ruleset.Ruleset``; ``get_ruleset`` imports them lazily."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ..errors import InvalidOrder

if TYPE_CHECKING:
    from ..ruleset import Ruleset

RULESET_NAMES = ("asl", "nhis", "cd")
RULESET_TITLES = {
    "asl": "Advanced Squad Leader",
    "nhis": "No Honor in Surrender",
    "cd": "Command Decision: Test of Battle",
}


_LOADED: dict[str, Ruleset] = {}  # name -> its RULESET, once imported (each is an immutable singleton)


def get_ruleset(name: str) -> "Ruleset":
    # every resolution asks (api.resolve, parse_order): a dict lookup, not the import machinery
    # and the package's lazy __getattr__ each time
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded
    if name not in RULESET_NAMES:
        raise InvalidOrder(
            f"unknown ruleset '{name}' (choose one of: {', '.join(RULESET_NAMES)})", field="ruleset"
        )
    loaded = _LOADED[name] = import_module(f"{__name__}.{name}").RULESET
    return loaded
