"""The NHiS map: hexes numbered CCRR (``0304``: column 03, row 04), and what a hex's terrain does to
a line of sight (the Terrain Chart's LOS column, seed 001)."""

from __future__ import annotations

from ...game import Location
from ...grid import HexGrid
from ...sight import SightTerrain
from . import tables

# The seed gives no range count and no LOS procedure: assumed, as Lock 'n Load and ASL players count
# them: range in hexes, the target's hex counted and the firer's not; the line from hex centre to hex
# centre, blocked by a hex whose terrain blocks LOS (the Terrain Chart); along a hexside blocked only when
# both sides block; a hex touched at a vertex only read as open. The even-numbered columns sit half a hex
# lower (assumed: the usual numbering of such maps).
NHIS_GRID = HexGrid(
    ids="digits",
    title="NHiS map hexes numbered CCRR (0304: column 03, row 04)",
    example="0304",
    range_rule="NHiS Fire, seed 001 (assumed)",
    line_rule="NHiS Terrain Chart, seed 001 (assumed: hex centre to hex centre)",
    hexside_rule="assumed: blocked only when both sides block",
    vertex_rule="assumed",
    hindrance_rule="NHiS Terrain Chart, seed 001",
)


def sight_terrain(location: Location) -> SightTerrain:
    """A known hex's terrain as the Terrain Chart's LOS column reads it (data/nhis/terrain.yaml)."""
    terrain = tables.terrain(location.terrain)
    return SightTerrain(name=terrain.name, blocks=terrain.blocks_los, hindrance=0,
                        rule=tables.terrain_file().rule)
