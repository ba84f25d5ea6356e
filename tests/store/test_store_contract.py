"""The store contract, on SQLite and on PostgreSQL (the ``store`` and ``store_database`` fixtures run
each test on both): one game per channel, state + entry in one transaction, restarts lose nothing."""

import pytest

from bot.core.api import new_game, resolve
from bot.record import GENESIS_HASH, LogEntry, state_hash
from bot.store import ActiveGameExists, DuplicateInteraction, LogFull, PostgresStore, StaleGame, open_store

from .helpers import asl_squad, break_entry_insert


def _entry(game_id, seq, prev_hash, game, *, interaction_id=None, order=None):
    return LogEntry.seal(prev_hash=prev_hash, game_id=game_id, seq=seq, time=f"2026-01-01T00:00:{seq:02d}.000+00:00",
                         actor=1, command="/test", order=order or {"action": "new_game"}, outcome={"seq": seq},
                         state_hash=state_hash(game), interaction_id=interaction_id)


async def _create(store, channel=10, ruleset="asl"):
    game = new_game(ruleset, sides=["Blue", "Red"], gm=1)
    stored, _ = await store.create_game(channel, 7, game, lambda gid: _entry(gid, 1, GENESIS_HASH, game))
    return stored


async def _add_unit(store, stored, unit_id, **kw):
    game = resolve(stored.game, asl_squad(unit_id, 0)).game
    entry = _entry(stored.id, stored.last_seq + 1, stored.head_hash, game, order=asl_squad(unit_id, 0), **kw)
    return await store.append(stored, game, entry), entry


async def test_create_game_saves_the_state_and_entry_1_together(store):
    stored = await _create(store)
    assert (stored.channel_id, stored.guild_id, stored.ruleset, stored.status) == (10, 7, "asl", "active")
    assert stored.last_seq == 1
    [first] = await store.entries(stored.id)
    assert first.seq == 1 and first.prev_hash == GENESIS_HASH
    assert stored.head_hash == first.hash == first.expected_hash()


async def test_a_channel_holds_one_active_game(store):
    await _create(store, channel=10)
    with pytest.raises(ActiveGameExists):
        await _create(store, channel=10)
    assert (await _create(store, channel=11)).channel_id == 11  # another channel (or thread) is free


async def test_an_ended_game_stays_readable_and_a_new_one_gets_its_own_id(store):
    first = await _create(store)
    ended = await store.end_game(first, _entry(first.id, 2, first.head_hash, first.game,
                                               order={"action": "end_game"}))
    assert ended.status == "ended" and await store.load_active(10) is None
    second = await _create(store)
    assert second.id != first.id
    assert [e.seq for e in await store.entries(first.id)] == [1, 2]
    assert [e.seq for e in await store.entries(second.id)] == [1]
    assert (await store.load_latest(10)).id == second.id
    assert (await store.load_game(first.id)).status == "ended"


async def test_a_restart_keeps_every_game_exactly(store_database):
    store = await open_store(store_database)
    stored = await _create(store, channel=10)
    for unit_id in ("A1", "A2", "A3"):
        stored, _ = await _add_unit(store, stored, unit_id)
    other = await _create(store, channel=20, ruleset="cd")
    await store.close()

    reopened = await open_store(store_database)
    try:
        again = await reopened.load_active(10)
        assert again == stored  # every field, the Game compared by value
        assert sorted(again.game.units) == ["A1", "A2", "A3"]
        assert (await reopened.load_active(20)).game == other.game
        assert [e.seq for e in await reopened.entries(stored.id)] == [1, 2, 3, 4]
    finally:
        await reopened.close()


async def test_if_the_entry_insert_fails_the_state_is_unchanged(store, monkeypatch):
    stored = await _create(store)

    with pytest.raises(break_entry_insert(store, monkeypatch)):
        await _add_unit(store, stored, "A1")
    monkeypatch.undo()
    assert await store.load_active(10) == stored  # state, last_seq and head hash all as before
    assert len(await store.entries(stored.id)) == 1


