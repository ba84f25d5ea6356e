"""Rules versions in the log (Issues 4 and 6): a campaign survives an upgrade of the rules core.

Every entry records the rules version it was resolved under (bot/core/version.py). Verify and
``python -m bot rules replay`` always check the hash chain whole and always require the replay
to consume the same dice and reach the same state; the Outcome is compared bit for bit only for
entries of today's version, so a reworded trail line does not make an old game read as tampered.

The pre-upgrade logs here are made the way the old bot made them: a game played through the real
service on a real SQLite file, then its entries re-sealed as version 1 (no version in the hash)
with the old wording where the wording has changed since.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import replay_entries
from bot.core.version import LEGACY_RULES_VERSION, RULES_VERSION
from bot.service import Actor, Referee
from bot.record import GENESIS_HASH, LogEntry, canonical_json, state_hash
from bot.store import SqliteStore
from bot.record.chain import chain_hash
from bot.store.sqlite import unpack_json  # outcomes are stored compressed (schema 4)
from tests.store.helpers import CHANNEL, GM, raw, seated_asl_game

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_V1 = Path(__file__).with_name("fixtures") / "v0001.sqlite3"

TODAY_WORDING = "Phase: RPh -> PFPh; turn 1, Prep Fire Phase: Germans to act (moved on by the game master)"
OLD_WORDING = "Phase: RPh -> PFPh; turn 1, Germans's player turn"  # what the bot logged before version 2
EARLIER_7 = (f"7 entries were logged under earlier rules (version 1; today's rules are version {RULES_VERSION}): their "
             "dice and the state after each were reproduced, their wording is not compared")


async def play(path: Path) -> None:
    """Entries 1-5 set up an ASL game; #6 a Normal Morale Check on DR 3+4; #7 the phase change."""
    store = await SqliteStore.open(path)
    try:
        referee = Referee(store)
        await seated_asl_game(referee)
        await referee.act(CHANNEL, GM, {"action": "morale", "unit": "A1", "check": "NMC"}, dice=[3, 4],
                          command="/morale")
        acted = await referee.act(CHANNEL, GM, {"action": "phase"}, command="/phase")
        assert acted.seq == 7 and acted.outcome.trail[0].label == TODAY_WORDING
    finally:
        await store.close()


