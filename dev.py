#!/usr/bin/env python3
"""Set up and run Referee with nothing but Python 3.11+.

    python3 dev.py run     # creates .venv, installs the bot, runs it (the sandbox when no token)
    python3 dev.py test    # creates .venv, installs the bot with its test tools, runs pytest
    python3 dev.py lock    # regenerates the lock files (requirements*.lock)
    python3 dev.py compile # opt-in: builds the rules core's hot modules with mypyc, in place (README)
    python3 dev.py clean   # removes what `compile` built: back to pure Python

Extra arguments are passed on: ``python3 dev.py test -k fire``, ``python3 dev.py run rules``.

Every dependency is installed from a lock file with hashes (``pip install --require-hashes``):
the exact versions, and the exact files, that were locked. ``requirements.lock`` is the bot
(what the Dockerfile installs, with the build tools the wheel needs); ``requirements-test.lock``
adds the test tools; ``requirements-postgres.lock`` adds the PostgreSQL driver (the image that
compose.yaml builds for several bot processes on one PostgreSQL); ``requirements-compile.lock`` adds
mypy, whose mypyc ``compile`` builds with (the test install has it too). After changing a dependency
in pyproject.toml run ``python3 dev.py lock``:
tests/test_supply_chain.py fails while pyproject.toml and the lock files disagree. The locks are
made by uv (in its own environment, .venv-lock) for every platform and Python 3.11 on.

The virtual environment is reinstalled only when pyproject.toml or the lock file changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("REFEREE_VENV", ROOT / ".venv"))
LOCK_VENV = ROOT / ".venv-lock"
LOCKS = {"": ROOT / "requirements.lock", "test": ROOT / "requirements-test.lock",
         "postgres": ROOT / "requirements-postgres.lock", "compile": ROOT / "requirements-compile.lock"}
# the installs that hold all of another's packages (at the same versions: one resolution)
INCLUDED_IN = {"": ("test", "compile"), "compile": ("test",)}
UV = "uv>=0.9,<1"  # the lock tool, in its own environment (not a dependency of the bot)
MIN_PYTHON = "3.11"
DIGEST_LINE = "# pyproject-sha256: "


def _bin(env: Path, name: str) -> Path:
    return env / ("Scripts" if os.name == "nt" else "bin") / (name + (".exe" if os.name == "nt" else ""))


PYTHON = _bin(VENV, "python")


def declared(extras: str) -> dict:
    """What pyproject.toml asks for a lock: the dependencies (and the extra's), the build tools."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = {"dependencies": sorted(project["project"]["dependencies"]),
              "build": sorted(project["build-system"]["requires"])}
    if extras:
        wanted["extra"] = sorted(project["project"]["optional-dependencies"][extras])
    return wanted


def declared_digest(extras: str) -> str:
    """The hash a lock file records of what it was made from: it goes stale when this changes."""
    return hashlib.sha256(json.dumps(declared(extras), sort_keys=True).encode()).hexdigest()


def install_digest(extras: str) -> str:
    """What an install from ``extras``' lock was made of: pyproject.toml, the lock, the extras."""
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + LOCKS[extras].read_bytes()
                          + extras.encode()).hexdigest()


