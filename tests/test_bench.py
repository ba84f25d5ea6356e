"""The benchmarks still run (so they cannot rot), through the one command players of the repo use,
``python bench/run.py``, in a real subprocess at its tiny size.

Only that they run and report every figure is checked here, not the figures themselves: the
sizes are too small to measure anything, and CI machines differ (docs/performance.md).

The default run runs the quick suites (rules, odds, store, map, replay: a few seconds) and checks
their rows; the end-to-end and scale suites start bots and worker processes (most of the 15.7 s every
suite took), so their runs and rows are checked with the full switch, REFEREE_FULL_RELIABILITY=1 (the
default run still imports every benchmark script and prints its help: test_each_benchmark_script_...).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import run as bench_run
from bench.common import Metric, percentile

ROOT = Path(__file__).resolve().parents[1]
FULL = os.environ.get("REFEREE_FULL_RELIABILITY") == "1"
QUICK_SUITES = ("rules", "odds", "store", "map", "replay")  # run in the default run
SLOW_SUITES = ("e2e", "scale")  # bots and worker processes: with the full switch

# each suite's rows, by a stable start of their names: a renamed or lost figure fails here
EXPECTED_ROWS = {
    "rules": ["rules: ASL fire group vs 3-unit stack", "rules: ASL NMC with leader", "rules: NHiS fire with morale",
              "rules: CD direct fire", "rules: deep copy / working copy"],
    "e2e": ["e2e /fire: commands/s", "e2e /fire: p50 latency", "e2e /fire: p99 latency",
            "e2e /fire floor: p99 latency", "e2e /fire: p99 ours / p99 floor", "e2e /morale: commands/s",
            "e2e /morale: p99 ours / p99 floor",
            # issue 14: the bot's event-loop CPU beside the floor's, the long logs, the loop probe
            "e2e /fire: loop CPU per command", "e2e /fire floor: loop CPU per command",
            "e2e /fire: loop CPU ours / floor", "e2e /fire floor, our reply copied (",
            "e2e /fire: loop CPU ours / the floor with our reply", "e2e /morale: loop CPU ours / floor",
            "e2e /undo proposal, ", "e2e Odds button, ", "e2e /log export (Markdown), ", "e2e /log verify, ",
            "e2e loop stall (longest gap) during /log export", "e2e loop stall (longest gap) during /fire"],
    "store": ["store: load, log of", "store: DB bytes/entry, phase orders", "store: DB bytes/entry, standard game: /fire",
              "store: DB bytes/entry, standard game: turn mix", "store: reminder scan, ", "store: /games, "],
    "map": ["map: 60-counter ASL map render"],  # issue 16: <= 150 ms
}
needs_full = pytest.mark.skipif(not FULL, reason="runs the end-to-end and scale benchmarks (bots, worker processes: "
                                                 "most of the 15.7 s every suite takes): REFEREE_FULL_RELIABILITY=1")


def bench(*suites: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "bench/run.py", "--quick", *suites], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def quick_run() -> subprocess.CompletedProcess[str]:
    return bench(*QUICK_SUITES)


@pytest.fixture(scope="module")
def slow_run() -> subprocess.CompletedProcess[str]:
    return bench(*SLOW_SUITES)


def table_rows(run: subprocess.CompletedProcess[str]) -> list[str]:
    return run.stdout.split("\n\n")[1].splitlines()[2:]


def test_the_one_command_runs_the_quick_benchmarks_at_tiny_size(quick_run):
    assert quick_run.returncode == 0, quick_run.stderr[-3000:]
    out = quick_run.stdout
    for suite in ("rules", "store", "map", "replay"):
        assert re.search(rf"^  {suite}: \d+ figures in", out, re.MULTILINE), out
    # the odds benchmark is another module: reported when present, "not available" otherwise
    assert re.search(r"^  odds: (\d+ figures in|not available)", out, re.MULTILINE), out


@needs_full
def test_the_one_command_runs_the_end_to_end_and_scale_benchmarks_at_tiny_size(slow_run):
    assert slow_run.returncode == 0, slow_run.stderr[-3000:]
    for suite in SLOW_SUITES:
        assert re.search(rf"^  {suite}: \d+ figures in", slow_run.stdout, re.MULTILINE), slow_run.stdout
    rows = table_rows(slow_run)
    for expected in EXPECTED_ROWS["e2e"]:
        assert any(row.startswith(expected) for row in rows), f"{expected!r} missing from\n{slow_run.stdout}"


def test_every_suite_is_run_by_default_or_with_the_full_switch_and_has_a_quick_mode():
    # a suite left out of both lists would never run in a test
    assert set(QUICK_SUITES) | set(SLOW_SUITES) == set(bench_run.SUITES)
    assert set(EXPECTED_ROWS) <= set(bench_run.SUITES)
    for suite in SLOW_SUITES:  # imported, with the quick size the full run uses
        module = importlib.import_module(bench_run.SUITES[suite])
        assert "quick" in inspect.signature(module.run).parameters, suite


def test_the_table_has_every_figure_with_value_unit_target_and_result(quick_run):
    table = quick_run.stdout.split("\n\n")[1]
    lines = table.splitlines()
    assert lines[0].split() == ["metric", "value", "min-max", "unit", "target", "result"]
    rows = lines[2:]
    for suite in QUICK_SUITES:
        for expected in EXPECTED_ROWS.get(suite, ()):
            assert any(row.startswith(expected) for row in rows), f"{expected!r} missing from\n{table}"
    targeted = [row for row in rows if re.search(r"(pass|FAIL)$", row.rstrip())]
    assert any(row.startswith("rules: ASL fire group") and ">= 10000" in row for row in targeted)
    assert any(row.startswith("store: DB bytes/entry, standard game: /fire") and "<= 2048" in row for row in targeted)


@needs_full
def test_end_to_end_figures_give_the_spread_of_their_rounds(slow_run):
    rows = table_rows(slow_run)
    cpu = next(row for row in rows if row.startswith("e2e /fire: loop CPU per command"))
    low, high = re.search(r"([\d.,]+)-([\d.,]+)\s+ms", cpu).groups()  # min-max of the rounds
    assert float(low.replace(",", "")) <= float(high.replace(",", ""))


def test_help_prints_help_and_runs_nothing():
    done = subprocess.run([sys.executable, "bench/run.py", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0
    assert "bench/run.py --quick" in done.stdout and "figures in" not in done.stdout
    wrong = subprocess.run([sys.executable, "bench/run.py", "--fast"], cwd=ROOT, capture_output=True, text=True,
                           timeout=60, check=False)
    assert wrong.returncode == 2 and "--fast" in wrong.stderr


def test_a_missing_benchmark_module_is_reported_not_available(monkeypatch):
    monkeypatch.setitem(bench_run.SUITES, "odds", "bench.bench_that_does_not_exist")
    assert bench_run.run_suite("odds", quick=True) == ([], "not available")


def test_rows_of_other_shapes_are_read_into_the_table():
    rows = bench_run._as_metrics("odds", [{"name": "odds: worst", "value": 12.5, "unit": "ms", "target": "<= 50",
                                           "passed": True}])
    assert rows == [Metric("odds: worst", 12.5, "ms", "<= 50", True)]
    assert bench_run._as_metrics("odds", {"worst ms": 3}) == [Metric("odds: worst ms", 3.0, "")]
    table = bench_run.format_table(rows + [Metric("x", 1234.5, "cmd/s", spread=(1000.0, 1500.5))])
    assert re.search(r"odds: worst  12.50 +ms +<= 50 +pass", table)
    assert "1,000-1,500" in table
    assert "1,234" in table


def test_percentiles_are_nearest_rank():
    samples = [float(i) for i in range(1, 101)]  # 1 .. 100
    assert percentile(samples, 99) == 99.0
    assert percentile(samples, 50) == 50.0
    assert percentile([5.0], 99) == 5.0
    assert percentile(list(range(1, 1001)), 99) == 990


def test_a_save_is_timed_by_part_against_a_bare_update_and_over_rounds(quick_run):
    """Issue 14's save target: the save's parts (serialize, compress, statements, the COMMIT's
    fsync, the hand-over) each a row, beside the floor of a bare SQLite UPDATE of the same bytes,
    and the save itself as min/median/max over three rounds."""
    rows = quick_run.stdout.split("\n\n")[1].splitlines()[2:]
    for part in ("serialize the state", "compress the row", "statements and Python", "the COMMIT's fsync",
                 "hand-over to the database thread"):
        assert any(re.match(rf"store: save, \d+ units, part: {part}", row) for row in rows), part
    assert any(re.match(r"store: save floor, \d+ units: bare UPDATE of the row's bytes, no fsync", row) for row in rows)
    save = next(row for row in rows if re.match(r"store: save, \d+ units \(state \+ entry, fsync\), by rounds", row))
    assert re.search(r"[\d.,]+-[\d.,]+\s+ms", save), save


# every script of bench/ and how it is run (issue 14 item 6): --help prints its help and measures nothing
SCRIPTS = {"run.py": ["bench/run.py"], "__main__.py": ["-m", "bench"], "bench_rules.py": ["bench/bench_rules.py"],
           "bench_store.py": ["bench/bench_store.py"], "bench_odds.py": ["bench/bench_odds.py"],
           "bench_map.py": ["bench/bench_map.py"], "bench_e2e.py": ["bench/bench_e2e.py"],
           "bench_scale.py": ["bench/bench_scale.py"], "e2e_bot.py": ["-m", "bench.e2e_bot"],
           "bench_replay.py": ["bench/bench_replay.py"], "load_game.py": ["-m", "bench.load_game"]}


def test_every_benchmark_script_is_in_the_help_test():
    scripts = {path.name for path in (ROOT / "bench").glob("*.py")
               if path.name == "__main__.py" or 'if __name__ == "__main__":' in path.read_text()}
    assert scripts == set(SCRIPTS)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_each_benchmark_script_prints_its_help_and_exits_0_without_measuring(script):
    done = subprocess.run([sys.executable, *SCRIPTS[script], "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: "), done.stdout[:500]
    assert "--help" in done.stdout and not done.stderr  # nothing measured, nothing started
