"""ASL rally (A10.6): broken units try to return to Good Order in the Rally Phase.

A broken MMC rallies with a Good Order friendly leader in its Location, or by Self-Rally (+1, one
MMC per side per player turn, only where no such leader is); a broken leader or hero rallies
himself. Each broken unit gets one attempt per player turn. At the end of the RPh DM markers come
off (A10.62); at the end of each player turn the per-player-turn bookkeeping (rally attempts,
Self-Rally, sole RPh actions, MPh recovery attempts) is cleared.
"""

from __future__ import annotations

from typing import cast

from ...dice import Roller
from ...errors import IllegalOrder, InvalidOrder, RulesError
from ...game import Game
from ...outcome import Outcome
from ...required import RequiredRoll
from . import heat, morale
from .context import AslContext
from .effects import casualty_reduction, rules
from .models import AslUnit
from .orders import AslRally

RULE = "A10.6"
SELF_RALLY_OPTION = "asl_self_rally"  # game.options: side index (str) -> player turn of its Self-Rally


def player_turn(game: Game) -> int:
    """A number for the current player turn (two per game turn)."""
    return game.turn * 2 + game.active_side


# --------------------------------------------------------------------------- who may rally

def _may_rally(ctx: AslContext, unit: AslUnit) -> None:
    if unit.is_sw:
        raise InvalidOrder(f"{unit.label} is a support weapon: only personnel rally", field="unit")
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated")
    if not unit.broken:
        raise IllegalOrder(f"{unit.label} is not broken: only broken units rally ({RULE})")
    if unit.rallied_turn == player_turn(ctx.game):
        raise IllegalOrder(f"{unit.label} has already tried to rally this player turn ({RULE})")


def _named_leader(ctx: AslContext, unit: AslUnit, leader_id: str) -> AslUnit:
    leader = ctx.unit(leader_id, field="leader")
    if leader.kind != "leader":
        raise IllegalOrder(f"{leader.label} is not a leader: only a leader rallies others (A10.7)")
    if leader.id == unit.id:
        raise InvalidOrder("a leader rallying himself is a Self-Rally: leave 'leader' empty", field="leader")
    if leader.side != unit.side or leader.location != unit.location or leader.eliminated:
        raise IllegalOrder(f"{leader.label} is not a friendly leader in {unit.location} ({RULE})")
    if leader.broken:
        raise IllegalOrder(f"{leader.label} is broken: he must rally himself before he rallies others ({RULE})")
    return leader


def _rallier(ctx: AslContext, unit: AslUnit, order: AslRally) -> AslUnit | None:
    """The leader who rallies the unit, or None for a Self-Rally (checked here)."""
    if order.self_rally and order.leader:
        raise InvalidOrder("a rally is either with a leader or a Self-Rally, not both", field="self_rally")
    if order.leader:
        return _named_leader(ctx, unit, order.leader)
    present = morale.good_order_leaders(ctx, unit)
    if unit.is_leader:
        return present[0] if present and not order.self_rally else None
    if present:
        if order.self_rally:
            raise IllegalOrder(f"{present[0].label} is a Good Order leader in {unit.location}: an MMC may "
                               f"Self-Rally only where none is (A10.63)")
        return present[0]
    used = ctx.game.options.get(SELF_RALLY_OPTION, {}).get(str(unit.side))
    if used == player_turn(ctx.game):
        raise IllegalOrder(f"{ctx.game.side_name(unit.side)} has already tried its one MMC Self-Rally this "
                           f"player turn, and no Good Order leader is in {unit.location} (A10.63)")
    return None


def may_rally_now(game: Game, side: int) -> list[tuple[str, str]]:
    """The side's broken units that may try to rally now (A10.6): not tried this player turn, with a
    Good Order leader in their Location, a leader, or an MMC whose side's one Self-Rally is still
    open (A10.63); broken leaders first, as they rally before they rally others."""
    ctx = AslContext(game, cast(Roller, None))  # nothing is rolled: the checks of an attempt only
    found: list[AslUnit] = []
    for unit in game.units.values():
        if not isinstance(unit, AslUnit) or unit.side != side or not unit.broken or unit.eliminated or unit.is_sw:
            continue
        try:
            _may_rally(ctx, unit)
            _rallier(ctx, unit, AslRally(unit=unit.id))
        except RulesError:
            continue
        found.append(unit)
    found.sort(key=lambda u: not u.is_leader)  # stable: the game's order within leaders and MMC
    return [(u.id, u.label) for u in found]


# a Rally Phase's attempts, offered as buttons to the side rallying (bot/core/required.py)
RALLY_ATTEMPTS = RequiredRoll(action="rally", command="rally", option="unit", verb="Rally", rule=RULE,
                              due=may_rally_now)


# --------------------------------------------------------------------------- the attempt

