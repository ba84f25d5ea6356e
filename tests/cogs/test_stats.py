"""/stats dice end to end: counts, means, expected, chi-square and the chart attached."""

from bot.pictures import chart_png
from bot.stats import tally
from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import asl_game
from tests.store.helpers import CountingDice
from tests.test_stats import decode


async def expected_chart(table, who: str, **only) -> bytes:
    """The chart of the channel's log for ``who`` (chart_layout's header names them, tests/test_stats.py)."""
    _, entries = await table.bot.referee.log_snapshot(table.channel)
    return chart_png(tally([e.export() for e in entries], **only), who)


async def rolled_game(table):
    """Alice takes two NMCs and Bob one with the bot's dice (2,5 then 6,6 then 1,3); Bob one
    with manual dice, which the statistics leave out."""
    await asl_game(table)
    table.bot.referee.dice = CountingDice(faces=(2, 5, 6, 6, 1, 3))
    await table.send("morale", {"unit": "A1"})
    await table.send("morale", {"unit": "A2"})
    await table.send("morale", {"unit": "R2"}, user=BOB)
    await table.send("morale", {"unit": "R1", "dice": "4 4"}, user=BOB)


async def test_stats_dice_counts_every_die_and_attaches_the_chart(table):
    await rolled_game(table)
    reply = await table.send("stats dice", user=CAROL)
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == "Dice statistics: everyone"
    assert embed["description"] == (
        "3 rolls by the bot's dice; 2 manual dice left out (thrown at the table). "
        "A small p (below 0.01) says the dice look unfair; a large one says nothing is wrong.")
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields == {
        "d6 faces: 6, mean 3.83 (fair: 3.5)": (
            "1: 1 (expected 1.0)\n2: 1 (expected 1.0)\n3: 1 (expected 1.0)\n4: 0 (expected 1.0)\n"
            "5: 1 (expected 1.0)\n6: 2 (expected 1.0)\nchi-square test: needs at least 30 (5 expected per cell)"),
        "2d6 totals: 3, mean 7.67 (fair: 7)": (
            "2: 0 (expected 0.1)\n3: 0 (expected 0.2)\n4: 1 (expected 0.2)\n5: 0 (expected 0.3)\n"
            "6: 0 (expected 0.4)\n7: 1 (expected 0.5)\n8: 0 (expected 0.4)\n9: 0 (expected 0.3)\n"
            "10: 0 (expected 0.2)\n11: 0 (expected 0.2)\n12: 1 (expected 0.1)\n"
            "chi-square test: needs at least 180 (5 expected per cell)"),
        "By player and by side": (
            f"<@{ALICE}>: 2 rolls; d6: 4, mean 4.75; 2d6: 2, mean 9.50\n"
            f"<@{BOB}>: 1 roll; d6: 2, mean 2.00; 2d6: 1, mean 4.00\n"
            "Germans: 2 rolls; d6: 4, mean 4.75; 2d6: 2, mean 9.50\n"
            "Russians: 1 roll; d6: 2, mean 2.00; 2d6: 1, mean 4.00"),
    }
    assert embed["image"]["url"] == "attachment://dice.png"
    (chart,) = reply.files
    assert chart.filename == "dice.png" and len(chart.data) < 8 * 1024 * 1024
    assert decode(chart.data).size == (640, 40 + 2 * 272)  # the header, d6 faces and 2d6 totals
    assert chart.data == await expected_chart(table, "everyone")


async def test_stats_dice_for_one_player_and_for_one_side(table):
    await rolled_game(table)
    alice = await table.send("stats dice", {"player": ALICE})
    assert alice.embeds[0]["title"] == "Dice statistics: alice"
    assert alice.files[0].data == await expected_chart(table, "alice", player=ALICE)  # the chart names her
    assert "By player and by side" not in {f["name"] for f in alice.embeds[0]["fields"]}
    assert alice.embeds[0]["description"].startswith("2 rolls by the bot's dice.")
    russians = await table.send("stats dice", {"side": "russians"})
    assert russians.embeds[0]["title"] == "Dice statistics: Russians"
    assert russians.files[0].data == await expected_chart(table, "Russians", side=1)
    assert russians.embeds[0]["description"].startswith("1 roll by the bot's dice; 2 manual dice left out")
    refused = await table.send("stats dice", {"side": "Italians"})
    assert refused.ephemeral
    assert refused.embeds[0]["description"] == "no side 'Italians' in this game (sides: Germans, Russians)"


async def test_stats_dice_before_any_roll_says_so(table):
    await asl_game(table)
    reply = await table.send("stats dice")
    assert reply.embeds[0]["fields"] == [{"name": "No dice yet", "value": "nothing was rolled", "inline": False}]
    assert decode(reply.files[0].data).size == (640, 40 + 272)  # the d6 panel, empty
