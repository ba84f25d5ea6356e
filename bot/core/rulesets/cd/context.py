"""What one CD resolution carries around: the working game, the dice, the trail, the cells read
and the effects on each stand (mirrors the ASL context)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dice import Roller
from ...errors import IllegalOrder
from ...game import Game
from ...outcome import Outcome, TableCell, UnitEffect
from ...trail import Trail
from .models import CdStand
from .tables import Mod


def status_text(stand: CdStand) -> str:
    """A stand's state in words, for the before/after columns of the effects."""
    if stand.eliminated:
        return "eliminated"
    words = [w for flag, w in ((stand.demoralized, "demoralized"), (stand.shaken, "shaken"),
                               (stand.pinned, "pinned")) if flag]
    parts = words or ["Good Order"]
    for flag, word in ((stand.forced_back, "forced back"), (stand.suppressed, "suppressed"),
                       (stand.ammo_depleted, "ammo depleted")):
        if flag:
            parts.append(word)
    return ", ".join(parts)


@dataclass
class CdContext:
    game: Game
    roller: Roller
    trail: Trail = field(default_factory=Trail)
    cells: list[TableCell] = field(default_factory=list)
    # stand id -> (status before, effects); in the order stands were first touched
    _touched: dict[str, tuple[str, list[str]]] = field(default_factory=dict)

    @property
    def turn(self) -> int:
        return self.game.turn

    def stand(self, stand_id: str, *, field: str) -> CdStand:
        return self.game.unit(stand_id, field=field)  # type: ignore[return-value]

    def require_phase(self, allowed: tuple[str, ...], what: str, rule: str) -> None:
        if self.game.phase not in allowed:
            raise IllegalOrder(f"{what} is resolved in the {' or '.join(allowed)} phase, not the "
                               f"{self.game.phase} phase ({rule})", rule=rule)

    def modifier(self, mod: Mod, rule: str, running: int, *, label: str | None = None,
                 value: int | None = None, unit: str | None = None) -> int:
        """Add a modifier step (the mod's own rule, else the table's) and return the new total."""
        amount = mod.value if value is None else value
        total = running + amount
        self.trail.add("modifier", label or mod.label, amount, total=total, rule=mod.rule or rule, unit=unit)
        return total

    def touch(self, stand: CdStand) -> None:
        """Remember a stand's state before the first change this action makes to it."""
        if stand.id not in self._touched:
            self._touched[stand.id] = (status_text(stand), [])

    def effect(self, stand: CdStand, what: str, *, rule: str | None = None) -> None:
        """Record that ``what`` happened to ``stand`` (call ``touch`` before changing it)."""
        self.touch(stand)
        self._touched[stand.id][1].append(what)
        self.trail.add("effect", f"{stand.label}: {what}", rule=rule, unit=stand.id)

    def effects(self) -> tuple[UnitEffect, ...]:
        out = []
        for stand_id, (before, what) in self._touched.items():
            stand: CdStand = self.game.units[stand_id]  # type: ignore[assignment]
            out.append(UnitEffect(unit=stand_id, name=stand.name, side=stand.side, before=before,
                                  after=status_text(stand), effects=tuple(what)))
        return tuple(out)

    def outcome(self, action: str, headline: str, actor_side: int | None) -> Outcome:
        return Outcome(ruleset="cd", action=action, headline=headline, actor_side=actor_side,
                       trail=self.trail.freeze(), cells=tuple(self.cells), effects=self.effects())


def eliminate(ctx: CdContext, stand: CdStand, why: str, rule: str) -> None:
    ctx.touch(stand)
    stand.eliminated = True
    stand.eliminated_turn = ctx.turn
    ctx.effect(stand, f"eliminated ({why})", rule=rule)


def force_back(ctx: CdContext, stand: CdStand, rule: str) -> None:
    ctx.touch(stand)
    stand.forced_back = True
    ctx.effect(stand, "forced back", rule=rule)
