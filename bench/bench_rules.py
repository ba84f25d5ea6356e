"""Rules core benchmark: resolutions per second of the standard orders, on one core.

    .venv/bin/python bench/bench_rules.py

Each order goes through ``bot.core.api.resolve`` exactly as the service calls it (the order as a
plain dict, parsed and validated; the working copy of the game; the outcome with its trail),
with ``SeededDice`` so every run rolls the same sequence. Every resolution starts from the same
standard game (bench/scenarios.py), so the fire group never runs out of eligible firers; the
dice still vary, so breaks, pins, ELR replacements and Leader Loss checks all happen in
proportion.

"Per second on one core" is counted in CPU seconds of this (single-threaded) process:
resolutions / ``time.process_time()`` spent. Wall-clock time would also count the time other
processes on the machine take the core from us; the CPU time does not.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import scenarios
from bench.common import Metric, at_least
from bot.core.api import resolve
from bot.core.copying import tree_copy
from bot.core.dice import SeededDice
from bot.core.game import Game

ASL_FIRE_TARGET = 10_000  # ASL fire resolutions per second on one core (issue 5)


def rate(game: Game, order: dict[str, Any], *, seconds: float, minimum: int) -> float:
    """Resolutions per CPU second: at least ``minimum`` of them, for at least ``seconds`` of CPU."""
    dice = SeededDice(20260523)
    for _ in range(min(minimum, 50)):  # warm the caches (tables, validators) before timing
        resolve(game, order, dice)
    count, start = 0, time.process_time()
    elapsed = 0.0
    while count < minimum or elapsed < seconds:
        for _ in range(50):
            resolve(game, order, dice)
        count += 50
        elapsed = time.process_time() - start
    return count / elapsed


def per_call_us(fn: Callable[[], object], *, seconds: float, minimum: int) -> float:
    count, start = 0, time.process_time()
    elapsed = 0.0
    while count < minimum or elapsed < seconds:
        for _ in range(20):
            fn()
        count += 20
        elapsed = time.process_time() - start
    return elapsed / count * 1e6


def as_before(measure: Callable[[], float]) -> float:
    """``measure()`` with the rules core as it was before this benchmark's two optimisations:
    api.resolve's working copy by pydantic's deep copy, and every trail step validated (see
    bot/core/copying.py and bot/core/trail.py). The speed-up is measured in the same run."""
    from bot.core import api, trail

    copy, exact = api.tree_copy, trail._exact
    api.tree_copy = lambda game: game.model_copy(deep=True)
    trail._exact = lambda *values: False
    try:
        return measure()
    finally:
        api.tree_copy, trail._exact = copy, exact


def run(quick: bool = False) -> list[Metric]:
    seconds, minimum = (0.0, 50) if quick else (1.5, 2_000)
    asl, nhis, cd = scenarios.build("asl"), scenarios.build("nhis"), scenarios.build("cd")
    asl_fire = rate(asl, scenarios.asl_fire(), seconds=seconds, minimum=minimum)
    asl_morale = rate(asl, scenarios.asl_morale(), seconds=seconds, minimum=minimum)
    nhis_fire = rate(nhis, scenarios.nhis_fire(), seconds=seconds, minimum=minimum)
    cd_fire = rate(cd, scenarios.cd_fire(), seconds=seconds, minimum=minimum)
    asl_fire_before = as_before(lambda: rate(asl, scenarios.asl_fire(), seconds=seconds / 2, minimum=minimum))
    copy_seconds = seconds / 3
    deep = per_call_us(lambda: asl.model_copy(deep=True), seconds=copy_seconds, minimum=minimum)
    tree = per_call_us(lambda: tree_copy(asl), seconds=copy_seconds, minimum=minimum)
    return [
        at_least("rules: ASL fire group vs 3-unit stack (MCs incl.)", asl_fire, "res/s/core", ASL_FIRE_TARGET),
        Metric("rules: ASL fire, as before (deep copy, validated steps)", asl_fire_before, "res/s/core"),
        Metric("rules: ASL fire, now / before", asl_fire / asl_fire_before, "x"),
        Metric("rules: ASL NMC with leader (/morale)", asl_morale, "res/s/core"),
        Metric("rules: NHiS fire with morale", nhis_fire, "res/s/core"),
        Metric("rules: CD direct fire, ROF 3 + hit rolls", cd_fire, "res/s/core"),
        Metric("rules: ASL game copy, model_copy(deep=True)", deep, "us"),
        Metric("rules: ASL game copy, working copy (tree_copy)", tree, "us"),
        Metric("rules: deep copy / working copy", deep / tree, "x"),
    ]


if __name__ == "__main__":
    for metric in run():
        print(f"{metric.name:55} {metric.value:12,.1f} {metric.unit:10} {metric.target or '':>10} {metric.verdict}")
