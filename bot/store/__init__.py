"""Persistence: games and their hash-chained logs behind a small interface (``Store``).

``SqliteStore`` is the implementation used today; ``bot.service.Referee`` is its only caller.
"""

from .base import (MAX_LOG_ENTRIES, ActiveGameExists, DuplicateInteraction, LogFull, QuietGame, SchemaTooNew,
                   StaleGame, Store, StoredGame, StoreError, UndoRequest)
from .chain import GENESIS_HASH, LogEntry, canonical_json, consumed_dice, state_hash
from .sqlite import SqliteStore, migrations

__all__ = [
    "GENESIS_HASH", "MAX_LOG_ENTRIES", "ActiveGameExists", "DuplicateInteraction", "LogEntry", "LogFull",
    "QuietGame", "SchemaTooNew", "SqliteStore", "StaleGame", "Store", "StoreError", "StoredGame", "UndoRequest",
    "canonical_json", "consumed_dice", "migrations", "state_hash",
]
