"""Checkpoints (issue 14, bot/record/checkpoint.py): the state after every K-th entry, so an undo
proposal and the Odds button of an old result replay at most K entries. A checkpoint may make a
replay shorter, never different: every answer below is compared with the replay from entry 1,
and a checkpoint that does not match its entry's state hash is not used. Each test runs on both
stores (the ``store_database`` fixture: an SQLite file, a PostgreSQL schema of its own)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.record.checkpoint import advance_live
from bot.record.replay import ChainVerifier, ReplayRefused, Replayer
from bot.service import NotAllowed, Referee
from bot.record.chain import saved_state
from bot.store import is_postgres, open_store
from bot.store.base import pack_state

from .helpers import CHANNEL, GERMAN, GM, RUSSIAN, asl_squad, raw_edit, raw_read, seated_asl_game

EVERY = 4


@pytest.fixture
async def referee(store_database):
    store = await open_store(store_database, checkpoint_every=EVERY)
    yield Referee(store)
    await store.close()


async def _from_entry_one(store, game_id: int, seq: int) -> str:
    """The state after entry ``seq`` as a verifier rebuilds it from entry 1, checking every entry."""
    verifier = ChainVerifier()
    async for entry in store.iter_entries(game_id):
        if entry.seq > seq:
            break
        assert verifier.check(entry) is None
    return verifier.game.model_dump_json()


async def _undo(referee: Referee) -> None:
    proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
    await referee.answer_undo(proposal.request.id, GERMAN, accept=True)


async def _move(referee: Referee, i: int) -> None:
    await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": f"D{i}"}, command="/unit move")


async def _morale(referee: Referee, dice: list[int]) -> int:
    acted = await referee.act(CHANNEL, GERMAN, {"action": "morale", "unit": "A1", "check": "NMC"}, dice=dice,
                              command="/morale")
    return acted.entry.seq


async def _checkpoints(database) -> list[int]:
    return [row[0] for row in await raw_read(database, "SELECT seq FROM checkpoints ORDER BY seq")]


async def test_a_checkpoint_every_k_entries_holds_the_state_in_the_games_order(referee, store_database):
    await seated_asl_game(referee)  # entries 1-5
    for unit in ("R9", "R2"):  # added out of sorted order: the order is part of the game
        await referee.act(CHANNEL, GM, asl_squad(unit, 1, "C5"), command="/unit add")
    for i in range(6):
        await _move(referee, i)
    assert await _checkpoints(store_database) == [4, 8, 12]
    store = referee.desk.store
    checkpoint = await store.checkpoint_before(1, 11)
    # the top K + 1 of the stack of entries not undone: enough for every undo before the next one
    assert checkpoint.seq == 8 and not checkpoint.whole and [seq for seq, _ in checkpoint.top] == [4, 5, 6, 7, 8]
    assert (await store.checkpoint_before(1, 7)).whole
    game = checkpoint.game()
    assert game.model_dump_json() == await _from_entry_one(store, 1, 8)
    assert list(game.units) == ["A1", "R1", "R9", "R2"]
    assert (await store.checkpoint_before(1, 3)) is None


async def test_a_checkpoint_after_an_undo_holds_the_state_the_replay_gives(referee, store_database):
    # the undone state comes back from the log's sorted JSON: its options in the game's order too
    await seated_asl_game(referee)  # entries 1-5
    await _move(referee, 1)
    await _undo(referee)  # entry 7
    await _move(referee, 2)  # entry 8
    assert 8 in await _checkpoints(store_database)
    game = (await referee.desk.store.checkpoint_before(1, 9)).game()
    assert list(game.options) == ["manual_dice", "asl_markers", "asl_wounds", "grid"]  # as created: not sorted
    assert game.model_dump_json() == await _from_entry_one(referee.desk.store, 1, 8)
    assert (await referee.verify(CHANNEL)).ok


async def test_undo_proposals_and_odds_from_checkpoints_match_the_replay_from_entry_one(referee, store_database):
    await seated_asl_game(referee)
    morale = []
    for i in range(9):
        await _move(referee, i)
        morale.append(await _morale(referee, [1 + i % 5, 1 + (i * 2) % 6]))
    # undos one after another, reaching back across checkpoints, then play on and undo again
    for _ in range(7):
        proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
        store = referee.desk.store
        undone = await store.undone(1)
        live = [s for s in range(1, proposal.request.head_seq + 1) if s not in undone and s not in undone.values()]
        assert proposal.request.state_before == await _from_entry_one(store, 1, live[-2])
        await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
    for i in range(6):
        await _move(referee, 20 + i)
    await _undo(referee)
    assert len(await _checkpoints(store_database)) >= 8
    assert (await referee.verify(CHANNEL)).ok

    # the same answers from a store without checkpoints, on the same file
    plain_store = await open_store(store_database, checkpoint_every=None)
    try:
        plain = Referee(plain_store)
        plain_store.checkpoint_every = None
        for seq in morale:
            odds, expected = await referee.entry_odds(1, seq), await plain.entry_odds(1, seq)
            assert odds.report == expected.report and odds.game.model_dump_json() == expected.game.model_dump_json()
        assert await plain_store.checkpoint_before(1, 30) is None
    finally:
        await plain_store.close()
    resumed = ChainVerifier.resume(await referee.desk.store.checkpoint_before(1, morale[-1] - 1), until=morale[-1] - 1)
    assert resumed.resumed_at > morale[-1] - 1 - EVERY  # at most K entries to replay


async def test_a_checkpoint_that_does_not_match_its_entry_is_not_used(referee, store_database):
    await seated_asl_game(referee)
    for i in range(6):
        await _move(referee, i)
    seq = await _morale(referee, [3, 4])  # entry 12; checkpoints at 4 and 8
    store = referee.desk.store
    honest = await store.checkpoint_before(1, seq - 1)
    assert ChainVerifier.resume(honest, until=seq - 1).resumed_at == 8
    expected = await referee.entry_odds(1, seq)
    # someone edits the checkpoint's state (a unit moved): its hash no longer matches entry 8's
    edited = honest.game().model_copy(deep=True)
    edited.units["A1"].location = "Z9"
    await raw_edit(store_database, "UPDATE checkpoints SET state = ? WHERE seq = 8", (pack_state(saved_state(edited)),))
    tampered = await store.checkpoint_before(1, seq - 1)
    assert tampered.game() is None
    assert ChainVerifier.resume(tampered, until=seq - 1).resumed_at == 0  # from entry 1 instead
    fresh = Referee(store)  # no cached answer
    assert (await fresh.entry_odds(1, seq)).report == expected.report
    proposal = await fresh.propose_undo(CHANNEL, RUSSIAN)
    assert proposal.request.state_before == await _from_entry_one(store, 1, seq - 1)
    # a checkpoint whose kept stack is not deep enough for the replay asked of it is not used either
    assert ChainVerifier.resume(honest, until=8 + len(honest.top) + 5).resumed_at in (0, 8)


def test_the_kept_stack_follows_undos_and_a_short_stack_refuses_a_deeper_undo():
    rows = [(1, "new_game", None), (2, "unit_add", None), (3, "fire", None), (4, "undo", 3), (5, "phase", None)]
    assert advance_live([], True, rows, keep=10) == ([1, 2, 5], True)
    assert advance_live([], True, rows, keep=2) == ([2, 5], False)
    assert advance_live([7], False, [(8, "undo", 7), (9, "undo", 6)], keep=5) == ([], False)
    replayer = Replayer()
    replayer.live, replayer.whole = [(5, "h5")], False
    with pytest.raises(ReplayRefused, match="further back than the checkpoint"):
        replayer.undo_target()


async def _game_logged_before_checkpoints(database) -> tuple[int, int, int]:
    """(game, channel, last seq) of an active game written by a bot of the schema before checkpoints:
    SQLite's upgrade fixture of schema 6; on PostgreSQL, a game played on a store held at schema 2."""
    if not is_postgres(database):
        database.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).with_name("fixtures") / "v0006.sqlite3", database)
        with sqlite3.connect(database) as db:
            return db.execute(
                "SELECT id, channel_id, last_seq FROM games WHERE ruleset = 'asl' AND status = 'active'").fetchone()
    old = await open_store(database, upto=2)
    try:
        referee = Referee(old)
        await seated_asl_game(referee)
        for i in range(EVERY):
            await _move(referee, i)
        stored = await old.load_active(CHANNEL)
        return stored.id, CHANNEL, stored.last_seq
    finally:
        await old.close()


