"""An export checked against what the channel saw (issue 28, item 7; docs/dice.md).

The end of each game turn posts a line ("Turn 1 sealed at #19: chain 9f3a0c1d2e3f4a5b · 6 dice drawn
by the bot"): the hash of that entry, which covers every entry before it, and the dice the bot drew
from the turn's seed. ``python -m bot rules audit --posted FILE`` compares an export with those lines.
Two forgeries the audit let through before, each built here from a real export with the project's own
functions (the replay, the seal of the hash chain), so that the chain, the replay and the dice all
check out:

- (a) a bot-drawn die changed and relabelled manual, its proof's faces dropped (manual dice are not
  derived, so no seed contradicts it);
- (b) the turn's last roll deleted and the entries after it renumbered (the next turn's dice wait for
  their seed, so none is re-derived with the new numbers).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bot.core.sequence import side_to_act
from bot.record import GENESIS_HASH, LogEntry, state_hash
from bot.record.dice_audit import secret_sides
from bot.record.replay import Replayer
from tests.cogs.conftest import ALICE, BOB, CAROL
from tests.cogs.helpers import asl_game, end_game, last_entry
from tests.cogs.test_committed_dice import fixed_seeds, forge

ROOT = Path(__file__).resolve().parents[2]


def footers(table) -> list[str]:
    """The footers of every message the bot posted in the channel (replies and posts), as Discord shows them."""
    posted = [m.payload for m in table.fake.channel_messages(table.channel)]
    return [embed["footer"]["text"] for payload in posted for embed in payload.get("embeds") or []
            if (embed.get("footer") or {}).get("text")]


async def end_turn_by_players(table) -> None:
    """The players end their steps with /done (answered in the channel) until the game turn changes."""
    turn = (await table.game()).turn
    while (game := await table.game()).turn == turn:
        await table.send("done", user=ALICE if side_to_act(game) == 0 else BOB)


async def play(table) -> None:
    """Turn 1: a morale check by each side and a secret roll, then the turn ended by the players (its
    seed revealed, its line posted); turn 2: a morale check, its seed not revealed yet."""
    fixed_seeds(table)
    await asl_game(table)
    await table.send("morale", {"unit": "A1"})
    await table.send("roll secret", {"kind": "2d6", "purpose": "sniper"}, user=BOB)
    await table.send("morale", {"unit": "R1"}, user=BOB)
    await end_turn_by_players(table)
    await table.send("morale", {"unit": "A2"})


async def export(table, path: Path) -> list[dict[str, Any]]:
    reply = await table.send("log export", {"format": "json"}, user=CAROL)
    path.write_bytes(reply.files[0].data)
    return json.loads(reply.files[0].data)["entries"]


def audit(path: Path, posted: Path | None = None) -> subprocess.CompletedProcess:
    extra = [] if posted is None else ["--posted", str(posted)]
    return subprocess.run([sys.executable, "-m", "bot", "rules", "audit", str(path), *extra], capture_output=True,
                          text=True, cwd=ROOT)


def dice_check(path: Path, posted: Path | None = None) -> subprocess.CompletedProcess:
    """docs/dice_check.py, the standard library's re-implementation, on an export."""
    extra = [] if posted is None else ["--posted", str(posted)]
    return subprocess.run([sys.executable, str(ROOT / "docs" / "dice_check.py"), str(path), *extra],
                          capture_output=True, text=True, cwd=ROOT)


def recount(fields: list[dict[str, Any]]) -> None:
    """The counts of dice drawn from each seed, recomputed as a forger who read docs/dice.md would."""
    drawn = 0
    for item in fields:
        proof = item["dice_proof"]
        drawn += (0 if item["manual"] else len(proof.get("sides", ()))) + secret_sides(item["order"])
        proof["drawn"] = drawn
        if "reveal" in proof:
            drawn = 0


def reseal(fields: list[dict[str, Any]], path: Path) -> None:
    """The entries renumbered, replayed (outcomes and states as the edited orders and dice give them) and
    the whole hash chain sealed again, written as an export."""
    replayer, prev, sealed = Replayer(), GENESIS_HASH, []
    for seq, item in enumerate(fields, start=1):
        item = {k: v for k, v in item.items() if k not in ("hash", "prev_hash")} | {"seq": seq}
        game, outcome = replayer.apply(seq, item["order"], item["dice"], item["manual"])
        item.update(outcome=outcome.model_dump(mode="json"), state_hash=state_hash(game))
        entry = LogEntry.seal(prev_hash=prev, **item)
        prev = entry.hash
        sealed.append(entry.export())
    path.write_text(json.dumps({"entries": sealed}))


async def setup_forgery(table, tmp_path: Path) -> tuple[list[dict[str, Any]], Path, int]:
    """The played game's export, the posted lines (every footer, as copied from the channel) in a file,
    and the seq of the entry that ended turn 1."""
    await play(table)
    entries = await export(table, tmp_path / "export.json")
    posted = tmp_path / "posted.txt"
    posted.write_text("\n".join(footers(table)))
    [end] = [e for e in entries if "reveal" in (e["dice_proof"] or {})]
    return entries, posted, end["seq"]


