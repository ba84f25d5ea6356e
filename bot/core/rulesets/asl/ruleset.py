"""The Advanced Squad Leader ruleset class (see __init__.py for why it lives here)."""

from __future__ import annotations

from typing import Any

from ...commands import Suggest
from ...dice import Roller
from ...errors import IllegalOrder
from ...game import Game
from ...options import GameOption
from ...outcome import Outcome, UnitEffect
from ...ruleset import Ruleset, Shots, SideOption
from ...suggest import common_suggestions
from ...trail import Trail
from . import (close_combat, close_combat_odds, effects, fire, heat, markers, morale, movement, odds, rally, tables,
               transfer, vasl)
from .board import ASL_GRID, sight_terrain
from .commands import COMMANDS
from .samples import SAMPLES
from .models import AslLocation, AslSide, AslUnit
from .orders import AslCloseCombat, AslFire, AslMorale, AslMove, AslOrder, AslRally, AslRecover, AslTransfer


class AslRuleset(Ruleset):
    name = "asl"
    samples = SAMPLES  # the sandbox's sample games (samples.py)
    title = "Advanced Squad Leader"
    short_name = "ASL"
    variants = {"full": "Full ASL", "starter": "ASL Starter Kit"}  # the Starter Kit: no Heat of Battle, ...
    side_options = (SideOption("elr", "Experience Level Rating", 0, 5, "A19.1"),)
    phases = ("RPh", "PFPh", "MPh", "DFPh", "AFPh", "RtPh", "APh", "CCPh")
    phase_names = {
        "RPh": "Rally Phase", "PFPh": "Prep Fire Phase", "MPh": "Movement Phase",
        "DFPh": "Defensive Fire Phase", "AFPh": "Advancing Fire Phase", "RtPh": "Rout Phase",
        "APh": "Advance Phase", "CCPh": "Close Combat Phase",
    }
    order_type = AslOrder
    commands = COMMANDS
    reactions = (movement.DEFENSIVE_FIRST_FIRE,)  # a move in the MPh: the DEFENDER may fire first (A8.1)
    required_rolls = (rally.RALLY_ATTEMPTS,)  # the broken units a side may rally in its part of the RPh (A10.6)
    shots = Shots(("fire",), firers="firers", target="target")  # the map draws the latest fire
    side_fields = AslSide  # the scenario's ELR (A19.1)
    location_fields = AslLocation  # Residual FP (A8.2), SMOKE
    grid = ASL_GRID  # bot/core/grid.py: where a Location is, the range and the line of sight
    instead = {"artillery": "fire with /fire"}
    working_actions = frozenset({"fire", "morale", "rally", "transfer", "recover"})
    eager_actions = frozenset({"fire"})

    counter_fields = (("fp", "FP"), ("range", "range"), ("morale", "morale"), ("broken_morale", "broken morale"),
                      ("leadership", "leadership"), ("rof", "ROF"), ("breakdown", "B#"), ("removal", "X#"),
                      ("portage", "PP"))
    counter_marks = (("fp_underlined", True, "Assault Fire"),)  # A7.36
    check_results = {"kept": "may fire again (A9.2)"}  # a machine gun that kept its rate of fire
    setup_fields = ("owner",)  # a support weapon's holder
    stat_ranges = {"fp": (0, 36), "range": (0, 40), "morale": (0, 10), "broken_morale": (0, 10),
                   "leadership": (-3, 3), "rof": (0, 4), "breakdown": (2, 12), "removal": (2, 12), "portage": (0, 10)}
    status_flags = (("broken", "broken"), ("pinned", "pinned"), ("dm", "DM"), ("cx", "CX"), ("in_melee", "in melee"),
                    ("malfunctioned", "malfunctioned"), ("captured", "captured"), ("moving", "moving"),
                    ("assault_moving", "assault moving"), ("wounded", "wounded"))

    def unit_model(self):
        return AslUnit

    def stacking_refusal(self, game: Game, units: list[Any], location: str | None) -> str | None:
        """A5.1: each side stacks up to three squads or their equivalents (a half-squad or a crew is half
        a squad, A5.5) plus four SMC per Location, and never more at the set-up (during play a Location
        may be overstacked, at a cost the players apply: A5.11-A5.13). The numbers: data/asl/stacking.yaml."""
        if location is None or not units:
            return None
        limits = tables.stacking()
        side = units[0].side
        moving = {u.id for u in units}
        together = [u for u in game.units_at(location) if u.side == side and u.id not in moving] + units
        squads = sum(limits.weights.get(u.kind, 0) for u in together)
        smc = sum(1 for u in together if u.kind in limits.smc_kinds)
        if squads > limits.squads:
            return (f"{location} would hold {squads:g} squad-equivalents of {game.side_name(side)}: "
                    f"{limits.squads:g} (plus {limits.smc} SMC) per Location at the set-up ({limits.rule})")
        if smc > limits.smc:
            return (f"{location} would hold {smc} SMC of {game.side_name(side)}: {limits.smc} per Location at the "
                    f"set-up ({limits.rule})")
        return None

    def marker_words(self, unit: Any) -> list[str]:
        words = [f"{unit.fire_marker.title()} Fire"] if unit.fire_marker else []
        return words + ([f"held by {unit.owner}"] if unit.owner else [])

    def location_markers(self, location: Any) -> list[str]:
        """A Residual FP marker (A8.2) and SMOKE in the Location."""
        found = [f"Residual {location.residual_fp} FP"] if location.residual_fp else []
        return found + (["SMOKE"] if location.smoke else [])

    def location_words(self, location: Any) -> list[str]:
        found = [f"Residual FP {location.residual_fp}"] if location.residual_fp else []
        return found + (["smoke"] if location.smoke else [])

    def smoke_in(self, location: Any) -> bool:
        return bool(location.smoke)

    def suggestions(self, suggest: Suggest, game: Game, named: dict[str, list[str]]) -> list[tuple[str, str]]:
        if suggest.kind == "weapon":  # the support weapons, each with who holds it (or where it lies)
            return [(f"{w.id} ({w.name}, {f'held by {w.owner}' if w.owner else 'unpossessed'}, "
                     f"{w.location or 'off board'})", w.id)
                    for w in game.units.values() if getattr(w, "is_sw", False) and not w.eliminated]
        return common_suggestions(suggest.kind, game, named, of=suggest.of)

    def preview_size(self, game: Game, order: Any) -> int | None:
        if isinstance(order, AslCloseCombat):
            return close_combat_odds.preview_size(game, order)
        if isinstance(order, AslFire) and self._fast(game) and fire.fire_kind(game, order) != "fpf":
            return odds.fire_size(game, order)
        return None

    def _fast(self, game: Game) -> bool:
        full = (game.variant or "full") == "full"
        if full and game.options.get("heat_of_battle", "mark") != "mark":
            return False
        return not any(self._slow(game, u) for u in game.units.values())

    @staticmethod
    def _slow(game: Game, unit: Any) -> bool:
        """A unit the fast engine does not mirror: berserk or heroic; a hero whose Casualty Reduction is a
        wound (A17: the engine branches on a leader's wound, it carries a hero as a distribution)."""
        if getattr(unit, "berserk", False) or getattr(unit, "heroic", False):
            return True
        return getattr(unit, "kind", "") == "hero" and not unit.eliminated and effects.wounds_refereed(game)

    def preview(self, game: Game, order: Any) -> Any:
        if isinstance(order, AslCloseCombat):  # None: the resolver enumerated (an ambush, an SMC target)
            return close_combat_odds.close_combat_odds(game, order)
        # the fast engine mirrors Heat of Battle as the bot marks it (A15, the default); when the
        # game has the bot roll the HoB table, or a unit is berserk or heroic, every roll goes
        # through the real resolver instead (exact, but only for small trees)
        full = (game.variant or "full") == "full"
        if full and game.options.get("heat_of_battle", "mark") != "mark":
            return None
        if any(self._slow(game, u) for u in game.units.values()):
            return None
        if isinstance(order, AslFire) and fire.fire_kind(game, order) != "fpf":
            return odds.fire_odds(game, order)
        if isinstance(order, AslMorale):
            return odds.morale_odds(game, order)
        if isinstance(order, AslRally):
            return odds.rally_odds(game, order)
        return None

    def sight_terrain(self, location: Any) -> Any:
        return sight_terrain(location)

    def terrains(self) -> dict:
        from . import tables  # data/asl/terrain.yaml

        return tables.terrains()

    def file_formats(self) -> tuple:
        return (vasl.FORMAT,)  # VASL's saved games and logs (bot/core/rulesets/asl/vasl.py)

    def counter_types(self) -> dict:
        from . import counters  # data/asl/counters.yaml

        return counters.counter_types()

    def table_loaders(self) -> tuple:
        from . import effects, heat, tables

        # data/asl/ift.yaml, morale.yaml (MC, ELR, Casualty Reduction), heat_of_battle.yaml, stacking.yaml,
        # close_combat.yaml; the VASL board geometry and counter names (boards.yaml, vasl.yaml)
        return (tables.ift, effects.rules, heat.table, tables.stacking, tables.close_combat, vasl.boards, vasl.names)

    # which player turn each side's Self-Rally was in; the ATTACKER's Close Combat declarations waiting
    # for the DEFENDER's, and the Locations fought in this CCPh; the clean-up's version
    # (data/asl/markers.yaml) and whether single-man counters are wounded (A17, data/asl/morale.yaml):
    # games created today have both, a game logged before replays as it was played
    internal_options = (rally.SELF_RALLY_OPTION, close_combat.DECLARED, close_combat.RESOLVED, markers.data().option,
                        effects.rules().wounds.option)
    creation_defaults = {markers.data().option: markers.VERSION, effects.rules().wounds.option: True}

    def game_options(self) -> tuple[GameOption, ...]:
        hob, recovery = heat.table(), effects.rules().recovery
        drms = tuple(GameOption(f"heat_of_battle_drm_{d.key}", "whole number",
                                f"Heat of Battle DRM {d.label}"
                                + ("" if d.value is not None else ": not in the bot's sources, unused until given"),
                                default=d.value, low=-6, high=6, rule=hob.rule, variants=("full",),
                                example="1" if d.value is None else "")
                     for d in hob.drms)
        return (
            GameOption(heat.MODE_OPTION, "choice", "after an Original 2: mark marks the unit and leaves the Heat of "
                       "Battle table to the players; table has the bot roll it", default=hob.default_mode,
                       choices=hob.modes, rule=hob.rule, variants=("full",)),
            *drms,
            GameOption(heat.DRM_OPTION, "table", "the Heat of Battle DRMs in one table ({key: number}), as the "
                       "heat_of_battle_drm_<key> options", rule=hob.rule, variants=("full",)),
            GameOption("night", "yes/no", f"night: +{recovery.night_drm} to a Recovery dr", default=False,
                       rule=transfer.RULE_RECOVERY),
            GameOption("jungle", "yes/no", f"jungle, kunai or bamboo: +{recovery.jungle_drm} to a Recovery dr",
                       default=False, rule=transfer.RULE_RECOVERY),
            GameOption(vasl.BOARD_OPTION, "whole number", "the VASL board a one-board game is on (its Location ids "
                       "name none): /scenario export format:vasl lays the game out on it; set when the game comes "
                       "from a VASL file", low=1, high=999, example="32"),
        )

    def resolve_action(self, game: Game, order, roller: Roller) -> Outcome:
        if isinstance(order, AslFire):
            return fire.resolve_fire(game, order, roller)
        if isinstance(order, AslMorale):
            return morale.resolve_morale(game, order, roller)
        if isinstance(order, AslRally):
            return rally.resolve_rally(game, order, roller)
        if isinstance(order, AslTransfer):
            return transfer.resolve_transfer(game, order, roller)
        if isinstance(order, AslRecover):
            return transfer.resolve_recover(game, order, roller)
        if isinstance(order, AslMove):
            return movement.resolve_move(game, order, roller)
        if isinstance(order, AslCloseCombat):
            return close_combat.resolve_close_combat(game, order, roller, self)
        return super().resolve_action(game, order, roller)

    def phase_end(self, game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
        markers.clean_up(game, trail, effects)  # every marker that comes off now (data/asl/markers.yaml)
        rally.phase_end(game)  # Self-Rally again in the next player turn
        close_combat.phase_end(game, trail, effects)  # the CCPh's declarations lapse (A11)

    def check_step_end(self, game: Game, step: Any) -> None:
        if game.phase == "CCPh":
            waiting = close_combat.pending(game)
            if waiting:
                raise IllegalOrder(f"the Close Combat declared in {', '.join(waiting)} awaits the DEFENDER's "
                                   "declaration (/close-combat, hold:yes for no attack), which resolves it (A11)",
                                   rule="A11")

    def result_name(self, outcome: Outcome) -> str | None:
        if outcome.action == "close_combat":  # one result per attack, in the order made
            return " / ".join(cell.result for cell in outcome.cells) if outcome.cells else "declared"
        return None


RULESET = AslRuleset()
