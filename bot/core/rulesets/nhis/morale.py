"""Morale checks (seed 001, Hit result): 1d6 + n against morale, and what a failure does.

A squad or weapon team adds the leadership of one Prepared (not Shaken) leader of its side in
its hex. Shakeable units are Shaken, then reduced, then eliminated; Unshakable units are reduced,
then eliminated, and a moving one stops unless it is Banzai Charging against anything but a
flamethrower.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...dice import Roller
from ...errors import IllegalOrder
from ...game import Game
from ...outcome import Outcome
from .. import get_ruleset
from . import tables
from ...sequence import end_impulse, refereed
from ...sides import possessive
from .context import NhisContext
from .models import NhisUnit
from .orders import NhisMorale

LEADS = frozenset({"squad", "weapon_team"})  # the kinds a leader's rating helps (seed 001)


@dataclass(frozen=True)
class Check:
    """What a morale check read: the die, the total with the Hit number, the number needed."""

    roll: int
    hit: int
    needed: int

    @property
    def total(self) -> int:
        return self.roll + self.hit

    @property
    def passed(self) -> bool:
        return self.total <= self.needed

    def describe(self) -> str:
        added = f" + {self.hit} = {self.total}" if self.hit else ""
        return f"1d6 {self.roll}{added} vs {self.needed}"


def _rule() -> str:
    return tables.rules().morale.rule


def hex_mates(ctx: NhisContext, unit: NhisUnit) -> list[NhisUnit]:
    """The other units of ``unit``'s side in its hex, still in play."""
    if unit.location is None:
        return []
    return [u for u in ctx.game.units_at(unit.location)  # type: ignore[misc]
            if u.side == unit.side and u.id != unit.id]


def prepared_leader(ctx: NhisContext, unit: NhisUnit) -> NhisUnit | None:
    """The best Prepared leader lending his rating to ``unit``; Shaken leaders are named in the
    trail, since players expect to see why a leader in the hex did not help."""
    if unit.kind not in LEADS:
        return None
    leaders = [u for u in hex_mates(ctx, unit) if u.kind == "leader"]
    for leader in leaders:
        if leader.shaken:
            ctx.trail.note(f"{leader.label} is Shaken and lends no leadership", rule=_rule(), unit=leader.id)
    prepared = [u for u in leaders if u.prepared]
    return max(prepared, key=lambda u: u.current_leadership, default=None)


def target_number(ctx: NhisContext, unit: NhisUnit, rule: str) -> int:
    """Morale plus one Prepared leader's rating, each shown in the trail."""
    morale = unit.current_morale
    ctx.trail.put("base", f"Morale of {unit.label}" + (" (reduced)" if unit.reduced else ""),
                  morale, total=morale, rule=rule, unit=unit.id)
    leader = prepared_leader(ctx, unit)
    if leader is not None and leader.current_leadership:
        morale += leader.current_leadership
        ctx.trail.put("modifier", f"Leadership of {leader.label} (Prepared)", leader.current_leadership,
                      total=morale, rule=rule, unit=unit.id)
    return morale


def morale_check(ctx: NhisContext, unit: NhisUnit, hit: int = 0, *, flamethrower: bool = False,
                 rule: str | None = None, cause: str | None = None) -> Check:
    """One check: 1d6 + ``hit`` <= morale (+ leadership) passes; a failure is applied at once."""
    rule = rule or _rule()
    cause = cause or (f"Hit-{hit}" if hit else "Hit")
    ctx.trail.section(f"Morale check ({cause}): {unit.label}", rule=rule, unit=unit.id)
    needed = target_number(ctx, unit, rule)
    roll = ctx.roller.d6(f"morale check {unit.label}").total
    ctx.trail.put("dice", "1d6", roll, total=roll, rule=rule, unit=unit.id)
    check = Check(roll, hit, needed)
    if hit:
        ctx.trail.put("modifier", f"Hit-{hit}", hit, total=check.total, rule=rule, unit=unit.id)
    ctx.trail.put("check", f"{check.total} vs {needed}: {'passes' if check.passed else 'fails'}",
                  "pass" if check.passed else "fail", rule=rule, unit=unit.id)
    if not check.passed:
        fail(ctx, unit, flamethrower=flamethrower, rule=rule)
    return check


