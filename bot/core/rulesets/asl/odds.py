"""Exact ASL odds, fast: fire (A7, A8), Morale and task checks (A10, A7.8) and rally (A10.6).

Why not simply run the resolver over every dice sequence (``enumerate.leaves``)? A 3-unit stack
with a leader takes a fire DR, up to three Random Selection drs, four morale DRs and Leader Loss
checks: tens of millions of sequences. The structure of the rules makes it small again:

* the fire DR's 36 (white, colored) pairs decide cowering, the IFT cell, MG breakdown and ROF;
  what happens to the targets depends only on the IFT result, so each result is worked out once;
* a check depends on its DR's total only (11 totals, weighted 1..6..1 in 36), and the totals
  fall into a few classes (pass, pinned, broken, ELR, Original 12, Heat of Battle);
* units influence each other only through leaders (leadership DRM, Leader Loss) and Random
  Selection. So the engine branches on leaders' checks and Random Selection only (a handful
  of paths), and carries every other unit as its own distribution, which is exact because,
  given the leaders' path, the other units' checks are independent.

Every number comes from the real rules code: the fire group, FP, DRMs and cowering from fire.py,
the IFT from data/asl/ift.yaml, morale numbers, Casualty Reduction and ELR replacement from
effects.py and data/asl/morale.yaml, breakdown numbers and ROF from weapons.py. The orchestration
below mirrors morale.apply_ift_result / check / resolve_leader_losses step by step; the tests
hold it to the real resolver, by brute force on small cases and by Monte Carlo on the largest.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ...copying import tree_copy
from ...dice import Roll, Roller, ScriptedDice
from ...errors import IllegalOrder
from ...game import Game
from . import effects, fire, morale, rally, tables, weapons
from .context import AslContext
from .models import AslUnit
from .orders import AslFire, AslMorale, AslRally
from ...odds.enumerate import SUM_WEIGHTS, _NoDice
from ...odds.paths import MAX_PATHS, Brancher, explore
from ...odds.report import (
    OddsReport,
    Snapshot,
    UnitOdds,
    WeaponOdds,
    breaks,
    chance,
    end_state,
    ordered_results,
    ordered_states,
)

ONE = Fraction(1)


# --------------------------------------------------------------------------- counters

@dataclass(frozen=True)
class Printed:
    """The numbers of a counter type that the checks read (and that change on replacement)."""

    kind: str
    type: str
    name: str
    fp: int
    range: int
    morale: int
    broken_morale: int | None
    leadership: int
    morale_underlined: bool
    reduces_to: str | None
    replaced_by: str | None
    wounded: bool = False  # a single-man counter's wound (A17): its morale and leadership above already lowered

    @classmethod
    def of(cls, unit: AslUnit) -> Printed:
        return cls(unit.kind, unit.type, unit.name, unit.fp, unit.range, unit.morale, unit.broken_morale,
                   unit.leadership, unit.morale_underlined, unit.reduces_to, unit.replaced_by, unit.wounded)


@dataclass(frozen=True)
class Rec:
    """One counter in the enumeration: its printed numbers and its state."""

    id: str
    origin: str  # the unit of the game it comes from (ELR may make two of one squad)
    printed: Printed
    broken: bool = False
    pinned: bool = False
    eliminated: bool = False

    @property
    def kind(self) -> str:
        return self.printed.kind

    @property
    def morale(self) -> int:  # the printed morale, which Leader Loss compares (A10.2)
        return self.printed.morale

    @property
    def leadership(self) -> int:
        return self.printed.leadership

    @property
    def current_morale(self) -> int:
        p = self.printed
        return p.broken_morale if self.broken and p.broken_morale is not None else p.morale

    @property
    def snapshot(self) -> Snapshot:
        return Snapshot(self.kind, self.broken, self.pinned, self.eliminated, reduced=self.kind == "half-squad")


def _leaders_first(recs: list[Rec]) -> list[Rec]:
    """morale.leaders_first, on records."""
    leaders = sorted((r for r in recs if r.kind == "leader"), key=lambda r: (r.leadership, -r.morale))
    return leaders + [r for r in recs if r.kind != "leader"]


# --------------------------------------------------------------------------- one check

# What a check's DR does to the unit, by class of totals (morale._outcome_of)
PASS, PIN, ORIGINAL_12, REDUCE, BREAK, ELR, HOB = "pass", "pin", "original 12", "reduce", "break", "elr", "hob"


@lru_cache(maxsize=4096)
def check_classes(current: int, broken: bool, kind: str, modifier: int, after_ift: bool, full: bool,
                  elr: int | None) -> tuple[tuple[str, int], ...]:
    """(class, weight in 36) of a check with these numbers; ``elr`` None: no ELR test."""
    data = effects.rules()
    weights: dict[str, int] = {}
    for total, weight in SUM_WEIGHTS.items():
        final = total + modifier
        if full and kind in data.heat_of_battle.kinds and total == data.heat_of_battle.original:
            tag = HOB
        elif kind in data.check.casualty_kinds and total == data.check.casualty_original:
            tag = ORIGINAL_12
        elif final <= current:
            tag = PIN if after_ift and kind in morale.MC_KINDS and final == current and not broken else PASS
        elif kind in morale.TASK_KINDS:
            tag = PIN
        elif broken:
            tag = REDUCE
        elif elr is not None and final - current > elr:
            tag = ELR
        else:
            tag = BREAK
        weights[tag] = weights.get(tag, 0) + weight
    return tuple(weights.items())


class Counters:
    """Casualty Reduction and ELR replacement done by the real effects code, remembered."""

    def __init__(self, game: Game):
        self.game = game
        self.full = (game.variant or "full") == "full"
        self._cache: dict[tuple[Any, ...], tuple[Rec, ...]] = {}

    def _unit(self, rec: Rec) -> AslUnit:
        template = self.game.units[rec.origin]
        p = rec.printed
        return template.model_copy(update={
            "id": rec.id, "kind": p.kind, "type": p.type, "name": p.name, "fp": p.fp, "range": p.range,
            "morale": p.morale, "broken_morale": p.broken_morale, "leadership": p.leadership,
            "morale_underlined": p.morale_underlined, "reduces_to": p.reduces_to, "replaced_by": p.replaced_by,
            "wounded": p.wounded, "broken": rec.broken, "pinned": rec.pinned, "eliminated": rec.eliminated})

    def _real(self, rec: Rec, how: str, dice: tuple[int, ...] = ()) -> tuple[Rec, ...]:
        key = (rec, how, dice)
        if key not in self._cache:
            unit = self._unit(rec)
            scratch = self.game.model_copy(update={"units": {unit.id: unit}})
            ctx = AslContext(scratch, Roller(ScriptedDice(dice) if dice else _NoDice()))
            if how == "reduce":
                survivor = effects.casualty_reduction(ctx, unit)
                now = [survivor] if survivor is not None else [unit]
            else:
                now = effects.elr_replacement(ctx, unit)
            self._cache[key] = tuple(Rec(u.id, rec.origin, Printed.of(u), u.broken, u.pinned, u.eliminated)
                                     for u in now)
        return self._cache[key]

    def wounds(self, rec: Rec) -> bool:
        """Whether Casualty Reduction wounds this counter (A17.1), a Wound Severity dr deciding."""
        return rec.kind in effects.rules().wounds.kinds and effects.wounds_refereed(self.game)

    def reduce_options(self, rec: Rec) -> tuple[tuple[Fraction, Rec], ...]:
        """(probability, record after) of Casualty Reduction: one certain record, or for a wounded
        single-man counter one per Wound Severity dr (A17.11), the same records merged."""
        if not self.wounds(rec):
            return ((ONE, self.reduce(rec)),)
        found: dict[Rec, Fraction] = {}
        for dr in range(1, 7):
            (now,) = self._real(rec, "reduce", (dr,))
            found[now] = found.get(now, Fraction(0)) + Fraction(1, 6)
        return tuple((p, now) for now, p in found.items())

    def reduce(self, rec: Rec) -> Rec:
        return self._real(rec, "reduce")[0]

    def elr(self, rec: Rec) -> tuple[Rec, ...]:
        return self._real(rec, "elr")

    def elr_of(self, rec: Rec) -> int | None:
        """The ELR a failed MC is compared with (morale._elr), None when there is no test."""
        if rec.kind not in ("squad", "half-squad"):
            return None
        if rec.printed.morale_underlined:
            return effects.rules().elr.underlined_morale_elr
        return self.game.sides[self.game.units[rec.origin].side].elr

    def apply(self, rec: Rec, tag: str, reduce=None) -> tuple[tuple[Rec, ...], bool | None]:
        """The records after the class ``tag`` and, for a leader lost, whether he was eliminated.
        ``reduce``: Casualty Reduction on a path that branches on a wound's severity (Path.reduce)."""
        leader = rec.kind == "leader"
        reduce = reduce or self.reduce
        if tag in (PASS, HOB):
            return (rec,), None
        if tag == PIN:  # effects.pin: a broken unit is not pinned as well
            return ((rec if rec.pinned or rec.broken else replace(rec, pinned=True)),), None
        if tag == BREAK:
            return (replace(rec, broken=True, pinned=False),), (False if leader else None)
        if tag == ELR:
            return tuple(replace(r, broken=True, pinned=False) for r in self.elr(rec)), None
        if tag == REDUCE or (tag == ORIGINAL_12 and rec.broken):
            if tag == ORIGINAL_12:  # Original 12 while broken: eliminated (A10.31)
                return (replace(rec, eliminated=True),), (True if leader else None)
            now = reduce(rec)
            return (now,), (True if leader and now.eliminated else None)
        now = reduce(rec)  # Original 12, Good Order: Casualty Reduction and broken
        if now.eliminated:
            return (now,), (True if leader else None)
        return (replace(now, broken=True, pinned=False),), (False if leader else None)


