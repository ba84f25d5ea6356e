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
``/log verify`` cover them. Nothing here names a ruleset: the declarations are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from .errors import IllegalOrder
from .orders import OrderBase, Refers
from .outcome import Outcome
from .trail import Trail

if TYPE_CHECKING:  # not imported at run time: the rulesets the game model loads import this module
    from .game import Game
    from .ruleset import Ruleset

OPTION = "reactions"  # the game option: ask, off, hours=N
REACT = "react"  # the action of the answer to a window
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
    game paced by post (``remind_after_hours``), else none (off, live play)."""
    if OPTION in options or options.get("remind_after_hours") in (None, False):
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


# --- before an order: what an open window holds back ---------------------------------------------


def check_window(game: Game, ruleset: Ruleset, action: str, sides: dict[int, str], *, ends_step: bool) -> bool:
    """Refuse the moving side's next opening order, and the end of the step, while a window is open
    (saying whom it waits for). True when the order is the reacting side's reaction (the step's own
    list of orders then does not apply)."""
    window = game.reaction
    if window is None:
        return False
    reaction = declared(ruleset, window.name)
    if ends_step or (reaction is not None and action == reaction.after and window.mover in sides):
        raise IllegalOrder(waiting(game, window.name, window.rule), rule=window.rule)
    return reaction is not None and action == reaction.action and set(sides) == {window.side}


def waiting(game: Game, name: str, rule: str) -> str:
    window = game.reaction
    assert window is not None
    return (f"the game waits for {game.side_name(window.side)}: {name} at {_listed(window.units)} in {window.at} "
            f"({rule}), answered with Fire or No fire (the buttons, or their /done); until then "
            f"{game.side_name(window.mover)} may neither move again nor end the step (game option reactions)")


def _listed(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


# --- after an order: a window opened, answered, or closed by the step's end ----------------------


def after_order(before: Game, game: Game, ruleset: Ruleset, action: str, outcome: Outcome,
                reacted: bool) -> Outcome:
    """The window after an order (``game`` the new state, changed here): closed when the step moved
    on, kept open after a reaction (``reacted``), opened by a declared order of the moving side.
    Returns the outcome with a line saying so, the same outcome when nothing changed."""
    from .game import ReactionWindow  # here: the game model imports the rulesets, which import this module

    trail = Trail()
    window = before.reaction
    if window is not None and _moved_on(before, game):
        game.reaction = None
        trail.note(f"The {window.name} window closes with the step", rule=RULE)
    elif window is not None and reacted:
        game.reaction = window.model_copy(update={"answers": window.answers + 1})
        trail.note(f"{game.side_name(window.side)} may react again: No fire closes the {window.name} window "
                   f"and lets {game.side_name(window.mover)} go on", rule=RULE)
    elif window is None and game.step is not None and mode(game)[0] != OFF and outcome.actor_side is not None:
        reaction = opening(ruleset, game, action)
        if reaction is not None:
            side = 1 - outcome.actor_side
            ids = [e.unit for e in outcome.effects if e.side == outcome.actor_side and e.unit in game.units]
            ids = list(dict.fromkeys(ids))
            if reaction.movers is not None:
                ids = reaction.movers(game, ids)
            units = [game.units[i] for i in ids]
            # a side with no player seated has nobody to ask: the game goes on as in live play
            if units and 0 <= side < len(game.sides) and game.sides[side].players and (
                    reaction.able is None or reaction.able(game, side)):
                at = units[0].location or ""
                game.windows += 1
                game.reaction = ReactionWindow(side=side, mover=outcome.actor_side, units=[u.label for u in units],
                                               ids=ids, at=at, name=reaction.name, rule=reaction.rule,
                                               number=game.windows)
                limit = mode(game)[1]
                trail.note(f"{game.side_name(side)} may answer with {reaction.name} at "
                           f"{_listed([u.label for u in units])} in {at}: Fire, or No fire"
                           + (f" (no answer in {limit:g} hours: no fire)" if limit is not None else ""),
                           rule=reaction.rule)
                if reaction.note:
                    trail.note(reaction.note, rule=reaction.rule)
                trail.note(f"{game.side_name(outcome.actor_side)} wait for the answer before they move again or "
                           "end the step (game option reactions)", rule=RULE)
    if not trail.steps:
        return outcome
    return outcome.model_copy(update={"trail": outcome.trail + trail.freeze()})


def _moved_on(before: Game, after: Game) -> bool:
    return (before.turn, before.phase, before.step, before.impulse) != (after.turn, after.phase, after.step,
                                                                        after.impulse)


# --- the answer: No fire, or no answer in time ---------------------------------------------------

Reacting = Annotated[int, Refers("side", acting=True, label="the reaction")]


class React(OrderBase):
    """The reacting side closes the window without (more) reaction ("No fire"); or the referee closes
    it after the game option's hours without an answer (``timeout``)."""

    action: Literal["react"] = "react"
    side: Reacting
    answer: Literal["no_fire", "timeout"] = "no_fire"
    hours: float | None = Field(default=None, ge=HOURS_MIN, le=HOURS_MAX)  # a timeout: the option's hours


def resolve_react(game: Game, ruleset: Ruleset, order: React) -> Outcome:
    window = game.reaction
    if window is None:
        raise IllegalOrder("no reaction window is open: there is nothing to answer (the move was answered, or the "
                           "step moved on)", rule=RULE)
    if order.side != window.side:
        raise IllegalOrder(f"the {window.name} window is {game.side_name(window.side)}'s to answer, not "
                           f"{game.side_name(order.side)}'s", rule=window.rule)
    side, mover = game.side_name(window.side), game.side_name(window.mover)
    trail = Trail()
    what = "fire no more" if window.answers else "do not fire"
    if order.answer == "timeout":
        trail.section(f"No answer from {side} in {order.hours:g} hours: the {window.name} window closes as no fire",
                      rule=f"game option {OPTION}={HOURS}{order.hours:g}")
        headline = f"{side}: no answer in {order.hours:g} hours, no fire ({window.name})"
    else:
        trail.section(f"{side} {what} at {_listed(window.units)} in {window.at} ({window.name})", rule=window.rule)
        headline = f"{side} {what} at {_listed(window.units)} ({window.name})"
    trail.note(f"{mover} go on", rule=RULE)
    game.reaction = None
    return Outcome(ruleset=ruleset.name, action="react", headline=headline, actor_side=window.side,
                   trail=trail.freeze())


def waits_for(game: Game) -> int | None:
    """The side the game waits for: the reacting side while a window is open, else None."""
    return game.reaction.side if game.reaction is not None else None


class WindowFacts(BaseModel):
    """What a reply needs to offer the reaction's buttons (``facts``)."""

    side: int
    number: int
    name: str
    rule: str
    command: str
    prefill: str


def facts(game: Game, ruleset: Ruleset) -> WindowFacts | None:
    """The open window as the Fire button offers it: the command prefilled at the movers."""
    window = game.reaction
    reaction = declared(ruleset, window.name) if window is not None else None
    if window is None or reaction is None:
        return None
    target = window.at if reaction.target_is == "location" else " ".join(window.ids)
    prefill = f"/{reaction.command} {reaction.target}:{target}" + (f" {reaction.extras}" if reaction.extras else "")
    return WindowFacts(side=window.side, number=window.number, name=window.name, rule=window.rule,
                       command=reaction.command, prefill=prefill)
