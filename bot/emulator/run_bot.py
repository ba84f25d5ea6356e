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


def main() -> int:
    problem = loopback_only(os.environ)
    if problem is not None:
        print(f"referee: {problem}", file=sys.stderr)
        return 2
    apply_env_endpoints()
    from bot.cli import run_bot

    return run_bot(sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
