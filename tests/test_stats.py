"""Dice statistics against a case computed by hand, the chi-square tail, and the PNG chart."""

import math
import struct
import zlib

import pytest

from bot.stats import PANEL_H, PANEL_W, chart_png, chi_square_p, regularized_gamma_q, rollers, summary, tally


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


def test_the_incomplete_gamma_agrees_with_its_closed_form_for_a_equal_1():
    for x in (0.1, 0.9, 2.0, 7.5, 40.0):
        assert regularized_gamma_q(1.0, x) == pytest.approx(math.exp(-x), rel=1e-12)


def read_png(data):
    """Check the signature and every chunk's CRC; return the header and the decoded rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        at += 12 + length
    assert [k for k, _ in chunks] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, compression, filtering, interlace) == (8, 3, 0, 0, 0)
    raw = zlib.decompress(chunks[2][1])
    assert len(raw) == height * (width + 1)
    rows = [raw[y * (width + 1):(y + 1) * (width + 1)] for y in range(height)]
    assert all(row[0] == 0 for row in rows)
    return width, height, [row[1:] for row in rows], chunks[1][1]


def test_the_chart_is_a_valid_png_with_one_panel_per_die_family_rolled():
    data = chart_png(tally(HAND_DRS))
    width, height, _rows, palette = read_png(data)
    assert (width, height) == (PANEL_W, 2 * PANEL_H)  # d6 faces and 2d6 totals; no d10 rolled
    assert len(data) < 8 * 1024 * 1024 and len(palette) % 3 == 0


def test_the_observed_bars_are_as_tall_as_the_counts():
    data = chart_png(tally(HAND_DRS))
    width, _height, rows, _ = read_png(data)
    observed_colour = 2
    columns = {}
    for x in range(width):
        height = sum(1 for row in rows[:PANEL_H] if row[x] == observed_colour)
        if height and x > 40:
            columns.setdefault(height, []).append(x)
    tallest, shortest = max(columns), min(h for h in columns if h > 12)  # the legend swatch is 10 high
    assert tallest == 152  # the plot's full height: the peak count, 12 threes
    assert round(tallest * 8 / 12) == shortest  # eight twos


def test_the_summary_line_and_who_rolled():
    assert summary(tally(HAND_DRS)) == "30 rolls; d6: 60, mean 3.55, p = 0.963; 2d6: 30, mean 7.10"
    entries = [entry(7, 1, ("d10", (4,))), entry(5, 0, ("d6", (1,))), entry(7, 1, ("d10", (9,))),
               entry(9, 0, ("dr", (3,)), manual=True)]
    assert rollers(entries) == ([7, 5], [1, 0])  # manual dice do not make a roller
