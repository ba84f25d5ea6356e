"""ASL Close Combat in the CCPh (A11), with Melee (A11.15) and withdrawal from it (A11.2).

A Close Combat is declared side by side in one Location: the ATTACKER first (his declaration is
kept in the game, ``DECLARED``), then the DEFENDER, whose declaration resolves every attack in
the Location at once. Each attack group's CC FP against its target group's gives the odds column
of the Close Combat Table and its Kill Number (data/asl/close_combat.yaml); the DRMs are the
group's leadership, CX, ambush, hero/berserk and the target's state; a Final DR below the Kill
Number eliminates the target group, equal to it reduces one unit (Casualty Reduction, Random
Selection), above it does nothing. Every attack is planned from the state before any result, so
a unit eliminated still makes its attack (A11); an ambush has the ambushers attack first (A11.4).
Units of both sides left in the Location are in Melee; the Melee ends when one side is gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...dice import Roll, Roller
from ...errors import IllegalOrder, InvalidOrder
from ...game import Game
from ...movement import move_to
from ...outcome import Outcome, TableCell, UnitEffect, fire_outcome, table_cell
from ...ruleset import Ruleset
from ...trail import Trail
from . import effects, tables
from .context import AslContext
from .models import ASL_UNITS, AslUnit
from .orders import AslCloseCombat
from .selection import random_selection

RULE = "A11"
MELEE = "A11.15"
WITHDRAWAL = "A11.2"
DECLARED = "asl_close_combat"  # game.options: Location -> the ATTACKER's declared groups (dicts)
RESOLVED = "asl_close_combat_done"  # game.options: the Locations whose Close Combat was fought this CCPh
SEPARATORS = ("|", ";")


@dataclass(slots=True)
class Group:
    """One declared group: attackers and their target group, or units holding or withdrawing."""

    side: int
    attackers: list[str]
    targets: list[str] = field(default_factory=list)
    hold: bool = False
    withdraw: str | None = None
    ambush: bool = False

    def stored(self) -> dict[str, Any]:
        return {"side": self.side, "attackers": self.attackers, "targets": self.targets, "hold": self.hold,
                "withdraw": self.withdraw, "ambush": self.ambush}


@dataclass(slots=True)
class Attack:
    """One attack as planned before any result: who, against whom, the odds and the DRMs."""

    group: Group
    attackers: list[AslUnit]
    targets: list[AslUnit]
    column: tables.CcColumn | None = None
    drm: int = 0
    roll: Roll | None = None
    result: str = "no effect"
    cell: TableCell | None = None

    @property
    def label(self) -> str:
        return f"{_labels(self.attackers)} vs {_labels(self.targets)}"

    @property
    def final_dr(self) -> int:
        return (self.roll.total if self.roll else 0) + self.drm


def _labels(units: list[AslUnit]) -> str:
    return ", ".join(u.label for u in units)


def split_groups(ids: list[str] | None) -> list[list[str]]:
    """'A1 A2 | A3' (as parsed ids) -> [['A1', 'A2'], ['A3']]; a separator may touch an id."""
    groups: list[list[str]] = [[]]
    for token in ids or []:
        text = token
        for sep in SEPARATORS[1:]:
            text = text.replace(sep, SEPARATORS[0])
        parts = text.split(SEPARATORS[0])
        for i, part in enumerate(parts):
            if i:
                groups.append([])
            if part.strip():
                groups[-1].append(part.strip())
    return [g for g in groups if g]


# --------------------------------------------------------------------------- the declaration

def _declared_units(ctx: AslContext, order: AslCloseCombat) -> list[list[AslUnit]]:
    groups = [[ctx.unit(uid, field="attackers") for uid in ids] for ids in split_groups(order.attackers)]
    if not groups:
        raise InvalidOrder("name the units that close combat in 'attackers': 'A1 A2', or groups 'A1 A2 | A3'",
                           field="attackers")
    flat = [u for g in groups for u in g]
    seen: set[str] = set()
    for unit in flat:
        if unit.id in seen:
            raise InvalidOrder(f"{unit.label} is named twice: a unit attacks one target group (A11)",
                               field="attackers")
        seen.add(unit.id)
        if unit.is_sw:
            raise InvalidOrder(f"{unit.label} is a support weapon: support weapons add no FP in Close Combat; "
                               "name the units", field="attackers")
        if unit.eliminated or not unit.location:
            raise IllegalOrder(f"{unit.label} is not on the board")
    if len({u.side for u in flat}) > 1:
        raise InvalidOrder("a declaration names one side's units; each side declares its own attacks (A11)",
                           field="attackers")
    if len({u.location for u in flat}) > 1:
        raise IllegalOrder(f"{_labels(flat)} are not in one Location: a Close Combat is fought in one "
                           f"Location ({RULE})", rule=RULE)
    return groups


def _target_groups(ctx: AslContext, order: AslCloseCombat, count: int, enemies: list[AslUnit],
                   where: str) -> list[list[AslUnit]]:
    if order.targets is None:
        return [list(enemies) for _ in range(count)]
    named = split_groups(order.targets)
    if len(named) != count:
        raise InvalidOrder(f"'targets' gives {len(named)} target group(s) for {count} attack group(s): one target "
                           "group per attack group, '|' between them in the same order", field="targets")
    groups = []
    for ids in named:
        group = []
        for uid in ids:
            unit = ctx.unit(uid, field="targets")
            if unit not in enemies:
                raise IllegalOrder(f"{unit.label} is not an enemy unit in {where}: the targets are "
                                   f"{_labels(enemies)} ({RULE})", rule=RULE)
            group.append(unit)
        groups.append(group)
    return groups


def _withdraw_to(ctx: AslContext, order: AslCloseCombat, units: list[AslUnit], where: str, side: int) -> str:
    assert order.withdraw is not None
    for unit in units:
        if not unit.in_melee:
            raise IllegalOrder(f"{unit.label} is not in Melee: only units held in Melee withdraw from it "
                               f"({WITHDRAWAL})", rule=WITHDRAWAL)
    game = ctx.game
    to = next((k for k in game.locations if k.casefold() == order.withdraw.casefold()), order.withdraw)
    if to == where:
        raise InvalidOrder(f"withdraw to a Location next to {where}, not into it", field="withdraw")
    enemy = [u for u in game.units_at(to) if u.side != side and not getattr(u, "is_sw", False)]
    if enemy:
        raise IllegalOrder(f"{to} holds {enemy[0].label}: units withdraw from Melee into a Location free of enemy "
                           f"units ({WITHDRAWAL})", rule=WITHDRAWAL)
    return to


def declared_groups(ctx: AslContext, order: AslCloseCombat) -> tuple[str, int, list[Group]]:
    """The order's groups, checked: the Location, the side, one Group per '|'-separated group."""
    units = _declared_units(ctx, order)
    flat = [u for g in units for u in g]
    side, where = flat[0].side, flat[0].location
    assert where is not None
    game = ctx.game
    if where in game.options.get(RESOLVED, []):
        raise IllegalOrder(f"the Close Combat in {where} has been fought this CCPh: one per Location and phase "
                           f"({RULE})", rule=RULE)
    enemies = enemies_in(game, where, side)
    if not enemies:
        raise IllegalOrder(f"no enemy unit is in {where}: Close Combat is fought in a Location holding both "
                           f"sides' units ({RULE})", rule=RULE)
    already = {uid for g in game.options.get(DECLARED, {}).get(where, []) for uid in g["attackers"]}
    for unit in flat:
        if unit.id in already:
            raise IllegalOrder(f"{unit.label} is already declared in {where}: a unit attacks one target group "
                               f"({RULE})", rule=RULE)
    if order.hold and order.withdraw:
        raise InvalidOrder("'hold' and 'withdraw' do not go together: units either hold or withdraw",
                           field="withdraw")
    if order.hold or order.withdraw:
        if order.targets is not None:
            raise InvalidOrder("units that hold or withdraw attack nobody: leave out 'targets'", field="targets")
        withdraw = _withdraw_to(ctx, order, flat, where, side) if order.withdraw else None
        return where, side, [Group(side, [u.id for u in flat], hold=order.hold, withdraw=withdraw,
                                   ambush=order.ambush)]
    for unit in flat:
        if unit.broken:
            raise IllegalOrder(f"{unit.label} is broken: only Good Order units attack in Close Combat; a broken "
                               f"unit may hold ({RULE})", rule=RULE)
    targets = _target_groups(ctx, order, len(units), enemies, where)
    return where, side, [Group(side, [u.id for u in g], [t.id for t in tg], ambush=order.ambush)
                         for g, tg in zip(units, targets)]


