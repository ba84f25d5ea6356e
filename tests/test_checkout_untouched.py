"""The suite writes nothing into the checkout (issue 28): the load test's cached game (bench/.cache
for a person running the benchmarks) and hypothesis's example database (./.hypothesis by default)
go to a folder of the system's temporary files (tests/conftest.py); pytest's own cache is the
runner's choice (`-p no:cacheprovider`)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.configuration import storage_directory

from bench import load_game

ROOT = Path(__file__).resolve().parents[1]


def test_the_load_tests_cached_game_is_kept_outside_the_checkout():
    assert not load_game.CACHE_DIR.resolve().is_relative_to(ROOT)
    assert os.environ["REFEREE_BENCH_CACHE"] == str(load_game.CACHE_DIR)


def test_the_bench_cache_folder_is_a_setting_and_bench_cache_without_it(monkeypatch):
    try:
        monkeypatch.delenv("REFEREE_BENCH_CACHE")
        assert importlib.reload(load_game).CACHE_DIR == ROOT / "bench" / ".cache"
        monkeypatch.setenv("REFEREE_BENCH_CACHE", "/somewhere/else")
        assert importlib.reload(load_game).CACHE_DIR == Path("/somewhere/else")
    finally:
        monkeypatch.undo()
        importlib.reload(load_game)  # the suite's own folder again, for the tests after this one


@settings(max_examples=5)
@given(st.integers())
def test_hypothesis_keeps_its_examples_outside_the_checkout(number):
    where = storage_directory("examples", intent_to_write=False)
    assert not Path(getattr(where, "path", where)).resolve().is_relative_to(ROOT)  # an object in newer versions
