"""How long the battlefield picture takes: an ASL map of 60 counters (issue 16: <= 150 ms).

    .venv/bin/python bench/bench_map.py        (min, median and max over the rounds)

The game is ``sample_game``: 60 counters of both sides in 16 hexes of mixed terrain, every kind of
marker, a Residual FP and the latest fire; the picture is drawn whole each round (no cache), as
the worker thread draws it on a cache miss. The tests draw the same game (tests/test_map.py).
"""

from __future__ import annotations

import statistics
import time

if __package__ in (None, ""):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Metric, over_rounds
from bot.core.api import new_game
from bot.core.game import Game
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.asl.models import AslUnit
from bot.pictures import Shot, map_png

TARGET_MS = 150.0
HEXES = [("B2", "woods"), ("B5", "open"), ("B8", "stone building"), ("D3", "grain"), ("D6", "brush"),
         ("D9", "orchard"), ("F2", "open"), ("F5", "wooden building"), ("F8", "road"), ("H3", "shellhole"),
         ("H6", "open"), ("H9", "woods"), ("J2", "rubble"), ("J5", "trench"), ("J8", "open"), ("L5", "grain")]


def sample_game(counters: int = 60) -> tuple[Game, Shot]:
    """An ASL game with ``counters`` counters spread over 16 hexes (Germans west, Russians east),
    with broken, pinned, fire and movement markers, and the fire of B2 and D3 on H6."""
    game = new_game("asl", sides=["Germans", "Russians"], scenario="The Sample", variant="full",
                    options={"elr": [3, 3]})
    game.phase, game.turn = "PFPh", 2
    for loc, terrain in HEXES:
        game.locations[loc] = get_ruleset(game.ruleset).new_location(id=loc, terrain=terrain)
    game.locations["H6"].residual_fp = 4
    west, east = [h for h, _ in HEXES[:8]], [h for h, _ in HEXES[8:]]
    for i in range(counters):
        side = i % 2
        loc = (west if side == 0 else east)[(i // 2) % 8]
        uid = f"{'GR'[side]}{i // 2 + 1}"
        if i % 10 == 4:  # a leader in every fifth stack
            unit = AslUnit(id=uid, type="custom", name="8-1", side=side, location=loc, kind="leader", morale=8,
                           leadership=-1)
        else:
            unit = AslUnit(id=uid, type="custom", name="4-6-7" if side == 0 else "4-4-7", side=side, location=loc,
                           kind="squad", fp=4, range=6 if side == 0 else 4, morale=7, broken_morale=8)
        unit.broken = i % 7 == 3
        unit.pinned = i % 11 == 5
        unit.fire_marker = ("prep", None, "final", None, None)[i % 5] if not unit.broken else None
        unit.moving = i % 13 == 6
        game.units[uid] = unit
    return game, Shot(0, ("B2", "D3"), "H6")


def render_times(rounds: int, counters: int = 60) -> list[float]:
    game, shot = sample_game(counters)
    map_png(game, shot)  # the fonts loaded once, as in a running bot
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        map_png(game, shot)
        times.append((time.perf_counter() - start) * 1000)
    return times


def run(quick: bool = False) -> list[Metric]:
    times = render_times(3 if quick else 30)
    return [over_rounds("map: 60-counter ASL map render", times, "ms", at_most=TARGET_MS)]


if __name__ == "__main__":
    import sys

    from bench.common import arguments

    arguments(sys.argv[1:], __doc__, "bench/bench_map.py")
    times = render_times(30)
    print(f"60-counter map: min {min(times):.1f} ms, median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms (target <= {TARGET_MS:g} ms, {len(times)} rounds)")
