"""/scenario load, /game new file:, /scenario export end to end: a file attached through the loopback
Discord (an attachment option, downloaded by the bot from its URL), the game set up in one log entry,
a bad file refused with its line and field and nothing created, the export loading back."""

from __future__ import annotations

import hashlib
import json

import aiohttp
import pytest

from bot.core.data import data_path
from bot.emulator import SentFile
from bot.record import state_hash

from tests.cogs.conftest import ALICE, BOB, CAROL, GM, THREAD

VILLAGE = data_path("asl", "scenarios", "village-assault.yaml")
SAMPLES = {"asl": VILLAGE, "nhis": data_path("nhis", "scenarios", "hill-362.yaml"),
           "cd": data_path("cd", "scenarios", "hedgerows.yaml")}


def attach(path_or_text, name: str = "scenario.yaml") -> SentFile:
    data = path_or_text.read_bytes() if hasattr(path_or_text, "read_bytes") else path_or_text.encode()
    return SentFile(name, "application/x-yaml", data)


async def test_the_emulator_sends_an_attachment_as_discord_does(table):
    sent = attach("ruleset: asl\n", "x.yaml")
    reply = await table.fake.send_command("scenario load", {"file": sent}, user_id=GM, channel_id=table.channel)
    data = reply.record.payload["data"]
    [option] = data["options"][0]["options"]
    assert option["type"] == 11 and option["name"] == "file"
    attachment = data["resolved"]["attachments"][option["value"]]
    assert attachment["filename"] == "x.yaml" and attachment["size"] == len(sent.data)
    async with aiohttp.ClientSession() as session, session.get(attachment["url"]) as response:
        assert response.status == 200 and await response.read() == sent.data  # served on loopback


async def test_the_emulator_takes_only_an_attached_file_for_an_attachment_option(table):
    with pytest.raises(AssertionError, match="option 'file' takes a file: give a SentFile"):
        await table.fake.send_command("scenario load", {"file": "1234"}, user_id=GM, channel_id=table.channel)
    assert await table.snapshot() == (None, 0)


async def test_a_forty_counter_scenario_loads_in_one_command_and_one_entry(table):
    reply = await table.as_gm("scenario load", {"file": attach(VILLAGE)})
    assert not reply.ephemeral, reply.embeds
    game = await table.game()
    assert len(game.units) == 44 and game.turns == 6 and game.gm == GM
    assert game.units["GMG1"].owner == "G1" and game.locations["D3"].terrain == "stone building"
    log = await table.bot.referee.log(table.channel)
    assert log.total == 1 and log.entries[0].command == "/game new"
    assert (await table.bot.referee.verify(table.channel)).ok  # the replay sets the same scenario up
    status = await table.send("game status")
    assert status.embeds[0]["title"] == "Village Assault (sample): turn 1 of 6"  # the scenario's length
    # the game plays on as one set up by hand: a player joins, a unit is added with the set-up's guards
    await table.invite(ALICE, "Germans")
    added = await table.as_gm("unit add", {"id": "G99", "side": "Germans", "type": "ger-467", "location": "D3"})
    assert not added.ephemeral, added.embeds  # a third squad in D3
    text = await table.refused("unit add", {"id": "G98", "side": "Germans", "type": "ger-467", "location": "D3"},
                               user=GM)
    assert "D3 would hold 4 squad-equivalents of Germans" in text  # the set-up's limit holds after a file too


@pytest.mark.parametrize("path", sorted(data_path().glob("*/scenarios/*.yaml")), ids=lambda p: p.stem)
async def test_export_loads_back_to_the_same_game(table, path):  # every ruleset's sample files
    await table.as_gm("scenario load", {"file": attach(path)})
    first = await table.game()
    exported = await table.as_gm("scenario export")
    [sent] = exported.message.files
    assert sent.filename.endswith(".yaml")
    await table.as_gm("scenario load", {"file": SentFile(sent.filename, None, sent.data)}, channel=THREAD)
    again = await table.game(THREAD)
    assert again == first and state_hash(again) == state_hash(first)


async def test_game_new_takes_a_file_and_its_own_options_win(table):
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Axis, Soviets", "scenario": "Renamed",
                                           "elr_1": 5, "file": attach(VILLAGE)})
    assert not reply.ephemeral, reply.embeds
    game = await table.game()
    assert [s.name for s in game.sides] == ["Axis", "Soviets"] and game.scenario == "Renamed"
    assert (game.sides[0].elr, game.sides[1].elr) == (5, 2) and len(game.units) == 44


