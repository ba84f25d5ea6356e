"""`python3 dev.py run --postgres URL` (issue 28 item 4): the PostgreSQL driver installed from its lock
file (requirements-postgres.lock, with hashes) into the same .venv, and the bot (or, with no token, the
sandbox) run on that URL. dev.py's installs are watched here (subprocess.run and call recorded, in a
folder of the test's own), not made: tests/test_readme_commands.py runs the command for real on a
PostgreSQL server with a test install, which holds the driver already."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import dev

URL = "postgresql://referee@db.example:5432/referee"


@pytest.fixture
def venv(tmp_path, monkeypatch):
    """dev.py pointed at an environment of the test's own, its installs and the bot's run recorded."""
    folder = tmp_path / ".venv"
    python = dev._bin(folder, "python")
    python.parent.mkdir(parents=True)
    python.write_text("")  # an interpreter exists: the environment is not created again
    monkeypatch.setattr(dev, "VENV", folder)
    monkeypatch.setattr(dev, "PYTHON", python)
    calls: dict[str, list] = {"installs": [], "runs": []}
    monkeypatch.setattr(subprocess, "run", lambda args, **kw: calls["installs"].append(args))
    monkeypatch.setattr(subprocess, "call", lambda args, **kw: calls["runs"].append((args, kw.get("env"))) or 0)
    calls["stamp"] = folder / ".referee-installed"
    return calls


def installed_locks(calls) -> list[str]:
    return [Path(args[args.index("-r") + 1]).name for args in calls["installs"] if "-r" in args]


def test_run_postgres_installs_the_driver_from_its_lock_with_hashes_then_runs_on_the_url(venv):
    venv["stamp"].write_text(dev.install_digest(""))  # `python3 dev.py run` made the environment
    assert dev.main(["run", "--postgres", URL, "--scenario", "cd"]) == 0
    assert installed_locks(venv) == ["requirements-postgres.lock"]
    [pip, editable] = venv["installs"]
    assert "--require-hashes" in pip and "--no-deps" in editable  # every file as locked, then the bot itself
    assert venv["stamp"].read_text() == dev.install_digest("postgres")
    [(args, env)] = venv["runs"]
    assert args[1:] == ["-m", "bot", "--scenario", "cd"]  # the option is dev.py's, not passed on
    assert env["REFEREE_DATABASE"] == env["REFEREE_SANDBOX_DATABASE"] == URL


def test_the_equals_form_works_too(venv):
    venv["stamp"].write_text(dev.install_digest("postgres"))
    assert dev.main(["run", f"--postgres={URL}"]) == 0
    assert venv["installs"] == []  # installed already
    assert venv["runs"][0][1]["REFEREE_DATABASE"] == URL


@pytest.mark.parametrize("stamp", ["test", "postgres"])
def test_an_install_holding_the_driver_serves_run_postgres_as_it_is(venv, stamp):
    venv["stamp"].write_text(dev.install_digest(stamp))
    assert dev.main(["run", "--postgres", URL]) == 0
    assert venv["installs"] == [] and venv["stamp"].read_text() == dev.install_digest(stamp)


def test_plain_run_after_run_postgres_installs_nothing_and_leaves_the_database_setting_alone(venv):
    venv["stamp"].write_text(dev.install_digest("postgres"))
    assert dev.main(["run"]) == 0
    assert venv["installs"] == [] and venv["runs"][0][1] is None  # the environment as it is


@pytest.mark.parametrize("args", [["--postgres"], ["--postgres", "/var/referee.sqlite3"],
                                  ["--postgres=mysql://u:secret@h/db"]])
def test_a_missing_or_wrong_url_stops_dev_py_with_one_line_before_installing(venv, args):
    venv["stamp"].write_text(dev.install_digest(""))
    with pytest.raises(SystemExit) as stopped:
        dev.main(["run", *args])
    message = str(stopped.value.code)
    assert message.startswith("dev.py: --postgres takes the database's URL, postgresql://user@host/dbname (got ")
    assert "secret" not in message and "\n" not in message
    assert venv["installs"] == [] and venv["runs"] == []
