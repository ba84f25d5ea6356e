"""Heat of Battle (A15.1, full ASL only) with the game option heat_of_battle: table.

The table, its DRMs and its two sources are data/asl/heat_of_battle.yaml. Dice are scripted: the
check's DR (white, colored), then the HoB DR (white, colored).
"""

from itertools import product

import pytest

from bot.core.rulesets import get_ruleset
from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import InvalidOrder
from bot.core.rulesets.asl import counters, heat
from bot.core.rulesets.asl.models import AslUnit
from bot.core.rulesets.asl.ruleset import RULESET

from .conftest import AslBuilder, labels, steps

HOB = "A15.1"


def table_game(*, phase="PFPh", variant="full", nationalities=("german", "russian")):
    b = AslBuilder(phase=phase, variant=variant, nationalities=nationalities)
    b.game.options["heat_of_battle"] = "table"
    return b


def add(b, type_name, uid, side, loc, **fields):
    if loc not in b.game.locations:
        b.hex(loc)
    unit = RULESET.make_unit(type_name, id=uid, side=side, location=loc)
    for key, value in fields.items():
        setattr(unit, key, value)
    b.game.units[uid] = unit
    return b


def morale(game, dice, **order):
    return resolve(game, {"action": "morale", **order}, ScriptedDice(dice))


def hob_steps(out):
    """The trail from the HoB DR on."""
    trail = steps(out)
    start = next(i for i, s in enumerate(trail) if s[0].startswith("Heat of Battle DR"))
    return trail[start:]


# --------------------------------------------------------------------------- the data

def test_the_table_names_two_sources_and_covers_every_final_dr_once():
    data = heat.table()
    assert len(data.sources) >= 2 and data.default_mode == "mark"
    for final in range(-6, 25):
        assert sum(band.holds(final) for band in data.bands) == 1, final
    read = {final: next(b.results for b in data.bands if b.holds(final)) for final in range(14)}
    assert read[4] == ("hero",) and read[5] == read[6] == ("hero", "battle_hardening")
    assert read[7] == read[8] == ("battle_hardening",) and read[9] == read[11] == ("berserk",)
    assert read[12] == read[13] == ("surrender",)
    values = {d.key: d.value for d in data.drms}
    assert (values["broken"], values["inexperienced"]) == (1, 1)
    # the nationality DRMs are not in our sources: no number is invented for them
    assert values["elite_british_finnish"] is values["russian_allied_minor"] is None
    assert set(data.result_rules) == set(data.result_names) == {"hero", "battle_hardening", "berserk", "surrender"}
    for nation, type_name in data.heroes.items():
        entry = counters.counter_type(type_name)
        assert (entry.kind, entry.nationality) == ("hero", nation)


def test_over_the_36_hob_drs_a_good_order_squad_gets_each_result_in_exact_counts_a15_1():
    counts: dict[str, int] = {}
    for white, colored in product(range(1, 7), repeat=2):
        b = table_game()
        add(b, "ger-467", "A1", 0, "B5")
        out = morale(b.game, [1, 1, white, colored], unit="A1", check="NMC").outcome
        (cell,) = [s for s in out.trail if s.kind == "table"]
        counts[cell.value] = counts.get(cell.value, 0) + 1
    assert counts == {"Hero Creation": 6, "Hero Creation + Battle Hardening": 9, "Battle Hardening": 11,
                      "Berserk": 9, "Surrender": 1}


# --------------------------------------------------------------------------- each result

def test_final_4_creates_a_hero_beside_the_squad_a15_21():
    b = table_game()
    add(b, "ger-467", "A1", 0, "B5")
    res = morale(b.game, [1, 1, 2, 2], unit="A1", check="MC", n=3)
    assert steps(res.outcome, "check") == [("Final DR 5 vs morale 7", "Heat of Battle", 5, "A15")]
    assert hob_steps(res.outcome) == [
        ("Heat of Battle DR: 4-6-7 A1", None, None, HOB),
        ("DR: white 2, colored 2", 4, None, HOB),
        ("Final Heat of Battle DR 4", "Hero Creation", 4, HOB),
        ("1-4-9 A1H: created by Heat of Battle beside 4-6-7 A1", None, None, "A15.21"),
    ]
    hero = res.game.units["A1H"]
    assert (hero.kind, hero.type, hero.side, hero.location, hero.broken) == ("hero", "ger-hero", 0, "B5", False)
    assert (res.game.units["A1"].name, res.game.units["A1"].broken) == ("4-6-7", False)
    assert [(e.unit, e.before, e.after) for e in res.outcome.effects] == [("A1H", "Good Order", "Good Order")]


