"""Who may do what, through the real slash commands: players act for their own side's units only;
the game master (who started the game) and anyone with Manage Channels act for anyone and correct
the game; someone who is not playing may look but not act. Every refusal leaves the game and its
log as they were (``table.refused``)."""

from __future__ import annotations

import pytest

from tests.cogs.conftest import ALICE, BOB, CAROL, GM
from tests.cogs.helpers import end_game

NOT_A_PLAYER = ("only the players of this game give orders here: join a side first "
                "(anyone may look at the game and its log)")


@pytest.fixture
async def seated(table):
    """An ASL game started by the GM (who does not play): alice plays the Germans, bob the Russians."""
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    await table.seat(ALICE, "Germans")
    await table.seat(BOB, "Russians")
    await table.as_gm("unit add", {"id": "A1", "side": "Germans", "type": "ger-467", "location": "B3"})
    await table.as_gm("unit add", {"id": "R1", "side": "Russians", "type": "rus-447", "location": "C4"})
    return table


# --- players: their own side only -----------------------------------------------------------


async def test_a_player_moves_their_own_side_s_units(seated):
    await seated.as_gm("game phase", {"to": "MPh"})
    await seated.send("move", {"units": "A1", "to": "B4"}, user=ALICE)
    assert (await seated.game()).units["A1"].location == "B4"
    await seated.as_gm("game phase", {"to": "MPh"})  # the Russians' player turn
    await seated.send("move", {"units": "R1", "to": "C5"}, user=BOB)
    assert (await seated.game()).units["R1"].location == "C5"


async def test_a_player_may_not_move_the_opponent_s_units(seated):
    await seated.as_gm("game phase", {"to": "MPh"})
    assert await seated.refused("move", {"units": "R1", "to": "B3"}, user=ALICE) == (
        "4-4-7 R1 belongs to Russians; you play Germans")
    assert await seated.refused("move", {"units": "A1", "to": "C5"}, user=BOB) == (
        "4-6-7 A1 belongs to Germans; you play Russians")


async def test_a_player_adds_units_to_their_own_side_only(seated):
    await seated.send("unit add", {"id": "A2", "side": "Germans", "type": "ger-9-1"}, user=ALICE)
    assert await seated.refused("unit add", {"id": "R2", "side": "Russians", "type": "rus-9-1"}, user=ALICE) == (
        "the new unit belongs to Russians; you play Germans")
    assert sorted((await seated.game()).units) == ["A1", "A2", "R1"]


@pytest.mark.parametrize(("command", "options", "message"), [
    ("unit edit", {"unit": "A1", "stats": "morale=8"},
     "only the game master may edit a unit: it corrects the game, it is not a move"),
    ("unit remove", {"unit": "A1"},
     "only the game master may remove a unit: it corrects the game, it is not a move"),
    ("location set", {"location": "B3", "terrain": "woods"},
     "only the game master may set a location's terrain: it corrects the game, it is not a move"),
    ("game end", {},
     "only the game master (who started the game) or someone with Manage Channels may end the game"),
    ("game join", {"side": "Germans", "player": BOB},
     "only the game master seats another player: ask for your own seat with /game join"),
])
async def test_a_player_may_not_correct_the_game_even_for_their_own_units(seated, command, options, message):
    assert await seated.refused(command, options, user=ALICE) == message


# --- the game master and Manage Channels ----------------------------------------------------------


async def test_the_game_master_acts_for_either_side_without_playing(seated):
    await seated.as_gm("unit move", {"unit": "R1", "to": "B3"})
    await seated.as_gm("unit move", {"unit": "A1", "to": "C4"})
    reply = await seated.as_gm("unit edit", {"unit": "A1", "stats": "broken=yes"})
    assert reply.embeds[0]["title"] == "4-6-7 A1 corrected" and not reply.ephemeral
    game = await seated.game()
    assert (game.units["R1"].location, game.units["A1"].location, game.units["A1"].broken) == ("B3", "C4", True)
    assert all(GM not in side.players for side in game.sides)


async def test_manage_channels_makes_anyone_a_game_master(seated):
    """Carol neither plays nor started the game, but she may manage the channel."""
    await seated.send("unit edit", {"unit": "R1", "stats": "morale=6"}, user=CAROL, manager=True)
    await seated.send("unit move", {"unit": "A1", "to": "D5"}, user=CAROL, manager=True)
    await seated.send("location set", {"location": "D5", "terrain": "stone building"}, user=CAROL, manager=True)
    # a game master by Manage Channels invites Carol; she accepts (nobody is seated without consent)
    invited = await seated.send("game join", {"side": "Russians", "player": CAROL}, user=BOB, manager=True)
    accept = next(b["custom_id"] for row in invited.message.components for b in row["components"]
                  if b["custom_id"].startswith("seat:accept"))
    await seated.fake.click(invited.message, accept, user_id=CAROL)
    game = await seated.game()
    assert (game.units["R1"].morale, game.units["A1"].location, game.locations["D5"].terrain) == (
        6, "D5", "stone building")
    assert game.sides[1].players == [BOB, CAROL]
    reply = await end_game(seated, user=ALICE, manager=True)
    assert reply.embeds[0]["title"] == "Game over after turn 1"


# --- someone not playing --------------------------------------------------------------------


async def test_a_non_player_may_look(seated):
    status = await seated.send("game status", user=CAROL)
    assert not status.ephemeral and status.embeds[0]["title"] == "Advanced Squad Leader: turn 1"
    units = await seated.send("unit list", user=CAROL)
    assert units.ephemeral and units.embeds[0]["title"] == "Units: 2"


@pytest.mark.parametrize(("command", "options"), [
    ("unit move", {"unit": "A1", "to": "C4"}),
    ("unit add", {"id": "C1", "side": "Germans", "type": "ger-467"}),
    ("game phase", {}),
])
async def test_a_non_player_may_not_act(seated, command, options):
    assert await seated.refused(command, options, user=CAROL) == NOT_A_PLAYER


async def test_a_non_player_may_join_and_then_act_for_their_side(seated):
    await seated.seat(CAROL, "Germans")
    await seated.as_gm("game phase", {"to": "MPh"})
    await seated.send("move", {"units": "A1", "to": "B5"}, user=CAROL)
    assert (await seated.game()).units["A1"].location == "B5"