def enemies_in(game: Game, where: str, side: int) -> list[AslUnit]:
    return [u for u in game.units_at(where) if u.side != side and isinstance(u, ASL_UNITS) and not u.is_sw]


def stored_group(data: dict[str, Any]) -> Group:
    return Group(data["side"], list(data["attackers"]), list(data["targets"]), data["hold"], data["withdraw"],
                 data["ambush"])


def _note_group(ctx: AslContext, game: Game, group: Group) -> None:
    names = _labels([game.units[u] for u in group.attackers])  # type: ignore[misc]
    who = game.side_name(group.side)
    if group.hold:
        ctx.trail.note(f"{who}: {names} make no attack", rule=RULE)
    elif group.withdraw:
        ctx.trail.note(f"{who}: {names} withdraw from Melee to {group.withdraw}", rule=WITHDRAWAL)
    else:
        targets = _labels([game.units[u] for u in group.targets])  # type: ignore[misc]
        ctx.trail.note(f"{who}: {names} attack {targets}" + (" (ambush)" if group.ambush else ""), rule=RULE)


def resolve_close_combat(game: Game, order: AslCloseCombat, roller: Roller, ruleset: Ruleset) -> Outcome:
    ctx = AslContext(game, roller)
    where, side, groups = declared_groups(ctx, order)
    attacker = game.active_side
    kept = [stored_group(g) for g in game.options.get(DECLARED, {}).get(where, [])]
    if side == attacker:
        declared = game.options.setdefault(DECLARED, {}).setdefault(where, [])
        declared.extend(g.stored() for g in groups)
        ctx.trail.section(f"Close Combat in {where}: the ATTACKER declares", rule=RULE)
        for group in groups:
            _note_group(ctx, game, group)
        ctx.trail.note(f"the DEFENDER declares next with /close-combat (hold:yes for no attack): that resolves "
                       f"the Close Combat in {where}", rule=RULE)
        headline = f"Close Combat in {where} declared: " + "; ".join(_declared_words(game, g) for g in groups)
        return fire_outcome("asl", "close_combat", headline, side, ctx.trail.freeze(), (), ctx.effects())
    if not kept:
        raise IllegalOrder(f"the ATTACKER declares his Close Combat in {where} first (hold:yes if he makes no "
                           f"attack), then the DEFENDER ({RULE})", rule=RULE)
    return _fight(ctx, where, kept + groups, side, ruleset)


