"""The ASL markers and statuses the referee keeps, and the clean-up that takes them off
(``data/asl/markers.yaml``): at the end of each phase, every marker whose entry lists that phase
comes off the units (or Locations) it says, each removal a trail line naming its rule, each unit's
change one effect ("Good Order, pinned, Prep Fire" -> "Good Order").

A marker the clean-up did not remove before the audit (``since: 1``: the Pin, CX) comes off only
in the games created since (the internal option ``asl_markers``, a creation default), so a game
logged before replays as it was played."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ...data import data_path
from ...game import Game
from ...outcome import UnitEffect
from ...trail import Trail
from .context import status_text
from .models import ASL_UNITS, AslLocation, AslUnit

DATA_FILE = data_path("asl", "markers.yaml")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Marker(_Strict):
    name: str  # as the players call it
    of: Literal["unit", "location"] = "unit"
    field: str  # the unit's (or Location's) field holding it
    value: str | None = None  # for a field holding one of several markers: which one this is
    label: str  # the trail's words: "<unit>: <label> removed"
    placed: str
    placed_rule: str
    removed: str
    removed_rule: str
    cleared_at: tuple[str, ...] = ()  # the phases at whose end the clean-up removes it
    whose: Literal["all", "attacker", "defender"] = "all"
    shown: bool = True  # False: bookkeeping, removed without a trail line
    eliminated: Literal["cleared", "kept"] = "cleared"  # an eliminated unit's marker: cleared quietly, or kept
    note: str | None = None  # a trail note after the removals (what the players may have to put back)
    since: int = Field(default=0, ge=0)  # the asl_markers version of the games that remove it so
    assumed: str | None = None


class NotModelled(_Strict):
    name: str
    why: str


class MarkerData(_Strict):
    rule: str
    option: str  # the internal game option holding the game's clean-up version
    markers: tuple[Marker, ...]
    not_modelled: tuple[NotModelled, ...] = ()


VERSION = 1  # the asl_markers of the games created today: the Pin and CX come off too


@cache
def data() -> MarkerData:
    with open(DATA_FILE, encoding="utf-8") as fh:
        loaded = MarkerData.model_validate(yaml.safe_load(fh))
    for marker in loaded.markers:  # only fields the models have (the phases: tests/core/asl/test_markers.py)
        model: Any = AslLocation if marker.of == "location" else AslUnit
        if marker.field not in model.model_fields:
            raise ValueError(f"data/asl/markers.yaml: {marker.name}: no {marker.of} field '{marker.field}'")
    return loaded


def marker_of(field: str, value: Any = None) -> Marker | None:
    """The entry of a unit's field (and value, for the fire markers)."""
    return next((m for m in data().markers if m.of == "unit" and m.field == field
                 and (m.value is None or m.value == value)), None)


def version(game: Game) -> int:
    return int(game.options.get(data().option, 0) or 0)


def _default(model: Any, field: str) -> Any:
    return model.model_fields[field].get_default(call_default_factory=True)


def _holds(value: Any, marker: Marker) -> bool:
    if marker.value is not None:
        return value == marker.value
    return bool(value)


def _sides(game: Game, whose: str) -> set[int]:
    if whose == "attacker":
        return {game.active_side}
    if whose == "defender":
        return set(range(len(game.sides))) - {game.active_side}
    return set(range(len(game.sides)))


def clean_up(game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
    """Remove the markers that come off at the end of ``game.phase`` (the phase ending now)."""
    at = version(game)
    due = [m for m in data().markers if game.phase in m.cleared_at and m.since <= at]
    if not due:
        return
    changed: dict[str, tuple[Any, str, list[str]]] = {}  # unit id -> (unit, state before, labels removed)
    units = [u for u in game.units.values() if isinstance(u, ASL_UNITS)]
    for marker in due:
        if marker.of == "location":
            _clear_locations(game, marker, trail)
            continue
        sides = _sides(game, marker.whose)
        default = _default(AslUnit, marker.field)
        removed = False
        for unit in units:
            if unit.side not in sides or not _holds(getattr(unit, marker.field), marker):
                continue
            if unit.eliminated:
                if marker.eliminated == "cleared":
                    setattr(unit, marker.field, _default(AslUnit, marker.field))
                continue
            if not marker.shown:
                setattr(unit, marker.field, _default(AslUnit, marker.field))
                continue
            seen = changed.setdefault(unit.id, (unit, status_text(unit), []))
            setattr(unit, marker.field, default)
            seen[2].append(marker.label)
            removed = True
            trail.put("marker", f"{unit.label}: {marker.label} removed", rule=marker.removed_rule, unit=unit.id)
        if removed and marker.note:
            trail.note(marker.note, rule=marker.removed_rule)
    for unit, before, labels in changed.values():
        effects.append(UnitEffect(unit=unit.id, name=unit.name, side=unit.side, before=before,
                                  after=status_text(unit), effects=tuple(f"{label} removed" for label in labels)))


def _clear_locations(game: Game, marker: Marker, trail: Trail) -> None:
    default = _default(AslLocation, marker.field)
    for loc in game.locations.values():
        value = getattr(loc, marker.field)
        if not _holds(value, marker):
            continue
        if marker.shown:
            shown = f" {value}" if not isinstance(value, bool) else ""
            trail.put("marker", f"{marker.label}{shown} removed from {loc.id}", rule=marker.removed_rule)
        setattr(loc, marker.field, default)
