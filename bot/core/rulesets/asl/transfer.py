"""Support weapon transfer and recovery, phase by phase (A4.43-.44, seed 002 Table 7).

Table 7 cases: A transfer in the RPh (sole action); B recovery of an unpossessed SW in the RPh
(sole action, dr); C transfer at the start of the friendly APh; D recovery in the friendly MPh
(+1 MF, dr, once per unit per SW per MPh); E/G a leader or hero takes the SW of a friendly broken
unit (RPh sole action / friendly MPh without MF, dr); F the same in the RtPh and the DFPh when the
holder is eliminated or routs away without it. Sub-unit creation (T) is a set-up correction here.
"""

from __future__ import annotations

from ...dice import Roller
from ...errors import IllegalOrder, InvalidOrder
from ...game import Game
from ...outcome import Outcome
from .context import AslContext
from .effects import carried, rules
from .models import ASL_UNITS, AslUnit
from .orders import AslRecover, AslTransfer
from .rally import player_turn

RULE_TRANSFER = "A4.43 / seed 002 Table 7"
RULE_RECOVERY = "A4.44 / seed 002 Table 7"


def phase_key(game: Game) -> str:
    """The phase as a SW's recovered_phase records it: no transfer in that phase (Table 7 *3)."""
    return f"{game.turn}:{game.active_side}:{game.phase}"


# --------------------------------------------------------------------------- lookups and checks

def _weapon(ctx: AslContext, weapon_id: str) -> AslUnit:
    sw = ctx.unit(weapon_id, field="weapon")
    if not sw.is_sw:
        raise InvalidOrder(f"{sw.label} is not a support weapon", field="weapon")
    if sw.eliminated:
        raise IllegalOrder(f"{sw.label} is eliminated")
    return sw


def _personnel(ctx: AslContext, unit_id: str, field: str) -> AslUnit:
    unit = ctx.unit(unit_id, field=field)
    if unit.is_sw:
        raise InvalidOrder(f"{unit.label} is a support weapon: only personnel carry one", field=field)
    if unit.eliminated:
        raise IllegalOrder(f"{unit.label} is eliminated")
    return unit


def _good_order(unit: AslUnit, rule: str) -> None:
    if unit.broken:
        raise IllegalOrder(f"{unit.label} is broken: only Good Order units do this ({rule})")
    if unit.pinned:
        raise IllegalOrder(f"{unit.label} is pinned: only unpinned units do this ({rule})")


def _together(a: AslUnit, b: AslUnit, rule: str) -> None:
    if a.side != b.side:
        raise IllegalOrder(f"{a.label} and {b.label} are not on the same side ({rule})")
    if a.location is None or a.location != b.location:
        raise IllegalOrder(f"{a.label} and {b.label} are not in the same Location ({rule})")


def _no_armed_enemy(ctx: AslContext, unit: AslUnit) -> None:
    enemy = [u for u in ctx.game.units_at(unit.location) if isinstance(u, ASL_UNITS) and not u.is_sw
             and u.side != unit.side and not u.broken]
    if enemy:
        raise IllegalOrder(f"{enemy[0].label}, an armed enemy unit, is in {unit.location}: no recovery there "
                           f"({RULE_RECOVERY} *4)")


def _portage(ctx: AslContext, unit: AslUnit, sw: AslUnit) -> None:
    data = rules().portage
    capacity = data.capacity.get(unit.kind, 0)
    load = sum(w.portage for w in carried(ctx.game, unit.id))
    if load + sw.portage > capacity:
        raise IllegalOrder(f"{unit.label} would carry {load + sw.portage} PP with {sw.label}, over its portage "
                           f"capacity of {capacity} ({data.rule})")


def _sole_rph_action(ctx: AslContext, *units: AslUnit) -> None:
    """Transfer and recovery are a unit's sole RPh action (Table 7 A, B, E)."""
    key = player_turn(ctx.game)
    for unit in units:
        if unit.rph_action_turn == key:
            raise IllegalOrder(f"{unit.label} has already spent its sole Rally Phase action ({RULE_TRANSFER})")
    for unit in units:
        unit.rph_action_turn = key


def _friendly_phase(ctx: AslContext, unit: AslUnit, case: str, rule: str) -> None:
    if unit.side != ctx.game.active_side:
        raise IllegalOrder(f"{case} only in {unit.label}'s own {ctx.game.phase}, not the enemy's ({rule})")


# --------------------------------------------------------------------------- transfer