def _declared_words(game: Game, group: Group) -> str:
    names = " ".join(group.attackers)
    if group.hold:
        return f"{names} hold"
    if group.withdraw:
        return f"{names} withdraw to {group.withdraw}"
    return f"{names} attack {' '.join(group.targets)}"


# --------------------------------------------------------------------------- the fight

def _fight(ctx: AslContext, where: str, groups: list[Group], side: int, ruleset: Ruleset) -> Outcome:
    game = ctx.game
    table = tables.close_combat()
    ctx.trail.section(f"Close Combat in {where}", rule=RULE)
    for group in groups:
        _note_group(ctx, game, group)
    ambushers = {g.side for g in groups if g.ambush}
    if len(ambushers) > 1:
        raise IllegalOrder("both sides declared an ambush: at most one side ambushes the other (A11.4)",
                           rule="A11.4")
    ambusher = next(iter(ambushers), None)
    withdrawing = {uid for g in groups if g.withdraw for uid in g.attackers}
    attacks = [g for g in groups if not g.hold and not g.withdraw]
    if ambusher is None:
        waves = [attacks]
        ctx.trail.note("both sides' attacks are resolved at once: each is made from the state before any "
                       "result, so a unit eliminated still makes its attack", rule=RULE)
    else:
        waves = [[g for g in attacks if g.side == ambusher], [g for g in attacks if g.side != ambusher]]
        ctx.trail.note(f"{game.side_name(ambusher)} ambushed: their attacks are resolved first, the ambushed "
                       "side attacks with the units left", rule="A11.4")
    done: list[Attack] = []
    for wave in waves:
        planned = []
        for group in wave:  # each attack planned and rolled; the results wait until every attack is made
            attack = plan_attack(ctx, group, ambusher, withdrawing, table)
            if attack is not None:
                _roll(ctx, attack, table)
                planned.append(attack)
        if planned:
            ctx.trail.section("Results" + (" (at once)" if ambusher is None and len(planned) > 1 else ""),
                              rule=table.rule)
        for attack in planned:
            _apply(ctx, attack, table)
        done += planned
    _withdraw(ctx, groups, ruleset)
    _melee(ctx, where)
    game.options.get(DECLARED, {}).pop(where, None)
    if not game.options.get(DECLARED):
        game.options.pop(DECLARED, None)
    game.options.setdefault(RESOLVED, []).append(where)
    words = "; ".join(f"{a.label} at {a.column.odds if a.column else '-'}: DR {a.final_dr} -> {a.result}"
                      for a in done) or "no attack"
    return fire_outcome("asl", "close_combat", f"Close Combat in {where}: {words}", side, ctx.trail.freeze(),
                        tuple(a.cell for a in done if a.cell is not None), ctx.effects())


