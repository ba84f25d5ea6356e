"""Movement in the Operations Phase (seed 001's markers; data/nhis/sequence.yaml): the side with
the impulse moves a unit or a stack into a hex, with a Move marker, a Charge marker, or crawling.
Movement points and terrain costs are the players' to count; the referee checks who may move and
leaves the markers the fire that follows reads (a moving target's +2, the terrain shift)."""

from __future__ import annotations

from ...dice import Roller
from ...errors import IllegalOrder
from ...game import Game
from ...movement import enemies_in, move_to, movers
from ...outcome import Outcome
from ...reactions import Reaction
from .. import get_ruleset
from . import tables
from .context import NhisContext
from .models import NhisUnit
from .orders import NhisMove

RULE = "NHiS sequence of play (assumed)"
MARKERS = {"move": "move", "charge": "charge", "crawl": None}


def resolve_move(game: Game, order: NhisMove, roller: Roller) -> Outcome:
    ctx = NhisContext(game, roller)
    units: list[NhisUnit] = movers(ctx, order.units)
    to = next((k for k in game.locations if k.casefold() == order.to.casefold()), order.to)
    for unit in units:
        if unit.marker:
            raise IllegalOrder(f"{unit.label} carries a {unit.marker.title()} marker: it has acted this turn and "
                               f"moves again only after the Administrative Phase ({RULE})", rule=RULE)
        if unit.kind == "tank" and order.kind != "move":
            raise IllegalOrder(f"{unit.label} is a tank: it neither crawls nor charges", rule=RULE)
    enemy = enemies_in(ctx, to, units[0].side)
    if enemy:
        raise IllegalOrder(f"{to} holds {enemy[0].label}: entering it starts a melee, which the referee does not "
                           "resolve (seed 001 has no melee rules): play it at the table, the game master records it",
                           rule=RULE)
    ctx.trail.section(f"{', '.join(u.label for u in units)}: {order.kind} to {to}", rule=RULE)
    what = {"move": "moves", "crawl": "crawls", "charge": "charges"}[order.kind]
    move_to(ctx, get_ruleset(game.ruleset), units, to, what, rule=RULE)
    for unit in units:
        if unit.shaken:
            ctx.trail.note(f"{unit.label} is Shaken: it may not move toward an enemy unit "
                           f"({tables.rules().morale.rule}); the referee does not see the map, the players check it",
                           rule=tables.rules().morale.rule)
        unit.marker = MARKERS[order.kind]  # type: ignore[assignment]
        unit.moving, unit.crawling = True, order.kind == "crawl"
        unit.moved_impulse = game.impulse if game.impulse else None
        what = "crawling: no marker, no moving-target bonus against it" if order.kind == "crawl" else \
            f"{order.kind.title()} marker: a moving target (+2 against it) until the Administrative Phase"
        ctx.effect(unit, what, rule=RULE)
    return ctx.outcome_of("move", f"{', '.join(u.label for u in units)} {order.kind}s to {to}", units[0].side)


def _may_fire(game: Game, side: int) -> bool:
    """The side has a unit that could fire at the movers: in play, not Shaken, not marked Fire, with
    Firepower, not fired in this impulse (seed 001; range and line of sight are the players' to judge)."""
    return any(u.side == side and not u.eliminated and u.location is not None and not u.shaken
               and u.marker != "fire" and u.current_fp > 0 and u.fired_impulse != game.impulse
               for u in game.units.values())


# A move in an impulse may draw the other side's opportunity fire at the hex it entered (sequence.yaml,
# assumed): the window lets that side's players answer each move before the impulse goes on
OPPORTUNITY_FIRE = Reaction(
    after="move", phases=("Operations",), name="Opportunity Fire", rule=RULE, command="fire", action="fire",
    target="target", target_is="location", able=_may_fire)
