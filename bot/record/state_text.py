"""The state hash of each state of a replay, from pieces kept while they are unchanged (issue 17).

``state_hash`` (bot/record/chain.py) dumps the whole game and encodes it as canonical JSON: at 300
units that was ~70% of a replay (a verify or a Markdown export of 15,000 entries hashes 15,000
states). Between two entries only a few units change, so ``StateHasher`` keeps the canonical JSON
of each unit and Location (each a member of the state's JSON object, "key":{...}) with a private
copy of what it was made from, and makes only the members of what changed again. The state's text
is the members joined in key order with the game's other fields around them: the very bytes
``canonical_json(game.model_dump(mode="json"))`` gives, so the same hash
(tests/record/test_state_text.py compares the two on the golden corpus and on random games).

A kept member is reused only when the unit (or Location) holds exactly what it was made from:
the same model class, equal fields of the same exact types, and for any field that is not a plain
``str``, ``int``, ``bool`` or None, the same value compared strictly all the way down (a float
with its sign, containers element by element, each of the same type): ``==`` alone would take
``1`` for ``True`` or ``0.0`` for ``-0.0``, which dump differently. The copy kept is the kept
model's own (``tree_copy``), so a unit changed in place later is never mistaken for the one kept.
Anything this does not know how to compare is made again; a state it cannot take apart (a key
that is not a string) is hashed the reference way.
"""

from __future__ import annotations

import enum
import math
from typing import Any

from pydantic import BaseModel

from bot.core.copying import tree_copy
from bot.core.game import Game

from .chain import canonical_json, sha256

_PLAIN = frozenset({str, int, bool, type(None)})  # equal values of one of these exact types dump alike
_PIECEWISE = ("locations", "units")  # the Game's fields kept member by member, in key order


def _strictly_same(a: Any, b: Any) -> bool:
    """Whether two values dump to the same JSON for certain: same exact types all the way down,
    equal, floats with the same sign. False when unsure (the member is made again)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _PLAIN:
        return a == b  # type: ignore[no-any-return]
    if kind is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(map(_strictly_same, a, b))
    if kind is dict:
        return (list(a) == list(b)  # keys in the same order, of the same types (the ordered dump follows it)
                and all(map(_strictly_same, a, b)) and all(map(_strictly_same, a.values(), b.values())))
    if isinstance(a, BaseModel):
        return _same_model(a, b)
    if isinstance(a, enum.Enum):
        return a is b  # members are singletons
    return False


def _same_model(model: BaseModel, kept: BaseModel) -> bool:
    return (_strictly_same(model.__dict__, kept.__dict__)
            and _strictly_same(model.__pydantic_extra__, kept.__pydantic_extra__))


class _Member:
    """One unit's (or Location's) member of the state's JSON, with what it was made from."""

    __slots__ = ("kind", "fields", "names", "types", "deep", "extra", "text")

    def __init__(self, key: str, value: BaseModel):
        self.kind = type(value)
        kept = tree_copy(value)  # private: nothing outside changes it
        self.fields: dict[str, Any] = kept.__dict__
        self.names = tuple(self.fields)  # with ``types``: each field's type, by name
        self.types = tuple(map(type, self.fields.values()))
        # the fields whose equality does not say their JSON is the same (floats, containers, models)
        self.deep = tuple(name for name, held in self.fields.items() if type(held) not in _PLAIN)
        self.extra = kept.__pydantic_extra__
        self.text = f"{canonical_json(key)}:{canonical_json(value.model_dump(mode='json'))}"

    def holds_deep(self, fields: dict[str, Any]) -> bool:
        """Whether the fields that are not plain values (``deep``) are strictly the kept ones."""
        kept = self.fields
        for name in self.deep:
            held, was = fields[name], kept[name]
            if held == [] and type(held) is list and was == [] and type(was) is list:
                continue  # two empty lists (an ASL unit's recovery attempts, as a rule)
            if not _strictly_same(held, was):
                return False
        return True

    def holds(self, value: BaseModel) -> bool:
        """Whether ``value`` dumps exactly as the model this member was made from."""
        fields = value.__dict__
        if (type(value) is not self.kind or fields != self.fields or tuple(map(type, fields.values())) != self.types
                or tuple(fields) != self.names):
            return False
        if self.extra is not None or value.__pydantic_extra__ is not None:
            if not _strictly_same(value.__pydantic_extra__, self.extra):
                return False
        kept = self.fields
        for name in self.deep:
            if not _strictly_same(fields[name], kept[name]):
                return False
        return True


class StateHasher:
    """``state_hash`` of the states of one game as a replay goes through them, each member of the
    state's JSON made again only when its unit or Location changed (see the module's docstring).
    One per replay: it keeps a member per unit and Location seen."""

    def __init__(self) -> None:
        self._members: dict[str, dict[str, _Member]] = {field: {} for field in _PIECEWISE}
        self._order: dict[str, tuple[list[str], list[str]]] = {}  # field -> (keys as held, sorted)

    def hash(self, game: Game) -> str:
        return sha256(self.text(game))

    def text(self, game: Game) -> str:
        """``canonical_json(game.model_dump(mode="json"))``, from the kept members."""
        pieces = {}
        for field in _PIECEWISE:
            found = self._mapping(field, getattr(game, field))
            if found is None:  # not a mapping of string keys to models: the reference way
                return canonical_json(game.model_dump(mode="json"))
            pieces[field] = found
        rest = game.model_dump(mode="json", exclude=set(_PIECEWISE))
        if any(field in rest for field in _PIECEWISE):
            return canonical_json(game.model_dump(mode="json"))
        # a JSON object with sorted keys is its members in key order: the other fields' runs
        # between "locations" and "units" are encoded alone and joined around them
        runs = [{k: v for k, v in rest.items() if k < "locations"},
                {k: v for k, v in rest.items() if "locations" < k < "units"},
                {k: v for k, v in rest.items() if k > "units"}]
        members = [canonical_json(runs[0])[1:-1], f'"locations":{pieces["locations"]}',
                   canonical_json(runs[1])[1:-1], f'"units":{pieces["units"]}', canonical_json(runs[2])[1:-1]]
        return "{" + ",".join(member for member in members if member) + "}"

    def _mapping(self, field: str, held: Any) -> str | None:
        """The JSON object of a Game's units (or Locations), sorted by key, or None when it is not
        a dict of string keys to pydantic models."""
        if type(held) is not dict:
            return None
        keys = list(held)
        known = self._order.get(field)
        if known is not None and known[0] == keys:
            ordered = known[1]
        else:
            if not all(type(key) is str for key in keys):
                return None
            ordered = sorted(keys)
            self._order[field] = (keys, ordered)
        members = self._members[field]
        texts = []
        add = texts.append
        for key in ordered:
            value = held[key]
            member = members.get(key)
            # ``_Member.holds`` inlined (the loop runs for every unit of every state): the same
            # class, equal fields of the same types in the same order, then the deep ones strictly
            if member is not None and type(value) is member.kind:
                fields = value.__dict__
                if (fields == member.fields and tuple(map(type, fields.values())) == member.types
                        and tuple(fields) == member.names and value.__pydantic_extra__ is None is member.extra
                        and (not member.deep or member.holds_deep(fields))):
                    add(member.text)
                    continue
            if not isinstance(value, BaseModel):
                return None
            member = members[key] = _Member(key, value)
            add(member.text)
        return "{" + ",".join(texts) + "}"
