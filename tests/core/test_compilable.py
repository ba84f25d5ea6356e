"""The modules the opt-in compiled build makes (`python3 dev.py compile`, pyproject.toml's
[tool.referee] compiled) stay compilable: mypyc compiles only code that type-checks, and a module
that defines a pydantic model compiles into a wrong model (its fields' annotations lost), so the
models live in modules left pure (bot/core/step.py, bot/core/rulesets/asl/effects_data.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]
COMPILED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["referee"]["compiled"]


def _mypy(paths: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    # pyproject.toml's [tool.mypy] (the options mypyc compiles with), a cache of the test's own
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *paths], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_the_compiled_modules_type_check(tmp_path):
    assert all((ROOT / path).is_file() for path in COMPILED), COMPILED
    result = _mypy(COMPILED, tmp_path / "cache")
    assert result.returncode == 0, (
        "a module `python3 dev.py compile` builds no longer type-checks (mypyc would refuse it):\n" + result.stdout)
    assert f"no issues found in {len(COMPILED)} source files" in result.stdout


def test_the_check_finds_a_type_error(tmp_path):
    # the same command on a module with a type error fails, naming it: the check above can fail
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int) -> str:\n    return x\n")
    result = _mypy([str(bad)], tmp_path / "cache")
    assert result.returncode == 1 and "bad.py:2: error" in result.stdout, result.stdout


def test_no_compiled_module_defines_a_pydantic_model():
    for path in COMPILED:
        name = path.removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        models = [k for k, v in vars(module).items()
                  if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == name]
        assert models == [], f"{name} defines pydantic models {models}: move them to a module left pure"
