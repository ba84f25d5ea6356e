"""A wheel install works: `pip install .` carries the rules tables (data/, shipped as the package
``referee_data``), the migrations and every module, and the bot runs from it alone.

The wheel is built for real (pip, setuptools, no build isolation, no index) from a copy of the
checkout, unpacked with zipfile the way an installer lays it out, and run in subprocesses whose
PYTHONPATH is the unpacked wheel only: each run checks that ``bot`` was imported from there and
not from the checkout (the venv's editable install stays on the path as it would on a host).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bot.cli import answer, parse_request

ROOT = Path(__file__).resolve().parents[1]
# what a copy of the checkout leaves out: the venv, caches and earlier builds
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
                                    "build", "dist", "*.egg-info")

# a fire order of the sample scenario, with manual dice: the same answer wherever the bot runs
FIRE_REQUEST = {
    "ruleset": "asl",
    "situation": {
        "sides": ["Germans", "Russians"], "scenario": "Guards Counterattack", "phase": "PFPh",
        "locations": [{"id": "C4", "terrain": "woods"}],
        "units": [{"id": "A1", "type": "ger-467", "side": 0, "location": "B5"},
                  {"id": "L1", "type": "ger-8-1", "side": 0, "location": "B5"},
                  {"id": "R1", "type": "rus-447", "side": 1, "location": "C4"}],
    },
    "order": {"action": "fire", "firers": ["A1", "L1"], "target": "C4", "range": 1},
    "dice": [2, 3, 6, 2],
}

SANDBOX_SCRIPT = """\
as alice
/done
as bob
/done
as alice
/fire firers:A1 L1 target:C4 range:1 dice:2 3 5 4 3 3
click details
quit
"""


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip wheel .` builds from a copy of the checkout (a build writes build/ and
    *.egg-info next to the sources, which must not land in the checkout)."""
    work = tmp_path_factory.mktemp("build")
    source = work / "referee"
    shutil.copytree(ROOT, source, ignore=NOT_COPIED)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--quiet", "--wheel-dir", str(work / "dist"), str(source)],
                           check=False, cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = (work / "dist").glob("referee-*.whl")
    return found


@pytest.fixture(scope="module")
def site(wheel, tmp_path_factory) -> Path:
    """The wheel unpacked as an installer lays it out in site-packages."""
    folder = tmp_path_factory.mktemp("site-packages")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder)
    return folder


def wheel_env(site: Path, home: Path, **extra: str) -> dict[str, str]:
    """The environment of a host with only the wheel: no REFEREE_ setting, no token."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("REFEREE_") and k not in ("DISCORD_TOKEN", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), HOME=str(home), XDG_DATA_HOME=str(home / "data"), **extra)
    return env


def run_python(args: list[str], site: Path, cwd: Path, stdin: str = "", **extra: str):
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                          check=False, cwd=cwd, env=wheel_env(site, cwd, **extra), timeout=60)


def test_the_wheel_carries_every_data_file_every_migration_and_every_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing_data = [f"data/{name}" for name in files_under(ROOT / "data") if f"referee_data/{name}" not in names]
    assert not missing_data, f"data files missing from the wheel: {missing_data}"
    migrations = sorted((ROOT / "bot" / "store" / "migrations").glob("*.sql"))
    assert migrations
    assert {f"bot/store/migrations/{m.name}" for m in migrations} <= names
    missing_modules = [f"{top}/{name}" for top in ("bot", "cogs") for name in files_under(ROOT / top)
                       if f"{top}/{name}" not in names]
    assert not missing_modules, (f"missing from the wheel: {missing_modules}; a new sub-package "
                                 "goes in [tool.setuptools] packages in pyproject.toml")
    # nothing else lands in site-packages: no tests, no top-level 'data' of a generic name
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"bot", "cogs", "referee_data"}


PROBE = ("import json, bot, bot.core.data as d; "
         "print(json.dumps({'bot': bot.__file__, 'data': str(d.DATA_ROOT)}))")


def test_the_installed_code_reads_the_tables_shipped_in_the_wheel(site, tmp_path):
    # a folder named data/ beside the packages (another distribution's) is not the tables
    (site / "data" / "asl").mkdir(parents=True, exist_ok=True)
    probe = run_python(["-c", PROBE], site, tmp_path)
    assert probe.returncode == 0, probe.stderr
    where = json.loads(probe.stdout)
    assert Path(where["bot"]).is_relative_to(site)
    assert Path(where["data"]) == site / "referee_data"
    # REFEREE_DATA still wins over the installed tables
    other = run_python(["-c", PROBE], site, tmp_path, REFEREE_DATA=str(tmp_path / "tables"))
    assert json.loads(other.stdout)["data"] == str(tmp_path / "tables")


def test_the_rules_interface_runs_from_the_wheel_alone(site, tmp_path):
    result = run_python(["-m", "bot", "rules"], site, tmp_path, stdin=json.dumps(FIRE_REQUEST))
    assert (result.returncode, result.stderr) == (0, "")
    outcome = json.loads(result.stdout)["outcome"]
    assert outcome["headline"] == "8 FP (IFT 8) vs C4: DR 5 -> 2MC"
    assert outcome["cells"] == [{"table": "IFT", "column": "8", "row": "5", "result": "2MC", "rule": "A7.3"}]
    r1 = next(effect for effect in outcome["effects"] if effect["unit"] == "R1")
    assert (r1["before"], r1["after"]) == ("Good Order", "broken, DM")
    # the very answer the checkout gives: the same tables, read from the wheel
    assert outcome == answer(parse_request(json.dumps(FIRE_REQUEST)))["outcome"]


def test_the_bot_runs_from_the_wheel_and_migrates_its_database(site, tmp_path):
    database = tmp_path / "x.sqlite3"
    # the real bot (discord.py against the loopback Discord, the cogs, the store) from the wheel
    played = run_python(["-m", "bot", "sandbox", "--scenario", "asl", "--database", str(database)],
                        site, tmp_path, stdin=SANDBOX_SCRIPT)
    assert played.returncode == 0, played.stderr
    assert "Traceback" not in played.stderr
    assert "== L2 broken, R1 broken — 8 FP (IFT 8) vs C4: final DR 5 -> 2MC ==" in played.stdout
    assert "   IFT 8 column, Final DR 5  2MC  [A7.3]" in played.stdout
    with sqlite3.connect(database) as db:
        version = db.execute("PRAGMA user_version").fetchone()[0]
    assert version == len(list((ROOT / "bot" / "store" / "migrations").glob("*.sql")))
    health = run_python(["-m", "bot", "health"], site, tmp_path, REFEREE_DATABASE=str(database))
    assert (health.returncode, health.stdout) == (0, f"ok: {database}\n"), health.stderr
