"""ASL thresholds at, one below and one above (issue 28 item 9): the IFT's FP columns (A7.2), its
result rows (A7.3), point blank fire (A7.21), the Morale Check (A10.1) and its pin on an equal
Final DR after an IFT attack (A7.8), the Original 12 (A10.31), rally (A10.6), the leadership DRM
(A10.7) and the Original 2 of Heat of Battle (A15).

Every number is from data/asl/ift.yaml (the digest's IFT, /work/shared/rules/asl.md) or
data/asl/morale.yaml. Dice avoid doubles (cowering, A7.9) unless a test says otherwise; dice after
the attack's DR feed the target's Morale Check (1+2: an Original 3, which a 7-morale unit passes).
"""

import pytest

from bot.core.api import resolve
from bot.core.dice import ScriptedDice

from .conftest import AslBuilder, run, steps

MC_DICE = [1, 2] * 4  # the target's checks after the attack, if any


def shot(fp, *, normal=6):
    return AslBuilder(phase="PFPh").squad("A1", 0, "A4", fp=fp, range=normal).squad("R1", 1, "C5").game


def column_step(out):
    found = [(value, total, rule) for label, value, total, rule in steps(out) if label == "IFT column"]
    assert all(rule == "A7.2" for _, _, rule in found)
    return [(value, total) for value, total, _ in found]


def table_step(out):
    return [(label, value, rule) for label, value, _, rule in steps(out, "table") if label != "IFT column"]


# --- FP columns (A7.2): the column is the largest not above the FP -------------------------------

COLUMN_EDGES = [(1, "1"), (2, "2"), (3, "2"), (4, "4"), (5, "4"), (6, "6"), (7, "6"), (8, "8"), (11, "8"),
                (12, "12"), (15, "12"), (16, "16"), (19, "16"), (20, "20"), (23, "20"), (24, "24"), (29, "24"),
                (30, "30"), (35, "30"), (36, "36+"), (37, "36+")]


@pytest.mark.parametrize(("fp", "column"), COLUMN_EDGES, ids=[f"{fp}FP" for fp, _ in COLUMN_EDGES])
def test_each_ift_column_edge_read_through_a_fire_order_a7_2(fp, column):
    out = run(shot(fp), [5, 6, *MC_DICE], firers=["A1"], target="C5", range=2).outcome
    assert column_step(out) == [(column, fp)]
    assert steps(out, "base")[0] == ("4-6-7 A1 FP", fp, None, "A7.2")
    assert table_step(out)[0][0] == f"IFT {column} column, Final DR 11"


# Long range halves (A7.22) and the fraction is kept until the total (A7.2): 3.5 FP is still the
# 2 column, 4 the 4 column, 4.5 the 4 column, 5.5 the 4 column, 6 the 6 column.
HALVED = [(3, 1.5, "1"), (7, 3.5, "2"), (8, 4, "4"), (9, 4.5, "4"), (11, 5.5, "4"), (12, 6, "6"),
          (15, 7.5, "6"), (16, 8, "8")]


@pytest.mark.parametrize(("fp", "half", "column"), HALVED, ids=[f"{fp}FP-halved" for fp, _, _ in HALVED])
def test_fractional_fp_after_halving_reads_the_column_below_a7_2_a7_22(fp, half, column):
    out = run(shot(fp), [5, 6, *MC_DICE], firers=["A1"], target="C5", range=7).outcome
    assert steps(out, "multiplier") == [("4-6-7 A1: long range", "x1/2", half, "A7.22")]
    assert ("Total FP (fractions kept until the total)", half, None, "A7.2") in steps(out)
    assert column_step(out) == [(column, half)]


def test_half_a_fp_is_under_the_1_column_no_attack_a7_2():
    out = run(shot(1), [5, 6], firers=["A1"], target="C5", range=7).outcome
    assert column_step(out) == []
    assert ("under 1 FP: no attack, but the firers have fired", None, None, "A7.2") in steps(out)
    assert table_step(out) == []


# --- IFT result rows (A7.3): the Final DR at which the result changes ---------------------------

DICE = {3: [1, 2], 4: [1, 3], 5: [1, 4], 6: [2, 4], 7: [3, 4], 8: [3, 5], 9: [4, 5], 10: [4, 6], 11: [5, 6]}
# (FP, Final DR, result) on each side of each change of the 4 and 36+ columns and the 12 column's K/3.
ROWS = [(4, 3, "2MC"), (4, 4, "1MC"), (4, 5, "1MC"), (4, 6, "NMC"), (4, 7, "PTC"), (4, 8, "-"),
        (12, 3, "K/3"), (12, 4, "3MC"),
        (36, 5, "2KIA"), (36, 6, "1KIA"), (36, 7, "K/4"), (36, 8, "4MC"), (36, 10, "2MC"), (36, 11, "2MC")]


