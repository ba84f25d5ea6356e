"""The Discord gateway's state, for the health check (issue 28: it saw the database, not Discord).

The bot has no HTTP port, and ``python -m bot health`` runs as a separate process (Docker's
HEALTHCHECK, compose's), so the running bot writes what its gateway is doing to a small JSON file
(``REFEREE_GATEWAY_STATE``; the image sets ``/tmp/referee-gateway.json``) and the check reads it:

- for each of the process's shards: connected or not, since when, and how old its last heartbeat
  ACK is (Discord answers every heartbeat, one each 41.25 s: a connection whose ACKs stop is dead
  even while its socket looks open);
- when the file was written: it is written every few seconds and at each connect and disconnect,
  so a file that stops changing means a stuck event loop or a process gone.

The check fails when a shard has been down, or its last ACK is older, than
``REFEREE_GATEWAY_DOWN_SECONDS`` (120 by default: longer than a heartbeat interval and than a usual
reconnect, so a resume after a dropped socket is not a failure), or when the file is older than
that. Before the first connection a shard counts as down since the process started.

Where discord.py keeps the ACK time: the private ``_keep_alive._last_ack`` of the gateway
(discord.py is pinned exactly in the lock; tests/test_gateway_health.py checks the attribute on the
installed version, so an upgrade that moves it fails there, not silently in production). Whether
a shard is connected comes from public attributes (``Client.ws``, ``ShardInfo.is_closed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

STATE_VERSION = 1
WRITE_EVERY = 10.0  # seconds between writes while nothing changes (at most a quarter of the bound)


class GatewayWatch:
    """Samples the bot's gateway connections and writes them to ``path`` (atomically)."""

    def __init__(self, bot: Any, path: Path, *, bound: float, every: float | None = None,
                 clock: Any = time.time) -> None:
        self.bot, self.path, self.clock = bot, Path(path), clock
        self.every = every if every is not None else min(WRITE_EVERY, bound / 4)
        self.started = clock()
        shards = getattr(bot.settings, "shards", None) or (bot.shard_id or 0,)
        # shard -> (connected, since when)
        self.shards: dict[int, tuple[bool, float]] = {shard: (False, self.started) for shard in shards}
        self.closed = False
        self._task: asyncio.Task[None] | None = None
        for event in ("on_connect", "on_disconnect", "on_resumed", "on_ready",
                      "on_shard_connect", "on_shard_disconnect", "on_shard_resumed", "on_shard_ready"):
            bot.add_listener(self._changed, event)

    async def _changed(self, *_: Any) -> None:
        self.write()  # a connect or a disconnect is in the file at once, not at the next tick

    def start(self) -> None:
        self.write()
        self._task = asyncio.create_task(self._run(), name="referee-gateway-watch")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            self.write()

    def stop(self) -> None:
        """The bot is closing: cancel the writer and write the state as closed (the check fails)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self.closed = True
        self.write()

    def _socket(self, shard: int) -> Any:
        """The gateway socket serving ``shard`` (None before the first one)."""
        if getattr(self.bot, "shard_ids", None) is not None:  # AutoShardedClient: a connection per shard
            info = self.bot.get_shard(shard)
            return getattr(getattr(info, "_parent", None), "ws", None)
        return self.bot.ws

    def sample(self) -> dict[str, Any]:
        now, ticks = self.clock(), time.perf_counter()
        shards: dict[str, Any] = {}
        for shard, (was, since) in self.shards.items():
            socket = self._socket(shard)
            connected = bool(socket is not None and socket.open and not self.bot.is_closed())
            if connected != was:
                since = now
                self.shards[shard] = (connected, since)
            keep_alive = getattr(socket, "_keep_alive", None)
            last_ack = getattr(keep_alive, "_last_ack", None)
            shards[str(shard)] = {"connected": connected, "since": since,
                                  "ack_age": None if last_ack is None or not connected else round(ticks - last_ack, 3)}
        return {"version": STATE_VERSION, "pid": os.getpid(), "written": now, "started": self.started,
                "closed": self.closed, "shards": shards}

    def write(self) -> None:
        """Write the state; a failure is logged, never raised into the bot (the check will see the
        file grow old and say so)."""
        state = self.sample()
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(state), encoding="utf-8")
            os.replace(temporary, self.path)  # the check never reads half a file
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            log.warning("the gateway state for the health check could not be written to %s: %s", self.path, exc)


def gateway_problem(path: Path, bound: float, *, now: float | None = None) -> tuple[str | None, str]:
    """(why the gateway is unhealthy, or None; a short account of it for the 'ok' line) from the
    state file the bot writes."""
    now = time.time() if now is None else now
    try:
        state = json.loads(Path(path).read_text(encoding="utf-8"))
        shards, written = state["shards"], float(state["written"])
    except FileNotFoundError:
        return (f"the bot has written no gateway state at {path} (not started yet, or REFEREE_GATEWAY_STATE "
                "differs between the bot and this check)"), ""
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"the gateway state at {path} cannot be read ({type(exc).__name__}: {exc})", ""
    if state.get("closed"):
        return "the bot has closed its gateway (it is stopping or stopped)", ""
    stale = now - written
    if stale > bound:
        return (f"the bot has not written its gateway state for {stale:.0f} s (more than {bound:g} s): its event "
                "loop is stuck or the process is gone"), ""
    told = []
    for shard, each in sorted(shards.items(), key=lambda item: int(item[0])):
        if not each["connected"]:
            down = now - float(each["since"])
            if down > bound:
                return (f"shard {shard}'s Discord gateway has been down for {down:.0f} s (more than {bound:g} s)"), ""
            told.append(f"shard {shard} reconnecting for {down:.0f} s")
            continue
        age = each.get("ack_age")
        if age is not None:
            age = float(age) + stale
            if age > bound:
                return (f"shard {shard}'s last Discord heartbeat ACK is {age:.0f} s old (more than {bound:g} s): the "
                        "connection is dead though its socket is open"), ""
            told.append(f"shard {shard} connected, last heartbeat ACK {age:.0f} s ago")
        else:
            told.append(f"shard {shard} connected")
    return None, "; ".join(told)
