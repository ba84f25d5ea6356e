"""One activation per impulse (data/nhis/rules.yaml, "activation"): in its impulse a side activates
one hex (every unit of its own there), or one Prepared leader with his command (himself, his hex
and the units the players name in the adjacent hexes); a unit outside the activation may not act in
that impulse; the impulse ends by itself once no activated unit has an action left.

Games created before this rule was refereed replay as they were played: the ruleset's internal
option ``ACTIVATION`` (a creation default, logged in the game's creation) turns it on."""

from __future__ import annotations

from ...dice import Roller
from ...errors import IllegalOrder, InvalidOrder
from ...game import Game
from ...outcome import Outcome
from ...sequence import end_impulse, refereed
from ...sides import possessive
from ...trail import Trail
from .. import get_ruleset
from . import tables
from .context import NhisContext
from .models import NhisUnit
from .orders import NhisActivate

ACTIVATION = "nhis_activation"  # internal option: impulses are one activation (games created since)


def _rule() -> str:
    return tables.rules().activation.rule


def refereed_here(game: Game) -> bool:
    """The impulses are refereed as activations in this game, now (its Operations Phase)."""
    return (refereed(game) and bool(game.options.get(ACTIVATION)) and game.to_act is not None
            and game.phase == tables.rules().turn.fire_phase)


def activated(game: Game) -> list[NhisUnit]:
    """The units of the activation of the impulse under way (none before its first action)."""
    return [u for u in game.units.values() if isinstance(u, NhisUnit) and u.side == game.to_act
            and u.activated_impulse == game.impulse and not u.eliminated]


def described(units: list[NhisUnit]) -> str:
    """"0303 (M1, M2, L1)" or "0303 (L1, M1) and 0304 (M3)": the activation by hex."""
    by_hex: dict[str, list[str]] = {}
    for unit in units:
        by_hex.setdefault(unit.location or "off board", []).append(unit.id)
    parts = [f"{where} ({', '.join(ids)})" for where, ids in by_hex.items()]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def check_and_activate(game: Game, unit_ids: list[str], trail: Trail) -> None:
    """Before a move or a fire of the side with the impulse: its units must belong to the impulse's
    activation; the first action of the impulse activates the hex its units stand in. Unknown ids,
    and units eliminated or off the map, are left to the order's own refusal (they activate no hex)."""
    if not refereed_here(game):
        return
    units = [u for u in (game.find_unit(i) for i in unit_ids) if isinstance(u, NhisUnit)]
    units = [u for u in units if u.side == game.to_act and u.location is not None and not u.eliminated]
    if not units:
        return  # the other side's opportunity fire: not an activation
    side, rule = game.side_name(game.to_act), _rule()
    current = activated(game)
    if current:
        outside = [u for u in units if u.activated_impulse != game.impulse]
        if outside:
            stray = outside[0]
            raise IllegalOrder(f"impulse {game.impulse} of {side} has activated {described(current)}: "
                               f"{stray.label} in {stray.location} is not part of it, and an impulse is "
                               f"one activation ({rule}); it may act in a later impulse of {side} (end this one "
                               "with /done)", rule=rule)
        return
    hexes = sorted({u.location for u in units})  # each placed: the others were left out above
    if len(hexes) > 1:
        raise IllegalOrder(f"an impulse activates one hex, and these units stand in {' and '.join(hexes)} "
                           f"({rule}): act from one hex, or have a Prepared leader activate his command with "
                           "/activate first", rule=rule)
    hex_units = [u for u in game.units_at(hexes[0]) if isinstance(u, NhisUnit) and u.side == game.to_act]
    for unit in hex_units:
        unit.activated_impulse = game.impulse
    trail.note(f"Activation: hex {described(hex_units)}, the one of impulse {game.impulse} of {side}", rule=rule)


def has_action_left(unit: NhisUnit, impulse: int) -> bool:
    """It may still move (no marker, on board) or fire (Prepared, not marked Fire, not fired in this
    impulse, with Firepower) in the impulse."""
    if unit.eliminated or unit.location is None:
        return False
    may_move = unit.marker is None
    may_fire = (not unit.shaken and unit.marker != "fire" and unit.fired_impulse != impulse
                and unit.current_fp > 0)
    return may_move or may_fire


