"""A fourth ruleset defined entirely under tests/: one phase, one counter, one order that rolls one
die. It proves that a ruleset is one self-describing module: the bot, the loopback Discord and
``python -m bot rules replay`` play it without a line outside tests/ naming it (REFEREE_RULESETS
names this module for a subprocess; the in-process tests ``register`` it)."""

from __future__ import annotations

from typing import Any, Literal

from bot.core.commands import Command, Option, Suggest
from bot.core.dice import Roller
from bot.core.game import Game
from bot.core.orders import ActingUnit, OrderBase, PhaseOrder
from bot.core.outcome import Outcome, UnitEffect
from bot.core.ruleset import Ruleset
from bot.core.rulesets.base import UnitBase
from bot.core.trail import Trail

RULE = "Toy 1.1"


class Pawn(UnitBase):
    system: Literal["toy"] = "toy"
    kind: Literal["pawn"] = "pawn"
    nerve: int = 3  # a d6 at or under it, and the pawn holds
    shaken: bool = False


class Toss(OrderBase):
    """A pawn tosses a die: over its nerve, it is shaken (Toy 1.1)."""

    rolls = True
    action: Literal["toss"] = "toss"
    unit: ActingUnit


class ToyRuleset(Ruleset):
    name = "toy"
    title = "Toy Skirmish"
    short_name = "Toy"
    phases = ("Play",)
    phase_names = {"Play": "Play Phase"}
    order_type = Toss | PhaseOrder
    commands = (Command("toss", "Toss a die for a pawn: over its nerve it is shaken", Toss, (
        Option("unit", "id", "the pawn that tosses", required=True, suggest=Suggest("unit")),)),)
    counter_fields = (("nerve", "nerve"),)
    status_flags = (("shaken", "shaken"),)

    def unit_model(self) -> type[Pawn]:
        return Pawn

    def counter_types(self) -> dict[str, dict[str, Any]]:
        return {"pawn": {"kind": "pawn", "name": "Pawn", "nerve": 3}}

    def resolve_action(self, game: Game, order: Any, roller: Roller) -> Outcome:
        pawn = game.unit(order.unit)
        before = self.unit_status(pawn)
        trail = Trail()
        trail.section(f"Toss: {pawn.label}, nerve {pawn.nerve}", rule=RULE, unit=pawn.id)
        roll = roller.d6(f"toss {pawn.label}").total
        trail.add("dice", "1d6", roll, rule=RULE, unit=pawn.id)
        shaken = roll > pawn.nerve
        trail.add("check", f"{roll} {'>' if shaken else '<='} nerve {pawn.nerve}", "shaken" if shaken else "holds",
                  rule=RULE, unit=pawn.id)
        pawn.shaken = pawn.shaken or shaken
        effect = UnitEffect(unit=pawn.id, name=pawn.name, side=pawn.side, before=before, after=self.unit_status(pawn),
                            effects=("shaken",) if shaken else ())
        return Outcome(ruleset=self.name, action="toss", headline=f"{pawn.label} tosses {roll}: "
                       f"{'shaken' if shaken else 'holds'}", actor_side=pawn.side, trail=trail.freeze(),
                       effects=(effect,))


RULESET = ToyRuleset()
