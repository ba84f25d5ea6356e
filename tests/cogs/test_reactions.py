"""Reaction windows and the buttons for the next step (issue 27), through the real bot and the loopback
Discord, with the bot's clock moved by the test: a move in the open waits for the other side's Fire or
No fire; the waiting side's next move and /done are refused until then; hours=N closes it as no fire
by the background pass; the Done button is its holder's alone, for its own step; /log verify replays
every window."""

import pytest

from tests.cogs.conftest import ALICE, BOB, CAROL, refusal
from tests.cogs.helpers import edit, last_entry, start_game, terrain, unit
from tests.cogs.test_undo import clock  # noqa: F401  (the fixture: the bot's clock, moved by hand)

pytestmark = pytest.mark.usefixtures("clock")


async def asl_move_phase(table, reactions="ask"):
    """ASL in the Movement Phase, the Germans (alice) to move, the Russians (bob) in the woods of B5."""
    options = {"elr": [3, 3], "details": "always"} | ({"reactions": reactions} if reactions else {})
    return await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("A2", 0, "A4", "ger-467"),
        unit("R1", 1, "B5", "rus-447"), unit("R2", 1, "B5", "rus-447"), terrain("B5", "woods"),
    ], phase="MPh", options=options, details=True)


def ids(message):
    return message.custom_ids()


def button(message, label):
    return next(b["custom_id"] for row in message.components for b in row["components"] if b["label"] == label)


async def move_in_the_open(table):
    reply = await table.send("move", {"units": "A1 A2", "to": "F4"}, user=ALICE)
    assert not reply.ephemeral
    trail = str(reply.embeds)
    assert "Russians may answer with Defensive First Fire at 4-6-7 A1 and 4-6-7 A2 in F4: Fire, or No fire" in trail
    (notice,) = reply.followups
    assert notice.content == (f"<@{BOB}>: Defensive First Fire at 4-6-7 A1, 4-6-7 A2 in F4 (A8.1)? Germans wait "
                              "for your Fire or No fire")
    assert notice.payload["allowed_mentions"]["users"] == [BOB]
    assert [b["label"] for row in notice.components for b in row["components"]] == ["Fire", "No fire"]
    return notice


async def test_the_attackers_done_waits_until_the_defender_says_no_fire(table):
    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    text = await table.refused("done", user=ALICE)
    assert text.startswith("the game waits for Russians: Defensive First Fire at 4-6-7 A1 and "
                           "4-6-7 A2 in F4 (A8.1)")
    assert "Germans may neither move again nor end the step" in text
    assert "the game waits for Russians" in await table.refused("move", {"units": "A1", "to": "F5"}, user=ALICE)
    # only the reacting side answers: the Germans' press is refused, nothing logged
    before = await table.snapshot()
    pressed = await table.fake.click(notice, button(notice, "No fire"), user_id=ALICE)
    assert "this window is Russians' to answer" in refusal(pressed)
    assert await table.snapshot() == before
    pressed = await table.fake.click(notice, button(notice, "No fire"), user_id=BOB)
    assert pressed.embeds[0]["title"].startswith("Russians do not fire at 4-6-7 A1 and 4-6-7 A2")
    (go_on,) = pressed.followups
    assert go_on.content.startswith(f"<@{ALICE}>: Russians do not fire at 4-6-7 A1 and 4-6-7 A2 (Defensive "
                                    "First Fire); go on (Germans, turn 1, Movement Phase)")
    assert [b["label"] for row in go_on.components for b in row["components"]] == ["Done"]
    assert (await table.game()).reaction is None
    entry = await last_entry(table)
    assert entry.order == {"action": "react", "side": 1}
    assert notice.components == []  # answered: its buttons are taken off
    done = await table.send("done", user=ALICE)
    assert done.embeds[0]["title"].startswith("Turn 1, Defensive Fire Phase: Russians to act")


