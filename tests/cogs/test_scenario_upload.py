"""A scenario file from a stranger (issue 28, item 8), end to end through the loopback Discord.

``/game new file:`` is as heavy as ``/scenario load``: it counts against the heavy quotas, answers
"thinking..." before the download, and reads a file of more than a few KB in a worker process
(bot/work.py), so neither its parse nor its memory is the event loop's. A file nested deeper than
any scenario is refused in one line before its tree is built (a 2 KB list nested 998 deep overflowed
Python's stack: "Something went wrong on our side" and a traceback, every time). Control and
bidirectional characters in what a player wrote (a title ``a\\0b\\x1b[31m\\u202e``) never reach a
message: ``bot.render.clean``, called by ``safe`` and ``unmentioned``.
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from bot.render import _CONTROL
from bot.scenario import MAX_DEPTH, read_cost
from bot.work import INLINE_BELOW
from tests.cogs.conftest import ALICE, GENERAL, GM, THREAD, refusal
from tests.cogs.test_scenario import SAMPLES, VILLAGE, attach
from tests.reliability.test_limits import FakeClock, quotas

NESTED = "ruleset: asl\ntitle: deep\nsides: " + "[" * 998 + "]" * 998 + "\n"  # 2 KB
TITLE = "a\0b\x1b[31m\u202e"


def everything_posted(table) -> str:
    """Every message the bot sent, ephemeral or not (their JSON, with non-ASCII kept as it is)."""
    posted = [m.payload for record in table.fake.interactions.values() for m in record.all_messages()]
    posted += [m.payload for m in table.fake.channel_messages(table.channel)]
    return json.dumps(posted, ensure_ascii=False)


async def test_game_new_with_a_file_counts_against_the_heavy_quota_as_scenario_load_does(table):
    clock = FakeClock()
    table.bot.quotas = quotas(clock, quota_heavy_user="1/300")
    first = await table.as_gm("game new", {"ruleset": "asl", "sides": "Axis, Soviets", "file": attach(VILLAGE)})
    assert first.embeds and not first.ephemeral, first.embeds
    again = await table.as_gm("game new", {"ruleset": "asl", "sides": "Axis, Soviets", "file": attach(VILLAGE)},
                              channel=THREAD)
    assert again.ephemeral and again.content.startswith(
        "Slow down: you gave 1 heavy command (exports, verifies, statistics, undo proposals, odds, previews, maps and "
        "scenario files) in the last 5 minutes, the most one player may. Nothing was done.")
    assert not (await table.as_gm("scenario load", {"file": attach(VILLAGE)}, channel=THREAD)).embeds
    plain = await table.as_gm("game new", {"ruleset": "asl", "sides": "Axis, Soviets"}, channel=THREAD)
    assert plain.embeds and not plain.ephemeral  # a game without a file is not heavy


@pytest.mark.parametrize("command", ["game new", "scenario load"])
async def test_a_file_answers_thinking_first_and_is_read_in_a_worker_process(table, command):
    worker = table.bot.referee.worker
    worker.inline_below = INLINE_BELOW  # the bot's own threshold (the tests' table runs all work inline)
    options = {"ruleset": "asl", "sides": "Germans, Russians"} if command == "game new" else {}
    big = VILLAGE.read_text() + "\n".join(f"# padding line {i} " + "x" * 80 for i in range(200))  # ~20 KB
    assert worker.is_long(read_cost(len(big.encode())))
    reply = await table.as_gm(command, {**options, "file": attach(big)})
    assert reply.deferred and not reply.record.late and not reply.record.refused
    assert reply.embeds[0]["title"].startswith("New Advanced Squad Leader game")
    assert worker.ran == 2 and len((await table.game()).units) == 44  # read and checked, then set up


@pytest.mark.parametrize("command", ["game new", "scenario load"])
async def test_a_list_nested_998_deep_is_refused_in_one_line_without_a_traceback(table, command, caplog):
    assert len(NESTED.encode()) < 2100
    options = {"ruleset": "asl", "sides": "Germans, Russians"} if command == "game new" else {}
    with caplog.at_level(logging.WARNING):
        text = await table.refused(command, {**options, "file": attach(NESTED)}, user=GM)
    assert text == (f"Scenario file, line 3: lists and mappings are nested more than {MAX_DEPTH} deep here; a "
                    "scenario file nests a few (docs/scenarios.md)")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert await table.snapshot() == (None, 0)


async def test_every_sample_scenario_nests_within_the_limit(table):
    for sample in SAMPLES.values():
        reply = await table.as_gm("scenario load", {"file": attach(sample)}, channel=THREAD)
        assert not reply.ephemeral, reply.embeds
        await table.as_gm("game end", channel=THREAD)


async def test_control_and_bidirectional_characters_of_a_title_never_reach_a_message(table):
    text = VILLAGE.read_text()
    title = re.search(r"^title: .*$", text, re.MULTILINE)[0]
    escaped = json.dumps(TITLE)  # a YAML double-quoted scalar takes JSON's escapes
    loaded = await table.as_gm("scenario load", {"file": attach(text.replace(title, f"title: {escaped}"))})
    assert not loaded.ephemeral, loaded.embeds
    assert (await table.game()).scenario == TITLE  # kept as given (the log and the export are the file's)
    await table.send("game join", {"side": "Germans"}, user=ALICE)  # the file's open_seating
    await table.send("game status", user=ALICE)
    await table.send("log show", user=ALICE)
    await table.as_gm("game end")
    shown = everything_posted(table)
    assert "ab[31m" in shown  # the title is shown, without what it hid
    assert not _CONTROL.search(shown), repr(_CONTROL.search(shown))


async def test_side_and_unit_names_lose_their_controls_too(table):
    created = await table.as_gm("game new", {"ruleset": "cd", "sides": "Blue\u202e, Red\x1b[2J",
                                             "scenario": "x\u2066y"}, channel=GENERAL)
    assert not created.ephemeral, created.embeds
    assert not _CONTROL.search(json.dumps([created.message.payload], ensure_ascii=False))
    assert created.embeds[0]["title"] == "New Command Decision: Test of Battle game"  # within 60 characters
    assert created.embeds[0]["description"].startswith("Blue vs Red[2J (xy)\n")
