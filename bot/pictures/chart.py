"""The dice chart of /stats dice: observed (blue) against expected (orange) bars, one panel per
die family rolled (d6 faces, d10 faces, 2d6 totals).

Read on a phone as it stands: a header naming whose dice it shows ("Dice of Alice · Germans") and
how many rolls; in each panel the family and its count, the chi-square result in words (the
statistic, its degrees of freedom, the p-value and what it says, or how many dice the test needs
before it is given), both axes labelled with their ticks (the counts at round steps, the faces),
and the legend. ``chart_layout`` gives every text box and the plot areas, so a test checks the
layout without reading pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.stats import UNFAIR_BELOW, DiceStats, FamilyStats

from .draw import DRAWING, GRID, INK, WHITE, fit, font, png, text_size

OBSERVED = (74, 122, 181)
EXPECTED = (230, 145, 56)
MUTED = (96, 98, 108)  # the chi-square line and the axis titles
PANEL_W, PANEL_H = 640, 272
HEADER = 40  # the band naming whose dice these are
LEFT, RIGHT, TOP, BOTTOM = 62, 16, 64, 46  # margins around each panel's plot area
HEAD, TITLE, LABEL = 19, 17, 15  # font sizes, pixels
MOST_TICKS = 6  # intervals on the count axis at most

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Text:
    """One text of the chart: what it says, its box (x0, y0, x1, y1) in the image, and where and
    how it is drawn (Pillow's anchor at ``at``, ``size`` pixels)."""

    text: str
    box: Box
    role: str  # "header", "title", "test", "legend", "tick", "face", "axis"
    at: tuple[int, int]
    anchor: str
    size: int


def _text(text: str, x: int, y: int, role: str, size: int = 15, anchor: str = "lt") -> Text:
    x0, y0, x1, y1 = font(size).getbbox(text, anchor=anchor)
    return Text(text, (int(x + x0), int(y + y0), int(x + x1), int(y + y1)), role, (x, y), anchor, size)


@dataclass(frozen=True)
class ChartLayout:
    size: tuple[int, int]
    plots: tuple[Box, ...]  # each panel's plot area
    texts: tuple[Text, ...]


def scale(peak: float) -> tuple[int, int]:
    """(step, top) of the count axis: a round step (1, 2, 5 times a power of ten) giving at most
    ``MOST_TICKS`` intervals up to ``top``, the first multiple of the step at or above ``peak``."""
    peak = max(1.0, peak)
    power = 1
    while True:
        for factor in (1, 2, 5):
            step = factor * power
            if math.ceil(peak / step - 1e-9) <= MOST_TICKS:
                return step, step * math.ceil(peak / step - 1e-9)
        power *= 10


def panel_top(index: int) -> int:
    return HEADER + index * PANEL_H


def bar_boxes(stats: FamilyStats, top: int) -> list[tuple[Box, Box]]:
    """(observed box, expected box) per face, as (x0, y0, x1, y1), x1 and y1 excluded, within a
    panel starting at ``top``, scaled to the top of the count axis (``scale``); a bar of height 0
    is an empty box."""
    plot_w, plot_h = PANEL_W - LEFT - RIGHT, PANEL_H - TOP - BOTTOM
    _, axis_top = scale(max([*stats.observed, *stats.expected, 1]))
    slot = plot_w // len(stats.family.faces)
    bar = max(2, slot * 2 // 5)
    base = top + TOP + plot_h
    boxes = []
    for i, (observed, expected) in enumerate(zip(stats.observed, stats.expected)):
        x = LEFT + i * slot + (slot - 2 * bar) // 2
        h_obs, h_exp = round(plot_h * observed / axis_top), round(plot_h * expected / axis_top)
        boxes.append(((x, base - h_obs, x + bar, base), (x + bar, base - h_exp, x + 2 * bar, base)))
    return boxes


def chi_square_line(family: FamilyStats) -> str:
    """The chi-square result in words, or why it is not given yet."""
    p = family.p_value
    if p is None:
        return (f"chi-square test not given yet: it needs {family.family.rolls_words(family.rolls_needed)} "
                f"(5 expected per {family.family.unit})")
    verdict = "the dice look unfair" if p < UNFAIR_BELOW else "nothing is wrong"
    return f"chi-square {family.chi_square:.2f}, {family.degrees_of_freedom} df, p = {p:.3f}: {verdict}"


def header_line(stats: DiceStats, who: str) -> str:
    rolls = f"{stats.rolls} roll{'s' if stats.rolls != 1 else ''}"
    manual = f", {stats.manual_left_out} manual dice left out" if stats.manual_left_out else ""
    return f"Dice of {who} · {rolls}{manual}"


def chart_layout(stats: DiceStats, who: str = "everyone") -> ChartLayout:
    """Where everything goes: the plot areas and every text with its box."""
    panels = [f for f in stats.families if f.n] or [stats.families[0]]
    texts = [_text(fit(header_line(stats, who), HEAD, PANEL_W - 24), 12, 11, "header", HEAD)]
    plots = []
    for index, family in enumerate(panels):
        top = panel_top(index)
        base = top + PANEL_H - BOTTOM
        plots.append((LEFT, top + TOP, PANEL_W - RIGHT, base))
        texts.append(_text(f"{family.family.title}: {family.n} {family.family.counted}", 12, top + 10, "title",
                           TITLE))
        texts.append(_text(chi_square_line(family), 12, top + 35, "test", LABEL))
        legend_x = PANEL_W - RIGHT - sum(text_size(n, LABEL)[0] for n in ("observed", "expected")) - 48
        for name in ("observed", "expected"):
            texts.append(_text(name, legend_x + 14, top + 12, "legend", LABEL))
            legend_x += 14 + text_size(name, LABEL)[0] + 20
        step, axis_top = scale(max([*family.observed, *family.expected, 1]))
        plot_h = PANEL_H - TOP - BOTTOM
        for value in range(0, axis_top + 1, step):
            texts.append(_text(str(value), LEFT - 7, base - round(plot_h * value / axis_top), "tick", LABEL, "rm"))
        for face, (observed, expected) in zip(family.family.faces, bar_boxes(family, top)):
            texts.append(_text(str(face), (observed[0] + expected[2]) // 2, base + 5, "face", LABEL, "mt"))
        texts.append(_text(family.family.axis, (LEFT + PANEL_W - RIGHT) // 2, base + 25, "axis", LABEL, "mt"))
        count_w, count_h = text_size("count", LABEL)
        mid = top + TOP + plot_h // 2
        box = (8, mid - count_w // 2 - 1, 8 + count_h + 6, mid + count_w // 2 + 1)  # turned upright
        texts.append(Text("count", box, "axis", (box[0], box[1]), "upright", LABEL))
    return ChartLayout((PANEL_W, HEADER + PANEL_H * len(panels)), tuple(plots), tuple(texts))


def _fill(draw: ImageDraw.ImageDraw, box: Box, colour: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    if x1 > x0 and y1 > y0:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=colour)


def chart_png(stats: DiceStats, who: str = "everyone") -> bytes:
    """The chart as PNG bytes: the panels of the families rolled (d6 faces when none was); ``who``:
    the player or side whose dice these are ("everyone" for the whole game)."""
    with DRAWING:
        return _chart(stats, who)


def _chart(stats: DiceStats, who: str) -> bytes:
    layout = chart_layout(stats, who)
    panels = [f for f in stats.families if f.n] or [stats.families[0]]
    image = Image.new("RGB", layout.size, WHITE)
    draw = ImageDraw.Draw(image)
    _fill(draw, (0, HEADER - 2, layout.size[0], HEADER - 1), GRID)  # under the header
    for index, (family, plot) in enumerate(zip(panels, layout.plots)):
        top = panel_top(index)
        x0, y0, x1, base = plot
        step, axis_top = scale(max([*family.observed, *family.expected, 1]))
        for value in range(step, axis_top + 1, step):  # a light grid line at each tick
            y = base - round((base - y0) * value / axis_top)
            _fill(draw, (x0, y, x1, y + 1), GRID)
            _fill(draw, (x0 - 4, y, x0, y + 1), INK)  # the tick itself
        for observed, expected in bar_boxes(family, top):
            _fill(draw, observed, OBSERVED)
            _fill(draw, expected, EXPECTED)
        _fill(draw, (x0, base, x1, base + 1), INK)  # the axes
        _fill(draw, (x0, y0, x0 + 1, base), INK)
    legend = iter([OBSERVED, EXPECTED] * len(panels))
    for text in layout.texts:
        if text.anchor == "upright":  # the count axis' title
            _upright(image, text)
            continue
        if text.role == "legend":
            _fill(draw, (text.at[0] - 14, text.at[1] + 1, text.at[0] - 4, text.at[1] + 11), next(legend))
        draw.text(text.at, text.text, fill=MUTED if text.role in ("test", "axis") else INK, font=font(text.size),
                  anchor=text.anchor)
    return png(image)


def _upright(image: Image.Image, text: Text) -> None:
    """A text turned a quarter left, filling its box (the count axis' title)."""
    width, height = text.box[3] - text.box[1], text.box[2] - text.box[0]
    word = Image.new("RGB", (width, height), WHITE)
    ImageDraw.Draw(word).text((width // 2, height // 2), text.text, fill=MUTED, font=font(LABEL), anchor="mm")
    image.paste(word.rotate(90, expand=True), (text.box[0], text.box[1]))
