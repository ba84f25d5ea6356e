"""The sequence of play through the real bot and the loopback Discord (issue 11): two full game
turns of each ruleset, every step entered in order, the side to act alternating as the rules say,
exactly the right players mentioned at each hand-off, movement enabling the fire that follows, the
clean-ups seen in state and trail; and the refusals (out of turn, another side's step without its
consent, a move where the step or the rules forbid it, a second Command Decision fire, fire the
stand's order forbids), each red, private, and leaving the game and its log as they were."""

from __future__ import annotations

from typing import Any

from bot.core.rulesets import get_ruleset
from bot.core.sequence import step_name
from tests.cogs.conftest import ALICE, BOB, GM
from tests.cogs.helpers import edit, fields, start_game, terrain, unit

PLAYERS = {0: ALICE, 1: BOB}


async def where(table) -> tuple[int, str, str, int]:
    """(turn, phase, step as players read it, side to act)."""
    game = await table.game()
    return game.turn, game.phase, step_name(game, get_ruleset(game.ruleset)), game.to_act


async def done(table, expected_next: tuple[int, str, int], **options: Any):
    """The holder ends its step; the game must then be at ``expected_next`` (turn, step, side to act),
    and the reply must mention exactly the players of the side now to act when it changed."""
    before = await table.game()
    holder = before.to_act
    reply = await table.send("done", options, user=PLAYERS[holder])
    assert not reply.ephemeral, reply.embeds
    turn, _, step, to_act = await where(table)
    assert (turn, step, to_act) == expected_next, (reply.embeds[0]["title"], turn, step, to_act)
    title = reply.embeds[0]["title"]
    assert title == f"Turn {turn}, {step}: {before.sides[to_act].name} to act"
    assert reply.embeds[0]["description"].endswith(f"turn {turn}, {step} · {before.sides[to_act].name} to act")
    trail = fields(reply.embeds[0])
    if to_act != holder:
        (mention,) = reply.followups
        assert mention.content.startswith(f"<@{PLAYERS[to_act]}>: your move (")
        assert mention.payload["allowed_mentions"] == {"parse": [], "users": [PLAYERS[to_act]]}
        assert not mention.embeds or mention.embeds[0]["title"].startswith("Since you last acted")
    else:
        assert reply.followups == []
    return reply, trail


# --- Advanced Squad Leader -----------------------------------------------------------------------

ASL_PLAYER_TURN = [  # (step, holder: "attacker" or "defender"), as data/asl/sequence.yaml orders them
    ("Rally Phase, ATTACKER's part", "attacker"), ("Rally Phase, DEFENDER's part", "defender"),
    ("Prep Fire Phase", "attacker"), ("Movement Phase", "attacker"), ("Defensive Fire Phase", "defender"),
    ("Advancing Fire Phase", "attacker"), ("Rout Phase, ATTACKER's part", "attacker"),
    ("Rout Phase, DEFENDER's part", "defender"), ("Advance Phase", "attacker"), ("Close Combat Phase", "attacker"),
]


def asl_turns(game_turns: int) -> list[tuple[int, str, int]]:
    """Every step of ``game_turns`` game turns: (turn, step, side to act)."""
    steps = []
    for turn in range(1, game_turns + 1):
        for attacker in (0, 1):
            steps += [(turn, step, attacker if role == "attacker" else 1 - attacker) for step, role in ASL_PLAYER_TURN]
    return steps + [(game_turns + 1, ASL_PLAYER_TURN[0][0], 0)]