def resolve_transfer(game: Game, order: AslTransfer, roller: Roller) -> Outcome:
    ctx = AslContext(game, roller)
    sw = _weapon(ctx, order.weapon)
    to = _personnel(ctx, order.to, "to")
    if sw.owner is None:
        raise IllegalOrder(f"{sw.label} is unpossessed: a unit recovers it with /recover ({RULE_RECOVERY})")
    holder = ctx.unit(sw.owner, field="weapon")
    if holder.id == to.id:
        raise IllegalOrder(f"{to.label} already has {sw.label}")
    _together(holder, to, RULE_TRANSFER)
    if holder.broken:
        return _take_from_broken(ctx, sw, holder, to, "transfer")
    _transfer_phase(ctx, holder, to)
    if sw.recovered_phase == phase_key(game):
        raise IllegalOrder(f"{sw.label} was recovered this phase and may not be transferred in it "
                           f"({RULE_TRANSFER} *3)")
    _good_order(holder, RULE_TRANSFER)
    _good_order(to, RULE_TRANSFER)
    _portage(ctx, to, sw)
    if game.phase == "RPh":
        _sole_rph_action(ctx, holder, to)
    case = "A: sole RPh action" if game.phase == "RPh" else "C: at the start of the APh, before advancing"
    ctx.trail.section(f"Transfer of {sw.label}: {holder.label} -> {to.label}", rule=RULE_TRANSFER)
    ctx.trail.note(f"Table 7 case {case}", rule=RULE_TRANSFER)
    _hand_over(ctx, sw, to, f"transferred from {holder.label} to {to.label}", RULE_TRANSFER)
    return _outcome(ctx, "transfer", to, f"{sw.label} passes from {holder.label} to {to.label}")


def _transfer_phase(ctx: AslContext, holder: AslUnit, to: AslUnit) -> None:
    phase = ctx.game.phase
    if phase == "RPh":
        return
    if phase == "APh":
        _friendly_phase(ctx, holder, "a transfer in the APh happens", RULE_TRANSFER)
        return
    if phase == "MPh":
        raise IllegalOrder("in the MPh a SW changes hands only when a sub-unit is created, or when a leader or "
                           f"hero takes it from a friendly broken unit ({RULE_TRANSFER} T, G)")
    raise IllegalOrder(f"no SW transfer in the {phase}: only in the RPh and at the start of the friendly APh "
                       f"({RULE_TRANSFER})")


# --------------------------------------------------------------------------- recovery

def resolve_recover(game: Game, order: AslRecover, roller: Roller) -> Outcome:
    ctx = AslContext(game, roller)
    sw = _weapon(ctx, order.weapon)
    unit = _personnel(ctx, order.unit, "unit")
    if sw.owner is not None:
        holder = ctx.unit(sw.owner, field="weapon")
        if holder.id == unit.id:
            raise IllegalOrder(f"{unit.label} already has {sw.label}")
        _together(holder, unit, RULE_RECOVERY)
        if not holder.broken:
            raise IllegalOrder(f"{holder.label} holds {sw.label} and is in Good Order: that is a transfer "
                               f"(/transfer), not a recovery ({RULE_TRANSFER})")
        return _take_from_broken(ctx, sw, holder, unit, "recover")
    if sw.location is None or sw.location != unit.location:
        raise IllegalOrder(f"{sw.label} is not in {unit.label}'s Location ({RULE_RECOVERY} *4)")
    _good_order(unit, f"{RULE_RECOVERY} *4")
    _no_armed_enemy(ctx, unit)
    case = _recovery_phase(ctx, unit, sw)
    _portage(ctx, unit, sw)
    ctx.trail.section(f"Recovery of {sw.label} (unpossessed) by {unit.label}", rule=RULE_RECOVERY)
    ctx.trail.note(f"Table 7 case {case}", rule=RULE_RECOVERY)
    if _recovery_roll(ctx, unit):
        _recovered(ctx, sw, unit)
        return _outcome(ctx, "recover", unit, f"{unit.label} recovers {sw.label}")
    return _outcome(ctx, "recover", unit, f"{unit.label} fails to recover {sw.label}")


def _recovery_phase(ctx: AslContext, unit: AslUnit, sw: AslUnit) -> str:
    phase = ctx.game.phase
    if phase == "RPh":
        _sole_rph_action(ctx, unit)
        return "B: sole RPh action"
    if phase == "MPh":
        _friendly_phase(ctx, unit, "a recovery in the MPh happens", RULE_RECOVERY)
        attempt = f"{ctx.game.turn}:{ctx.game.active_side}:{sw.id}"
        if attempt in unit.recovery_attempts:
            raise IllegalOrder(f"{unit.label} has already tried to recover {sw.label} this MPh ({RULE_RECOVERY} D)")
        unit.recovery_attempts.append(attempt)
        return "D: costs 1 extra MF; the unit must end Good Order and unpinned"
    if phase in ("RtPh", "DFPh"):
        if not unit.is_leader:
            raise IllegalOrder(f"in the {phase} only a leader or hero may recover a SW, and only one its holder "
                               f"left when eliminated or routing away ({RULE_RECOVERY} F)")
        return "F: left by a unit eliminated, surrendered or routed away"
    raise IllegalOrder(f"no SW recovery in the {phase} ({RULE_RECOVERY})")


