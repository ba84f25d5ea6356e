"""Ruleset-neutral game state: sides, units, locations, turn, phase.

A Game round-trips through JSON exactly (``Game.model_validate_json(g.model_dump_json()) == g``).
Units are per-ruleset models, each defined in its ruleset's package and told apart by ``system``:
``Game.units`` is validated by the registry's union of the registered rulesets' unit models
(``bot.core.rulesets.units_adapter``, asked on each validation, so a plug-in registered later is
known), and each unit is saved by its own model, so a ruleset added later needs no change here.
The core never mutates a Game it was given: rulesets work on a deep copy (``copying.tree_copy``)
or, for the orders a ruleset lists in ``working_actions``, on a working game whose units are plain
objects made as they are read (``working.py``), and return the new Game (its unchanged units the
given Game's own objects).
"""

from __future__ import annotations

from typing import Any

from pydantic import (BaseModel, ConfigDict, Field, SerializeAsAny, ValidatorFunctionWrapHandler, field_validator,
                      model_validator)

from .errors import InvalidOrder
from .rulesets import get_ruleset, units_adapter
from .rulesets.base import UnitBase
from .sides import Side


class Location(BaseModel):
    """A hex or an area/position, with its terrain and features; the markers its ruleset declares
    (``Ruleset.location_fields``: a Residual FP marker, SMOKE) it carries as data after them, checked
    and completed by that model as the game is validated (``Game._declared_data``)."""

    model_config = ConfigDict(extra="allow")

    id: str
    terrain: str = "open"  # a key of the ruleset's terrain table
    features: list[str] = Field(default_factory=list)  # e.g. "foxhole", "hill" (NHiS)


def carried(model: type[BaseModel] | None, holder: BaseModel, what: str) -> None:
    """Check the data a Side or Location carries (its extra fields) against the model its ruleset
    declares for it, and complete it with that model's defaults, in the model's order (the order the
    saved state and the repr have always had them in). Raises ValueError for data it does not declare."""
    extra = holder.model_extra or {}
    if model is None:
        if extra:
            raise ValueError(f"{what} carries {', '.join(sorted(extra))}, which its ruleset does not declare")
        return
    names = tuple(model.model_fields)
    checked = model.model_validate(extra)
    if tuple(extra) != names:  # a field missing or out of order (the usual case, as saved, is only checked):
        for name in tuple(extra):  # set again below, in the model's order
            delattr(holder, name)
    for name in names:
        value = getattr(checked, name)
        if extra.get(name, _MISSING) is not value:
            setattr(holder, name, value)


_MISSING = object()


