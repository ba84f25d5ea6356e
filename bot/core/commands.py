"""Slash commands as plain data: how a ruleset's orders are given in a chat, with no discord here.

A ruleset lists its ``Command``s (``Ruleset.commands``): the command's name, the order it gives and
its options, each with the order field it fills, its type, its help text and what autocomplete
offers for it. The cogs bind the union of every registered ruleset's commands to Discord
(``cogs/orders.py``); when a command arrives, ``build_order`` turns the options the player typed into
the order of the channel's ruleset, refusing by name an option that ruleset has no use for, so a
player never wonders whether an option was silently ignored.

Four options are the bot's own, not a ruleset's: ``options`` (key=value for the order's other
fields, when the command takes them), ``dice`` (manual dice, when the order rolls), ``preview``
(the exact odds instead of a roll, when the order is previewable) and ``sealed`` (seal the order
now, to be revealed later, when the order is sealable: bot/core/sealed.py).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from .errors import InvalidOrder
from .orders import OrderBase

if TYPE_CHECKING:
    from .game import Game

OptionType = Literal["id", "ids", "text", "integer", "boolean"]
OPTIONS, DICE, PREVIEW = "options", "dice", "preview"  # the bot's own options of an order command
SEALED = "sealed"  # the bot's own option of an order a game may seal (bot/core/sealed.py)
MAX_IDS = 40  # the most ids one option may name
MAX_DICE = 100  # the most manual dice one order may give
_SPLIT = re.compile(r"[\s,;]+")
# words only: "1" and "0" are numbers (remind_after_hours=1 is one hour, not "yes"); a boolean
# field given 1 or 0 still takes it (pydantic reads 1/0 as true/false)
_TRUE = {"yes", "y", "true", "t", "on"}
_FALSE = {"no", "n", "false", "f", "off"}


@dataclass(frozen=True)
class Suggest:
    """What autocomplete offers for an option (``Ruleset.suggestions`` answers it): ``kind`` is
    "unit", "location", "company", "enemy_unit" or a ruleset's own ("weapon", "range_band"); ``of``
    names the option whose first unit the offer is relative to (the enemies of the firer)."""

    kind: str
    of: str | None = None


@dataclass(frozen=True)
class Option:
    """One slash option of an order command, in one ruleset."""

    name: str
    type: OptionType
    description: str  # what it is in this ruleset; the cogs prefix the ruleset's short name when needed
    field: str | None = None  # the order field it fills (default: the option's name)
    required: bool = False  # required in this ruleset (Discord requires it only when every ruleset does)
    min: int | None = None
    max: int | None = None
    choices: tuple[tuple[str, str], ...] = ()  # (label, value)
    suggest: Suggest | None = None

    @property
    def order_field(self) -> str:
        return self.field or self.name


@dataclass(frozen=True)
class Command:
    """An order-giving slash command of one ruleset."""

    name: str  # "fire", or "artillery fire": a group and its subcommand
    description: str
    order: type[OrderBase]  # the order model it gives: its action, whether it rolls, previews
    options: tuple[Option, ...] = ()
    # key=value for the order's fields with no option of their own, with an example ("cover=hard");
    # None: the command takes no 'options'
    extras: str | None = None
    # the ruleset's own last word on the order built from the options (checks, reshaping)
    finish: Callable[[Game, dict[str, Any]], dict[str, Any]] | None = None
    odds_button: bool = False  # its results carry an "Odds" button: the odds that roll had
    group_description: str = ""  # the group's description, for a subcommand

    @property
    def action(self) -> str:
        return get_args(self.order.model_fields["action"].annotation)[0]

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def bot_options(self) -> tuple[str, ...]:
        """The bot's own options this command takes, in the order they come last."""
        return tuple(name for name, taken in ((OPTIONS, self.extras is not None), (DICE, self.order.rolls),
                                              (PREVIEW, self.order.previewable),
                                              (SEALED, self.order.sealable)) if taken)


# --- a short form of a command (a button's modal) ---------------------------------------------------

MAX_FORM_FIELDS = 5  # Discord's modal: at most 5 text inputs
FORM_LABEL, FORM_PLACEHOLDER, FORM_TEXT = 45, 100, 400  # a text input's label, placeholder, and the text kept


