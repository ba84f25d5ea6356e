"""Orders every ruleset shares: setting up and correcting the game (no dice).

They go through the same path as rolling orders (``api.resolve``), so every change of state is
one logged order that a replay can apply again.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, ValidationError

from .errors import IllegalOrder, InvalidOrder, plain_validation
from .game import Game, Location
from .errors import RulesError
from .orders import ActingUnit, ActingUnits, OrderBase, Refers, refers
from .outcome import Outcome, UnitEffect
from .ruleset import Ruleset
from .trail import Trail

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,23}$"
_ID_RE = re.compile(ID_PATTERN)
MAX_UNITS = 400  # per game: a big ASL scenario has ~150 counters
MAX_LOCATIONS = 2000


# A new unit's id and its counter type name nothing in the game yet; its numbers are values
NewId = Annotated[str, Refers("nothing")]
CounterType = Annotated[str | None, Refers("nothing")]
Numbers = Annotated[dict[str, Any], Refers("nothing")]
Place = Annotated[str | None, Refers("location")]
NewUnitSide = Annotated[int, Refers("side", acting=True, label="the new unit")]


class _AddRules:
    """Who may put units into the game (one at a time or several at once)."""

    @classmethod
    def gm_only_in(cls, game: Any) -> str:
        return "add a unit once play has begun (ask the game master)" if game.sequence and game.started else ""

    @classmethod
    def refusal_for(cls, game: Any, user_id: int, game_master: bool, order: dict[str, Any]) -> str | None:
        if game.sequence is None or game_master:
            return None
        if order.get("type") is None:
            return "a unit with numbers of its own is the game master's: add a library counter (see /unit types)"
        custom = sorted(custom_numbers(game, order.get("stats") or {}))
        if custom:
            return (f"'{custom[0]}' changes the library counter's numbers: only the game master sets custom "
                    "numbers (the library's are used otherwise)")
        return None


class UnitAdd(_AddRules, OrderBase):
    """A unit put into the game. Where the sequence of play is refereed, players add their units
    during the set-up only (then the game master does), as library counters: numbers of their own
    are the game master's, within the ruleset's ranges, and the trail says they are custom."""

    action: Literal["unit_add"] = "unit_add"
    id: NewId = Field(pattern=ID_PATTERN)
    type: CounterType = None  # counter type from the library; None: custom, all stats given
    side: NewUnitSide = Field(ge=0, le=1)
    location: Place = Field(default=None, pattern=ID_PATTERN)
    stats: Numbers = Field(default_factory=dict)  # overrides of the library's numbers


MAX_BULK = 40  # units one bulk order names: as many as one option may name (bot.core.commands.MAX_IDS)
BulkIds = Annotated[list[Annotated[str, StringConstraints(pattern=ID_PATTERN)]], Refers("nothing")]


class UnitAddMany(_AddRules, OrderBase):
    """Several units of one counter type (or with the same numbers) put into the game at once, one
    after another with every check of a single /unit add: refused whole, naming the unit that fails."""

    action: Literal["unit_add_many"] = "unit_add_many"
    ids: BulkIds = Field(min_length=1, max_length=MAX_BULK)
    type: CounterType = None
    side: NewUnitSide = Field(ge=0, le=1)
    location: Place = Field(default=None, pattern=ID_PATTERN)
    stats: Numbers = Field(default_factory=dict)


class UnitEdit(OrderBase):
    gm_only = "edit a unit"

    action: Literal["unit_edit"] = "unit_edit"
    unit: ActingUnit
    changes: Numbers = Field(min_length=1)  # field -> new value (a GM's correction)
    corrects: int | None = Field(default=None, ge=2)  # the log entry it corrects (the service checks it exists)


class _MoveRules:
    @classmethod
    def gm_only_in(cls, game: Any) -> str:
        # where the sequence of play is refereed, units move with the ruleset's own move order (in the
        # steps that allow it, marking them as the rules need); placing one corrects the game
        refereed = game.step is not None  # the sequence of play is (bot/core/sequence.py)
        return "place a unit (players move theirs with /move, in the steps that allow it)" if refereed else ""


class UnitMove(_MoveRules, OrderBase):
    action: Literal["unit_move"] = "unit_move"
    unit: ActingUnit
    location: Place = Field(default=None, pattern=ID_PATTERN)  # None: off board


class UnitMoveMany(_MoveRules, OrderBase):
    """Several units (a whole stack) moved to one place at once, each as /unit move moves it."""

    action: Literal["unit_move_many"] = "unit_move_many"
    units: ActingUnits = Field(min_length=1, max_length=MAX_BULK)
    location: Place = Field(default=None, pattern=ID_PATTERN)  # None: off board


class UnitEditMany(OrderBase):
    """The same correction made to several units (a whole stack) at once."""

    gm_only = "edit a unit"

    action: Literal["unit_edit_many"] = "unit_edit_many"
    units: ActingUnits = Field(min_length=1, max_length=MAX_BULK)
    changes: Numbers = Field(min_length=1)
    corrects: int | None = Field(default=None, ge=2)  # the log entry it corrects


class UnitRemove(OrderBase):
    gm_only = "remove a unit"

    action: Literal["unit_remove"] = "unit_remove"
    unit: ActingUnit


class LocationSet(OrderBase):
    gm_only = "set a location's terrain"

    action: Literal["location_set"] = "location_set"
    location: Annotated[str, Refers("location")] = Field(pattern=ID_PATTERN)
    terrain: Annotated[str, Refers("nothing")]  # a key of the ruleset's terrain chart
    features: Annotated[list[str], Refers("nothing")] = Field(default_factory=list)


class Join(OrderBase):
    """A player takes a seat. Where the sequence of play is refereed, a seat needs both consents: the
    player's own (they give the order, accepting an invitation) and the game master's (an invitation,
    ``approved_by``, or the approval of the player's request, ``requested``), unless the game lets
    players sit down themselves (option ``open_seating``)."""

    for_user = "player"

    action: Literal["join"] = "join"
    side: Annotated[int, Refers("side")] = Field(ge=0, le=1)  # the permission check asks who joins, not which side
    player: int = Field(gt=0)
    approved_by: int | None = None  # the game master who invited the player
    requested: bool = False  # the player asked for the seat; the game master gives this order, approving it

    @classmethod
    def refusal_for(cls, game: Any, user_id: int, game_master: bool, order: dict[str, Any]) -> str | None:
        player = order.get("player")
        if game.sequence is None:  # a game logged before seats needed consent: as it always did
            return None if game_master or user_id == player else \
                "you may join a side only for yourself; the game master seats other players"
        if user_id == player:
            if game_master or game.options.get("open_seating") is True or order.get("approved_by"):
                return None
            return ("seats are given by the game master: /game join sends your request, which the game master "
                    "approves (the game option open_seating=yes lets players sit down themselves)")
        if game_master and order.get("requested"):
            return None
        if game_master:
            return "seating another player needs their acceptance: /game join player: sends them an invitation"
        return "you may join a side only for yourself"


class Leave(OrderBase):
    """A player gives up their seat; the game master may unseat anyone (/game kick)."""

    for_user = "player"

    action: Literal["leave"] = "leave"
    player: int = Field(gt=0)


class Replace(OrderBase):
    """A substitute takes a player's seat (``/game replace``): with both consents, the game master's
    (who invited the substitute, ``approved_by``) and the substitute's own (who gives the order,
    accepting). The old player's place on his side goes to the new one, as it was."""

    for_user = "player"

    action: Literal["replace"] = "replace"
    player: int = Field(gt=0)  # the substitute, who takes the seat
    old: int = Field(gt=0)  # the player whose seat it was
    approved_by: int = Field(gt=0)  # the game master who invited the substitute

    @classmethod
    def refusal_for(cls, game: Any, user_id: int, game_master: bool, order: dict[str, Any]) -> str | None:
        if user_id == order.get("player"):
            return None
        return ("a substitute takes a seat with their own consent: /game replace sends them the invitation, "
                "which they accept")


