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
  turn, and the wait counts against their budget;
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
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from bot.core.errors import IllegalOrder, RulesError

log = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_BUDGET = 60.0  # seconds a long job may take, waiting for its turn included
DEFAULT_AT_ONCE = 2  # long jobs running at once (each a process: one core each)
INLINE_BELOW = 1_000  # steps (~20 ms): smaller work runs on the loop, as it costs less than a process
STEP_SECONDS = 20e-6  # what one step costs, for the estimates said in refusals
PRELOAD = ["bot.work", "bot.service", "bot.core.odds", "bot.export", "bot.stats"]


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
        self._threads: ThreadPoolExecutor | None = None  # starting a child and reading its answer
        self._context: Any = None
        self.ran = 0  # jobs run in a process (tests read it)
        self.inline = 0  # jobs run on the loop

    def _setup(self) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.at_once)
            self._threads = ThreadPoolExecutor(max_workers=2 * self.at_once, thread_name_prefix="referee-work")
            self._context = multiprocessing.get_context("forkserver")
            self._context.set_forkserver_preload(PRELOAD)

    async def run(self, fn: Callable[..., T], *args: Any, cost: float, what: str, instead: str,
                  on_long: Callable[[], Awaitable[Any]] | None = None) -> T:
        """``fn(*args)``: on the loop when ``cost`` is small, else in a child process within the
        budget. ``on_long`` is awaited first when the work goes to a process (a cog defers its
        interaction then: Discord wants an answer within 3 seconds). Over budget: TooLong, whose
        message says ``what`` was too big and ``instead`` what to do."""
        if cost < self.inline_below:
            self.inline += 1
            return fn(*args)
        if on_long is not None:
            await on_long()
        self._setup()
        assert self._slots is not None
        started = time.monotonic()
        try:
            await asyncio.wait_for(self._slots.acquire(), self.budget)
        except asyncio.TimeoutError:
            raise TooLong(f"the bot is busy with other long work ({self.at_once} at once, each up to "
                          f"{self.budget:g} s): try {what} again in a minute") from None
        try:
            return await self._in_process(fn, args, self.budget - (time.monotonic() - started), what, instead,
                                          cost)
        finally:
            self._slots.release()

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
            self.ran += 1
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
                kind, value = await loop.run_in_executor(self._threads, receiver.recv)
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

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=False)


def _child(sender: multiprocessing.connection.Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """In the child process: run the job, send its result (or its refusal) back."""
    try:
        answer: tuple[str, Any] = ("ok", fn(*args))
    except RulesError as exc:
        answer = ("refused", (exc.message, exc.rule))
    except BaseException as exc:  # reported by the parent, which logs it with the command
        answer = ("error", f"{type(exc).__name__}: {exc}")
    sender.send(answer)
    sender.close()
    os._exit(0)  # no clean-up to run: the job wrote nothing