# --------------------------------------------------------------------------- Random Selection

MAX_SELECTED_FROM = 8  # Random Selection among more units branches on too many subsets to preview


@lru_cache(maxsize=64)
def selection_odds(candidates: int, count: int) -> tuple[tuple[Fraction, tuple[int, ...]], ...]:
    """Random Selection (A.9): (probability, indexes chosen), the highest drs and ties included.

    A set S of s >= count units is chosen exactly when, for its lowest dr m, every other unit
    rolls under m and fewer than ``count`` members of S roll over m (so the count-th highest is m).
    """
    if candidates <= count:
        return ((ONE, tuple(range(candidates))),)
    if candidates > MAX_SELECTED_FROM:
        raise IllegalOrder(f"Random Selection among {candidates} units has too many outcomes to preview "
                           f"exactly (at most {MAX_SELECTED_FROM}); the order itself can still be rolled")
    by_size: dict[int, Fraction] = {}
    for size in range(count, candidates + 1):
        by_size[size] = sum((Fraction(m - 1, 6) ** (candidates - size)
                             * sum(math.comb(size, j) * Fraction(6 - m, 6) ** j * Fraction(1, 6) ** (size - j)
                                   for j in range(count))
                             for m in range(1, 7)), Fraction(0))
    return tuple((by_size[len(chosen)], chosen) for size in range(count, candidates + 1)
                 for chosen in itertools.combinations(range(candidates), size) if by_size[size])