class OptionsSet(OrderBase):
    """The game master changes game options (bot/core/options.py checks each against the catalogue);
    a value of None (typed ``default``) restores the option's default."""

    gm_only = "change the game's options"

    action: Literal["options_set"] = "options_set"
    changes: Numbers = Field(min_length=1, max_length=40)


SetupOrder = (UnitAdd | UnitEdit | UnitMove | UnitRemove | LocationSet | Join | Leave | UnitAddMany | UnitMoveMany
              | UnitEditMany | OptionsSet | Replace)
BULK_ACTIONS = frozenset({"unit_add_many", "unit_move_many", "unit_edit_many"})
SETUP_ACTIONS = {"unit_add", "unit_edit", "unit_move", "unit_remove", "location_set", "join", "leave", "options_set",
                 "replace", *BULK_ACTIONS}
PROTECTED_FIELDS = {"id", "system", "side"}  # edit cannot change identity or allegiance


def custom_numbers(game: Game, stats: dict[str, Any]) -> dict[str, Any]:
    """The stats of a unit_add that change the counter (not the name, nor where and how it is placed)."""
    from .rulesets import get_ruleset

    placement = set(get_ruleset(game.ruleset).setup_fields) | {"name"}
    return {key: value for key, value in stats.items() if key not in placement}


