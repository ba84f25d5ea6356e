"""Storage faults (issue 17, finding 5), with the real bot on a real SQLite file:

- the disk full: nothing saved and nothing lost, one clear private message per refused order,
  one log line (not a traceback per command), and the bot goes on once there is room;
- another process holding the write lock for longer than SQLite's 5 s wait: the write is tried
  again with growing pauses off the database thread, and reads in other channels go on meanwhile;
- a database file that cannot serve at start-up (garbage, damaged, truncated, read-only): one
  line naming the file and what to do, and a non-zero exit, before the token is sent anywhere.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import bot.store.sqlite as sqlite_store
from tests.cogs.conftest import ALICE, GENERAL, GM
from tests.reliability.audit import FULL, audit_database
from tests.reliability.test_limits import asl_table
from tests.store.helpers import asl_squad

ROOT = Path(__file__).resolve().parents[2]
# manual dice that pass the morale check: with the bot's own dice the unit could break and be
# eliminated by chance, and an order on it refused by the rules instead (seen in CI: flaky)
PASSING = "2 3"


@pytest.fixture
def logged_lines(caplog):
    caplog.set_level(logging.INFO)
    return caplog


def errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def tracebacks(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info]


async def total(table, channel=None) -> int:
    return (await table.bot.referee.log(channel or table.channel)).total


# --- the disk full -------------------------------------------------------------------------


async def test_a_full_disk_refuses_orders_clearly_loses_nothing_and_logs_one_line(table, logged_lines):
    await asl_table(table)
    before, game = await total(table), await table.game()
    db = table.bot.store._db
    async with db.execute("PRAGMA page_count") as cursor:
        pages = (await cursor.fetchone())[0]
    await db.execute(f"PRAGMA max_page_count = {pages}")  # the database may not grow: SQLite says SQLITE_FULL
    for _ in range(6):  # the log's last page may still hold an entry or two: play until the disk is full
        reply = await table.send("morale", {"unit": "A0", "dice": PASSING}, user=ALICE)
        if reply.ephemeral:
            break
        before, game = await total(table), await table.game()
    else:
        raise AssertionError("the database never filled up")
    for unit in ("A0", "A1", "A0"):
        reply = await table.send("morale", {"unit": unit, "dice": PASSING}, user=ALICE)
        assert reply.ephemeral and reply.content == (
            "The bot's disk is full, so this order was not saved (nothing changed). The bot's host has been told; "
            "give the order again once there is room."), (unit, reply.content, reply.embeds)  # seen once: empty
    assert await total(table) == before and await table.game() == game
    assert errors(logged_lines) == ["storage: the disk holding the database is full; 1 command(s) refused, "
                                    "nothing of them saved (said once a minute at most)"]
    assert tracebacks(logged_lines) == []
    await db.execute("PRAGMA max_page_count = 1073741823")  # room again: the bot goes on
    reply = await table.send("morale", {"unit": "A0", "dice": PASSING}, user=ALICE)
    assert reply.embeds[0]["footer"]["text"].startswith(f"log #{before + 1} · ")
    await audit_database(table.database)


# --- a write lock held by another process ----------------------------------------------------


async def until(found, timeout: float):
    """``found()``'s first true value, polled: waiting for the event itself, at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := found()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)
    return value


