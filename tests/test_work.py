"""bot/work.py: a long job's process gives way to the bot's event loop."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from bot.core.errors import IllegalOrder
from bot.work import DEFAULT_BUDGET, NICENESS, QUICK_BELOW, QUICK_NICENESS, TooLong, Worker

MAX_NICENESS = 19  # Linux's: os.nice stops there


def scheduling() -> tuple[int, int]:
    """In the job's process: its scheduling policy and niceness."""
    return os.sched_getscheduler(0), os.nice(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE is Linux's")
async def test_a_long_job_runs_only_on_an_idle_core_and_a_quick_one_niced():
    # niced alone, a job still took its share of a core from the loop (issue 17's load test: the
    # bot's loop preempted mid-command); SCHED_IDLE runs it only when nothing else wants the core.
    # A quick job (an undo proposal, the Odds button: a player waits) is niced only: at SCHED_IDLE
    # it waited seconds for an idle core on a busy machine
    worker = Worker(inline_below=0)
    try:
        long = await worker.run(scheduling, cost=QUICK_BELOW, what="a test job", instead="")
        quick = await worker.run(scheduling, cost=1, what="a test job", instead="")
    finally:
        worker.close()
    # niceness adds to the bot's own and stops at 19: pytest itself run niced (nice -n 10) gave 20 here
    assert long == (os.SCHED_IDLE, min(MAX_NICENESS, os.nice(0) + NICENESS))
    assert quick == (os.SCHED_OTHER, min(MAX_NICENESS, os.nice(0) + QUICK_NICENESS)) and QUICK_NICENESS < NICENESS
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


# --- the quick lane's process, kept running between jobs ---

def pid() -> int:
    return os.getpid()


def sleep_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def started_then_sleep(path: str, seconds: float) -> int:
    """Say it has started (a file at ``path``), then sleep: the test waits for the job to run, not a while."""
    Path(path).write_text(str(os.getpid()))
    time.sleep(seconds)
    return os.getpid()


def crash() -> None:
    os._exit(3)  # as an out-of-memory kill would end it: no answer at all


def refuse() -> None:
    raise IllegalOrder("4-6-7 A1 is marked Final Fire and may not fire in the DFPh", rule="A8.4")


def fail() -> None:
    raise ValueError("a bug in a job")


def gone(process_id: int) -> bool:
    """Whether the process ``process_id`` has ended (and was reaped)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(process_id, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


async def quick(worker: Worker, fn, *args):
    return await worker.run(fn, *args, cost=1, what="a test job", instead="try a smaller one")


async def test_quick_jobs_run_one_after_another_in_one_kept_process():
    worker = Worker(inline_below=0)
    try:
        first = await quick(worker, pid)
        assert await quick(worker, pid) == first and await quick(worker, pid) == first
        assert first != os.getpid() and worker.kept_started == 1 and worker.ran == 3
        # long work still has a process of its own each time
        assert await worker.run(pid, cost=QUICK_BELOW, what="a long job", instead="") not in (first, os.getpid())
        assert await quick(worker, pid) == first
    finally:
        worker.close()
    assert gone(first)  # closing the worker ends it


async def round_trip(worker: Worker) -> float:
    """The best of five round trips of an empty job to the kept process, in seconds: this machine's
    baseline now (a loaded 2-core machine took several times an idle one's)."""
    times = []
    for _ in range(5):
        start = time.monotonic()
        await quick(worker, pid)
        times.append(time.monotonic() - start)
    return min(times)


async def test_a_kept_process_over_its_budget_is_killed_and_replaced():
    # the budget is a ratio of a round trip measured here (at least the 0.5 s it was): a fixed 0.5 s
    # was passed by the legitimate jobs themselves on a loaded machine
    worker = Worker(inline_below=0)
    try:
        first = await quick(worker, pid)  # the kept process started under the default budget
        budget = max(0.5, 50 * await round_trip(worker))
        assert budget < 10, f"a round trip took {budget / 50:.2f} s: the machine is too loaded to tell"
        worker.budget = budget
        with pytest.raises(TooLong) as refused:
            await quick(worker, sleep_then_pid, 30)
        assert f"a test job needs more than the {budget:g} seconds" in refused.value.message
        assert refused.value.message.endswith("try a smaller one")
        assert gone(first)  # the job was stopped with its process
        worker.budget = DEFAULT_BUDGET  # a new process's start is not what this test times
        second = await quick(worker, pid)
        assert second != first and worker.kept_started == 2
        worker.budget = budget
        assert await quick(worker, sleep_then_pid, 0.01) == second  # the budget is per job
    finally:
        worker.close()


async def test_a_kept_process_that_crashed_is_replaced():
    worker = Worker(inline_below=0)
    try:
        first = await quick(worker, pid)
        with pytest.raises(RuntimeError, match="the worker for a test job ended without an answer"):
            await quick(worker, crash)
        second = await quick(worker, pid)
        assert second != first and gone(first)
        os.kill(second, signal.SIGKILL)  # killed between jobs (the host's out-of-memory killer)
        assert gone(second)
        third = await quick(worker, pid)
        assert third not in (first, second) and worker.kept_started == 3
    finally:
        worker.close()


async def test_a_refusal_in_a_kept_process_is_said_in_players_words_and_the_process_stays():
    worker = Worker(inline_below=0)
    try:
        first = await quick(worker, pid)
        with pytest.raises(IllegalOrder) as refused:
            await quick(worker, refuse)
        assert refused.value.message == "4-6-7 A1 is marked Final Fire and may not fire in the DFPh"
        assert refused.value.rule == "A8.4"
        with pytest.raises(RuntimeError, match="the worker for a test job failed: ValueError: a bug in a job"):
            await quick(worker, fail)
        assert await quick(worker, pid) == first and worker.kept_started == 1
    finally:
        worker.close()


async def test_a_cancelled_quick_job_ends_with_its_process(tmp_path):
    worker = Worker(inline_below=0)
    try:
        first = await quick(worker, pid)
        started = tmp_path / "started"
        job = asyncio.ensure_future(quick(worker, started_then_sleep, str(started), 30))
        deadline = time.monotonic() + 30
        while not started.exists():  # the job itself running, however long the machine takes to get there
            assert time.monotonic() < deadline, "the job did not start"
            await asyncio.sleep(0.01)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        assert gone(first)
        assert await quick(worker, pid) != first
    finally:
        worker.close()


async def test_the_warm_up_and_the_first_quick_jobs_at_once_each_get_their_own_answer():
    # the warm-up's empty job once shared the kept process with a first command's: the command was
    # handed the warm-up's answer (0)
    worker = Worker(inline_below=0)
    try:
        warming = asyncio.ensure_future(worker.warm())
        answers = await asyncio.gather(*(quick(worker, len, (1,) * n) for n in range(1, 5)))
        await warming
        assert answers == [1, 2, 3, 4] and worker.kept_started == 1
    finally:
        worker.close()


MAIN_SCRIPT = '''
import asyncio, os, sys
sys.path.insert(0, {root!r})
with open({marks!r}, "a") as marks:  # one line each time this module runs, and in which process
    marks.write(f"{{__name__}} {{os.getpid()}}\\n")
from bot.work import QUICK_BELOW, Worker

async def main():
    worker = Worker(inline_below=0)
    try:
        answers = [await worker.run(len, (1,) * n, cost=QUICK_BELOW * 2, what="a test job", instead="")
                   for n in (1, 2, 3)]  # the long lane: a process of its own each
        answers.append(await worker.run(len, (1,) * 4, cost=1, what="a test job", instead=""))  # the kept one
    finally:
        worker.close()
    print(answers)

if __name__ == "__main__":
    asyncio.run(main())
'''


@pytest.mark.parametrize("how", ["script", "module"])
def test_the_programs_main_module_is_loaded_once_by_the_fork_server_not_by_each_jobs_process(tmp_path, how):
    """A bot run as a script (or ``-m`` a module not named ``__main__``): multiprocessing loads the
    program's main module again in each process before its job (a script's imports, discord's
    among them: 60-190 ms a long job measured); the fork server loads it once for all of them."""
    import subprocess
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    marks = tmp_path / "marks.txt"
    (tmp_path / "bot_main.py").write_text(MAIN_SCRIPT.format(root=root, marks=str(marks)))
    command = [sys.executable, "bot_main.py"] if how == "script" else [sys.executable, "-m", "bot_main"]
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_WORK_MAIN"}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1, 2, 3, 4]"
    loads = marks.read_text().splitlines()
    # the program itself, then the fork server (as __mp_main__): not the 3 long jobs' nor the kept process
    assert [line.split()[0] for line in loads] == ["__main__", "__mp_main__"], loads
    assert len({line.split()[1] for line in loads}) == 2
