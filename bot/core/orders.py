"""What every order shares. Each ruleset defines its orders in ``rulesets/<name>/orders.py`` as
frozen pydantic models with a literal ``action`` field; the union of a ruleset's orders is
discriminated on ``action``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class OrderBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Who gives the order is the bot's business (permissions), not the rules core's; the side the
    # order acts for is derived from the units it names.


class PhaseOrder(OrderBase):
    """Advance the game to the next phase (or to ``to``), applying the phase-end clean-ups."""

    action: Literal["phase"] = "phase"
    to: str | None = None
