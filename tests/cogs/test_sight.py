"""The board knows its hexes (issue 26), end to end through the real client and the loopback Discord:
the range counted on the map (a typed range that differs refused with both numbers), /los with its
hexes and its picture, and the line of sight a /fire reads (game option los: advise, strict)."""

from __future__ import annotations

import math

from bot.core.rulesets import get_ruleset
from bot.core.sight import read_sight
from bot.pictures import sight_png
from bot.pictures.battlefield import SIGHT_RGB
from bot.core.rulesets.asl.ruleset import AslRuleset
from tests.cogs.conftest import ALICE, BOB
from tests.cogs.helpers import fields, last_entry, start_game, terrain, unit
from tests.test_map import decode


async def village(table, *extra, options=None):
    """Germans in D4 (two 4-6-7, one of them with its range cut to 3, and an 8-0), Russians in H2, four
    hexes away along the hex row D4 E4 F3 G3 H2."""
    return await start_game(table, "asl", ["Germans", "Russians"], [
        unit("G3", 0, "D4", "ger-467"), unit("G4", 0, "D4", "ger-467", range=3), unit("GL2", 0, "D4", "ger-8-0"),
        unit("R1", 1, "H2", "rus-447"), terrain("H2", "open"), *extra,
    ], phase="PFPh", options={"elr": [3, 3], **(options or {})})


def trail_text(embed) -> str:
    return "\n".join(f"{f['name']}\n{f['value']}" for f in embed["fields"])


async def test_a_typed_range_the_map_does_not_count_is_refused_with_both_numbers(table):
    await village(table)
    refused = await table.refused("fire", {"firers": "G3 G4 GL2", "target": "H2", "range": 1, "dice": "3 3"})
    assert refused.startswith("range 1 was typed, but the map counts 4 from D4 to H2 (hexes counted to the "
                              "target's, not the firer's: A7.2 (assumed))")
    assert "leave range out to fire at range 4" in refused and "typed\\_range=trust" in refused
    assert (await last_entry(table)).command != "/fire"  # nothing logged


async def test_the_same_fire_without_range_is_resolved_at_range_4_with_long_range_where_it_applies(table):
    await village(table)
    reply = await table.send("fire", {"firers": "G3 G4 GL2", "target": "H2", "dice": "3 3 4 4 4 4"})
    embed = reply.embeds[0]
    text = trail_text(embed)
    assert "range 4 (D4 to H2), counted on the map  [A7.2 (assumed)]" in text
    firepower = fields(embed)["Prep Fire: firepower [A3.3, seed 003]"]
    # G4's normal range is 3: at 4 it fires at long range, halved (A7.22); G3 (range 6) is not; no PBF
    assert "4-6-7 G4: long range  x1/2  (=2)  [A7.22]" in firepower
    assert "G3: long range" not in firepower and "point blank" not in firepower
    assert "Total FP (fractions kept until the total)  6  [A7.2]" in firepower
    entry = await last_entry(table)
    assert entry.order == {"action": "fire", "firers": ["G3", "G4", "GL2"], "target": "H2"}
    assert any(s["label"] == "range 4 (D4 to H2), counted on the map" for s in entry.outcome["trail"])


async def test_trust_takes_the_typed_range_and_says_so(table):
    await village(table, options={"typed_range": "trust"})
    reply = await table.send("fire", {"firers": "G3", "target": "H2", "range": 1, "dice": "3 3 4 4"})
    text = trail_text(reply.embeds[0])
    assert ("range 1 (D4 to H2), typed by the players: the map counts 4, and the game option typed\\_range=trust "
            "takes the typed range") in text
    assert "point blank fire  x2" in text