async def test_a_file_for_another_ruleset_is_refused_by_game_new(table):
    text = await table.refused("game new", {"ruleset": "nhis", "sides": "A, B", "file": attach(VILLAGE)}, user=GM)
    assert "line 4, 'ruleset': this scenario is for 'asl', not for the game's ruleset 'nhis'" in text


BAD = {
    "bad YAML": ("ruleset: asl\nsides: [\n", "line 3", "not valid YAML"),
    "unknown field": ("ruleset: asl\nweather: rain\nsides: []\n", "line 2, 'weather'", "unknown field 'weather'"),
    "bad value": ("ruleset: asl\nturns: 0\nsides: []\n", "line 2, 'turns'", "must be at least 1, not '0'"),
    "unknown counter type": (VILLAGE.read_text().replace("ger-9-1", "ger-99-1"), "line 29, 'sides[0].units[2].type'",
                             "no counter type 'ger-99-1'"),
    "unknown location": (VILLAGE.read_text().replace("{id: G3, type: ger-467, location: D4}",
                                                     "{id: G3, type: ger-467, location: Z9}"),
                         "line 31, 'sides[0].units[4].location'", "not in the file's locations"),
    "over the stacking limit": (VILLAGE.read_text().replace("{id: G3, type: ger-467, location: D4}",
                                                            "{id: G3, type: ger-467, location: D3}").replace(
        "{id: G4, type: ger-467, location: D4}", "{id: G4, type: ger-467, location: D3}"),
        "line 32, 'sides[0].units[5].location'", "G4: D3 would hold 4 squad-equivalents"),
    "wrong ruleset": (VILLAGE.read_text().replace("ruleset: asl", "ruleset: chess"), "line 4, 'ruleset'",
                      "chess"),
}


@pytest.mark.parametrize("kind", list(BAD))
async def test_a_bad_file_is_refused_with_line_and_field_and_creates_nothing(table, kind):
    text, where, words = BAD[kind]
    refused = await table.refused("scenario load", {"file": attach(text)}, user=GM)
    assert refused.startswith(f"Scenario file, {where}"), refused
    assert words in refused, refused
    assert await table.snapshot() == (None, 0)  # no game, no log


async def test_a_bad_file_leaves_an_existing_game_alone(table):
    await table.as_gm("scenario load", {"file": attach(SAMPLES["cd"])})
    refused = await table.refused("scenario load", {"file": attach("title: x\n")}, user=GM)
    assert "'ruleset' is missing" in refused
    refused = await table.refused("scenario load", {"file": attach(SAMPLES["nhis"])}, user=GM)
    assert "already a game in this channel" in refused


# --- hidden parts (sealed at load, opened with /reveal) ---

US_SECRET = "Fire mission: RA1 on hedge-2 at turn 3"
GER_SECRET = "Hidden: G9 ger-rifle in farm-cellar, ambush at turn 2"


def with_hidden(path=SAMPLES["cd"]) -> str:
    """The CD sample with a hidden part for each side."""
    text = path.read_text()
    text = text.replace("    options: {quality: regular}\n",
                        f"    options: {{quality: regular}}\n    hidden: {{text: '{US_SECRET}'}}\n")
    return text.replace("    options: {quality: veteran}\n",
                        f"    options: {{quality: veteran}}\n    hidden:\n      text: '{GER_SECRET}'\n")


def everything_recorded(table) -> str:
    """All the emulator recorded: every interaction sent (the commands' options) and every message
    and file the bot sent, ephemeral or not, and every channel message."""
    parts = []
    for record in table.fake.interactions.values():
        parts.append(json.dumps(record.payload))
        for message in record.all_messages():
            parts.append(json.dumps(message.payload))
            parts += [f.data.decode("utf-8", "replace") for f in message.files]
    for message in table.fake.channel_messages(table.channel):
        parts.append(json.dumps(message.payload))
        parts += [f.data.decode("utf-8", "replace") for f in message.files]
    return "\n".join(parts)


async def logged(table, user=CAROL) -> str:
    """The whole log as the store keeps it, and its exports in every format."""
    referee = table.bot.referee
    stored = await referee.log(table.channel, per_page=50)
    parts = [json.dumps(entry.order) + json.dumps(entry.outcome) for entry in stored.entries]
    for fmt in ("json", "markdown", "csv"):
        reply = await table.send("log export", {"format": fmt}, user=user)
        assert reply.files, (fmt, reply.content, reply.embeds, reply.record.refused)
        parts.append(reply.files[0].data.decode())
    return "\n".join(parts)


