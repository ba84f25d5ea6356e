"""Long work off the event loop (issue 17): replays, verifies, exports, statistics, previews.

One event loop serves every channel: a command that computes for seconds on it stalls them all
(a 15,000-entry verify took minutes). A thread does not help: it shares the interpreter's lock
with the loop, and a few busy threads made the loop wait hundreds of milliseconds at a time. So
long work runs in a child process of its own, forked from a server process that has the bot's
modules loaded (``multiprocessing``'s "forkserver": a few milliseconds per job, and no fork of
the bot's own threads):

- the caller reads what the work needs on the loop first (the store is the loop's), a
  consistent snapshot: the entries up to the newest seq seen at the start (the log is
  append-only, so they never change);
- the job is a plain function of plain data (``fn(*args)``, module level, its arguments and
  result pickled), pure like the rules core: it writes nothing, so stopping it leaves nothing
  half-written;
- the job has a time budget (REFEREE_LONG_WORK_SECONDS); past it the process is killed and
  the command is refused in players' words, saying what was too big and what to do instead;
- at most ``at_once`` jobs run together (REFEREE_LONG_WORK_PROCESSES); the others wait their
  turn, and the wait counts against their budget; work estimated quick (a preview, a short
  replay: under ~2 s) has one more process of its own, so it never waits behind long replays;
- work estimated small (``cost`` under ``inline_below``: a few milliseconds) runs on the loop
  as before: a process costs more than a short game's replay.

Costs are in "steps", about 20 microseconds each: one unit carried through one replayed entry
(copying and hashing the game are linear in its units), or one exported or counted entry.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import time
import pickle
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from bot.core.errors import IllegalOrder, RulesError

log = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_BUDGET = 60.0  # seconds a long job may take, waiting for its turn included
DEFAULT_AT_ONCE = 2  # long jobs running at once (each a process: one core each)
INLINE_BELOW = 1_000  # steps (~20 ms): smaller work runs on the loop, as it costs less than a process
QUICK_BELOW = 100_000  # steps (~2 s): such work has a lane of its own, not queued behind long replays
NICENESS = 19  # long work yields the processor to the bot's event loop
STEP_SECONDS = 20e-6  # what one step costs, for the estimates said in refusals
PRELOAD = ["bot.work_preload"]  # the modules and tables every job needs, loaded once
# modules the rules import only when first needed (the odds engines: a preview, the Odds button),
# imported by the bot's own process at start-up: imported at a first command, each held the event
# loop, every channel's commands, for a fifth of a second on the load test's machine
IN_BOT_PRELOAD = ["bot.core.odds.asl", "bot.core.odds.nhis", "bot.core.odds.cd"]


def preload_in_bot() -> None:
    """Import ``IN_BOT_PRELOAD`` now (the bot's start-up, before the loop serves commands), and
    build every ruleset's order validator (pydantic builds one at its first use: it held the loop
    for 30-40 ms at the load test's first preview)."""
    import importlib

    from bot.core.rulesets import rulesets

    for name in IN_BOT_PRELOAD:
        importlib.import_module(name)
    for ruleset in rulesets():
        ruleset.order_adapter  # noqa: B018 (built when first read)


class Pickled(Generic[T]):
    """Items kept as pickled batches: what a long job is given. The batches are pickled as they
    are read, a few milliseconds at a time on the loop, so handing them to the job's process is a
    copy of bytes: a thread pickling a whole log at once would hold the interpreter's lock in
    long stretches, and the loop would wait for it at every system call. Iterating unpickles a
    batch at a time (in the job's process).

    A batch may be kept as the database's rows with ``decode`` (a module-level function) making
    each an item: then the loop only copies bytes, and the decoding (JSON, zlib, the entry's
    model: most of a long log's reading) is the job's, in its process."""

    def __init__(self) -> None:
        self.batches: list[tuple[bytes, Callable[[Any], T] | None]] = []
        self.count = 0
        self._first: tuple[Any, Callable[[Any], T] | None] | None = None

    def add(self, batch: list[Any], decode: Callable[[Any], T] | None = None) -> None:
        if batch:
            self.batches.append((pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL), decode))
            self.count += len(batch)
            self._first = (batch[0], decode) if self._first is None else self._first

    @property
    def first(self) -> T | None:
        if self._first is None:
            return None
        item, decode = self._first
        return item if decode is None else decode(item)

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[T]:
        for batch, decode in self.batches:
            items = pickle.loads(batch)
            yield from items if decode is None else map(decode, items)


class TooLong(RulesError):
    """Long work that did not fit its budget (or the queue of long work): nothing was changed."""


