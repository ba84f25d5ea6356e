"""Who may see a side's hidden text before its reveal (issue 28, item 6), end to end.

A sealed order or a secret roll is hidden from the other side until /reveal or its game turn's end.
Its own side (and its sealer) may look at it or reveal it; of everyone else only a game master who
plays no side may, the umpire. A game master who holds a seat plays against the other side, and
someone with Manage Channels who is not in the game is not its umpire: both are refused, /peek and
/reveal alike. Every look is a log entry the whole channel sees ("The game master looked at sealed
#7 of Germans"), replayed by /log verify; the game option gm_peeks=no forbids the umpire's look.
"""

from __future__ import annotations

import json

from tests.cogs.conftest import ALICE, BOB, CAROL, GM, refusal
from tests.cogs.helpers import cd_game, last_entry
from tests.cogs.test_committed_dice import audit, forge, verify
from tests.cogs.test_sealed_orders import public_text

ORDER = "G1 and G2 hold X2; reserve behind the hedge"


async def game_whose_master_plays(table):
    """ALICE starts a game (its game master) and seats herself with the Americans; BOB plays the
    Germans and seals an order."""
    created = await table.send("game new", {"ruleset": "cd", "sides": "Americans, Germans"}, user=ALICE)
    assert not created.ephemeral, created.embeds
    joined = await table.send("game join", {"side": "Americans"}, user=ALICE)
    assert not joined.ephemeral, joined.embeds
    await table.seat(BOB, "Germans", game_master=ALICE)
    game = await table.game()
    assert game.gm == ALICE and [s.players for s in game.sides] == [[ALICE], [BOB]]
    sealed = await table.send("seal", {"text": ORDER}, user=BOB)
    assert not sealed.ephemeral, sealed.embeds
    return await last_entry(table)


async def test_a_game_master_who_holds_a_seat_may_neither_peek_at_nor_reveal_the_other_sides_seal(table):
    seal = await game_whose_master_plays(table)
    assert await table.refused("peek", {"sealed": seal.seq}, user=ALICE) == (
        f"you play Americans: you may not look at sealed #{seal.seq} of Germans before its reveal (only its side "
        "and a game master who plays no side may)")
    assert await table.refused("reveal", {"sealed": seal.seq}, user=ALICE) == (
        f"you play Americans: you may not reveal sealed #{seal.seq} of Germans before its reveal (only its side "
        "and a game master who plays no side may)")
    assert ORDER not in public_text(table)
    opened = await table.send("reveal", {"sealed": seal.seq}, user=BOB)  # its own side may
    assert opened.embeds[0]["title"] == f"Sealed order #{seal.seq} revealed (Germans)"


async def test_a_secret_roll_of_the_other_side_is_as_hidden_from_a_seated_game_master(table):
    await game_whose_master_plays(table)
    await table.send("roll secret", {"kind": "2d6", "purpose": "spotting"}, user=BOB)
    roll = await last_entry(table)
    assert await table.refused("peek", {"sealed": roll.seq}, user=ALICE) == (
        f"you play Americans: you may not look at sealed #{roll.seq} of Germans before its reveal (only its side "
        "and a game master who plays no side may)")


async def test_someone_with_manage_channels_who_is_not_in_the_game_may_not_peek_or_reveal(table):
    await cd_game(table)
    await table.send("seal", {"text": ORDER}, user=BOB)
    seal = await last_entry(table)
    for command in ("peek", "reveal"):
        words = "look at" if command == "peek" else "reveal"
        assert await table.refused(command, {"sealed": seal.seq}, user=CAROL, manager=True) == (
            f"only its side and the game master, playing no side, may {words} sealed #{seal.seq} of Germans before "
            "its reveal")
    assert await table.refused("peek", {"sealed": seal.seq}, user=ALICE) == (
        f"you play Americans: you may not look at sealed #{seal.seq} of Germans before its reveal (only its side "
        "and a game master who plays no side may)")


async def test_a_neutral_game_masters_look_is_a_log_entry_everyone_sees_and_verify_replays(table, tmp_path):
    await cd_game(table)  # GM started it and plays no side
    await table.send("seal", {"text": ORDER}, user=BOB)
    seal = await last_entry(table)
    seen = await table.as_gm("peek", {"sealed": seal.seq})
    look = await last_entry(table)
    assert look.seq == seal.seq + 1 and look.command == "/peek" and look.actor == GM
    assert look.order == {"action": "peek", "sealed": seal.seq, "side": 1, "looker": None}
    assert not seen.ephemeral  # the channel sees the look
    assert seen.embeds[0]["title"] == f"The game master looked at sealed #{seal.seq} of Germans"
    [private] = seen.followups
    assert private.ephemeral and private.content == f"Sealed #{seal.seq}, for you only:\n>>> {ORDER}"
    assert ORDER not in public_text(table)
    shown = await table.send("log show", user=CAROL)
    assert f"The game master looked at sealed #{seal.seq} of Germans" in json.dumps(shown.embeds)
    assert (await verify(table))["title"] == "The log checks out"
    audited = await audit(table, tmp_path)  # the offline audit of the export replays the look too
    assert audited.returncode == 0, audited.stdout + audited.stderr
    await table.send("reveal", {"sealed": seal.seq}, user=BOB)
    assert await table.refused("peek", {"sealed": seal.seq}, user=GM) == (
        f"sealed #{seal.seq} was revealed at entry #{look.seq + 1}: /log show {look.seq + 1} shows it to everyone")


async def test_a_side_may_look_at_its_own_seal_and_the_look_is_logged(table):
    await cd_game(table)
    await table.send("seal", {"text": ORDER}, user=BOB)
    seal = await last_entry(table)
    seen = await table.send("peek", {"sealed": seal.seq}, user=BOB)
    assert seen.embeds[0]["title"] == f"Germans looked at its own sealed #{seal.seq}"
    assert seen.followups[0].ephemeral and ORDER in seen.followups[0].content


async def test_gm_peeks_no_forbids_the_umpires_look_but_not_a_sides_own(table):
    await cd_game(table)
    changed = await table.as_gm("game options", {"set": "gm_peeks=no"})
    assert not changed.ephemeral, changed.embeds
    await table.send("seal", {"text": ORDER}, user=BOB)
    seal = await last_entry(table)
    assert await table.refused("peek", {"sealed": seal.seq}, user=GM) == (
        f"this game's option gm\\_peeks=no: only its side may look at sealed #{seal.seq} of Germans before its reveal")
    assert not (await table.send("peek", {"sealed": seal.seq}, user=BOB)).ephemeral


async def test_a_look_at_an_entry_that_sealed_nothing_is_refused(table):
    await cd_game(table)
    assert "entry #1 is not a sealed order" in refusal(await table.as_gm("peek", {"sealed": 1}))


async def test_a_look_rewritten_to_name_an_entry_that_sealed_nothing_is_named_by_verify(table):
    await cd_game(table)
    await table.send("seal", {"text": ORDER}, user=BOB)
    seal = await last_entry(table)
    await table.as_gm("peek", {"sealed": seal.seq})
    look = (await last_entry(table)).seq
    await table.as_gm("game end")

    def elsewhere(fields):  # the host points the look at entry 1 and re-seals the chain
        fields[look - 1]["order"]["sealed"] = 1
        return fields

    await forge(table, elsewhere, replay=False)
    report = await verify(table)
    assert report["title"] == f"Entry #{look} does not check out"
    assert report["description"].startswith(f"entry #{look} looks at entry #1, which sealed nothing")
