"""Where the rules tables live: one folder, found in this order:

1. ``REFEREE_DATA``, when set (a test or a host pointing the core at other tables);
2. the top-level ``data/`` folder of a checkout (running from the source tree or an editable
   install, as ``dev.py`` does);
3. the installed package ``referee_data``: a wheel carries ``data/`` under that name
   (pyproject.toml maps the package to the folder), so ``pip install .`` works too.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

DATA_PACKAGE = "referee_data"
_CHECKOUT = Path(__file__).resolve().parents[2]  # <checkout>/bot/core/data.py -> <checkout>


def _checkout_data() -> Path | None:
    # In a wheel install parents[2] is site-packages, where a stray ``data`` folder of some
    # other distribution may sit: only a source tree (it has pyproject.toml) counts.
    folder = _CHECKOUT / "data"
    return folder if folder.is_dir() and (_CHECKOUT / "pyproject.toml").is_file() else None


def _installed_data() -> Path | None:
    # find_spec, not importlib.resources: data/ holds no __init__.py, so the installed
    # package is a namespace package, and the tables must be real files for open().
    spec = importlib.util.find_spec(DATA_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def find_data_root() -> Path:
    """The folder of the rules tables (see the module's docstring for the order)."""
    override = os.environ.get("REFEREE_DATA")
    if override:
        return Path(override)
    found = _checkout_data() or _installed_data()
    # neither: keep the checkout's path, so the first table read names where it was looked for
    return found or _CHECKOUT / "data"


DATA_ROOT = find_data_root()


def data_path(*parts: str) -> Path:
    """``data_path("asl", "ift.yaml")`` -> <DATA_ROOT>/asl/ift.yaml."""
    return DATA_ROOT.joinpath(*parts)
