"""/close-combat end to end (A11): the real client, the loopback Discord, a real SQLite file.

The ATTACKER (ALICE, the Germans) declares; the DEFENDER's declaration (BOB, the Russians) resolves
with manual dice. A5 (a 4-6-7) against R1 (a 4-4-7) is 4 FP against 4: 1:1, Kill Number 5
(data/asl/close_combat.yaml), so DR 4 eliminates, DR 5 reduces, DR 6 does nothing.
"""

import pytest

from tests.cogs.conftest import ALICE, BOB, CAROL, refusal
from tests.cogs.helpers import asl_game, fields, gm, last_entry, unit, until_allowed
from tests.cogs.test_help import text
from tests.cogs.test_odds import click, previewed


async def ccph(table):
    """The sample ASL game, with A5 advanced into the Russians' B5, in the CCPh of turn 1."""
    return await asl_game(table, phase="CCPh", extra=(unit("A5", 0, "B5", "ger-467"),))


async def declare(table):
    reply = await table.send("close-combat", {"attackers": "A5", "targets": "R1"})
    assert not reply.ephemeral
    assert reply.embeds[0]["title"] == "Close Combat in B5 declared: A5 attack R1"
    return reply


@pytest.mark.parametrize(("dice", "result", "after"), [
    ("1 3", "KIA", "eliminated"),  # DR 4, below the Kill Number 5
    ("2 3", "CR", "half-squad"),  # DR 5, the Kill Number: Casualty Reduction
    ("3 3", "no effect", "squad"),  # DR 6, above it
])
async def test_close_combat_at_1_1_with_manual_dice_below_at_and_above_the_kill_number(table, dice, result, after):
    await ccph(table)
    await declare(table)
    reply = await table.send("close-combat", {"attackers": "R1 R2 L1", "hold": True, "dice": dice}, user=BOB)
    embed = reply.embeds[0]
    total = sum(int(d) for d in dice.split())
    # the title within one line of a phone (60 characters), the rest opening the description
    assert embed["title"] == "Close Combat in B5: 4-6-7 A5 vs 4-4-7 R1 at 1:1"
    assert embed["description"].splitlines()[0] == f"final DR {total} -> {result}"
    shown = fields(embed)
    assert shown["Dice"].splitlines() == [
        f"Close Combat: 4-6-7 A5 vs 4-4-7 R1: rolled {dice[0]}+{dice[2]} = {total} (white {dice[0]}, colored {dice[2]}), "
        f"final DR {total}",
        "manual dice (given by the players)"]
    attack = shown["Close Combat: 4-6-7 A5 vs 4-4-7 R1 [A11.11]"]
    assert "odds 4:4, rounded down  1:1  [A11.11]\nKill Number  5  [A11.11]" in attack
    words = {"KIA": "below it: the target group is eliminated", "CR": "equal: Casualty Reduction",
             "no effect": "above it: no effect"}[result]
    assert f"Final DR {total} vs Kill Number 5 ({words})  {result}  [A11.11]" in attack
    assert shown["Table"] == f"CCT 1:1 column, Final DR {total} -> {result} [A11.11]"
    assert reply.message.custom_ids() == ["odds:1:17"]  # the Odds button, as on /fire
    game = await table.game()
    r1 = game.units["R1"]
    assert ("eliminated" if r1.eliminated else r1.kind) == after
    assert game.units["A5"].in_melee and game.units["R2"].in_melee  # R2 and L1 are still there: Melee (A11.15)
    entry = await last_entry(table)
    assert (entry.seq, entry.command, entry.actor, entry.manual) == (17, "/close-combat", BOB, True)
    assert entry.order == {"action": "close_combat", "attackers": ["R1", "R2", "L1"], "hold": True}
    assert (await table.send("log verify", user=CAROL)).message.embeds[0]["title"] == "The log checks out"


async def test_both_sides_attack_at_once_and_an_eliminated_unit_still_attacks(table):
    await ccph(table)
    await declare(table)
    # A5 rolls 3 and eliminates R1; R1, eliminated by it, still makes its attack: 4, and A5 goes too
    reply = await table.send("close-combat", {"attackers": "R1", "targets": "A5", "dice": "1 2 2 2"}, user=BOB)
    assert reply.embeds[0]["title"] == "Close Combat in B5: 4-6-7 A5 vs 4-4-7 R1 at 1:1"
    assert reply.embeds[0]["description"].splitlines()[0] == "final DR 3 -> KIA; 4-4-7 R1 vs 4-6-7 A5 at 1:1: final DR 4 -> KIA"
    assert fields(reply.embeds[0])["Effects"].splitlines() == [
        "4-4-7 R1: Good Order -> eliminated",  # not "(eliminated (Close Combat))": the state says it
        "4-6-7 A5: Good Order -> eliminated"]
    game = await table.game()
    assert game.units["R1"].eliminated and game.units["A5"].eliminated
    assert (await table.send("log verify", user=CAROL)).message.embeds[0]["title"] == "The log checks out"


