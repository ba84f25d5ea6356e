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
_new, _set = object.__new__, object.__setattr__


def built(cls: type[M], fields: dict[str, Any], given: tuple[str, ...] | None = None) -> M:
    """An instance of ``cls`` holding ``fields`` (every field of the model, in declaration order,
    each value exactly as validation would keep it), as ``cls(**fields)`` would build it; or, with
    ``given``, as ``cls(**{name: fields[name] for name in given})`` would (the others defaults)."""
    model = _new(cls)
    _set(model, "__dict__", fields)
    _set(model, "__pydantic_fields_set__", set(fields if given is None else given))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
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
    """Every item an instance of exactly ``cls`` (a model validation passes through unchanged)."""
    for value in values:
        if type(value) is not cls:
            return False
    return True