def test_final_5_or_6_is_a_hero_and_battle_hardening_a15_21_a15_3():
    b = table_game()
    add(b, "ger-467", "A1", 0, "B5")
    res = morale(b.game, [1, 1, 2, 3], unit="A1", check="NMC")
    assert labels(res.outcome, "effect") == ["1-4-9 A1H: created by Heat of Battle beside 4-6-7 A1",
                                             "4-6-8 A1: Battle Hardening: 4-6-7 becomes 4-6-8, unbroken and unpinned"]
    a1 = res.game.units["A1"]
    # ger-548 and ger-468 both step down to ger-467: the one with the same FP and range is taken
    assert (a1.type, a1.morale, a1.broken_morale) == ("ger-468", 8, 9)


def test_a_broken_squad_adds_1_and_battle_hardening_unbreaks_it_a15_3():
    b = table_game()
    add(b, "ger-447", "A1", 0, "B5", broken=True, dm=True)
    res = morale(b.game, [1, 1, 3, 3], unit="A1", check="NMC")
    assert hob_steps(res.outcome) == [
        ("Heat of Battle DR: 4-4-7 A1", None, None, HOB),
        ("DR: white 3, colored 3", 6, None, HOB),
        ("Broken", 1, None, HOB),
        ("Final Heat of Battle DR 7", "Battle Hardening", 7, HOB),
        ("4-6-7 A1: Battle Hardening: 4-4-7 becomes 4-6-7, unbroken and unpinned", None, None, "A15.3"),
    ]
    a1 = res.game.units["A1"]
    assert (a1.type, a1.broken, a1.pinned) == ("ger-467", False, False)


def test_battle_hardening_with_two_candidates_is_left_to_the_players_a15_3():
    b = table_game(nationalities=("russian", "german"))
    add(b, "rus-426", "R1", 0, "B5")  # 4-2-6: both 5-2-7 and 4-4-7 step down to it
    res = morale(b.game, [1, 1, 3, 3], unit="R1", check="NMC")  # 6 + Inexperienced 1
    assert labels(res.outcome, "effect") == [
        "4-2-6 R1: Battle Hardening (one of rus-527, rus-447): the players apply it with a GM correction"]
    assert res.game.units["R1"].type == "rus-426"


def test_final_9_to_11_goes_berserk_and_a_berserk_unit_never_cowers_a15_4_a7_9():
    b = table_game()
    add(b, "ger-467", "A1", 0, "B5", broken=True, dm=True)
    res = morale(b.game, [1, 1, 4, 4], unit="A1", check="NMC")  # 8 + broken 1 = 9
    assert hob_steps(res.outcome)[-2:] == [
        ("4-6-7 A1: berserk", None, None, "A15.4"),
        (("the bot does not track which enemy units are Known: with no Known enemy unit in LOS this is Battle Hardening instead (A15.44); "
          "correct it with a GM correction"), None, None, "A15.4"),
    ]
    a1 = res.game.units["A1"]
    assert (a1.berserk, a1.broken) == (True, False)
    assert res.outcome.effects[0].after == "Good Order, DM, berserk"
    game = res.game
    game.locations["C5"] = get_ruleset(game.ruleset).new_location(id="C5", terrain="open")
    game.units["R1"] = AslUnit(id="R1", side=1, location="C5", kind="squad", name="4-4-7", fp=4, range=4,
                               morale=7, quality="first_line", type="custom")
    fired = resolve(game, {"action": "fire", "firers": ["A1"], "target": "C5", "range": 1}, ScriptedDice([3, 3, 2, 3]))
    assert "doubles: no cowering, every firer is exempt (British elite/first line, Finns)" in labels(fired.outcome, "note")