async def test_the_end_of_a_turn_posts_its_chain_head_and_dice_count_and_the_honest_export_matches(table, tmp_path):
    entries, posted, end = await setup_forgery(table, tmp_path)
    entry = next(e for e in entries if e["seq"] == end)
    assert entry["dice_proof"]["turn"] == 1 and entry["dice_proof"]["drawn"] == 6  # 2 + 2 secret + 2
    line = f"Turn 1 sealed at #{end}: chain {entry['hash'][:16]} · 6 dice drawn by the bot"
    assert [text.splitlines()[-1] for text in footers(table) if "sealed at" in text] == [line]
    assert len(line) < 80  # short enough for a phone's line
    done = audit(tmp_path / "export.json", posted)
    assert done.returncode == 0, done.stderr
    summary, report = done.stdout.splitlines()
    assert summary.startswith(f"all {len(entries)} entries check out")
    assert report == (f"posted turn ends matched: 1 (#{end}); entries #1-#{end} are the ones the bot had when it "
                      f"posted them; entry #{len(entries)} after the last posted turn end: no posted line covers "
                      "them")
    assert len(entries) == end + 1
    pasted = subprocess.run([sys.executable, "-m", "bot", "rules", "audit", str(tmp_path / "export.json"),
                             "--posted", "-"], input=f"some chat\n{line}\nmore chat\n", capture_output=True,
                            text=True, cwd=ROOT)
    assert pasted.returncode == 0 and pasted.stdout == done.stdout
    script = dice_check(tmp_path / "export.json", posted)
    assert (script.returncode, script.stdout) == (0, "6 dice check out; 1 entries with dice wait for a reveal\n")


async def test_a_bot_drawn_die_relabelled_manual_with_the_chain_resealed_is_caught_by_the_posted_line(table, tmp_path):
    entries, posted, end = await setup_forgery(table, tmp_path)
    target = next(e for e in entries if e["dice_proof"].get("sides"))  # Alice's morale check, turn 1
    fields = [dict(e) for e in entries]
    forged = next(f for f in fields if f["seq"] == target["seq"])
    forged.update(dice=[1, 1], manual=True, dice_proof={k: v for k, v in forged["dice_proof"].items() if k != "sides"})
    recount(fields)
    reseal(fields, tmp_path / "forged.json")
    unposted = audit(tmp_path / "forged.json")
    assert unposted.returncode == 0, unposted.stderr  # the chain, the replay and every die check out without it
    assert unposted.stdout.splitlines()[-1].startswith("not checked against the channel")
    done = audit(tmp_path / "forged.json", posted)
    assert done.returncode == 1 and done.stdout == ""
    [finding] = done.stderr.splitlines()
    forged_end = json.loads((tmp_path / "forged.json").read_text())["entries"][end - 1]
    assert finding == (f"Turn 1: the export is not what was posted: chain {forged_end['hash'][:16]}, not "
                       f"{entries[end - 1]['hash'][:16]}; 4 dice drawn by the bot, not 6")
    assert dice_check(tmp_path / "forged.json").returncode == 0  # it passed the script too
    script = dice_check(tmp_path / "forged.json", posted)
    assert script.returncode == 1 and script.stdout == (
        f"turn 1: posted sealed at #{end}, chain {entries[end - 1]['hash'][:16]}, 6 dice; the export: #{end}, chain "
        f"{forged_end['hash'][:16]}, 4 dice\n")


async def test_the_turn_s_last_roll_deleted_and_the_log_renumbered_is_caught_by_the_posted_line(table, tmp_path):
    entries, posted, end = await setup_forgery(table, tmp_path)
    last_roll = max(e["seq"] for e in entries if e["seq"] < end and e["dice_proof"].get("sides"))  # Bob's morale
    fields = [dict(e) for e in entries if e["seq"] != last_roll]
    recount(fields)
    reseal(fields, tmp_path / "forged.json")
    assert audit(tmp_path / "forged.json").returncode == 0  # passed before
    done = audit(tmp_path / "forged.json", posted)
    assert done.returncode == 1
    forged_end = json.loads((tmp_path / "forged.json").read_text())["entries"][end - 2]
    assert done.stderr.splitlines() == [
        f"Turn 1: the export is not what was posted: sealed at #{end - 1}, not #{end}; chain "
        f"{forged_end['hash'][:16]}, not {entries[end - 1]['hash'][:16]}; 4 dice drawn by the bot, not 6"]
    assert dice_check(tmp_path / "forged.json", posted).returncode == 1


