"""The game record as files: the Markdown after-action report (golden), CSV, JSON and replay.

The sample game is played through the real service on a real SQLite file, with scripted dice
and a fixed clock, so its export is the same bytes on every run. To accept a deliberate change
of the report, run with REFEREE_UPDATE_GOLDEN=1 and review the diff of tests/golden/.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.export import csv_text, export_files, json_text, markdown_text, split_parts
from bot.service import Actor, Referee
from bot.store import SqliteStore

GOLDEN = Path(__file__).parent / "golden" / "sample_game_aar.md"
ROOT = Path(__file__).resolve().parent.parent

GM, ALICE, BOB = Actor(1, name="gm"), Actor(100, name="alice"), Actor(200, name="bob")
NAMES = {1: "Umpire", 100: "Alice", 200: "Bob"}
CHANNEL, GUILD = 10, 7


class StepClock:
    """Each reading one minute after the last: every entry has its own, fixed time."""

    def __init__(self):
        self.now = datetime(2026, 6, 6, 6, 30, tzinfo=UTC)

    def __call__(self):
        self.now += timedelta(minutes=1)
        return self.now


def squad(uid, side, location, type_):
    return {"action": "unit_add", "id": uid, "side": side, "location": location, "type": type_, "stats": {}}


async def play_sample_game(path: Path) -> dict:
    """Turn 1 of a small ASL action: set-up, a fire attack, a morale check with manual dice,
    one undone by consent, the hand-over to the Russians, and the game's end."""
    store = await SqliteStore.open(path)
    try:
        referee = Referee(store, clock=StepClock())
        await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], scenario="The Bridge at Dawn",
                               options={"elr": [3, 2], "manual_dice": "all"})  # the morale check's dice are thrown
        await referee.act(CHANNEL, ALICE, {"action": "join", "side": 0, "player": ALICE.user_id,
                                           "approved_by": GM.user_id},
                          command="/game join")
        await referee.act(CHANNEL, BOB, {"action": "join", "side": 1, "player": BOB.user_id, "approved_by": GM.user_id},
                          command="/game join")
        for order in (squad("A1", 0, "A4", "ger-467"), squad("A2", 0, "A4", "ger-467"),
                      squad("R1", 1, "B5", "rus-447"),
                      {"action": "location_set", "location": "B5", "terrain": "woods", "features": []}):
            await referee.act(CHANNEL, GM, order, command="/unit add" if "id" in order else "/location set")
        await referee.act(CHANNEL, GM, {"action": "phase", "to": "PFPh"}, command="/game phase")
        await referee.act(CHANNEL, ALICE, {"action": "fire", "firers": ["A1", "A2"], "target": "B5", "range": 2},
                          dice=[2, 3, 4, 4], command="/fire")
        await referee.act(CHANNEL, BOB, {"action": "morale", "unit": "R1", "check": "NMC"}, dice=[5, 6],
                          command="/morale")
        proposal = await referee.propose_undo(CHANNEL, BOB)
        await referee.answer_undo(proposal.request.id, ALICE, accept=True)
        await referee.act(CHANNEL, GM, {"action": "phase", "to": "RPh"}, command="/game phase")
        await referee.end_game(CHANNEL, GM)
        return await referee.export(CHANNEL)
    finally:
        await store.close()


@pytest.fixture
def sample(tmp_path):
    return asyncio.run(play_sample_game(tmp_path / "sample.sqlite3"))


def names(user_id):
    return NAMES.get(user_id, f"user {user_id}")


def test_the_markdown_export_of_the_sample_game_matches_the_golden_file(sample):
    report = markdown_text(sample, names)
    if os.environ.get("REFEREE_UPDATE_GOLDEN"):
        GOLDEN.write_text(report, encoding="utf-8")
    assert report == GOLDEN.read_text(encoding="utf-8")


