"""What every benchmark returns: rows of the one table ``bench/run.py`` prints."""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # ``python bench/run.py`` from the checkout, without installing
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Metric:
    """One measured figure; ``target`` and ``passed`` stay None for figures without a target.
    ``spread``: (min, max) over the rounds when ``value`` is their median; ``item``: the work item
    of issue 14 that addresses the target."""

    name: str
    value: float
    unit: str
    target: str | None = None
    passed: bool | None = None
    spread: tuple[float, float] | None = None
    item: int | None = None

    @property
    def verdict(self) -> str:
        if self.passed is None:
            return "-"
        if self.passed:
            return "pass"
        return "FAIL"


def at_least(name: str, value: float, unit: str, floor: float, item: int | None = None) -> Metric:
    return Metric(name, value, unit, f">= {floor:g}", value >= floor, item=item)


def at_most(name: str, value: float, unit: str, ceiling: float, item: int | None = None) -> Metric:
    return Metric(name, value, unit, f"<= {ceiling:g}", value <= ceiling, item=item)


def over_rounds(name: str, values: list[float], unit: str, *, at_least: float | None = None,
                at_most: float | None = None, item: int | None = None) -> Metric:
    """The median of one figure measured in several rounds, with its min and max; a target is
    judged on the median."""
    value = statistics.median(values)
    spread = (min(values), max(values)) if len(values) > 1 else None
    if at_least is not None:
        return Metric(name, value, unit, f">= {at_least:g}", value >= at_least, spread, item)
    if at_most is not None:
        return Metric(name, value, unit, f"<= {at_most:g}", value <= at_most, spread, item)
    return Metric(name, value, unit, spread=spread, item=item)


def arguments(argv: list[str], doc: str | None, prog: str,
              add: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """A benchmark script's command line (issue 14 item 6): ``--help`` prints its docstring and
    options and exits 0 before anything is measured; a wrong option exits 2 saying why."""
    parser = argparse.ArgumentParser(prog=prog, description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    if add is not None:
        add(parser)
    return parser.parse_args(argv)


def percentile(samples: list[float], pct: float) -> float:
    """Nearest-rank percentile (p99 of 1,000 samples is the 990th smallest)."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def median(samples: list[float]) -> float:
    return statistics.median(samples)
