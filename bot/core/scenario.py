"""A scenario as data: the whole set-up of a game (issue 16), and the game it makes.

``Scenario`` is the model of a scenario file (``bot/scenario.py`` reads and writes the YAML, with
line numbers; ``docs/scenario.schema.json`` is generated from this model). ``build_game`` makes the
game a scenario describes, with the same guards as the set-up commands (library counters, the
ruleset's terrain chart and counter ranges, the stacking limit at the set-up, the unit cap), and
refuses with ``ScenarioRefused``, which names the path of the field at fault (so the file's reader
can name its line). ``scenario_of`` writes a game back as a scenario: ``build_game(scenario_of(g))``
is ``g`` again (seats and the log aside). Pure: no I/O.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import RulesError, plain_validation
from .game import BoardPlacement, Game, Location
from .grid import GRID_MARK
from .setup import ID_PATTERN, MAX_LOCATIONS, MAX_UNITS, check_ranges

Scalar = int | float | bool | str
Value = Annotated[Scalar | None | list[str] | dict[str, int],
                  Field(description="a number, a word, a list of words, or numbers by range band")]
IDENTITY = ("id", "system", "side", "type", "location")  # set by the file's own fields, not stats


def _identity(model: Any) -> tuple[str, ...]:
    """The unit fields a scenario file sets by its own fields: IDENTITY, and the holder (``held_by``)."""
    return IDENTITY if model.holder_field is None else (*IDENTITY, model.holder_field)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScenarioUnit(_Strict):
    """One counter: a library type (``/unit types``), or numbers of its own in ``stats``."""

    id: str = Field(pattern=ID_PATTERN, description="The unit's id, what players type (A1, 467b)")
    type: str | None = Field(default=None, max_length=40,
                             description="The counter type from the ruleset's library; left out: a custom unit "
                                         "whose numbers are all in stats")
    name: str | None = Field(default=None, min_length=1, max_length=60,
                             description="The name players read (the counter's name if left out)")
    location: str | None = Field(default=None, pattern=ID_PATTERN,
                                 description="A Location of this file's locations; left out: off board (or "
                                             "where its holder is)")
    held_by: str | None = Field(default=None, pattern=ID_PATTERN,
                                description="The unit of the same side that possesses this support weapon")
    markers: list[str] = Field(default_factory=list, max_length=20,
                               description="The unit's markers and flags that are on: broken, pinned, dm, cx, ...")
    stats: dict[str, Value] = Field(default_factory=dict,
                                     description="Fields that differ from the library counter (numbers, a fire "
                                                 "marker, a company); a custom unit's numbers")


HIDDEN_MAX = 1500  # characters: a sealed order's most (bot/record/sealing.py SEALED_MAX)


class ScenarioHidden(_Strict):
    """A side's hidden part: sealed for that side when the file is loaded, as /seal would (the channel
    sees the commitment, never the text), and opened with /reveal."""

    text: str = Field(min_length=1, max_length=HIDDEN_MAX,
                      description="What the side keeps hidden until /reveal: a hidden set-up (units and where "
                                  "they stand, placed with /unit add once revealed), a pre-registered fire "
                                  "mission's target, victory conditions of its own")


class ScenarioSide(_Strict):
    name: str = Field(min_length=1, max_length=60, description="The side's name, e.g. Germans")
    nationality: str | None = Field(default=None, max_length=40, description="e.g. german, russian")
    options: dict[str, Scalar] = Field(default_factory=dict,
                                       description="The scenario's numbers for this side, as its ruleset names "
                                                   "them (an experience level, SAN, quality ratings, ...)")
    units: list[ScenarioUnit] = Field(default_factory=list, max_length=MAX_UNITS,
                                      description="The side's units, in the order they are set up")
    hidden: ScenarioHidden | None = Field(default=None, description="What this side keeps hidden: sealed when the "
                                          "file is loaded, opened with /reveal; never in the channel, the log or "
                                          "an export before that")


class ScenarioLocation(_Strict):
    # besides these, the markers the ruleset's Locations carry (``Ruleset.location_fields``: residual_fp,
    # smoke), checked by the ruleset's own model as the scenario is set up
    model_config = ConfigDict(extra="allow", json_schema_extra={
        "description": "A Location: its id, terrain and features, and the markers its ruleset gives Locations "
                       "(docs/scenarios.md lists them)"})

    id: str = Field(pattern=ID_PATTERN, description="The hex or area id, e.g. B5 or hedge-1")
    terrain: str | None = Field(default=None, max_length=40,
                                description="A terrain of the ruleset's chart (its default if left out)")
    features: list[str] = Field(default_factory=list, max_length=20, description="e.g. hill, foxhole")


class ScenarioBoard(_Strict):
    """One board of a map of several (ASL geomorphic boards): its hexes are then named with its id first."""

    id: str = Field(pattern=r"^[A-Za-z0-9]{1,6}$", description="The board's id as printed on it, e.g. 32; its hexes "
                                                               "are then named 32C5")
    x: int = Field(default=0, ge=0, le=8, description="Its place from the left: 0 for the leftmost board, 1 for the "
                                                      "board to its right (sharing the column GG = A)")
    y: int = Field(default=0, ge=0, le=8, description="Its place from the top: 0 for the top board, 1 for the board "
                                                      "under it (sharing the half-hex row)")
    reversed: bool = Field(default=False, description="The board is turned upside down (its A1 at the bottom "
                                                      "right)")


class Scenario(_Strict):
    """A scenario file: a whole game set-up in one document."""

    model_config = ConfigDict(extra="forbid", title="Referee scenario file")

    ruleset: str = Field(description="The rules system: a registered ruleset's name, as /game new offers it (a "
                                     "plug-in's included)")
    variant: str | None = Field(default=None, description="The ruleset's rules variant, where it has several "
                                                          "(/game new's choices); left out: its first")
    title: str = Field(default="", max_length=100, description="The scenario's name, shown on every result")
    turns: int | None = Field(default=None, ge=1, le=100, description="The scenario's length in game turns")
    options: dict[str, Scalar] = Field(default_factory=dict, description="Game options, as /game new's key=value")
    boards: list[ScenarioBoard] = Field(default_factory=list, max_length=16,
                                        description="The geomorphic boards the map is laid out of (left out: "
                                                    "one board, its hexes named C5); with boards, hexes are named "
                                                    "with their board, 32C5")
    locations: list[ScenarioLocation] = Field(default_factory=list, max_length=MAX_LOCATIONS,
                                              description="Every Location in play, with its terrain")
    sides: list[ScenarioSide] = Field(min_length=2, max_length=2, description="The two sides, first to move first")


def public_setup(scenario: Scenario) -> dict[str, Any]:
    """The scenario as the log keeps it: plain data, defaults left out, and without the sides' hidden
    parts (those are sealed in entries of their own, bot/service/games.py ``new_game``)."""
    return scenario.model_dump(mode="json", exclude_defaults=True, exclude={"sides": {"__all__": {"hidden"}}})


def hidden_parts(scenario: Scenario) -> dict[int, str]:
    """The sides' hidden texts, by side index (sides without one left out)."""
    return {i: side.hidden.text for i, side in enumerate(scenario.sides) if side.hidden is not None}


