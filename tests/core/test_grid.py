"""The map's grid (bot/core/grid.py): ids to positions, the range between hexes, several ASL boards,
and the line of sight's hexes (bot/core/sight.py). Property tests with hypothesis, and distances
counted by hand on an ASL board and on an NHiS map."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.api import new_game
from bot.core.errors import InvalidOrder
from bot.core.game import BoardPlacement
from bot.core.grid import centre, column_name, distance, letters_cell, neighbours
from bot.core.options import check_options
from bot.core.rulesets import get_ruleset
from bot.core.sight import crossed, read_sight

ASL = get_ruleset("asl").grid
NHIS = get_ruleset("nhis").grid
cells = st.tuples(st.integers(0, 70), st.integers(0, 30))


@given(cells, cells)
def test_range_is_symmetric(a, b):
    assert distance(a, b) == distance(b, a)


@given(cells, cells)
def test_range_is_zero_only_for_the_same_hex(a, b):
    assert (distance(a, b) == 0) == (a == b)


@given(cells, cells, cells)
def test_range_keeps_the_triangle_inequality(a, b, c):
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(cells)
def test_the_six_neighbours_are_at_range_1_and_touch(a):
    for n in neighbours(a):
        assert distance(a, n) == 1
        (x0, y0), (x1, y1) = centre(a), centre(n)
        assert abs(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 - 3 ** 0.5) < 1e-9  # centres one hex apart


def asl(a: str, b: str, boards=()) -> int:
    return distance(ASL.cell(a, boards), ASL.cell(b, boards))


@pytest.mark.parametrize(("a", "b", "hexes"), [
    ("D4", "H2", 4),  # the fire: along the hex row D4 E4 F3 G3 H2
    ("D4", "D4", 0),
    ("A1", "B1", 1), ("A1", "B0", 1), ("A1", "B2", 2),  # column B half a hex lower than A
    ("B1", "C1", 1), ("B1", "C2", 1), ("B1", "C0", 2),  # and C half a hex higher than B
    ("A4", "B5", 2), ("A4", "A1", 3), ("A1", "E3", 4), ("A1", "E1", 4), ("A1", "E5", 6), ("A1", "E6", 7),
    ("C5", "GG5", 30), ("A1", "GG10", 32),
])
def test_hand_counted_ranges_on_an_asl_board(a, b, hexes):
    assert asl(a, b) == hexes


def test_two_asl_boards_side_by_side_share_a_column():
    boards = [BoardPlacement(id="32", x=0), BoardPlacement(id="33", x=1)]
    assert ASL.cell("32GG5", boards) == ASL.cell("33A5", boards)  # one hex of two half-hexes
    assert asl("32GG5", "33B5", boards) == 1
    assert asl("32EE5", "33C5", boards) == 4  # EE FF GG=A B C
    assert asl("32C5", "33C5", boards) == 32
    assert ASL.cell("C5", boards) is None  # with two boards a hex names its board
    assert ASL.name(ASL.cell("33C5", boards), boards) == "33C5"
    assert ASL.name(ASL.cell("32GG5", boards), boards) in ("32GG5", "33A5")


def test_two_asl_boards_one_above_the_other_share_the_half_hex_row():
    boards = [BoardPlacement(id="1", y=0), BoardPlacement(id="2", y=1)]
    assert ASL.cell("1B10", boards) == ASL.cell("2B0", boards)
    assert asl("1A10", "2A1", boards) == 1
    assert asl("1C5", "2C5", boards) == 10


def test_a_reversed_board_is_turned_round():
    boards = [BoardPlacement(id="32", reversed=True)]
    assert ASL.cell("A1", boards) == ASL.cell("32A1", boards) == (32, 10)  # its A1 at the bottom right
    assert ASL.cell("B0", boards) == (31, 10) and ASL.cell("B10", boards) == (31, 0)
    assert asl("A1", "A10", boards) == asl("A1", "A10") == 9
    assert ASL.name((32, 10), boards) == "A1"


def test_a_one_board_layout_keeps_short_ids_and_refuses_hexes_off_the_board():
    boards = [BoardPlacement(id="32")]
    assert ASL.cell("C5", boards) == ASL.cell("32C5", boards) == (2, 5)
    assert ASL.cell("A0", boards) is None and ASL.cell("HH5", boards) is None and ASL.cell("C11", boards) is None


@pytest.mark.parametrize(("a", "b", "hexes"), [
    ("0101", "0201", 1), ("0101", "0202", 2), ("0201", "0301", 1), ("0201", "0302", 1),  # 02 half a hex lower
    ("0304", "0304", 0), ("0304", "0308", 4), ("0101", "0501", 4), ("0105", "0703", 6),
])
def test_hand_counted_ranges_on_an_nhis_map(a, b, hexes):
    assert distance(NHIS.cell(a), NHIS.cell(b)) == hexes


def test_each_ruleset_reads_its_own_ids():
    assert ASL.cell("0304") is None and NHIS.cell("C5") is None and ASL.cell("Farm") is None
    assert letters_cell("AA10") == (26, 10) and column_name(32) == "GG"
    assert NHIS.cell("0304") == (2, 4) and NHIS.name((2, 4)) == "0304"


def names(a: str, b: str) -> list[str]:
    return [("vertex " if step.vertex else "") + "/".join(ASL.name(c) for c in step.cells)
            for step in crossed(ASL.cell(a), ASL.cell(b))]


def test_the_line_crosses_the_hexes_between_centre_and_centre():
    assert names("D4", "H2") == ["E4", "F3", "G3"]
    assert names("A1", "A5") == ["A2", "A3", "A4"]
    assert names("D4", "E4") == [] and names("D4", "D4") == []


def test_a_line_along_a_hexside_names_both_hexes():
    assert names("A4", "B5") == ["A5/B4"]  # the hexside between A5 and B4
    assert names("A1", "C1") == ["B0/B1"]
    assert names("A2", "G2") == ["B1/B2", "C2", "D1/D2", "E2", "F1/F2"]  # along row 2's hexsides


def test_a_line_through_a_vertex_crosses_neither_hex_beside_it():
    # A1 (0, 1.0) to B5 (1.5, 5.5) in hex widths and heights: at x = 0.5 the line is at y = 2.5, the corner
    # where A2, A3 and B2 meet; B2 is touched there only (so is A4 further on)
    assert names("A1", "B5") == ["A2", "vertex B2", "A3", "B3", "vertex A4", "B4"]


@settings(max_examples=200)
@given(st.tuples(st.integers(2, 30), st.integers(2, 20)), st.tuples(st.integers(2, 30), st.integers(2, 20)))
def test_the_line_is_a_chain_of_touching_hexes_from_one_end_to_the_other(a, b):
    steps = [step for step in crossed(a, b) if not step.vertex]
    flat = [c for step in steps for c in step.cells]
    assert a not in flat and b not in flat
    assert len(set(flat)) == len(flat)
    assert all(len(step.cells) in (1, 2) for step in steps)
    # every step is within reach of the one before: the line never jumps a hex
    path = [(a,), *(step.cells for step in steps), (b,)]
    for before, after in zip(path, path[1:]):
        assert any(distance(x, y) <= 1 for x in before for y in after)
    # a straight line crosses at least range - 1 steps, and each step's hexes lie between the ends
    assert len(steps) >= distance(a, b) - 1
    for cell in flat:
        assert distance(a, cell) + distance(cell, b) <= distance(a, b) + 1


def sight(terrain: dict[str, str], a: str, b: str):
    game = new_game("asl", sides=["Germans", "Russians"])
    for location, kind in terrain.items():
        game.locations[location] = get_ruleset(game.ruleset).new_location(id=location, terrain=kind)
    ruleset = get_ruleset("asl")
    return read_sight(ruleset.grid, ruleset.sight_terrain, game, a, b)


def test_a_line_along_a_hexside_is_blocked_only_when_both_sides_block_a6_1():
    assert sight({"A5": "woods", "B4": "woods"}, "A4", "B5").verdict() == \
        "blocked by A5/B4 (Woods | Woods)"
    one = sight({"A5": "woods", "B4": "open"}, "A4", "B5")
    assert not one.blocked and one.verdict() == "clear"
    grain = sight({"A5": "grain", "B4": "open"}, "A4", "B5")  # inherent terrain on one side hinders (B.6)
    assert grain.hindrance == 1 and grain.hexes() == ["A5/B4"]


def test_a_hex_touched_at_a_vertex_neither_blocks_nor_is_listed_as_crossed():
    line = sight({"A2": "open", "B2": "woods", "A3": "open", "B3": "open", "A4": "woods", "B4": "open"}, "A1", "B5")
    assert not line.blocked and line.hexes() == ["A2", "A3", "B3", "B4"]
    assert ("through a vertex of B2: not crossed, not read", "A6.1 (assumed)") in line.lines()


def test_the_game_master_cannot_set_the_internal_grid_mark():
    with pytest.raises(InvalidOrder) as refused:
        check_options(get_ruleset("asl"), {"grid": 0}, "full")
    assert refused.value.message.startswith("grid is kept by the bot itself, not set by hand")
    assert check_options(get_ruleset("nhis"), {"typed_range": "trust", "los": "strict"}, None) == \
        {"typed_range": "trust", "los": "strict"}
