"""The rules core is pure: no discord, no sqlite, no asyncio, no global RNG (DESIGN.md)."""

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "bot" / "core"
FORBIDDEN = {"discord", "sqlite3", "aiosqlite", "asyncio", "aiohttp"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


CORE_FILES = sorted(CORE.rglob("*.py"))


def test_core_has_modules():
    assert len(CORE_FILES) > 10


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_imports_no_io(path):
    assert not (_imports(path) & FORBIDDEN), f"{path} imports {_imports(path) & FORBIDDEN}"


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: str(p.relative_to(CORE)))
def test_core_never_uses_global_random(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        # random.seed(...), random.randint(...) etc. on the module itself are forbidden;
        # random.Random(seed) instances (SeededDice) are allowed.
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "random":
                assert node.func.attr == "Random", f"{path}:{node.lineno} uses random.{node.func.attr}"
