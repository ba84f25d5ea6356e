"""A re-delivered interaction is answered from the log, whatever happened to the game since."""

from tests.cogs.helpers import asl_game, end_game


async def test_a_morale_check_redelivered_after_the_game_ended_gets_its_recorded_answer(table):
    await asl_game(table)
    first = await table.send("morale", {"unit": "A1", "dice": "2 5"})
    await end_game(table, manager=True)
    entries_before = (await table.bot.referee.log(table.channel)).total

    again = await table.fake.deliver_again(first)

    assert (await table.bot.referee.log(table.channel)).total == entries_before  # nothing rolled or logged
    assert again.record.deliveries_received == 2
    # the second answer is the first one again (Discord refuses it: the interaction was answered),
    # not "There is no game in this channel"
    second = again.record.rejected[0]
    assert second.data["embeds"] == again.record.callbacks[0].data["embeds"]
    assert "rolled 2+5 = 7 (white 2, colored 5)" in second.data["embeds"][0]["fields"][0]["value"].splitlines()[0]
