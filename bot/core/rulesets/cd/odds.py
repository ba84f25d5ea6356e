"""Exact odds of Command Decision direct fire [13, 14, 19.1, 27.1].

The real fire code gives the ROF dice and each target's to-hit number. Each ROF die is aimed at
one target in turn (round-robin), so a target's hits are binomial in the dice aimed at it. Every
hit takes one d10 on the Hit Results chart: the real ``resolve_hit`` is run once per natural
1..10 on a copy of the target to learn what each face does, then each path applies the result
with the real code. A target eliminated by one hit spends the rest (CD [19.1]). The ammunition
depletion roll [27.1] follows any natural 1 among all the to-hit dice.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ...dice import Roller, ScriptedDice
from ...game import Game
from . import fire, hits, tables
from .context import CdContext
from .orders import CdFire
from ...odds.enumerate import _NoDice
from ...odds.generic import snapshot
from ...odds.paths import Brancher, explore
from ...odds.report import (
    OddsReport,
    UnitOdds,
    breaks,
    chance,
    end_state,
    ordered_results,
    ordered_states,
)


def _context(game: Game, copy_ids: list[str], roller: Roller | None = None) -> CdContext:
    units = dict(game.units)
    for uid in copy_ids:
        units[uid] = units[uid].model_copy()
    return CdContext(game.model_copy(update={"units": units}), roller or Roller(_NoDice()))


def _faces(game: Game, target_id: str, ap) -> list[tuple[Fraction, str]]:
    """(probability, result) of one hit-result roll on the target, from the real chart code."""
    found: dict[str, int] = {}
    for natural in range(1, 11):
        ctx = _context(game, [target_id], Roller(ScriptedDice([natural], manual=False)))
        result = hits.resolve_hit(ctx, ctx.game.units[target_id], ap)
        found[result] = found.get(result, 0) + 1
    return [(Fraction(n, 10), result) for result, n in found.items()]


def _binomial(dice: int, p: Fraction) -> list[tuple[Fraction, int]]:
    return [(math.comb(dice, k) * p ** k * (1 - p) ** (dice - k), k) for k in range(dice + 1)]


def fire_odds(game: Game, order: CdFire) -> OddsReport:
    ctx = _context(game, [])
    firer, targets = fire.participants(ctx, order)
    op_fire = order.op_fire or game.phase == "OpFire"
    base = fire.base_to_hit(firer, order.range_band)
    pen = fire.penetration(firer, targets, order.range_band)
    dice = fire.rate_of_fire(ctx, firer, targets, order, op_fire)
    numbers = {t.id: fire.to_hit(ctx, firer, t, order, base) for t in targets}
    aimed = {t.id: sum(1 for i in range(dice) if targets[i % len(targets)].id == t.id) for t in targets}
    p_hit = {uid: Fraction(min(max(n, 0), 10), 10) for uid, n in numbers.items()}
    aps = {t.id: hits.ApHit(t.armour, pen, order.range_band, order.close_range) if pen is not None and t.is_afv
           else None for t in targets}
    faces = {t.id: _faces(game, t.id, aps[t.id]) for t in targets}
    ids = [t.id for t in targets]
    suppression = tables.modifiers().suppression

    def program(b: Brancher):
        work = _context(game, ids)
        scored = 0
        for uid in ids:
            count = b.branch(_binomial(aimed[uid], p_hit[uid]))
            scored += count
            target = work.game.units[uid]
            for _ in range(count):
                if target.eliminated or "eliminated" in target.pending:  # or at the end of the phase
                    break  # the hit is spent (CD [19.1])
                result = b.branch(faces[uid])
                hits._apply(work, target, result, tables.hit_results().rule)
        if firer.weapon_class in suppression.classes and game.phase != "GeneralFire":
            hits.suppress(work, [work.game.units[u] for u in ids], suppression.rule)
        return scored, work.game

    results: dict[str, Fraction] = {}
    states: dict[str, dict[str, Fraction]] = {u: {} for u in ids}
    broke = {u: Fraction(0) for u in ids}
    any_breaks = Fraction(0)
    for p, (scored, after) in explore(program):
        key = f"{scored} hit{'s' if scored != 1 else ''}"
        results[key] = results.get(key, Fraction(0)) + p
        some = False
        for uid in ids:
            before, now = snapshot(game.units[uid]), (snapshot(after.units[uid]),)
            state = end_state(before, now)
            states[uid][state] = states[uid].get(state, Fraction(0)) + p
            if breaks(before, now):
                broke[uid] += p
                some = True
        any_breaks += p if some else 0
    notes = [f"{dice} ROF dice, round-robin over the targets; to hit: "
             + ", ".join(f"{game.units[u].name} {numbers[u]} or less" for u in ids) + " (CD [13.5, 14.2.1])"]
    threshold, _ = hits.depletion_threshold(firer)
    ammo = tables.modifiers().ammo
    if firer.caliber_mm >= ammo.min_caliber_mm:
        depleted = (1 - Fraction(9, 10) ** dice) * Fraction(min(max(threshold, 0), 10), 10)
        notes.append(f"ammunition depleted: {float(depleted) * 100:.1f}% ({depleted.numerator}/{depleted.denominator},"
                     f" CD [27.1])")
    order_keys = [f"{n} hit{'s' if n != 1 else ''}" for n in range(dice, -1, -1)]
    units = tuple(UnitOdds(unit=uid, name=game.units[uid].name, side=game.units[uid].side,
                           states=ordered_states(states[uid]), breaks=chance(broke[uid])) for uid in ids)
    return OddsReport(ruleset="cd", action="fire",
                      headline=f"{firer.name} fires {dice} ROF at {', '.join(t.name for t in targets)}",
                      results=ordered_results(results, order_keys), units=units,
                      at_least_one_breaks=chance(any_breaks), notes=tuple(notes))
