"""The odds of one order, before the roll: an immutable, JSON-serialisable report.

Every probability is an exact ``fractions.Fraction`` (written to JSON as "n/d" next to a float
percentage for people). End states are exclusive and ordered worst first, so each unit's row sums
to exactly 1; how a unit's state before and after an action maps onto them is ``end_state``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    computed_field,
)

# Exclusive end states of a unit, worst first (a unit reduced and broken counts as reduced).
END_STATES = ("eliminated", "reduced", "broken", "pinned", "forced back", "rallied", "unharmed")


def _to_fraction(value: Any) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, str)):
        return Fraction(value)
    raise ValueError("a probability is a fraction 'n/d'")


ExactFraction = Annotated[Fraction, PlainValidator(_to_fraction),
                          PlainSerializer(lambda f: f"{f.numerator}/{f.denominator}", return_type=str)]


class Chance(BaseModel):
    """One probability: exact, and as a percentage for reading (recomputed when read back)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    p: ExactFraction

    @computed_field  # type: ignore[prop-decorator]
    @property
    def percent(self) -> float:
        return round(float(self.p) * 100, 4)


def chance(p: Fraction) -> Chance:
    return Chance(p=p)


class UnitOdds(BaseModel):
    """One unit's end states (exclusive, summing to 1) and its chance of ending broken."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unit: str
    name: str
    side: int | None = None
    states: dict[str, Chance]  # keys in END_STATES order; only states that can happen
    breaks: Chance  # Good Order before, broken/shaken (and not eliminated) after


class WeaponOdds(BaseModel):
    """A machine gun firing in an ASL attack: breakdown and rate of fire (A.11, A9.2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unit: str
    name: str
    malfunctions: Chance  # malfunctions or is removed
    removed: Chance  # removed from play (Original DR at or above its X#)
    keeps_rof: Chance


class OddsReport(BaseModel):
    """Exact odds of an order: the table results, each unit's end states, the weapons."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ruleset: str
    action: str
    headline: str  # what is previewed, e.g. "36 FP (IFT 36+) vs B5, DRM +3"
    results: dict[str, Chance]  # the table result (or check result) distribution
    units: tuple[UnitOdds, ...] = ()
    at_least_one_breaks: Chance
    cowers: Chance | None = None  # ASL fire: the group cowers (A7.9)
    weapons: tuple[WeaponOdds, ...] = ()
    notes: tuple[str, ...] = ()  # each with its rule: what the odds take in or leave to players
    method: str = "exact enumeration of the dice"


# --------------------------------------------------------------------------- end states

@dataclass(frozen=True)
class Snapshot:
    """What the end states read of a unit: its kind and its flags."""

    kind: str
    broken: bool  # ASL broken, NHiS Shaken, CD shaken or demoralized
    pinned: bool
    eliminated: bool
    reduced: bool = False  # on its reduced side (NHiS), a half-squad (ASL): ``UnitBase.condition``
    forced_back: bool = False  # CD: forced back by a hit or a morale result [19.1, 21.3]


def end_state(before: Snapshot, after: tuple[Snapshot, ...]) -> str:
    """The exclusive end state of a unit from its state before and its successors after (an ASL
    squad that fails an ELR test becomes two half-squads, A19.13)."""
    alive = [s for s in after if not s.eliminated]
    if not alive:
        return "eliminated"
    if len(alive) < len(after):
        return "reduced"  # one of its half-squads was lost
    if len(after) == 1:
        now = after[0]
        if now.reduced and not before.reduced:
            return "reduced"
    if any(s.broken for s in alive) and not before.broken:
        return "broken"
    if before.broken and not any(s.broken for s in alive):
        return "rallied"
    if any(s.pinned for s in alive) and not before.pinned:
        return "pinned"
    if any(s.forced_back for s in alive) and not before.forced_back:
        return "forced back"
    return "unharmed"


def breaks(before: Snapshot, after: tuple[Snapshot, ...]) -> bool:
    return not before.broken and any(s.broken and not s.eliminated for s in after)


def ordered_states(dist: dict[str, Fraction]) -> dict[str, Chance]:
    return {state: chance(dist[state]) for state in END_STATES if dist.get(state)}


def ordered_results(dist: dict[str, Fraction], order: list[str] | None = None) -> dict[str, Chance]:
    keys = [k for k in (order or []) if dist.get(k)] + [k for k in dist if k not in (order or []) and dist[k]]
    return {k: chance(dist[k]) for k in keys}