def test_the_sample_game_exported_as_json_replays_bit_for_bit_from_the_command_line(sample, tmp_path):
    path = tmp_path / "game-1-log.json"
    path.write_text(json_text(sample), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bot", "rules", "replay", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{len(sample['entries'])} entries reproduced bit for bit"
    assert any(e["order"]["action"] == "undo" for e in sample["entries"])


def test_a_tampered_undo_entry_is_named_by_replay(sample, tmp_path):
    undo = next(e for e in sample["entries"] if e["order"]["action"] == "undo")
    undo["order"]["state"]["units"]["A1"]["location"] = "Z9"  # "restore" a state that never was
    path = tmp_path / "tampered.json"
    path.write_text(json_text(sample), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bot", "rules", "replay", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == (f"entry {undo['seq']}: entry #{undo['seq']} restores a state that is not "
                                     f"the one before #{undo['order']['undoes']}")


def test_an_undo_entry_whose_unit_order_does_not_match_its_state_is_named_by_replay(sample, tmp_path):
    undo = next(e for e in sample["entries"] if e["order"]["action"] == "undo")
    assert sorted(undo["order"]["unit_order"]) == sorted(undo["order"]["state"]["units"])  # the export carries it
    undo["order"]["unit_order"] = undo["order"]["unit_order"][1:] + ["Z1"]  # one unit swapped for another
    path = tmp_path / "tampered.json"
    path.write_text(json_text(sample), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bot", "rules", "replay", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == (f"entry {undo['seq']}: entry #{undo['seq']} records an order of its units "
                                     "that does not match its state")


def test_the_csv_has_one_row_per_die_in_the_order_drawn(sample):
    rows = list(csv.DictReader(io.StringIO(csv_text(sample, names))))
    assert [(r["seq"], r["actor"], r["kind"], r["die"], r["value"], r["manual"], r["undone"]) for r in rows] == [
        ("9", "Alice", "DR", "1", "2", "yes", ""), ("9", "Alice", "DR", "2", "3", "yes", ""),
        ("9", "Alice", "DR", "1", "4", "yes", ""), ("9", "Alice", "DR", "2", "4", "yes", ""),
        ("10", "Bob", "DR", "1", "5", "yes", "11"), ("10", "Bob", "DR", "2", "6", "yes", "11")]
    assert rows[0]["time"] == "2026-06-06T06:39:00.000+00:00" and rows[0]["command"] == "/fire"


def test_parts_split_at_line_ends_within_the_limit_and_join_back():
    data = b"".join(f"line {i:04d}\n".encode() for i in range(1000))  # 10,000 bytes
    parts = split_parts(data, 1024)
    assert b"".join(parts) == data
    assert all(len(p) <= 1024 and p.endswith(b"\n") for p in parts)
    assert len(parts) == 10  # 102 lines of 10 bytes per part


def test_csv_parts_each_start_with_the_header():
    header = b"seq,value\n"
    data = header + b"".join(f"{i},{i % 6 + 1}\n".encode() for i in range(500))
    parts = split_parts(data, 200, header=header)
    assert all(p.startswith(header) and len(p) <= 200 for p in parts)
    assert b"".join(p[len(header):] for p in parts) == data[len(header):]


def test_a_line_longer_than_a_part_is_cut_rather_than_dropped():
    data = b"x" * 2500 + b"\n"
    parts = split_parts(data, 1000)
    assert [len(p) for p in parts] == [1000, 1000, 501] and b"".join(parts) == data


def test_export_files_are_named_by_game_and_numbered_when_split(sample):
    (single,) = export_files(sample, "markdown", 8 * 1024 * 1024, names)
    assert single.filename == "game-1-log.md"
    parts = export_files(sample, "json", 4096, names)
    assert [p.filename for p in parts] == [f"game-1-log.part{i}of{len(parts)}.json" for i in range(1, len(parts) + 1)]
    assert json.loads(b"".join(p.data for p in parts)) == sample
