"""The away table (issue 27 item 3: /away), on a database older than it: the v0010 fixture (made by
make_fixtures.py with the code of schema 10) upgraded in place, its players' games still listed,
the away of a player kept and read back; on PostgreSQL, a store held at schema 5 upgraded the same."""

import shutil
from pathlib import Path

from bot.store import Away, SqliteStore

AWAY = Away(100, "2026-01-01T00:00:00.000+00:00", "2026-01-05T00:00:00.000+00:00", "holidays")


async def test_the_schema_10_fixture_upgrades_with_an_empty_away_table_and_keeps_an_away(tmp_path):
    path = tmp_path / "v0010.sqlite3"
    shutil.copy(Path(__file__).with_name("fixtures") / "v0010.sqlite3", path)
    store = await SqliteStore.open(path)
    try:
        assert await store.version() == 11
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
