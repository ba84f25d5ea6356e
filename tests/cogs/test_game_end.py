"""/game end asks first and /game reopen undoes a slip, through the real bot and the loopback Discord:
the question says what ending does to the log; only the one who asked (or the game master) presses its
buttons, a stranger's press is refused and changes nothing; Cancel leaves the game in play; the
buttons work after a restart; a game ended by mistake is reopened by the game master within the day
(at 24 hours still, not a millisecond later, with the time it ended), logged, its log verifying with a
new dice seed committed for the rest of the game."""

from __future__ import annotations

from datetime import datetime

from bot.service import REOPEN_WITHIN
from tests.cogs.conftest import ALICE, BOB, CAROL, GM, refusal
from tests.cogs.helpers import asl_game, end_game
from tests.cogs.test_undo import Clock

QUESTION = ("<@{asker}> asks to end this game: Germans vs Russians (Test), turn 1.\n"
            "Ending takes no more orders; the log is kept whole and hash-chained (/log show, /log verify and "
            "/log export still read it), and the end reveals the last dice seed so anyone can check the dice.\n"
            "The game master may reopen a game ended by mistake with /game reopen within 24 hours.")


def clocked(table) -> Clock:
    clock = Clock()
    table.bot.referee.clock = clock
    return clock


async def test_game_end_asks_and_only_the_asker_or_the_game_master_answers(table):
    await asl_game(table)
    game, entries = await table.snapshot()
    asked = await table.as_gm("game end")
    assert not asked.ephemeral
    assert asked.embeds[0]["title"] == "End this game?"
    assert asked.embeds[0]["description"] == QUESTION.format(asker=GM) + (
        f"\nOnly <@{GM}> or the game master may confirm or cancel.")
    stored = await table.bot.referee.active(table.channel)
    assert asked.message.custom_ids() == [f"gameend:confirm:{stored.id}:{GM}", f"gameend:cancel:{stored.id}:{GM}"]
    assert await table.snapshot() == (game, entries)  # asking changed nothing

    # a player of the game (no Manage Channels) presses Confirm: refused, privately; nothing ends
    pressed = await table.fake.click(asked.message, f"gameend:confirm:{stored.id}:{GM}", user_id=ALICE)
    assert refusal(pressed) == "only the one who asked to end this game, or the game master, may confirm or cancel it"
    pressed = await table.fake.click(asked.message, f"gameend:cancel:{stored.id}:{GM}", user_id=CAROL)
    assert refusal(pressed).startswith("only the one who asked to end this game")
    assert await table.snapshot() == (game, entries)

    # the game master cancels: the question says so, its buttons go, the game goes on
    await table.fake.click(asked.message, f"gameend:cancel:{stored.id}:{GM}", user_id=GM)
    assert asked.message.embeds[0]["title"] == "Ending cancelled"
    assert asked.message.embeds[0]["description"].endswith(f"\nCancelled by <@{GM}>: the game goes on.")
    assert asked.message.components == []
    assert await table.snapshot() == (game, entries)

    # asked again and confirmed: the game ends, the buttons go
    ended = await end_game(table)
    assert ended.embeds[0]["title"] == "Game over after turn 1"
    assert ended.embeds[0]["footer"]["text"].startswith(f"log #{entries + 1} · dice seed revealed: ")
    assert await table.snapshot() == (None, 0)


async def test_a_player_is_refused_before_any_question(table):
    await asl_game(table)
    assert await table.refused("game end", user=BOB) == (
        "only the game master (who started the game) or someone with Manage Channels may end the game")


async def test_the_confirmation_works_after_a_restart(table):
    await asl_game(table)
    asked = await table.as_gm("game end")
    await table.restart()
    confirm = asked.message.custom_ids()[0]
    ended = await table.fake.click(asked.message, confirm, user_id=GM)
    assert ended.embeds[0]["title"] == "Game over after turn 1"
    assert await table.snapshot() == (None, 0)


async def test_a_game_ended_by_mistake_is_reopened_within_the_day(table):
    clock = clocked(table)
    await asl_game(table)
    game, entries = await table.snapshot()
    await end_game(table)
    assert await table.refused("game reopen", user=BOB) == (
        "only the game master (who started the game) or someone with Manage Channels may reopen it")
    clock.advance(seconds=REOPEN_WITHIN.total_seconds())  # 24 hours to the millisecond: still within the day
    reopened = await table.as_gm("game reopen")
    assert not reopened.ephemeral, reopened.embeds
    assert reopened.embeds[0]["title"] == "Game reopened after turn 1"
    trail = "\n".join(f["value"] for f in reopened.embeds[0]["fields"])
    assert f"The game ended at entry #{entries + 1} is reopened by the game master; that entry stays in the log" \
        in trail
    assert await table.snapshot() == (game, entries + 2)  # the same game, the end and the reopening logged
    assert await table.refused("undo", user=GM) == (
        f"entry #{entries + 2} reopened the game: a reopening is not undone (the game master ends the game again "
        "with /game end), nor what came before it")
    # play goes on, with dice from the new seed; the log and its dice check out
    rolled = await table.send("morale", {"unit": "R1"}, user=BOB)
    assert not rolled.ephemeral, rolled.embeds
    page = await table.bot.referee.log(table.channel)
    assert [e.command for e in page.entries[-3:]] == ["/game end", "/game reopen", "/morale"]
    assert (await table.bot.referee.verify(table.channel)).ok
    ended_again = await end_game(table)
    assert ended_again.embeds[0]["title"] == "Game over after turn 1"
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_reopening_is_refused_a_millisecond_after_the_day_with_the_time_it_ended(table):
    clock = clocked(table)
    await asl_game(table)
    await end_game(table)
    ended_at = datetime.fromisoformat((await table.bot.referee.log(table.channel)).entries[-1].time)
    clock.advance(seconds=REOPEN_WITHIN.total_seconds(), milliseconds=1)
    stamp = int(ended_at.timestamp())
    assert await table.refused("game reopen", user=GM) == (
        f"this game ended at <t:{stamp}:f> ({ended_at.strftime('%Y-%m-%d %H:%M')} UTC), more than 24 hours ago: a "
        "game is reopened within 24 hours of its end; its log stays readable (/log show, /log export), and "
        "/game new starts another")


async def test_no_reopening_once_another_game_started_in_the_channel(table):
    clocked(table)
    await asl_game(table)
    await end_game(table)
    await table.send("game new", {"ruleset": "cd", "sides": "Blue, Red"}, user=GM)
    assert await table.refused("game reopen", user=GM) == (
        "this channel has a game in play: only a game ended by mistake is reopened, before another one starts here")
