"""The README's commands, run as a reader would type them (issue 15): the two first lines, the
sandbox with a scenario, and the rules interface's four commands, as real subprocesses from the
checkout. `dev.py` runs against a virtual environment of this test's own, made in a temporary
folder (``REFEREE_VENV``), never the environment running the tests (issue 28: run from another
venv, `dev.py` repointed that venv's editable install at this checkout). The environment is made
without pip in a moment and takes its packages from the running one's site-packages (a path file,
not that venv's own path files: the bot comes from the checkout, the working directory), with the
stamp `dev.py` writes after a test install, so `dev.py` installs nothing; a command the README shows
must exist and work."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import site
import subprocess
import sys
import sysconfig
import venv
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


def running_packages() -> list[str]:
    """The site-packages folders of the environment running the tests."""
    found = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    return list(dict.fromkeys(path for path in found if Path(path).is_dir()))


@pytest.fixture(scope="module")
def own_venv(tmp_path_factory) -> Path:
    """A virtual environment of the test's own in a temporary folder, as `dev.py test` leaves one."""
    import dev

    folder = tmp_path_factory.mktemp("readme") / ".venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(folder)
    packages = Path(sysconfig.get_path("purelib", scheme="venv", vars={"base": str(folder), "platbase": str(folder)}))
    packages.mkdir(parents=True, exist_ok=True)
    (packages / "referee-test-packages.pth").write_text("\n".join(running_packages()) + "\n", encoding="utf-8")
    (folder / ".referee-installed").write_text(dev.install_digest("test"), encoding="utf-8")
    return folder


def run(command: str, venv_folder: Path, *, stdin: str = "",
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A README line in a shell-free subprocess, with the test's own venv (``venv_folder``) for
    `.venv/bin/python` and as `dev.py`'s environment."""
    python = venv_folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    words = shlex.split(command.split(" < ")[0])
    words = [str(python) if w == VENV_PYTHON else w for w in words]
    if " < " in command:
        stdin = (ROOT / command.split(" < ")[1].strip()).read_text(encoding="utf-8")
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("REFEREE_", "DISCORD_")) and k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    environment["REFEREE_VENV"] = str(venv_folder)
    return subprocess.run(words, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=environment | (env or {}))


def test_the_first_lines_are_the_two_commands():
    assert code_lines()[:2] == ["python3 dev.py run", "python3 dev.py test"]


@pytest.mark.parametrize("command", ["python3 dev.py run", "python3 dev.py run --scenario cd",
                                     "python3 dev.py run sandbox --scenario cd"])
def test_dev_py_run_without_a_token_starts_the_sandbox(command, own_venv):
    assert command in README
    done = run(command, own_venv, stdin="quit\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Referee sandbox: the real bot against a local fake Discord" in done.stdout
    assert "installing" not in done.stdout  # the test install serves `run` as it is
    if "--scenario" in command:
        assert "Setting up Command Decision" in done.stdout


def test_dev_py_run_postgres_runs_the_sandbox_on_that_database(own_venv, pg_dsn, tmp_path):
    # issue 28: `dev.py run` could not install the PostgreSQL extra; the test install holds it (its lock
    # includes the postgres lock at the same versions), so nothing is installed here
    done = run(f"python3 dev.py run --postgres {pg_dsn} --scenario cd", own_venv, stdin="quit\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "installing" not in done.stdout
    assert f"  database: {pg_dsn}\n" in done.stdout  # the server's URL, not a temporary SQLite file
    assert "Setting up Command Decision" in done.stdout
    assert not any(path.name.startswith("postgres") for path in ROOT.iterdir() if path.is_dir())
    kept = asyncio.run(_games_on(pg_dsn))
    assert kept == 1  # the sample game is on the server


async def _games_on(dsn: str) -> int:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval("SELECT count(*) FROM games")
    finally:
        await conn.close()


def test_dev_py_test_runs_pytest(own_venv):
    done = run("python3 dev.py test -p no:cacheprovider tests/test_config.py", own_venv)
    assert done.returncode == 0, done.stdout[-2000:]
    assert re.search(r"\d+ passed", done.stdout)


def test_the_rules_interface_commands_of_the_readme_run(own_venv):
    commands = [line for line in code_lines() if line.startswith(f"{VENV_PYTHON} -m bot rules")]
    assert len(commands) == 4, commands
    for command in commands:
        if "replay export.json" in command:
            continue  # needs a game's export: tests/test_cli.py replays one
        done = run(command, own_venv)
        assert done.returncode == 0, (command, done.stderr)
        answer = json.loads(done.stdout)
        assert answer, command
    assert "replay" in run(f"{VENV_PYTHON} -m bot rules replay --help", own_venv).stdout


def test_the_environment_running_the_tests_is_left_as_it_was(own_venv):
    """dev.py ran in the test's own venv: the running environment's files are untouched (its
    install stamp, if dev.py made it, and its path files: an editable install repointed would
    change one), whatever the commands above did."""
    before = {path: path.read_bytes() for folder in running_packages() for path in Path(folder).glob("*.pth")}
    stamp = Path(sys.executable).parents[1] / ".referee-installed"
    stamped = stamp.read_bytes() if stamp.exists() else None
    done = run("python3 dev.py run --scenario cd", own_venv, stdin="quit\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "installing" not in done.stdout
    assert {path: path.read_bytes() for folder in running_packages() for path in Path(folder).glob("*.pth")} == before
    assert (stamp.read_bytes() if stamp.exists() else None) == stamped
