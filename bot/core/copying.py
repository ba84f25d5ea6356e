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
from typing import Any, TypeVar

from pydantic import BaseModel

from .built import new_instance, set_dict, set_extra, set_fields_set, set_private

T = TypeVar("T")
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


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


_CONTAINER_FIELDS: dict[type, tuple[str, ...]] = {}  # model class -> _container_fields(class), once per class


def _container_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a model class that may hold something mutable (copied one level further)."""
    found = _CONTAINER_FIELDS.get(cls)
    if found is None:
        found = _CONTAINER_FIELDS[cls] = tuple(name for name, info in cls.model_fields.items()
                                               if not _immutable(info.annotation))
    return found


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


_PLAIN: dict[type, bool] = {}  # model class -> its instances never hold extra nor private attributes


def _plain(cls: type[BaseModel]) -> bool:
    """A model class whose instances always have ``__pydantic_extra__`` and ``__pydantic_private__``
    None: it forbids or ignores extra fields and declares no private attributes."""
    found = _PLAIN.get(cls)
    if found is None:
        found = _PLAIN[cls] = cls.model_config.get("extra") != "allow" and not cls.__private_attributes__
    return found


def _copy_model(model: BaseModel) -> BaseModel:
    # the same four attributes pydantic's own __deepcopy__ sets on the new instance
    cls = type(model)
    new = new_instance(cls)
    fields = model.__dict__.copy()
    containers = _CONTAINER_FIELDS.get(cls)  # _container_fields(cls) without the call, as a rule
    for name in containers if containers is not None else _container_fields(cls):
        held = fields.get(name)
        kind = type(held)
        if kind is list:  # the usual container field (list[str]), often empty: copied here, one call less
            fields[name] = [v if type(v) in _IMMUTABLE else tree_copy(v) for v in held] if held else []
        elif kind not in _IMMUTABLE:
            fields[name] = tree_copy(held)
    set_dict(new, fields)
    set_fields_set(new, model.__pydantic_fields_set__.copy())
    plain = _PLAIN.get(cls)
    if plain or (plain is None and _plain(cls)):  # both None, as on the model copied
        set_extra(new, None)
        set_private(new, None)
        return new
    extra = model.__pydantic_extra__
    set_extra(new, None if extra is None else tree_copy(extra))
    private = getattr(model, "__pydantic_private__", None)
    set_private(new, None if private is None else tree_copy(private))
    return new
