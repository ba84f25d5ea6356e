"""/log show, /log verify, /log export end to end, and exactly-once through the emulator."""

import csv
from datetime import datetime
import io
import json
import sqlite3
import sys

from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import asl_game, last_entry
from tests.store.helpers import CountingDice


def _sql(table, statement, params=()):
    """Change the database file by hand, as someone with access to the file could."""
    with sqlite3.connect(table.database) as db:
        db.execute(statement, params)


async def test_log_show_gives_the_newest_page_by_default_publicly(table):
    await asl_game(table)  # entries 1-14: creation, joins, set-up, phase
    await table.send("morale", {"unit": "A1", "dice": "3 4"})
    reply = await table.send("log show", user=CAROL)  # anyone may read the record
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == "Log of game 1"
    assert embed["footer"] == {"text": "page 2/2 · newest last"}
    (block,) = embed["fields"]
    assert block["name"] == "Entries 11-15 of 15"
    lines = block["value"].split("\n")
    assert len(lines) == 5
    entry = await last_entry(table)
    stamp = int(datetime.fromisoformat(entry.time).timestamp())  # Discord shows it in each reader's zone
    assert lines[-1] == (f"#15 · <t:{stamp}:f> · alice · /morale · "
                         "NMC 4-6-7 A1: rolled 3+4 = 7 (white 3, colored 4), final DR 6 (manual) · "
                         "4-6-7 A1: Normal Morale Check, Final DR 6 vs 7 -> passes")


async def test_log_show_pages_from_the_start_and_refuses_a_page_past_the_end(table):
    await asl_game(table)
    first = await table.send("log show", {"page": 1})
    lines = first.embeds[0]["fields"][0]["value"].split("\n")
    assert first.embeds[0]["fields"][0]["name"] == "Entries 1-10 of 14"
    assert lines[0].endswith(f"· gm · /game new · New Advanced Squad Leader game: Germans vs Russians (Test)")
    refused = await table.send("log show", {"page": 3})
    assert refused.ephemeral and refused.embeds[0]["description"] == "the log has 2 pages; there is no page 3"


async def test_log_verify_passes_on_an_untouched_log(table):
    await asl_game(table)
    reply = await table.send("log verify", user=CAROL)
    assert reply.message.embeds[0]["title"] == "The log checks out"
    assert reply.message.embeds[0]["description"].startswith("all 14 entries check out")


async def test_an_entry_edited_in_the_database_file_is_named_by_log_verify(table):
    await asl_game(table)
    await table.send("morale", {"unit": "R1", "dice": "6 6"}, user=BOB)  # #15: R1 breaks
    # someone with the file turns the boxcars into snake eyes
    _sql(table, "UPDATE log_entries SET dice = '[1,1]' WHERE seq = 15")
    reply = await table.send("log verify")
    embed = reply.message.embeds[0]
    assert embed["title"] == "Entry #15 does not check out"
    assert embed["description"] == "entry #15 was changed after it was written: its content does not match its hash"


async def test_an_entry_deleted_from_the_database_file_is_found_by_log_verify(table):
    await asl_game(table)
    _sql(table, "DELETE FROM log_entries WHERE seq = 7")
    reply = await table.send("log verify")
    embed = reply.message.embeds[0]
    assert embed["title"] == "Entry #7 does not check out"
    assert embed["description"] == "entry #7 is missing: the log goes from #6 to #8"


async def test_the_newest_entry_deleted_is_found_too(table):
    await asl_game(table)
    _sql(table, "DELETE FROM log_entries WHERE seq = 14")
    reply = await table.send("log verify")
    assert reply.message.embeds[0]["title"] == "Entry #14 does not check out"
    assert "entry #14 is missing" in reply.message.embeds[0]["description"]


async def test_a_duplicate_interaction_create_rolls_once_logs_once_and_answers_the_same(table):
    await asl_game(table)
    counter = CountingDice(faces=(2, 5))
    table.bot.referee.dice = counter  # the bot's own dice, counted
    reply = await table.send("morale", {"unit": "A1"})
    again = await table.fake.deliver_again(reply)
    assert again.record.deliveries == 2 and again.record.deliveries_received == 2
    assert counter.drawn == 2  # one DR: two dice, once
    assert (await table.bot.referee.log(table.channel)).total == 15  # one entry
    first, second = again.record.callbacks[0], again.record.rejected[0]  # Discord refuses a 2nd answer
    assert second.data["embeds"] == first.data["embeds"]  # ... and it was the same answer
    assert "rolled 2+5 = 7 (white 2, colored 5)" in first.data["embeds"][0]["fields"][0]["value"].splitlines()[0]
    assert len(table.fake.channel_messages(table.channel)) == 1  # no error, no second post