class ScenarioRefused(RulesError):
    """A scenario that cannot be set up; ``path`` is where in the file (the model's field path)."""

    def __init__(self, path: tuple[str | int, ...], message: str):
        super().__init__(message, field=".".join(str(p) for p in path))
        self.path = path


def _refuse(path: tuple[str | int, ...], error: Exception) -> ScenarioRefused:
    return ScenarioRefused(path, getattr(error, "message", None) or str(error))


def build_game(scenario: Scenario, *, gm: int | None = None, sequence: int | None = None) -> Game:
    """The game ``scenario`` sets up, at its first phase; refused whole (``ScenarioRefused``)."""
    from .rulesets import get_ruleset, rulesets

    try:
        ruleset = get_ruleset(scenario.ruleset)
    except RulesError as exc:
        raise _refuse(("ruleset",), exc) from None
    side_options = {o.name: o for o in ruleset.side_options}
    foreign = {o.name: r for r in rulesets() if r.name != ruleset.name for o in r.side_options}
    options: dict[str, Any] = dict(scenario.options)
    for key in options:
        if key in side_options or key in foreign:
            raise ScenarioRefused(("options", key), f"'{key}' is given per side, in the side's options")
    from .options import check_options

    for key, value in options.items():  # the game options' catalogue (bot/core/options.py), as /game new
        try:
            check_options(ruleset, {key: value}, scenario.variant or ruleset.default_variant())
        except RulesError as exc:
            raise _refuse(("options", key), exc) from None
    extras: list[dict[str, Any]] = []
    for i, side in enumerate(scenario.sides):
        extra: dict[str, Any] = {}
        for key, value in side.options.items():
            if key in side_options:
                option = side_options[key]
                if isinstance(value, bool) or not isinstance(value, int) or not option.min <= value <= option.max:
                    raise ScenarioRefused(("sides", i, "options", key), f"the {option.title} is a number from "
                                          f"{option.min} to {option.max} ({option.rule})")
                options.setdefault(key, [None, None])[i] = value
            elif key in foreign:
                raise ScenarioRefused(("sides", i, "options", key), f"'{key}' belongs to {foreign[key].title} "
                                      f"games: {ruleset.title} has none")
            else:
                extra[key] = value
        extras.append(extra)
    try:
        game = ruleset.new_game(sides=[s.name for s in scenario.sides], scenario=scenario.title,
                                variant=scenario.variant, options=options, gm=gm, sequence=sequence)
    except RulesError as exc:
        raise _refuse((exc.field or "sides",), exc) from None
    game.turns = scenario.turns
    for side, spec, extra in zip(game.sides, scenario.sides, extras):
        side.nationality = spec.nationality
        side.options = extra
    _lay_boards(game, ruleset, scenario)
    _place_locations(game, ruleset, scenario)
    _place_units(game, ruleset, scenario)
    return game


