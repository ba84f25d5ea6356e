"""A scenario file's hidden parts are sealed in the new game's own transaction (issue 16: one command,
one transaction): entry 1 and the seal entries land together or not at all, on SQLite and PostgreSQL
(the ``store`` fixture runs each test on both)."""

from __future__ import annotations

import hashlib
import json

import pytest

from bot.core.data import data_path
from bot.record import GENESIS_HASH
from bot.scenario import read
from bot.service import HIDDEN_SEAL, Referee
from bot.store import PostgresStore

from .helpers import CHANNEL, GM, GUILD

US_SECRET = "Fire mission: RA1 on hedge-2 at turn 3"
GER_SECRET = "Hidden: G9 ger-rifle in farm-cellar, ambush at turn 2"


def with_hidden():
    """The CD sample with a hidden part for each side, read as /scenario load reads it."""
    text = data_path("cd", "scenarios", "hedgerows.yaml").read_text()
    text = text.replace("    options: {quality: regular}\n",
                        f"    options: {{quality: regular}}\n    hidden: {{text: '{US_SECRET}'}}\n")
    text = text.replace("    options: {quality: veteran}\n",
                        f"    options: {{quality: veteran}}\n    hidden: {{text: '{GER_SECRET}'}}\n")
    assert US_SECRET in text and GER_SECRET in text  # the sample still has the lines replaced
    return read(text, gm=GM.user_id)


async def load(referee: Referee, interaction_id: int = 9001):
    return await referee.new_game(CHANNEL, GUILD, GM, "cd", [], setup=with_hidden(), interaction_id=interaction_id)


async def rows(store) -> tuple[int, int]:
    """(games, log entries) in the whole database, counted on its tables."""
    if isinstance(store, PostgresStore):
        async with store._connection() as conn:
            return (await conn.fetchval("SELECT count(*) FROM games"),
                    await conn.fetchval("SELECT count(*) FROM log_entries"))

    def count(conn):
        return tuple(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("games", "log_entries"))
    return await store._read(count)


class Forced(Exception):
    """The failure injected between entry 1's insert and the commit."""


def fail_on_second_insert(store, monkeypatch) -> list[int]:
    """Make the store's insert of entry 2 raise, inside the creation's transaction, after the game's
    row and entry 1 were inserted; returns the seqs inserted before it."""
    real, inserted = store._insert_entry, []
    if isinstance(store, PostgresStore):
        async def insert(conn, entry):
            if entry.seq == 2:
                raise Forced("the bot stops after entry 1")
            inserted.append(entry.seq)
            await real(conn, entry)
    else:
        def insert(conn, entry):  # on the connection's thread, inside the transaction
            if entry.seq == 2:
                raise Forced("the bot stops after entry 1")
            inserted.append(entry.seq)
            real(conn, entry)
    monkeypatch.setattr(store, "_insert_entry", insert)
    return inserted


async def test_a_failure_after_entry_1_leaves_no_game_and_no_entry(store, monkeypatch):
    referee = Referee(store)
    inserted = fail_on_second_insert(store, monkeypatch)
    with pytest.raises(Forced):
        await load(referee)
    assert inserted == [1]  # entry 1 was in the transaction when it failed
    assert await rows(store) == (0, 0)
    assert await store.load_latest(CHANNEL) is None and await referee.recorded(9001) is None
    monkeypatch.undo()
    acted = await load(referee)  # the load given again: the channel is free, the game whole
    assert acted.seq == 1 and not acted.replayed and len(acted.sealed) == 2
    assert await rows(store) == (1, 3)


async def test_a_load_logs_entry_1_and_a_seal_per_hidden_part_chained_in_one_creation(store):
    referee = Referee(store)
    acted = await load(referee)
    stored = await store.load_active(CHANNEL)
    entries = await store.entries(stored.id)
    assert [(e.seq, e.command, e.order.get("action"), e.order.get("side")) for e in entries] == [
        (1, "/game new", "new_game", None),
        (2, HIDDEN_SEAL, "seal", 0), (3, HIDDEN_SEAL, "seal", 1)]
    assert entries[0].prev_hash == GENESIS_HASH
    assert [e.prev_hash for e in entries[1:]] == [e.hash for e in entries[:-1]]
    assert all(e.hash == e.expected_hash() for e in entries)
    assert (stored.last_seq, stored.head_hash) == (3, entries[-1].hash)
    assert entries[0] == acted.entry and [s.acted.entry for s in acted.sealed] == entries[1:]
    for sealed, secret in zip(acted.sealed, (US_SECRET, GER_SECRET)):  # the loader's nonces open them
        assert sealed.text == secret
        commitment = hashlib.sha256(bytes.fromhex(sealed.nonce) + secret.encode()).hexdigest()
        assert commitment == sealed.acted.entry.order["commitment"]
        held = json.loads(await store.held_secret(commitment))
        assert held == {"nonce": sealed.nonce, "text": secret}
    logged = json.dumps([e.model_dump(mode="json") for e in entries]) + json.dumps(stored.game.model_dump(mode="json"))
    assert US_SECRET not in logged and GER_SECRET not in logged
    assert (await referee.verify(CHANNEL)).ok
    # the next command chains on entry 3, with the dice state entry 1 committed to
    after = await referee.seal(CHANNEL, GM, "a later order", 0)
    assert after.acted.seq == 4 and after.acted.entry.prev_hash == entries[-1].hash
    assert after.acted.entry.dice_proof == entries[1].dice_proof
    assert (await referee.verify(CHANNEL)).ok


async def test_a_redelivered_load_answers_from_the_log_and_seals_nothing_twice(store):
    referee = Referee(store)
    first = await load(referee)
    again = await load(referee)
    assert again.replayed and again.entry == first.entry and again.sealed == ()
    assert await rows(store) == (1, 3)


async def test_create_game_refuses_entries_that_do_not_chain(store):
    """The store checks the entries it creates a game with: entry 1 first, each on the one before."""
    referee = Referee(store)
    made = []
    real_hold = referee.hidden.hold_hidden

    async def keep(game, actor, setup):
        held = await real_hold(game, actor, setup)
        made.extend(held)
        return held
    real_create = store.create_game

    async def swapped(channel_id, guild_id, game, first_entries):
        def broken(game_id):
            entries = first_entries(game_id)
            return [entries[0], entries[2], entries[1]]  # entry 3 before entry 2
        return await real_create(channel_id, guild_id, game, broken)
    referee.hidden.hold_hidden = keep
    store.create_game = swapped
    with pytest.raises(ValueError, match="does not follow entry 1"):
        await load(referee)
    assert len(made) == 2 and await rows(store) == (0, 0)