async def test_a_duplicate_interaction_id_saves_nothing(store):
    stored = await _create(store)
    stored, _ = await _add_unit(store, stored, "A1", interaction_id=42)
    with pytest.raises(DuplicateInteraction):
        await _add_unit(store, stored, "A2", interaction_id=42)
    after = await store.load_active(10)
    assert after == stored and "A2" not in after.game.units
    assert (await store.entry_by_interaction(42)).seq == 2


async def test_a_write_from_a_stale_load_is_refused(store):
    loaded = await _create(store)
    await _add_unit(store, loaded, "A1")  # another process wrote first
    with pytest.raises(StaleGame):
        await _add_unit(store, loaded, "A2")
    assert sorted((await store.load_active(10)).game.units) == ["A1"]


async def test_entries_page_by_seq_newest_last(store):
    stored = await _create(store)
    for i in range(7):
        stored, _ = await _add_unit(store, stored, f"A{i}")
    assert [e.seq for e in await store.entries(stored.id, after_seq=0, limit=3)] == [1, 2, 3]
    assert [e.seq for e in await store.entries(stored.id, after_seq=6, limit=3)] == [7, 8]
    assert [e.seq async for e in store.iter_entries(stored.id, batch=3)] == list(range(1, 9))


async def test_entries_read_back_equal_to_what_was_written(store):
    stored = await _create(store)
    _, written = await _add_unit(store, stored, "A1", interaction_id=9_007_199_254_740_993)
    [_, read] = await store.entries(stored.id)
    assert read == written  # snowflake-sized ids survive as INTEGER


async def test_the_log_cap_refuses_more_entries_but_a_full_game_can_still_end(store_database):
    store = await open_store(store_database, max_entries=2)
    try:
        stored = await _create(store)
        stored, _ = await _add_unit(store, stored, "A1")
        with pytest.raises(LogFull, match="2 entries"):
            await _add_unit(store, stored, "A2")
        ended = await store.end_game(stored, _entry(stored.id, 3, stored.head_hash, stored.game,
                                                    order={"action": "end_game"}))
        assert ended.status == "ended" and ended.last_seq == 3
    finally:
        await store.close()


LOOKUPS = ("SELECT state FROM games WHERE channel_id = 1 AND status = 'active'",
           "SELECT * FROM log_entries WHERE interaction_id = 5",
           "SELECT * FROM log_entries WHERE game_id = 1 AND seq > 10 ORDER BY seq LIMIT 10",
           "SELECT count(*) FROM games WHERE guild_id = 7 AND created_at >= '2026'")


async def test_loading_a_game_uses_indexes_not_a_scan_of_the_log(store):
    plans = []
    if isinstance(store, PostgresStore):
        # an empty table is cheapest to scan: forbid the scan, and an index must serve each lookup
        async with store._pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL enable_seqscan = off")
            for sql in LOOKUPS:
                plans.append(" ".join(row[0] for row in await conn.fetch(f"EXPLAIN {sql}")))
        assert all("Index" in plan and "Seq Scan" not in plan for plan in plans), plans
        return
    for sql in LOOKUPS:
        async with store._db.execute(f"EXPLAIN QUERY PLAN {sql}") as cursor:
            plans.append(" ".join(row[-1] for row in await cursor.fetchall()))
    assert all("USING" in plan and "SCAN" not in plan for plan in plans), plans


async def test_a_silence_is_claimed_for_its_reminder_once(store):
    stored = await _create(store)
    assert await store.claim_reminder(stored.id, 1, "2026-01-02T00:00:00.000+00:00") is True
    assert await store.claim_reminder(stored.id, 1, "2026-01-02T01:00:00.000+00:00") is False  # already sent
    stored, _ = await _add_unit(store, stored, "A1")
    assert await store.claim_reminder(stored.id, 2, "2026-01-03T00:00:00.000+00:00") is True  # a new silence
    [quiet] = [q for q in await store.quiet_games() if q.game.id == stored.id] or [None]
    assert quiet is None  # the game asked for no reminders: quiet_games lists it not


