"""The ASL marker audit (data/asl/markers.yaml) and the clean-up that reads it: the file validates
strictly, names only fields and phases the ruleset has, and each marker comes off at the end of
the phase it says (and not at the end of the phase before), on the units it says, with its rule;
a game logged before the audit (no asl_markers option) keeps the clean-up it was played with."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from bot.core.api import resolve
from bot.core.rulesets.asl import markers
from bot.core.rulesets.asl.markers import MarkerData
from bot.core.rulesets.asl.models import AslUnit
from bot.core.rulesets.asl.ruleset import RULESET

from .conftest import AslBuilder, steps

PIN = "A7.8 (assumed: data/asl/markers.yaml)"
CX = "A4.51 (assumed: data/asl/markers.yaml)"


def _game(phase: str, *, audited: bool = True, active_side: int = 0) -> AslBuilder:
    b = (AslBuilder(phase=phase, active_side=active_side)
         .squad("A1", 0, "A4", name="4-6-7").squad("A2", 0, "A4", name="4-6-7")
         .squad("R1", 1, "B5", name="4-4-7").squad("R2", 1, "B5", name="4-4-7"))
    if audited:
        b.game.options["asl_markers"] = markers.VERSION
    return b


def end(game, phase: str | None = None):
    """End the game's phase (``/game phase``): its clean-up runs."""
    return resolve(game, {"action": "phase", **({"to": phase} if phase else {})})


def marker_lines(outcome) -> list[tuple]:
    return [s for s in steps(outcome) if s[0].endswith("removed") or " removed from " in s[0]]


# --- the data file --------------------------------------------------------------------------------


def test_the_data_file_validates_and_names_real_fields_and_phases():
    data = markers.data()
    assert data.option in RULESET.internal_options and RULESET.creation_defaults[data.option] == markers.VERSION
    fields = {m.field for m in data.markers}
    # every marker and status the ruleset shows players is audited (its status flags, the fire markers, the Wound)
    assert {flag for flag, _ in RULESET.status_flags} <= fields
    assert {"fire_marker", "residual_fp", "smoke", "led_group"} <= fields
    assert {m.value for m in data.markers if m.field == "fire_marker"} == {"prep", "first", "final"}
    for marker in data.markers:
        assert set(marker.cleared_at) <= set(RULESET.phases), marker.name
        assert marker.placed_rule and marker.removed_rule, marker.name
        if marker.since > 0:
            assert marker.assumed, f"{marker.name}: a removal the digest does not give is marked assumed"
    assert {m.name for m in data.not_modelled} >= {"Concealment", "TI"}


def test_the_data_file_refuses_an_unknown_key_or_field():
    raw = yaml.safe_load(markers.DATA_FILE.read_text(encoding="utf-8"))
    raw["markers"][0]["removd_rule"] = "A1"
    with pytest.raises(ValidationError, match="removd_rule"):
        MarkerData.model_validate(raw)
    raw = yaml.safe_load(markers.DATA_FILE.read_text(encoding="utf-8"))
    raw["markers"][0]["whose"] = "everyone"
    with pytest.raises(ValidationError):
        MarkerData.model_validate(raw)


def test_the_loader_refuses_a_field_the_models_do_not_have(tmp_path, monkeypatch):
    raw = yaml.safe_load(markers.DATA_FILE.read_text(encoding="utf-8"))
    raw["markers"][0]["field"] = "dizzy"
    path = tmp_path / "markers.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    monkeypatch.setattr(markers, "DATA_FILE", path)
    markers.data.cache_clear()
    try:
        with pytest.raises(ValueError, match="no unit field 'dizzy'"):
            markers.data()
    finally:
        markers.data.cache_clear()


# --- each removal -------------------------------------------------------------------------------


def test_a_pin_comes_off_at_the_end_of_the_player_turn_on_both_sides_not_before_a7_8():
    b = _game("APh").set("A1", pinned=True).set("R1", pinned=True)
    res = end(b.game)  # the APh ends: the pins stay
    assert res.game.units["A1"].pinned and res.game.units["R1"].pinned and not marker_lines(res.outcome)
    res = end(res.game)  # the CCPh ends: the player turn is over
    assert marker_lines(res.outcome) == [("4-6-7 A1: Pin marker removed", None, None, PIN),
                                         ("4-4-7 R1: Pin marker removed", None, None, PIN)]
    assert not res.game.units["A1"].pinned and not res.game.units["R1"].pinned
    effect = next(e for e in res.outcome.effects if e.unit == "A1")
    assert (effect.before, effect.after, effect.effects) == ("Good Order, pinned", "Good Order",
                                                             ("Pin marker removed",))


def test_a_game_logged_before_the_audit_keeps_its_pins_as_it_was_played():
    b = _game("CCPh", audited=False).set("A1", pinned=True, cx=True)
    res = end(b.game)
    assert res.game.units["A1"].pinned and res.game.units["A1"].cx and not marker_lines(res.outcome)


