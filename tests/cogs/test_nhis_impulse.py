"""No Honor in Surrender: an impulse is one activation (data/nhis/rules.yaml, "activation"), through
the real bot and the loopback Discord: a hex activated by its first action, a unit of another hex
refused in that impulse with the rule quoted, the impulse ending by itself after the activation's
last action (and not one action before), a leader's command across hexes, the passes counted as
passes when an opportunity fire ended the mover's impulse, and /help saying melee is not refereed."""

from __future__ import annotations

from bot.core.rulesets import get_ruleset
from bot.core.sequence import step_name
from tests.cogs.conftest import ALICE, BOB
from tests.cogs.helpers import fields, start_game, terrain, unit

RULE = "NHiS impulse activation (assumed)"


async def hill_game(table):
    """The sample's first hexes: M1, M2 and L1 in 0303, M3 in 0304; the Japanese J1 in 0405."""
    return await start_game(table, "nhis", ["US Marines", "Japanese"], [
        unit("M1", 0, "0303", "us-rifle-squad"), unit("M2", 0, "0303", "us-30cal-mg"),
        unit("L1", 0, "0303", "us-leader"), unit("M3", 0, "0304", "us-rifle-squad"),
        unit("J1", 1, "0405", "jp-rifle-squad"), terrain("0405", "open"), terrain("0404", "open"),
    ], phase="Operations")


async def where(table) -> tuple[str, int, int]:
    game = await table.game()
    return step_name(game, get_ruleset(game.ruleset)), game.to_act, game.passes


def trail_text(reply) -> str:
    return "\n".join(f"{k}\n{v}" for k, v in fields(reply.embeds[0]).items())


async def test_a_second_hex_is_refused_in_one_impulse_quoting_the_rule(table):
    await hill_game(table)
    # the first fire of the impulse activates the firers' hex: every US unit in 0303 (0405 is three
    # hexes away on the map, as the range typed must say)
    fired = await table.send("fire", {"firers": "M1", "target": "0405", "range": 3, "dice": "6 6"}, user=ALICE)
    assert not fired.ephemeral, fired.embeds
    assert "Activation: hex 0303 (M1, M2, L1), the one of impulse 1 of US Marines" in trail_text(fired)
    assert await table.refused("fire", {"firers": "M3", "target": "0405", "range": 2}, user=ALICE) == (
        "impulse 1 of US Marines has activated 0303 (M1, M2, L1): US Marine rifle squad M3 in 0304 is not part "
        f"of it, and an impulse is one activation ({RULE}); it may act in a later impulse of US Marines (end this "
        "one with /done)")
    assert (await table.refused("move", {"units": "M3", "to": "0404"}, user=ALICE)).startswith(
        "impulse 1 of US Marines has activated 0303 (M1, M2, L1): US Marine rifle squad M3 in 0304")
    # a leader's activation is refused once the impulse has one
    assert await table.refused("activate", {"leader": "L1", "units": "M3"}, user=ALICE) == (
        f"impulse 1 of US Marines has activated 0303 (M1, M2, L1) already: an impulse is one activation ({RULE}); "
        "US Marine leader L1 may activate his command in a later impulse of US Marines")
    # M2 of the activated hex still fires in it
    fired = await table.send("fire", {"firers": "M2", "target": "0405", "range": 3, "dice": "6 6"}, user=ALICE)
    assert not fired.ephemeral, fired.embeds
    assert await where(table) == ("Operations Phase, impulse 1", 0, 0)
    # in the next US impulse M3 acts: /done, the Japanese pass, then M3 fires from 0304
    await table.send("done", {}, user=ALICE)
    await table.send("done", {}, user=BOB)
    fired = await table.send("fire", {"firers": "M3", "target": "0405", "range": 2, "dice": "6 6"}, user=ALICE)
    assert "Activation: hex 0304 (M3), the one of impulse 3 of US Marines" in trail_text(fired)


async def test_one_impulse_activates_one_hex_not_a_fire_group_of_two(table):
    await hill_game(table)
    assert await table.refused("fire", {"firers": "M1 M3", "target": "0405"}, user=ALICE) == (
        f"an impulse activates one hex, and these units stand in 0303 and 0304 ({RULE}): act from one hex, or "
        "have a Prepared leader activate his command with /activate first")


