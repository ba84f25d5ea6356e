"""Machine guns in a fire attack: breakdown (A.11, seed 002 Tables 12a/12b) and rate of fire (A9.2).

The Breakdown number (B#) starts at the printed value, 12 when none is printed, and each
condition of Table 12a lowers it; the effects are cumulative (Table 12a note 1, Table 12b). Once
the B# is lowered, the original B# becomes the weapon's removal number (X#) for that shot (Table
12a note 5): an MG under sustained fire that rolls an Original 12 is removed, not just broken.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ...dice import Roll
from ...game import Game
from .context import AslContext
from .models import AslUnit
from .selection import random_selection

DEFAULT_BREAKDOWN = 12  # an MG with no printed B# breaks on an Original 12 (A.11)
# Table 12a: the change to B# (and to ROF) of each condition
SUSTAINED_FIRE_B = -2  # SFF, FPF, DFPh after First Fire (A9.3)
CAPTURED_B = -2  # captured use (A21.11)
CAPTURED_ROF = -1
INEXPERIENCED_B = -1  # Green MMC not stacked with a Good Order leader, or Conscript MMC (A19.32)


def is_mg(unit: AslUnit) -> bool:
    """LMG, MMG, HMG, .50-cal MG ...: the SWs that use ROF and the B# of Table 12a."""
    return unit.is_sw and (unit.sw_type or "").upper().endswith("MG")


def inexperienced(game: Game, user: AslUnit | None) -> bool:
    """Inexperienced use (Table 12a note 2): a Conscript MMC, or a Green one with no Good Order
    leader in its Location."""
    if user is None or user.is_leader or user.is_sw:
        return False
    if user.quality == "conscript":
        return True
    if user.quality != "green":
        return False
    location = user.location
    if location is None:
        return True  # no Location, no leader in it
    return not any(u.is_leader and not u.broken and u.id != user.id for u in game.units_at(location))


# A NamedTuple: as immutable as a frozen dataclass, and built in half the time (a frozen
# dataclass sets each field through object.__setattr__); several are made per resolution.
class BreakdownNumber(NamedTuple):
    number: int  # the B# for this shot
    removal: int | None  # the X# for this shot: an Original DR at or above it removes the MG
    changes: tuple[tuple[str, int, str], ...]  # (reason, change, rule) in the order applied


def breakdown_number(game: Game, mg: AslUnit, user: AslUnit | None, *, sustained: bool) -> BreakdownNumber:
    printed = mg.breakdown or DEFAULT_BREAKDOWN
    changes: list[tuple[str, int, str]] = []
    if sustained:
        changes.append(("sustained fire", SUSTAINED_FIRE_B, "A9.3, Table 12a"))
    if mg.captured:
        changes.append(("captured", CAPTURED_B, "A21.11, Table 12a"))
    if inexperienced(game, user):
        changes.append(("inexperienced user", INEXPERIENCED_B, "A19.32, Table 12a"))
    number = printed + sum(c for _, c, _ in changes)
    removal = mg.removal
    if changes:  # a lowered B#: the original B# becomes the X# (Table 12a note 5)
        removal = printed if removal is None else min(removal, printed)
    return BreakdownNumber(number=number, removal=removal, changes=tuple(changes))


def _record_number(ctx: AslContext, mg: AslUnit, bn: BreakdownNumber) -> None:
    printed = mg.breakdown or DEFAULT_BREAKDOWN
    ctx.trail.put("base", f"{mg.label} breakdown number", f"B{printed}", rule="A.11", unit=mg.id)
    running = printed
    for reason, change, rule in bn.changes:
        running += change
        ctx.trail.put("modifier", f"{mg.label} B#: {reason}", change, total=running, rule=rule, unit=mg.id)
    if bn.changes:
        ctx.trail.note(f"{mg.label}: B{bn.number}, X{bn.removal} for this shot", rule="Table 12b")


class MgShot(NamedTuple):
    mg: AslUnit
    user: AslUnit | None  # the unit firing it (its possessor)
    sustained: bool


def check_breakdowns(ctx: AslContext, shots: Sequence[MgShot], roll: Roll) -> set[str]:
    """Breakdown check of every MG in the group against the Original DR (A.11).

    Returns the ids of the MGs that malfunctioned or were removed. With several MGs at risk,
    Random Selection picks the one that breaks (seed 002 Table 12, A.9).
    """
    at_risk: list[tuple[AslUnit, BreakdownNumber]] = []
    for shot in shots:
        bn = breakdown_number(ctx.game, shot.mg, shot.user, sustained=shot.sustained)
        _record_number(ctx, shot.mg, bn)
        breaks = roll.total >= bn.number
        ctx.trail.put("check", f"{shot.mg.label}: Original DR {roll.total} vs B{bn.number}",
                      "malfunctions" if breaks else "holds", rule="A.11", unit=shot.mg.id)
        if breaks:
            at_risk.append((shot.mg, bn))
    if not at_risk:
        return set()
    numbers = {mg.id: bn for mg, bn in at_risk}
    chosen = random_selection(ctx, [mg for mg, _ in at_risk], 1, purpose="MG malfunction")
    for mg in chosen:
        _break(ctx, mg, numbers[mg.id], roll)
    return {mg.id for mg in chosen}


def _break(ctx: AslContext, mg: AslUnit, bn: BreakdownNumber, roll: Roll) -> None:
    ctx.touch(mg)
    if bn.removal is not None and roll.total >= bn.removal:
        mg.eliminated = True
        mg.malfunctioned = True
        ctx.effect(mg, f"removed from play (Original DR {roll.total} >= X{bn.removal})", rule="A.11")
    else:
        mg.malfunctioned = True
        ctx.effect(mg, "malfunctions", rule="A.11")


def rate_of_fire(mg: AslUnit) -> int:
    """The ROF this shot uses: captured use costs one (Table 12a)."""
    return max(0, mg.rof + (CAPTURED_ROF if mg.captured else 0))


def keeps_rof(ctx: AslContext, mg: AslUnit, user: AslUnit | None, roll: Roll, *,
              why_not: str | None) -> bool:
    """Rate of fire (A9.2): the colored die at or under the ROF, the user not pinned, and the
    kind of fire allowing it. ``why_not`` names the reason this fire cannot keep ROF at all."""
    rof = rate_of_fire(mg)
    if rof <= 0:
        return False
    if why_not is None and mg.malfunctioned:
        why_not = "it malfunctioned"
    if why_not is None and user is not None and user.pinned:
        why_not = f"{user.label} is pinned"
    if why_not is not None:
        ctx.trail.put("check", f"{mg.label} ROF {rof}: no rate of fire, {why_not}", "lost",
                      rule="A9.2, seed 003", unit=mg.id)
        return False
    kept = roll.colored is not None and roll.colored <= rof
    ctx.trail.put("check", f"{mg.label} ROF {rof}: colored die {roll.colored}", "kept" if kept else "lost",
                  rule="A9.2", unit=mg.id)
    return kept