def check_ranges(ruleset: Ruleset, values: dict[str, Any], field: str) -> None:
    """Numbers a counter of the ruleset can carry (``Ruleset.stat_ranges``): a fp of 99999 is no unit."""
    for key, value in values.items():
        bounds = ruleset.stat_ranges.get(key)
        numbers = list(value.values()) if isinstance(value, dict) else [value]
        if bounds is None or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            continue
        low, high = bounds
        bad = [n for n in numbers if not low <= n <= high]
        if bad:
            raise InvalidOrder(f"{field}: {key} {bad[0]} is outside what a counter carries in {ruleset.title} "
                               f"({low} to {high})", field=field)


def _outcome(ruleset: Ruleset, action: str, headline: str, trail: Trail,
             effects: list[UnitEffect], side: int | None = None) -> Outcome:
    return Outcome(ruleset=ruleset.name, action=action, headline=headline, actor_side=side,
                   trail=trail.freeze(), effects=tuple(effects))


def ensure_location(game: Game, ruleset: Ruleset, location_id: str | None, trail: Trail) -> str | None:
    if location_id is None:
        return None
    existing = next((k for k in game.locations if k.casefold() == location_id.casefold()), None)
    if existing:
        return existing
    if len(game.locations) >= MAX_LOCATIONS:
        raise IllegalOrder(f"this game already has {MAX_LOCATIONS} locations, the most one game may have")
    game.locations[location_id] = ruleset.new_location(location_id, ruleset.default_terrain())
    trail.note(f"New location {location_id}: {ruleset.default_terrain()} (set it with /location set)")
    return location_id


def bulk_ids(text: str, count: int | None) -> list[str]:
    """The ids of a bulk /unit add: 'A1 A2 A3' as given, or with ``count`` the prefix numbered
    ('A' and 3: A1, A2, A3)."""
    ids = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    if count is None:
        bad = next((i for i in ids if not _ID_RE.match(i)), None) if len(ids) > 1 else None
        if bad is not None:
            raise InvalidOrder(f"'{bad}' is not a unit id (letters, digits, dots, dashes, underscores; up to 24)",
                               field="id")
        if len(ids) > MAX_BULK:
            raise InvalidOrder(f"'id' names {len(ids)} units; {MAX_BULK} is the most one order adds", field="id")
        return ids
    if len(ids) != 1:
        raise InvalidOrder("with count, give one id to number (A gives A1, A2, ...)", field="id")
    if not 1 <= count <= MAX_BULK:
        raise InvalidOrder(f"count is 1 to {MAX_BULK}", field="count")
    return [f"{ids[0]}{n}" for n in range(1, count + 1)]


