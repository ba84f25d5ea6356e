"""The README's commands, run as a reader would type them (issue 15): the two first lines, the
sandbox with a scenario, and the rules interface's four commands, as real subprocesses from the
checkout. Each runs against the project's own `.venv` (the one `python3 dev.py test` made), so
`dev.py` installs nothing here; a command the README shows must exist and work."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
VENV_PYTHON = ".venv/bin/python"


def code_lines() -> list[str]:
    """Every line of the README's fenced code blocks (continuation lines joined)."""
    lines = []
    for block in re.findall(r"^```\n(.*?)^```", README, flags=re.S | re.M):
        lines += [line.split("  #")[0].strip() for line in block.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line]


def run(command: str, *, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A README line in a shell-free subprocess, with the venv's python for `.venv/bin/python`."""
    words = shlex.split(command.split(" < ")[0])
    words = [sys.executable if w == VENV_PYTHON else w for w in words]
    if " < " in command:
        stdin = (ROOT / command.split(" < ")[1].strip()).read_text(encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "DISCORD_"))}
    environment["REFEREE_VENV"] = str(Path(sys.executable).parents[1])  # the venv running this test
    return subprocess.run(words, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=environment | (env or {}))


def test_the_first_lines_are_the_two_commands():
    assert code_lines()[:2] == ["python3 dev.py run", "python3 dev.py test"]


@pytest.mark.parametrize("command", ["python3 dev.py run", "python3 dev.py run --scenario cd",
                                     "python3 dev.py run sandbox --scenario cd"])
def test_dev_py_run_without_a_token_starts_the_sandbox(command):
    assert command in README
    done = run(command, stdin="quit\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Referee sandbox: the real bot against a local fake Discord" in done.stdout
    assert "installing" not in done.stdout  # the test install serves `run` as it is
    if "--scenario" in command:
        assert "Setting up Command Decision" in done.stdout


def test_dev_py_test_runs_pytest():
    done = run("python3 dev.py test -p no:cacheprovider tests/test_config.py")
    assert done.returncode == 0, done.stdout[-2000:]
    assert re.search(r"\d+ passed", done.stdout)


def test_the_rules_interface_commands_of_the_readme_run():
    commands = [line for line in code_lines() if line.startswith(f"{VENV_PYTHON} -m bot rules")]
    assert len(commands) == 4, commands
    for command in commands:
        if "replay export.json" in command:
            continue  # needs a game's export: tests/test_cli.py replays one
        done = run(command)
        assert done.returncode == 0, (command, done.stderr)
        answer = json.loads(done.stdout)
        assert answer, command
    assert "replay" in run(f"{VENV_PYTHON} -m bot rules replay --help").stdout
