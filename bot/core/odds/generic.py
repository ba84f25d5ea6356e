"""An OddsReport from the real resolver run over every dice outcome (``enumerate.leaves``).

Used for every action without a fast engine (checks and rallies of NHiS and Command Decision,
ASL Final Protective Fire, whose firers check on the attack's own DR) and by the tests as the
reference the fast engines must match exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from ..game import Game
from ..orders import refers
from ..outcome import Outcome
from ..rulesets import get_ruleset
from .enumerate import Leaf, leaves, tally
from .report import (
    OddsReport,
    Snapshot,
    UnitOdds,
    chance,
    ordered_results,
    ordered_states,
)


def snapshot(unit: Any) -> Snapshot:
    """The flags the end states read, whatever the ruleset, as its unit model declares them
    (``UnitBase.condition``: broken is ASL's broken, NHiS's Shaken, CD's shaken or demoralized)."""
    condition = unit.condition
    return Snapshot(unit.kind, bool(condition.broken), bool(condition.pinned), unit.eliminated,
                    bool(condition.reduced), forced_back=bool(condition.forced_back))


def result_of(outcome: Outcome) -> str:
    """The table result players name an outcome by: the ruleset's own name for it (CD fire: the
    hits scored), else the cell read, else the verdict of the first check."""
    named = get_ruleset(outcome.ruleset).result_name(outcome)
    if named is not None:
        return named
    if outcome.cells:
        return outcome.cells[0].result
    for step in outcome.trail:
        if step.kind == "check" and isinstance(step.value, str):
            return step.value
    return "no effect"


def _named(game: Game, order: BaseModel, actor_side: int | None) -> list[str]:
    """The units the order names as its subject, read from its declarations (``Refers``), in the
    order of its fields: the unit checking or rallying (the shared ``unit``), the target units, the
    enemy units in a target Location, a company's units; never the units it acts with (firers)."""
    model = type(order)
    found: list[str] = []
    for name in model.model_fields:
        ref = refers(model, name)
        value = getattr(order, name)
        if ref is None or value is None:
            continue
        if ref.to == "unit" and (name == "unit" or not ref.acting):
            for uid in [value] if isinstance(value, str) else value:
                unit = game.find_unit(uid)
                if unit is not None:
                    found.append(unit.id)
        elif ref.to == "location" and not ref.acting and isinstance(value, str) and actor_side is not None:
            found += [u.id for u in game.units_at(value) if u.side != actor_side and not u.is_weapon]
        elif ref.to == "company" and isinstance(value, str):
            found += [u.id for u in game.units.values() if not u.eliminated
                      and u.company_name.casefold() == value.casefold()]
    return list(dict.fromkeys(found))


def enumerated_report(game: Game, order: BaseModel) -> OddsReport:
    found: list[Leaf] = list(leaves(game, order))
    first = found[0].outcome
    subjects = _named(game, order, first.actor_side)
    for leaf in found:  # every other unit some outcome changes (Leader Loss, FPF firers ...)
        for effect in leaf.outcome.effects:
            unit = game.units.get(effect.unit)
            if unit is not None and effect.unit not in subjects and not unit.is_weapon:
                before = snapshot(unit)
                after = snapshot(leaf.game.units[effect.unit])
                if after != before:
                    subjects.append(effect.unit)
    results, states, broke, any_breaks, count = tally(game, iter(found), subjects, snapshot,
                                                      lambda leaf: result_of(leaf.outcome))
    units = tuple(UnitOdds(unit=uid, name=game.units[uid].name, side=game.units[uid].side,
                           states=ordered_states(states[uid]), breaks=chance(broke[uid])) for uid in subjects)
    headline = first.headline.split(":")[0] if ":" in first.headline else first.headline
    return OddsReport(ruleset=game.ruleset, action=first.action, headline=headline,
                      results=ordered_results(dict(sorted(results.items(), key=lambda kv: -kv[1]))),
                      units=units, at_least_one_breaks=chance(any_breaks),
                      notes=(f"the real resolver run over all {count} distinct dice outcomes",),
                      method=f"exact enumeration of {count} dice outcomes through the resolver")


def total(report: OddsReport) -> Fraction:
    return sum((c.p for c in report.results.values()), Fraction(0))
