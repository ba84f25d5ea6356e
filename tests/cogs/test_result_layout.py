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


def phone_lines(embed: dict) -> list[str]:
    """Every line the embed shows as the emulator receives it: the title, the description, each
    field's name and value, the footer."""
    lines = [embed["title"], *embed.get("description", "").splitlines()]
    for field in embed.get("fields", ()):
        lines += [field["name"], *field["value"].splitlines()]
    return lines + ([embed["footer"]["text"]] if embed.get("footer") else [])


async def test_a_fire_with_its_morale_checks_reads_outcome_first_in_at_most_eight_lines(table):
    """Issue 30, item 3: the title and the footer within 60 characters; the rolled dice and the final DR
    named as such; every unit that checked listed with its result, passed too; the state after."""
    fired = await fire_with_checks(table)
    [embed] = fired.embeds
    assert "fields" not in embed  # no trail in the channel: one short message
    assert lines_of(embed) == [
        "R2 broken — 8 FP (IFT 8) vs B5: final DR 6 -> 1MC",  # who it happened to, then the roll
        "🎲 IFT attack: rolled 4+2 = 6, final DR 6 with -1 leadership of 9-1 G1, +1 TEM: Woods",
        "1MC 8-1 L1: rolled 3+2, final DR 6 vs morale 8 → passes",  # a unit that passed is listed too
        "1MC 4-4-7 R1: rolled 2+4, final DR 6 vs morale 7 → passes",
        "1MC 4-4-7 R2: rolled 5+4, final DR 9 vs morale 7 → fails: broken, DM",  # the state after
        "4-6-7 A1, 4-6-7 A2, 9-1 G1: marked Prep Fire",
    ]
    assert embed["footer"] == {"text": "log #15 · turn 1, Prep Fire Phase · manual dice"}
    assert len(phone_lines(embed)) <= 8
    assert len(embed["title"]) <= 60 and len(embed["footer"]["text"]) <= 60
    assert fired.message.custom_ids() == ["odds:1:15", "details:1:15"]


async def test_a_unit_that_checks_twice_is_left_in_its_state_by_the_later_check(table):
    """R1 passes its 1MC and then fails the Leader Loss Task Check its broken leader calls for (A10.2):
    the pin is the LLTC's, so the 1MC's line only passes and the LLTC's line gives the state after.
    Before, each line of R1 gave its final state ("passes: Good Order, pinned")."""
    await asl_game(table, details=False)
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2,
                                     "dice": "4 2 6 5 2 2 2 2 6 5 1 1"})
    shown = lines_of(fired.embeds[0])
    assert shown[0] == "L1 broken, R1 pinned — 8 FP (IFT 8) vs B5: final DR 6 -> 1MC"
    assert "1MC 4-4-7 R1: rolled 2+2, final DR 5 vs morale 7 → passes" in shown
    assert ("Leader Loss Task Check 4-4-7 R1: rolled 6+5, final DR 11 vs morale 7 → fails: Good Order, pinned"
            in shown)
    assert "Leader Loss Task Check 4-4-7 R2: rolled 1+1, final DR 2 vs morale 7 → passes" in shown


async def test_a_machine_gun_that_kept_its_rate_of_fire_says_it_may_fire_again(table):
    await asl_game(table, details=False)
    fired = await table.send("fire", {"firers": "MG1", "target": "B5", "range": 2, "dice": "3 1 5 5 5 5 5 5"})
    [embed] = fired.embeds
    shown = lines_of(embed)
    assert "LMG MG1 ROF 2: colored die 1 → kept, may fire again (A9.2)" in shown
    assert "4-6-7 A1: marked Prep Fire" in shown  # its firer is marked; the weapon is not
    assert not any("MG1" in line and "marked" in line for line in shown)


async def test_a_result_names_the_state_after_and_leaves_out_what_did_not_change():
    """The effect lines of the whole trail (render.effect_text): a state shown only when it changed."""
    from bot.core.outcome import UnitEffect
    from bot.render import effect_line
    moved = UnitEffect(unit="A1", name="4-6-7", before="Good Order", after="Good Order", effects=("moves B5 -> B4",))
    cleaned = UnitEffect(unit="R1", name="4-4-7", before="Good Order, Final Fire", after="Good Order",
                         effects=("Final Fire removed",))
    same = UnitEffect(unit="R2", name="4-4-7", before="Good Order", after="Good Order")
    forced = UnitEffect(unit="G1", name="rifle", before="Good Order", after="Good Order, forced back",
                        effects=("forced back", "forced back"))
    assert effect_line(moved) == "4-6-7 A1: moves B5 -> B4"
    assert effect_line(cleaned) == "4-4-7 R1: Good Order, Final Fire -> Good Order (Final Fire removed)"
    assert effect_line(forced) == "rifle G1: Good Order -> Good Order, forced back"
    from bot.render import effect_text
    assert effect_text(same) is None


async def test_the_details_button_shows_the_whole_trail_to_the_presser_even_after_a_restart(table):
    fired = await fire_with_checks(table)
    await table.restart()  # the button is rebuilt from its custom_id, the trail read from the log
    for user in (CAROL, BOB):  # anyone may read it, even from outside the game
        pressed = await table.fake.click(fired.message, "details:1:15", user_id=user)
        assert pressed.ephemeral and pressed.message.flags == 64
        [embed] = pressed.embeds
        assert embed["title"] == "8 FP (IFT 8) vs B5: final DR 6 -> 1MC"
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
    assert details.embeds[0]["title"] == "8 FP (IFT 8) vs B5: final DR 6 -> 1MC" and details.ephemeral


async def test_the_game_option_details_always_shows_every_trail_in_the_channel(table):
    await asl_game(table)  # the helper's default: details=always
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    [embed] = fired.embeds
    assert embed["title"] == "8 FP (IFT 8) vs B5: final DR 6 -> 1MC"
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
    assert embed["description"].splitlines() == [
        "Normal Morale Check 4-6-7 A1: rolled 5+5, final DR 9 vs morale 7 → fails: broken, DM"]
