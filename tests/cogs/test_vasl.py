"""/scenario load with a VASL saved game, /scenario export format:vasl, end to end through the loopback
Discord (issue 31). The VASL files (tests/core/asl/vasl_fixtures.py) have the structure as observed in
saves written by VASSAL 3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures, not copied); the Pin, DM and
CX marker pieces are built as documented (no save at hand holds one)."""

from __future__ import annotations

import io
import json
import zipfile

from bot.core.data import data_path
from bot.core.rulesets.asl import vasl
from bot.emulator import SentFile
from tests.cogs.conftest import ALICE, BOB, GM, THREAD
from tests.cogs.test_scenario import attach, everything_recorded, logged
from tests.core.asl import vasl_fixtures as fx

VILLAGE = data_path("asl", "scenarios", "village-assault.yaml")
HIDDEN_LINES = ("concealed: 4-4-7 (rus-447) in 32H7", "HIP: 8-1 (rus-8-1) in 32I6", "KV-1 M41", "player2")
CANARIES = (fx.CANARY_CONCEALED, fx.CANARY_HIP, fx.CANARY_TANK, *HIDDEN_LINES)


def saved(data: bytes, name: str = "game.vsav") -> SentFile:
    return SentFile(name, "application/octet-stream", data)


def units(game) -> dict[str, tuple]:
    return {u.id: (u.type, u.side, u.location, u.owner, u.broken, u.pinned, u.dm, u.cx) for u in game.units.values()}


def public_notes(reply) -> list[str]:
    return [m.payload.get("content") or "" for m in reply.followups
            if not m.ephemeral and (m.payload.get("content") or "").startswith("Read from a ")]


async def test_a_vasl_game_loads_whole_with_one_reply_for_what_is_not_mapped(table):
    reply = await table.as_gm("scenario load", {"file": saved(fx.two_boards(), "no-extension")})  # by content
    assert not reply.ephemeral, reply.embeds
    game = await table.game()
    assert units(game) == {
        "G1": ("ger-467", 0, "32C5", None, True, True, False, False),
        "GL1": ("ger-9-1", 0, "33E4", None, False, False, False, False),
        "GLMG1": ("ger-lmg", 0, "33E4", "GL1", False, False, False, False),
        "R1": ("rus-447", 1, "32J5", None, False, False, True, True)}
    assert [s.name for s in game.sides] == ["Germans", "Russians"] and game.scenario == "Hexes and hexsides"
    [notes] = public_notes(reply)  # one reply: every counter not mapped, with its name and where it stood
    assert "Not mapped (2; add them with /unit add" in notes
    assert "- T-34 M41 vca3 BU in 32G6: a vehicle: the bot referees infantry, leaders and support weapons" in notes
    assert "- 4-4-7 1sq in 32C5/D5: on a hexside: infantry stands in a hex" in notes
    assert "Terrain is not read from VASL" in notes
    sealed = [m.payload["embeds"][0]["title"] for m in reply.followups if not m.ephemeral and m.payload.get("embeds")]
    assert sealed == ["Russians sealed an order (#2)"]  # the concealed and HIP units: sealed for their side
    assert (await table.bot.referee.verify(table.channel)).ok


async def test_concealed_and_hip_units_never_reach_the_other_side(table):
    """The canary: the VASL ids and the lines of the hidden units are nowhere the Germans (or anyone but
    the Russian side, once revealed) can read: replies, channel, log and its exports, the game's state,
    the public exports in both formats."""
    reply = await table.as_gm("scenario load", {"file": saved(fx.two_boards())})
    assert not reply.ephemeral, reply.embeds
    await table.invite(ALICE, "Germans")
    await table.invite(BOB, "Russians")
    await table.send("game status", user=ALICE)
    await table.send("unit list", user=ALICE)
    yaml_export = await table.as_gm("scenario export")
    vasl_export = await table.as_gm("scenario export", {"format": "vasl"})
    [vsav] = vasl_export.message.files
    assert vsav.filename.endswith(".vsav")
    assert "the hidden part of Russians is sealed and not in it" in vasl_export.message.content
    game = await table.game()
    seen = everything_recorded(table) + await logged(table, ALICE) + json.dumps(game.model_dump(mode="json")) \
        + yaml_export.message.files[0].data.decode() + vsav.data.decode("latin-1")
    with zipfile.ZipFile(io.BytesIO(vsav.data)) as zf:
        seen += vasl.deobfuscate(zf.read("savedGame"))
    for canary in CANARIES:
        assert canary not in seen, canary


async def test_export_format_vasl_loads_back_to_the_same_units(table):
    await table.as_gm("scenario load", {"file": attach(VILLAGE)})
    first = await table.game()
    exported = await table.as_gm("scenario export", {"format": "vasl"})
    [sent] = exported.message.files
    assert sent.filename == "village-assault-sample.vsav"
    assert "Boards: 1;" in exported.message.content
    again = await table.as_gm("scenario load", {"file": saved(sent.data)}, channel=THREAD)
    assert not again.ephemeral, again.embeds
    second = await table.game(THREAD)
    assert units(second) == units(first) and len(second.units) == 44
    assert set(second.locations) == set(first.locations)
    [notes] = public_notes(again)
    assert "Every counter on the boards was mapped." in notes


