"""Committed dice end to end through the loopback Discord (issue 12, docs/dice.md).

Each test names the claim of docs/dice.md ("The threat model") it backs. The games' seeds come
from a fixed test-only source (``referee.seeds``), so each test knows what every die must be.
A forger rewrites the database file as a host could: it changes what it wants, replays the whole
game again and re-seals the entire hash chain, so the chain and the replay both check out and only
the dice can give it away.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.core.dice import commitment, contribution_value, derive_die
from bot.core.sequence import side_to_act
from bot.record import GENESIS_HASH, LogEntry, canonical_json, state_hash
from bot.record.replay import Replayer
from bot.store.sqlite import _ENTRY_COLUMNS, _entry_params
from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import asl_game, end_game, gm, last_entry
from tests.store.helpers import CountingDice

ROOT = Path(__file__).resolve().parents[2]


def fixed_seeds(table, label: str = "") -> list[bytes]:
    """The seeds the game's turns will use, in order: 32 bytes each, known to the test only."""
    seeds = [hashlib.sha256(f"test seed {label}{i}".encode()).digest() for i in range(50)]
    handed = iter(seeds)
    table.bot.referee.seeds = lambda: next(handed)
    return seeds


async def entries(table) -> list[LogEntry]:
    stored = await table.bot.store.load_latest(table.channel)
    return [entry async for entry in table.bot.store.iter_entries(stored.id)]


def expected_dice(seed: bytes, entry: LogEntry) -> list[int]:
    proof = entry.dice_proof
    assert proof is not None
    return [derive_die(seed, entry.game_id, entry.seq, entry.interaction_id, proof["contributions"], i, sides)
            for i, sides in enumerate(proof.get("sides", []))]


async def end_turn(table) -> None:
    """The game master ends steps until the game turn changes (its seed is then revealed)."""
    turn = (await table.game()).turn
    while (game := await table.game()).turn == turn:
        await gm(table, {"action": "done", "side": side_to_act(game)}, "/done")


async def forge(table, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], *, replay: bool = True) -> None:
    """Rewrite the channel's game in the database file as its host could: ``change`` edits the
    entries' fields; the game is replayed from them (unless ``replay`` is False: the outcomes and
    states are then the edited ones), and every entry re-sealed, the chain whole."""
    logged = await entries(table)
    fields = change([e.model_dump(mode="json", exclude={"hash", "prev_hash"}) for e in logged])
    replayer, prev, sealed = Replayer(), GENESIS_HASH, []
    game = (await table.bot.store.load_latest(table.channel)).game
    for seq, item in enumerate(fields, start=1):
        item = {**item, "seq": seq}
        if replay:
            game, outcome = replayer.apply(seq, item["order"], item["dice"], item["manual"])
            item.update(outcome=outcome.model_dump(mode="json"), state_hash=state_hash(game))
        entry = LogEntry.seal(prev_hash=prev, **item)
        prev = entry.hash
        sealed.append(entry)
    game_id = logged[0].game_id
    with sqlite3.connect(table.database) as db:
        db.execute("DELETE FROM unshown_entries WHERE game_id = ?", (game_id,))
        db.execute("DELETE FROM log_entries WHERE game_id = ?", (game_id,))
        for entry in sealed:
            db.execute(f"INSERT INTO log_entries ({_ENTRY_COLUMNS}) VALUES ({', '.join('?' * 15)})",
                       _entry_params(entry))
        db.execute("UPDATE games SET state = ?, head_hash = ?, last_seq = ? WHERE id = ?",
                   (canonical_json(game.model_dump(mode="json")), prev, len(sealed), game_id))


async def verify(table) -> dict[str, Any]:
    reply = await table.send("log verify", user=CAROL)  # anyone may check
    return reply.message.embeds[0]


async def audit(table, tmp_path: Path) -> subprocess.CompletedProcess:
    """``python -m bot rules audit`` on the JSON export the channel gets from /log export."""
    reply = await table.send("log export", {"format": "json"}, user=CAROL)
    path = tmp_path / "export.json"
    path.write_bytes(reply.files[0].data)
    return subprocess.run([sys.executable, "-m", "bot", "rules", "audit", str(path)], capture_output=True,
                          text=True, cwd=ROOT)


async def played(table) -> list[bytes]:
    """An ASL game with the bot's dice: a morale check by each side in turn 1, then turn 1 ended
    (its seed revealed), a morale check in turn 2."""
    seeds = fixed_seeds(table)
    await asl_game(table)
    await table.send("morale", {"unit": "A1"})
    await table.send("morale", {"unit": "R1"}, user=BOB)
    await end_turn(table)
    await table.send("morale", {"unit": "A2"})
    return seeds


# --- what the channel sees; every die derived -------------------------------------------------


