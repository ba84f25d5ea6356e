"""Direct fire to-hit [14.2.1]: the firer's number by range band and each modifier."""

import pytest

from .conftest import labels, run

RULE = "CD [14.2.1]"


def modifiers(outcome) -> list[tuple]:
    """(label, value, rule) of the modifier steps of the to-hit section (not the ROF's)."""
    start = next(i for i, s in enumerate(outcome.trail) if s.kind == "section" and s.label.startswith("To hit"))
    return [(s.label, s.value, s.rule) for s in outcome.trail[start:] if s.kind == "modifier"]


def number_of(res, target="T") -> int:
    return next(s.total for s in res.outcome.trail if s.label == f"Hits {target} {target} on {s.total} or less")


def shot(cd_game, dice=(10, 10), firer=None, target=None, **order):
    g = cd_game().stand("F", 0, **{"to_hit": {"short": 6, "long": 3}, **(firer or {})}) \
        .stand("T", 1, **(target or {})).game
    return run(g, list(dice), firer="F", targets=["T"], **order)


def test_the_base_number_is_the_firers_at_the_range_band(cd_game):
    assert number_of(shot(cd_game)) == 6
    assert number_of(shot(cd_game, range_band="long")) == 3


def test_a_die_at_or_under_the_number_hits(cd_game):
    res = shot(cd_game, [6, 1])
    assert [(s.label, s.rule) for s in res.outcome.trail if s.kind == "check"][-1] == ("6 vs 6 or less: hit", RULE)
    res = shot(cd_game, [7])
    assert "7 vs 6 or less: miss" in labels(res.outcome) and not res.outcome.cells


TARGET_CASES = [
    ("patrol", {}, {"target_patrol": True}, ("Target Patrol", -1)),
    ("pinned personnel", {"pinned": True}, {}, ("Pinned personnel", -1)),
    ("shaken personnel count as pinned", {"shaken": True}, {}, ("Pinned personnel", -1)),
    ("light cover", {}, {"cover": "light"}, ("Light cover", -1)),
    ("hull down AFV", {"kind": "afv"}, {"hull_down": True}, ("AFV hull down or in BUA", -2)),
    ("medium cover", {}, {"cover": "medium"}, ("Personnel in medium cover", -2)),
    ("hard cover", {}, {"cover": "hard"}, ("Personnel in hard cover", -3)),
    ("fortification", {}, {"cover": "fortification"}, ("Personnel in fortification", -5)),
]


@pytest.mark.parametrize("target,order,mod", [c[1:] for c in TARGET_CASES], ids=[c[0] for c in TARGET_CASES])
def test_target_modifier_14_2_1(cd_game, target, order, mod):
    res = shot(cd_game, target=target, **order)
    assert modifiers(res.outcome) == [(*mod, RULE)]
    assert number_of(res) == 6 + mod[1]


def test_medium_cover_does_not_shield_an_afv(cd_game):
    res = shot(cd_game, target={"kind": "afv"}, cover="medium")
    assert modifiers(res.outcome) == [] and number_of(res) == 6


def test_pinned_vehicle_is_not_pinned_personnel(cd_game):
    res = shot(cd_game, target={"kind": "vehicle", "pinned": True})
    assert modifiers(res.outcome) == []


