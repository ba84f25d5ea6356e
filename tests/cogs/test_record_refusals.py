"""The record commands (/log, /undo, /stats) in a channel with no game, and /stats' autocomplete."""

import pytest

from tests.cogs.conftest import GENERAL
from tests.cogs.helpers import asl_game

NO_GAME = "There is no game in this channel: start one with /game new"


@pytest.mark.parametrize("command, options", [
    ("log show", {}), ("log verify", {}), ("log export", {"format": "json"}), ("undo", {}), ("stats dice", {}),
])
async def test_a_record_command_in_a_channel_without_a_game_is_refused_privately(table, command, options):
    reply = await table.send(command, options, channel=GENERAL)
    assert reply.ephemeral
    assert [e["description"] for e in reply.embeds] == [NO_GAME]
    assert table.fake.channel_messages(GENERAL) == []  # nothing public was posted


async def test_stats_side_autocomplete_offers_the_games_sides(table):
    await asl_game(table)
    choices = await table.autocomplete("stats dice", {"side": "ru"}, focused="side")
    assert choices == [{"name": "Russians", "value": "Russians"}]
