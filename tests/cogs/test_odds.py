"""Exact odds in Discord (issue 5): the ``preview`` option of /fire, /morale and /rally, and the
"Odds" button on every /fire result, through the real client and the loopback Discord.

Every expected percentage is checked by hand from the dice (n/36 for 2d6, n/6 for a d6, n/10
for a d10), so a wrong engine, a wrong state or a wrong order cannot pass.
"""


import pytest

from bot.service import NotAllowed
from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import asl_game, cd_game, edit, fields, nhis_game, unit, until_allowed
from tests.store.helpers import CountingDice

NEUTRAL_GREY = 0x8A8F98  # bot.render.NEUTRAL_COLOUR: odds are nobody's action


async def previewed(table, name, options, user=ALICE):
    """Send a preview; check it is public, drew no die, logged nothing and changed nothing."""
    counter = CountingDice()
    table.bot.referee.dice = counter
    table.bot.referee.worker.inline_below = float("inf")  # on the loop: the odds, not the worker, are tested here
    before = await table.snapshot()
    reply = await table.send(name, {**options, "preview": True}, user=user)
    assert not reply.ephemeral and reply.message.flags == 0, reply.embeds
    assert counter.drawn == 0
    assert await table.snapshot() == before  # same game, same log length
    [embed] = reply.embeds
    assert embed["title"].startswith("Odds: ") and embed["color"] == NEUTRAL_GREY, embed
    assert embed["description"].endswith("\nExact odds: no dice rolled, nothing logged")
    assert reply.message.components == []  # a preview has nothing to press
    return embed


async def click(table, message, custom_id, user_id):
    """Press a button; the emulator returns once the handler (a dynamic item's task) has ended."""
    return await table.fake.click(message, custom_id, user_id=user_id)


# --- preview, hand-checked in each ruleset -------------------------------------------------


async def test_asl_nmc_preview_against_morale_7_passes_21_in_36(table):
    # R3 alone in C7: no leader, no DRM. DR <= 7 passes: 21/36 = 58.3%, of which the Original 2
    # is Heat of Battle (1/36, marked only); DR 8-11 breaks (14/36 = 38.9%); the Original 12
    # also Casualty-Reduces it (1/36 = 2.8%), so 15/36 = 41.7% end broken (A10.1, A10.31).
    await asl_game(table, extra=(unit("R3", 1, "C7", "rus-447"),))
    embed = await previewed(table, "morale", {"unit": "R3"}, user=BOB)
    assert embed == {
        "type": "rich", "flags": 0, "color": NEUTRAL_GREY,
        "title": "Odds: 4-4-7 R3: Normal Morale Check vs morale 7, DRM +0",
        "description": "Advanced Squad Leader · Test · turn 1, Prep Fire Phase · Germans to act\n"
                       "Exact odds: no dice rolled, nothing logged",
        "footer": {"text": "exact enumeration of the dice"},
        "fields": [
            {"name": "Results", "inline": False,
             "value": "passes 55.6% · Heat of Battle 2.8% · fails 38.9% · fails (Original 12) 2.8%"},
            {"name": "End state of each unit", "inline": False,
             "value": "**4-4-7 R3**: reduced 2.8% · broken 38.9% · unharmed 58.3%"},
            {"name": "Summary", "inline": False, "value": "At least one unit breaks: 41.7%"},
            {"name": "Dice, in the order they are used", "inline": False,
             "value": "1. DR for NMC 4-4-7 R3 (2 d6, white then colored)\n2 dice on the paths tried; manual dice "
                      "(the 'dice' option) go to the rolls in this order"},
        ],
    }


