"""The benchmarks still run (so they cannot rot): every suite at its tiny size, through the one
command players of the repo use, ``python bench/run.py``, in a real subprocess.

Only that they run and report every figure is checked here, not the figures themselves: the
sizes are too small to measure anything, and CI machines differ (docs/performance.md).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import run as bench_run
from bench.common import Metric, percentile

ROOT = Path(__file__).resolve().parents[1]

# each suite's rows, by a stable start of their names: a renamed or lost figure fails here
EXPECTED_ROWS = [
    "rules: ASL fire group vs 3-unit stack", "rules: ASL NMC with leader", "rules: NHiS fire with morale",
    "rules: CD direct fire", "rules: deep copy / working copy",
    "e2e /fire: commands/s", "e2e /fire: p50 latency", "e2e /fire: p99 latency", "e2e /fire floor: p99 latency",
    "e2e /fire: p99 ours / p99 floor", "e2e /morale: commands/s", "e2e /morale: p99 ours / p99 floor",
    "store: load, log of", "store: DB bytes/entry, phase orders", "store: DB bytes/entry, standard game: /fire",
    "store: DB bytes/entry, standard game: turn mix",
]


@pytest.fixture(scope="module")
def quick_run() -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "bench/run.py", "--quick"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_one_command_runs_every_benchmark_at_tiny_size(quick_run):
    assert quick_run.returncode == 0, quick_run.stderr[-3000:]
    out = quick_run.stdout
    for suite in ("rules", "e2e", "store"):
        assert re.search(rf"^  {suite}: \d+ figures in", out, re.MULTILINE), out
    # the odds benchmark is another module: reported when present, "not available" otherwise
    assert re.search(r"^  odds: (\d+ figures in|not available)", out, re.MULTILINE), out


def test_the_table_has_every_figure_with_value_unit_target_and_result(quick_run):
    table = quick_run.stdout.split("\n\n")[1]
    lines = table.splitlines()
    assert lines[0].split() == ["metric", "value", "unit", "target", "result"]
    rows = lines[2:]
    for expected in EXPECTED_ROWS:
        assert any(row.startswith(expected) for row in rows), f"{expected!r} missing from\n{table}"
    targeted = [row for row in rows if row.rstrip().endswith(("pass", "FAIL"))]
    assert any(row.startswith("rules: ASL fire group") and ">= 10000" in row for row in targeted)
    assert any(row.startswith("store: DB bytes/entry, standard game: /fire") and "<= 2048" in row for row in targeted)


def test_a_missing_benchmark_module_is_reported_not_available(monkeypatch):
    monkeypatch.setitem(bench_run.SUITES, "odds", "bench.bench_that_does_not_exist")
    assert bench_run.run_suite("odds", quick=True) == ([], "not available")


def test_rows_of_other_shapes_are_read_into_the_table():
    rows = bench_run._as_metrics("odds", [{"name": "odds: worst", "value": 12.5, "unit": "ms", "target": "<= 50",
                                           "passed": True}])
    assert rows == [Metric("odds: worst", 12.5, "ms", "<= 50", True)]
    assert bench_run._as_metrics("odds", {"worst ms": 3}) == [Metric("odds: worst ms", 3.0, "")]
    table = bench_run.format_table(rows + [Metric("x", 1234.5, "cmd/s")])
    assert "odds: worst  12.50  ms     <= 50   pass" in table
    assert "1,234" in table


def test_percentiles_are_nearest_rank():
    samples = [float(i) for i in range(1, 101)]  # 1 .. 100
    assert percentile(samples, 99) == 99.0
    assert percentile(samples, 50) == 50.0
    assert percentile([5.0], 99) == 5.0
    assert percentile(list(range(1, 1001)), 99) == 990