async def test_the_commitment_is_posted_at_the_start_and_each_die_derives_from_the_seed_and_the_order(table):
    seeds = fixed_seeds(table)
    started = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    assert started.embeds[0]["footer"]["text"] == (
        f"log #1 · dice commitment (SHA-256 of this turn's secret seed): {commitment(seeds[0])}")
    await end_game(table)  # reveals seeds[0]
    seeds = fixed_seeds(table, "second game ")
    await asl_game(table)
    reply = await table.send("morale", {"unit": "A1"})
    entry = await last_entry(table)
    assert entry.interaction_id == int(reply.record.payload["id"])  # Discord's id for this very order
    # the dice drawn from the seed so far counted (issue 28: the turn's end posts the count)
    assert entry.dice_proof == {"commitment": commitment(seeds[0]), "contributions": ["", ""], "sides": [6, 6],
                                "drawn": 2}
    assert list(entry.dice) == expected_dice(seeds[0], entry)
    white, colored = entry.dice
    assert (f"NMC 4-6-7 A1: rolled {white}+{colored} = {white + colored} (white {white}, colored {colored})"
            in json.dumps(reply.embeds))
    # before the reveal nothing the channel got, and nothing exported, holds the seed
    assert seeds[0].hex() not in repr(table.fake.interactions) + repr(table.fake.messages.__dict__)
    export = await table.send("log export", {"format": "json"}, user=CAROL)
    assert seeds[0].hex() not in export.files[0].data.decode()
    embed = await verify(table)
    assert embed["title"] == "The log checks out"
    assert embed["description"].endswith(
        "dice: 15 entries wait for this turn's seed to be revealed (1 with dice drawn)")


async def test_the_end_of_a_game_turn_reveals_its_seed_commits_the_next_and_verify_rederives_every_die(table):
    seeds = await played(table)
    logged = await entries(table)
    [reveal] = [e for e in logged if e.dice_proof and "reveal" in e.dice_proof]
    assert reveal.dice_proof["reveal"] == seeds[0].hex() and reveal.dice_proof["next"] == commitment(seeds[1])
    for entry in logged:
        if entry.dice_proof.get("sides"):
            seed = seeds[0] if entry.seq < reveal.seq else seeds[1]
            assert list(entry.dice) == expected_dice(seed, entry)
    embed = await verify(table)
    assert embed["title"] == "The log checks out"
    assert embed["description"].endswith(
        "dice: 4 dice of 2 entries re-derived from 1 revealed seed; 1 entry waits for this turn's seed to be "
        "revealed (1 with dice drawn)")
    ended = await end_game(table)
    end = await last_entry(table)
    assert ended.embeds[0]["footer"]["text"] == (f"log #{end.seq} · dice seed revealed: {seeds[1].hex()}\n"
                                                 f"Turn 2 sealed at #{end.seq}: chain {end.hash[:16]} · 2 dice drawn "
                                                 "by the bot")
    assert (await verify(table))["description"].endswith("dice: 6 dice of 3 entries re-derived from 2 revealed seeds")


async def test_a_side_s_contribution_enters_every_die_drawn_after_it(table):
    seeds = fixed_seeds(table)
    await asl_game(table)
    reply = await table.send("dice contribute", {"text": "Hans rolls true"})
    assert reply.embeds[0]["title"] == "Germans changed its dice contribution"
    assert "Hans rolls true" not in json.dumps(reply.embeds)  # the log keeps its hash only
    refused = await table.send("dice contribute", {"text": "x", "side": "Germans"}, user=BOB)
    assert refused.ephemeral and "you may set only your own side's contribution" in refused.embeds[0]["description"]
    await table.send("morale", {"unit": "R1"}, user=BOB)
    entry = await last_entry(table)
    assert entry.dice_proof["contributions"] == [contribution_value("Hans rolls true"), ""]
    assert list(entry.dice) == expected_dice(seeds[0], entry)
    await end_game(table)
    assert (await verify(table))["title"] == "The log checks out"


# --- exactly once: nothing drawn twice, nothing drawn by a look ---------------------------------


async def test_a_redelivered_interaction_undo_preview_and_odds_draw_nothing_new(table):
    fixed_seeds(table)
    await asl_game(table)
    reply = await table.send("morale", {"unit": "A1"})
    first = await last_entry(table)
    again = await table.fake.deliver_again(reply)
    assert again.record.rejected[0].data["embeds"] == reply.record.callbacks[0].data["embeds"]
    assert (await last_entry(table)).seq == first.seq  # answered from the log: no second entry, no die
    counter = CountingDice()
    table.bot.referee.dice = counter  # any die drawn from here on would be counted
    await table.send("fire", {"firers": "A2", "target": "B5", "range": 1, "preview": True})
    assert counter.drawn == 0 and (await last_entry(table)).seq == first.seq
    table.bot.referee.dice = None
    await table.send("undo", user=BOB)
    assert (await last_entry(table)).seq == first.seq  # a proposal is not an entry; accepting it rerolls nothing


# --- the threat model: the host cannot change a die after its commitment ------------------------


async def test_a_die_changed_in_the_file_with_the_whole_chain_resealed_is_named_by_verify_and_audit(table, tmp_path):
    await played(table)
    target = next(e for e in await entries(table) if e.dice_proof.get("sides")).seq

    def swap(fields):
        for item in fields:
            if item["seq"] == target:
                item["dice"] = [7 - d for d in item["dice"]]  # every die turned over
        return fields

    await forge(table, swap)
    embed = await verify(table)
    assert embed["title"] == f"Entry #{target} does not check out"
    assert embed["description"].startswith(f"entry #{target}'s die 1 reads ")
    done = await audit(table, tmp_path)
    assert done.returncode == 1 and done.stderr.startswith(f"entry #{target} does not check out: entry #{target}'s "
                                                           "die 1 reads ")