# --------------------------------------------------------------------------- one path

# A unit's distribution: integer weights over its records, and their common denominator (exact,
# and much faster than adding Fractions in the inner loop)
Dist = tuple[dict[tuple[Rec, ...], int], int]


class Path(Brancher):
    """One run of the orchestration along a path of choices (leaders' checks, Random Selection);
    every other unit is a distribution over its records."""

    def __init__(self, engine: Engine, choices: list[int]):
        super().__init__(choices)
        self.engine = engine
        self.counters = engine.counters
        self.leaders: dict[str, Rec] = dict(engine.leaders)
        self.others: dict[str, Dist] = {uid: ({(rec,): 1}, 1) for uid, rec in engine.others.items()}
        self.losses: list[morale.LeaderLoss] = []

    # --- reading the state

    def rec(self, uid: str) -> Rec:
        """A unit's record where it is certain: leaders, and others before any check."""
        if uid in self.leaders:
            return self.leaders[uid]
        (recs,) = self.others[uid][0]
        return recs[0]

    def set_point(self, uid: str, rec: Rec) -> None:
        if uid in self.leaders:
            self.leaders[uid] = rec
        else:
            self.others[uid] = ({(rec,): 1}, 1)

    def good_order_leaders(self, uid: str) -> list[Rec]:
        """morale.good_order_leaders: Good Order leaders of the Location other than ``uid``."""
        found = [r for r in self.leaders.values() if r.id != uid and not r.broken and not r.eliminated]
        return sorted(found, key=lambda r: (r.leadership, -r.morale))

    def leader_drm(self, uid: str) -> int:
        leaders = self.good_order_leaders(uid)
        return leaders[0].leadership if leaders else 0

    # --- checks

    def check(self, uid: str, kind: str, n: int, drm: int, *, after_ift: bool, eligible=None) -> None:
        """One check on a leader (a branch), or on each eligible record of another unit."""
        c = self.counters
        if uid in self.leaders:
            rec = self.leaders[uid]
            if rec.eliminated:
                return
            classes = check_classes(rec.current_morale, rec.broken, kind, n + drm, after_ift, c.full, None)
            tag = self.branch([(Fraction(w, 36), t) for t, w in classes])
            (now,), lost = c.apply(rec, tag, self.reduce)
            self.leaders[uid] = now
            if lost is not None:
                self.losses.append(morale.LeaderLoss(uid, lost))
            return
        eligible = eligible or (lambda r: r.id == uid)
        weights, denominator = self.others[uid]
        width = max(len(recs) for recs in weights)  # every record is one die of 36: one scale
        out: dict[tuple[Rec, ...], int] = {}
        for recs, p in weights.items():
            options = [[(36, (rec,))] if rec.eliminated or not eligible(rec)
                       else self.engine.outcomes(rec, kind, n + drm, after_ift) for rec in recs]
            p *= 36 ** (width - len(recs))
            for combo in itertools.product(*options):
                q = p
                now: tuple[Rec, ...] = ()
                for weight, recs_now in combo:
                    q *= weight
                    now += recs_now
                out[now] = out.get(now, 0) + q
        self.others[uid] = (out, denominator * 36 ** width)

    def checks(self, kind: str, n: int, unit_ids: list[str]) -> None:
        """morale._checks: leaders first; a leader helps only once he has passed his own check."""
        order = [r.id for r in _leaders_first([self.rec(u) for u in unit_ids])]
        attacked = set(unit_ids)
        for uid in order:
            helpers = [r for r in self.good_order_leaders(uid)
                       if r.id not in attacked or order.index(r.id) < order.index(uid)]
            self.check(uid, kind, n, helpers[0].leadership if helpers else 0, after_ift=True)

    def leader_losses(self) -> None:
        """morale.resolve_leader_losses: LLTC (broken) or LLMC (eliminated, his DRM reversed) for
        the units of lower morale, in the order the leaders were lost (A10.2)."""
        done: set[str] = set()
        while self.losses:
            loss = self.losses.pop(0)
            if loss.leader in done:
                continue
            done.add(loss.leader)
            eliminated = loss.eliminated or any(x.eliminated for x in self.losses if x.leader == loss.leader)
            self.leader_loss(self.leaders[loss.leader], eliminated)

    def leader_loss(self, leader: Rec, eliminated: bool) -> None:
        kind = "LLMC" if eliminated else "LLTC"
        n = -leader.leadership if eliminated else 0

        def takes(rec: Rec) -> bool:
            return (rec.id != leader.id and not rec.eliminated and rec.morale < leader.morale
                    and (eliminated or not rec.broken))

        takers = [r for r in self.leaders.values() if takes(r)]
        for rec in _leaders_first(takers):
            self.check(rec.id, kind, n, self.leader_drm(rec.id), after_ift=False)
        drm = self.leader_drm("")  # the others' checks: leaders are settled by now
        for uid, dist in self.others.items():
            if any(takes(r) for recs in dist[0] for r in recs):
                self.check(uid, kind, n, drm, after_ift=False, eligible=takes)

    def reduce(self, rec: Rec) -> Rec:
        """Casualty Reduction on this path: a wounded single-man counter branches on the Wound
        Severity dr (A17.11), as the leaders' checks do."""
        options = self.counters.reduce_options(rec)
        return options[0][1] if len(options) == 1 else self.branch(list(options))

    # --- IFT results

    def select(self, unit_ids: list[str], count: int) -> set[str]:
        odds = selection_odds(len(unit_ids), count)
        chosen = self.branch(list(odds)) if len(odds) > 1 else odds[0][1]
        return {unit_ids[i] for i in chosen}

    def ift_result(self, result: str, targets: list[str]) -> None:
        """morale.apply_ift_result on the target's records."""
        match = morale.IFT_RESULT.match(result)
        units = [u for u in targets if not self.rec(u).eliminated]
        if result == "-" or not units or match is None:
            return
        c = self.counters
        if match.group(4):  # nKIA (A7.301)
            chosen = self.select(units, int(match.group(4)))
            for uid in units:
                rec = self.rec(uid)
                if uid in chosen:
                    self.set_point(uid, replace(rec, eliminated=True))
                    self._lost(rec, True)
                elif not rec.broken:
                    self.set_point(uid, replace(rec, broken=True, pinned=False))
                    self._lost(rec, False)
        elif match.group(3):  # K/n (A7.302)
            for uid in self.select(units, 1):
                now = self.reduce(self.rec(uid))
                self.set_point(uid, now)
                if now.eliminated:
                    self._lost(now, True)
            survivors = [u for u in units if not self.rec(u).eliminated]
            self.checks("MC", int(match.group(3)), survivors)
        elif result == "PTC":
            self.checks("PTC", 0, [u for u in units if not self.rec(u).broken])
        else:
            n = int(match.group(2) or 0)
            self.checks("MC" if n else "NMC", n, units)
        self.leader_losses()

    def _lost(self, rec: Rec, eliminated: bool) -> None:
        if rec.kind == "leader":
            self.losses.append(morale.LeaderLoss(rec.id, eliminated))


