"""The Game a command saved, kept for the next command of its channel (issue 14: a command no longer
decompresses and parses the state the one before it saved), and never handed out for a row that
anything else wrote since: another process or shard on the same database, an undo, a new game or
a scenario loaded in the channel, a unit edit, a restored game, an edit of the row by hand."""

from __future__ import annotations

import pytest

from bot.core.game import Game
from bot.record import state_hash
from bot.record.chain import saved_state
from bot.service import Referee
from bot.store import open_store
from bot.store import base
from bot.store.base import KeptGames
from bot.store.sqlite import pack_state

from .helpers import CHANNEL, GERMAN, GM, GUILD, RUSSIAN, asl_squad, raw_edit, raw_read, seated_asl_game

MOVE = {"action": "unit_move", "unit": "A1", "location": "D4"}


@pytest.fixture
async def two(store_database):
    """Two stores on one database (two bot processes, or two shards): each keeps its own Games."""
    first, second = await open_store(store_database), await open_store(store_database)
    yield first, second
    await first.close()
    await second.close()


def _parses(monkeypatch) -> list[int]:
    """Count the states parsed from the database from now on."""
    parsed: list[int] = []
    original = Game.model_validate_json.__func__

    def counted(cls, *args, **kwargs):
        parsed.append(1)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(Game, "model_validate_json", classmethod(counted))
    return parsed


async def test_the_next_command_gets_the_game_the_last_one_saved_without_parsing_it(store, monkeypatch):
    referee = Referee(store)
    await seated_asl_game(referee)
    moved = await referee.act(CHANNEL, GM, MOVE, command="/unit move")
    monkeypatch.setattr(KeptGames, "check", False)  # the check parses the row to compare
    parsed = _parses(monkeypatch)
    assert await referee.game(CHANNEL) is moved.game
    back = await referee.act(CHANNEL, GM, {**MOVE, "location": "B5"}, command="/unit move")
    assert parsed == []
    assert back.game.units["A1"].location == "B5" and moved.game.units["A1"].location == "D4"  # a copy moved
    assert state_hash(await referee.game(CHANNEL)) == back.entry.state_hash


async def test_a_write_by_another_process_is_read_not_the_kept_game(two, monkeypatch):
    first, second = Referee(two[0]), Referee(two[1])
    await seated_asl_game(first)
    kept = await first.act(CHANNEL, GM, MOVE, command="/unit move")  # the first store keeps this Game
    theirs = await second.act(CHANNEL, GM, {**MOVE, "location": "C5"}, command="/unit move")
    parsed = _parses(monkeypatch)
    read = await first.game(CHANNEL)
    assert parsed == [1] and read is not kept.game
    assert read.units["A1"].location == "C5" and state_hash(read) == theirs.entry.state_hash
    # and a command of the first process starts from the other's state (not refused as stale)
    mine = await first.act(CHANNEL, GM, {**MOVE, "location": "B5"}, command="/unit move")
    assert mine.entry.seq == theirs.entry.seq + 1
    assert (await second.game(CHANNEL)).units["A1"].location == "B5"


async def test_an_undo_a_unit_edit_and_a_new_game_are_what_the_next_command_reads(store):
    referee = Referee(store)
    await seated_asl_game(referee)
    before = await referee.game(CHANNEL)
    await referee.act(CHANNEL, GM, MOVE, command="/unit move")
    proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
    await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
    undone = await referee.game(CHANNEL)
    assert undone.units["A1"].location == "B5" and state_hash(undone) == state_hash(before)
    await referee.act(CHANNEL, GM, asl_squad("A2", 0, "C5"), command="/unit add")
    assert list((await referee.game(CHANNEL)).units) == ["A1", "R1", "A2"]
    await referee.end_game(CHANNEL, GM)
    await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], scenario="Another")
    assert (await referee.game(CHANNEL)).units == {}


async def test_a_row_edited_by_hand_is_read_as_edited(store, store_database):
    referee = Referee(store)
    await seated_asl_game(referee)
    await referee.act(CHANNEL, GM, MOVE, command="/unit move")
    [(game_id, state)] = await raw_read(store_database, "SELECT id, state FROM games")
    other = await raw_read(store_database, "SELECT state FROM checkpoints WHERE game_id = ?", (game_id,))
    assert other == [] and state
    # the same seq and head hash, another state (what /log verify then reports): the edit is what is read
    edited = (await referee.game(CHANNEL)).model_copy(update={"turn": 7})
    new = pack_state(saved_state(edited)) if isinstance(state, bytes) else saved_state(edited).ordered
    await raw_edit(store_database, "UPDATE games SET state = ? WHERE id = ?", (new, game_id))
    assert (await referee.game(CHANNEL)).turn == 7


