"""Game options typed as written (issue 17, finding 6) and checked against one catalogue (issue 15):
`remind_after_hours=1` is one hour and `undo_minutes=1` one minute, not "yes"; an unknown option or a
bad value is refused at /game new and at /game options with the valid ones listed; /game options
shows every option with its value, and only the game master changes them (a logged order)."""

from __future__ import annotations

from datetime import timedelta

from bot.core.commands import parse_options
from bot.core.options import GENERAL, catalogue
from bot.core.rulesets import get_ruleset
from bot.pacing import reminder_hours
from tests.cogs.conftest import refusal
from tests.cogs.helpers import asl_game, last_entry

NEW = {"ruleset": "asl", "sides": "Germans, Russians"}


def test_numbers_stay_numbers_and_words_are_booleans():
    assert parse_options("remind_after_hours=1 undo_minutes=1 hours=0 night=yes fog=off hot=true x=1.5") == {
        "remind_after_hours": 1, "undo_minutes": 1, "hours": 0, "night": True, "fog": False, "hot": True, "x": 1.5}
    assert type(parse_options("a=1")["a"]) is int and type(parse_options("a=0")["a"]) is int


async def test_one_hour_and_one_minute_are_kept_and_used(table):
    await table.as_gm("game new", NEW | {"options": "remind_after_hours=1 undo_minutes=1"})
    game = await table.game()
    assert game.options["remind_after_hours"] == 1 and game.options["undo_minutes"] == 1
    assert reminder_hours(game) == 1.0  # was None: True is not a number of hours
    assert table.bot.referee.undo.undo_expiry(game) == timedelta(minutes=1)


async def test_an_undo_waits_48_hours_by_default(table):
    await table.as_gm("game new", NEW)
    assert table.bot.referee.undo.undo_expiry(await table.game()) == timedelta(hours=48)


async def test_a_number_option_that_is_not_a_number_is_refused_at_game_new(table):
    reply = await table.as_gm("game new", NEW | {"options": "remind_after_hours=twelve typo_opt=3"})
    assert refusal(reply).replace("\\_", "_") == (
        "the game option remind_after_hours takes a number from 0.1 to 8,760, not 'twelve': "
        "e.g. remind_after_hours=12 (hours of silence after which the side to act is reminded once; "
        "no reminders unless set)")
    reply = await table.as_gm("game new", NEW | {"options": "undo_minutes=0"})
    assert "undo_minutes takes a number from 1 to 10,080, not '0'" in refusal(reply).replace("\\_", "_")
    assert (await table.snapshot())[0] is None  # nothing was started


async def test_an_unknown_option_is_refused_with_the_nearest_name_and_the_list(table):
    reply = await table.as_gm("game new", NEW | {"options": "open_seeting=yes"})
    text = refusal(reply).replace("\\_", "_")
    assert text.startswith("'open_seeting' is not a game option of Advanced Squad Leader "
                           "(did you mean open_seating?); the options are details, gm_peeks, manual_dice, open_seating, ")
    assert "heat_of_battle" in text and "night" in text and "cd_morale_direction" not in text


async def test_an_option_of_another_variant_is_refused(table):
    reply = await table.as_gm("game new", NEW | {"variant": "starter", "options": "heat_of_battle=table"})
    assert refusal(reply).replace("\\_", "_") == (
        "the game option heat_of_battle is for Full ASL games only; this game plays ASL Starter Kit")


async def test_game_options_shows_every_option_with_its_value(table):
    await table.as_gm("game new", NEW | {"options": "night=yes"})
    reply = await table.send("game options", {})
    text = "\n".join(f["value"] for f in reply.embeds[0]["fields"]).replace("\\_", "_")
    asl = get_ruleset("asl")
    for option in catalogue(asl):
        assert f"**{option.name}** = " in text
    assert "**night** = yes: " in text and "**undo_minutes** = 2,880 (default)" in text
    assert "**elr** (Experience Level Rating, A19.1): Germans none, Russians none" in text
    assert reply.ephemeral


async def test_the_game_master_changes_options_in_one_logged_order(table):
    await asl_game(table)
    reply = await table.as_gm("game options", {"set": "undo_minutes=60 open_seating=yes details=default"})
    assert reply.embeds[0]["title"].replace("\\_", "_") == \
        "Game options changed: details, open_seating, undo_minutes"
    game = await table.game()
    assert game.options["undo_minutes"] == 60 and game.options["open_seating"] is True
    assert "details" not in game.options
    entry = await last_entry(table)
    assert entry.order == {"action": "options_set",
                           "changes": {"undo_minutes": 60, "open_seating": True, "details": "default"}}
    lines = [s["label"] for s in entry.outcome["trail"]]
    assert lines == ["details: always -> button", "open_seating: no -> yes", "undo_minutes: 2,880 -> 60"]
    report = await table.bot.referee.verify(table.channel)
    assert report.ok  # the change replays


async def test_only_the_game_master_changes_options_and_bad_values_are_refused(table):
    await asl_game(table)
    reply = await table.send("game options", {"set": "undo_minutes=60"})
    assert "game master" in refusal(reply)
    reply = await table.as_gm("game options", {"set": "heat_of_battle=rolls"})
    assert refusal(reply).replace("\\_", "_").startswith(
        "the game option heat_of_battle takes one of mark, table, not 'rolls': e.g. heat_of_battle=table")
    reply = await table.as_gm("game options", {"set": "asl_self_rally=1"})
    assert refusal(reply).replace("\\_", "_").startswith("asl_self_rally is kept by the bot itself")
    assert "undo_minutes" not in (await table.game()).options


def test_every_option_the_bot_reads_is_in_the_catalogue():
    names = {o.name for o in GENERAL}
    assert {"details", "open_seating", "remind_after_hours", "undo_minutes"} <= names
    asl = {o.name for o in catalogue(get_ruleset("asl"))}
    assert {"heat_of_battle", "night", "jungle", "heat_of_battle_drms"} <= asl
    assert {"cd_morale_direction", "cd_morale_ratings"} <= {o.name for o in catalogue(get_ruleset("cd"))}
