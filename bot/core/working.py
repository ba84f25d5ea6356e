"""Units as plain slotted objects inside a resolution; pydantic models only at its edges.

``api.resolve`` used to hand a ruleset a deep copy of the whole game (``copying.tree_copy``: every
unit model copied, whether the order touched it or not) and the ruleset changed those pydantic
models through pydantic's ``__setattr__``. For the orders a ruleset lists in ``working_actions``
it now gets a *working game* instead (``working_game``): the Game and its small containers copied as
before, but ``units`` a ``WorkUnits`` mapping that holds the caller's own unit models and makes a
plain ``__slots__`` object of a unit (``work_class``, one class per unit model, generated from its
fields) only when the ruleset first reads that unit. At the end ``finished_game`` turns back into
pydantic models, built without validation, only the units whose fields were assigned (or whose
lists changed); every other unit is the *same object* as in the caller's game, which is never
changed (a working object holds copies of the model's lists).

A working unit is exact about what pydantic would record: every assignment adds the field's name
to the unit's fields-set (as pydantic's ``__setattr__`` does, even for an equal value), so the model
built at the end has the same ``__dict__`` (in declaration order), fields-set, dump and repr as the
model the ruleset used to mutate (tests/core/test_working_units.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from .built import new_instance, set_dict, set_extra, set_fields_set, set_private
from .copying import _container_fields, _plain, tree_copy

_WORK_CLASSES: dict[type, type] = {}  # unit model -> its working class (work_class)
_WORKING: set[type] = set()  # the working classes
# For an order that reads nearly every unit of a small game (a fire: the firers, the targets, the
# leaders and weapons in their Locations), a game of at most this many units has them all made working
# objects at once, in a plain dict: a dict subclass's lookups run in Python (~15 a fire). Any other order,
# or a larger game, gets a WorkUnits, which makes only the units read (a morale check reads one or two).
EAGER_UNITS = 16
_set_attribute = object.__setattr__


def _list_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a unit model that hold a list (copied into a working unit, compared at the end).
    A unit model's other fields must hold immutable values (checked in ``work_class``)."""
    fields = _container_fields(model)
    for name in fields:
        origin = getattr(model.model_fields[name].annotation, "__origin__", None)
        if origin is not list:
            raise TypeError(f"{model.__name__}.{name}: a working unit copies lists only")
    return fields


def work_class(model: type[BaseModel]) -> type[Any]:
    """The plain slotted class of a unit model's working objects: one slot per field (in the model's
    order), the model's properties (``label``, ``is_sw``...), ``to_model`` and ``model_dump``."""
    found = _WORK_CLASSES.get(model)
    if found is not None:
        return found
    if not _plain(model):
        raise TypeError(f"{model.__name__} allows extra fields or has private attributes: no working class")
    names = tuple(model.model_fields)
    lists = _list_fields(model)
    namespace: dict[str, Any] = {"__slots__": names + ("_origin", "_assigned"), "__module__": model.__module__,
                                 "__doc__": f"A {model.__name__} inside a resolution (bot/core/working.py)."}
    for klass in reversed(model.__mro__):  # the model's properties, the most derived last
        for key, value in vars(klass).items():
            if isinstance(value, property):
                namespace[key] = value
    filled = type(f"{model.__name__}Fill", (), namespace)
    # the straight-line code of the three conversions, generated from the fields (one line each)
    get = ", ".join(f"{n!r}: o.{n}" for n in names)
    fill = "\n".join(f"    o.{n} = {'list(d[%r])' % n if n in lists else 'd[%r]' % n}" for n in names)
    source = (f"def from_model(m):\n    d = m.__dict__\n    o = new(Filled)\n{fill}\n"
              f"    o._origin = m\n    o._assigned = None\n    o.__class__ = Work\n    return o\n"
              f"def values(o):\n    return {{{get}}}\n")
    scope: dict[str, Any] = {"new": new_instance, "Filled": filled}
    exec(source, scope)  # noqa: S102 - generated from the model's own field names only
    values = scope["values"]
    same_lists = lists
    left_out = tuple((name, None if info.exclude else info.exclude_if) for name, info in model.model_fields.items()
                     if info.exclude or info.exclude_if is not None)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        _set_attribute(self, name, value)  # AttributeError for a name that is not a field
        assigned = self._assigned
        if assigned is None:
            _set_attribute(self, "_assigned", {name})
        else:
            assigned.add(name)

    def to_model(self: Any) -> BaseModel:
        """The unit as a model again: its origin itself when nothing was assigned and no list changed
        (or every value assigned is the one it had, and its name was already set); else a new model
        built without validation, with the origin's fields-set plus the names assigned."""
        origin = self._origin
        assigned = self._assigned
        held = origin.__dict__
        changed = [n for n in same_lists if getattr(self, n) != held[n]]
        if assigned is None:
            if not changed:
                return origin
            fields_set = origin.__pydantic_fields_set__.copy()
        else:
            if not changed and assigned <= origin.__pydantic_fields_set__ and all(
                    type(getattr(self, n)) is type(held[n]) and getattr(self, n) == held[n] for n in assigned):
                return origin  # the same values again (of the same types): the model as it was
            fields_set = origin.__pydantic_fields_set__ | assigned
            changed += assigned
        # the origin's values in its order (a copy in C), then what changed: only assigned fields and
        # lists can differ from the origin (every other slot holds the origin's own value)
        fields = held.copy()
        for name in changed:
            fields[name] = getattr(self, name)
        new = new_instance(model)
        set_dict(new, fields)
        set_fields_set(new, fields_set)
        set_extra(new, None)
        set_private(new, None)
        return new

    def model_dump(self: Any) -> dict[str, Any]:
        """The fields as ``model_dump()`` gives them (a unit's fields hold plain values and lists; a
        field excluded, or excluded while its ``exclude_if`` holds, is left out as pydantic leaves it)."""
        fields = values(self)
        for name in same_lists:
            fields[name] = list(fields[name])
        for name, when in left_out:
            if when is None or when(fields[name]):
                del fields[name]
        return fields

    def __repr__(self: Any) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in values(self).items())})"

    work = type(f"{model.__name__}Work", (filled,), {
        "__slots__": (), "__module__": model.__module__, "__setattr__": __setattr__, "to_model": to_model,
        "model_dump": model_dump, "__repr__": __repr__, "model": model, "fields": names,
        "__doc__": namespace["__doc__"]})
    scope["Work"] = work
    work.from_model = staticmethod(scope["from_model"])  # type: ignore[attr-defined]
    _WORK_CLASSES[model] = work
    _WORKING.add(work)
    return work