async def test_asl_two_game_turns_with_movement_reactive_fire_and_every_clean_up(table):
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "B4", "ger-467"), unit("A2", 0, "B4", "ger-467"),
        unit("R1", 1, "B6", "rus-447"), unit("R3", 1, "B6", "rus-447", broken=True, dm=True),
        terrain("B4", "woods"), terrain("B6", "woods"), terrain("C5", "open"),
    ], options={"elr": [3, 3]})
    steps = asl_turns(2)
    assert await where(table) == (1, "RPh", steps[0][1], 0)
    for i, expected in enumerate(steps[1:], start=1):
        turn, step, side = steps[i - 1]
        if (turn, step, side) == (1, "Prep Fire Phase", 0):  # the Germans prep fire with A2
            fired = await table.send("fire", {"firers": "A2", "target": "B6", "range": 2, "dice": "6 6"}, user=ALICE)
            assert fired.embeds[0]["title"].startswith("4 FP (IFT 4) vs B6")
        if (turn, step, side) == (1, "Movement Phase", 0):
            # the Germans move A1 into the open; the Russians fire at it as it moves (Defensive First Fire)
            moved = await table.send("move", {"units": "A1", "to": "C5"}, user=ALICE)
            assert fields(moved.embeds[0])["4-6-7 A1 moves to C5 [A4.1]"].splitlines()[-1] == (
                "4-6-7 A1: moving (expended MF): Defensive First Fire may target it  [A8.1]")
            dff = await table.send("fire", {"firers": "R1", "target": "C5", "dice": "5 4 3 3"},
                                   user=BOB)
            lines = "\n".join(fields(dff.embeds[0]).values())
            assert "FFMO (moving in Open Ground)  \\-1" in lines and "FFNAM (not Assault Movement)  \\-1" in lines
            assert (await table.game()).locations["C5"].residual_fp > 0
        reply, trail = await done(table, expected)
        text = "\n".join(trail.values())
        if (turn, step, side) == (1, "Rally Phase, DEFENDER's part", 1):  # the end of the RPh: DM comes off (A10.62)
            assert "4-4-7 R3: DM removed  [A10.62]" in text and not (await table.game()).units["R3"].dm
        if (turn, step, side) == (1, "Movement Phase", 0):  # Residual FP comes off at the end of the MPh (A8.2)
            assert "Residual FP" in text and (await table.game()).locations["C5"].residual_fp == 0
            assert not (await table.game()).units["A1"].moving
        if (turn, step, side) == (1, "Defensive Fire Phase", 1):  # First Fire markers come off (A8.4)
            assert "4-4-7 R1: First Fire marker removed  [A8.4, seed 003]" in text
        if (turn, step, side) == (1, "Close Combat Phase", 0):  # Prep Fire markers at the player turn's end
            assert "4-6-7 A2: Prep Fire marker removed  [seed 003]" in text
            assert (await table.game()).units["A2"].fire_marker is None
    verified = await table.send("log verify", user=GM)
    assert verified.message.embeds[0]["title"] == "The log checks out"


# --- No Honor in Surrender ---------------------------------------------------------------------------


async def test_nhis_two_game_turns_with_impulses_passes_and_the_moving_target_bonus(table):
    await start_game(table, "nhis", ["US", "Japan"], [
        unit("U1", 0, "A1", "us-rifle-squad"), unit("U2", 0, "A1", "us-rifle-squad"),
        unit("J1", 1, "C1", "jp-rifle-squad"), unit("J2", 1, "C1", "jp-rifle-squad"),
    ])
    for turn in (1, 2):
        assert await where(table) == (turn, "Rally", "Rally Phase, first side", 0)
        await done(table, (turn, "Rally Phase, second side", 1))
        await done(table, (turn, "Operations Phase, impulse 1", 0))
        if turn == 1:
            moved = await table.send("move", {"units": "U1", "to": "B1"}, user=ALICE)
            assert (await table.game()).units["U1"].marker == "move"
            assert "Move marker: a moving target (+2 against it)" in fields(moved.embeds[0])[
                "US Marine rifle squad U1: move to B1 [NHiS sequence of play (assumed)]"]
            # the Japanese fire at the moving unit in the US impulse (opportunity fire): +2 moving target
            fired = await table.send("fire", {"firers": "J1", "target": "B1", "range": 1, "dice": "6 6"}, user=BOB)
            text = "\n".join(fields(fired.embeds[0]).values())
            assert "opportunity fire at US Marine rifle squad U1, which moved in it" in text
            assert "Moving target (US Marine rifle squad U1)  +2" in text
            # U1 moved and keeps its Move marker when it fires: but it fires once an impulse
            await table.send("fire", {"firers": "U1", "target": "C1", "range": 1, "dice": "6 6"}, user=ALICE)
            assert await table.refused("fire", {"firers": "U1", "target": "C1", "range": 1}, user=ALICE) == (
                "US Marine rifle squad U1 has fired in this impulse already (NHiS sequence of play (assumed))")
            await done(table, (turn, "Operations Phase, impulse 2", 1))  # the US acted: not a pass
            await done(table, (turn, "Operations Phase, impulse 3", 0))  # the Japanese pass
            _, trail = await done(table, (turn, "Administrative Phase", 0))  # a second pass in a row
            assert "Both sides passed in a row: the Operations Phase ends" in "\n".join(trail.values())
        else:
            await done(table, (turn, "Operations Phase, impulse 2", 1))
            await done(table, (turn, "Administrative Phase", 0))
        _, trail = await done(table, (turn + 1, "Rally Phase, first side", 0))
        if turn == 1:  # the Administrative Phase takes the markers off
            assert "US Marine rifle squad U1: Move marker removed" in "\n".join(trail.values())
            assert (await table.game()).units["U1"].marker is None