async def test_a_game_logged_before_checkpoints_gets_one_with_its_next_entry(store_database):
    game_id, channel, last = await _game_logged_before_checkpoints(store_database)
    store = await open_store(store_database, checkpoint_every=EVERY)
    try:
        assert last >= EVERY and await store.checkpoint_before(game_id, last) is None
        acted = await Referee(store).act(channel, GM, {"action": "phase"}, command="/game phase")
        checkpoint = await store.checkpoint_before(game_id, acted.entry.seq)
        assert checkpoint.seq == acted.entry.seq and checkpoint.game() is not None
        assert checkpoint.game().model_dump_json() == await _from_entry_one(store, game_id, acted.entry.seq)
    finally:
        await store.close()


async def test_an_undo_replayed_from_a_checkpoint_after_a_seal_it_does_not_see_takes_the_reveal(
        referee, store_database):
    # the seal (#6) is before the checkpoint the undo's replay resumes at, its reveal after it: the
    # resumed replay cannot check the reveal (verify from entry 1 does) and must not refuse it
    await seated_asl_game(referee)
    sealed = await referee.seal(CHANNEL, GERMAN, "A1 holds the woods")  # #6
    await _move(referee, 1)
    await _move(referee, 2)  # #8: a checkpoint
    opened = await referee.reveal(CHANNEL, GERMAN, sealed.acted.seq)  # #9
    await _move(referee, 3)
    await _move(referee, 4)  # #11, undone: the replay goes from the checkpoint at #8 through the reveal to #10
    assert (sealed.acted.seq, opened.seq) == (6, 9) and 8 in await _checkpoints(store_database)
    await _undo(referee)
    report = await referee.verify(CHANNEL)
    assert report.ok, report.reason
    assert report.reason.endswith("sealed orders: 1, 1 revealed and matching their commitments, 0 still sealed")