def hold_write_lock(database: Path, seconds: float) -> subprocess.Popen:
    """Another process (a backup tool, say) takes the database's write lock for ``seconds``."""
    script = ("import sqlite3, sys, time\n"
              "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
              "db.execute('BEGIN IMMEDIATE')\n"
              "print('locked', flush=True)\n"
              "time.sleep(float(sys.argv[2]))\n"
              "db.execute('COMMIT')\n")
    holder = subprocess.Popen([sys.executable, "-c", script, str(database), str(seconds)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


async def test_a_lock_held_past_five_seconds_is_waited_out_and_other_channels_read_meanwhile(table, logged_lines):
    # before: one wait of 5 s on the one database thread; the order failed after 5.03 s and
    # every other channel's reads queued behind it
    await asl_table(table)
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians", "options": "manual_dice=all"},
                      channel=GENERAL)
    before = await total(table)
    held = 5.5
    holder = hold_write_lock(table.database, held)
    locked_until = time.monotonic() + held  # the holder sleeps this long after taking the lock, at least
    try:
        started = time.monotonic()
        known = set(table.fake.interactions)
        order = asyncio.create_task(table.send("morale", {"unit": "A0", "dice": PASSING}, user=ALICE, timeout=30))
        # the order waiting for the lock: deferred ("thinking...") after 1.5 s of waiting, not merely sent a while ago
        record = await until(lambda: next((r for token, r in table.fake.interactions.items()
                                           if token not in known and r.callbacks), None), timeout=held)
        assert record.payload["data"]["name"] == "morale"
        answered_while_locked = 0
        for _ in range(5):  # reads in another channel, while the write waits
            status = await table.send("game status", channel=GENERAL)
            assert status.embeds
            if time.monotonic() < locked_until:
                # answered while the lock was still held: not queued behind the waiting write (was: ~5 s)
                answered_while_locked += 1
                assert not order.done()
        reply = await order
        waited = time.monotonic() - started
    finally:
        holder.wait(10)
    # each read before the lock's end was answered then; on a machine too loaded for even one, nothing is proven
    assert answered_while_locked >= 1
    assert waited > 5.0, waited  # the order waited the lock out (the old busy timeout gave up at 5 s)
    if FULL:
        assert waited < 15, waited
    # saved once the lock was free; the order was deferred ("thinking...") while it waited, within
    # Discord's 3 s (bot.replies.defer_when_slow), and its result edited into that message: nothing late,
    # nothing posted to the channel instead
    assert await total(table) == before + 1
    assert reply.deferred and not reply.record.late and not reply.record.rejected
    assert reply.embeds[0]["footer"]["text"].startswith(f"log #{before + 1} · ")
    assert [m for m in table.fake.channel_messages(table.channel) if m.payload["type"] == 0] == []
    assert errors(logged_lines) == [] and tracebacks(logged_lines) == []


async def test_a_lock_held_past_every_retry_refuses_the_order_with_one_line(table, logged_lines, monkeypatch):
    await asl_table(table)
    before = await total(table)
    monkeypatch.setattr(sqlite_store, "LOCK_RETRY_SECONDS", 0.8)
    # the lock held past the retries with room for this machine: 2.5 s, or twenty command round trips
    # measured now if more (a loaded machine delivered the order late enough to find the lock free)
    asked = time.monotonic()
    await table.send("game status")
    holder = hold_write_lock(table.database, max(2.5, 0.8 + 20 * (time.monotonic() - asked)))
    try:
        reply = await table.send("morale", {"unit": "A0", "dice": PASSING}, user=ALICE)
    finally:
        holder.wait(10)
    assert reply.ephemeral and reply.content.startswith(
        "The game's database is busy with another program (a backup?), so this order was not saved")
    assert await total(table) == before
    assert len(errors(logged_lines)) == 1 and "another program holds the database's write lock" in errors(logged_lines)[0]
    assert tracebacks(logged_lines) == []
    assert (await table.send("morale", {"unit": "A0", "dice": PASSING}, user=ALICE)).embeds  # and on it goes


# --- a database that cannot serve at start-up ---------------------------------------------------


def start_bot(database: Path, tmp_path: Path, *, user: int | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "DISCORD_"))}
    env.update(REFEREE_TOKEN="not-sent-anywhere", REFEREE_DATABASE=str(database), HOME=str(tmp_path))
    return subprocess.run([sys.executable, "-m", "bot", "run"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, user=user)


def a_real_database(path: Path) -> Path:
    """A bot database with a game and enough rows to span many pages."""
    async def make() -> None:
        from bot.service import Referee

        store = await sqlite_store.SqliteStore.open(path)
        try:
            referee = Referee(store)
            await referee.new_game(1, 1, _gm(), "asl", ["Germans", "Russians"])
            for i in range(60):
                await referee.act(1, _gm(), asl_squad(f"U{i}", 0, None), command="/unit add")
        finally:
            await store.close()

    asyncio.run(make())
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def _gm():
    from bot.service import Actor

    return Actor(GM, is_manager=True)


def damaged_page(path: Path) -> Path:
    data = bytearray(path.read_bytes())
    page = 4096
    data[5 * page:5 * page + 16] = b"\xff" * 16  # one b-tree page's header, mid-file
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("make, problem, advice", [
    (lambda p: (p.write_bytes(b"these are my notes, not a database\n" * 200), p)[1],
     "is not an SQLite database", "set REFEREE_DATABASE to the bot's database"),
    (lambda p: damaged_page(a_real_database(p)), "is damaged (", "restore it from a backup"),
    (lambda p: (p.write_bytes(a_real_database(p).read_bytes()[:40_000]), p)[1], "is damaged (", "restore it"),
], ids=["garbage", "malformed-page", "truncated"])
def test_a_database_that_cannot_serve_stops_the_start_with_one_line(tmp_path, make, problem, advice):
    database = make(tmp_path / "referee.sqlite3")
    result = start_bot(database, tmp_path)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if "ERROR" in line]
    assert f"database {database} {problem}" in line and advice in line, line


