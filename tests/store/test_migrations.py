"""Numbered SQL migrations, applied at start-up, tested from every earlier version (DESIGN 9)."""

import sqlite3

import pytest

from bot.core.api import new_game
from bot.store import SchemaTooNew, SqliteStore, migrations
from bot.store import sqlite as sqlite_module
from bot.record.chain import GENESIS_HASH, LogEntry

LATEST = len(migrations())


def _first_entry(game):
    def make(game_id):
        return LogEntry.seal(prev_hash=GENESIS_HASH, game_id=game_id, seq=1, time="2026-01-01T00:00:00.000+00:00",
                             actor=1, command="/game new", order={"action": "new_game"}, outcome={},
                             state_hash="x")
    return make


def test_migration_files_are_numbered_from_one_without_gaps():
    assert [number for number, _, _ in migrations()] == list(range(1, LATEST + 1))
    assert migrations()[0][1] == "0001_initial.sql"


async def test_a_fresh_file_gets_every_migration_and_records_the_version(tmp_path):
    store = await SqliteStore.open(tmp_path / "deep" / "folder" / "referee.sqlite3")
    try:
        assert await store.version() == LATEST
    finally:
        await store.close()
    with sqlite3.connect(tmp_path / "deep" / "folder" / "referee.sqlite3") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "log_entries"} <= tables


async def test_the_database_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(tmp_path):
    store = await SqliteStore.open(tmp_path / "referee.sqlite3")
    try:
        db = store._db
        assert (await (await db.execute("PRAGMA journal_mode")).fetchone())[0] == "wal"
        assert (await (await db.execute("PRAGMA foreign_keys")).fetchone())[0] == 1
        assert (await (await db.execute("PRAGMA busy_timeout")).fetchone())[0] == sqlite_module.BUSY_TIMEOUT_MS
    finally:
        await store.close()


@pytest.mark.parametrize("start", range(LATEST))
async def test_upgrade_from_every_earlier_version_keeps_the_games(tmp_path, start):
    path = tmp_path / "referee.sqlite3"
    old = await SqliteStore.open(path, upto=start)
    game = new_game("asl", sides=["Germans", "Russians"], gm=1)
    try:
        assert await old.version() == start
        if start >= 1:  # a version with the games table: keep a game across the upgrade
            await old.create_game(10, 7, game, _first_entry(game))
    finally:
        await old.close()
    store = await SqliteStore.open(path)
    try:
        assert await store.version() == LATEST
        if start >= 1:
            assert (await store.load_active(10)).game == game
    finally:
        await store.close()


async def test_a_newer_schema_than_the_bot_knows_is_refused(tmp_path):
    path = tmp_path / "referee.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {LATEST + 1}")
    with pytest.raises(SchemaTooNew, match=f"schema version {LATEST + 1}, newer than this bot"):
        await SqliteStore.open(path)


async def test_a_failing_migration_is_rolled_back_whole_with_its_version(tmp_path, monkeypatch):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for number, name, sql in migrations():
        (folder / name).write_text(sql)
    broken = f"{LATEST + 1:04d}_broken.sql"
    (folder / broken).write_text("CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n")
    monkeypatch.setattr(sqlite_module, "MIGRATIONS_DIR", folder)
    path = tmp_path / "referee.sqlite3"
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        await SqliteStore.open(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0] == 0


def test_a_misnamed_migration_file_is_reported(tmp_path, monkeypatch):
    (tmp_path / "1_initial.sql").write_text("SELECT 1;")
    monkeypatch.setattr(sqlite_module, "MIGRATIONS_DIR", tmp_path)
    with pytest.raises(RuntimeError, match="1_initial.sql is not named NNNN_name.sql"):
        migrations()
