"""CD thresholds at, one below and one above (issue 28 item 9): the to-hit number of each range band
[14.2.1] and of IDF [17.6], the weak/strong AFV armour edges, the Hit Results and AP edges
[19.1, 19.1.1], company morale by how far the check is missed [21.3], ammo depletion [27.1] and the
artillery response roll [17.4].

Every number is from data/cd/ (counters.yaml, modifiers.yaml, hit_results.yaml, morale.yaml), which
follow seed 004 (the General Reference Card). The range band is named in the order (CD measures in
inches; the data holds no distance edges), so each band is checked to read its own number.
"""

import pytest

from .conftest import labels, modifiers, run, steps

TO_HIT = "CD [14.2.1]"


def checks(out):
    return [(label, value, total, rule) for label, value, total, rule in steps(out, "check")]


# --- to-hit [14.2.1]: a natural d10 at or under the number hits ------------------------------------

BANDS = {"close": 8, "short": 6, "medium": 4, "long": 2}


@pytest.mark.parametrize("band", list(BANDS))
@pytest.mark.parametrize("offset", [-1, 0, 1], ids=["one-below", "at", "one-above"])
def test_each_range_band_hits_at_its_number_and_misses_one_above_14_2_1(cd_game, band, offset):
    g = cd_game().stand("F", 0, to_hit=BANDS).stand("T", 1).game
    die = BANDS[band] + offset
    res = run(g, [die, 1], firer="F", targets=["T"], range_band=band)
    word = "miss" if offset > 0 else "hit"
    assert (f"Hits T T on {BANDS[band]} or less", None, BANDS[band], TO_HIT) in [
        (s[0], None, s[2], s[3]) for s in steps(res.outcome)]
    assert (f"{die} vs {BANDS[band]} or less: {word}", TO_HIT) in [(c[0], c[3]) for c in checks(res.outcome)]
    assert bool(res.outcome.cells) == (word == "hit")


@pytest.mark.parametrize(("die", "hit"), [(3, True), (4, True), (5, False)], ids=["one-below", "at", "one-above"])
def test_a_modified_number_is_the_threshold_14_2_1(cd_game, die, hit):
    # short 6, personnel in medium cover -2: hits on 4 or less.
    g = cd_game().stand("F", 0, to_hit={"short": 6}).stand("T", 1).game
    res = run(g, [die, 1], firer="F", targets=["T"], cover="medium")
    assert ("Personnel in medium cover", -2, TO_HIT) in modifiers(res.outcome)
    assert (f"{die} vs 4 or less: {'hit' if hit else 'miss'}", TO_HIT) in [(c[0], c[3]) for c in checks(res.outcome)]


# --- weak AFV (armour 1 or less) and strong AFV (armour 6 or more), data/cd/modifiers.yaml afv ------

@pytest.mark.parametrize(("armour", "weak"), [(0, True), (1, True), (2, False)], ids=["one-below", "at", "one-above"])
def test_a_weak_afv_has_armour_1_or_less_14_2_1(cd_game, armour, weak):
    g = cd_game().stand("F", 0, weapon_class="W", to_hit={"short": 6}) \
        .stand("T", 1, kind="afv", armour=armour, weight=1).game
    res = run(g, [10], firer="F", targets=["T"])
    assert (("W class vs weak AFV", -3, TO_HIT) in modifiers(res.outcome)) == weak


@pytest.mark.parametrize(("armour", "strong"), [(5, False), (6, True), (7, True)],
                         ids=["one-below", "at", "one-above"])
def test_a_strong_afv_has_armour_6_or_more_14_2_1(cd_game, armour, strong):
    g = cd_game().stand("F", 0, weapon_class="A", penetration={"short": 5}, to_hit={"short": 6}) \
        .stand("T", 1, kind="afv", armour=armour, weight=2).game
    res = run(g, [10], firer="F", targets=["T"])
    assert (("A class vs strong AFV", -2, TO_HIT) in modifiers(res.outcome)) == strong


