"""Exact odds of a Close Combat (A11), fast: each attack's DR against its Kill Number counted over
the 36 outcomes of two dice, and the attacks' results combined unit by unit.

Both sides' attacks are planned from the state before any result (close_combat.py plans them, the
same code the resolution runs), so their DRs are independent: each attack is KIA, Casualty
Reduction or no effect with n/36 each, and the engine walks the product of those three results over
the attacks, applying them in the order the resolver does. Casualty Reduction's Random Selection
(A.9) is exact too: a given set of s of k candidates is chosen when its units roll the same dr and
every other unit rolls lower.

An ATTACKER's declaration resolves nothing by itself; its odds are those of the Location's
Close Combat if the DEFENDER then makes no attack (said in the notes). Where the resolver's path
depends on earlier results (an ambush's second wave) or Casualty Reduction may fall on a Single
Man Counter (A17: its own rules and dice), this engine gives None and the preview enumerates the
real resolver instead.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ...api import resolve
from ...dice import Roller, ScriptedDice
from ...errors import IllegalOrder
from ...game import Game
from ...odds.enumerate import parsed_order
from ...odds.generic import enumerated_report
from ...odds.report import OddsReport, UnitOdds, chance, ordered_results, ordered_states
from . import close_combat, tables
from .context import AslContext
from .models import AslUnit
from .orders import AslCloseCombat

RESULTS = ("KIA", "CR", "no effect")
MMC = ("squad", "half-squad", "crew")  # what Casualty Reduction reduces or eliminates, no dice (A7.302)
MAX_ATTACKS = 8  # 3**8 combinations of results: beyond that the preview enumerates the resolver


class _NoDice:
    manual = False

    def draw(self, sides: int) -> int:
        raise IllegalOrder("planning a Close Combat rolls no dice")


def counts(drm: int, kill: int) -> dict[str, int]:
    """How many of the 36 (white, colored) pairs give each result at this DRM and Kill Number."""
    found = dict.fromkeys(RESULTS, 0)
    for white, colored in itertools.product(range(1, 7), repeat=2):
        final = white + colored + drm
        found["KIA" if final < kill else "CR" if final == kill else "no effect"] += 1
    return found


def selection(k: int, s: int) -> Fraction:
    """The chance that one given set of ``s`` of ``k`` candidates is exactly the set chosen by
    Random Selection for one unit (A.9: the highest dr, ties included)."""
    return sum((Fraction(1, 6) ** s * Fraction(m - 1, 6) ** (k - s) for m in range(1, 7)), Fraction(0))


@dataclass(frozen=True)
class _State:
    """What the results do to a unit: gone, or reduced (a squad that became its half-squad)."""

    eliminated: bool = False
    reduced: bool = False


def close_combat_odds(game: Game, order: AslCloseCombat) -> OddsReport | None:
    ctx = AslContext(game, Roller(_NoDice()))
    where, side, groups = close_combat.declared_groups(ctx, order)
    declaring = side == game.active_side
    kept = [close_combat.stored_group(g) for g in game.options.get(close_combat.DECLARED, {}).get(where, [])]
    everything = kept + groups
    # the resolver decides where the ambushed side attacks with what the first wave left, and where
    # Casualty Reduction may fall on an SMC (its own rules, A17)
    if any(g.ambush for g in everything):
        return _if_the_defender_holds(game, order, where, side) if declaring else None
    table = tables.close_combat()
    withdrawing = {uid for g in everything if g.withdraw for uid in g.attackers}
    attacks = [a for a in (close_combat.plan_attack(ctx, g, None, withdrawing, table)
                           for g in everything if not g.hold and not g.withdraw) if a is not None]
    if len(attacks) > MAX_ATTACKS or any(t.kind not in MMC for a in attacks for t in a.targets):
        return _if_the_defender_holds(game, order, where, side) if declaring else None
    per_attack = []
    for attack in attacks:
        assert attack.column is not None
        found = counts(attack.drm, attack.column.kill)
        per_attack.append([(r, Fraction(found[r], 36)) for r in RESULTS if found[r]])
    units: dict[str, AslUnit] = {t.id: t for a in attacks for t in a.targets}
    results: dict[str, Fraction] = {}
    states: dict[str, dict[str, Fraction]] = {uid: {} for uid in units}
    for combo in itertools.product(*per_attack):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        key = " / ".join(r for r, _ in combo)
        results[key] = results.get(key, Fraction(0)) + p
        for ends, q in _apply(attacks, [r for r, _ in combo], units):
            for uid, state in ends.items():
                word = "eliminated" if state.eliminated else "reduced" if state.reduced else "unharmed"
                states[uid][word] = states[uid].get(word, Fraction(0)) + p * q
    odds = [f"{a.label} at {a.column.odds if a.column else '-'}, Kill Number "
            f"{a.column.kill if a.column else '-'}, DRM {a.drm:+d}" for a in attacks]
    notes = ["both sides' attacks at once, each from the state before any result (A11)"]
    if declaring:
        notes.append(NOTE_DECLARED.format(where=where))
    return OddsReport(
        ruleset="asl", action="close_combat", headline=f"Close Combat in {where}: " + ("; ".join(odds) or "no attack"),
        results=ordered_results(dict(sorted(results.items(), key=lambda kv: -kv[1]))),
        units=tuple(UnitOdds(unit=uid, name=u.name, side=u.side, states=ordered_states(states[uid]),
                             breaks=chance(Fraction(0))) for uid, u in units.items()),
        at_least_one_breaks=chance(Fraction(0)), notes=tuple(notes),
        method="exact: each attack's 36 dice outcomes against its Kill Number, the attacks combined")


def _if_the_defender_holds(game: Game, order: AslCloseCombat, where: str, side: int) -> OddsReport:
    """The ATTACKER's declaration, where this engine cannot count: the real resolver enumerated over
    the Location's Close Combat as it would be fought if the DEFENDER then made no attack."""
    declared = resolve(game, order, ScriptedDice([])).game  # a declaration rolls no die
    holder = close_combat.enemies_in(declared, where, side)[0].id
    hold = parsed_order(declared, {"action": "close_combat", "attackers": [holder], "hold": True})
    report = enumerated_report(declared, hold)
    return report.model_copy(update={"notes": report.notes + (NOTE_DECLARED.format(where=where),)})


