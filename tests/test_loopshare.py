"""bot/loopshare.py: many commands' long parts ready at once take turns across the loop's
iterations instead of all running in one, in the order they arrived; an idle loop runs a part at once.
Real asyncio, real time: each part burns real CPU."""

import asyncio
import time

from bot import loopshare

PART = 0.001  # seconds of CPU a part burns (a /fire's rules core and seal take about 0.7 ms)


def burn(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def parts_at_once(count: int, shared: bool) -> tuple[list[int], list[int]]:
    """``count`` tasks made ready together, each running one long part; returns each part's loop
    iteration (counted by a task that yields once an iteration) and the order the parts ran."""
    iteration = 0
    stop = False

    async def ticker() -> None:
        nonlocal iteration
        while not stop:
            await asyncio.sleep(0)
            iteration += 1

    seen: list[int] = []
    order: list[int] = []

    async def command(n: int) -> None:
        if shared:
            await loopshare.share()
        seen.append(iteration)
        order.append(n)
        burn(PART)

    ticking = asyncio.get_running_loop().create_task(ticker())
    await asyncio.sleep(0)
    await asyncio.gather(*(command(n) for n in range(count)))
    stop = True
    await ticking
    return seen, order


async def test_parts_ready_together_take_turns_over_iterations_in_arrival_order():
    seen, order = await parts_at_once(40, shared=True)
    per_iteration = {i: seen.count(i) for i in set(seen)}
    # at most SLICE of parts an iteration (plus the one that crosses it), whatever the machine's load
    assert max(per_iteration.values()) <= loopshare.SLICE / PART + 1, per_iteration
    assert len(per_iteration) >= 40 / (loopshare.SLICE / PART + 1)  # so the ticker ran between them
    assert order == sorted(order)  # the ones that waited went in the order they came


async def test_without_it_every_part_runs_in_one_iteration():
    seen, _ = await parts_at_once(40, shared=False)
    assert len(set(seen)) == 1  # the pile the module exists to break up


async def test_an_idle_loop_runs_the_part_at_once():
    async def at_once() -> bool:
        marker = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(marker.set_result, None)
        await loopshare.share()
        return not marker.done()  # no iteration passed: the callback made ready before has not run

    assert await asyncio.create_task(at_once())
    await asyncio.sleep(0.01)  # a new iteration: the slice starts again
    assert await asyncio.create_task(at_once())
