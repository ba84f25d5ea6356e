"""The No Honor in Surrender ruleset class (see __init__.py for why it lives here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...dice import Roller
from ...game import Game
from ...outcome import Outcome, UnitEffect
from ...ruleset import Ruleset, Shots
from ...trail import Trail
from ..base import NoSideNumbers, SmokeMarkers, SmokeOnlyLocation
from . import activation, fire, morale, movement, odds, rally, tables
from .board import NHIS_GRID, sight_terrain
from .commands import COMMANDS
from .samples import SAMPLES
from .context import status_text
from .models import NhisUnit
from .orders import NhisActivate, NhisFire, NhisMorale, NhisMove, NhisOrder, NhisRally


class NhisRuleset(SmokeMarkers, Ruleset):
    name = "nhis"
    samples = SAMPLES  # the sandbox's sample games (samples.py)
    title = "No Honor in Surrender"
    short_name = "NHiS"
    # one *game* turn, shared by both sides (data/nhis/rules.yaml, "turn")
    phases = tables.rules().turn.phases
    phase_names = {"Rally": "Rally Phase", "Operations": "Operations Phase",
                   "Administrative": "Administrative Phase"}
    order_type = NhisOrder
    commands = COMMANDS
    reactions = (movement.OPPORTUNITY_FIRE,)  # a move in an impulse: the other side's opportunity fire
    required_rolls = (rally.RALLY_ATTEMPTS,)  # the Shaken units a side may rally in its part of the Rally Phase
    shots = Shots(("fire",), firers="firers", target="target")  # the map draws the latest fire
    side_fields = NoSideNumbers
    location_fields = SmokeOnlyLocation
    grid = NHIS_GRID  # bot/core/grid.py: where a Location is, the range and the line of sight
    instead = {"transfer": "its weapons belong to the units themselves",
               "recover": "its weapons belong to the units themselves", "artillery": "fire with /fire"}

    counter_fields = (("fp", "FP"), ("range", "range"), ("morale", "morale"), ("leadership", "leadership"),
                      ("reduced_fp", "reduced FP"), ("reduced_range", "reduced range"),
                      ("reduced_morale", "reduced morale"), ("reduced_leadership", "reduced leadership"))
    counter_marks = (("shakeable", False, "Unshakable"),)  # rule 8.2
    stat_ranges = {"fp": (0, 30), "range": (0, 30), "morale": (0, 10), "leadership": (-3, 3),
                   "reduced_fp": (0, 30), "reduced_range": (0, 30), "reduced_morale": (0, 10),
                   "reduced_leadership": (-3, 3)}
    status_flags = (("shaken", "shaken"), ("reduced", "reduced"), ("moving", "moving"), ("crawling", "crawling"),
                    ("banzai", "Banzai charging"))
    words = {"broken": "shaken"}
    # impulses refereed as one activation each (activation.py): games created since; older ones replay as played
    internal_options = (activation.ACTIVATION,)
    creation_defaults = {activation.ACTIVATION: True}
    left_to_table = (tables.rules().activation.assumed[-1],)

    def unit_model(self):
        return NhisUnit

    def stacking_refusal(self, game: Game, units: list[Any], location: str | None) -> str | None:
        """The stacking limit of data/nhis/rules.yaml (assumed: the seed gives none) at the set-up."""
        if location is None or not units:
            return None
        limit = tables.rules().stacking
        side = units[0].side
        moving = {u.id for u in units}
        together = [u for u in game.units_at(location) if u.side == side and u.id not in moving] + units
        leaders = sum(1 for u in together if u.kind == "leader")
        others = len(together) - leaders
        if others > limit.units or leaders > limit.leaders:
            return (f"{location} would hold {others} unit{'s' * (others != 1)} and {leaders} "
                    f"leader{'s' * (leaders != 1)} of {game.side_name(side)}: {limit.units} units and "
                    f"{limit.leaders} leaders per hex at the set-up ({limit.rule})")
        return None

    def marker_words(self, unit: Any) -> list[str]:
        return [f"{unit.marker.title()} marker"] if unit.marker else []

    def preview(self, game: Game, order: Any) -> Any:
        if isinstance(order, NhisFire):
            return odds.fire_odds(game, order)
        return None

    def counter_types(self) -> dict:
        return tables.counter_types()

    def sight_terrain(self, location: Any) -> Any:
        return sight_terrain(location)

    def terrains(self) -> dict:
        return dict(tables.terrain_file().terrains)

    def default_terrain(self) -> str:
        return tables.terrain_file().default

    def table_loaders(self) -> tuple:
        return (tables.fire_table, tables.rules)  # data/nhis/fire_table.yaml, rules.yaml

    def resolve_action(self, game: Game, order, roller: Roller) -> Outcome:
        if isinstance(order, NhisFire):
            return _in_activation(game, order.firers, lambda: fire.resolve_fire(game, order, roller))
        if isinstance(order, NhisMorale):
            return morale.resolve_morale(game, order, roller)
        if isinstance(order, NhisRally):
            return rally.resolve_rally(game, order, roller)
        if isinstance(order, NhisMove):
            return _in_activation(game, order.units, lambda: movement.resolve_move(game, order, roller))
        if isinstance(order, NhisActivate):
            return activation.resolve_activate(game, order, roller)
        return super().resolve_action(game, order, roller)

    def acted_before_hand_off(self, game: Game) -> bool:
        return bool(game.options.get(activation.ACTIVATION))

    def next_phase(self, game: Game) -> tuple[str, int, int]:
        """Both sides share each phase: after the last one the next game turn begins, and the
        side with the first impulse (the active side) stays as the scenario set it."""
        i = self.phases.index(game.phase) if game.phase in self.phases else -1
        if i + 1 < len(self.phases):
            return self.phases[i + 1], game.turn, game.active_side
        return self.phases[0], game.turn + 1, game.active_side

    def phase_end(self, game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
        units = [u for u in game.units.values() if isinstance(u, NhisUnit) and not u.eliminated]
        if game.phase == self.phases[0]:
            for unit in units:  # the next Rally Phase allows a new attempt
                unit.rally_tried = False
        if game.phase == tables.rules().turn.fire_phase:
            activation.clear_stamps(game, units)
        if game.phase == self.phases[-1]:
            for unit in units:
                _end_of_turn(unit, trail, effects)


def _in_activation(game: Game, unit_ids: list[str], resolve: Callable[[], Outcome]) -> Outcome:
    """A move or a fire inside the impulse's one activation (activation.py): checked, and the hex
    activated, before it resolves; the impulse ended after it when the activation is spent. The
    activation's line goes first in the action's own section: after the range and line of sight a
    fire reads on the map before it opens its section (bot/core/grid.py, bot/core/sight.py)."""
    before, after = Trail(), Trail()
    holder = game.to_act
    activation.check_and_activate(game, unit_ids, before)
    outcome = resolve()
    activation.end_if_spent(game, holder, after)
    if not before.steps and not after.steps:
        return outcome
    trail = outcome.trail
    opened = next((i for i, step in enumerate(trail)
                   if step.kind == "section" and step.rule != NHIS_GRID.line_rule), None)
    head = trail[:opened + 1] if opened is not None else ()
    return outcome.model_copy(update={"trail": head + before.freeze() + trail[len(head):] + after.freeze()})


def _end_of_turn(unit: NhisUnit, trail: Trail, effects: list[UnitEffect]) -> None:
    """Administrative Phase: Move/Fire/Charge markers off, units no longer moving or crawling."""
    rule = tables.rules().turn.rule
    before = status_text(unit)
    done: list[str] = []
    if unit.marker:
        trail.put("marker", f"{unit.label}: {unit.marker.title()} marker removed", rule=rule, unit=unit.id)
        done.append(f"{unit.marker.title()} marker removed")
        unit.marker = None
    if unit.moving or unit.crawling:
        trail.put("marker", f"{unit.label}: no longer moving", rule=rule, unit=unit.id)
        done.append("stops moving")
        unit.moving = unit.crawling = False
    if done:
        effects.append(UnitEffect(unit=unit.id, name=unit.name, side=unit.side, before=before,
                                  after=status_text(unit), effects=tuple(done)))


RULESET = NhisRuleset()
