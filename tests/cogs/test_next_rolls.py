"""Buttons for the rolls the rules call for next (issue 27 item 6), through the real bot and the loopback
Discord: a hand-off into a Rally Phase carries Done and a Rally button per broken unit that may rally
(A10.6: broken leaders first; an MMC alone only while its side's Self-Rally is open, A10.63), its
holder's alone; a press rolls exactly as /rally (the same order, dice, answer and log entry), once,
and the next eligible units come back privately to the player; a press on a stale button is refused
saying what changed; NHiS's Rally Phase; CD's company checks due in the Command & Morale Phase open
/morale's form, whose submission checks the company as /morale does."""

from bot.core.dice import ScriptedDice
from tests.cogs.conftest import ALICE, BOB, CAROL, refusal
from tests.cogs.helpers import cd_game, last_entry, nhis_game, start_game, terrain, unit


def labels(message):
    return [b["label"] for row in message.components for b in row["components"]]


def button(message, label):
    return next(b["custom_id"] for row in message.components for b in row["components"] if b["label"] == label)


def dice(table, *faces):
    """The bot's own dice for the next order (a press gives none: it rolls as the command without dice)."""
    table.bot.referee.dice = lambda: ScriptedDice(list(faces), manual=False)


async def russians_to_rally(table):
    """ASL, the Germans' CCPh of turn 1 ending: the Russians' player turn begins with their Rally Phase.
    Broken Russians: the leader L2 alone in C7, R3 with the Good Order 8-1 L1 in B5, R4 and R5 each alone
    (Self-Rally); the Germans' A3 broken with G1."""
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("G1", 0, "A4", "ger-9-1"), unit("A3", 0, "A4", "ger-467", broken=True),
        unit("L1", 1, "B5", "rus-8-1"), unit("R3", 1, "B5", "rus-447", broken=True),
        unit("R4", 1, "C6", "rus-447", broken=True), unit("R5", 1, "C8", "rus-447", broken=True),
        unit("L2", 1, "C7", "rus-8-1", broken=True), terrain("B5", "woods"),
    ], phase="CCPh", options={"elr": [3, 3]})
    ended = await table.send("done", user=ALICE)
    assert not ended.ephemeral, ended.embeds
    hand_off = ended.followups[-1]
    assert hand_off.content.startswith(f"<@{BOB}>: your move (Russians, turn 1, Rally Phase")
    return hand_off


