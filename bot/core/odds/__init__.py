"""Exact odds of an order before the roll (issue 5): ``preview(game, order) -> OddsReport``.

Pure like the rest of the core: it reads the game, never changes it, and rolls no dice; every
probability comes from enumerating the dice (see ``asl.py`` for the fast ASL engine and
``enumerate.py`` for the brute force that backs everything else and checks the fast engines).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..api import resolve
from ..game import Game
from ..rulesets import get_ruleset
from .enumerate import MAX_LEAVES, CyclingDice, parsed_order
from .report import END_STATES, Chance, OddsReport, UnitOdds, WeaponOdds

__all__ = ["END_STATES", "Chance", "OddsReport", "UnitOdds", "WeaponOdds", "preview", "size"]


def size(game: Game, order: dict[str, Any] | BaseModel) -> int:
    """Check ``order`` as ``preview`` would (refused exactly as when rolled), then estimate the size
    of its enumeration before running it: the outcomes to tell apart times the units they carry
    (the ruleset's own estimate, else the resolver's tree measured along one line of dice). Raises IllegalOrder, with the numbers, when the preview
    would pass its cap: at once, rather than after enumerating up to the cap (issue 17)."""
    parsed = parsed_order(game, order)
    # one real resolution, thrown away: the order is refused exactly as when rolled
    resolve(game, parsed, CyclingDice())
    estimate = get_ruleset(game.ruleset).preview_size(game, parsed)
    if estimate is not None:
        return estimate
    # the enumeration through the resolver: the outcomes along its first line of dice (the tree
    # is about as wide everywhere), each one resolution of the whole game
    from .enumerate import resolve_path

    _leaf, widths = resolve_path(game, parsed, [])
    leaves = 1
    for width in widths:
        leaves *= width
    return min(leaves, MAX_LEAVES + 1) * (len(game.units) + 10)


def preview(game: Game, order: dict[str, Any] | BaseModel) -> OddsReport:
    """The odds of ``order`` in ``game``. Raises the RulesError the order itself would raise, and
    refuses an enumeration too large before starting it (``size``)."""
    parsed = parsed_order(game, order)
    size(game, parsed)
    fast = get_ruleset(game.ruleset).preview(game, parsed)  # the ruleset's own engine, if it has one
    if fast is not None:
        return fast
    from .generic import enumerated_report

    return enumerated_report(game, parsed)
