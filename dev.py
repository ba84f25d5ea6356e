#!/usr/bin/env python3
"""Set up and run Referee with nothing but Python 3.11+.

    python3 dev.py run     # creates .venv, installs the bot, runs it (the sandbox when no token)
    python3 dev.py test    # creates .venv, installs the bot with its test tools, runs pytest

Extra arguments are passed on: ``python3 dev.py test -k fire``, ``python3 dev.py run rules``.
The virtual environment is reinstalled only when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("REFEREE_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_env(extras: str) -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"Referee needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / ".referee-installed"
    if PYTHON.exists() and stamp.exists() and stamp.read_text() == digest:
        return
    if not PYTHON.exists():
        print(f"creating {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    target = f"{ROOT}[{extras}]" if extras else str(ROOT)
    print("installing Referee and its dependencies ...", flush=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-e", target], check=True)
    stamp.write_text(digest)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "run":
        ensure_env("")
        return subprocess.call([str(PYTHON), "-m", "bot", *rest], cwd=ROOT)
    ensure_env("test")
    return subprocess.call([str(PYTHON), "-m", "pytest", *rest], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
