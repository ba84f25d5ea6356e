"""The interface each rules system implements, and what they share.

A ruleset is one package under ``rulesets/`` (or a plug-in module) whose ``RULESET`` describes the
whole system: its names, variants and per-side options, its phases, its counters (the library,
the numbers a counter shows, the words of its markers), its orders and the slash commands that
give them, how an order's odds are previewed and how its results read. Nothing outside the
package keeps a list of ruleset names: the registry (``rulesets/__init__.py``) lists them, and the
game model, the JSON Schema, the CLI, the cogs and the renderer ask it.

A ruleset turns an order into an Outcome by mutating a *working copy* of the game (the caller,
``bot.core.api.resolve``, makes the copy and discards it on any error, so a failed order never
changes the state). Orders common to every ruleset (setting up units and locations, phases) are
handled here; a ruleset handles its own actions in ``resolve_action``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, get_args

from pydantic import BaseModel, Field, TypeAdapter

from . import sequence as play
from .commands import Command, Suggest
from .dice import Roller
from .errors import IllegalOrder, InvalidOrder
from .game import Game, Location, Side, carried
from .grid import HexGrid
from .orders import PHASE_ACTIONS, PhaseOrder, Sealing
from .outcome import Outcome, UnitEffect
from .reactions import Reaction
from .required import RequiredRoll
from .samples import Sample
from .suggest import common_suggestions
from .trail import Trail

if TYPE_CHECKING:
    from .fileformat import FileFormat
    from .options import GameOption
    from .odds.report import OddsReport
    from .sequence import SequenceData


@cache
def _actions(ruleset_class: type) -> tuple[str, ...]:
    """The ``action`` tag of each order model in a ruleset's order union. It depends on the class
    alone, and parse_order asks for it on every order: read once per ruleset."""
    return tuple(get_args(m.model_fields["action"].annotation)[0] for m in get_args(ruleset_class.order_type))


@dataclass(frozen=True)
class SideOption:
    """A number the scenario gives each side (ASL's ELR), kept on the game's ``Side``. Given at
    ``/game new`` as one option per side (``elr_1``, ``elr_2``)."""

    name: str  # a field of the ruleset's side_fields
    title: str  # "Experience Level Rating"
    min: int
    max: int
    rule: str


@dataclass(frozen=True)
class Shots:
    """What the map draws as the latest fire (bot/pictures): the orders that fire, the order field
    naming the firing units (a list of ids, or one), and the field naming what they fire at, a
    Location (``target``, on a hex board) or units (``targets``, on the table top)."""

    actions: tuple[str, ...]
    firers: str
    target: str = ""
    targets: str = ""


class Ruleset:
    # --- names ---
    name: ClassVar[str]  # the key games and logs carry: "asl"
    title: ClassVar[str]  # "Advanced Squad Leader"
    short_name: ClassVar[str]  # how help texts name it briefly: "ASL"
    variants: ClassVar[dict[str, str]] = {}  # key -> title, e.g. "starter": "ASL Starter Kit"; empty: one rules set
    side_options: ClassVar[tuple[SideOption, ...]] = ()  # numbers per side (ASL: ELR)
    # the data each side and each Location of its games carries beyond the shared fields, as a model
    # of its own (its fields' defaults are a new side's or Location's): the game model keeps it as
    # data, checked by this model (bot.core.game.carried); only the ruleset reads and writes it.
    # None: nothing
    side_fields: ClassVar[type[BaseModel] | None] = None
    location_fields: ClassVar[type[BaseModel] | None] = None

    # --- the sequence of play ---
    phases: ClassVar[tuple[str, ...]]  # one player turn (ASL) or one game turn (NHiS, CD)
    phase_names: ClassVar[dict[str, str]] = {}  # short -> long, e.g. "PFPh" -> "Prep Fire Phase"

    # --- counters: the numbers a counter shows and the words of its state ---
    counter_fields: ClassVar[tuple[tuple[str, str], ...]] = ()  # (unit field, label), as players read them
    counter_marks: ClassVar[tuple[tuple[str, Any, str], ...]] = ()  # (field, value, label): printed marks
    status_flags: ClassVar[tuple[tuple[str, str], ...]] = ()  # (unit flag, word), in the order players read
    words: ClassVar[dict[str, str]] = {}  # this ruleset's word for a common one: {"broken": "shaken"}
    # what a check's result means to the players, said in the short result (bot/render.py) for a unit's
    # check that read no roll of its own: {"kept": "may fire again"} (a weapon keeping its rate of fire)
    check_results: ClassVar[dict[str, str]] = {}
    # the picture of the battlefield (bot/pictures): "hexes", a hex grid laid out from the Location
    # ids (B5, 0304); "table", a table-top sketch of the units by Location, else by company
    board: ClassVar[str] = "hexes"
    # where a Location id is on the map (bot/core/grid.py): the map's hexes, the range counted between
    # them and the line of sight read along them; None: the ruleset has no grid the bot can read (the
    # picture then places any short hex id, and ranges are typed)
    grid: ClassVar[HexGrid | None] = None
    # the orders the map draws as the latest fire, and their fields; None: the map draws no fire
    shots: ClassVar[Shots | None] = None
    # the unit fields a player sets when placing a library counter (who holds a weapon, the company):
    # any other stat changes the counter's numbers, which is the game master's
    setup_fields: ClassVar[tuple[str, ...]] = ()
    # the numbers a counter of this ruleset can carry (a guard against fp=99999, not a rule)
    stat_ranges: ClassVar[dict[str, tuple[int, int]]] = {}

    # --- orders, and the slash commands that give them ---
    order_type: ClassVar[Any]  # the union of this ruleset's orders, discriminated on ``action``
    commands: ClassVar[tuple[Command, ...]] = ()
    instead: ClassVar[dict[str, str]] = {}  # a command it lacks -> what it uses instead ("transfer": ...)
    # the reactions its rules give the other side after an order (bot/core/reactions.py): a move in the
    # open opens a window the mover waits on, with the game option reactions
    reactions: ClassVar[tuple[Reaction, ...]] = ()
    # the rolls its rules call for of the side holding a step, a unit at a time (bot/core/required.py):
    # a reply offers them as buttons to that side (ASL's rally attempts)
    required_rolls: ClassVar[tuple[RequiredRoll, ...]] = ()
    # what the referee leaves to the table, one sentence each with its reason (/help says so plainly)
    left_to_table: ClassVar[tuple[str, ...]] = ()
    # the sample games the sandbox sets up (bot/core/samples.py), in the ruleset's own channel
    samples: ClassVar[tuple[Sample, ...]] = ()

    def __init__(self) -> None:
        self._adapter: TypeAdapter[Any] | None = None

    # --- orders ---

    @property
    def order_adapter(self) -> TypeAdapter[Any]:
        if self._adapter is None:
            self._adapter = TypeAdapter(Annotated[self.order_type, Field(discriminator="action")])
        return self._adapter

    def command(self, name: str) -> Command | None:
        """The slash command ``name`` ("fire", "artillery fire") of this ruleset, or None."""
        return next((c for c in self.commands if c.name == name), None)

    def actions(self) -> list[str]:
        """The ruleset's actions, in the order of its order union (a new list: callers may extend it)."""
        return list(_actions(type(self)))

    def has_action(self, action: str) -> bool:
        """Whether ``action`` is one of the ruleset's own actions (no list made: asked per order)."""
        return action in _actions(type(self))

    # the actions whose orders are resolved on a working game (bot/core/working.py): the units plain
    # slotted objects made as the ruleset reads them, the game's unchanged units kept as they were
    working_actions: ClassVar[frozenset[str]] = frozenset()
    # of those, the actions that read nearly every unit of a small game: its units all made working
    # objects at once (``working.EAGER_UNITS``)
    eager_actions: ClassVar[frozenset[str]] = frozenset()

    def resolve(self, game: Game, order: BaseModel, roller: Roller) -> Outcome:
        """Apply ``order`` to ``game`` (a working copy, mutated in place) and describe it."""
        if isinstance(order, PhaseOrder):
            return self.advance_phase(game, order, roller)
        return self.resolve_action(game, order, roller)

    def resolve_action(self, game: Game, order: BaseModel, roller: Roller) -> Outcome:
        raise IllegalOrder(f"{self.title} has no '{getattr(order, 'action', '?')}' action")

    # --- game set-up ---

    # options the ruleset's own code keeps in Game.options (not set by hand): refused by /game options
    internal_options: ClassVar[tuple[str, ...]] = ()
    # internal options every game created today starts with (logged in its creation order): how a fix
    # that changes the order the dice are used in reaches new games while games logged before replay
    # as they were played
    creation_defaults: ClassVar[dict[str, Any]] = {}

    def game_options(self) -> tuple[GameOption, ...]:
        """The ruleset's own game options (bot/core/options.py), each with its type, range, default
        and help; the bot's own options come first in the catalogue."""
        return ()

    def default_variant(self) -> str | None:
        return next(iter(self.variants), None)

    def new_game(self, *, sides: list[str], scenario: str = "", variant: str | None = None,
                 options: dict[str, Any] | None = None, gm: int | None = None, sequence: int | None = None) -> Game:
        """A new game at its first phase. ``sequence``: referee the sequence of play (games created
        since it is refereed; a game logged before replays without it)."""
        if len(sides) != 2 or any(not s.strip() for s in sides):
            raise InvalidOrder("a game has exactly two sides, each with a name", field="sides")
        if len({s.strip().casefold() for s in sides}) != 2:
            raise InvalidOrder("the two sides need different names", field="sides")
        if variant is not None and variant not in self.variants:
            allowed = (f"one of {', '.join(self.variants)}" if self.variants
                       else f"not used: {self.title} has one set of rules")
            raise InvalidOrder(f"unknown rules variant '{variant[:30]}' ({allowed})", field="variant")
        options = dict(options or {})
        # the side options (ASL: the scenario's ELR, A19.1) travel in the options, one value per side
        per_side: list[dict[str, Any]] = [{}, {}]
        for option in self.side_options:
            values = options.pop(option.name, None) or [None, None]
            if len(values) != 2 or any(v is not None and not (isinstance(v, int) and not isinstance(v, bool)
                                                              and option.min <= v <= option.max) for v in values):
                raise InvalidOrder(f"'{option.name}' is one number from {option.min} to {option.max} per side",
                                   field=option.name)
            for side, value in zip(per_side, values):
                side[option.name] = value
        game = Game(
            ruleset=self.name,
            variant=variant or self.default_variant(),
            scenario=scenario,
            sides=[self.new_side(s.strip(), **extra) for s, extra in zip(sides, per_side)],
            phase=self.phases[0],
            options=options,
            gm=gm,
        )
        if sequence:
            play.start(game, self)
        return game

    def new_side(self, name: str, **data: Any) -> Side:
        """A side of this ruleset's games, with its declared data (``side_fields``) set or defaulted."""
        side = Side(name=name, **data)
        carried(self.side_fields, side, f"side {name}")
        return side

    def new_location(self, id: str, terrain: str = "open", features: list[str] | None = None,  # noqa: A002
                     **data: Any) -> Location:
        """A Location of this ruleset's games, with its declared markers (``location_fields``) set or
        defaulted. Raises ValueError for data the ruleset does not declare, or a value it refuses."""
        if features:
            data["features"] = list(features)
        location = Location(id=id, terrain=terrain, **data)
        carried(self.location_fields, location, f"Location {id}")
        return location

    def counter_types(self) -> dict[str, dict[str, Any]]:
        """The counter library: type name -> the unit's fields (without id, side, location)."""
        return {}

    def table_loaders(self) -> tuple[Callable[[], Any], ...]:
        """The ruleset's table loaders beyond ``counter_types`` and ``terrains`` (each reads and
        validates a file of data/ once, then answers from its cache); rulesets override."""
        return ()

    def load_tables(self) -> None:
        """Read and validate every data file the ruleset uses, now: a broken table stops the bot
        at start-up instead of refusing the first order that needs it, and the first command of
        a session does not wait for YAML to be parsed."""
        self.counter_types()
        self.terrains()
        for load in self.table_loaders():
            load()
        self.check_sequence()

    def check_sequence(self) -> None:
        """The sequence of play must name the ruleset's phases in order, roles it knows and actions it
        has: a wrong data file stops the start-up instead of refusing orders in the middle of a game."""
        data = self.sequence()
        if data is None:
            return
        phases = [step.phase for step in data.steps]
        if list(dict.fromkeys(phases)) != list(self.phases) or phases != sorted(phases, key=self.phases.index):
            raise ValueError(f"sequence.yaml: the steps' phases {phases} do not follow the phases {list(self.phases)}")
        known = set(self.actions()) - PHASE_ACTIONS  # the generic orders (set-up, /done) are no ruleset's own
        probe = Game(ruleset=self.name, sides=[{"name": "A"}, {"name": "B"}], phase=self.phases[0])
        for step in data.steps:
            for role in (step.holder, *step.orders):
                try:
                    self.role_side(probe, role)
                except KeyError:
                    raise ValueError(f"sequence.yaml: unknown role '{role}' in the {step.phase} step") from None
            for action in (a for actions in step.orders.values() for a in actions):
                if action not in known:
                    raise ValueError(f"sequence.yaml: '{action}' in the {step.phase} step is not an order of "
                                     f"{self.title}")
        missing = known - {a for step in data.steps for acts in step.orders.values() for a in acts} - set(data.always)
        if missing:
            raise ValueError(f"sequence.yaml: no step allows {sorted(missing)}")

    def make_unit(self, type_name: str | None, *, id: str, side: int, location: str | None,
                  stats: dict[str, Any] | None = None, library: dict[str, dict[str, Any]] | None = None) -> Any:
        """A unit of a library type (``stats`` overriding its numbers), or a custom one. ``library``:
        ``counter_types()`` read once by a caller making many units (a scenario file)."""
        stats = dict(stats or {})
        if type_name:
            library = self.counter_types() if library is None else library
            key = type_name.casefold()
            if key not in library:
                raise InvalidOrder(
                    f"no counter type '{type_name}' in the {self.title} library "
                    f"(try /unit types)", field="type")
            fields = {**library[key], **stats}  # a new dict: the library's entries are left alone
            fields.setdefault("type", key)
        else:
            fields = {"type": "custom", **stats}
        fields.update(id=id, side=side, location=location, system=self.name)
        fields.setdefault("name", fields.get("type", id))
        return self.unit_model().model_validate(fields)

    def unit_model(self) -> type[BaseModel]:
        raise NotImplementedError  # every ruleset overrides this (its unit class)

    # --- how its counters and results read ---

    def unit_status(self, unit: Any) -> str:
        """A unit's state in words, for the status board: "broken, DM, Prep Fire"."""
        if unit.eliminated:
            return "eliminated"
        words = [word for flag, word in self.status_flags if getattr(unit, flag, False)]
        words += self.marker_words(unit)
        return ", ".join(words) or "no markers"

    def marker_words(self, unit: Any) -> list[str]:
        """Words for what a unit carries beyond its flags (fire markers, who holds a weapon)."""
        return []

    def map_markers(self, unit: Any) -> list[str]:
        """The markers the map shows on a counter: its flags and marker words, as on the status board;
        rulesets add what the map shows besides (CD: the order a stand was given)."""
        words = [word for flag, word in self.status_flags if getattr(unit, flag, False) is True]
        return words + self.marker_words(unit)

    def stand_note(self, unit: Any) -> str:
        """What a stand's base on the table top shows when it has no markers (CD: its quality)."""
        return ""

    def location_markers(self, location: Any) -> list[str]:
        """The markers the map shows in a Location (ASL: Residual FP, SMOKE)."""
        return []

    def location_words(self, location: Any) -> list[str]:
        """The markers in a Location as the status board words them, after its features."""
        return []

    def smoke_in(self, location: Any) -> bool:
        """Whether a Location holds smoke, which the line of sight names (bot/core/sight.py)."""
        return False

    def stacking_refusal(self, game: Game, units: list[Any], location: str | None) -> str | None:
        """Why ``units`` may not be placed in ``location`` at the set-up (the ruleset's stacking
        limit), or None; rulesets with a limit override."""
        return None

    def word(self, common: str) -> str:
        """This ruleset's word for a common one ("broken" reads "shaken" in NHiS and CD)."""
        return self.words.get(common, common)

    def result_name(self, outcome: Outcome) -> str | None:
        """The result players name an outcome by, when the table cell or check does not say it
        (the odds report tallies by it); None: the cell read or the first check's verdict."""
        return None

    # --- odds, suggestions ---

    def preview(self, game: Game, order: BaseModel) -> OddsReport | None:
        """The exact odds of ``order`` from a fast engine of the ruleset's own, or None to enumerate
        every roll through the resolver (``bot.core.odds.generic``). The order was resolved once
        already, so it is legal."""
        return None

    def preview_size(self, game: Game, order: BaseModel) -> int | None:
        """How many outcomes ``preview`` would tell apart, at most, counted from the order before any
        enumeration (the checks it causes, the outcomes of each); raise IllegalOrder with the numbers
        when that is more than the engine may count. None: no estimate (the generic enumeration
        stops itself at its own cap). The order was resolved once already, so it is legal."""
        return None

    def suggestions(self, suggest: Suggest, game: Game, named: dict[str, list[str]]) -> list[tuple[str, str]]:
        """(label, value) pairs autocomplete offers for an option; ``named`` holds the ids typed so
        far in the command's other options (the enemies of the firer named). The kinds every
        ruleset has are here; a ruleset adds its own ("weapon", "range_band")."""
        return common_suggestions(suggest.kind, game, named, of=suggest.of)

    # --- phases ---

    def next_phase(self, game: Game) -> tuple[str, int, int]:
        """(phase, turn, active_side) after the current phase."""
        i = self.phases.index(game.phase) if game.phase in self.phases else -1
        if i + 1 < len(self.phases):
            return self.phases[i + 1], game.turn, game.active_side
        # end of a player turn: the other side becomes active; a game turn ends after both
        if game.active_side == 0:
            return self.phases[0], game.turn, 1
        return self.phases[0], game.turn + 1, 0

    def phase_end(self, game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
        """Clean-ups at the end of ``game.phase`` (markers removed, ...); rulesets override."""

    def advance_phase(self, game: Game, order: PhaseOrder, roller: Roller) -> Outcome:
        trail = Trail()
        effects: list[UnitEffect] = []
        if order.to is not None and order.to not in self.phases:
            raise InvalidOrder(
                f"unknown phase '{order.to}' (phases: {', '.join(self.phases)})", field="to")
        start = (game.phase, game.turn, game.active_side)
        if game.step is not None:  # the sequence of play is refereed
            # step by step, so every clean-up and every step's start (an initiative roll) happens
            steps = self.sequence().steps  # type: ignore[union-attr]
            for _ in range(len(steps) * 2):
                play.advance(game, self, trail, effects, roller)
                at_start = game.step == 0 or steps[game.step - 1].phase != game.phase  # type: ignore[operator]
                if at_start and (order.to is None or game.phase == order.to):
                    break
            trail.put("note", f"Phase: {start[0]} -> {game.phase}; turn {game.turn}, "
                              f"{play.step_name(game, self)}: {game.side_name(game.to_act)} to act "
                              "(moved on by the game master)")
            return Outcome(ruleset=self.name, action="phase",
                           headline=f"Turn {game.turn}, {play.step_name(game, self)}: "
                                    f"{game.side_name(game.to_act)} to act",
                           trail=trail.freeze(), effects=tuple(effects))
        steps = 0
        if game.sequence is not None:
            game.started = True  # a phase ends: the set-up is over (a game logged before has no such mark)
        while True:
            self.phase_end(game, trail, effects)
            game.phase, game.turn, game.active_side = self.next_phase(game)
            steps += 1
            if order.to is None or game.phase == order.to or steps > len(self.phases) * 2:
                break
        trail.put("note", f"Phase: {start[0]} -> {game.phase}; turn {game.turn}, "
                          f"player turn of {game.side_name(game.active_side)}")
        return Outcome(
            ruleset=self.name, action="phase",
            headline=f"Turn {game.turn}, {game.side_name(game.active_side)}: "
                     f"{self.phase_names.get(game.phase, game.phase)}",
            trail=trail.freeze(), effects=tuple(effects),
        )

    # --- the sequence of play (bot/core/sequence.py) ---

    def sequence(self) -> SequenceData | None:
        """The ruleset's sequence of play (``data/<name>/sequence.yaml``), or None without one."""
        return play.load(self.name)

    def role_side(self, game: Game, role: str) -> int:
        """The side playing a role of the sequence now. Raises KeyError for a role it does not know."""
        first = game.active_side
        sides = {
            "attacker": first, "defender": 1 - first,  # the player turn's
            "first": first, "second": 1 - first,  # the scenario's first side
            "side_a": game.initiative if game.initiative is not None else first,
            "impulse": game.to_act if game.to_act is not None else first,
        }
        sides["side_b"] = 1 - sides["side_a"]
        sides["opponent"] = 1 - sides["impulse"]
        return sides[role]

    # --- sealed orders (bot/core/sealed.py) ---

    def sealing(self, game: Game) -> Sealing | None:
        """How ``game`` seals its sealable orders, or None when it gives them openly (the default)."""
        return None

    def resolve_revealed(self, game: Game, order: BaseModel, roller: Roller, *, sealing: bool) -> Outcome:
        """Apply a sealed order as it is revealed (``sealing``: check it on a copy as it is sealed),
        outside the phase it is given in openly; rulesets that seal orders override."""
        raise IllegalOrder(f"{self.title} seals no '{getattr(order, 'action', '?')}' order")

    def check_reveal(self, game: Game, pending: Any) -> None:
        """Refuse the reveal of a pending sealed order (``Game.sealed``) when it is not its time."""

    def check_step_end(self, game: Game, step: Any) -> None:
        """Refuse ending a step of the sequence of play that leaves something undone (CD: a side's
        orders still sealed when it ends its move)."""

    def acted_before_hand_off(self, game: Game) -> bool:
        """True: an order that handed the step to another side as it was resolved (No Honor in
        Surrender: an opportunity fire that ends the mover's impulse) counts only for the step it was
        given in, never as an action of the new holder's (whose /done is then a pass). False keeps
        how games logged before counted it; rulesets override."""
        return True

    def step_end(self, game: Game, step: Any, trail: Trail, effects: list[UnitEffect]) -> None:
        """What happens as a step of the sequence of play ends, before its phase's clean-ups (Command
        Decision: the results of a simultaneous fire step applied at its end); rulesets override."""

    def step_started(self, game: Game, step: Any, trail: Trail, roller: Roller | None) -> None:
        """What happens as a step begins, before its holder acts (Command Decision: the initiative
        roll at the start of the Movement Phase); rulesets override."""

    # --- terrain ---

    def terrains(self) -> dict[str, Any]:
        """Terrain key -> its data (cover, TEM ...); rulesets override from their data files."""
        return {}

    def default_terrain(self) -> str:
        return "open"

    def sight_terrain(self, location: Any) -> Any:
        """What a known Location's terrain does to a line of sight crossing it
        (``bot.core.sight.SightTerrain``); rulesets with a grid override."""
        raise NotImplementedError(f"{self.title} reads no line of sight")

    # --- files of other programs (bot/core/fileformat.py) ---

    def file_formats(self) -> tuple[FileFormat, ...]:
        """The files of other programs this ruleset reads as a scenario and writes a game into
        (ASL: VASL's saved games); none by default."""
        return ()
