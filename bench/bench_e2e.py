"""End-to-end benchmark: the real RefereeBot against the loopback Discord, many channels at once,
side by side with a floor bot; and the long-log commands (export, verify, undo, the Odds button)
with a probe of the bot's event loop.

    .venv/bin/python bench/bench_e2e.py [--quick] [--profile] [--rounds=N]

Three processes: this one runs the fake Discord (``bot.emulator.FakeDiscord``, one per bot, on
127.0.0.1) and drives the workloads; each bot runs in a process of its own (``bench/e2e_bot.py``),
so the fake's work is on neither bot's event loop. A latency is the time from the fake sending
INTERACTION_CREATE on the gateway to it receiving the interaction callback, stamped by the fake.
Each bot process reports the CPU time of its event loop's thread (its POSIX thread CPU clock):
divided by the commands of a chunk, the loop CPU per command, the figure that says how many
channels one bot process can serve.

- The floor bot is the same discord.py set-up (``commands.Bot`` + its command tree, no
  privileged intents, no mentions) with one slash command that answers a fixed embed at once.
  What the referee adds on top of it is the rules, the state and the log. A second floor,
  informative (no target; the targets stay judged on the first): the same floor bot answering a
  fixed copy of one of the referee's /fire replies (the same embeds and buttons, built once),
  timed in the /fire rounds: how much of the gap is the size of the reply, the audit trail itself.
- The referee is ``bot.app.RefereeBot`` with its cogs, on a real SQLite file (WAL,
  synchronous=FULL), with production dice (``secrets``). Its games are set up before it starts,
  through the service (``bot.service.Referee``) with the set-up orders players give: the
  standard ASL game of bench/scenarios.py in every workload channel, and two long logs.
- Both bots answer one command per channel of each workload first (the warm-up), then freeze
  their start-up objects (``gc.freeze``) as ``bot.app.serve`` does once logged in.

The workloads run in ``--rounds`` rounds (3 by default), each bot in turn chunk by chunk (floor,
referee, floor, ...), so background load meets both alike; every figure is given as the median of
the rounds with their min and max:
- ``/fire``: 50 channels at once, each channel's fire group Prep Firing once at its target stack
  (a fired group is marked Prep Fire, so each burst uses fresh channels); 4 bursts a round.
- ``/morale``: 50 channels at once, each issuing 10 Pin Task Checks one after the other (a player
  waits for the answer before the next command).
Then, the referee alone, with the loop probe on (a task waking every 1 ms; the longest gap
between two wake-ups is the longest stall of every other channel): one more /fire burst, and in
a game whose log holds ~100 entries and one with 10,000: a /fire (the newest entry), /log verify,
/log export (Markdown), /undo (refused by the other side after), and the Odds button of that fire
(the service's cache of answers emptied first).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiohttp import web

from bench import scenarios
from bench.common import ROOT, Metric, median, over_rounds, percentile
from bot.emulator import FakeDiscord
from bot.emulator.patch import API_ENV, GATEWAY_ENV
from bot.emulator.payloads import PLAYER_PERMISSIONS, ChannelSpec, GuildSpec, UserSpec

CHANNELS = 50  # channels at once (issue 5)
THROUGHPUT_TARGET = 300  # commands per second with 50 channels (issue 5)
P99_RATIO_TARGET = 3.0  # p99 of 50 simultaneous /fire at most 3x the floor's (issue 14)
CPU_RATIO_TARGET = {"/fire": 3.0, "/morale": 2.0}  # loop CPU per command vs the floor's (issue 14)
STALL_TARGET_MS = 20.0  # no event-loop stall over 20 ms (issue 14)
LONG_LOG_TARGET_MS = 50.0  # undo proposal and the Odds button at 10,000 entries (issue 14)
LONG_LOG_RATIO_TARGET = 1.5  # ... and at most 1.5x the same at 100 entries
GUILD_ID = 4_100_000_000_000_000_001
BOB = UserSpec(2_100_000_000_000_000_002, "bob")  # plays the Russians in every game
GM = UserSpec(2_100_000_000_000_000_003, "gm")  # owns the guild, starts the games
PHASES_PER_TURN = 16  # ASL: two player turns of 8 phases, back to the German PFPh
SETUP_ENTRIES = 15  # the game's creation, the set-up orders and the two joins


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

    async def _deliver(self, record: Any, **kwargs: Any) -> None:
        self.sent_at.setdefault(record.token, time.perf_counter())  # just before the gateway send
        await super()._deliver(record, **kwargs)

    async def _callback(self, request: web.Request) -> web.Response:
        self.answered_at.setdefault(request.match_info["token"], time.perf_counter())
        return await super()._callback(request)

    def latency(self, token: str) -> float:
        return self.answered_at[token] - self.sent_at[token]


# --------------------------------------------------------------------------- the bot processes

class BotProcess:
    """A bot in its own process (bench/e2e_bot.py), pointed at ``fake``; ``ask`` sends it one
    request line and returns its JSON answer."""

    def __init__(self, kind: str, fake: FakeDiscord, folder: Path, database: Path | None = None):
        self.kind, self.fake, self.database = kind, fake, database
        self.log_path = folder / f"{kind}.log"
        self.proc: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> BotProcess:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update({API_ENV: self.fake.api_url, GATEWAY_ENV: self.fake.gateway_url})
        args = ["--database", str(self.database)] if self.database else []
        self._log = self.log_path.open("w")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.e2e_bot", self.kind, *args, cwd=ROOT, env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=self._log)
        ready = await self._answer(timeout=120)
        if not ready.get("ready"):
            raise RuntimeError(f"the {self.kind} bot did not start: {ready}")
        return self

    async def _answer(self, timeout: float = 120) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            self._log.flush()
            tail = self.log_path.read_text()[-3000:]
            raise RuntimeError(f"the {self.kind} bot process ended (status {await self.proc.wait()}):\n{tail}")
        found = json.loads(line)
        if "error" in found:
            raise RuntimeError(f"the {self.kind} bot: {found['error']}")
        return found

    async def ask(self, request: str) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(request.encode() + b"\n")
        await self.proc.stdin.drain()
        return await self._answer()

    async def loop_cpu(self) -> float:
        return float((await self.ask("cpu"))["loop"])

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(Exception):
            if self.proc.returncode is None:
                await self.ask("quit")
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self._log.close()


# --------------------------------------------------------------------------- workloads

@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    loop_cpu: float = 0.0  # CPU seconds of the bot's event-loop thread during the chunks
    refused: list[str] = field(default_factory=list)
    replies: list[Any] = field(default_factory=list, repr=False)  # a burst's (the warm-up's is copied)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    @property
    def cpu_ms(self) -> float:
        return self.loop_cpu * 1000 / len(self.latencies)

    def add(self, other: Run) -> None:
        self.latencies += other.latencies
        self.seconds += other.seconds
        self.loop_cpu += other.loop_cpu
        self.refused += other.refused


Send = Callable[[int, int], Awaitable[Any]]  # (channel index, command number) -> reply


async def burst(fake: TimedDiscord, send: Send, channels: range) -> Run:
    """One command in each of ``channels`` at once."""
    start = time.perf_counter()
    replies = await asyncio.gather(*(send(c, 0) for c in channels))
    run = Run(seconds=time.perf_counter() - start, replies=replies)
    _collect(fake, replies, run.latencies, run.refused)
    return run


async def sustained(fake: TimedDiscord, send: Send, channels: range, per_channel: int) -> Run:
    """``channels`` at once, each issuing ``per_channel`` commands one after the other."""
    async def channel(c: int) -> list[Any]:
        return [await send(c, i) for i in range(per_channel)]

    start = time.perf_counter()
    results = await asyncio.gather(*(channel(c) for c in channels))
    run = Run(seconds=time.perf_counter() - start)
    _collect(fake, [reply for replies in results for reply in replies], run.latencies, run.refused)
    return run


def _collect(fake: TimedDiscord, replies: list[Any], latencies: list[float], refused: list[str]) -> None:
    for reply in replies:
        latencies.append(fake.latency(reply.record.token))
        if reply.ephemeral or not reply.embeds:  # a refusal: the workload itself is wrong
            embed = reply.embeds[0] if reply.embeds else {}
            refused.append(reply.content or embed.get("description") or embed.get("title") or "?")


def _send(fake: TimedDiscord, guild: GuildSpec, name: str, options: dict[str, Any],
          user: Callable[[int], int] = player) -> Send:
    async def send(c: int, i: int) -> Any:
        # settle=False: return on the reply; waiting for "every handler started since" would
        # wait for the other channels' handlers too
        return await fake.send_command(name, options, user_id=user(c), channel_id=guild.channels[c].id,
                                       guild_id=guild.id, member_permissions=PLAYER_PERMISSIONS,
                                       settle=False, timeout=120)
    return send


FIRE_OPTIONS = {"firers": "G1 G2 G3 MG", "leader": "GL", "target": "B3", "range": 2}
MORALE_OPTIONS = {"unit": "GL", "check": "PTC"}


# --------------------------------------------------------------------------- the plan

@dataclass
class Sizes:
    channels: int  # at once
    bursts: int  # /fire bursts per round
    morale_per_channel: int  # per round
    long_log: int  # entries of the long log
    short_log: int  # entries of the short one


FULL = Sizes(channels=CHANNELS, bursts=4, morale_per_channel=10, long_log=10_000, short_log=100)
QUICK = Sizes(channels=4, bursts=1, morale_per_channel=1, long_log=120, short_log=100)  # does it run at all


class Plan:
    """Which channel of the referee's guild holds what: per round, ``bursts`` x ``channels`` fresh
    games for /fire; then per round ``channels`` for /morale, the warm-up's /fire channels, the
    probe's /fire burst, and the two long logs."""

    def __init__(self, sizes: Sizes, rounds: int) -> None:
        self.sizes, self.rounds, n = sizes, rounds, sizes.channels
        self.fire_count = rounds * sizes.bursts * n
        # a round's own /morale channels (and players): the bot lets a player give 20 rolling
        # commands a minute (bot/limits.py), and the warm-up and 3 rounds of 10 are more
        self.morale_rounds = [range(self.fire_count + r * n, self.fire_count + (r + 1) * n) for r in range(rounds)]
        self.morale = range(self.fire_count, self.fire_count + rounds * n)  # all of them, warmed up
        self.warm_fire = range(self.morale.stop, self.morale.stop + n)
        self.probe_fire = range(self.warm_fire.stop, self.warm_fire.stop + n)
        self.logs = {sizes.short_log: self.probe_fire.stop, sizes.long_log: self.probe_fire.stop + 1}
        self.guild = bench_guild(self.probe_fire.stop + 2)
        self.floor_guild = bench_guild(n)

    def fire(self, round_: int, burst_: int) -> range:
        start = (round_ * self.sizes.bursts + burst_) * self.sizes.channels
        return range(start, start + self.sizes.channels)


