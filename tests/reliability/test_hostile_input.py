"""Hostile input (Issue 6, item 4): hypothesis fuzzes every synced command's options through
the loopback Discord, on one table where two channels hold games and a third holds none.

Values: random unicode, markdown and mention injection (a unit named `@everyone`), huge and
negative numbers, long strings, unknown ids, ids of the other channel's game, players and
strangers, the game master and moderators. Whatever comes in:
- the bot answers, and never with "Something went wrong" (no unhandled exception), and logs no
  ERROR;
- every message it posts has allowed_mentions parse=[] and no raw @everyone/@here or role
  mention, and echoes no player text with its markdown live;
- every message fits Discord's limits;
- a refused command leaves every game and log as it was, and a command in one channel never
  touches another channel's game;
- at the end every game's log verifies (chain + replay = saved state).

A second property sends what Discord itself would refuse (10,000-character strings, numbers
outside the declared bounds) straight to the bot, bypassing the emulator's schema check.
Examples: 120 + 40 by default, 2,500 + 500 with REFEREE_FULL_RELIABILITY=1.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from typing import Any

import pytest
from discord.utils import escape_markdown
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.data import data_path
from bot.emulator.records import SentFile
from bot.emulator.schema import (
    ATTACHMENT, BOOLEAN, INTEGER, NUMBER, STRING, SUB_COMMAND, SUB_COMMAND_GROUP, USER,
)
from bot.config import Settings
from bot.limits import Quotas, RollRateLimiter
from bot.service import Actor
from tests.cogs.conftest import ALICE, BOB, CAROL, GAME_CHANNEL, GENERAL, GM, THREAD
from tests.reliability.audit import FULL, audit_database, size

EXAMPLES = size(120, 2500)
RAW_EXAMPLES = size(40, 500)
# The default (CI) run is derandomized, so a landing never depends on luck; the full run
# (REFEREE_FULL_RELIABILITY=1) explores fresh inputs every time.
FUZZ_SETTINGS = dict(deadline=None, derandomize=not FULL, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                            HealthCheck.data_too_large])

HOSTILE = [
    "@everyone", "@here", "A0 @everyone", "<@&1100000000000000001>", f"<@{BOB}>", "<#1000000000000000002>",
    "**bold** __under__ ~~strike~~ ||spoiler|| `code`", "```py\nprint('x')\n```", "> quote\n# Heading\n- list",
    "[click me](https://example.com)", "https://example.com/@everyone", "\u202eRTL override", "zero\u200bwidth",
    "😀🎲" * 10, "%s %n {0} {game}", "'; DROP TABLE games; --", "\\", "\\*\\_", "\x00nul", "\t\r\n",
    "   ", "A0,A0,A0", "A0 A0 A1 R0", "-1", "0", "99999999999999999999999", "NaN", "1e309", "ger-467",
    "B5", "C5", "Germans", "Russians", "1", "2", "fp=999999999 morale=-5", "broken=yes eliminated=yes",
    "kind=squad fp=4 range=6 morale=7", "side=1", "id=R0", "x=" + "y" * 300, "6 6 6 6 6 6", "0 0", "11 -3",
]
# attached files: empty, not text, not YAML, YAML of the wrong shape, a nested bomb, hostile names in a scenario
FILES = [b"", b"\xff\xfe\x00garbage", b"{{{{", b"- just\n- a list\n", b"a: &a [*a]\n", b"[" * 5000,
         b"ruleset: asl\nsides: [{name: '@everyone'}, {name: Russians}]\n",
         b"ruleset: nope\n", b"ruleset: asl\nsides: 5\nunits: {}\n", "name: \u202e\U0001f600\n".encode()]
# the sample scenarios, and each with a hostile side name: files that set a whole game up
SAMPLES = [p.read_bytes() for p in sorted(data_path().glob("*/scenarios/*.yaml"))]
SAMPLES += [s.replace(b"name: ", b"name: '@everyone **x** ", 1).replace(b"\n    nationality", b"'\n    nationality", 1)
            for s in SAMPLES]
KNOWN_IDS = ["A0", "A1", "R0", "a0", "r0", "B5", "C5"]  # this channel's game (ids are case-insensitive)
OTHER_IDS = ["T1", "T2", "D9"]  # the thread's game only
USERS = [ALICE, BOB, GM, CAROL]
CHANNELS = [GAME_CHANNEL, THREAD, GENERAL]
# what a library says, never a player: pydantic's messages, discord.py's conversion errors, Python's
LIBRARY_PHRASES = re.compile(
    r"should (?:be|match|have)|Extra inputs are not permitted|Field required|validation error|Value error|"
    r"pydantic|errors\.pydantic\.dev|Input tag|Traceback|Failed to convert|could not convert|"
    r"invalid literal for|object has no attribute|NoneType|KeyError|TypeError|ValueError", re.IGNORECASE)
MENTION_RAW = re.compile(r"@(everyone|here)|<@&\d{17,20}>")  # what Discord would parse as a mention

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
# ids of this channel's game weigh most, so commands get past parsing into the rules often
strings = st.one_of(st.sampled_from(KNOWN_IDS), st.sampled_from(KNOWN_IDS), st.sampled_from(HOSTILE),
                    st.sampled_from(OTHER_IDS), text,
                    st.lists(st.sampled_from(KNOWN_IDS + OTHER_IDS + HOSTILE[:4]), max_size=6).map(" ".join))


# options that take a particular kind of text get it most of the time, so orders reach the rules
BY_NAME = {
    "dice": st.sampled_from(["3 4", "6 6", "1 1 1", "2", "6 6 6 6 6 6 6 6", "0", "11", "-1 2", "3,4", "٣ ٤"]),
    "stats": st.sampled_from(["fp=4 range=6 morale=7 kind=squad", "morale=99", "broken=yes", "fp=-3",
                              "eliminated=yes", "owner=R0", "kind=sw sw_type=LMG", "name=@everyone",
                              "rnage=3", "broken=maybe", "morale=high", "fp=1.5"]),
    "options": st.sampled_from(["", "from_lower=yes", "charging=A0,A1", "cover=hard", "elr=9", "x=1",
                                "from_lower=maybe", "remind_after_hours=twelve", "undo_minutes=0"]),
    "set": st.sampled_from(["undo_minutes=60", "details=always", "typo_opt=3", "night=maybe", "x", "a=b=c"]),
    "side": st.sampled_from(["Germans", "Russians", "US", "Japan", "1", "2", "3", "0"]),
    "terrain": st.sampled_from(["woods", "open", "building", "stone building", "clear", "jungle"]),
    "sides": st.sampled_from(["Germans, Russians", "A, B, C", ",", "@everyone, @here", "x" * 100 + ", y"]),
    "id": st.sampled_from(["N1", "N2", "X_9", "a.b-c", "@everyone", "A0", "T1", "x" * 25,
                          "A9", "A 9!", "-x", "Z" * 30, "B5;drop"]),
    "type": st.sampled_from(["ger-467", "rus-447", "us-rifle-squad", "jp-rifle-squad", "ger-rifle", "nope"]),
    "name": st.sampled_from(HOSTILE),
}


def leaf_commands(commands: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(path, options) of every command a user can run, subcommands spelled out."""
    found = []

    def walk(path: str, node: dict[str, Any]) -> None:
        options = node.get("options") or []
        subs = [o for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if subs:
            for sub in subs:
                walk(f"{path} {sub['name']}", sub)
        else:
            found.append((path, options))

    for command in commands:
        if command.get("type", 1) == 1:
            walk(command["name"], command)
    return found


def value_for(spec: dict[str, Any], draw, *, within_bounds: bool = True) -> Any:
    kind = spec["type"]
    if spec.get("choices"):
        return draw(st.sampled_from([c["value"] for c in spec["choices"]]))
    if kind == STRING:
        low, high = spec.get("min_length", 0), spec.get("max_length", 6000)
        named = BY_NAME.get(spec["name"])
        value = draw(st.one_of(named, named, strings) if named is not None else strings)
        if not within_bounds:
            return draw(st.sampled_from(["X" * 10_000, "@everyone " * 1000, "A0 " * 3334]))
        return (value + "x" * low)[:high] if len(value) < low else value[:high]
    if kind == INTEGER:
        low, high = spec.get("min_value", -2**53), spec.get("max_value", 2**53)
        if not within_bounds:
            return draw(st.sampled_from([low - 1, high + 1, -2**53, 2**53]))
        return draw(st.one_of(st.integers(low, high), st.sampled_from([low, high])))
    if kind == NUMBER:
        low, high = spec.get("min_value", -1e15), spec.get("max_value", 1e15)
        return draw(st.floats(low, high, allow_nan=False))
    if kind == BOOLEAN:
        return draw(st.booleans())
    if kind == USER:
        return draw(st.sampled_from(USERS + [3_000_000_000_000_000_001]))
    if kind == ATTACHMENT:  # a file the user attached (a scenario): hostile names and contents
        name = draw(st.sampled_from(["scenario.yaml", "@everyone.yml", "x.txt", "a" * 200 + ".yaml"]))
        return SentFile(filename=name, content_type=draw(st.sampled_from([None, "text/yaml", "image/png"])),
                        data=draw(st.one_of(st.sampled_from(FILES), st.sampled_from(SAMPLES))))
    raise AssertionError(f"option type {kind} is not fuzzed; add it here")


@st.composite
def commands(draw, leaves, *, within_bounds: bool = True):
    path, options = draw(st.sampled_from(leaves))
    chosen = {}
    for spec in options:
        if spec.get("required") or draw(st.integers(0, 3)) == 0:  # few optional ones: fewer conflicts
            chosen[spec["name"]] = value_for(spec, draw, within_bounds=within_bounds)
    channel = draw(st.sampled_from([GAME_CHANNEL, GAME_CHANNEL, THREAD, GENERAL]))
    user = draw(st.sampled_from([ALICE, ALICE, GM, *USERS]))  # the player of A0/A1 and the GM most
    return path, chosen, user, channel, draw(st.booleans())


# --- what every reply must satisfy --------------------------------------------------------


def embed_size(embed: dict[str, Any]) -> int:
    return (len(embed.get("title") or "") + len(embed.get("description") or "")
            + len((embed.get("footer") or {}).get("text") or "") + len((embed.get("author") or {}).get("name") or "")
            + sum(len(f.get("name") or "") + len(f.get("value") or "") for f in embed.get("fields") or []))


def check_message(payload: dict[str, Any], sent_text: list[str], may_ping: frozenset[int]) -> None:
    allowed = payload.get("allowed_mentions")
    content = payload.get("content") or ""
    if allowed != {"parse": []}:
        # the exceptions, by user id and no one else: the hand-off line (bot/replies.py) notifies the
        # players whose move it is, and a game master's /game replace the substitute it invites to
        # accept (``may_ping``: the game's players, and that substitute); the mentions in it are the
        # ones it allows
        assert allowed.get("parse") == [] and set(allowed.get("users", [])) <= may_ping, (allowed, may_ping)
        assert set(map(int, re.findall(r"<@!?(\d+)>", content))) == set(allowed["users"]), (content, allowed)
    embeds = payload.get("embeds") or []
    assert len(content) <= 2000 and len(embeds) <= 10
    for embed in embeds:
        assert len(embed.get("title") or "") <= 256 and len(embed.get("description") or "") <= 4096
        fields = embed.get("fields") or []
        assert len(fields) <= 25
        assert all(len(f["name"]) <= 256 and len(f["value"]) <= 1024 for f in fields)
        assert len((embed.get("footer") or {}).get("text") or "") <= 2048
        assert embed_size(embed) <= 6000
    assert sum(embed_size(e) for e in embeds) <= 6000
    shown = "\n".join([content, *_texts(embeds)])
    assert not MENTION_RAW.search(shown), "a raw mass or role mention"
    library = LIBRARY_PHRASES.search(shown)
    assert library is None, f"a library's words, not a player's: {library and library[0]!r} in {shown[:300]!r}"
    for text_in in sent_text:  # player text with live markdown (as Discord reads it) is never echoed raw
        escaped = escape_markdown(text_in)
        if len(text_in) >= 8 and escaped != text_in:
            # escaping may only prepend a backslash ("\[link](url)"): each raw copy must sit in an escaped one
            assert shown.count(text_in) <= shown.count(escaped), f"{text_in!r} shown unescaped"


def _texts(embeds: list[dict[str, Any]]) -> list[str]:
    out = []
    for embed in embeds:
        out += [embed.get("title") or "", embed.get("description") or "",
                (embed.get("footer") or {}).get("text") or ""]
        out += [f"{f.get('name')} {f.get('value')}" for f in embed.get("fields") or []]
    return out


def messages_of(reply) -> list[dict[str, Any]]:
    payloads = [c.data for c in reply.record.callbacks if c.type in (4, 7)]
    payloads += [m.payload for m in reply.followups]
    if reply.message is not None and reply.message.edits:
        payloads.append(reply.message.payload)
    return payloads


async def snapshots(table) -> dict[int, Any]:
    return {channel: await table.snapshot(channel) for channel in CHANNELS}


# --- the table ------------------------------------------------------------------------------


SEATS = {
    GAME_CHANNEL: ("asl", ["Germans", "Russians"], [("A0", 0, "ger-467", "B5"), ("A1", 0, "ger-467", "B5"),
                                                   ("R0", 1, "rus-447", "C5")]),
    THREAD: ("nhis", ["US", "Japan"], [("T1", 0, "us-rifle-squad", "0101"), ("T2", 1, "jp-rifle-squad", "0102")]),
}


async def seat(table, channel: int) -> None:
    """A game in ``channel`` (set up through the service, as the game master would): ALICE plays
    side 0, BOB side 1."""
    referee, gm = table.bot.referee, Actor(GM)
    ruleset, sides, units = SEATS[channel]
    await referee.new_game(channel, None, gm, ruleset, sides)
    for side, player in ((0, ALICE), (1, BOB)):
        await referee.act(channel, gm, {"action": "join", "side": side, "player": player, "requested": True},
                          command="/game join")
    for unit_id, side, counter, location in units:
        await referee.act(channel, gm, {"action": "unit_add", "id": unit_id, "side": side, "type": counter,
                                        "location": location}, command="/unit add")


async def two_games(table) -> None:
    for channel in SEATS:
        await seat(table, channel)
    # the fuzzer sends far more rolls and commands than a player may; the limits have their own tests
    table.bot.roll_limiter = RollRateLimiter(10**9, 60)
    table.bot.quotas = Quotas(Settings(quota_user="off", quota_channel="off", quota_server="off",
                                       quota_heavy_user="off", quota_heavy_channel="off", quota_heavy_server="off"))


async def reseat_ended_games(table) -> None:
    """A fuzzed /game end (or a refused /game new) leaves a channel without a game; seat a new one
    so the next examples reach the rules again."""
    for channel in SEATS:
        if (await table.snapshot(channel))[0] is None:
            await seat(table, channel)


@pytest.fixture
def error_log(caplog):
    caplog.set_level(logging.WARNING)
    return lambda: [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


async def run_one(table, path: str, options: dict[str, Any], user: int, channel: int, manager: bool,
                  *, check: bool, stats: dict[str, int]) -> None:
    before = await snapshots(table)
    reply = await table.send(path, options, user=user, channel=channel, manager=manager, check=check)
    assert reply.record.callbacks, f"/{path} {options}: no answer"
    assert "Something went wrong" not in reply.content, f"/{path} {options}: {reply.content}"
    sent_text = [v for v in options.values() if isinstance(v, str)]
    after = await snapshots(table)
    # whom a reply may notify: the players of the channel's game, before or after the command (a fuzzed
    # /game join seats a user, whose move it may then be), and the substitute a /game replace invites
    players = {user for game, _ in (before[channel], after[channel]) if game is not None
               for side in game.sides for user in side.players}
    invited = {options["with"]} if path == "game replace" and not reply.ephemeral else set()
    for payload in messages_of(reply):
        check_message(payload, sent_text, frozenset(players | invited))
    for other in CHANNELS:
        if other != channel or reply.ephemeral:
            assert after[other] == before[other], f"/{path} {options} in {channel} changed channel {other}"
    stats["private" if reply.ephemeral else "public"] += 1  # refusals, and the few private views
    await reseat_ended_games(table)
    if reply.ephemeral and os.environ.get("REFEREE_FUZZ_SHOW"):
        print(path, ((reply.embeds[0].get("description") if reply.embeds else reply.content) or "")[:90])


_LOOP: list[asyncio.AbstractEventLoop] = []


async def in_thread(fuzz) -> None:
    """Run a hypothesis test (synchronous) in a worker thread while this loop serves the bot:
    each example hands its coroutine back to the loop with ``on_loop``."""
    _LOOP[:] = [asyncio.get_running_loop()]
    try:
        await asyncio.to_thread(fuzz)
    finally:
        _LOOP.clear()


def on_loop(coroutine) -> None:
    asyncio.run_coroutine_threadsafe(coroutine, _LOOP[0]).result(timeout=60)


def _leaves(table) -> list[tuple[str, list[dict[str, Any]]]]:
    leaves = leaf_commands(table.fake.commands_for(table.fake.guild().id))
    assert len(leaves) >= 10, [p for p, _ in leaves]
    return leaves


async def test_fuzzed_options_through_discord_never_crash_ping_or_corrupt(table, error_log):
    await two_games(table)
    leaves = _leaves(table)
    stats = {"public": 0, "private": 0}

    @settings(max_examples=EXAMPLES, **FUZZ_SETTINGS)
    @given(st.data())
    def fuzz(data):
        path, options, user, channel, manager = data.draw(commands(leaves))
        on_loop(run_one(table, path, options, user, channel, manager, check=True, stats=stats))

    await in_thread(fuzz)
    assert error_log() == []
    audit = await audit_database(table.database)
    print(f"fuzzed {EXAMPLES} commands over {len(leaves)} command shapes: {stats}; {audit.entries} entries verified")


async def test_what_discord_would_refuse_is_refused_politely_too(table, error_log):
    await two_games(table)
    leaves = [(p, o) for p, o in _leaves(table) if any(s["type"] in (STRING, INTEGER) and not s.get("choices")
                                                        for s in o)]
    stats = {"public": 0, "private": 0}

    @settings(max_examples=RAW_EXAMPLES, **FUZZ_SETTINGS)
    @given(st.data())
    def fuzz(data):
        path, options, user, channel, manager = data.draw(commands(leaves))
        specs = {s["name"]: s for s in dict(leaves)[path]}
        free = [n for n, s in specs.items() if s["type"] in (STRING, INTEGER) and not s.get("choices")]
        name = data.draw(st.sampled_from(free))
        options[name] = value_for(specs[name], data.draw, within_bounds=False)
        on_loop(run_one(table, path, options, user, channel, manager, check=False, stats=stats))

    await in_thread(fuzz)
    assert error_log() == []
    await audit_database(table.database)
    print(f"sent {RAW_EXAMPLES} out-of-bounds commands: {stats}")


async def test_a_unit_named_everyone_pings_no_one(table, error_log):
    await two_games(table)
    reply = await table.as_gm("unit add", {"id": "E1", "side": "Germans", "name": "@everyone <@&1> **Boss**",
                                           "type": "ger-467", "location": "B5"})
    [payload] = messages_of(reply)
    assert payload["allowed_mentions"] == {"parse": []}
    title = payload["embeds"][0]["title"]
    assert title == "@\u200beveryone <@&1> \\*\\*Boss\\*\\* E1 joins Germans"  # escaped, and pings no one
    assert "@everyone" not in json.dumps(payload["embeds"], ensure_ascii=False)
    status = await table.send("game status", user=CAROL)
    assert status.record.callbacks[0].data["allowed_mentions"] == {"parse": []}
    assert "@everyone" not in json.dumps(status.embeds, ensure_ascii=False)
    assert error_log() == []


async def test_fuzzed_autocomplete_offers_only_what_discord_accepts(table, error_log):
    await two_games(table)
    focusable = [(path, spec["name"]) for path, options in _leaves(table) for spec in options
                 if spec.get("autocomplete")]
    assert focusable

    async def one(path: str, option: str, typed: str, user: int, channel: int) -> None:
        choices = await table.fake.autocomplete(path, {option: typed}, focused=option, user_id=user,
                                                channel_id=channel)
        assert len(choices) <= 25
        for choice in choices:
            assert 1 <= len(choice["name"]) <= 100 and len(str(choice["value"])) <= 100, choice

    @settings(max_examples=size(40, 500), **FUZZ_SETTINGS)
    @given(st.sampled_from(focusable), st.one_of(strings, st.just("")), st.sampled_from(USERS),
           st.sampled_from(CHANNELS))
    def fuzz(target, typed, user, channel):
        on_loop(one(*target, typed, user, channel))

    await in_thread(fuzz)
    assert error_log() == []
