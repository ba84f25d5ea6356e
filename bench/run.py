"""Every benchmark, one table: metric, value, min-max over the rounds, unit, target, pass/fail.

    .venv/bin/python bench/run.py            (or: .venv/bin/python -m bench)
    .venv/bin/python bench/run.py --quick    (tiny sizes: checks the benchmarks run, measures nothing)
    .venv/bin/python bench/run.py rules e2e  (only some of: rules, odds, e2e, store, scale, map, replay)
    .venv/bin/python bench/run.py --help

The ratios (deep copy / working copy, load 10,000 / 100 entries, our figures / the floor bot's)
are measured in the same run as the figures they compare; the end-to-end figures are the median
of three rounds, with their min and max. Every target of issue 14 is a row with pass or FAIL.
The exit status is 1 when a target is missed, so CI can run it; docs/performance.md holds the
figures of the 2-core machine.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Metric

# name -> module; bench_odds is written separately (exact odds) and may not be there yet
SUITES = {"rules": "bench.bench_rules", "odds": "bench.bench_odds", "e2e": "bench.bench_e2e",
          "store": "bench.bench_store", "scale": "bench.bench_scale",
          "map": "bench.bench_map", "replay": "bench.bench_replay"}


def _as_metrics(suite: str, result: Any) -> list[Metric]:
    """A suite's result as table rows: Metrics as they are; other shapes (a dict of name ->
    value, rows with name/value/unit attributes or keys) are read as far as they go."""
    if result is None:
        return []
    if isinstance(result, Metric):
        return [result]
    if isinstance(result, dict) and not {"name", "value"} <= set(result):
        return [Metric(f"{suite}: {name}", float(value), "") for name, value in result.items()]
    rows = result if isinstance(result, (list, tuple)) else [result]
    metrics = []
    for row in rows:
        if isinstance(row, Metric):
            metrics.append(row)
            continue
        get = row.get if isinstance(row, dict) else (lambda key, default=None, r=row: getattr(r, key, default))
        passed = get("passed", None)
        metrics.append(Metric(str(get("name", suite)), float(get("value", 0.0)), str(get("unit", "") or ""),
                              get("target", None), None if passed is None else bool(passed)))
    return metrics


def run_suite(suite: str, quick: bool) -> tuple[list[Metric], str | None]:
    """(rows, None), or ([], why) when the suite is not available."""
    module_name = SUITES[suite]
    if importlib.util.find_spec(module_name) is None:
        return [], "not available"
    module = importlib.import_module(module_name)
    runner: Callable[..., Any] | None = getattr(module, "run", None)
    if runner is None:
        return [], "not available (no run())"
    accepts_quick = "quick" in inspect.signature(runner).parameters
    return _as_metrics(suite, runner(quick=quick) if accepts_quick else runner()), None


def number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def format_table(rows: Sequence[Metric]) -> str:
    header = ("metric", "value", "min-max", "unit", "target", "result")
    body = [(m.name, number(m.value), f"{number(m.spread[0])}-{number(m.spread[1])}" if m.spread else "",
             m.unit, m.target or "", m.verdict) for m in rows]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = ["  ".join([r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].rjust(widths[2]),
                        r[3].ljust(widths[3]), r[4].ljust(widths[4]), r[5]]).rstrip() for r in [header, *body]]
    lines.insert(1, "-" * max(len(line) for line in lines))
    return "\n".join(lines)


def machine() -> str:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, "
            f"{cpus} CPU(s) available, load average {os.getloadavg()[0]:.2f}"
            if hasattr(os, "getloadavg") else f"Python {platform.python_version()}, {cpus} CPU(s)")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="bench/run.py", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    made.add_argument("suites", nargs="*", metavar="SUITE",
                      help=f"only these benchmarks, of: {', '.join(SUITES)} (default: all)")
    made.add_argument("--quick", action="store_true", help="tiny sizes: checks the benchmarks run, measures nothing")
    return made


def main(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a wrong option (2): argparse has said why
        return int(exc.code or 0)
    quick = args.quick
    chosen = args.suites or list(SUITES)
    unknown = [s for s in chosen if s not in SUITES]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)} (choose from: {', '.join(SUITES)})", file=sys.stderr)
        return 2
    print(machine() + (" -- quick sizes, figures not meaningful" if quick else ""))
    rows: list[Metric] = []
    for suite in chosen:
        start = time.perf_counter()
        metrics, missing = run_suite(suite, quick)
        took = time.perf_counter() - start
        print(f"  {suite}: {missing or f'{len(metrics)} figures in {took:.1f} s'}", flush=True)
        rows += metrics
    print()
    print(format_table(rows))
    missed = [m for m in rows if m.passed is False]
    print(f"\n{len(rows)} figures; {sum(m.passed is True for m in rows)} targets met, {len(missed)} missed"
          + (f": {', '.join(m.name for m in missed)}" if missed else ""))
    return 1 if missed and not quick else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
