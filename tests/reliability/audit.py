"""What every reliability test checks at the end: the database file is whole and every game's
log verifies (the hash chain links, each entry replays to the result and state it recorded, and
the saved state is the replay of the log).

Read from the file itself, with a fresh store, the way a restarted bot would see it.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from bot.record import GENESIS_HASH
from bot.store import is_postgres, open_store
from bot.record.replay import ChainVerifier

FULL = os.environ.get("REFEREE_FULL_RELIABILITY") == "1"


def size(default: int, full: int) -> int:
    """A test's size: reduced in the default run (CI), full with REFEREE_FULL_RELIABILITY=1."""
    return full if FULL else default


@dataclass
class Audit:
    games: int = 0
    entries: int = 0
    entries_by_channel: dict[int, int] = field(default_factory=dict)
    by_interaction: dict[int, tuple[int, int]] = field(default_factory=dict)  # id -> (game id, seq)

    @property
    def interaction_ids(self) -> set[int]:
        return set(self.by_interaction)


def integrity_check(path: Path) -> None:
    with sqlite3.connect(path) as db:
        result = db.execute("PRAGMA integrity_check").fetchall()
        foreign = db.execute("PRAGMA foreign_key_check").fetchall()
    assert result == [("ok",)], f"integrity_check: {result}"
    assert foreign == [], f"foreign_key_check: {foreign}"


def check_links(game_id: int, entries: list, head_hash: str, last_seq: int) -> None:
    """The hash chain alone (no replay): contiguous seqs, each entry's hash over its content,
    each linking to the one before, the game row pointing at the last."""
    prev = GENESIS_HASH
    for expected_seq, entry in enumerate(entries, start=1):
        assert entry.seq == expected_seq, f"game {game_id}: entry #{expected_seq} is missing"
        assert entry.prev_hash == prev, f"game {game_id}: entry #{entry.seq} does not link to the one before"
        assert entry.expected_hash() == entry.hash, f"game {game_id}: entry #{entry.seq} does not match its hash"
        prev = entry.hash
    assert (last_seq, head_hash) == (len(entries), prev), \
        f"game {game_id}: the game row does not point at its last entry"


async def audit_database(path: Path | str, *, replay: bool = True) -> Audit:
    """integrity_check (an SQLite file), then verify every game (active and ended) from entry 1;
    return what it saw. ``replay=False`` checks the hash chain only, not that today's rules
    reproduce each entry. ``path`` may be a PostgreSQL DSN: the server keeps its own integrity."""
    if not is_postgres(path):
        integrity_check(Path(path))
    audit = Audit()
    store = await open_store(path)
    try:
        for game_id in await store.game_ids():
            stored = await store.load_game(game_id)
            if not replay:
                entries = [entry async for entry in store.iter_entries(game_id)]
                check_links(game_id, entries, stored.head_hash, stored.last_seq)
                audit.games += 1
                audit.entries += len(entries)
                continue
            verifier = ChainVerifier()
            async for entry in store.iter_entries(game_id):
                problem = verifier.check(entry)
                assert problem is None, f"game {game_id}: entry #{problem.seq}: {problem.reason}"
                if entry.interaction_id is not None:
                    assert entry.interaction_id not in audit.by_interaction, \
                        f"interaction {entry.interaction_id} logged twice"
                    audit.by_interaction[entry.interaction_id] = (game_id, entry.seq)
            problem = verifier.finish(stored)
            assert problem is None, f"game {game_id}: {problem.reason}"
            audit.games += 1
            audit.entries += verifier.checked
            audit.entries_by_channel[stored.channel_id] = (audit.entries_by_channel.get(stored.channel_id, 0)
                                                           + verifier.checked)
    finally:
        await store.close()
    return audit