async def test_los_lists_the_hexes_their_terrain_and_draws_the_line(table):
    await village(table, terrain("E4", "woods"), terrain("F3", "grain"))
    reply = await table.send("los", {"from": "D4", "to": "H2"})
    [embed] = reply.embeds
    assert embed["title"] == "Line of sight D4 to H2, range 4: blocked"
    crossed = fields(embed)["Hexes crossed"]
    assert "E4: Woods -> blocks  [B.6]" in crossed
    assert "F3: Grain (in season) -> hindrance +1  [B.6]" in crossed
    assert "G3: terrain unknown -> unknown  [A6.1]" in crossed  # never read as open
    assert "levels (hills, upper building levels) are not computed" in crossed
    assert fields(embed)["Read on the map"].startswith("blocked by E4 (Woods)")
    (sent,) = reply.files
    assert sent.filename == "los.png" and embed["image"]["url"] == "attachment://los.png"
    image = decode(sent.data)
    # the hexes' centres as the picture lays them out (under its header, whose height the title sets): the
    # same drawing again, the very picture sent, with where it put each hex and the line
    game = await table.game()
    ruleset = get_ruleset(game.ruleset)
    picture = sight_png(game, read_sight(ruleset.grid, ruleset.sight_terrain, game, "D4", "H2"))
    assert picture.png == sent.data
    centres = picture.centres
    assert picture.sight == (centres["D4"], centres["H2"])
    # the line's pixels: all on the segment from D4's centre to H2's (4 px wide, a dot of 6 px at each end) ...
    width, height = image.size
    pixels = image.load()
    line = [(x, y) for x in range(width) for y in range(height) if pixels[x, y] == SIGHT_RGB]
    assert len(line) > 300, "no line of sight drawn"
    (dx, dy), (hx, hy) = centres["D4"], centres["H2"]
    assert max(off_segment(p, (dx, dy), (hx, hy)) for p in line) <= 7
    # ... reaching each end: its dot, or where it comes out from under the label over that hex (the texts
    # are drawn over the line)
    for end in ("D4", "H2"):
        cx, cy = centres[end]
        nearest = min(line, key=lambda p: math.dist(p, (cx, cy)))
        label = picture.labels.get(end)
        assert math.dist(nearest, (cx, cy)) <= 8 or (label is not None and on_edge(nearest, label)), (end, nearest)


def off_segment(point, start, end) -> float:
    """How far ``point`` is from the segment ``start``-``end``."""
    (px, py), (ax, ay), (bx, by) = point, start, end
    t = max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
    return math.dist(point, (ax + t * (bx - ax), ay + t * (by - ay)))


def on_edge(point, box, reach: int = 2) -> bool:
    """Whether ``point`` lies on the border of ``box`` (x0, y0, x1, y1), within ``reach`` pixels."""
    (x, y), (x0, y0, x1, y1) = point, box
    inside_out = x0 - reach <= x <= x1 + reach and y0 - reach <= y <= y1 + reach
    return inside_out and min(abs(x - x0), abs(x - x1), abs(y - y0), abs(y - y1)) <= reach


async def test_a_woods_hex_on_the_line_asks_the_firer_to_confirm_and_the_button_fires(table):
    await village(table, terrain("E4", "woods"))
    before = await table.snapshot(None)
    asked = await table.send("fire", {"firers": "G3", "target": "H2", "dice": "3 3 4 4"})
    assert asked.ephemeral and await table.snapshot(None) == before  # nothing rolled, nothing logged
    [embed] = asked.embeds
    assert embed["title"] == "Line of sight: confirm"
    assert embed["description"].startswith("the bot reads the line of sight as D4 to H2 blocked by E4 (Woods), "
                                           "reading whole hexes (A6.1): fire anyway")
    [button] = [b for row in asked.message.components for b in row["components"]]
    assert button["label"] == "Fire anyway"
    refused = await table.fake.click(asked.message, button["custom_id"], user_id=BOB)
    assert refused.embeds[0]["description"] == "only the player who gave this order confirms it"
    fired = await table.fake.click(asked.message, button["custom_id"], user_id=ALICE)
    assert not fired.ephemeral and fired.embeds[0]["title"].startswith("4 FP (IFT 4) vs H2: final DR 6")
    entry = await last_entry(table)
    assert entry.command == "/fire" and entry.order["los_confirmed"] is True
    assert any(s["label"].startswith("the firer confirmed the line of sight, which the bot reads as D4 to H2 "
                                     "blocked by E4 (Woods)") for s in entry.outcome["trail"])
    again = await table.fake.click(asked.message, button["custom_id"], user_id=ALICE)
    assert "no longer held" in again.embeds[0]["description"]


async def test_los_strict_refuses_a_line_read_as_blocked(table):
    await village(table, terrain("E4", "woods"), options={"los": "strict"})
    refused = await table.refused("fire", {"firers": "G3", "target": "H2", "dice": "3 3"})
    assert refused == ("no line of sight: D4 to H2 blocked by E4 (Woods), reading whole hexes (A6.1; the game "
                       "option los=strict refuses it)")


