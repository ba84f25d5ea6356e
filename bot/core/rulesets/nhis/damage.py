"""Damaged / Damaged-2 / Damaged-3 results (seed 001).

Damage points are allocated at random, every unit taking one before any takes a second (the
procedure, with each die shown, is in ``data/nhis/rules.yaml``); then every Shakeable unit in the
hex is Shaken without a check, and every Unshakable unit not reduced by this attack checks morale.
"""

from __future__ import annotations

from . import tables
from .context import NhisContext
from .models import NhisUnit
from .morale import leaders_first, morale_check, step_loss


def _rule() -> str:
    return tables.rules().damage.rule


def damaged(ctx: NhisContext, targets: list[NhisUnit], points: int, *, flamethrower: bool) -> None:
    name = "Damaged" if points == 1 else f"Damaged-{points}"
    ctx.trail.section(f"{name}: {points} damage point{'s' if points > 1 else ''}", rule=_rule())
    hit_ids = _allocate(ctx, targets, points)
    _shake_all(ctx, targets)
    checking = [u for u in targets if not u.shakeable and not u.eliminated and u.id not in hit_ids]
    for unit in leaders_first(checking):
        morale_check(ctx, unit, 0, flamethrower=flamethrower, rule=_rule(), cause=name)


def _allocate(ctx: NhisContext, targets: list[NhisUnit], points: int) -> set[str]:
    """Give out the points in rounds; returns the ids of the units that took one."""
    hit: set[str] = set()
    left, round_no = points, 1
    while left > 0:
        pool = [u for u in targets if not u.eliminated]
        if not pool:
            ctx.trail.note(f"{left} damage point{'s' if left > 1 else ''} lost: no unit left in the hex",
                           rule=_rule())
            break
        take = min(left, len(pool))
        for unit in _pick(ctx, pool, take, round_no):
            step_loss(ctx, unit, "damage point", _rule())
            hit.add(unit.id)
        left -= take
        round_no += 1
    return hit


def _pick(ctx: NhisContext, pool: list[NhisUnit], take: int, round_no: int) -> list[NhisUnit]:
    """``take`` units of ``pool`` at random: a d6 each, highest first, ties across the cut
    rolled again among themselves. Every die is recorded; nothing is rerolled unseen."""
    if take >= len(pool):
        if len(pool) > 1 or round_no > 1:
            ctx.trail.note(f"Round {round_no}: {take} point{'s' if take > 1 else ''} for {len(pool)} "
                           f"unit{'s' if len(pool) > 1 else ''}: each takes one, no roll needed", rule=_rule())
        return list(pool)
    rolls = {}
    for unit in pool:
        rolls[unit.id] = ctx.roller.d6(f"damage allocation {unit.label}").total
        ctx.trail.put("dice", f"Round {round_no} allocation d6 for {unit.label}", rolls[unit.id],
                      rule=_rule(), unit=unit.id)
    cut = sorted(rolls.values(), reverse=True)[take - 1]
    above = [u for u in pool if rolls[u.id] > cut]
    tied = [u for u in pool if rolls[u.id] == cut]
    need = take - len(above)
    if need < len(tied):
        names = ", ".join(u.label for u in tied)
        ctx.trail.note(f"Tie at {cut} for {need} point{'s' if need > 1 else ''}: {names} roll again",
                       rule=_rule())
        chosen = {u.id for u in above + _pick(ctx, tied, need, round_no)}
    else:
        chosen = {u.id for u in above + tied}
    return [u for u in pool if u.id in chosen]


def _shake_all(ctx: NhisContext, targets: list[NhisUnit]) -> None:
    for unit in targets:
        if unit.eliminated or not unit.shakeable:
            continue
        if unit.shaken:
            ctx.trail.note(f"{unit.label} is already Shaken: no further loss", rule=_rule(), unit=unit.id)
            continue
        ctx.touch(unit)
        unit.shaken = True
        unit.moving = unit.crawling = False
        ctx.effect(unit, "Shaken (no check)", rule=_rule())