async def test_hidden_parts_are_sealed_at_load_and_opened_with_reveal(table):
    reply = await table.as_gm("scenario load", {"file": attach(with_hidden())})
    assert not reply.ephemeral, reply.embeds
    sealed = [m for m in reply.followups if not m.ephemeral]
    titles = [m.payload["embeds"][0]["title"] for m in sealed]
    assert titles == ["Americans sealed an order (#2)", "Germans sealed an order (#3)"]
    [nonces] = [m for m in reply.followups if m.ephemeral]  # the loader's private copy: the nonces only
    log = await table.bot.referee.log(table.channel)
    assert [(e.seq, e.command, e.order.get("side")) for e in log.entries[1:]] == [
        (2, "/scenario load", 0), (3, "/scenario load", 1)]
    for entry in log.entries[1:]:  # the commitment is posted; the nonce checks it
        nonce = nonces.payload["content"].split(f"#{entry.seq}: `")[1].split("`")[0]
        secret = US_SECRET if entry.order["side"] == 0 else GER_SECRET
        assert hashlib.sha256(bytes.fromhex(nonce) + secret.encode()).hexdigest() == entry.order["commitment"]
        assert entry.order["commitment"] in json.dumps(sealed[entry.seq - 2].payload)
    game = await table.game()
    exported = await table.as_gm("scenario export")
    assert "the hidden part of Americans and Germans is still sealed and left out" in exported.message.content
    seen = everything_recorded(table) + await logged(table) + json.dumps(game.model_dump(mode="json"))
    for secret in (US_SECRET, GER_SECRET):  # nowhere: the channel, the log, the exports, the game's state
        assert secret not in seen
    assert (await table.bot.referee.verify(table.channel)).ok
    # the load delivered again (the same interaction): answered from the log, nothing sealed twice
    await table.fake.deliver_again(reply)
    assert (await table.bot.referee.log(table.channel)).total == 3

    opened = await table.as_gm("reveal", {"sealed": 2})
    assert not opened.ephemeral and f"Sealed text: {US_SECRET}" in json.dumps(opened.embeds)
    seen = await logged(table, BOB)
    assert US_SECRET in seen and GER_SECRET not in seen + everything_recorded(table)
    exported = await table.as_gm("scenario export")
    assert "the hidden part of Germans is still sealed and left out" in exported.message.content
    [sent] = exported.message.files
    assert US_SECRET in sent.data.decode() and GER_SECRET not in sent.data.decode()
    # the export loads back to the same game, its revealed part sealed again for its side
    loaded = await table.as_gm("scenario load", {"file": SentFile(sent.filename, None, sent.data)}, channel=THREAD)
    assert [m.payload["embeds"][0]["title"] for m in loaded.followups if not m.ephemeral] == [
        "Americans sealed an order (#2)"]
    again = await table.game(THREAD)
    assert again == game and state_hash(again) == state_hash(game)
    assert (await table.bot.referee.verify(THREAD)).ok


async def test_game_new_with_a_file_seals_its_hidden_parts_too(table):
    reply = await table.as_gm("game new", {"ruleset": "cd", "sides": "Americans, Germans",
                                           "file": attach(with_hidden())})
    assert not reply.ephemeral, reply.embeds
    assert len([m for m in reply.followups if not m.ephemeral]) == 2
    assert US_SECRET not in everything_recorded(table) and GER_SECRET not in await logged(table)


@pytest.mark.parametrize(("old", "new", "message"), [
    (f"text: '{GER_SECRET}'", "text: ''",
     "line 27, 'sides[1].hidden.text': 'text' needs at least 1 character"),
    (f"text: '{GER_SECRET}'", "text: '" + "x" * 1501 + "'",
     "line 27, 'sides[1].hidden.text': 'text' takes at most 1500 characters"),
    (f"text: '{GER_SECRET}'", f"txt: '{GER_SECRET}'", "line 27, 'sides[1].hidden.txt': unknown field 'txt' "
                                                       "(fields here: text)"),
    (f"hidden: {{text: '{US_SECRET}'}}", "hidden: secret", "line 16, 'sides[0].hidden'"),
])
async def test_a_bad_hidden_part_is_refused_with_its_line_and_field_and_creates_nothing(table, old, new, message):
    bad = with_hidden()
    assert old in bad
    text = await table.refused("scenario load", {"file": attach(bad.replace(old, new))}, user=GM)
    assert text.startswith(f"Scenario file, {message}"), text
    assert await table.snapshot() == (None, 0)
