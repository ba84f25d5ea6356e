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
- the quick lane's process is kept running between jobs (``_Kept``): it takes one job at a time
  over its pipe, so a quick job (an undo proposal, the Odds button: a replay of at most one
  checkpoint interval) does not pay a process's start (the fork, and the child's start-up before
  the job runs: 70-100 ms measured, more than the job). A job over its budget still gets the
  process killed, and a process that died (a crash, out of memory) is replaced, before the next
  quick job; after ``KEPT_JOBS`` jobs it is replaced too (its memory returned). A job writes
  nothing, so killing it mid-job leaves nothing half-written;
- work estimated small (``cost`` under ``inline_below``: a few milliseconds) runs on the loop
  as before: a process costs more than a short game's replay.

Costs are in "steps", about 20 microseconds each: one unit carried through one replayed entry
(copying and hashing the game are linear in its units), or one exported or counted entry.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import multiprocessing.connection
import os
import time
import pickle
import threading
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
# the quick lane's kept process (an undo proposal, the Odds button: a player waits on it) is niced,
# not SCHED_IDLE: on a busy machine an idle-class job waited for an idle core, an 8 ms job answered
# in 1.1-1.5 s (p90 2.5-3.1 s, past Discord's 3 s) against 0.16 s at this niceness, for a few
# percent of the loop's share while it runs (docs/performance.md)
QUICK_NICENESS = 10
STEP_SECONDS = 20e-6  # what one step costs, for the estimates said in refusals
KEPT_JOBS = 1_000  # jobs the quick lane's kept process runs before it is replaced (its memory returned)
PRELOAD = ["bot.work_preload"]  # the modules and tables every job needs, loaded once
MAIN_ENV = "REFEREE_WORK_MAIN"  # how the fork server finds the program's main module (``load_main``)


def preload_in_bot() -> None:
    """Import every ruleset (each with its odds engine) and build each one's order validator now,
    at the bot's start-up, before the loop serves commands: pydantic builds a validator at its first
    use, and an import or a build at a first command held the loop for 30-200 ms on the load test's
    machine."""
    from bot.core.rulesets import rulesets

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


