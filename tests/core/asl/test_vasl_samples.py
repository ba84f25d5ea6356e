"""Opt-in: the VASL reader over a directory of real saves and logs (issue 31).

``REFEREE_VASL_SAMPLES=/dir pytest tests/core/asl/test_vasl_samples.py -s`` reads every ``.vsav`` and
``.vlog`` under the directory: each must read with no error and set up whole (the game built as
``/scenario load`` builds it); the figures (files, units mapped, counters not mapped and why) are
printed. No real save is in this repository (the public ones at hand are under a licence that does not
allow it), so the test is skipped without the variable. The same figures come from
``python -m tests.core.asl.test_vasl_samples /dir``.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.core.rulesets.asl import vasl
from bot.core.scenario import build_game

SAMPLES = os.environ.get("REFEREE_VASL_SAMPLES", "")


@dataclass
class Figures:
    files: int = 0
    mapped: int = 0
    on_boards: int = 0
    hidden: int = 0
    not_mapped: Counter[str] = field(default_factory=Counter)
    lines: list[str] = field(default_factory=list)


def _count(line: str) -> int:
    found = re.search(r" \(x(\d+)\)$", line)
    return int(found.group(1)) if found else 1


def _reason(line: str) -> str:
    line = re.sub(r" \(x\d+\)$", "", line)
    found = re.search(r"(?:off the boards|\bin \S+|\))(?: marker)?: (.+)$", line) or re.search(r": (.+)$", line)
    reason = found.group(1) if found else line
    return re.sub(r"^no \w+ .* in the counter library$", "no such counter of its nation in the library", reason)


def read_one(path: Path, figures: Figures) -> None:
    """Read one file as /scenario load does (refused in one line, or read and built whole)."""
    imported = vasl.read(path.read_bytes())
    game = build_game(imported.scenario, sequence=1)
    units = [u for side in imported.scenario.sides for u in side.units]
    hidden = sum(side.hidden.text.count("\n- ") for side in imported.scenario.sides if side.hidden)
    missed = sum(_count(line) for line in imported.not_mapped)
    figures.files += 1
    figures.mapped += len(units)
    figures.on_boards += sum(1 for u in game.units.values() if u.location)
    figures.hidden += hidden
    for line in imported.not_mapped:
        figures.not_mapped[_reason(line)] += _count(line)
    figures.lines.append(f"{path.name}: {len(units)} units mapped ({sum(1 for u in game.units.values() if u.location)}"
                         f" on the boards), {hidden} hidden, {missed} not mapped; {imported.notes[0]}")


def samples(directory: str) -> list[Path]:
    return sorted(p for p in Path(directory).rglob("*") if p.suffix.lower() in (".vsav", ".vlog") and p.is_file())


def report(figures: Figures) -> str:
    reasons = "\n".join(f"  {n:4} {reason}" for reason, n in figures.not_mapped.most_common())
    return ("\n".join(figures.lines) + f"\n{figures.files} files: {figures.mapped} units mapped ({figures.on_boards} "
            f"on the boards), {figures.hidden} hidden units sealed, {sum(figures.not_mapped.values())} counters not "
            f"mapped:\n{reasons}")


@pytest.mark.skipif(not SAMPLES, reason="set REFEREE_VASL_SAMPLES to a directory of real VASL saves and logs")
def test_every_real_save_reads_with_no_error_and_sets_up_whole():
    paths = samples(SAMPLES)
    assert paths, f"no .vsav or .vlog under {SAMPLES}"
    figures = Figures()
    failed = []
    for path in paths:
        try:
            read_one(path, figures)
        except Exception as exc:  # noqa: BLE001 - every file's failure is listed, not only the first
            failed.append(f"{path}: {type(exc).__name__}: {exc}")
    print("\n" + report(figures))
    assert not failed, "\n".join(failed)


if __name__ == "__main__":
    result = Figures()
    for sample in samples(sys.argv[1]):
        read_one(sample, result)
    print(report(result))
