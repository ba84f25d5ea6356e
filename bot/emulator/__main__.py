"""`python -m bot.emulator --port N`: run FakeDiscord on its own, for a bot started as another
process: `python -m bot.emulator.run_bot` with the two lines it prints (REFEREE_DISCORD_API /
REFEREE_DISCORD_GATEWAY) exported. `python -m bot run` ignores them."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from bot.emulator.patch import API_ENV, GATEWAY_ENV
from bot.emulator.server import FakeDiscord


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bot.emulator", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
    parser.add_argument("--token", default=None, help="refuse REST calls made with another bot token")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace, stop: asyncio.Event) -> None:
    fake = FakeDiscord(host=args.host, port=args.port, token=args.token)
    async with fake:
        # one line per URL, in the form a shell can `export`; the last line says it is up
        print(f"{API_ENV}={fake.api_url}", flush=True)
        print(f"{GATEWAY_ENV}={fake.gateway_url}", flush=True)
        print("emulator ready", flush=True)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop.set)
            except (NotImplementedError, RuntimeError):
                pass  # Windows: Ctrl-C raises KeyboardInterrupt instead
        await serve(args, stop)

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
