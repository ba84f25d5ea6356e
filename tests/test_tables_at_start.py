"""The rules tables are read and validated when the bot starts (``bot.core.api.load_tables``,
called by ``RefereeBot.setup_hook``): every data file, so a table broken by an edit stops the
bot at once with the file named, instead of refusing the first order that needs it mid-game.

Both run in fresh interpreters: the tables are cached once read, so in the test process they may
have been read long ago."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from bot.core.data import DATA_ROOT

from .test_sandbox import clean_env, run

ROOT = Path(__file__).resolve().parents[1]

# every file the core opens while load_tables runs, seen by an audit hook
OPENED_BY_LOAD_TABLES = """\
import sys
from pathlib import Path
opened = set()
sys.addaudithook(lambda event, args: opened.add(str(Path(args[0]).resolve()))
                 if event == "open" and isinstance(args[0], str) else None)
from bot.core.api import load_tables
from bot.core.data import DATA_ROOT
root = DATA_ROOT.resolve()
load_tables()
print("\\n".join(sorted(Path(p).relative_to(root).as_posix() for p in opened if p.startswith(str(root) + "/"))))
"""


def test_load_tables_reads_every_file_of_the_data_folder():
    done = subprocess.run([sys.executable, "-c", OPENED_BY_LOAD_TABLES], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    every_file = sorted(p.relative_to(DATA_ROOT).as_posix() for p in DATA_ROOT.rglob("*") if p.is_file())
    assert len(every_file) >= 13
    assert done.stdout.split() == every_file


def test_a_broken_table_stops_the_bot_at_start_with_the_file_named(tmp_path):
    broken = tmp_path / "tables"
    shutil.copytree(DATA_ROOT, broken)
    with open(broken / "cd" / "hit_results.yaml", "a", encoding="utf-8") as fh:
        fh.write("rows: [unclosed\n")
    done = run(tmp_path, "sandbox", "--database", str(tmp_path / "sandbox.sqlite3"), script="quit\n",
               env=clean_env(tmp_path, REFEREE_DATA=str(broken)))
    assert done.returncode == 1, done.stdout + done.stderr
    first_line = done.stderr.strip().splitlines()[0]
    assert first_line == f"referee: the Command Decision: Test of Battle tables in {broken / 'cd'} cannot be used: " \
                         "ParserError: while parsing a flow sequence", done.stderr
    assert f'in "{broken / "cd" / "hit_results.yaml"}"' in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "sandbox.sqlite3").exists()  # stopped before the database was touched
