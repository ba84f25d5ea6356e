"""NHiS and Command Decision odds: exact against the real resolver where every dice sequence can be
run, within 4 standard errors of a Monte-Carlo run of the real resolver where ties are rerolled
without end (NHiS damage allocation) or the tree is large (CD ROF 3 with a roll per hit)."""

import math
from fractions import Fraction

import pytest

from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.core.odds import preview
from bot.core.odds.enumerate import BranchRoller, Leaf
from bot.core.odds.generic import snapshot
from bot.core.rulesets.nhis.odds import cell_outcomes
from bot.core.odds.report import breaks, end_state
from bot.core.rulesets.nhis import damage as nhis_damage
from bot.core.rulesets.nhis import morale as nhis_morale
from bot.core.rulesets.nhis.context import NhisContext
from tests.core.cd.conftest import CdBuilder
from tests.core.nhis.conftest import NhisBuilder

from .conftest import brute_force, report_states, tallied


def _nhis_stack():
    return (NhisBuilder().hex("A1").hex("B1", "open")
            .squad("U1", 0, "A1", fp=6, range=5).squad("U2", 0, "A1", fp=6, range=5)
            .leader("JL", 1, "B1", morale=5, leadership=1)
            .squad("J1", 1, "B1", morale=4).squad("J2", 1, "B1", morale=3, shakeable=False).game)


def test_nhis_morale_check_with_a_prepared_leader_is_exact_seed_001():
    game = _nhis_stack()
    order = {"action": "morale", "unit": "J1", "hit": 2}
    report = preview(game, order)
    assert report.results["pass"].p == Fraction(1, 2)
    assert report_states(report) == tallied(game, brute_force(game, order), ["J1"])
    # 1d6 + 2 <= 4 + 1 (leadership): 3 faces of 6
    assert report.units[0].states["unharmed"].p == Fraction(1, 2)


def test_nhis_rally_is_exact_seed_001():
    game = _nhis_stack()
    game.phase = "Rally"
    game.units["J1"].shaken = True
    order = {"action": "rally", "unit": "J1"}
    report = preview(game, order)
    assert report_states(report) == tallied(game, brute_force(game, order), ["J1"])
    assert report.units[0].states["rallied"].p == Fraction(5, 6)


def _monte_carlo(game, order, report, runs, subjects, result_of):
    dice = SeededDice(f"odds {order['action']}")
    results: dict[str, int] = {}
    states = {u: {} for u in subjects}
    any_breaks = 0
    for _ in range(runs):
        res = resolve(game, order, dice)
        key = result_of(res.outcome)
        results[key] = results.get(key, 0) + 1
        some = False
        for uid in subjects:
            before, after = snapshot(game.units[uid]), (snapshot(res.game.units[uid]),)
            state = end_state(before, after)
            states[uid][state] = states[uid].get(state, 0) + 1
            some |= breaks(before, after)
        any_breaks += some

    def within(p, hits, what):
        se = math.sqrt(float(p) * (1 - float(p)) / runs)
        assert abs(hits / runs - float(p)) <= 4 * se + 1e-12, f"{what}: exact {float(p):.4f}, seen {hits / runs:.4f}"

    assert set(results) <= set(report.results)
    for key, c in report.results.items():
        within(c.p, results.get(key, 0), key)
    for unit in report.units:
        assert set(states[unit.unit]) <= set(unit.states)
        for state, c in unit.states.items():
            within(c.p, states[unit.unit].get(state, 0), f"{unit.unit} {state}")
    within(report.at_least_one_breaks.p, any_breaks, "at least one shaken")


def test_nhis_fire_with_hits_and_damage_agrees_with_the_real_resolver():
    game = _nhis_stack()
    order = {"action": "fire", "firers": ["U1", "U2"], "target": "B1", "range": 1}
    report = preview(game, order)
    assert {"Damaged-2", "Damaged", "Hit-1", "Hit", "no effect"} <= set(report.results)
    _monte_carlo(game, order, report, 3000, ["JL", "J1", "J2"],
                 lambda out: out.cells[0].result if out.cells else "no effect")


