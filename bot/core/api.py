"""The one entry point of the rules core: ``resolve(game, order, dice) -> Resolution``.

Validation of the raw order (a dict from a slash command, the CLI or a replay), the working
copy of the game (or the working game of working.py, for a ruleset's ``working_actions``), and the
record of the dice all happen here, once, for every ruleset. If anything raises, the caller's game is
untouched: the copy is simply dropped.
"""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError

from .copying import tree_copy
from .working import finished_game, working_game
from .data import data_path
from .dice import DiceSource, Roller, ScriptedDice, SystemDice
from .errors import IllegalOrder, InvalidOrder, plain_validation
from .game import Game
from .outcome import Resolution, with_dice
from .acting import acting_sides
from .orders import PHASE_ACTIONS, PhaseOrder
from .ruleset import Ruleset
from .reactions import REACT, opening
from .windows import React, after_order, check_window, resolve_react
from .public_roll import PublicRoll, resolve_public_roll
from .deadlines import Extend, Pause, resolve_extend, resolve_pause
from .sequence import Done, check_turn, note_acted, refereed, resolve_done
from .rulesets import get_ruleset, rulesets
from .setup import BULK_ACTIONS, SETUP_ACTIONS, SetupOrder, given_order, resolve_setup

_SETUP_ADAPTER: TypeAdapter[Any] | None = None
# The orders every ruleset has: setting up the game, ending one's part of the turn, a public roll, and
# the game master's clock
GenericOrder = SetupOrder | Done | React | PublicRoll | Pause | Extend
_GENERIC_MODELS = {get_args(m.model_fields["action"].annotation)[0]: m for m in get_args(GenericOrder)}
GENERIC_ACTIONS = frozenset(_GENERIC_MODELS)
# the actions a refusal lists: the bulk set-up orders are the several-unit forms of unit_add, unit_move and
# unit_edit, given by the same /unit commands (and a refusal's words stay what they were before them)
# (and the answer to a reaction window: given with its buttons or /done, never typed as an order; and the
# game master's clock, given with /game pause, resume and deadline; and a substitute's seat, taken with the
# button of /game replace)
_LISTED_GENERIC = sorted(GENERIC_ACTIONS - BULK_ACTIONS - {REACT, "pause", "deadline_extend", "replace"})
# the orders that keep the game (set it up, move it on) rather than play it: no odds, no side's colour (a
# public roll is a side's, in its colour)
BOOKKEEPING_ACTIONS = (GENERIC_ACTIONS - {"roll"}) | PHASE_ACTIONS


def _setup_adapter() -> TypeAdapter[Any]:
    global _SETUP_ADAPTER  # a cache of a pure, immutable validator, not game state
    if _SETUP_ADAPTER is None:
        from typing import Annotated

        from pydantic import Field

        _SETUP_ADAPTER = TypeAdapter(Annotated[GenericOrder, Field(discriminator="action")])
    return _SETUP_ADAPTER


def _all_actions() -> frozenset[str]:
    """Every order's action tag, of every ruleset and the set-up orders."""
    return GENERIC_ACTIONS.union(*(r.actions() for r in rulesets()))


def validation_message(exc: ValidationError, model: Any = None) -> tuple[str, str]:
    """(message, field) for the first error, in words a player can act on (never pydantic's own)."""
    err = exc.errors()[0]
    loc = [str(p) for p in err.get("loc", ())]
    # drop the discriminator tag pydantic puts first in a tagged union's path
    if len(loc) > 1 and loc[0] in _all_actions():
        loc = loc[1:]
    field = ".".join(loc) or "order"
    if err.get("type") == "union_tag_invalid":
        return f"unknown action (actions: {', '.join(sorted(_all_actions()))})", "action"
    known: list[str] = []
    if err.get("type") == "extra_forbidden" and model is not None:
        known = [name for name in getattr(model, "model_fields", {}) if name != "action"]
    if err.get("type") == "extra_forbidden":
        listed = f" (options: {', '.join(known)})" if known else ""
        return f"'{field}' is not an option of this order{listed}", field
    return plain_validation(err, field, known), field