class WorkUnits(dict):  # type: ignore[type-arg]
    """A working game's units: unit id -> the caller's model until the ruleset first reads the unit,
    then its working object. A model put in (a replacement unit) becomes a working object at once, so
    the ruleset reads back what it changes (``units[new.id]``)."""

    __slots__ = ()

    def _work(self, key: str, held: Any) -> Any:
        kind = type(held)
        if kind in _WORKING:
            return held  # already a working object
        work = _WORK_CLASSES.get(kind)
        if work is None:
            work = work_class(kind)
        made = work.from_model(held)  # type: ignore[attr-defined]
        dict.__setitem__(self, key, made)
        return made

    def __getitem__(self, key: str) -> Any:
        held = dict.__getitem__(self, key)
        return held if type(held) in _WORKING else self._work(key, held)

    def get(self, key: str, default: Any = None) -> Any:
        held = dict.get(self, key, default)
        return held if held is default or type(held) in _WORKING else self._work(key, held)

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        if type(value) not in _WORKING:
            self._work(key, value)

    def values(self) -> list[Any]:  # type: ignore[override]
        return [v if type(v) in _WORKING else self._work(k, v) for k, v in dict.items(self)]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(k, v if type(v) in _WORKING else self._work(k, v)) for k, v in dict.items(self)]

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self)

    def models(self) -> dict[str, Any]:
        """The units as models again, in the same order (``to_model`` of each working object); also
        called on the plain dict of a small game's working units."""
        return {k: v.to_model() if type(v) in _WORKING else v for k, v in dict.items(self)}


def working_game(game: BaseModel, *, eager: bool = False) -> Any:
    """A working copy of a Game whose units are a ``WorkUnits`` of the game's own unit models (its
    other containers copied as ``tree_copy`` copies them); with ``eager`` (an order that reads nearly
    every unit, as a fire does) and at most ``EAGER_UNITS`` units, a plain dict of working objects."""
    cls = type(game)
    new = new_instance(cls)
    fields = game.__dict__.copy()
    for name in _container_fields(cls):
        if name == "units":
            units = fields[name]
            if not eager or len(units) > EAGER_UNITS:
                fields[name] = WorkUnits(units)
            else:  # a small game: every unit made a working object now, in a plain dict (no lookup in Python)
                made = _WORK_CLASSES
                fields[name] = {k: (made.get(type(u)) or work_class(type(u))).from_model(u)  # type: ignore
                                for k, u in units.items()}
        else:
            fields[name] = tree_copy(fields[name])
    set_dict(new, fields)
    set_fields_set(new, game.__pydantic_fields_set__.copy())
    set_extra(new, None)
    set_private(new, None)
    return new


def finished_game(work: Any) -> Any:
    """The working game as a Game again: its units models (``WorkUnits.models``), in their order."""
    units = work.__dict__["units"]
    work.__dict__["units"] = WorkUnits.models(units)
    return work