def _lay_boards(game: Game, ruleset: Any, scenario: Scenario) -> None:
    """The boards of the map (bot/core/grid.py): for a ruleset whose grid has boards; each id and each
    place once."""
    if not scenario.boards:
        return
    grid = ruleset.grid
    if grid is None or grid.board is None:
        raise ScenarioRefused(("boards",), f"{ruleset.title} maps are not laid out of boards: leave boards out")
    ids: set[str] = set()
    places: set[tuple[int, int]] = set()
    for i, board in enumerate(scenario.boards):
        if board.id.casefold() in ids:
            raise ScenarioRefused(("boards", i, "id"), f"board {board.id} is laid out twice")
        if (board.x, board.y) in places:
            raise ScenarioRefused(("boards", i), f"two boards at x={board.x}, y={board.y}")
        ids.add(board.id.casefold())
        places.add((board.x, board.y))
        game.boards.append(BoardPlacement(id=board.id, x=board.x, y=board.y, reversed=board.reversed))


def _place_locations(game: Game, ruleset: Any, scenario: Scenario) -> None:
    terrains = ruleset.terrains()
    for i, spec in enumerate(scenario.locations):
        if any(known.casefold() == spec.id.casefold() for known in game.locations):
            raise ScenarioRefused(("locations", i, "id"), f"Location {spec.id} is listed twice")
        terrain = (spec.terrain or ruleset.default_terrain()).casefold()
        if terrains and terrain not in terrains:
            raise ScenarioRefused(("locations", i, "terrain"), f"unknown terrain '{spec.terrain}' in {ruleset.title} "
                                  f"(terrains: {', '.join(sorted(terrains))})")
        try:
            game.locations[spec.id] = ruleset.new_location(spec.id, terrain, spec.features, **(spec.model_extra or {}))
        except ValidationError as exc:
            err = exc.errors()[0]
            key = next((str(p) for p in err.get("loc", ())), "")
            raise ScenarioRefused(("locations", i, key), plain_validation(err, key)) from None
        except ValueError as exc:
            marks = ", ".join(ruleset.location_fields.model_fields) if ruleset.location_fields else "none"
            raise ScenarioRefused(("locations", i), f"{exc} (the markers of its Locations: {marks})") from None