async def test_fire_resolves_defensive_first_fire_with_ffmo_and_ffnam_then_no_more_fire(table):
    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    opened = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    assert form_inputs(opened)["target"][1] == "F4"  # the form (its submission: the test above); typed here
    # B5 to F4 is four hexes on the map: the range typed says so
    fired = await table.send("fire", {"target": "F4", "firers": "R1 R2", "range": 4, "dice": "4 4 1 1 1 1 1 1 1 1"},
                             user=BOB)
    trail = str(fired.embeds)
    assert "range 4 (B5 to F4), counted on the map; the typed range 4 agrees" in trail
    assert "Defensive First Fire" in trail
    assert "FFMO (moving in Open Ground)" in trail and "FFNAM (not Assault Movement)" in trail
    assert "Russians may react again: No fire closes the Defensive First Fire window" in trail
    again = fired.followups[-1]
    assert again.content.startswith(f"<@{BOB}>: more Defensive First Fire at")
    assert again.payload["allowed_mentions"]["users"] == []  # their own reply: no second ping
    assert "the game waits for Russians" in await table.refused("done", user=ALICE)
    closed = await table.fake.click(again, button(again, "No fire"), user_id=BOB)
    assert closed.embeds[0]["title"].startswith("Russians fire no more at 4-6-7 A1 and 4-6-7 A2")
    done = await table.send("done", user=ALICE)
    assert not done.ephemeral


def form_inputs(opened):
    """The modal's text inputs by label: (custom_id, prefilled value, required)."""
    inputs = [row["components"][0] for row in opened.modal["components"]]
    return {i["label"]: (i["custom_id"], i.get("value", ""), i["required"]) for i in inputs}


async def test_fire_opens_a_form_prefilled_at_the_movers_whose_submission_resolves_dff_as_fire_would(table):
    from bot.core.dice import ScriptedDice

    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    refused = refusal(await table.fake.click(notice, button(notice, "Fire"), user_id=ALICE))
    assert refused.startswith("this window is Russians' to answer")  # the mover gets no form
    opened = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    assert opened.modal is not None and opened.message is None  # a form, the first answer to the press
    assert opened.modal["title"] == "Defensive First Fire at F4"
    inputs = form_inputs(opened)
    assert list(inputs) == ["target", "firers", "range", "kind", "options"]  # the movers' hex first; options last
    assert inputs["target"] == ("target", "F4", True) and inputs["firers"] == ("firers", "", False)
    # a range that is not a number: refused naming the field, nothing logged, the window still open
    before = await table.snapshot()
    wrong = await table.fake.submit_modal(opened, {"firers": "R1 R2", "range": "four"})
    assert refusal(wrong) == "'range' takes a whole number from 0 to 200, not 'four'"
    assert await table.snapshot() == before
    unknown = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    text = refusal(await table.fake.submit_modal(unknown, {"firers": "Z9"}))  # the rules' refusal, and the typed way
    assert text.startswith("no unit 'Z9' in this game") and text.endswith("You may give it typed: /fire target:F4")
    assert await table.snapshot() == before
    again = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    table.bot.referee.dice = lambda: ScriptedDice([4, 4, 1, 1, 1, 1, 1, 1, 1, 1], manual=False)
    fired = await table.fake.submit_modal(again, {"firers": "R1 R2", "range": "4"})
    assert not fired.ephemeral, fired.embeds
    # the dice scripted: 4 and 4, doubles (Cowering), -1 FFMO and -1 FFNAM: Final DR 6
    assert fired.embeds[0]["title"] == "8 FP (IFT 8) vs F4: final DR 6, cowers to IFT 6 -> 1MC"
    trail = str(fired.embeds)
    assert "range 4 (B5 to F4), counted on the map; the typed range 4 agrees" in trail
    assert "FFMO (moving in Open Ground)" in trail and "FFNAM (not Assault Movement)" in trail
    assert "Russians may react again: No fire closes the Defensive First Fire window" in trail
    entry = await last_entry(table)
    assert entry.command == "/fire" and entry.actor == BOB and entry.order["target"] == "F4"
    assert entry.order["firers"] == ["R1", "R2"]
    more = fired.followups[-1]
    assert more.content.startswith(f"<@{BOB}>: more Defensive First Fire at")
    # a form opened on a window that closed before it was submitted: refused saying what changed
    stale_form = await table.fake.click(more, button(more, "Fire"), user_id=BOB)
    await table.send("done", user=BOB)  # no more fire: the window closes
    before = await table.snapshot()
    stale = refusal(await table.fake.submit_modal(stale_form, {"firers": "R1"}))
    assert stale == ("this reaction window is closed (answered, or its step ended); it is now the Movement Phase, "
                     "turn 1, Germans to act")
    assert await table.snapshot() == before