def fail(ctx: NhisContext, unit: NhisUnit, *, flamethrower: bool, rule: str) -> None:
    """A failed check: the Shakeable or the Unshakable ladder."""
    ctx.touch(unit)
    if unit.shakeable:
        _fail_shakeable(ctx, unit, rule)
    else:
        _fail_unshakable(ctx, unit, flamethrower, rule)


def _fail_shakeable(ctx: NhisContext, unit: NhisUnit, rule: str) -> None:
    if not unit.shaken:
        was_moving = unit.moving
        unit.shaken = True
        unit.moving = unit.crawling = False  # its impulse ends
        ctx.effect(unit, "Shaken; its impulse ends", rule=rule)
        _end_its_sides_impulse(ctx, unit, was_moving, rule)
    elif not unit.reduced:
        unit.reduced = True
        ctx.effect(unit, "Shaken again: reduced, stays Shaken", rule=rule)
    else:
        unit.eliminated = True
        ctx.effect(unit, "reduced and Shaken again: eliminated", rule=rule)


def _end_its_sides_impulse(ctx: NhisContext, unit: NhisUnit, was_moving: bool, rule: str) -> None:
    """Where the impulses are refereed, a unit of the side with the impulse that fails its check while
    moving in it ends the impulse: the other side's begins (seed 001)."""
    game = ctx.game
    if not refereed(game) or game.to_act != unit.side or not was_moving or unit.moved_impulse != game.impulse:
        return
    end_impulse(game, get_ruleset(game.ruleset), passed=False)
    ctx.trail.note(f"{unit.label} failed its check while moving: {possessive(game.side_name(unit.side))} impulse ends; "
                   f"impulse {game.impulse} is {possessive(game.side_name(game.to_act))}", rule=rule)


def _fail_unshakable(ctx: NhisContext, unit: NhisUnit, flamethrower: bool, rule: str) -> None:
    step_loss(ctx, unit, "Unshakable, fails", rule)
    if not unit.eliminated:
        must_stop(ctx, unit, flamethrower, rule)


def step_loss(ctx: NhisContext, unit: NhisUnit, why: str, rule: str) -> None:
    """Flip to the reduced side; a reduced unit is eliminated instead."""
    ctx.touch(unit)
    if unit.reduced:
        unit.eliminated = True
        ctx.effect(unit, f"{why}: already reduced, eliminated", rule=rule)
    else:
        unit.reduced = True
        ctx.effect(unit, f"{why}: reduced", rule=rule)


def must_stop(ctx: NhisContext, unit: NhisUnit, flamethrower: bool, rule: str) -> None:
    """A moving Unshakable unit that failed stops, except a Banzai Charge not met by flame."""
    if not unit.moving:
        return
    if unit.banzai and not flamethrower:
        ctx.trail.note(f"{unit.label} is Banzai Charging and keeps moving", rule=rule, unit=unit.id)
        return
    unit.moving = unit.crawling = False
    why = "the check was caused by a flamethrower" if unit.banzai else "it failed while moving"
    ctx.effect(unit, f"must stop moving ({why})", rule=rule)


def leaders_first(units: list[NhisUnit]) -> list[NhisUnit]:
    """Leaders check first (seed 001); otherwise the units keep the order they are listed in."""
    return [u for u in units if u.kind == "leader"] + [u for u in units if u.kind != "leader"]


def hit_checks(ctx: NhisContext, targets: list[NhisUnit], hit: int, *, flamethrower: bool) -> None:
    """A Hit / Hit-n result: every target checks, leaders first."""
    for unit in leaders_first(targets):
        if not unit.eliminated:
            morale_check(ctx, unit, hit, flamethrower=flamethrower)


def resolve_morale(game: Game, order: NhisMorale, roller: Roller) -> Outcome:
    ctx = NhisContext(game, roller)
    unit = ctx.unit(order.unit)
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated and takes no morale check")
    check = morale_check(ctx, unit, order.hit, flamethrower=order.flamethrower)
    name = f"Hit-{order.hit}" if order.hit else "Hit"
    verdict = "passes" if check.passed else "fails: " + ", ".join(ctx.effects()[0].effects)
    return Outcome(ruleset="nhis", action="morale", actor_side=unit.side,
                   headline=f"{unit.label} morale check ({name}): {check.describe()} -> {verdict}",
                   trail=ctx.trail.freeze(), effects=ctx.effects())
