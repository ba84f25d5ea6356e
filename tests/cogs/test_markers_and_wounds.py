"""ASL between the rolls, through the real bot and the loopback Discord (issue 25): the markers come
off when data/asl/markers.yaml says (a pin at the end of the player turn it was placed in, a pin a
scenario starts with at the end of the first player turn, CX at the end of the enemy's player turn
that follows), each a trail line naming its rule; and a single-man counter wounded by Casualty
Reduction (A17), its Wound Severity dr at the 4/5 threshold, eliminated by a second wound."""

from __future__ import annotations

from bot.core.rulesets import get_ruleset
from bot.core.sequence import step_name

from tests.cogs.conftest import ALICE, BOB, GM
from tests.cogs.test_scenario import attach
from tests.cogs.helpers import asl_game, edit, fields, start_game, terrain, unit

PIN_RULE = "A7.8 (assumed: data/asl/markers.yaml)"
CX_RULE = "A4.51 (assumed: data/asl/markers.yaml)"


def text(reply) -> str:
    return "\n".join(fields(reply.embeds[0]).values())


async def step(table) -> str:
    game = await table.game()
    return step_name(game, get_ruleset(game.ruleset))


async def done_until(table, name: str, *, turn: int | None = None):
    """The game master ends steps until the game is at the step called ``name`` (of ``turn``);
    returns the replies, the last one the reply that entered it."""
    replies = []
    for _ in range(30):
        game = await table.game()
        if await step(table) == name and (turn is None or game.turn == turn) and replies:
            return replies
        reply = await table.as_gm("done")
        assert not reply.ephemeral, reply.embeds
        replies.append(reply)
    raise AssertionError(f"never reached {name}")


async def test_a_pin_placed_in_a_player_turn_comes_off_at_its_end_a7_8(table):
    await asl_game(table, phase="PFPh")
    # the Russians' R1 fails a Pin Task Check in the Germans' Prep Fire Phase
    pinned = await table.send("morale", {"unit": "R1", "check": "PTC", "dice": "5 4"}, user=BOB)
    assert "4-4-7 R1: pinned" in text(pinned)
    assert (await table.game()).units["R1"].pinned
    # it stays pinned through the rest of the Germans' player turn: still pinned in their CCPh
    await done_until(table, "Close Combat Phase")
    assert (await table.game()).units["R1"].pinned
    ended = await table.as_gm("done")  # the Germans' player turn ends
    lines = text(ended)
    assert f"4-4-7 R1: Pin marker removed  [{PIN_RULE}]" in lines
    assert "4-4-7 R1: Good Order, pinned -> Good Order (Pin marker removed)" in fields(ended.embeds[0])["Effects"]
    game = await table.game()
    assert (game.turn, game.active_side, game.phase) == (1, 1, "RPh") and not game.units["R1"].pinned
    # nothing else was pinned: one pin line, no other unit named
    assert lines.count("Pin marker removed  [") == 1
    verified = await table.send("log verify", user=GM)
    assert verified.message.embeds[0]["title"] == "The log checks out"


async def test_a_pin_in_the_defensive_fire_phase_is_gone_before_the_defenders_own_player_turn(table):
    """The issue's case the other way round: a German squad pinned in the Russians' fire in the
    Germans' player turn does not fire pinned (half FP) in the Russians' next player turn either."""
    await asl_game(table, phase="DFPh")
    await table.send("morale", {"unit": "A2", "check": "PTC", "dice": "6 3"}, user=ALICE)
    assert (await table.game()).units["A2"].pinned
    replies = await done_until(table, "Rally Phase, ATTACKER's part", turn=1)
    assert f"4-6-7 A2: Pin marker removed  [{PIN_RULE}]" in text(replies[-1])
    assert not (await table.game()).units["A2"].pinned


