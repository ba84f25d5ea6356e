"""The board knows its hexes (issue 26), end to end through the real client and the loopback Discord:
the range counted on the map (a typed range that differs refused with both numbers), /los with its
hexes and its picture, and the line of sight a /fire reads (game option los: advise, strict)."""

from __future__ import annotations

from bot.core.grid import placer
from bot.core.rulesets import get_ruleset
from bot.pictures import hex_layout
from bot.pictures.battlefield import SIGHT_RGB
from tests.cogs.helpers import fields, last_entry, start_game, terrain, unit
from tests.test_map import decode

GRID = get_ruleset("asl").grid


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
    # the line's pixels: its two ends are the centres of D4 and H2 as the map lays them out
    game = await table.game()
    in_play = list(game.locations) + [u.location for u in game.units.values()] + ["D4", "H2", "E4", "F3", "G3"]
    centres = hex_layout(in_play, placer(GRID, game)).centres
    width, height = image.size
    pixels = image.load()
    line = [(x, y) for x in range(width) for y in range(height) if pixels[x, y] == SIGHT_RGB]
    assert line, "no pixel of the line of sight"
    left, right = min(line), max(line)
    (dx, dy), (hx, hy) = centres["D4"], centres["H2"]
    assert abs(left[0] - (dx - 6)) <= 2 and abs(left[1] - dy) <= 8  # the dot at D4's centre
    assert abs(right[0] - (hx + 6)) <= 2 and abs(right[1] - hy) <= 8  # and at H2's