async def test_reminders_are_due_by_the_games_option_once_per_silence(store):
    from datetime import datetime, timedelta, timezone

    from bot.service import Actor, Referee

    start = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    now = [start]
    referee, gm = Referee(store, clock=lambda: now[0]), Actor(1)

    def at(hours: float) -> str:
        return (now[0] + timedelta(hours=hours)).isoformat(timespec="milliseconds")

    for channel, options in ((1, {"remind_after_hours": 12}), (2, {"remind_after_hours": "30"}), (3, {}),
                             (4, {"remind_after_hours": -1})):
        await referee.new_game(channel, 7, gm, "asl", ["Germans", "Russians"], options=options)
    assert await store.quiet_games(due_by=at(11)) == []
    due = await store.quiet_games(due_by=at(12))
    assert [q.game.channel_id for q in due] == [1]
    assert [q.game.channel_id for q in await store.quiet_games(due_by=at(31))] == [1, 2]
    assert await store.claim_reminder(due[0].game.id, due[0].game.last_seq, at(12))
    assert [q.game.channel_id for q in await store.quiet_games(due_by=at(31))] == [2]
    now[0] += timedelta(hours=20)
    await referee.act(1, gm, {"action": "phase"}, command="/game phase")  # the game moves: a new silence
    assert [q.game.channel_id for q in await store.quiet_games(due_by=at(12))] == [2, 1]


CHECKPOINT = "SELECT seq, state, live FROM checkpoints WHERE game_id = 1 AND seq <= 50 ORDER BY seq DESC LIMIT 1"
UNDOS = "SELECT seq FROM log_entries WHERE game_id = 1 AND seq > 0 AND {action} = 'undo'"


async def test_the_undo_entries_and_the_newest_checkpoint_are_read_through_their_indexes(store):
    # what an undo proposal and a replay read (Store.undone, Store.checkpoint_before): issue 14's
    # indexes, on both stores (SQLite's schema 7, PostgreSQL's 3)
    if isinstance(store, PostgresStore):
        undos = UNDOS.format(action="order_json::jsonb ->> 'action'")
        async with store._pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL enable_seqscan = off")
            plans = [" ".join(row[0] for row in await conn.fetch(f"EXPLAIN {sql}")) for sql in (undos, CHECKPOINT)]
        assert "log_entries_undos" in plans[0] and "checkpoints_pkey" in plans[1], plans
        return
    undos = UNDOS.format(action="json_extract(order_json, '$.action')")
    plans = []
    for sql in (undos, CHECKPOINT):
        async with store._db.execute(f"EXPLAIN QUERY PLAN {sql}") as cursor:
            plans.append(" ".join(row[-1] for row in await cursor.fetchall()))
    assert "log_entries_undos" in plans[0] and "USING" in plans[1] and "SCAN" not in " ".join(plans), plans



async def test_head_dice_reads_the_order_and_proof_the_entry_holds(store):
    """The dice state of a command starts from its game's newest entry: ``head_dice`` gives what
    ``entries`` gives for it (order, dice proof), and None for an entry that is not there."""
    stored = await _create(store)
    game = resolve(stored.game, asl_squad("a", 0)).game
    proof = {"commitment": "ab" * 32, "contributions": ["", "x"], "sides": [3, 6], "secret": [2]}
    entry = LogEntry.seal(prev_hash=stored.head_hash, game_id=stored.id, seq=2, time="2026-01-01T00:00:02.000+00:00",
                          actor=1, command="/test", order=asl_squad("a", 0), outcome={"seq": 2},
                          state_hash=state_hash(game), dice_proof=proof)
    after = await store.append(stored, game, entry)
    [read] = await store.entries(stored.id, after_seq=1)
    assert await store.head_dice(stored.id, after.last_seq) == (read.order, read.dice_proof) == (entry.order, proof)
    assert await store.head_dice(stored.id, 1) == ({"action": "new_game"}, None)
    assert await store.head_dice(stored.id, 3) is None
    assert await store.head_dice(stored.id + 1, 1) is None


