"""/roll secret end to end through the loopback Discord (issue 12: secret rolls).

The roller alone sees the dice now (an ephemeral answer); the channel sees the kind, the purpose
and the commitment. /reveal shows the dice, and verify re-derives them from the turn's seed once it
is revealed, like every other die (docs/dice.md).
"""

from __future__ import annotations

import json

from bot.core.dice import derive_die
from tests.cogs.conftest import BOB, CAROL
from tests.cogs.helpers import cd_game, last_entry
from tests.cogs.test_committed_dice import end_turn, fixed_seeds, forge, verify
from tests.cogs.test_sealed_orders import public_text


async def test_a_secret_roll_is_seen_by_the_roller_now_by_everyone_at_its_reveal_and_checks_out(table):
    seeds = fixed_seeds(table)
    await cd_game(table)
    reply = await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    entry = await last_entry(table)
    assert reply.embeds[0]["title"] == f"Americans rolled 2d6 in secret for spotting G1 (#{entry.seq})"
    assert entry.dice == () and entry.order["roll"] == {"kind": "2d6", "purpose": "spotting G1", "sides": [6, 6]}
    dice = [derive_die(seeds[0], entry.game_id, entry.seq, entry.interaction_id, entry.dice_proof["contributions"],
                       i, 6) for i in range(2)]
    [mine] = reply.followups
    assert mine.ephemeral and f"**{dice[0]} + {dice[1]} = {sum(dice)}**" in mine.content
    assert f"{dice[0]} + {dice[1]} = {sum(dice)}" not in public_text(table)
    assert (await verify(table))["title"] == "The log checks out"
    opened = await table.send("reveal", {"sealed": entry.seq})
    assert f"Secret 2d6 for spotting G1: {dice[0]} + {dice[1]} = {sum(dice)}" in json.dumps(opened.embeds)
    await end_turn(table)  # the seed of the turn comes out: the secret dice are re-derived
    report = await verify(table)
    assert report["title"] == "The log checks out"
    assert report["description"].endswith(  # the secret 2d6 is the one entry of turn 1 with the bot's dice
        "dice: 2 dice of 1 entry re-derived from 1 revealed seed; 1 with manual dice (thrown at the table, not "
        "derived); sealed orders: 1, 1 revealed and matching their commitments, 0 still sealed")


async def test_a_secret_roll_revealed_with_other_dice_is_named(table):
    fixed_seeds(table)
    await cd_game(table)
    await table.send("roll secret", {"kind": "d6", "purpose": "hidden unit check"})
    sealed = (await last_entry(table)).seq
    await table.send("reveal", {"sealed": sealed})
    await end_turn(table)
    assert (await verify(table))["title"] == "The log checks out"
    await table.as_gm("game end")

    def other_die(fields):  # the host rewrites the roll and its reveal (nonce and all) and re-seals the chain
        import hashlib
        item = fields[sealed]  # the reveal is the entry after the seal
        text = json.loads(item["order"]["text"])
        text["dice"] = [7 - text["dice"][0]]
        item["order"]["text"] = json.dumps(text, sort_keys=True, separators=(",", ":"))
        nonce = bytes.fromhex(item["order"]["nonce"])
        fields[sealed - 1]["order"]["commitment"] = hashlib.sha256(nonce + item["order"]["text"].encode()).hexdigest()
        return fields

    await forge(table, other_die)
    report = await verify(table)
    assert report["title"] == f"Entry #{sealed} does not check out"
    assert report["description"].startswith(f"entry #{sealed}'s die 1 reads ")


async def test_only_players_roll_in_secret(table):
    await cd_game(table)
    refused = await table.send("roll secret", {"kind": "d6", "purpose": "x"}, user=CAROL)
    assert refused.ephemeral and refused.embeds[0]["description"].startswith("only the players of this game")
    reply = await table.send("roll secret", {"kind": "d10", "purpose": "artillery"}, user=BOB)
    assert reply.embeds[0]["title"].startswith("Germans rolled d10 in secret for artillery")


async def test_the_game_master_alone_may_look_at_a_secret_roll_before_its_reveal(table):
    await cd_game(table)
    reply = await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    sealed = (await last_entry(table)).seq
    dice = reply.followups[0].content.split("**")[1].split(" = ")[0]
    seen = await table.as_gm("peek", {"sealed": sealed})
    assert seen.ephemeral and seen.content == f"Sealed #{sealed}, for you only:\n>>> 2d6 for spotting G1: {dice}"
    refused = await table.send("peek", {"sealed": sealed}, user=BOB)
    assert refused.ephemeral and refused.embeds[0]["description"] == (
        "only the game master may look at a sealed order before it is revealed")
    assert (await last_entry(table)).seq == sealed  # a look is not logged and changes nothing
