"""The NHiS Fire Table (seed 001): every cell as the digest prints it, and its order."""

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.core.outcome import TableCell
from bot.core.rulesets.nhis import tables

from .conftest import fire, nhis_game

# The digest's grid, written out again by hand: FP column -> results for 2d6 = 2 .. 11.
EXPECTED = {
    20: "D-3 D-3 D-2 D-2 D-2 D-2 D D Hit-1 Hit",
    16: "D-3 D-3 D-2 D-2 D-2 D D D Hit-1 Hit",
    12: "D-3 D-2 D-2 D-2 D D D Hit-1 Hit Hit",
    10: "D-2 D-2 D-2 D D D Hit-1 Hit Hit -",
    8: "D-2 D-2 D D D Hit-1 Hit Hit - -",
    6: "D-2 D D D Hit-1 Hit Hit - - -",
    4: "D D D Hit-1 Hit Hit - - - -",
    2: "D D Hit-1 Hit Hit - - - - -",
    0: "D Hit-1 Hit Hit - - - - - -",
}
NAMES = {"-": "no effect", "D": "Damaged", "D-2": "Damaged-2", "D-3": "Damaged-3"}
CELLS = [(fp, roll, result) for fp, line in EXPECTED.items()
         for roll, result in zip(range(2, 12), line.split())]


def test_the_grid_has_90_cells():
    assert len(CELLS) == 90


@pytest.mark.parametrize("column,roll,result", CELLS, ids=[f"FP{c}-roll{r}" for c, r, _ in CELLS])
def test_fire_table_cell(column, roll, result):
    # FP column+1 against a foxhole in open ground (cover 1, no column shift) lands on the column
    game = (nhis_game().hex("A1").hex("C1", "open", "foxhole")
            .squad("U1", 0, "A1", fp=column + 1).squad("J1", 1, "C1", morale=6).game)
    first = min(roll - 1, 6)
    res = fire(game, [first, roll - first, 1], firers=["U1"], target="C1", range=2)
    assert res.outcome.cells == (TableCell(table="NHiS Fire Table", column=str(column), row=str(roll),
                                           result=NAMES.get(result, result), rule="NHiS Fire Table (seed 001)"),)
    assert res.outcome.headline.endswith(f"-> {NAMES.get(result, result)}")


def test_a_roll_of_12_has_no_effect_even_at_20_fp():
    game = nhis_game().squad("U1", 0, "A1", fp=21).squad("J1", 1, "C1").game
    res = fire(game, [6, 6], firers=["U1"], target="C1", range=2)
    assert res.outcome.cells[0].result == "no effect"
    assert "Column 20, roll 12: 12: no effect" in [s.label for s in res.outcome.trail]
    assert res.game.units["J1"] == game.units["J1"]


def test_fp_above_20_reads_the_20_column():
    game = nhis_game().squad("U1", 0, "A1", fp=30).squad("J1", 1, "C1").game
    res = fire(game, [5, 5, 1], firers=["U1"], target="C1", range=2)
    assert res.outcome.cells[0].column == "20" and res.outcome.cells[0].result == "Hit-1"


# Results ordered by strength for the firer (data/nhis/fire_table.yaml, "strength"):
# no effect < Hit < Hit-1 (a harder check) < Damaged (a sure step loss and shaking) < D-2 < D-3.
column_indexes = st.integers(min_value=0, max_value=8)
rolls = st.integers(min_value=2, max_value=12)


@given(column_indexes, column_indexes, rolls, rolls)
def test_the_table_never_weakens_as_the_column_rises_or_the_roll_falls(c1, c2, r1, r2):
    table = tables.fire_table()
    low_col, high_col = sorted((c1, c2))
    low_roll, high_roll = sorted((r1, r2))
    assert table.rank(table.read(low_col, high_roll)) <= table.rank(table.read(high_col, low_roll))


def test_the_strength_order_is_the_one_written_down():
    assert tables.fire_table().strength == ("-", "Hit", "Hit-1", "D", "D-2", "D-3")


def test_an_unknown_key_in_the_fire_table_file_is_refused():
    data = yaml.safe_load((tables.DATA_DIR / "fire_table.yaml").read_text())
    data["modifiers"]["smoke"] = -1
    with pytest.raises(ValidationError, match="smoke"):
        tables.FireTable.model_validate(data)


def test_a_misread_cell_in_the_fire_table_file_is_refused():
    data = yaml.safe_load((tables.DATA_DIR / "fire_table.yaml").read_text())
    data["cells"][4][0] = "Damagd"
    with pytest.raises(ValidationError, match="unknown result"):
        tables.FireTable.model_validate(data)
