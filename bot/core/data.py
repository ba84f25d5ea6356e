"""Where the rules tables live: the top-level ``data/`` folder of the project (one place, so a
packaged install or a test can point elsewhere with ``REFEREE_DATA``)."""

from __future__ import annotations

import os
from pathlib import Path

DATA_ROOT = Path(os.environ.get("REFEREE_DATA") or Path(__file__).resolve().parents[2] / "data")


def data_path(*parts: str) -> Path:
    """``data_path("asl", "ift.yaml")`` -> <project>/data/asl/ift.yaml."""
    return DATA_ROOT.joinpath(*parts)
