"""Deadlines for games played by post: the side the game waits for acts in time, or its step ends.

With the game option ``deadline_hours=N`` the side the game waits for (the holder of the step, or
the side answering an open reaction window) has N hours from the game's newest entry: the step's
start, its own last order, or an answer the other side gave meanwhile. Each entry starts the clock
again, so a holder who keeps playing is never cut short, and a step nobody touches ends N hours after
its last entry. At half time its players are reminded once; at the deadline the step ends with its
default (bot/pacing.py gives the order, as the referee): an open reaction window closes as no fire,
otherwise the holder's ``/done`` (in an impulse: a pass). The order says so (``by="deadline"``), so
the log, replay and ``/log verify`` cover it.

The game master may extend the deadline of the current step once (``Extend``: N + H hours from then on,
until the step ends), and pause the game's clock (``Pause``): a paused game has no deadline, no
reminder and no reaction time limit until it resumes, and its clock starts again at the resume.
A player away (``/away``) stops the clock of the side whose every player is away (bot/pacing.py
reads it: it is the players', not the game's, so it is not in the game's state).

Nothing here names a ruleset. The times are computed from the entries' own times (given by the
caller): the game's state holds no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Literal

from pydantic import Field

from .errors import IllegalOrder
from .game import Extension, Game
from .orders import OrderBase
from .outcome import Outcome
from .sequence import current, refereed, side_to_act, step_name
from .ruleset import Ruleset
from .trail import Trail

OPTION = "deadline_hours"
HOURS_MIN, HOURS_MAX = 1.0, 24 * 90  # a deadline of one hour to 90 days
EXTEND_MAX = 24 * 30  # an extension of at most a month
RULE = "deadline (referee)"  # the rule of the deadline itself: the referee's, not the game's


# --- reading a game -----------------------------------------------------------------------------------


def option_hours(game: Game) -> float | None:
    """The game's ``deadline_hours`` option, when it is a positive number."""
    value = game.options.get(OPTION)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value)


def waited_side(game: Game) -> int:
    """The side the game waits for: the side answering an open reaction window, else the step's holder."""
    return game.reaction.side if game.reaction is not None else side_to_act(game)


def extension(game: Game) -> float:
    """The hours the game master added to the current step's deadline (0 when none)."""
    ext = game.extension
    if ext is None or (ext.turn, ext.step, ext.impulse) != (game.turn, game.step, game.impulse):
        return 0.0
    return ext.minutes / 60


def limit(game: Game) -> float | None:
    """The hours the side the game waits for has from the newest entry, the extension included; None
    when no deadline runs: no option, the game paused, the sequence of play not refereed, the game
    still being set up (no step ended, no order of play given yet), or a side nobody plays (nobody to
    wait for)."""
    hours = option_hours(game)
    if hours is None or game.paused or not refereed(game) or not (game.started or game.acted):
        return None  # no option, paused, no steps; or the set-up still going on (no order of play yet)
    side = waited_side(game)
    if not 0 <= side < len(game.sides) or not game.sides[side].players:
        return None
    return hours + extension(game)


def half_time(game: Game, since: datetime) -> datetime | None:
    """When the reminder of the deadline is due (half of it after ``since``), None without a deadline."""
    hours = limit(game)
    return None if hours is None else since + timedelta(hours=hours / 2)


def due(game: Game, since: datetime) -> datetime | None:
    """The deadline: ``limit`` hours after ``since`` (the newest entry, or the holder's return from an
    away); None without a deadline."""
    hours = limit(game)
    return None if hours is None else since + timedelta(hours=hours)


def clock_start(game: Game, last: datetime, away: Mapping[int, tuple[datetime, datetime]],
                now: datetime) -> datetime | None:
    """When the clock of the side the game waits for started: its newest entry (``last``), or, for a
    side whose players were away (``away``: each player's latest away, from/until) after it, when the
    first of them came back. None while every player of the side is away: its clock is stopped."""
    side = waited_side(game)
    players = game.sides[side].players if 0 <= side < len(game.sides) else []
    starts = []
    for player in players:
        span = away.get(player)
        if span is None or span[1] <= last:
            starts.append(last)  # not away since the newest entry
        elif not span[0] <= now < span[1]:
            starts.append(max(last, span[1]))  # back: the clock counts from the return
    if players and not starts:
        return None
    return min(starts, default=last)


