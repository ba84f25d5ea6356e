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
from ..outcome import Outcome
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
    """The flags the end states read, whatever the ruleset."""
    if unit.system == "asl":
        return Snapshot(unit.kind, unit.broken, unit.pinned, unit.eliminated)
    if unit.system == "nhis":
        return Snapshot(unit.kind, unit.shaken, False, unit.eliminated, unit.reduced)
    return Snapshot(unit.kind, unit.shaken or unit.demoralized, unit.pinned, unit.eliminated,
                    forced_back=unit.forced_back)


def result_of(outcome: Outcome) -> str:
    """The table result players name an outcome by: the cell read, the hits scored (CD fire), or
    the verdict of the first check."""
    if outcome.ruleset == "cd" and outcome.action == "fire":
        hits = sum(1 for s in outcome.trail if s.kind == "check" and s.label.endswith(": hit"))
        return f"{hits} hit{'s' if hits != 1 else ''}"
    if outcome.cells:
        return outcome.cells[0].result
    for step in outcome.trail:
        if step.kind == "check" and isinstance(step.value, str):
            return step.value
    return "no effect"


def _named(game: Game, order: BaseModel, actor_side: int | None) -> list[str]:
    """The units the order names as its subject: the unit checking or rallying, the targets."""
    found: list[str] = []
    for field in ("unit",):
        uid = getattr(order, field, None)
        if isinstance(uid, str) and game.find_unit(uid) is not None:
            found.append(game.find_unit(uid).id)
    for uid in getattr(order, "targets", None) or []:
        if game.find_unit(uid) is not None:
            found.append(game.find_unit(uid).id)
    target = getattr(order, "target", None)
    if isinstance(target, str) and actor_side is not None:
        found += [u.id for u in game.units_at(target) if u.side != actor_side
                  and not getattr(u, "is_sw", False)]
    company = getattr(order, "company", None)
    if isinstance(company, str):
        found += [u.id for u in game.units.values() if not u.eliminated
                  and (getattr(u, "company", "") or "").casefold() == company.casefold()]
    return list(dict.fromkeys(found))


def enumerated_report(game: Game, order: BaseModel) -> OddsReport:
    found: list[Leaf] = list(leaves(game, order))
    first = found[0].outcome
    subjects = _named(game, order, first.actor_side)
    for leaf in found:  # every other unit some outcome changes (Leader Loss, FPF firers ...)
        for effect in leaf.outcome.effects:
            unit = game.units.get(effect.unit)
            if unit is not None and effect.unit not in subjects and not getattr(unit, "is_sw", False):
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
