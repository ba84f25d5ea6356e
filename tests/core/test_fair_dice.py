"""The production dice are fair (Issue 6, item 7).

Two kinds of proof:
- exact: ``SystemDice`` asks ``secrets.randbelow`` for exactly one number below the die's faces
  (no wider draw folded down with ``%``), and ``randbelow`` is a rejection method: fed every
  k-bit pattern once, it returns each face exactly once and rejects the rest;
- statistical: chi-square goodness of fit of the real ``SystemDice``: a million d6 draws in
  every run; d10 over 100,000 draws and the 36 (white, colored) cells of an ASL DR over 30,000
  DRs by default, a million d10 and 500,000 DRs with REFEREE_FULL_RELIABILITY=1. The threshold is
  p < 1e-6, so a fair die fails about once in a million runs, while the classic modulo bias
  (a random byte % 6: faces 1-4 get 43/256, 5-6 get 42/256) gives a chi-square near 122 over
  a million d6 draws and cannot pass.
"""

from __future__ import annotations

import ast
import inspect
import math
import os
import random
import secrets
from collections import Counter
from pathlib import Path

import pytest

import bot.core
from bot.core import dice as dice_module
from bot.core.dice import Roller, SystemDice

FULL = os.environ.get("REFEREE_FULL_RELIABILITY") == "1"
D6_DRAWS = 1_000_000
DRAWS = 1_000_000 if FULL else 100_000
DR_ROLLS = 500_000 if FULL else 30_000
P_FAIL = 1e-6