def default_order(game: Game) -> dict[str, object]:
    """The order that ends the step at its deadline: no fire for an open reaction window, else the
    holder's /done (a pass, in an impulse)."""
    hours = limit(game)
    assert hours is not None
    if game.reaction is not None:
        return {"action": "react", "side": game.reaction.side, "answer": "deadline", "hours": hours}
    return {"action": "done", "side": side_to_act(game), "by": "deadline", "hours": hours}


def ended_words(game: Game, hours: float) -> str:
    """"Ended by the deadline: nothing from Germans in 24 hours (game option deadline_hours=24)"."""
    given = option_hours(game)
    extra = f", extended by {hours - given:g}" if given is not None and hours > given else ""
    return (f"Ended by the deadline: nothing from {game.side_name(waited_side(game))} in {hours:g} hours "
            f"(game option {OPTION}={given:g}{extra})" if given is not None else
            f"Ended by the deadline: nothing from {game.side_name(waited_side(game))} in {hours:g} hours")


# --- the game master's orders -------------------------------------------------------------------------


class Pause(OrderBase):
    """The game master pauses the game's clock (``paused=True``: no deadline, reminder or reaction time
    limit runs) or resumes it (the clock starts again from the resume)."""

    gm_only = "pause or resume the game's clock"

    action: Literal["pause"] = "pause"
    paused: bool = True


class Extend(OrderBase):
    """The game master extends the deadline of the current step, once per step, by ``hours``."""

    gm_only = "extend a deadline"

    action: Literal["deadline_extend"] = "deadline_extend"
    hours: float = Field(ge=1, le=EXTEND_MAX)


def resolve_pause(game: Game, ruleset: Ruleset, order: Pause) -> Outcome:
    trail = Trail()
    if order.paused:
        if game.paused:
            raise IllegalOrder("the game is paused already: /game resume starts its clock again", rule=RULE)
        game.paused = True
        trail.section("The game is paused: no deadline, reminder or reaction time limit runs until the game "
                      "master resumes it (/game resume)", rule=RULE)
        headline = "The game is paused"
    else:
        if not game.paused:
            raise IllegalOrder("the game is not paused: /game pause stops its clock", rule=RULE)
        game.paused = False
        hours = limit(game)
        trail.section("The game resumes: its clock starts again from now"
                      + (f" ({game.side_name(waited_side(game))} have {hours:g} hours, game option {OPTION})"
                         if hours is not None else ""), rule=RULE)
        headline = "The game resumes"
    return Outcome(ruleset=ruleset.name, action="pause", headline=headline, trail=trail.freeze())


def resolve_extend(game: Game, ruleset: Ruleset, order: Extend) -> Outcome:
    given = option_hours(game)
    if given is None:
        raise IllegalOrder(f"this game has no deadline to extend: the game option {OPTION}=N sets one "
                           f"(/game options set:{OPTION}=24)", rule=RULE)
    if game.paused:
        raise IllegalOrder("the game is paused: no deadline runs until /game resume", rule=RULE)
    if not refereed(game):
        raise IllegalOrder("this game does not referee the sequence of play: it has no steps to give a deadline",
                           rule=RULE)
    step = current(game, ruleset)
    name = step_name(game, ruleset, step) if step is not None else game.phase
    if extension(game):
        raise IllegalOrder(f"the deadline of the {name} was extended already (by {extension(game):g} hours): "
                           "a step's deadline is extended once", rule=RULE)
    game.extension = Extension(minutes=round(order.hours * 60), turn=game.turn, step=game.step, impulse=game.impulse)
    side = game.side_name(waited_side(game))
    total = given + order.hours
    trail = Trail()
    trail.section(f"The deadline of the {name} is extended by {order.hours:g} hours, once for this step: {side} "
                  f"have {total:g} hours from now, and from each entry, until the step ends "
                  f"(game option {OPTION}={given:g})", rule=RULE)
    return Outcome(ruleset=ruleset.name, action="deadline_extend",
                   headline=f"Deadline of the {name} extended by {order.hours:g} hours", trail=trail.freeze())