# --------------------------------------------------------------------------- the engine

@dataclass
class Tally:
    """Per-unit end states, P(breaks) and P(at least one breaks) over the paths of one program."""

    states: dict[str, dict[str, Fraction]]
    broke: dict[str, Fraction]
    any_breaks: Fraction

    def add(self, other: Tally, weight: Fraction) -> None:
        for uid, dist in other.states.items():
            mine = self.states.setdefault(uid, {})
            for state, p in dist.items():
                mine[state] = mine.get(state, Fraction(0)) + weight * p
        for uid, p in other.broke.items():
            self.broke[uid] = self.broke.get(uid, Fraction(0)) + weight * p
        self.any_breaks += weight * other.any_breaks


class Engine:
    """The units of one side in one Location, and the programs run on them."""

    def __init__(self, game: Game, location: str | None, side: int):
        self.game = game
        self.counters = Counters(game)
        units = [u for u in game.units.values() if isinstance(u, AslUnit) and not u.is_sw and not u.eliminated
                 and u.side == side and location is not None and u.location == location]
        self.order = [u.id for u in units]
        self.leaders = {u.id: Rec(u.id, u.id, Printed.of(u), u.broken, u.pinned) for u in units if u.kind == "leader"}
        self.others = {u.id: Rec(u.id, u.id, Printed.of(u), u.broken, u.pinned) for u in units if u.kind != "leader"}
        self.before = {u.id: Snapshot(u.kind, u.broken, u.pinned, False, reduced=u.kind == "half-squad")
                       for u in units}
        self._outcomes: dict[tuple[Any, ...], list[tuple[int, tuple[Rec, ...]]]] = {}
        self._states: dict[tuple[str, tuple[Rec, ...]], tuple[str, bool]] = {}

    @classmethod
    def around(cls, game: Game, unit: AslUnit) -> Engine:
        """The units of ``unit``'s side in its Location; an off-board unit on its own."""
        engine = cls(game, unit.location, unit.side)
        if unit.id not in engine.order:
            engine.order.append(unit.id)
            rec = Rec(unit.id, unit.id, Printed.of(unit), unit.broken, unit.pinned)
            (engine.leaders if unit.kind == "leader" else engine.others)[unit.id] = rec
            engine.before[unit.id] = rec.snapshot
        return engine

    def outcomes(self, rec: Rec, kind: str, modifier: int, after_ift: bool) -> list[tuple[int, tuple[Rec, ...]]]:
        """(weight in 36, records after) of one check on a unit that is not a leader; remembered,
        as the same check recurs on every path."""
        key = (rec, kind, modifier, after_ift)
        found = self._outcomes.get(key)
        if found is None:
            c = self.counters
            classes = check_classes(rec.current_morale, rec.broken, kind, modifier, after_ift, c.full, c.elr_of(rec))
            found = self._outcomes[key] = [(w, c.apply(rec, t)[0]) for t, w in classes]
        return found

    def run(self, program) -> Tally:
        """Every path of ``program(path)``, depth first, tallied."""
        tally = Tally({u: {} for u in self.order}, {u: Fraction(0) for u in self.order}, Fraction(0))

        def run_on(path: Path) -> Path:
            program(path)
            return path

        for _p, path in explore(run_on, brancher=lambda choices: Path(self, choices)):
            self._tally(path, tally)
        return tally

    def _tally(self, path: Path, tally: Tally) -> None:
        p = path.probability
        none_break = ONE
        for uid, rec in path.leaders.items():
            state = end_state(self.before[uid], (rec.snapshot,))
            tally.states[uid][state] = tally.states[uid].get(state, Fraction(0)) + p
            if breaks(self.before[uid], (rec.snapshot,)):
                tally.broke[uid] += p
                none_break = Fraction(0)
        for uid, (weights, denominator) in path.others.items():
            sums: dict[str, int] = {}
            broke_weight = 0
            for recs, q in weights.items():
                state, broke = self._state(uid, recs)
                sums[state] = sums.get(state, 0) + q
                broke_weight += q if broke else 0
            for state, q in sums.items():
                tally.states[uid][state] = tally.states[uid].get(state, Fraction(0)) + p * Fraction(q, denominator)
            broke = Fraction(broke_weight, denominator)
            tally.broke[uid] += p * broke
            none_break *= 1 - broke
        tally.any_breaks += p * (1 - none_break)

    def _state(self, uid: str, recs: tuple[Rec, ...]) -> tuple[str, bool]:
        key = (uid, recs)
        if key not in self._states:
            after = tuple(r.snapshot for r in recs)
            self._states[key] = (end_state(self.before[uid], after), breaks(self.before[uid], after))
        return self._states[key]

    def units(self, tally: Tally) -> tuple[UnitOdds, ...]:
        return tuple(UnitOdds(unit=uid, name=self.game.units[uid].name, side=self.game.units[uid].side,
                              states=ordered_states(tally.states[uid]), breaks=chance(tally.broke[uid]))
                     for uid in self.order)


