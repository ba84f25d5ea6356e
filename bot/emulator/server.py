"""FakeDiscord: a loopback Discord (REST + gateway) the real discord.py client talks to.

It serves what the client needs to log in, open the gateway, sync its commands and answer
interactions; it records everything the bot sends (per interaction token and per channel),
builds interactions typed against the schema the bot synced, and injects the faults the
reliability tests need (429s, 5xx, a dropped gateway, a duplicate delivery, a slow bot).

It is as strict as Discord about an interaction's answers (bot/emulator/clock.py has the
deadlines): the initial response within 3 s of the interaction's creation or 404 code 10062
"Unknown interaction" (the token is dead then: followups get 404 code 10015 "Unknown Webhook");
one initial response only (400 code 40060 "Interaction has already been acknowledged");
followups and edits through the token within 15 minutes, then 401 code 50027 "Invalid Webhook
Token" (as Discord answers, discord/discord-api-docs#6851). A modal (response type 9) only as the
initial response to a slash command or a component's press, within Discord's limits
(bodies.modal_errors); after a deferral or any other answer it is refused as already acknowledged
(40060) like any second answer; ``submit_modal`` is the user's submission (interaction type 5), answered
within 3 s like any interaction. Discord never sends an interaction
to a new gateway session (a restarted bot): only a duplicate delivery within the session it was
sent to may happen (a RESUME replay), and ``deliver_again`` refuses anything else.
See notes/discord-emulator.md for what each piece was checked against.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.emulator import payloads as pl
from bot.emulator.bodies import choices_errors, is_empty, message_errors, modal_errors
from bot.emulator.clock import RESPONSE_DEADLINE, TOKEN_LIFETIME, Clock
from bot.emulator.gateway import RESUMABLE_CLOSE, Gateway, shard_of
from bot.emulator.messages import REPLY_TO_COMMAND, MessageStore, read_body, snowflakes
from bot.emulator.records import (
    AUTOCOMPLETE_RESULT, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, MODAL, UPDATE_MESSAGE,
    Callback, InteractionRecord, Reply, SentFile, StoredMessage,
)
from bot.emulator.schema import ATTACHMENT, USER, build_command, registration_errors

log = logging.getLogger(__name__)

COMMAND, COMPONENT, MODAL_SUBMIT = 2, 3, 5  # interaction types (Discord's InteractionType)
TEXT_INPUT_TYPE = 4  # component type of a text input

API = "/api/v10"
LOADING = 1 << 7  # message flag: "the bot is thinking" (a deferred reply not yet edited)
ATTACHMENT_LIMIT = 8 * 1024 * 1024  # bytes a file may have (told to the bot as attachment_size_limit)
ALL_APP_PERMISSIONS = (1 << 51) - 1
# the tasks discord.py runs an interaction's handler in; a reply is complete once they end
HANDLER_TASK_PREFIXES = ("CommandTree-invoker", "discord-ui-view-dispatch", "discord-ui-dynamic-item",
                         "discord-ui-modal",
                         "discord.py: on_interaction")


@dataclass
class Fault:
    """An answer served instead of the real one, ``count`` times, to matching requests."""

    route: str  # a substring of the request's path and query
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    count: int
    method: str | None = None


@dataclass
class Lag:
    """The next ``count`` requests matching ``route`` reach Discord ``seconds`` late: Discord's
    clock moves on by that much before they are handled (a slow bot, without waiting for it)."""

    route: str
    seconds: float
    count: int
    method: str | None = None


@dataclass(frozen=True)
class RequestLog:
    method: str
    path: str
    status: int


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # exactly "application/json": with "; charset=utf-8" appended discord.py reads a str
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json", **(headers or {})})


def error_response(status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> web.Response:
    body: dict[str, Any] = {"message": message, "code": code}
    if errors:
        body["errors"] = errors
    return json_response(body, status)


Refusal = tuple[int, int, str, dict[str, Any]]  # (HTTP status, Discord's code, message, errors)


def body_refusal(body: dict[str, Any], files: list[Any], *, new: bool) -> Refusal | None:
    """What Discord answers a message body it refuses (bot/emulator/bodies.py), or None: 413 code
    40005 for a file over the attachment limit, 400 code 50035 with the bad fields, or 400 code
    50006 for a new message with nothing in it."""
    if any(len(sent.data) > ATTACHMENT_LIMIT for sent in files):
        return 413, 40005, "Request entity too large", {}
    errors = message_errors(body)
    if errors:
        return 400, 50035, "Invalid Form Body", errors
    if new and is_empty(body, files):
        return 400, 50006, "Cannot send an empty message", {}
    return None


# Discord's sharding rules (https://discord.com/developers/docs/topics/gateway#sharding), kept here
# apart from the bot's own copy (bot/shards.py) so that the emulator checks the bot, not itself
GUILDS_PER_SHARD = 2_500  # a shard holding more is refused at IDENTIFY: close 4011, "sharding required"
RECOMMENDED_PER_SHARD = 1_000  # GET /gateway/bot recommends about one shard per this many servers


class FakeDiscord:
    def __init__(self, *, guilds: list[pl.GuildSpec] | None = None, app: pl.AppSpec | None = None,
                 token: str | None = None, host: str = "127.0.0.1", port: int = 0,
                 reply_timeout: float = 5.0, heartbeat_interval_ms: int = 41_250,
                 clock: Clock | None = None, time_scale: float = 1.0, first_id: int | None = None,
                 sharded: bool = False, servers: int | None = None):
        self.guilds = guilds if guilds is not None else [pl.default_guild()]
        # how many servers Discord counts the bot in (default: the guilds given, each sent whole):
        # its recommended shard count (GET /gateway/bot) and the 2,500 a shard it holds to at IDENTIFY
        # (close 4011) count these; the ones beyond ``guilds`` are counted only, spread over the shards
        self.servers = max(servers or 0, len(self.guilds))
        self.app = app or pl.AppSpec()
        self.token = token  # when set, REST calls with another bot token get a 401
        self.host, self.port = host, port
        self.reply_timeout = reply_timeout
        self.clock = clock or Clock(time_scale)  # Discord's time: an interaction's deadlines
        self.lags: list[Lag] = []
        # ids from a fixed start (tests: the same ids every run), or ``first_id`` on (a sandbox on
        # a kept database: time_snowflake(), so a new session never reuses an interaction id)
        self._ids = snowflakes() if first_id is None else snowflakes(first_id)
        self.gateway = Gateway(ready_frames=self._ready_frames, heartbeat_interval_ms=heartbeat_interval_ms,
                               sharded=sharded, refuse=self._refused_shard)
        self.messages = MessageStore(self.app, self._ids, base_url="")
        self.commands: dict[int | None, list[dict[str, Any]]] = {}  # guild id (None: global) -> synced
        self.syncs: list[tuple[int | None, list[dict[str, Any]]]] = []
        self.refused_syncs: list[tuple[int | None, dict[str, Any]]] = []  # bulk overwrites Discord would refuse (50035)
        self.interactions: dict[str, InteractionRecord] = {}  # by token
        self._by_id: dict[int, InteractionRecord] = {}  # the same, by interaction id (bot_received)
        self.requests: list[RequestLog] = []
        self.faults: list[Fault] = []
        self.faults_served: list[RequestLog] = []
        self.receipts_tracked = False  # set by the harness: the bot reports each interaction it gets
        self._runner: web.AppRunner | None = None
        # files a user attached to a slash command's attachment option (type 11), by attachment id:
        # served on loopback as Discord's CDN serves ephemeral attachments, for the bot to download
        self.uploads: dict[int, SentFile] = {}
        # direct messages: each user's DM channel with the bot (made by POST /users/@me/channels, as
        # Discord makes one for anyone), and the users whose DMs are closed to the bot: a message to
        # them is refused with 403 code 50007 "Cannot send messages to this user", as Discord does
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.closed_dms: set[int] = set()

    # --- lifecycle -------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_url(self) -> str:
        return self.base_url + API

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    async def start(self) -> FakeDiscord:
        self._runner = web.AppRunner(self._make_app(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]  # the ephemeral port the OS chose
        self.messages.base_url = self.base_url
        return self

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        get, put, post = web.get, web.put, web.post
        app.add_routes([
            get("/gateway", self.gateway.handle),
            get(API + "/users/@me", self._me),
            post(API + "/users/@me/channels", self._open_dm),
            get(API + "/oauth2/applications/@me", self._application),
            get(API + "/gateway", self._gateway_info),
            get(API + "/guilds/{guild}/members/{user}", self._member),
            get(API + "/gateway/bot", self._gateway_bot),
            put(API + "/applications/{app}/commands", self._sync_commands),
            put(API + "/applications/{app}/guilds/{guild}/commands", self._sync_commands),
            get(API + "/applications/{app}/commands", self._get_commands),
            get(API + "/applications/{app}/guilds/{guild}/commands", self._get_commands),
            post(API + "/interactions/{id}/{token}/callback", self._callback),
            post(API + "/webhooks/{app}/{token}", self._followup),
            web.route("*", API + "/webhooks/{app}/{token}/messages/{message}", self._webhook_message),
            post(API + "/channels/{channel}/messages", self._channel_post),
            web.route("*", API + "/channels/{channel}/messages/{message}", self._channel_message),
            get("/attachments/{message}/{attachment}/{filename}", self._attachment),
            get("/ephemeral-attachments/{attachment}/{filename}", self._uploaded),
        ])
        return app

    # --- middleware: faults, auth, the request log, JSON errors ------------------------------
    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self._lag(request)
        response = self._fault_for(request) or self._auth_failure(request)
        if response is None:
            try:
                response = await handler(request)
            except web.HTTPException as exc:
                # unknown routes and methods: a JSON 4xx, never a 5xx (the client would retry
                # a 5xx with 1-5 s sleeps and the test would only see a timeout)
                response = error_response(exc.status, 0, f"{exc.status}: {exc.reason}")
        self.requests.append(RequestLog(request.method, request.path_qs, response.status))
        return response

    def _fault_for(self, request: web.Request) -> web.Response | None:
        for fault in self.faults:
            if fault.count > 0 and fault.route in request.path_qs and fault.method in (None, request.method):
                fault.count -= 1
                self.faults_served.append(RequestLog(request.method, request.path_qs, fault.status))
                record = self.interactions.get(request.match_info.get("token", ""))
                if record is not None and 400 <= fault.status < 500 and fault.status != 429:
                    # a refusal the client does not retry: the interaction's record shows it
                    record.refused.append((request.path, int(fault.body.get("code") or 0)))
                    record.touch()
                return json_response(fault.body, fault.status, fault.headers)
        return None

    def _lag(self, request: web.Request) -> None:
        for lag in self.lags:
            if lag.count > 0 and lag.route in request.path_qs and lag.method in (None, request.method):
                lag.count -= 1
                self.clock.advance(lag.seconds)
                return

    def lag(self, seconds: float, route: str = "/callback", count: int = 1, *, method: str | None = None) -> None:
        """Make the bot slow: its next ``count`` requests matching ``route`` (by default its
        initial responses) arrive ``seconds`` after it received the interaction, as far as
        Discord's deadlines go. Nothing actually waits."""
        self.lags.append(Lag(route, seconds, count, method))

    def _auth_failure(self, request: web.Request) -> web.Response | None:
        # interaction callbacks and webhooks are authorised by their token, not the bot's
        if self.token is None or not request.path.startswith(API) or "/webhooks/" in request.path \
                or "/interactions/" in request.path:
            return None
        if request.headers.get("Authorization") != f"Bot {self.token}":
            return error_response(401, 0, "401: Unauthorized")
        return None

    def rate_limit_next(self, route: str, retry_after: float = 0.05, count: int = 1, *,
                        is_global: bool = False, method: str | None = None) -> None:
        """Answer the next ``count`` requests whose path contains ``route`` with a 429, as
        Discord does: the client sleeps ``retry_after`` and sends the same request again."""
        headers = {
            "Via": "1.1 google",  # without it discord.py takes the 429 for a Cloudflare ban
            "Retry-After": str(max(1, round(retry_after))),
            "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": "emulator-" + secrets.token_hex(4),
            "X-RateLimit-Scope": "global" if is_global else "user",
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": is_global,
                "code": 0}
        self.faults.append(Fault(route, 429, body, headers, count, method))

    def fail_next(self, route: str, status: int, count: int = 1, *, code: int = 0,
                  message: str | None = None, method: str | None = None) -> None:
        """Answer the next ``count`` matching requests with ``status`` (e.g. 403, 404, 500)."""
        body = {"message": message or f"{status}: injected by the emulator", "code": code}
        self.faults.append(Fault(route, status, body, {}, count, method))

    # --- login, gateway info, command sync --------------------------------------------------
    async def _me(self, request: web.Request) -> web.Response:
        return json_response(pl.user_json(self.app.bot_user) | {"verified": True, "flags": 0})

    async def _member(self, request: web.Request) -> web.Response:
        """A guild member (guild.fetch_member): 10007 Unknown Member for anyone not in the guild."""
        guild = next((g for g in self.guilds if str(g.id) == request.match_info["guild"]), None)
        member = next((m for m in guild.members if str(m.id) == request.match_info["user"]), None) if guild else None
        if member is None:
            return error_response(404, 10007, "Unknown Member")
        return json_response(pl.member_json(member))

    async def _application(self, request: web.Request) -> web.Response:
        return json_response(pl.application_json(self.app))

    async def _gateway_info(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self.gateway_url, "shards": self.recommended_shards,
                              "session_start_limit": limit})

    @property
    def recommended_shards(self) -> int:
        """Discord's recommendation for the bot's servers: about one shard per 1,000."""
        return max(1, -(-self.servers // RECOMMENDED_PER_SHARD))

    def _refused_shard(self, shard: tuple[int, int]) -> int | None:
        """The close code Discord answers an IDENTIFY for ``shard`` (number, count) with, or None:
        4010 for a shard number not below the count, 4011 ("sharding required") for a shard that
        would hold more than 2,500 servers."""
        number, count = shard
        if count < 1 or not 0 <= number < count:
            return 4010
        counted = sum(1 for guild in self.guilds if shard_of(guild.id, count) == number)
        counted += -(-(self.servers - len(self.guilds)) // count)  # the servers only counted, spread evenly
        return 4011 if counted > GUILDS_PER_SHARD else None

    def _ready_frames(self, session_id: str, shard: tuple[int, int] = (0, 1)) -> list[tuple[str, dict[str, Any]]]:
        """A session's READY and GUILD_CREATEs: the servers of its shard ((id >> 22) % count)."""
        number, count = shard
        guilds = [g for g in self.guilds if shard_of(g.id, count) == number]
        ready = pl.ready_json(self.app, guilds, session_id, self.gateway_url, shard=shard)
        return [("READY", ready)] + [("GUILD_CREATE", pl.guild_create_json(g, self.app)) for g in guilds]

    async def _sync_commands(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        guild_id = int(guild) if guild else None
        body, _ = await read_body(request)
        errors = registration_errors(body)
        if errors:  # Discord keeps the commands it had and says which field is wrong
            self.refused_syncs.append((guild_id, errors))
            return json_response({"message": "Invalid Form Body", "code": 50035, "errors": errors}, 400)
        synced = [self._registered(command, guild_id) for command in body]
        self.commands[guild_id] = synced
        self.syncs.append((guild_id, synced))
        return json_response(synced)

    def _registered(self, command: dict[str, Any], guild_id: int | None) -> dict[str, Any]:
        previous = {c["name"]: c for c in self.commands.get(guild_id, [])}
        known = previous.get(command.get("name"))
        data = dict(command, id=known["id"] if known else str(next(self._ids)),
                    application_id=str(self.app.id), version=str(next(self._ids)))
        data.setdefault("type", 1)
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        return data

    async def _get_commands(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        return json_response(self.commands.get(int(guild) if guild else None, []))

    # --- interaction callbacks, followups, edits --------------------------------------------
    async def _callback(self, request: web.Request) -> web.Response:
        record = self.interactions.get(request.match_info["token"])
        if record is None or str(record.id) != request.match_info["id"]:
            return error_response(404, 10062, "Unknown interaction")
        body, files = await read_body(request)
        callback = Callback(int(body.get("type", 0)), body.get("data") or {}, tuple(files))
        age = self._age(record)
        if age > TOKEN_LIFETIME:  # long gone, answered or not
            return self._refuse(record, request, callback, record.late, 404, 10062, "Unknown interaction")
        if record.callbacks:
            # Discord acknowledges an interaction once; a second answer is refused
            return self._refuse(record, request, callback, record.rejected, 400, 40060,
                                "Interaction has already been acknowledged.")
        if age > RESPONSE_DEADLINE:
            # too late: the player already reads "The application did not respond", and the
            # token is dead (no followup can make up for it)
            return self._refuse(record, request, callback, record.late, 404, 10062, "Unknown interaction")
        refusal = self._callback_body_refusal(callback, int(record.payload["type"]),
                                              on_message=bool(record.payload.get("message")))
        if refusal is not None:  # not an answer: the interaction is still unacknowledged
            status, code, message, errors = refusal
            # a callback's fields are its data's; its type is its own
            nested = errors if "type" in errors else {"data": errors}
            return self._refuse(record, request, None, None, status, code, message, nested if errors else None)
        record.callbacks.append(callback)
        record.answered_at = self.clock.now()
        message = self._callback_message(record, callback, list(files))
        record.touch()
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        return json_response(self._callback_response(record, callback, message))

    @staticmethod
    def _callback_body_refusal(callback: Callback, interaction_type: int, *, on_message: bool) -> Refusal | None:
        if callback.type in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE) and not on_message:
            # an update is of the message a component sits on (a press, or a modal opened by one)
            return 400, 50035, "Invalid Form Body", {"type": {"_errors": [{
                "code": "INTERACTION_RESPONSE_TYPE_INVALID",
                "message": "Only a component's interaction (or its modal's submission) updates a message"}]}}
        if callback.type == MODAL:
            if interaction_type not in (COMMAND, COMPONENT):  # not to autocomplete, nor to a modal's submission
                return 400, 50035, "Invalid Form Body", {"type": {"_errors": [{
                    "code": "INTERACTION_RESPONSE_TYPE_INVALID",
                    "message": "A modal answers only a command or a component interaction"}]}}
            errors = modal_errors(callback.data)
            return (400, 50035, "Invalid Form Body", errors) if errors else None
        if callback.type in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
            return body_refusal(callback.data, list(callback.files), new=callback.type == CHANNEL_MESSAGE)
        if callback.type == AUTOCOMPLETE_RESULT:
            errors = choices_errors(callback.data.get("choices") or [])
            if errors:
                return 400, 50035, "Invalid Form Body", {"choices": errors}
        return None

    def _age(self, record: InteractionRecord) -> float:
        """Seconds of Discord's time since the interaction was created."""
        return 0.0 if record.created_at is None else self.clock.now() - record.created_at

    @staticmethod
    def _refuse(record: InteractionRecord, request: web.Request, callback: Callback | None,
                kept: list[Callback] | None, status: int, code: int, message: str,
                errors: dict[str, Any] | None = None) -> web.Response:
        if kept is not None and callback is not None:
            kept.append(callback)
        record.refused.append((request.path, code))
        record.touch()
        return error_response(status, code, message, errors)

    def _token_refusal(self, record: InteractionRecord, request: web.Request) -> web.Response | None:
        """Followups and edits through an interaction's token: only once it was acknowledged
        in time, and for 15 minutes after the interaction was created."""
        if not record.callbacks:
            return self._refuse(record, request, None, None, 404, 10015, "Unknown Webhook")
        if self._age(record) > TOKEN_LIFETIME:
            return self._refuse(record, request, None, None, 401, 50027, "Invalid Webhook Token")
        return None

    def _callback_message(self, record: InteractionRecord, callback: Callback,
                          files: list[Any]) -> StoredMessage | None:
        channel_id, guild_id = int(record.payload["channel_id"]), _guild_of(record.payload)
        if callback.type == CHANNEL_MESSAGE:
            record.original = self.messages.create(channel_id, callback.data, files, guild_id=guild_id,
                                                   kind=REPLY_TO_COMMAND)
        elif callback.type == DEFERRED_CHANNEL_MESSAGE:
            record.original = self.messages.create(channel_id, callback.data, [], guild_id=guild_id,
                                                   kind=REPLY_TO_COMMAND, extra_flags=LOADING)
        elif callback.type in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE):
            # a component's "original" is the message the component sits on
            record.original = self._clicked_message(record)
            if callback.type == UPDATE_MESSAGE and record.original is not None:
                self.messages.edit(record.original, callback.data, files)
        return record.original if callback.type in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE,
                                                      UPDATE_MESSAGE) else None

    def _clicked_message(self, record: InteractionRecord) -> StoredMessage | None:
        raw = record.payload.get("message")
        return self.messages.by_id.get(int(raw["id"])) if raw else None

    def _callback_response(self, record: InteractionRecord, callback: Callback,
                           message: StoredMessage | None) -> dict[str, Any]:
        interaction = {"id": str(record.id), "type": record.payload["type"],
                       "response_message_loading": callback.type == DEFERRED_CHANNEL_MESSAGE,
                       "response_message_ephemeral": bool(message and message.ephemeral)}
        resource: dict[str, Any] = {"type": callback.type}
        if message is not None:
            interaction["response_message_id"] = str(message.id)
            resource["message"] = message.payload
        return {"interaction": interaction, "resource": resource}

    async def _followup(self, request: web.Request) -> web.Response:
        record = self.interactions.get(request.match_info["token"])
        if record is None:
            return error_response(404, 10015, "Unknown Webhook")
        refused = self._token_refusal(record, request)
        if refused is not None:
            return refused
        body, files = await read_body(request)
        thinking = record.original
        editing = (record.callbacks[0].type == DEFERRED_CHANNEL_MESSAGE and thinking is not None
                   and not thinking.deleted and bool(thinking.flags & LOADING))
        refusal = body_refusal(body, files, new=not editing)
        if refusal is not None:
            return self._refuse(record, request, None, None, *refusal)
        if editing:
            # Discord: the first followup after a deferred reply "will function as Edit Original
            # Interaction Response": no new message, the "thinking..." one edited, and the followup's
            # ephemeral flag ignored (the deferral chose who sees it); deprecated, but what happens
            self._edit_keeping_visibility(thinking, body, files)
            record.touch()
            return json_response(thinking.payload)
        message = self.messages.create(int(record.payload["channel_id"]), body, files,
                                       guild_id=_guild_of(record.payload), kind=REPLY_TO_COMMAND)
        record.followups.append(message)
        record.touch()
        return json_response(message.payload)  # "wait is always true" for interaction followups

    def _edit_keeping_visibility(self, message: StoredMessage, body: dict[str, Any], files: list[Any]) -> None:
        """An edit: who can see a message never changes (the ephemeral flag of an edit is ignored),
        and an edit ends the "thinking..." state."""
        visibility = message.flags & pl.EPHEMERAL
        self.messages.edit(message, body, files)
        message.payload["flags"] = (message.flags & ~(LOADING | pl.EPHEMERAL)) | visibility

    async def _webhook_message(self, request: web.Request) -> web.Response:
        record = self.interactions.get(request.match_info["token"])
        if record is not None:
            refused = self._token_refusal(record, request)
            if refused is not None:
                return refused
        message = self._webhook_target(record, request.match_info["message"])
        if record is None or message is None:
            return error_response(404, 10008, "Unknown Message")
        response = await self._message_verb(request, message)
        record.touch()
        return response

    @staticmethod
    def _webhook_target(record: InteractionRecord | None, key: str) -> StoredMessage | None:
        if record is None:
            return None
        if key == "@original":
            return record.original
        return next((m for m in record.all_messages() if str(m.id) == key), None)

    async def _message_verb(self, request: web.Request, message: StoredMessage) -> web.Response:
        if message.deleted:
            return error_response(404, 10008, "Unknown Message")
        if request.method == "GET":
            return json_response(message.payload)
        if request.method == "DELETE":
            self.messages.delete(message)
            return web.Response(status=204)
        if request.method == "PATCH":
            body, files = await read_body(request)
            refusal = body_refusal(body, files, new=False)
            if refusal is not None:
                return error_response(*refusal)
            self._edit_keeping_visibility(message, body, files)
            return json_response(message.payload)
        return error_response(405, 0, "405: Method Not Allowed")

    # --- plain channel messages -------------------------------------------------------------
    async def _open_dm(self, request: web.Request) -> web.Response:
        """A DM channel with a user (POST /users/@me/channels, {"recipient_id": ...}): made once per user,
        whether or not the user takes DMs (Discord refuses the message, not the channel)."""
        body = await request.json()
        user_id = _int(str(body.get("recipient_id", "")))
        if user_id <= 0:
            return error_response(400, 50035, "Invalid Form Body")
        channel_id = self.dm_channels.setdefault(user_id, next(self._ids))
        user = next((m for g in self.guilds for m in g.members if m.id == user_id),
                    pl.UserSpec(user_id, f"user{user_id}"))
        return json_response({"id": str(channel_id), "type": 1, "last_message_id": None, "flags": 0,
                              "recipients": [pl.user_json(user)]})

    def dm_messages(self, user_id: int) -> list[StoredMessage]:
        """The messages the bot sent to a user's DMs (none when it never opened them)."""
        channel_id = self.dm_channels.get(user_id)
        return [] if channel_id is None else self.channel_messages(channel_id)

    async def _channel_post(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        recipient = next((user for user, dm in self.dm_channels.items() if dm == channel_id), None)
        if recipient is not None:  # a DM: refused when the user's DMs are closed to the bot
            if recipient in self.closed_dms:
                return error_response(403, 50007, "Cannot send messages to this user")
            body, files = await read_body(request)
            refusal = body_refusal(body, files, new=True)
            if refusal is not None:
                return error_response(*refusal)
            return json_response(self.messages.create(channel_id, body, files, guild_id=None).payload)
        guild = self._guild_with_channel(channel_id)
        if guild is None:
            return error_response(404, 10003, "Unknown Channel")
        body, files = await read_body(request)
        refusal = body_refusal(body, files, new=True)
        if refusal is not None:
            return error_response(*refusal)
        message = self.messages.create(channel_id, body, files, guild_id=guild.id)
        return json_response(message.payload)

    async def _channel_message(self, request: web.Request) -> web.Response:
        message = self.messages.by_id.get(_int(request.match_info["message"]))
        if message is None or str(message.channel_id) != request.match_info["channel"]:
            return error_response(404, 10008, "Unknown Message")
        return await self._message_verb(request, message)

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        sent = self.messages.file_for(_int(request.match_info["message"]), request.match_info["attachment"])
        if sent is None:
            return error_response(404, 0, "404: Not Found")
        return web.Response(body=sent.data, content_type=sent.content_type or "application/octet-stream")

    async def _uploaded(self, request: web.Request) -> web.StreamResponse:
        sent = self.uploads.get(_int(request.match_info["attachment"]))
        if sent is None or sent.filename != request.match_info["filename"]:
            return error_response(404, 0, "404: Not Found")
        return web.Response(body=sent.data, content_type=sent.content_type or "application/octet-stream")

    def upload(self, sent: SentFile) -> dict[str, Any]:
        """A file a user attaches to a command: kept and served on loopback; its attachment object,
        as Discord puts it in the interaction's ``resolved.attachments``."""
        attachment_id = next(self._ids)
        self.uploads[attachment_id] = sent
        url = f"{self.base_url}/ephemeral-attachments/{attachment_id}/{sent.filename}"
        data = {"id": str(attachment_id), "filename": sent.filename, "size": len(sent.data), "url": url,
                "proxy_url": url, "ephemeral": True}
        if sent.content_type:
            data["content_type"] = sent.content_type
        return data

    # --- what tests read --------------------------------------------------------------------
    def commands_for(self, guild_id: int | None) -> list[dict[str, Any]]:
        """The commands a user in ``guild_id`` sees: the guild's own, then the global ones."""
        guild_commands = self.commands.get(guild_id, []) if guild_id is not None else []
        names = {c["name"] for c in guild_commands}
        return guild_commands + [c for c in self.commands.get(None, []) if c["name"] not in names]

    @property
    def synced(self) -> bool:
        return bool(self.syncs)

    def channel_messages(self, channel_id: int, *, include_ephemeral: bool = False) -> list[StoredMessage]:
        return [m for m in self.messages.by_channel.get(channel_id, [])
                if not m.deleted and (include_ephemeral or not m.ephemeral)]

    def guild(self, guild_id: int | None = None) -> pl.GuildSpec:
        if guild_id is None:
            return self.guilds[0]
        found = next((g for g in self.guilds if g.id == guild_id), None)
        if found is None:
            raise AssertionError(f"no guild {guild_id}; known: {[g.id for g in self.guilds]}")
        return found

    def _guild_with_channel(self, channel_id: int) -> pl.GuildSpec | None:
        return next((g for g in self.guilds if any(c.id == channel_id for c in g.channels)), None)

    # --- gateway faults ---------------------------------------------------------------------
    async def drop_gateway(self, code: int = RESUMABLE_CLOSE, *, wait: bool = True) -> None:
        """Close the bot's gateway socket with a resumable code; it reconnects and RESUMEs."""
        await self.gateway.drop(code, wait=wait, timeout=self.reply_timeout)

    async def gateway_down(self) -> None:
        """An outage: the bot's gateway socket is closed and every reconnection refused (HTTP 503 on
        the handshake) until ``gateway_up``."""
        self.gateway.down = True
        if self.gateway.connected:
            await self.gateway.drop(wait=False)

    async def gateway_up(self, *, wait: bool = True) -> None:
        """The outage is over; with ``wait``, return once the bot is back (READY or RESUMED)."""
        self.gateway.down = False
        if wait:
            await asyncio.wait_for(self.gateway._changed.wait(), self.reply_timeout * 6)

    # --- interactions -----------------------------------------------------------------------
    async def send_command(self, name: str, options: dict[str, Any] | list[dict[str, Any]] | None = None, *,
                           user_id: int | None = None, channel_id: int | None = None,
                           guild_id: int | None = None, member_permissions: int | None = None,
                           check: bool = True, settle: bool = True, timeout: float | None = None) -> Reply:
        """Run ``/name`` (``"game new"`` for a subcommand) as a user; return the bot's reply once
        its handler has finished (``settle=False``: as soon as it answered)."""
        guild = self.guild(guild_id)
        attached: dict[str, dict[str, Any]] = {}
        if isinstance(options, dict):  # a SentFile given for an attachment option: uploaded, named by its id
            options = dict(options)
            for key, value in options.items():
                if isinstance(value, SentFile):
                    attachment = self.upload(value)
                    attached[attachment["id"]] = attachment
                    options[key] = attachment["id"]
        built = build_command(self.commands_for(guild.id), name, options or {}, check=check)
        data = {"id": built.root["id"], "name": built.root["name"], "type": 1, "options": built.options}
        if built.root.get("guild_id"):
            data["guild_id"] = built.root["guild_id"]
        if built.mentioned:
            data["resolved"] = self._resolved(guild, built.mentioned)
        if attached:
            data.setdefault("resolved", {})["attachments"] = attached
        if check:
            for option in _leaf_options(built.options):
                if option.get("type") == ATTACHMENT and option.get("value") not in attached:
                    raise AssertionError(f"/{name} option '{option['name']}' takes a file: give a SentFile (Discord "
                                         "sends the id of a file the user attached, never a value typed)")
        payload = self._interaction(2, data, guild, user_id, channel_id, member_permissions)
        return await self._exchange(payload, settle=settle, timeout=timeout)

    async def autocomplete(self, name: str, options: dict[str, Any] | None = None, *, focused: str,
                           user_id: int | None = None, channel_id: int | None = None,
                           guild_id: int | None = None, timeout: float | None = None) -> list[dict[str, Any]]:
        """The choices the bot offers while the user types into option ``focused``."""
        guild = self.guild(guild_id)
        built = build_command(self.commands_for(guild.id), name, options or {}, focused=focused)
        data = {"id": built.root["id"], "name": built.root["name"], "type": 1, "options": built.options}
        if built.root.get("guild_id"):
            data["guild_id"] = built.root["guild_id"]
        payload = self._interaction(4, data, guild, user_id, channel_id, None)
        reply = await self._exchange(payload, settle=True, timeout=timeout)
        return reply.choices

    async def click(self, message: StoredMessage | Reply, custom_id: str, *, user_id: int | None = None,
                    member_permissions: int | None = None, values: list[str] | None = None,
                    component_type: int = 2, settle: bool = True, timeout: float | None = None) -> Reply:
        """Press the button (or pick ``values`` in the select menu) ``custom_id`` on ``message``."""
        target = _message_with(message, custom_id)
        guild = self._guild_with_channel(target.channel_id) or self.guild()
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = values
        payload = self._interaction(3, data, guild, user_id, target.channel_id, member_permissions)
        payload["message"] = target.payload
        return await self._exchange(payload, settle=settle, timeout=timeout)

    async def submit_modal(self, opened: Reply, values: dict[str, str] | None = None, *, user_id: int | None = None,
                           settle: bool = True, timeout: float | None = None) -> Reply:
        """The user submits the modal the bot opened as its answer to ``opened`` (interaction type 5,
        MODAL_SUBMIT): each text input keeps its prefilled value unless ``values`` gives another. As
        Discord's client, only the user the modal was shown to submits it, once, with every required
        input filled and every value within its lengths (else AssertionError: Discord would not let
        it be sent). The submission must be answered within 3 s like any interaction."""
        modal = opened.modal
        record = opened.record
        if modal is None:
            raise AssertionError(f"the bot answered {_describe(record.payload)} without a modal: nothing to submit")
        opener = int((record.payload.get("member") or {}).get("user", record.payload.get("user") or {})["id"])
        if user_id is not None and user_id != opener:
            raise AssertionError(f"the modal was shown to user {opener} alone: user {user_id} cannot submit it")
        if record.modal_submitted:
            raise AssertionError("this modal was submitted already: Discord closes it on submission")
        given = dict(values or {})
        rows = []
        for row in modal["components"]:
            item = row["components"][0]
            text = given.pop(item["custom_id"], item.get("value") or "")
            low, high = item.get("min_length") or 0, item.get("max_length") or 4000
            if item.get("required", True) and not text:
                raise AssertionError(f"'{item['label']}' is required: Discord does not submit the modal without it")
            if text and not low <= len(text) <= high:
                raise AssertionError(f"'{item['label']}' takes {low}-{high} characters, not {len(text)}")
            rows.append({"type": 1, "components": [{"type": TEXT_INPUT_TYPE, "custom_id": item["custom_id"],
                                                    "value": text}]})
        if given:
            raise AssertionError(f"the modal has no input {sorted(given)}; its inputs: "
                                 f"{[row['components'][0]['custom_id'] for row in modal['components']]}")
        record.modal_submitted = True
        guild = self.guild(_guild_of(record.payload))
        payload = self._interaction(MODAL_SUBMIT, {"custom_id": modal["custom_id"], "components": rows}, guild,
                                    opener, int(record.payload["channel_id"]),
                                    int(record.payload["member"]["permissions"]) if record.payload.get("member")
                                    else None)
        if record.payload.get("message"):  # a modal opened by a component: its submission names that message
            payload["message"] = record.payload["message"]
        return await self._exchange(payload, settle=settle, timeout=timeout)

    async def deliver_again(self, interaction: Reply | InteractionRecord, *, timeout: float | None = None) -> Reply:
        """A duplicate delivery: the same INTERACTION_CREATE (same id and token) once more, to the
        gateway session it was first sent to, as a RESUME replay may cause; returns once the bot
        has received it and its handler has ended. Discord never sends an interaction to a new
        session: after the bot restarted (IDENTIFY, a new session) this refuses, as a player's
        retry is a new interaction (``send_command``)."""
        record = interaction.record if isinstance(interaction, Reply) else interaction
        if record.session_id is not None and record.session_id != self._session(record).session_id:
            raise AssertionError("Discord does not deliver an interaction to a new gateway session: the bot "
                                 f"restarted since {_describe(record.payload)} was sent (a retry is a new "
                                 "interaction: send the command again)")
        await self._deliver(record, expect_answer=False, settle=True, timeout=timeout)
        return Reply(record)

    def _session(self, record: InteractionRecord) -> Gateway:
        """The gateway session (of the server's shard) an interaction is sent to."""
        return self.gateway.for_guild(record.payload.get("guild_id"))

    def _interaction(self, kind: int, data: dict[str, Any], guild: pl.GuildSpec, user_id: int | None,
                     channel_id: int | None, permissions: int | None) -> dict[str, Any]:
        user = self._user(guild, user_id)
        channel = self._channel(guild, channel_id)
        perms = pl.PLAYER_PERMISSIONS if permissions is None else permissions
        interaction_id = next(self._ids)
        return {"id": str(interaction_id), "application_id": str(self.app.id), "type": kind, "data": data,
                "token": f"emulator-{interaction_id}-{secrets.token_urlsafe(16)}", "version": 1,
                "guild_id": str(guild.id), "channel_id": str(channel.id),
                "channel": pl.channel_json(channel, guild), "member": pl.member_json(user, permissions=perms),
                "app_permissions": str(ALL_APP_PERMISSIONS), "locale": "en-US", "guild_locale": "en-US",
                "attachment_size_limit": ATTACHMENT_LIMIT, "context": 0, "entitlements": [],
                "authorizing_integration_owners": {"0": str(guild.id)}}

    def _user(self, guild: pl.GuildSpec, user_id: int | None) -> pl.UserSpec:
        if user_id is None:
            if not guild.members:
                raise AssertionError(f"guild {guild.id} has no members: pass user_id")
            return guild.members[0]
        return next((u for u in guild.members if u.id == user_id), pl.UserSpec(user_id, f"user{user_id}"))

    def _channel(self, guild: pl.GuildSpec, channel_id: int | None) -> pl.ChannelSpec:
        if channel_id is None:
            return guild.channels[0]
        found = next((c for c in guild.channels if c.id == channel_id), None)
        if found is None:
            raise AssertionError(f"guild {guild.id} has no channel {channel_id}; "
                                 f"known: {[(c.id, c.name) for c in guild.channels]}")
        return found

    def _resolved(self, guild: pl.GuildSpec, mentioned: list[tuple[int, int]]) -> dict[str, Any]:
        users, members = {}, {}
        for kind, snowflake in mentioned:
            if kind != USER:
                continue
            user = self._user(guild, snowflake)
            users[str(snowflake)] = pl.user_json(user)
            member = pl.member_json(user, permissions=pl.PLAYER_PERMISSIONS)
            member.pop("user")  # resolved members omit the user: it is in resolved.users
            members[str(snowflake)] = member
        return {"users": users, "members": members}

    async def _exchange(self, payload: dict[str, Any], *, settle: bool, timeout: float | None) -> Reply:
        record = InteractionRecord(payload=payload)
        self.interactions[record.token] = record
        self._by_id[record.id] = record
        await self._deliver(record, expect_answer=True, settle=settle, timeout=timeout)
        return Reply(record)

    async def _deliver(self, record: InteractionRecord, *, expect_answer: bool, settle: bool,
                       timeout: float | None) -> None:
        timeout = self.reply_timeout if timeout is None else timeout
        answers_before = _answers(record)
        received_before = record.deliveries_received
        # the tasks running before, only when waiting for the new ones: a scan of every task of
        # the loop at each delivery was a tenth of the end-to-end benchmark's profile
        handlers_before = _handler_tasks() if settle else set()
        record.deliveries += 1
        if record.created_at is None:  # its deadlines run from its creation, not a later delivery
            record.created_at = self.clock.now()
            record.session_id = self._session(record).session_id
        await self.gateway.dispatch("INTERACTION_CREATE", record.payload)  # to its server's shard
        what = _describe(record.payload)
        if self.receipts_tracked:
            await _wait_for(record, lambda: record.deliveries_received > received_before, timeout,
                            f"the bot never received {what}")
        if expect_answer:
            await _wait_for(record, lambda: _answers(record) > answers_before,
                            timeout, f"the bot did not answer {what} within {timeout}s")
        if settle:
            await _settle(_handler_tasks() - handlers_before, timeout, what)
        if expect_answer and record.callbacks and record.callbacks[0].type == DEFERRED_CHANNEL_MESSAGE:
            await _wait_for(record, lambda: _deferred_done(record), timeout,
                            f"the bot deferred {what} but never edited or followed up")

    def bot_received(self, interaction_id: int) -> None:
        """Called by the harness's on_interaction listener: the bot has this interaction."""
        record = self._by_id.get(interaction_id)  # found by id, not by a scan of every interaction so far
        if record is not None:
            record.deliveries_received += 1
            record.touch()


def _leaf_options(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A command's options under its subcommand (group) layers."""
    found = []
    for option in options:
        found += _leaf_options(option["options"]) if "options" in option else [option]
    return found


def _answers(record: InteractionRecord) -> int:
    """Initial responses the bot attempted: taken, refused as a second one or as late, or
    answered with an injected refusal (``fail_next``)."""
    refused_callbacks = sum(1 for path, _ in record.refused if path.endswith("/callback"))
    injected = refused_callbacks - len(record.rejected) - len(record.late)
    return len(record.callbacks) + len(record.rejected) + len(record.late) + injected


def _guild_of(payload: dict[str, Any]) -> int | None:
    return int(payload["guild_id"]) if payload.get("guild_id") else None


def _int(text: str) -> int:
    return int(text) if text.isascii() and text.isdigit() else -1


def _describe(payload: dict[str, Any]) -> str:
    data = payload.get("data") or {}
    if payload["type"] == COMPONENT:
        return f"the click on '{data.get('custom_id')}'"
    if payload["type"] == MODAL_SUBMIT:
        return f"the submission of the modal '{data.get('custom_id')}'"
    names = [data.get("name", "?")]
    options = data.get("options") or []
    while options and options[0].get("type") in (1, 2):
        names.append(options[0]["name"])
        options = options[0].get("options") or []
    kind = "autocomplete of " if payload["type"] == 4 else ""
    return f"{kind}/{' '.join(names)}"


def _message_with(message: StoredMessage | Reply, custom_id: str) -> StoredMessage:
    candidates = message.all_messages() if isinstance(message, Reply) else [message]
    for candidate in candidates:
        if custom_id in candidate.custom_ids():
            return candidate
    known = [cid for c in candidates for cid in c.custom_ids()]
    raise AssertionError(f"no component '{custom_id}' on that message; its components: {known}")


def _deferred_done(record: InteractionRecord) -> bool:
    return bool(record.followups) or (record.original is not None and record.original.edits > 0)


def _handler_tasks() -> set[asyncio.Task[Any]]:
    return {t for t in asyncio.all_tasks() if not t.done() and t.get_name().startswith(HANDLER_TASK_PREFIXES)}


async def _settle(tasks: set[asyncio.Task[Any]], timeout: float, what: str) -> None:
    """Wait for the handler tasks this interaction started (followups come after the reply)."""
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    if pending:
        raise AssertionError(f"the handler of {what} was still running after {timeout}s "
                             "(pass settle=False if it waits for a later click)")


async def _wait_for(record: InteractionRecord, done: Any, timeout: float, message: str) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not done():
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            raise AssertionError(message)
        record.changed.clear()
        if done():
            return
        try:
            await asyncio.wait_for(record.changed.wait(), remaining)
        except asyncio.TimeoutError:
            raise AssertionError(message) from None
