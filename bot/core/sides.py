"""A side of a game: its name, its players and the numbers a scenario gives it (those its ruleset
declares, ``Ruleset.side_fields``, carried as data after the shared fields: ASL's ELR).

A module of its own, below both the game model and the registry (the game model imports the registry)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Side(BaseModel):
    model_config = ConfigDict(extra="allow")  # the ruleset's declared side data (bot.core.game.carried)

    name: str
    players: list[int] = Field(default_factory=list)  # Discord user ids (plain ints)
    nationality: str | None = None
    # the scenario's other numbers for this side (SAN, quality ratings, ...): set from a scenario
    # file (bot/core/scenario.py); left out of the saved state while empty, as older games have none
    options: dict[str, Any] = Field(default_factory=dict, exclude_if=lambda v: not v, repr=False)


def possessive(name: str) -> str:
    """A side's name owning something, as a player writes it: "Russians' impulse", "Germany's", and an
    abbreviation in capitals keeps its "'s" ("US's", "SS's")."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"
