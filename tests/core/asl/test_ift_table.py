"""The Infantry Fire Table (A7.3) and the terrain data, checked against the rules digest."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.core.errors import InvalidOrder
from bot.core.rulesets.asl import tables

COLUMNS = [1, 2, 4, 6, 8, 12, 16, 20, 24, 30, 36]
# The digest's table, typed in again here (not read from the data file) so a wrong cell in
# data/asl/ift.yaml fails this test. Row 0 is "0 or less", row 15 is "15 or more".
DIGEST = """
0  1KIA 2KIA 2KIA 3KIA 3KIA 3KIA 4KIA 4KIA 5KIA 6KIA 7KIA
1  K/1  1KIA 1KIA 2KIA 2KIA 2KIA 3KIA 3KIA 4KIA 5KIA 6KIA
2  1MC  K/1  K/2  1KIA 1KIA 1KIA 2KIA 2KIA 3KIA 4KIA 5KIA
3  1MC  1MC  2MC  K/2  K/2  K/3  1KIA 1KIA 2KIA 3KIA 4KIA
4  NMC  1MC  1MC  2MC  2MC  3MC  K/3  K/4  1KIA 2KIA 3KIA
5  PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC  K/4  1KIA 2KIA
6  -    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC  K/4  1KIA
7  -    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC  K/4
8  -    -    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC  4MC
9  -    -    -    -    PTC  NMC  1MC  1MC  2MC  2MC  3MC
10 -    -    -    -    -    PTC  NMC  1MC  1MC  2MC  2MC
11 -    -    -    -    -    -    PTC  NMC  1MC  1MC  2MC
12 -    -    -    -    -    -    -    PTC  NMC  1MC  1MC
13 -    -    -    -    -    -    -    -    PTC  NMC  1MC
14 -    -    -    -    -    -    -    -    -    PTC  NMC
15 -    -    -    -    -    -    -    -    -    -    PTC
"""
GRID = {int(row[0]): row[1:] for row in (line.split() for line in DIGEST.strip().splitlines())}
CELLS = [(dr, i, GRID[dr][i]) for dr in range(16) for i in range(len(COLUMNS))]


def test_the_ift_has_eleven_columns_and_sixteen_rows():
    table = tables.ift()
    assert list(table.columns) == COLUMNS
    assert sorted(table.rows) == list(range(16))
    assert len(CELLS) == 176


@pytest.mark.parametrize("dr,index,expected", CELLS, ids=[f"DR{d}-col{COLUMNS[i]}" for d, i, _ in CELLS])
def test_ift_cell_matches_the_digest(dr, index, expected):
    assert tables.ift().read(index, dr) == expected


def test_final_dr_below_zero_reads_row_zero():
    assert tables.ift().read(0, -3) == "1KIA"
    assert tables.ift().read(10, -1) == "7KIA"


def test_final_dr_above_fifteen_reads_nothing():
    assert tables.ift().read(10, 16) == "-"
    assert tables.ift().read(10, 15) == "PTC"


@pytest.mark.parametrize("fp,column", [(0.5, None), (1, 1), (1.5, 1), (3.5, 2), (7.99, 6), (8, 8),
                                       (15, 12), (29, 24), (36, 36), (80, 36)])
def test_column_is_the_largest_not_above_the_fp_a7_2(fp, column):
    index = tables.ift().column_index(fp)
    assert (None if index is None else COLUMNS[index]) == column


def test_last_column_is_read_as_36_plus():
    assert tables.ift().label(10) == "36+"
    assert tables.ift().label(4) == "8"


def test_ift_data_rejects_a_short_row():
    data = tables.ift().model_dump()
    data["rows"][3] = data["rows"][3][:-1]
    with pytest.raises(ValidationError, match="row 3"):
        tables.IftTable.model_validate(data)


def test_ift_data_rejects_an_unknown_result():
    data = tables.ift().model_dump()
    data["rows"][7] = ("8MC",) + tuple(data["rows"][7][1:])
    with pytest.raises(ValidationError, match="unknown result"):
        tables.IftTable.model_validate(data)


# --- a property: more FP or a lower DR is never worse for the firer ---------------------------
# Strength of a result for the firer: nothing < a Pin Task Check < a Normal MC < a +1..+7 MC
# (each +n makes the check harder to pass) < K/n (a sure Casualty Reduction plus an nMC, so worse
# for the target than any plain MC, and K/n worse with n) < nKIA (n units eliminated and the rest
# broken, which no K/n result can do).
def strength(result: str) -> int:
    if result == "-":
        return 0
    if result == "PTC":
        return 1
    if result == "NMC":
        return 2
    if result.endswith("KIA"):
        return 30 + int(result[:-3])
    if result.startswith("K/"):
        return 20 + int(result[2:])
    return 2 + int(result[:-2])  # nMC


@given(st.integers(min_value=0, max_value=9), st.integers(min_value=-2, max_value=17))
def test_a_higher_fp_column_is_never_weaker(index, dr):
    table = tables.ift()
    assert strength(table.read(index + 1, dr)) >= strength(table.read(index, dr))


@given(st.integers(min_value=0, max_value=10), st.integers(min_value=-2, max_value=17))
def test_a_lower_final_dr_is_never_weaker(index, dr):
    table = tables.ift()
    assert strength(table.read(index, dr - 1)) >= strength(table.read(index, dr))


# --- terrain -------------------------------------------------------------------------------------

@pytest.mark.parametrize("key,tem", [("open", 0), ("woods", 1), ("wooden building", 2), ("stone building", 3)])
def test_digest_tem_values(key, tem):
    assert tables.terrain(key).tem == tem


def test_open_ground_counts_for_ffmo_and_cover_does_not():
    assert tables.terrain("open").open_ground
    assert not tables.terrain("woods").open_ground


@pytest.mark.parametrize("key", ["woods", "wooden building", "stone building", "pillbox", "trench"])
def test_rally_terrain_of_a10_61(key):
    assert tables.terrain(key).rally_bonus


def test_terrain_keys_are_lowercase_and_looked_up_case_blind():
    assert all(k == k.lower() for k in tables.terrains())
    assert tables.terrain("Stone Building").tem == 3


def test_every_terrain_beyond_the_digest_says_what_was_assumed():
    digest = {"open", "woods", "wooden building", "stone building"}
    missing = [k for k, t in tables.terrains().items() if k not in digest and not t.assumed]
    assert missing == []


def test_unknown_terrain_names_the_known_ones():
    with pytest.raises(InvalidOrder, match="unknown ASL terrain 'swamp'.*woods"):
        tables.terrain("swamp")


def test_the_ruleset_offers_the_terrain_table():
    from bot.core.rulesets import get_ruleset

    assert get_ruleset("asl").terrains()["grain"].hindrance == 1
