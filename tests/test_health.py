"""`python -m bot health`, the Docker HEALTHCHECK: 0 when the configured database opens, is at the
schema version this build migrates to and passes PRAGMA quick_check; else 1 and one line."""

from __future__ import annotations

import io
import sqlite3

from bot import cli
from bot.store import SqliteStore, migrations


def health(monkeypatch, database) -> tuple[int, str, str]:
    monkeypatch.setenv("REFEREE_DATABASE", str(database))
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["health"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


async def migrated(path):
    store = await SqliteStore.open(path)
    await store.close()
    return path


async def test_a_migrated_database_is_healthy(monkeypatch, tmp_path):
    database = await migrated(tmp_path / "referee.sqlite3")
    assert health(monkeypatch, database) == (0, f"ok: {database}\n", "")


async def test_the_check_only_reads(monkeypatch, tmp_path):
    database = await migrated(tmp_path / "referee.sqlite3")
    before = database.read_bytes()
    health(monkeypatch, database)
    assert database.read_bytes() == before


def test_a_missing_database_is_unhealthy_and_not_created(monkeypatch, tmp_path):
    database = tmp_path / "nope" / "referee.sqlite3"
    code, out, err = health(monkeypatch, database)
    assert (code, out) == (1, "")
    assert err == f"unhealthy: database {database} does not exist (the bot creates it when it starts)\n"
    assert not database.parent.exists()


def test_a_file_that_is_not_a_database_is_unhealthy(monkeypatch, tmp_path):
    database = tmp_path / "referee.sqlite3"
    database.write_bytes(b"this is not SQLite " * 100)
    code, _, err = health(monkeypatch, database)
    assert code == 1
    assert err == f"unhealthy: database {database} cannot be read: file is not a database\n"


def test_an_unmigrated_database_is_unhealthy(monkeypatch, tmp_path):
    database = tmp_path / "referee.sqlite3"
    sqlite3.connect(database).execute("CREATE TABLE t (x)").connection.close()
    code, _, err = health(monkeypatch, database)
    assert code == 1
    assert err == (f"unhealthy: database {database} is at schema version 0, this build expects "
                   f"{len(migrations())} (the bot migrates it when it starts)\n")


async def test_a_database_from_a_newer_bot_is_unhealthy(monkeypatch, tmp_path):
    database = await migrated(tmp_path / "referee.sqlite3")
    db = sqlite3.connect(database)
    db.execute(f"PRAGMA user_version = {len(migrations()) + 1}")
    db.close()
    code, _, err = health(monkeypatch, database)
    assert code == 1 and err.endswith("(a newer bot wrote it)\n")


def test_an_invalid_setting_is_refused_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("REFEREE_LOG_LEVEL", "LOUD")
    code, _, err = health(monkeypatch, tmp_path / "referee.sqlite3")
    assert code == 2 and err.startswith("referee: invalid setting REFEREE_LOG_LEVEL:")


def test_a_postgres_database_is_healthy_once_migrated_and_its_password_is_not_shown(monkeypatch, pg_dsn):
    import asyncio

    from bot.store import PostgresStore

    code, out, err = health(monkeypatch, pg_dsn)  # nothing migrated yet: the health check creates nothing
    from bot.store.postgres import pg_migrations

    assert code == 1 and (f"is at schema version 0, this build expects {len(pg_migrations())} (the bot migrates it "
                          "when it starts)") in err

    async def migrate():
        await (await PostgresStore.open(pg_dsn)).close()
    asyncio.run(migrate())
    assert health(monkeypatch, pg_dsn) == (0, f"ok: {pg_dsn}\n", "")

    unreachable = "postgresql://referee:secret-pw@/referee?host=/nonexistent-folder"
    code, _, err = health(monkeypatch, unreachable)
    assert code == 1 and "does not answer" in err and "secret-pw" not in err and "referee:***@" in err