def end_if_spent(game: Game, holder: int | None, trail: Trail) -> None:
    """After an action of the activation: the impulse ends by itself when none of its units has an
    action left (and the action did not end it already)."""
    if not refereed_here(game) or game.to_act != holder:
        return
    current = activated(game)
    if not current or any(has_action_left(u, game.impulse) for u in current):
        return
    side, rule = game.side_name(game.to_act), _rule()
    end_impulse(game, get_ruleset(game.ruleset), passed=False)
    trail.note(f"No unit of the activation ({described(current)}) has an action left: {possessive(side)} impulse ends; "
               f"impulse {game.impulse} is {possessive(game.side_name(game.to_act))}", rule=rule)


def resolve_activate(game: Game, order: NhisActivate, roller: Roller) -> Outcome:
    """A Prepared leader activates himself, the units of his side in his hex and the units named in
    the adjacent hexes, as the impulse's one activation."""
    rule = _rule()
    if not refereed_here(game):
        raise IllegalOrder(f"this game does not referee impulses as activations (it was started before the "
                           f"referee did, or its sequence of play is not refereed): units act without one ({rule})",
                           rule=rule)
    ctx = NhisContext(game, roller)
    leader = ctx.unit(order.leader, field="leader")
    side = game.side_name(leader.side)
    if leader.kind != "leader":
        raise IllegalOrder(f"{leader.label} is not a leader: only a leader activates a command; a hex is activated "
                           f"by the first move or fire of its units ({rule})", rule=rule)
    if leader.eliminated or leader.location is None:
        raise IllegalOrder(f"{leader.label} is {'eliminated' if leader.eliminated else 'off board'}: he activates "
                           "nobody", rule=rule)
    if leader.shaken:
        raise IllegalOrder(f"{leader.label} is Shaken: only a Prepared leader activates a command ({rule})",
                           rule=rule)
    current = activated(game)
    if current:
        raise IllegalOrder(f"impulse {game.impulse} of {side} has activated {described(current)} already: an "
                           f"impulse is one activation ({rule}); {leader.label} may activate his command in a "
                           f"later impulse of {side}", rule=rule)
    if len({i.casefold() for i in order.units}) != len(order.units):
        raise InvalidOrder("a unit is named twice", field="units")
    named = [ctx.unit(i, field="units") for i in order.units]
    for unit in named:
        if unit.side != leader.side:
            raise IllegalOrder(f"{unit.label} is not {possessive(side)}: a leader activates his own side's units",
                               rule=rule)
        if unit.eliminated or unit.location is None:
            raise IllegalOrder(f"{unit.label} is {'eliminated' if unit.eliminated else 'off board'}: it cannot be "
                               "activated", rule=rule)
    here = [u for u in game.units_at(leader.location) if isinstance(u, NhisUnit) and u.side == leader.side]
    command = here + [u for u in named if u not in here]
    for unit in command:
        unit.activated_impulse = game.impulse
    ctx.trail.section(f"{leader.label} activates his command: impulse {game.impulse} of {side}", rule=rule)
    ctx.trail.note(f"His hex {described(here)}", rule=rule)
    adjacent = [u for u in named if u not in here]
    if adjacent:
        ctx.trail.note(f"Adjacent to it, as the players declare (the referee does not see the map): "
                       f"{described(adjacent)}", rule=rule)
    return ctx.outcome_of("activate", f"Impulse {game.impulse}: {leader.label} activates {described(command)}",
                          leader.side)


def clear_stamps(game: Game, units: list[NhisUnit]) -> None:
    """At the end of the Operations Phase (games that referee activations): the impulse stamps go,
    so the next turn's impulse numbers start afresh."""
    if not game.options.get(ACTIVATION):
        return
    for unit in units:
        unit.activated_impulse = unit.fired_impulse = unit.moved_impulse = None
