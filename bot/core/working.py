"""Units as plain objects inside a resolution; pydantic models only at its edges.

``api.resolve`` used to hand a ruleset a deep copy of the whole game (``copying.tree_copy``: every
unit model copied, whether the order touched it or not) and the ruleset changed those pydantic
models through pydantic's ``__setattr__``. For the orders a ruleset lists in ``working_actions``
it now gets a *working game* instead (``working_game``): the Game and its small containers copied as
before, but ``units`` a ``WorkUnits`` mapping that holds the caller's own unit models and makes a
plain object of a unit (``work_class``, one class per unit model, made from its fields) only when the
ruleset first reads that unit. At the end ``finished_game`` turns back into pydantic models, by
pydantic's own ``model_copy(update=...)`` of the unit each was made from (no validation), only the
units whose fields were assigned (or whose lists changed); every other unit is the *same object* as
in the caller's game, which is never changed (a working object holds copies of the model's lists).

A working unit is exact about what pydantic would record: every assignment adds the field's name
to the unit's fields-set (as pydantic's ``__setattr__`` does, even for an equal value), so the model
built at the end has the same ``__dict__`` (in declaration order), fields-set, dump and repr as the
model the ruleset used to mutate (tests/core/test_working_units.py).

A working unit holds its fields in an instance ``__dict__``, a copy of the model's (one C call, its
order kept; each list copied): one slot per field filled and read back one by one cost twice as much
(issue 14, item 4, fifth round). Its ``__setattr__`` refuses any name that is not a field, as the
slots did. No slot of pydantic's is written here: the models are made by ``model_copy``, and only the
fields of the new copy's own ``__dict__`` that hold a list or a container are put in (the working
object's own lists; a working game's units and its other containers' copies).

Measured end to end against the plain form (``model_copy(deep=True)`` of the whole game, the units
changed through pydantic's ``__setattr__``): docs/performance.md, "Speed devices".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from .copying import _container_fields, _plain, tree_copy

_WORK_CLASSES: dict[type, type] = {}  # unit model -> its working class (work_class)
_WORKING: set[type] = set()  # the working classes
# For an order that reads nearly every unit of a small game (a fire: the firers, the targets, the
# leaders and weapons in their Locations), a game of at most this many units has them all made working
# objects at once, in a plain dict: a dict subclass's lookups run in Python (~15 a fire). Any other order,
# or a larger game, gets a WorkUnits, which makes only the units read (a morale check reads one or two).
EAGER_UNITS = 16
_new_object = object.__new__  # a working object made without calling its class


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
    """The plain class of a unit model's working objects: the fields in an instance ``__dict__``
    (a copy of the model's, in its order), the origin and the names assigned in two slots, the
    model's properties (``label``, ``is_sw``...) and class variables (``holder_field``...), ``to_model``
    and ``model_dump``."""
    found = _WORK_CLASSES.get(model)
    if found is not None:
        return found
    if not _plain(model):
        raise TypeError(f"{model.__name__} allows extra fields or has private attributes: no working class")
    names = tuple(model.model_fields)
    lists = _list_fields(model)
    namespace: dict[str, Any] = {"__slots__": ("_origin", "_assigned", "__dict__"), "__module__": model.__module__,
                                 "__doc__": f"A {model.__name__} inside a resolution (bot/core/working.py)."}
    for klass in reversed(model.__mro__):  # the model's properties, the most derived last
        for key, value in vars(klass).items():
            if isinstance(value, property):
                namespace[key] = value
    for key in model.__class_vars__:  # its declarations (UnitBase.holder_field ...), which the properties read
        namespace[key] = getattr(model, key)
    base = type(f"{model.__name__}Fill", (), namespace)
    set_values = base.__dict__["__dict__"].__set__  # the instance dict set in C, not through __setattr__
    set_origin = base.__dict__["_origin"].__set__
    set_assigned = base.__dict__["_assigned"].__set__
    field_names = frozenset(names)
    same_lists = lists
    left_out = tuple((name, None if info.exclude else info.exclude_if) for name, info in model.model_fields.items()
                     if info.exclude or info.exclude_if is not None)

    def from_model(held: BaseModel) -> Any:
        """A working object of ``held``: its ``__dict__`` copied (in C, its order kept), lists copied."""
        values = held.__dict__.copy()
        for name in same_lists:
            values[name] = list(values[name])
        work: Any = _new_object(cls)
        set_values(work, values)
        set_origin(work, held)
        set_assigned(work, None)
        return work

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if name not in field_names:  # no attribute the model lacks (a property has no setter either)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self.__dict__[name] = value
        assigned = self._assigned
        if assigned is None:
            set_assigned(self, {name})
        else:
            assigned.add(name)

    def to_model(self: Any) -> BaseModel:
        """The unit as a model again: its origin itself when nothing was assigned and no list changed
        (or every value assigned is the one it had, and its name was already set); else a new model
        pydantic's copy of the origin (``model_copy(update=...)``, no validation), with the origin's
        fields-set plus the names assigned."""
        origin = self._origin
        assigned = self._assigned
        held = origin.__dict__
        values = self.__dict__
        lists_changed = False
        for name in same_lists:
            if values[name] != held[name]:
                lists_changed = True
                break
        if assigned is None:
            if not lists_changed:
                return origin
        elif not lists_changed and assigned <= origin.model_fields_set:
            for name in assigned:
                value, had = values[name], held[name]
                if type(value) is not type(had) or value != had:
                    break
            else:
                return origin  # the same values again (of the same types): the model as it was
        # pydantic's own copy of the origin with the values assigned (which adds their names to its
        # fields-set, as assigning on the model did), then the working object's own lists put in
        new = origin.model_copy(update={name: values[name] for name in assigned} if assigned else None)
        fields = new.__dict__
        for name in same_lists:
            fields[name] = values[name]
        return new

    def model_dump(self: Any) -> dict[str, Any]:
        """The fields as ``model_dump()`` gives them (a unit's fields hold plain values and lists; a
        field excluded, or excluded while its ``exclude_if`` holds, is left out as pydantic leaves it)."""
        fields = {name: self.__dict__[name] for name in names}
        for name in same_lists:
            fields[name] = list(fields[name])
        for name, when in left_out:
            if when is None or when(fields[name]):
                del fields[name]
        return fields

    def __repr__(self: Any) -> str:
        values = self.__dict__
        return f"{type(self).__name__}({', '.join(f'{k}={values[k]!r}' for k in names)})"

    cls = type(f"{model.__name__}Work", (base,), {
        "__slots__": (), "__module__": model.__module__, "__setattr__": __setattr__, "to_model": to_model,
        "model_dump": model_dump, "__repr__": __repr__, "model": model, "fields": names,
        "from_model": staticmethod(from_model), "__doc__": namespace["__doc__"]})
    _WORK_CLASSES[model] = cls
    _WORKING.add(cls)
    return cls


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


class WorkLocations(dict):  # type: ignore[type-arg]
    """A working game's locations when it has more than ``EAGER_LOCATIONS``: location id -> the caller's
    Location model until the ruleset first reads it (``[id]``, ``get``, ``values``, ``items``), then a
    copy of it (``copying.tree_copy``) that the ruleset may change; the caller's models are never
    changed. A location put in is the working game's own. ``finished_game`` makes it a plain dict again,
    its order kept: the locations never read are the caller's own objects, as unchanged units are."""

    __slots__ = ("_made",)

    def __init__(self, held: dict[str, Any]) -> None:
        dict.__init__(self, held)
        self._made: set[str] = set()  # the ids whose location is the working game's own object

    def _copy(self, key: str, held: Any) -> Any:
        made = tree_copy(held)
        dict.__setitem__(self, key, made)
        self._made.add(key)
        return made

    def __getitem__(self, key: str) -> Any:
        held = dict.__getitem__(self, key)
        return held if key in self._made else self._copy(key, held)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if dict.__contains__(self, key) else default

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self._made.add(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if not dict.__contains__(self, key):
            self[key] = default
        return self[key]

    def pop(self, key: str, *default: Any) -> Any:
        if dict.__contains__(self, key):
            self[key]  # noqa: B018 - the caller's location copied before it leaves the working game
        self._made.discard(key)
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[k] for k in dict.keys(self)]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(k, self[k]) for k in dict.keys(self)]

    def copy(self) -> dict[str, Any]:
        return dict(self.items())

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value