async def test_fire_without_a_form_tells_the_command_to_type(table):
    """Where Discord does not take the form (refused here once), the presser is told the prefilled command."""
    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    table.fake.fail_next("/callback", 400, code=50035)
    told = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    assert told.ephemeral and told.content.startswith(
        "Give your Defensive First Fire with `/fire target:F4`, naming the units that fire (A8.1)")


async def test_the_reacting_side_may_say_no_fire_with_done_too_and_the_buttons_then_say_so(table):
    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    reply = await table.send("done", user=BOB)
    assert reply.embeds[0]["title"].startswith("Russians do not fire at")
    assert (await table.game()).reaction is None
    for label in ("No fire", "Fire"):
        stale = refusal(await table.fake.click(notice, button(notice, label), user_id=BOB))
        assert stale == ("this reaction window is closed (answered, or its step ended); it is now the Movement "
                         "Phase, turn 1, Germans to act")


async def test_reactions_hours_2_closes_the_window_as_no_fire_after_two_hours_not_before(table, clock):
    await asl_move_phase(table, reactions="hours=2")
    await move_in_the_open(table)
    pacer = table.bot.pacer
    clock.advance(hours=1, minutes=59, seconds=59)
    assert await pacer.check() == []
    assert (await table.game()).reaction is not None
    clock.advance(seconds=1)
    assert await pacer.check() == [table.channel]
    assert (await table.game()).reaction is None
    entry = await last_entry(table)
    assert entry.order == {"action": "react", "answer": "timeout", "hours": 2, "side": 1}
    assert entry.actor == table.bot.user.id
    posted = table.fake.channel_messages(table.channel)
    result, go_on = posted[-2:]
    assert result.content == "No answer in 2 hours: the window closes as no fire (game option reactions=hours=2)"
    assert "No answer from Russians in 2 hours: the Defensive First Fire window closes as no fire" in str(result.embeds)
    assert go_on.content.startswith(f"<@{ALICE}>: Russians: no answer in 2 hours, no fire")
    assert await pacer.check() == []  # closed once
    assert not (await table.send("done", user=ALICE)).ephemeral
    assert (await table.bot.referee.verify(table.channel)).ok  # the referee's own entry replays too


async def test_on_postgresql_too_the_window_closes_after_its_hours_and_games_lists_the_game(pg_table):
    from tests.cogs.test_undo import Clock

    clock = Clock()
    pg_table.bot.referee.clock = clock
    pg_table.bot.pacer.stop()
    await asl_move_phase(pg_table, reactions="hours=2")
    await move_in_the_open(pg_table)
    clock.advance(hours=1, minutes=59)
    assert await pg_table.bot.pacer.check() == []
    clock.advance(minutes=1)
    assert await pg_table.bot.pacer.check() == [pg_table.channel]
    assert (await last_entry(pg_table)).order["answer"] == "timeout"
    [embed] = (await pg_table.send("games", {"mine": True}, user=ALICE)).embeds
    assert embed["fields"][0]["value"].startswith("https://discord.com/channels/")
    assert (await pg_table.bot.referee.verify(pg_table.channel)).ok


async def test_without_the_option_a_move_opens_no_window_as_in_live_play(table):
    await asl_move_phase(table, reactions=None)
    reply = await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    assert reply.followups == [] and (await table.game()).reaction is None
    assert not (await table.send("done", user=ALICE)).ephemeral


async def test_a_game_paced_by_post_asks_by_default(table):
    game = await start_game(table, "asl", ["Germans", "Russians"], [], options={"remind_after_hours": 12})
    assert game.options["reactions"] == "ask"


async def test_no_window_when_the_defender_has_nothing_that_could_fire(table):
    await asl_move_phase(table)
    from tests.cogs.helpers import gm
    await gm(table, edit("R1", broken=True), "/unit edit")
    await gm(table, edit("R2", broken=True), "/unit edit")
    reply = await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    assert reply.followups == [] and (await table.game()).reaction is None


