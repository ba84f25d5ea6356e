"""End-to-end benchmark: the real RefereeBot against the loopback Discord, many channels at once,
side by side with a floor bot.

    .venv/bin/python bench/bench_e2e.py [--profile] [--switch-interval=S]

Both bots are real discord.py clients logged in to ``bot.emulator.FakeDiscord`` on 127.0.0.1,
in this process and event loop (so the fake's own work is in both figures alike). A latency is
the time from the fake sending INTERACTION_CREATE on the gateway to it receiving the
interaction callback (the reply), stamped by the fake itself.

- The floor bot is the same discord.py set-up (``commands.Bot`` + its command tree, no
  privileged intents, no mentions) with one slash command that answers a fixed embed at once.
  What the referee adds on top of it is the rules, the state and the log.
- The referee is ``bot.app.RefereeBot`` with its cogs, on a real SQLite file (WAL,
  synchronous=FULL), with production dice (``secrets``). Each channel holds the standard ASL
  game of bench/scenarios.py, set up through the service with the set-up orders players give.
- Before the measured commands, both bots answer one command per channel of each workload (the
  warm-up), and the start-up objects are frozen (``gc.freeze``) as ``bot.app.serve`` does once
  the bot is logged in; that is process-wide, so the floor bot shares it.

Two workloads, each run by both bots in alternating chunks (see Bench):
- ``/fire``: rounds of 50 channels at once, each channel's fire group Prep Firing once at its
  target stack (a fired group is marked Prep Fire, so each round uses fresh channels).
- ``/morale``: 50 channels at once, each issuing M Pin Task Checks one after the other (a player
  waits for the answer before the next command).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
from aiohttp import web
from discord.ext import commands

from bench import scenarios
from bench.common import Metric, at_least, at_most, median, percentile
from bot.app import RefereeBot, freeze_start_up_objects
from bot.config import Settings
from bot.emulator import FakeDiscord, pointed_at, running
from bot.emulator.payloads import PLAYER_PERMISSIONS, ChannelSpec, GuildSpec, UserSpec
from bot.service import Actor

CHANNELS = 50  # channels at once (issue 5)
THROUGHPUT_TARGET = 300  # commands per second with 50 channels
P99_RATIO_TARGET = 3.0  # our p99 at most 3x the floor's
GUILD_ID = 4_100_000_000_000_000_001
BOB = UserSpec(2_100_000_000_000_000_002, "bob")  # plays the Russians in every game
GM = UserSpec(2_100_000_000_000_000_003, "gm")  # owns the guild, starts the games


def player(channel: int) -> int:
    """The German player of channel ``channel``'s game: one player per table, as in real use
    (the bot also limits rolling commands per player, bot/limits.py)."""
    return 2_100_000_000_000_001_000 + channel


def bench_guild(channels: int) -> GuildSpec:
    specs = tuple(ChannelSpec(3_100_000_000_000_000_000 + i, f"game-{i}") for i in range(channels))
    return GuildSpec(GUILD_ID, "Benchmark Guild", owner_id=GM.id, channels=specs, members=(BOB, GM))


class TimedDiscord(FakeDiscord):
    """The fake Discord, stamping when it sends each interaction and when its reply arrives."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.sent_at: dict[str, float] = {}
        self.answered_at: dict[str, float] = {}
        self._by_id: dict[int, Any] = {}  # interaction id -> its record

    async def _deliver(self, record, **kwargs: Any) -> None:
        self.sent_at.setdefault(record.token, time.perf_counter())  # just before the gateway send
        await super()._deliver(record, **kwargs)

    async def _callback(self, request: web.Request) -> web.Response:
        self.answered_at.setdefault(request.match_info["token"], time.perf_counter())
        return await super()._callback(request)

    def latency(self, token: str) -> float:
        return self.answered_at[token] - self.sent_at[token]

    def bot_received(self, interaction_id: int) -> None:
        # the same bookkeeping as FakeDiscord's, found through an index: its scan of every
        # interaction so far grows with the run and would be timed in both bots' latencies
        index = self._by_id
        if interaction_id not in index:
            index.update((record.id, record) for record in list(self.interactions.values())[len(index):])
        record = index.get(interaction_id)
        if record is not None:
            record.deliveries_received += 1
            record.touch()


# --------------------------------------------------------------------------- the floor bot

FLOOR_EMBED = discord.Embed(title="Floor", description="A fixed answer: no rules, no state, no log.",
                            colour=discord.Colour.dark_grey())