@dataclass(frozen=True)
class FormField:
    """One field of a command's short form: an option of the command (or its ``options`` line),
    prefilled with ``value``."""

    name: str
    value: str
    required: bool
    hint: str  # the option's description: what to write

    @property
    def label(self) -> str:
        return self.name[:FORM_LABEL]

    @property
    def placeholder(self) -> str:
        return self.hint if len(self.hint) <= FORM_PLACEHOLDER else self.hint[:FORM_PLACEHOLDER - 1] + "…"


def command_form(command: Command, prefilled: dict[str, str], extras: str = "") -> tuple[FormField, ...]:
    """The short form of ``command`` (at most MAX_FORM_FIELDS fields): the options ``prefilled`` first,
    then its other required ones, then its optional ones while room is left, and its ``options`` line
    (the order's other fields, ``extras`` prefilled) last when it takes one. What does not fit is left
    to the typed command."""
    room = MAX_FORM_FIELDS - (1 if command.extras is not None else 0)
    order = sorted(command.options, key=lambda o: (o.name not in prefilled, not o.required))
    fields = [FormField(o.name, prefilled.get(o.name, ""), o.required, o.description) for o in order[:room]]
    if command.extras is not None:
        fields.append(FormField(OPTIONS, extras, False, f"key=value for the rest, e.g. {command.extras}"))
    return tuple(fields)


def form_values(command: Command, texts: dict[str, str]) -> dict[str, Any]:
    """The options a submitted form gives (``texts``: field name -> the text entered), typed as
    Discord delivers a slash command's options: an empty field is not given, a whole-number option
    read as a number within its range, a yes/no option as a boolean; refused naming the field."""
    values: dict[str, Any] = {}
    for name, raw in texts.items():
        text = raw.strip()
        option = command.option(name)
        if option is None and name != OPTIONS:
            raise InvalidOrder(f"/{command.name} has no option '{name[:40]}'", field=name)
        if not text:
            values[name] = None
        elif option is None or option.type in ("id", "ids", "text"):
            values[name] = text
        elif option.type == "integer":
            low, high = option.min, option.max
            span = f" from {low} to {high}" if low is not None and high is not None else ""
            if not re.fullmatch(r"-?\d{1,9}", text) or (low is not None and int(text) < low) or (
                    high is not None and int(text) > high):
                raise InvalidOrder(f"'{name}' takes a whole number{span}, not '{text[:20]}'", field=name)
            values[name] = int(text)
        else:
            word = text.casefold()
            if word not in _TRUE | _FALSE:
                raise InvalidOrder(f"'{name}' takes yes or no, not '{text[:20]}'", field=name)
            values[name] = word in _TRUE
    return values


# --- parsing what players type ----------------------------------------------------------------------


def parse_ids(text: str | None, *, option: str) -> list[str]:
    """'A1, A2 A3' -> ['A1', 'A2', 'A3']; empty -> []."""
    if not text:
        return []
    ids = [part for part in _SPLIT.split(text.strip()) if part]
    if len(ids) > MAX_IDS:
        raise InvalidOrder(f"'{option}' names {len(ids)} units; {MAX_IDS} is the most one order may name",
                           field=option)
    return ids


def parse_dice(text: str | None) -> list[int] | None:
    """Manual dice '3 5 2' -> [3, 5, 2]; None when the players let the bot roll."""
    if text is None or not text.strip():
        return None
    values: list[int] = []
    for part in _SPLIT.split(text.strip()):
        if not part:
            continue
        if not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= 10:
            raise InvalidOrder(f"'dice' takes die faces from 1 to 10 separated by spaces; '{part[:20]}' is not one",
                               field="dice")
        values.append(int(part))
    if len(values) > MAX_DICE:
        raise InvalidOrder(f"'dice' gives more than {MAX_DICE} dice; no action needs that many", field="dice")
    return values


def typed_value(value: str) -> Any:
    """A key=value value as a player means it: yes/no a boolean, a whole number an int, else text."""
    lowered = value.casefold()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    if re.fullmatch(r"-?\d{1,9}", value):
        return int(value)
    if re.fullmatch(r"-?\d{1,9}\.\d{1,6}", value):
        return float(value)
    return value


