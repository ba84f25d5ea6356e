"""Random Selection (A.9): a dr for each candidate; the highest is chosen, ties included."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .context import AslContext
from .models import AslUnit

U = TypeVar("U", bound=AslUnit)


def random_selection(ctx: AslContext, candidates: Sequence[U], count: int = 1, *,
                     purpose: str = "Random Selection", rule: str = "A.9") -> list[U]:
    """Choose ``count`` units: the highest drs, and every unit tied with the ``count``-th.

    With no more candidates than ``count`` every candidate is chosen and no dice are rolled.
    Each unit's dr is written to the trail.
    """
    candidates = list(candidates)
    if count <= 0 or not candidates:
        return []
    if len(candidates) <= count:
        ctx.trail.note(f"{purpose}: all {len(candidates)} unit(s) affected, no selection roll", rule=rule)
        return candidates
    rolled: list[tuple[int, U]] = []
    for unit in candidates:
        roll = ctx.roller.dr(f"{purpose}: {unit.label}")
        rolled.append((roll.total, unit))
        ctx.trail.put("dice", f"{purpose} dr for {unit.label}", roll.total, rule=rule, unit=unit.id)
    ranked = sorted((r for r, _ in rolled), reverse=True)
    threshold = ranked[count - 1]
    chosen = [u for r, u in rolled if r >= threshold]
    ctx.trail.note(f"{purpose}: {', '.join(u.label for u in chosen)} (highest dr"
                   f"{', ties included' if len(chosen) > count else ''})", rule=rule)
    return chosen
