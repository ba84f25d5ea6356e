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


def test_a_copied_game_that_asked_for_reminders_is_due_in_its_new_database(tmp_path, pg_dsn):
    async def game_with_reminders(database):
        store = await open_store(database)
        try:
            await Referee(store).new_game(CHANNEL, 7, GM, "asl", ["Germans", "Russians"],
                                          options={"remind_after_hours": 1})
        finally:
            await store.close()

    async def due(database):
        store = await open_store(database)
        try:
            return [q.game.channel_id for q in await store.quiet_games(due_by="2999-01-01T00:00:00.000+00:00")]
        finally:
            await store.close()

    asyncio.run(game_with_reminders(pg_dsn))
    assert _copy(pg_dsn, tmp_path / "copy.sqlite3")[0] == 0
    assert asyncio.run(due(tmp_path / "copy.sqlite3")) == asyncio.run(due(pg_dsn)) == [CHANNEL]


def test_a_copy_into_a_database_that_holds_games_is_refused(tmp_path, pg_dsn):
    original = tmp_path / "referee.sqlite3"
    asyncio.run(_games_on(original))
    assert _copy(original, pg_dsn)[0] == 0
    code, _, err = _copy(original, pg_dsn)
    assert code == 2 and "the target database already holds games: copy into an empty one" in err
    code, _, err = _copy(tmp_path / "missing.sqlite3", pg_dsn)
    assert code == 2 and "missing.sqlite3 does not exist" in err


# --- a game with everything a game can hold, through the real service (issues 12, 13, 14) ---------

EVERY = 4  # the source's checkpoints: several in a short game (any K reads them back)
STILL_SEALED = "R1 waits in ambush at C5"


async def _everything_on(database) -> dict:
    """One game played through the service on production dice (committed seeds from ``secrets``):
    a roll, a game turn ended (its seed revealed), a roll under the next seed (still held), a /seal
    revealed and one still sealed, a secret roll, an undo by consent, a reminder sent, a result not
    yet seen. Returns what the test needs to find again."""
    from bot.core.sequence import side_to_act

    store = await open_store(database, checkpoint_every=EVERY)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        morale = {"action": "morale", "unit": "A1", "check": "NMC"}
        await referee.act(CHANNEL, GERMAN, morale, command="/morale")  # committed dice of turn 1
        turn = (await referee.game(CHANNEL)).turn
        while (game := await referee.game(CHANNEL)).turn == turn:  # the turn ends: its seed is revealed
            await referee.act(CHANNEL, GM, {"action": "done", "side": side_to_act(game)}, command="/done")
        await referee.act(CHANNEL, RUSSIAN, {**morale, "unit": "R1"}, command="/morale")  # turn 2's seed: held
        opened = await referee.seal(CHANNEL, GERMAN, "A1 holds the woods")
        await referee.reveal(CHANNEL, GERMAN, opened.acted.seq)
        still = await referee.seal(CHANNEL, RUSSIAN, STILL_SEALED)
        secret = await referee.secret_roll(CHANNEL, GERMAN, "DR", "sniper check")
        await referee.act(CHANNEL, GM, asl_squad("A2", 0, "B5"), command="/unit add")
        proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
        await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
        stored = await store.load_active(CHANNEL)
        assert await store.claim_reminder(stored.id, stored.last_seq, "2026-01-01T00:00:00.000+00:00")
        acted = await referee.act(CHANNEL, GM, {"action": "phase"}, command="/game phase",
                                  interaction_id=1_100_000_000_000_000_001)  # saved, never shown
        proofs = [e.dice_proof or {} async for e in store.iter_entries(stored.id)]
        return {"still": still.acted.seq, "secret": secret.acted.seq, "unshown": acted.entry.seq,
                "revealed_seed": any(proof.get("reveal") for proof in proofs)}
    finally:
        await store.close()


async def _everything(database) -> dict:
    """What a copy must carry, read back: the game, its log, proposals, extras, held secrets, verify."""
    from bot.store.copy import held_commitments

    store = await open_store(database)
    try:
        [game_id] = await store.game_ids()
        stored = await store.load_game(game_id)
        entries = [e async for e in store.iter_entries(game_id)]
        report = await Referee(store).verify(CHANNEL)
        return {"game": stored, "state_hash": state_hash(stored.game), "entries": entries,
                "undos": await store.undo_requests(game_id), "extras": await store.game_extras(game_id),
                "secrets": {c: await store.held_secret(c) for c in sorted(held_commitments(entries))},
                "verify": (report.ok, report.checked, report.reason)}
    finally:
        await store.close()