# --- Hit Results [19.1]: each column's two edges, at and one above -------------------------------

EDGES = [(q, roll, result) for q, (none_max, back_max) in {
    "green": (1, 5), "trained": (2, 6), "regular": (3, 6), "experienced": (4, 7), "veteran": (5, 7),
    "elite": (6, 8)}.items()
    for roll, result in [(none_max, "no effect"), (none_max + 1, "forced back"), (back_max, "forced back"),
                         (back_max + 1, "eliminated")]]


@pytest.mark.parametrize(("quality", "roll", "result"), EDGES, ids=[f"{q}-{r}" for q, r, _ in EDGES])
def test_each_hit_results_edge_19_1(cd_game, quality, roll, result):
    g = cd_game().stand("F", 0, to_hit={"short": 10}).stand("T", 1, quality=quality).game
    res = run(g, [5, roll], firer="F", targets=["T"])
    cell = res.outcome.cells[0]
    assert (cell.column, cell.row, cell.result, cell.rule) == (quality, str(roll), result, "CD [19.1]")


AFV = {"kind": "afv", "quality": "regular", "armour": 4, "weight": 2}
AP_GUN = {"weapon_class": "A", "penetration": {"short": 6}, "to_hit": {"short": 10}}


@pytest.mark.parametrize(("armour", "roll", "row", "result"), [
    (10, 5, "5 -10 +6 = 1", "no effect"), (11, 5, "5 -11 +6 = 0", "no effect"),
    (4, 8, "8 -4 +6 = 10", "eliminated"), (3, 8, "8 -3 +6 = 11", "eliminated")],
    ids=["modified-1", "modified-0", "modified-10", "modified-11"])
def test_a_modified_ap_roll_off_the_chart_reads_its_end_row_19_1_1(cd_game, armour, roll, row, result):
    g = cd_game().stand("F", 0, **AP_GUN).stand("T", 1, **{**AFV, "armour": armour}).game
    res = run(g, [5, roll], firer="F", targets=["T"])
    cell = res.outcome.cells[0]
    assert (cell.row, cell.result) == (row, result)


@pytest.mark.parametrize(("roll", "natural"), [(9, False), (10, True)], ids=["natural-9", "natural-10"])
def test_only_a_natural_10_penetrates_at_close_range_19_1_1(cd_game, roll, natural):
    g = cd_game().stand("F", 0, **AP_GUN).stand("T", 1, **{**AFV, "armour": 12}).game
    res = run(g, [5, roll], firer="F", targets=["T"], close_range=True)
    assert res.outcome.cells[0].result == ("eliminated" if natural else "no effect")
    assert ("Natural 10 on the penetration roll at close range: eliminated" in labels(res.outcome)) == natural


# --- company morale [21.3]: missed by 0 passes, 1-2 pinned, 3-4 shaken, 5-6 demoralized, 7+ gone ---

def company(cd_game):
    return cd_game(phase="CommandMorale").stand("A1", 0, company="Able").stand("A2", 0, company="Able") \
        .stand("G1", 1, company="Fox")


MISSES = [(0, None), (1, "pinned"), (2, "pinned"), (3, "forced back + shaken"), (4, "forced back + shaken"),
          (5, "forced back + demoralized"), (6, "forced back + demoralized"), (7, "eliminated"), (8, "eliminated")]


@pytest.mark.parametrize(("missed", "result"), MISSES, ids=[f"missed-by-{m}" for m, _ in MISSES])
def test_each_edge_of_the_morale_results_21_3(cd_game, missed, result):
    # regular, rating 6; a -4 (road march -2, TOT -2) lets a d10 of 1..10 miss by -3..8.
    roll = 6 + missed - 4
    res = run(company(cd_game).game, [roll], action="morale", company="Able", road_march=True, targeted_by_tot=True)
    word = "passed" if missed <= 0 else f"missed by {missed}"
    assert checks(res.outcome) == [(f"d10 {roll} vs 2 or less (rating 6 -4): {word}", roll, 2, "CD [21]")]
    if result is None:
        assert res.outcome.cells == ()
    else:
        cell = res.outcome.cells[0]
        assert (cell.table, cell.row, cell.result) == ("CD Morale Results [21.3]", str(missed), result)


