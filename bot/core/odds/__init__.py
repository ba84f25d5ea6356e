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
from .enumerate import CyclingDice, parsed_order
from .report import END_STATES, Chance, OddsReport, UnitOdds, WeaponOdds

__all__ = ["END_STATES", "Chance", "OddsReport", "UnitOdds", "WeaponOdds", "preview"]


def preview(game: Game, order: dict[str, Any] | BaseModel) -> OddsReport:
    """The odds of ``order`` in ``game``. Raises the RulesError the order itself would raise."""
    parsed = parsed_order(game, order)
    # one real resolution, thrown away: the order is refused exactly as when rolled
    resolve(game, parsed, CyclingDice())
    if game.ruleset == "asl":
        from ..rulesets.asl import fire
        from ..rulesets.asl.orders import AslFire, AslMorale, AslRally
        from . import asl

        if _asl_fast_path(game):
            if isinstance(parsed, AslFire) and fire.fire_kind(game, parsed) != "fpf":
                return asl.fire_odds(game, parsed)
            if isinstance(parsed, AslMorale):
                return asl.morale_odds(game, parsed)
            if isinstance(parsed, AslRally):
                return asl.rally_odds(game, parsed)
    if game.ruleset == "nhis":
        from ..rulesets.nhis.orders import NhisFire
        from . import nhis

        if isinstance(parsed, NhisFire):
            return nhis.fire_odds(game, parsed)
    if game.ruleset == "cd":
        from ..rulesets.cd.orders import CdFire
        from . import cd

        if isinstance(parsed, CdFire):
            return cd.fire_odds(game, parsed)
    from .generic import enumerated_report

    return enumerated_report(game, parsed)


def _asl_fast_path(game: Game) -> bool:
    """Whether the fast ASL engine covers this game. It mirrors the checks as the bot marks Heat of
    Battle (A15, the default); when the game has the bot roll the HoB table, or a unit is berserk
    or heroic, every roll goes through the real resolver instead (exact, but only for small trees)."""
    full = (game.variant or "full") == "full"
    if full and game.options.get("heat_of_battle", "mark") != "mark":
        return False
    return not any(getattr(u, "berserk", False) or getattr(u, "heroic", False) for u in game.units.values())
