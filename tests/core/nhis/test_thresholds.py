"""NHiS thresholds at, one below and one above (issue 28 item 9): the Fire Table column a Final FP
reads (the largest column not above it; below 0 no effect), the roll at which each result changes,
the Hit morale check (1d6 + n <= morale passes) and rally (1d6 <= morale).

Every number is from data/nhis/fire_table.yaml (seed 001's Fire Table) and data/nhis/rules.yaml.
The shot: squad U1 fires at squad J1 in open ground at range 2; dice after the 2d6 feed the checks.
"""

import pytest

from .conftest import act, fire, nhis_game, step

TABLE = "NHiS Fire Table (seed 001)"
HIT = "NHiS Hit result (seed 001)"
RALLY = "NHiS Rally Phase 8.2 (assumed)"
CHECK_DICE = [1] * 6  # every check after the shot passes


def shot(fp, terrain="open"):
    return nhis_game().hex("C1", terrain).squad("U1", 0, "A1", fp=fp).squad("J1", 1, "C1").game


def tables_of(res):
    return [(s.label, s.value, s.rule) for s in res.outcome.trail if s.kind == "table"]


# --- columns by Final FP: 0 2 4 6 8 10 12 16 20 --------------------------------------------------

EDGES = [(1, 0), (2, 2), (3, 2), (4, 4), (5, 4), (6, 6), (7, 6), (8, 8), (9, 8), (10, 10), (11, 10), (12, 12),
         (15, 12), (16, 16), (19, 16), (20, 20), (21, 20)]


@pytest.mark.parametrize(("fp", "column"), EDGES, ids=[f"{fp}FP" for fp, _ in EDGES])
def test_each_fire_table_column_edge_read_through_a_fire_order(fp, column):
    res = fire(shot(fp), [6, 6], firers=["U1"], target="C1", range=2)
    assert (step(res, "Final FP").value, step(res, "Final FP").rule) == (fp, "NHiS DRM list (seed 001)")
    assert tables_of(res)[0] == (f"FP {fp} -> column {column}", column, TABLE)


def test_a_final_fp_below_0_has_no_effect_and_no_dice_are_rolled():
    # 1 FP minus the Cover Factor of trees, 2 (data/nhis/terrain.yaml): -1; 1 FP in the open reads the
    # 0 column (EDGES above).
    res = fire(shot(1, "trees"), [2, 3], firers=["U1"], target="C1", range=2)
    assert step(res, "Final FP").value == -1
    assert tables_of(res) == [("FP -1 is below the 0 column: no effect", "no effect", TABLE)]
    assert [s for s in res.outcome.trail if s.kind == "dice"] == []
    assert res.outcome.headline == "-1 FP: below the Fire Table, no effect"


# --- the roll at which each result changes (column 4: D 2-4, Hit-1 5, Hit 6-7, - 8-11; 12 none) ---

DICE = {2: [1, 1], 3: [1, 2], 4: [1, 3], 5: [2, 3], 6: [3, 3], 7: [3, 4], 8: [4, 4], 9: [4, 5], 10: [4, 6],
        11: [5, 6], 12: [6, 6]}
NAMES = {"D": "Damaged", "D-2": "Damaged-2", "-": "no effect"}
VALUES = {"-": "no effect", "D": "Damaged", "D-2": "Damaged-2"}
ROWS = [(4, 4, "D"), (4, 5, "Hit-1"), (4, 6, "Hit"), (4, 7, "Hit"), (4, 8, "-"),
        (20, 7, "D-2"), (20, 8, "D"), (20, 9, "D"), (20, 10, "Hit-1"), (20, 11, "Hit"), (20, 12, "-"),
        (0, 2, "D"), (0, 3, "Hit-1"), (0, 5, "Hit"), (0, 6, "-")]


@pytest.mark.parametrize(("column", "roll", "result"), ROWS, ids=[f"col{c}-roll{r}" for c, r, _ in ROWS])
def test_the_result_changes_at_each_roll_edge_of_the_fire_table(column, roll, result):
    fp = column or 1
    res = fire(shot(fp), [*DICE[roll], *CHECK_DICE], firers=["U1"], target="C1", range=2)
    label, value, rule = tables_of(res)[1]
    name = ("12: " if roll == 12 else "") + NAMES.get(result, result)  # a 12 never has an effect
    assert (label, rule) == (f"Column {column}, roll {roll}: {name}", TABLE)
    assert value == VALUES.get(result, result)
    after = [s.label for s in res.outcome.trail if s.kind == "section"][1:]  # a morale check or damage
    assert bool(after) == (result != "-")


# --- the Hit morale check: 1d6 + n <= morale passes ------------------------------------------

@pytest.mark.parametrize(("die", "word"), [(3, "passes"), (4, "passes"), (5, "fails")],
                         ids=["one-below", "at-morale", "one-above"])
def test_a_hit_1_check_passes_at_its_morale_and_fails_one_above(die, word):
    game = nhis_game().squad("J1", 1, "C1", morale=5).game
    res = act(game, [die], {"action": "morale", "unit": "J1", "hit": 1})
    check = [(s.label, s.value, s.rule) for s in res.outcome.trail if s.kind == "check"]
    assert check == [(f"{die + 1} vs 5: {word}", "pass" if word == "passes" else "fail", HIT)]
    assert res.game.units["J1"].shaken == (word == "fails")


# --- rally: 1d6 <= morale ----------------------------------------------------------------------

@pytest.mark.parametrize(("die", "rallies"), [(4, True), (5, True), (6, False)],
                         ids=["one-below", "at-morale", "one-above"])
def test_rally_succeeds_at_its_morale_and_fails_one_above(die, rallies):
    game = nhis_game(phase="Rally").squad("U1", 0, "A1", morale=5, shaken=True).game
    res = act(game, [die], {"action": "rally", "unit": "U1"})
    check = [(s.label, s.rule) for s in res.outcome.trail if s.kind == "check"]
    assert check == [(f"{die} vs 5: {'rallies' if rallies else 'stays Shaken'}", RALLY)]
    assert res.game.units["U1"].shaken != rallies
