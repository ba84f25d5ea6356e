"""Store benchmark: load/save time against units per game and against log length, and the
database bytes one log entry costs.

    .venv/bin/python bench/bench_store.py

Loading a game reads one row by index, so its time must not grow with the log (100 vs 10,000
entries); saving writes the state and one entry in one fsync'd transaction (synchronous=FULL).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.api import resolve  # noqa: E402
from bot.core.dice import SeededDice  # noqa: E402
from bot.service import Actor, Referee  # noqa: E402
from bot.store import SqliteStore  # noqa: E402

GM = Actor(1)
CHANNEL = 10
REPEAT = 30


def squad(i: int) -> dict:
    return {"action": "unit_add", "id": f"U{i}", "side": i % 2, "location": f"H{i % 40}",
            "stats": {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}}


async def fresh(folder: Path, name: str) -> tuple[SqliteStore, Referee]:
    store = await SqliteStore.open(folder / f"{name}.sqlite3")
    referee = Referee(store, dice=lambda: SeededDice(1))
    await referee.new_game(CHANNEL, 1, GM, "asl", ["Germans", "Russians"])
    return store, referee


async def fill(store: SqliteStore, referee: Referee, orders) -> None:
    """Write many entries quickly: fsync off while filling only (timings below use FULL)."""
    await store._db.execute("PRAGMA synchronous = OFF")
    for order in orders:
        await referee.act(CHANNEL, GM, order, command="/bench")
    await store._db.execute("PRAGMA synchronous = FULL")


def ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.2f}"


async def time_load_and_save(store: SqliteStore, referee: Referee) -> tuple[list[float], list[float]]:
    loads, saves = [], []
    for i in range(REPEAT):
        start = time.perf_counter()
        stored = await store.load_active(CHANNEL)
        loads.append(time.perf_counter() - start)
        resolution = resolve(stored.game, {"action": "unit_move", "unit": "U0", "location": f"M{i}"})
        entry = referee._seal(stored.id, stored.last_seq, stored.head_hash, actor=GM, command="/bench",
                              order={"action": "unit_move", "unit": "U0", "location": f"M{i}"},
                              outcome=resolution.outcome, game=resolution.game, manual=False,
                              interaction_id=None)
        start = time.perf_counter()
        await store.append(stored, resolution.game, entry)
        saves.append(time.perf_counter() - start)
    return loads, saves


async def db_bytes(store: SqliteStore, path: Path) -> int:
    await store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


async def by_units(folder: Path) -> None:
    print(f"{'units':>6} {'state KB':>9} {'load ms':>8} {'save ms':>8} {'act ms':>8}")
    for n in (10, 100, 400):
        store, referee = await fresh(folder, f"units{n}")
        try:
            await fill(store, referee, [squad(i) for i in range(n)])
            loads, saves = await time_load_and_save(store, referee)
            acts = []
            for i in range(REPEAT):
                start = time.perf_counter()
                await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "U1", "location": f"N{i}"},
                                  command="/bench")
                acts.append(time.perf_counter() - start)
            size = len((await store.load_active(CHANNEL)).game.model_dump_json()) / 1024
            print(f"{n:>6} {size:>9.1f} {ms(loads)} {ms(saves)} {ms(acts)}")
        finally:
            await store.close()


async def by_log_length(folder: Path) -> None:
    print(f"\n{'entries':>8} {'load ms':>8} {'save ms':>8} {'page ms':>8} {'verify s':>9} {'DB bytes':>11}")
    sizes = {}
    for entries in (100, 10_000):
        store, referee = await fresh(folder, f"log{entries}")
        try:
            await fill(store, referee, [squad(i) for i in range(10)]
                       + [{"action": "phase"}] * (entries - 11 - REPEAT))
            loads, saves = await time_load_and_save(store, referee)
            start = time.perf_counter()
            await referee.log(CHANNEL)  # the newest page
            page = time.perf_counter() - start
            start = time.perf_counter()
            report = await referee.verify(CHANNEL)
            verify = time.perf_counter() - start
            assert report.ok and report.checked == entries, report
            sizes[entries] = await db_bytes(store, folder / f"log{entries}.sqlite3")
            print(f"{entries:>8} {ms(loads)} {ms(saves)} {page * 1000:8.2f} {verify:9.2f} {sizes[entries]:>11,}")
        finally:
            await store.close()
    per_entry = (sizes[10_000] - sizes[100]) / (10_000 - 100)
    print(f"\ndatabase bytes per log entry (phase orders, 10-unit game): {per_entry:,.0f}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"median of {REPEAT} runs; save = state + one log entry, one transaction, synchronous=FULL\n")
        await by_units(folder)
        await by_log_length(folder)


if __name__ == "__main__":
    asyncio.run(main())