async def test_the_impulse_ends_by_itself_after_the_activations_last_action(table):
    await hill_game(table)
    # one action short: M1 and M2 fired, but L1 may still move
    for firer in ("M1", "M2"):
        fired = await table.send("fire", {"firers": firer, "target": "0405", "range": 3, "dice": "6 6"}, user=ALICE)
        assert not fired.ephemeral, fired.embeds
    assert await where(table) == ("Operations Phase, impulse 1", 0, 0)
    # L1's move is the activation's last action: the impulse ends by itself, Bob is told
    moved = await table.send("move", {"units": "L1", "to": "0304"}, user=ALICE)
    assert not moved.ephemeral, moved.embeds
    assert ("No unit of the activation (0303 (M1, M2) and 0304 (L1)) has an action left: US Marines' impulse "
            "ends; impulse 2 is Japanese's") in trail_text(moved)
    assert f"[{RULE}]" in trail_text(moved)
    assert await where(table) == ("Operations Phase, impulse 2", 1, 0)  # not a pass: the US acted
    (mention,) = moved.followups
    assert mention.content.startswith(f"<@{BOB}>: your move (Japanese, turn 1, Operations Phase, impulse 2)")
    # and one action more is refused: the US impulse is over
    assert (await table.refused("move", {"units": "M3", "to": "0404"}, user=ALICE)).startswith(
        "it is the Operations Phase, impulse 2, Japanese to act: US Marines may not move now")
    assert (await table.bot.referee.verify(table.channel)).ok  # the impulse's end replays from the log


async def test_a_leader_activates_his_command_across_hexes(table):
    await hill_game(table)
    assert await table.refused("activate", {"leader": "M1"}, user=ALICE) == (
        f"US Marine rifle squad M1 is not a leader: only a leader activates a command; a hex is activated by the "
        f"first move or fire of its units ({RULE})")
    activated = await table.send("activate", {"leader": "L1", "units": "M3"}, user=ALICE)
    assert not activated.ephemeral, activated.embeds
    # within 60 characters, the rest below: "Impulse 1: ... 0303 (M1, M2, L1) …", "… and 0304 (M3)"
    assert activated.embeds[0]["title"] == "Impulse 1: US Marine leader L1 activates 0303 (M1, M2, L1) …"
    assert activated.embeds[0]["description"].startswith("… and 0304 (M3)")
    text = trail_text(activated)
    assert "Adjacent to it, as the players declare (the referee does not see the map): 0304 (M3)" in text
    # M1 and M3, of two hexes, fire together in his command, each at the range the map counts from its hex
    fired = await table.send("fire", {"firers": "M1 M3", "target": "0405", "dice": "6 6"}, user=ALICE)
    assert not fired.ephemeral, fired.embeds
    assert "range 3 (0303 to 0405), counted on the map" in trail_text(fired)
    assert "range 2 (0304 to 0405), counted on the map" in trail_text(fired)
    assert await where(table) == ("Operations Phase, impulse 1", 0, 0)  # M2 and L1 may still act
    assert "Activation: hex" not in trail_text(fired)  # no second activation: the fire is inside his
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_an_opportunity_fire_that_ends_the_movers_impulse_leaves_the_firers_a_pass(table):
    await hill_game(table)
    await table.send("move", {"units": "M3", "to": "0404"}, user=ALICE)
    fired = await table.send("fire", {"firers": "J1", "target": "0404", "range": 1, "dice": "3 4 6"}, user=BOB)
    assert "failed its check while moving: US Marines' impulse ends" in trail_text(fired)
    assert await where(table) == ("Operations Phase, impulse 2", 1, 0)
    # the Japanese fired in the US impulse: their own impulse 2 without an order is a pass
    passed = await table.send("done", {}, user=BOB)
    assert "Japanese pass (Operations Phase, impulse 2)" in trail_text(passed)
    assert await where(table) == ("Operations Phase, impulse 3", 0, 1)
    ended = await table.send("done", {}, user=ALICE)
    assert "Both sides passed in a row: the Operations Phase ends" in trail_text(ended)
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_help_says_melee_is_not_refereed(table):
    await hill_game(table)
    reply = await table.send("help", {}, user=ALICE)
    blocks = fields(reply.embeds[0])
    assert blocks["Not refereed: played at the table"] == (
        "Melee (a unit entering an enemy-held hex) is not refereed: seed 001 gives no melee rules; it is played "
        "at the table and the game master records its result with /unit edit.")