def phases_for(entries: int) -> int:
    """Phase orders that bring a new game's log to about ``entries`` entries with a /fire as the
    newest one: whole game turns, so the Germans are back in their Prep Fire Phase."""
    turns = max(1, round((entries - SETUP_ENTRIES - 1) / PHASES_PER_TURN))
    return turns * PHASES_PER_TURN


def log_entries(entries: int) -> int:
    """The entries a long log of about ``entries`` really holds, its newest /fire included."""
    return SETUP_ENTRIES + phases_for(entries) + 1


async def prepare(database: Path, plan: Plan) -> float:
    """Every game of the plan, set up through the service before the bot starts (fsync off while
    setting up only). Returns the seconds it took."""
    from bot.config import Rate
    from bot.service import Actor, Referee, ServerCaps
    from bot.store import SqliteStore

    start = time.perf_counter()
    store = await SqliteStore.open(database)
    # every channel of the plan is in one server: its caps (100 games) are for people, not this bench
    referee, gm = Referee(store, caps=ServerCaps(running=100_000, started=Rate.parse("off"))), Actor(GM.id)
    await store._db.execute("PRAGMA synchronous = OFF")
    try:
        for c, channel in enumerate(plan.guild.channels):
            await referee.new_game(channel.id, plan.guild.id, gm, "asl", ["Germans", "Russians"],
                                   scenario="benchmark", options=scenarios.bot_game_options("asl"))
            # the players asked for their seats; the game master approves (bot/core/setup.py Join)
            joins = [{"action": "join", "side": 0, "player": player(c), "requested": True},
                     {"action": "join", "side": 1, "player": BOB.id, "requested": True}]
            for order in scenarios.asl_setup() + joins:
                await referee.act(channel.id, gm, order, command="/bench setup")
        for entries, c in plan.logs.items():
            for _ in range(phases_for(entries)):
                await referee.act(plan.guild.channels[c].id, gm, {"action": "phase"}, command="/game phase")
    finally:
        await store.close()
    return time.perf_counter() - start


