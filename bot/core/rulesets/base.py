"""What every ruleset's units share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class UnitBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # unique in the game, the handle players type: "A1", "467b"
    type: str  # counter type from the library, e.g. "ger-467", or "custom"
    name: str  # what players read, e.g. "4-6-7"
    side: int  # index into Game.sides
    location: str | None = None  # Location id; None when off board
    eliminated: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} {self.id}"
