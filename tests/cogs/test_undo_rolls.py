"""Undo and rerolls through the real bot and the loopback Discord: what the proposal says an accepted
undo does to dice, the mark on an order given again after its undo (the reply, /log show, the
Markdown and CSV exports; not on another order, nor on the same order by the other side), and the
game option undo_rolls=never (a rolled order is never undone, the game master corrects it with
/unit edit corrects:, logged as its correction; an order that rolled nothing is still undone)."""

from __future__ import annotations

import csv
import io

from tests.cogs.conftest import ALICE, BOB, GM
from tests.cogs.helpers import asl_game, fields
from tests.cogs.test_undo import broken_r1, clock, propose  # noqa: F401  (the clock fixture)

MARK = "given again after #15 was undone: new dice, #15's stay in the log"


async def undo_r1_check(table) -> None:
    """Bob's NMC on R1 (#15, boxcars) undone by Alice's consent (#16)."""
    await broken_r1(table)
    proposal = await propose(table)
    assert "\nIts dice stay in the log; giving the order again rolls new dice.\n" in proposal.embeds[0]["description"]
    await table.fake.click(proposal.message, "undo:accept:1", user_id=ALICE)


async def test_the_same_order_by_the_same_side_after_its_undo_is_marked_given_again(table, clock):  # noqa: F811
    await undo_r1_check(table)
    again = await table.send("morale", {"unit": "R1", "dice": "3 3"}, user=BOB)
    assert not again.ephemeral, again.embeds
    assert again.embeds[0]["footer"] == {"text": f"log #17 · {MARK}"}
    assert (await table.game()).units["R1"].broken is False  # the new dice: DR 6 passes
    shown = await table.send("log show")
    lines = shown.embeds[0]["fields"][0]["value"].split("\n")
    assert lines[-1].startswith("#17 · ") and lines[-1].endswith(f" ({MARK})")
    assert lines[-3].startswith("~~#15 · ") and lines[-3].endswith("~~ (undone by #16)")
    report = (await table.send("log export", {"format": "markdown"})).files[0].data.decode()
    assert f"*{MARK[0].upper() + MARK[1:]}.*" in report
    rows = list(csv.DictReader(io.StringIO((await table.send("log export", {"format": "csv"})).files[0].data.decode())))
    assert [(r["seq"], r["value"], r["undone"], r["given_again"]) for r in rows] == [
        ("15", "6", "16", ""), ("15", "6", "16", ""), ("17", "3", "", "15"), ("17", "3", "", "15")]
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_the_same_action_by_the_other_side_after_an_undo_is_not_marked(table, clock):  # noqa: F811
    await undo_r1_check(table)
    other = await table.send("morale", {"unit": "A1", "dice": "3 3"}, user=ALICE)  # the Germans', not Bob's
    assert not other.ephemeral, other.embeds
    assert other.embeds[0]["footer"] == {"text": "log #17"}
    lines = (await table.send("log show")).embeds[0]["fields"][0]["value"].split("\n")
    assert "given again" not in lines[-1]
    # and the next order after that one is no longer right after the undo: Bob's NMC again is not marked
    later = await table.send("morale", {"unit": "R1", "dice": "3 3"}, user=BOB)
    assert later.embeds[0]["footer"] == {"text": "log #18"}


async def test_under_undo_rolls_never_an_order_that_rolled_is_refused_with_what_to_do(table, clock):  # noqa: F811
    await asl_game(table)
    await table.as_gm("game options", {"set": "undo_rolls=never"})
    await table.send("morale", {"unit": "R1", "dice": "6 6"}, user=BOB)  # #16
    assert (await table.game()).units["R1"].broken
    assert await table.refused("undo", user=BOB) == (
        "entry #16 (/morale) rolled dice, and this game's option undo\\_rolls=never keeps every order that rolled: "
        "its result stands. The game master corrects what it did with /unit edit corrects:16 (logged as a "
        "correction of #16)")
    # the game master's correction, naming the entry
    assert await table.refused("unit edit", {"unit": "R1", "stats": "broken=no dm=no", "corrects": 99}, user=GM) == (
        "the log has entries #2 to #16 to correct, not '99'")
    corrected = await table.as_gm("unit edit", {"unit": "R1", "stats": "broken=no dm=no", "corrects": 16})
    assert not corrected.ephemeral, corrected.embeds
    text = "\n".join(fields(corrected.embeds[0]).values())
    assert "The game master's correction of entry #16: that entry and its dice stay in the log as they were" in text
    assert not (await table.game()).units["R1"].broken
    page = await table.bot.referee.log(table.channel)
    assert page.entries[-1].order["corrects"] == 16 and page.entries[-2].dice == (6, 6)  # kept, not undone
    assert page.undone == {}
    # an order that rolled nothing is still undone by consent: the correction itself
    proposal = await table.as_gm("undo")
    assert proposal.embeds[0]["title"] == "Undo proposed: entry #17"
    assert "\nIt rolled no dice; it stays in the log, marked undone.\n" in proposal.embeds[0]["description"]
    assert (await table.bot.referee.verify(table.channel)).ok
