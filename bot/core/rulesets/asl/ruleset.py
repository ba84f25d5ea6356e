"""The Advanced Squad Leader ruleset class (see __init__.py for why it lives here)."""

from __future__ import annotations

from ...dice import Roller
from ...game import Game
from ...outcome import Outcome, UnitEffect
from ...ruleset import Ruleset
from ...trail import Trail
from . import fire, morale, rally, transfer
from .models import AslUnit
from .orders import AslFire, AslMorale, AslOrder, AslRally, AslRecover, AslTransfer


class AslRuleset(Ruleset):
    name = "asl"
    title = "Advanced Squad Leader"
    phases = ("RPh", "PFPh", "MPh", "DFPh", "AFPh", "RtPh", "APh", "CCPh")
    phase_names = {
        "RPh": "Rally Phase", "PFPh": "Prep Fire Phase", "MPh": "Movement Phase",
        "DFPh": "Defensive Fire Phase", "AFPh": "Advancing Fire Phase", "RtPh": "Rout Phase",
        "APh": "Advance Phase", "CCPh": "Close Combat Phase",
    }
    order_type = AslOrder
    variants = ("full", "starter")  # full ASL, or the Starter Kit (no Heat of Battle, ...)

    def unit_model(self):
        return AslUnit

    def default_variant(self) -> str:
        return "full"

    def terrains(self) -> dict:
        from . import tables  # data/asl/terrain.yaml

        return tables.terrains()

    def counter_types(self) -> dict:
        from . import counters  # data/asl/counters.yaml

        return counters.counter_types()

    def table_loaders(self) -> tuple:
        from . import effects, heat, tables

        # data/asl/ift.yaml, morale.yaml (MC, ELR, Casualty Reduction), heat_of_battle.yaml
        return (tables.ift, effects.rules, heat.table)

    def resolve_action(self, game: Game, order, roller: Roller) -> Outcome:
        if isinstance(order, AslFire):
            return fire.resolve_fire(game, order, roller)
        if isinstance(order, AslMorale):
            return morale.resolve_morale(game, order, roller)
        if isinstance(order, AslRally):
            return rally.resolve_rally(game, order, roller)
        if isinstance(order, AslTransfer):
            return transfer.resolve_transfer(game, order, roller)
        if isinstance(order, AslRecover):
            return transfer.resolve_recover(game, order, roller)
        return super().resolve_action(game, order, roller)

    def phase_end(self, game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
        fire.phase_end(game, trail, effects)  # fire markers, residual FP (A8.2, seed 003)
        rally.phase_end(game, trail, effects)  # DM removal at the end of the RPh (A10.62)


RULESET = AslRuleset()