def _scratch(game: Game) -> AslContext:
    return AslContext(tree_copy(game), Roller(_NoDice()))  # the resolver's own fast deep copy


# --------------------------------------------------------------------------- fire

RESULT_ORDER = ([f"{n}KIA" for n in range(7, 0, -1)] + [f"K/{n}" for n in range(4, 0, -1)]
                + [f"{n}MC" for n in range(7, 0, -1)] + ["NMC", "PTC", "-"])
RESULT_WORDS = {"-": "no effect"}


@dataclass
class FireSetup:
    kind: str
    group: fire.FireGroup
    targets: list[AslUnit]
    location: str
    total: Fraction
    column: int | None
    drm: int
    can_cower: bool
    headline: str


def fire_setup(game: Game, order: AslFire) -> FireSetup:
    """The attack as the real fire code builds it, up to the roll."""
    ctx = _scratch(game)
    table = tables.ift()
    kind = fire.fire_kind(ctx.game, order)
    if kind == "residual":
        defender = 1 - ctx.game.active_side
        loc, targets = fire.select_targets(ctx, order, "residual", defender)
        drms = fire._target_drms("residual", order, loc, targets)
        if order.drm:
            drms.append(fire.Drm("agreed", order.drm, "agreed by the players"))
        group = fire.FireGroup(kind="residual", side=defender)
        total, can_cower = Fraction(loc.residual_fp), False
    else:
        group = fire.build_group(ctx, order, kind)
        fire.aim(ctx, group, order)
        loc, targets = fire.select_targets(ctx, order, kind, group.side)
        fire.sight(ctx, group, order)
        total = fire.firepower(ctx, group, order)
        drms = fire.group_drms(ctx, group, order, loc, targets) if table.column_index(float(total)) is not None else []
        can_cower = True
    column = table.column_index(float(total))
    drm = sum(d.value for d in drms)
    fp = f"{fire._num(total)} {'Residual ' if kind == 'residual' else ''}FP"
    head = (f"{fp} (IFT {table.label(column)}) vs {loc.id}, DRM {drm:+d}" if column is not None
            else f"{fp} vs {loc.id}: under 1 FP, no attack")
    return FireSetup(kind, group, targets, loc.id, total, column, drm, can_cower, head)