async def test_nhis_a_moving_unit_that_fails_its_check_ends_its_sides_impulse(table):
    await start_game(table, "nhis", ["US", "Japan"], [
        unit("U1", 0, "A1", "us-rifle-squad"), unit("J1", 1, "C1", "jp-rifle-squad"),
    ], phase="Operations")
    await table.send("move", {"units": "U1", "to": "B1"}, user=ALICE)
    fired = await table.send("fire", {"firers": "J1", "target": "B1", "range": 1, "dice": "3 4 6"}, user=BOB)
    text = "\n".join(fields(fired.embeds[0]).values())
    assert "US Marine rifle squad U1 failed its check while moving: US's impulse ends" in text
    (mention,) = fired.followups  # the game passed to the Japanese: Bob is told
    assert mention.content.startswith(f"<@{BOB}>: your move (Japan, turn 1, Operations Phase, impulse 2)")


# --- Command Decision --------------------------------------------------------------------------------

CD_TURN = [  # (step, side holding it when the Americans are Side A)
    ("Artillery & Air Phase, Side A", "A"), ("Artillery & Air Phase, Side B", "B"),
    ("Movement Phase, Side A prep fire", "A"), ("Movement Phase, Side B prep fire", "B"),
    ("Movement Phase, Side A moves", "A"), ("Movement Phase, Side B moves", "B"),
    ("Opportunity Fire Phase, Side A", "A"), ("Opportunity Fire Phase, Side B", "B"),
    ("General Fire Phase, Side A", "A"), ("General Fire Phase, Side B", "B"),
    ("Command & Morale Phase, Side A", "A"), ("Command & Morale Phase, Side B", "B"),
]


