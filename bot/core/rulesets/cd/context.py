"""What one CD resolution carries around: the working game, the dice, the trail, the cells read
and the effects on each stand (mirrors the ASL context)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...context import ResolutionContext
from ...outcome import Outcome, TableCell
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
    if stand.pending:  # a simultaneous fire phase's results, applied at its end
        parts.append(f"{' and '.join(dict.fromkeys(stand.pending))} at the end of the phase")
    return ", ".join(parts)


@dataclass
class CdContext(ResolutionContext):
    cells: list[TableCell] = field(default_factory=list)
    revealed: bool = False  # an order applied as it is revealed (sealed orders, bot/core/sealed.py)
    noted: set[str] = field(default_factory=set)  # trail notes said once a resolution (a stand's quality)
    status_text = staticmethod(status_text)

    @property
    def turn(self) -> int:
        return self.game.turn

    def stand(self, stand_id: str, *, field: str) -> CdStand:
        return self.game.unit(stand_id, field=field)  # type: ignore[return-value]

    def modifier(self, mod: Mod, rule: str, running: int, *, label: str | None = None,
                 value: int | None = None, unit: str | None = None) -> int:
        """Add a modifier step (the mod's own rule, else the table's) and return the new total."""
        amount = mod.value if value is None else value
        total = running + amount
        self.trail.put("modifier", label or mod.label, amount, total=total, rule=mod.rule or rule, unit=unit)
        return total

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
