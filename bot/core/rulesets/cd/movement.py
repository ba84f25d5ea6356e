"""Orders and movement (seed 004: the Orders Summary [6.1, 7.1-7.3, 21.4], Movement Phase 2D/2E).

Orders are placed for a company or for stands in the Command & Morale Phase (5A); each side's
stands then move in its part of the next Movement Phase, within their order: Hold, Take Command
and Rally/Regroup do not move. Distances and terrain are the players' to measure on the table;
the referee checks who may move and marks the movers (the Op Fire that follows reads it).
"""

from __future__ import annotations

from ...errors import IllegalOrder, InvalidOrder
from ...movement import move_to, movers
from ...game import Game
from ...outcome import Outcome
from ...reactions import Reaction
from .. import get_ruleset
from . import tables
from .context import CdContext
from .fire import may_op_fire
from .models import CdStand
from .morale import company
from .orders import SEALING, CdGiveOrders, CdMove
from .turn import check_revealed

MOVE_RULE = "CD [7, 8]"


def resolve_orders(ctx: CdContext, order: CdGiveOrders, *, sealing: bool = False) -> Outcome:
    """Place an order (5A); with sealed orders (the game option sealed_orders) it is only checked
    as it is sealed (``sealing``) and applied as it is revealed in the Movement Phase (``ctx.revealed``)."""
    table = tables.orders()
    chosen = table.orders[order.order]
    sealed = ctx.game.options.get(SEALING.option)
    if sealed and not (sealing or ctx.revealed):
        raise IllegalOrder(f"this game seals its orders (game option {SEALING.option}): give it with sealed:yes, "
                           f"e.g. /orders order:{order.order} ... sealed:yes; it stays hidden until you reveal it "
                           f"{SEALING.when} ({SEALING.rule})", rule=SEALING.rule)
    if (order.company is None) == (not order.stands):
        raise InvalidOrder("name a 'company' or some 'stands' (not both) to place the order on", field="company")
    stands: list[CdStand] = company(ctx, order.company)[0] if order.company else \
        [ctx.stand(s, field="stands") for s in order.stands]
    if len({s.side for s in stands}) > 1:
        raise IllegalOrder("the stands named belong to both sides: each side places its own orders")
    who = f"company {order.company}" if order.company else ", ".join(s.label for s in stands)
    ctx.trail.section(f"Orders for {who}: {chosen.name}", rule=table.rule)
    ctx.trail.note(f"{chosen.name}: moves {chosen.move}; Prep or Op Fire: {'yes' if chosen.prep_op_fire else 'no'}; "
                   f"General Fire: {_general(chosen)}", rule=table.rule)
    if ctx.revealed:
        ctx.trail.note(f"Revealed in the Movement Phase: the order applies from now, this turn ({SEALING.rule})",
                       rule=SEALING.rule)
    for stand in stands:
        if stand.eliminated:
            continue
        ctx.touch(stand)
        if ctx.revealed and stand.order and stand.order != order.order and stand.revealed_turn == ctx.turn:
            ctx.trail.note(f"{stand.label}: a later sealed order replaces the {table.orders[stand.order].name} "
                           f"revealed before it ({SEAL_ORDER})", rule=table.rule, unit=stand.id)
        if ctx.revealed and stand.fired_phase == f"{ctx.turn}:Movement" and not chosen.prep_op_fire:
            ctx.trail.note(f"{stand.label} prep-fired this turn, which a {chosen.name} order does not allow: the "
                           "game master settles it", rule=table.rule, unit=stand.id)
        stand.order = order.order
        if ctx.revealed:
            stand.revealed_turn = ctx.turn
        when = "from now (revealed)" if ctx.revealed else "from next turn"
        ctx.effect(stand, f"under a {chosen.name} order {when}", rule=table.rule)
    return ctx.outcome("give_orders", f"{who}: {chosen.name}", stands[0].side)


SEAL_ORDER = "a side's sealed orders open in the order they were sealed, the later one standing (assumed)"


def _general(chosen: tables.StandOrder) -> str:
    if not chosen.general_fire:
        return "no"
    parts = [f"{chosen.general_fire_modifier:+d} to hit"] if chosen.general_fire_modifier else []
    parts += ["only in contact"] if chosen.contact_only else []
    return "yes" + (f" ({', '.join(parts)})" if parts else "")


def resolve_move(ctx: CdContext, order: CdMove) -> Outcome:
    stands: list[CdStand] = movers(ctx, order.stands, field="stands")
    table = tables.orders()
    check_revealed(ctx, stands)
    for stand in stands:
        chosen = table.orders.get(stand.order or "")
        if chosen is not None and not chosen.moves:
            raise IllegalOrder(f"{stand.label} is under a {chosen.name} order: it does not move ({table.rule})",
                               rule=table.rule)
        if stand.moved_turn == ctx.turn:
            raise IllegalOrder(f"{stand.label} has moved this turn already ({MOVE_RULE})", rule=MOVE_RULE)
    ctx.trail.section(f"{', '.join(s.label for s in stands)} move to {order.to}", rule=MOVE_RULE)
    for stand in stands:
        chosen = table.orders.get(stand.order or "")
        ctx.trail.note(f"{stand.label}: " + (f"{chosen.name}, moves {chosen.move}" if chosen else
                                             "no order yet: not limited (assumed)"), rule=table.rule)
        if stand.acts_pinned:
            ctx.trail.note(f"{stand.label} is {'shaken' if stand.shaken else 'pinned'}: no move toward the enemy "
                           "(CD [21.3.2]); the players check the direction on the table", rule="CD [21.3.2]")
    move_to(ctx, get_ruleset(ctx.game.ruleset), stands, order.to, "moves", rule=MOVE_RULE)
    for stand in stands:
        stand.moved_turn = ctx.turn
        ctx.effect(stand, "moved this turn: Op Fire may take it as it moves", rule=MOVE_RULE)
    return ctx.outcome("move", f"{', '.join(s.label for s in stands)} move to {order.to}", stands[0].side)


def _may_op_fire(game: Game, side: int) -> bool:
    """The side has a stand that could Op Fire at the movers: in play, with a direct-fire weapon and
    its ammunition, neither demoralized nor pinned, under an order that allows Op Fire (or none yet),
    and not fired in the Opportunity Fire phase this turn (CD [13.1.2], [21.3], [7.1.3])."""
    return any(s.side == side and may_op_fire(game, s) for s in game.units.values())


OP_FIRE_AS_IT_MOVES = ("assumed: Op Fire at a stand as it moves is resolved at once, where it stands on its way; "
                       "it is the firer's fire of the Opportunity Fire phase")
# CD [13.1.2]: Op Fire takes a stand that moved this turn; the window lets the other side's players, hours
# away, fire at it as it moves (where it stands on its way) before the moving side goes on
OP_FIRE = Reaction(
    after="move", phases=("Movement",), name="Op Fire", rule="CD [13.1.2]", command="fire", action="fire",
    target="target", target_is="units", able=_may_op_fire, note=OP_FIRE_AS_IT_MOVES)
