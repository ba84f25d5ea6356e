"""What a Command Decision turn needs between the rolls (issue 25; seed 004, data/cd/turn.yaml and
data/cd/cover.yaml): the scenario's side quality and a Location's cover read by fire, the results of
a simultaneous fire phase held until its end, and the companies that must check morale (5B).

All of it applies to games created since (the internal game option ``cd_turn_rules``, set at their
creation): a game logged before plays on, and replays, as it did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import IllegalOrder
from ...outcome import UnitEffect
from ...required import RequiredRoll
from ...trail import Trail
from . import tables
from .context import CdContext, status_text
from .models import CdStand, TroopQuality
from .orders import MORALE_DUE_RULE, SEALING

if TYPE_CHECKING:
    from ...game import Game

TURN_RULES = "cd_turn_rules"  # internal: set on the games created since issue 25
SIMULTANEOUS = "cd_simultaneous_fire"  # the game option: which fire phases resolve together
QUALITY_RULE = "CD [14.2.1, 19.1, 21]: the scenario's side quality (a stand's own wins: assumed)"
RESULT_ORDER = ("eliminated", "forced back", "suppressed")


def turn_rules(game: Game) -> bool:
    return bool(game.options.get(TURN_RULES))


# --- the scenario's data: side quality, a Location's cover ---


def _library_quality(stand: CdStand) -> str:
    counter = tables.counters().counters.get(stand.type)
    return str((counter or {}).get("quality", "regular"))


def side_quality(game: Game, side: int) -> TroopQuality | None:
    """The quality a scenario gives a side (its option ``quality``), when it is one of the chart's."""
    value = game.sides[side].options.get("quality") if 0 <= side < len(game.sides) else None
    folded = value.casefold() if isinstance(value, str) else None
    return folded if folded in tables.QUALITIES else None  # type: ignore[return-value]


def quality(ctx: CdContext, stand: CdStand) -> TroopQuality:
    """A stand's troop quality: its own when set (one differing from its counter type's), else its
    side's from the scenario, else its counter's; where the side's is used, a trail line says so."""
    if not turn_rules(ctx.game):
        return stand.quality
    side = side_quality(ctx.game, stand.side)
    if side is None or side == stand.quality:
        return stand.quality
    key = f"quality:{stand.id}"
    own = stand.quality != _library_quality(stand)
    if key not in ctx.noted:
        ctx.noted.add(key)
        name = ctx.game.side_name(stand.side)
        text = (f"{stand.label} is {stand.quality}: its own quality, not its side's ({name}: {side})" if own else
                f"{stand.label} is {side}: the quality of the {name} in the scenario (its counter reads "
                f"{stand.quality})")
        ctx.trail.note(text, rule=QUALITY_RULE, unit=stand.id)
    return stand.quality if own else side


def cover(ctx: CdContext, target: CdStand, given: str | None) -> str:
    """The target's cover: as the order gives it, else the best its Location's terrain and features
    give (data/cd/cover.yaml), with a trail line naming the feature."""
    if given is not None:
        return given
    if not turn_rules(ctx.game) or not target.location:
        return "none"
    try:
        where = ctx.game.location(target.location)
    except Exception:  # a stand placed where no Location is listed: nothing known of its cover
        return "none"
    data = tables.cover()
    found, name = data.best([where.terrain, *where.features])
    if name is not None:
        ctx.trail.note(f"{target.label} in {where.id}: {name} gives {found} cover (data/cd/cover.yaml, assumed)",
                       rule=data.rule, unit=target.id)
    return found


# --- simultaneous fire: results of a phase at its end ---


def simultaneous_phases(game: Game) -> tuple[str, ...]:
    if not turn_rules(game):
        return ()
    data = tables.turn().simultaneous
    return data.phases.get(str(game.options.get(SIMULTANEOUS, data.default)), ())


def deferred(ctx: CdContext) -> bool:
    """Whether fire now is one of a simultaneous phase: its results wait for the phase's end."""
    return ctx.game.phase in simultaneous_phases(ctx.game)


def defer(ctx: CdContext, stand: CdStand, result: str, rule: str) -> None:
    ctx.touch(stand)
    stand.pending = [*stand.pending, result]  # a new list: the game given to the core is never changed
    ctx.effect(stand, f"{result}: takes effect at the end of the phase", rule=rule)


def doomed(stand: CdStand) -> bool:
    """Eliminated, or to be at the end of this phase."""
    return stand.eliminated or "eliminated" in stand.pending