def order_model(ruleset_name: str, action: Any) -> type[BaseModel] | None:
    """The order model of ``action`` in a ruleset (a set-up order's too), or None when it has none."""
    if action in GENERIC_ACTIONS:
        return _GENERIC_MODELS[action]
    try:
        ruleset = get_ruleset(ruleset_name)
    except InvalidOrder:
        return None
    return next((m for m in get_args(ruleset.order_type)
                 if get_args(m.model_fields["action"].annotation) == (action,)), None)


def parse_order(ruleset_name: str, data: dict[str, Any] | BaseModel) -> BaseModel:
    ruleset = get_ruleset(ruleset_name)
    if isinstance(data, BaseModel):
        return data
    if not isinstance(data, dict):
        raise InvalidOrder("an order is a JSON object with an 'action'", field="order")
    action = data.get("action")
    if not isinstance(action, str):
        raise InvalidOrder(f"'action' is required (one of: {', '.join(ruleset.actions() + _LISTED_GENERIC)})",
                           field="action")
    adapter = _setup_adapter() if action in GENERIC_ACTIONS else ruleset.order_adapter
    if action not in GENERIC_ACTIONS and not ruleset.has_action(action):
        raise InvalidOrder(f"{ruleset.title} has no action '{action}' "
                           f"(actions: {', '.join(ruleset.actions() + _LISTED_GENERIC)})", field="action")
    try:
        # the adapter's schema validator itself: TypeAdapter.validate_python only forwards its
        # default arguments to it, on every order
        return adapter.validator.validate_python(data)
    except ValidationError as exc:
        message, field = validation_message(exc, order_model(ruleset_name, action))
        raise InvalidOrder(message, field=field) from None


def as_given(game: Game, order: dict[str, Any]) -> dict[str, Any]:
    """The checks of an order as a player gives it, which a replay of the log does not run again
    (``setup.given_order``: a unit field naming another unit or a company must name one in the
    game); the order to resolve and log, its names spelled as the game spells them."""
    return given_order(game, get_ruleset(game.ruleset), order)


def resolve(game: Game, order: dict[str, Any] | BaseModel, dice: DiceSource | None = None, *,
            in_place: bool = False) -> Resolution:
    """Resolve one order against a game. Returns the Outcome and the new game; raises a
    RulesError (InvalidOrder / IllegalOrder) and changes nothing when the order cannot stand.

    ``in_place``: resolve on ``game`` itself rather than on a copy (the new game is ``game``), for
    a replay that holds the only reference to its game and stops at the first refusal (a refused
    order may leave it half-changed): copying a 300-unit game was most of a replayed entry."""
    ruleset = get_ruleset(game.ruleset)
    parsed = parse_order(game.ruleset, order)
    source = dice if dice is not None else SystemDice()
    roller = Roller(source)
    check_phase(game, ruleset, parsed)
    action = getattr(parsed, "action", None)
    sides, reacting = _turn_check(game, ruleset, parsed, action)
    holder = game.to_act if ruleset.acted_before_hand_off(game) else None  # before: a replay resolves in place
    working = not in_place and action in ruleset.working_actions
    if working:  # the units made plain objects as the ruleset reads them (working.py)
        work = working_game(game, eager=action in ruleset.eager_actions)
    else:
        work = game if in_place else tree_copy(game)  # the deep copy, made knowing a Game's shape (copying.py)
    if action in SETUP_ACTIONS:
        outcome = resolve_setup(work, ruleset, parsed)
    elif isinstance(parsed, Done):
        outcome = resolve_done(work, ruleset, parsed, roller)
    elif isinstance(parsed, React):
        outcome = resolve_react(work, ruleset, parsed)
    elif isinstance(parsed, PublicRoll):  # any step, any side: not an action of the turn
        outcome = resolve_public_roll(work, parsed, roller)
    elif isinstance(parsed, Pause):
        outcome = resolve_pause(work, ruleset, parsed)
    elif isinstance(parsed, Extend):
        outcome = resolve_extend(work, ruleset, parsed)
    else:
        outcome = ruleset.resolve(work, parsed, roller)
        if sides and not reacting:
            note_acted(work, sides, holder)
    unused = tuple(source.remaining) if isinstance(source, ScriptedDice) else ()
    outcome = with_dice(outcome, tuple(roller.rolls) if roller.rolls else outcome.rolls,
                        roller.manual and bool(roller.rolls), unused)
    after = finished_game(work) if working else work
    if (game.reaction is not None or (ruleset.reactions and opening(ruleset, after, action) is not None)) \
            and action not in SETUP_ACTIONS and not isinstance(parsed, (React, PublicRoll, Pause, Extend)):
        outcome = after_order(game, after, ruleset, action, outcome, reacting)
    return Resolution(outcome=outcome, game=after)