class Worker:
    """Runs jobs in child processes with a time budget; see the module's docstring."""

    def __init__(self, *, budget: float = DEFAULT_BUDGET, at_once: int = DEFAULT_AT_ONCE,
                 inline_below: float = INLINE_BELOW):
        self.budget = budget
        self.at_once = at_once
        self.inline_below = inline_below
        self._slots: asyncio.Semaphore | None = None
        self._quick: asyncio.Semaphore | None = None  # one more process, for quick work only
        self._threads: ThreadPoolExecutor | None = None  # starting a child and reading its answer
        self._context: Any = None
        self.ran = 0  # jobs run in a process (tests read it)
        self.inline = 0  # jobs run on the loop

    def _setup(self) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.at_once)
            self._quick = asyncio.Semaphore(1)
            self._threads = ThreadPoolExecutor(max_workers=2 * self.at_once, thread_name_prefix="referee-work")
            self._context = multiprocessing.get_context("forkserver")
            self._context.set_forkserver_preload(PRELOAD)

    def is_long(self, cost: float) -> bool:
        """Whether work of this cost goes to a worker process."""
        return cost >= self.inline_below

    async def run(self, fn: Callable[..., T], *args: Any, cost: float, what: str, instead: str,
                  on_long: Callable[[], Awaitable[Any]] | None = None) -> T:
        """``fn(*args)``: on the loop when ``cost`` is small, else in a child process within the
        budget. ``on_long`` is awaited first when the work goes to a process (a cog defers its
        interaction then: Discord wants an answer within 3 seconds). Over budget: TooLong, whose
        message says ``what`` was too big and ``instead`` what to do."""
        if not self.is_long(cost):
            self.inline += 1
            return fn(*args)
        if on_long is not None:
            await on_long()
        self._setup()
        assert self._slots is not None and self._quick is not None
        slots = self._quick if cost < QUICK_BELOW else self._slots
        started = time.monotonic()
        try:
            await asyncio.wait_for(slots.acquire(), self.budget)
        except asyncio.TimeoutError:
            raise TooLong(f"the bot is busy with other long work ({self.at_once} at once, each up to "
                          f"{self.budget:g} s): try {what} again in a minute") from None
        self.ran += 1
        try:
            return await self._in_process(fn, args, self.budget - (time.monotonic() - started), what, instead,
                                          cost)
        finally:
            slots.release()

    async def _in_process(self, fn: Callable[..., T], args: tuple[Any, ...], budget: float, what: str,
                          instead: str, cost: float) -> T:
        loop = asyncio.get_running_loop()
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(target=_child, args=(sender, fn, args), daemon=True,
                                        name="referee-work")
        try:
            # pickling the arguments for the child takes a moment on a long log: not on the loop
            await loop.run_in_executor(self._threads, process.start)
            sender.close()  # the child holds its own end
            answered = loop.create_future()
            loop.add_reader(receiver.fileno(), lambda: answered.done() or answered.set_result(None))
            try:
                await asyncio.wait_for(answered, max(0.0, budget))
            except asyncio.TimeoutError:
                raise TooLong(f"{what} needs more than the {self.budget:g} seconds the bot gives one command "
                              f"(about {cost * STEP_SECONDS:,.0f} s of work estimated): {instead}") from None
            finally:
                loop.remove_reader(receiver.fileno())
            try:
                # the bytes are read in a thread (no lock held), unpickled here: a small result
                kind, value = pickle.loads(await loop.run_in_executor(self._threads, receiver.recv_bytes))
            except EOFError:  # the child died without answering (killed, out of memory)
                raise RuntimeError(f"the worker for {what} ended without an answer "
                                   f"(exit code {process.exitcode})") from None
        finally:
            if process.pid is not None and process.is_alive():
                process.kill()  # over budget, or cancelled: the job writes nothing, so nothing is left half-done
            if process.pid is not None:
                await loop.run_in_executor(self._threads, process.join)
            receiver.close()
        if kind == "ok":
            return value  # type: ignore[no-any-return]
        if kind == "refused":
            message, rule = value
            raise IllegalOrder(message, rule=rule)
        raise RuntimeError(f"the worker for {what} failed: {value}")

    async def warm(self) -> None:
        """Start the server process the jobs fork from (it loads the modules and tables: a second
        or two of one core) now, with one empty job, rather than at the first long command."""
        self._setup()
        try:
            await self._in_process(len, ((),), self.budget, "warming up", "", 0)
        except Exception:  # the first long command will say what is wrong
            log.warning("the long-work processes could not be started", exc_info=True)

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=False)


def _child(sender: multiprocessing.connection.Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """In the child process: run the job, send its result (or its refusal) back. It runs niced:
    the bot's loop (every channel's commands) goes first when the cores are busy."""
    os.nice(NICENESS)
    try:  # Linux: scheduled only when a core is idle, and preempted at once when the bot wakes
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # elsewhere the niceness above is what there is
        pass
    try:
        answer: tuple[str, Any] = ("ok", fn(*args))
    except RulesError as exc:
        answer = ("refused", (exc.message, exc.rule))
    except BaseException as exc:  # reported by the parent, which logs it with the command
        answer = ("error", f"{type(exc).__name__}: {exc}")
    try:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # a result that cannot be sent back: said so, not a traceback here
        data = pickle.dumps(("error", f"its result could not be sent back: {type(exc).__name__}: {exc}"))
    try:
        sender.send_bytes(data)
        sender.close()
    except OSError:  # the bot stopped waiting (it was killed, or gave up): nobody to tell
        pass
    os._exit(0)  # no clean-up to run: the job wrote nothing
