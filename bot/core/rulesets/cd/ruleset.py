"""The Command Decision ruleset class (see __init__.py for why it lives here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ...commands import Suggest
from ...dice import Roller
from ...errors import IllegalOrder
from ...options import GameOption
from ...orders import Sealing
from ...outcome import Outcome, UnitEffect
from ...ruleset import Ruleset, Shots
from ...sides import possessive
from ...suggest import common_suggestions, first_named
from ...trail import Trail
from ..base import NoSideNumbers, SmokeMarkers, SmokeOnlyLocation
from . import odds, tables
from .commands import COMMANDS
from .samples import SAMPLES
from .movement import OP_FIRE
from .models import CdStand
from .orders import (MORALE_DUE_RULE, SEALING, CdArtilleryResponse, CdCompanyNear, CdCompanyWaive, CdFire,
                     CdGiveOrders, CdIndirectFire, CdMorale, CdMove, CdOrder, CdRally)
from .turn import COMPANY_CHECKS, SIMULTANEOUS, TURN_RULES, apply_pending, due_text, morale_due, turn_rules

if TYPE_CHECKING:
    from ...game import Game


INITIATIVE_RULE = "CD 2A (ties rolled again: assumed)"
SEAL_ORDER_RULE = "a side's sealed orders open in the order they were sealed (assumed)"
DEPLETION_LAST = "cd_depletion_after_hits"


class CdRuleset(SmokeMarkers, Ruleset):
    name = "cd"
    samples = SAMPLES  # the sandbox's sample games (samples.py)
    title = "Command Decision: Test of Battle"
    short_name = "CD"
    phases = ("Artillery", "Movement", "OpFire", "GeneralFire", "CommandMorale")
    phase_names = {"Artillery": "Artillery & Air Phase", "Movement": "Movement Phase",
                   "OpFire": "Opportunity Fire Phase", "GeneralFire": "General Fire Phase",
                   "CommandMorale": "Command & Morale Phase"}
    order_type = CdOrder
    commands = COMMANDS
    reactions = (OP_FIRE,)  # a stand moving: the other side's Op Fire (CD [13.1.2])
    required_rolls = (COMPANY_CHECKS,)  # the company morale checks due in the Command & Morale Phase (5B)
    instead = {"transfer": "its weapons belong to the units themselves",
               "recover": "its weapons belong to the units themselves"}

    counter_fields = (("company", "company"), ("quality", "quality"), ("rof", "ROF"), ("morale", "morale"),
                      ("weapon_class", "weapon class"), ("to_hit", "to hit"), ("penetration", "penetration"),
                      ("armour", "armour"), ("weight", "weight"), ("idf_to_hit", "indirect to hit"))
    setup_fields = ("company",)  # morale is checked by company [21]
    stat_ranges = {"rof": (0, 10), "to_hit": (0, 10), "penetration": (0, 20), "armour": (0, 20), "weight": (0, 10),
                   "caliber_mm": (0, 500), "idf_to_hit": (0, 10), "morale": (0, 10)}
    status_flags = (("shaken", "shaken"), ("demoralized", "demoralized"), ("pinned", "pinned"),
                    ("suppressed", "suppressed"), ("forced_back", "forced back"), ("ammo_depleted", "ammo depleted"))
    words = {"broken": "shaken"}
    board = "table"  # stands on a table top, measured in inches: no hexes
    # the map draws the latest direct fire [13] or battery's indirect fire [17.6], from stand to stands
    shots = Shots(("fire", "indirect_fire"), firers="firer", targets="targets")
    side_fields = NoSideNumbers
    location_fields = SmokeOnlyLocation  # smoke [17.5], removed at the end of the turn

    def unit_model(self):
        return CdStand

    def suggestions(self, suggest: Suggest, game: Game, named: dict[str, list[str]]) -> list[tuple[str, str]]:
        if suggest.kind == "range_band":  # the bands of the firer's to-hit numbers (every stand's until named)
            firer = first_named(game, named, suggest.of)
            stands = [firer] if firer is not None else [u for u in game.units.values() if not u.eliminated]
            bands: dict[str, str] = {}
            for stand in stands:
                for band, number in getattr(stand, "to_hit", {}).items():
                    bands.setdefault(band, f"{band} (hits on {number})" if firer is not None else band)
            return [(label, band) for band, label in bands.items()]
        return common_suggestions(suggest.kind, game, named, of=suggest.of)

    def step_started(self, game: Game, step: Any, trail: Trail, roller: Roller | None) -> None:
        """2A: at the start of the Movement Phase each side rolls a d10 for the initiative; the high
        side is Side A (a tie is rolled again, every roll in the trail). 5B: a side's part of the
        Command & Morale Phase begins with the list of its companies that must check morale."""
        if step.phase == "CommandMorale" and turn_rules(game):
            self._list_morale_due(game, step, trail)
            return
        steps = self.sequence().steps  # type: ignore[union-attr]
        if step.phase != "Movement" or (game.step and steps[game.step - 1].phase == "Movement"):
            return  # only as the Movement Phase begins
        if roller is None:
            raise IllegalOrder("the Movement Phase starts with the initiative roll: it needs dice")
        trail.section(f"Initiative, turn {game.turn}", rule=INITIATIVE_RULE)
        while True:
            rolls = [roller.d10(f"initiative {game.side_name(side)}").total for side in (0, 1)]
            for side, roll in enumerate(rolls):
                trail.put("dice", f"{game.side_name(side)} d10", roll, rule=INITIATIVE_RULE)
            if rolls[0] != rolls[1]:
                break
            trail.note("A tie: both sides roll again", rule=INITIATIVE_RULE)
        game.initiative = 0 if rolls[0] > rolls[1] else 1
        trail.put("check", f"{game.side_name(game.initiative)} roll high: Side A this turn",
                  game.side_name(game.initiative), rule=INITIATIVE_RULE)

    def _list_morale_due(self, game: Game, step: Any, trail: Trail) -> None:
        side = self.role_side(game, step.holder)
        due = morale_due(game, side)
        name = game.side_name(side)
        if due:
            trail.note(f"{name} must check morale (5B): {due_text(due)}; /morale company:<name> for each (or the "
                       "game master waives one with /company waive) before /done", rule=MORALE_DUE_RULE)
        else:
            trail.note(f"No company of the {name} has a morale check due yet (fired upon, or a friendly company "
                       "eliminated)", rule=MORALE_DUE_RULE)
        trail.note('A company within 12" of the enemy checks too: declare it with /company near; a pin from an earlier '
                   "turn comes off if the company passes this turn's check or makes none",
                   rule=tables.morale().pin_removal_rule)

    def marker_words(self, unit: Any) -> list[str]:
        """A simultaneous fire phase's results held on the stand until the phase ends (turn.py)."""
        held = getattr(unit, "pending", None)
        return [f"{' and '.join(dict.fromkeys(held))} at the end of the phase"] if held else []

    def map_markers(self, unit: Any) -> list[str]:
        """The status board's markers, then the order the stand was given (the Orders Summary)."""
        words = super().map_markers(unit)
        return words + [f"{unit.order} orders"] if unit.order else words

    def stand_note(self, unit: Any) -> str:
        return str(unit.quality)

    def result_name(self, outcome: Outcome) -> str | None:
        if outcome.action == "fire":  # direct fire reads by the hits scored
            hits = sum(1 for s in outcome.trail if s.kind == "check" and s.label.endswith(": hit"))
            return f"{hits} hit{'s' if hits != 1 else ''}"
        return None

    def preview(self, game: Game, order: BaseModel) -> Any:
        if isinstance(order, CdFire):
            return odds.fire_odds(game, order)
        return None

    def counter_types(self) -> dict[str, dict[str, Any]]:
        return {key: dict(fields) for key, fields in tables.counters().counters.items()}

    def table_loaders(self) -> tuple:
        # data/cd/hit_results.yaml, modifiers.yaml, morale.yaml, orders.yaml, cover.yaml, turn.yaml
        # (counters.yaml: counter_types)
        return (tables.hit_results, tables.modifiers, tables.morale, tables.orders, tables.cover, tables.turn)

    # a natural 1's ammunition depletion roll [27.1] comes after the hit results, so the manual dice
    # meant for the hit results go to them (games created before roll it between, as they were played)
    internal_options = (DEPLETION_LAST, TURN_RULES)
    # games created since issue 25 referee what a turn needs between the rolls (turn.py)
    creation_defaults = {DEPLETION_LAST: True, TURN_RULES: True}

    def game_options(self) -> tuple[GameOption, ...]:
        data = tables.morale()
        return (
            GameOption("cd_morale_direction", "choice", "how the d10 meets a company's morale rating: at_most passes "
                       "when the d10 is at most the rating plus modifiers, at_least when d10 plus modifiers reaches it",
                       default=data.direction, choices=("at_most", "at_least"), rule=data.rule),
            GameOption(SEALING.option, "yes/no", "orders are sealed in the Command & Morale Phase (/orders ... "
                       "sealed:yes) and revealed in the Movement Phase, Side A first (/reveal); an open /orders is "
                       "refused", default=False, rule=SEALING.rule),
            GameOption(SIMULTANEOUS, "choice", "the fire phases both sides resolve together, their results taking "
                       "effect at the phase's end (a stand hit in it still fires in it): prep_general (Prep Fire and "
                       "General Fire), prep (Prep Fire only, General Fire side by side), none (every result at once)",
                       default=tables.turn().simultaneous.default, choices=tuple(tables.turn().simultaneous.phases),
                       rule=tables.turn().simultaneous.rule),
            GameOption("cd_morale_ratings", "table", "the morale rating of each troop quality "
                       f"({', '.join(data.ratings['at_most'])}), overriding the table's", rule=data.rule),
        )

    def resolve_action(self, game: Game, order: BaseModel, roller: Roller) -> Outcome:
        from .context import CdContext
        from .fire import resolve_fire
        from .indirect import resolve_indirect, resolve_response
        from .morale import resolve_morale, resolve_near, resolve_rally, resolve_waive

        from .movement import resolve_move, resolve_orders

        ctx = CdContext(game=game, roller=roller)
        handlers = ((CdFire, resolve_fire), (CdIndirectFire, resolve_indirect),
                    (CdArtilleryResponse, resolve_response), (CdMorale, resolve_morale), (CdRally, resolve_rally),
                    (CdGiveOrders, resolve_orders), (CdMove, resolve_move), (CdCompanyNear, resolve_near),
                    (CdCompanyWaive, resolve_waive))
        for kind, handler in handlers:
            if isinstance(order, kind):
                return handler(ctx, order)
        raise IllegalOrder(f"{self.title} has no '{getattr(order, 'action', '?')}' action")

    # --- sealed orders (bot/core/sealed.py) ---

    def sealing(self, game: Game) -> Sealing | None:
        return SEALING if game.options.get(SEALING.option) else None

    def resolve_revealed(self, game: Game, order: BaseModel, roller: Roller, *, sealing: bool) -> Outcome:
        from .context import CdContext
        from .movement import resolve_orders

        if not isinstance(order, CdGiveOrders):
            return super().resolve_revealed(game, order, roller, sealing=sealing)
        return resolve_orders(CdContext(game=game, roller=roller, revealed=not sealing), order, sealing=sealing)

    def check_reveal(self, game: Game, pending: Any) -> None:
        from ... import sequence as play

        side, rule = game.side_name(pending.side), SEALING.rule
        if game.phase != SEALING.reveal_phase or pending.turn >= game.turn:
            raise IllegalOrder(f"orders sealed in the Command & Morale Phase are revealed in the next turn's "
                               f"Movement Phase, Side A first ({rule}); this is the {self.phase_names[game.phase]} "
                               f"of turn {game.turn}: {side} reveal #{pending.seq} then", rule=rule)
        earlier = [p.seq for p in game.sealed if p.side == pending.side and p.seq < pending.seq]
        if earlier:
            raise IllegalOrder(f"{side} sealed #{earlier[0]} before #{pending.seq}: /reveal sealed:{earlier[0]} "
                               f"first ({SEAL_ORDER_RULE})", rule=rule)
        step = play.current(game, self)
        if (turn_rules(game) and step is not None and game.to_act == pending.side
                and "fire" in step.orders.get(step.holder, ())):
            return  # a side reveals in its own Prep Fire (2B-2C) the orders of the stands it prep fires with
        side_a = self.role_side(game, "side_a")
        waiting = [p.seq for p in game.sealed if p.side == side_a and p.turn < game.turn]
        if pending.side != side_a and waiting:
            raise IllegalOrder(f"Side A ({game.side_name(side_a)}) reveal their orders first ({rule}): "
                               f"{', '.join(f'#{n}' for n in waiting)} still sealed; {side} reveal theirs when "
                               f"they move, after Side A's are open", rule=rule)
        if step is not None and (game.to_act != pending.side or "move" not in step.orders.get(step.holder, ())):
            also = " (or in their Prep Fire, to prep fire with the stands they name)" if turn_rules(game) else ""
            raise IllegalOrder(f"{side} reveal their sealed orders as they move, in their part of the Movement "
                               f"Phase{also} ({rule}); it is the {play.step_name(game, self, step)}, "
                               f"{game.side_name(play.side_to_act(game))} to act", rule=rule)

    def check_step_end(self, game: Game, step: Any) -> None:
        if step.phase == "CommandMorale" and turn_rules(game) and game.to_act is not None:
            due = morale_due(game, game.to_act)
            if due:
                first = next(iter(due))
                raise IllegalOrder(f"{game.side_name(game.to_act)} must check morale before they end the "
                                   f"{self.phase_names['CommandMorale']}: {due_text(due)} (CD 5B [21]); "
                                   f"/morale company:{first}, or the game master waives it with /company waive "
                                   f"company:{first}", rule=MORALE_DUE_RULE)
        if step.phase != SEALING.reveal_phase or "move" not in step.orders.get(step.holder, ()):
            return
        left = [p.seq for p in game.sealed if p.side == game.to_act and p.turn < game.turn]
        if left:
            raise IllegalOrder(f"{game.side_name(game.to_act)} still have sealed orders to reveal "
                               f"({', '.join(f'#{n}' for n in left)}): /reveal sealed:{left[0]} first; a side "
                               f"reveals its orders as it moves ({SEALING.rule})", rule=SEALING.rule)

    # --- phases ---

    def next_phase(self, game: Game) -> tuple[str, int, int]:
        """Both sides act in every phase of a CD game turn (side A/B by the initiative roll of the
        Movement Phase, which the players make), so the turn simply cycles: after Command &
        Morale comes the next turn's Artillery & Air Phase, with the active side unchanged."""
        i = self.phases.index(game.phase) if game.phase in self.phases else -1
        if i + 1 < len(self.phases):
            return self.phases[i + 1], game.turn, game.active_side
        return self.phases[0], game.turn + 1, game.active_side

    def step_end(self, game: Game, step: Any, trail: Trail, effects: list[UnitEffect]) -> None:
        """The last fire step of a simultaneous fire phase (Prep Fire, General Fire) ends: the
        results it held take effect (turn.py)."""
        steps = self.sequence().steps  # type: ignore[union-attr]
        following = steps[(game.step + 1) % len(steps)]  # type: ignore[operator]
        fires = any("fire" in actions for actions in step.orders.values())
        if fires and not (following.phase == step.phase and any("fire" in a for a in following.orders.values())):
            name = "Prep Fire" if step.phase == "Movement" else self.phase_names.get(step.phase, step.phase)
            apply_pending(game, trail, effects, name)

    def phase_end(self, game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
        apply_pending(game, trail, effects, self.phase_names.get(game.phase, game.phase))  # a result left held
        if game.phase == SEALING.reveal_phase:
            lapse_sealed(game, trail)
        if game.phase == "CommandMorale":
            end_of_turn(game, trail, effects)


def lapse_sealed(game: Game, trail: Trail) -> None:
    """The Movement Phase ends (moved on by the game master): orders sealed for it and not revealed
    lapse; their stands keep the order they are under (assumed). /reveal still opens their text."""
    for held in [p for p in game.sealed if p.turn < game.turn]:
        trail.note(f"{possessive(game.side_name(held.side))} order sealed at #{held.seq} was not revealed in the "
                   "Movement Phase: it lapses, its stands keep their order (assumed)", rule=SEALING.rule)
    game.sealed = [p for p in game.sealed if p.turn >= game.turn]


def end_of_turn(game: Game, trail: Trail, effects: list[UnitEffect]) -> None:
    """Turn end (5F) and the Artillery Phase's clean-up (1B): old pins [21.3.2], this turn's
    forced-back marks [21.1.1], suppression [17.5, 20] and smoke [17.5] come off."""
    from .context import status_text

    for stand in [u for u in game.units.values() if isinstance(u, CdStand) and not u.eliminated]:
        before = status_text(stand)
        done = _clean_stand(game, stand, trail)
        if done:
            effects.append(UnitEffect(unit=stand.id, name=stand.name, side=stand.side, before=before,
                                      after=status_text(stand), effects=tuple(done)))
    for loc in game.locations.values():
        if loc.smoke:
            loc.smoke = False
            trail.put("marker", f"{loc.id}: smoke removed", rule="CD [17.5]")


def _clean_stand(game: Game, stand: CdStand, trail: Trail) -> list[str]:
    done = []
    stale_pin = stand.pinned and (stand.pinned_turn or 0) < game.turn
    if stale_pin and stand.morale_checked_turn != game.turn:
        stand.pinned = False
        done.append("pin removed (no check this turn)")
        trail.put("marker", f"{stand.label}: pin removed, no morale check this turn", rule="CD [21.3.2]",
                  unit=stand.id)
    if stand.forced_back:
        stand.forced_back = False
        done.append("forced-back mark cleared")
        trail.put("marker", f"{stand.label}: forced back this turn, cleared", rule="CD [21.1.1]", unit=stand.id)
    if stand.suppressed:
        stand.suppressed = False
        done.append("suppression removed")
        trail.put("marker", f"{stand.label}: suppression removed", rule="CD [17.5, 20]", unit=stand.id)
    return done


RULESET = CdRuleset()
