"""Deadlines for games played by post (issue 27, item 2), through the real bot and the loopback Discord
with the bot's clock moved by the test: the game option deadline_hours reminds the side the game waits
for at half time (not before), ends its step with its default at the deadline (not one second before):
/done for the holder, no fire for an open reaction window; logged as ended by the deadline, once; the
game master's extension (once per step) and pause."""

import pytest

from bot.render import embed_to_text
from tests.cogs.conftest import ALICE, BOB, GM, refusal
from tests.cogs.helpers import last_entry, start_game, terrain, unit
from tests.cogs.test_undo import clock  # noqa: F401  (the fixture: the bot's clock, moved by hand)

pytestmark = pytest.mark.usefixtures("clock")


async def asl_by_post(table, hours=24, **more):
    """ASL in the Movement Phase with a 24-hour deadline, the Germans (alice) to move."""
    return await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("R1", 1, "B5", "rus-447"), terrain("B5", "woods"),
    ], phase="MPh", options={"elr": [3, 3], "deadline_hours": hours} | more)


def said(embeds):
    """The embeds' text as players read it (markdown escapes taken off)."""
    return "\n".join(embed_to_text(embed) for embed in embeds)


def posted(table):
    return table.fake.channel_messages(table.channel)


async def test_the_holder_is_reminded_at_half_time_and_the_step_ends_at_the_deadline(table, clock):
    game = await asl_by_post(table)
    assert game.options["reactions"] == "ask"  # a game with a deadline is paced by post
    pacer, seq = table.bot.pacer, (await last_entry(table)).seq
    count = len(posted(table))
    clock.advance(hours=11, minutes=59, seconds=59)
    assert await pacer.check() == []
    assert len(posted(table)) == count  # not before half time
    clock.advance(seconds=1)
    assert await pacer.check() == [table.channel]
    reminder = posted(table)[-1]
    assert reminder.content.startswith(f"<@{ALICE}>: the game waits for your move (Germans, turn 1, Movement Phase); "
                                       "nothing happened for 12 hours; deadline <t:")
    assert reminder.content.endswith("then the step ends with /done")
    assert reminder.payload["allowed_mentions"]["users"] == [ALICE]
    assert await pacer.check() == []  # reminded once
    clock.advance(hours=11, minutes=59, seconds=59)
    assert await pacer.check() == []
    assert (await table.game()).phase == "MPh"  # not one second before the deadline
    assert (await last_entry(table)).seq == seq
    clock.advance(seconds=1)
    assert await pacer.check() == [table.channel]
    game = await table.game()
    assert game.phase == "DFPh" and game.to_act == 1
    entry = await last_entry(table)
    assert entry.seq == seq + 1 and entry.actor == table.bot.user.id and entry.command == "/done (deadline)"
    assert entry.order == {"action": "done", "by": "deadline", "hours": 24, "side": 0}
    result, hand_off, told = posted(table)[-3:]
    assert result.content.startswith("Ended by the deadline: nothing from Germans in 24 hours, so the Movement "
                                     "Phase ends with /done (game option deadline_hours)")
    assert "Ended by the deadline: nothing from Germans in 24 hours, the Movement Phase ends with its default" \
        in said(result.embeds)
    assert hand_off.content.startswith(f"<@{BOB}>: your move (Russians, turn 1, Defensive Fire Phase)")
    assert told.content == (f"<@{ALICE}>: your Movement Phase was ended (/done) by the deadline, 24 hours without "
                            "your order")
    assert told.payload["allowed_mentions"]["users"] == [ALICE]
    assert await pacer.check() == []  # ended once
    # the Russians' own deadline runs from the entry that handed them the step
    clock.advance(hours=12)
    assert await pacer.check() == [table.channel]
    assert posted(table)[-1].content.startswith(f"<@{BOB}>: the game waits for your move (Russians")
    assert (await table.bot.referee.verify(table.channel)).ok  # the referee's entry replays


async def test_an_order_of_the_holder_starts_the_clock_again(table, clock):
    await asl_by_post(table)
    clock.advance(hours=20)
    await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    await table.send("done", user=BOB)  # no fire: the Germans go on
    clock.advance(hours=23, minutes=59, seconds=59)
    await table.bot.pacer.check()
    assert (await table.game()).phase == "MPh"  # 24 hours from the newest entry, not from the step's start
    clock.advance(seconds=1)
    assert await table.bot.pacer.check() == [table.channel]
    assert (await table.game()).phase == "DFPh"