async def test_confirmed_by_option_the_same_fire_rolls(table):
    await village(table, terrain("E4", "woods"))
    reply = await table.send("fire", {"firers": "G3", "target": "H2", "options": "los_confirmed=yes",
                                      "dice": "3 3 4 4"})
    assert not reply.ephemeral and reply.embeds[0]["title"].startswith("4 FP (IFT 4) vs H2: final DR 6")
    assert (await last_entry(table)).order["los_confirmed"] is True


async def test_two_grain_hexes_add_2_with_their_ids(table):
    await village(table, terrain("E4", "open"), terrain("F3", "grain"), terrain("G3", "grain"))
    reply = await table.send("fire", {"firers": "G3", "target": "H2", "dice": "3 3 4 4"})
    drms = fields(reply.embeds[0])["DRMs [A7.3]"]
    assert ("hindrance read on the map: F3 Grain (in season) +1, G3 Grain (in season) +1  +2  (=2)  [A6.7]"
            in drms), drms
    text = trail_text(reply.embeds[0])
    assert "F3: Grain (in season) -> hindrance +1  [B.6]" in text and "G3: Grain (in season) -> hindrance +1" in text
    # a typed hindrance is taken as typed, and the map's reading shown beside it
    reply = await table.send("fire", {"firers": "G4", "target": "H2", "hindrance": 1, "dice": "3 3 4 4"})
    assert ("hindrance, 1 hex(es), typed by the players (the map reads +2)  +1"
            in fields(reply.embeds[0])["DRMs [A7.3]"])


async def test_a_hex_of_unknown_terrain_is_named_unknown_never_open(table):
    await village(table, terrain("E4", "open"), terrain("G3", "open"))  # F3 never set
    reply = await table.send("fire", {"firers": "G3", "target": "H2", "dice": "3 3 4 4"})
    text = trail_text(reply.embeds[0])
    assert "F3: terrain unknown -> unknown  [A6.1]" in text
    assert "read on the map: clear; terrain unknown in F3 (not read as open: check them)" in text


async def test_an_old_log_with_a_typed_range_replays_and_verifies_as_played(table, monkeypatch):
    # a game created before the map counted ranges: its creation carries no "grid" option
    with monkeypatch.context() as patch:
        patch.setattr(AslRuleset, "grid", None)
        await village(table)
    assert "grid" not in (await table.game()).options
    # the typed range 1 is taken as it was then (Point Blank Fire), the line of sight not read
    reply = await table.send("fire", {"firers": "G3", "target": "H2", "range": 1, "dice": "3 3 4 4"})
    text = trail_text(reply.embeds[0])
    assert "point blank fire  x2" in text and "counted on the map" not in text and "Line of sight" not in text
    verified = await table.send("log verify")
    assert verified.message.embeds[0]["title"] == "The log checks out"


async def test_a_new_log_with_counted_ranges_verifies(table):
    await village(table, terrain("F3", "grain"))
    await table.send("fire", {"firers": "G3", "target": "H2", "dice": "3 3 4 4"})
    verified = await table.send("log verify")
    assert verified.message.embeds[0]["title"] == "The log checks out"


async def test_nhis_counts_its_four_digit_hexes_adjacency_and_blocking_terrain(table):
    await start_game(table, "nhis", ["US", "Japan"], [
        unit("U1", 0, "0303", "us-rifle-squad"), unit("J1", 1, "0304", "jp-rifle-squad"),
        unit("J2", 1, "0405", "jp-rifle-squad"), terrain("0304", "open"), terrain("0404", "trees"),
        terrain("0405", "open")], phase="Operations")
    refused = await table.refused("fire", {"firers": "U1", "target": "0304", "range": 2})
    assert refused.startswith("range 2 was typed, but the map counts 1 from 0303 to 0304")
    reply = await table.send("fire", {"firers": "U1", "target": "0304", "dice": "3 4 5"})
    text = trail_text(reply.embeds[0])
    assert "range 1 (0303 to 0304), counted on the map  [NHiS Fire, seed 001 (assumed)]" in text
    assert "Target in an adjacent hex  +3" in text  # adjacency follows the counted range
    los = await table.send("los", {"from": "0303", "to": "0405"})
    assert los.embeds[0]["title"] == "Line of sight 0303 to 0405, range 3: blocked"
    assert fields(los.embeds[0])["Read on the map"].startswith("blocked by 0404 (Trees)")