@pytest.mark.parametrize("attacker", [0, 1])
def test_cx_comes_off_at_the_end_of_the_enemys_player_turn_a4_51(attacker):
    b = _game("CCPh", active_side=attacker).set("A1", cx=True).set("R1", cx=True)
    res = end(b.game)
    own, other = ("A1", "R1") if attacker == 0 else ("R1", "A1")
    assert res.game.units[own].cx  # CX placed in the ATTACKER's own player turn stays through the next one
    assert not res.game.units[other].cx
    label = {"A1": "4-6-7 A1", "R1": "4-4-7 R1"}[other]
    assert marker_lines(res.outcome) == [(f"{label}: CX marker removed", None, None, CX)]


def test_cx_stays_at_the_end_of_any_other_phase():
    b = _game("APh").set("R1", cx=True)
    assert end(b.game).game.units["R1"].cx


def test_dm_comes_off_at_the_end_of_the_rph_but_not_from_an_eliminated_unit_a10_62():
    b = _game("RPh").set("R1", broken=True, dm=True).set("R2", broken=True, dm=True, eliminated=True)
    before = _game("PFPh").set("R1", broken=True, dm=True).game
    assert end(before).game.units["R1"].dm  # not at the end of the PFPh
    res = end(b.game)
    assert marker_lines(res.outcome) == [("4-4-7 R1: DM removed", None, None, "A10.62")]
    assert not res.game.units["R1"].dm and res.game.units["R2"].dm  # the eliminated unit keeps it, as before
    assert "The bot does not track which enemy units are Known: DM comes off every unit" in [s for s in steps(res.outcome, "note")][0][0]


@pytest.mark.parametrize(("phase", "marker", "label", "rule", "stays_until"), [
    ("DFPh", "first", "First Fire marker", "A8.4, seed 003", "MPh"),
    ("DFPh", "final", "Final Fire marker", "A8.4, seed 003", "MPh"),
    ("CCPh", "prep", "Prep Fire marker", "seed 003", "APh"),
])
def test_the_fire_markers_come_off_when_seed_003_says(phase, marker, label, rule, stays_until):
    kept = end(_game(stays_until).set("A1", fire_marker=marker).game)
    assert kept.game.units["A1"].fire_marker == marker  # the phase before: it stays
    res = end(_game(phase).set("A1", fire_marker=marker).set("R2", fire_marker=marker, eliminated=True).game)
    assert res.game.units["A1"].fire_marker is None
    assert marker_lines(res.outcome) == [(f"4-6-7 A1: {label} removed", None, None, rule)]
    assert res.game.units["R2"].fire_marker is None  # an eliminated unit's marker goes without a line


def test_residual_fp_comes_off_at_the_end_of_the_mph_a8_2():
    b = _game("MPh")
    b.game.locations["B5"].residual_fp = 4
    b.set("A1", moving=True, assault_moving=True)
    res = end(b.game)
    assert marker_lines(res.outcome) == [("Residual FP 4 removed from B5", None, None, "A8.2, seed 003")]
    assert res.game.locations["B5"].residual_fp == 0
    assert not res.game.units["A1"].moving and not res.game.units["A1"].assault_moving  # bookkeeping: no line
    kept = _game("PFPh")
    kept.game.locations["B5"].residual_fp = 4
    assert end(kept.game).game.locations["B5"].residual_fp == 4


def test_the_player_turns_bookkeeping_is_reset_quietly():
    b = _game("CCPh").set("A1", rallied_turn=1, rph_action_turn=1, recovery_attempts=["1:0:MG1"], led_group="g")
    res = end(b.game)
    unit = res.game.units["A1"]
    assert (unit.rallied_turn, unit.rph_action_turn, unit.recovery_attempts) == (None, None, [])
    assert unit.led_group == "g"  # a leader's direction comes off at the end of a fire phase
    assert not marker_lines(res.outcome) and not res.outcome.effects
    fired = end(_game("AFPh").set("A1", led_group="g").game)
    assert fired.game.units["A1"].led_group is None


def test_a_units_markers_coming_off_together_are_one_effect():
    res = end(_game("CCPh").set("R1", pinned=True, fire_marker="prep", cx=True).game)
    (effect,) = [e for e in res.outcome.effects if e.unit == "R1"]
    assert (effect.before, effect.after) == ("Good Order, pinned, CX, Prep Fire", "Good Order")
    assert effect.effects == ("Prep Fire marker removed", "Pin marker removed", "CX marker removed")


def test_every_cleared_marker_has_a_field_default_the_clean_up_restores():
    for marker in markers.data().markers:
        if marker.cleared_at and marker.of == "unit":
            default = AslUnit.model_fields[marker.field].get_default(call_default_factory=True)
            assert not default, marker.name
