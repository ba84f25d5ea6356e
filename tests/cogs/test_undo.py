"""/undo by consent through the emulator (accepted, refused, withdrawn, expired, wrong player,
after a restart, clicked twice), and pacing: the hand-off mention and the silence reminder."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.cogs.conftest import ALICE, BOB, CAROL, GM, THREAD
from tests.cogs.helpers import asl_game, start_game
from tests.store.helpers import CountingDice


class Clock:
    """A clock the test moves by hand: no sleeping for minutes."""

    def __init__(self):
        self.now = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)

    def __call__(self):
        return self.now

    def advance(self, **delta):
        self.now += timedelta(**delta)


@pytest.fixture
def clock(table):
    """The bot's clock, moved by the test; the background passes (expiry, reminders) are then
    run by hand, so none of them runs at a moment the test did not choose."""
    clock = Clock()
    table.bot.referee.clock = clock
    cog = table.bot.get_cog("UndoCog")
    cog.expire_proposals.cancel()
    table.bot.pacer.stop()
    return clock


async def broken_r1(table):
    """ASL in the PFPh; Bob's 4-4-7 R1 fails an NMC on boxcars (#15): the action to undo."""
    await asl_game(table)
    before = await table.game()
    await table.send("morale", {"unit": "R1", "dice": "6 6"}, user=BOB)
    assert (await table.game()).units["R1"].broken
    return before


async def propose(table, user=BOB):
    reply = await table.send("undo", user=user)
    assert not reply.ephemeral
    return reply


async def click(table, message, custom_id, user_id):
    """Press a button; the emulator returns once the handler (a dynamic item's task) has ended."""
    return await table.fake.click(message, custom_id, user_id=user_id)


async def deliver_again(table, reply):
    return await table.fake.deliver_again(reply)


def accept_id(reply):
    return reply.message.custom_ids()[0]


def refuse_id(reply):
    return reply.message.custom_ids()[1]


async def test_an_accepted_undo_restores_the_state_before_and_keeps_the_undone_entry(table, clock):
    before = await broken_r1(table)
    counter = CountingDice()
    table.bot.referee.dice = counter
    proposal = await propose(table)
    embed = proposal.embeds[0]
    assert embed["title"] == "Undo proposed: entry #15"
    assert embed["description"] == (
        f"<@{BOB}> proposes to undo entry #15 (/morale): 4-4-7 R1: Normal Morale Check, Final DR 11 vs 7 -> fails\n"
        "Its dice stay in the log; giving the order again rolls new dice.\n"
        "A player of Germans or the game master may accept until <t:1772560800:f> (<t:1772560800:R>); "
        "the proposer may withdraw it.")
    assert proposal.message.custom_ids() == ["undo:accept:1", "undo:refuse:1"]

    clicked = await click(table, proposal.message, "undo:accept:1", ALICE)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: accepted"
    assert proposal.message.embeds[0]["description"].endswith(f"\nAccepted by <@{ALICE}>.")
    assert proposal.message.components == []  # no button left to press
    (outcome,) = clicked.followups
    assert outcome.embeds[0]["title"] == "Entry #15 undone"
    assert outcome.embeds[0]["footer"] == {"text": "log #16"}
    assert await table.game() == before  # exactly the state before #15
    assert counter.drawn == 0  # an undo never rolls

    page = await table.bot.referee.log(table.channel)
    assert page.total == 16 and page.undone == {15: 16}
    assert page.entries[-2].dice == (6, 6)  # the undone entry stays, with its dice
    assert page.entries[-1].order["accepted_by"] == ALICE and page.entries[-1].actor == BOB
    shown = await table.send("log show")
    lines = shown.embeds[0]["fields"][0]["value"].split("\n")
    assert lines[-2].startswith("~~#15 · ") and lines[-2].endswith("~~ (undone by #16)")
    verified = await table.send("log verify")
    assert verified.message.embeds[0]["title"] == "The log checks out"


