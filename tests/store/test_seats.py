"""The seats index behind /games (issue 27), on SQLite and on PostgreSQL: a player's games on every
server, written with the state as players join and leave (and as an undo restores a state), read by
the user's id through the index, never a scan of the games; a database older than it gets its
games' seats at the upgrade."""

import pytest

from bot.core.api import new_game, resolve
from bot.record import GENESIS_HASH, LogEntry, state_hash
from bot.store import PostgresStore, SqliteStore, is_postgres, open_store
from bot.store.base import seated

ALICE, BOB, CAROL = 11, 12, 13


def _entry(game_id, seq, prev_hash, game, order, time_s=0):
    return LogEntry.seal(prev_hash=prev_hash, game_id=game_id, seq=seq,
                         time=f"2026-01-01T00:{seq:02d}:{time_s:02d}.000+00:00", actor=1, command="/test",
                         order=order, outcome={"seq": seq}, state_hash=state_hash(game))


async def _create(store, channel, guild):
    game = new_game("asl", sides=["Blue", "Red"], gm=1, sequence=1)
    stored, _ = await store.create_game(channel, guild, game,
                                        lambda gid: _entry(gid, 1, GENESIS_HASH, game, {"action": "new_game"}))
    return stored


async def _act(store, stored, order):
    game = resolve(stored.game, order).game
    return await store.append(stored, game, _entry(stored.id, stored.last_seq + 1, stored.head_hash, game, order))


def join(side, player):
    return {"action": "join", "side": side, "player": player, "approved_by": 1}


async def test_a_players_games_on_every_server_follow_joins_and_leaves(store):
    one = await _act(store, await _create(store, 10, 7), join(0, ALICE))
    one = await _act(store, one, join(1, BOB))
    two = await _act(store, await _create(store, 20, 8), join(1, ALICE))  # another server
    await _create(store, 30, 8)  # nobody seated
    # oldest newest entry first: game two's entry #2 (00:02) before game one's #3 (00:03)
    assert [(g.game.id, g.game.guild_id) for g in await store.player_games(ALICE)] == [(two.id, 8), (one.id, 7)]
    assert [g.game.id for g in await store.player_games(BOB)] == [one.id]
    assert await store.player_games(CAROL) == []
    found = (await store.player_games(ALICE))[1]
    assert found.game.game == one.game and found.last_time == "2026-01-01T00:03:00.000+00:00"
    one = await _act(store, one, {"action": "leave", "player": ALICE})
    assert [g.game.id for g in await store.player_games(ALICE)] == [two.id]
    await store.end_game(two, _entry(two.id, two.last_seq + 1, two.head_hash, two.game, {"action": "end_game"}))
    assert await store.player_games(ALICE) == []  # an ended game is no longer listed


async def test_an_undo_restoring_a_state_restores_its_seats(store):
    stored = await _act(store, await _create(store, 10, 7), join(0, ALICE))
    before = stored.game
    stored = await _act(store, stored, join(1, BOB))
    request = await store.create_undo(_undo_request(stored))
    entry = _entry(stored.id, stored.last_seq + 1, stored.head_hash, before, {"action": "undo"})
    await store.apply_undo(stored, before, entry, request.id, ALICE)
    assert await store.player_games(BOB) == []
    assert [g.game.id for g in await store.player_games(ALICE)] == [stored.id]


def _undo_request(stored):
    from bot.store import UndoRequest

    return UndoRequest(id=0, game_id=stored.id, target_seq=stored.last_seq, head_seq=stored.last_seq,
                       head_hash=stored.head_hash, proposer=BOB, proposed_at="2026-01-01T01:00:00.000+00:00",
                       expires_at="2026-01-02T01:00:00.000+00:00", state_before=stored.game.model_dump_json())


async def test_the_players_games_are_read_through_the_seats_index(store):
    sql = ("SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id JOIN log_entries e ON e.game_id = g.id "
           "AND e.seq = g.last_seq WHERE s.user_id = 11 AND g.status = 'active'")
    if isinstance(store, PostgresStore):
        async with store._pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL enable_seqscan = off")
            plan = " ".join(row[0] for row in await conn.fetch(f"EXPLAIN {sql}"))
        assert "seats_pkey" in plan and "Seq Scan" not in plan, plan
        return
    async with store._db.execute(f"EXPLAIN QUERY PLAN {sql}") as cursor:
        plan = " ".join(row[-1] for row in await cursor.fetchall())
    assert "SEARCH s USING PRIMARY KEY (user_id=?)" in plan and "SCAN" not in plan, plan


async def test_an_older_database_gets_its_games_seats_at_the_upgrade(store_database):
    from bot.store.postgres import SEATS_SCHEMA as PG_SEATS
    from bot.store.sqlite import SEATS_SCHEMA

    postgres = is_postgres(str(store_database))
    upto = (PG_SEATS if postgres else SEATS_SCHEMA) - 1
    kind = PostgresStore if postgres else SqliteStore
    old = await kind.open(store_database, upto=upto)
    try:
        stored = await _act(old, await _create(old, 10, 7), join(0, ALICE))
        assert seated(stored.game) == (ALICE,)
        assert await old.player_games(ALICE) == []  # no index yet
    finally:
        await old.close()
    store = await open_store(store_database)
    try:
        assert [g.game.id for g in await store.player_games(ALICE)] == [stored.id]
        stored = await store.load_game(stored.id)
        await _act(store, stored, join(1, BOB))  # and kept up from then on
        assert [g.game.id for g in await store.player_games(BOB)] == [stored.id]
    finally:
        await store.close()


@pytest.mark.parametrize("sides", [[[ALICE], [ALICE, BOB]], [[], []]])
def test_seated_lists_each_player_once(sides):
    game = new_game("asl", sides=["Blue", "Red"])
    for side, players in zip(game.sides, sides):
        side.players = players
    assert seated(game) == tuple(dict.fromkeys(p for players in sides for p in players))


async def test_the_schema_9_fixture_lists_its_players_games_after_the_upgrade(tmp_path):
    import shutil
    import sqlite3
    from pathlib import Path

    from bot.store.sqlite import unpack_state

    path = tmp_path / "v0009.sqlite3"
    shutil.copy(Path(__file__).with_name("fixtures") / "v0009.sqlite3", path)
    with sqlite3.connect(path) as db:
        expected = {user: sorted(game_id for game_id, state in db.execute(
            "SELECT id, state FROM games WHERE status = 'active'") if user in seated(unpack_state(state)))
            for user in (100, 200)}  # the fixture's alice and bob (make_fixtures.py)
    assert expected[100] and expected[200]
    store = await SqliteStore.open(path)
    try:
        for user, games in expected.items():
            assert sorted(g.game.id for g in await store.player_games(user)) == games
    finally:
        await store.close()
