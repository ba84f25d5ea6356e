"""Shared set-up for the store and service tests: actors, set-up orders and games. The rolling
orders they give are the rulesets' own (an NHiS rally is NHiS 8.2's 1d6 against the morale), so
verify, replay and the forgery tests replay the real rules."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from bot.service import Actor, Referee
from bot.store import SqliteStore, is_postgres

GM = Actor(1, name="gm")
GERMAN = Actor(100, name="german")  # plays side 0
RUSSIAN = Actor(200, name="russian")  # plays side 1
STRANGER = Actor(999, name="onlooker")
MANAGER = Actor(555, is_manager=True, name="moderator")

CHANNEL = 10
GUILD = 7

# the players of these games throw their dice at the table (manual dice, scripted by the tests): a
# game created now allows none unless its options say so (the game option manual_dice)
TABLE_DICE = {"manual_dice": "all"}


def asl_squad(unit_id: str, side: int, location: str | None = "B5") -> dict:
    """A custom 4-6-7 squad (the game master's numbers); ``None``: off board (many units: no stacking limit)."""
    return {"action": "unit_add", "id": unit_id, "side": side, "location": location,
            "stats": {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}}


def nhis_squad(unit_id: str, side: int, *, shaken: bool = True, morale: int = 7) -> dict:
    return {"action": "unit_add", "id": unit_id, "side": side, "location": "0304",
            "stats": {"kind": "squad", "name": "Rifle", "fp": 3, "range": 5, "morale": morale, "shaken": shaken}}


def raw(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Read (or edit) the database file directly, as someone with the file would."""
    with sqlite3.connect(path) as db:
        return db.execute(sql, params).fetchall()


async def open_store(tmp_path: Path, name: str = "referee.sqlite3", **kwargs) -> SqliteStore:
    return await SqliteStore.open(tmp_path / "data" / name, **kwargs)


async def seated_asl_game(referee: Referee, channel: int = CHANNEL) -> None:
    """An ASL game run by GM, GERMAN on side 0 with A1, RUSSIAN on side 1 with R1 (entries 1-5)."""
    await referee.new_game(channel, GUILD, GM, "asl", ["Germans", "Russians"], scenario="Store test",
                           options=TABLE_DICE)
    for actor, side in ((GERMAN, 0), (RUSSIAN, 1)):  # each accepts the game master's invitation
        await referee.act(channel, actor, {"action": "join", "side": side, "player": actor.user_id,
                                           "approved_by": GM.user_id}, command="/game join")
    await referee.act(channel, GM, asl_squad("A1", 0), command="/unit add")
    await referee.act(channel, GM, asl_squad("R1", 1, "C5"), command="/unit add")


class CountingDice:
    """A dice factory for ``Referee(dice=...)``: every source it makes counts into ``drawn``."""

    def __init__(self, faces: tuple[int, ...] = (3, 4, 5, 2, 6, 1)):
        self.faces = faces
        self.drawn = 0

    def __call__(self) -> "_CountedSource":
        return _CountedSource(self)


class _CountedSource:
    manual = False

    def __init__(self, counter: CountingDice):
        self.counter = counter

    def draw(self, sides: int) -> int:
        value = self.counter.faces[self.counter.drawn % len(self.counter.faces)]
        self.counter.drawn += 1
        return min(value, sides)


async def raw_edit(database: Path | str, sql: str, params: tuple = ()) -> None:
    """Edit the database by hand, as someone with the file (SQLite) or a login to the server
    (PostgreSQL, its ``?`` placeholders written ``$1, $2, ...``) would: outside the bot."""
    if not is_postgres(database):
        with sqlite3.connect(database) as db:
            db.execute(sql, params)
        return
    import asyncpg

    numbered = iter(range(1, sql.count("?") + 1))
    conn = await asyncpg.connect(str(database))
    try:
        await conn.execute(re.sub(r"\?", lambda _: f"${next(numbered)}", sql), *params)
    finally:
        await conn.close()


async def raw_read(database: Path | str, sql: str, params: tuple = ()) -> list[tuple]:
    """Read the database by hand (``raw_edit``'s reading side), on either store."""
    if not is_postgres(database):
        with sqlite3.connect(database) as db:
            return db.execute(sql, params).fetchall()
    import asyncpg

    numbered = iter(range(1, sql.count("?") + 1))
    conn = await asyncpg.connect(str(database))
    try:
        return [tuple(row) for row in await conn.fetch(re.sub(r"\?", lambda _: f"${next(numbered)}", sql), *params)]
    finally:
        await conn.close()


def break_entry_insert(store, monkeypatch) -> type[Exception]:
    """Make the next log entry's insert fail inside the write, after the game's row was updated in
    the same transaction (SQLite) or statement (PostgreSQL: the entry's hash is NULL, which its
    column refuses); returns the error the write then raises. ``monkeypatch.undo()`` mends it."""
    from bot.store import PostgresStore

    if isinstance(store, PostgresStore):
        import asyncpg

        import bot.store.postgres as postgres

        real = postgres._entry_row
        monkeypatch.setattr(postgres, "_entry_row", lambda entry: real(entry)[:11] + (None,) + real(entry)[12:])
        return asyncpg.NotNullViolationError

    def failing_insert(db, entry):  # runs on the connection's thread, inside the transaction
        raise sqlite3.OperationalError("database disk image is malformed (forced)")
    monkeypatch.setattr(type(store), "_insert_entry", staticmethod(failing_insert))
    return sqlite3.OperationalError
