#!/usr/bin/env python3
"""Set up and run Referee with nothing but Python 3.11+.

    python3 dev.py run     # creates .venv, installs the bot, runs it (the sandbox when no token)
    python3 dev.py test    # creates .venv, installs the bot with its test tools, runs pytest
    python3 dev.py lock    # regenerates the lock files (requirements*.lock)
    python3 dev.py run --postgres postgresql://user@host/dbname
                           # also installs the PostgreSQL driver (requirements-postgres.lock) and runs
                           # the bot, or the sandbox when no token, on that database

Extra arguments are passed on: ``python3 dev.py test -k fire``, ``python3 dev.py run rules``.

Every dependency is installed from a lock file with hashes (``pip install --require-hashes``):
the exact versions, and the exact files, that were locked. ``requirements.lock`` is the bot
(what the Dockerfile installs, with the build tools the wheel needs); ``requirements-test.lock``
adds the test tools; ``requirements-postgres.lock`` adds the PostgreSQL driver (the image that
compose.yaml builds for several bot processes on one PostgreSQL). After changing a dependency
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
         "postgres": ROOT / "requirements-postgres.lock"}
# the installs that hold all of another's packages (at the same versions: one resolution)
INCLUDED_IN = {"": ("test", "postgres"), "postgres": ("test",)}
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
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
    # the test install is the bot's plus the test tools, both locked: `run` after `test` uses it as it is
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


def postgres_option(args: list[str]) -> tuple[str | None, list[str]]:
    """``--postgres URL`` (or ``--postgres=URL``) taken out of ``run``'s arguments: (the URL, the rest).
    Exits with one line when the URL is missing or is not a PostgreSQL server's."""
    rest, url = [], None
    words = iter(args)
    for word in words:
        if word == "--postgres" or word.startswith("--postgres="):
            url = word.partition("=")[2] if "=" in word else next(words, "")
            if not url.startswith(POSTGRES_SCHEMES):
                sys.exit(f"dev.py: --postgres takes the database's URL, postgresql://user@host/dbname "
                         f"(got {url.split('@')[-1]!r})")
        else:
            rest.append(word)
    return url, rest


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test", "lock"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "lock":
        return lock()
    if command == "run":
        url, rest = postgres_option(rest)
        ensure_env("postgres" if url else "")
        env = None
        if url:  # the bot's database, and the sandbox's when there is no token
            env = os.environ | {"REFEREE_DATABASE": url, "REFEREE_SANDBOX_DATABASE": url}
        return subprocess.call([str(PYTHON), "-m", "bot", *rest], cwd=ROOT, env=env)  # the bot checks itself
    ensure_env("test")
    return subprocess.call([str(PYTHON), "-m", "pytest", *rest], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
