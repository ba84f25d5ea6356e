"""The interface each rules system implements, and what they share.

A ruleset turns an order into an Outcome by mutating a *working copy* of the game (the caller,
``bot.core.api.resolve``, makes the copy and discards it on any error, so a failed order never
changes the state). Orders common to every ruleset (setting up units and locations, phases) are
handled here; a ruleset handles its own actions in ``resolve_action``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, get_args

from pydantic import BaseModel, TypeAdapter

from .dice import Roller
from .errors import IllegalOrder, InvalidOrder
from .orders import PhaseOrder
from .outcome import Outcome, UnitEffect
from .trail import Trail

if TYPE_CHECKING:  # game.py imports the rulesets' unit models, which import this module
    from .game import Game


@cache
def _actions(ruleset_class: type) -> tuple[str, ...]:
    """The ``action`` tag of each order model in a ruleset's order union. It depends on the class
    alone, and parse_order asks for it on every order: read once per ruleset."""
    return tuple(get_args(m.model_fields["action"].annotation)[0] for m in get_args(ruleset_class.order_type))


class Ruleset:
    name: ClassVar[str]
    title: ClassVar[str]
    phases: ClassVar[tuple[str, ...]]  # one player turn (ASL) or one game turn (NHiS, CD)
    phase_names: ClassVar[dict[str, str]] = {}  # short -> long, e.g. "PFPh" -> "Prep Fire Phase"
    order_type: ClassVar[Any]  # the union of this ruleset's orders, discriminated on ``action``
    variants: ClassVar[tuple[str, ...]] = ()  # ASL: ("full", "starter"); empty: one rules set only

    def __init__(self) -> None:
        self._adapter: TypeAdapter[Any] | None = None

    # --- orders ---

    @property
    def order_adapter(self) -> TypeAdapter[Any]:
        if self._adapter is None:
            from typing import Annotated

            from pydantic import Field

            self._adapter = TypeAdapter(Annotated[self.order_type, Field(discriminator="action")])
        return self._adapter

    def actions(self) -> list[str]:
        """The ruleset's actions, in the order of its order union (a new list: callers may extend it)."""
        return list(_actions(type(self)))

    def has_action(self, action: str) -> bool:
        """Whether ``action`` is one of the ruleset's own actions (no list made: asked per order)."""
        return action in _actions(type(self))

    def resolve(self, game: Game, order: BaseModel, roller: Roller) -> Outcome:
        """Apply ``order`` to ``game`` (a working copy, mutated in place) and describe it."""
        if isinstance(order, PhaseOrder):
            return self.advance_phase(game, order)
        return self.resolve_action(game, order, roller)

    def resolve_action(self, game: Game, order: BaseModel, roller: Roller) -> Outcome:
        raise IllegalOrder(f"{self.title} has no '{getattr(order, 'action', '?')}' action")

    # --- game set-up ---

    def default_variant(self) -> str | None:
        return None

    def new_game(self, *, sides: list[str], scenario: str = "", variant: str | None = None,
                 options: dict[str, Any] | None = None, gm: int | None = None) -> Game:
        from .game import Game, Side

        if len(sides) != 2 or any(not s.strip() for s in sides):
            raise InvalidOrder("a game has exactly two sides, each with a name", field="sides")
        if len({s.strip().casefold() for s in sides}) != 2:
            raise InvalidOrder("the two sides need different names", field="sides")
        if variant is not None and variant not in self.variants:
            allowed = (f"one of {', '.join(self.variants)}" if self.variants
                       else f"not used: {self.title} has one set of rules")
            raise InvalidOrder(f"unknown rules variant '{variant[:30]}' ({allowed})", field="variant")
        options = dict(options or {})
        # ASL: the scenario's ELR per side (A19.1) travels in the options, one value per side
        elr = options.pop("elr", None) or [None, None]
        if len(elr) != 2 or any(e is not None and not (isinstance(e, int) and 0 <= e <= 5) for e in elr):
            raise InvalidOrder("'elr' is one number from 0 to 5 per side", field="elr")
        return Game(
            ruleset=self.name,  # type: ignore[arg-type]
            variant=variant or self.default_variant(),
            scenario=scenario,
            sides=[Side(name=s.strip(), elr=e) for s, e in zip(sides, elr)],
            phase=self.phases[0],
            options=options,
            gm=gm,
        )

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

    def make_unit(self, type_name: str | None, *, id: str, side: int, location: str | None,
                  stats: dict[str, Any] | None = None) -> Any:
        """A unit of a library type (``stats`` overriding its numbers), or a custom one."""
        stats = dict(stats or {})
        if type_name:
            library = self.counter_types()
            key = type_name.casefold()
            if key not in library:
                raise InvalidOrder(
                    f"no counter type '{type_name}' in the {self.title} library "
                    f"(try /unit types)", field="type")
            fields = {**library[key], **stats}
            fields.setdefault("type", key)
        else:
            fields = {"type": "custom", **stats}
        fields.update(id=id, side=side, location=location, system=self.name)
        fields.setdefault("name", fields.get("type", id))
        return self.unit_model().model_validate(fields)

    def unit_model(self) -> type[BaseModel]:
        raise NotImplementedError  # every ruleset overrides this (its unit class)

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

    def advance_phase(self, game: Game, order: PhaseOrder) -> Outcome:
        trail = Trail()
        effects: list[UnitEffect] = []
        if order.to is not None and order.to not in self.phases:
            raise InvalidOrder(
                f"unknown phase '{order.to}' (phases: {', '.join(self.phases)})", field="to")
        start = (game.phase, game.turn, game.active_side)
        steps = 0
        while True:
            self.phase_end(game, trail, effects)
            game.phase, game.turn, game.active_side = self.next_phase(game)
            steps += 1
            if order.to is None or game.phase == order.to or steps > len(self.phases) * 2:
                break
        trail.add("note", f"Phase: {start[0]} -> {game.phase}; turn {game.turn}, "
                          f"player turn of {game.side_name(game.active_side)}")
        return Outcome(
            ruleset=self.name, action="phase",
            headline=f"Turn {game.turn}, {game.side_name(game.active_side)}: "
                     f"{self.phase_names.get(game.phase, game.phase)}",
            trail=trail.freeze(), effects=tuple(effects),
        )

    # --- terrain ---

    def terrains(self) -> dict[str, Any]:
        """Terrain key -> its data (cover, TEM ...); rulesets override from their data files."""
        return {}

    def default_terrain(self) -> str:
        return "open"
