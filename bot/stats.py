"""Dice statistics over a game's log: counts, means, observed against expected, chi-square, a chart.

"The dice hate me" settled with numbers. Three families are tallied from the Outcomes' rolls:

* ``d6``: every six-sided die face (ASL DR and dr, NHiS 2d6 and d6), expected 1/6 each;
* ``d10``: every ten-sided die face (Command Decision), expected 1/10 each;
* ``2d6``: the totals 2..12 of two-dice rolls (ASL DR, NHiS 2d6), expected 1..6..1 in 36.

A roll counts for the player who gave the command (the log entry's actor) and for the side the
Outcome acted for. Undone entries count: their dice were rolled. Manual dice (thrown at the
table by the players and typed in) are left out and counted apart: they say nothing about the
bot's dice. The p-value is the chi-square upper tail, computed here (regularized incomplete
gamma); with fewer than 5 expected per cell the test is not reliable, and it is not given.

The chart is a PNG written by hand (zlib + struct, palette colour): no plotting dependency.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MIN_EXPECTED = 5.0  # the usual rule for a chi-square test: at least 5 expected per cell

# --- tallies ------------------------------------------------------------------------------------

TWO_D6_WAYS = {total: 6 - abs(total - 7) for total in range(2, 13)}  # 1, 2, ..., 6, ..., 1 of 36


@dataclass(frozen=True)
class Family:
    key: str
    title: str
    faces: tuple[int, ...]
    weights: tuple[float, ...]  # expected probability of each face

    @property
    def expected_mean(self) -> float:
        return sum(f * w for f, w in zip(self.faces, self.weights))


FAMILIES = (
    Family("d6", "d6 faces", tuple(range(1, 7)), tuple([1 / 6] * 6)),
    Family("d10", "d10 faces", tuple(range(1, 11)), tuple([1 / 10] * 10)),
    Family("2d6", "2d6 totals", tuple(range(2, 13)), tuple(TWO_D6_WAYS[t] / 36 for t in range(2, 13))),
)
TWO_DICE_KINDS = {"DR", "2d6"}


@dataclass(frozen=True)
class FamilyStats:
    family: Family
    observed: tuple[int, ...]

    @property
    def n(self) -> int:
        return sum(self.observed)

    @property
    def expected(self) -> tuple[float, ...]:
        return tuple(self.n * w for w in self.family.weights)

    @property
    def mean(self) -> float | None:
        if not self.n:
            return None
        return sum(f * c for f, c in zip(self.family.faces, self.observed)) / self.n

    @property
    def chi_square(self) -> float:
        return sum((o - e) ** 2 / e for o, e in zip(self.observed, self.expected) if e > 0)

    @property
    def degrees_of_freedom(self) -> int:
        return len(self.family.faces) - 1

    @property
    def testable(self) -> bool:
        return self.n > 0 and min(self.expected) >= MIN_EXPECTED

    @property
    def rolls_needed(self) -> int:
        """How many dice (or rolls) the chi-square test needs before it is given."""
        return math.ceil(MIN_EXPECTED / min(self.family.weights) - 1e-9)

    @property
    def p_value(self) -> float | None:
        if not self.testable:
            return None
        return chi_square_p(self.chi_square, self.degrees_of_freedom)


@dataclass(frozen=True)
class DiceStats:
    families: tuple[FamilyStats, ...]
    rolls: int  # rolls counted (a DR is one roll of two dice)
    manual_left_out: int  # manual dice not counted

    def family(self, key: str) -> FamilyStats:
        return next(f for f in self.families if f.family.key == key)


def tally(entries: Iterable[dict[str, Any]], *, player: int | None = None, side: int | None = None) -> DiceStats:
    """Count the dice of exported log entries (``LogEntry.export()`` dicts), optionally only
    those of one player (the entry's actor) or one side (the Outcome's ``actor_side``)."""
    counts = {f.key: {face: 0 for face in f.faces} for f in FAMILIES}
    rolls = manual = 0
    for entry in entries:
        outcome = entry.get("outcome") or {}
        if player is not None and entry.get("actor") != player:
            continue
        if side is not None and outcome.get("actor_side") != side:
            continue
        if outcome.get("manual_dice") or entry.get("manual"):
            manual += sum(len(r.get("dice", ())) for r in outcome.get("rolls", ()))
            continue
        for roll in outcome.get("rolls", ()):
            dice = [int(d) for d in roll.get("dice", ())]
            kind = roll.get("kind")
            rolls += 1
            family = counts["d10" if kind == "d10" else "d6"]
            for die in dice:
                if die in family:
                    family[die] += 1
            if kind in TWO_DICE_KINDS and len(dice) == 2:
                counts["2d6"][sum(dice)] += 1
    families = tuple(FamilyStats(f, tuple(counts[f.key][face] for face in f.faces)) for f in FAMILIES)
    return DiceStats(families, rolls, manual)


def rollers(entries: Iterable[dict[str, Any]]) -> tuple[list[int], list[int]]:
    """The players (entry actors) and the sides (Outcome actor_side) that rolled the bot's dice,
    in order of first roll."""
    players: dict[int, None] = {}
    sides: dict[int, None] = {}
    for entry in entries:
        outcome = entry.get("outcome") or {}
        if outcome.get("rolls") and not (outcome.get("manual_dice") or entry.get("manual")):
            players.setdefault(entry.get("actor"), None)
            if isinstance(outcome.get("actor_side"), int):
                sides.setdefault(outcome["actor_side"], None)
    return list(players), list(sides)


def summary(stats: DiceStats) -> str:
    """One line per player or side: "12 rolls; d6: 24, mean 3.42, p = 0.712; 2d6: 12, mean 7.08"."""
    parts = [f"{stats.rolls} roll{'s' if stats.rolls != 1 else ''}"]
    for family in stats.families:
        if family.n:
            p = f", p = {family.p_value:.3f}" if family.p_value is not None else ""
            parts.append(f"{family.family.key}: {family.n}, mean {family.mean:.2f}{p}")
    return "; ".join(parts)


# --- chi-square p-value -----------------------------------------------------------------------


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularized upper incomplete gamma function: a series for
    x < a + 1, else a continued fraction (modified Lentz), as in Numerical Recipes 6.2."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        denominator = a
        for _ in range(1000):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)


def chi_square_p(statistic: float, degrees_of_freedom: int) -> float:
    """The probability of a chi-square statistic at least this large with fair dice."""
    return regularized_gamma_q(degrees_of_freedom / 2, statistic / 2)


# --- the chart (PNG) --------------------------------------------------------------------------

WHITE, INK, OBSERVED, EXPECTED, GRID = range(5)
PALETTE = bytes([255, 255, 255, 40, 40, 46, 74, 122, 181, 230, 145, 56, 221, 223, 228])

PANEL_W, PANEL_H = 640, 210
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 30, 28  # margins around each panel's plot area
SCALE = 2  # font pixels per glyph pixel

# a 3x5 pixel font: each glyph is five rows of three bits
_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001010010010",
    "8": "111101111101111", "9": "111101111001111", "a": "000011101101011", "b": "100110101101110",
    "c": "000011100100011", "d": "001011101101011", "e": "000111111100011", "f": "011100110100100",
    "i": "010000010010010", "l": "110010010010111", "m": "000110111101101", "n": "000110101101101",
    "o": "000010101101010", "p": "000110101110100", "r": "000011100100100", "s": "000011110011110",
    "t": "010111010010011", "v": "000101101101010", "x": "000101010101101", "=": "000111000111000",
    ".": "000000000000010", " ": "000000000000000", "-": "000000111000000", ",": "000000000010100",
}


class _Canvas:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.pixels = bytearray([WHITE]) * (width * height)

    def rect(self, x0: int, y0: int, x1: int, y1: int, colour: int) -> None:
        """Fill [x0, x1) x [y0, y1), clipped to the canvas."""
        x0, x1 = max(0, x0), min(self.width, x1)
        for y in range(max(0, y0), min(self.height, y1)):
            row = y * self.width
            self.pixels[row + x0:row + x1] = bytes([colour]) * max(0, x1 - x0)

    def text(self, x: int, y: int, text: str, colour: int = INK) -> None:
        for char in text.lower():
            glyph = _GLYPHS.get(char, _GLYPHS[" "])
            for i, bit in enumerate(glyph):
                if bit == "1":
                    gx, gy = x + (i % 3) * SCALE, y + (i // 3) * SCALE
                    self.rect(gx, gy, gx + SCALE, gy + SCALE, colour)
            x += 4 * SCALE

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.pixels[y * self.width:(y + 1) * self.width])
                       for y in range(self.height))  # filter type 0 (None) on every row
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 3, 0, 0, 0)  # 8-bit palette
        return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"PLTE", PALETTE)
                + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b""))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def text_width(text: str) -> int:
    return len(text) * 4 * SCALE


def bar_boxes(stats: FamilyStats, top: int) -> list[tuple[tuple[int, int, int, int], tuple[int, int, int, int]]]:
    """(observed box, expected box) per face, as (x0, y0, x1, y1) within a panel starting at ``top``."""
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


def chart_png(stats: DiceStats) -> bytes:
    """Observed (blue) against expected (orange) bars, one panel per die family rolled."""
    panels = [f for f in stats.families if f.n] or [stats.families[0]]
    canvas = _Canvas(PANEL_W, PANEL_H * len(panels))
    for index, family in enumerate(panels):
        top = index * PANEL_H
        base = top + PANEL_H - BOTTOM
        p = family.p_value
        title = f"{family.family.title}  n={family.n}" + (f"  p={p:.3f}" if p is not None else "")
        canvas.text(LEFT, top + 8, title)
        legend_x = PANEL_W - RIGHT - text_width("observed expected") - 24
        canvas.rect(legend_x, top + 8, legend_x + 10, top + 18, OBSERVED)
        canvas.text(legend_x + 14, top + 8, "observed")
        legend_x += 14 + text_width("observed ") + 4
        canvas.rect(legend_x, top + 8, legend_x + 10, top + 18, EXPECTED)
        canvas.text(legend_x + 14, top + 8, "expected")
        for line in range(1, 4):  # light grid at a quarter, half, three quarters of the scale
            y = base - (PANEL_H - TOP - BOTTOM) * line // 4
            canvas.rect(LEFT, y, PANEL_W - RIGHT, y + 1, GRID)
        for face, (observed, expected) in zip(family.family.faces, bar_boxes(family, top)):
            canvas.rect(*observed, OBSERVED)
            canvas.rect(*expected, EXPECTED)
            label = str(face)
            centre = (observed[0] + expected[2]) // 2
            canvas.text(centre - text_width(label) // 2 + SCALE // 2, base + 8, label)
        canvas.rect(LEFT, base, PANEL_W - RIGHT, base + 1, INK)  # the axis
        canvas.rect(LEFT, top + TOP, LEFT + 1, base, INK)
        canvas.text(4, top + TOP, str(max([*family.observed, math.ceil(max(family.expected)), 1])))
    return canvas.png()