async def test_an_undo_proposal_is_refused_when_the_replay_ends_in_another_state_than_the_log_recorded(
        referee, store_database):
    # the proposal hashes the replayed state once, after the entry before the one undone: a log
    # whose entries all link and match their hashes, but which records another state there (a
    # forged state hash, the chain sealed again after it), must still be refused
    await seated_asl_game(referee)
    for i in range(6):
        await _move(referee, i)  # entries 6-11; the proposal would undo 11 and restore 10
    store = referee.desk.store
    entries = [e async for e in store.iter_entries(1)]
    forged, prev = [], None
    for entry in entries:
        if entry.seq == 10:
            entry = entry.model_copy(update={"state_hash": "0" * 64})
        if prev is not None and entry.prev_hash != prev.hash:
            entry = entry.model_copy(update={"prev_hash": prev.hash})
        entry = entry.model_copy(update={"hash": entry.expected_hash()})
        forged.append(entry)
        prev = entry
    for entry in forged[9:]:
        await raw_edit(store_database, "UPDATE log_entries SET state_hash = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                       (entry.state_hash, entry.prev_hash, entry.hash, entry.seq))
    await raw_edit(store_database, "UPDATE games SET head_hash = ?", (forged[-1].hash,))
    with pytest.raises(NotAllowed, match="at entry #10, so no undo can be trusted: the state after replaying "
                                         "entry #10 does not match"):
        await Referee(store).propose_undo(CHANNEL, RUSSIAN)


async def test_on_postgres_a_checkpoint_that_cannot_be_written_leaves_the_command_saved_and_comes_with_the_next(
        pg_dsn, monkeypatch):
    # PostgreSQL writes a checkpoint right after its entry's statement (bot/store/postgres.py): a
    # fault there must not turn a saved command into an error, and the next entry writes it
    import asyncpg

    from bot.store import PostgresStore

    store = await open_store(pg_dsn, checkpoint_every=EVERY)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)  # entries 1-5: the checkpoint at 4
        real = PostgresStore._checkpoint

        async def failing(self, *args):
            raise asyncpg.PostgresError("forced: the checkpoint's insert failed")

        monkeypatch.setattr(PostgresStore, "_checkpoint", failing)
        for i in range(3):
            await _move(referee, i)  # entry 8 is due a checkpoint: not written, the move saved
        assert (await store.load_active(CHANNEL)).last_seq == 8
        assert await _checkpoints(pg_dsn) == [4]
        monkeypatch.setattr(PostgresStore, "_checkpoint", real)
        await _move(referee, 3)  # entry 9: 5 past the last checkpoint, so it is written now
        assert await _checkpoints(pg_dsn) == [4, 9]
        checkpoint = await store.checkpoint_before(1, 9)
        assert checkpoint.game().model_dump_json() == await _from_entry_one(store, 1, 9)
        assert (await referee.verify(CHANNEL)).ok
    finally:
        await store.close()
