"""What the fake Discord remembers: messages, files, interaction callbacks, and the Reply a
test reads back after sending a command."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from bot.emulator.payloads import EPHEMERAL

# interaction callback types (Discord's InteractionResponseType)
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9


@dataclass(frozen=True)
class SentFile:
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class StoredMessage:
    """A message the bot posted, as the fake serves it; edits change it in place, so a Reply
    a test holds always shows the message's latest state."""

    id: int
    channel_id: int
    payload: dict[str, Any]  # the message object answered to the client
    files: list[SentFile] = field(default_factory=list)
    deleted: bool = False
    edits: int = 0

    @property
    def content(self) -> str:
        return self.payload.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.payload.get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.payload.get("components") or []

    @property
    def flags(self) -> int:
        return int(self.payload.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def attachments(self) -> list[dict[str, Any]]:
        return self.payload.get("attachments") or []

    def custom_ids(self) -> list[str]:
        """Every custom_id in the message's components, rows and nested containers included."""
        found: list[str] = []

        def walk(items: list[dict[str, Any]]) -> None:
            for item in items:
                if "custom_id" in item:
                    found.append(item["custom_id"])
                walk(item.get("components") or [])
                if isinstance(item.get("accessory"), dict):
                    walk([item["accessory"]])

        walk(self.components)
        return found


@dataclass(frozen=True)
class Callback:
    """One POST to /interactions/{id}/{token}/callback: its type and its data."""

    type: int
    data: dict[str, Any]
    files: tuple[SentFile, ...] = ()


@dataclass
class InteractionRecord:
    """Everything the bot did with one interaction token."""

    payload: dict[str, Any]  # the INTERACTION_CREATE data sent to the bot
    callbacks: list[Callback] = field(default_factory=list)
    rejected: list[Callback] = field(default_factory=list)  # callbacks after the first (400, 40060)
    late: list[Callback] = field(default_factory=list)  # initial responses past the 3 s deadline (404, 10062)
    original: StoredMessage | None = None
    followups: list[StoredMessage] = field(default_factory=list)
    deliveries: int = 0  # INTERACTION_CREATEs sent (a duplicate delivery adds one)
    deliveries_received: int = 0  # ... that the bot reported receiving (harness-tracked)
    created_at: float | None = None  # Discord's clock when it was first dispatched (its deadlines start)
    answered_at: float | None = None  # ... when its initial response was taken (load tests time it)
    session_id: str | None = None  # the gateway session it was first dispatched to
    refused: list[tuple[str, int]] = field(default_factory=list)  # (path, code) of every answer refused
    modal_submitted: bool = False  # the modal it was answered with was submitted (once: Discord closes it)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def token(self) -> str:
        return self.payload["token"]

    def all_messages(self) -> list[StoredMessage]:
        return ([self.original] if self.original else []) + list(self.followups)

    def touch(self) -> None:
        """Wake whoever waits on this interaction; they re-check what they wait for."""
        self.changed.set()


@dataclass
class Reply:
    """What a test reads back: the callback, the message it made (edited in place when
    deferred) and the followups. ``content``/``embeds``/... read the original message."""

    record: InteractionRecord

    @property
    def type(self) -> int | None:
        return self.record.callbacks[0].type if self.record.callbacks else None

    @property
    def callback(self) -> Callback | None:
        return self.record.callbacks[0] if self.record.callbacks else None

    @property
    def message(self) -> StoredMessage | None:
        return self.record.original

    @property
    def followups(self) -> list[StoredMessage]:
        return self.record.followups

    @property
    def deferred(self) -> bool:
        return self.type in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE)

    @property
    def content(self) -> str:
        return self.message.content if self.message else ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.message.embeds if self.message else []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.message.components if self.message else []

    @property
    def ephemeral(self) -> bool:
        if self.message is not None:
            return self.message.ephemeral
        return bool(self.callback and int(self.callback.data.get("flags") or 0) & EPHEMERAL)

    @property
    def files(self) -> list[SentFile]:
        return self.message.files if self.message else []

    @property
    def choices(self) -> list[dict[str, Any]]:
        """The autocomplete choices (type 8 callbacks)."""
        if self.type != AUTOCOMPLETE_RESULT or self.callback is None:
            return []
        return list(self.callback.data.get("choices") or [])

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.callback.data if self.type == MODAL and self.callback else None

    def all_messages(self) -> list[StoredMessage]:
        """The original (if any) then the followups, in the order the bot sent them."""
        return self.record.all_messages()