def resolve_rally(game: Game, order: AslRally, roller: Roller) -> Outcome:
    ctx = AslContext(game, roller)
    unit = ctx.unit(order.unit)
    _may_rally(ctx, unit)
    leader = _rallier(ctx, unit, order)
    self_rally = leader is None
    ctx.touch(unit)
    unit.rallied_turn = player_turn(game)
    if self_rally and not unit.is_leader:
        game.options.setdefault(SELF_RALLY_OPTION, {})[str(unit.side)] = player_turn(game)
    how = "Self-Rally" if self_rally else f"rallied by {leader.label}"
    ctx.trail.section(f"Rally: {unit.label} ({how})", rule=RULE, unit=unit.id)
    target = unit.current_morale
    ctx.trail.put("base", "broken-side morale", target, rule=RULE, unit=unit.id)
    total = _drms(ctx, unit, leader)
    roll = ctx.roller.DR(f"rally {unit.label}")
    ctx.trail.put("dice", f"DR: white {roll.white}, colored {roll.colored}", roll.total, rule=RULE, unit=unit.id)
    final = roll.total + total
    verdict = _result(ctx, unit, roll.total, final, self_rally)
    headline = f"{unit.label} rally ({how}): Final DR {final} vs {target} -> {verdict}"
    return Outcome(ruleset="asl", action="rally", headline=headline, actor_side=unit.side,
                   trail=ctx.trail.freeze(), effects=ctx.effects())


def _drms(ctx: AslContext, unit: AslUnit, leader: AslUnit | None) -> int:
    data = rules().rally
    drms: list[tuple[str, int, str]] = []
    if leader is not None:
        drms.append((f"leadership of {leader.label}", leader.leadership, "A10.7"))
    terrain = _terrain(ctx, unit)
    if terrain is not None and terrain.rally_bonus:
        drms.append((f"{terrain.name}: rally terrain", data.terrain_drm, "A10.61"))
    if unit.dm:
        drms.append(("Desperation Morale", data.dm_drm, "A10.62"))
    if leader is None and not unit.is_leader:
        drms.append(("Self-Rally", data.self_rally_drm, "A10.63"))
    for label, value, rule in drms:
        ctx.trail.put("modifier", label, value, rule=rule, unit=unit.id)
    return sum(value for _, value, _ in drms)


def _terrain(ctx: AslContext, unit: AslUnit):
    if unit.location is None:
        return None
    from . import tables  # data/asl/terrain.yaml, loaded on first use

    return tables.terrain(ctx.game.location(unit.location).terrain)


def _result(ctx: AslContext, unit: AslUnit, original: int, final: int, self_rally: bool) -> str:
    data = rules()
    morale_now = unit.current_morale
    if original == data.rally.casualty_original:
        ctx.trail.put("check", f"Final DR {final} vs broken-side morale {morale_now}", "fails", total=final,
                      rule=RULE, unit=unit.id)
        ctx.trail.note("Original 12: Casualty Reduction", rule=RULE, unit=unit.id)
        if casualty_reduction(ctx, unit, rule=RULE) is None and unit.kind == "leader":
            morale.resolve_leader_losses(ctx, [morale.LeaderLoss(unit.id, eliminated=True)])
        return "Casualty Reduction"
    if ctx.full and not self_rally and original == data.heat_of_battle.original:
        ctx.trail.put("check", f"Final DR {final} vs broken-side morale {morale_now}", "Heat of Battle",
                      total=final, rule=data.heat_of_battle.rule, unit=unit.id)
        # the unit rallies on the 2 first; the HoB DR still takes the broken unit's +1 (A15.1)
        mark_note = (f"Original {original}: Heat of Battle / field promotion (A15): the unit rallies; the players "
                     "resolve the HoB table (game option heat_of_battle: mark, data/asl/heat_of_battle.yaml)")
        if heat.mode(ctx) == "mark":
            heat.heat_of_battle(ctx, unit, was_broken=True, mark_note=mark_note)
            _rallies(ctx, unit)
        else:
            ctx.trail.note(f"Original {original}: Heat of Battle (A15): the unit rallies", rule=data.heat_of_battle.rule,
                           unit=unit.id)
            _rallies(ctx, unit)
            heat.heat_of_battle(ctx, unit, was_broken=True, mark_note=mark_note)
        return "rallies (Heat of Battle)"
    passed = final <= morale_now
    ctx.trail.put("check", f"Final DR {final} vs broken-side morale {morale_now}", "passes" if passed else "fails",
                  total=final, rule=RULE, unit=unit.id)
    if not passed:
        ctx.effect(unit, "fails to rally", rule=RULE)
        return "stays broken"
    _rallies(ctx, unit)
    return "rallies"


def _rallies(ctx: AslContext, unit: AslUnit) -> None:
    unit.broken = False
    ctx.effect(unit, "rallied", rule=RULE)
    if unit.dm:
        ctx.trail.note("DM stays until the end of the Rally Phase", rule="A10.62", unit=unit.id)


# --------------------------------------------------------------------------- phase ends

def phase_end(game: Game) -> None:
    """The player turn ends: each side may Self-Rally again (the units' own bookkeeping of the
    player turn comes off with the markers, data/asl/markers.yaml)."""
    if game.phase == "CCPh":
        game.options.pop(SELF_RALLY_OPTION, None)