def _each(game: Game, ruleset: Ruleset, orders: list[tuple[str, OrderBase]]) -> list[Outcome]:
    """Resolve ``orders`` one after another on ``game`` (a working copy: a refusal discards it
    whole), each refusal naming the unit it was for."""
    seen: set[str] = set()
    outcomes = []
    for unit_id, order in orders:
        if unit_id.casefold() in seen:
            raise InvalidOrder(f"{unit_id} is named twice", field="units")
        seen.add(unit_id.casefold())
        try:
            outcomes.append(resolve_setup(game, ruleset, order))
        except RulesError as exc:
            raise type(exc)(f"{unit_id}: {exc.message} (nothing was done: the units go together or "
                            "not at all)", rule=exc.rule, field=exc.field) from None
    return outcomes


def _together(ruleset: Ruleset, action: str, headline: str, outcomes: list[Outcome]) -> Outcome:
    sides = {o.actor_side for o in outcomes}
    return Outcome(ruleset=ruleset.name, action=action, headline=headline,
                   actor_side=sides.pop() if len(sides) == 1 else None,
                   trail=tuple(step for o in outcomes for step in o.trail),
                   effects=tuple(effect for o in outcomes for effect in o.effects))


def _resolve_bulk(game: Game, ruleset: Ruleset, order: OrderBase) -> Outcome:
    if isinstance(order, UnitAddMany):
        outcomes = _each(game, ruleset, [(uid, UnitAdd(id=uid, type=order.type, side=order.side,
                                                       location=order.location, stats=order.stats))
                                         for uid in order.ids])
        where = f" in {order.location}" if order.location else " off board"
        return _together(ruleset, order.action, f"{len(outcomes)} units join {game.side_name(order.side)}{where}: "
                         f"{', '.join(order.ids)}", outcomes)
    if isinstance(order, UnitMoveMany):
        outcomes = _each(game, ruleset, [(uid, UnitMove(unit=uid, location=order.location)) for uid in order.units])
        return _together(ruleset, order.action, f"{len(outcomes)} units to {order.location or 'off board'}: "
                         f"{', '.join(game.unit(uid).id for uid in order.units)}", outcomes)
    assert isinstance(order, UnitEditMany)
    outcomes = _each(game, ruleset, [(uid, UnitEdit(unit=uid, changes=order.changes,
                                                    corrects=order.corrects if i == 0 else None))
                                     for i, uid in enumerate(order.units)])  # the correction noted once
    return _together(ruleset, order.action, f"{len(outcomes)} units corrected: "
                     f"{', '.join(game.unit(uid).id for uid in order.units)}", outcomes)