@pytest.mark.parametrize(("setup", "name", "options", "user", "results", "states"), [
    # A3 broken, 9-1 G1 with it: Final DR = DR - 1 vs broken-side morale 8, so DR <= 9 rallies
    # (30/36 = 83.3%, the Original 2 as Heat of Battle); DR 10-11 stays broken (5/36 = 13.9%);
    # the Original 12 is Casualty Reduction (1/36 = 2.8%) (A10.6, A10.7)
    (("asl", "RPh"), "rally", {"unit": "A3"}, ALICE,
     "rallies 80.6% · rallies (Heat of Battle) 2.8% · stays broken 13.9% · Casualty Reduction 2.8%",
     "**4-6-7 A3**: reduced 2.8% · rallied 83.3% · stays broken 13.9%"),
    # 6 FP adjacent: the column-6 row, 2d6 2 D-2 (1/36), 3-5 D (9/36), 6 Hit-1 (5/36),
    # 7-8 Hit (11/36), 9-12 no effect (10/36)
    (("nhis", "Operations"), "fire", {"firers": "U1", "target": "B1", "range": 1}, ALICE,
     "Damaged-2 2.8% · Damaged 25.0% · Hit-1 13.9% · Hit 30.6% · no effect 27.8%",
     "**Japanese rifle squad J1**: elim 2.8% · reduced 34.7% · unharmed 62.5%"),
    # Hit-2: 1d6 + 2 <= morale 5 + 1 (the Prepared leader UL): a d6 of 1-4 passes (4/6)
    (("nhis", "Rally"), "morale", {"unit": "U1", "hit": 2}, ALICE,
     "pass 66.7% · fail 33.3%", "**US Marine rifle squad U1**: shaken 33.3% · unharmed 66.7%"),
    # U2 shaken, morale 5 + 1 (UL): every d6 is at most 6
    (("nhis", "Rally"), "rally", {"unit": "U2"}, ALICE, "pass 100%", "**US Marine rifle squad U2**: rallied 100%"),
    # ROF 2, each d10 hits on 6 or less: 0.6 x 0.6 = 36%, 2 x 0.6 x 0.4 = 48%, 0.4 x 0.4 = 16%
    (("cd", "GeneralFire"), "fire", {"firers": "S1", "target": "G1", "band": "short"}, ALICE,
     "2 hits 36.0% · 1 hit 48.0% · 0 hits 16.0%",
     "**German rifle platoon G1**: elim 32.8% · forced back 26.3% · unharmed 41.0%"),
    # regular company, rating 6 at most on a d10: 1-6 no effect, 7-8 (missed by 1-2) pinned,
    # 9-10 (missed by 3-4) forced back and shaken (CD [21.3])
    (("cd", "CommandMorale"), "morale", {"company": "Able"}, ALICE,
     "no effect 60.0% · pinned 20.0% · forced back + shaken 20.0%",
     "**M4 Sherman S1**: shaken 20.0% · pinned 20.0% · unharmed 60.0%"),
    # Rally/Regroup rolls no die: shaken steps to good order (CD [21.4])
    (("cd", "Movement"), "rally", {"company": "Kampf"}, BOB, "no effect 100%",
     "**German rifle platoon G1**: rallied 100%"),
], ids=["asl-rally", "nhis-fire", "nhis-morale", "nhis-rally", "cd-fire", "cd-morale", "cd-rally"])
async def test_preview_in_each_ruleset_gives_the_hand_checked_odds(table, setup, name, options, user, results,
                                                                    states):
    ruleset, phase = setup
    if ruleset == "asl":
        await asl_game(table, phase=phase)
    elif ruleset == "nhis":
        await nhis_game(table, phase=phase)
    else:
        await cd_game(table, phase=phase, extra=(edit("G1", shaken=True),) if name == "rally" else ())
        if user == BOB:
            await until_allowed(table, name, 1)  # Side B's part of the phase
    shown = fields(await previewed(table, name, options, user=user))
    assert shown["Results"] == results
    assert states in shown["End state of each unit"].splitlines()


# --- the Odds button on a /fire result -------------------------------------------------------


