"""bot/work.py: a long job's process gives way to the bot's event loop."""

from __future__ import annotations

import os
import sys

import pytest

from bot.work import NICENESS, Worker


def scheduling() -> tuple[int, int]:
    """In the job's process: its scheduling policy and niceness."""
    return os.sched_getscheduler(0), os.nice(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE is Linux's")
async def test_a_long_job_runs_only_on_an_idle_core():
    # niced alone, a job still took its share of a core from the loop (issue 17's load test: the
    # bot's loop preempted mid-command); SCHED_IDLE runs it only when nothing else wants the core
    worker = Worker(inline_below=0)
    try:
        policy, niceness = await worker.run(scheduling, cost=1, what="a test job", instead="")
    finally:
        worker.close()
    assert (policy, niceness) == (os.SCHED_IDLE, NICENESS)
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the bot's own process is not


async def test_warming_up_starts_every_thread_of_the_pool_before_the_first_long_command():
    # a pool starts a thread when a submission finds none idle, and Thread.start waits until the
    # thread runs: on the event loop, with several long commands at once, that held every channel
    worker = Worker(inline_below=0, at_once=3)
    try:
        await worker.warm()
        assert worker._threads is not None and len(worker._threads._threads) == 6  # 2 per process at once
        threads = set(worker._threads._threads)
        assert await worker.run(len, (1, 2), cost=1, what="a test job", instead="") == 2
        assert set(worker._threads._threads) == threads  # the job found them idle: none started then
    finally:
        worker.close()