def resolve_setup(game: Game, ruleset: Ruleset, order: OrderBase) -> Outcome:
    if isinstance(order, (UnitAddMany, UnitMoveMany, UnitEditMany)):
        return _resolve_bulk(game, ruleset, order)
    trail = Trail()
    if isinstance(order, UnitAdd):
        if game.find_unit(order.id) is not None:
            raise IllegalOrder(f"there is already a unit '{order.id}' in this game")
        if game.sequence is not None:  # every unit ever added counts (an eliminated one too)
            if game.units_added >= MAX_UNITS:
                raise IllegalOrder(f"this game has had {MAX_UNITS} units (eliminated and removed ones count), "
                                   "the most one game may have")
            check_ranges(ruleset, order.stats, "stats")
        elif len([u for u in game.units.values() if not u.eliminated]) >= MAX_UNITS:
            raise IllegalOrder(f"this game already has {MAX_UNITS} units, the most one game may have")
        location = ensure_location(game, ruleset, order.location, trail)
        try:
            unit = ruleset.make_unit(order.type, id=order.id, side=order.side, location=location,
                                     stats=order.stats)
        except ValidationError as exc:
            message = _validation_message(exc, "stats", ruleset, ruleset.unit_model())
            raise InvalidOrder(message, field="stats") from None
        if game.sequence is not None:
            refusal = ruleset.stacking_refusal(game, [unit], location) if not game.started else None
            if refusal:
                raise IllegalOrder(refusal)
            game.units_added += 1
        game.units[unit.id] = unit
        trail.put("effect", f"{unit.label} added for {game.side_name(unit.side)}"
                  + (f" in {location}" if location else " off board"), unit=unit.id)
        custom = custom_numbers(game, order.stats) if game.sequence is not None and order.type else {}
        if custom:
            trail.note(f"Set by the game master, not the library counter's: "
                       f"{', '.join(f'{k} {v}' for k, v in custom.items())}", unit=unit.id)
        effect = UnitEffect(unit=unit.id, name=unit.name, side=unit.side, after="in play", effects=("added",))
        return _outcome(ruleset, order.action, f"{unit.label} joins {game.side_name(unit.side)}",
                        trail, [effect], unit.side)
    if isinstance(order, UnitEdit):
        unit = game.unit(order.unit)
        bad = PROTECTED_FIELDS & set(order.changes)
        if bad:
            raise InvalidOrder(f"'{sorted(bad)[0]}' of a unit cannot be edited", field="changes")
        unknown = set(order.changes) - set(type(unit).model_fields)
        if unknown:
            raise InvalidOrder(f"units of {ruleset.title} have no field '{sorted(unknown)[0]}'", field="changes")
        if game.sequence is not None:
            check_ranges(ruleset, order.changes, "changes")
        data = unit.model_dump()
        data.update(order.changes)
        try:
            new = type(unit).model_validate(data)
        except ValidationError as exc:
            raise InvalidOrder(_validation_message(exc, "changes", ruleset, type(unit)), field="changes") from None
        game.units[unit.id] = new
        if order.corrects is not None:
            trail.note(f"The game master's correction of entry #{order.corrects}: that entry and its dice stay in "
                       "the log as they were")
        for key, value in order.changes.items():
            trail.put("effect", f"{unit.label}: {key} {getattr(unit, key)!r} -> {value!r}", unit=unit.id)
        return _outcome(ruleset, order.action, f"{unit.label} corrected", trail,
                        [UnitEffect(unit=unit.id, name=new.name, side=new.side, effects=("edited",))], unit.side)
    if isinstance(order, UnitMove):
        unit = game.unit(order.unit)
        if unit.eliminated:
            raise IllegalOrder(f"{unit.label} is eliminated and cannot move")
        location = ensure_location(game, ruleset, order.location, trail)
        if game.sequence is not None and not game.started:  # the set-up
            refusal = ruleset.stacking_refusal(game, [unit], location)
            if refusal:
                raise IllegalOrder(refusal)
        before = unit.location
        unit.location = location
        # a support weapon moves with the unit carrying it
        for other in game.units.values():
            if other.holder_id == unit.id:
                other.location = location
        trail.put("effect", f"{unit.label}: {before or 'off board'} -> {location or 'off board'}", unit=unit.id)
        return _outcome(ruleset, order.action, f"{unit.label} to {location or 'off board'}", trail,
                        [UnitEffect(unit=unit.id, name=unit.name, side=unit.side, before=before or "",
                                    after=location or "", effects=("moved",))], unit.side)
    if isinstance(order, UnitRemove):
        unit = game.unit(order.unit)
        del game.units[unit.id]
        for other in game.units.values():
            if other.holder_id == unit.id:
                setattr(other, other.holder_field, None)  # left unpossessed where it was
        trail.put("effect", f"{unit.label} removed from the game", unit=unit.id)
        return _outcome(ruleset, order.action, f"{unit.label} removed", trail,
                        [UnitEffect(unit=unit.id, name=unit.name, side=unit.side, effects=("removed",))], unit.side)
    if isinstance(order, LocationSet):
        terrain = order.terrain.casefold()
        terrains = ruleset.terrains()
        if terrains and terrain not in terrains:
            raise InvalidOrder(f"unknown terrain '{order.terrain}' in {ruleset.title} "
                               f"(terrains: {', '.join(sorted(terrains))})", field="terrain")
        location = ensure_location(game, ruleset, order.location, Trail()) or order.location
        loc = game.locations[location]
        loc.terrain = terrain
        loc.features = list(order.features)
        trail.put("effect", f"{location}: {terrain}" + (f" ({', '.join(order.features)})" if order.features else ""))
        return _outcome(ruleset, order.action, f"{location} is {terrain}", trail, [])
    if isinstance(order, Join):
        for i, side in enumerate(game.sides):
            if order.player in side.players and i != order.side:
                raise IllegalOrder(f"you already play {side.name}")
        side = game.sides[order.side]
        if order.player not in side.players:
            side.players.append(order.player)
        trail.put("effect", f"<@{order.player}> plays {side.name}")
        if order.approved_by is not None:
            trail.note(f"Invited by <@{order.approved_by}>, the game master; accepted by the player")
        elif order.requested:
            trail.note("Asked for by the player; approved by the game master")
        return _outcome(ruleset, order.action, f"A player joins {side.name}", trail, [], order.side)
    if isinstance(order, Leave):
        seats = [i for i, side in enumerate(game.sides) if order.player in side.players]
        if not seats:
            raise IllegalOrder(f"<@{order.player}> has no seat in this game")
        for i in seats:
            game.sides[i].players.remove(order.player)
            trail.put("effect", f"<@{order.player}> no longer plays {game.sides[i].name}")
        return _outcome(ruleset, order.action, f"A player leaves {game.side_name(seats[0])}", trail, [], seats[0])
    if isinstance(order, OptionsSet):
        return _set_options(game, ruleset, order, trail)
    if isinstance(order, Replace):
        return _replace(game, ruleset, order, trail)
    raise InvalidOrder(f"unknown set-up action '{getattr(order, 'action', '?')}'", field="action")