async def test_an_open_reaction_window_closes_as_no_fire_at_the_deadline(table, clock):
    await asl_by_post(table)
    await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    assert (await table.game()).reaction is not None
    clock.advance(hours=12)
    assert await table.bot.pacer.check() == [table.channel]
    assert posted(table)[-1].content.startswith(f"<@{BOB}>: the game waits for your answer to Defensive First Fire")
    assert posted(table)[-1].content.endswith("then the step ends with no fire")
    clock.advance(hours=12)
    assert await table.bot.pacer.check() == [table.channel]
    game = await table.game()
    assert game.reaction is None and game.phase == "MPh"  # the window closed; the Germans go on
    entry = await last_entry(table)
    assert entry.order == {"action": "react", "answer": "deadline", "hours": 24, "side": 1}
    assert posted(table)[-3].embeds[0]["fields"][0]["name"] == (
        "Ended by the deadline: nothing from Russians in 24 hours (game option deadline\\_hours=24): the Defensive "
        "First Fire window closes as no fire [deadline (referee)]")
    assert posted(table)[-1].content == (f"<@{BOB}>: your reaction window was closed as no fire by the deadline, "
                                         "24 hours without your order")
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_the_game_master_extends_a_steps_deadline_once(table, clock):
    await asl_by_post(table)
    assert "only the game master may extend a deadline" in await table.refused(
        "game deadline", {"extend": 12}, user=ALICE)
    clock.advance(hours=20)
    reply = await table.as_gm("game deadline", {"extend": 12})
    assert not reply.ephemeral
    assert ("The deadline of the Movement Phase is extended by 12 hours, once for this step: Germans have 36 hours "
            "from now, and from each entry, until the step ends (game option deadline_hours=24)") in said(reply.embeds)
    assert (await last_entry(table)).order == {"action": "deadline_extend", "hours": 12}
    again = await table.refused("game deadline", {"extend": 6}, user=GM)
    assert again == ("the deadline of the Movement Phase was extended already (by 12 hours): a step's deadline is "
                     "extended once [deadline (referee)]")
    clock.advance(hours=17, minutes=59)
    assert await table.bot.pacer.check() == []  # half of 36 hours
    clock.advance(minutes=1)
    assert await table.bot.pacer.check() == [table.channel]
    clock.advance(hours=17, minutes=59, seconds=59)
    assert await table.bot.pacer.check() == []
    clock.advance(seconds=1)
    assert await table.bot.pacer.check() == [table.channel]
    assert (await last_entry(table)).order == {"action": "done", "by": "deadline", "hours": 36, "side": 0}
    # the next step has its own deadline, and may be extended again
    assert not (await table.as_gm("game deadline", {"extend": 6})).ephemeral
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_a_paused_game_has_no_deadline_nor_reminder_and_says_so(table, clock):
    await asl_by_post(table)
    assert "only the game master may pause or resume the game's clock" in await table.refused(
        "game pause", user=ALICE)
    paused = await table.as_gm("game pause")
    assert "The game is paused: no deadline, reminder or reaction time limit runs" in said(paused.embeds)
    assert "the game is paused already" in await table.refused("game pause", user=GM)
    status = (await table.send("game status", user=BOB)).embeds[0]["description"]
    assert "Paused by the game master: no deadline, reminder or reaction time limit runs (/game resume)" in status
    [listed] = (await table.send("games", user=ALICE)).embeds
    assert "paused by the game master" in listed["fields"][0]["value"]
    assert "no deadline runs until /game resume" in await table.refused("game deadline", {"extend": 6}, user=GM)
    clock.advance(days=10)
    assert await table.bot.pacer.check() == []
    assert (await table.game()).phase == "MPh"
    resumed = await table.as_gm("game resume")
    assert "The game resumes: its clock starts again from now (Germans have 24 hours" in said(resumed.embeds)
    assert "the game is not paused" in await table.refused("game resume", user=GM)
    status = (await table.send("game status", user=BOB)).embeds[0]["description"]
    due = int(clock.now.timestamp()) + 24 * 3600  # from the resume
    assert (f"Deadline for Germans: <t:{due}:f> (<t:{due}:R>), 24 hours from the newest entry (game option "
            "deadline_hours)") in status
    clock.advance(hours=23, minutes=59)
    assert await table.bot.pacer.check() == [table.channel]  # the half-time reminder only
    assert (await table.game()).phase == "MPh"
    clock.advance(minutes=1)
    assert await table.bot.pacer.check() == [table.channel]
    assert (await table.game()).phase == "DFPh"
    assert (await table.bot.referee.verify(table.channel)).ok  # the pause and the resume replay


