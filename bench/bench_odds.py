"""Odds benchmark (issue 5 b): the time of an exact preview of the worst standard case.

    .venv/bin/python bench/bench_odds.py

The worst standard case: three 5-4-8 squads, a 9-2 leader directing and an MMG (40 FP at point
blank, the IFT 36+ column) Prep Firing at three 4-4-7 squads and an 8-1 leader in a stone building.
Every IFT result from 4KIA to 1MC can happen, with Random Selection, leaders checking first,
Leader Loss, ELR and Original 12: all end states of all four units, MG breakdown and ROF. The
figure is the median of warm previews (the data tables are loaded once per process); the first,
cold preview is shown beside it. The standard ASL game of bench/scenarios.py is previewed too.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import scenarios
from bench.common import Metric, at_most
from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.game import Game
from bot.core.odds import preview

ODDS_TARGET_MS = 50.0  # issue 5: the worst standard case in at most 50 ms


def worst_case() -> tuple[Game, dict[str, Any]]:
    """The worst standard case, built with the set-up orders players give."""
    game = new_game("asl", sides=["Germans", "Russians"], options={"elr": [3, 2]})
    setup: list[dict[str, Any]] = [
        {"action": "location_set", "location": "A1", "terrain": "open"},
        {"action": "location_set", "location": "B1", "terrain": "stone building"},
        *({"action": "unit_add", "id": f"G{i}", "type": "ger-548", "side": 0, "location": "A1"} for i in range(3)),
        {"action": "unit_add", "id": "GL", "type": "ger-9-2", "side": 0, "location": "A1"},
        {"action": "unit_add", "id": "MG", "type": "ger-mmg", "side": 0, "location": "A1"},
        {"action": "unit_edit", "unit": "MG", "changes": {"owner": "G0"}},
        *({"action": "unit_add", "id": f"R{i}", "type": "rus-447", "side": 1, "location": "B1"} for i in range(3)),
        {"action": "unit_add", "id": "RL", "type": "rus-8-1", "side": 1, "location": "B1"},
        {"action": "phase", "to": "PFPh"},
    ]
    for order in setup:
        game = resolve(game, order, ScriptedDice([], manual=False)).game
    return game, {"action": "fire", "firers": ["G0", "G1", "G2", "MG", "GL"], "target": "B1", "range": 1}


def time_ms(game: Game, order: dict[str, Any], runs: int) -> tuple[float, float]:
    """(first call, median of the warm calls) in milliseconds."""
    start = time.perf_counter()
    preview(game, order)
    first = (time.perf_counter() - start) * 1000
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        preview(game, order)
        samples.append((time.perf_counter() - start) * 1000)
    return first, statistics.median(samples)


def run(quick: bool = False) -> list[Metric]:
    runs = 5 if quick else 40
    game, order = worst_case()
    first, warm = time_ms(game, order, runs)
    standard = scenarios.build("asl")
    _, standard_ms = time_ms(standard, scenarios.asl_fire(), runs)
    return [
        at_most("odds: worst standard case (40 FP vs 3 squads + leader)", warm, "ms", ODDS_TARGET_MS),
        Metric("odds: worst standard case, first call (cold)", first, "ms"),
        Metric("odds: standard ASL fire group vs 3-unit stack", standard_ms, "ms"),
    ]


if __name__ == "__main__":
    from bench.common import arguments

    arguments(sys.argv[1:], __doc__, "bench/bench_odds.py")
    for metric in run():
        print(f"{metric.name:55} {metric.value:12,.1f} {metric.unit:10} {metric.target or '':>10} {metric.verdict}")
