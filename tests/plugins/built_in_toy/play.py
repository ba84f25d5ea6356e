"""Played in a copy of the checkout where Toy Skirmish is a built-in ruleset (copied here as
tests/cogs/test_built_in_toy.py by tests/test_adding_a_built_in_ruleset.py): its package in
bot/core/rulesets/toy/, its counter library in data/toy/, its name in the registry's BUILT_IN, and
nothing else changed. The real bot against the loopback Discord sets it up, plays its order, checks
and exports the log, and ``python -m bot rules replay`` reproduces it with no plug-in named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import bot
from bot.core.rulesets import BUILT_IN, get_ruleset, names
from bot.sandbox_scenarios import SCENARIOS
from tests.cogs.conftest import ALICE, BOB, CAROL, GM

ROOT = Path(__file__).resolve().parents[2]


def test_the_copy_is_the_checkout_imported_and_the_toy_is_a_built_in():
    assert Path(bot.__file__).resolve().is_relative_to(ROOT)  # not the editable install's checkout
    assert BUILT_IN[-1] == "toy" and names()[-1] == "toy"
    assert Path(sys.modules[type(get_ruleset("toy")).__module__].__file__).parent == ROOT / "bot/core/rulesets/toy"
    assert SCENARIOS["toy"].channel == "toy"  # its sample game, found through the registry


async def test_the_built_in_toy_is_played_through_the_real_bot(table, tmp_path):
    created = await table.as_gm("game new", {"ruleset": "toy", "sides": "Red, Blue", "scenario": "Duel",
                                             "options": "manual_dice=all"})
    assert created.embeds[0]["title"] == "New Toy Skirmish game: Red vs Blue (Duel)"
    await table.seat(ALICE, "Red")
    await table.seat(BOB, "Blue")
    added = await table.send("unit add", {"id": "P1", "side": "Red", "type": "pawn", "location": "A1"}, user=ALICE)
    assert added.embeds[0]["title"] == "Pawn P1 joins Red"  # the library read from data/toy/counters.yaml
    await table.send("unit add", {"id": "P2", "side": "Blue", "type": "pawn", "location": "A2"}, user=BOB)
    held = await table.send("toss", {"unit": "P2", "dice": "3"}, user=BOB)
    assert held.embeds[0]["title"] == "Pawn P2 tosses 3: holds"  # at its nerve 3: holds
    tossed = await table.send("toss", {"unit": "P1", "dice": "4"}, user=ALICE)
    assert tossed.embeds[0]["title"] == "Pawn P1 tosses 4: shaken"  # just over its nerve
    [details_id] = [c for c in tossed.message.custom_ids() if c.startswith("details:")]
    [embed] = (await table.fake.click(tossed.message, details_id, user_id=CAROL)).embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Toss: Pawn P1, nerve 3 [Toy 1.1]"].splitlines() == ["1d6  4  [Toy 1.1]",
                                                                          "4 > nerve 3  shaken  [Toy 1.1]"]
    assert await table.refused("toss", {"unit": "P1", "dice": "2"}, user=BOB) == "Pawn P1 belongs to Red; you play Blue"
    map_reply = await table.send("game map", user=GM)
    assert map_reply.files and map_reply.files[0].filename.endswith(".png")  # the map draws its counters
    verified = await table.send("log verify", user=GM)
    assert verified.message.embeds[0]["title"] == "The log checks out"
    exported = await table.send("log export", {"format": "json"})
    path = tmp_path / "toy-log.json"
    path.write_bytes(exported.files[0].data)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}  # no plug-in named
    replayed = subprocess.run([sys.executable, "-m", "bot", "rules", "replay", str(path)], capture_output=True,
                              text=True, cwd=ROOT, env=env, timeout=60)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(path.read_text())["ruleset"] == "toy"
    assert replayed.stdout.strip() == "7 entries reproduced bit for bit"