def _replace(game: Game, ruleset: Ruleset, order: Replace, trail: Trail) -> Outcome:
    seats = [i for i, side in enumerate(game.sides) if order.old in side.players]
    if not seats:
        raise IllegalOrder(f"<@{order.old}> has no seat in this game any more: nothing to take over")
    if any(order.player in side.players for side in game.sides):
        raise IllegalOrder(f"<@{order.player}> already plays in this game")
    for i in seats:
        players = game.sides[i].players
        players[players.index(order.old)] = order.player
        trail.put("effect", f"<@{order.player}> takes <@{order.old}>'s seat on {game.sides[i].name} (a substitute)")
    if order.old in game.asked_of:  # a request to end the step the old player could answer: the new one answers it
        game.asked_of = [order.player if p == order.old else p for p in game.asked_of]
    trail.note(f"Invited by <@{order.approved_by}>, the game master; accepted by the substitute")
    return _outcome(ruleset, order.action, f"A substitute takes a seat on {game.side_name(seats[0])}", trail, [],
                    seats[0])


def _set_options(game: Game, ruleset: Ruleset, order: OptionsSet, trail: Trail) -> Outcome:
    from .options import catalogue, check_options, current

    checked = check_options(ruleset, order.changes, game.variant)
    declared = {o.name: o for o in catalogue(ruleset)}
    for name in sorted(checked):  # the log keeps the order's keys sorted: a replay meets them so
        option, value = declared[name], checked[name]
        before = current(game, option)
        if value is None:
            game.options.pop(name, None)
        else:
            game.options[name] = value
        trail.put("effect", f"{name}: {option.shown(before)} -> {option.shown(current(game, option))}")
    return _outcome(ruleset, order.action, f"Game options changed: {', '.join(sorted(checked))}", trail, [])