def _unit_fields(ruleset: Any, game: Game, spec: ScenarioUnit, path: tuple[str | int, ...]) -> dict[str, Any]:
    """The stats and markers of a unit, checked: fields its model has, numbers a counter carries."""
    model = ruleset.unit_model()
    model_fields = model.model_fields
    identity = _identity(model)
    stats = dict(spec.stats)
    for key in stats:
        if key in identity:
            where = {"location": "location", model.holder_field: "held_by", "type": "type", "id": "id"}.get(key)
            raise ScenarioRefused((*path, "stats", key), f"'{key}' is not a stat" +
                                  (f": give it as the unit's {where}" if where else " (the side lists its units)"))
        if key not in model_fields:
            raise ScenarioRefused((*path, "stats", key), f"units of {ruleset.title} have no field '{key}'")
    try:
        check_ranges(ruleset, stats, "stats")
    except RulesError as exc:
        raise _refuse((*path, "stats"), exc) from None
    for j, marker in enumerate(spec.markers):
        field = model_fields.get(marker)
        if field is None or field.annotation is not bool or marker in identity:
            flags = sorted(k for k, f in model_fields.items() if f.annotation is bool)
            raise ScenarioRefused((*path, "markers", j), f"'{marker}' is not a marker of {ruleset.title} units "
                                  f"(markers: {', '.join(flags)})")
        stats[marker] = True
    if spec.name is not None:
        stats["name"] = spec.name
    return stats


def _place_units(game: Game, ruleset: Any, scenario: Scenario) -> None:
    located = {loc.casefold(): loc for loc in game.locations}
    library = ruleset.counter_types()  # read once: a fresh copy per unit is most of a big file's cost
    placed: list[tuple[Any, ScenarioUnit, tuple[str | int, ...]]] = []
    seen: dict[str, tuple[str | int, ...]] = {}
    for i, side in enumerate(scenario.sides):
        for j, spec in enumerate(side.units):
            path: tuple[str | int, ...] = ("sides", i, "units", j)
            if spec.id.casefold() in seen:
                raise ScenarioRefused((*path, "id"), f"there are two units '{spec.id}' in this scenario")
            seen[spec.id.casefold()] = path
            if len(placed) >= MAX_UNITS:
                raise ScenarioRefused(path, f"a game has at most {MAX_UNITS} units")
            location = None
            if spec.location is not None:
                location = located.get(spec.location.casefold())
                if location is None:
                    known = ", ".join(game.locations) or "none listed"
                    raise ScenarioRefused((*path, "location"), f"{spec.id} is placed in {spec.location}, which is "
                                          f"not in the file's locations ({known})")
            if spec.type is None and not spec.stats:
                raise ScenarioRefused((*path, "type"), f"{spec.id} needs a counter type from the {ruleset.title} "
                                      "library (see /unit types), or its numbers in stats")
            stats = _unit_fields(ruleset, game, spec, path)
            try:
                unit = ruleset.make_unit(spec.type, id=spec.id, side=i, location=location, stats=stats,
                                         library=library)
            except ValidationError as exc:
                err = exc.errors(include_url=False)[0]
                key = next((p for p in err.get("loc", ()) if isinstance(p, str)), None)
                where = (*path, "stats", key) if key in spec.stats else (*path, "markers") if key in spec.markers \
                    else path
                # in players' words (plain_validation), never pydantic's ("Input should be a valid integer")
                raise ScenarioRefused(where, f"{spec.id}: {plain_validation(err, key or 'unit')}") from None
            except RulesError as exc:
                raise _refuse((*path, "type"), exc) from None
            placed.append((unit, spec, path))
    by_id = {unit.id.casefold(): unit for unit, _, _ in placed}
    for unit, spec, path in placed:
        if spec.held_by is None:
            continue
        holder = by_id.get(spec.held_by.casefold())
        if unit.holder_field is None:
            raise ScenarioRefused((*path, "held_by"), f"units of {ruleset.title} are not carried by other units")
        if holder is None or holder.side != unit.side or holder is unit:
            raise ScenarioRefused((*path, "held_by"), f"{unit.id} is held by '{spec.held_by}', which is not another "
                                  f"unit of {game.side_name(unit.side)} in this scenario")
        if spec.location is not None and unit.location != holder.location:
            raise ScenarioRefused((*path, "location"), f"{unit.id} is held by {holder.id}, so it is where "
                                  f"{holder.id} is ({holder.location or 'off board'}): leave its location out")
        setattr(unit, unit.holder_field, holder.id)
        unit.location = holder.location
    for unit, spec, path in placed:
        refusal = ruleset.stacking_refusal(game, [unit], unit.location) if game.sequence is not None else None
        if refusal:
            raise ScenarioRefused((*path, "location"), f"{unit.id}: {refusal}")
        game.units[unit.id] = unit
    if game.sequence is not None:
        game.units_added = len(placed)


