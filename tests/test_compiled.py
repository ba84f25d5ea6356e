"""The opt-in compiled build (`python3 dev.py compile`, README "Compiled rules core"): the guard
against a compiled module older than its source, the wheel free of compiled files (test_packaging),
and, behind REFEREE_COMPILED=1, the build itself: each listed module imports compiled, and the
205-case golden and the type check pass on it.

The default suite (and .ci/run) builds nothing: the build is a host's choice, and takes a minute or
two of a C compiler."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import dev
from bot import compiled

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = EXTENSION_SUFFIXES[0]  # what this interpreter builds: ".cpython-311-x86_64-linux-gnu.so"


def _touch(path: Path, when: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    os.utime(path, (when, when))


def _package(tmp_path: Path) -> Path:
    """A package with one fresh compiled module, one stale, mypyc's shared library, and a source alone."""
    bot = tmp_path / "bot"
    _touch(bot / "core" / "fresh.py", 1_000)
    _touch(bot / "core" / f"fresh{SUFFIX}", 2_000)
    _touch(bot / "core" / "edited.py", 3_000)
    _touch(bot / "core" / f"edited{SUFFIX}", 2_000)
    _touch(bot / f"{compiled.GROUP}__mypyc{SUFFIX}", 2_000)
    _touch(bot / "plain.py", 5_000)
    return bot


def test_a_compiled_module_older_than_its_source_is_named(tmp_path):
    bot = _package(tmp_path)
    assert compiled.extensions(bot) == sorted([bot / f"{compiled.GROUP}__mypyc{SUFFIX}",
                                               bot / "core" / f"fresh{SUFFIX}", bot / "core" / f"edited{SUFFIX}"])
    assert compiled.stale(bot) == [(bot / "core" / f"edited{SUFFIX}", bot / "core" / "edited.py")]
    message = compiled.stale_message(bot)
    assert f"bot/core/edited{SUFFIX} (source bot/core/edited.py changed since)" in message
    assert "fresh" not in message and "python3 dev.py compile" in message and "python3 dev.py clean" in message
    (bot / "core" / "edited.py").unlink()  # a compiled module whose source is gone is stale too
    assert "(source bot/core/edited.py gone)" in compiled.stale_message(bot)
    os.utime(bot / "core" / f"edited{SUFFIX}", (4_000, 4_000))
    (bot / "core" / "edited.py").write_bytes(b"")
    os.utime(bot / "core" / "edited.py", (3_500, 3_500))
    assert compiled.stale_message(bot) is None  # rebuilt after the edit: nothing to say


def test_the_checkout_has_no_stale_compiled_module():
    # the suite itself runs on what it reads (dev.py test refuses otherwise; this also covers pytest run alone)
    assert compiled.stale_message() is None


def test_dev_py_test_refuses_to_run_with_a_stale_compiled_module(tmp_path, monkeypatch, capsys):
    _package(tmp_path)
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    (tmp_path / "bot" / "compiled.py").write_text((ROOT / "bot" / "compiled.py").read_text())
    assert dev.main(["test"]) == 2  # before any install or pytest
    assert f"dev.py test: compiled module older than its source: bot/core/edited{SUFFIX}" in capsys.readouterr().err


def test_the_bot_refuses_to_start_with_a_stale_compiled_module(tmp_path):
    # the real entry point, in a subprocess, on a package whose compiled trail.py is stale (a compiled
    # module that is not one: it would fail to import, but the guard runs before anything is imported)
    bot = tmp_path / "bot"
    bot.mkdir()
    for name in ("__init__.py", "__main__.py", "compiled.py"):
        shutil.copy(ROOT / "bot" / name, bot / name)
    _touch(bot / "core" / f"trail{SUFFIX}", 1_000)
    _touch(bot / "core" / "trail.py", 2_000)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    ran = subprocess.run([sys.executable, "-m", "bot", "health"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.startswith(f"referee: compiled module older than its source: bot/core/trail{SUFFIX}")
    assert "Traceback" not in ran.stderr


@pytest.mark.skipif(os.environ.get("REFEREE_COMPILED") != "1",
                    reason="the compiled build is opt-in: REFEREE_COMPILED=1 builds it (a minute or two)")
def test_the_compiled_build_is_in_use_and_gives_the_same_outcomes():
    names = [m.removesuffix(".py").replace("/", ".") for m in dev.compiled_modules()]
    built = {m: (ROOT / m).with_suffix(SUFFIX) for m in dev.compiled_modules()}
    if not all(path.exists() for path in built.values()):
        # not built yet: build it in place, as a host does (and leave it: `python3 dev.py clean` removes it)
        made = subprocess.run([sys.executable, str(ROOT / "dev.py"), "compile"], cwd=ROOT, capture_output=True,
                              text=True, timeout=900)
        assert made.returncode == 0, made.stdout + made.stderr
    assert compiled.stale_message() is None
    # each listed module is the compiled one in a fresh interpreter (an extension module, no Python function)
    found = subprocess.run([sys.executable, "-c", dev.COMPILED_PROBE, *names], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
    assert found.stdout.splitlines() == [f"{name} compiled" for name in names], found.stdout + found.stderr
    # the golden outcomes (205 cases, byte-identical) and the type check, run on the compiled modules
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                            "tests/core/test_perf_equivalence.py", "tests/core/test_compilable.py"],
                           cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert " passed" in tests.stdout.splitlines()[-1] and "failed" not in tests.stdout.splitlines()[-1]


def test_the_rules_benchmark_says_how_many_modules_ran_compiled():
    # bench/bench_rules.py prints it beside its figures: 0 in the default install, 9 once built
    from bench.bench_rules import compiled_in_use

    built = [m for m in dev.compiled_modules() if (ROOT / m).with_suffix(SUFFIX).exists()]
    assert compiled_in_use() == len(built)