def test_final_12_surrenders_and_the_players_carry_it_out_a15_5():
    b = table_game()
    add(b, "ger-467", "A1", 0, "B5")
    res = morale(b.game, [1, 1, 6, 6], unit="A1", check="NMC")
    assert labels(res.outcome, "effect") == ["4-6-7 A1: surrenders: the players carry it out (the bot does not move units for it)"]
    assert steps(res.outcome, "table") == [("Final Heat of Battle DR 12", "Surrender", 12, HOB)]


@pytest.mark.parametrize("quality,result", [("first_line", "Surrender"), ("elite", "Berserk")])
def test_non_elite_italians_surrender_from_10_a15_5(quality, result):
    b = table_game(nationalities=("italian", "british"))
    b.squad("I1", 0, "B5", quality=quality)
    res = morale(b.game, [1, 1, 5, 5], unit="I1", check="NMC")
    assert steps(res.outcome, "table") == [("Final Heat of Battle DR 10", result, 10, HOB)]


# --------------------------------------------------------------------------- the DRMs

def test_a_nationality_drm_not_in_our_sources_is_named_and_not_applied_a15_1():
    b = table_game(nationalities=("russian", "german"))
    add(b, "rus-447", "R1", 0, "B5")
    out = morale(b.game, [1, 1, 3, 4], unit="R1", check="NMC").outcome
    note = ("Russian, Allied Minor: the DRM's value is not in our sources, so it is not applied (set the game "
            "option heat_of_battle_drm_russian_allied_minor)")
    assert (note, None, None, HOB) in hob_steps(out)
    assert steps(out, "table") == [("Final Heat of Battle DR 7", "Battle Hardening", 7, HOB)]


def test_the_game_option_supplies_the_drm_and_each_counts_once_per_trait_a15_1():
    b = table_game(nationalities=("british", "german"))
    b.game.options["heat_of_battle_drms"] = {"elite_british_finnish": -1}
    add(b, "brit-458", "B1", 0, "B5")  # elite and British: the "(each)" DRM twice
    out = morale(b.game, [1, 1, 4, 4], unit="B1", check="NMC").outcome
    assert steps(out, "modifier") == [("Elite, British, Finnish (each) (game option): elite", -1, None, HOB),
                                      ("Elite, British, Finnish (each) (game option): british", -1, None, HOB)]
    assert steps(out, "table") == [("Final Heat of Battle DR 6", "Hero Creation + Battle Hardening", 6, HOB)]


def test_the_flat_option_of_game_new_supplies_a_drm_and_a_bad_value_is_refused_a15_1():
    b = table_game(nationalities=("russian", "german"))
    b.game.options["heat_of_battle_drm_russian_allied_minor"] = 2  # /game new options: key=value
    add(b, "rus-447", "R1", 0, "B5")
    out = morale(b.game, [1, 1, 3, 4], unit="R1", check="NMC").outcome
    assert steps(out, "modifier") == [("Russian, Allied Minor (game option)", 2, None, HOB)]
    assert steps(out, "table") == [("Final Heat of Battle DR 9", "Berserk", 9, HOB)]
    b.game.options["heat_of_battle_drm_russian_allied_minor"] = "lots"
    with pytest.raises(InvalidOrder) as caught:
        morale(b.game, [1, 1, 3, 4], unit="R1", check="NMC")
    assert caught.value.field == "options.heat_of_battle_drm_russian_allied_minor"


def test_an_inexperienced_unit_adds_1_a15_1():
    b = table_game()
    add(b, "ger-436", "A1", 0, "B5")  # conscript
    out = morale(b.game, [1, 1, 2, 2], unit="A1", check="NMC").outcome
    assert steps(out, "modifier") == [("Inexperienced", 1, None, HOB)]
    assert steps(out, "table") == [("Final Heat of Battle DR 5", "Hero Creation + Battle Hardening", 5, HOB)]


# --------------------------------------------------------------------------- who and when

def test_a_broken_leader_made_heroic_rallies_a15_21():
    b = table_game()
    add(b, "ger-8-1", "L1", 0, "B5", broken=True, dm=True)
    res = morale(b.game, [1, 1, 1, 2], unit="L1", check="NMC")  # 3 + broken 1 = 4
    assert labels(res.outcome, "effect") == ["8-1 L1: heroic", "8-1 L1: rallied (a heroic leader rallies)"]
    leader = res.game.units["L1"]
    assert (leader.heroic, leader.broken) == (True, False)
    assert [(e.before, e.after) for e in res.outcome.effects] == [("broken, DM", "Good Order, DM, heroic")]


def test_crews_and_heroes_roll_no_hob_dr_a15_1():
    b = table_game()
    add(b, "ger-crew", "C1", 0, "B5")
    res = morale(b.game, [1, 1], unit="C1", check="NMC")  # no third die is needed
    assert labels(res.outcome, "note")[-1] == "Original 2, but 2-2-8 C1 is a crew: not subject to Heat of Battle"
    assert res.outcome.effects == ()


def test_a_leader_led_rally_rolls_hob_with_the_broken_drm_after_rallying_a15_1():
    b = table_game(phase="RPh")
    add(b, "ger-447", "A1", 0, "B5", broken=True, dm=True)
    add(b, "ger-8-0", "L1", 0, "B5")
    res = resolve(b.game, {"action": "rally", "unit": "A1"}, ScriptedDice([1, 1, 3, 3]))
    assert ("Broken", 1, None, HOB) in hob_steps(res.outcome)
    assert labels(res.outcome, "effect") == [
        "4-4-7 A1: rallied", "4-6-7 A1: Battle Hardening: 4-4-7 becomes 4-6-7, unbroken and unpinned"]
    assert res.outcome.headline.endswith("-> rallies (Heat of Battle)")


def test_a_self_rally_has_no_heat_of_battle_a15_1():
    b = table_game(phase="RPh")
    add(b, "ger-447", "A1", 0, "B5", broken=True)
    res = resolve(b.game, {"action": "rally", "unit": "A1", "self_rally": True}, ScriptedDice([1, 1]))
    assert not [s for s in res.outcome.trail if s.rule and s.rule.startswith("A15")]
    assert not res.game.units["A1"].broken  # 2 + 1 Self-Rally = 3 <= 7


def test_the_starter_kit_has_no_heat_of_battle_even_with_the_option_a15():
    b = table_game(variant="starter")
    add(b, "ger-467", "A1", 0, "B5")
    res = morale(b.game, [1, 1], unit="A1", check="MC", n=7)
    assert steps(res.outcome, "check") == [("Final DR 9 vs morale 7", "fails", 9, "A10.1")]


def test_a_bad_mode_is_refused_naming_the_option_and_the_game_is_unchanged():
    b = table_game()
    b.game.options["heat_of_battle"] = "always"
    add(b, "ger-467", "A1", 0, "B5")
    before = b.game.model_dump_json()
    with pytest.raises(InvalidOrder) as caught:
        morale(b.game, [1, 1], unit="A1", check="NMC")
    assert caught.value.field == "options.heat_of_battle"
    assert b.game.model_dump_json() == before


def test_hob_in_an_ift_attack_follows_the_targets_check_a15_1():
    b = table_game()
    b.squad("G1", 0, "A4", fp=4)
    add(b, "rus-447", "R1", 1, "B5")
    # 4 FP at range 1 (x2 point blank) = 8 column; DR 3+5 = 8 -> NMC; R1 rolls 1+1; HoB 6+5 = 11
    res = resolve(b.game, {"action": "fire", "firers": ["G1"], "target": "B5", "range": 1},
                  ScriptedDice([3, 5, 1, 1, 6, 5]))
    assert steps(res.outcome, "table")[-1] == ("Final Heat of Battle DR 11", "Berserk", 11, HOB)
    assert res.game.units["R1"].berserk
