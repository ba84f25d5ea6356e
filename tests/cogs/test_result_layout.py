"""Results as players read them at a busy table (issue 15): outcome first, the whole trail one
click away. The real client against the loopback Discord; the games here use the default
layout (tests of the rules' trails use ``details=always``: tests/cogs/helpers.py start_game)."""

from __future__ import annotations

import discord

from bot.replies import DetailsButton
from tests.cogs.conftest import ALICE, BOB, CAROL, GM
from tests.cogs.helpers import asl_game


def lines_of(embed: dict) -> list[str]:
    """What a player reads, line by line: the title, then the description (no fields)."""
    return [embed["title"], *embed.get("description", "").splitlines()]


async def fire_with_checks(table):
    """The standard ASL fire: three firers and a leader on a stack of three in woods; 1MC for each."""
    await asl_game(table, details=False)
    return await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2,
                                     "dice": "4 2 3 2 2 4 5 4"})


async def test_a_fire_with_its_morale_checks_reads_outcome_first_in_a_dozen_lines(table):
    fired = await fire_with_checks(table)
    [embed] = fired.embeds
    assert "fields" not in embed  # no trail in the channel: one short message
    assert lines_of(embed) == [
        "R2 broken — 8 FP (IFT 8) vs B5: DR 6 -> 1MC",  # who it happened to, then the roll
        "Advanced Squad Leader · Test · turn 1, Prep Fire Phase · Germans to act",
        "4-4-7 R2: Good Order → broken, DM",
        "4-6-7 A1, 4-6-7 A2, 9-1 G1: marked Prep Fire",
        "🎲 DR 6: white 4, colored 2 (IFT attack)",
        "🎲 DR 5: white 3, colored 2 (MC 8-1 L1)",
        "🎲 DR 6: white 2, colored 4 (MC 4-4-7 R1)",
        "🎲 DR 9: white 5, colored 4 (MC 4-4-7 R2)",
        "manual dice (given by the players)",
    ]
    assert len(lines_of(embed)) <= 12 and len(embed["title"]) + len(embed["description"]) < 500
    assert embed["footer"] == {"text": "log #15"}
    assert fired.message.custom_ids() == ["odds:1:15", "details:1:15"]


async def test_the_details_button_shows_the_whole_trail_to_the_presser_even_after_a_restart(table):
    fired = await fire_with_checks(table)
    await table.restart()  # the button is rebuilt from its custom_id, the trail read from the log
    for user in (CAROL, BOB):  # anyone may read it, even from outside the game
        pressed = await table.fake.click(fired.message, "details:1:15", user_id=user)
        assert pressed.ephemeral and pressed.message.flags == 64
        [embed] = pressed.embeds
        assert embed["title"] == "8 FP (IFT 8) vs B5: DR 6 -> 1MC"
        names = [f["name"] for f in embed["fields"]]
        assert names[:4] == ["Dice", "Trail", "Line of sight A4 to B5, hex centre to hex centre (los=advise) [A6.1]",
                             "Prep Fire: firepower [A3.3, seed 003]"]
        assert "Effects" in names and all(f["value"] != "—" for f in embed["fields"])  # no empty field
        assert embed["footer"] == {"text": "log #15"}


async def test_a_results_buttons_go_out_as_their_items_json_without_a_view_per_message(table, monkeypatch):
    """The Odds and Details buttons are sent as JSON (bot/replies.py Buttons), not through a
    discord.py View built per reply: the same components a View of the two items makes, no View
    made, nothing kept in the client's ViewStore; both still answer a click after a restart."""
    await asl_game(table, details=False)
    made: list[discord.ui.View] = []
    view_init = discord.ui.View.__init__

    def counted(self: discord.ui.View, *args, **kwargs) -> None:
        made.append(self)
        view_init(self, *args, **kwargs)
    monkeypatch.setattr(discord.ui.View, "__init__", counted)
    store = table.bot._connection._view_store
    kept = (dict(store._views), dict(store._synced_message_views))
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    assert made == [] and (store._views, store._synced_message_views) == kept
    monkeypatch.undo()
    # the Odds button's class as the client routes its clicks (nothing outside the app imports the cogs)
    [odds_button] = [cls for cls in store._dynamic_items.values() if cls.__name__ == "OddsButton"]
    view = discord.ui.View(timeout=None).add_item(odds_button(1, 15)).add_item(DetailsButton(1, 15))
    assert fired.message.components == view.to_components()
    await table.restart()
    odds = await table.fake.click(fired.message, "odds:1:15", user_id=BOB)
    details = await table.fake.click(fired.message, "details:1:15", user_id=BOB)
    assert odds.embeds[0]["title"].startswith("Odds: ") and odds.ephemeral
    assert details.embeds[0]["title"] == "8 FP (IFT 8) vs B5: DR 6 -> 1MC" and details.ephemeral


async def test_the_game_option_details_always_shows_every_trail_in_the_channel(table):
    await asl_game(table)  # the helper's default: details=always
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    [embed] = fired.embeds
    assert embed["title"] == "8 FP (IFT 8) vs B5: DR 6 -> 1MC"
    assert [f["name"] for f in embed["fields"]][:2] == ["Dice", "Trail"]
    assert fired.message.custom_ids() == ["odds:1:15"]  # nothing to click for: it is all there


async def test_results_that_roll_nothing_are_shown_whole(table):
    await asl_game(table, details=False)
    moved = await table.send("unit add", {"id": "A9", "side": "Germans", "type": "ger-467"}, user=GM)
    [embed] = moved.embeds
    assert embed["title"] == "4-6-7 A9 joins Germans" and [f["name"] for f in embed["fields"]] == ["Trail", "Effects"]
    assert moved.message.custom_ids() == []


async def test_a_morale_check_names_its_unit_once(table):
    await asl_game(table, details=False)
    checked = await table.send("morale", {"unit": "A1", "check": "NMC", "dice": "5 5"}, user=ALICE)
    [embed] = checked.embeds
    # the headline names it: not "A1 broken — 4-6-7 A1 ..."
    assert embed["title"] == "4-6-7 A1: Normal Morale Check, Final DR 9 vs 7 -> fails"  # 9-1 G1 helps: -1
    assert embed["description"].splitlines()[1] == "4-6-7 A1: Good Order → broken, DM"
