"""Scenario set-ups for the action cogs' end-to-end tests.

The games are set up through the referee service itself (``table.bot.referee``), with the same
set-up orders /game and /unit send, by the game master: every unit, location and phase change is
a logged order, exactly as at a real table. The commands under test then go through the real
client and the loopback Discord.

Boards (side 0 is played by ALICE, side 1 by BOB; GM created the game):

ASL "Germans" vs "Russians"
    A4 (open):  A1 4-6-7 with LMG MG1, A2 4-6-7, G1 9-1 leader, A3 4-6-7 broken, MG2 LMG (dropped)
    B5 (woods): R1 4-4-7, R2 4-4-7, L1 8-1 leader
NHiS "US" vs "Japan"
    A1 (clear): U1 rifle squad, U2 rifle squad (shaken), UL leader
    B1 (clear): J1 rifle squad
CD "Americans" vs "Germans" (the Americans won the initiative: Side A)
    X1: S1 M4 Sherman, P1 US rifle platoon (company Able), B1 105mm battery (company Arty)
    X2: G1, G2 German rifle platoons (company Kampf)
"""

from __future__ import annotations

from typing import Any

from bot.emulator.payloads import MANAGE_CHANNELS, PLAYER_PERMISSIONS
from bot.service import Actor

from tests.cogs.conftest import ALICE, BOB, GM, GUILD

GM_ACTOR = Actor(user_id=GM, name="gm")


def unit(uid: str, side: int, location: str | None, type_: str | None = None, **stats: Any) -> dict[str, Any]:
    """A /unit add order: a library counter (``type_``) with ``stats`` overriding its numbers."""
    order: dict[str, Any] = {"action": "unit_add", "id": uid, "side": side, "location": location, "stats": stats}
    if type_ is not None:
        order["type"] = type_
    return order


def terrain(location: str, kind: str, *features: str) -> dict[str, Any]:
    return {"action": "location_set", "location": location, "terrain": kind, "features": list(features)}


async def gm(table, order: dict[str, Any], command: str = "/setup", dice: list[int] | None = None):
    """One order given by the game master through the service (a logged entry)."""
    return await table.bot.referee.act(table.channel, GM_ACTOR, order, command=command, dice=dice)


# Command Decision: a phase jump through the Movement Phase rolls the initiative; these dice give it
# to the first side (the Americans are Side A)
INITIATIVE_TO_SIDE_0 = [6, 3]


async def start_game(table, ruleset: str, sides: list[str], setup: list[dict[str, Any]], *,
                     phase: str | None = None, options: dict[str, Any] | None = None, details: bool = True):
    """Create the channel's game, seat ALICE on side 0 and BOB on side 1, run the set-up orders,
    move to ``phase``; return the game as stored. These games show every result whole (the game
    option ``details=always``) unless ``details`` is False: their tests read the rules' trails;
    tests/cogs/test_result_layout.py reads results as players see them by default (outcome first,
    the trail behind the Details button)."""
    referee = table.bot.referee
    # the players throw dice at the table in these tests (manual dice, scripted): a game created now
    # takes none unless its options say so (the game option manual_dice)
    options = ({"details": "always"} if details else {}) | {"manual_dice": "all"} | (options or {})
    await referee.new_game(table.channel, GUILD.id, GM_ACTOR, ruleset, sides, scenario="Test", options=options)
    for side, player in ((0, ALICE), (1, BOB)):  # each accepts the game master's invitation
        await referee.act(table.channel, Actor(user_id=player), {"action": "join", "side": side, "player": player,
                                                                 "approved_by": GM}, command="/game join")
    for order in setup:
        await gm(table, order)
    if phase is not None and phase != (await table.game()).phase:
        dice = INITIATIVE_TO_SIDE_0 if ruleset == "cd" and phase != "Artillery" else None
        await gm(table, {"action": "phase", "to": phase}, "/game phase", dice=dice)
    return await table.game()


