"""`python -m bot.emulator.run_bot`: the bot exactly as `python -m bot run` runs it, but pointed
at a loopback Discord (``python -m bot.emulator``, or a FakeDiscord in a test) through
REFEREE_DISCORD_API and REFEREE_DISCORD_GATEWAY.

Only this entry point reads those two variables: `python -m bot run` never does, so a variable
left in (or slipped into) a production environment cannot send the bot's token anywhere but
Discord. And even here only loopback addresses are taken: the token goes nowhere else.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from bot.emulator.patch import API_ENV, GATEWAY_ENV, apply_env_endpoints


def loopback_only(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """None when both URLs are set and point at this machine; else what is wrong, in one line."""
    for name in (API_ENV, GATEWAY_ENV):
        url = environ.get(name, "").strip()
        if not url:
            return f"{name} is not set: start `python -m bot.emulator` and export the two lines it prints"
        host = urlsplit(url).hostname or ""
        try:
            local = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            local = False
        if not local:
            return f"{name}={url} is not a loopback address: this runner talks only to a local emulator"
    return None


LAG_PROBE_ENV = "REFEREE_LAG_PROBE"  # a file: the loop's longest stall per 0.1 s is appended to it
PROBE_TICK = 0.005  # the probe sleeps 5 ms at a time; a longer gap is a stall of the loop
PROBE_REPORT = 0.1


STALL_STACKS_ENV = "REFEREE_STALL_STACKS"  # a file: what the loop was running during each stall over 25 ms
_last_tick = [0.0]  # the lag probe's last wake-up (time.monotonic), read by the stall sampler's thread


def gc_pauses_file(lag_file: str) -> str:
    """Where the lag probe's process times its garbage collections (``gc_timer``): beside its file."""
    return f"{lag_file}.gc"


async def lag_probe(path: str) -> None:
    """Sleep 5 ms at a time on the bot's loop; every 0.1 s append "MONOTONIC LONGEST_STALL_MS" (the
    longest gap beyond the 5 ms over that time) to ``path``: the load test reads the lines of its
    window (``time.monotonic`` is the same clock in every process of the machine)."""
    import asyncio
    import time

    with open(path, "a", buffering=1) as out:
        last = reported = _last_tick[0] = time.monotonic()
        longest = 0.0
        while True:
            await asyncio.sleep(PROBE_TICK)
            now = _last_tick[0] = time.monotonic()
            longest = max(longest, now - last - PROBE_TICK)
            last = now
            if now - reported >= PROBE_REPORT:
                out.write(f"{now:.4f} {longest * 1000:.2f}\n")
                longest, reported = 0.0, now


def gc_timer(path: str, over_ms: float = 1.0) -> Callable[[], None]:
    """Time every garbage collection of this process (whichever thread runs it, the loop waits: a
    collection holds the interpreter's lock) and append "MONOTONIC PAUSE_MS GENERATION" to ``path``
    for each of ``over_ms`` or more, and for every full one (generation 2). Returns what stops it."""
    import gc
    import time

    out = open(path, "a", buffering=1)
    started: list[float] = []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            pause = (time.perf_counter() - started.pop()) * 1000
            if pause >= over_ms or info.get("generation") == 2:
                out.write(f"{time.monotonic():.4f} {pause:.2f} {info.get('generation')}\n")

    gc.callbacks.append(on_gc)

    def stop() -> None:
        gc.callbacks.remove(on_gc)
        out.close()

    return stop


def stall_sampler(path: str, loop_thread: int, over: float = 0.025, stop: Any = None) -> None:
    """In a thread of its own: while the lag probe has not woken for ``over`` seconds, sample the
    loop thread's stack every 5 ms and append one line per distinct stall "MONOTONIC STALLED_MS
    frame < frame < ..." (innermost first, the bot's own frames and the innermost library one):
    a stall in ``select`` is the process waiting for a core, not work on the loop. Until ``stop``
    (a threading.Event) is set, if given."""
    import sys
    import time
    import traceback

    with open(path, "a", buffering=1) as out:
        while stop is None or not stop.is_set():
            time.sleep(PROBE_TICK)
            stalled = time.monotonic() - _last_tick[0]
            if not _last_tick[0] or stalled < over:
                continue
            frame = sys._current_frames().get(loop_thread)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)[::-1]
            ours = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in stack
                    if "/bot/" in f.filename or "/cogs/" in f.filename or "/tests/" in f.filename][:6]
            out.write(f"{time.monotonic():.4f} {stalled * 1000:.1f} "
                      f"{Path(stack[0].filename).name}:{stack[0].lineno} {stack[0].name} < {' < '.join(ours)}\n")


SLOW_CALLBACKS_ENV = "REFEREE_SLOW_CALLBACK_MS"  # asyncio's debug mode: log each callback longer than this


def install_lag_probe(path: str, slow_callback_ms: float | None = None) -> None:
    """Start ``lag_probe`` with the bot's loop (its set-up hook); only this test runner has it.
    With ``slow_callback_ms``, asyncio's debug mode logs (WARNING, "Executing <Handle ...> took
    0.050 seconds") every callback that held the loop longer: what a stall was, by name."""
    import asyncio

    from bot.app import RefereeBot

    setup_hook = RefereeBot.setup_hook

    async def with_probe(self: RefereeBot) -> None:
        if slow_callback_ms is not None:
            loop = asyncio.get_running_loop()
            loop.set_debug(True)
            loop.slow_callback_duration = slow_callback_ms / 1000
        if path:
            self._lag_probe = asyncio.create_task(  # type: ignore[attr-defined]
                lag_probe(path), name="referee-lag-probe")
            gc_timer(gc_pauses_file(path))
            if os.environ.get(STALL_STACKS_ENV):
                import threading

                threading.Thread(target=stall_sampler, args=(os.environ[STALL_STACKS_ENV], threading.get_ident()),
                                 daemon=True, name="referee-stall-sampler").start()
        await setup_hook(self)

    RefereeBot.setup_hook = with_probe  # type: ignore[method-assign]


def main() -> int:
    problem = loopback_only(os.environ)
    if problem is not None:
        print(f"referee: {problem}", file=sys.stderr)
        return 2
    apply_env_endpoints()
    slow = os.environ.get(SLOW_CALLBACKS_ENV)
    if os.environ.get(LAG_PROBE_ENV) or slow:
        install_lag_probe(os.environ.get(LAG_PROBE_ENV, ""), float(slow) if slow else None)
    from bot.cli import run_bot

    return run_bot(sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