def _pair_results(ctx: AslContext, setup: FireSetup) -> list[tuple[tuple[int, int], str, int]]:
    """(pair, IFT result, columns cowered) for each of the 36 fire DRs."""
    table = tables.ift()
    out = []
    for white in range(1, 7):
        for colored in range(1, 7):
            roll = Roll(kind="DR", purpose="IFT attack", dice=(white, colored))
            shift = fire.cowering(ctx, setup.group, roll) if setup.can_cower else 0
            column = setup.column - shift
            result = "-" if column < 0 else table.read(column, roll.total + setup.drm)
            out.append(((white, colored), result, shift))
    return out


def _weapons(ctx: AslContext, setup: FireSetup, pairs) -> tuple[WeaponOdds, ...]:
    """MG breakdown (A.11, Random Selection among several at risk) and ROF (A9.2) per pair."""
    rule = fire.KINDS[setup.kind]
    mgs = [m for m in setup.group.members if weapons.is_mg(m.unit)]
    numbers = {m.unit.id: weapons.breakdown_number(ctx.game, m.unit, m.user,
                                                   sustained=rule.sustained or m.first_fire_dfph) for m in mgs}
    odds = {m.unit.id: [Fraction(0), Fraction(0), Fraction(0)] for m in mgs}  # breaks, removed, ROF
    for (white, colored), _result, shift in pairs:
        total = white + colored
        at_risk = [m.unit.id for m in mgs if total >= numbers[m.unit.id].number]
        chosen = {uid: Fraction(0) for uid in odds}
        for p, picked in selection_odds(len(at_risk), 1) if at_risk else ():
            for i in picked:
                chosen[at_risk[i]] += p
        for m in mgs:
            uid = m.unit.id
            bn = numbers[uid]
            odds[uid][0] += chosen[uid] / 36
            if bn.removal is not None and total >= bn.removal:
                odds[uid][1] += chosen[uid] / 36
            why_not = rule.no_rof or ("sustained fire" if m.first_fire_dfph else None)
            if why_not is None and shift:
                why_not = "the group cowered"
            rof = weapons.rate_of_fire(m.unit)
            if why_not is None and rof > 0 and not (m.user is not None and m.user.pinned) and colored <= rof:
                odds[uid][2] += (1 - chosen[uid]) / 36
    return tuple(WeaponOdds(unit=m.unit.id, name=m.unit.name, malfunctions=chance(odds[m.unit.id][0]),
                            removed=chance(odds[m.unit.id][1]), keeps_rof=chance(odds[m.unit.id][2]))
                 for m in mgs)