def rewrite_log(path: Path, change: Callable[[int, dict[str, Any]], dict[str, Any]]) -> None:
    """Re-seal every entry of game 1 after ``change(seq, fields)``, as the bot that wrote them would
    have sealed them: the chain is whole again, only the content differs."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, time, actor, command, order_json, dice, manual, outcome, state_hash, "
                          "interaction_id, rules_version, dice_proof FROM log_entries WHERE game_id = 1 "
                          "ORDER BY seq").fetchall()
        prev = GENESIS_HASH
        for seq, time, actor, command, order, dice, manual, outcome, state, interaction, version, proof in rows:
            fields = change(seq, {"game_id": 1, "seq": seq, "time": time, "actor": actor, "command": command,
                                  "order": json.loads(order), "dice": json.loads(dice), "manual": bool(manual),
                                  "outcome": unpack_json(outcome), "state_hash": state,
                                  "interaction_id": interaction, "rules_version": version,
                                  "dice_proof": None if proof is None else json.loads(proof)})
            entry = LogEntry.seal(prev_hash=prev, **fields)
            db.execute("UPDATE log_entries SET dice = ?, outcome = ?, state_hash = ?, rules_version = ?, "
                       "prev_hash = ?, hash = ?, dice_proof = ? WHERE game_id = 1 AND seq = ?",
                       (canonical_json(list(entry.dice)), canonical_json(entry.outcome), entry.state_hash,
                        entry.rules_version, entry.prev_hash, entry.hash,
                        None if entry.dice_proof is None else canonical_json(entry.dice_proof), seq))
            prev = entry.hash
        db.execute("UPDATE games SET head_hash = ? WHERE id = 1", (prev,))


def logged_before_the_upgrade(seq: int, fields: dict[str, Any]) -> dict[str, Any]:
    """Every entry of version 1 (before committed dice: no dice proof), the phase change in the
    wording version 1 gave it."""
    if seq == 7:
        fields["outcome"]["trail"][0]["label"] = OLD_WORDING
    return {**fields, "rules_version": LEGACY_RULES_VERSION, "dice_proof": None}


@pytest.fixture
async def legacy_db(tmp_path) -> Path:
    path = tmp_path / "referee.sqlite3"
    await play(path)
    rewrite_log(path, logged_before_the_upgrade)
    return path


async def verify(path: Path, then: Callable[[Referee], Any] | None = None):
    store = await SqliteStore.open(path)
    try:
        referee = Referee(store)
        if then is not None:
            await then(referee)
        return await referee.verify(CHANNEL)
    finally:
        await store.close()



# --- the hash of an entry --------------------------------------------------------------------


def test_an_entry_without_a_version_reads_as_1_and_hashes_exactly_as_before_versions_existed():
    fields = {"game_id": 1, "seq": 1, "time": "2026-01-01T12:00:00.000+00:00", "actor": 1, "command": "/game new",
              "order": {"action": "new_game"}, "dice": [], "manual": False, "outcome": {"headline": "x"},
              "state_hash": "s" * 64, "interaction_id": None}
    old = LogEntry(prev_hash=GENESIS_HASH, hash="", **fields)
    assert old.rules_version == 1 and "rules_version" not in old.body()
    # the formula of every entry written before this change: the prev hash + the canonical fields
    assert old.expected_hash() == chain_hash(GENESIS_HASH, {**fields, "dice": []})
    today = LogEntry.seal(prev_hash=GENESIS_HASH, **fields)
    assert today.rules_version == RULES_VERSION == 7 and today.body()["rules_version"] == 7
    assert today.hash != old.expected_hash()
    # relabelling the version either way is an edit like any other: the hash no longer matches
    assert today.model_copy(update={"rules_version": 1}).expected_hash() != today.hash
    assert old.model_copy(update={"rules_version": 2}).expected_hash() != old.expected_hash()


async def test_every_new_entry_records_todays_rules_version_in_its_row_and_its_export(tmp_path):
    path = tmp_path / "referee.sqlite3"
    await play(path)
    assert raw(path, "SELECT DISTINCT rules_version FROM log_entries") == [(RULES_VERSION,)]
    store = await SqliteStore.open(path)
    try:
        export = await Referee(store).export(CHANNEL)
    finally:
        await store.close()
    assert [e["rules_version"] for e in export["entries"]] == [RULES_VERSION] * 7


# --- /log verify -----------------------------------------------------------------------------


async def test_an_old_entry_with_an_old_wording_verifies_and_is_reported_as_earlier_rules(legacy_db):
    assert raw(legacy_db, "SELECT DISTINCT rules_version FROM log_entries") == [(1,)]
    report = await verify(legacy_db)
    assert (report.ok, report.checked, report.first_bad_seq) == (True, 7, None)
    assert report.reason == ("all 7 entries check out: the chain is intact and the replay reproduces the "
                             f"saved state; {EARLIER_7}")

    # the game goes on after the upgrade: the new entry is today's version, compared bit for bit
    async def next_phase(referee: Referee) -> None:
        acted = await referee.act(CHANNEL, GM, {"action": "phase"}, command="/phase")
        assert acted.entry.rules_version == RULES_VERSION and acted.entry.prev_hash == raw(
            legacy_db, "SELECT hash FROM log_entries WHERE seq = 7")[0][0]

    report = await verify(legacy_db, next_phase)
    assert (report.ok, report.checked) == (True, 8)
    assert report.reason == ("all 8 entries check out: the chain is intact and the replay reproduces the "
                             f"saved state; {EARLIER_7}; the other 1 reproduced bit for bit")
    assert raw(legacy_db, "SELECT seq, rules_version FROM log_entries WHERE seq >= 7") == [(7, 1), (8, RULES_VERSION)]


async def test_the_old_entry_with_a_tampered_outcome_text_fails_the_hash_chain(legacy_db):
    [(outcome,)] = raw(legacy_db, "SELECT outcome FROM log_entries WHERE seq = 7")
    forged = outcome.replace("Germans's player turn", "Russians's player turn")
    assert forged != outcome
    raw(legacy_db, "UPDATE log_entries SET outcome = ? WHERE seq = 7", (forged,))
    report = await verify(legacy_db)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 6, 7)
    assert report.reason == "entry #7 was changed after it was written: its content does not match its hash"


async def test_relabelling_an_entry_as_version_1_to_escape_the_comparison_fails_the_hash_chain(tmp_path):
    path = tmp_path / "referee.sqlite3"
    await play(path)
    raw(path, "UPDATE log_entries SET rules_version = 1 WHERE seq = 4")
    report = await verify(path)
    assert (report.ok, report.first_bad_seq) == (False, 4)
    assert report.reason == "entry #4 was changed after it was written: its content does not match its hash"


async def test_an_old_entry_whose_state_differs_on_replay_is_named(legacy_db):
    # the old rules left A1 elsewhere after its morale check than today's rules do: a real
    # difference, whatever the version (the chain is whole: the old bot sealed this state hash)
    store = await SqliteStore.open(legacy_db)
    try:
        game = (await store.load_active(CHANNEL)).game
    finally:
        await store.close()
    elsewhere = state_hash(game.model_copy(update={"units": {**game.units, "A1": game.units["A1"].model_copy(
        update={"location": "B6"})}}))

    def old_state(seq: int, fields: dict[str, Any]) -> dict[str, Any]:
        return {**fields, "state_hash": elsewhere} if seq == 6 else fields

    rewrite_log(legacy_db, old_state)
    report = await verify(legacy_db)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 5, 6)
    assert report.reason == ("the state after replaying entry #6 does not match the hash it recorded "
                             f"(it was logged under rules version 1; today's is {RULES_VERSION})")


async def test_an_old_entry_that_consumed_other_dice_than_todays_rules_is_named(legacy_db):
    # the old rules rolled one more die for the check than today's: today that die goes unused
    def one_more_die(seq: int, fields: dict[str, Any]) -> dict[str, Any]:
        if seq == 6:
            fields["outcome"]["rolls"].append({"kind": "dr", "purpose": "old extra dr", "dice": [5]})
            fields["dice"] = [3, 4, 5]
        return fields

    rewrite_log(legacy_db, one_more_die)
    report = await verify(legacy_db)
    assert (report.ok, report.first_bad_seq) == (False, 6)
    assert report.reason == ("replaying entry #6 consumes different dice (dice.rolled: logged [3, 4, 5], "
                             f"replayed [3, 4]) (it was logged under rules version 1; today's is {RULES_VERSION})")


async def test_an_outcome_difference_in_an_entry_of_todays_version_is_named(tmp_path):
    path = tmp_path / "referee.sqlite3"
    await play(path)

    def reworded(seq: int, fields: dict[str, Any]) -> dict[str, Any]:
        if seq == 7:
            fields["outcome"]["trail"][0]["label"] = OLD_WORDING
        return fields

    rewrite_log(path, reworded)  # the chain is whole: only the replay can tell
    report = await verify(path)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 6, 7)
    assert report.reason == (f'replaying entry #7 gives a different result (outcome.trail[0].label: logged '
                             f'"{OLD_WORDING}", replayed {json.dumps(TODAY_WORDING)[:80]})')


async def test_a_database_from_before_the_upgrade_keeps_its_hashes_and_verifies(tmp_path):
    """The fixture written by schema 1's bot: its rows read as version 1 with their hashes intact."""
    path = tmp_path / "referee.sqlite3"
    shutil.copyfile(FIXTURE_V1, path)
    [(channel,)] = raw(path, "SELECT channel_id FROM games WHERE status = 'active' AND ruleset = 'asl'")
    [(entries, gm)] = raw(path, "SELECT last_seq, (SELECT actor FROM log_entries e WHERE e.game_id = g.id "
                                "AND seq = 1) FROM games g WHERE channel_id = ? AND status = 'active'", (channel,))
    store = await SqliteStore.open(path)
    try:
        referee = Referee(store)
        stored = await store.load_active(channel)
        old = [entry async for entry in store.iter_entries(stored.id)]
        assert {e.rules_version for e in old} == {1} and all(e.expected_hash() == e.hash for e in old)
        await referee.act(channel, Actor(gm), {"action": "phase"}, command="/phase")
        report = await referee.verify(channel)
    finally:
        await store.close()
    assert report.ok, report.reason
    assert report.reason.endswith(f"{entries} entries were logged under earlier rules (version 1; today's "
                                  f"rules are version {RULES_VERSION}): their dice and the state after each were "
                                  "reproduced, their wording is not compared; the other 1 reproduced bit for bit")


