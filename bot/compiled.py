"""The opt-in compiled build (``python3 dev.py compile``; README, "Compiled rules core"): which of
this checkout's modules run compiled, and the guard against a stale one.

A compiled module (``bot/core/trail.cpython-311-x86_64-linux-gnu.so`` beside ``trail.py``) is what
Python imports in place of its source: edit the source without rebuilding and the edit silently does
nothing. So the bot refuses to start, and ``python3 dev.py test`` and pytest refuse to run, while a
compiled module is older than its source, naming it: ``python3 dev.py compile`` rebuilds them,
``python3 dev.py clean`` removes them (back to pure Python).

Standard library only: dev.py reads it before any dependency is installed.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # bot/
# mypyc's shared library of the compiled modules (dev.py's group name): it has no source of its own
GROUP = "referee_core"
SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _stem(path: Path) -> str | None:
    for suffix in SUFFIXES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return None


def extensions(package: Path = PACKAGE) -> list[Path]:
    """Every compiled module under the package (and mypyc's shared library), sorted."""
    return sorted(p for p in package.rglob("*") if p.is_file() and _stem(p) is not None)


def stale(package: Path = PACKAGE) -> list[tuple[Path, Path]]:
    """(compiled module, its source) for each compiled module older than its source, or whose
    source is gone."""
    found = []
    for ext in extensions(package):
        stem = _stem(ext)
        source = ext.with_name(f"{stem}.py")
        if stem == f"{GROUP}__mypyc" and ext.parent == package:
            continue  # the shared library: each module compiled into it is checked by its own file
        if not source.exists() or source.stat().st_mtime > ext.stat().st_mtime:
            found.append((ext, source))
    return found


def stale_message(package: Path = PACKAGE) -> str | None:
    """What to tell the host when a compiled module is stale, or None."""
    found = stale(package)
    if not found:
        return None
    root = package.parent
    names = ", ".join(f"{_rel(ext, root)} (source {_rel(src, root)} {'changed since' if src.exists() else 'gone'})"
                      for ext, src in found)
    return (f"compiled module{'s' if len(found) > 1 else ''} older than {'their' if len(found) > 1 else 'its'} "
            f"source: {names}. Python would run the compiled code, not the source: rebuild with "
            "`python3 dev.py compile`, or remove the compiled modules with `python3 dev.py clean`")


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