FIRER_CASES = [
    ("veteran", {"quality": "veteran"}, {}, {}, [("Veteran/Elite firer", 1)]),
    ("elite", {"quality": "elite"}, {}, {}, [("Veteran/Elite firer", 1)]),
    ("trained", {"quality": "trained"}, {}, {}, [("Trained/Green firer", -1)]),
    ("green", {"quality": "green"}, {}, {}, [("Trained/Green firer", -1)]),
    ("suppressed", {"suppressed": True}, {}, {}, [("Firer suppressed", -2)]),
    ("hasty advance", {}, {}, {"hasty_advance": True}, [("Firer on Hasty Advance", -2)]),
    ("pinned", {"pinned": True}, {}, {}, [("Firer pinned", -2)]),
    ("A vs strong AFV", {"weapon_class": "A", "penetration": {"short": 5}}, {"kind": "afv", "armour": 6}, {},
     [("A class vs strong AFV", -2)]),
    ("W vs weak AFV", {"weapon_class": "W"}, {"kind": "afv", "armour": 1}, {}, [("W class vs weak AFV", -3)]),
    ("H vs weak AFV", {"weapon_class": "H"}, {"kind": "afv", "armour": 1, "weight": 1}, {},
     [("H class vs weak AFV", 1), ("H class vs AFV of weight class 1", -1)]),
    ("H vs any AFV", {"weapon_class": "H"}, {"kind": "afv", "armour": 4, "weight": 3}, {},
     [("H class vs AFV of weight class 3", -3)]),
]


@pytest.mark.parametrize("firer,target,order,mods", [c[1:] for c in FIRER_CASES], ids=[c[0] for c in FIRER_CASES])
def test_firer_modifier_14_2_1(cd_game, firer, target, order, mods):
    res = shot(cd_game, firer=firer, target=target, **order)
    assert modifiers(res.outcome) == [(*m, RULE) for m in mods]
    assert number_of(res) == 6 + sum(v for _, v in mods)


@pytest.mark.parametrize("quality", ["regular", "experienced"])
def test_regular_and_experienced_firers_have_no_quality_modifier(cd_game, quality):
    assert modifiers(shot(cd_game, firer={"quality": quality}).outcome) == []


def test_a_class_vs_a_middling_afv_has_no_modifier(cd_game):
    res = shot(cd_game, firer={"weapon_class": "A", "penetration": {"short": 5}}, target={"kind": "afv", "armour": 4},
               dice=[10])
    assert modifiers(res.outcome) == []


def test_modifiers_add_up(cd_game):
    res = shot(cd_game, firer={"quality": "green", "suppressed": True}, target={"pinned": True}, cover="hard")
    assert number_of(res) == 6 - 1 - 3 - 1 - 2
    assert [m[1] for m in modifiers(res.outcome)] == [-1, -3, -1, -2]


@pytest.mark.parametrize("flag", ["close_assault", "flame"])
def test_close_assault_and_flame_ignore_target_modifiers_14_2_1(cd_game, flag):
    res = shot(cd_game, firer={"quality": "green"}, target={"pinned": True}, cover="fortification",
               target_patrol=True, **{flag: True})
    assert "Close assault and flame ignore the target modifiers" in labels(res.outcome)
    assert modifiers(res.outcome) == [("Trained/Green firer", -1, RULE)]  # the firer's still count


def test_a_flame_weapon_ignores_target_modifiers(cd_game):
    res = shot(cd_game, firer={"weapon_class": "F"}, cover="hard")
    assert modifiers(res.outcome) == []


@pytest.mark.parametrize("weapon", ["H", "W"])
def test_he_ignores_the_starred_target_modifiers_14_2_1(cd_game, weapon):
    res = shot(cd_game, firer={"weapon_class": weapon}, target={"pinned": True}, cover="light", target_patrol=True)
    assert modifiers(res.outcome) == []
    assert [s for s in labels(res.outcome) if s.startswith("HE")] == [
        f"HE ({weapon} class) ignores: Target Patrol", f"HE ({weapon} class) ignores: Pinned personnel",
        f"HE ({weapon} class) ignores: Light cover"]


def test_he_still_takes_the_personnel_cover_modifiers_14_2_1(cd_game):
    res = shot(cd_game, firer={"weapon_class": "H"}, cover="hard")
    assert modifiers(res.outcome) == [("Personnel in hard cover", -3, RULE)]


def test_he_ignores_hull_down(cd_game):
    res = shot(cd_game, firer={"weapon_class": "H"}, target={"kind": "afv", "armour": 4}, hull_down=True)
    assert modifiers(res.outcome) == []
