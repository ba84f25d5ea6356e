"""Sharing the event loop between channels: a command's long synchronous parts take turns.

asyncio runs, in one iteration of its loop, every callback that was ready when the iteration
began. When many commands' database replies land while the loop is busy, their continuations
are all ready together, so one iteration runs all their long parts back to back (the rules
core and the log entry's seal, the render and discord.py's send): with 50 ``/fire`` at once,
iterations of 25-60 ms, during which no other channel, timer or gateway heartbeat was served.

``await share()`` before such a part: while the current iteration has run less than ``SLICE``
since its first shared part began, the part runs at once (an idle loop pays one ``call_soon``);
past it, the command waits for a later iteration, in arrival order, so each iteration runs about
``SLICE`` of long parts and whatever else is ready (other channels' events, timers, I/O) runs in
between. It changes no order within a channel: callers hold the channel's lock across it, and a
command's state, entry and transaction are the same whether it waited or not.

Awaited at the three long parts of a command: its start (``RefereeTree.interaction_check``: the
quotas, the channel's lock, the load), the rules core and the seal (``Referee.act``, after the
awaits that may read the dice state, right before ``resolve``), the render and discord.py's send
(``reply_outcome``). docs/performance.md ("The reply path and the burst's stall") has the trace.
"""

from __future__ import annotations

import asyncio
import time
import weakref

SLICE = 0.004  # seconds of long parts one iteration of the loop runs before the rest wait for the next


class _Turns:
    """One loop's slice: when its first shared part of the current iteration began (None: no part
    ran in this iteration yet)."""

    __slots__ = ("began", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.began: float | None = None
        self.loop = loop

    def _next_iteration(self) -> None:
        self.began = None

    def start(self, now: float) -> None:
        self.began = now
        # scheduled now, so it runs first in the next iteration, before the parts that waited
        self.loop.call_soon(self._next_iteration)


_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Turns] = weakref.WeakKeyDictionary()


async def share() -> None:
    """Wait, if the loop's current iteration already ran ``SLICE`` of long parts, for a later one."""
    loop = asyncio.get_running_loop()
    turns = _turns.get(loop)
    if turns is None:
        turns = _turns[loop] = _Turns(loop)
    while True:
        now = time.perf_counter()
        if turns.began is None:
            turns.start(now)
            return
        if now - turns.began < SLICE:
            return
        await asyncio.sleep(0)  # the next iteration; others ready now run first