async def test_a_scenario_start_pin_comes_off_at_the_first_player_turns_end_and_cx_after_the_enemys(table):
    scenario = """ruleset: asl
title: Pinned at the start
locations:
  - {id: A1, terrain: woods}
  - {id: B1, terrain: woods}
sides:
  - name: Germans
    units:
      - {id: G1, type: ger-467, location: A1, markers: [pinned]}
      - {id: G2, type: ger-467, location: A1}
  - name: Russians
    units:
      - {id: R1, type: rus-447, location: B1, markers: [pinned]}
      - {id: R2, type: rus-447, location: B1, markers: [cx]}
"""
    reply = await table.as_gm("scenario load", {"file": attach(scenario)})
    assert not reply.ephemeral, reply.embeds
    game = await table.game()
    assert game.units["G1"].pinned and game.units["R1"].pinned and game.units["R2"].cx
    assert game.options["asl_markers"] == 1 and game.options["asl_wounds"] is True  # a scenario game is new too
    # the Germans Double Time G2 in their MPh: CX
    await done_until(table, "Movement Phase")
    await table.seat(ALICE, "Germans")
    moved = await table.send("move", {"units": "G2", "to": "C1", "cx": True}, user=ALICE)
    assert "4-6-7 G2: CX (Double Time)" in text(moved)
    await done_until(table, "Close Combat Phase")
    assert (await table.game()).units["G1"].pinned  # pinned all through the first player turn
    ended = await table.as_gm("done")
    lines = text(ended)
    # both sides' pins come off at the end of the player turn; the Russians' CX (their own player turn
    # ended before this one) comes off; the Germans' new CX stays through the Russians' player turn
    assert f"4-6-7 G1: Pin marker removed  [{PIN_RULE}]" in lines
    assert f"4-4-7 R1: Pin marker removed  [{PIN_RULE}]" in lines
    assert f"4-4-7 R2: CX marker removed  [{CX_RULE}]" in lines
    assert "G2: CX marker removed" not in lines
    game = await table.game()
    assert not game.units["G1"].pinned and not game.units["R1"].pinned and not game.units["R2"].cx
    assert game.units["G2"].cx
    replies = await done_until(table, "Rally Phase, ATTACKER's part", turn=2)
    assert f"4-6-7 G2: CX marker removed  [{CX_RULE}]" in text(replies[-1])
    assert not (await table.game()).units["G2"].cx
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_fire_markers_dm_and_residual_fp_come_off_with_their_rules(table):
    await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "B4", "ger-467"), unit("A2", 0, "B4", "ger-467"),
        unit("R1", 1, "B6", "rus-447"), unit("R3", 1, "B6", "rus-447", broken=True, dm=True),
        terrain("B4", "woods"), terrain("B6", "woods"), terrain("C5", "open"),
    ], options={"elr": [3, 3]})
    replies = await done_until(table, "Prep Fire Phase")
    assert "4-4-7 R3: DM removed  [A10.62]" in "\n".join(text(r) for r in replies)
    await table.send("fire", {"firers": "A2", "target": "B6", "range": 2, "dice": "6 6"}, user=ALICE)
    await done_until(table, "Movement Phase")
    await table.send("move", {"units": "A1", "to": "C5"}, user=ALICE)
    # B6 to C5 is two hexes on the map: the range typed says so
    fired = await table.send("fire", {"firers": "R1", "target": "C5", "range": 2, "dice": "5 4 3 3"}, user=BOB)
    assert not fired.ephemeral, fired.embeds
    residual = (await table.game()).locations["C5"].residual_fp
    assert residual > 0 and (await table.game()).units["R1"].fire_marker == "first"
    replies = await done_until(table, "Defensive Fire Phase")
    assert f"Residual FP {residual} removed from C5  [A8.2, seed 003]" in text(replies[-1])
    replies = await done_until(table, "Advancing Fire Phase")
    assert "4-4-7 R1: First Fire marker removed  [A8.4, seed 003]" in text(replies[-1])
    assert "4-6-7 A2: Prep Fire marker removed" not in text(replies[-1])  # not before the player turn's end
    replies = await done_until(table, "Rally Phase, ATTACKER's part", turn=1)
    assert "4-6-7 A2: Prep Fire marker removed  [seed 003]" in text(replies[-1])
    game = await table.game()
    assert game.units["A2"].fire_marker is None and game.units["R1"].fire_marker is None


# --- wounds (A17) ------------------------------------------------------------------------------------