async def test_games_shows_the_deadline(table, clock):
    await asl_by_post(table)
    [listed] = (await table.send("games", user=ALICE)).embeds
    deadline = int(clock.now.timestamp()) + 24 * 3600
    assert f"deadline <t:{deadline}:R>" in listed["fields"][0]["value"]


async def test_a_step_the_rules_do_not_let_end_by_itself_is_said_once(table, clock):
    """ASL's CCPh with a Close Combat declared and the DEFENDER's declaration awaited: its end is refused
    (A11), so the deadline cannot end it; the channel is told once, with the refusal, and it is left to
    the game master (nothing logged)."""
    from tests.cogs.helpers import gm
    from tests.cogs.test_close_combat import ccph, declare

    await ccph(table)
    await gm(table, {"action": "options_set", "changes": {"deadline_hours": 2}}, "/game options")
    await declare(table)
    total = (await table.bot.referee.log(table.channel)).total
    clock.advance(hours=1)
    assert await table.bot.pacer.check() == [table.channel]  # the half-time reminder
    clock.advance(hours=1)
    assert await table.bot.pacer.check() == []
    line = posted(table)[-1].content
    assert line.startswith(f"<@{ALICE}>: the deadline passed (2 hours without an order), but the Close Combat "
                           "Phase cannot end by itself: the Close Combat declared in B5 awaits the DEFENDER's "
                           "declaration")
    assert line.endswith("the game master moves the game on (/game phase) or extends the deadline (/game deadline)")
    count = len(posted(table))
    clock.advance(hours=2)
    assert await table.bot.pacer.check() == []
    assert len(posted(table)) == count  # said once
    assert (await table.bot.referee.log(table.channel)).total == total


class OtherProcess:
    """A second bot process on the same database: its own store (a second connection, or pool), its
    own Referee and pacer, posting to the same channel through the loopback Discord."""

    def __init__(self, table, store, clock):
        from bot.pacing import Pacer
        from bot.service import Referee

        self.bot = table.bot
        self.store, self.settings = store, None
        self.referee = Referee(store, clock=clock)
        self.pacer = Pacer(self, clock=clock)

    def __getattr__(self, name):  # the Discord side (the channel, DMs, its user): the one client's
        return getattr(self.bot, name)


async def stuck_notice_said_once_by_two_processes(table, second_store, clock):
    """Two processes' pacing passes find the same deadline passed on a step that cannot end by itself,
    at the same moment: the notice is claimed (as the step's end is claimed by its entry) and said once,
    nothing logged; the next passes of both say nothing."""
    import asyncio

    from tests.cogs.helpers import gm
    from tests.cogs.test_close_combat import ccph, declare

    other = OtherProcess(table, second_store, clock)
    await ccph(table)
    await gm(table, {"action": "options_set", "changes": {"deadline_hours": 2}}, "/game options")
    await declare(table)
    total = (await table.bot.referee.log(table.channel)).total
    clock.advance(hours=1)
    assert await table.bot.pacer.check() == [table.channel]  # the half-time reminder (claimed as before)
    assert await other.pacer.check() == []  # the same reminder: once
    count = len(posted(table))
    clock.advance(hours=1)
    await asyncio.gather(table.bot.pacer.check(), other.pacer.check())
    notices = [m.content for m in posted(table)[count:]]
    assert len(notices) == 1 and "Close Combat Phase cannot end by itself" in notices[0]
    clock.advance(hours=3)
    await asyncio.gather(table.bot.pacer.check(), other.pacer.check())
    assert len(posted(table)) == count + 1  # said once across both processes and passes
    assert (await table.bot.referee.log(table.channel)).total == total
    await table.send("done", user=ALICE)  # refused: the DEFENDER's declaration is awaited
    await table.send("close-combat", {"attackers": "R1", "hold": True}, user=BOB)  # an entry: a new silence
    clock.advance(hours=2)
    await asyncio.gather(table.bot.pacer.check(), other.pacer.check())
    assert (await last_entry(table)).order["by"] == "deadline"  # the step ended by its deadline, once
    assert (await table.bot.referee.log(table.channel)).total == total + 2