def plan_attack(ctx: AslContext, group: Group, ambusher: int | None, withdrawing: set[str],
          table: tables.CloseCombatTable) -> Attack | None:
    game = ctx.game
    units = [ctx.unit(u) for u in group.attackers]
    attackers = [u for u in units if not u.eliminated and not u.broken]  # a unit broken since it declared
    targets = [t for t in (ctx.unit(u) for u in group.targets) if not t.eliminated]
    label = _labels(units)
    if not attackers or not targets:
        why = ("its targets are gone" if attackers else "eliminated by the ambush"
               if all(u.eliminated for u in units) else "broken since it declared")
        ctx.trail.section(f"{label}: no attack, {why}", rule="A11.4" if "ambush" in why else RULE)
        return None
    attack = Attack(group, attackers, targets)
    ctx.trail.section(f"Close Combat: {attack.label}", rule=table.rule)
    attacking = sum((_cc_fp(ctx, u, table) for u in attackers), Fraction(0))
    ctx.trail.put("base", "attacking CC FP", _num(attacking), rule=table.rule)
    defending = sum((_cc_fp(ctx, u, table) for u in targets), Fraction(0))
    ctx.trail.put("base", "defending CC FP", _num(defending), rule=table.rule)
    attack.column = table.column(attacking, defending)
    ctx.trail.put("table", f"odds {_num(attacking)}:{_num(defending)}, rounded down", attack.column.odds,
                  rule=table.rule)
    ctx.trail.put("table", "Kill Number", attack.column.kill, rule=table.rule)
    running = 0
    for label_, value, rule in _drms(game, attack, group, ambusher, withdrawing, table):
        running += value
        ctx.trail.put("modifier", label_, f"{value:+d}", total=running, rule=rule)
    attack.drm = running
    return attack