async def test_the_odds_button_shows_the_odds_before_that_fire_even_after_a_restart(table):
    await asl_game(table)
    preview = await previewed(table, "fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2})
    # IFT DR 4+2 -> 1MC; L1 passes on 3+2, R1 on 2+4, R2 breaks on 5+4 (as in test_fire.py)
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    assert fired.embeds[0]["footer"] == {"text": "log #15"}
    assert fired.message.custom_ids() == ["odds:1:15"]
    assert fired.message.components[0]["components"][0]["label"] == "Odds"
    after = await table.snapshot()
    assert after[0].units["R2"].broken  # the state moved on: the odds must come from before #15

    for user, restart in ((CAROL, True), (BOB, False)):  # anyone may look, even from outside the game
        pressed = await click(table, fired.message, "odds:1:15", user)
        assert pressed.ephemeral and pressed.message.flags == 64  # shown to the presser only
        [embed] = pressed.embeds
        assert embed["description"] == f"Before log #15 was rolled: {preview['description']}"
        assert {**embed, "description": None, "flags": 0} == {**preview, "description": None}
        assert await table.snapshot() == after
        if restart:  # the button is rebuilt from its custom_id, the odds replayed from the log
            await table.restart()


async def test_the_odds_button_in_command_decision_replays_the_state_before(table, monkeypatch):
    await cd_game(table)
    fired = await table.send("fire", {"firers": "S1", "target": "G1", "band": "short", "dice": "3 4 5 6"})
    assert fired.message.custom_ids() == ["odds:1:10"]
    pressed = await click(table, fired.message, "odds:1:10", ALICE)
    assert fields(pressed.embeds[0])["Results"] == "2 hits 36.0% · 1 hit 48.0% · 0 hits 16.0%"
    # a long log: "thinking..." first (Discord's 3 s deadline), then the same odds, still private
    table.bot.referee.worker.inline_below = 0  # every replay to a worker process: "thinking..." first
    table.bot.referee.logbook.odds_cache.clear()  # the first answer is cached: this press replays again
    deferred = await click(table, fired.message, "odds:1:10", BOB)
    assert deferred.type == 5 and deferred.ephemeral  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
    # the answer is the "thinking..." message edited (Discord's own place for it), still private
    assert deferred.message.flags == 64 and deferred.message.embeds == pressed.embeds and not deferred.followups
    # an entry that is not an attack or a check has no odds (entry #2 seats a player)
    with pytest.raises(NotAllowed, match=r"entry #2 \(/game join\) is not an attack or a check"):
        await table.bot.referee.entry_odds(1, 2)


async def test_only_fire_results_carry_the_odds_button(table):
    await asl_game(table)
    reply = await table.send("morale", {"unit": "A1", "dice": "3 4"})
    assert reply.message.components == []


# --- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "name", "options", "user"), [
    ("asl", "rally", {"unit": "A3"}, ALICE),  # not the Rally Phase
    ("asl", "morale", {"unit": "R1"}, ALICE),  # the other side's unit
    ("asl", "fire", {"firers": "A1", "target": "B5", "range": 2, "band": "short"}, ALICE),  # a CD option
    ("cd", "morale", {"company": "Able"}, ALICE),  # not the Command & Morale phase
], ids=["asl-rally-phase", "asl-other-side", "asl-cd-option", "cd-morale-phase"])
async def test_an_illegal_preview_is_refused_exactly_like_the_roll(table, game, name, options, user):
    await (asl_game(table) if game == "asl" else cd_game(table))
    rolled = await table.refused(name, options, user=user)
    assert await table.refused(name, {**options, "preview": True}, user=user) == rolled


async def test_preview_with_manual_dice_is_refused(table):
    await asl_game(table)
    text = await table.refused("morale", {"unit": "A1", "dice": "3 4", "preview": True})
    assert text == ("'preview' shows the odds before any roll: leave 'dice' out, or leave 'preview' out to "
                    "resolve the order with your dice")


# --- size and time (issue 17): estimated first, long ones off the event loop ------------------


async def test_a_preview_too_large_to_enumerate_is_refused_at_once_with_its_numbers(table):
    # four leaders in B5 (two of morale 9 above two of morale 8: four possible Leader Loss checks,
    # A10.2): the engine would branch on up to 150,000 ways their checks fall, past its 20,000
    await asl_game(table, extra=(unit("L2", 1, "B5", "rus-9-1"), unit("L3", 1, "B5", "rus-9-2"),
                                 unit("L4", 1, "B5", "rus-8-0")))
    table.bot.referee.worker.inline_below = 0  # nothing may reach a worker: it is refused before
    reply = await table.send("fire", {"firers": "A1 A2", "leader": "G1", "target": "B5", "range": 2,
                                      "preview": True}, user=ALICE)
    assert reply.type == 4 and reply.ephemeral  # answered at once (no "thinking..."), privately
    text = reply.embeds[0]["description"]
    assert "the 4 leaders in B5 check, with 4 possible Leader Loss checks among them (A10.2)" in text, text
    assert "more than the 20,000 a preview tells apart" in text and "fewer leaders, or roll it" in text, text
    assert table.bot.referee.worker.ran == 0


async def test_a_long_preview_defers_and_is_answered_from_a_worker_process(table):
    await asl_game(table)
    options = {"firers": "A1 A2", "leader": "G1", "target": "B5", "range": 2, "preview": True}
    table.bot.referee.worker.inline_below = float("inf")
    on_loop = await table.send("fire", options, user=ALICE)
    table.bot.referee.worker.inline_below = 0
    worked = await table.send("fire", options, user=ALICE)
    assert on_loop.type == 4 and worked.type == 5  # "thinking..." first, then the odds
    assert worked.message.embeds == on_loop.embeds and not worked.message.ephemeral and not worked.followups
    assert table.bot.referee.worker.ran == 1