def ensure_env(extras: str) -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"Referee needs Python {MIN_PYTHON} or newer; this is {sys.version.split()[0]}")
    lock = LOCKS[extras]
    digest = install_digest(extras)
    stamp = VENV / ".referee-installed"
    installed = stamp.read_text() if PYTHON.exists() and stamp.exists() else None
    # the test install is the bot's plus the test tools (mypy among them), the compile install the bot's
    # plus mypy, all locked: `run` after either, and `compile` after `test`, use it as it is
    if installed is not None and (installed == digest or installed in (install_digest(more) for more in
                                                                       INCLUDED_IN.get(extras, ()))):
        return
    if not PYTHON.exists():
        print(f"creating {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print(f"installing Referee and its dependencies from {lock.name} ...", flush=True)
    pip = [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # every dependency, and the build tools, exactly as locked: each file checked against its hash
    subprocess.run([*pip, "--require-hashes", "-r", str(lock)], check=True)
    # then the bot itself, built with those tools (no download of its own)
    subprocess.run([*pip, "--no-deps", "--no-build-isolation", "-e", str(ROOT)], check=True)
    stamp.write_text(digest)


def lock() -> int:
    """Regenerate both lock files from pyproject.toml with uv (``uv pip compile --universal
    --generate-hashes``): one resolution valid on every platform and Python 3.11 on."""
    uv = _bin(LOCK_VENV, "uv")
    if not uv.exists():
        print(f"creating {LOCK_VENV} with {UV} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(LOCK_VENV)
        subprocess.run([str(_bin(LOCK_VENV, "python")), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", UV], check=True)
    for extras, path in LOCKS.items():
        wanted = declared(extras)
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "requirements.in"
            source.write_text("\n".join(wanted["dependencies"] + wanted.get("extra", []) + wanted["build"]) + "\n")
            result = subprocess.run(
                [str(uv), "pip", "compile", str(source), "--universal", "--generate-hashes",
                 "--python-version", MIN_PYTHON, "--no-header", "--quiet"],
                check=True, capture_output=True, text=True, cwd=ROOT)
        command = "python3 dev.py lock"
        what = f"dependencies, {extras} extra" if extras else "dependencies"
        header = (f"# Locked by `{command}` from pyproject.toml ({what}, build tools); do not edit.\n"
                  f"# Installed with `pip install --require-hashes -r {path.name}`.\n"
                  f"{DIGEST_LINE}{declared_digest(extras)}\n")
        path.write_text(header + result.stdout.replace(str(source), "requirements.in"), encoding="utf-8")
        print(f"wrote {path.name}", flush=True)
    return 0


# --------------------------------------------------------------------------- the compiled build
# Opt-in (README, "Compiled rules core"): the modules pyproject.toml lists in [tool.referee] compiled
# built with mypyc into extension modules beside their sources (bot/compiled.py: GROUP, the guard).

COMPILE_SCRIPT = """\
# written by `python3 dev.py compile`: mypyc builds the modules, setuptools puts them beside their sources
from setuptools import setup
from mypyc.build import mypycify

setup(name="referee-compiled", script_args=["build_ext", "--inplace"],
      ext_modules=mypycify({modules!r}, group_name={group!r}, target_dir="build", opt_level="3"))
"""


# `python -c COMPILED_PROBE module...` prints "<module> compiled" or "<module> pure" for each: compiled
# when it was loaded from an extension module and no function of it is a Python function
COMPILED_PROBE = """\
import importlib, sys, types
from importlib.machinery import EXTENSION_SUFFIXES
import bot.core.api  # the rulesets in their import order (a ruleset's module imported alone can be circular)
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    pure = [k for k, v in vars(module).items() if isinstance(v, types.FunctionType) and v.__module__ == name]
    print(name, "compiled" if module.__file__.endswith(tuple(EXTENSION_SUFFIXES)) and not pure else "pure")
"""


def compiled_modules() -> list[str]:
    """The modules the compiled build makes (paths from the checkout's root)."""
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["referee"]["compiled"]


def _compiled_support():
    """bot/compiled.py (standard library only), loaded without importing the bot's dependencies."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_referee_compiled", ROOT / "bot" / "compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stale_compiled(package: Path | None = None) -> str | None:
    """Why the checkout must not run as it is (a compiled module older than its source), or None."""
    return _compiled_support().stale_message(package or ROOT / "bot")


def compile_modules() -> int:
    """Build the listed modules with mypyc in place (a C compiler and Python's headers needed);
    then check that each one now imports compiled."""
    ensure_env("compile")
    support = _compiled_support()
    modules = compiled_modules()
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    script = build / "compile_referee.py"
    script.write_text(COMPILE_SCRIPT.format(modules=modules, group=f"bot.{support.GROUP}"), encoding="utf-8")
    print(f"compiling {len(modules)} modules with mypyc (a minute or two) ...", flush=True)
    built = subprocess.run([str(PYTHON), str(script)], cwd=ROOT, capture_output=True, text=True)
    log = build / "compile.log"
    log.write_text(built.stdout + built.stderr, encoding="utf-8")
    if built.returncode != 0:
        print(built.stdout[-4000:] + built.stderr[-4000:], file=sys.stderr)
        print(f"compile failed (the whole log: {log}); nothing compiled is in use: `python3 dev.py clean` "
              "removes any part built", file=sys.stderr)
        return 1
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    checked = subprocess.run([str(PYTHON), "-c", COMPILED_PROBE, *names], cwd=ROOT, capture_output=True, text=True)
    if checked.returncode != 0 or checked.stdout.split() != [w for n in names for w in (n, "compiled")]:
        print(f"built, but not in use:\n{checked.stdout}{checked.stderr}", file=sys.stderr)
        return 1
    print(f"compiled and in use: {', '.join(names)}\n(`python3 dev.py clean` goes back to pure Python; "
          "rebuild after editing any of them: the bot and the tests refuse a compiled module older than "
          "its source)")
    return 0


def clean() -> int:
    """Remove the compiled modules and build/ (back to pure Python)."""
    import shutil

    support = _compiled_support()
    removed = support.extensions(ROOT / "bot")
    for path in removed:
        path.unlink()
    if (ROOT / "build").exists():
        shutil.rmtree(ROOT / "build")
    print(f"removed {len(removed)} compiled module{'s' if len(removed) != 1 else ''} and build/: "
          "pure Python" if removed else "no compiled module: pure Python")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test", "lock", "compile", "clean"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "lock":
        return lock()
    if command == "compile":
        return compile_modules()
    if command == "clean":
        return clean()
    if command == "run":
        ensure_env("")
        return subprocess.call([str(PYTHON), "-m", "bot", *rest], cwd=ROOT)  # the bot checks itself
    problem = stale_compiled(ROOT / "bot")
    if problem:
        print(f"dev.py test: {problem}", file=sys.stderr)
        return 2
    ensure_env("test")
    return subprocess.call([str(PYTHON), "-m", "pytest", *rest], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
