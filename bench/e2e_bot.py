"""One bot of the end-to-end benchmark in a process of its own: ``python -m bench.e2e_bot KIND``.

KIND is ``referee`` (``bot.app.RefereeBot`` with its cogs, on ``--database``) or ``floor`` (the
same discord.py set-up answering one fixed embed: what any bot costs; its ``/floor_copy`` answers
a fixed copy of one referee reply, set by ``copy PATH``: what discord.py costs for a message of
that size with those buttons). The fake Discord runs in
the benchmark's process (bench/bench_e2e.py), which starts this one with REFEREE_DISCORD_API and
REFEREE_DISCORD_GATEWAY pointing at it, so the fake's work is not on this bot's event loop.

Once logged in, its commands synced, it prints ``ready`` and answers one JSON line per line read
on stdin (a thread reads them; whatever else the bot prints goes to stderr):

- ``cpu``: CPU seconds of the event loop's thread (its POSIX thread CPU clock, read from the
  control thread, so asking costs the loop nothing) and of the whole process;
- ``copy PATH`` (floor): the messages of a referee reply (a JSON list of ``{"embeds": [...],
  "components": [...]}``, as Discord stored them) become ``/floor_copy``'s answer, built once;
- ``freeze``: ``gc.freeze()`` of the start-up objects, as ``bot.app.serve`` does once logged in;
- ``lag on`` / ``lag off``: a probe in the loop sleeping 1 ms at a time; ``off`` answers the
  longest gap between two of its ticks (what any callback on the loop waited at worst), the most
  CPU the loop's thread used between two ticks (the part of a gap that is the loop's own work,
  not the machine's other processes) and how many ticks it saw;
- ``trace on`` / ``trace off``: every callback the loop runs timed, by iteration; ``off``
  answers the five busiest iterations with their long callbacks (a task's by its coroutine and
  where it stopped);
- ``meter on`` / ``meter off``: the synchronous steps of a command timed around the real
  functions (rules core, sealing, state load, render) and the trips to the SQLite thread;
- ``profile on`` / ``profile off PATH``: cProfile of the loop's thread, written to PATH;
- ``refuse undo CHANNEL USER``: USER refuses the pending undo proposal of CHANNEL (one answered
  too late for Discord has no buttons to click);
- ``forget odds``: empty the service's cache of Odds-button answers (the benchmark times the
  answer, not the cache);
- ``quit``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
from discord.ext import commands

from bot.emulator.patch import apply_env_endpoints

TOKEN = "bench-token"  # the fake Discord takes any token

FLOOR_EMBED = discord.Embed(title="Floor", description="A fixed answer: no rules, no state, no log.",
                            colour=discord.Colour.dark_grey())


class CopiedButton(discord.ui.DynamicItem[discord.ui.Button], template=r"(?:odds|details):[0-9]+:[0-9]+"):
    """A button of the copied reply, routed as the referee's are (a DynamicItem found by its
    custom_id); clicking it does nothing (the benchmark never clicks the copy)."""

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> CopiedButton:
        return cls(item)


def copied_messages(messages: list[dict[str, Any]]) -> list[tuple[list[discord.Embed], discord.ui.View | None]]:
    """A referee reply's messages as discord.py objects, each its embeds and its buttons' View."""
    built = []
    for message in messages:
        view = None
        buttons = [item for row in message.get("components") or [] for item in row.get("components") or []]
        if buttons:
            view = discord.ui.View(timeout=None)
            for button in buttons:
                view.add_item(CopiedButton(discord.ui.Button(
                    label=button.get("label"), custom_id=button["custom_id"],
                    style=discord.ButtonStyle(button.get("style", 2)))))
        built.append(([discord.Embed.from_dict(embed) for embed in message["embeds"]], view))
    return built


class FloorBot(commands.Bot):
    """The same discord.py set-up as RefereeBot, with one command answering a fixed embed and one
    answering a fixed copy of a referee reply (its embeds and buttons built once)."""

    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         allowed_mentions=discord.AllowedMentions.none(), help_command=None)
        self.copy: list[tuple[list[discord.Embed], discord.ui.View | None]] = [([FLOOR_EMBED], None)]

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CopiedButton)

        @self.tree.command(name="floor", description="Answer a fixed embed at once (the benchmark's floor)")
        async def floor(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(embed=FLOOR_EMBED)

        @self.tree.command(name="floor_copy", description="Answer a fixed copy of a referee reply at once")
        async def floor_copy(interaction: discord.Interaction) -> None:
            (embeds, view), *rest = self.copy
            await interaction.response.send_message(embeds=embeds, **({"view": view} if view else {}))
            for embeds, view in rest:
                await interaction.followup.send(embeds=embeds, **({"view": view} if view else {}))


class CostMeter:
    """Sums the time of the synchronous steps of a command (no await inside them, so the sum is
    their own cost on the event loop): the rules core, sealing the log entry (JSON + hashes),
    parsing a loaded state, rendering the embed; and counts the trips to the SQLite thread.
    Installed around the real functions while on, removed after."""

    def __init__(self) -> None:
        import bot.replies
        import bot.service.orders
        import bot.store.sqlite
        from bot.service.desk import Desk

        self.spots: list[tuple[str, Any, str]] = [
            ("rules core (api.resolve)", bot.service.orders, "resolve"),
            ("log entry (Desk.seal: JSON, hashes)", Desk, "seal"),
            ("state load (row -> Game, JSON parse)", bot.store.sqlite, "_stored"),
            ("render (outcome_embed)", bot.replies, "outcome_embed"),
        ]
        self.seconds = {label: 0.0 for label, _, _ in self.spots}
        self.hops = 0
        self._saved: list[tuple[Any, str, Any]] = []

    def on(self) -> None:
        import aiosqlite.core

        for label, owner, name in self.spots:
            original = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
            if original is None:  # renamed since: the row reads 0 rather than the run failing
                continue
            self._saved.append((owner, name, original))
            setattr(owner, name, self._timed(label, original))
        hop = aiosqlite.core.Connection._execute
        self._saved.append((aiosqlite.core.Connection, "_execute", hop))

        async def counted(connection: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.hops += 1
            return await hop(connection, fn, *args, **kwargs)
        aiosqlite.core.Connection._execute = counted  # type: ignore[method-assign]

    def off(self) -> dict[str, Any]:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()
        found = {"seconds": dict(self.seconds), "hops": self.hops}
        self.seconds = {label: 0.0 for label in self.seconds}
        self.hops = 0
        return found

    def _timed(self, label: str, function: Any) -> Any:
        seconds = self.seconds

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[label] += time.perf_counter() - start
        return timed


class LagProbe:
    """A task waking every 1 ms on the loop; the longest gap between two wake-ups is the longest
    any ready callback waited for the loop (a stall)."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.longest = 0.0
        self.longest_cpu = 0.0  # the most CPU the loop's thread used between two wake-ups
        self.ticks = 0

    async def _run(self) -> None:
        last, last_cpu = time.perf_counter(), time.thread_time()
        while True:
            await asyncio.sleep(0.001)
            now, cpu = time.perf_counter(), time.thread_time()
            self.longest = max(self.longest, now - last)
            self.longest_cpu = max(self.longest_cpu, cpu - last_cpu)
            self.ticks += 1
            last, last_cpu = now, cpu

    def on(self) -> None:
        self.longest, self.longest_cpu, self.ticks = 0.0, 0.0, 0
        self.task = asyncio.get_running_loop().create_task(self._run(), name="bench-lag-probe")

    def off(self) -> dict[str, Any]:
        if self.task is not None:
            self.task.cancel()
            self.task = None
        return {"max_gap_ms": self.longest * 1000, "max_gap_cpu_ms": self.longest_cpu * 1000, "ticks": self.ticks}


class LoopTrace:
    """Which callbacks each iteration of the loop ran, and for how long: ``asyncio``'s handles
    timed around ``Handle._run``, an iteration ended by the selector's next ``select`` (once per
    ``_run_once``). ``off`` answers the busiest iterations, each with its callbacks by name (a
    task's by its coroutine's) and CPU-heavy ones listed: what one long gap of the loop is made of."""

    def __init__(self) -> None:
        # (busy s, callbacks, the long ones, the thread's CPU s): busy is wall time, so it counts
        # the time the OS gave the thread's core to others too (a loaded machine); CPU does not
        self.iterations: list[tuple[float, int, list[tuple[str, float]], float]] = []
        self._current: list[tuple[str, float]] = []
        self._count = 0
        self._busy = self._cpu = 0.0
        self._saved: list[tuple[Any, str, Any]] = []

    @staticmethod
    def _name(handle: asyncio.Handle) -> str:
        callback = getattr(handle, "_callback", None)
        task = getattr(callback, "__self__", None)
        if isinstance(task, asyncio.Task):
            coro = task.get_coro()
            inner = coro
            while getattr(inner, "cr_await", None) is not None and hasattr(inner.cr_await, "cr_frame"):
                inner = inner.cr_await  # the innermost coroutine: where the step stopped
            frame = getattr(inner, "cr_frame", None)
            where = f" @{frame.f_code.co_name}:{frame.f_lineno}" if frame is not None else " (done)"
            return f"task {getattr(coro, '__qualname__', coro)}{where}"
        return getattr(callback, "__qualname__", repr(callback))

    def on(self) -> None:
        import asyncio.events

        loop = asyncio.get_running_loop()
        self.iterations.clear()
        run, select = asyncio.events.Handle._run, loop._selector.select  # type: ignore[attr-defined]
        trace = self

        def timed_run(handle: asyncio.Handle) -> None:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                run(handle)
            finally:
                took = time.perf_counter() - start
                trace._count += 1
                trace._busy += took
                trace._cpu += time.thread_time() - cpu
                if took > 0.0003:
                    trace._current.append((trace._name(handle), took))

        def timed_select(timeout: float | None = None) -> Any:
            if trace._count:
                trace.iterations.append((trace._busy, trace._count, trace._current, trace._cpu))
            trace._current, trace._count, trace._busy, trace._cpu = [], 0, 0.0, 0.0
            return select(timeout)
        self._saved = [(asyncio.events.Handle, "_run", run),
                       (loop._selector, "select", select)]  # type: ignore[attr-defined]
        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
        loop._selector.select = timed_select  # type: ignore[attr-defined]

    def off(self) -> dict[str, Any]:
        for owner, name, original in self._saved:
            if isinstance(owner, type):
                setattr(owner, name, original)
            else:
                delattr(owner, name)  # the instance's attribute: the class's method shows again
        self._saved.clear()
        busiest = sorted(self.iterations, key=lambda it: it[0], reverse=True)[:5]
        return {"iterations": len(self.iterations),
                "longest_cpu_ms": round(max((it[3] for it in self.iterations), default=0.0) * 1000, 2),
                "busiest": [{"busy_ms": round(busy * 1000, 2), "cpu_ms": round(cpu * 1000, 2), "callbacks": count,
                             "long": [[name, round(took * 1000, 2)] for name, took in long]}
                            for busy, count, long, cpu in busiest]}


class Control:
    """What the benchmark asks of this process (the module's docstring), answered from a thread
    reading stdin; anything that touches the bot runs on its loop."""

    def __init__(self, bot: commands.Bot, loop: asyncio.AbstractEventLoop, loop_clock: int, reply: Any):
        self.bot, self.loop, self.loop_clock, self.reply = bot, loop, loop_clock, reply
        self.meter: CostMeter | None = None
        self.probe = LagProbe()
        self.trace = LoopTrace()
        self.profile: Any = None
        self.done = asyncio.Event()

    def on_loop(self, action: Callable[[], Any]) -> Any:
        async def run() -> Any:
            return action()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result()

    def answer(self, line: str) -> dict[str, Any]:
        words = line.split()
        if not words:
            return {"error": "empty"}
        match words:
            case ["cpu"]:  # read from this thread: the loop is not interrupted to answer
                return {"loop": time.clock_gettime(self.loop_clock), "process": time.process_time()}
            case ["copy", path]:
                messages = json.loads(Path(path).read_text())

                def set_copy() -> int:
                    self.bot.copy = copied_messages(messages)  # type: ignore[attr-defined]
                    return len(messages)
                return {"messages": self.on_loop(set_copy)}
            case ["freeze"]:
                from bot.app import freeze_start_up_objects

                return {"frozen": self.on_loop(freeze_start_up_objects)}
            case ["lag", "on"]:
                self.on_loop(self.probe.on)
                return {}
            case ["lag", "off"]:
                return self.on_loop(self.probe.off)
            case ["trace", "on"]:
                self.on_loop(self.trace.on)
                return {}
            case ["trace", "off"]:
                return self.on_loop(self.trace.off)
            case ["meter", "on"]:
                self.meter = self.meter or self.on_loop(CostMeter)
                self.on_loop(self.meter.on)
                return {}
            case ["meter", "off"]:
                return self.on_loop(self.meter.off) if self.meter else {"seconds": {}, "hops": 0}
            case ["profile", "on"]:
                import cProfile

                self.profile = cProfile.Profile()
                self.on_loop(self.profile.enable)  # cProfile profiles the thread that enables it
                return {}
            case ["profile", "off", path]:
                self.on_loop(self.profile.disable)
                self.profile.dump_stats(path)
                return {"path": path}
            case ["refuse", "undo", channel, user]:
                # a proposal whose answer came after Discord's 3 s (so it has no buttons) is
                # refused here instead, as the other side would, so the next /undo can be proposed
                return {"refused": asyncio.run_coroutine_threadsafe(
                    self._refuse_undo(int(channel), int(user)), self.loop).result()}
            case ["forget", "odds"]:
                cache = getattr(getattr(self.bot, "referee", None), "_entry_odds", None)
                if cache is not None:
                    self.on_loop(cache.clear)
                return {}
            case ["quit"]:
                self.loop.call_soon_threadsafe(self.done.set)
                return {}
        return {"error": f"unknown request {line!r}"}

    async def _refuse_undo(self, channel_id: int, user_id: int) -> bool:
        from bot.service import Actor

        referee = self.bot.referee  # type: ignore[attr-defined]
        stored = await referee.desk.store.load_active(channel_id)
        pending = await referee.desk.store.pending_undo(stored.id) if stored else None
        if pending is None:
            return False
        await referee.answer_undo(pending.id, Actor(user_id), accept=False)
        return True

    def serve(self, lines: Any) -> None:
        for line in lines:
            try:
                found = self.answer(line)
            except Exception as exc:  # answered, so the benchmark fails with the reason
                found = {"error": f"{type(exc).__name__}: {exc}"}
            self.reply(found)
            if line.strip() == "quit":
                return
        self.loop.call_soon_threadsafe(self.done.set)  # stdin closed: the benchmark went away


async def main(args: argparse.Namespace, reply: Any) -> None:
    if args.kind == "referee":
        from bot.app import RefereeBot
        from bot.config import Settings

        # the benchmark sends at machine speed: the quotas sized for people are off (their cost, an
        # in-memory check per interaction, is still paid: "off" skips only the counting windows)
        off = {name: "off" for name in ("quota_user", "quota_channel", "quota_server", "quota_heavy_user",
                                        "quota_heavy_channel", "quota_heavy_server")}
        off["new_games_per_server"] = "off"
        bot: commands.Bot = RefereeBot(Settings(token=None, database=args.database, dev_guild=None,
                                                max_games_per_server=100_000, **off))
    else:
        bot = FloorBot()
    bot._connection.guild_ready_timeout = 0.01  # READY without discord.py's 2 s wait for guilds
    connect = asyncio.create_task(bot.start(TOKEN), name="bench-bot-connect")
    ready = asyncio.create_task(bot.wait_until_ready())
    done, _ = await asyncio.wait({ready, connect}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        if connect in done:
            connect.result()
        raise SystemExit("the bot was not ready within 60 s")
    await bot.tree.sync()  # a no-op for the referee (it synced itself); the floor needs it
    loop = asyncio.get_running_loop()
    control = Control(bot, loop, time.pthread_getcpuclockid(threading.get_ident()), reply)
    reply({"ready": True, "pid": os.getpid()})
    threading.Thread(target=control.serve, args=(sys.stdin,), name="bench-control", daemon=True).start()
    await control.done.wait()
    await bot.close()
    await asyncio.wait({connect}, timeout=10)


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e_bot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=("referee", "floor"))
    parser.add_argument("--database", help="the referee's SQLite file or PostgreSQL URL (set up by the benchmark)")
    args = parser.parse_args(argv)
    if args.kind == "referee" and not args.database:
        parser.error("the referee needs --database")
    if not apply_env_endpoints():
        parser.error("REFEREE_DISCORD_API and REFEREE_DISCORD_GATEWAY must point at the benchmark's fake Discord")
    # stdout carries the answers only: everything else printed goes to stderr
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    lock = threading.Lock()

    def reply(found: dict[str, Any]) -> None:
        with lock:
            answers.write(json.dumps(found) + "\n")

    gc.collect()
    asyncio.run(main(args, reply))
    return 0


if __name__ == "__main__":
    sys.exit(run())