class _Kept:
    """The quick lane's process, kept running between jobs (``_serve``), and the parent's end of its
    pipe (both ways: a job in, its answer back)."""

    def __init__(self, process: Any, conn: multiprocessing.connection.Connection) -> None:
        self.process = process
        self.conn = conn
        self.jobs = 0

    def end(self) -> None:
        """Kill the process (a job writes nothing: nothing is left half-done) and wait for it; run
        off the loop (the wait is a system call)."""
        if self.process.pid is not None and self.process.is_alive():
            self.process.kill()
        if self.process.pid is not None:
            self.process.join()
        self.conn.close()


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
        self._kept: _Kept | None = None  # the quick lane's process, kept between jobs
        self._starting: asyncio.Future[_Kept] | None = None  # its replacement, being started
        self._kept_lock: asyncio.Lock | None = None  # one job at a time in it (the warm-up's too)
        self._jobs = 0  # numbers the kept process's jobs: an answer must carry its job's
        self.ran = 0  # jobs run in a process (tests read it)
        self.inline = 0  # jobs run on the loop
        self.kept_started = 0  # kept processes started (tests read it)

    def _setup(self) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.at_once)
            self._quick = asyncio.Semaphore(1)
            self._kept_lock = asyncio.Lock()
            self._threads = ThreadPoolExecutor(max_workers=2 * self.at_once, thread_name_prefix="referee-work")
            self._context = multiprocessing.get_context("forkserver")
            self._context.set_forkserver_preload(PRELOAD)
            main = _main_module()
            if main:  # the fork server loads the program's main module once (bot/work_preload.py)
                os.environ[MAIN_ENV] = json.dumps(main)
            else:  # none to load (not another program's, inherited)
                os.environ.pop(MAIN_ENV, None)

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
        left = self.budget - (time.monotonic() - started)
        try:
            if slots is self._quick:
                return await self._in_kept(fn, args, left, what, instead, cost)
            return await self._in_process(fn, args, left, what, instead, cost)
        finally:
            slots.release()

    def _start_kept(self) -> _Kept:
        """Start a kept process (in a thread: the fork server's answer is a system call)."""
        conn, child = self._context.Pipe(duplex=True)
        process = self._context.Process(target=_serve, args=(child,), daemon=True, name="referee-work-kept")
        try:
            process.start()
        finally:
            child.close()  # the child holds its own end: its death is then an end of file here
        self.kept_started += 1
        return _Kept(process, conn)

    async def _kept_process(self) -> _Kept:
        """The kept process, started (or replaced) when there is none or it died between jobs."""
        loop = asyncio.get_running_loop()
        kept = self._kept
        if kept is not None and kept.process.is_alive():
            return kept
        self._kept = None
        if kept is not None:  # it died between jobs (killed from outside, out of memory)
            log.warning("the kept long-work process ended (exit code %s): replaced", kept.process.exitcode)
            await loop.run_in_executor(self._threads, kept.end)
        if self._starting is None:
            self._starting = loop.run_in_executor(self._threads, self._start_kept)
        starting = self._starting
        try:
            kept = await asyncio.shield(starting)  # a cancelled caller leaves the start to the next one
        finally:
            if starting.done() and self._starting is starting:
                self._starting = None
        self._kept = kept
        return kept

    def _replace_kept(self, kept: _Kept) -> None:
        """Forget ``kept`` (killed off the loop) and start its replacement now, for the next job."""
        loop = asyncio.get_running_loop()
        if self._kept is kept:
            self._kept = None
        loop.run_in_executor(self._threads, kept.end)
        if self._starting is None:
            self._starting = loop.run_in_executor(self._threads, self._start_kept)

    async def _in_kept(self, fn: Callable[..., T], args: tuple[Any, ...], budget: float, what: str,
                       instead: str, cost: float) -> T:
        """``_in_process`` in the kept process: the job and its answer go over its pipe, one job at
        a time; each answer carries its job's number, checked."""
        loop = asyncio.get_running_loop()
        assert self._kept_lock is not None
        started = time.monotonic()
        self._jobs += 1
        number = self._jobs
        # pickled in a thread (a long log's batches are bytes already): a job that cannot be
        # pickled is refused before anything reaches the process
        data = await loop.run_in_executor(self._threads, _dumps, (number, fn, args))
        async with self._kept_lock:
            kept = await self._kept_process()
            done = False
            try:
                await loop.run_in_executor(self._threads, kept.conn.send_bytes, data)
                answered, answer = await self._answer(kept.conn, kept.process,
                                                      budget - (time.monotonic() - started), what, instead, cost)
                if answered != number:  # never expected: the process is not trusted with another job
                    raise RuntimeError(f"the worker for {what} answered job {answered} instead of job {number}")
                done = True
            finally:
                if not done:  # over budget, died, or cancelled: the job is stopped with its process
                    self._replace_kept(kept)
            kept.jobs += 1
            if kept.jobs >= KEPT_JOBS:
                self._replace_kept(kept)
        return _unwrap(answer, what)

    async def _answer(self, receiver: multiprocessing.connection.Connection, process: Any, budget: float,
                      what: str, instead: str, cost: float) -> Any:
        """The job's answer read from ``receiver`` within ``budget`` seconds: TooLong past it, a
        RuntimeError when the process ended without answering."""
        loop = asyncio.get_running_loop()
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
            return pickle.loads(await loop.run_in_executor(self._threads, receiver.recv_bytes))  # type: ignore
        except (EOFError, OSError):  # the child died without answering (killed, out of memory)
            process.join(0.1)  # it has ended: its exit code is there at once
            raise RuntimeError(f"the worker for {what} ended without an answer "
                               f"(exit code {process.exitcode})") from None

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
            answer = await self._answer(receiver, process, budget, what, instead, cost)
        finally:
            if process.pid is not None and process.is_alive():
                process.kill()  # over budget, or cancelled: the job writes nothing, so nothing is left half-done
            if process.pid is not None:
                await loop.run_in_executor(self._threads, process.join)
            receiver.close()
        return _unwrap(answer, what)

    async def warm(self) -> None:
        """Start the server process the jobs fork from (it loads the modules and tables: a second
        or two of one core) now, with one empty job, rather than at the first long command; and
        every thread of the pool that starts the jobs and reads their answers (``_start_threads``)."""
        self._setup()
        assert self._threads is not None
        await asyncio.get_running_loop().run_in_executor(None, _start_threads, self._threads, 2 * self.at_once)
        try:  # the fork server and the quick lane's kept process, with an empty job
            await self._in_kept(len, ((),), self.budget, "warming up", "", 0)
        except Exception:  # the first long command will say what is wrong
            log.warning("the long-work processes could not be started", exc_info=True)

    def close(self) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            kept.end()  # killed at once: a wait of a millisecond or two
        if self._threads is not None:
            self._threads.shutdown(wait=False)


def _unwrap(answer: tuple[str, Any], what: str) -> Any:
    """A job's answer as the caller sees it: its result, its refusal raised in players' words, or
    its failure."""
    kind, value = answer
    if kind == "ok":
        return value
    if kind == "refused":
        message, rule = value
        raise IllegalOrder(message, rule=rule)
    raise RuntimeError(f"the worker for {what} failed: {value}")


