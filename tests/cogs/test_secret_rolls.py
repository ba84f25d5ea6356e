"""/roll secret end to end through the loopback Discord (issue 12: secret rolls).

The roller alone sees the dice now (an ephemeral answer); the channel sees the kind, the purpose
and the commitment. /reveal shows the dice, and verify re-derives them from the turn's seed once it
is revealed, like every other die (docs/dice.md).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from bot.core.dice import derive_die
from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import cd_game, end_game, last_entry
from tests.cogs.test_committed_dice import ROOT, audit, end_turn, fixed_seeds, forge, verify
from tests.cogs.test_sealed_orders import public_text


async def test_a_secret_roll_is_seen_by_the_roller_now_by_everyone_at_its_reveal_and_checks_out(table):
    seeds = fixed_seeds(table)
    await cd_game(table)
    reply = await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    entry = await last_entry(table)
    assert reply.embeds[0]["title"] == f"Americans rolled 2d6 in secret for spotting G1 (#{entry.seq})"
    assert (f"Hidden until /reveal sealed:{entry.seq} or the end of this game turn, whichever comes first: "
            "shown then, and checked against this commitment") in json.dumps(reply.embeds[0])
    assert entry.dice == () and entry.order["roll"] == {"kind": "2d6", "purpose": "spotting G1", "sides": [6, 6],
                                                        "turn_end": True}
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
    await end_game(table)

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


async def test_the_game_master_who_plays_no_side_may_look_at_a_secret_roll_before_its_reveal(table):
    await cd_game(table)
    reply = await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    sealed = (await last_entry(table)).seq
    dice = reply.followups[0].content.split("**")[1]
    seen = await table.as_gm("peek", {"sealed": sealed})
    [private] = seen.followups
    assert private.ephemeral and private.content == f"Sealed #{sealed}, for you only:\n>>> 2d6 for spotting G1: {dice}"
    assert seen.embeds[0]["title"] == f"The game master looked at sealed #{sealed} of Americans"  # the channel sees it
    refused = await table.send("peek", {"sealed": sealed}, user=BOB)
    assert refused.ephemeral and refused.embeds[0]["description"] == (
        f"you play Germans: you may not look at sealed #{sealed} of Americans before its reveal (only its side and "
        "a game master who plays no side may)")
    assert (await last_entry(table)).seq == sealed + 1  # the look is logged; the refusal is not


async def end_turn_in_discord(table):
    """The holders end their steps with /done until the game turn changes; the reply that ended it."""
    from bot.core.sequence import side_to_act
    from tests.cogs.helpers import INITIATIVE_TO_SIDE_0

    turn = (await table.game()).turn
    while (game := await table.game()).turn == turn:
        reply = await table.send("done", {"dice": " ".join(map(str, INITIATIVE_TO_SIDE_0))},
                                 user=(ALICE, BOB)[side_to_act(game)])
        assert not reply.ephemeral, reply.embeds
    return reply


async def test_the_secret_rolls_of_a_game_turn_are_revealed_with_its_seed_at_its_end(table, tmp_path):
    seeds = fixed_seeds(table)
    await cd_game(table)
    mine = await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    spotting = await last_entry(table)
    theirs = await table.send("roll secret", {"kind": "d10", "purpose": "hidden unit check"}, user=BOB)
    check = await last_entry(table)
    assert spotting.order["roll"]["turn_end"] is True and check.dice_proof["secret"] == [spotting.seq]
    dice = [derive_die(seeds[0], spotting.game_id, spotting.seq, spotting.interaction_id,
                       spotting.dice_proof["contributions"], i, 6) for i in range(2)]
    assert f"**{dice[0]} + {dice[1]} = {sum(dice)}**" in mine.followups[0].content
    d10 = int(theirs.followups[0].content.split("**")[1].split(" = ")[1])
    assert f"{dice[0]} + {dice[1]} = {sum(dice)}" not in public_text(table)

    ended = await end_turn_in_discord(table)
    turn_end = await last_entry(table)
    assert [item["sealed"] for item in turn_end.dice_proof["opened"]] == [spotting.seq, check.seq]
    footer = ended.embeds[-1]["footer"]["text"]
    assert f"dice seed revealed: {seeds[0].hex()}" in footer
    assert (f"secret roll #{spotting.seq} revealed: 2d6 for spotting G1: {dice[0]} + {dice[1]} = {sum(dice)} · "
            f"secret roll #{check.seq} revealed: d10 for hidden unit check: {d10} = {d10}") in footer
    again = await table.send("reveal", {"sealed": spotting.seq})
    assert again.ephemeral and again.embeds[0]["description"] == (
        f"this would reveal entry #{spotting.seq} again: it was revealed at entry #{turn_end.seq}")
    report = await verify(table)
    assert report["title"] == "The log checks out", report
    assert "sealed orders: 2, 2 revealed and matching their commitments, 0 still sealed" in report["description"]
    assert "3 dice of 2 entries re-derived from 1 revealed seed" in report["description"]
    assert (await audit(table, tmp_path)).returncode == 0


async def secret_roll_opened_at_turn_end(table) -> tuple[int, int]:
    """A CD game where the Americans rolled a d6 in secret and the game turn then ended (opening it):
    the seqs of the secret roll and of the turn's end."""
    fixed_seeds(table)
    await cd_game(table)
    await table.send("roll secret", {"kind": "d6", "purpose": "hidden unit check"})
    sealed = (await last_entry(table)).seq
    await end_turn(table)
    return sealed, (await last_entry(table)).seq


