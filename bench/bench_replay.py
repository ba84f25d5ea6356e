"""Replay benchmark (issue 17): ``/log verify`` and the Markdown export of the load test's long
game (bench/load_game.py: one ASL game of ENTRIES log entries with UNITS units), timed
as the worker process runs them (the entries decoded from the database's rows, then the replay).

    .venv/bin/python bench/bench_replay.py [ENTRIES [UNITS]] [--profile verify|export]

Both must answer within the 60 s long-work budget (bot/work.py) at the full size (15,000 entries,
300 units): the target here is 30 s each, on a 2-core machine, run alone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Metric, at_most

FULL = (15_000, 300)
QUICK = (200, 30)
TARGET_S = 30.0  # each of verify and the Markdown export at the full size (issue 17): half the budget


async def _snapshot(path: Path) -> tuple[Any, Any]:
    from bot.service import Referee
    from bot.store import SqliteStore
    from bench.load_game import BIG_CHANNEL

    store = await SqliteStore.open(path)
    try:
        return await Referee(store).log_snapshot(BIG_CHANNEL)
    finally:
        await store.close()


def snapshot(entries: int, units: int) -> tuple[Any, Any]:
    """The long game's stored row and its entries as the worker is given them (``Pickled`` rows)."""
    from bench import load_game

    with tempfile.TemporaryDirectory() as folder:
        path = load_game.copy_of(entries, units, Path(folder))
        return asyncio.run(_snapshot(path))


def verify(stored: Any, entries: Any) -> str:
    from bot.service import verify_log

    report = verify_log(entries, stored)
    assert report.ok, report.reason
    return report.reason


def export(stored: Any, entries: Any) -> str:
    """What the Markdown export's job does (cogs/log.py ``export_job``; nothing imports the cogs)."""
    from bot.export import export_files, plain_name
    from bot.service import export_record

    files = export_files(export_record(stored, entries), "markdown", 1 << 40, plain_name)
    text = files[0].data.decode()
    assert "does not replay" not in text, text[:2000]
    return text


JOBS = {"verify": verify, "export": export}


def timed(job: str, stored: Any, entries: Any) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process): on a shared machine the CPU time tells the work."""
    started, cpu = time.perf_counter(), time.process_time()
    JOBS[job](stored, entries)
    return time.perf_counter() - started, time.process_time() - cpu


def run(quick: bool = False, sizes: tuple[int, int] | None = None) -> list[Metric]:
    entries, units = sizes or (QUICK if quick else FULL)
    stored, rows = snapshot(entries, units)
    metrics = []
    for job in JOBS:
        seconds, cpu = timed(job, stored, rows)
        name = f"replay: {job} of {entries:,} entries, {units} units"
        metrics.append(at_most(name, seconds, "s", TARGET_S) if (entries, units) == FULL
                       else Metric(name, seconds, "s"))
        metrics.append(Metric(f"{name} (CPU)", cpu, "s"))
    return metrics


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Time /log verify and the Markdown export of the load test's "
                                     "long game (issue 17): each must answer within the long-work budget.")
    parser.add_argument("entries", type=int, nargs="?", default=FULL[0], help="log entries (default %(default)s)")
    parser.add_argument("units", type=int, nargs="?", default=FULL[1], help="units (default %(default)s)")
    parser.add_argument("--profile", choices=sorted(JOBS), help="print a cProfile of one job instead of timing")
    args = parser.parse_args(argv)
    profile, sizes = args.profile, (args.entries, args.units)
    if profile:
        import cProfile
        import pstats

        stored, rows = snapshot(*sizes)
        profiler = cProfile.Profile()
        profiler.runcall(JOBS[profile], stored, rows)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        return
    for metric in run(sizes=sizes):
        print(f"{metric.name}: {metric.value:.2f} {metric.unit} {metric.verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
