"""Sharing the event loop between channels: a command's long synchronous parts take turns.

asyncio runs, in one iteration of its loop, every callback that was ready when the iteration
began. When many commands' database replies land while the loop is busy, their continuations
are all ready together, so one iteration runs all their long parts back to back (the rules
core and the log entry's seal, the render and discord.py's send): with 50 ``/fire`` at once,
iterations of 25-30 ms of CPU, during which no other channel, timer or gateway heartbeat was served.

``await share()`` before such a part: while the current iteration has run less than ``SLICE``
since its first shared part began, the part runs at once (an idle loop pays one ``call_soon``);
past it, the command joins a queue, and each later iteration lets in the queue's next batch, as
many parts as fitted in ``SLICE`` the time before (at least one), in arrival order; newcomers
queue behind. So each iteration runs about ``SLICE`` of long parts and whatever else is ready
(other channels' events, timers, I/O) runs in between; a waiting command costs nothing until
its turn. It changes no order within a channel: callers hold the channel's lock across it, and
a command's state, entry and transaction are the same whether it waited or not.

Awaited at the three long parts of a command: its start (``RefereeTree.interaction_check``: the
quotas, the channel's lock, the load), the rules core and the seal (``Referee.act``, after the
awaits that may read the dice state, right before ``resolve``), the render and discord.py's send
(``reply_outcome``). docs/performance.md ("Speed devices") has its gain; `bench/bench_e2e.py --trace` shows it.
"""

from __future__ import annotations

import asyncio
import collections
import time
import weakref

SLICE = 0.004  # seconds of long parts one iteration of the loop runs before the rest wait for a later one


class _Turns:
    """One loop's turns: when the current slice's first part began (None: none since the last
    turn), how many parts it let in, whether the end of the slice is scheduled, and the commands
    waiting, in arrival order."""

    __slots__ = ("began", "count", "loop", "pending", "waiting")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.began: float | None = None
        self.count = 0
        self.loop = loop
        self.pending = False
        self.waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def start(self, now: float) -> None:
        self.began = now
        self.count += 1  # 0 after a turn, or the batch it let in (whose parts are still to run)
        if not self.pending:  # the slice ends with this iteration
            self.pending = True
            self.loop.call_soon(self._turn)

    def _turn(self) -> None:
        """The slice is over: let the next batch of waiting commands in (their parts run in the next
        iteration: each one's step is scheduled here), and end that batch's slice right after it."""
        self.pending = False
        spent = time.perf_counter() - self.began if self.began is not None else 0.0
        fitted = self.count if spent <= SLICE else int(self.count * SLICE / spent)
        self.began, self.count = None, 0
        woken = 0
        while self.waiting and woken < max(1, fitted):
            waiter = self.waiting.popleft()
            if not waiter.done():  # else its command was cancelled while it waited
                waiter.set_result(None)
                woken += 1
        if woken:
            self.count = woken  # the batch's slice begins when its first part does (share, below)
            self.pending = True
            self.loop.call_soon(self._turn)  # scheduled after the batch's steps: runs right after them


_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Turns] = weakref.WeakKeyDictionary()


async def share() -> None:
    """Wait, if the loop's current iteration already ran ``SLICE`` of long parts (or others are
    waiting), for this command's turn in a later one."""
    loop = asyncio.get_running_loop()
    turns = _turns.get(loop)
    if turns is None:
        turns = _turns[loop] = _Turns(loop)
    if not turns.waiting:
        now = time.perf_counter()
        if turns.began is None:
            turns.start(now)
            return
        if now - turns.began < SLICE:
            turns.count += 1
            return
    waiter: asyncio.Future[None] = loop.create_future()
    turns.waiting.append(waiter)
    await waiter
    if turns.began is None:  # the first of its batch
        turns.began = time.perf_counter()
