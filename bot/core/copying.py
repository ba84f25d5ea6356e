"""The working copy of a game that ``api.resolve`` hands to a ruleset.

``game.model_copy(deep=True)`` goes through ``copy.deepcopy``: a memo lookup and a dispatch for
every one of the ~45 fields of every unit, most of them plain ints, strings and booleans. It was
the biggest single cost of resolving an order (about a third of an ASL fire resolution, see
docs/performance.md). A game is a tree of pydantic models, dicts and lists holding immutable
leaves, so it can be copied knowing that: each model's ``__dict__`` is copied in one C call and
only the fields whose declared type can hold a container (``list[str]``, ``dict[...]``, models)
are copied further. The result is the same independent copy as the deep copy (every model, dict
and list new; tests/core/test_working_copy.py compares them on every ruleset), about six times
faster. Anything outside that tree shape falls back to ``copy.deepcopy``.
"""

from __future__ import annotations

import copy
import types
import typing
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})
_set = object.__setattr__


def _immutable(annotation: Any) -> bool:
    """True when every value the annotation allows is immutable (so it may be shared)."""
    if annotation in _IMMUTABLE:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return all(type(arg) in _IMMUTABLE for arg in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return all(_immutable(arg) for arg in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _immutable(typing.get_args(annotation)[0])
    return False


@cache
def _container_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a model class that may hold something mutable (copied one level further)."""
    return tuple(name for name, info in cls.model_fields.items() if not _immutable(info.annotation))


def tree_copy(value: T) -> T:
    """An independent copy of a tree of pydantic models, dicts, lists and tuples."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is dict:  # a game's units and locations: models, copied without the dispatch
        return {k: v if type(v) in _IMMUTABLE else _copy_model(v) if isinstance(v, BaseModel) else tree_copy(v)
                for k, v in value.items()}  # type: ignore[attr-defined,return-value]
    if kind is list:
        return [v if type(v) in _IMMUTABLE else tree_copy(v) for v in value]  # type: ignore[attr-defined,return-value]
    if kind is tuple:
        return tuple(v if type(v) in _IMMUTABLE else tree_copy(v) for v in value)  # type: ignore[attr-defined,return-value]
    if isinstance(value, BaseModel):
        return _copy_model(value)  # type: ignore[return-value]
    return copy.deepcopy(value)


def _copy_model(model: BaseModel) -> BaseModel:
    # the same four attributes pydantic's own __deepcopy__ sets on the new instance
    cls = type(model)
    new = cls.__new__(cls)
    fields = model.__dict__.copy()
    for name in _container_fields(cls):
        held = fields.get(name)
        kind = type(held)
        if kind is list:  # the usual container field (list[str]), often empty: copied here, one call less
            fields[name] = [v if type(v) in _IMMUTABLE else tree_copy(v) for v in held] if held else []
        elif kind not in _IMMUTABLE:
            fields[name] = tree_copy(held)
    _set(new, "__dict__", fields)
    extra = model.__pydantic_extra__
    _set(new, "__pydantic_extra__", None if extra is None else tree_copy(extra))
    _set(new, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    private = getattr(model, "__pydantic_private__", None)
    _set(new, "__pydantic_private__", None if private is None else tree_copy(private))
    return new