# --- python -m bot rules replay --------------------------------------------------------------


async def exported(path: Path) -> list[dict[str, Any]]:
    store = await SqliteStore.open(path)
    try:
        return (await Referee(store).export(CHANNEL))["entries"]
    finally:
        await store.close()


def replay_cli(tmp_path: Path, entries: list[dict[str, Any]]) -> subprocess.CompletedProcess:
    file = tmp_path / "export.json"
    file.write_text(json.dumps(entries), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "bot", "rules", "replay", str(file)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


async def test_replay_of_an_export_made_before_the_upgrade_reports_the_earlier_rules(legacy_db, tmp_path):
    # an export written before versions existed: no rules_version, but the log's hashes
    entries = [{k: v for k, v in e.items() if k != "rules_version"} for e in await exported(legacy_db)]
    assert entries[6]["outcome"]["trail"][0]["label"] == OLD_WORDING and "hash" in entries[6]
    result = replay_cli(tmp_path, entries)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.strip() == f"7 entries reproduced: {EARLIER_7}"


async def test_replay_names_an_old_entry_whose_state_differs(legacy_db, tmp_path):
    entries = await exported(legacy_db)
    reached = entries[5]["state_hash"]  # what the replay of entry 6 reaches, today as then
    entries[5]["state_hash"] = "f" * 64
    result = replay_cli(tmp_path, entries)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.strip() == ("entry 6 reaches a different state: state hash: logged ffffffffffff..., "
                                     f"replayed {reached[:12]}... (logged under rules version 1; "
                                     f"today's is {RULES_VERSION})")


async def test_replay_names_the_first_difference_of_todays_entries_and_says_bit_for_bit(tmp_path):
    path = tmp_path / "referee.sqlite3"
    await play(path)
    entries = await exported(path)
    assert replay_entries(entries) == (True, "7 entries reproduced bit for bit")
    entries[6]["outcome"]["trail"][0]["label"] = OLD_WORDING
    assert replay_entries(entries) == (False, f'entry 7 differs: outcome.trail[0].label: logged "{OLD_WORDING}", '
                                              f'replayed {json.dumps(TODAY_WORDING)[:80]}')
    entries[6]["rules_version"] = 1  # the same text, logged under version 1: not a difference
    ok, message = replay_entries(entries)
    assert ok and message.endswith("the other 6 reproduced bit for bit")
    assert message.startswith("7 entries reproduced: 1 entry was logged under earlier rules (version 1;")
