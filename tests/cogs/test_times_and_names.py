"""Times and names (issue 15): Discord timestamps that each reader sees in their own time zone, players
named by their display names in exports, markers in the ruleset's words after an undo, and a unit
that stays broken not called "unharmed" by the odds."""

from __future__ import annotations

import re

from tests.cogs.conftest import ALICE, BOB
from tests.cogs.helpers import asl_game, nhis_game


async def test_log_show_gives_each_entry_s_time_as_a_discord_timestamp(table):
    await asl_game(table)
    lines = (await table.send("log show")).embeds[0]["fields"][0]["value"].split("\n")
    assert all(re.match(r"#\d+ · <t:\d{10}:f> · ", line) for line in lines), lines


async def test_the_markdown_report_names_players_by_their_display_names(table):
    await asl_game(table)
    text = (await table.send("log export", {"format": "markdown"})).files[0].data.decode()
    assert "<@" not in text and "\u200b" not in text
    names = {m.id: m.name for m in table.fake.guild().members}
    assert f"- {names[ALICE]} plays Germans" in text and f"- {names[BOB]} plays Russians" in text


async def test_an_undo_names_markers_in_the_ruleset_s_words(table):
    await nhis_game(table)
    await table.send("morale", {"unit": "U1", "hit": 1, "dice": "6"}, user=ALICE)
    proposal = await table.send("undo", user=ALICE)
    accepted = await table.fake.click(proposal.message, proposal.message.custom_ids()[0], user_id=BOB)
    effects = {f["name"]: f["value"] for f in accepted.followups[0].embeds[0]["fields"]}["Effects"]
    assert effects == ("US Marine rifle squad U1: US Marine rifle squad, A1, shaken -> "
                       "US Marine rifle squad, A1, no markers (undone)")
    assert "shakeable" not in effects


async def test_the_odds_say_a_broken_unit_that_does_not_rally_stays_broken(table):
    await asl_game(table, "RPh")
    reply = await table.send("rally", {"unit": "A3", "preview": True})
    units = {f["name"]: f["value"] for f in reply.embeds[0]["fields"]}["End state of each unit"]
    assert "**4-6-7 A3**: reduced 2.8% · rallied 83.3% · stays broken 13.9%" in units.split("\n")
    assert "unharmed" not in units.split("A3**")[1]
