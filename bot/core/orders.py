"""What every order shares, and how an order declares its meaning.

Each ruleset defines its orders in ``rulesets/<name>/orders.py`` as frozen pydantic models with a
literal ``action`` field; the union of a ruleset's orders is discriminated on ``action``.

An order says itself what it means, so that nothing outside it keeps a list of field or action
names that someone could forget:

* every field that holds ids (``str``, ``list[str]``) says what they name with ``Refers``, and
  whether the order *acts with* them: the permission check reads it (``acting_refs``) to find the
  side an order is given for, so a seated player can never act with an enemy unit through a
  field nobody told the check about. ``bot.core.rulesets.register`` refuses a ruleset whose
  orders hold an undeclared id field (``undeclared_fields``);
* ``rolls``: whether it may roll dice (the roll limiter, the slash command's ``dice`` option);
* ``previewable``: whether its exact odds can be shown before the roll (``preview``);
* ``phases``: the phases that allow it, with the rule that says so (``api.resolve`` refuses it in
  any other phase, before the ruleset sees it);
* ``sealable``: whether a game may have it sealed now and revealed later (``bot/core/sealed.py``:
  Command Decision's orders for the next turn, with the game option sealed_orders);
* ``gm_only``: a correction of the game's facts that only the game master makes, in words
  ("edit a unit"); ``for_user``: the field naming the user an order is for, when a player may
  give it only for themselves (joining a side).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

RefersTo = Literal["unit", "weapon", "company", "side", "location", "nothing"]


@dataclass(frozen=True)
class Refers:
    """What the ids (or the number, for ``side``) in an order field name.

    ``acting``: the order acts *with* them (firers, the unit that rallies, the weapon passed on,
    the side a new unit joins): they must belong to the player's side. Not acting: they are acted
    *on* or only named (targets, a Location, a new unit's id, a reason)."""

    to: RefersTo
    acting: bool = False
    label: str = ""  # for a side: how the permission check names what the order gives for it


# The declarations orders use, one per meaning (a field with a default takes ``= Field(...)`` as usual).
ActingUnit = Annotated[str, Refers("unit", acting=True)]
ActingUnitOrNone = Annotated[str | None, Refers("unit", acting=True)]
ActingUnits = Annotated[list[str], Refers("unit", acting=True)]
ActingWeapon = Annotated[str, Refers("weapon", acting=True)]  # acts through the unit possessing it
ActingCompany = Annotated[str, Refers("company", acting=True)]
ActingSide = Annotated[int, Refers("side", acting=True)]
TargetUnits = Annotated[list[str], Refers("unit")]
TargetUnitsOrNone = Annotated[list[str] | None, Refers("unit")]
LocationId = Annotated[str, Refers("location")]
LocationIdOrNone = Annotated[str | None, Refers("location")]
Text = Annotated[str, Refers("nothing")]  # a value that names nothing in the game (a reason, a band)
TextOrNone = Annotated[str | None, Refers("nothing")]


@dataclass(frozen=True)
class Phases:
    """The phases that allow an order (short names), and the rule that says so. ``doing`` words
    the refusal: "units rally only in the Rally Phase; this is the PFPh (A10.6)"."""

    names: tuple[str, ...]
    rule: str
    doing: str


@dataclass(frozen=True)
class Sealing:
    """How a game seals orders (``Ruleset.sealing``): the phase they are sealed in, the phase they
    are revealed and applied in, the rule that says so, and when that is, in words."""

    seal_phase: str
    reveal_phase: str
    rule: str
    when: str  # "in the Movement Phase, Side A first"
    option: str  # the game option that turns it on


class OrderBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Who gives the order is the bot's business (permissions), not the rules core's; the side the
    # order acts for is derived from the fields declared ``Refers(..., acting=True)``.
    rolls: ClassVar[bool] = False
    previewable: ClassVar[bool] = False
    phases: ClassVar[Phases | None] = None  # None: any phase
    # the phases /help and /unit info offer it in as an example (None: wherever it is allowed): an order
    # the rules allow in any phase but the table gives only after something the bot does not roll itself
    # (a morale check its own fire has not taken) is offered only where that happens (bot/core/help.py)
    hinted: ClassVar[tuple[str, ...] | None] = None
    sealable: ClassVar[bool] = False  # may be sealed now and revealed later (bot/core/sealed.py)
    gm_only: ClassVar[str] = ""  # "": any player may give it for their side
    for_user: ClassVar[str | None] = None

    @classmethod
    def gm_only_in(cls, game: Any) -> str:
        """``gm_only`` in this game (an order may be the game master's in some games only)."""
        return cls.gm_only

    @classmethod
    def refusal_for(cls, game: Any, user_id: int, game_master: bool, order: dict[str, Any]) -> str | None:
        """Why this user may not give this order, beyond the sides and the game master's corrections:
        whose consent it needs (a seat, the answer to a request). None: nothing stands against it. Asked
        of every user, the game master included."""
        return None


class PhaseOrder(OrderBase):
    """Advance the game to the next phase (or to ``to``), applying the phase-end clean-ups."""

    rolls = True  # a phase may start with a roll on the way (Command Decision's initiative)

    action: Literal["phase"] = "phase"
    to: TextOrNone = None  # the phase's short name (a phase, not a unit)

    @classmethod
    def gm_only_in(cls, game: Any) -> str:
        # where the sequence of play is refereed, players end their part with /done; jumping to a
        # phase corrects the game. In a game logged before, any player moves it on, as it always did
        if game.step is not None:  # the sequence of play is refereed (bot/core/sequence.py)
            return "move the game to another phase (players end their part with /done)"
        return ""


PHASE_ACTIONS = frozenset(typing.get_args(PhaseOrder.model_fields["action"].annotation))  # {"phase"}


# --- reading the declarations ---------------------------------------------------------------------


def refers(model: type[BaseModel], field: str) -> Refers | None:
    """The ``Refers`` declaration of a field of an order model, or None."""
    info = model.model_fields[field]
    return next((m for m in info.metadata if isinstance(m, Refers)), None)


def acting_refs(model: type[BaseModel]) -> tuple[tuple[str, Refers], ...]:
    """(field, declaration) of every field the order acts with, in the model's field order."""
    found = _ACTING.get(model)
    if found is None:
        found = _ACTING[model] = tuple((name, ref) for name in model.model_fields
                                       if (ref := refers(model, name)) is not None and ref.acting)
    return found


_ACTING: dict[type, tuple[tuple[str, Refers], ...]] = {}  # model -> acting_refs(model), once per class


def _holds_text(annotation: Any) -> bool:
    """Whether a field's type admits free text: ``str``, ``list[str]``, ``dict[str, ...]`` or a
    union holding one (a ``Literal`` of fixed words is not free text)."""
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _holds_text(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list, tuple, set, frozenset, dict):
        return any(_holds_text(arg) for arg in typing.get_args(annotation) if arg is not Ellipsis)
    return False


def undeclared_fields(model: type[BaseModel]) -> list[str]:
    """The fields of an order model that may hold ids but say nothing of what they name: each
    must be declared (``Refers``), or the permission check could not know whether the order acts
    with them. ``action`` is the order's tag, not an id."""
    return [name for name, info in model.model_fields.items()
            if name != "action" and _holds_text(info.annotation) and refers(model, name) is None]
