"""A fourth ruleset, defined entirely under tests/ (tests/plugins), played through the real bot and
the loopback Discord: /game new, /unit add, its order, /log verify, the exports and
``python -m bot rules replay``. Nothing outside tests/ names it: the registry, the game model, the
cogs, the renderer and the CLI learn it from its own description."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_asyncio

from bot.core.rulesets import BUILT_IN, get_ruleset, names, register, unregister
from tests.cogs.conftest import ALICE, BOB, CAROL, GM, open_table
from tests.plugins import toy_ruleset

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.plugins.toy_ruleset"


@pytest.fixture
def toy():
    register(toy_ruleset.RULESET)
    yield toy_ruleset.RULESET
    unregister("toy")


@pytest_asyncio.fixture
async def table(toy, tmp_path):  # the bot starts once the toy is registered: its commands are bound then
    async with open_table(tmp_path) as t:
        yield t


def replay(path: Path, *, plugins: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    if plugins is not None:
        env["REFEREE_RULESETS"] = plugins
    return subprocess.run([sys.executable, "-m", "bot", "rules", "replay", str(path)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)


async def test_a_ruleset_defined_under_tests_is_played_through_the_real_bot(table, tmp_path):
    created = await table.as_gm("game new", {"ruleset": "toy", "sides": "Red, Blue", "scenario": "Duel",
                                             "options": "manual_dice=all"})  # the players toss their own
    assert created.embeds[0]["title"] == "New Toy Skirmish game: Red vs Blue (Duel)"
    await table.seat(ALICE, "Red")
    await table.seat(BOB, "Blue")
    added = await table.send("unit add", {"id": "P1", "side": "Red", "type": "pawn", "location": "A1"}, user=ALICE)
    assert added.embeds[0]["title"] == "Pawn P1 joins Red"
    await table.send("unit add", {"id": "P2", "side": "Blue", "type": "pawn", "location": "A2"}, user=BOB)

    tossed = await table.send("toss", {"unit": "P1", "dice": "5"}, user=ALICE)
    embed = tossed.embeds[0]
    assert embed["title"] == "Pawn P1 tosses 5: shaken"  # outcome first; the trail behind Details
    assert embed["description"].splitlines() == ["Toss Pawn P1: rolled 5, 5 > nerve 3 → shaken"]
    assert embed["footer"]["text"] == "log #6 · turn 1, Play Phase · manual dice · Red to act"
    [details_id] = [c for c in tossed.message.custom_ids() if c.startswith("details:")]
    [embed] = (await table.fake.click(tossed.message, details_id, user_id=CAROL)).embeds  # anyone may read it
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Dice"].splitlines() == ["toss Pawn P1: rolled 5 (d6)", "manual dice (given by the players)"]
    assert fields["Toss: Pawn P1, nerve 3 [Toy 1.1]"].splitlines() == ["1d6  5  [Toy 1.1]",
                                                                          "5 > nerve 3  shaken  [Toy 1.1]"]
    assert (await table.game()).units["P1"].shaken
    # the permission check reads the toy order's own declaration: Bob may not toss for Red
    assert await table.refused("toss", {"unit": "P1", "dice": "2"}, user=BOB) == "Pawn P1 belongs to Red; you play Blue"
    # its status words and counter numbers come from its description too
    status = await table.send("game status", user=GM)
    assert status.embeds[0]["fields"][0]["value"] == "Red: 1 on the map\nBlue: 1 on the map"
    units = await table.fake.click(status.message, status.message.components[0]["components"][0]["custom_id"],
                                   user_id=GM)
    assert "Pawn P1 (Red): shaken" in units.embeds[0]["fields"][0]["value"]
    types = await table.send("unit types", user=ALICE)
    assert types.embeds[0]["title"] == "Toy Skirmish counter library: 1 types"
    assert "pawn: Pawn (pawn, nerve 3)" in types.embeds[0]["fields"][0]["value"]

    verified = await table.send("log verify", user=GM)
    assert verified.message.embeds[0]["title"] == "The log checks out"
    report = await table.send("log export", {"format": "markdown"})
    assert "Pawn P1 tosses 5: shaken" in report.files[0].data.decode()
    exported = await table.send("log export", {"format": "json"})
    path = tmp_path / "toy-log.json"
    path.write_bytes(exported.files[0].data)
    assert json.loads(path.read_text())["ruleset"] == "toy"

    replayed = replay(path, plugins=PLUGIN)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.strip() == "6 entries reproduced bit for bit"
    unknown = replay(path, plugins=None)  # without the plug-in, the ruleset is named as unknown
    assert unknown.returncode != 0 and "unknown ruleset 'toy'" in unknown.stdout + unknown.stderr


async def test_the_new_command_serves_only_its_own_ruleset(table):
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    assert await table.refused("toss", {"unit": "A1"}, user=GM) == (
        "/toss is only for Toy Skirmish games; this channel plays Advanced Squad Leader")


def test_a_broken_plugin_stops_every_command_with_one_line(tmp_path):
    result = replay(tmp_path / "none.json", plugins="tests.plugins.no_such_module")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "referee: the ruleset plug-in tests.plugins.no_such_module cannot be loaded: ModuleNotFoundError: "
        "No module named 'tests.plugins.no_such_module'"]


def test_unregistering_the_toy_leaves_the_built_in_rulesets(toy):
    assert names()[-1] == "toy" and get_ruleset("toy") is toy
    unregister("toy")
    assert names() == BUILT_IN
    register(toy)  # the fixture takes it out again


def test_no_file_outside_tests_names_the_plugin_ruleset():
    pattern = re.compile(r"\btoy\b|Toy Skirmish|toy_ruleset", re.IGNORECASE)
    for folder in ("bot", "cogs", "data", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".yaml", ".json", ".sql", ".md"):
                assert not pattern.search(path.read_text(errors="replace")), path
    assert not pattern.search((ROOT / "pyproject.toml").read_text())
