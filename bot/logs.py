"""Logging: one format for the bot, discord.py and aiosqlite, tagged with the interaction.

Every line logged while a slash command is being handled carries "[interaction 1234]", so an
error reported by a player ("reference: 1234") can be found in the log with one grep. The id
lives in a ContextVar: each command runs in its own asyncio task, which copies the context, so
two commands handled at the same time never see each other's id.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

current_interaction: ContextVar[int | None] = ContextVar("current_interaction", default=None)

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(interaction)s%(message)s"
_HANDLER_NAME = "referee"


class InteractionFilter(logging.Filter):
    """Adds ``record.interaction``: "[interaction 1234] " during a command, "" otherwise."""

    def filter(self, record: logging.LogRecord) -> bool:
        interaction_id = current_interaction.get()
        record.interaction = f"[interaction {interaction_id}] " if interaction_id is not None else ""
        return True


@contextmanager
def interaction_context(interaction_id: int | None) -> Iterator[None]:
    """Tag every line logged inside the block with ``interaction_id``."""
    token = current_interaction.set(interaction_id)
    try:
        yield
    finally:
        current_interaction.reset(token)


def setup_logging(level: int | str = logging.INFO, *, stream: TextIO | None = None) -> logging.Handler:
    """Configure the root logger once; calling it again replaces our handler, never doubles it."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == _HANDLER_NAME:
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    # the filter sits on the handler, not a logger, so it also tags discord.py's own records
    handler.addFilter(InteractionFilter())
    handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    root.setLevel(level)
    # discord.py's HTTP layer logs every rate-limit bucket at DEBUG; keep it at INFO unless asked
    logging.getLogger("discord.http").setLevel(max(root.level, logging.INFO))
    # the bot never joins a voice channel: discord.py's warnings that voice libraries are missing
    # would be the first lines a host reads at every start
    client_log = logging.getLogger("discord.client")
    if not any(isinstance(f, _NoVoiceWarnings) for f in client_log.filters):
        client_log.addFilter(_NoVoiceWarnings())
    return handler


class _NoVoiceWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "voice will NOT be supported" not in record.getMessage()