def fire_odds(game: Game, order: AslFire) -> OddsReport:
    setup = fire_setup(game, order)
    engine = Engine(game, setup.location, setup.targets[0].side)
    target_ids = [t.id for t in setup.targets]
    notes = [("Results per IFT cell (A7.3); checks: leaders first with the DRM of a leader who passed (A10.7), "
              "pin on Final DR = morale (A7.8), Original 12 (A10.31), ELR (A19.13), Leader Loss (A10.2)")]
    if setup.column is None:
        tally = engine.run(lambda path: None)
        return OddsReport(ruleset="asl", action="fire", headline=setup.headline, results={"no attack": chance(ONE)},
                          units=engine.units(tally), at_least_one_breaks=chance(Fraction(0)), notes=tuple(notes))
    ctx = _scratch(game)
    pairs = _pair_results(ctx, setup)
    results: dict[str, Fraction] = {}
    for _pair, result, _shift in pairs:
        results[result] = results.get(result, Fraction(0)) + Fraction(1, 36)
    total = Tally({u: {} for u in engine.order}, {u: Fraction(0) for u in engine.order}, Fraction(0))
    for result, p in results.items():
        total.add(engine.run(lambda path, r=result: path.ift_result(r, target_ids)), p)
    cowers = sum((Fraction(1, 36) for _, _, shift in pairs if shift), Fraction(0)) if setup.can_cower else None
    if (game.variant or "full") == "full":
        notes.append("an Original 2 on an MC is Heat of Battle (A15): counted as passed; the players resolve it")
    shown = {RESULT_WORDS.get(k, k): v for k, v in results.items()}
    order_words = [RESULT_WORDS.get(k, k) for k in RESULT_ORDER]
    return OddsReport(ruleset="asl", action="fire", headline=setup.headline,
                      results=ordered_results(shown, order_words),
                      units=engine.units(total), at_least_one_breaks=chance(total.any_breaks),
                      cowers=chance(cowers) if cowers is not None else None,
                      weapons=_weapons(ctx, setup, pairs), notes=tuple(notes))


# --------------------------------------------------------------------------- morale and rally

def morale_odds(game: Game, order: AslMorale) -> OddsReport:
    unit: AslUnit = game.unit(order.unit)  # type: ignore[assignment]
    engine = Engine.around(game, unit)
    results: dict[str, Fraction] = {}
    first = _leader_drm_for(engine, unit.id)
    rec = engine.leaders.get(unit.id) or engine.others[unit.id]
    modifier = (order.n if order.check in ("MC", "LLMC") else 0) + first + order.drm
    elr = None if unit.kind == "leader" else engine.counters.elr_of(rec)
    for tag, w in check_classes(rec.current_morale, rec.broken, order.check, modifier, False,
                                engine.counters.full, elr):
        word = {PASS: "passes", PIN: "fails" if order.check in morale.TASK_KINDS else "passes", HOB: "Heat of Battle",
                ORIGINAL_12: "fails (Original 12)"}.get(tag, "fails")
        results[word] = results.get(word, Fraction(0)) + Fraction(w, 36)

    def program(path: Path) -> None:
        path.check(unit.id, order.check, order.n if order.check in ("MC", "LLMC") else 0, first + order.drm,
                   after_ift=False)
        path.leader_losses()

    tally = engine.run(program)
    headline = f"{unit.label}: {morale.title(order.check, order.n)} vs {'broken-side ' if unit.broken else ''}morale " \
               f"{unit.current_morale}, DRM {modifier:+d}"
    return OddsReport(ruleset="asl", action="morale", headline=headline,
                      results=ordered_results(results, ["passes", "Heat of Battle", "fails", "fails (Original 12)"]),
                      units=engine.units(tally), at_least_one_breaks=chance(tally.any_breaks),
                      notes=("Leader Loss checks included (A10.2)",))