async def test_a_vehicle_is_listed_and_the_rest_is_loaded(table):
    text = fx.saved_game([fx.board_layout("0\t0\t32\t"), fx.piece("1001", 512, 690, "ge467S.gif", "4-6-7 1sq"),
                          fx.piece("1002", 737, 755, "gePzIVH.gif", "PzKpfw IVH")])
    reply = await table.as_gm("scenario load", {"file": saved(fx.archive(fx.vcsk(text)))})
    assert list((await table.game()).units) == ["G1"]
    [notes] = public_notes(reply)
    assert "- PzKpfw IVH in G6: not an infantry unit" in notes


async def test_a_hostile_vasl_file_is_refused_in_one_line_and_creates_nothing(table):
    text = await table.refused("scenario load", {"file": saved(fx.archive(b"XYZZ"))}, user=GM)
    assert text == ("VASL file: savedGame starts with 'XYZZ', not a header VASSAL writes (!VCSK, VOBS or "
                    "begin\\_save)")  # as the embed shows it, markdown escaped
    assert await table.snapshot() == (None, 0)


async def test_export_offers_the_games_formats_and_refuses_another(table):
    await table.as_gm("scenario load", {"file": attach(VILLAGE)})
    offered = await table.autocomplete("scenario export", focused="format")
    assert [c["value"] for c in offered] == ["yaml", "vasl"]
    text = await table.refused("scenario export", {"format": "pdf"}, user=GM)
    assert text == "'pdf' is not a format this game can be written in (formats: yaml, vasl)"


async def test_game_new_takes_a_vasl_file_and_its_own_options_win(table):
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Axis, Soviets", "scenario": "From VASL",
                                           "elr_1": 4, "file": saved(fx.two_boards())})
    assert not reply.ephemeral, reply.embeds
    game = await table.game()
    assert [s.name for s in game.sides] == ["Axis", "Soviets"] and game.scenario == "From VASL"
    assert game.sides[0].elr == 4 and len(game.units) == 4
    [notes] = public_notes(reply)
    assert "Not mapped (2;" in notes
    text = await table.refused("game new", {"ruleset": "nhis", "sides": "A, B", "file": saved(fx.two_boards())},
                               user=GM, channel=THREAD)
    assert "it sets up a game of 'asl', not of the game's ruleset 'nhis'" in text


async def test_a_long_not_mapped_list_comes_whole_as_a_file(table):
    vehicles = [fx.vehicle(str(2000 + i), 400 + 56 * (i % 30), 432 + 64 * (i // 30), "ge", "pzivh", f"PzKpfw IVH {i}")
                for i in range(60)]
    text = fx.saved_game([fx.board_layout("0\t0\t32\t"), fx.piece("1001", 512, 690, "ge467S.gif", "4-6-7"),
                          *vehicles])
    reply = await table.as_gm("scenario load", {"file": saved(fx.archive(fx.vcsk(text)))})
    assert not reply.ephemeral, reply.embeds
    [notes] = [m for m in reply.followups if (m.payload.get("content") or "").startswith("Read from a ")]
    assert "(the whole list of 60 is attached)" in notes.payload["content"]
    [listed] = notes.files
    assert listed.filename == "not-mapped.txt" and listed.data.decode().count("PzKpfw IVH") == 60


async def test_scenario_check_previews_a_log_at_its_end_and_creates_nothing(table):
    reply = await table.send("scenario check", {"file": saved(fx.log_file(), "game.vlog")}, user=BOB)
    assert reply.ephemeral  # for the one who checks: the file attached holds the hidden parts
    content = reply.message.payload["content"]
    assert content.startswith("A log: 4 units in 3 Locations; nothing was created")
    assert "- Russians: 1 unit, and a hidden part sealed for it at load" in content
    assert "Typed in VASL (chat, dice never used): " in content and "(Rally DR) 3,1" in content
    assert "The position is the log's end, after its 2 entries." in content
    [converted] = reply.message.files
    assert converted.filename == "game.yaml" and "{id: R1, type: rus-447, location: 32K4}" in converted.data.decode()
    assert await table.snapshot() == (None, 0)
    checked = await table.send("scenario check", {"file": attach(VILLAGE)}, user=BOB)
    assert checked.message.payload["content"].startswith("Village Assault (sample): 44 units in 12 Locations")


async def test_a_file_over_the_most_a_format_reads_is_refused_before_it_is_downloaded(table):
    text = await table.refused("scenario load", {"file": saved(b"PK\x03\x04" + b"\0" * (4 * 1024 * 1024 - 3))},
                               user=GM)
    assert text == "Scenario file: game.vsav has 4,194,305 bytes; a file given here has at most 4,194,304"