async def test_a_tampered_seed_is_named_at_its_reveal(table, tmp_path):
    seeds = await played(table)
    reveal = next(e for e in await entries(table) if e.dice_proof and "reveal" in e.dice_proof).seq

    def other_seed(fields):
        fields[reveal - 1]["dice_proof"]["reveal"] = hashlib.sha256(seeds[0]).hexdigest()
        return fields

    await forge(table, other_seed)
    embed = await verify(table)
    assert embed["title"] == f"Entry #{reveal} does not check out"
    assert embed["description"] == (f"entry #{reveal} reveals a dice seed that does not match its commitment "
                                    f"{commitment(seeds[0])[:12]}...")
    done = await audit(table, tmp_path)
    assert done.returncode == 1 and f"entry #{reveal} does not check out" in done.stderr


async def test_two_entries_swapped_in_the_file_are_named(table, tmp_path):
    await played(table)
    first, second = [e.seq for e in await entries(table) if e.dice_proof.get("sides")][:2]
    assert second == first + 1  # Alice's and Bob's morale checks, in turn 1

    def reorder(fields):
        fields[first - 1], fields[second - 1] = fields[second - 1], fields[first - 1]
        for seq in (first, second):  # the counts of dice drawn so far recounted in the new order, as a forger would
            fields[seq - 1]["dice_proof"]["drawn"] = fields[seq - 1]["dice_proof"]["drawn"] + (2 if seq == second else -2)
        return fields

    await forge(table, reorder)
    embed = await verify(table)
    assert embed["title"] == f"Entry #{first} does not check out"
    assert "reads" in embed["description"] and "it is not the die that was drawn" in embed["description"]
    done = await audit(table, tmp_path)
    assert done.returncode == 1 and f"entry #{first} does not check out" in done.stderr


async def test_dice_the_host_made_up_instead_of_deriving_them_are_named(table):
    await asl_game(table)
    table.bot.referee.dice = CountingDice(faces=(6, 6))  # the host's own dice, not the committed seed's
    await table.send("morale", {"unit": "R1"}, user=BOB)
    seq = (await last_entry(table)).seq
    embed = await verify(table)
    assert embed["title"] == f"Entry #{seq} does not check out"
    assert embed["description"].startswith(f"entry #{seq}'s dice were not drawn from the committed seed")


async def test_an_export_audits_offline_and_an_independent_script_rederives_its_dice(table, tmp_path):
    await played(table)
    await end_game(table)
    done = await audit(table, tmp_path)
    assert done.returncode == 0, done.stderr
    summary, posted = done.stdout.splitlines()
    assert summary.endswith("dice: 6 dice of 3 entries re-derived from 2 revealed seeds")
    assert posted == ("not checked against the channel: 2 turn ends posted a chain head; give those lines with "
                      "--posted FILE to check that this log is the one the players saw")
    script = subprocess.run([sys.executable, str(ROOT / "docs" / "dice_check.py"), str(tmp_path / "export.json")],
                            capture_output=True, text=True, cwd=ROOT)
    assert (script.returncode, script.stdout) == (0, "6 dice check out; 0 entries with dice wait for a reveal\n")


async def test_manual_dice_stay_allowed_and_marked_manual(table):
    await asl_game(table)
    await table.send("morale", {"unit": "A1", "dice": "3 4"})
    entry = await last_entry(table)
    assert entry.manual and list(entry.dice) == [3, 4] and "sides" not in entry.dice_proof
    await end_game(table)
    assert (await verify(table))["description"].endswith("1 with manual dice (thrown at the table, not derived)")


async def test_an_undone_turn_end_keeps_its_seed_revealed_and_the_next_turn_draws_from_the_next_seed(table):
    seeds = fixed_seeds(table)
    await asl_game(table)
    await table.send("morale", {"unit": "A1"})
    drawn = await last_entry(table)
    await end_turn(table)  # reveals seeds[0], commits seeds[1]
    proposal = await table.send("undo", user=ALICE)
    accept = next(i for i in proposal.message.custom_ids() if i.startswith("undo:accept"))
    await table.fake.click(proposal.message, accept, user_id=BOB)
    undo = await last_entry(table)
    assert undo.order["action"] == "undo" and (await table.game()).turn == 1
    assert undo.dice_proof == {"commitment": commitment(seeds[1]), "contributions": ["", ""], "drawn": 0}  # nothing redrawn
    await table.send("morale", {"unit": "A2"})
    after = await last_entry(table)
    assert list(after.dice) == expected_dice(seeds[1], after) and list(drawn.dice) == expected_dice(seeds[0], drawn)
    await end_turn(table)
    report = await verify(table)
    assert report["title"] == "The log checks out"
    assert report["description"].endswith("dice: 4 dice of 2 entries re-derived from 2 revealed seeds")