async def test_a_command_reads_its_games_newest_entry_and_the_turns_seed_with_the_row(store):
    """``load_for_command(head_for=...)`` on both stores: the newest entry's order and dice proof
    (``StoredGame.head``) and the held secret of the dice commitment in force after it (``seed``: the
    proof's own commitment, or the next one when the entry reveals its seed), in the load's own
    trip; neither when not asked, nor for a re-delivered interaction; no seed the store does not hold."""
    import hashlib

    stored = await _create(store)
    seeds = [bytes([n]) * 32 for n in (1, 2, 3)]
    held = [hashlib.sha256(seed).hexdigest() for seed in seeds]
    for commitment, seed in zip(held[:2], seeds[:2]):  # the third is not held
        await store.keep_secret(commitment, seed)
    proofs = [{"commitment": held[0], "contributions": ["", ""], "sides": [6, 6]},
              {"commitment": held[0], "contributions": ["", ""], "reveal": seeds[0].hex(), "next": held[1]},
              {"commitment": held[1], "contributions": ["", ""], "reveal": seeds[1].hex(), "next": held[2]},
              None]
    expected = [(held[0], seeds[0]), (held[1], seeds[1]), None, None]
    for n, (proof, seed) in enumerate(zip(proofs, expected)):
        game = resolve(stored.game, asl_squad(f"u{n}", 0)).game
        entry = LogEntry.seal(prev_hash=stored.head_hash, game_id=stored.id, seq=stored.last_seq + 1,
                              time="2026-01-01T00:00:02.000+00:00", actor=1, command="/test",
                              order=asl_squad(f"u{n}", 0), outcome={"n": n}, state_hash=state_hash(game),
                              interaction_id=500 + n, dice_proof=proof)
        stored = await store.append(stored, game, entry)
        for interaction_id in (None, 999):  # a new interaction: the active game
            asked = []
            _, read = await store.load_for_command(10, interaction_id,
                                                   head_for=lambda *key: asked.append(key) or True)
            assert asked == [(stored.id, stored.last_seq, stored.head_hash)]
            assert read.head == (stored.last_seq, stored.head_hash, entry.order, proof)
            assert read.seed == seed and read == stored
            _, unasked = await store.load_for_command(10, interaction_id, head_for=lambda *_: False)
            assert unasked.head is None and unasked.seed is None
        logged, again = await store.load_for_command(10, 500 + n, head_for=lambda *_: True)
        assert logged == entry and again.head is None and again.seed is None
    assert "seed" not in repr(read) and seeds[0].hex() not in repr(read)


async def test_a_restarted_bots_first_command_costs_the_load_and_the_write_only(store, monkeypatch):
    """A command of a game this process has not seen (after a restart, or another process's game):
    its dice state and the turn's seed come with the game's row, on both stores. SQLite: one read on
    the database thread and the write; PostgreSQL: the load and the write, inside the channel's
    advisory lock and its release."""
    from bot.service import Actor, Referee

    first = Referee(store)
    await first.new_game(10, 7, Actor(1), "asl", ["Blue", "Red"])
    await first.act(10, Actor(1), asl_squad("a", 0), command="/unit add")
    trips: list[str] = []
    if isinstance(store, PostgresStore):
        import asyncpg.connection

        for name in ("fetch", "fetchrow", "fetchval", "execute"):
            original = getattr(asyncpg.connection.Connection, name)

            async def counted(conn, query, *args, _original=original, **kwargs):
                trips.append(query.split()[0] + " " + query.split()[1])
                return await _original(conn, query, *args, **kwargs)
            monkeypatch.setattr(asyncpg.connection.Connection, name, counted)
    else:
        for name in ("_read", "_transact"):
            original = getattr(store, name)

            async def counted(work, *args, _original=original, _name=name):
                trips.append(_name)
                return await _original(work, *args)
            monkeypatch.setattr(store, name, counted)
    restarted = Referee(store)
    acted = await restarted.act(10, Actor(1), {"action": "morale", "unit": "a", "check": "NMC"},
                                command="/morale", interaction_id=77)
    monkeypatch.undo()
    assert acted.entry.dice and acted.entry.dice_proof["sides"]  # it rolled, from the committed seed
    assert len(trips) == (4 if isinstance(store, PostgresStore) else 2), trips
    assert (await first.verify(10)).ok


