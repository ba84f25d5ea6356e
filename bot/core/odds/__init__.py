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
from .enumerate import CyclingDice, parsed_order
from .report import END_STATES, Chance, OddsReport, UnitOdds, WeaponOdds

__all__ = ["END_STATES", "Chance", "OddsReport", "UnitOdds", "WeaponOdds", "preview"]


def preview(game: Game, order: dict[str, Any] | BaseModel) -> OddsReport:
    """The odds of ``order`` in ``game``. Raises the RulesError the order itself would raise."""
    parsed = parsed_order(game, order)
    # one real resolution, thrown away: the order is refused exactly as when rolled
    resolve(game, parsed, CyclingDice())
    fast = get_ruleset(game.ruleset).preview(game, parsed)  # the ruleset's own engine, if it has one
    if fast is not None:
        return fast
    from .generic import enumerated_report

    return enumerated_report(game, parsed)
