"""What every ruleset's units share, and what each unit model declares for the code outside its
ruleset (the map, help, the permission check, the odds): who holds it, its company, the numbers its
counter shows, its condition. Code outside a ruleset reads these, never a field of one ruleset
(``tests/test_architecture.py`` searches it for their names)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict


class Condition(NamedTuple):
    """What the odds' end states read of a unit (bot/core/odds), in the shared words: each ruleset
    says which of its flags they are (NHiS's Shaken, CD's shaken or demoralized are ``broken``)."""

    broken: bool = False
    pinned: bool = False
    reduced: bool = False
    forced_back: bool = False


class UnitBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # the field naming the unit holding this one (an ASL support weapon's possessor): it is where that
    # unit is, and acts through it; None: this ruleset's units hold nothing
    holder_field: ClassVar[str | None] = None
    # the field naming the company the unit belongs to (a CD stand's); None: no companies
    company_field: ClassVar[str | None] = None

    id: str  # unique in the game, the handle players type: "A1", "467b"
    type: str  # counter type from the library, e.g. "ger-467", or "custom"
    name: str  # what players read, e.g. "4-6-7"
    side: int  # index into Game.sides
    location: str | None = None  # Location id; None when off board
    eliminated: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} {self.id}"

    @property
    def holder_id(self) -> str | None:
        """The id of the unit holding this one (``holder_field``), or None."""
        name = self.holder_field
        return getattr(self, name) if name is not None else None

    @property
    def company_name(self) -> str:
        """The company the unit belongs to (``company_field``), "" for none."""
        name = self.company_field
        return (getattr(self, name) or "") if name is not None else ""

    @property
    def is_weapon(self) -> bool:
        """A weapon rather than a unit that fights (it is not a target of its own: ASL's SW)."""
        return False

    @property
    def counter_values(self) -> str | None:
        """The numbers printed on the counter ("4-6-7", "8-1") as the map shows them when its name
        does not carry them; None: none to show."""
        return None

    @property
    def condition(self) -> Condition:
        return Condition()


class NoSideNumbers(BaseModel):
    """The data a side carries beyond the shared fields (``Ruleset.side_fields``) in a ruleset with no
    per-side number: ``elr`` is always null, kept because every game's sides have carried it since the
    first games (their saved states, and the hashes chained to them, hold the key)."""

    model_config = ConfigDict(extra="forbid")

    elr: None = None


class SmokeOnlyLocation(BaseModel):
    """The markers a Location carries beyond the shared fields (``Ruleset.location_fields``) in a ruleset
    whose only marker is smoke; ``residual_fp`` is always 0, kept because every game's Locations have
    carried it since the first games."""

    model_config = ConfigDict(extra="forbid")

    residual_fp: Literal[0] = 0
    smoke: bool = False  # a smoke marker, which the line of sight names


class SmokeMarkers:
    """The map's, the status board's and the line of sight's reading of a ``SmokeOnlyLocation``: a
    ``Ruleset`` mixin for the rulesets whose only Location marker is smoke."""

    def location_markers(self, location: Any) -> list[str]:
        return ["SMOKE"] if location.smoke else []

    def location_words(self, location: Any) -> list[str]:
        return ["smoke"] if location.smoke else []

    def smoke_in(self, location: Any) -> bool:
        return bool(location.smoke)