async def test_a_players_away_is_kept_per_user_and_replaced_by_the_next(store):
    from bot.store import Away

    assert await store.aways([100, 200]) == {}
    await store.set_away(Away(100, "2026-01-01T00:00:00.000+00:00", "2026-01-05T00:00:00.000+00:00", "sea"))
    await store.set_away(Away(200, "2026-01-01T00:00:00.000+00:00", "2026-01-02T00:00:00.000+00:00"))
    found = await store.aways([100, 200, 300])
    assert found == {100: Away(100, "2026-01-01T00:00:00.000+00:00", "2026-01-05T00:00:00.000+00:00", "sea"),
                     200: Away(200, "2026-01-01T00:00:00.000+00:00", "2026-01-02T00:00:00.000+00:00", "")}
    assert found[100].at("2026-01-04T23:59:59.999+00:00") and not found[100].at("2026-01-05T00:00:00.000+00:00")
    # /away end: the same away, ended now
    await store.set_away(Away(100, "2026-01-01T00:00:00.000+00:00", "2026-01-03T00:00:00.000+00:00", "sea"))
    assert (await store.aways([100]))[100].until == "2026-01-03T00:00:00.000+00:00"
    assert await store.aways([]) == {}


async def test_the_half_time_reminder_claim_leaves_the_game_due_at_its_deadline(store):
    """claim_reminder's then_due: a game with a deadline is due again at it (not at its next entry only)."""
    stored = await _create(store)
    assert await store.claim_reminder(stored.id, 1, "2026-01-02T00:00:00.000+00:00",
                                      then_due="2026-01-03T00:00:00.000+00:00")
    assert [q.game.id for q in await store.quiet_games(due_by="2026-01-02T23:59:59.999+00:00")] == []
    due = await store.quiet_games(due_by="2026-01-03T00:00:00.000+00:00")
    assert [(q.game.id, q.reminded_seq) for q in due] == [(stored.id, 1)]


async def test_the_deadline_notice_of_a_silence_is_claimed_once_after_its_reminder(store):
    """claim_deadline_notice: the silence after entry 1 had its half-time reminder (claimed, due again at
    its deadline); its deadline's notice is claimed once, and the game is then due no more until its next
    entry, whose silence is reminded again."""
    stored = await _create(store)
    assert await store.claim_reminder(stored.id, 1, "2026-01-02T00:00:00.000+00:00",
                                      then_due="2026-01-03T00:00:00.000+00:00")
    assert await store.claim_deadline_notice(stored.id, 1, "2026-01-03T00:00:00.000+00:00") is True
    assert await store.claim_deadline_notice(stored.id, 1, "2026-01-03T00:10:00.000+00:00") is False  # said
    assert [q.game.id for q in await store.quiet_games(due_by="2026-01-09T00:00:00.000+00:00")] == []
    stored, _ = await _add_unit(store, stored, "A1")
    assert await store.claim_deadline_notice(stored.id, 2, "2026-01-04T00:00:00.000+00:00") is True  # a new silence


async def test_a_users_choice_of_dm_notifications_is_kept_and_changed(store):
    assert await store.dm_users([100, 200]) == set()
    await store.set_notify(100, True)
    await store.set_notify(200, False)
    assert await store.dm_users([100, 200, 300]) == {100}
    await store.set_notify(100, False)
    await store.set_notify(200, True)
    assert await store.dm_users([100, 200]) == {200}
    assert await store.dm_users([]) == set()
