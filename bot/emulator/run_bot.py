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


async def lag_probe(path: str) -> None:
    """Sleep 5 ms at a time on the bot's loop; every 0.1 s append "MONOTONIC LONGEST_STALL_MS" (the
    longest gap beyond the 5 ms over that time) to ``path``: the load test reads the lines of its
    window (``time.monotonic`` is the same clock in every process of the machine)."""
    import asyncio
    import time

    with open(path, "a", buffering=1) as out:
        last = reported = time.monotonic()
        longest = 0.0
        while True:
            await asyncio.sleep(PROBE_TICK)
            now = time.monotonic()
            longest = max(longest, now - last - PROBE_TICK)
            last = now
            if now - reported >= PROBE_REPORT:
                out.write(f"{now:.4f} {longest * 1000:.2f}\n")
                longest, reported = 0.0, now


def install_lag_probe(path: str) -> None:
    """Start ``lag_probe`` with the bot's loop (its set-up hook); only this test runner has it."""
    import asyncio

    from bot.app import RefereeBot

    setup_hook = RefereeBot.setup_hook

    async def with_probe(self: RefereeBot) -> None:
        self._lag_probe = asyncio.create_task(lag_probe(path), name="referee-lag-probe")  # type: ignore[attr-defined]
        await setup_hook(self)

    RefereeBot.setup_hook = with_probe  # type: ignore[method-assign]


def main() -> int:
    problem = loopback_only(os.environ)
    if problem is not None:
        print(f"referee: {problem}", file=sys.stderr)
        return 2
    apply_env_endpoints()
    if os.environ.get(LAG_PROBE_ENV):
        install_lag_probe(os.environ[LAG_PROBE_ENV])
    from bot.cli import run_bot

    return run_bot(sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
