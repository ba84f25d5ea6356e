"""The sequence of play: whose move it is, what each side may do in each step, and the hand-offs.

A ruleset's sequence is data (``data/<ruleset>/sequence.yaml``): its steps in order, each with the
phase it belongs to, the role that *holds* it (the side whose ``/done`` ends it: the ATTACKER,
Side A, the side with the impulse ...) and, per role, the orders that side may give in it. The
ruleset maps roles to sides (``Ruleset.role_side``) from the game: ASL's attacker is the side
whose player turn it is, Command Decision's Side A is the one that won the initiative, No Honor in
Surrender's impulse passes from side to side.

A game keeps where it stands in ``Game.step`` and who holds it in ``Game.to_act``; the generic
``done`` order ends the holder's part: the clean-ups of a phase run when its last step ends
(``Ruleset.phase_end``; a step's own as it ends, ``Ruleset.step_end``), a step may start with a
roll (``Ruleset.step_started``: CD's initiative), and the other side may ask the holder to end it
(``ask``), which the holder accepts by ending it or refuses. Every change is an order in the log, so
undo, replay and verify cover it.

Games logged before the sequence was refereed have ``Game.sequence`` unset and play on as they
did: any player advances with ``/game phase`` and nothing is checked against the step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from .data import data_path
from .errors import IllegalOrder, InvalidOrder
from .orders import OrderBase, Refers
from .outcome import Outcome, UnitEffect
from .trail import Trail

if TYPE_CHECKING:  # not imported at run time: the rulesets the game model loads import this module
    from .dice import Roller
    from .game import Game
    from .ruleset import Ruleset

SEQUENCE = 1  # Game.sequence of a game whose sequence of play is refereed


class StepData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    phase: str  # a short phase name of the ruleset
    part: str = ""  # what the step is within its phase ("Side A", "prep fire"), "" when the phase is one step
    holder: str  # the role whose /done ends the step
    orders: dict[str, tuple[str, ...]] = Field(default_factory=dict)  # role -> actions its side may give


class SequenceData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str  # the rule the sequence of play comes from, quoted in refusals
    steps: tuple[StepData, ...]
    always: tuple[str, ...] = ()  # actions any side may give in any step (a check the rules call for)
    assumed: tuple[str, ...] = ()


@cache
def load(ruleset_name: str) -> SequenceData | None:
    """The sequence of ``data/<ruleset>/sequence.yaml``; None for a ruleset without one."""
    path = data_path(ruleset_name, "sequence.yaml")
    if not path.exists():
        return None
    with open(path, encoding="utf-8") as fh:
        return SequenceData.model_validate(yaml.safe_load(fh))


@dataclass(frozen=True)
class Where:
    """A step as players read it."""

    step: StepData
    name: str  # "Prep Fire Phase", "Movement Phase (Side A: Americans)"


def refereed(game: Game) -> bool:
    return game.sequence is not None and game.step is not None


def side_to_act(game: Game) -> int:
    """The side that must act now: the holder of the step, or in a game whose sequence is not
    refereed the side whose player turn it is."""
    return game.to_act if refereed(game) and game.to_act is not None else game.active_side


def current(game: Game, ruleset: Ruleset) -> StepData | None:
    data = ruleset.sequence()
    if data is None or not refereed(game) or not 0 <= game.step < len(data.steps):  # type: ignore[operator]
        return None
    return data.steps[game.step]  # type: ignore[index]


def step_name(game: Game, ruleset: Ruleset, step: StepData | None = None) -> str:
    """"Defensive Fire Phase", "General Fire Phase, Side B (Germans)", "Operations Phase, impulse 3"."""
    step = step or current(game, ruleset)
    if step is None:
        return ruleset.phase_names.get(game.phase, game.phase)
    name = ruleset.phase_names.get(step.phase, step.phase)
    if step.holder == "impulse":
        return f"{name}, impulse {max(game.impulse, 1)}"
    return f"{name}, {step.part}" if step.part else name


# --- who may do what ------------------------------------------------------------------------------


def allowed_sides(game: Game, ruleset: Ruleset, step: StepData, action: str) -> set[int]:
    data = ruleset.sequence()
    if data is not None and action in data.always:
        return set(range(len(game.sides)))
    return {ruleset.role_side(game, role) for role, actions in step.orders.items() if action in actions}


def check_turn(game: Game, ruleset: Ruleset, action: str, sides: dict[int, str]) -> None:
    """Refuse an order of the ruleset given by a side that may not give it in this step, saying who
    holds the step and when that side may give such an order."""
    step = current(game, ruleset)
    if step is None or not sides:
        return
    allowed = allowed_sides(game, ruleset, step, action)
    for side in sides:
        if side in allowed:
            continue
        data = ruleset.sequence()
        assert data is not None
        holder = game.side_name(side_to_act(game))
        later = [name for name in _when(game, ruleset, side, action)]
        hint = (f"{game.side_name(side)} may {_verb(action)} in the {_listed(later)} of this turn" if later else
                f"{game.side_name(side)} may not {_verb(action)} in this turn")
        raise IllegalOrder(f"it is the {step_name(game, ruleset, step)}, {holder} to act: {game.side_name(side)} "
                           f"may not {_verb(action)} now ({data.rule}); {hint}", rule=data.rule)


def _verb(action: str) -> str:
    return action.replace("_", " ")


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _when(game: Game, ruleset: Ruleset, side: int, action: str) -> list[str]:
    """The steps of this turn (as the roles stand now) in which ``side`` may give ``action``."""
    data = ruleset.sequence()
    assert data is not None
    found: list[str] = []
    for step in data.steps:
        roles = [role for role, actions in step.orders.items() if action in actions]
        if not roles:
            continue
        name = ruleset.phase_names.get(step.phase, step.phase)
        if step.holder == "impulse":  # every side has impulses
            name += " (in its own impulse)" if "impulse" in roles else ""
        elif not any(_plays(game, ruleset, role, side) for role in roles):
            continue
        elif step.part:
            name += f" ({step.part})"
        if name not in found:
            found.append(name)
    return found


def _plays(game: Game, ruleset: Ruleset, role: str, side: int) -> bool:
    try:
        return ruleset.role_side(game, role) == side
    except KeyError:
        return False


def note_acted(game: Game, sides: dict[int, str], holder: int | None = None) -> None:
    """The holder gave an order in its step (an impulse in which a side acted is not a pass).
    ``holder``: the side that held the step when the order was given; an order that handed the step
    on as it was resolved marks nothing (it was not the new holder's action)."""
    if holder is not None and game.to_act != holder:
        return
    if refereed(game) and game.to_act in sides:
        game.acted = True


# --- moving on ------------------------------------------------------------------------------------


def start(game: Game, ruleset: Ruleset) -> None:
    """A new game played under today's rules of the table (``Game.sequence``: seats by consent, units
    added at the set-up); where the ruleset has a sequence of play, its first step, the holder to act."""
    game.sequence = SEQUENCE
    if ruleset.sequence() is None:
        return
    game.step = 0
    enter(game, ruleset, Trail(), None)


def enter(game: Game, ruleset: Ruleset, trail: Trail, roller: Roller | None) -> None:
    step = current(game, ruleset)
    assert step is not None
    game.acted, game.asked_by, game.asked_of = False, None, []
    if step.holder == "impulse":
        game.impulse, game.passes = 1, 0
        game.to_act = ruleset.role_side(game, "first")
    else:
        game.impulse = 0
        game.passes = 0
        ruleset.step_started(game, step, trail, roller)
        game.to_act = ruleset.role_side(game, step.holder)


def advance(game: Game, ruleset: Ruleset, trail: Trail, effects: list[UnitEffect], roller: Roller | None) -> None:
    """End the current step: its phase's clean-ups when it is the phase's last, then the next step."""
    data = ruleset.sequence()
    step = current(game, ruleset)
    assert data is not None and step is not None and game.step is not None
    game.started = True  # a step has ended: the set-up is over
    following = (game.step + 1) % len(data.steps)
    ruleset.step_end(game, step, trail, effects)
    if following == 0 or data.steps[following].phase != step.phase:
        ruleset.phase_end(game, trail, effects)
        game.phase, game.turn, game.active_side = ruleset.next_phase(game)
    game.step = following
    enter(game, ruleset, trail, roller)


def end_impulse(game: Game, ruleset: Ruleset, *, passed: bool) -> None:
    """The side with the impulse is done; two passes in a row end the phase (the caller advances)."""
    game.passes = game.passes + 1 if passed else 0
    game.to_act = 1 - game.to_act if game.to_act is not None else ruleset.role_side(game, "first")
    game.impulse += 1
    game.acted, game.asked_by, game.asked_of = False, None, []


# --- the orders that move the game on ---------------------------------------------------------------

PartOf = Annotated[int, Refers("side", acting=True, label="this part of the turn")]


class Done(OrderBase):
    """A side is done with its part of the turn (the step it holds, or its impulse); or asks the
    holder to end it (``answer="ask"``), or, holding it, refuses such a request."""

    rolls = True  # a step may start with a roll (Command Decision's initiative)

    action: Literal["done"] = "done"
    side: PartOf
    answer: Literal["ask", "refuse"] | None = None
    # ended by the referee at the step's deadline (game option deadline_hours, bot/core/deadlines.py)
    by: Literal["deadline"] | None = None
    hours: float | None = Field(default=None, gt=0, le=24 * 365)

    @classmethod
    def refusal_for(cls, game: Game, user_id: int, game_master: bool, order: dict) -> str | None:
        if order.get("by") is not None and not game_master:
            return "only the referee ends a step by its deadline: /done ends your own part"
        # a request to end the step is answered (ended or refused) by the holder's players seated before it
        if game.asked_by is None or order.get("answer") == "ask" or game_master or user_id in game.asked_of:
            return None
        return (f"{game.side_name(game.to_act)} were asked to end this step before you took your seat: one of "
                "their players seated then (or the game master) answers")


def resolve_done(game: Game, ruleset: Ruleset, order: Done, roller: Roller) -> Outcome:
    step = current(game, ruleset)
    data = ruleset.sequence()
    if step is None or data is None:
        raise IllegalOrder("this game does not referee the sequence of play (it was started before the bot did, "
                           "or its ruleset has none): move on with /game phase")
    if not 0 <= order.side < len(game.sides):
        raise InvalidOrder(f"no side {order.side + 1} in this game", field="side")
    trail = Trail()
    effects: list[UnitEffect] = []
    holder, name, side = game.to_act, step_name(game, ruleset, step), game.side_name(order.side)
    if order.answer == "ask":
        if order.side == holder:
            raise IllegalOrder(f"{side} hold the {name}: /done ends it")
        game.asked_by = order.side
        game.asked_of = list(game.sides[holder].players)  # seated before the request: their consent counts
        trail.note(f"{side} ask {game.side_name(holder)} to end the {name}", rule=data.rule)
        return _outcome(game, ruleset, f"{side} ask {game.side_name(holder)} to end the {name}", trail, effects,
                        order.side)
    if order.side != holder:
        raise IllegalOrder(f"{game.side_name(holder)} hold the {name}: only they end it (or the game master); "
                           f"{side} may ask them to", rule=data.rule)
    if order.answer != "refuse":
        ruleset.check_step_end(game, step)
    if order.by == "deadline":  # the referee's order: the holder gave nothing in time
        if order.answer is not None:
            raise InvalidOrder("a step ended by the deadline is ended, not asked or refused", field="answer")
        trail.section(f"Ended by the deadline: nothing from {side} in {order.hours or 0:g} hours, the {name} ends "
                      "with its default", rule="game option deadline_hours")
    if order.answer == "refuse":
        if game.asked_by is None:
            raise IllegalOrder(f"nobody asked {side} to end the {name}")
        trail.note(f"{side} keep the {name}: {game.side_name(game.asked_by)} asked to end it", rule=data.rule)
        game.asked_by, game.asked_of = None, []
        return _outcome(game, ruleset, f"{side} keep the {name}", trail, effects, order.side)
    if step.holder == "impulse":
        passed = not game.acted
        trail.note(f"{side} {'pass' if passed else 'end their impulse'} ({name})", rule=data.rule)
        end_impulse(game, ruleset, passed=passed)
        if game.passes >= 2:
            trail.note(f"Both sides passed in a row: the {ruleset.phase_names.get(step.phase, step.phase)} ends",
                       rule=data.rule)
            advance(game, ruleset, trail, effects, roller)
    else:
        trail.note(f"Ends: the {name} ({side})", rule=data.rule)
        advance(game, ruleset, trail, effects, roller)
    now = step_name(game, ruleset)
    trail.note(f"Begins: the {now}, turn {game.turn}: {game.side_name(game.to_act)} to act", rule=data.rule)
    return _outcome(game, ruleset, f"{now}: {game.side_name(game.to_act)} to act", trail, effects, order.side)


def _outcome(game: Game, ruleset: Ruleset, headline: str, trail: Trail, effects: list[UnitEffect],
             side: int) -> Outcome:
    return Outcome(ruleset=ruleset.name, action="done", headline=f"Turn {game.turn}, {headline}", actor_side=side,
                   trail=trail.freeze(), effects=tuple(effects))
