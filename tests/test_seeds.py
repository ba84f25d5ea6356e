"""Fixed seeds in the default run (issue 28): the suite's randomness is the same every default run, a
fresh draw only with REFEREE_FULL_RELIABILITY=1, so a failure of the default run is one to replay."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

FULL = os.environ.get("REFEREE_FULL_RELIABILITY") == "1"
drawn: list[int] = []


def test_hypothesis_is_derandomized_in_the_default_run_and_explores_in_the_full_run():
    assert settings.default.derandomize is (not FULL)
    assert settings.default.database is None or FULL  # no example database kept between default runs


@settings(max_examples=5)
@given(st.integers())
def _draw(value: int) -> None:
    drawn.append(value)


def test_a_tests_own_settings_keep_the_default_runs_fixed_examples():
    _draw()
    first = list(drawn)
    drawn.clear()
    _draw()
    assert first and (FULL or drawn == first)  # the same examples again (the full run draws afresh)


def test_the_crash_test_takes_a_fixed_seed_by_default_and_a_fresh_one_with_the_switch(monkeypatch):
    from tests.reliability import test_crash

    monkeypatch.delenv("REFEREE_RELIABILITY_SEED", raising=False)
    monkeypatch.setattr(test_crash, "FULL", False)
    assert test_crash.crash_seed() == test_crash.crash_seed() == test_crash.DEFAULT_SEED
    monkeypatch.setattr(test_crash, "FULL", True)
    assert test_crash.crash_seed() != test_crash.crash_seed()  # 32 fresh bits each time
    monkeypatch.setenv("REFEREE_RELIABILITY_SEED", "12345")
    assert test_crash.crash_seed() == 12345  # a replay
