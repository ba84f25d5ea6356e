"""The log's meaning, apart from any database: the hash chain (``chain``), and the replay and
verification of a game's entries (``replay``). Every store (SQLite, PostgreSQL) saves and reads
the entries these modules define; none of them re-implements what an entry means."""

from .chain import GENESIS_HASH, LogEntry, canonical_json, consumed_dice, sealed_state, state_hash

__all__ = ["GENESIS_HASH", "LogEntry", "canonical_json", "consumed_dice", "sealed_state", "state_hash"]