def _turn_check(game: Game, ruleset: Ruleset, order: BaseModel, action: Any) -> tuple[dict[int, str], bool]:
    """Where the sequence of play is refereed, the sides an order of the ruleset acts for, each
    checked against the step (``sequence.check_turn``) and an open reaction window
    (``windows.check_window``: the moving side waits; the reacting side may react); ({}, False) for
    the orders every step allows. The flag: the order is the reacting side's reaction."""
    if not refereed(game) or action in SETUP_ACTIONS or isinstance(order, (PhaseOrder, React, PublicRoll, Pause, Extend)):
        return {}, False
    if isinstance(order, Done):
        check_window(game, ruleset, action, {}, ends_step=order.answer is None and order.side == game.to_act)
        return {}, False
    sides = acting_sides(game, type(order), order)
    reacting = check_window(game, ruleset, action, sides, ends_step=False)
    if not reacting:
        check_turn(game, ruleset, action, sides)
    return sides, reacting


def check_phase(game: Game, ruleset: Ruleset, order: BaseModel) -> None:
    """Refuse an order in a phase its model does not allow (``OrderBase.phases``), quoting the rule
    and naming the phases that allow it."""
    allowed = getattr(order, "phases", None)
    if allowed is None or game.phase in allowed.names:
        return
    names = [ruleset.phase_names.get(p, p) for p in allowed.names]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    raise IllegalOrder(f"{allowed.doing} only in the {listed}; this is the "
                       f"{ruleset.phase_names.get(game.phase, game.phase)} ({allowed.rule}): "
                       f"{_getting_to(game, ruleset, allowed.names)}", rule=allowed.rule)


def _getting_to(game: Game, ruleset: Ruleset, phases: tuple[str, ...]) -> str:
    """How the game gets to the next phase that allows an order: the command that moves it on."""
    order = list(ruleset.phases)
    at = order.index(game.phase) if game.phase in order else -1
    following = [order[(at + i) % len(order)] for i in range(1, len(order) + 1)]
    short = next((p for p in following if p in phases), phases[0])
    name = ruleset.phase_names.get(short, short)
    if refereed(game):
        return (f"the next {name} comes as each side ends its part with /done (the game master may jump "
                f"there with /game phase to:{short})")
    return f"/game phase to:{short} moves the game to the next {name}"


def new_game(ruleset_name: str, *, sides: list[str], scenario: str = "", variant: str | None = None,
             options: dict[str, Any] | None = None, gm: int | None = None, sequence: int | None = None) -> Game:
    return get_ruleset(ruleset_name).new_game(sides=sides, scenario=scenario, variant=variant,
                                             options=options, gm=gm, sequence=sequence)


class TablesUnreadable(RuntimeError):
    """A data file of a ruleset is missing or does not validate (see ``load_tables``)."""


def load_tables() -> None:
    """Read and validate every ruleset's data files now, once per process (they are cached).

    The bot calls this at start-up, so a table broken by an edit stops it there, with the folder
    named, instead of refusing the first order that needs the table in the middle of a game;
    and the first command of a session does not wait for the YAML to be parsed."""
    try:
        registered = rulesets()  # a ruleset may read a table as it is imported
    except Exception as exc:  # OSError, YAMLError, ValidationError: the message says which
        raise TablesUnreadable(f"the rules tables in {data_path()} cannot be used: "
                               f"{type(exc).__name__}: {exc}") from exc
    from .scenario import check_samples

    for ruleset in registered:
        try:
            ruleset.load_tables()
            check_samples(ruleset.name)  # its sample scenario files, set up once
        except Exception as exc:
            raise TablesUnreadable(f"the {ruleset.title} tables in {data_path(ruleset.name)} cannot be used: "
                                   f"{type(exc).__name__}: {exc}") from exc