async def test_the_rally_phase_hand_off_carries_done_and_a_rally_button_per_unit_that_may_rally(table):
    hand_off = await russians_to_rally(table)
    # one row: Done, then the next four that may rally, the broken leader first (A10.6)
    assert labels(hand_off) == ["Done", "Rally 8-1 L2", "Rally 4-4-7 R3", "Rally 4-4-7 R4", "Rally 4-4-7 R5"]
    assert len(hand_off.components) == 1
    # the other side and a spectator: refused, nothing rolled or logged
    before = await table.snapshot()
    other = refusal(await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R3"), user_id=ALICE))
    assert other == ("this Rally 4-4-7 R3 is Russians', who hold the Rally Phase, ATTACKER's part, turn 1; you play "
                     "Germans: /rally is theirs to give now")
    nobody = refusal(await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R3"), user_id=CAROL))
    assert nobody.endswith("you play no side in this game")
    assert await table.snapshot() == before

    dice(table, 3, 4)  # DR 7, -1 for the 8-1 L1 (A10.7), -1 woods (A10.61): 5 vs 7
    pressed = await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R3"), user_id=BOB)
    assert not pressed.ephemeral, pressed.embeds
    assert pressed.embeds[0]["title"] == "4-4-7 R3 rally (rallied by 8-1 L1)"  # within 60 characters
    assert pressed.embeds[0]["description"].startswith("Final DR 5 vs 7 -> rallies\n")
    trail = str(pressed.embeds)
    assert "leadership of 8-1 L1" in trail and "[A10.7]" in trail and "[A10.61]" in trail
    entry = await last_entry(table)
    assert (entry.command, entry.actor, entry.order) == ("/rally", BOB, {"action": "rally", "unit": "R3"})
    assert entry.manual is False and len(entry.dice) == 2
    # the next ones, to the player alone
    (nxt,) = pressed.followups
    assert nxt.ephemeral
    assert nxt.content == ("Next for Russians (A10.6): Rally 8-1 L2, Rally 4-4-7 R4, Rally 4-4-7 R5; press one, or "
                           "give /rally (/done when you are through)")
    assert labels(nxt) == ["Rally 8-1 L2", "Rally 4-4-7 R4", "Rally 4-4-7 R5"]

    # exactly once: the same button again is refused (R3 rallied), and a re-delivered press logs nothing
    total = (await table.bot.referee.log(table.channel)).total
    again = refusal(await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R3"), user_id=BOB))
    assert again == ("this Rally 4-4-7 R3 is no longer due (it was rolled, or the game changed): it is now the "
                     "Rally Phase, ATTACKER's part, turn 1, Russians to act [A10.6]")
    await table.fake.deliver_again(pressed)
    assert (await table.bot.referee.log(table.channel)).total == total

    # R4's Self-Rally uses the Russians' one for this player turn: R5, alone too, may no longer rally (A10.63)
    dice(table, 6, 5)
    selfie = await table.fake.click(nxt, button(nxt, "Rally 4-4-7 R4"), user_id=BOB)
    assert selfie.embeds[0]["title"].startswith("4-4-7 R4 rally (Self-Rally)")
    (last,) = selfie.followups
    assert labels(last) == ["Rally 8-1 L2"]
    before = await table.snapshot()
    late = refusal(await table.fake.click(nxt, button(nxt, "Rally 4-4-7 R5"), user_id=BOB))
    assert late.startswith("this Rally 4-4-7 R5 is no longer due")
    assert await table.snapshot() == before

    # the step moves on: its buttons are stale, and the DEFENDER's part hands the Germans their own
    moved = await table.send("done", user=BOB)
    german = moved.followups[-1]
    assert german.content.startswith(f"<@{ALICE}>: your move (Germans, turn 1, Rally Phase")
    assert labels(german) == ["Done", "Rally 4-6-7 A3"]
    stale = refusal(await table.fake.click(last, button(last, "Rally 8-1 L2"), user_id=BOB))
    assert stale == ("this Rally 8-1 L2 was for the Rally Phase, ATTACKER's part, turn 1, which has ended: it is now "
                     "the Rally Phase, DEFENDER's part, turn 1, Germans to act")


async def test_a_step_without_rolls_due_has_only_done(table):
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("R1", 1, "B5", "rus-447"),
    ], phase="CCPh", options={"elr": [3, 3]})
    ended = await table.send("done", user=ALICE)
    assert labels(ended.followups[-1]) == ["Done"]  # nobody broken: nothing to rally


async def test_nhis_the_rally_phase_begun_by_the_same_sides_done_offers_its_rally_privately(table):
    await nhis_game(table, phase="Administrative")
    ended = await table.send("done", user=ALICE)  # the turn ends; the US's part of the next Rally Phase begins
    assert not ended.ephemeral, ended.embeds
    game = await table.game()
    assert game.phase == "Rally" and game.to_act == 0
    (nxt,) = [m for m in ended.followups if m.ephemeral]
    assert labels(nxt) == ["Rally US Marine rifle squad U2"]
    dice(table, 1)
    pressed = await table.fake.click(nxt, button(nxt, "Rally US Marine rifle squad U2"), user_id=ALICE)
    assert pressed.embeds[0]["title"].startswith("US Marine rifle squad U2 rally: 1d6 1 vs")
    assert (await last_entry(table)).order == {"action": "rally", "unit": "U2"}
    assert not [m for m in pressed.followups if m.ephemeral]  # nothing more to rally


async def test_cd_a_company_check_due_opens_the_morale_form_and_holds_done_until_checked(table):
    await cd_game(table)
    await table.send("fire", {"firers": "P1", "target": "G1", "band": "short", "dice": "9 9"})  # a miss
    await table.send("done")
    await table.send("fire", {"firers": "G2", "target": "S1", "band": "short", "dice": "9 9"}, user=BOB)
    entered = await table.send("done", user=BOB)  # Able was fired upon: its check is due (5B)
    hand_off = entered.followups[-1]
    assert hand_off.content.startswith(f"<@{ALICE}>: your move (Americans, turn 1, Command & Morale Phase")
    assert labels(hand_off) == ["Done", "Check company Able"]
    # a company falling due within the step: the player who declared it gets its button privately
    near = await table.send("company near", {"company": "Arty"})
    (nxt,) = [m for m in near.followups if m.ephemeral]
    assert labels(nxt) == ["Check company Able", "Check company Arty"]
    # the press opens /morale's form: the company prefilled, the circumstances the players know to add
    refused = refusal(await table.fake.click(hand_off, button(hand_off, "Check company Able"), user_id=BOB))
    assert refused.startswith("this Check company Able is Americans'")
    opened = await table.fake.click(hand_off, button(hand_off, "Check company Able"), user_id=ALICE)
    assert opened.modal is not None and opened.modal["title"] == "Check company Able"
    inputs = {row["components"][0]["label"]: row["components"][0].get("value", "")
              for row in opened.modal["components"]}
    assert inputs == {"company": "Able", "options": ""}
    dice(table, 1)
    checked = await table.fake.submit_modal(opened, {"options": "in_cover=yes"})
    assert not checked.ephemeral, checked.embeds
    entry = await last_entry(table)
    assert (entry.command, entry.order["action"], entry.order["company"], entry.order["in_cover"]) == (
        "/morale", "morale", "Able", True)
    assert checked.embeds[0]["title"] == "Company Able morale: d10 1 -> passed"
    assert "In cover  +2  (=2)  [CD [14.2.2]]" in str(checked.embeds)  # the form's options, as /morale's
    (after,) = [m for m in checked.followups if m.ephemeral]
    assert labels(after) == ["Check company Arty"]
    assert "company Arty" in await table.refused("done")  # /done still waits for Arty


async def test_the_buttons_and_the_fire_form_work_after_a_restart_and_a_press_counts_against_the_roll_limit(table):
    from bot.limits import RollRateLimiter

    hand_off = await russians_to_rally(table)
    await table.restart()  # the buttons are rebuilt from their custom_ids
    table.bot.roll_limiter = RollRateLimiter(2, 60)
    dice(table, 3, 4)
    pressed = await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R3"), user_id=BOB)
    assert pressed.embeds[0]["description"].startswith("Final DR 5 vs 7 -> rallies\n")
    refused = refusal(await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R3"), user_id=BOB))
    assert refused.startswith("this Rally 4-4-7 R3 is no longer due")  # refused: taken back from the limit
    dice(table, 3, 4)
    assert not (await table.fake.click(hand_off, button(hand_off, "Rally 8-1 L2"), user_id=BOB)).ephemeral
    before = await table.snapshot()
    over = await table.fake.click(hand_off, button(hand_off, "Rally 4-4-7 R4"), user_id=BOB)
    assert over.ephemeral and over.content.startswith("Slow down: you gave 2 rolling commands in the last 60 seconds")
    assert await table.snapshot() == before


async def test_a_fire_form_opened_before_a_restart_is_submitted_after_it(table):
    from tests.cogs.test_reactions import asl_move_phase, move_in_the_open

    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    opened = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)
    await table.restart()
    dice(table, 6, 6)
    fired = await table.fake.submit_modal(opened, {"firers": "R1 R2", "range": "4"})
    assert not fired.ephemeral, fired.embeds
    assert "FFMO (moving in Open Ground)" in str(fired.embeds)
    assert (await last_entry(table)).command == "/fire"


async def test_a_forms_submission_is_counted_by_the_quotas_as_a_press(table):
    """The Fire button's press and its form's submission are two interactions, each counted as a button's
    press: over the player's quota, the submission is refused with the time to wait, nothing fired."""
    from bot.config import Settings
    from bot.limits import Quotas
    from tests.cogs.test_reactions import asl_move_phase, move_in_the_open
    from tests.reliability.test_limits import FakeClock

    await asl_move_phase(table)
    notice = await move_in_the_open(table)
    names = ("quota_user", "quota_channel", "quota_server", "quota_heavy_user", "quota_heavy_channel",
             "quota_heavy_server")
    table.bot.quotas = Quotas(Settings(**{name: "off" for name in names} | {"quota_user": "1/60"}),
                              clock=FakeClock())
    opened = await table.fake.click(notice, button(notice, "Fire"), user_id=BOB)  # the one press of the minute
    assert opened.modal is not None
    before = await table.snapshot()
    over = await table.fake.submit_modal(opened, {"firers": "R1 R2", "range": "4"})
    assert over.ephemeral and over.content.startswith("Slow down: you gave 1 ")
    assert await table.snapshot() == before