# A game of at most this many locations has them copied at once (copying.tree_copy, as before); a larger
# one gets a WorkLocations, which copies only the locations the order reads (a fire: its own and its
# target's): copying every location of a 300-location game was most of a fire's cost in it.
EAGER_LOCATIONS = 16


def working_game(game: BaseModel, *, eager: bool = False) -> Any:
    """A working copy of a Game whose units are a ``WorkUnits`` of the game's own unit models (its
    other containers copied as ``tree_copy`` copies them, its locations too when at most
    ``EAGER_LOCATIONS``, else a ``WorkLocations`` copying each as it is read); with ``eager`` (an order
    that reads nearly every unit, as a fire does) and at most ``EAGER_UNITS`` units, a plain dict of
    working objects."""
    cls = type(game)
    new = game.model_copy()  # pydantic's shallow copy (a Game forbids extra fields); its containers replaced
    fields = new.__dict__
    for name in _container_fields(cls):
        if name == "units":
            units = fields[name]
            if not eager or len(units) > EAGER_UNITS:
                fields[name] = WorkUnits(units)
            else:  # a small game: every unit made a working object now, in a plain dict (no lookup in Python)
                made = _WORK_CLASSES
                fields[name] = {k: (made.get(type(u)) or work_class(type(u))).from_model(u)  # type: ignore
                                for k, u in units.items()}
        elif name == "locations" and len(fields[name]) > EAGER_LOCATIONS:
            fields[name] = WorkLocations(fields[name])
        else:
            fields[name] = tree_copy(fields[name])
    return new


def finished_game(work: Any) -> Any:
    """The working game as a Game again: its units models (``WorkUnits.models``), in their order, its
    locations a plain dict."""
    held = work.__dict__
    held["units"] = WorkUnits.models(held["units"])
    locations = held.get("locations")
    if type(locations) is WorkLocations:
        held["locations"] = dict(dict.items(locations))
    return work