async def test_the_done_button_is_its_holders_and_for_its_own_step(table):
    await asl_move_phase(table, reactions="off")
    done = await table.send("done", user=ALICE)  # MPh -> DFPh: the Russians to act, with their Done
    (hand_off,) = done.followups
    assert hand_off.content.startswith(f"<@{BOB}>: your move (Russians, turn 1, Defensive Fire Phase)")
    done_id = button(hand_off, "Done")
    before = await table.snapshot()
    refused = refusal(await table.fake.click(hand_off, done_id, user_id=ALICE))
    assert refused == ("this Done is Russians', who hold the Defensive Fire Phase, turn 1; you play Germans: /done "
                       "asks them to end it")
    assert refusal(await table.fake.click(hand_off, done_id, user_id=CAROL)).endswith("you play no side in this game")
    assert await table.snapshot() == before
    pressed = await table.fake.click(hand_off, done_id, user_id=BOB)
    assert pressed.embeds[0]["title"].startswith("Turn 1, Advancing Fire Phase: Germans to act")
    assert hand_off.components == []  # pressed: taken off
    (next_hand_off,) = pressed.followups
    next_id = button(next_hand_off, "Done")
    # the Germans end the AFPh by typing /done: the button of that step is then stale
    await table.send("done", user=ALICE)
    stale = refusal(await table.fake.click(next_hand_off, next_id, user_id=ALICE))
    assert stale == ("this Done was for the Advancing Fire Phase, turn 1, which has ended: it is now the Rout Phase, "
                     "ATTACKER's part, turn 1, Germans to act")


async def test_log_verify_replays_the_windows(table):
    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    fired = await table.send("fire", {"target": "F4", "firers": "R1", "range": 4, "dice": "6 6 1 1 1 1 1 1"}, user=BOB)
    assert not fired.ephemeral, fired.embeds
    await table.fake.click(notice, button(notice, "No fire"), user_id=BOB)
    await table.send("move", {"units": "A1", "to": "F5"}, user=ALICE)  # a second window, answered by /done
    await table.send("done", user=BOB)
    await table.send("done", user=ALICE)
    report = await table.bot.referee.verify(table.channel)
    assert report.ok, report.reason
    reply = await table.send("log verify", user=ALICE)
    assert reply.embeds[0]["title"] == "The log checks out"
    assert reply.embeds[0]["description"].startswith("all 15 entries check out")


async def test_undoing_the_move_takes_its_window_back(table):
    await asl_move_phase(table)
    await move_in_the_open(table)
    proposal = await table.send("undo", user=ALICE)
    accepted = await table.fake.click(proposal.message, proposal.message.custom_ids()[0], user_id=BOB)
    assert accepted.followups[0].embeds[0]["title"].startswith("Entry #")
    game = await table.game()
    assert game.reaction is None and game.units["A1"].location == "A4"
    assert not (await table.send("done", user=ALICE)).ephemeral  # nothing to wait for any more
    assert (await table.bot.referee.verify(table.channel)).ok


# --- No Honor in Surrender: opportunity fire in an impulse ---------------------------------------


async def test_reactions_hours_2_on_the_loopback_discords_own_clock(table):
    """One clock for Discord and the bot: the bot's (the log's times, the pacing's now) read from the
    loopback Discord's, which the test advances; the window closes as no fire two hours of it on."""
    from datetime import UTC, datetime, timedelta

    start = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
    table.bot.referee.clock = lambda: start + timedelta(seconds=table.fake.clock.now())
    await asl_move_phase(table, reactions="hours=2")
    await move_in_the_open(table)
    table.fake.clock.advance(2 * 3600 - 1)
    assert await table.bot.pacer.check() == []
    assert "the game waits for Russians" in await table.refused("done", user=ALICE)
    table.fake.clock.advance(1)
    assert await table.bot.pacer.check() == [table.channel]
    entry = await last_entry(table)
    assert entry.order == {"action": "react", "answer": "timeout", "hours": 2, "side": 1}
    done = await table.send("done", user=ALICE)  # the step ends now
    assert done.embeds[0]["title"].startswith("Turn 1, Defensive Fire Phase: Russians to act")


async def nhis_operations(table):
    """NHiS in the Operations Phase, the US (alice) with the first impulse, the Japanese (bob) in B1."""
    return await start_game(table, "nhis", ["US", "Japan"], [
        unit("U1", 0, "A1", "us-rifle-squad"), unit("UL", 0, "A1", "us-leader"), unit("J1", 1, "B1", "jp-rifle-squad"),
    ], phase="Operations", options={"reactions": "ask"})