# --------------------------------------------------------------------------- the runs

def _button(reply: Any, prefix: str, fake: TimedDiscord | None = None) -> tuple[Any, str]:
    """The message of ``reply`` holding the button whose custom_id starts with ``prefix``, and that id."""
    for message in reply.all_messages():
        for custom_id in message.custom_ids():
            if custom_id.startswith(prefix):
                return message, custom_id
    said = [(m.content, [e.get("title"), e.get("description")] ) for m in reply.all_messages() for e in m.embeds or [{}]]
    callbacks = [(c.type, str(c.data)[:300]) for c in reply.record.callbacks + reply.record.late]
    took = fake.answered_at.get(reply.record.token, 0) - fake.sent_at.get(reply.record.token, 0) if fake else None
    raise AssertionError(f"no {prefix}... button in the reply: {said}; callbacks {callbacks}; "
                         f"late: {len(reply.record.late)}, answered after {took} s")


class Bench:
    def __init__(self, sizes: Sizes, rounds: int, folder: Path, profile: Path | None, trace: bool = False) -> None:
        self.sizes, self.rounds, self.folder, self.profile = sizes, rounds, folder, profile
        self.trace, self.traced = trace, {}  # the loop's busiest iterations in the probe's /fire burst
        self.gap_cpu: dict[str, list[float]] = {}  # name -> the loop's CPU in its longest-CPU gap, ms
        self.plan = Plan(sizes, rounds)
        self.database = folder / "referee.sqlite3"
        self.fake = TimedDiscord(guilds=[self.plan.guild], reply_timeout=120)
        self.floor_fake = TimedDiscord(guilds=[self.plan.floor_guild], reply_timeout=120)
        guild, n = self.plan.guild, sizes.channels
        self.fire = _send(self.fake, guild, "fire", FIRE_OPTIONS)
        self.morale = _send(self.fake, guild, "morale", MORALE_OPTIONS)
        floor = _send(self.floor_fake, self.plan.floor_guild, "floor", {})
        self.floor_send: Send = lambda c, i: floor(c % n, i)
        copy = _send(self.floor_fake, self.plan.floor_guild, "floor_copy", {})
        self.copy_send: Send = lambda c, i: copy(c % n, i)
        self.copies: list[Run] = []  # per round: the floor bot answering a copy of our /fire reply
        self.copy_size = 0  # the bytes of that reply's JSON
        self.meter: dict[str, dict[str, float]] = {}  # workload -> part -> seconds on the loop
        self.hops: dict[str, int] = {}  # workload -> trips to the SQLite thread
        self.late: list[str] = []  # answers that came after Discord's 3 s deadline (refused by Discord)

    async def chunk(self, bot: BotProcess, work: Callable[[], Awaitable[Run]], measured: str = "") -> Run:
        """One chunk of a workload on one bot, with its loop's CPU over the chunk (read 0.1 s after
        the last reply, so what a handler does after answering is counted too, for both bots);
        ``measured``: the workload whose commands the meter's parts are summed for."""
        if measured:
            await bot.ask("meter on")
        before = await bot.loop_cpu()
        run = await work()
        await asyncio.sleep(0.1)
        run.loop_cpu = await bot.loop_cpu() - before
        if measured:
            found = await bot.ask("meter off")
            parts = self.meter.setdefault(measured, {})
            for label, seconds in found["seconds"].items():
                parts[label] = parts.get(label, 0.0) + seconds
            self.hops[measured] = self.hops.get(measured, 0) + found["hops"]
        return run

    async def rounds_(self, ours: BotProcess, floor: BotProcess) -> list[dict[str, tuple[Run, Run]]]:
        """Per round: {"/fire": (floor, ours), "/morale": (floor, ours)}."""
        n, per_channel = self.sizes.channels, self.sizes.morale_per_channel
        halves = [h for h in (per_channel // 2, per_channel - per_channel // 2) if h]
        results = []
        for r in range(self.rounds):
            runs = {"/fire": (Run(), Run()), "/morale": (Run(), Run())}
            chunks: list[tuple[str, Callable[[], Awaitable[Run]], Callable[[], Awaitable[Run]] | None]] = []
            copied = Run()
            for b in range(self.sizes.bursts):
                chunks.append(("/fire", lambda: burst(self.floor_fake, self.floor_send, range(n)),
                               lambda b=b: burst(self.fake, self.fire, self.plan.fire(r, b))))
                chunks.append(("/fire copy", lambda: burst(self.floor_fake, self.copy_send, range(n)), None))
            for half in halves:
                chunks.append(("/morale", lambda h=half: sustained(self.floor_fake, self.floor_send, range(n), h),
                               lambda h=half: sustained(self.fake, self.morale, self.plan.morale_rounds[r], h)))
            for workload, floor_chunk, our_chunk in chunks:
                if our_chunk is None:  # the second floor: the floor bot, our /fire reply copied
                    copied.add(await self.chunk(floor, floor_chunk))
                    continue
                runs[workload][0].add(await self.chunk(floor, floor_chunk))
                runs[workload][1].add(await self.chunk(ours, our_chunk, measured=workload))
            results.append(runs)
            self.copies.append(copied)
        return results

    async def long_logs(self, ours: BotProcess) -> dict[str, list[tuple[float, float]]]:
        """The referee alone, the loop probe on: name -> [(milliseconds, longest loop gap ms)]."""
        found: dict[str, list[tuple[float, float]]] = {}
        late = self.late

        async def probed(name: str, action: Callable[[], Awaitable[Any]]) -> Any:
            await ours.ask("lag on")
            start = time.perf_counter()
            reply = await action()
            took = (time.perf_counter() - start) * 1000
            lag = await ours.ask("lag off")
            found.setdefault(name, []).append((took, lag["max_gap_ms"]))
            self.gap_cpu.setdefault(name, []).append(lag["max_gap_cpu_ms"])
            record = getattr(reply, "record", None)
            if record is not None and record.late:  # Discord refuses an answer after 3 s
                late.append(name)
            return reply

        if self.trace:
            await ours.ask("trace on")
        await probed(f"/fire burst, {self.sizes.channels} channels",
                     lambda: burst(self.fake, self.fire, self.plan.probe_fire))
        if self.trace:
            self.traced = await ours.ask("trace off")
        guild = self.plan.guild
        for entries, c in self.plan.logs.items():
            channel, size = guild.channels[c].id, f"{log_entries(entries):,}"

            def command(name: str, options: dict[str, Any] | None = None, user: int = player(c)) -> Any:
                return self.fake.send_command(name, options or {}, user_id=user, channel_id=channel,
                                              guild_id=guild.id, member_permissions=PLAYER_PERMISSIONS,
                                              settle=True, timeout=300)
            fired = await probed(f"/fire at entry {size}", lambda: command("fire", FIRE_OPTIONS))
            fired_message, odds = _button(fired, "odds:", self.fake)
            for _ in range(self.rounds):
                await probed(f"/log verify, {size} entries", lambda: command("log verify"))
                await probed(f"/log export (Markdown), {size} entries",
                             lambda: command("log export", {"format": "markdown"}))
                proposal = await probed(f"/undo proposal, {size} entries", lambda: command("undo"))
                if proposal.record.late:  # answered after Discord's 3 s: no message, no buttons
                    await ours.ask(f"refuse undo {channel} {BOB.id}")
                else:
                    shown, refuse = _button(proposal, "undo:refuse:", self.fake)
                    await self.fake.click(shown, refuse, user_id=BOB.id, member_permissions=PLAYER_PERMISSIONS)
                await ours.ask("forget odds")
                await probed(f"Odds button, {size} entries",
                             lambda: self.fake.click(fired_message, odds, user_id=player(c),
                                                     member_permissions=PLAYER_PERMISSIONS))
        return found

    async def run(self) -> tuple[list[dict[str, tuple[Run, Run]]], dict[str, list[tuple[float, float]]], float]:
        setup = await prepare(self.database, self.plan)
        n = self.sizes.channels
        async with self.floor_fake, self.fake, \
                BotProcess("floor", self.floor_fake, self.folder) as floor, \
                BotProcess("referee", self.fake, self.folder, self.database) as ours:
            # the warm-up: the first commands fill caches (validators, prepared statements, code
            # paths run once) and are not measured
            await sustained(self.floor_fake, self.floor_send, range(n), 1)
            await sustained(self.fake, self.morale, self.plan.morale, 1)
            warm = await burst(self.fake, self.fire, self.plan.warm_fire)
            # the second floor answers a fixed copy of one of those /fire replies (its messages'
            # embeds and buttons as Discord stored them)
            copy = self.folder / "fire-reply.json"
            copy.write_text(json.dumps([{"embeds": m.embeds, "components": m.components}
                                        for m in warm.replies[0].all_messages()]))
            self.copy_size = copy.stat().st_size
            await floor.ask(f"copy {copy}")
            copied = (await burst(self.floor_fake, self.copy_send, range(n))).replies[0]
            if ([(m.embeds, m.components) for m in copied.all_messages()]
                    != [(m.embeds, m.components) for m in warm.replies[0].all_messages()]):
                raise AssertionError("the floor's copy of the /fire reply differs from the reply")
            await floor.ask("freeze")
            await ours.ask("freeze")
            if self.profile:
                await ours.ask("profile on")
            rounds = await self.rounds_(ours, floor)
            if self.profile:
                await ours.ask(f"profile off {self.profile}")
            logs = await self.long_logs(ours)
        return rounds, logs, setup

    def bot_log(self, kind: str = "referee") -> str:
        path = self.folder / f"{kind}.log"
        return path.read_text()[-4000:] if path.exists() else ""


def _metrics(rounds: list[dict[str, tuple[Run, Run]]], channels: int) -> list[Metric]:
    out: list[Metric] = []
    targets = channels == CHANNELS  # the targets are set for 50 channels at once
    for workload in ("/fire", "/morale"):
        floor = [r[workload][0] for r in rounds]
        ours = [r[workload][1] for r in rounds]
        count = sum(len(r.latencies) for r in ours)
        p99 = [percentile(r.latencies, 99) * 1000 for r in ours]
        floor_p99 = [percentile(r.latencies, 99) * 1000 for r in floor]
        cpu_ratio = [o.cpu_ms / f.cpu_ms for o, f in zip(ours, floor)]
        p99_ratio = [o / f for o, f in zip(p99, floor_p99)]
        w = f"e2e {workload}"
        out += [
            over_rounds(f"{w}: loop CPU per command", [r.cpu_ms for r in ours], "ms"),
            over_rounds(f"{w} floor: loop CPU per command", [r.cpu_ms for r in floor], "ms"),
            over_rounds(f"{w}: loop CPU ours / floor", cpu_ratio, "x",
                        at_most=CPU_RATIO_TARGET[workload] if targets else None),
            over_rounds(f"{w}: commands/s, {channels} channels", [r.rate for r in ours], "cmd/s",
                        at_least=THROUGHPUT_TARGET if targets else None),
            over_rounds(f"{w} floor: commands/s", [r.rate for r in floor], "cmd/s"),
            over_rounds(f"{w}: p50 latency ({count} commands)", [median(r.latencies) * 1000 for r in ours], "ms"),
            over_rounds(f"{w} floor: p50 latency", [median(r.latencies) * 1000 for r in floor], "ms"),
            over_rounds(f"{w}: p99 latency", p99, "ms"),
            over_rounds(f"{w} floor: p99 latency", floor_p99, "ms"),
            over_rounds(f"{w}: p99 ours / p99 floor", p99_ratio, "x",
                        at_most=P99_RATIO_TARGET if targets and workload == "/fire" else None),
        ]
    return out


def _copy_metrics(rounds: list[dict[str, tuple[Run, Run]]], copies: list[Run], size: int) -> list[Metric]:
    """The second floor, informative (no target): the floor bot answering a fixed copy of one of our
    /fire replies (the same embeds and buttons, built once), beside the first floor and ours."""
    if not copies or not all(c.latencies for c in copies):
        return []
    floor = [r["/fire"][0] for r in rounds]
    ours = [r["/fire"][1] for r in rounds]
    w = f"e2e /fire floor, our reply copied ({size:,} B of JSON)"
    return [
        over_rounds(f"{w}: loop CPU per command", [c.cpu_ms for c in copies], "ms"),
        over_rounds(f"{w}: loop CPU / the floor's", [c.cpu_ms / f.cpu_ms for c, f in zip(copies, floor)], "x"),
        over_rounds("e2e /fire: loop CPU ours / the floor with our reply", [o.cpu_ms / c.cpu_ms
                                                                           for o, c in zip(ours, copies)], "x"),
        over_rounds(f"{w}: p99 latency", [percentile(c.latencies, 99) * 1000 for c in copies], "ms"),
        over_rounds("e2e /fire: p99 ours / p99 of the floor with our reply",
                    [percentile(o.latencies, 99) / percentile(c.latencies, 99) for o, c in zip(ours, copies)], "x"),
    ]


def _per_part(results: list[dict[str, tuple[Run, Run]]], meter: dict[str, dict[str, float]],
              hops: dict[str, int]) -> list[Metric]:
    """Per command of each workload, over every round: the metered parts on the loop, what is left
    of the loop CPU beside them (the cog and service path, discord.py's, asyncio's), the trips."""
    out: list[Metric] = []
    for workload, parts in meter.items():
        commands_ = sum(len(r[workload][1].latencies) for r in results)
        cpu_ms = sum(r[workload][1].loop_cpu for r in results) * 1000 / commands_
        out += [Metric(f"e2e per {workload}: {label}", spent * 1000 / commands_, "ms")
                for label, spent in parts.items()]
        out.append(Metric(f"e2e per {workload}: the rest of the loop CPU (cogs, service, discord.py)",
                          cpu_ms - sum(parts.values()) * 1000 / commands_, "ms"))
        out.append(Metric(f"e2e per {workload}: round trips to the SQLite thread",
                          hops.get(workload, 0) / commands_, ""))
    return out


def _log_metrics(logs: dict[str, list[tuple[float, float]]], sizes: Sizes) -> list[Metric]:
    out: list[Metric] = []
    short, long = f"{log_entries(sizes.short_log):,}", f"{log_entries(sizes.long_log):,}"
    full = sizes.long_log >= 10_000
    for name, samples in logs.items():
        took = [ms for ms, _ in samples]
        timed = name.startswith(("/undo", "Odds")) and name.endswith(f"{long} entries") and full
        out.append(over_rounds(f"e2e {name}: time to answer", took, "ms",
                               at_most=LONG_LOG_TARGET_MS if timed else None, item=1 if timed else None))
        if name.startswith(("/undo", "Odds")) and name.endswith(f"{long} entries"):
            base = logs[name.replace(long, short)]
            out.append(over_rounds(f"e2e {name.split(',')[0]}: {long} / {short} entries",
                                   [a / b[0] for (a, _), b in zip(samples, base)], "x",
                                   at_most=LONG_LOG_RATIO_TARGET if full else None, item=1))
    for name, samples in logs.items():
        stall = full and (name.startswith("/fire") or name.endswith(f"{long} entries"))
        out.append(over_rounds(f"e2e loop stall (longest gap) during {name}", [gap for _, gap in samples], "ms",
                               at_most=STALL_TARGET_MS if stall else None, item=2 if stall else None))
    return out


async def measure(quick: bool = False, rounds: int = 3, profile: Path | None = None,
                  short_logs: bool = False, trace: dict[str, Any] | None = None) -> list[Metric]:
    """The figures; ``trace``, when given, receives the loop trace of the probe's /fire burst."""
    sizes = QUICK if quick else FULL
    if short_logs:
        sizes = dataclasses.replace(sizes, long_log=QUICK.long_log)
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as tmp:
        bench = Bench(sizes, rounds, Path(tmp), profile, trace=trace is not None)
        try:
            results, logs, setup = await bench.run()
        except Exception:
            print(f"the referee bot's log ends:\n{bench.bot_log()}", file=sys.stderr)
            raise
        meter, hops, late = bench.meter, bench.hops, bench.late
        if trace is not None:
            trace.update(bench.traced)
        burst = next((name for name in bench.gap_cpu if name.startswith("/fire burst")), None)
        gap_cpu = [over_rounds(f"e2e loop stall during {burst}: the loop's own CPU in its longest gap",
                               bench.gap_cpu[burst], "ms")] if burst else []
        copies = _copy_metrics(results, bench.copies, getattr(bench, "copy_size", 0))
    for r in results:
        for workload, (_, ours) in r.items():
            if ours.refused:
                raise AssertionError(f"the {workload} workload was refused {len(ours.refused)} time(s), "
                                     f"e.g. {ours.refused[0]!r}: the benchmark set-up is wrong")
    wall = [sum(o.seconds for _, o in r.values()) * 1000 / sum(len(o.latencies) for _, o in r.values())
            for r in results]
    floor_wall = [sum(f.seconds for f, _ in r.values()) * 1000 / sum(len(f.latencies) for f, _ in r.values())
                  for r in results]
    breakdown = [over_rounds("e2e per command: wall time / commands (both workloads)", wall, "ms"),
                 over_rounds("e2e per command, floor: wall time / commands", floor_wall, "ms")]
    breakdown += _per_part(results, meter, hops)
    breakdown.append(Metric("e2e set-up: games and logs through the service (not measured)", setup, "s"))
    late_row = Metric("e2e long logs: answers after Discord's 3 s (refused by Discord)", len(late), "")
    return _metrics(results, sizes.channels) + copies + breakdown + _log_metrics(logs, sizes) + gap_cpu + [late_row]


def run(quick: bool = False) -> list[Metric]:
    return asyncio.run(measure(quick))


def main(argv: list[str]) -> None:
    """``--profile``: cProfile of the referee's event-loop thread during the measured rounds
    (only the bot: the fake Discord is in another process), printed after the figures."""
    import argparse

    parser = argparse.ArgumentParser(prog="bench/bench_e2e.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks it runs, measures nothing")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the workloads (default 3)")
    parser.add_argument("--profile", action="store_true", help="cProfile the referee's event-loop thread")
    parser.add_argument("--trace", action="store_true",
                        help="print the referee loop's five busiest iterations in the probe's /fire burst, "
                        "each with its callbacks over 0.3 ms")
    parser.add_argument("--short-logs", action="store_true",
                        help=f"the long log {QUICK.long_log} entries, not {FULL.long_log:,}: the per-command figures "
                        "in less time (back-to-back comparisons); the long-log targets are then not judged")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        profile = Path(tmp) / "referee.prof" if args.profile else None
        traced: dict[str, Any] | None = {} if args.trace else None
        metrics = asyncio.run(measure(args.quick, args.rounds, profile, args.short_logs, traced))
        from bench.run import format_table

        print(format_table(metrics))
        if traced:
            print(f"\nthe referee loop's busiest iterations in the probe's /fire burst "
                  f"({traced['iterations']} iterations; the most CPU in one: {traced['longest_cpu_ms']:.2f} ms):")
            for it in traced["busiest"]:
                print(f"  {it['busy_ms']:.2f} ms ({it['cpu_ms']:.2f} ms CPU), {it['callbacks']} callbacks; "
                      "over 0.3 ms:")
                for name, took in it["long"]:
                    print(f"    {took:6.2f} ms  {name}")
        if profile is not None:
            import pstats

            print("\nprofile of the referee's event-loop thread during the measured rounds:")
            pstats.Stats(str(profile)).sort_stats("tottime").print_stats(30)
            pstats.Stats(str(profile)).sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main(sys.argv[1:])
