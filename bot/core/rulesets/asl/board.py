"""The ASL map: geomorphic boards of hexes, and what a Location's terrain does to a line of sight.

An ASL geomorphic board has 33 columns, A..Z then AA..GG, and 10 rows: columns A, C, E... (and GG)
hold hexes 1..10, columns B, D, F... half a hex lower hold 0..10, their 0 and 10 half-hexes on the
board's long edges; columns A and GG are half-hexes on its short edges, so that two boards side by side
share one column (the GG of the left board is the A of the right one) and two boards one above the
other share the half-hex row (B10 of the upper board is B0 of the lower one). A scenario lays its
boards out (``boards:`` of a scenario file: board id, place, reversed), and the hexes are then named
with their board, ``32C5``.
"""

from __future__ import annotations

from ...game import Location
from ...grid import BoardSize, HexGrid
from ...sight import SightTerrain
from . import tables

GEOMORPHIC = BoardSize(columns=33, rows=10, rule="ASL geomorphic board (A..GG, rows 1..10)")

# Range (A7.2) is counted in hexes, the target's hex counted and the firer's not (assumed: the count
# every ASL player makes; the digest gives no wording). The line of sight (A6.1) runs from the centre
# of the firer's hex to the centre of the target's; a line exactly along a hexside is blocked only by an
# obstacle on both sides of it, while inherent terrain (B.6: grain, brush, orchard...) on either side
# hinders it; a line through a vertex only touches the hexes beside it (assumed: read as open there).
ASL_GRID = HexGrid(
    ids="letters",
    title="ASL geomorphic board hexes (columns A..GG, rows 1..10; with several boards laid out, the board's id "
          "first: 32C5)",
    example="C5",
    range_rule="A7.2 (assumed)",
    line_rule="A6.1",
    hexside_rule="A6.1, B.6",
    vertex_rule="A6.1 (assumed)",
    hindrance_rule="A6.7",
    board=GEOMORPHIC,
)


def sight_terrain(location: Location) -> SightTerrain:
    """What a known hex does to a line of sight that crosses it (data/asl/terrain.yaml)."""
    terrain = tables.terrain(location.terrain)
    return SightTerrain(name=terrain.name, blocks=terrain.blocks_los, hindrance=terrain.hindrance,
                        rule=tables.terrain_rule(), inherent=terrain.hindrance > 0)