def _leader_drm_for(engine: Engine, uid: str) -> int:
    leaders = sorted((r for r in engine.leaders.values() if r.id != uid and not r.broken),
                     key=lambda r: (r.leadership, -r.morale))
    return leaders[0].leadership if leaders else 0


def rally_odds(game: Game, order: AslRally) -> OddsReport:
    ctx = _scratch(game)
    unit = ctx.unit(order.unit)
    leader = rally._rallier(ctx, unit, order)  # the real choice of rallier, checked as the order would be
    self_rally = leader is None
    drm = rally._drms(ctx, unit, leader)
    data = effects.rules()
    engine = Engine.around(game, unit)
    target = unit.current_morale
    classes: dict[str, int] = {}
    for total, w in SUM_WEIGHTS.items():
        if total == data.rally.casualty_original:
            tag = "Casualty Reduction"
        elif engine.counters.full and not self_rally and total == data.heat_of_battle.original:
            tag = "rallies (Heat of Battle)"
        else:
            tag = "rallies" if total + drm <= target else "stays broken"
        classes[tag] = classes.get(tag, 0) + w

    def program(path: Path) -> None:
        tag = path.branch([(Fraction(w, 36), t) for t, w in classes.items()])
        rec = path.rec(unit.id)
        if tag.startswith("rallies"):
            path.set_point(unit.id, replace(rec, broken=False))
        elif tag == "Casualty Reduction":
            now = path.reduce(rec)
            path.set_point(unit.id, now)
            if now.eliminated and now.kind == "leader":
                path.losses.append(morale.LeaderLoss(unit.id, True))
                path.leader_losses()

    tally = engine.run(program)
    how = "Self-Rally" if self_rally else f"rallied by {leader.label}"
    return OddsReport(ruleset="asl", action="rally",
                      headline=f"{unit.label} rally ({how}) vs broken-side morale {target}, DRM {drm:+d}",
                      results=ordered_results({k: Fraction(w, 36) for k, w in classes.items()},
                                              ["rallies", "rallies (Heat of Battle)", "stays broken",
                                               "Casualty Reduction"]),
                      units=engine.units(tally), at_least_one_breaks=chance(tally.any_breaks),
                      notes=("Original 12: Casualty Reduction (A10.6); Leader Loss checks included (A10.2)",))



# --------------------------------------------------------------------------- size, before any enumeration

def fire_size(game: Game, order: AslFire) -> int:
    """The most paths ``fire_odds`` may explore, summed over the attack's IFT results, counted from
    the target stack alone (issue 17: a stack of leaders made a preview run for minutes before its
    cap refused it). The engine branches on leaders only: each leader's check after the attack, a
    Leader Loss check (A10.2) for each leader of lower morale than a leader who breaks or dies, and
    Random Selection (A.9). A result whose bound passes MAX_PATHS is refused now, with the numbers."""
    setup = fire_setup(game, order)
    if setup.column is None:
        return 1
    engine = Engine(game, setup.location, setup.targets[0].side)
    leaders = list(engine.leaders.values())
    full = engine.counters.full
    pairs = sum(1 for a in leaders for b in leaders if b.morale < a.morale)
    loss_classes = max((len(check_classes(r.morale, False, "LLTC", 0, False, full, None)) for r in leaders), default=1)
    results = {result for _pair, result, _shift in _pair_results(_scratch(game), setup)}
    targets = [t.id for t in setup.targets if not t.eliminated]
    total = 0
    for result in results:
        match = morale.IFT_RESULT.match(result)
        if result == "-" or match is None:
            total += 1
            continue
        n = int(match.group(2) or match.group(3) or 0)
        kind = "PTC" if result == "PTC" else "MC" if n else "NMC"
        bound = 1
        for rec in leaders:
            bound *= len(check_classes(rec.current_morale, rec.broken, kind, n, True, full, None))
        bound *= loss_classes ** pairs
        if match.group(4) or match.group(3):  # Random Selection among the targets
            count = int(match.group(4)) if match.group(4) else 1
            bound *= len(selection_odds(len(targets), count)) if len(targets) > count else 1
        if bound > MAX_PATHS:
            raise IllegalOrder(
                f"too many outcomes to preview exactly: on a {result} the {len(leaders)} leaders in {setup.location} "
                f"check, with {pairs} possible Leader Loss checks among them (A10.2), up to {bound:,} ways for "
                f"their checks to fall, more than the {MAX_PATHS:,} a preview tells apart; preview an attack "
                "on a stack with fewer leaders, or roll it")
        total += bound
    return total * (1 + len(engine.others))
