"""``python -m bot store copy FROM TO``: every game with its whole log (undos included) goes from
SQLite to PostgreSQL and back; /log verify's code passes on each copy, the states and their hashes
are equal, and the entries read back equal to the originals, hash for hash."""

from __future__ import annotations

import asyncio
import io

from bot.cli import main
from bot.record import state_hash
from bot.service import Referee
from bot.store import open_store

from .helpers import CHANNEL, GERMAN, GM, RUSSIAN, asl_squad, seated_asl_game

OTHER = 20  # a channel whose game ended, then a new one began


async def _games_on(database) -> None:
    store = await open_store(database)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        await referee.act(CHANNEL, GM, asl_squad("A2", 0, "B5"), command="/unit add")
        proposal = await referee.propose_undo(CHANNEL, RUSSIAN)  # undone by consent: an undo entry
        await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
        await referee.propose_undo(CHANNEL, RUSSIAN)  # a proposal still pending when the server moves
        await seated_asl_game(referee, OTHER)
        await referee.end_game(OTHER, GM)
        await seated_asl_game(referee, OTHER)
    finally:
        await store.close()


async def _contents(database) -> dict:
    """Every game: its row, its state hash, its entries, its undo proposals, and /log verify's verdict."""
    store = await open_store(database)
    try:
        found = {}
        for game_id in await store.game_ids():
            stored = await store.load_game(game_id)
            found[game_id] = (stored, state_hash(stored.game), [e async for e in store.iter_entries(game_id)],
                              await store.undo_requests(game_id))
        verdicts = {channel: await Referee(store).verify(channel) for channel in (CHANNEL, OTHER)}
        return {"games": found, "verdicts": {c: (v.ok, v.checked, v.reason) for c, v in verdicts.items()}}
    finally:
        await store.close()


def _copy(source, target) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["store", "copy", str(source), str(target)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_server_moves_from_sqlite_to_postgres_and_back_with_every_log_verifying(tmp_path, pg_dsn):
    original = tmp_path / "referee.sqlite3"
    asyncio.run(_games_on(original))
    before = asyncio.run(_contents(original))
    assert len(before["games"]) == 3 and all(ok for ok, _, _ in before["verdicts"].values())
    assert sum(len(undos) for *_, undos in before["games"].values()) == 2

    code, out, err = _copy(original, pg_dsn)
    assert (code, err) == (0, ""), err
    assert "copied 3 games, 18 log entries, 2 undo proposals" in out and out.count(": verified") == 3
    assert asyncio.run(_contents(pg_dsn)) == before  # rows, states, hashes, entries, proposals, verdicts

    back = tmp_path / "back.sqlite3"
    code, out, err = _copy(pg_dsn, back)
    assert (code, err) == (0, ""), err
    assert asyncio.run(_contents(back)) == before

    async def carry_on(database):  # the copy takes new commands and games where the original stopped
        store = await open_store(database)
        try:
            acted = await Referee(store).act(CHANNEL, GM, asl_squad("A9", 0, "B5"), command="/unit add")
            created = await Referee(store).new_game(30, 7, GM, "asl", ["Germans", "Russians"])
            return acted.entry.seq, created.entry.game_id
        finally:
            await store.close()

    assert asyncio.run(carry_on(pg_dsn)) == asyncio.run(carry_on(back)) == (before["games"][1][0].last_seq + 1, 4)


def test_a_copy_into_a_database_that_holds_games_is_refused(tmp_path, pg_dsn):
    original = tmp_path / "referee.sqlite3"
    asyncio.run(_games_on(original))
    assert _copy(original, pg_dsn)[0] == 0
    code, _, err = _copy(original, pg_dsn)
    assert code == 2 and "the target database already holds games: copy into an empty one" in err
    code, _, err = _copy(tmp_path / "missing.sqlite3", pg_dsn)
    assert code == 2 and "missing.sqlite3 does not exist" in err
