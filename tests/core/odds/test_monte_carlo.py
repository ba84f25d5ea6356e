"""The largest standard case against a Monte-Carlo run of the real resolver.

Three 5-4-8s, a 9-2 and an MMG (40 FP, IFT 36+) fire at three 4-4-7s and an 8-1 in a stone
building: every IFT result from 4KIA to 1MC, Random Selection, leaders first, Leader Loss, ELR
and Original 12 all occur. The resolver is run RUNS times with SeededDice; every exact probability
must lie within 4 standard errors of the observed frequency.
"""

import math
from fractions import Fraction

from bot.core.api import resolve
from bot.core.dice import SeededDice
from bot.core.odds import preview
from bot.core.odds.enumerate import successors
from bot.core.odds.generic import snapshot
from bot.core.odds.report import breaks, end_state

from .conftest import standard_game

RUNS = 8_000
TARGETS = ["R0", "R1", "R2", "RL"]


def _within(p: Fraction, hits: int, what: str) -> None:
    freq = hits / RUNS
    se = math.sqrt(float(p) * (1 - float(p)) / RUNS)
    if p in (0, 1):
        assert freq == float(p), f"{what}: exact {p}, observed {freq}"
        return
    assert abs(freq - float(p)) <= 4 * se, f"{what}: exact {float(p):.4f}, observed {freq:.4f} (se {se:.4f})"


def test_the_worst_standard_case_agrees_with_8000_resolutions_of_the_real_resolver():
    game, order = standard_game()
    report = preview(game, order)
    dice = SeededDice("issue-5 odds")  # its own generator: the global RNG is never seeded
    results: dict[str, int] = {}
    states = {u: {} for u in TARGETS}
    broke = {u: 0 for u in TARGETS}
    any_breaks = malfunctions = kept = 0
    for _ in range(RUNS):
        res = resolve(game, order, dice)
        key = res.outcome.cells[0].result if res.outcome.cells else "-"
        key = "no effect" if key == "-" else key
        results[key] = results.get(key, 0) + 1
        some = False
        for uid in TARGETS:
            before = snapshot(game.units[uid])
            after = tuple(snapshot(u) for u in successors(game, res.game, uid))
            state = end_state(before, after)
            states[uid][state] = states[uid].get(state, 0) + 1
            if breaks(before, after):
                broke[uid] += 1
                some = True
        any_breaks += some
        malfunctions += res.game.units["MG"].malfunctioned
        kept += any(s.label.startswith("MMG MG ROF") and s.value == "kept" for s in res.outcome.trail)
    assert set(results) <= set(report.results)
    for key, c in report.results.items():
        _within(c.p, results.get(key, 0), f"result {key}")
    for unit in report.units:
        assert set(states[unit.unit]) <= set(unit.states)
        for state, c in unit.states.items():
            _within(c.p, states[unit.unit].get(state, 0), f"{unit.unit} {state}")
        _within(unit.breaks.p, broke[unit.unit], f"{unit.unit} breaks")
    _within(report.at_least_one_breaks.p, any_breaks, "at least one breaks")
    (mg,) = report.weapons
    _within(mg.malfunctions.p, malfunctions, "MMG malfunctions")
    _within(mg.keeps_rof.p, kept, "MMG keeps ROF")
