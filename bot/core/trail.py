"""The audit trail: every number the referee applied, in order, with its reason and rule."""

from __future__ import annotations

from typing import Any, get_args

from .step import Number, Step, StepKind  # noqa: F401  (re-exported: the model lives in step.py)

_STEP_KINDS = frozenset(get_args(StepKind))
_VALUE_TYPES = frozenset({int, float, str, type(None)})  # what a Step's value keeps as it is
_TOTAL_TYPES = frozenset({int, float, type(None)})
_TEXT_TYPES = frozenset({str, type(None)})
# Steps already built, by what they were built from (kind, label, value, total, rule, unit; with a
# float, the value's and the total's types and reprs too): a frozen Step is a value, so two equal ones may be one object
# (issue 14, item 4). The types are part of the key because 1 == 1.0, and a float's repr because
# -0.0 == 0.0 (each pair dumps differently). Bounded: emptied when full, so a long-running bot keeps
# at most STEP_CACHE_SIZE of them.
STEP_CACHE_SIZE = 20_000
_STEPS: dict[tuple[object, ...], Step] = {}
_PLAIN_VALUE = frozenset({int, str, type(None)})  # a line whose value and total are of these is its own key
_PLAIN_TOTAL = frozenset({int, type(None)})


# The lines' values are typed Any on purpose: what the fast path does not take (a bool, a Fraction, an
# unknown kind, an unhashable label) goes to the Step model, which converts it or refuses it with its
# ValidationError.
def _make(
    kind: Any,
    label: Any,
    value: Any = None,
    *,
    total: Any = None,
    rule: Any = None,
    unit: Any = None,
) -> Step:
    """The Step of these values: looked up, or validated (see ``Trail``)."""
    # The Step looked up before the exactness check: a Step in ``_STEPS`` was made from values that
    # passed it, and a key equal to its key (the value's and the total's types in it) holds values
    # validation turns into the same Step (a str subclass equal to a str becomes that str). Only a value and a total of the kept types are looked up
    # (both hashable then); an unhashable kind, label, rule or unit goes to validation, which refuses it.
    value_type, total_type = type(value), type(total)
    step = None
    key: tuple[Any, ...] | None
    if value_type in _VALUE_TYPES and total_type in _TOTAL_TYPES:
        if value_type is float or total_type is float:
            # 1 == 1.0 and -0.0 == 0.0, but they dump differently: the types and reprs are part of
            # the key (ten items: never equal to a six-item key). A NaN or an infinity goes to the
            # Step model, which refuses it (allow_inf_nan=False)
            finite = all(x - x == 0.0 for x in (value, total) if type(x) is float)
            key = (kind, label, value, total, rule, unit, value_type, total_type, repr(value), repr(total)) \
                if finite else None
        else:  # int, str or None (never a bool): values of different types are never equal
            key = (kind, label, value, total, rule, unit)
        try:
            step = None if key is None else _STEPS.get(key)
        except TypeError:
            key = None
        if (step is None and key is not None and type(kind) is str and kind in _STEP_KINDS and type(label) is str
                and type(rule) in _TEXT_TYPES and type(unit) in _TEXT_TYPES):
            step = Step(kind=kind, label=label, value=value, total=total, rule=rule, unit=unit)
            if len(_STEPS) >= STEP_CACHE_SIZE:
                _STEPS.clear()
            _STEPS[key] = step
    if step is None:
        step = Step(kind=kind, label=label, value=value, total=total, rule=rule, unit=unit)
    return step


class Trail:
    """Builder for the ordered list of steps; the core appends, the Outcome freezes it.

    A fire resolution adds ~45 steps. When validation leaves every value as it is (a known kind;
    plain str, int and float, not bool nor a subclass; None), the Step is validated once and kept:
    the same values again give the same (frozen) Step from ``_STEPS``. Anything else (a bool, a
    Fraction, an unknown kind) goes through the validator each time, which converts it or refuses
    it, and is not kept.

    ``put``, ``section`` and ``note`` keep a line as a plain tuple and ``freeze`` makes the Steps once,
    at the end, in one pass (issue 14, item 4: the trail as tuples until the Outcome is built);
    ``add`` makes the Step at once, for a caller that reads it back (CD reads a Step's total).
    """

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps: list[Step | tuple[Any, ...]] = []

    def add(
        self,
        kind: Any,  # StepKind, str, Number | str | None... (Any: the Step model checks them, see _make)
        label: Any,
        value: Any = None,
        *,
        total: Any = None,
        rule: Any = None,
        unit: Any = None,
    ) -> Step:
        """Add a Step and return it (for a caller that reads the Step back; ``put`` otherwise)."""
        step = _make(kind, label, value, total=total, rule=rule, unit=unit)
        self.steps.append(step)
        return step

    def put(self, kind: Any, label: Any, value: Any = None, *,
            total: Any = None, rule: Any = None, unit: Any = None) -> None:
        """Add a line, kept as a tuple until ``freeze`` makes it a Step (the same Step ``add`` makes)."""
        self.steps.append((kind, label, value, total, rule, unit))

    def section(self, label: Any, *, rule: Any = None, unit: Any = None) -> None:
        self.steps.append(("section", label, None, None, rule, unit))

    def note(self, label: Any, *, rule: Any = None, unit: Any = None) -> None:
        self.steps.append(("note", label, None, None, rule, unit))

    def freeze(self) -> tuple[Step, ...]:
        """The Steps, in order: each line kept as a tuple made a Step now, in one pass. A line whose
        value and total are int, str or None is its own key in ``_STEPS`` (the six-item key ``_make``
        uses); any other line goes through ``_make``."""
        steps = self.steps
        out: list[Step] = []
        append = out.append
        found = _STEPS.get
        for line in steps:
            if isinstance(line, tuple):
                if type(line[2]) in _PLAIN_VALUE and type(line[3]) in _PLAIN_TOTAL:
                    try:
                        step = found(line)
                    except TypeError:  # an unhashable label, rule or unit: validation refuses it
                        step = None
                    if step is None:
                        step = _make(*line[:3], total=line[3], rule=line[4], unit=line[5])
                else:
                    step = _make(*line[:3], total=line[3], rule=line[4], unit=line[5])
                append(step)
            else:
                append(line)
        return tuple(out)