# --- the references of a unit to others, checked as the order is given -----------------------------

TIED = ("unit", "weapon")  # a unit field naming another unit ties it there: it is where that unit is


def unit_references(model: Any) -> tuple[tuple[str, Refers], ...]:
    """(field, declaration) of the fields of a unit model naming another unit (a weapon's holder)
    or a company, declared ``Refers`` on the model as orders declare theirs."""
    found = _UNIT_REFS.get(model)
    if found is None:
        found = _UNIT_REFS[model] = tuple(
            (name, ref) for name in getattr(model, "model_fields", {})
            if (ref := refers(model, name)) is not None and ref.to in (*TIED, "company"))
    return found


_UNIT_REFS: dict[Any, tuple[tuple[str, Refers], ...]] = {}


def given_order(game: Game, ruleset: Ruleset, order: dict[str, Any]) -> dict[str, Any]:
    """A set-up order as it is given (the service runs this before resolving it; a replay does not:
    the log holds the order this returns). A unit field naming another unit or a company (declared
    ``Refers`` on the unit model: an ASL weapon's holder, a Command Decision stand's company) must
    name one in the game when it is given, not when a later order trips on it ("no unit 'A9'"):
    a unit of the same side, in play, not the unit itself, not tied to another in turn; a company of
    the same side, or a new one. The order comes back with the names as the game spells them, and
    a unit tied to another placed where that one is."""
    action = order.get("action")
    if action in ("unit_add", "unit_add_many") and isinstance(order.get("stats"), dict):
        model = ruleset.unit_model()
        side = order.get("side")
        if not isinstance(side, int) or isinstance(side, bool) or not 0 <= side < len(game.sides):
            return order  # the resolution refuses the side itself
        ids = [order.get("id")] if action == "unit_add" else list(order.get("ids") or [])
        stats, tied_to = _references(game, model, dict(order["stats"]), side=side,
                                     selves={str(i).casefold() for i in ids}, field="stats")
        order = order | {"stats": stats}
        if tied_to is not None:
            given = order.get("location")
            if given is None:
                order["location"] = tied_to.location
            elif tied_to.location is None or str(given).casefold() != tied_to.location.casefold():
                name, ref = next((n, r) for n, r in unit_references(model) if r.to in TIED and stats.get(n))
                raise IllegalOrder(f"location: {', '.join(map(str, ids))} goes where {tied_to.id}, "
                                   f"{ref.label or 'the unit it names'}, is ({tied_to.location or 'off board'}): "
                                   "leave location out")
        return order
    if action in ("unit_edit", "unit_edit_many") and isinstance(order.get("changes"), dict):
        names = [order.get("unit")] if action == "unit_edit" else list(order.get("units") or [])
        units = [game.find_unit(str(n)) for n in names]
        if not units or any(u is None for u in units):
            return order  # the resolution names the unit that is not there
        changes = dict(order["changes"])
        for unit in units:
            changes, tied_to = _references(game, type(unit), changes, side=unit.side,
                                           selves={u.id.casefold() for u in units}, field="changes", unit=unit)
            if tied_to is not None and "location" not in changes and unit.location != tied_to.location:
                changes["location"] = tied_to.location
        return order | {"changes": changes}
    return order


def _references(game: Game, model: Any, values: dict[str, Any], *, side: int, selves: set[str], field: str,
                unit: Any = None) -> tuple[dict[str, Any], Any]:
    """``values`` with each reference checked and spelled as the game does; the unit it ties to, if any."""
    tied_to = None
    for name, ref in unit_references(model):
        value = values.get(name)
        if value is None or value == "" or isinstance(value, bool):
            continue  # none, or no name at all: the unit model refuses what is not text
        text = str(value)
        if ref.to in TIED:
            other = _tying(game, ref, name, text, side=side, selves=selves, field=field, unit=unit)
            values[name], tied_to = other.id, other
        else:
            values[name] = _company(game, ref, name, text, side=side, selves=selves, field=field)
    return values, tied_to