class FloorBot(commands.Bot):
    """The same discord.py set-up as RefereeBot, with one command answering a fixed embed."""

    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         allowed_mentions=discord.AllowedMentions.none(), help_command=None)

    async def setup_hook(self) -> None:
        @self.tree.command(name="floor", description="Answer a fixed embed at once (the benchmark's floor)")
        async def floor(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(embed=FLOOR_EMBED)


# --------------------------------------------------------------------------- workloads

@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    refused: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    def add(self, other: Run) -> None:
        self.latencies += other.latencies
        self.seconds += other.seconds
        self.refused += other.refused


Send = Callable[[int, int], Awaitable[Any]]  # (channel index, command number) -> reply


async def one_round(fake: TimedDiscord, send: Send, channels: int, r: int) -> Run:
    """Round ``r``: ``channels`` channels at once, one command each (channels r*n .. r*n+n-1)."""
    start = time.perf_counter()
    replies = await asyncio.gather(*(send(r * channels + c, 0) for c in range(channels)))
    run = Run(seconds=time.perf_counter() - start)
    _collect(fake, replies, run.latencies, run.refused)
    return run


async def sustained(fake: TimedDiscord, send: Send, channels: int, per_channel: int) -> Run:
    """``channels`` channels at once, each issuing ``per_channel`` commands one after the other."""
    async def channel(c: int) -> list[Any]:
        return [await send(c, i) for i in range(per_channel)]

    start = time.perf_counter()
    results = await asyncio.gather(*(channel(c) for c in range(channels)))
    run = Run(seconds=time.perf_counter() - start)
    _collect(fake, [reply for replies in results for reply in replies], run.latencies, run.refused)
    return run


def _collect(fake: TimedDiscord, replies: list[Any], latencies: list[float], refused: list[str]) -> None:
    for reply in replies:
        latencies.append(fake.latency(reply.record.token))
        if reply.ephemeral or not reply.embeds:  # a refusal: the workload itself is wrong
            embed = reply.embeds[0] if reply.embeds else {}
            refused.append(reply.content or embed.get("description") or embed.get("title") or "?")


def _send(fake: TimedDiscord, guild: GuildSpec, name: str, options: Callable[[int, int], dict[str, Any]]) -> Send:
    async def send(c: int, i: int) -> Any:
        # settle=False: return on the reply; waiting for "every handler started since" would
        # wait for the other channels' handlers too
        return await fake.send_command(name, options(c, i), user_id=player(c), channel_id=guild.channels[c].id,
                                       guild_id=guild.id, member_permissions=PLAYER_PERMISSIONS,
                                       settle=False, timeout=60)
    return send


FIRE_OPTIONS = {"firers": "G1 G2 G3 MG", "leader": "GL", "target": "B3", "range": 2}
MORALE_OPTIONS = {"unit": "GL", "check": "PTC"}


def fire_options(c: int, i: int) -> dict[str, Any]:
    return FIRE_OPTIONS


def morale_options(c: int, i: int) -> dict[str, Any]:
    return MORALE_OPTIONS


async def setup_games(bot: RefereeBot, guild: GuildSpec, count: int) -> None:
    """The standard ASL game in the first ``count`` channels, through the service: /game new,
    the set-up orders and the two players joining (fsync off while setting up only)."""
    referee, gm = bot.referee, Actor(GM.id)
    await bot.store._db.execute("PRAGMA synchronous = OFF")
    try:
        for c, channel in enumerate(guild.channels[:count]):
            await referee.new_game(channel.id, guild.id, gm, "asl", ["Germans", "Russians"],
                                   scenario="benchmark", options=scenarios.game_options("asl"))
            # the players asked for their seats; the game master approves (bot/core/setup.py Join)
            joins = [{"action": "join", "side": 0, "player": player(c), "requested": True},
                     {"action": "join", "side": 1, "player": BOB.id, "requested": True}]
            for order in scenarios.asl_setup() + joins:
                await referee.act(channel.id, gm, order, command="/bench setup")
    finally:
        await bot.store._db.execute("PRAGMA synchronous = FULL")


# --------------------------------------------------------------------------- where the time goes

class CostMeter:
    """Sums the time of the synchronous steps of a command (no await inside them, so the sum is
    their own cost on the event loop): the rules core, sealing the log entry (JSON + hashes),
    parsing a loaded state, rendering the embed. Installed around the real functions for the
    measured workloads only, and removed after."""

    def __init__(self) -> None:
        import bot.replies
        import bot.service
        import bot.store.sqlite
        from bot.service import Referee

        self.spots: list[tuple[str, Any, str]] = [
            ("rules core (api.resolve)", bot.service, "resolve"),
            ("log entry (Referee._seal: JSON, hashes)", Referee, "_seal"),
            ("state load (row -> Game, JSON parse)", bot.store.sqlite, "_stored"),
            ("render (outcome_embed)", bot.replies, "outcome_embed"),
        ]
        self.seconds = {label: 0.0 for label, _, _ in self.spots}
        # round trips to the SQLite thread (aiosqlite runs each call there; the store makes one
        # per read or write, bot/store/sqlite.py)
        self.hops = 0
        self._saved: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> Self:
        import aiosqlite.core

        for label, owner, name in self.spots:
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
            self._saved.append((owner, name, original))
            setattr(owner, name, self._timed(label, original))
        hop = aiosqlite.core.Connection._execute
        self._saved.append((aiosqlite.core.Connection, "_execute", hop))

        async def counted(connection: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.hops += 1
            return await hop(connection, fn, *args, **kwargs)
        aiosqlite.core.Connection._execute = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()

    def _timed(self, label: str, function: Any) -> Any:
        seconds = self.seconds

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[label] += time.perf_counter() - start
        return timed


# --------------------------------------------------------------------------- the runs

@dataclass
class Sizes:
    channels: int  # at once
    fire_rounds: int
    morale_per_channel: int


FULL = Sizes(channels=CHANNELS, fire_rounds=6, morale_per_channel=10)
QUICK = Sizes(channels=4, fire_rounds=1, morale_per_channel=1)  # the smoke test: does it run at all


class Bench:
    """The two bots, their fakes, their games and their senders.

    Both bots stay logged in (each to its own fake) for the whole run, warm; the workloads run in
    alternating chunks, floor then referee, so both meet the same background load. discord.py
    builds every REST URL from one class attribute, so each chunk points it at the fake of the
    bot whose chunk it is (the other bot is idle: it makes no REST call while idle)."""

    def __init__(self, sizes: Sizes, folder: Path) -> None:
        self.sizes, self.n = sizes, sizes.channels
        # referee channels [0, n x rounds): one fresh game each per /fire round; the next n: /morale;
        # the last n: the warm-up /fire round
        self.floor_guild = bench_guild(self.n)
        self.guild = bench_guild(self.n * (sizes.fire_rounds + 2))
        self.database = folder / "referee.sqlite3"
        self.floor_fake = TimedDiscord(guilds=[self.floor_guild], reply_timeout=60)
        self.fake = TimedDiscord(guilds=[self.guild], reply_timeout=60)
        floor = _send(self.floor_fake, self.floor_guild, "floor", lambda c, i: {})
        self.floor_send: Send = lambda c, i: floor(c % self.n, i)
        self.fire = _send(self.fake, self.guild, "fire", fire_options)
        to_morale = _send(self.fake, self.guild, "morale", morale_options)
        self.morale: Send = lambda c, i: to_morale(self.n * sizes.fire_rounds + c, i)
        self.warm_fire: Send = lambda c, i: self.fire(self.n * (sizes.fire_rounds + 1) + c, i)

    @contextlib.asynccontextmanager
    async def bots(self, warm: bool) -> Any:
        """Both fakes and both bots up, the referee's games set up, and (``warm``) one command per
        channel of each workload through each bot first: the first commands fill caches
        (validators, prepared statements, code paths run once) and are not measured."""
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(self.floor_fake)
            await stack.enter_async_context(self.fake)
            await stack.enter_async_context(running(FloorBot(), fake=self.floor_fake))
            bot = RefereeBot(Settings(token=None, database=self.database, dev_guild=None))
            await stack.enter_async_context(running(bot, fake=self.fake))
            await setup_games(bot, self.guild, self.n * (self.sizes.fire_rounds + 2))
            if warm:
                with self.on(self.floor_fake):
                    await sustained(self.floor_fake, self.floor_send, self.n, 1)
                with self.on(self.fake):
                    await sustained(self.fake, self.morale, self.n, 1)
                    await one_round(self.fake, self.warm_fire, self.n, 0)
            # as `bot.app.serve` does once the bot is logged in; process-wide, so for both bots
            freeze_start_up_objects()
            try:
                yield
            finally:
                gc.unfreeze()  # a caller running the benchmark again starts from the same place

    @staticmethod
    def on(fake: TimedDiscord) -> Any:
        return pointed_at(fake.api_url, fake.gateway_url)

    async def workloads(self, measured: Any) -> tuple[dict[str, Run], dict[str, Run]]:
        """(floor, ours), each {"fire": Run, "morale": Run}; ``measured`` wraps the referee's chunks
        (the cost meter, the profiler)."""
        floor = {"fire": Run(), "morale": Run()}
        ours = {"fire": Run(), "morale": Run()}
        per_channel = self.sizes.morale_per_channel
        halves = [h for h in (per_channel // 2, per_channel - per_channel // 2) if h]
        chunks: list[tuple[str, Callable[[], Awaitable[Run]], Callable[[], Awaitable[Run]]]] = []
        for r in range(self.sizes.fire_rounds):
            chunks.append(("fire", lambda r=r: one_round(self.floor_fake, self.floor_send, self.n, r),
                           lambda r=r: one_round(self.fake, self.fire, self.n, r)))
        for half in halves:
            chunks.append(("morale", lambda h=half: sustained(self.floor_fake, self.floor_send, self.n, h),
                           lambda h=half: sustained(self.fake, self.morale, self.n, h)))
        for workload, floor_chunk, our_chunk in chunks:
            with self.on(self.floor_fake):
                floor[workload].add(await floor_chunk())
            with self.on(self.fake), measured():
                ours[workload].add(await our_chunk())
        return floor, ours


def _metrics(workload: str, ours: Run, floor: Run, channels: int) -> list[Metric]:
    ours_p99, floor_p99 = percentile(ours.latencies, 99) * 1000, percentile(floor.latencies, 99) * 1000
    rate = (f"e2e {workload}: commands/s, {channels} channels", ours.rate, "cmd/s")
    targets = channels == CHANNELS  # the targets are set for 50 channels at once
    ratio = (f"e2e {workload}: p99 ours / p99 floor", ours_p99 / floor_p99, "x")
    return [
        at_least(*rate, THROUGHPUT_TARGET) if targets else Metric(*rate),
        Metric(f"e2e {workload}: p50 latency ({len(ours.latencies)} commands)",
               median(ours.latencies) * 1000, "ms"),
        Metric(f"e2e {workload}: p99 latency", ours_p99, "ms"),
        Metric(f"e2e {workload} floor: commands/s", floor.rate, "cmd/s"),
        Metric(f"e2e {workload} floor: p50 latency", median(floor.latencies) * 1000, "ms"),
        Metric(f"e2e {workload} floor: p99 latency", floor_p99, "ms"),
        at_most(*ratio, P99_RATIO_TARGET) if targets else Metric(*ratio),
    ]


async def measure(quick: bool = False, profile: Any = None) -> list[Metric]:
    sizes = QUICK if quick else FULL
    meter = CostMeter()

    @contextlib.contextmanager
    def measured() -> Any:
        with profile or contextlib.nullcontext(), meter:
            yield

    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(sizes, Path(tmp))
        async with bench.bots(warm=not quick):
            floor, ours = await bench.workloads(measured)
    for workload, run_ in ours.items():
        if run_.refused:
            raise AssertionError(f"the {workload} workload was refused {len(run_.refused)} time(s), "
                                 f"e.g. {run_.refused[0]!r}: the benchmark set-up is wrong")
    commands_ = sum(len(r.latencies) for r in ours.values())
    loop_ms = sum(r.seconds for r in ours.values()) * 1000 / commands_
    floor_ms = sum(r.seconds for r in floor.values()) * 1000 / sum(len(r.latencies) for r in floor.values())
    breakdown = [Metric("e2e per command: wall time / commands (both workloads)", loop_ms, "ms"),
                 Metric("e2e per command, floor: wall time / commands", floor_ms, "ms")]
    breakdown += [Metric(f"e2e per command: {label}", spent * 1000 / commands_, "ms")
                  for label, spent in meter.seconds.items()]
    breakdown.append(Metric("e2e per command: round trips to the SQLite thread", meter.hops / commands_, ""))
    return _metrics("/fire", ours["fire"], floor["fire"], sizes.channels) \
        + _metrics("/morale", ours["morale"], floor["morale"], sizes.channels) + breakdown


def run(quick: bool = False) -> list[Metric]:
    return asyncio.run(measure(quick))


def main(argv: list[str]) -> None:
    """``--profile``: cProfile the referee's workloads (the event loop's thread: the SQLite
    thread's own work is not in it). ``--switch-interval=S``, an experiment for
    docs/performance.md: sys.setswitchinterval, how soon the SQLite thread gets the GIL."""
    profile = None
    if "--profile" in argv:
        import cProfile

        profile = cProfile.Profile()
    for arg in argv:
        if arg.startswith("--switch-interval="):
            sys.setswitchinterval(float(arg.split("=", 1)[1]))
    print(f"switch interval {sys.getswitchinterval() * 1000:g} ms")
    metrics = asyncio.run(measure(profile=profile))
    for metric in metrics:
        print(f"{metric.name:58} {metric.value:10,.1f} {metric.unit:6} {metric.target or '':>8} {metric.verdict}")
    if profile is not None:
        import pstats

        print("\nprofile of the referee's workloads (the whole process: bot, fake Discord, store):")
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main(sys.argv[1:])