async def test_an_export_cut_before_a_posted_turn_end_is_named(table, tmp_path):
    entries, posted, end = await setup_forgery(table, tmp_path)
    (tmp_path / "cut.json").write_text(json.dumps({"entries": entries[:end - 1]}))
    done = audit(tmp_path / "cut.json", posted)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"Turn 1: posted as sealed at #{end} (chain {entries[end - 1]['hash'][:16]}), but the export ends turn 1 "
        "nowhere: entries were deleted or the export was cut short"]


async def test_a_log_written_before_the_posted_lines_audits_as_before_and_says_what_was_not_checked(table, tmp_path):
    entries, _posted, _end = await setup_forgery(table, tmp_path)
    fields = [dict(e) for e in entries]
    for item in fields:  # as logged before issue 28: no counts, no turn in the proofs
        item["dice_proof"] = {k: v for k, v in item["dice_proof"].items() if k not in ("drawn", "turn")}
    reseal(fields, tmp_path / "old.json")
    done = audit(tmp_path / "old.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "not checked against the channel: this log's turn ends posted no chain head (it was written before they "
        "did), so a host who rewrote it and re-sealed the chain would not be caught here")


async def test_verify_and_audit_name_a_count_or_a_turn_the_log_does_not_reproduce(table, tmp_path):
    entries, _posted, end = await setup_forgery(table, tmp_path)
    fields = [dict(e) for e in entries]
    fields[end - 1] = fields[end - 1] | {"dice_proof": fields[end - 1]["dice_proof"] | {"drawn": 7}}
    reseal(fields, tmp_path / "count.json")
    done = audit(tmp_path / "count.json")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"entry #{end} does not check out: entry #{end} counts 7 dice drawn from its turn's "
                                   "seed, but the log holds 6")
    fields[end - 1] = fields[end - 1] | {"dice_proof": entries[end - 1]["dice_proof"] | {"turn": 2}}
    reseal(fields, tmp_path / "turn.json")
    done = audit(tmp_path / "turn.json")
    assert done.stderr.strip() == (f"entry #{end} does not check out: entry #{end} says it ends turn 2, but it was "
                                   "given in turn 1")
    report = await table.send("log verify", user=CAROL)  # the live log reproduces its counts and turns
    assert report.message.embeds[0]["title"] == "The log checks out"


async def test_an_undone_turn_end_posts_the_turn_again_and_both_lines_match(table, tmp_path):
    fixed_seeds(table)
    await asl_game(table)
    await table.send("morale", {"unit": "A1"})
    await end_turn_by_players(table)
    proposal = await table.send("undo", user=ALICE)
    accept = next(i for i in proposal.message.custom_ids() if i.startswith("undo:accept"))
    await table.fake.click(proposal.message, accept, user_id=BOB)
    assert (await table.game()).turn == 1
    await table.send("morale", {"unit": "A2"})
    await end_turn_by_players(table)
    await end_game(table)
    entries = await export(table, tmp_path / "export.json")
    lines = [text.splitlines()[-1] for text in footers(table) if "sealed at" in text]
    assert [line.split(":")[0] for line in lines] == [
        f"Turn {t} sealed at #{e['seq']}" for t, e in zip((1, 1, 2), [e for e in entries if "reveal" in e["dice_proof"]])]
    assert lines[0].endswith("2 dice drawn by the bot") and lines[1].endswith("2 dice drawn by the bot")
    assert lines[2].endswith("0 dice drawn by the bot")  # the game ended at the start of turn 2
    (tmp_path / "posted.txt").write_text("\n".join(lines))
    done = audit(tmp_path / "export.json", tmp_path / "posted.txt")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("posted turn ends matched: 1 (#")
    assert (await last_entry(table)).dice_proof["turn"] == 2


async def test_a_game_under_way_when_proofs_began_counting_posts_its_first_seal_without_a_count(table, tmp_path):
    fixed_seeds(table)
    await asl_game(table)
    await table.send("morale", {"unit": "A1"})

    def as_before(fields):  # the log as a bot before issue 28 wrote it: no counts in the proofs
        for item in fields:
            item["dice_proof"] = {k: v for k, v in item["dice_proof"].items() if k != "drawn"}
        return fields

    await forge(table, as_before)
    await table.send("morale", {"unit": "R1"}, user=BOB)
    assert "drawn" not in (await last_entry(table)).dice_proof  # the count of the turn under way is not known
    await end_turn_by_players(table)
    end = await last_entry(table)
    await table.send("morale", {"unit": "A2"})
    assert (await last_entry(table)).dice_proof["drawn"] == 2  # counted again from the next seed on
    lines = [text.splitlines()[-1] for text in footers(table) if "sealed at" in text]
    assert lines == [f"Turn 1 sealed at #{end.seq}: chain {end.hash[:16]}"]
    await export(table, tmp_path / "export.json")
    (tmp_path / "posted.txt").write_text("\n".join(lines))
    done = audit(tmp_path / "export.json", tmp_path / "posted.txt")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(f"posted turn ends matched: 1 (#{end.seq})")