def chi_square(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def chi2_survival(x: float, df: int) -> float:
    """P(X >= x) for a chi-square with ``df`` degrees of freedom: the regularized upper incomplete
    gamma Q(df/2, x/2), by its series (converges for every x; plenty for x below a few hundred)."""
    a, z = df / 2, x / 2
    if z == 0:
        return 1.0
    term = total = 1.0 / a
    n = 1
    while term > total * 1e-15:
        term *= z / (a + n)
        total += term
        n += 1
    lower = math.exp(a * math.log(z) - z - math.lgamma(a)) * total
    return max(0.0, 1.0 - lower)


def test_the_chi_square_tail_matches_known_critical_values():
    # textbook critical values: the tail helper itself must be right for the test to mean anything
    assert chi2_survival(11.070, 5) == pytest.approx(0.05, abs=1e-4)
    assert chi2_survival(20.515, 5) == pytest.approx(0.001, abs=1e-5)
    assert chi2_survival(16.919, 9) == pytest.approx(0.05, abs=1e-4)
    assert chi2_survival(49.802, 35) == pytest.approx(0.05, abs=1e-4)


def _faces(sides: int, draws: int) -> list[int]:
    die = SystemDice()
    counts = [0] * (sides + 1)
    draw = die.draw
    for _ in range(draws):
        counts[draw(sides)] += 1
    assert counts[0] == 0, "a die read 0"
    return counts[1:]


@pytest.mark.parametrize(("sides", "draws"), [(6, D6_DRAWS), (10, DRAWS)])
def test_system_dice_pass_chi_square(sides, draws):
    counts = _faces(sides, draws)
    assert sum(counts) == draws and len(counts) == sides  # every face 1..sides, nothing outside
    stat = chi_square(counts, draws / sides)
    p = chi2_survival(stat, sides - 1)
    assert p > P_FAIL, f"d{sides} over {draws} draws: counts {counts}, chi-square {stat:.1f}, p {p:.2g}"
    print(f"d{sides}: {draws} draws, chi-square {stat:.2f} ({sides - 1} df), p {p:.3f}")
    # and no face strays more than 6 standard deviations from its share
    sigma = math.sqrt(draws * (1 / sides) * (1 - 1 / sides))
    assert max(abs(c - draws / sides) for c in counts) < 6 * sigma


def test_the_white_and_colored_dice_of_a_dr_are_independent_and_uniform():
    roller = Roller(SystemDice())
    pairs = DR_ROLLS
    cells = Counter(roller.DR("chi-square").dice for _ in range(pairs))
    counts = [cells[(w, c)] for w in range(1, 7) for c in range(1, 7)]
    stat = chi_square(counts, pairs / 36)
    p = chi2_survival(stat, 35)
    assert p > P_FAIL, f"DR cells over {pairs} rolls: chi-square {stat:.1f}"
    print(f"DR: {pairs} rolls, chi-square {stat:.2f} (35 df), p {p:.3f}")
    doubles = sum(cells[(d, d)] for d in range(1, 7))
    assert abs(doubles - pairs / 6) < 6 * math.sqrt(pairs * (1 / 6) * (5 / 6))  # cowering rate A7.9


def test_a_modulo_biased_die_is_caught_by_the_same_test():
    # the test has teeth: a d6 made as ``random byte % 6`` (faces 1-4: 43/256, 5-6: 42/256),
    # at the expected counts of a million draws, is far beyond the threshold
    counts = [D6_DRAWS * 43 / 256] * 4 + [D6_DRAWS * 42 / 256] * 2
    stat = chi_square(counts, D6_DRAWS / 6)
    assert stat == pytest.approx(122.07, abs=0.01)
    assert chi2_survival(stat, 5) < P_FAIL


def test_system_dice_draw_exactly_one_randbelow_of_the_faces(monkeypatch):
    # no modulo bias: the die is one draw below ``sides`` plus one, never a wider draw folded
    # down (e.g. ``randbits(8) % 6`` would favour 1-4)
    asked: list[int] = []

    def recording_randbelow(n: int) -> int:
        asked.append(n)
        return n - 1

    monkeypatch.setattr(secrets, "randbelow", recording_randbelow)
    die = SystemDice()
    assert [die.draw(6), die.draw(10), die.draw(6)] == [6, 10, 6]
    assert asked == [6, 10, 6]
    source = inspect.getsource(SystemDice.draw)
    assert "%" not in source and "randbelow(sides)" in source


class _EveryPattern(random.Random):
    """A bit source that hands out each k-bit pattern once, in order: randbelow's whole input space."""

    def __init__(self, k: int):
        super().__init__(0)
        self.patterns = iter(range(2 ** k))
        self.k = k
        self.calls = 0

    def getrandbits(self, k: int) -> int:
        assert k == self.k, f"randbelow asked for {k} bits, expected {self.k}"
        pattern = next(self.patterns)  # StopIteration once all 2^k patterns were handed out
        self.calls += 1
        return pattern


@pytest.mark.parametrize("sides", [6, 10])
def test_randbelow_is_a_rejection_method_with_every_face_exactly_once(sides):
    # secrets.randbelow(n) is SystemRandom()._randbelow(n): draw k = n.bit_length() bits and
    # reject any value >= n. Over all 2^k patterns each face 0..n-1 is returned exactly once.
    assert "_sysrand._randbelow(" in inspect.getsource(secrets.randbelow)
    assert isinstance(secrets._sysrand, random.SystemRandom)
    assert random.SystemRandom._randbelow is random.Random._randbelow_with_getrandbits
    k = sides.bit_length()
    source = _EveryPattern(k)
    results = []
    while True:
        try:
            results.append(source._randbelow(sides))  # the very method secrets.randbelow is bound to
        except StopIteration:
            break
    assert sorted(results) == list(range(sides))
    assert source.calls == 2 ** k  # the 2^k - n patterns beyond the faces were rejected, not folded


def test_no_die_in_the_core_is_drawn_any_other_way():
    # every die of every ruleset goes through DiceSource.draw; the only RNG calls in the core are
    # SystemDice's randbelow, SeededDice's own Random.randint (also a rejection method) and the
    # committed dice's seed (token_bytes; its dice are HMACs of it, tests/core/test_committed_dice.py)
    rng_calls = {"randbelow", "randint", "randrange", "random", "getrandbits", "choice", "choices",
                 "shuffle", "sample", "urandom", "token_bytes", "uniform"}
    found = []
    for path in Path(bot.core.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in rng_calls:
                found.append(f"{path.name}:{node.lineno}:{node.func.attr}")
    assert sorted(found) == sorted([f"dice.py:{_line('secrets.randbelow')}:randbelow",
                                    f"dice.py:{_line('self._rng.randint')}:randint",
                                    f"dice.py:{_line('secrets.token_bytes')}:token_bytes"])


def _line(text: str) -> int:
    lines = inspect.getsource(dice_module).splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line and "return" in line)
