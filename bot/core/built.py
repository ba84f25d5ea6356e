"""Frozen result models built without running their validator.

A resolution creates many small frozen models (a fire: ~45 trail Steps, a Roll per DR, a
UnitEffect per unit touched), and pydantic validation was a large share of the rules core's time
(docs/performance.md). When every value is already of exactly the type validation would keep
(plain ``str`` and ``int``, a tuple of them, ``None``; never a bool or a subclass, which
validation converts), validating changes nothing: ``built`` then makes the same instance
directly, with the same ``__dict__`` (in the declared order, which ``repr`` follows) and the
same fields-set. The callers check exactness and fall back to the validating constructor
otherwise, so whatever validation would convert or refuse still goes through it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
new_instance = object.__new__
# The setters of the four slots of every pydantic model instance, taken once: what
# ``object.__setattr__(model, "__dict__", ...)`` ends up calling, without looking the name up on
# every call (a fire resolution builds ~70 models this way).
set_dict = BaseModel.__dict__["__dict__"].__set__
set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = BaseModel.__dict__["__pydantic_private__"].__set__


_SHARED_FIELDS_SETS: dict[type, set[str]] = {}  # frozen model class -> the set of all its fields, shared


def shared_fields_set(cls: type[BaseModel]) -> set[str]:
    """One fields-set object shared by every instance of a *frozen* model built with all its fields.

    Allocating a fresh set per instance was a tenth of a fire resolution (a set is a large, garbage-
    collected object, and a resolution builds ~60 models). Sharing is safe because nothing changes
    the fields-set of an existing frozen model: assignment is refused before pydantic would add to
    it, and ``model_copy`` gives the copy a copy of the set (tests/core/test_core_speed_paths.py)."""
    found = _SHARED_FIELDS_SETS.get(cls)
    if found is None:
        if not cls.model_config.get("frozen"):
            raise TypeError(f"{cls.__name__} is not frozen: its instances need a fields-set of their own")
        found = _SHARED_FIELDS_SETS[cls] = set(cls.model_fields)
    return found


def built(cls: type[M], fields: dict[str, Any], given: tuple[str, ...] | None = None) -> M:
    """An instance of ``cls`` holding ``fields`` (every field of the model, in declaration order,
    each value exactly as validation would keep it), as ``cls(**fields)`` would build it; or, with
    ``given``, as ``cls(**{name: fields[name] for name in given})`` would (the others defaults).
    Every caller builds frozen models; with every field given they share one fields-set."""
    model = new_instance(cls)
    set_dict(model, fields)
    if given is None:
        shared = _SHARED_FIELDS_SETS.get(cls)
        set_fields_set(model, shared if shared is not None else shared_fields_set(cls))
    else:
        set_fields_set(model, set(given))
    set_extra(model, None)
    set_private(model, None)
    return model


def plain_strs(values: tuple[Any, ...]) -> bool:
    """Every item a plain ``str`` (what a ``tuple[str, ...]`` field keeps as it is)."""
    for value in values:
        if type(value) is not str:
            return False
    return True


def plain_ints(values: tuple[Any, ...]) -> bool:
    """Every item a plain ``int`` (not a bool, which validation turns into 1 or 0)."""
    for value in values:
        if type(value) is not int:
            return False
    return True


def all_of(values: tuple[Any, ...], cls: type) -> bool:
    """Every item an instance of exactly ``cls`` (a model validation passes through unchanged).
    The types are gathered in C (a fire's trail is ~45 Steps, asked once per resolution)."""
    return not values or set(map(type, values)) == {cls}