class BoardPlacement(BaseModel):
    """One board of a map laid out of several (ASL geomorphic boards, from a scenario file): its id,
    its place (boards from the left, boards from the top) and whether it is turned upside down.
    Its hexes are then named with its id first, ``32C5`` (bot/core/grid.py)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    x: int = 0
    y: int = 0
    reversed: bool = False


class PendingSeal(BaseModel):
    """An order sealed under the sequence of play (bot/core/sealed.py) and not revealed yet: the log
    entry of its seal, the side that sealed it and the turn it was sealed in; never its content."""

    model_config = ConfigDict(extra="forbid")

    seq: int
    side: int
    turn: int


class ReactionWindow(BaseModel):
    """A reaction window open after a move (bot/core/reactions.py): the side that may react, the side
    that moved and waits, the movers (labels and ids) and their Location, the reaction declared by the
    ruleset (its name and rule), and how many reactions were given in it so far."""

    model_config = ConfigDict(extra="forbid")

    side: int
    mover: int
    units: list[str]
    ids: list[str]
    at: str
    name: str
    rule: str
    number: int  # the game's windows opened so far, this one included: a button names the window it answers
    answers: int = 0


class Extension(BaseModel):
    """The game master's extension of one step's deadline (bot/core/deadlines.py): the minutes added (a
    whole number: a Game's state holds no float, so its JSON takes the fast path, bot/record/chain.py),
    and the step it is for (it lapses when the step ends)."""

    model_config = ConfigDict(extra="forbid")

    minutes: int
    turn: int
    step: int | None
    impulse: int


class Game(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: str  # a registered ruleset's name
    variant: str | None = None  # ASL: "full" or "starter"
    scenario: str = ""
    sides: list[Side]
    # each unit of its ruleset's model (``_units_of_their_rulesets``), saved by that model (SerializeAsAny)
    units: dict[str, SerializeAsAny[UnitBase]] = Field(default_factory=dict)
    locations: dict[str, Location] = Field(default_factory=dict)
    turn: int = 1
    active_side: int = 0  # index into sides: the side whose player turn it is (ASL ATTACKER)
    phase: str
    options: dict[str, Any] = Field(default_factory=dict)  # per-game rule overrides
    gm: int | None = None  # the game master's Discord user id
    # the scenario's length in game turns, from a scenario file; None (and left out of the saved
    # state, as older games have none): not given
    turns: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    # the boards of the map, laid out by a scenario file (bot/core/grid.py); empty (and left out of
    # the saved state): one board, or a map the grid reads from the short ids alone
    boards: list[BoardPlacement] = Field(default_factory=list, exclude_if=lambda v: not v, repr=False)

    # The sequence of play (bot/core/sequence.py), in games started since it was refereed. A game
    # logged before has none of these fields: they are left out of the saved state while unset, so
    # its state (and every hash chained to it) stays what it was, and it plays on as it did (and out
    # of the repr, which the speed work's golden record compares).
    sequence: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # 1: refereed
    step: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # index in the ruleset's steps
    to_act: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # the side holding the step
    initiative: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # the side acting first (Side A)
    impulse: int = Field(default=0, exclude_if=lambda v: v == 0, repr=False)  # impulses played this phase
    acted: bool = Field(default=False, exclude_if=lambda v: not v, repr=False)  # the holder gave an order in this step
    passes: int = Field(default=0, exclude_if=lambda v: v == 0, repr=False)  # impulses passed in a row
    asked_by: int | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)  # the side asking to end the step
    asked_of: list[int] = Field(default_factory=list, exclude_if=lambda v: not v, repr=False)  # who may answer it
    started: bool = Field(default=False, exclude_if=lambda v: not v, repr=False)  # a step has ended: set-up is over
    units_added: int = Field(default=0, exclude_if=lambda v: v == 0, repr=False)  # every unit ever added (the cap)
    # orders sealed to be revealed later in the sequence of play (a game option, e.g. CD's sealed_orders)
    sealed: list[PendingSeal] = Field(default_factory=list, exclude_if=lambda v: not v, repr=False)
    # a reaction window open after a move (game option reactions): the moving side waits for the answer
    reaction: ReactionWindow | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)
    windows: int = Field(default=0, exclude_if=lambda v: v == 0, repr=False)  # reaction windows ever opened
    # the game's clock stopped by the game master (bot/core/deadlines.py): no deadline, reminder or time limit
    paused: bool = Field(default=False, exclude_if=lambda v: not v, repr=False)
    # the game master's extension of the current step's deadline (once per step)
    extension: Extension | None = Field(default=None, exclude_if=lambda v: v is None, repr=False)

    @field_validator("ruleset")
    @classmethod
    def _registered(cls, name: str) -> str:
        try:
            get_ruleset(name)
        except InvalidOrder as exc:
            raise ValueError(exc.message) from None
        return name

    @model_validator(mode="after")
    def _declared_data(self) -> Game:
        """Each side and Location carries the data its ruleset declares (``Ruleset.side_fields``,
        ``location_fields``: ASL's ELR, Residual FP, SMOKE), checked and completed with its defaults."""
        ruleset = get_ruleset(self.ruleset)
        for side in self.sides:
            carried(ruleset.side_fields, side, f"side {side.name}")
        for location in self.locations.values():
            carried(ruleset.location_fields, location, f"Location {location.id}")
        return self

    @field_validator("units", mode="wrap")
    @classmethod
    def _units_of_their_rulesets(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> dict[str, UnitBase]:
        """The units validated by the registered rulesets' unit models, told apart by ``system``
        (a discriminated union); a unit already of its model is kept as it is."""
        return units_adapter().validate_python(value)

    # --- lookups that fail with a message a player can act on ---

    def unit(self, unit_id: str, *, field: str = "unit") -> Unit:
        found = self.find_unit(unit_id)
        if found is None:
            known = ", ".join(sorted(self.units)) or "none yet"
            raise InvalidOrder(f"no unit '{unit_id}' in this game (units: {known})", field=field)
        return found

    def find_unit(self, unit_id: str) -> Unit | None:
        if unit_id in self.units:
            return self.units[unit_id]
        folded = unit_id.casefold()
        for key, unit in self.units.items():
            if key.casefold() == folded:
                return unit
        return None

    def location(self, location_id: str, *, field: str = "location") -> Location:
        if location_id in self.locations:
            return self.locations[location_id]
        folded = location_id.casefold()
        for key, loc in self.locations.items():
            if key.casefold() == folded:
                return loc
        known = ", ".join(sorted(self.locations)) or "none yet"
        raise InvalidOrder(f"no location '{location_id}' in this game (locations: {known})", field=field)

    def units_at(self, location_id: str, *, include_eliminated: bool = False) -> list[Unit]:
        # the units read as the game holds them and each one found taken through ``units[...]``: in
        # a working game (bot/core/working.py) only those become working objects
        units = self.units
        return [
            units[u.id]
            for u in dict.values(units)
            if u.location == location_id and (include_eliminated or not u.eliminated)
        ]

    def side_name(self, index: int) -> str:
        return self.sides[index].name if 0 <= index < len(self.sides) else f"side {index}"