async def test_a_step_that_cannot_end_by_itself_is_said_once_by_two_processes(table, clock):
    from bot.store import open_store

    second = await open_store(table.database)  # a second connection to the same SQLite file
    try:
        await stuck_notice_said_once_by_two_processes(table, second, clock)
    finally:
        await second.close()


async def test_on_postgresql_a_step_that_cannot_end_by_itself_is_said_once_by_two_processes(pg_table, pg_dsn):
    from bot.store import open_store
    from tests.cogs.test_undo import Clock

    clock = Clock()
    pg_table.bot.referee.clock = clock
    pg_table.bot.pacer.stop()
    second = await open_store(pg_dsn)  # a second pool: another process's view of the database
    try:
        await stuck_notice_said_once_by_two_processes(pg_table, second, clock)
    finally:
        await second.close()


async def test_the_option_is_checked(table):
    await start_game(table, "asl", ["Germans", "Russians"], [])
    text = refusal(await table.as_gm("game options", {"set": "deadline_hours=0.5"}))
    assert text.startswith("the game option deadline\\_hours takes a number from 1 to 2,160, not '0.5'")


async def test_on_postgresql_too_the_reminder_then_the_deadline(pg_table):
    from tests.cogs.test_undo import Clock

    clock = Clock()
    pg_table.bot.referee.clock = clock
    pg_table.bot.pacer.stop()
    await asl_by_post(pg_table, hours=4)
    clock.advance(hours=1, minutes=59)
    assert await pg_table.bot.pacer.check() == []
    clock.advance(minutes=1)
    assert await pg_table.bot.pacer.check() == [pg_table.channel]  # half time: reminded, due again at the deadline
    assert await pg_table.bot.pacer.check() == []
    clock.advance(hours=1, minutes=59)
    assert await pg_table.bot.pacer.check() == []
    clock.advance(minutes=1)
    assert await pg_table.bot.pacer.check() == [pg_table.channel]
    assert (await last_entry(pg_table)).order == {"action": "done", "by": "deadline", "hours": 4, "side": 0}
    assert (await pg_table.bot.referee.verify(pg_table.channel)).ok


async def test_no_deadline_runs_while_the_game_is_set_up(table, clock):
    """A game created with a deadline: its first step has no deadline until play begins (the game master's
    set-up may take days)."""
    from tests.cogs.conftest import GUILD
    from tests.cogs.helpers import GM_ACTOR

    await table.bot.referee.new_game(table.channel, GUILD.id, GM_ACTOR, "asl", ["Germans", "Russians"],
                                     options={"deadline_hours": 24})
    await table.invite(ALICE, "Germans")
    await table.invite(BOB, "Russians")
    clock.advance(days=3)
    assert await table.bot.pacer.check() == []
    assert not (await table.game()).started
    await table.send("done", user=ALICE)  # the first step ends: play has begun, the Russians' clock runs
    clock.advance(hours=24)
    assert await table.bot.pacer.check() == [table.channel]
    assert (await last_entry(table)).order["by"] == "deadline"


async def test_a_player_cannot_give_the_referees_deadline_orders(table, clock):
    from bot.service import Actor, NotAllowed

    await asl_by_post(table)
    referee = table.bot.referee
    with pytest.raises(NotAllowed, match="only the referee ends a step by its deadline: /done ends your own part"):
        await referee.act(table.channel, Actor(ALICE), {"action": "done", "side": 0, "by": "deadline", "hours": 24},
                          command="/done")
    await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)  # a window for the Russians
    for answer in ("deadline", "timeout"):
        with pytest.raises(NotAllowed, match="only the referee closes a window for want of an answer"):
            await referee.act(table.channel, Actor(BOB), {"action": "react", "side": 1, "answer": answer,
                                                          "hours": 24}, command="/react")
    assert (await table.game()).reaction is not None
