"""Exact odds of an NHiS fire attack (seed 001): the Fire Table result, then each unit's end state.

The real fire code builds the attack (firers, targets, FP and its modifiers, the column and its
shifts); the 2d6 total alone picks the cell, so the 11 totals are enough. Each result is then
replayed through the real morale code (``target_number``, ``fail``, ``step_loss``, the Shake of
every Shakeable unit) with the dice replaced by their outcome classes:

* a morale check passes with probability (needed - Hit number) / 6 on 1d6, clamped to 0..1;
* damage allocation picks every set of ``take`` units with the same probability: each unit rolls
  a d6 and ties across the cut roll again among themselves (damage._pick), and i.i.d. dice favour
  no unit, so each set has probability 1 / C(pool, take).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from fractions import Fraction

from ...dice import Roller
from ...game import Game
from . import damage, fire, morale, tables
from .context import NhisContext
from .orders import NhisFire
from ...odds.enumerate import SUM_WEIGHTS, _NoDice
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

RESULT_ORDER = ["Damaged-3", "Damaged-2", "Damaged", *(f"Hit-{n}" for n in range(6, 0, -1)), "Hit", "no effect"]


def _attack(game: Game, order: NhisFire) -> tuple[fire.Attack, int | None]:
    """The attack as fire.resolve_fire builds it, and the column index read (None: no effect)."""
    ctx = NhisContext(game.model_copy(deep=True), Roller(_NoDice()))
    attack = fire.Attack(order=order, hex=ctx.game.location(order.target, field="target"),
                         firers=fire._firers(ctx, order))
    fire._aim(ctx, attack)
    fire._targets(ctx, attack)
    fire._base_fp(ctx, attack)
    fire._modifiers(ctx, attack)
    index = tables.fire_table().column_index(attack.fp)
    if index is not None:
        index -= fire._shift(ctx, attack)
    return attack, index if index is not None and index >= 0 else None


def _work(game: Game, unit_ids: list[str]) -> NhisContext:
    """A context on a copy of the game in which only the units of the hex are copied."""
    units = dict(game.units)
    for uid in unit_ids:
        units[uid] = units[uid].model_copy()
    return NhisContext(game.model_copy(update={"units": units}), Roller(_NoDice()))


def _check(ctx: NhisContext, b: Brancher, unit, hit: int, *, flamethrower: bool, rule: str) -> None:
    """morale.morale_check with the die replaced by pass/fail: 1d6 + hit <= needed passes."""
    needed = morale.target_number(ctx, unit, rule)
    p = Fraction(min(max(needed - hit, 0), 6), 6)
    if not b.branch([(p, True), (1 - p, False)]):
        morale.fail(ctx, unit, flamethrower=flamethrower, rule=rule)


def _hits(ctx: NhisContext, b: Brancher, targets: list[str], hit: int, flamethrower: bool) -> None:
    """morale.hit_checks: every target checks, leaders first."""
    rule = tables.rules().morale.rule
    for unit in morale.leaders_first([ctx.game.units[t] for t in targets]):
        if not unit.eliminated:
            _check(ctx, b, unit, hit, flamethrower=flamethrower, rule=rule)


def _damaged(ctx: NhisContext, b: Brancher, targets: list[str], points: int, flamethrower: bool) -> None:
    """damage.damaged: the points in rounds (each set of units equally likely), the Shake of
    every Shakeable unit, then a check for each Unshakable unit not hit, leaders first."""
    rule = tables.rules().damage.rule
    units = [ctx.game.units[t] for t in targets]
    hit: set[str] = set()
    left = points
    while left > 0:
        pool = [u for u in units if not u.eliminated]
        if not pool:
            break
        take = min(left, len(pool))
        sets = list(itertools.combinations(pool, take))
        for unit in b.branch([(Fraction(1, math.comb(len(pool), take)), s) for s in sets]):
            morale.step_loss(ctx, unit, "damage point", rule)
            hit.add(unit.id)
        left -= take
    damage._shake_all(ctx, units)
    checking = [u for u in units if not u.shakeable and not u.eliminated and u.id not in hit]
    for unit in morale.leaders_first(checking):
        _check(ctx, b, unit, 0, flamethrower=flamethrower, rule=rule)


def cell_outcomes(game: Game, targets: list[str], cell: str, flamethrower: bool) -> Iterator[tuple[Fraction, Game]]:
    """(probability, game after) of every way a Fire Table result can end for the targets."""
    def program(b: Brancher) -> Game:
        ctx = _work(game, targets)
        if cell.startswith("Hit"):
            _hits(ctx, b, targets, int(cell[4:] or 0), flamethrower)
        elif cell != "-":
            _damaged(ctx, b, targets, int(cell[2:] or 1), flamethrower)
        return ctx.game

    return explore(program)


def fire_odds(game: Game, order: NhisFire) -> OddsReport:
    attack, index = _attack(game, order)
    targets = [t.id for t in attack.targets]
    table = tables.fire_table()
    cells: dict[str, Fraction] = {}
    for total, weight in SUM_WEIGHTS.items():
        cell = table.read(index, total) if index is not None else "-"
        cells[cell] = cells.get(cell, Fraction(0)) + Fraction(weight, 36)
    states: dict[str, dict[str, Fraction]] = {t: {} for t in targets}
    broke = {t: Fraction(0) for t in targets}
    any_breaks = Fraction(0)
    for cell, p_cell in cells.items():
        for p, after in cell_outcomes(game, targets, cell, order.flamethrower):
            some = False
            for uid in targets:
                before, now = snapshot(game.units[uid]), (snapshot(after.units[uid]),)
                state = end_state(before, now)
                states[uid][state] = states[uid].get(state, Fraction(0)) + p_cell * p
                if breaks(before, now):
                    broke[uid] += p_cell * p
                    some = True
            any_breaks += p_cell * p if some else 0
    results = {fire.result_name(k): v for k, v in cells.items()}
    units = tuple(UnitOdds(unit=uid, name=game.units[uid].name, side=game.units[uid].side,
                           states=ordered_states(states[uid]), breaks=chance(broke[uid])) for uid in targets)
    column = f"column {table.columns[index]}" if index is not None else "below the table"
    return OddsReport(ruleset="nhis", action="fire", headline=f"{attack.fp} FP ({column}) vs {attack.hex.id}",
                      results=ordered_results(results, RESULT_ORDER), units=units,
                      at_least_one_breaks=chance(any_breaks),
                      notes=(("Hit: 1d6 + n against morale and a Prepared leader's rating, leaders first; "
                              "Damaged: points spread at random, Shakeable units Shaken (seed 001)"),))