NOTE_DECLARED = ("the ATTACKER's declaration: the odds if the DEFENDER makes no attack in {where}; his declaration "
                 "resolves the Close Combat (A11)")


def _apply(attacks: list[close_combat.Attack], results: list[str],
           units: dict[str, AslUnit]) -> list[tuple[dict[str, _State], Fraction]]:
    """Every way the results may end for the units, with its chance (Random Selection branches)."""
    paths: list[tuple[dict[str, _State], Fraction]] = [({uid: _State() for uid in units}, Fraction(1))]
    for attack, result in zip(attacks, results):
        if result == "no effect":
            continue
        following: list[tuple[dict[str, _State], Fraction]] = []
        for ends, q in paths:
            alive = [t.id for t in attack.targets if not ends[t.id].eliminated]
            if not alive:
                following.append((ends, q))
                continue
            if result == "KIA":
                following.append(({**ends, **{uid: _State(eliminated=True) for uid in alive}}, q))
                continue
            k = len(alive)
            for size in range(1, k + 1):
                chosen_p = selection(k, size) if k > 1 else Fraction(1)
                for chosen in itertools.combinations(alive, size):
                    after = dict(ends)
                    for uid in chosen:
                        reducible = units[uid].kind == "squad" and not after[uid].reduced
                        after[uid] = _State(reduced=True) if reducible else _State(eliminated=True)
                    following.append((after, q * chosen_p))
        paths = following
    return paths


def preview_size(game: Game, order: AslCloseCombat) -> int:
    """The combinations the engine walks: three results per attack, at most."""
    return 3 ** min(len(close_combat.split_groups(order.attackers)) + 2, MAX_ATTACKS) * (len(game.units) + 10)