async def test_the_other_side_refuses_and_nothing_changes(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    await click(table, proposal.message, refuse_id(proposal), ALICE)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: refused"
    assert proposal.message.embeds[0]["description"].endswith(f"\nRefused by <@{ALICE}>.")
    assert (await table.game()).units["R1"].broken
    assert (await table.bot.referee.log(table.channel)).total == 15


async def test_the_proposer_may_withdraw_but_not_accept(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    own = await click(table, proposal.message, accept_id(proposal), BOB)
    assert own.ephemeral and own.embeds[0]["description"] == (
        "you proposed this undo: a player of the other side (or the game master) must accept it; "
        "you may withdraw it with Refuse")
    assert proposal.message.embeds[0]["title"] == "Undo proposed: entry #15"  # still waiting
    await click(table, proposal.message, refuse_id(proposal), BOB)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: withdrawn"


async def test_someone_outside_the_game_cannot_answer_and_the_right_player_still_can(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    stranger = await click(table, proposal.message, accept_id(proposal), CAROL)
    assert stranger.ephemeral
    assert stranger.embeds[0]["description"] == ("only a player of Germans seated before the action (or the game "
                                                 "master) may answer this undo")
    assert (await table.bot.referee.log(table.channel)).total == 15
    await click(table, proposal.message, accept_id(proposal), ALICE)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: accepted"


async def test_a_player_seated_after_the_action_cannot_consent_to_its_undo(table, clock):
    """Found by the audit: a stranger who joined the Russians accepted the German player's undo.
    Consent counts only from a player of the other side seated before the action undone."""
    await broken_r1(table)
    await table.seat(CAROL, "Russians")  # #16: Carol sits down with the Russians
    proposal = await propose(table, user=ALICE)  # the Germans propose to undo the newest entry, #16
    assert proposal.message.embeds[0]["title"] == "Undo proposed: entry #16"
    late = await click(table, proposal.message, accept_id(proposal), CAROL)
    assert late.ephemeral and late.embeds[0]["description"] == (
        "only a player of Russians seated before the action (or the game master) may answer this undo")
    assert (await table.bot.referee.log(table.channel)).total == 16
    await click(table, proposal.message, accept_id(proposal), BOB)  # seated since the start
    assert proposal.message.embeds[0]["title"] == "Undo of entry #16: accepted"
    assert CAROL not in (await table.game()).sides[1].players


async def test_an_unanswered_undo_expires_after_48_hours_by_default(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    clock.advance(hours=48)
    late = await click(table, proposal.message, accept_id(proposal), ALICE)
    assert late.message is proposal.message
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: expired"
    assert proposal.message.components == []
    assert (await table.game()).units["R1"].broken
    assert (await table.bot.referee.log(table.channel)).total == 15


async def test_an_expired_proposal_loses_its_buttons_without_a_click(table, clock):
    cog = table.bot.get_cog("UndoCog")
    await broken_r1(table)
    proposal = await propose(table)
    clock.advance(hours=47, minutes=59, seconds=59)
    await cog.expire_proposals()
    assert proposal.message.embeds[0]["title"] == "Undo proposed: entry #15"
    clock.advance(seconds=1)
    await cog.expire_proposals()
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: expired"
    assert proposal.message.embeds[0]["description"].endswith("\nExpired without an answer.")
    assert proposal.message.components == []
    assert (await table.bot.referee.undo_proposal(1)).request.status == "expired"
    assert (await table.bot.referee.log(table.channel)).total == 15


async def test_the_game_option_undo_minutes_sets_the_expiry(table, clock):
    await start_game(table, "asl", ["Germans", "Russians"], [], options={"undo_minutes": 2})
    await table.send("done", user=ALICE)
    proposal = await propose(table, user=ALICE)
    clock.advance(minutes=1, seconds=59)
    await click(table, proposal.message, accept_id(proposal), BOB)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #4: accepted"


async def test_a_proposal_lapses_when_the_game_moves_on_before_the_answer(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    await table.send("morale", {"unit": "A1", "dice": "3 4"})  # #16
    await click(table, proposal.message, accept_id(proposal), ALICE)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: lapsed"
    assert (await table.bot.referee.log(table.channel)).total == 16


async def test_the_game_master_may_accept_their_own_undo(table, clock):
    await broken_r1(table)
    proposal = await propose(table, user=GM)
    await click(table, proposal.message, accept_id(proposal), GM)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: accepted"


async def test_a_second_undo_undoes_the_action_before(table, clock):
    await broken_r1(table)
    first = await propose(table)
    await click(table, first.message, accept_id(first), ALICE)  # #16 undoes #15
    second = await propose(table, user=ALICE)
    assert second.embeds[0]["title"] == "Undo proposed: entry #14"  # the phase change
    await click(table, second.message, accept_id(second), BOB)
    assert (await table.game()).phase == "RPh"
    assert (await table.bot.referee.log(table.channel)).undone == {15: 16, 14: 17}
    assert (await table.send("log verify")).message.embeds[0]["title"] == "The log checks out"


async def test_a_waiting_proposal_blocks_another_and_the_creation_is_never_undone(table, clock):
    await broken_r1(table)
    await propose(table)
    again = await table.send("undo", user=ALICE)
    assert again.ephemeral and again.embeds[0]["description"] == (
        "an undo of entry #15 is already waiting for an answer (until <t:1772560800:f>)")
    await table.send("game new", {"ruleset": "asl", "sides": "Blue, Red"}, user=GM, channel=THREAD)
    nothing = await table.send("undo", user=GM, channel=THREAD)
    assert nothing.embeds[0]["description"] == "there is nothing to undo: the game's creation cannot be undone"


async def test_the_buttons_still_work_after_a_restart(table):
    await broken_r1(table)
    proposal = await propose(table)
    await table.restart()
    await click(table, proposal.message, accept_id(proposal), ALICE)
    assert proposal.message.embeds[0]["title"] == "Undo of entry #15: accepted"
    assert not (await table.game()).units["R1"].broken


async def test_an_accept_click_delivered_twice_undoes_once(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    clicked = await click(table, proposal.message, accept_id(proposal), ALICE)
    await deliver_again(table, clicked)
    assert (await table.bot.referee.log(table.channel)).total == 16
    assert len(clicked.followups) == 1


async def test_a_redelivered_undo_command_proposes_once(table, clock):
    await broken_r1(table)
    proposal = await propose(table)
    await table.fake.deliver_again(proposal)
    assert len(table.fake.channel_messages(table.channel)) == 2  # bob's /morale, the one proposal
    assert proposal.record.rejected and proposal.record.rejected[0].data == proposal.record.callbacks[0].data


# --- pacing ---------------------------------------------------------------------------------------


async def test_passing_the_turn_mentions_the_other_sides_player_and_only_them(table):
    await asl_game(table)
    await table.send("done", user=ALICE)  # PFPh -> MPh: still the Germans
    reply = await table.send("done", user=ALICE)  # MPh -> DFPh: the Russians fire
    assert reply.embeds[0]["title"] == "Turn 1, Defensive Fire Phase: Russians to act"
    (hand_off,) = reply.followups
    assert hand_off.content == f"<@{BOB}>: your move (Russians, turn 1, Defensive Fire Phase)"
    assert hand_off.payload["allowed_mentions"] == {"parse": [], "users": [BOB]}
    # with a digest of what happened since Bob last acted (he took his seat, #3): the game master's
    # set-up and the Germans' first /done
    assert hand_off.embeds[0]["title"] == "Since you last acted: 12 entries"
    assert hand_off.embeds[0]["description"].splitlines()[-1] == "#15 /done: Turn 1, Movement Phase: Germans to act"


async def test_an_action_that_keeps_the_turn_mentions_nobody(table):
    await asl_game(table)
    reply = await table.send("done", user=ALICE)  # PFPh -> MPh: still the Germans
    assert reply.followups == []


async def test_undoing_a_hand_off_hands_the_turn_back(table, clock):
    await asl_game(table)
    await table.send("done", user=ALICE)  # #15 PFPh -> MPh
    await table.send("done", user=ALICE)  # #16 MPh -> DFPh: the Russians to act
    proposal = await propose(table, user=ALICE)
    clicked = await click(table, proposal.message, accept_id(proposal), BOB)
    outcome, hand_off = clicked.followups
    assert outcome.embeds[0]["title"] == "Entry #16 undone"
    assert hand_off.content == f"<@{ALICE}>: your move (Germans, turn 1, Movement Phase)"
    assert hand_off.payload["allowed_mentions"]["users"] == [ALICE]


async def test_a_silent_game_gets_one_reminder_per_silence(table, clock):
    pacer = table.bot.pacer
    await start_game(table, "asl", ["Germans", "Russians"], [], options={"remind_after_hours": 12})
    clock.advance(hours=11)
    assert await pacer.check() == []
    clock.advance(hours=2)
    assert await pacer.check() == [table.channel]
    (reminder,) = table.fake.channel_messages(table.channel)
    assert reminder.content == (f"<@{ALICE}>: the game waits for your move (Germans, turn 1, Rally Phase, "
                                "ATTACKER's part); nothing happened for 13 hours")
    assert reminder.payload["allowed_mentions"] == {"parse": [], "users": [ALICE]}
    clock.advance(hours=24)
    assert await pacer.check() == []  # the same silence: reminded once
    await table.send("done", user=ALICE)  # the Rally Phase's DEFENDER's part: the Russians to act
    clock.advance(hours=12)
    assert await pacer.check() == [table.channel]
    assert table.fake.channel_messages(table.channel)[-1].content.startswith(f"<@{BOB}>: the game waits")


async def test_games_without_the_option_are_never_reminded(table, clock):
    pacer = table.bot.pacer
    await asl_game(table)
    clock.advance(days=30)
    assert await pacer.check() == []
