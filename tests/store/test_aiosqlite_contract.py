"""What the store relies on in aiosqlite that is not its public API (bot/store/sqlite.py,
``SqliteStore._on_thread``): ``Connection._execute(fn)`` runs ``fn`` on the connection's own
thread, queued behind the calls before it, and returns its result; ``Connection._conn`` is the
sqlite3 connection that thread uses. pyproject.toml pins aiosqlite exactly for this; raising the
pin means running these first."""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
import threading
import tomllib
from importlib.metadata import version
from pathlib import Path

import aiosqlite
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def test_aiosqlite_is_the_exact_version_pinned():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [pin] = [Requirement(d) for d in deps if Requirement(d).name == "aiosqlite"]
    [spec] = pin.specifier
    assert spec.operator == "==" and version("aiosqlite") == spec.version


async def test_execute_runs_a_function_on_the_connections_thread_in_order(tmp_path):
    assert inspect.iscoroutinefunction(aiosqlite.Connection._execute)
    db = await aiosqlite.connect(str(tmp_path / "contract.sqlite3"), isolation_level=None)
    try:
        assert isinstance(db._conn, sqlite3.Connection)
        seen: list[tuple[int, str]] = []

        def work(tag: str) -> str:
            seen.append((threading.get_ident(), tag))
            return db._conn.execute("SELECT ?", (tag,)).fetchone()[0]

        results = await asyncio.gather(db._execute(work, "a"), db._execute(lambda: work("b")), db.execute("SELECT 1"))
        assert results[:2] == ["a", "b"] and [tag for _, tag in seen] == ["a", "b"]
        assert {ident for ident, _ in seen} != {threading.get_ident()}  # not the event loop's thread
        assert len({ident for ident, _ in seen}) == 1  # one thread: the connection's
    finally:
        await db.close()