OTHER_USER = 65534  # nobody: the bot's user in the read-only test


def cannot_run_as(user: int, python: str = sys.executable) -> str | None:
    """Why ``user`` cannot start the bot from the checkout with ``python`` (as ``start_bot`` does), or
    None when it can: a fresh clone in a folder other users cannot enter (root's own home, a
    ``mktemp -d`` folder) leaves them neither its ``.venv/bin/python`` nor the checkout."""
    try:
        done = subprocess.run([python, "-c", "import bot.app"], cwd=ROOT, user=user, capture_output=True,
                              text=True, timeout=60)
    except PermissionError as exc:
        return (f"user {user} cannot run {python} ({exc.strerror}): the checkout is in a folder other users "
                "cannot enter")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"user {user} cannot start the bot from {ROOT} with {python}: {last}"
    return None


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="runs the bot as another user (root only)")
def test_a_read_only_database_stops_the_start_with_one_line(tmp_path):
    if (reason := cannot_run_as(OTHER_USER)) is not None:
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="referee-ro-"))  # reachable by the bot's user (tmp_path is not)
    try:
        database = a_real_database(folder / "referee.sqlite3")
        folder.chmod(0o755)  # the folder and the file stay root's: read-only for the bot's user
        database.chmod(0o644)
        result = start_bot(database, folder, user=OTHER_USER)
    finally:
        shutil.rmtree(folder)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if "ERROR" in line]
    assert f"database {database} " in line and "the bot's user" in line, line


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="runs as another user (root only)")
def test_a_checkout_other_users_cannot_enter_is_said_so_and_not_a_permission_error(tmp_path):
    private = tmp_path / "clone" / ".venv" / "bin"  # a fresh clone in a folder only its owner enters
    private.mkdir(parents=True)
    (tmp_path / "clone").chmod(0o700)
    python = private / "python"
    python.symlink_to(sys.executable)
    reason = cannot_run_as(OTHER_USER, str(python))
    assert reason == (f"user {OTHER_USER} cannot run {python} (Permission denied): the checkout is in a folder other "
                      "users cannot enter")


def test_quick_check_finds_a_damaged_page_at_start_up(tmp_path):
    database = damaged_page(a_real_database(tmp_path / "referee.sqlite3"))
    with pytest.raises(sqlite_store.DatabaseUnusable, match="is damaged"):
        asyncio.run(sqlite_store.SqliteStore.open(database))
