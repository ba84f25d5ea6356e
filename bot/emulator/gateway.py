"""The fake gateway: HELLO, heartbeat ACKs, IDENTIFY -> READY + GUILD_CREATE, RESUME -> RESUMED.

Every dispatch is kept in the session's log with its sequence number, as Discord does, so a
client that RESUMEs after a dropped socket is sent what it missed: an interaction dispatched
while the socket was down reaches the bot once it is back, never lost.

Shards (a ``FakeDiscord(sharded=True)``; by default every client gets every server and every event,
as when each bot process has a loopback Discord of its own): a client that IDENTIFYs with
``shard: [k, n]`` (n > 1) opens a session of shard k. The
``Gateway`` itself is shard 0's session (and the only one of an unsharded bot); each other shard
gets a session of its own (``shard_sessions[k]``, a ``Gateway`` too), with its own socket, sequence
numbers and RESUME log. A shard's READY and GUILD_CREATEs hold only its servers (Discord's rule:
(server id >> 22) % n == k), and each dispatch about a server goes to its shard's session only,
kept there for a RESUME if that shard is not connected (as Discord does for an absent shard).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import Any, Callable

from aiohttp import WSMsgType, web

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, RESUME, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 0, 1, 2, 6, 9, 10, 11
RESUMABLE_CLOSE = 4000  # "unknown error": discord.py reconnects and RESUMEs on it


def shard_of(guild_id: int | str, count: int) -> int:
    """The shard a server's events go to, by Discord's rule: (server id >> 22) % shard count. The
    emulator's own spelling of it, apart from the bot's (bot/shards.py), so a slip in either shows."""
    return (int(guild_id) >> 22) % count


class Gateway:
    """One bot session at a time per shard (shard 0's, or the only one, is this object's own)."""

    def __init__(self, *, ready_frames: Callable[[str, tuple[int, int]], list[tuple[str, dict[str, Any]]]],
                 heartbeat_interval_ms: int = 41_250, shard: tuple[int, int] = (0, 1), sharded: bool = False,
                 refuse: Callable[[tuple[int, int]], int | None] | None = None):
        # (session id, (shard, count)) -> [("READY", d), ("GUILD_CREATE", d), ...]
        self._ready_frames = ready_frames
        self.shard = shard  # (this session's shard, the shard count): as the client last identified
        self.shard_sessions: dict[int, Gateway] = {}  # the other shards' sessions, by shard number
        # True: a session per shard, each given its servers' events (the module's docstring); False
        # in another shard's session, whose events reach it already routed
        self.routes = sharded
        self.refuse = refuse  # the close code an IDENTIFY of a shard is answered with (Discord's 4010, 4011), or None
        self.refused: list[tuple[tuple[int, int], int]] = []  # (shard, close code) of each IDENTIFY refused
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.session_id: str | None = None
        self.seq = 0
        self.log: list[dict[str, Any]] = []  # the session's dispatches, for RESUME replays
        self.identifies = 0
        self.resumes = 0
        self.heartbeats = 0
        self.received: list[dict[str, Any]] = []  # every frame the client sent, heartbeats excepted
        self._socket: web.WebSocketResponse | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self._changed = asyncio.Event()  # set at each READY/RESUMED
        self.down = False  # an outage: every connection refused (503) until it is over (FakeDiscord.gateway_down)
        self.refused_connections = 0

    @property
    def connected(self) -> bool:
        return self._socket is not None and not self._socket.closed

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.down:  # Discord's gateway unreachable: the client's handshake fails, and it backs off and retries
            self.refused_connections += 1
            return web.Response(status=503, text="gateway outage (emulated)")
        socket = web.WebSocketResponse(max_msg_size=0, timeout=2.0)
        await socket.prepare(request)
        self._sockets.add(socket)
        session = self  # the shard's session this socket speaks to: chosen by its IDENTIFY or RESUME
        try:
            await self._send(socket, {"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for message in socket:
                if message.type is WSMsgType.TEXT:
                    frame = json.loads(message.data)
                    if frame.get("op") in (IDENTIFY, RESUME):
                        session = self._session_for(frame)
                    await session._on_frame(socket, frame)
        finally:
            self._sockets.discard(socket)
            for each in (self, *self.shard_sessions.values()):
                if each._socket is socket:
                    each._socket = None
        return socket

    def _session_for(self, frame: dict[str, Any]) -> Gateway:
        """The session an IDENTIFY (by its ``shard``) or a RESUME (by its session id) is for."""
        data = frame.get("d") or {}
        if not self.routes:  # unsharded: one session, whatever shard the client names
            return self
        if frame.get("op") == RESUME:
            found = [s for s in self.shard_sessions.values() if s.session_id == data.get("session_id")]
            return found[0] if found else self
        shard, count = data.get("shard") or (0, 1)
        self.shard = (0, count)  # the count routes every server's events, whichever shards connect
        session = self if shard == 0 else self.shard_session(shard, count)
        session.shard = (shard, count)
        return session

    def shard_session(self, shard: int, count: int) -> Gateway:
        """Shard ``shard``'s session (made on first use)."""
        if shard not in self.shard_sessions:
            session = Gateway(ready_frames=self._ready_frames, heartbeat_interval_ms=self.heartbeat_interval_ms,
                              shard=(shard, count), refuse=self.refuse)
            session.routes = False
            self.shard_sessions[shard] = session
        return self.shard_sessions[shard]

    def for_guild(self, guild_id: int | str | None) -> Gateway:
        """The session Discord sends a server's events to: its shard's (this one when unsharded)."""
        count = self.shard[1]
        if not self.routes or count <= 1 or guild_id is None:
            return self
        shard = shard_of(guild_id, count)
        return self if shard == 0 else self.shard_session(shard, count)

    async def _on_frame(self, socket: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        if op == HEARTBEAT:
            self.heartbeats += 1
            await self._send(socket, {"op": HEARTBEAT_ACK})
            return
        self.received.append(frame)
        if op == IDENTIFY:
            shard = tuple((frame.get("d") or {}).get("shard") or (0, 1))
            code = self.refuse(shard) if self.refuse is not None else None  # type: ignore[arg-type]
            if code is not None:  # as Discord does: the socket closed with the code, no READY
                self.refused.append((shard, code))  # type: ignore[arg-type]
                await socket.close(code=code, message=b"refused by Discord's sharding rules")
                return
            await self._identify(socket)
        elif op == RESUME:
            await self._resume(socket, frame.get("d") or {})
        # presence updates (3) and member requests (8) need no answer here

    async def _identify(self, socket: web.WebSocketResponse) -> None:
        self.identifies += 1
        self.session_id, self.seq, self.log = secrets.token_hex(16), 0, []
        self._socket = socket
        for event, data in self._ready_frames(self.session_id, self.shard):
            await self.dispatch(event, data)
        self._changed.set()

    async def _resume(self, socket: web.WebSocketResponse, data: dict[str, Any]) -> None:
        if data.get("session_id") != self.session_id:
            # an unknown session cannot resume: the client must IDENTIFY afresh
            await self._send(socket, {"op": INVALID_SESSION, "d": False})
            return
        self.resumes += 1
        self._socket = socket
        missed_after = int(data.get("seq") or 0)
        for frame in [f for f in self.log if f["s"] > missed_after]:
            await self._send(socket, frame)
        await self._send(socket, self._frame("RESUMED", {}))
        self._changed.set()

    def _frame(self, event: str, data: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        return {"op": DISPATCH, "t": event, "s": self.seq, "d": data}

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a dispatch now, or keep it for the RESUME replay if the socket is down; a server's
        event goes to its shard's session."""
        session = self.for_guild(data.get("guild_id")) if isinstance(data, dict) else self
        if session is not self:
            await session.dispatch(event, data)
            return
        frame = self._frame(event, data)
        self.log.append(frame)
        if self.connected:
            await self._send(self._socket, frame)

    async def _send(self, socket: web.WebSocketResponse | None, frame: dict[str, Any]) -> None:
        if socket is None or socket.closed:
            return
        try:
            await socket.send_str(json.dumps(frame))
        except (ConnectionError, RuntimeError):
            # the socket closed under us; a dispatch stays in the log for the RESUME replay
            log.debug("gateway frame not sent: socket closing")

    async def drop(self, code: int = RESUMABLE_CLOSE, *, wait: bool = True, timeout: float = 5.0) -> None:
        """Close the live socket with ``code``; with ``wait``, return once the client is back."""
        socket = self._socket
        if socket is None:
            raise AssertionError("the gateway has no connected client to drop")
        self._socket = None
        self._changed.clear()
        await socket.close(code=code, message=b"dropped by the emulator")
        if wait:
            await asyncio.wait_for(self._changed.wait(), timeout)

    async def close_all(self) -> None:
        for session in self.shard_sessions.values():
            await session.close_all()
        for socket in list(self._sockets):
            await socket.close(code=1001, message=b"emulator stopping")
