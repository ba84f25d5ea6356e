"""Movement, rout and advance (A4, A10.5), as far as the referee checks them: which units may move
in which phase, where they may not go, and the markers the move leaves for the Defensive First
Fire that may follow (``moving``, Assault Movement, CX). Movement Factors, terrain costs and the
hexes crossed on the way are the players' to count."""

from __future__ import annotations

from ...dice import Roller
from ...errors import IllegalOrder
from ...game import Game
from ...movement import enemies_in, move_to, movers
from ...outcome import Outcome
from ...reactions import Reaction
from .. import get_ruleset
from .context import AslContext
from .effects import rules
from .models import AslUnit
from .orders import AslMove

MOVE, ROUT, ADVANCE = "A4.1", "A10.5", "A4.7"
WOUNDS = rules().wounds  # a wounded man's movement (A17.2)


def resolve_move(game: Game, order: AslMove, roller: Roller) -> Outcome:
    ctx = AslContext(game=game, roller=roller)
    units: list[AslUnit] = movers(ctx, order.units)
    known = next((k for k in game.locations if k.casefold() == order.to.casefold()), None)
    to = known or order.to
    enemy = enemies_in(ctx, to, units[0].side)
    if game.phase == "MPh":
        rule, what = MOVE, "moves"
        for unit in units:
            _may_move(unit)
        if enemy:  # A4.14: entering a Known enemy unit's Location is for a few special cases only
            raise IllegalOrder(f"{to} holds {enemy[0].label}: infantry may not enter an enemy-occupied Location "
                               "in the MPh (A4.14)", rule="A4.14")
        wounded = next((u for u in units if u.wounded), None)
        if order.cx and wounded is not None:
            raise IllegalOrder(f"{wounded.label} is wounded: {WOUNDS.mf} MF and no Double Time ({WOUNDS.movement_rule}); "
                               "move it without cx", rule=WOUNDS.movement_rule)
        if order.kind == "assault" and order.cx:
            raise IllegalOrder("Assault Movement and Double Time do not go together: an assault mover spends at "
                               "most half its MF (A4.61, A4.5)", rule="A4.61")
    elif game.phase == "RtPh":
        rule, what = ROUT, "routs"
        for unit in units:
            if not unit.broken:
                raise IllegalOrder(f"{unit.label} is not broken: only broken units rout ({ROUT})", rule=ROUT)
        if enemy:
            raise IllegalOrder(f"{to} holds {enemy[0].label}: a routing unit may not enter a Location of a Known "
                               f"enemy unit ({ROUT})", rule=ROUT)
        if order.kind != "normal" or order.cx:
            raise IllegalOrder("routing units neither Assault Move nor Double Time (A10.5)", rule=ROUT)
    else:  # APh
        rule, what = ADVANCE, "advances"
        for unit in units:
            if unit.broken or unit.pinned or unit.in_melee:
                state = "broken" if unit.broken else "pinned" if unit.pinned else "held in melee"
                raise IllegalOrder(f"{unit.label} is {state} and may not advance ({ADVANCE})", rule=ADVANCE)
        if order.kind != "normal" or order.cx:
            raise IllegalOrder("an advance is one Location, neither Assault Movement nor Double Time (A4.7)",
                               rule=ADVANCE)
    ctx.trail.section(f"{', '.join(u.label for u in units)} {what} to {to}", rule=rule)
    where = move_to(ctx, get_ruleset(game.ruleset), units, to, what, rule=rule)
    if game.phase == "MPh":
        _mark_movers(ctx, units, order)
        residual = game.locations[where].residual_fp
        if residual:
            ctx.trail.note(f"{where} holds Residual FP {residual}: the DEFENDER may attack the movers with it "
                           "(A8.2)", rule="A8.2")
    elif enemy:
        ctx.trail.note(f"{where} holds {', '.join(u.label for u in enemy)}: Close Combat in the CCPh (A4.7)",
                       rule=ADVANCE)
    headline = f"{', '.join(u.label for u in units)} {what} to {where}"
    return ctx.outcome_of("move", headline, units[0].side)


def _may_move(unit: AslUnit) -> None:
    """A4.1: Infantry that fired in the PFPh, broken, or held in Melee do not move; nor do pinned units (A7.8)."""
    if unit.broken:
        raise IllegalOrder(f"{unit.label} is broken: broken units rout in the RtPh, they do not move ({MOVE})",
                           rule=MOVE)
    if unit.fire_marker == "prep":
        raise IllegalOrder(f"{unit.label} fired in the PFPh (Prep Fire marker) and may not move ({MOVE})", rule=MOVE)
    if unit.in_melee:
        raise IllegalOrder(f"{unit.label} is held in Melee and may not move ({MOVE})", rule=MOVE)
    if unit.pinned:
        raise IllegalOrder(f"{unit.label} is pinned and may not move (A7.8)", rule="A7.8")
    if unit.is_sw:
        raise IllegalOrder(f"{unit.label} is a support weapon: it moves with the unit holding it")


def _mark_movers(ctx: AslContext, units: list[AslUnit], order: AslMove) -> None:
    for unit in units:
        unit.moving = True  # expended MF: a target for Defensive First Fire (A8.1)
        ctx.effect(unit, "moving (expended MF): Defensive First Fire may target it", rule="A8.1")
        if order.kind == "assault":
            unit.assault_moving = True
            ctx.effect(unit, "Assault Movement: no FFNAM against it", rule="A4.61")
        if order.cx and not unit.cx:
            unit.cx = True
            ctx.effect(unit, "CX (Double Time)", rule="A4.5")


def _may_fire_first(game: Game, side: int) -> bool:
    """The DEFENDER has a unit that could fire at the movers: in play on the board, not broken, not a
    weapon, not marked Final Fire (A8.1, A8.4); line of sight and range are the players' to judge."""
    return any(u.side == side and not u.eliminated and u.location is not None and not u.broken
               and not u.is_sw and u.fire_marker != "final" for u in game.units.values())


# A8.1: a unit or stack that expends MF in the MPh may be attacked by Defensive First Fire as it does;
# the window lets the DEFENDER's players, hours away, answer each move before the ATTACKER goes on
DEFENSIVE_FIRST_FIRE = Reaction(
    after="move", phases=("MPh",), name="Defensive First Fire", rule="A8.1", command="fire", action="fire",
    target="target", target_is="location", able=_may_fire_first)
