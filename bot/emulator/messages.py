"""Messages the bot posts: read from JSON or multipart bodies, stored, edited, served back.

discord.py sends ``payload_json`` plus ``files[n]`` parts when a message carries files, and
plain JSON otherwise; both arrive here as (payload, files). As on Discord, the ``n`` of a part's
name pairs it with the ``attachments`` entry of id ``n``, and an attachment's ``content_type`` is the
file's type (from its name, when the upload says only ``application/octet-stream``, as discord.py's
does), with its ``width`` and ``height`` when it is an image.
"""

from __future__ import annotations

import io
import itertools
import json
import mimetypes
import re
from typing import Any, Iterator

from aiohttp import web

from bot.emulator.payloads import AppSpec, now_iso, user_json
from bot.emulator.records import SentFile, StoredMessage

# message fields the bot may set or edit; anything else in a body is ignored, as Discord does
EDITABLE = ("content", "embeds", "components", "flags", "allowed_mentions", "tts", "poll")
DEFAULT_TYPE, REPLY_TO_COMMAND = 0, 20


async def read_body(request: web.Request) -> tuple[dict[str, Any], list[SentFile]]:
    """The JSON payload and the files of a request, whichever way it was sent."""
    if request.content_type.startswith("multipart/"):
        return await _read_multipart(request)
    raw = await request.read()
    return (json.loads(raw) if raw else {}), []


_FILE_PART = re.compile(r"^files\[([0-9]{1,2})\]$")


async def _read_multipart(request: web.Request) -> tuple[dict[str, Any], list[SentFile]]:
    """The payload and the files, each file at the index its part's name gives (``files[n]``);
    a part named otherwise is put after them, in the order it came."""
    payload: dict[str, Any] = {}
    numbered: dict[int, SentFile] = {}
    unnumbered: list[SentFile] = []
    reader = await request.multipart()
    async for part in reader:
        data = await part.read()
        if part.name == "payload_json":
            payload = json.loads(data)
            continue
        sent = SentFile(part.filename or part.name or "file", part.headers.get("Content-Type"), bytes(data))
        index = _FILE_PART.match(part.name or "")
        if index and int(index.group(1)) not in numbered:
            numbered[int(index.group(1))] = sent
        else:
            unnumbered.append(sent)
    files = [numbered[i] for i in sorted(numbered)]
    return payload, files + unnumbered


class MessageStore:
    """Every message by id, and each channel's messages in the order they were posted."""

    def __init__(self, app: AppSpec, ids: Iterator[int], base_url: str):
        self.app = app
        self._ids = ids
        self.base_url = base_url  # where attachments are served from
        self.by_id: dict[int, StoredMessage] = {}
        self.by_channel: dict[int, list[StoredMessage]] = {}

    def create(self, channel_id: int, body: dict[str, Any], files: list[SentFile], *,
               guild_id: int | None, kind: int = DEFAULT_TYPE, extra_flags: int = 0) -> StoredMessage:
        message_id = next(self._ids)
        payload = {"id": str(message_id), "type": kind, "channel_id": str(channel_id),
                   "author": user_json(self.app.bot_user), "content": "", "embeds": [], "components": [],
                   "attachments": [], "mentions": [], "mention_roles": [], "mention_everyone": False,
                   "pinned": False, "tts": False, "timestamp": now_iso(), "edited_timestamp": None,
                   "flags": 0, "application_id": str(self.app.id)}
        if guild_id is not None:
            payload["guild_id"] = str(guild_id)
        if kind == REPLY_TO_COMMAND:
            payload["webhook_id"] = str(self.app.id)
        message = StoredMessage(message_id, channel_id, payload)
        self._apply(message, body, files)
        message.payload["flags"] = int(message.payload.get("flags") or 0) | extra_flags
        self.by_id[message_id] = message
        self.by_channel.setdefault(channel_id, []).append(message)
        return message

    def edit(self, message: StoredMessage, body: dict[str, Any], files: list[SentFile]) -> StoredMessage:
        self._apply(message, body, files)
        message.payload["edited_timestamp"] = now_iso()
        message.edits += 1
        return message

    def delete(self, message: StoredMessage) -> None:
        message.deleted = True

    def _apply(self, message: StoredMessage, body: dict[str, Any], files: list[SentFile]) -> None:
        for key in EDITABLE:
            if key in body and body[key] is not None:
                message.payload[key] = body[key]
        if "attachments" in body or files:
            self._attach(message, body.get("attachments"), files)

    def _attach(self, message: StoredMessage, listed: list[dict[str, Any]] | None,
                files: list[SentFile]) -> None:
        """Keep the listed existing attachments, and add one per uploaded file (``files[n]``
        pairs with the listed entry whose id is n)."""
        listed = listed if listed is not None else [{"id": i} for i in range(len(files))]
        kept = {a["id"]: a for a in message.payload.get("attachments") or []}
        kept_files = {a["id"]: f for a, f in zip(message.payload.get("attachments") or [], message.files)}
        attachments, stored_files = [], []
        for entry in listed:
            key = str(entry.get("id"))
            if key in kept:  # an attachment the message already had, kept by the edit
                attachments.append(kept[key])
                stored_files.append(kept_files[key])
                continue
            index = int(entry.get("id", len(stored_files)))
            if index >= len(files):
                continue
            sent = files[index]
            attachments.append(self._attachment_json(message.id, sent, entry.get("description")))
            stored_files.append(sent)
        message.payload["attachments"] = attachments
        message.files = stored_files

    def _attachment_json(self, message_id: int, sent: SentFile, description: str | None) -> dict[str, Any]:
        attachment_id = next(self._ids)
        url = f"{self.base_url}/attachments/{message_id}/{attachment_id}/{sent.filename}"
        content_type = sent.content_type
        if content_type in (None, "application/octet-stream"):
            content_type = mimetypes.guess_type(sent.filename)[0] or content_type
        data: dict[str, Any] = {"id": str(attachment_id), "filename": sent.filename, "size": len(sent.data),
                                "url": url, "proxy_url": url, "content_type": content_type}
        if content_type and content_type.startswith("image/"):
            data |= _image_size(sent.data)
        if description:
            data["description"] = description
        return data

    def file_for(self, message_id: int, attachment_id: str) -> SentFile | None:
        message = self.by_id.get(message_id)
        if message is None:
            return None
        for attachment, sent in zip(message.attachments, message.files):
            if attachment["id"] == attachment_id:
                return sent
        return None


def _image_size(data: bytes) -> dict[str, int]:
    """An image attachment's width and height, as Discord gives them (none when it is not one)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return {"width": image.width, "height": image.height}
    except (UnidentifiedImageError, OSError):
        return {}


DISCORD_EPOCH_MS = 1_420_070_400_000  # 2015-01-01, where Discord's snowflakes count from


def snowflakes(start: int = 1_100_000_000_000_000_001) -> Iterator[int]:
    """Deterministic, increasing ids: a test's ids do not depend on the clock."""
    return itertools.count(start)


def time_snowflake(now_ms: int | None = None) -> int:
    """An id as Discord makes them, from the time (ms since 2015 in the high bits): ids of a
    later session are larger than any of an earlier one, as interaction ids on Discord are. A
    sandbox on a kept database starts here, so no id of an earlier session comes back."""
    import time

    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    return (now_ms - DISCORD_EPOCH_MS) << 22
