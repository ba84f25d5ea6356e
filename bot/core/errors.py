"""Errors the rules core raises, written for players.

``InvalidOrder``: the order is malformed (unknown unit, missing field, number out of range).
``IllegalOrder``: the order is well formed but the rules forbid it now; the message names the
rule, e.g. ``IllegalOrder("4-6-7 A1 is marked Final Fire and may not fire in the DFPh (A8.4)")``.
"""


class RulesError(Exception):
    """Base class of every error the rules core raises on purpose."""

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.field = field

    def __str__(self) -> str:  # keep the player-facing text exactly as written
        return self.message


class InvalidOrder(RulesError):
    """The order is malformed: it names the field that is wrong."""


class IllegalOrder(RulesError):
    """The order is well formed but the rules forbid it now: it names the rule."""


class ConfirmSight(IllegalOrder):
    """The bot reads the line of sight as blocked, reading whole hexes (game option ``los=advise``): the
    order is put to the firer to confirm (the same order with ``los_confirmed``) instead of rolling."""


# --- a validation error of pydantic, in players' words ----------------------------------------------

_ID_PATTERN_WORDS = "an id is 1 to 24 letters, digits, '.', '_' or '-', starting with a letter or a digit"


def _typed(value: object) -> str:
    text = str(value)
    return text if len(text) <= 30 else text[:29] + "…"


def plain_validation(err: dict, field: str, known: tuple[str, ...] | list[str] = ()) -> str:
    """One of pydantic's errors (``ValidationError.errors()[i]``) said as a player can act on it:
    what the field takes and, for an unknown name, the names it takes (``known``). Never pydantic's
    own words ("String should match pattern", "Extra inputs are not permitted")."""
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    value = err.get("input")
    shown = f"'{field}'"
    if kind == "missing":
        return f"{shown} is required"
    if kind == "extra_forbidden":
        names = f" (it takes: {', '.join(known)})" if known else ""
        return f"{shown} is not something this takes{names}"
    if kind == "string_pattern_mismatch":
        return f"{shown}: '{_typed(value)}' is not a valid id: {_ID_PATTERN_WORDS}"
    if kind.startswith("bool"):
        return f"{shown} takes yes or no, not '{_typed(value)}'"
    if kind.startswith("int") or kind == "int_from_float":
        return f"{shown} takes a whole number, not '{_typed(value)}'"
    if kind.startswith("float") or kind.startswith("decimal"):
        return f"{shown} takes a number, not '{_typed(value)}'"
    bounds = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
              "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"{shown} must be {words} {ctx.get(key)}, not '{_typed(value)}'"
    if kind in ("too_short", "string_too_short"):
        least = ctx.get("min_length")
        return f"{shown} needs at least {least} {'character' if kind.startswith('string') else 'item'}" + \
            ("s" if least != 1 else "")
    if kind in ("too_long", "string_too_long"):
        most = ctx.get("max_length")
        return f"{shown} takes at most {most} {'characters' if kind.startswith('string') else 'items'}"
    if kind in ("literal_error", "enum"):
        expected = str(ctx.get("expected", "")).replace("'", "")
        return f"{shown} takes {expected}, not '{_typed(value)}'"
    if kind == "string_type":
        return f"{shown} takes text, not '{_typed(value)}'"
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"{shown} takes a list (ids separated by spaces or commas), not '{_typed(value)}'"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"{shown} takes key=value pairs, not '{_typed(value)}'"
    if kind == "value_error":
        message = str(ctx.get("error") or err.get("msg", "")).removeprefix("Value error, ")
        return f"{shown}: {message}"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return f"{shown} names no known kind (it takes: {', '.join(known)})" if known else \
            f"{shown} names no known kind"
    return f"{shown}: '{_typed(value)}' is not a value it takes"