def _num(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _cc_fp(ctx: AslContext, unit: AslUnit, table: tables.CloseCombatTable) -> Fraction:
    smc = unit.is_leader
    fp = Fraction(table.smc_fp if smc else unit.fp)
    ctx.trail.put("base", f"{unit.label} CC FP" + (" (an SMC)" if smc else ""), _num(fp), rule=table.rule,
                  unit=unit.id)
    if unit.pinned:
        fp /= table.pinned_divisor
        ctx.trail.put("multiplier", f"{unit.label}: pinned", f"x1/{table.pinned_divisor}", total=_num(fp),
                      rule="A7.8", unit=unit.id)
    return fp


def _drms(game: Game, attack: Attack, group: Group, ambusher: int | None, withdrawing: set[str],
          table: tables.CloseCombatTable) -> list[tuple[str, int, str]]:
    drms = table.drms
    out: list[tuple[str, int, str]] = []
    leaders = [u for u in attack.attackers if u.is_leader and not u.broken and u.leadership]
    if leaders:
        best = min(leaders, key=lambda u: u.leadership)
        out.append((f"leadership of {best.label}", best.leadership, "A10.7, A11"))
    if any(u.cx for u in attack.attackers):
        out.append(("CX attacker", drms["cx"].value, drms["cx"].rule))
    if ambusher is not None:
        key = "ambusher" if group.side == ambusher else "ambushed"
        out.append(("ambush: the attackers ambushed" if key == "ambusher" else "ambush: the attackers were ambushed",
                    drms[key].value, drms[key].rule))
    if any(u.kind == "hero" or u.heroic for u in attack.attackers):
        out.append(("a hero attacks", drms["hero"].value, drms["hero"].rule))
    if any(u.berserk for u in attack.attackers):
        out.append(("a berserk unit attacks", drms["berserk"].value, drms["berserk"].rule))
    if all(t.broken for t in attack.targets):
        out.append(("the target group is broken", drms["broken_target"].value, drms["broken_target"].rule))
    if all(t.id in withdrawing for t in attack.targets):
        out.append(("the target group withdraws from Melee", drms["withdrawing_target"].value,
                    drms["withdrawing_target"].rule))
    return out


def _roll(ctx: AslContext, attack: Attack, table: tables.CloseCombatTable) -> None:
    assert attack.column is not None
    roll = attack.roll = ctx.roller.DR(f"Close Combat: {attack.label}")
    ctx.trail.put("dice", f"CC DR ({attack.label}): white {roll.white}, colored {roll.colored}", roll.total,
                  rule=table.rule)
    final, kill = attack.final_dr, attack.column.kill
    attack.result = "KIA" if final < kill else "CR" if final == kill else "no effect"
    words = {"KIA": "below it: the target group is eliminated", "CR": "equal: Casualty Reduction",
             "no effect": "above it: no effect"}[attack.result]
    ctx.trail.put("check", f"Final DR {final} vs Kill Number {kill} ({words})", attack.result, rule=table.rule)
    attack.cell = table_cell("CCT", attack.column.odds, f"Final DR {final}", attack.result, table.rule)


def _apply(ctx: AslContext, attack: Attack, table: tables.CloseCombatTable) -> None:
    alive = [t for t in attack.targets if not t.eliminated]
    if attack.result == "no effect":
        ctx.trail.note(f"{attack.label}: no effect", rule=table.rule)
        return
    if not alive:
        ctx.trail.note(f"{attack.label}: {attack.result}, but the target group is already gone", rule=table.rule)
        return
    if attack.result == "KIA":
        for unit in alive:
            effects.eliminate(ctx, unit, rule=table.rule, why="Close Combat")
        return
    for unit in random_selection(ctx, alive, 1, purpose="Casualty Reduction"):
        effects.casualty_reduction(ctx, unit, rule=table.rule)


def _withdraw(ctx: AslContext, groups: list[Group], ruleset: Ruleset) -> None:
    for group in groups:
        if not group.withdraw:
            continue
        units = [u for u in (ctx.unit(uid) for uid in group.attackers) if not u.eliminated]
        if not units:
            continue
        ctx.trail.section(f"Withdrawal to {group.withdraw}", rule=WITHDRAWAL)
        for unit in units:
            ctx.touch(unit)
            unit.in_melee = False
        move_to(ctx, ruleset, units, group.withdraw, "withdraws from Melee", rule=WITHDRAWAL)


def _melee(ctx: AslContext, where: str) -> None:
    """Units of both sides left in the Location are locked in Melee; it ends when one side is gone."""
    present = [u for u in ctx.game.units_at(where) if isinstance(u, ASL_UNITS) and not u.is_sw]
    sides = {u.side for u in present}
    if len(sides) > 1:
        ctx.trail.section(f"Melee in {where}: both sides are still there", rule=MELEE)
        for unit in present:
            if not unit.in_melee:
                ctx.touch(unit)
                unit.in_melee = True
                ctx.effect(unit, "in Melee", rule=MELEE)
        return
    ending = [u for u in present if u.in_melee]
    if ending:
        ctx.trail.section(f"Melee in {where} ends: one side is gone", rule=MELEE)
    for unit in ending:
        ctx.touch(unit)
        unit.in_melee = False
        ctx.effect(unit, "Melee ends", rule=MELEE)


# --------------------------------------------------------------------------- the phase

def pending(game: Game) -> list[str]:
    """The Locations where the ATTACKER declared and the DEFENDER has not answered."""
    return sorted(game.options.get(DECLARED, {}))


def phase_end(game: Game, trail: Trail, effects_: list[UnitEffect]) -> None:
    """A Melee whose Location holds one side only (its enemy gone by other means) ends as any phase
    ends (A11.15); the CCPh's declarations and the record of the Locations fought in are for that
    CCPh only."""
    for unit in game.units.values():
        if isinstance(unit, ASL_UNITS) and unit.in_melee and unit.location and not enemies_in(
                game, unit.location, unit.side):
            trail.put("marker", f"{unit.label}: Melee ends, no enemy unit is left in {unit.location}", rule=MELEE,
                      unit=unit.id)
            effects_.append(UnitEffect(unit=unit.id, name=unit.name, side=unit.side, before="Melee", after="",
                                       effects=("Melee ends",)))
            unit.in_melee = False
    if game.phase != "CCPh":
        return
    for where in pending(game):
        trail.note(f"the Close Combat declared in {where} was not resolved: it lapses with the CCPh", rule=RULE)
    game.options.pop(DECLARED, None)
    game.options.pop(RESOLVED, None)