async def test_nhis_a_move_in_an_impulse_waits_for_the_opportunity_fire(table):
    await nhis_operations(table)
    reply = await table.send("move", {"units": "U1", "to": "C1"}, user=ALICE)
    (notice,) = reply.followups
    assert notice.content == (f"<@{BOB}>: Opportunity Fire at US Marine rifle squad U1 in C1 (NHiS sequence of "
                              "play (assumed))? US wait for your Fire or No fire")
    assert [b["label"] for row in notice.components for b in row["components"]] == ["Fire", "No fire"]
    assert "the game waits for Japan: Opportunity Fire at" in await table.refused("done", user=ALICE)
    assert "the game waits for Japan" in await table.refused("move", {"units": "UL", "to": "C1"}, user=ALICE)
    opened = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    # range is not a required option since the map counts it (left out of the prefill); B1 and C1 are not
    # NHiS hex numbers, so here the players type it and the trail says so
    assert opened.modal["title"] == "Opportunity Fire at C1"
    assert form_inputs(opened) == {"target": ("target", "C1", True), "firers": ("firers", "", True),
                                   "range": ("range", "", False), "options": ("options", "", False)}
    fired = await table.send("fire", {"target": "C1", "firers": "J1", "range": 2, "dice": "1 1 1 1 1 1 1 1"},
                             user=BOB)
    assert not fired.ephemeral, fired.embeds
    trail = str(fired.embeds)
    assert "range 2 (B1 to C1), typed by the players: the map cannot place B1" in trail
    assert "Impulse 1 of US: opportunity fire at US Marine rifle squad U1, which moved in it" in trail
    assert "Moving target (US Marine rifle squad U1)  +2" in trail
    assert "Japan may react again" in trail
    closed = await table.fake.click(fired.followups[-1], button(fired.followups[-1], "No fire"), user_id=BOB)
    assert closed.embeds[0]["title"].startswith("Japan fire no more at")
    ended = await table.send("done", user=ALICE)  # the impulse passes to Japan
    assert not ended.ephemeral
    assert (await table.game()).to_act == 1
    assert (await table.bot.referee.verify(table.channel)).ok


# --- Command Decision: Op Fire at a stand as it moves --------------------------------------------


async def cd_side_a_moves(table):
    """CD in the Movement Phase, the Americans (alice) Side A, at their moves (both prep fire steps
    ended); the Germans' rifle platoons (bob) in X2."""
    from tests.cogs.helpers import until_allowed

    await start_game(table, "cd", ["Americans", "Germans"], [
        unit("S1", 0, "X1", "m4-sherman-75", company="Able"), unit("P1", 0, "X1", "us-rifle", company="Able"),
        unit("G1", 1, "X2", "ger-rifle", company="Kampf"), unit("G2", 1, "X2", "ger-rifle", company="Kampf"),
    ], phase="Movement", options={"reactions": "ask"})
    return await until_allowed(table, "move", 0)


async def test_cd_a_moving_stand_waits_for_the_op_fire_resolved_as_it_moves(table):
    await cd_side_a_moves(table)
    reply = await table.send("move", {"units": "P1", "to": "X3"}, user=ALICE)
    assert "assumed: Op Fire at a stand as it moves is resolved at once" in str(reply.embeds)
    (notice,) = reply.followups
    assert notice.content == (f"<@{BOB}>: Op Fire at US rifle platoon P1 in X3 (CD [13.1.2])? Americans wait for "
                              "your Fire or No fire")
    assert "the game waits for Germans: Op Fire at" in await table.refused("done", user=ALICE)
    opened = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    assert opened.modal["title"] == "Op Fire at X3"
    assert form_inputs(opened) == {"target": ("target", "P1", True), "firers": ("firers", "", True),
                                   "band": ("band", "", True), "options": ("options", "", False)}
    # typed with the players' dice (the form's submission is the ASL test's: the same path as /fire)
    fired = await table.send("fire", {"target": "P1", "firers": "G1", "band": "short", "dice": "9 9 9"},
                             user=BOB)
    assert not fired.ephemeral, fired.embeds
    trail = str(fired.embeds)
    assert "Op Fire at US rifle platoon P1 as it moves (the reaction window): resolved at once" in trail
    assert "Op Fire at US rifle platoon P1, which moved this turn" in trail
    assert "Op Fire  +1  (=3)  [CD [13.5]]" in trail  # the ROF bonus of Op Fire
    g1 = (await table.game()).units["G1"]
    assert g1.fired_phase.endswith(":OpFire")  # its fire of the Opportunity Fire phase
    # G1 fired its Op Fire: not again; and G2 may not Op Fire at a stand that is not one of the movers
    assert "fired in this phase already" in await table.refused(
        "fire", {"target": "P1", "firers": "G1", "band": "short"}, user=BOB)
    assert "may not Prep Fire" in await table.refused("fire", {"target": "S1", "firers": "G2", "band": "short"},
                                                      user=BOB)
    await table.send("done", user=BOB)  # No fire (more)
    assert (await table.game()).reaction is None
    assert not (await table.send("done", user=ALICE)).ephemeral
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_the_buttons_work_after_a_restart_and_a_click_delivered_twice_answers_once(table):
    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    no_fire = button(notice, "No fire")
    await table.restart()
    pressed = await table.fake.click(notice, no_fire, user_id=BOB)
    assert pressed.embeds[0]["title"].startswith("Russians do not fire at")
    total = (await table.bot.referee.log(table.channel)).total
    await table.fake.deliver_again(pressed)
    assert (await table.bot.referee.log(table.channel)).total == total  # answered from the log: logged once
    (go_on,) = pressed.followups
    done = await table.fake.click(go_on, button(go_on, "Done"), user_id=ALICE)
    assert done.embeds[0]["title"].startswith("Turn 1, Defensive Fire Phase: Russians to act")