async def test_a_melee_continues_into_the_next_ccph_and_is_fought_again(table):
    await ccph(table)
    await declare(table)
    await table.send("close-combat", {"attackers": "R1", "targets": "A5", "dice": "4 4 5 5"}, user=BOB)
    game = await table.game()
    assert game.units["A5"].in_melee and game.units["R1"].in_melee and game.units["R2"].in_melee
    again = await table.send("close-combat", {"attackers": "A5", "targets": "R1"})
    assert refusal(again) == "the Close Combat in B5 has been fought this CCPh: one per Location and phase (A11)"
    await gm(table, {"action": "done", "side": 0}, "/done")  # the ATTACKER ends the CCPh: the player turn passes
    game = await until_allowed(table, "close_combat", 0)
    assert (game.phase, game.active_side) == ("CCPh", 1)  # the Russians' CCPh
    assert game.units["A5"].in_melee and game.units["R1"].in_melee  # still locked in Melee
    info = text(await table.send("unit info", {"unit": "A5"}))
    assert "in melee" in info
    # the Russians are the ATTACKER now: they declare first; the Germans' answer resolves it
    first = await table.send("close-combat", {"attackers": "A5", "targets": "R1"})
    assert refusal(first).startswith("the ATTACKER declares his Close Combat in B5 first")
    await table.send("close-combat", {"attackers": "R1", "targets": "A5"}, user=BOB)
    reply = await table.send("close-combat", {"attackers": "A5", "targets": "R1", "dice": "1 1 6 6"})
    assert reply.embeds[0]["title"] == "Close Combat in B5: 4-4-7 R1 vs 4-6-7 A5 at 1:1"
    assert reply.embeds[0]["description"].splitlines()[0] == ("final DR 2 -> KIA; "
                                                               "4-6-7 A5 vs 4-4-7 R1 at 1:1: final DR 12 -> no effect")
    game = await table.game()
    assert game.units["A5"].eliminated
    assert not any(game.units[u].in_melee for u in ("R1", "R2", "L1"))  # the Melee ends: one side is gone
    assert (await table.send("log verify", user=CAROL)).message.embeds[0]["title"] == "The log checks out"


async def test_the_preview_counts_the_36_outcomes_and_help_lists_close_combat_in_the_ccph(table):
    await ccph(table)
    shown = text(await table.send("help", user=CAROL))
    germans = shown.split("Germans may now\n")[1].split("\n\n")[0]
    assert "`/close-combat attackers:" in germans
    await declare(table)
    embed = await previewed(table, "close-combat", {"attackers": "R1", "targets": "A5"}, user=BOB)
    assert embed["title"] == ("Odds: Close Combat in B5: 4-6-7 A5 vs 4-4-7 R1 at 1:1, Kill Number 5, DRM +0; "
                              "4-4-7 R1 vs 4-6-7 A5 at 1:1, Kill Number 5, DRM +0")
    states = fields(embed)["End state of each unit"]
    # 6 of 36 DRs (2-4) eliminate, 4 (DR 5) reduce, 26 do nothing
    assert "**4-4-7 R1**: elim 16.7% · reduced 11.1% · unharmed 72.2%" in states
    assert "**4-6-7 A5**: elim 16.7% · reduced 11.1% · unharmed 72.2%" in states
    # the Odds button on the result shows the same odds, replayed from the state before it was rolled
    fought = await table.send("close-combat", {"attackers": "R1", "targets": "A5", "dice": "2 3 4 4"}, user=BOB)
    [custom_id] = fought.message.custom_ids()
    pressed = await click(table, fought.message, custom_id, CAROL)
    assert pressed.ephemeral and fields(pressed.embeds[0])["End state of each unit"] == states


async def test_help_for_close_combat_finds_the_unit_that_may_give_it(table):
    await ccph(table)
    shown = text(await table.send("help", {"command": "close-combat"}))
    # A1 (the side's first unit) is in A4, with no enemy: the sample is made with A5, in B5
    assert "Germans may, e.g. `/close-combat attackers:A5`" in shown
    assert ("Russians may not (the ATTACKER declares his Close Combat in B5 first (hold:yes if he makes no attack), "
            "then the DEFENDER (A11))") in shown
    await declare(table)
    shown = text(await table.send("help", {"command": "close-combat"}))
    assert "Russians may, e.g. `/close-combat attackers:" in shown