def scenario_of(game: Game, hidden: dict[int, str] | None = None) -> Scenario:
    """The scenario that sets ``game`` up again (its seats, log and turn aside); ``hidden``: the
    hidden parts to write, by side (those revealed: the game itself holds none)."""
    from .rulesets import get_ruleset

    ruleset = get_ruleset(game.ruleset)
    side_option_names = [o.name for o in ruleset.side_options]
    library = ruleset.counter_types()
    # the bot's own options and the ruleset's internal ones: set again as the file is loaded (a creation
    # default reaches the game loaded again)
    kept = {GRID_MARK, *ruleset.internal_options}
    options = {k: v for k, v in game.options.items() if isinstance(v, (int, float, bool, str)) and k not in kept}
    sides = []
    for i, side in enumerate(game.sides):
        opts: dict[str, Any] = {name: getattr(side, name) for name in side_option_names
                                if getattr(side, name, None) is not None}
        opts.update(side.options)
        units = [_unit_spec(ruleset, u, library) for u in game.units.values() if u.side == i]
        secret = (hidden or {}).get(i)
        sides.append(ScenarioSide(name=side.name, nationality=side.nationality, options=opts, units=units,
                                  hidden=ScenarioHidden(text=secret) if secret else None))
    locations = [ScenarioLocation(id=loc.id, terrain=loc.terrain, features=list(loc.features),
                                  **_marks(ruleset, loc)) for loc in game.locations.values()]
    boards = [ScenarioBoard(id=b.id, x=b.x, y=b.y, reversed=b.reversed) for b in game.boards]
    return Scenario(ruleset=game.ruleset, variant=game.variant, title=game.scenario, turns=game.turns,
                    options=options, boards=boards, locations=locations, sides=sides)


def _marks(ruleset: Any, location: Location) -> dict[str, Any]:
    """A Location's declared markers that are not their defaults (a scenario file leaves those out)."""
    model = ruleset.location_fields
    if model is None:
        return {}
    fields = model.model_fields
    return {k: v for k, v in (location.model_extra or {}).items()
            if k in fields and v != fields[k].get_default(call_default_factory=True)}


def _unit_spec(ruleset: Any, unit: Any, library: dict[str, dict[str, Any]]) -> ScenarioUnit:
    kind = unit.type if unit.type in library else None
    data = unit.model_dump(mode="json")
    base_data = ruleset.make_unit(kind, id=unit.id, side=unit.side, location=unit.location,
                                  library=library).model_dump(mode="json") if kind else {"name": "custom"}
    fields = type(unit).model_fields
    identity = _identity(type(unit))
    markers, stats = [], {}
    for key, value in data.items():
        if key in identity or key == "name" or (kind and base_data.get(key) == value):
            continue
        if not kind and value == fields[key].get_default(call_default_factory=True):
            continue
        if value is True and fields[key].annotation is bool:
            markers.append(key)
        else:
            stats[key] = value
    name = unit.name if unit.name != base_data["name"] else None
    holder = unit.holder_id
    return ScenarioUnit(id=unit.id, type=kind, name=name, location=None if holder else unit.location,
                        held_by=holder, markers=markers, stats=stats)


def check_samples(ruleset_name: str) -> int:
    """Set up every sample scenario of a ruleset (data/<ruleset>/scenarios/*.yaml) once, at start-up:
    a sample broken by an edit (or by a change of the counter library) stops the bot with the file
    named. Returns how many there are."""
    import yaml

    from .data import data_path

    samples = sorted(data_path(ruleset_name, "scenarios").glob("*.yaml"))
    for path in samples:
        scenario = Scenario.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        if scenario.ruleset != ruleset_name:
            raise ValueError(f"{path.name} is a scenario for '{scenario.ruleset}', in {ruleset_name}'s folder")
        try:
            build_game(scenario, sequence=1)
        except ScenarioRefused as exc:
            raise ValueError(f"{path.name}: {exc.field}: {exc.message}") from None
    return len(samples)
