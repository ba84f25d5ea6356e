"""The long game of the load test (tests/reliability/test_load.py) and of the replay benchmark
(bench/bench_replay.py), written straight through the store: ``python -m bench.load_game ENTRIES
UNITS`` (or ``build``, ``cached``).

One ASL game in BIG_CHANNEL with UNITS units (squads three to a hex and side, the stacking limit
of A5.1) and ENTRIES log entries of real play (moves and Pin Task Checks, each resolved and
sealed by the service with committed dice from a fixed seed, so ``/log verify`` replays and
re-derives every one), then a fire group
and its target kept fresh for the test's own /fire and preview: the largest stack a preview
accepts (bot.core.rulesets.asl.odds.fire_size): two leaders of different morale with three squads. The
newest entry is a fire (its result's Odds button replays the whole log). Every
other channel of LOAD_GUILD gets a small game, for the ``/game status`` probes.

The full size (15,000 entries, 300 units) takes minutes to write, so it is kept in CACHE_DIR
(bench/.cache, or REFEREE_BENCH_CACHE) and reused while this module's version line is unchanged.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bot.core.errors import RulesError
from bot.emulator.payloads import ChannelSpec, GuildSpec, UserSpec
from bot.service import Actor, Referee
from bot.store import SqliteStore

VERSION = 4  # change it when the game built changes: cached files of another version are rebuilt
# the folder of the cached games: REFEREE_BENCH_CACHE when set (the test suite sets it to a folder of
# the system's temporary files: it writes nothing into the checkout), else bench/.cache (ignored by git)
CACHE_DIR = Path(os.environ.get("REFEREE_BENCH_CACHE") or Path(__file__).resolve().parent / ".cache")
PLAYERS = (UserSpec(2_000_000_000_000_000_001, "alice"), UserSpec(2_000_000_000_000_000_002, "bob"),
           UserSpec(2_000_000_000_000_000_003, "gm"))
ALICE, BOB, GM_ID = (p.id for p in PLAYERS)
OTHER_CHANNELS = 20
BIG_CHANNEL = 3_100_000_000_000_000_000
CHANNELS = (ChannelSpec(BIG_CHANNEL, "long-game"),
            *(ChannelSpec(BIG_CHANNEL + i, f"game-{i}") for i in range(1, OTHER_CHANNELS + 1)))
LOAD_GUILD = GuildSpec(4_100_000_000_000_000_001, "Load Test Guild", owner_id=GM_ID, channels=CHANNELS,
                       members=PLAYERS)
GM = Actor(user_id=GM_ID, is_manager=True)
FIRE = {"firers": "F1 F2 F3", "leader": "FL", "target": "Y9", "range": 2}  # the test's /fire and preview


def _unit(uid: str, side: int, location: str, type_name: str) -> dict:
    return {"action": "unit_add", "id": uid, "side": side, "location": location, "type": type_name}


async def build(path: Path, entries: int, units: int) -> None:
    path.unlink(missing_ok=True)
    store = await SqliteStore.open(path, max_entries=max(entries * 2, 1_000))
    # committed dice (docs/dice.md) from a fixed seed: the same game at every build
    referee = Referee(store, seeds=lambda: bytes(range(32)))
    try:
        await store._db.execute("PRAGMA synchronous = OFF")  # a test fixture: speed over durability
        guild = LOAD_GUILD.id
        # the players sit down themselves; the ranges are typed as the load needs them (X2 and Y9 are
        # hexes seven apart on the map, which would otherwise count the range itself)
        await referee.new_game(BIG_CHANNEL, guild, GM, "asl", ["Germans", "Russians"],
                               options={"open_seating": True,  # the players sit down themselves
                                        "manual_dice": "all",  # the newest fire throws its own dice
                                        "typed_range": "trust", "los": "off"})  # ranges as typed
        for side, player in enumerate((ALICE, BOB)):
            await referee.act(BIG_CHANNEL, Actor(player), {"action": "join", "side": side, "player": player},
                              command="/game join")
        setup = [{"action": "location_set", "location": "X1", "terrain": "stone building"},
                 {"action": "location_set", "location": "X2", "terrain": "stone building"},
                 {"action": "location_set", "location": "Y9", "terrain": "woods"},
                 *(_unit(f"E{i}", 0, "X2", "ger-467") for i in (1, 2)),
                 *(_unit(f"F{i}", 0, "X1", "ger-467") for i in (1, 2, 3)), _unit("FL", 0, "X1", "ger-9-1"),
                 *(_unit(f"T{i}", 1, "Y9", "rus-447") for i in (1, 2, 3)),
                 _unit("TL1", 1, "Y9", "rus-9-1"), _unit("TL2", 1, "Y9", "rus-8-1")]
        hexes = max(1, -(-(units - 12) // 6))  # three squads of each side per hex at most
        setup += [_unit(f"U{i}", i % 2, f"H{(i // 2) % hexes}", "rus-447" if i % 2 else "ger-467")
                  for i in range(units - 12)]
        for order in setup:
            await referee.act(BIG_CHANNEL, GM, order, command="/setup")
        await referee.act(BIG_CHANNEL, GM, {"action": "phase", "to": "PFPh"}, command="/phase")
        stored = await store.load_active(BIG_CHANNEL)
        i = 0
        while stored.last_seq < entries - 1:
            uid = f"U{i % (units - 12)}"
            if i % 4 == 3:  # a Pin Task Check: pinned at worst, so the units stay in play (A7.8)
                order = {"action": "morale", "unit": uid, "check": "PTC"}
            else:
                order = {"action": "unit_move", "unit": uid, "location": f"H{(i * 7) % hexes}"}
            i += 1
            assert i < 3 * entries, "the load game's orders are refused"
            try:
                await referee.act(BIG_CHANNEL, GM, order, command="/morale" if i % 4 == 0 else "/unit move")
            except RulesError:
                continue  # e.g. a unit already pinned
            stored = await store.load_active(BIG_CHANNEL)
        # the newest entry: a fire whose result carries the Odds button (its odds replay the whole log)
        await referee.act(BIG_CHANNEL, Actor(ALICE), {"action": "fire", "firers": ["E1", "E2"], "target": "Y9",
                                                      "range": 3}, dice=[6, 5], command="/fire")
        for channel in CHANNELS[1:]:
            await referee.new_game(channel.id, guild, GM, "asl", ["Germans", "Russians"])
            await referee.act(channel.id, GM, _unit("A1", 0, "B3", "ger-467"), command="/unit add")
        await store._db.execute("PRAGMA synchronous = FULL")
    finally:
        await store.close()


def cached(entries: int, units: int) -> Path:
    """The game's file in the cache, built first when missing."""
    path = CACHE_DIR / f"load-v{VERSION}-{entries}-{units}.sqlite3"
    if not path.exists():
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        asyncio.run(build(partial, entries, units))
        partial.rename(path)
    return path


def copy_of(entries: int, units: int, folder: Path) -> Path:
    """A copy of the cached game for one test (the bot writes to it)."""
    target = folder / "load.sqlite3"
    shutil.copyfile(cached(entries, units), target)
    return target


def main(argv: list[str]) -> None:
    from bench.common import arguments

    def add(parser: Any) -> None:
        parser.add_argument("entries", type=int, help="log entries of the long game (the load test's full size: 15000)")
        parser.add_argument("units", type=int, help="units of the long game (the full size: 300)")

    options = arguments(argv, __doc__, "python -m bench.load_game", add)
    started = time.perf_counter()
    built = cached(options.entries, options.units)
    print(f"{built} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