async def test_export_json_attaches_the_replayable_log(table):
    await asl_game(table)
    await table.send("morale", {"unit": "A1", "dice": "3 4"})
    reply = await table.send("log export", {"format": "json"}, user=CAROL)
    assert reply.content == "Game 1: 15 log entries as JSON"
    (sent,) = reply.files
    assert sent.filename == "game-1-log.json"
    data = json.loads(sent.data)
    assert [e["seq"] for e in data["entries"]] == list(range(1, 16))
    assert data["entries"][-1]["dice"] == [3, 4]


async def test_an_export_slower_than_three_seconds_is_deferred_at_once_and_arrives(table, monkeypatch):
    # Discord gives 3 s for the first response: a long log's export defers before it works
    await asl_game(table)
    referee = table.bot.referee
    snapshot = referee.log_snapshot

    async def slow_export(channel_id, **kwargs):
        table.fake.clock.advance(20)  # Discord's clock: the bot spent 20 s reading the log
        return await snapshot(channel_id, **kwargs)

    monkeypatch.setattr(referee, "log_snapshot", slow_export)
    reply = await table.send("log export", {"format": "json"})
    assert reply.deferred and not reply.record.late and not reply.record.refused
    assert reply.content == "Game 1: 14 log entries as JSON" and reply.files[0].filename == "game-1-log.json"


async def test_export_csv_has_one_row_per_die(table):
    await asl_game(table)
    await table.send("morale", {"unit": "A1", "dice": "3 4"})
    await table.send("morale", {"unit": "R1", "dice": "2 2 6"}, user=BOB)
    reply = await table.send("log export", {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(reply.files[0].data.decode())))
    A, B = "alice", "bob"  # not in the bot's cache (no members intent): fetched from Discord
    assert [(r["seq"], r["actor"], r["kind"], r["die"], r["value"], r["manual"]) for r in rows] == [
        ("15", A, "DR", "1", "3", "yes"), ("15", A, "DR", "2", "4", "yes"),
        ("16", B, "DR", "1", "2", "yes"), ("16", B, "DR", "2", "2", "yes"), ("16", B, "unused", "1", "6", "yes")]
    assert rows[0]["purpose"] == "NMC 4-6-7 A1" and rows[0]["actor_id"] == str(ALICE)


async def test_export_markdown_is_an_after_action_report(table):
    await asl_game(table)
    await table.send("morale", {"unit": "R1", "dice": "6 6"}, user=BOB)
    reply = await table.send("log export", {"format": "markdown"})
    text = reply.files[0].data.decode()
    assert text.startswith("# After-action report: Test\n")
    assert "## Turn 1\n\n### Rally Phase (Germans)\n\n#### #2 · /game join · " in text
    assert f"### Prep Fire Phase (Germans)\n\n#### #15 · /morale · bob · " in text
    assert text.endswith("- Effects\n  - 2-2-7 R1: Good Order -> broken, DM (reduced to 2-2-7)\n")


async def test_an_export_over_the_attachment_limit_comes_in_numbered_parts(table, monkeypatch):
    await asl_game(table)
    # the cog as loaded by the bot (load_extension does not set it on the cogs package)
    monkeypatch.setattr(sys.modules["cogs.log"], "attachment_limit", lambda interaction: 4000)
    reply = await table.send("log export", {"format": "csv"})
    assert reply.content.startswith("Game 1: 14 log entries as CSV")  # no dice yet: one small file
    reply = await table.send("log export", {"format": "json"})
    messages = reply.all_messages()
    parts = [f for m in messages for f in m.files]
    assert len(parts) > 2 and all(len(p.data) <= 4000 for p in parts)
    assert [p.filename for p in parts][:2] == [f"game-1-log.part1of{len(parts)}.json",
                                               f"game-1-log.part2of{len(parts)}.json"]
    assert reply.content.endswith(f"in {len(parts)} parts of at most 4,000 bytes")
    whole = json.loads(b"".join(p.data for p in parts))  # joined in order: the export
    assert len(whole["entries"]) == 14