async def test_cd_two_turns_with_initiative_orders_op_fire_at_a_mover_and_the_limits(table):
    await start_game(table, "cd", ["Americans", "Germans"], [
        unit("P1", 0, "X1", "us-rifle", company="Able"), unit("P2", 0, "X1", "us-rifle", company="Able"),
        unit("G1", 1, "X2", "ger-rifle", company="Kampf"), unit("G2", 1, "X2", "ger-rifle", company="Kampf"),
        edit("G2", suppressed=True),
    ])
    side = {"A": 0, "B": 1}  # turn 1: the Americans win the initiative
    for turn in (1, 2):
        for i, (step, holder) in enumerate(CD_TURN):
            assert await where(table) == (turn, (await table.game()).phase, step, side[holder]), (turn, step)
            if (turn, step) == (1, "Command & Morale Phase, Side B"):
                # the Germans place their orders for next turn: Hold for G1, Hasty Advance for G2
                await table.send("orders", {"order": "hold", "units": "G1"}, user=BOB)
                placed = await table.send("orders", {"order": "hasty_advance", "units": "G2"}, user=BOB)
                assert placed.embeds[0]["title"] == "German rifle platoon G2: Hasty Advance"
            # turn 2: the Germans won the initiative (Side A)
            if (turn, step) == (2, "Movement Phase, Side A moves"):
                assert await table.refused("move", {"units": "G1", "to": "X3"}, user=BOB) == (
                    "German rifle platoon G1 is under a Hold order: it does not move (CD Orders Summary [6.1, "
                    "7.1-7.3, 21.4])")
                await table.send("move", {"units": "G2", "to": "X3"}, user=BOB)
            if (turn, step) == (2, "Opportunity Fire Phase, Side A"):  # G2 is on Hasty Advance: no Op Fire
                assert await table.refused("fire", {"firers": "G2", "target": "P1", "band": "short"},
                                           user=BOB) == ("German rifle platoon G2 is under a Hasty Advance order: "
                                                         "no Prep or Op Fire (CD Orders Summary [6.1, 7.1-7.3, "
                                                         "21.4])")
            if (turn, step) == (2, "Opportunity Fire Phase, Side B"):
                # Op Fire at the stand that moved, once a fire phase
                fired = await table.send("fire", {"firers": "P1", "target": "G2", "band": "short", "dice": "9 9 9 9 9 9"},
                                         user=ALICE)
                assert "Op Fire at German rifle platoon G2, which moved this turn" in "\n".join(
                    fields(fired.embeds[0]).values())
                assert await table.refused("fire", {"firers": "P1", "target": "G2", "band": "short"},
                                           user=ALICE) == ("US rifle platoon P1 has fired in this phase already: a "
                                                           "stand fires once a fire phase (CD [13.1] (once a fire "
                                                           "phase: assumed))")
            if (turn, step) == (2, "Command & Morale Phase, Side A"):  # Kampf was fired upon: it checks (5B)
                assert await table.refused("done", {}, user=BOB) == (
                    "Germans must check morale before they end the Command & Morale Phase: company Kampf (fired "
                    "upon) (CD 5B [21]); /morale company:Kampf, or the game master waives it with /company waive "
                    "company:Kampf")
                await table.send("morale", {"company": "Kampf", "dice": "1"}, user=BOB)
            following = CD_TURN[(i + 1) % len(CD_TURN)]
            next_turn = turn + 1 if i + 1 == len(CD_TURN) else turn
            if following[0] == "Movement Phase, Side A prep fire":  # the initiative roll opens the phase
                dice = "7 2" if turn == 1 else "3 8"
                _, trail = await done(table, (next_turn, following[0], side[following[1]] if turn == 1 else 1),
                                      dice=dice)
                assert "Initiative, turn" in "\n".join(trail.keys())
                if turn == 2:  # the Germans won it: Side A from here on
                    side = {"A": 1, "B": 0}
            else:
                _, trail = await done(table, (next_turn, following[0], side[following[1]]))
            if step == "Command & Morale Phase, Side B" and turn == 1:
                assert "German rifle platoon G2: suppression removed  [CD [17.5, 20]]" in "\n".join(trail.values())


# --- refusals ------------------------------------------------------------------------------------------


async def test_the_other_side_asks_and_the_holder_keeps_or_ends_the_step_with_a_button(table):
    await start_game(table, "asl", ["Germans", "Russians"], [unit("A1", 0, "B4", "ger-467")], phase="PFPh")
    before = await table.snapshot()
    asked = await table.send("done", user=BOB)  # Bob does not hold the PFPh: he asks Alice to end it
    assert asked.embeds[0]["title"] == "Turn 1, Russians ask Germans to end the Prep Fire Phase"
    (mention,) = asked.followups
    assert mention.content == f"<@{ALICE}>: Russians ask Germans to end the Prep Fire Phase"
    assert mention.payload["allowed_mentions"] == {"parse": [], "users": [ALICE]}
    assert (await table.game()).phase == "PFPh"  # asking changes no step
    buttons = [b["custom_id"] for row in asked.message.components for b in row["components"]]
    assert [b.split(":")[1] for b in buttons] == ["accept", "refuse"]
    # Bob may not answer his own request; Alice keeps the phase
    refused = await table.fake.click(asked.message, buttons[0], user_id=BOB)
    assert refused.embeds[0]["title"] == "Order refused"
    kept = await table.fake.click(asked.message, buttons[1], user_id=ALICE)
    assert kept.embeds[0]["title"] == "Turn 1, Germans keep the Prep Fire Phase"
    assert (await table.game()).asked_by is None
    # asked again, Alice ends it with the button
    again = await table.send("done", user=BOB)
    buttons = [b["custom_id"] for row in again.message.components for b in row["components"]]
    ended = await table.fake.click(again.message, buttons[0], user_id=ALICE)
    assert ended.embeds[0]["title"] == "Turn 1, Movement Phase: Germans to act"
    assert (await table.game()).phase == "MPh"
    assert before[1] + 4 == (await table.bot.referee.log(table.channel)).total