async def test_the_status_says_whom_the_game_waits_for(table):
    await asl_move_phase(table)
    await move_in_the_open(table)
    status = await table.send("game status", user=CAROL)
    description = status.embeds[0]["description"]
    assert "Russians (to answer a reaction window)" in description
    assert ("Waiting for Russians: Defensive First Fire at 4-6-7 A1, 4-6-7 A2 in F4 (A8.1), Fire or No fire"
            in description)


async def test_the_reminder_of_a_silent_window_goes_to_the_side_that_must_answer(table, clock):
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("R1", 1, "B5", "rus-447"),
    ], phase="MPh", options={"remind_after_hours": 12, "elr": [3, 3]})
    assert (await table.game()).options["reactions"] == "ask"
    await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    clock.advance(hours=13)
    assert await table.bot.pacer.check() == [table.channel]
    reminder = table.fake.channel_messages(table.channel)[-1]
    assert reminder.content == (f"<@{BOB}>: the game waits for your answer to Defensive First Fire at 4-6-7 A1 in "
                                "F4 (A8.1: Fire or No fire); nothing happened for 13 hours")
    assert reminder.payload["allowed_mentions"]["users"] == [BOB]
    assert (await table.game()).reaction is not None  # ask: it waits as long as it takes


async def test_no_window_for_a_side_nobody_plays(table):
    from tests.cogs.helpers import gm

    await asl_move_phase(table)
    await gm(table, {"action": "leave", "player": BOB}, "/game leave")
    reply = await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    assert reply.followups == [] and (await table.game()).reaction is None


async def test_a_move_whose_reply_discord_refused_is_posted_with_its_window_and_buttons(table):
    await asl_move_phase(table)
    table.fake.fail_next("/callback", 404, code=10062, message="Unknown interaction")
    reply = await table.send("move", {"units": "A1", "to": "F4"}, user=ALICE)
    assert reply.message is None
    result, notice = table.fake.channel_messages(table.channel)[-2:]
    assert result.content.startswith(f"<@{ALICE}>: your order was saved as log #")
    assert notice.content.startswith(f"<@{BOB}>: Defensive First Fire at 4-6-7 A1 in F4 (A8.1)?")
    assert [b["label"] for row in notice.components for b in row["components"]] == ["Fire", "No fire"]
    pressed = await table.fake.click(notice, button(notice, "No fire"), user_id=BOB)
    assert pressed.embeds[0]["title"].startswith("Russians do not fire at 4-6-7 A1")


async def test_a_scenario_file_paced_by_post_asks_for_reactions_too(table):
    from bot.core.scenario import Scenario, ScenarioSide
    from bot.service import Actor
    from tests.cogs.conftest import GM, GUILD

    scenario = Scenario(ruleset="asl", title="By post", options={"remind_after_hours": 24},
                        sides=[ScenarioSide(name="Germans"), ScenarioSide(name="Russians")])
    await table.bot.referee.new_game(table.channel, GUILD.id, Actor(GM), "asl", [], setup=scenario)
    assert (await table.game()).options["reactions"] == "ask"
    assert (await table.bot.referee.verify(table.channel)).ok