def _dumps(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _start_threads(pool: ThreadPoolExecutor, count: int) -> None:
    """Make ``pool`` start its ``count`` threads now: each waits at a barrier until all are up,
    so every submission finds none idle and starts one more. A pool starts a thread at a
    submission that finds none idle, and ``Thread.start`` waits until the new thread runs: on the
    event loop, when several long commands came at once, that wait held every channel (100 ms
    sampled on the load test's busy machine). Run it off the loop (it waits for the threads)."""
    barrier = threading.Barrier(count, timeout=30)
    for future in [pool.submit(barrier.wait) for _ in range(count)]:
        try:
            future.result(timeout=30)
        except (threading.BrokenBarrierError, TimeoutError):  # the pool starts the rest when needed
            return


def _main_module() -> dict[str, str]:
    """How a process started by ``multiprocessing`` finds the program's main module (its path, or
    its module's name when run with ``-m``), as ``multiprocessing.spawn.get_preparation_data`` tells
    it; empty when the child needs none (``python -m bot``: a ``__main__`` module is not loaded again).

    Every process forked from the fork server loads it again before its job runs (``spawn.prepare``:
    the script run as ``__mp_main__``, its imports with it), unless the fork server holds it already;
    ``set_forkserver_preload(["__main__"])`` does not load it (Python 3.11 hands the fork server no
    ``main_path``), so the fork server's preload, ``bot.work_preload``, does, told by ``MAIN_ENV``."""
    from multiprocessing import spawn

    data = spawn.get_preparation_data("referee-work")
    name = data.get("init_main_from_name")
    if name is not None:
        return {} if name == "__main__" or name.endswith(".__main__") else {"init_main_from_name": name}
    path = data.get("init_main_from_path")
    return {} if path is None else {"init_main_from_path": path}


def load_main() -> None:
    """In the fork server (``bot.work_preload``): load the program's main module as every process it
    forks would (``MAIN_ENV``: what ``_main_module`` found), so that each finds it loaded. A main
    module that fails to load is left to each job's process, as before (its error is reported there)."""
    main = os.environ.get(MAIN_ENV)
    if not main:
        return
    from multiprocessing import process, spawn

    process.current_process()._inheriting = True  # type: ignore[attr-defined]  # as the fork server's own preload
    try:
        spawn.prepare(json.loads(main))
    except Exception:  # noqa: BLE001 (each job's process loads it again and reports what is wrong)
        log.warning("the fork server could not load the program's main module", exc_info=True)
    finally:
        del process.current_process()._inheriting  # type: ignore[attr-defined]


def _give_way(*, idle: bool = True) -> None:
    """In a job's process: run niced, so the bot's loop (every channel's commands) goes first when
    the cores are busy; ``idle``: a long job, only on an idle core (Linux's SCHED_IDLE); else the
    quick lane's kept process, niced less (``QUICK_NICENESS``: a player waits on its answer)."""
    os.nice(NICENESS if idle else QUICK_NICENESS)
    if not idle:
        return
    try:  # Linux: scheduled only when a core is idle, and preempted at once when the bot wakes
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # elsewhere the niceness above is what there is
        pass


def _job(fn: Callable[..., Any], args: tuple[Any, ...], number: int | None = None) -> bytes:
    """Run one job; its result (or its refusal, or its failure) pickled, to be sent back; with its
    ``number`` first when the kept process runs it."""
    try:
        answer: tuple[str, Any] = ("ok", fn(*args))
    except RulesError as exc:
        answer = ("refused", (exc.message, exc.rule))
    except BaseException as exc:  # reported by the parent, which logs it with the command
        answer = ("error", f"{type(exc).__name__}: {exc}")
    try:
        return pickle.dumps(answer if number is None else (number, answer), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # a result that cannot be sent back: said so, not a traceback here
        failed = ("error", f"its result could not be sent back: {type(exc).__name__}: {exc}")
        return pickle.dumps(failed if number is None else (number, failed))


def _child(sender: multiprocessing.connection.Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """In a long job's own process: run the job, send its result (or its refusal) back."""
    _give_way()
    data = _job(fn, args)
    try:
        sender.send_bytes(data)
        sender.close()
    except OSError:  # the bot stopped waiting (it was killed, or gave up): nobody to tell
        pass
    os._exit(0)  # no clean-up to run: the job wrote nothing


def _serve(conn: multiprocessing.connection.Connection) -> None:
    """In the quick lane's kept process: take one job at a time from ``conn`` (``fn`` and its
    arguments, pickled), send each answer back, until the bot closes its end (or kills it)."""
    _give_way(idle=False)
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):  # the bot closed its end, or ended
            break
        try:
            number, fn, args = pickle.loads(data)
        except BaseException as exc:  # not sent by the bot's Worker: said so, and the process is replaced
            answer = pickle.dumps((None, ("error", f"the job could not be read: {type(exc).__name__}: {exc}")))
        else:
            answer = _job(fn, args, number)
            del fn, args  # the job's data goes before the next one comes
        try:
            conn.send_bytes(answer)
        except OSError:  # the bot stopped waiting: nobody to tell
            break
    os._exit(0)  # no clean-up to run: no job writes anything
