"""Scaling benchmark: 1, 2 and 4 bot processes on one PostgreSQL against the loopback Discord,
and one process on SQLite, under the same load.

    .venv/bin/python bench/bench_scale.py [--quick] [--channels=48] [--per-channel=20] [--processes=1,2,4]

Each bot is ``bot.app.RefereeBot`` with its cogs in a process of its own (``bench/e2e_bot.py``),
connected to a fake Discord of its own (``bot.emulator.FakeDiscord``, in this process), as each
shard of a real deployment has its own gateway connection: with N processes, each serves
``channels / N`` of the channels (its shard's servers). PostgreSQL 15 runs as a throw-away server
started here (tests/pgserver.py) with its durable defaults (fsync on, synchronous commit: a command
is on disk before its answer, as SQLite's synchronous=FULL), on a Unix socket. Every game is the
standard ASL game of bench/scenarios.py, set up through the service before the bots start.

The load: every channel at once, each issuing ``per_channel`` Pin Task Checks (/morale, a rolling
command: rules, dice, state and log entry) one after the other, as a player who waits for each
answer; one warm-up command per channel first. Throughput is the commands answered per second of
wall time; the latency of a command is from the fake sending INTERACTION_CREATE to it receiving
the callback; p50 and p99 are over every command of the run. "late" counts the answers that came
past Discord's 3 seconds (Discord refuses them; the bot then posts the saved result to the
channel), and "load" the machine's 1-minute load average before and after the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import scenarios
from bench.bench_e2e import BOB, GM, MORALE_OPTIONS, BotProcess, TimedDiscord, _send, player, sustained
from bench.common import Metric, percentile
from bot.emulator.payloads import ChannelSpec, GuildSpec

CHANNELS = 48  # divisible by 1, 2, 4 (and 3, 6)
PER_CHANNEL = 20
FIRST_GUILD = 4_200_000_000_000_000_001


@dataclass
class Result:
    label: str
    processes: int
    commands: int
    seconds: float
    p50_ms: float
    p99_ms: float
    refused: int  # answers Discord did not take (past its 3 s), or refusals: counted, not hidden
    load: tuple[float, float]  # the machine's 1-minute load average before and after
    bot_cpu_ms: float  # CPU of the bot processes per command (all their threads)
    db_cpu_ms: float  # CPU of the PostgreSQL server per command (0 for SQLite: in the bot's process)

    @property
    def per_core(self) -> float:
        """Commands one core could serve per second at these CPU costs: what the run predicts for
        a machine with more cores (each bot process on its own core, the database on others),
        whatever else ran on this one meanwhile."""
        return 1000 / (self.bot_cpu_ms + self.db_cpu_ms)

    @property
    def rate(self) -> float:
        return self.commands / self.seconds


def shard_guilds(channels: int, processes: int) -> list[GuildSpec]:
    """One guild per process (its shard's servers), the channels dealt out between them."""
    per = channels // processes
    return [GuildSpec(FIRST_GUILD + k, f"Shard {k}", owner_id=GM.id, members=(BOB, GM),
                      channels=tuple(ChannelSpec(3_200_000_000_000_000_000 + k * per + i, f"game-{k}-{i}")
                                     for i in range(per)))
            for k in range(processes)]


async def prepare(database: str, guilds: list[GuildSpec]) -> None:
    from bot.service import Actor, Referee
    from bot.store import open_store

    store = await open_store(database)
    referee, gm = Referee(store), Actor(GM.id)
    try:
        c = 0
        for guild in guilds:
            for channel in guild.channels:
                await referee.new_game(channel.id, guild.id, gm, "asl", ["Germans", "Russians"],
                                       scenario="benchmark", options=scenarios.bot_game_options("asl"))
                joins = [{"action": "join", "side": 0, "player": player(c), "requested": True},
                         {"action": "join", "side": 1, "player": BOB.id, "requested": True}]
                for order in scenarios.asl_setup() + joins:
                    await referee.act(channel.id, gm, order, command="/bench setup")
                c += 1
    finally:
        await store.close()


def server_cpu(server: Any) -> float:
    """CPU seconds (user + system) of the PostgreSQL server's processes so far: the postmaster's
    children (backends, WAL writer, checkpointer), read from /proc."""
    if server is None:
        return 0.0
    postmaster = int((server.data_dir / "postmaster.pid").read_text().split()[0])
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == postmaster or int(stat.parent.name) == postmaster:
                total += (int(fields[11]) + int(fields[12])) / ticks
    return total


async def measure_one(label: str, database: str, processes: int, channels: int, per_channel: int,
                      folder: Path, server: Any = None) -> Result:
    guilds = shard_guilds(channels, processes)
    await prepare(database, guilds)
    async with contextlib.AsyncExitStack() as stack:
        fakes = [await stack.enter_async_context(TimedDiscord(guilds=[guild])) for guild in guilds]
        bots = []
        for k, fake in enumerate(fakes):
            shard_folder = folder / f"{label}-{k}"
            shard_folder.mkdir()
            bots.append(await stack.enter_async_context(BotProcess("referee", fake, shard_folder, database)))
        offsets = [k * (channels // processes) for k in range(processes)]

        def sender(k: int):
            send = _send(fakes[k], guilds[k], "morale", MORALE_OPTIONS, user=lambda c, k=k: player(offsets[k] + c))
            return send

        per = range(channels // processes)
        await asyncio.gather(*(sustained(fakes[k], sender(k), per, 1) for k in range(processes)))  # warm-up
        for bot in bots:
            await bot.ask("freeze")
        load_before = os.getloadavg()[0]
        cpu_before = [float((await bot.ask("cpu"))["process"]) for bot in bots]
        db_before = server_cpu(server)
        start = time.perf_counter()
        runs = await asyncio.gather(*(sustained(fakes[k], sender(k), per, per_channel) for k in range(processes)))
        seconds = time.perf_counter() - start
        bot_cpu = sum([float((await bot.ask("cpu"))["process"]) for bot in bots]) - sum(cpu_before)
        db_cpu = server_cpu(server) - db_before
        latencies = [lat for run in runs for lat in run.latencies]
        refused = [r for run in runs for r in run.refused]
    return Result(label, processes, len(latencies), seconds, percentile(latencies, 50) * 1000,
                  percentile(latencies, 99) * 1000, len(refused), (load_before, os.getloadavg()[0]),
                  bot_cpu * 1000 / len(latencies), db_cpu * 1000 / len(latencies))


async def measure(quick: bool = False, channels: int = CHANNELS, per_channel: int = PER_CHANNEL,
                  processes: tuple[int, ...] = (1, 2, 4)) -> list[Result]:
    from tests import pgserver

    if quick:
        channels, per_channel, processes = 4, 1, (1, 2)
    os.environ["REFEREE_ROLL_LIMIT"] = "10000"  # the bots' processes inherit it: machine speed, not people's
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        folder = Path(tmp)
        results.append(await measure_one("sqlite", str(folder / "referee.sqlite3"), 1, channels, per_channel,
                                         folder))
        server = pgserver.start(durable=True)
        try:
            for n in processes:
                results.append(await measure_one(f"postgres-{n}", server.fresh_dsn(), n, channels, per_channel,
                                                 folder, server))
        finally:
            server.stop()
    return results


def metrics(results: list[Result]) -> list[Metric]:
    out = []
    for r in results:
        name = "SQLite, 1 process" if r.label == "sqlite" else f"PostgreSQL, {r.processes} process(es)"
        out += [Metric(f"scale {name}: /morale throughput", r.rate, "/s"),
                Metric(f"scale {name}: /morale p50", r.p50_ms, "ms"),
                Metric(f"scale {name}: /morale p99", r.p99_ms, "ms"),
                Metric(f"scale {name}: answers past Discord's 3 s", r.refused, ""),
                Metric(f"scale {name}: CPU per command, bot processes + database", r.bot_cpu_ms + r.db_cpu_ms, "ms")]
    return out


def run(quick: bool = False) -> list[Metric]:
    return metrics(asyncio.run(measure(quick)))


def main(argv: list[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="bench/bench_scale.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks it runs, measures nothing")
    parser.add_argument("--channels", type=int, default=CHANNELS, help=f"channels at once (default {CHANNELS})")
    parser.add_argument("--per-channel", type=int, default=PER_CHANNEL,
                        help=f"commands per channel, one after the other (default {PER_CHANNEL})")
    parser.add_argument("--processes", default="1,2,4", help="bot process counts on PostgreSQL (default 1,2,4)")
    args = parser.parse_args(argv)
    counts = tuple(int(n) for n in args.processes.split(","))
    results = asyncio.run(measure(args.quick, args.channels, args.per_channel, counts))
    print(f"{'store':<9} {'procs':>5} {'commands':>8} {'seconds':>7} {'per s':>6} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'late':>4} {'bot CPU ms':>10} {'db CPU ms':>9} {'per core/s':>10} {'load':>11}")
    for r in results:
        print(f"{r.label.split('-')[0]:<9} {r.processes:>5} {r.commands:>8} {r.seconds:>7.2f} {r.rate:>6.0f} "
              f"{r.p50_ms:>7.1f} {r.p99_ms:>7.1f} {r.refused:>4} {r.bot_cpu_ms:>10.2f} {r.db_cpu_ms:>9.2f} "
              f"{r.per_core:>10.0f} {r.load[0]:>5.2f}-{r.load[1]:<5.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