def test_a_game_with_undos_seals_and_secret_rolls_moves_to_postgres_and_back_and_verifies_on_each_end(
        tmp_path, pg_dsn):
    original = tmp_path / "referee.sqlite3"
    played = asyncio.run(_everything_on(original))
    assert played["revealed_seed"]  # a game turn's seed is in the log, and the next one is held
    before = asyncio.run(_everything(original))
    ok, checked, reason = before["verify"]
    assert ok and checked == before["game"].last_seq, reason
    assert "sealed orders: 3, 1 revealed and matching their commitments, 2 still sealed" in reason
    extras = before["extras"]
    assert extras.reminded == (before["game"].last_seq - 1, "2026-01-01T00:00:00.000+00:00")
    assert [seq for seq, _ in extras.unshown] == [played["unshown"]]
    assert len(extras.checkpoints) == before["game"].last_seq // EVERY
    assert len(before["secrets"]) >= 5 and all(before["secrets"].values())  # 2 seeds, 3 sealed texts

    code, out, err = _copy(original, pg_dsn)
    assert (code, err) == (0, ""), err
    assert f"{len(before['secrets'])} held secrets, {len(extras.checkpoints)} checkpoints: verified" in out
    assert asyncio.run(_everything(pg_dsn)) == before  # verify passes there too, with the same verdict
    back = tmp_path / "back.sqlite3"
    code, out, err = _copy(pg_dsn, back)
    assert (code, err) == (0, ""), err
    assert asyncio.run(_everything(back)) == before

    async def open_the_seal_and_roll_on(database):
        store = await open_store(database)
        try:
            referee = Referee(store)
            revealed = await referee.reveal(CHANNEL, RUSSIAN, played["still"])
            rolled = await referee.act(CHANNEL, GERMAN, {"action": "morale", "unit": "A1", "check": "NMC"},
                                       command="/morale")  # the held seed of this turn, on the copy
            report = await referee.verify(CHANNEL)
            checkpoint = await store.checkpoint_before(revealed.entry.game_id, played["unshown"])
            return (revealed.entry.order["text"], revealed.outcome.model_dump(), rolled.entry.dice,
                    report.ok, report.reason, checkpoint.game() is not None)
        finally:
            await store.close()

    on_postgres = asyncio.run(open_the_seal_and_roll_on(pg_dsn))
    on_sqlite = asyncio.run(open_the_seal_and_roll_on(back))
    text, _, dice, ok, reason, checkpoint_ok = on_sqlite
    assert (text, ok, checkpoint_ok) == (STILL_SEALED, True, True) and dice, reason
    assert "sealed orders: 3, 2 revealed and matching their commitments, 1 still sealed" in reason
    assert on_postgres == on_sqlite  # the same reveal and the same committed dice on either copy


def test_a_checkpoint_edited_by_hand_is_left_behind_and_the_copy_replays_from_the_one_before(tmp_path, pg_dsn):
    from .helpers import raw

    original = tmp_path / "referee.sqlite3"

    async def play():
        store = await open_store(original, checkpoint_every=EVERY)
        try:
            referee = Referee(store)
            await seated_asl_game(referee)
            for i in range(4):
                await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": f"D{i}"},
                                  command="/unit move")
        finally:
            await store.close()

    asyncio.run(play())
    assert [seq for (seq,) in raw(original, "SELECT seq FROM checkpoints ORDER BY seq")] == [4, 8]
    raw(original, "UPDATE checkpoints SET state = (SELECT state FROM checkpoints WHERE seq = 4) WHERE seq = 8")
    code, out, err = _copy(original, pg_dsn)
    assert (code, err) == (0, ""), err
    assert "1 checkpoints from" in out and "left behind 1 checkpoints that do not match their entries" in out

    async def on_copy():
        store = await open_store(pg_dsn)
        try:
            return (await store.checkpoint_before(1, 9)).seq, (await Referee(store).verify(CHANNEL)).ok
        finally:
            await store.close()

    assert asyncio.run(on_copy()) == (4, True)


def test_the_players_aways_and_choices_of_dms_move_with_the_store(tmp_path, pg_dsn):
    from bot.store import Away

    away = Away(100, "2026-01-01T00:00:00.000+00:00", "2026-01-05T00:00:00.000+00:00", "at sea")

    async def settings_on(database, write=False):
        store = await open_store(database)
        try:
            if write:
                await Referee(store).new_game(CHANNEL, 7, GM, "asl", ["Germans", "Russians"])
                await store.set_away(away)
                await store.set_notify(100, True)
                await store.set_notify(200, False)
            return await store.player_settings()
        finally:
            await store.close()

    expected = ([away], {100: True, 200: False})
    assert asyncio.run(settings_on(tmp_path / "referee.sqlite3", write=True)) == expected
    code, out, err = _copy(tmp_path / "referee.sqlite3", pg_dsn)
    assert (code, err) == (0, ""), err
    assert "players' settings: 1 aways, 2 choices of DMs" in out
    assert asyncio.run(settings_on(pg_dsn)) == expected
    assert _copy(pg_dsn, tmp_path / "back.sqlite3")[0] == 0
    assert asyncio.run(settings_on(tmp_path / "back.sqlite3")) == expected
