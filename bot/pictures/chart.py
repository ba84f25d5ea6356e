"""The dice chart of /stats dice: observed (blue) against expected (orange) bars, one panel per
die family rolled (d6 faces, d10 faces, 2d6 totals), its axis labelled with the faces."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from bot.stats import DiceStats, FamilyStats

from .draw import DRAWING, GRID, INK, WHITE, font, png, text_size

OBSERVED = (74, 122, 181)
EXPECTED = (230, 145, 56)
PANEL_W, PANEL_H = 640, 210
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 34, 26  # margins around each panel's plot area
TITLE, LABEL = 15, 13  # font sizes, pixels

Box = tuple[int, int, int, int]


def bar_boxes(stats: FamilyStats, top: int) -> list[tuple[Box, Box]]:
    """(observed box, expected box) per face, as (x0, y0, x1, y1), x1 and y1 excluded, within a
    panel starting at ``top``; a bar of height 0 is an empty box."""
    plot_w, plot_h = PANEL_W - LEFT - RIGHT, PANEL_H - TOP - BOTTOM
    peak = max([*stats.observed, *stats.expected, 1])
    slot = plot_w // len(stats.family.faces)
    bar = max(2, slot * 2 // 5)
    base = top + TOP + plot_h
    boxes = []
    for i, (observed, expected) in enumerate(zip(stats.observed, stats.expected)):
        x = LEFT + i * slot + (slot - 2 * bar) // 2
        h_obs, h_exp = round(plot_h * observed / peak), round(plot_h * expected / peak)
        boxes.append(((x, base - h_obs, x + bar, base), (x + bar, base - h_exp, x + 2 * bar, base)))
    return boxes


def _fill(draw: ImageDraw.ImageDraw, box: Box, colour: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    if x1 > x0 and y1 > y0:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=colour)


def chart_png(stats: DiceStats) -> bytes:
    """The chart as PNG bytes: the panels of the families rolled (d6 faces when none was)."""
    with DRAWING:
        return _chart(stats)


def _chart(stats: DiceStats) -> bytes:
    panels = [f for f in stats.families if f.n] or [stats.families[0]]
    image = Image.new("RGB", (PANEL_W, PANEL_H * len(panels)), WHITE)
    draw = ImageDraw.Draw(image)
    for index, family in enumerate(panels):
        top = index * PANEL_H
        base = top + PANEL_H - BOTTOM
        p = family.p_value
        title = f"{family.family.title}   n = {family.n}" + (f"   p = {p:.3f}" if p is not None else "")
        draw.text((LEFT, top + 8), title, fill=INK, font=font(TITLE))
        legend_x = PANEL_W - RIGHT - text_size("observed", LABEL)[0] - text_size("expected", LABEL)[0] - 48
        for name, colour in (("observed", OBSERVED), ("expected", EXPECTED)):
            _fill(draw, (legend_x, top + 11, legend_x + 10, top + 21), colour)
            draw.text((legend_x + 14, top + 9), name, fill=INK, font=font(LABEL))
            legend_x += 14 + text_size(name, LABEL)[0] + 20
        for line in range(1, 4):  # light grid at a quarter, half, three quarters of the scale
            y = base - (PANEL_H - TOP - BOTTOM) * line // 4
            _fill(draw, (LEFT, y, PANEL_W - RIGHT, y + 1), GRID)
        for face, (observed, expected) in zip(family.family.faces, bar_boxes(family, top)):
            _fill(draw, observed, OBSERVED)
            _fill(draw, expected, EXPECTED)
            centre = (observed[0] + expected[2]) // 2
            draw.text((centre, base + 5), str(face), fill=INK, font=font(LABEL), anchor="mt")
        _fill(draw, (LEFT, base, PANEL_W - RIGHT, base + 1), INK)  # the axes
        _fill(draw, (LEFT, top + TOP, LEFT + 1, base), INK)
        peak = max([*family.observed, math.ceil(max(family.expected)), 1])
        draw.text((LEFT - 6, top + TOP), str(peak), fill=INK, font=font(LABEL), anchor="rt")
    return png(image)