def parse_options(text: str | None, *, option: str = OPTIONS) -> dict[str, Any]:
    """'from_lower=yes charging=A1,A2 cover=hard' -> {'from_lower': True, 'charging': ['A1', 'A2'], ...}.

    A value with commas becomes a list of ids; yes/no become booleans; whole numbers ints.
    """
    if not text or not text.strip():
        return {}
    result: dict[str, Any] = {}
    for part in text.split():
        if "=" not in part:
            raise InvalidOrder(f"'{option}' takes key=value pairs; '{part[:30]}' has no '='", field=option)
        key, _, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not re.fullmatch(r"[a-z_]{1,40}", key):
            raise InvalidOrder(f"'{option}': '{key[:30]}' is not an option name", field=option)
        result[key] = [v for v in value.split(",") if v] if "," in value else typed_value(value)
    return result


def _takes_list(model: type[OrderBase], key: str) -> bool:
    """Whether an order field holds a list of ids (``list[str]`` or ``list[str] | None``)."""
    annotation = model.model_fields[key].annotation
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return any(typing.get_origin(k) is list for k in (annotation, *(typing.get_args(annotation) if union else ())))


def order_options(text: str | None, model: type[OrderBase], *, taken: tuple[str, ...] = (),
                  option: str = OPTIONS) -> dict[str, Any]:
    """key=value options for the fields of ``model`` (an order class) that have no slash option
    of their own (``taken``). Unknown keys are refused with the list of the keys this order takes;
    a single id given for a list field becomes a one-item list ("charging=A1")."""
    values = parse_options(text, option=option)
    allowed = [name for name in model.model_fields if name != "action" and name not in taken]
    for key, value in list(values.items()):
        if key in taken:
            raise InvalidOrder(f"'{option}': '{key}' has its own option in this command", field=option)
        if key not in allowed:
            raise InvalidOrder(f"'{option}': '{key}' is not an option of this order here "
                               f"(options: {', '.join(allowed) or 'none'})", field=option)
        if _takes_list(model, key) and not isinstance(value, list):
            values[key] = [] if value == "" else [str(value)]
    return values


# --- from the options typed to the order of the channel's ruleset ------------------------------------


def _read(option: Option, value: Any) -> Any:
    if option.type == "ids":
        return parse_ids(value, option=option.name)
    if option.type in ("id", "text"):
        return value.strip()
    return value


def build_order(game: Game, command_name: str, values: dict[str, Any]) -> dict[str, Any]:
    """The order the options typed give in ``game``'s ruleset. ``values`` holds the command's
    options as Discord delivered them (None for those not given), the bot's own ones included:
    ``options`` is read here; ``dice`` and ``preview`` are the caller's, refused here only when
    this ruleset's order does not roll, or has no odds to show."""
    from .rulesets import get_ruleset, titles_of, users_of

    ruleset = get_ruleset(game.ruleset)
    command = ruleset.command(command_name)
    if command is None:
        users = users_of(command_name)
        hint = ruleset.instead.get(command_name.split(" ")[0], "")
        raise InvalidOrder(f"/{command_name} is only for {titles_of(users)} games; this channel plays "
                           f"{ruleset.title}" + (f" ({hint})" if hint else ""), field="command")
    for name, value in values.items():
        if value is None or command.option(name) is not None or name in command.bot_options():
            continue
        if name in (PREVIEW, SEALED) and value is False:  # "no preview" asks for nothing
            continue
        raise InvalidOrder(f"'{name}' is not used in {ruleset.title} games (only in "
                           f"{titles_of(users_of(command_name, name))})", field=name)
    order: dict[str, Any] = {"action": command.action}
    for option in command.options:
        value = values.get(option.name)
        if value is None or (option.type in ("id", "text") and not value.strip()):
            if option.required:
                raise InvalidOrder(f"'{option.name}' is required in {ruleset.title}: "
                                   f"{option.description[0].lower()}{option.description[1:]}", field=option.name)
            continue
        order[option.order_field] = _read(option, value)
    if command.extras is not None:
        taken = tuple(o.order_field for o in command.options)
        order |= order_options(values.get(OPTIONS), command.order, taken=taken)
    return command.finish(game, order) if command.finish is not None else order