@pytest.mark.parametrize(("fp", "final", "result"), ROWS, ids=[f"{fp}FP-DR{d}" for fp, d, _ in ROWS])
def test_the_ift_result_changes_at_each_row_edge_a7_3(fp, final, result):
    out = run(shot(fp), [*DICE[final], *MC_DICE], firers=["A1"], target="C5", range=2).outcome
    label = "36+" if fp == 36 else str(fp)
    assert table_step(out) == [(f"IFT {label} column, Final DR {final}", result, "A7.3")]
    if result == "-":
        assert ("no effect on the target", None, None, "A7.3") in steps(out)
    else:
        assert any(s[0].startswith(f"{result} ") for s in steps(out))


@pytest.mark.parametrize(("drm", "result"), [(5, "NMC"), (6, "PTC"), (7, "-")], ids=["DR14", "DR15", "DR16"])
def test_the_last_row_is_15_and_above_it_nothing_a7_3(drm, result):
    # DR 9 + an agreed DRM: 14 is the 36+ column's NMC, 15 its PTC, 16 off the table.
    out = run(shot(36), [4, 5, *MC_DICE], firers=["A1"], target="C5", range=2, drm=drm, drm_reason="test").outcome
    assert table_step(out) == [(f"IFT 36+ column, Final DR {9 + drm}", result, "A7.3")]


@pytest.mark.parametrize(("drm", "result"), [(-2, "6KIA"), (-3, "7KIA"), (-4, "7KIA")], ids=["DR1", "DR0", "DR-1"])
def test_a_final_dr_of_0_or_less_reads_row_0_a7_3(drm, result):
    out = run(shot(36), [1, 2], firers=["A1"], target="C5", range=2, drm=drm, drm_reason="test").outcome
    assert table_step(out) == [(f"IFT 36+ column, Final DR {3 + drm}", result, "A7.3")]


# --- point blank fire (A7.21): x3 at range 0, x2 at range 1, nothing at 2 --------------------------

@pytest.mark.parametrize(("distance", "multipliers", "total"), [
    (0, [("4-6-7 A1: triple point blank fire", "x3", 12, "A7.21")], 12),
    (1, [("4-6-7 A1: point blank fire", "x2", 8, "A7.21")], 8),
    (2, [], 4)], ids=["range0", "range1", "range2"])
def test_point_blank_fire_doubles_only_at_range_1_and_triples_at_0_a7_21(distance, multipliers, total):
    g = shot(4)
    if distance == 0:
        g.units["R1"].location = "A4"
    out = run(g, [5, 6, *MC_DICE], firers=["A1"], target="A4" if distance == 0 else "C5", range=distance).outcome
    assert steps(out, "multiplier") == multipliers
    assert column_step(out)[0][1] == total


# --- Morale Check (A10.1) ---------------------------------------------------------------------

def morale(game, dice, **order):
    return resolve(game, {"action": "morale", **order}, ScriptedDice(dice))


@pytest.mark.parametrize(("dice", "word"), [([2, 4], "passes"), ([3, 4], "passes"), ([3, 5], "fails")],
                         ids=["one-below", "at-morale", "one-above"])
def test_a_morale_check_passes_at_its_morale_and_fails_one_above_a10_1(dice, word):
    g = AslBuilder(phase="PFPh").squad("A1", 0, "B5", morale=7).game
    res = morale(g, dice, unit="A1", check="NMC")
    final = sum(dice)
    assert steps(res.outcome, "check") == [(f"Final DR {final} vs morale 7", word, final, "A10.1")]
    assert res.game.units["A1"].broken == (word == "fails")


@pytest.mark.parametrize(("dice", "pinned", "broken"), [([2, 4], False, False), ([3, 4], True, False),
                                                         ([3, 5], False, True)],
                         ids=["one-below", "at-morale", "one-above"])
def test_after_an_ift_attack_a_final_dr_equal_to_morale_pins_a7_8(dice, pinned, broken):
    # 4 FP at Final DR 6: an NMC (A7.3); the target's check DR is the dice given.
    out_res = run(shot(4), [2, 4, *dice], firers=["A1"], target="C5", range=2)
    out = out_res.outcome
    final = sum(dice)
    assert steps(out, "check")[0] == ("Final DR", 6, None, "A7.3")  # the attack's: an NMC
    assert steps(out, "check")[1:] == [(f"Final DR {final} vs morale 7", "fails" if broken else "passes", final,
                                        "A7.3")]
    note = ("Final DR equals morale after an IFT attack: pinned", None, None, "A7.8")
    assert (note in steps(out)) == pinned
    unit = out_res.game.units["R1"]
    assert (unit.pinned, unit.broken) == (pinned, broken)


