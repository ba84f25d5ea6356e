"""Game options typed as written (issue 17, finding 6): `remind_after_hours=1` is one hour and
`undo_minutes=1` one minute, not "yes"; yes/no (true/false, on/off) are booleans."""

from __future__ import annotations

from datetime import timedelta

from bot.pacing import reminder_hours
from bot.core.commands import parse_options
from tests.cogs.conftest import refusal


def test_numbers_stay_numbers_and_words_are_booleans():
    assert parse_options("remind_after_hours=1 undo_minutes=1 hours=0 night=yes fog=off hot=true x=1.5") == {
        "remind_after_hours": 1, "undo_minutes": 1, "hours": 0, "night": True, "fog": False, "hot": True, "x": 1.5}
    assert type(parse_options("a=1")["a"]) is int and type(parse_options("a=0")["a"]) is int


async def test_one_hour_and_one_minute_are_kept_and_used(table):
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians",
                                   "options": "remind_after_hours=1 undo_minutes=1"})
    game = await table.game()
    assert game.options["remind_after_hours"] == 1 and game.options["undo_minutes"] == 1
    assert reminder_hours(game) == 1.0  # was None: True is not a number of hours
    assert table.bot.referee._undo_expiry(game) == timedelta(minutes=1)  # was the 10-minute default


async def test_a_number_option_that_is_not_a_number_is_refused_at_game_new(table):
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians",
                                           "options": "remind_after_hours=yes"})
    assert refusal(reply).replace("\\_", "_") == (
        "'remind_after_hours' takes a number from 0.1 to 8,760 (hours of silence before a reminder), "
        "e.g. remind_after_hours=1")
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians",
                                           "options": "undo_minutes=0"})
    assert "'undo_minutes' takes a number from 1 to 10,080" in refusal(reply).replace("\\_", "_")
