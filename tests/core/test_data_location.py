"""Every rules table is read from the one data folder (bot/core/data.py)."""

import subprocess
import sys
from pathlib import Path

from bot.core.data import DATA_ROOT, data_path

ROOT = Path(__file__).resolve().parents[2]


def test_the_tables_come_from_the_projects_data_folder():
    assert DATA_ROOT == ROOT / "data"
    assert data_path("asl", "ift.yaml").is_file()


def test_referee_data_points_the_core_at_another_folder(tmp_path):
    code = "from bot.core.data import data_path; print(data_path('asl', 'ift.yaml'))"
    out = subprocess.run([sys.executable, "-c", code], env={"REFEREE_DATA": str(tmp_path), "PATH": ""},
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "asl" / "ift.yaml")
