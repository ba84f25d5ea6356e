"""A VASL saved game read where a scenario file is (issue 31): ``bot.scenario.read_file`` tells it by
its content, checks it whole, and ``python -m bot scenario import FILE`` writes it as a scenario file.
The fixtures (tests/core/asl/vasl_fixtures.py) have the structure as observed in saves written by VASSAL
3.x/VASL 6.x (pacman-ghost/vasl-templates fixtures, not copied)."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml

from bot.core.data import data_path
from bot.core.errors import InvalidOrder
from bot.scenario import ScenarioFileError, converted_text, max_upload, read, read_file
from tests.core.asl import vasl_fixtures as fx
from tests.test_cli import run_bot

VILLAGE = data_path("asl", "scenarios", "village-assault.yaml")


def test_a_saved_game_is_told_by_its_content_and_checked_whole():
    loaded = read_file(fx.two_boards("vobs"))
    assert loaded.format == "VASL saved game (.vsav) or log (.vlog)"
    assert [u.id for side in loaded.scenario.sides for u in side.units] == ["G1", "GL1", "GLMG1", "R1"]
    assert len(loaded.not_mapped) == 2
    assert read_file(VILLAGE.read_bytes()).format is None  # a scenario file is still one
    assert max_upload() == 4 * 1024 * 1024


def test_what_the_file_cannot_set_up_is_refused_whole():
    # three squads and more in one hex of a VASL file: over the set-up's stacking limit, nothing kept
    squads = [fx.piece(str(1000 + i), 512, 690, "ge467S.gif", "4-6-7 1sq") for i in range(4)]
    data = fx.archive(fx.vcsk(fx.saved_game([fx.board_layout("0\t0\t32\t"), *squads])))
    with pytest.raises(InvalidOrder, match=r"^VASL saved game \(\.vsav\) or log \(\.vlog\): G4: C5 would hold 4 "):
        read_file(data)


def test_a_zip_that_is_no_saved_game_and_a_game_of_another_ruleset():
    with pytest.raises(ScenarioFileError, match="this is a ZIP archive, but none the bot reads"):
        read_file(_zip())
    with pytest.raises(InvalidOrder, match="it sets up a game of 'asl', not of the game's ruleset 'nhis'"):
        read_file(fx.two_boards(), ruleset="nhis")


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("readme.txt", "hello")
    return buffer.getvalue()


def test_the_converted_file_is_a_scenario_file_that_loads_the_same():
    loaded = read_file(fx.two_boards())
    text = converted_text(loaded)
    assert text.startswith("# Referee scenario file (docs/scenarios.md), converted from a VASL saved game")
    assert "#   - T-34 M41 vca3 BU in 32G6" in text
    assert read(text) == loaded.scenario  # the hidden parts included: the one converting owns the file


def test_the_command_line_converts_a_saved_game(tmp_path):
    saved = tmp_path / "game.bin"  # the name says nothing: the content does
    saved.write_bytes(fx.two_boards())
    result = run_bot("scenario", "import", str(saved))
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout)["sides"][0]["units"][0] == {"id": "G1", "type": "ger-467",
                                                                     "location": "32C5",
                                                                     "markers": ["broken", "pinned"]}
    assert result.stderr.strip().endswith("4 units in 3 Locations, from a VASL saved game (.vsav) or log (.vlog); "
                                          "not mapped: 2 (listed in the file's header)")
    out = tmp_path / "game.yaml"
    assert run_bot("scenario", "import", str(saved), "--out", str(out)).returncode == 0
    assert out.read_text() == result.stdout


def test_the_command_line_refuses_a_hostile_file_in_one_line(tmp_path):
    bad = tmp_path / "bomb.vsav"
    bad.write_bytes(fx.archive(b"!VCSK01zz"))
    result = run_bot("scenario", "import", str(bad))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"referee: {bad}: VASL file: savedGame's !VCSK text holds characters that are not hex " \
                            "digits\n"
    assert run_bot("scenario", "import", str(tmp_path / "missing.vsav")).returncode == 2


def test_the_command_line_checks_a_scenario_file_too():
    result = run_bot("scenario", "import", str(VILLAGE))
    assert result.returncode == 0 and "44 units in 12 Locations" in result.stderr
