"""Long work off the event loop (issue 17, bot/work.py), through the real client and the loopback
Discord: /log verify, /log export, /stats dice, /undo and the Odds button run in a worker process
when their estimate says they are long (here: always, ``inline_below = 0``), answer "thinking..."
first, and give exactly the answer the same work gives on the loop; past the time budget each is
refused in players' words and leaves nothing behind."""

import pytest

from tests.cogs.conftest import ALICE, BOB
from tests.cogs.helpers import asl_game

REFUSED_COLOUR = 0xD83C3E  # bot.render.ERROR_COLOUR


def answer(reply):
    """What the player reads: the response, or the deferred "thinking..." message edited into the
    answer; a private refusal after a public "thinking..." is a followup (the thinking deleted)."""
    if reply.deferred and reply.message.deleted:
        return reply.followups[0]
    return reply.message


async def a_long_game(table):
    await asl_game(table)
    await table.send("morale", {"unit": "R1", "dice": "6 6"}, user=BOB)  # #15: R1 breaks


@pytest.mark.parametrize(("name", "options"), [
    ("log verify", {}), ("log export", {"format": "markdown"}), ("log export", {"format": "csv"}),
    ("stats dice", {}), ("stats pace", {}),
], ids=["verify", "export-markdown", "export-csv", "stats-dice", "stats-pace"])
async def test_long_work_in_a_worker_process_defers_and_answers_as_on_the_loop(table, name, options):
    await a_long_game(table)
    worker = table.bot.referee.worker
    worker.inline_below = float("inf")
    on_loop = await table.send(name, options)
    worker.inline_below = 0
    worked = await table.send(name, options)
    assert worked.deferred and not worked.record.late and not worked.record.refused
    assert worker.ran == 1
    assert answer(worked).embeds == answer(on_loop).embeds and answer(worked).content == answer(on_loop).content
    assert [(f.filename, f.data) for f in answer(worked).files] == [(f.filename, f.data) for f in answer(on_loop).files]


async def test_an_undo_prepared_in_a_worker_process_is_proposed_and_accepted(table):
    await asl_game(table)
    before = (await table.game()).units["R1"]
    await table.send("morale", {"unit": "R1", "dice": "6 6"}, user=BOB)  # #15: R1 breaks
    table.bot.referee.worker.inline_below = 0
    proposal = await table.send("undo", user=BOB)
    assert proposal.deferred and table.bot.referee.worker.ran == 1
    shown = answer(proposal)
    assert shown.custom_ids() == ["undo:accept:1", "undo:refuse:1"]
    await table.fake.click(shown, "undo:accept:1", user_id=ALICE)
    assert (await table.game()).units["R1"] == before


async def test_the_odds_button_replays_in_a_worker_process(table):
    await asl_game(table)
    fired = await table.send("fire", {"firers": "A1", "target": "B5", "range": 2, "dice": "3 4"}, user=ALICE)
    [button] = fired.message.custom_ids()
    table.bot.referee.worker.inline_below = float("inf")
    on_loop = await table.fake.click(fired.message, button, user_id=BOB)
    table.bot.referee.logbook.odds_cache.clear()  # answers are cached: replay again
    table.bot.referee.worker.inline_below = 0
    worked = await table.fake.click(fired.message, button, user_id=BOB)
    assert worked.deferred and worked.ephemeral and table.bot.referee.worker.ran == 1
    assert answer(worked).embeds == on_loop.message.embeds


@pytest.mark.parametrize(("name", "options", "says"), [
    ("log verify", {}, "verifying this game's 15 log entries with 9 units needs more than the 0.001 seconds"),
    ("log export", {"format": "markdown"}, "exporting this game's 15 log entries as Markdown needs more than"),
    ("undo", {}, "preparing this undo (a replay of the 14 entries before entry #15) needs more than"),
], ids=["verify", "export", "undo"])
async def test_work_over_its_budget_is_refused_and_leaves_nothing_behind(table, name, options, says):
    await a_long_game(table)
    worker = table.bot.referee.worker
    worker.inline_below, worker.budget = 0, 0.001  # nothing can finish in a millisecond
    before = await table.snapshot()
    reply = await table.send(name, options, user=BOB)
    [refusal] = answer(reply).embeds
    assert refusal["color"] == REFUSED_COLOUR and says in refusal["description"], refusal
    # refused after the public "thinking...": that message is deleted and the refusal goes to the
    # player alone (Discord would show a first followup in the channel, in place of "thinking...")
    assert reply.deferred and reply.message.deleted and answer(reply).ephemeral and len(reply.followups) == 1
    assert answer(reply).files == [] and await table.snapshot() == before
    worker.inline_below, worker.budget = float("inf"), 60
    if name == "undo":  # no proposal was stored: a new one may be made at once
        assert answer(await table.send("undo", user=BOB)).custom_ids() == ["undo:accept:1", "undo:refuse:1"]
