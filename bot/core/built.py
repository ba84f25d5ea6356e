"""What the working copy of a game (``copying.tree_copy``, ``working.py``) makes its models with, and
the exactness checks of the caches of frozen results (trail Steps, Rolls, UnitEffects).

The frozen results themselves (Steps, Rolls, UnitEffects, TableCells, Outcomes) were once built here
without their validator, writing pydantic's slots; measured end to end that gained nothing the
benchmark could see (docs/performance.md, "Speed devices"), so they are validated as any model is.
A result already made is still kept by its exact values and given again (a frozen model is a value):
``plain_strs`` and ``plain_ints`` tell values validation keeps as they are, which may key a cache.
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
