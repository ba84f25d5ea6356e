"""Reaction windows in play (bot/core/reactions.py says what they are): what an open window holds
back before an order, the window an order opens, answers or closes, and the answer itself (``react``:
No fire, or no answer in time). ``api.resolve`` calls these for every order of a ruleset that
declares reactions, so undo, replay and ``/log verify`` cover each window as the orders they are."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from .commands import FormField, command_form
from .errors import IllegalOrder
from .game import Game, ReactionWindow
from .orders import OrderBase, Refers
from .outcome import Outcome
from .deadlines import RULE as DEADLINE_RULE, ended_words
from .reactions import HOURS, HOURS_MAX, HOURS_MIN, OFF, OPTION, REACT, RULE, declared, mode, opening
from .ruleset import Ruleset
from .sides import possessive
from .trail import Trail

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

    action: Literal["react"] = REACT
    side: Reacting
    answer: Literal["no_fire", "timeout", "deadline"] = "no_fire"
    # a timeout: the option's hours; a deadline (game option deadline_hours): the hours it gave
    hours: float | None = Field(default=None, ge=HOURS_MIN, le=HOURS_MAX * 4)

    @classmethod
    def refusal_for(cls, game: Game, user_id: int, game_master: bool, order: dict) -> str | None:
        if order.get("answer", "no_fire") != "no_fire" and not game_master:
            return "only the referee closes a window for want of an answer: No fire (or /done) answers it"
        return None


def resolve_react(game: Game, ruleset: Ruleset, order: React) -> Outcome:
    window = game.reaction
    if window is None:
        raise IllegalOrder("no reaction window is open: there is nothing to answer (the move was answered, or the "
                           "step moved on)", rule=RULE)
    if order.side != window.side:
        raise IllegalOrder(f"the {window.name} window is {possessive(game.side_name(window.side))} to answer, not "
                           f"{possessive(game.side_name(order.side))}", rule=window.rule)
    side, mover = game.side_name(window.side), game.side_name(window.mover)
    trail = Trail()
    what = "fire no more" if window.answers else "do not fire"
    if order.answer == "timeout":
        trail.section(f"No answer from {side} in {order.hours:g} hours: the {window.name} window closes as no fire",
                      rule=f"game option {OPTION}={HOURS}{order.hours:g}")
        headline = f"{side}: no answer in {order.hours:g} hours, no fire ({window.name})"
    elif order.answer == "deadline":
        trail.section(f"{ended_words(game, order.hours or 0)}: the {window.name} window closes as no fire",
                      rule=DEADLINE_RULE)
        headline = f"{side}: no answer by the deadline, no fire ({window.name})"
    else:
        trail.section(f"{side} {what} at {_listed(window.units)} in {window.at} ({window.name})", rule=window.rule)
        headline = f"{side} {what} at {_listed(window.units)} ({window.name})"
    trail.note(f"{mover} go on", rule=RULE)
    game.reaction = None
    return Outcome(ruleset=ruleset.name, action="react", headline=headline, actor_side=window.side,
                   trail=trail.freeze())


class WindowFacts(BaseModel):
    """What a reply needs to offer the reaction's buttons (``facts``): the command prefilled, typed
    (``prefill``) and as the short form the Fire button opens (``form``)."""

    side: int
    number: int
    name: str
    rule: str
    command: str
    prefill: str
    title: str  # the form's title: the reaction and where (at most 45 characters)
    form: tuple[FormField, ...] = ()


def facts(game: Game, ruleset: Ruleset) -> WindowFacts | None:
    """The open window as the Fire button offers it: the command prefilled at the movers."""
    window = game.reaction
    reaction = declared(ruleset, window.name) if window is not None else None
    if window is None or reaction is None:
        return None
    target = window.at if reaction.target_is == "location" else " ".join(window.ids)
    command = ruleset.command(reaction.command)
    # the command's other required options, left for the player to fill ("firers:…")
    left = [f"{o.name}:…" for o in (command.options if command is not None else ())
            if o.required and o.name != reaction.target]
    prefill = " ".join([f"/{reaction.command} {reaction.target}:{target}", *left,
                        *([reaction.extras] if reaction.extras else [])])
    form = command_form(command, {reaction.target: target}, reaction.extras) if command is not None else ()
    title = f"{window.name} at {window.at}" if len(f"{window.name} at {window.at}") <= 45 else window.name[:45]
    return WindowFacts(side=window.side, number=window.number, name=window.name, rule=window.rule,
                       command=reaction.command, prefill=prefill, title=title, form=form)
