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