async def test_acting_out_of_turn_and_moving_where_the_step_or_the_rules_forbid_are_refused(table):
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "B4", "ger-467"), unit("A2", 0, "B4", "ger-467", broken=True),
        unit("R1", 1, "C6", "rus-447")], phase="PFPh")
    assert await table.refused("fire", {"firers": "R1", "target": "B4", "range": 2}, user=BOB) == (
        "it is the Prep Fire Phase, Germans to act: Russians may not fire now (A3); Russians may fire in the "
        "Movement Phase and Defensive Fire Phase of this turn")
    assert await table.refused("move", {"units": "A1", "to": "C5"}, user=ALICE) == (
        "units move only in the Movement Phase, Rout Phase or Advance Phase; this is the Prep Fire Phase "
        "(A4.1, A10.5, A4.7): the next Movement Phase comes as each side ends its part with /done (the game master "
        "may jump there with /game phase to:MPh)")
    await table.send("done", user=ALICE)  # the MPh
    assert await table.refused("move", {"units": "A1", "to": "C6"}, user=ALICE) == (
        "C6 holds 4-4-7 R1: infantry may not enter an enemy-occupied Location in the MPh (A4.14)")
    assert await table.refused("move", {"units": "A2", "to": "C5"}, user=ALICE) == (
        "4-6-7 A2 is broken: broken units rout in the RtPh, they do not move (A4.1)")
    assert await table.refused("move", {"units": "R1", "to": "C5"}, user=BOB) == (
        "it is the Movement Phase, Germans to act: Russians may not move now (A3); Russians may move in the Rout "
        "Phase (DEFENDER's part) of this turn")


async def test_an_undone_hand_off_restores_the_step_the_markers_and_who_acts(table):
    await start_game(table, "asl", ["Germans", "Russians"], [unit("A1", 0, "B4", "ger-467")], phase="MPh")
    await table.send("move", {"units": "A1", "to": "C5"}, user=ALICE)
    await table.send("done", user=ALICE)  # the MPh ends: A1 no longer moving; the Russians' DFPh
    assert (await table.game()).to_act == 1
    proposal = await table.send("undo", user=ALICE)
    accept = next(b["custom_id"] for row in proposal.message.components for b in row["components"]
                  if b["custom_id"].startswith("undo:accept"))
    await table.fake.click(proposal.message, accept, user_id=BOB)
    game = await table.game()
    assert (game.phase, game.to_act, game.units["A1"].moving) == ("MPh", 0, True)


# --- /stats pace -------------------------------------------------------------------------------------


async def test_stats_pace_gives_each_sides_median_and_longest_wait(table):
    from datetime import UTC, datetime, timedelta

    now = [datetime(2026, 3, 1, 18, 0, tzinfo=UTC)]
    table.bot.referee.clock = lambda: now[0]
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    await table.seat(ALICE, "Germans")
    await table.seat(BOB, "Russians")
    for user, hours in ((ALICE, 1), (BOB, 5), (ALICE, 2), (BOB, 1), (ALICE, 6)):  # the waits, in turn
        now[0] += timedelta(hours=hours)
        await table.send("done", user=user)  # the holder ends its part (or, out of turn, asks: an entry too)
    reply = await table.send("stats pace", user=GM)
    lines = reply.embeds[0]["description"].splitlines()
    assert lines[:2] == ["Germans: 2 waits, median 4 h 0 min, longest 6 h 0 min",
                         "Russians: 2 waits, median 3 h 0 min, longest 5 h 0 min"]
