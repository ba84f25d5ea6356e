"""What every benchmark returns: rows of the one table ``bench/run.py`` prints."""

from __future__ import annotations

import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # ``python bench/run.py`` from the checkout, without installing
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Metric:
    """One measured figure; ``target`` and ``passed`` stay None for figures without a target."""

    name: str
    value: float
    unit: str
    target: str | None = None
    passed: bool | None = None

    @property
    def verdict(self) -> str:
        return "-" if self.passed is None else ("pass" if self.passed else "FAIL")


def at_least(name: str, value: float, unit: str, floor: float) -> Metric:
    return Metric(name, value, unit, f">= {floor:g}", value >= floor)


def at_most(name: str, value: float, unit: str, ceiling: float) -> Metric:
    return Metric(name, value, unit, f"<= {ceiling:g}", value <= ceiling)


def percentile(samples: list[float], pct: float) -> float:
    """Nearest-rank percentile (p99 of 1,000 samples is the 990th smallest)."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def median(samples: list[float]) -> float:
    return statistics.median(samples)
