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

Each model is copied by pydantic's own ``model_copy()`` (its ``__dict__``, fields-set and extra data,
one level), and the copy's fields that may hold something mutable are replaced by their copies in
that new ``__dict__`` (its extra data likewise, through ``model_extra``); a model with private
attributes is left to pydantic's ``model_copy(deep=True)``. No slot of pydantic's is written here.
"""

from __future__ import annotations

import copy
import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel


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
_PRIVATE: dict[type, bool] = {}  # model class -> it declares private attributes


def _plain(cls: type[BaseModel]) -> bool:
    """A model class whose instances always have ``__pydantic_extra__`` and ``__pydantic_private__``
    None: it forbids or ignores extra fields and declares no private attributes."""
    found = _PLAIN.get(cls)
    if found is None:
        found = _PLAIN[cls] = cls.model_config.get("extra") != "allow" and not cls.__private_attributes__
    return found


def _copy_model(model: BaseModel) -> BaseModel:
    cls = type(model)
    private = _PRIVATE.get(cls)
    if private is None:
        private = _PRIVATE[cls] = bool(cls.__private_attributes__)
    if private:  # not a model of a game: pydantic's own deep copy
        return model.model_copy(deep=True)
    new = model.model_copy()  # pydantic's shallow copy: a new __dict__ (same order), fields-set and extra
    fields = new.__dict__
    containers = _CONTAINER_FIELDS.get(cls)  # _container_fields(cls) without the call, as a rule
    for name in containers if containers is not None else _container_fields(cls):
        held = fields.get(name)
        kind = type(held)
        if kind is list:  # the usual container field (list[str]), often empty: copied here, one call less
            fields[name] = [v if type(v) in _IMMUTABLE else tree_copy(v) for v in held] if held else []
        elif kind not in _IMMUTABLE:
            fields[name] = tree_copy(held)
    extra = new.model_extra  # the copy's own dict (pydantic copied it), its values still the model's
    if extra:
        for key, value in extra.items():
            if type(value) not in _IMMUTABLE:
                extra[key] = tree_copy(value)
    return new
