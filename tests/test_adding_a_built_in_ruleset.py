"""docs/architecture.md's checklist "Adding a built-in ruleset", walked: Toy Skirmish
(tests/plugins/built_in_toy/) becomes a built-in ruleset of a copy of the checkout with its package
copied into bot/core/rulesets/toy/, its data into data/toy/ and its name added to the registry's
``BUILT_IN``, and no other file of bot/, cogs/ or data/ changed (checked against the checkout). In that
copy the real bot plays it end to end against the loopback Discord (tests/plugins/built_in_toy/play.py,
run there by pytest in a fresh interpreter, as the registry reads BUILT_IN once)."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "plugins" / "built_in_toy"
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
                                    "build", "dist", "*.egg-info", "*.sqlite3*")
REGISTRY = Path("bot/core/rulesets/__init__.py")


def add_built_in(copy: Path, name: str) -> None:
    """The checklist's three steps: the package, its data, the registry's line."""
    shutil.copytree(TOY / name, copy / "bot" / "core" / "rulesets" / name, ignore=NOT_COPIED)
    shutil.copytree(TOY / "data", copy / "data" / name)
    registry = copy / REGISTRY
    text, count = re.subn(r'^(BUILT_IN = \(.*)\)', rf'\1, "{name}")', registry.read_text(), count=1, flags=re.M)
    assert count == 1, "the registry's BUILT_IN line is not where the checklist says"
    registry.write_text(text)


def changed(copy: Path) -> list[str]:
    """The files of bot/, cogs/ and data/ that differ between the copy and the checkout, or exist in one only."""
    found = []
    for folder in ("bot", "cogs", "data"):
        ours = {p.relative_to(ROOT) for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        theirs = {p.relative_to(copy) for p in (copy / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        found += [str(p) for p in sorted(ours ^ theirs)]
        found += [str(p) for p in sorted(ours & theirs) if not filecmp.cmp(ROOT / p, copy / p, shallow=False)]
    return sorted(found)


def test_a_built_in_ruleset_is_its_package_its_data_and_the_registrys_line(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    add_built_in(copy, "toy")
    assert changed(copy) == ["bot/core/rulesets/__init__.py", "bot/core/rulesets/toy/__init__.py",
                             "bot/core/rulesets/toy/ruleset.py", "data/toy/counters.yaml"]
    shutil.copy(TOY / "play.py", copy / "tests" / "cogs" / "test_built_in_toy.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-p", "no:cacheprovider",
                             "tests/cogs/test_built_in_toy.py"], capture_output=True, text=True, cwd=copy, env=env,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout
