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