async def asl_game(table, phase: str = "PFPh", extra: tuple[dict[str, Any], ...] = (), *, details: bool = True):
    return await start_game(table, "asl", ["Germans", "Russians"], [
        unit("A1", 0, "A4", "ger-467"), unit("MG1", 0, "A4", "ger-lmg", owner="A1"),
        unit("A2", 0, "A4", "ger-467"), unit("G1", 0, "A4", "ger-9-1"),
        unit("A3", 0, "A4", "ger-467", broken=True), unit("MG2", 0, "A4", "ger-lmg"),
        unit("R1", 1, "B5", "rus-447"), unit("R2", 1, "B5", "rus-447"), unit("L1", 1, "B5", "rus-8-1"),
        terrain("B5", "woods"), *extra,
    ], phase=phase, options={"elr": [3, 3]}, details=details)


async def nhis_game(table, phase: str = "Operations", extra: tuple[dict[str, Any], ...] = ()):
    return await start_game(table, "nhis", ["US", "Japan"], [
        unit("U1", 0, "A1", "us-rifle-squad"), unit("U2", 0, "A1", "us-rifle-squad", shaken=True),
        unit("UL", 0, "A1", "us-leader"), unit("J1", 1, "B1", "jp-rifle-squad"), *extra,
    ], phase=phase)


async def cd_game(table, phase: str = "GeneralFire", extra: tuple[dict[str, Any], ...] = (), **options: Any):
    return await start_game(table, "cd", ["Americans", "Germans"], [
        unit("S1", 0, "X1", "m4-sherman-75", company="Able"), unit("P1", 0, "X1", "us-rifle", company="Able"),
        unit("B1", 0, "X1", "us-105mm-battery", company="Arty"),
        unit("G1", 1, "X2", "ger-rifle", company="Kampf"), unit("G2", 1, "X2", "ger-rifle", company="Kampf"),
        *extra,
    ], phase=phase, options=options)


async def until_allowed(table, action: str, side: int, *, most: int = 12):
    """The game master ends steps (/done for the holder) until ``side`` may give ``action`` in the
    step the game is in: where the sequence of play puts that side's part."""
    from bot.core.rulesets import get_ruleset
    from bot.core.sequence import allowed_sides, current, side_to_act

    for _ in range(most):
        game = await table.game()
        ruleset = get_ruleset(game.ruleset)
        if side in allowed_sides(game, ruleset, current(game, ruleset), action):
            return game
        await gm(table, {"action": "done", "side": side_to_act(game)}, "/done", dice=INITIATIVE_TO_SIDE_0)
    raise AssertionError(f"side {side} never got to {action}")


async def last_entry(table):
    """The newest log entry of the channel's game."""
    page = await table.bot.referee.log(table.channel)
    return page.entries[-1]


def edit(uid: str, **changes: Any) -> dict[str, Any]:
    """A game master's correction of a unit's state (/unit edit)."""
    return {"action": "unit_edit", "unit": uid, "changes": changes}


def field(name: str, value: str) -> dict[str, Any]:
    """One embed field as the bot posts it."""
    return {"name": name, "value": value, "inline": False}


def fields(embed: dict[str, Any]) -> dict[str, str]:
    """An embed's fields as {name: value}, for the assertions that look at one part."""
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


async def end_game(table, *, user: int = GM, channel: int | None = None, manager: bool = False):
    """/game end and its confirmation pressed by the same person: the ending's reply (or the refusal
    of /game end itself, when it was refused before asking)."""
    asked = await table.send("game end", {}, user=user, channel=channel, manager=manager)
    if asked.ephemeral:
        return asked
    confirm = next(c for c in asked.message.custom_ids() if c.startswith("gameend:confirm:"))
    perms = PLAYER_PERMISSIONS | MANAGE_CHANNELS if manager else PLAYER_PERMISSIONS
    return await table.fake.click(asked.message, confirm, user_id=user, member_permissions=perms)