async def test_casualty_reduction_wounds_a_leader_at_4_and_kills_him_at_5_a17_11(table):
    # L1, the Russians' 8-1, broken: failing an NMC gives him Casualty Reduction (A10.3)
    await asl_game(table, phase="PFPh", extra=(edit("L1", broken=True),))
    # Wound Severity dr 4: wounded, his morale 8 -> 7 and leadership -1 -> 0 (A17.3)
    reply = await table.send("morale", {"unit": "L1", "dice": "5 5 4"}, user=BOB)
    lines = text(reply)
    assert "8-1 L1: Casualty Reduction (A10.3) wounds a single-man counter  [A17.1]" in lines
    assert "Wound Severity dr  4  [A17.11]" in lines
    assert "Final dr 4  wounded (1-4)  (=4)  [A17.11]" in lines
    assert "8-1 L1: wounded: morale 8 -> 7, leadership -1 -> +0, 3 MF, no Double Time (A17.2)  [A17.3]" in lines
    leader = (await table.game()).units["L1"]
    assert (leader.wounded, leader.eliminated, leader.morale, leader.leadership) == (True, False, 7, 0)
    assert "wounded" in fields(reply.embeds[0])["Effects"]
    status = await table.send("unit info", {"unit": "L1"})
    assert "wounded" in str(status.embeds[0])
    # the second wound: dr 3 +1 = 4 leaves him wounded, no further loss (A17.3) ...
    again = await table.send("morale", {"unit": "L1", "dice": "5 5 3"}, user=BOB)
    assert "already wounded  +1  [A17.11]" in text(again) and "Final dr 4  wounded (1-4)" in text(again)
    assert "8-1 L1: wounded again: no further loss of morale or leadership  [A17.3]" in text(again)
    leader = (await table.game()).units["L1"]
    assert (leader.morale, leader.leadership, leader.eliminated) == (7, 0, False)
    # ... dr 4 +1 = 5 kills him
    killed = await table.send("morale", {"unit": "L1", "dice": "5 5 4"}, user=BOB)
    assert "Final dr 5  mortal (5+)  (=5)  [A17.11]" in text(killed)
    assert "8-1 L1: eliminated (mortal wound)  [A17.11]" in text(killed)
    assert (await table.game()).units["L1"].eliminated
    verified = await table.send("log verify", user=GM)
    assert verified.message.embeds[0]["title"] == "The log checks out"


async def test_a_wound_dr_of_5_kills_at_once(table):
    await asl_game(table, phase="PFPh", extra=(edit("L1", broken=True),))
    # then the squads of lower morale in his Location take a Leader Loss MC (a wound alone gives none)
    reply = await table.send("morale", {"unit": "L1", "dice": "5 5 5 1 1 1 1"}, user=BOB)
    assert "Final dr 5  mortal (5+)  (=5)  [A17.11]" in text(reply)
    assert "LLMC" in text(reply)
    assert (await table.game()).units["L1"].eliminated


async def test_fire_wounds_a_leader_chosen_for_casualty_reduction(table):
    """K/# on a Location holding a leader alone: fire calls the same Casualty Reduction."""
    # L2 in B4, adjacent to A1's A4 on the map (range 1: Point Blank Fire)
    await asl_game(table, phase="PFPh", extra=(unit("L2", 1, "B4", "rus-8-0"), terrain("B4", "open")))
    # A1's 4 FP point blank: the 8 column, DR 3 -> K/2; L2 alone is chosen, wounded (dr 2), then takes
    # the 2MC at his wounded morale 7: DR 4 +2 = 6 passes
    reply = await table.send("fire", {"firers": "A1", "target": "B4", "range": 1, "dice": "1 2 2 2 2"},
                             user=ALICE)
    lines = text(reply)
    assert reply.embeds[0]["title"] == "8 FP (IFT 8) vs B4: final DR 3 -> K/2", reply.embeds
    assert "range 1 (A4 to B4), counted on the map; the typed range 1 agrees" in lines
    assert "8-0 L2: Casualty Reduction (A7.302) wounds a single-man counter  [A17.1]" in lines
    assert "Final dr 2  wounded (1-4)  (=2)  [A17.11]" in lines
    assert "8-0 L2: wounded: morale 8 -> 7, leadership +0 -> +1, 3 MF, no Double Time (A17.2)  [A17.3]" in lines
    assert "Final DR 6 vs morale 7  passes" in lines
    assert (await table.game()).units["L2"].wounded


async def test_a_wounded_man_may_not_double_time_a17_2(table):
    await asl_game(table, phase="MPh", extra=(edit("G1", wounded=True),))
    assert await table.refused("move", {"units": "G1", "to": "A5", "cx": True}, user=ALICE) == (
        "9-1 G1 is wounded: 3 MF and no Double Time (A17.2); move it without cx")
