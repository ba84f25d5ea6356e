"""Rolls the rules call for next: the buttons a result offers for the roll its holder makes now.

A ruleset declares (``Ruleset.required_rolls``, in its own package) the rolls its rules require, or
offer, of the side holding a step, one unit or company at a time: ASL's rally attempts in the Rally
Phase (A10.6), No Honor in Surrender's rally, Command Decision's company morale checks that fall due
(5B: its Command & Morale Phase does not end before them). Where the step lets the holder give that
order, ``next_rolls`` lists the units or companies the declaration finds due, in its order: a reply
that hands the game to that side, or a result of that side after which more are due, offers them as
buttons (bot/replies.py), each giving the same order as its command with that unit (``form``: the
command's short form, for the circumstances the rules read that the referee cannot know).

Nothing here names a ruleset: the declarations are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .sequence import allowed_sides, current, refereed, side_to_act

if TYPE_CHECKING:  # not imported at run time: the rulesets the game model loads import this module
    from .game import Game
    from .ruleset import Ruleset

MAX_LABEL = 80  # Discord's button label


@dataclass(frozen=True)
class RequiredRoll:
    """A roll the rules call for, of the side holding a step, made one unit (or company) at a time.

    ``action``: the order that makes it (the step must let the holder give it); ``command`` and
    ``option``: its slash command and the option naming what rolls; ``verb``: the button's word
    ("Rally"); ``rule``: where the rules call for it; ``due(game, side)``: (value, label) of each of the
    side's units or companies that may (or must) roll now, in the order they should; ``form``: the
    press opens the command's form (its other options are circumstances only the players know)."""

    action: str
    command: str
    option: str
    verb: str
    rule: str
    due: Callable[[Game, int], list[tuple[str, str]]]
    form: bool = False


@dataclass(frozen=True)
class NextRoll:
    """One button's roll: the declaration, the unit or company, and the button's label."""

    roll: RequiredRoll
    value: str
    label: str


def next_rolls(game: Game, ruleset: Ruleset, *, limit: int = 5) -> list[NextRoll]:
    """The rolls the holder of the current step may make now, as buttons (at most ``limit``); none
    where the sequence of play is not refereed or a reaction window holds the game."""
    step = current(game, ruleset)
    if step is None or not refereed(game) or game.reaction is not None or not ruleset.required_rolls:
        return []
    holder = side_to_act(game)
    found: list[NextRoll] = []
    for roll in ruleset.required_rolls:
        if holder not in allowed_sides(game, ruleset, step, roll.action):
            continue
        for value, label in roll.due(game, holder):
            found.append(NextRoll(roll, value, f"{roll.verb} {label}"[:MAX_LABEL]))
            if len(found) >= limit:
                return found
    return found


def declared(ruleset: Ruleset, command: str) -> RequiredRoll | None:
    return next((r for r in ruleset.required_rolls if r.command == command), None)


def is_due(game: Game, ruleset: Ruleset, command: str, value: str) -> bool:
    """Whether ``value`` still has the roll of ``command`` due for the holder now."""
    return any(n.roll.command == command and n.value == value for n in next_rolls(game, ruleset, limit=10_000))