async def test_a_turn_end_that_leaves_out_a_secret_roll_or_opens_another_text_is_named(table):
    sealed, turn_end = await secret_roll_opened_at_turn_end(table)

    def left_out(fields):  # the host keeps the roll hidden past the turn's end, and re-seals the chain
        del fields[turn_end - 1]["dice_proof"]["opened"]
        return fields

    await forge(table, left_out)
    report = await verify(table)
    assert report["title"] == f"Entry #{turn_end} does not check out"
    assert report["description"] == (f"entry #{turn_end} ends the game turn without opening the secret rolls "
                                     f"waiting (#{sealed})")


async def test_a_secret_roll_opened_with_another_text_at_the_turn_end_is_named(table):
    sealed, turn_end = await secret_roll_opened_at_turn_end(table)

    def other_purpose(fields):  # same dice, another text: the commitment does not match
        item = fields[turn_end - 1]["dice_proof"]["opened"][0]
        item["text"] = item["text"].replace("hidden unit check", "morale check")
        return fields

    await forge(table, other_purpose)
    report = await verify(table)
    assert report["title"] == f"Entry #{turn_end} does not check out"
    assert report["description"] == (f"entry #{turn_end} opens at the end of the game turn a text for entry "
                                     f"#{sealed} that does not match its commitment: it is not what was sealed")


async def test_an_independent_script_checks_contributions_and_opened_secret_rolls(table, tmp_path):
    """docs/dice_check.py (no import of the bot) re-checks each side's contribution against the log's
    /dice contribute entries, and each secret roll once opened (by /reveal or at its turn's end): its
    text against its commitment, its dice against the turn's seed; a forged export is named."""
    fixed_seeds(table)
    await cd_game(table)
    await table.send("dice contribute", {"text": "fair dice"}, user=BOB)
    await table.send("roll secret", {"kind": "2d6", "purpose": "spotting G1"})
    revealed = (await last_entry(table)).seq
    await table.send("reveal", {"sealed": revealed})
    await table.send("roll secret", {"kind": "d10", "purpose": "hidden unit check"}, user=BOB)
    opened_at_end = (await last_entry(table)).seq
    await end_turn(table)
    turn_end = (await last_entry(table)).seq
    await end_game(table)
    export = tmp_path / "export.json"
    export.write_bytes((await table.send("log export", {"format": "json"}, user=CAROL)).files[0].data)
    record = json.loads(export.read_text())

    def check(changed=None):
        path = tmp_path / "changed.json"
        path.write_text(json.dumps(changed or record))
        done = subprocess.run([sys.executable, str(ROOT / "docs" / "dice_check.py"), str(path)],
                              capture_output=True, text=True, cwd=ROOT)
        return done.returncode, done.stdout

    assert check() == (0, "3 dice check out; 0 entries with dice wait for a reveal\n")  # the two secret rolls'
    by_seq = {e["seq"]: e for e in record["entries"]}

    other_contribution = json.loads(json.dumps(record))  # the host's own contribution in one proof
    other = {e["seq"]: e for e in other_contribution["entries"]}
    other[revealed]["dice_proof"]["contributions"][1] = "0" * 64
    code, out = check(other_contribution)  # named, and the roll's dice no longer derive from it
    # the edit breaks the hash chain at that entry (dice_check.py re-checks the chain), then each finding
    assert code == 1 and out.startswith(f"entry #{revealed} does not check out: the hash chain is broken there\n"
                                        f"entry #{revealed} names other contributions than the log set\n"
                                        f"secret roll #{revealed} die 1 reads ")

    other_text = json.loads(json.dumps(record))  # another purpose opened at the turn's end
    item = {e["seq"]: e for e in other_text["entries"]}[turn_end]["dice_proof"]["opened"][0]
    item["text"] = item["text"].replace("hidden unit check", "morale check")
    assert check(other_text) == (1, f"entry #{turn_end} does not check out: the hash chain is broken there\n"
                                    f"entry #{turn_end} opens secret roll #{opened_at_end} with a text that does "
                                    "not match its commitment\n")

    left_out = json.loads(json.dumps(record))  # the turn ends with the roll kept hidden
    del {e["seq"]: e for e in left_out["entries"]}[turn_end]["dice_proof"]["opened"]
    assert check(left_out) == (1, f"entry #{turn_end} does not check out: the hash chain is broken there\n"
                                  f"entry #{turn_end} ends the game turn without opening secret rolls "
                                  f"#{opened_at_end}\n")

    other_die = json.loads(json.dumps(record))  # a die changed in the revealed text, nonce and commitment
    seal, reveal = ({e["seq"]: e for e in other_die["entries"]}[n] for n in (revealed, revealed + 1))
    text = json.loads(reveal["order"]["text"])
    text["dice"][0] = 7 - text["dice"][0]
    reveal["order"]["text"] = json.dumps(text, sort_keys=True, separators=(",", ":"))
    seal["order"]["commitment"] = hashlib.sha256(bytes.fromhex(reveal["order"]["nonce"]) +
                                                 reveal["order"]["text"].encode()).hexdigest()
    code, out = check(other_die)
    assert code == 1 and out.startswith(f"entry #{revealed} does not check out: the hash chain is broken there\n"
                                        f"secret roll #{revealed} die 1 reads {text['dice'][0]}, the seed revealed "
                                        f"at entry #{turn_end} gives ")
    assert by_seq[revealed]["order"]["roll"]["sides"] == [6, 6]
