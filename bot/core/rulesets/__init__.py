"""The registry: the one list of rulesets. Everything that needs to know the rulesets asks here.

A ruleset is a module exporting ``RULESET``, an instance of ``bot.core.ruleset.Ruleset`` that
describes the whole system (see that class). The built-in ones are the packages of this folder
named in ``BUILT_IN``; more are added with ``register`` (``bot/plugins.py`` loads the plug-ins a
host names, outside the core).

Everything is read once, on the first question: the game model validates units through
``units_adapter`` (the union of the rulesets' unit models), the JSON Schema and the CLI list
``names()``, the cogs bind each ruleset's commands, the renderer reads its words. Importing this
module imports no ruleset: they are imported on the first question (``_discover``), by name.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import TYPE_CHECKING, Annotated, Any, Union, get_args

from pydantic import Field, SerializeAsAny, TypeAdapter

from ..errors import InvalidOrder
from ..orders import undeclared_fields

if TYPE_CHECKING:
    from ..ruleset import Ruleset

BUILT_IN = ("asl", "nhis", "cd")  # sub-packages of this one, in the order players see them
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,15}")

_REGISTRY: dict[str, Ruleset] = {}
_discovered = False  # the built-in rulesets are imported
_discovering = False
_units: TypeAdapter[Any] | None = None  # the units' union of the registered rulesets, made on first use


class RulesetRefused(ValueError):
    """A ruleset that cannot be registered: the message says what it must fix."""


def register(ruleset: Ruleset) -> Ruleset:
    """Add a ruleset to the registry after checking that it describes itself completely; returns
    it. Registering the same object twice is harmless; another ruleset under a taken name is not."""
    name = getattr(ruleset, "name", None)
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise RulesetRefused(f"a ruleset's name is 1-16 lowercase letters, digits or _, not {name!r}")
    known = _REGISTRY.get(name)
    if known is ruleset:
        return ruleset
    if known is not None:
        raise RulesetRefused(f"the ruleset name '{name}' is taken by {type(known).__qualname__}")
    _check(ruleset)
    _REGISTRY[name] = ruleset
    _forget_units()
    return ruleset


def unregister(name: str) -> None:
    """Take a plug-in ruleset out again (tests that define one); a built-in stays."""
    if name not in BUILT_IN and _REGISTRY.pop(name, None) is not None:
        _forget_units()


def _check(ruleset: Ruleset) -> None:
    """What the rest of the bot relies on a ruleset to declare."""
    where = f"ruleset '{ruleset.name}'"
    for attribute in ("title", "short_name", "phases", "order_type"):
        if not getattr(ruleset, attribute, None):
            raise RulesetRefused(f"{where} does not declare its {attribute}")
    unit_model = ruleset.unit_model()
    system = unit_model.model_fields.get("system")
    if system is None or get_args(system.annotation) != (ruleset.name,):
        raise RulesetRefused(f"{where}: its unit model's 'system' must be Literal['{ruleset.name}']")
    for attribute in ("holder_field", "company_field"):  # what the shared code reads of a unit
        field = getattr(unit_model, attribute, None)
        if field is not None and field not in unit_model.model_fields:
            raise RulesetRefused(f"{where}: its unit model's {attribute} '{field}' is not one of its fields")
    orders = {get_args(m.model_fields["action"].annotation)[0]: m for m in get_args(ruleset.order_type)}
    shots = getattr(ruleset, "shots", None)  # what the map draws as the latest fire
    for action in shots.actions if shots is not None else ():
        named = [f for f in (shots.firers, shots.target, shots.targets) if f]
        gone = [f for f in named if action not in orders or f not in orders[action].model_fields]
        if gone:
            raise RulesetRefused(f"{where}: its shots name '{gone[0]}', not a field of its '{action}' order")
    for model in get_args(ruleset.order_type):
        missing = undeclared_fields(model)
        if missing:  # the permission check could not tell whether the order acts with them
            raise RulesetRefused(f"{where}: {model.__name__}.{missing[0]} holds ids but does not declare what "
                                 "they name (Refers in bot/core/orders.py)")
    declared = ruleset.side_fields.model_fields if ruleset.side_fields is not None else {}
    for option in ruleset.side_options:
        if option.name not in declared:
            raise RulesetRefused(f"{where}: side option '{option.name}' is not a field of its side_fields")
    actions = set(ruleset.actions())
    for command in ruleset.commands:
        if command.action not in actions:
            raise RulesetRefused(f"{where}: /{command.name} gives '{command.action}', not one of its orders")
        for option in command.options:
            if option.order_field not in command.order.model_fields:
                raise RulesetRefused(f"{where}: /{command.name} option '{option.name}' fills no field of "
                                     f"{command.order.__name__}")


def _discover() -> None:
    """Import the built-in rulesets, once."""
    global _discovered, _discovering
    if _discovered or _discovering:
        return  # a ruleset being imported asks again (a module of it reads the registry): carry on
    _discovering = True
    try:
        for name in BUILT_IN:
            register(import_module(f"{__name__}.{name}").RULESET)
    finally:
        _discovering = False
    _discovered = True


def _forget_units() -> None:
    global _units
    _units = None


def units_adapter() -> TypeAdapter[Any]:
    """Validates a game's units (``{id: unit}``): each by its ruleset's unit model, told apart by
    ``system`` (a discriminated union, validated in one pass), and saved by its own model
    (SerializeAsAny). Made on first use and again after a plug-in is registered or taken out."""
    global _units
    found = _units
    if found is None:
        models = tuple(r.unit_model() for r in rulesets())
        union: Any = models[0] if len(models) == 1 else Annotated[Union[models], Field(discriminator="system")]
        found = _units = TypeAdapter(dict[str, SerializeAsAny[union]])  # type: ignore[valid-type]
    return found


def rulesets() -> tuple[Ruleset, ...]:
    """Every registered ruleset: the built-in ones first, in their order."""
    _discover()
    return tuple(_REGISTRY.values())


def names() -> tuple[str, ...]:
    return tuple(r.name for r in rulesets())


def get_ruleset(name: str) -> Ruleset:
    # every resolution asks (api.resolve, parse_order): a dict lookup first
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    _discover()
    found = _REGISTRY.get(name)
    if found is None:
        raise InvalidOrder(f"unknown ruleset '{str(name)[:30]}' (choose one of: {', '.join(names())})",
                           field="ruleset")
    return found


def title_of(name: str) -> str:
    """A ruleset's title by its name; the name itself for one not registered (an old log's)."""
    _discover()
    found = _REGISTRY.get(name)
    return found.title if found is not None else name


def titles_of(names_: list[str] | tuple[str, ...]) -> str:
    """"Advanced Squad Leader and No Honor in Surrender"."""
    return " and ".join(title_of(n) for n in names_)


def users_of(command: str, option: str | None = None) -> list[str]:
    """The rulesets with the slash command ``command`` (and, when given, its option ``option``)."""
    found = []
    for ruleset in rulesets():
        spec = ruleset.command(command)
        if spec is not None and (option is None or spec.option(option) is not None
                                 or option in spec.bot_options()):
            found.append(ruleset.name)
    return found