def _take_from_broken(ctx: AslContext, sw: AslUnit, holder: AslUnit, smc: AslUnit, action: str) -> Outcome:
    """A leader or hero takes the SW of a friendly broken unit with a recovery dr (cases E, F, G)."""
    if not smc.is_leader:
        raise IllegalOrder(f"{holder.label} is broken: only a leader or hero may take its {sw.label} "
                           f"({RULE_RECOVERY} E, G)")
    _good_order(smc, f"{RULE_RECOVERY} *4")
    _no_armed_enemy(ctx, smc)
    phase = ctx.game.phase
    if phase == "RPh":
        _sole_rph_action(ctx, smc)
        case = "E: sole RPh action"
    elif phase == "MPh":
        _friendly_phase(ctx, smc, "taking a broken unit's SW in the MPh happens", RULE_TRANSFER)
        case = "G: no MF spent"
    elif phase in ("RtPh", "DFPh"):
        case = "F: the broken holder routs away or is eliminated without it"
    else:
        raise IllegalOrder(f"a leader or hero takes a broken unit's SW only in the RPh, the friendly MPh, the "
                           f"RtPh or the DFPh, not the {phase} ({RULE_TRANSFER} E, F, G)")
    _portage(ctx, smc, sw)
    ctx.trail.section(f"{smc.label} takes {sw.label} from broken {holder.label}", rule=RULE_RECOVERY)
    ctx.trail.note(f"Table 7 case {case}", rule=RULE_RECOVERY)
    if _recovery_roll(ctx, smc):
        _recovered(ctx, sw, smc, holder)
        return _outcome(ctx, action, smc, f"{smc.label} takes {sw.label} from {holder.label}")
    return _outcome(ctx, action, smc, f"{smc.label} fails to take {sw.label} from {holder.label}")


def _recovery_roll(ctx: AslContext, unit: AslUnit) -> bool:
    """Recovery dr: CX +1, night +1, jungle/kunai/bamboo +2; leadership never applies (Table 7 *2)."""
    data = rules().recovery
    drms = [("CX", data.cx_drm, unit.cx), ("night", data.night_drm, bool(ctx.game.options.get("night"))),
            ("jungle, kunai or bamboo", data.jungle_drm, bool(ctx.game.options.get("jungle")))]
    total = 0
    for label, value, applies in drms:
        if applies:
            ctx.trail.put("modifier", label, value, rule=f"{RULE_RECOVERY} *2", unit=unit.id)
            total += value
    ctx.trail.note("leadership does not modify a recovery dr", rule=f"{RULE_RECOVERY} *2")
    roll = ctx.roller.dr(f"recovery by {unit.label}")
    ctx.trail.put("dice", "recovery dr", roll.total, rule=RULE_RECOVERY, unit=unit.id)
    final = roll.total + total
    passed = final <= data.max_final_dr
    ctx.trail.put("check", f"Final dr {final} vs {data.max_final_dr}", "recovered" if passed else "fails",
                  total=final, rule=RULE_RECOVERY, unit=unit.id)
    return passed


def _recovered(ctx: AslContext, sw: AslUnit, unit: AslUnit, holder: AslUnit | None = None) -> None:
    ctx.touch(sw)
    sw.recovered_phase = phase_key(ctx.game)
    if sw.side != unit.side:  # an enemy SW recovered is captured (A21.11)
        sw.side = unit.side
        sw.captured = True
        ctx.effect(sw, "captured", rule="A21.11")
    what = f"recovered by {unit.label}" + (f" from {holder.label}" if holder else "")
    _hand_over(ctx, sw, unit, what, RULE_RECOVERY)


def _hand_over(ctx: AslContext, sw: AslUnit, unit: AslUnit, what: str, rule: str) -> None:
    ctx.touch(sw)
    sw.owner = unit.id
    sw.location = unit.location
    ctx.effect(sw, what, rule=rule)


def _outcome(ctx: AslContext, action: str, unit: AslUnit, headline: str) -> Outcome:
    return Outcome(ruleset="asl", action=action, headline=headline, actor_side=unit.side,
                   trail=ctx.trail.freeze(), effects=ctx.effects())