@pytest.mark.parametrize(("roll", "passed"), [(7, True), (8, True), (9, False)], ids=["one-below", "at", "one-above"])
def test_a_positive_modifier_raises_the_threshold_21_3(cd_game, roll, passed):
    res = run(company(cd_game).game, [roll], action="morale", company="Able", in_cover=True)
    assert ("In cover", 2, "CD [14.2.2]") in modifiers(res.outcome)
    assert checks(res.outcome)[0][0].endswith("passed" if passed else "missed by 1")


# --- ammo depletion [27.1] and artillery response [17.4]: the roll or less ------------------------

@pytest.mark.parametrize(("roll", "depleted"), [(6, True), (7, True), (8, False)], ids=["one-below", "at", "one-above"])
def test_ammo_depletes_on_caliber_tenth_or_less_27_1(cd_game, roll, depleted):
    g = cd_game().stand("F", 0, caliber_mm=75, to_hit={"short": 6}).stand("T", 1).game
    res = run(g, [1, roll, 2], firer="F", targets=["T"])
    word = "depleted" if depleted else "ammunition holds"
    assert (f"{roll} vs 7 or less: {word}", roll, 7, "CD [27.1]") in checks(res.outcome)
    assert res.game.units["F"].ammo_depleted == depleted


@pytest.mark.parametrize(("caliber", "rolls"), [(19, False), (20, True)], ids=["19mm", "20mm"])
def test_only_20mm_and_up_roll_for_depletion_27_1(cd_game, caliber, rolls):
    g = cd_game().stand("F", 0, caliber_mm=caliber, to_hit={"short": 6}).stand("T", 1).game
    res = run(g, [1, 1, 2], firer="F", targets=["T"])
    assert any(r.purpose.startswith("ammo") for r in res.outcome.rolls) == rolls


def battery(cd_game):
    return cd_game(phase="Artillery").stand("B", 0, kind="artillery", weapon_class="H", caliber_mm=105,
                                            idf_to_hit=6).stand("T", 1).game


@pytest.mark.parametrize(("support", "need"), [("organic", 5), ("supporting", 3), ("h_and_i", 3)])
@pytest.mark.parametrize("offset", [-1, 0, 1], ids=["one-below", "at", "one-above"])
def test_artillery_responds_on_its_number_or_less_17_4(cd_game, support, need, offset):
    roll = need + offset
    res = run(battery(cd_game), [roll], action="artillery_response", firer="B", support=support)
    word = "responds" if offset <= 0 else "no response"
    assert checks(res.outcome) == [(f"{roll} vs {need} or less: {word}", roll, need, "CD [17.4]")]
    assert (labels(res.outcome, "marker") == ["B B: place the IDF template"]) == (offset <= 0)


@pytest.mark.parametrize(("die", "hit"), [(5, True), (6, True), (7, False)], ids=["one-below", "at", "one-above"])
def test_idf_hits_on_its_number_or_less_17_6(cd_game, die, hit):
    res = run(battery(cd_game), [die, 1], action="indirect_fire", firer="B", targets=["T"])
    assert ("IDF number of B B", 6, 6, "CD [17.6]") in steps(res.outcome)
    assert checks(res.outcome) == [("Hits T T on 6 or less", 6, 6, "CD [17.6]"),
                                   (f"{die} vs 6 or less: {'hit' if hit else 'miss'}", die, 6, "CD [17.6]")]
    assert bool(res.outcome.cells) == hit
