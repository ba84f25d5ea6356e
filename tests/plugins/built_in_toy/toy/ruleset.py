"""Toy Skirmish: one phase, one counter (its library in data/toy/counters.yaml), one order that rolls
one die (Toy 1.1), a sample game for the sandbox. The same rules as tests/plugins/toy_ruleset.py, laid
out as a built-in ruleset's package."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

import yaml

from bot.core.commands import Command, Option, Suggest
from bot.core.data import data_path
from bot.core.dice import Roller
from bot.core.game import Game
from bot.core.orders import ActingUnit, OrderBase, PhaseOrder
from bot.core.outcome import Outcome, UnitEffect
from bot.core.ruleset import Ruleset
from bot.core.rulesets.base import Condition, UnitBase
from bot.core.samples import Sample
from bot.core.trail import Trail

RULE = "Toy 1.1"


class Pawn(UnitBase):
    system: Literal["toy"] = "toy"
    kind: Literal["pawn"] = "pawn"
    nerve: int = 3  # a d6 at or under it, and the pawn holds
    shaken: bool = False

    @property
    def condition(self) -> Condition:
        return Condition(broken=self.shaken)


class Toss(OrderBase):
    """A pawn tosses a die: over its nerve, it is shaken (Toy 1.1)."""

    rolls = True
    action: Literal["toss"] = "toss"
    unit: ActingUnit


@cache
def counters() -> dict[str, dict[str, Any]]:
    with open(data_path("toy", "counters.yaml"), encoding="utf-8") as fh:
        return dict(yaml.safe_load(fh)["counters"])


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
    samples = (Sample(key="", title="Toy Skirmish: Duel (sample)", blurb="alice plays Red, bob Blue",
                      lines=("/game new ruleset:toy sides:Red, Blue scenario:Duel (sample) options:open_seating=yes",
                             "as alice", "/game join side:Red", "as bob", "/game join side:Blue", "as gm",
                             "/unit add id:P1 side:Red type:pawn location:A1",
                             "/unit add id:P2 side:Blue type:pawn location:A2"),
                      next_steps="Try: as alice | /toss unit:P1"),)

    def unit_model(self) -> type[Pawn]:
        return Pawn

    def counter_types(self) -> dict[str, dict[str, Any]]:
        return {key: dict(fields) for key, fields in counters().items()}

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