def apply_pending(game: Game, trail: Trail, effects: list[UnitEffect], phase_name: str) -> None:
    """The end of a simultaneous fire phase: every result it held takes effect now."""
    stands = [u for u in game.units.values() if isinstance(u, CdStand) and u.pending]
    if not stands:
        return
    rule = tables.turn().simultaneous.rule
    trail.section(f"End of the {phase_name}: its fire takes effect", rule=rule)
    for stand in stands:
        before = status_text(stand)
        results = [r for r in RESULT_ORDER if r in stand.pending]
        stand.pending = []
        if "eliminated" in results:
            stand.eliminated, stand.eliminated_turn = True, game.turn
            results = ["eliminated"]
        else:
            stand.forced_back = stand.forced_back or "forced back" in results
            if "suppressed" in results and stand.suppressed:
                results.remove("suppressed")
            stand.suppressed = stand.suppressed or "suppressed" in results
        done = tuple(f"{r} (fire of the {phase_name})" for r in results)
        for what in done:
            trail.put("effect", f"{stand.label}: {what}", rule=rule, unit=stand.id)
        effects.append(UnitEffect(unit=stand.id, name=stand.name, side=stand.side, before=before,
                                  after=status_text(stand), effects=done))


# --- company morale due (5B) ---


def companies(game: Game, side: int) -> dict[str, list[CdStand]]:
    found: dict[str, list[CdStand]] = {}
    for unit in game.units.values():
        if isinstance(unit, CdStand) and unit.side == side and unit.company:
            found.setdefault(unit.company, []).append(unit)
    return found


def lost_companies(game: Game, side: int) -> list[str]:
    """The side's companies whose last stand was eliminated this turn."""
    return [name for name, stands in companies(game, side).items()
            if all(s.eliminated for s in stands) and any(s.eliminated_turn == game.turn for s in stands)]


def morale_due(game: Game, side: int) -> dict[str, list[str]]:
    """The side's companies that must check morale this turn and have not (nor been waived), each
    with why: fired upon, declared within 12" of the enemy, a friendly company eliminated."""
    if not turn_rules(game):
        return {}
    lost = lost_companies(game, side)
    due: dict[str, list[str]] = {}
    for name, stands in companies(game, side).items():
        live = [s for s in stands if not s.eliminated]
        if not live or any(s.morale_checked_turn == game.turn or s.check_waived_turn == game.turn for s in live):
            continue
        why = []
        if any(s.fired_on_turn == game.turn for s in stands):
            why.append("fired upon")
        if any(s.near_enemy_turn == game.turn for s in live):
            why.append('within 12" of the enemy')
        seen = [c for c in lost if c != name]
        if seen:
            why.append(f"friendly company {', '.join(seen)} eliminated")
        if why:
            due[name] = why
    return due


def checks_due(game: Game, side: int) -> list[tuple[str, str]]:
    """The side's companies whose morale check is due (``morale_due``), as buttons name them."""
    return [(name, f"company {name}") for name in morale_due(game, side)]


# the company morale checks due in a side's part of the Command & Morale Phase, offered as buttons (its
# /done waits for them); each opens /morale's form: whether the company is in cover, enemies near...
# are the players' to say (bot/core/required.py)
COMPANY_CHECKS = RequiredRoll(action="morale", command="morale", option="company", verb="Check",
                              rule=MORALE_DUE_RULE, due=checks_due, form=True)


def due_text(due: dict[str, list[str]]) -> str:
    return "; ".join(f"company {name} ({', '.join(why)})" for name, why in due.items())


def fired_upon(ctx: CdContext, targets: list[Any]) -> None:
    """The targets' companies must check morale this turn (5B)."""
    if not turn_rules(ctx.game):
        return
    for target in targets:
        if target.fired_on_turn != ctx.turn:
            target.fired_on_turn = ctx.turn


# --- sealed orders: a stand acts once its order is open (2B-2E) ---
def check_revealed(ctx: CdContext, stands: list[CdStand], doing: str = "move") -> None:
    """With sealed orders, a stand moves or fires only once its order is open: its own revealed this
    turn, or every order its side sealed (the bot cannot tell which stands a sealed order names before
    it is open) [2B-2E]."""
    if not turn_rules(ctx.game) or not ctx.game.options.get(SEALING.option):
        return
    for stand in stands:
        held = [p.seq for p in ctx.game.sealed if p.side == stand.side and p.turn < ctx.game.turn]
        if held and stand.revealed_turn != ctx.turn:
            when = "to prep fire with it they reveal them in their Prep Fire" if doing == "fire" else \
                "they reveal them as they move"
            raise IllegalOrder(f"{stand.label} may not {doing} before its order is revealed: "
                               f"{ctx.game.side_name(stand.side)} still hold sealed orders "
                               f"({', '.join(f'#{n}' for n in held)}); {when}, /reveal sealed:{held[0]} first "
                               f"({SEALING.rule})", rule=SEALING.rule)
