"""The away and notify tables (issue 27 items 3 and 5: /away, /notify) on a database older than them:
the v0010 and v0011 fixtures (made by make_fixtures.py with the code of schemas 10 and 11) upgraded in
place, their players' games still listed, an away and a choice of DMs kept and read back; a store held
before each table reads none; both stores upgraded from the schema before."""

import shutil
from pathlib import Path

from bot.store import Away, SqliteStore, migrations

LATEST = len(migrations())

AWAY = Away(100, "2026-01-01T00:00:00.000+00:00", "2026-01-05T00:00:00.000+00:00", "holidays")


async def test_the_schema_10_fixture_upgrades_with_an_empty_away_table_and_keeps_an_away(tmp_path):
    path = tmp_path / "v0010.sqlite3"
    shutil.copy(Path(__file__).with_name("fixtures") / "v0010.sqlite3", path)
    store = await SqliteStore.open(path)
    try:
        assert await store.version() == LATEST
        games = await store.player_games(100)  # the fixture's alice: her games through the seats index
        assert games
        assert await store.aways([100, 200]) == {}
        await store.set_away(AWAY)
        assert await store.aways([100]) == {100: AWAY}
    finally:
        await store.close()
    store = await SqliteStore.open(path)  # kept across a restart
    try:
        assert await store.aways([100]) == {100: AWAY}
    finally:
        await store.close()


async def test_a_store_held_before_the_away_table_reads_no_away(tmp_path):
    store = await SqliteStore.open(tmp_path / "old.sqlite3", upto=10)
    try:
        assert await store.aways([100]) == {}
    finally:
        await store.close()


async def test_an_older_database_gets_the_away_table_at_the_upgrade(store_database):
    """On both stores: a database held at the schema before the away table reads none, then upgrades."""
    from bot.store import PostgresStore, is_postgres, open_store
    from bot.store.postgres import AWAY_SCHEMA as PG_AWAY
    from bot.store.sqlite import AWAY_SCHEMA

    postgres = is_postgres(str(store_database))
    kind = PostgresStore if postgres else SqliteStore
    old = await kind.open(store_database, upto=(PG_AWAY if postgres else AWAY_SCHEMA) - 1)
    try:
        assert await old.aways([100]) == {}
    finally:
        await old.close()
    store = await open_store(store_database)
    try:
        await store.set_away(AWAY)
        assert await store.aways([100, 200]) == {100: AWAY}
    finally:
        await store.close()


async def test_the_schema_11_fixture_upgrades_with_an_empty_notify_table(tmp_path):
    path = tmp_path / "v0011.sqlite3"
    shutil.copy(Path(__file__).with_name("fixtures") / "v0011.sqlite3", path)
    store = await SqliteStore.open(path)
    try:
        assert await store.version() == LATEST
        assert await store.dm_users([100, 200]) == set()
        await store.set_notify(100, True)
        assert await store.dm_users([100, 200]) == {100}
    finally:
        await store.close()
    old = await SqliteStore.open(tmp_path / "old.sqlite3", upto=11)
    try:
        assert await old.dm_users([100]) == set()  # a store held before the notify table: nobody by DM
    finally:
        await old.close()


async def test_an_older_database_gets_the_notify_table_at_the_upgrade(store_database):
    from bot.store import PostgresStore, is_postgres, open_store
    from bot.store.postgres import NOTIFY_SCHEMA as PG_NOTIFY
    from bot.store.sqlite import NOTIFY_SCHEMA

    postgres = is_postgres(str(store_database))
    kind = PostgresStore if postgres else SqliteStore
    old = await kind.open(store_database, upto=(PG_NOTIFY if postgres else NOTIFY_SCHEMA) - 1)
    try:
        assert await old.dm_users([100]) == set()
    finally:
        await old.close()
    store = await open_store(store_database)
    try:
        await store.set_notify(100, True)
        assert await store.dm_users([100, 200]) == {100}
    finally:
        await store.close()
