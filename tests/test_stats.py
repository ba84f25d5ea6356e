"""Dice statistics against a case computed by hand, the chi-square tail, and the PNG chart."""

import io
import math

import pytest
from PIL import Image

from bot.pictures import chart_png
from bot.pictures.chart import (BOTTOM, EXPECTED, HEADER, LEFT, OBSERVED, PANEL_H, PANEL_W, TOP, bar_boxes,
                                chart_layout, panel_top, scale, chi_square_line)
from bot.stats import chi_square_p, rollers, summary, tally


def entry(actor, side, *rolls, manual=False):
    return {"actor": actor, "manual": manual,
            "outcome": {"actor_side": side, "manual_dice": manual,
                        "rolls": [{"kind": kind, "purpose": "test", "dice": list(dice)} for kind, dice in rolls]}}


# 60 d6 faces: 1 x10, 2 x8, 3 x12, 4 x9, 5 x11, 6 x10, as 30 ASL DRs by Alice for side 0
FACES = [1] * 10 + [2] * 8 + [3] * 12 + [4] * 9 + [5] * 11 + [6] * 10
HAND_DRS = [entry(1, 0, ("DR", (FACES[i], FACES[i + 30]))) for i in range(30)]


def test_d6_counts_mean_and_chi_square_match_the_hand_computation():
    d6 = tally(HAND_DRS).family("d6")
    assert d6.observed == (10, 8, 12, 9, 11, 10) and d6.n == 60
    assert d6.expected == pytest.approx((10.0,) * 6)
    # mean = (10 + 16 + 36 + 36 + 55 + 60) / 60 = 213 / 60
    assert d6.mean == pytest.approx(3.55)
    # chi-square = (0 + 4 + 4 + 1 + 1 + 0) / 10 = 1.0 with 5 degrees of freedom
    assert d6.chi_square == pytest.approx(1.0) and d6.degrees_of_freedom == 5
    # Q(5/2, 1/2) in closed form: erfc(sqrt x) + e^-x (2 sqrt(x/pi) + x^(3/2) / Γ(5/2)), x = 1/2
    x = 0.5
    by_hand = math.erfc(math.sqrt(x)) + math.exp(-x) * (2 * math.sqrt(x / math.pi) + x ** 1.5 / (0.75 * math.sqrt(math.pi)))
    assert by_hand == pytest.approx(0.96256577, abs=1e-8)
    assert d6.p_value == pytest.approx(by_hand, rel=1e-12)


def test_two_dice_totals_are_tallied_against_1_to_6_in_36():
    stats = tally(HAND_DRS)
    totals = stats.family("2d6")
    expected_totals = {}
    for i in range(30):
        total = FACES[i] + FACES[i + 30]
        expected_totals[total] = expected_totals.get(total, 0) + 1
    assert totals.observed == tuple(expected_totals.get(t, 0) for t in range(2, 13))
    assert totals.expected == pytest.approx(tuple(30 * w / 36 for w in (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)))
    assert totals.p_value is None and totals.rolls_needed == 180  # 5 expected for a 2 or a 12
    assert stats.rolls == 30 and stats.family("d10").n == 0


def test_filters_by_player_and_side_and_manual_dice_are_left_out():
    entries = [entry(1, 0, ("d10", (3,)), ("d10", (7,))), entry(2, 1, ("d10", (10,))),
               entry(2, 1, ("d6", (4,))), entry(1, 0, ("dr", (2,)), manual=True)]
    everyone = tally(entries)
    assert everyone.family("d10").observed == (0, 0, 1, 0, 0, 0, 1, 0, 0, 1) and everyone.manual_left_out == 1
    assert tally(entries, player=1).family("d10").n == 2
    assert tally(entries, side=1).family("d10").observed[-1] == 1 and tally(entries, side=1).family("d6").n == 1
    assert tally(entries, player=1, side=1).rolls == 0