class _Cut(Exception):
    """A line of rerolled ties cut short; its probability is counted as unfinished."""


def _real_nhis(game, targets, apply):
    """The real NHiS code run over every roll (BranchRoller): (leaves, unfinished mass)."""
    found, unfinished, path = [], Fraction(0), []
    while True:
        roller = BranchRoller(path)
        work = game.model_copy(deep=True)
        try:
            apply(NhisContext(work, roller), [work.units[t] for t in targets])
            found.append(Leaf(roller.probability, None, work))
        except _Cut:
            unfinished += roller.probability
        del path[len(roller.widths):]
        while path and path[-1] + 1 >= roller.widths[len(path) - 1]:
            path.pop()
        if not path:
            return found, unfinished
        path[-1] += 1


@pytest.mark.parametrize("cell", ["Hit-1", "Hit", "D", "D-2", "D-3"])
def test_nhis_each_fire_table_result_matches_the_real_morale_and_damage_code(cell, monkeypatch):
    game = _nhis_stack()
    # Hits: the whole stack, leaders first; damage: two units, so the rerolled ties stay few
    targets = ["JL", "J1", "J2"] if cell.startswith("Hit") else ["J1", "J2"]
    if not cell.startswith("Hit"):
        game.units.pop("JL")
    mine = list(cell_outcomes(game, targets, cell, False))
    hit = cell.startswith("Hit")
    n = int(cell[4:] or 0) if hit else int(cell[2:] or 1)
    original = BranchRoller._choose

    def cut(self, kind, purpose, choice):  # stop a line of rerolled ties after 5 dice
        if self.position >= 5:
            raise _Cut()
        return original(self, kind, purpose, choice)

    monkeypatch.setattr(BranchRoller, "_choose", cut)
    if hit:
        def apply(ctx, units):
            nhis_morale.hit_checks(ctx, units, n, flamethrower=False)
    else:
        def apply(ctx, units):
            nhis_damage.damaged(ctx, units, n, flamethrower=False)
    real, unfinished = _real_nhis(game, targets, apply)
    exact, _, _ = tallied(game, [Leaf(p, None, g) for p, g in mine], targets)
    seen, _, _ = tallied(game, real, targets)
    for uid in targets:
        for state in set(exact[uid]) | set(seen[uid]):
            low = seen[uid].get(state, Fraction(0))
            assert low <= exact[uid].get(state, Fraction(0)) <= low + unfinished, (uid, state)
    assert unfinished <= Fraction(1, 36)  # two ties in a row
    if hit:
        assert unfinished == 0 and exact == {u: {k: v for k, v in d.items() if v} for u, d in seen.items()}


def _cd_game(rof=1):
    return (CdBuilder().stand("MG", 1, rof=rof, quality="regular", weapon_class="S", to_hit={"short": 6})
            .stand("P1", 0, quality="green").stand("P2", 0, quality="veteran").game)


def test_cd_fire_with_one_rof_die_is_exact_against_every_roll_cd_19_1():
    game = _cd_game(rof=1)
    order = {"action": "fire", "firer": "MG", "targets": ["P1"], "range_band": "short"}
    report = preview(game, order)
    assert report_states(report) == tallied(game, brute_force(game, order), ["P1"])
    assert report.results["1 hit"].p + report.results["0 hits"].p == 1


def test_cd_fire_rof_3_at_two_stands_agrees_with_the_real_resolver():
    game = _cd_game(rof=3)
    order = {"action": "fire", "firer": "MG", "targets": ["P1", "P2"], "range_band": "short"}
    report = preview(game, order)
    from bot.core.odds.generic import result_of
    _monte_carlo(game, order, report, 3000, ["P1", "P2"], result_of)


def test_cd_company_morale_is_exact_cd_21():
    game = (CdBuilder(phase="CommandMorale").stand("P1", 0, quality="green", company="Able")
            .stand("P2", 0, quality="veteran", company="Able").game)
    order = {"action": "morale", "company": "Able"}
    report = preview(game, order)
    assert sum(c.p for c in report.results.values()) == 1
    assert report_states(report) == tallied(game, brute_force(game, order), ["P1", "P2"])