@pytest.mark.parametrize(("dice", "casualty"), [([5, 6], False), ([6, 6], True)], ids=["original-11", "original-12"])
def test_only_an_original_12_is_casualty_reduction_whatever_the_drm_a10_31(dice, casualty):
    g = AslBuilder(phase="PFPh").squad("A1", 0, "B5", type="ger-467", reduces_to="ger-247").game
    res = morale(g, dice, unit="A1", check="NMC", drm=-6, drm_reason="test")
    note = ("Original 12: Casualty Reduction and broken (eliminated if already broken)", None, None, "A10.31")
    assert (note in steps(res.outcome, "note")) == casualty
    assert res.game.units["A1"].kind == ("half-squad" if casualty else "squad")
    assert res.game.units["A1"].broken == casualty


@pytest.mark.parametrize(("dice", "hob"), [([1, 1], True), ([1, 2], False)], ids=["original-2", "original-3"])
def test_heat_of_battle_only_on_an_original_2_a15(dice, hob):
    g = AslBuilder(phase="PFPh").squad("A1", 0, "B5").game
    res = morale(g, dice, unit="A1", check="NMC")
    checks = steps(res.outcome, "check")
    assert checks[0][1] == ("Heat of Battle" if hob else "passes")
    assert checks[0][3] == ("A15" if hob else "A10.1")


# --- Rally (A10.6): Final DR <= broken-side morale ---------------------------------------------

@pytest.mark.parametrize(("dice", "word"), [([3, 4], "passes"), ([3, 5], "passes"), ([4, 5], "fails")],
                         ids=["one-below", "at-morale", "one-above"])
def test_rally_succeeds_at_the_broken_side_morale_and_fails_one_above_a10_6(dice, word):
    g = (AslBuilder(phase="RPh").squad("A1", 0, "B5", broken=True)  # broken-side morale 8
         .leader("L1", 0, "B5", morale=8, leadership=0).game)
    res = resolve(g, {"action": "rally", "unit": "A1"}, ScriptedDice(dice))
    final = sum(dice)
    assert steps(res.outcome, "check") == [(f"Final DR {final} vs broken-side morale 8", word, final, "A10.6")]
    assert res.game.units["A1"].broken == (word == "fails")


# --- Leadership DRM (A10.7): the best Good Order leader of the Location ----------------------------

@pytest.mark.parametrize("first", [-1, -2], ids=["better-second", "better-first"])
def test_the_lowest_leadership_modifier_applies_whatever_the_order_a10_7(first):
    second = -3 - first
    g = (AslBuilder(phase="PFPh").squad("A1", 0, "B5").leader("L1", 0, "B5", morale=9, leadership=first)
         .leader("L2", 0, "B5", morale=9, leadership=second).game)
    out = morale(g, [4, 5], unit="A1", check="NMC").outcome
    best = "L1" if first == -2 else "L2"
    assert steps(out, "modifier") == [(f"leadership of 9-2 {best}", -2, None, "A10.7")]
    assert steps(out, "check") == [("Final DR 7 vs morale 7", "passes", 7, "A10.1")]


def test_with_equal_leaders_the_leadership_modifier_is_counted_once_a10_7():
    g = (AslBuilder(phase="PFPh").squad("A1", 0, "B5").leader("L1", 0, "B5", morale=8, leadership=-1)
         .leader("L2", 0, "B5", morale=8, leadership=-1).game)
    out = morale(g, [4, 5], unit="A1", check="NMC").outcome
    mods = steps(out, "modifier")
    assert len(mods) == 1 and mods[0][1:] == (-1, None, "A10.7")


# --- ELR (A19.13): failing an MC by more than the side's ELR replaces the squad ----------------------

@pytest.mark.parametrize(("dice", "margin", "replaced"), [([4, 5], 2, False), ([5, 5], 3, False), ([5, 6], 4, True)],
                         ids=["one-below", "at-elr", "one-above"])
def test_elr_replacement_only_when_failing_by_more_than_the_elr_a19_13(dice, margin, replaced):
    g = (AslBuilder(phase="PFPh", elr=(3, 3)).squad("A1", 0, "B5", type="ger-467", replaced_by="ger-447").game)
    res = morale(g, dice, unit="A1", check="NMC")  # morale 7, ELR 3
    note = (f"failed by {margin}, more than ELR 3" if replaced
            else f"failed by {margin}, not more than ELR 3: no replacement")
    assert (note, None, None, "A19.13") in steps(res.outcome, "note")
    assert res.game.units["A1"].type == ("ger-447" if replaced else "ger-467")
    assert res.game.units["A1"].broken