@pytest.mark.parametrize(("statistic", "df", "p"), [
    (3.841458820694124, 1, 0.05),  # the textbook 5% critical values
    (11.070497693516351, 5, 0.05),
    (6.634896601021214, 1, 0.01),
    (23.209251158954356, 10, 0.01),
])
def test_chi_square_tail_matches_the_tables(statistic, df, p):
    assert chi_square_p(statistic, df) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(("statistic", "df", "p"), [
    # the bot's own degrees of freedom (d6: 5, d10: 9, 2d6: 10) at the tables' critical values
    (1.145476226061769, 5, 0.95), (9.236356899781123, 5, 0.10), (15.08627246938899, 5, 0.01),
    (3.325112843066815, 9, 0.95), (16.918977604620448, 9, 0.05), (27.877164871256568, 9, 0.001),
    (3.940299136119158, 10, 0.95), (18.307038053275146, 10, 0.05), (29.58829844507442, 10, 0.001),
])
def test_chi_square_tail_at_the_bots_degrees_of_freedom(statistic, df, p):
    assert chi_square_p(statistic, df) == pytest.approx(p, rel=1e-9)


def test_chi_square_tail_edges():
    assert chi_square_p(0.0, 5) == 1.0
    for x in (0.1, 0.9, 2.0, 7.5, 40.0):  # two degrees of freedom: exactly e^(-x/2)
        assert chi_square_p(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    assert chi_square_p(5000.0, 9) == 0.0  # far out: no overflow, no negative
    with pytest.raises(ValueError):
        chi_square_p(3.0, 0)


def decode(data):
    """The PNG decoded by Pillow (its signature and every chunk's CRC checked on the way)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.verify()  # the chunks' CRCs
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def test_the_chart_is_a_png_with_one_panel_per_die_family_rolled():
    data = chart_png(tally(HAND_DRS))
    image = decode(data)
    assert image.size == (PANEL_W, HEADER + 2 * PANEL_H)  # d6 faces and 2d6 totals; no d10 rolled
    assert len(data) < 200 * 1024


def test_the_bars_are_drawn_where_and_as_tall_as_the_counts():
    stats = tally(HAND_DRS)
    image = decode(chart_png(stats))
    d6 = stats.family("d6")
    boxes = bar_boxes(d6, top=panel_top(0))
    plot_h = PANEL_H - TOP - BOTTOM
    for count, (observed, expected) in zip(d6.observed, boxes):
        x0, y0, x1, y1 = observed
        # the peak count is 12 threes, the top of the count axis (0 to 12 by 2): the full height
        assert y1 - y0 == round(plot_h * count / 12)
        middle = (x0 + x1) // 2
        column = [image.getpixel((middle, y)) for y in range(HEADER + TOP, y1)]
        assert column.count(OBSERVED) == y1 - y0  # the bar, all of it and only it, in its colour
        assert image.getpixel((middle, y0 - 2)) != OBSERVED
        ex0, ey0, ex1, ey1 = expected
        assert ey1 - ey0 == round(plot_h * 10 / 12)  # ten expected of each face
        assert image.getpixel(((ex0 + ex1) // 2, (ey0 + ey1) // 2)) == EXPECTED
    # the second panel: the 2d6 totals, each observed bar in place
    totals = stats.family("2d6")
    for count, (observed, _expected) in zip(totals.observed, bar_boxes(totals, top=panel_top(1))):
        x0, y0, x1, y1 = observed
        if count:
            assert image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)) == OBSERVED


def test_the_chart_has_its_words_written_in_a_real_font():
    image = decode(chart_png(tally(HAND_DRS)))
    layout = chart_layout(tally(HAND_DRS))
    title = next(t for t in layout.texts if t.role == "title")
    inked = [p for p in image.crop(title.box).get_flattened_data() if p != (255, 255, 255)]
    shades = set(inked)
    assert len(inked) > 150  # the title is written
    assert len(shades) > 8  # anti-aliased glyphs (a scalable font), not the old two-colour pixel font
    # the face numbers under the axis, centred under each face's pair of bars
    base = HEADER + PANEL_H - BOTTOM
    for face, (observed, expected) in zip(range(1, 7), bar_boxes(tally(HAND_DRS).family("d6"), top=panel_top(0))):
        centre = (observed[0] + expected[2]) // 2
        under = image.crop((centre - 8, base + 3, centre + 8, base + 22))
        assert any(p != (255, 255, 255) for p in under.get_flattened_data()), face


@pytest.mark.parametrize("peak, step, top", [(1, 1, 1), (6, 1, 6), (7, 2, 8), (12, 2, 12), (13, 5, 15),
                                             (30, 5, 30), (31, 10, 40), (60, 10, 60), (61, 20, 80),
                                             (1200, 200, 1200), (1201, 500, 1500), (0.4, 1, 1), (9.5, 2, 10)])
def test_the_count_axis_goes_up_in_round_steps_to_the_first_one_over_the_peak(peak, step, top):
    assert scale(peak) == (step, top)


def test_the_chart_names_whose_dice_it_shows_labels_both_axes_and_carries_the_chi_square():
    """Issue 30: the chart labelled only the top of its y-axis and said neither the chi-square
    result nor whose dice it showed."""
    stats = tally(HAND_DRS)
    layout = chart_layout(stats, "Alice · Germans")
    says = [(t.role, t.text) for t in layout.texts]
    assert says[0] == ("header", "Dice of Alice · Germans · 30 rolls")
    assert ("title", "d6 faces: 60 dice") in says and ("title", "2d6 totals: 30 rolls") in says
    assert ("test", "chi-square 1.00, 5 df, p = 0.963: nothing is wrong") in says
    assert ("test", "chi-square test not given yet: it needs 180 rolls (5 expected per total)") in says
    d6_plot, totals_plot = layout.plots
    ticks = [t for t in layout.texts if t.role == "tick"]
    assert [t.text for t in ticks] == ["0", "2", "4", "6", "8", "10", "12", "0", "2", "4", "6", "8", "10"]
    for tick in ticks:  # left of its plot, at its height: 0 on the axis, the top at the plot's top
        plot = d6_plot if tick.box[1] < totals_plot[1] - 20 else totals_plot
        assert tick.box[2] < plot[0] and plot[1] - 10 <= (tick.box[1] + tick.box[3]) / 2 <= plot[3] + 10
    faces = [t.text for t in layout.texts if t.role == "face"]
    assert faces == [str(f) for f in range(1, 7)] + [str(t) for t in range(2, 13)]
    assert [t.text for t in layout.texts if t.role == "axis"] == ["face", "count", "total", "count"]
    for face in (t for t in layout.texts if t.role == "face"):
        plot = d6_plot if face.box[1] < totals_plot[1] else totals_plot
        assert face.box[1] > plot[3] and plot[0] <= face.box[0] and face.box[2] <= plot[2]
    # every text inside the picture, no two overlapping, none over a plot area
    width, height = layout.size
    boxes = [t.box for t in layout.texts]
    for t in layout.texts:
        assert 0 <= t.box[0] < t.box[2] <= width and 0 <= t.box[1] < t.box[3] <= height, t
        for plot in layout.plots:
            assert not overlap(t.box, plot), (t, plot)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not overlap(a, b), (layout.texts[boxes.index(a)], b)
    # and drawn: ink in every text's box (the count axis' title turned upright too)
    image = decode(chart_png(stats, "Alice · Germans"))
    for t in layout.texts:
        assert any(p != (255, 255, 255) for p in image.crop(t.box).get_flattened_data()), t


def test_a_long_name_is_cut_to_the_chart_s_width():
    layout = chart_layout(tally(HAND_DRS), "x" * 300)
    header = layout.texts[0]
    assert header.text.endswith("…") and header.box[2] <= PANEL_W


def test_the_chi_square_line_at_the_unfair_threshold():
    from bot.stats import FAMILIES, FamilyStats

    d6 = FAMILIES[0]
    # 30 dice: the chi-square steps by 0.4 here; 15.2 (p just under 0.01) says unfair, 14.8 (just over) does not
    unfair = FamilyStats(d6, (12, 7, 4, 3, 2, 2))
    assert unfair.p_value < 0.01 and chi_square_line(unfair) == (
        f"chi-square 15.20, 5 df, p = {unfair.p_value:.3f}: the dice look unfair")
    fair = FamilyStats(d6, (12, 7, 3, 3, 3, 2))
    assert 0.01 < fair.p_value < 0.012
    assert chi_square_line(fair) == f"chi-square {fair.chi_square:.2f}, 5 df, p = {fair.p_value:.3f}: nothing is wrong"
    assert chi_square_line(FamilyStats(d6, (5, 5, 5, 5, 5, 4))) == (
        "chi-square test not given yet: it needs 30 dice (5 expected per face)")


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_summary_line_and_who_rolled():
    assert summary(tally(HAND_DRS)) == "30 rolls; d6: 60, mean 3.55, p = 0.963; 2d6: 30, mean 7.10"
    entries = [entry(7, 1, ("d10", (4,))), entry(5, 0, ("d6", (1,))), entry(7, 1, ("d10", (9,))),
               entry(9, 0, ("dr", (3,)), manual=True)]
    assert rollers(entries) == ([7, 5], [1, 0])  # manual dice do not make a roller