async def test_a_restored_game_is_read_from_its_row(tmp_path):
    store = await open_store(tmp_path / "referee.sqlite3")
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        game_id = await referee.game_id(CHANNEL)
        backup = (await store.load_game(game_id), await store.entries(game_id, limit=100),
                  await store.undo_requests(game_id), await store.game_extras(game_id))
        await referee.act(CHANNEL, GM, MOVE, command="/unit move")  # kept: A1 on D4, entry 6
        for table in ("unshown_entries", "checkpoints", "undo_requests", "pacing_reminders", "log_entries"):
            await raw_edit(tmp_path / "referee.sqlite3", f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        await raw_edit(tmp_path / "referee.sqlite3", "DELETE FROM games WHERE id = ?", (game_id,))
        await store.restore_game(*backup)  # the backup of entry 5 put back
        restored = await referee.game(CHANNEL)
        assert restored.units["A1"].location == "B5" and (await store.load_game(game_id)).last_seq == 5
    finally:
        await store.close()


async def test_a_kept_game_changed_after_its_save_fails_the_check(store):
    assert KeptGames.check  # tests/conftest.py: every kept Game handed out in the suite is checked
    referee = Referee(store)
    await seated_asl_game(referee)
    moved = await referee.act(CHANNEL, GM, MOVE, command="/unit move")
    moved.game.units["A1"].location = "Z9"  # what no code may do to a resolved Game
    with pytest.raises(AssertionError, match="was changed after it was saved"):
        await referee.game(CHANNEL)


def test_the_kept_games_are_bounded_and_the_oldest_written_goes_first(monkeypatch):
    monkeypatch.setattr(KeptGames, "check", False)  # no real rows here
    kept, game = KeptGames(most=2), Game.model_construct()
    for game_id in (1, 2, 1, 3):
        kept.keep(game_id, 5, "h", b"s", game)
    assert kept.game(2, 5, "h", b"s") is None
    assert kept.game(1, 5, "h", b"s") is game and kept.game(3, 5, "h", b"s") is game
    assert kept.game(1, 6, "h", b"s") is None and kept.game(1, 5, "x", b"s") is None
    assert kept.game(1, 5, "h", b"t") is None


async def test_the_kept_games_hold_at_most_so_many_units(store, monkeypatch):
    referee = Referee(store)
    for channel in (CHANNEL, CHANNEL + 1, CHANNEL + 2):
        await seated_asl_game(referee, channel)  # two units each
    ids = [await referee.game_id(channel) for channel in (CHANNEL, CHANNEL + 1, CHANNEL + 2)]
    monkeypatch.setattr(store, "kept", KeptGames(units=5))
    monkeypatch.setattr(base, "LOCATIONS_A_UNIT", 10 ** 9)  # units alone here (the Locations' weight: below)
    for channel in (CHANNEL, CHANNEL + 1, CHANNEL + 2):
        await referee.act(channel, GM, MOVE, command="/unit move")
    assert [game_id in store.kept._kept for game_id in ids] == [False, True, True] and store.kept._units == 4
    await referee.act(CHANNEL + 1, GM, asl_squad("A2", 0, "C5"), command="/unit add")  # 3 units: 5 in all
    assert [game_id in store.kept._kept for game_id in ids] == [False, True, True] and store.kept._units == 5
    await referee.act(CHANNEL + 1, GM, asl_squad("A3", 0, "C5"), command="/unit add")  # 4: the other one goes
    assert [game_id in store.kept._kept for game_id in ids] == [False, True, False] and store.kept._units == 4
    store.kept.units = 2
    await referee.act(CHANNEL + 1, GM, {**MOVE, "location": "B5"}, command="/unit move")  # bigger than all of it
    assert store.kept._kept == {} and store.kept._units == 0


async def test_the_roll_limit_asks_whether_an_order_rolled_without_a_trip_to_the_store(store, monkeypatch):
    referee = Referee(store)
    await seated_asl_game(referee)
    await referee.act(CHANNEL, GM, {"action": "phase", "to": "PFPh"}, command="/phase", interaction_id=501)
    await referee.act(CHANNEL, GERMAN, {"action": "morale", "unit": "A1", "check": "PTC"}, command="/morale",
                      interaction_id=502)
    other = Referee(store)  # another process: it did not save them, so it reads the log
    assert (await other.rolled(502), await other.rolled(501), await other.rolled(503)) == (True, False, None)

    async def no_trip(interaction_id):
        raise AssertionError("read the store")

    monkeypatch.setattr(store, "entry_by_interaction", no_trip)
    assert (await referee.rolled(502), await referee.rolled(501)) == (True, False)


def test_a_location_weighs_a_third_of_a_unit_against_the_budget(monkeypatch):
    # issue 28: counted by units alone, 50 games of 400 units and 2,000 Locations (4.0 MB parsed each) were kept
    monkeypatch.setattr(KeptGames, "check", False)  # no real rows here
    for locations, kept_it in ((29, True), (30, True), (33, False)):  # weights 9, 10 (the budget) and 11
        kept = KeptGames(units=10)
        game = Game.model_construct(units={}, locations={f"L{i}": None for i in range(locations)})
        kept.keep(1, 5, "h", b"s", game)
        assert (kept.game(1, 5, "h", b"s") is game) is kept_it, locations
        assert kept._units == (locations // 3 if kept_it else 0)
