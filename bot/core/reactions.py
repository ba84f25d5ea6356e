"""Reaction windows: after a move that gives the other side a reaction, the game waits for its answer.

At a table the defender interrupts a move ("I fire at that squad in the open"); in a game played by
post, hours apart, the move would be followed by the mover's ``/done`` before the defender ever saw
it. A ruleset declares (``Ruleset.reactions``, in its own package) which of its orders open a
window, in which phases, for which reaction (ASL's Defensive First Fire at a unit expending MF, A8.1;
No Honor in Surrender's opportunity fire; Command Decision's Op Fire at a moving stand). With the
game option ``reactions`` set to ``ask`` or ``hours=N``, such an order leaves the window open in the
game (``Game.reaction``): the movers, where they are, the side that may react. While it is open:

* the moving side's next order of the kind that opened it (the next move) and the end of its step
  (``/done``) are refused, naming whom they wait for;
* the reacting side may give the reaction (its fire) even where the step does not list it, each
  answer leaving the window open for more;
* the reacting side ends it with the ``react`` order ("No fire"), or, with ``hours=N``, the referee
  ends it after N hours without an answer (``answer="timeout"``, given by the background loop of
  bot/pacing.py). A step that ends, or a phase jump by the game master, closes it.

The window is part of the game's state and each answer is an order in the log, so undo, replay and
``/log verify`` cover them. Nothing here names a ruleset: the declarations are read. This module
holds the declarations and the option (what the rulesets and the options import); the windows
themselves, opened, held and answered, are ``windows.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:  # not imported at run time: the rulesets the game model loads import this module
    from .game import Game
    from .ruleset import Ruleset

OPTION = "reactions"  # the game option: ask, off, hours=N
REACT: Final = "react"  # the action of the answer to a window
ASK, OFF, HOURS = "ask", "off", "hours="
HOURS_MIN, HOURS_MAX = 0.1, 24 * 30  # the time limit a window may have (a month at most)
RULE = "reaction window (referee)"  # the rule of the window itself: the referee's, not the game's


@dataclass(frozen=True)
class Reaction:
    """A reaction a ruleset's rules give the other side after one of its orders.

    ``after``: the action that opens a window (``move``), in ``phases``; ``name`` and ``rule``: what
    the reaction is called and where the rules say so; ``command``/``action``: the slash command and
    the order the reacting side answers with; ``target``: that command's option naming what it
    reacts to, ``target_is`` what it takes (the movers' Location, or the movers themselves);
    ``extras``: more of the command to prefill (``op_fire:yes``); ``able(game, side)``: whether the
    side has anything that could react (a window for a side that cannot is not opened);
    ``movers(game, ids)``: the moved units it may react to (default: all of them)."""

    after: str
    phases: tuple[str, ...]
    name: str
    rule: str
    command: str
    action: str
    target: str
    target_is: Literal["location", "units"] = "location"
    extras: str = ""
    able: Callable[[Game, int], bool] | None = None
    movers: Callable[[Game, list[str]], list[str]] | None = None
    note: str = ""  # a word on how the reaction is played (an ``assumed:`` choice), shown as the window opens


# --- the game option ---------------------------------------------------------------------------------


def parse_mode(value: Any) -> tuple[str, float | None] | None:
    """("ask", None), ("off", None) or ("hours", N) for a value of the option; None when it is none of them."""
    if not isinstance(value, str):
        return None
    text = value.strip().casefold().replace(" ", "")
    if text in (ASK, OFF):
        return text, None
    if text.startswith(HOURS):
        try:
            hours = float(text[len(HOURS):])
        except ValueError:
            return None
        if HOURS_MIN <= hours <= HOURS_MAX:
            return "hours", hours
    return None


def check_mode(value: Any) -> str | None:
    """The option's value as stored ("ask", "off", "hours=2"), or None when it is not one."""
    mode = parse_mode(value)
    if mode is None:
        return None
    return mode[0] if mode[1] is None else f"{HOURS}{mode[1]:g}"


def mode(game: Game) -> tuple[str, float | None]:
    """The game's reaction mode: the option set, else off (a game created with ``remind_after_hours``
    has ``ask`` written into its options at its creation: ``creation_value``)."""
    return parse_mode(game.options.get(OPTION)) or (OFF, None)


def creation_value(options: dict[str, Any]) -> str | None:
    """The value a new game's ``reactions`` takes when its creation does not give one: ``ask`` for a
    game paced by post (``remind_after_hours`` or ``deadline_hours``), else none (off, live play)."""
    if OPTION in options or all(options.get(paced) in (None, False) for paced in ("remind_after_hours",
                                                                                   "deadline_hours")):
        return None
    return ASK


def timeout_hours(game: Game) -> float | None:
    """The hours after which the open window of ``game`` closes as no reaction; None when none is
    open or the game waits for the answer however long it takes."""
    if game.reaction is None:
        return None
    found = mode(game)
    return found[1] if found[0] == "hours" else None


# --- the declarations --------------------------------------------------------------------------------


def declared(ruleset: Ruleset, name: str) -> Reaction | None:
    return next((r for r in ruleset.reactions if r.name == name), None)


def opening(ruleset: Ruleset, game: Game, action: str) -> Reaction | None:
    return next((r for r in ruleset.reactions if r.after == action and game.phase in r.phases), None)


def waits_for(game: Game) -> int | None:
    """The side the game waits for: the reacting side while a window is open, else None."""
    return game.reaction.side if game.reaction is not None else None
