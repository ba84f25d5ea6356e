"""Dice statistics over a game's log: counts, means, observed against expected, chi-square, a chart.

"The dice hate me" settled with numbers. Three families are tallied from the Outcomes' rolls:

* ``d6``: every six-sided die face (ASL DR and dr, NHiS 2d6 and d6), expected 1/6 each;
* ``d10``: every ten-sided die face (Command Decision), expected 1/10 each;
* ``2d6``: the totals 2..12 of two-dice rolls (ASL DR, NHiS 2d6), expected 1..6..1 in 36.

A roll counts for the player who gave the command (the log entry's actor) and for the side the
Outcome acted for. Undone entries count: their dice were rolled. Manual dice (thrown at the
table by the players and typed in) are left out and counted apart: they say nothing about the
bot's dice. The p-value is the chi-square upper tail, in its closed form for whole degrees of
freedom (``chi_square_p``); with fewer than 5 expected per cell the test is not reliable, and it
is not given.

The chart is drawn by ``bot.pictures.chart`` (Pillow).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MIN_EXPECTED = 5.0  # the usual rule for a chi-square test: at least 5 expected per cell

# --- tallies ------------------------------------------------------------------------------------

TWO_D6_WAYS = {total: 6 - abs(total - 7) for total in range(2, 13)}  # 1, 2, ..., 6, ..., 1 of 36


UNFAIR_BELOW = 0.01  # a p-value below this says the dice look unfair


@dataclass(frozen=True)
class Family:
    key: str
    title: str
    faces: tuple[int, ...]
    weights: tuple[float, ...]  # expected probability of each face
    axis: str = "face"  # what the chart's horizontal axis shows
    counted: str = "dice"  # what ``n`` counts: dice, or rolls of two dice

    @property
    def unit(self) -> str:
        return self.axis

    def rolls_words(self, count: int) -> str:
        return f"{count} {self.counted}"

    @property
    def expected_mean(self) -> float:
        return sum(f * w for f, w in zip(self.faces, self.weights))


FAMILIES = (
    Family("d6", "d6 faces", tuple(range(1, 7)), tuple([1 / 6] * 6)),
    Family("d10", "d10 faces", tuple(range(1, 11)), tuple([1 / 10] * 10)),
    Family("2d6", "2d6 totals", tuple(range(2, 13)), tuple(TWO_D6_WAYS[t] / 36 for t in range(2, 13)),
           axis="total", counted="rolls"),
)
TWO_DICE_KINDS = {"DR", "2d6"}
D10_KINDS = {"d10", "nd10"}  # the kinds whose dice are d10s (a public /roll of several d10 is nd10)


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
            family = counts["d10" if kind in D10_KINDS else "d6"]
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


def chi_square_p(statistic: float, degrees_of_freedom: int) -> float:
    """The probability of a chi-square statistic at least this large with fair dice: the upper
    tail Q(k/2, x/2) in its closed form for a whole number k of degrees of freedom (the bot's
    families have 5, 9 and 10), exact to rounding, with no library:

    * k = 2m (even):     Q = e^-y (1 + y + y^2/2! + ... + y^(m-1)/(m-1)!),  y = x/2;
    * k = 2m + 1 (odd):  Q = erfc(sqrt y) + e^-y (y^(1/2)/Γ(3/2) + y^(3/2)/Γ(5/2) + ... + y^(m-1/2)/Γ(m+1/2)).

    Both come from integrating the gamma density by parts (Abramowitz and Stegun 26.4.4, 26.4.5).
    SciPy's ``chi2.sf`` gives the same numbers, but weighs tens of megabytes for this one function."""
    if degrees_of_freedom < 1 or int(degrees_of_freedom) != degrees_of_freedom:
        raise ValueError("the degrees of freedom are a whole number, at least 1")
    if statistic <= 0:
        return 1.0
    y = statistic / 2
    m, odd = divmod(int(degrees_of_freedom), 2)
    if odd:
        term = 2 * math.sqrt(y / math.pi)  # y^(1/2) / Γ(3/2)
        total = 0.0
        for j in range(m):
            total += term
            term *= y / (j + 1.5)  # y^(j+3/2) / Γ(j+5/2)
        tail = math.erfc(math.sqrt(y))
    else:
        term, total = 1.0, 0.0
        for j in range(m):
            total += term
            term *= y / (j + 1)
        tail = 0.0
    return min(1.0, tail + math.exp(-y) * total)