def _tying(game: Game, ref: Refers, name: str, text: str, *, side: int, selves: set[str], field: str,
           unit: Any) -> Any:
    what = ref.label or "the unit it names"
    if text.casefold() in selves:
        raise IllegalOrder(f"{field}: {name}={text[:30]}: that is the unit itself")
    other = game.find_unit(text)
    if other is None:
        mine = [u.id for u in game.units.values() if u.side == side and not u.eliminated]
        shown = ", ".join(mine[:12]) + (f" and {len(mine) - 12} more" if len(mine) > 12 else "")
        raise InvalidOrder(f"{field}: {name}={text[:30]} names {what}, but there is no unit '{text[:30]}' in this "
                           f"game (units of {game.side_name(side)}: {shown or 'none yet'}); add it first",
                           field=field)
    if other.id.casefold() in selves:
        raise IllegalOrder(f"{field}: {name}={other.id}: that is the unit itself")
    if other.side != side:
        raise IllegalOrder(f"{field}: {name}={other.id} names {what}, but {other.label} fights for "
                           f"{game.side_name(other.side)}, not {game.side_name(side)}")
    if other.eliminated:
        raise IllegalOrder(f"{field}: {name}={other.id} names {what}, but {other.label} is eliminated")
    own = next((f"{n} {getattr(other, n)}" for n, r in unit_references(type(other))
                if r.to in TIED and getattr(other, n, None)), None)
    if own is not None:
        raise IllegalOrder(f"{field}: {name}={other.id}: {other.label} has {own} itself, so it cannot be {what}")
    if unit is not None:
        tied = next(((u, n) for u in game.units.values() for n, r in unit_references(type(u))
                     if r.to in TIED and getattr(u, n, None) == unit.id), None)
        if tied is not None:
            raise IllegalOrder(f"{field}: {name}={other.id}: {tied[0].label} has {tied[1]} {unit.id}, so "
                               f"{unit.label} cannot be tied to another unit in turn")
    return other


def _company(game: Game, ref: Refers, name: str, text: str, *, side: int, selves: set[str], field: str) -> str:
    folded = text.strip().casefold()
    same = [u for u in game.units.values() if u.id.casefold() not in selves
            and str(getattr(u, name, "") or "").casefold() == folded]
    if not same:
        return text.strip()  # a new one: its first unit names it
    spelled = str(getattr(same[0], name))
    if all(u.side != side for u in same):
        theirs = game.side_name(same[0].side)
        mine = sorted({str(getattr(u, name)) for u in game.units.values() if u.side == side and getattr(u, name, "")})
        raise IllegalOrder(f"{field}: {name}={text[:30]}: {ref.to} {spelled} belongs to {theirs}; a unit of "
                           f"{game.side_name(side)} joins one of its own ({', '.join(mine) or 'none yet'}) "
                           "or a new one")
    return spelled


def _validation_message(exc: ValidationError, field: str, ruleset: Ruleset, model: Any) -> str:
    """A unit's numbers refused, in players' words: the field, what it takes, and for an unknown
    name the nearest field and the ones players set most (the counter's numbers, its markers)."""
    import difflib

    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__") or field
    if err.get("type") != "extra_forbidden":
        return f"{field}: {plain_validation(err, where)}"
    fields = [name for name in getattr(model, "model_fields", {}) if name not in PROTECTED_FIELDS | {"system"}]
    close = difflib.get_close_matches(where, fields, n=1, cutoff=0.6)
    common = ["name", "kind", *(k for k, _ in ruleset.counter_fields), *ruleset.setup_fields,
              *(k for k, _ in ruleset.status_flags)]
    common = [k for k in dict.fromkeys(common) if k in fields]
    hint = f"did you mean {close[0]}? " if close else ""
    return (f"{field}: {ruleset.short_name} units have no '{where}' ({hint}they have {', '.join(common)} "
            f"and {len(fields) - len(common)} more)")
