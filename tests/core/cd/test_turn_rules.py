"""What a Command Decision turn needs between the rolls (issue 25; seed 004), in games created since
(the internal option cd_turn_rules): the artillery response before a mission and the battery's ROF
[17.4, 13.5], simultaneous Prep and General Fire (2C, 4B), the companies that must check morale
(5B), the scenario's side quality and a Location's cover [14.2.1, 19.1], and a sealed order revealed
before its stands move (2D-2E). Games logged before play on as they did (the last tests)."""

from __future__ import annotations

import pytest

from bot.core.rulesets import get_ruleset
from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder
from bot.core.game import Game, Location, PendingSeal
from bot.core.rulesets.cd.models import CdStand
from bot.core.sealed import reveal_sealed, sealed_text

from .conftest import labels

RESPONSE = "CD [17.4]"
ROF = "CD [13.5, 17.6]"
SIMULTANEOUS = "CD 2C (Prep Fire: both sides resolve), 4B (General Fire: assumed)"
DUE = "CD 5B [21]"
QUALITY = "CD [14.2.1, 19.1, 21]: the scenario's side quality (a stand's own wins: assumed)"
STEP = {"Artillery": 0, "Prep": 2, "Moves": 4, "GeneralFire": 8, "CommandMorale": 10}


def game_at(step: str, phase: str, **options) -> Game:
    """A refereed CD game of turn 1 created today (cd_turn_rules), the Americans Side A, at ``step``:
    RA1 a 105mm battery (ROF 1, IDF 6), SH1 a Sherman and 1-A a rifle platoon (Americans); G1 a rifle
    platoon (company 1Kp) and PZ1 a Pz IV (company 2Kp) of the Germans, in the Location hedge-1."""
    game = new_game("cd", sides=["Americans", "Germans"], scenario="Test", sequence=1,
                    options={"cd_turn_rules": True} | options)
    stands = (
        CdStand(id="RA1", side=0, location="rear", name="US 105mm battery", type="us-105mm-battery",
                kind="artillery", company="Arty", rof=1, weapon_class="H", caliber_mm=105, idf_to_hit=6,
                to_hit={"short": 5}),
        CdStand(id="SH1", side=0, location="farm", name="M4 Sherman", type="m4-sherman-75", kind="afv",
                company="Tanks", rof=2, weapon_class="A", to_hit={"short": 6}, penetration={"short": 5},
                armour=4, weight=2, caliber_mm=75, vehicle_type="tank"),
        CdStand(id="1-A", side=0, location="farm", name="US rifle platoon", type="us-rifle", company="Able",
                rof=2, weapon_class="S", to_hit={"short": 5}),
        CdStand(id="G1", side=1, location="hedge-1", name="German rifle platoon", type="ger-rifle",
                company="1Kp", quality="experienced", rof=2, weapon_class="S", to_hit={"short": 5}),
        CdStand(id="PZ1", side=1, location="hedge-1", name="Pz IV", type="pz-iv-h", kind="afv", company="2Kp",
                quality="experienced", rof=2, weapon_class="A", to_hit={"short": 6}, penetration={"short": 6},
                armour=4, weight=2, caliber_mm=75, vehicle_type="tank"),
    )
    for stand in stands:
        game.units[stand.id] = stand
    game.locations = {"farm": get_ruleset(game.ruleset).new_location(id="farm"), "rear": get_ruleset(game.ruleset).new_location(id="rear"), "hedge-1": get_ruleset(game.ruleset).new_location(id="hedge-1")}
    game.step, game.phase, game.to_act, game.initiative = STEP[step], phase, 0, 0
    return game


def act(game: Game, dice: list[int], **order) -> tuple[Game, object]:
    done = resolve(game, order, ScriptedDice(list(dice)))
    return done.game, done.outcome


def refused(game: Game, **order) -> str:
    with pytest.raises(IllegalOrder) as exc:
        resolve(game, order, ScriptedDice([1] * 12))
    return exc.value.message


def done(game: Game, side: int, dice: list[int] = ()) -> tuple[Game, object]:
    return act(game, list(dice), action="done", side=side)


# --- artillery: the response roll, the battery's ROF [17.4, 13.5] ---


def test_a_battery_fires_no_mission_before_its_response_roll_17_4():
    text = refused(game_at("Artillery", "Artillery"), action="indirect_fire", firer="RA1", targets=["G1"])
    assert text == ("US 105mm battery RA1 has not answered a call for fire this turn: roll its response first "
                    "(/artillery response firer:RA1; organic artillery answers on 1-5, supporting on 1-3, CD [17.4])")


@pytest.mark.parametrize("support, roll, answers", [
    ("organic", 4, True), ("organic", 5, True), ("organic", 6, False),
    ("supporting", 2, True), ("supporting", 3, True), ("supporting", 4, False),
])
def test_the_response_succeeds_at_the_support_number_or_less_and_only_then_the_battery_fires(support, roll, answers):
    game, outcome = act(game_at("Artillery", "Artillery"), [roll], action="artillery_response", firer="RA1",
                        support=support)
    assert ("note", "US 105mm battery RA1 fires " + ("its mission this turn (/artillery fire)" if answers else
                                                     "no mission this turn"), RESPONSE) in \
        [(s.kind, s.label, s.rule) for s in outcome.trail]
    order = {"action": "indirect_fire", "firer": "RA1", "targets": ["G1"]}
    if not answers:
        assert refused(game, **order) == ("US 105mm battery RA1's response roll this turn failed (no response): it "
                                          "fires no mission until next turn's Artillery & Air Phase (CD [17.4])")
        return
    _, fired = act(game, [9, 2], **order)
    kind = "Organic" if support == "organic" else "Supporting"
    assert f"{kind} artillery answered this turn; mission 1 of its ROF 1 this phase" in labels(fired, "note")


def test_a_rof_1_battery_fires_one_mission_a_phase_13_5():
    game, _ = act(game_at("Artillery", "Artillery"), [1], action="artillery_response", firer="RA1")
    game, _ = act(game, [9, 2], action="indirect_fire", firer="RA1", targets=["G1"])
    assert refused(game, action="indirect_fire", firer="RA1", targets=["G1"]) == (
        "US 105mm battery RA1 has fired 1 mission this phase, its rate of fire (ROF 1): it fires again in a later "
        f"phase ({ROF})")
    game.units["RA1"].rof = 2  # a ROF-2 battery: a second mission, not a third
    game, second = act(game, [9, 2], action="indirect_fire", firer="RA1", targets=["G1"])
    assert "Organic artillery answered this turn; mission 2 of its ROF 2 this phase" in labels(second, "note")
    assert "fired 2 missions this phase" in refused(game, action="indirect_fire", firer="RA1", targets=["G1"])


def test_only_artillery_answers_a_call_for_fire_and_once_a_turn():
    game = game_at("Artillery", "Artillery")
    assert refused(game, action="artillery_response", firer="1-A") == (
        "US rifle platoon 1-A is not artillery (it has no indirect-fire number): only a battery answers a call for "
        "fire (CD [17.4])")
    game, _ = act(game, [8], action="artillery_response", firer="RA1")
    assert refused(game, action="artillery_response", firer="RA1") == (
        "US 105mm battery RA1 has rolled its response this turn already (no response): one roll a battery a turn "
        "(CD [17.4] (one response roll a battery a turn: assumed))")


def test_an_h_and_i_response_fires_an_h_and_i_mission():
    game, _ = act(game_at("Artillery", "Artillery"), [3], action="artillery_response", firer="RA1",
                  support="h_and_i")
    assert "answered for an H&I mission" in refused(game, action="indirect_fire", firer="RA1", targets=["G1"])
    _, fired = act(game, [9], action="indirect_fire", firer="RA1", targets=["G1"], h_and_i=True)
    assert "H&I answered this turn; mission 1 of its ROF 1 this phase" in labels(fired, "note")


# --- simultaneous fire (2C, 4B) ---


def test_a_stand_eliminated_in_the_general_fire_phase_still_fires_in_it():
    game = game_at("GeneralFire", "GeneralFire")
    # SH1 (2 ROF, 6 or less at short) hits PZ1 twice: AP 10 -4 +5 = 11 eliminated, then a spent hit
    game, shot = act(game, [3, 4, 10, 10], action="fire", firer="SH1", targets=["PZ1"], range_band="short")
    assert shot.headline.endswith("(takes effect at the end of the phase)")
    assert "Pz IV PZ1: eliminated: takes effect at the end of the phase" in labels(shot, "effect")
    assert "Pz IV PZ1 is already eliminated at the end of the phase: the hit is spent" in labels(shot, "note")
    assert not game.units["PZ1"].eliminated and game.units["PZ1"].pending == ["eliminated"]
    game, _ = done(game, 0)
    # PZ1 answers: 2 hits, 9 misses; the hit result 3 -4 +6 = 5 forces the Sherman back
    game, answer = act(game, [2, 9, 3], action="fire", firer="PZ1", targets=["SH1"], range_band="short")
    assert answer.headline.startswith("Pz IV PZ1 fires 2 ROF at M4 Sherman SH1: 1 hit")
    assert game.units["SH1"].pending == ["forced back"]
    game, ended = done(game, 1)
    trail = [(s.kind, s.label, s.rule) for s in ended.trail]
    assert ("section", "End of the General Fire Phase: its fire takes effect", SIMULTANEOUS) in trail
    assert ("effect", "Pz IV PZ1: eliminated (fire of the General Fire Phase)", SIMULTANEOUS) in trail
    assert ("effect", "M4 Sherman SH1: forced back (fire of the General Fire Phase)", SIMULTANEOUS) in trail
    assert game.units["PZ1"].eliminated and game.units["PZ1"].eliminated_turn == 1
    assert game.units["SH1"].forced_back and not game.units["SH1"].pending
    assert {e.unit: e.after for e in ended.effects}["PZ1"] == "eliminated"


def test_prep_fire_results_take_effect_before_side_a_moves():
    game = game_at("Prep", "Movement")
    game.units["RA1"].location = "farm"  # an H class stand prep fires
    game, shot = act(game, [2, 9], action="fire", firer="RA1", targets=["G1"], range_band="short")
    assert game.units["G1"].pending == ["eliminated", "suppressed"]
    game, _ = done(game, 0)
    assert game.units["G1"].pending and not game.units["G1"].eliminated  # Side B prep fires next: still there
    game, ended = done(game, 1)
    assert "German rifle platoon G1: eliminated (fire of the Prep Fire)" in labels(ended, "effect")
    assert game.units["G1"].eliminated and not game.units["G1"].pending


@pytest.mark.parametrize("choice, held", [("prep_general", True), ("prep", False), ("none", False)])
def test_the_game_option_says_which_phases_fire_together(choice, held):
    game = game_at("GeneralFire", "GeneralFire", cd_simultaneous_fire=choice)
    game, _ = act(game, [3, 4, 10, 10], action="fire", firer="SH1", targets=["PZ1"], range_band="short")
    assert game.units["PZ1"].eliminated is not held
    if not held:
        game, _ = done(game, 0)
        assert refused(game, action="fire", firer="PZ1", targets=["SH1"], range_band="short") == \
            "Pz IV PZ1 is eliminated and cannot fire"


# --- company morale due (5B) ---


def fired_upon_then_command_morale(game: Game) -> Game:
    game, _ = act(game, [9, 9], action="fire", firer="1-A", targets=["G1"], range_band="short")  # misses
    game, _ = done(game, 0)
    game, _ = done(game, 1)
    return game


def test_done_is_refused_while_a_company_fired_upon_has_not_checked_5b():
    game = game_at("GeneralFire", "GeneralFire")
    game.initiative = 1  # the Germans are Side A: theirs is the first part of the Command & Morale Phase
    game.to_act = 1
    game, _ = act(game, [], action="done", side=1)
    game, _ = act(game, [9, 9], action="fire", firer="1-A", targets=["G1"], range_band="short")
    game, entered = done(game, 0)
    assert (game.phase, game.to_act) == ("CommandMorale", 1)
    assert ("Germans must check morale (5B): company 1Kp (fired upon); /morale company:<name> for each (or the game "
            "master waives one with /company waive) before /done") in labels(entered, "note")
    text = refused(game, action="done", side=1)
    assert text == ("Germans must check morale before they end the Command & Morale Phase: company 1Kp (fired upon) "
                    "(CD 5B [21]); /morale company:1Kp, or the game master waives it with /company waive "
                    "company:1Kp")
    checked, _ = act(game, [1], action="morale", company="1Kp")
    after, _ = done(checked, 1)
    assert (after.phase, after.to_act) == ("CommandMorale", 0)


def test_a_waived_check_lets_the_side_end_and_its_old_pin_comes_off():
    game = game_at("GeneralFire", "GeneralFire")
    game.initiative, game.to_act = 1, 1
    game.units["G1"].pinned, game.units["G1"].pinned_turn = True, 0
    game, _ = done(game, 1)
    game, _ = act(game, [9, 9], action="fire", firer="1-A", targets=["G1"], range_band="short")
    game, _ = done(game, 0)
    assert "nothing to waive" in refused(game, action="company_waive", company="2Kp")
    game, waived = act(game, [], action="company_waive", company="1Kp", reason="behind the hedge")
    assert waived.headline == "Company 1Kp: morale check waived by the game master"
    assert labels(waived, "note") == ["Due: company 1Kp (fired upon)", "The game master's reason: behind the hedge",
                                      "No check this turn: its old pins come off at the end of the turn"]
    game, _ = done(game, 1)
    game, ended = done(game, 0)
    assert "German rifle platoon G1: pin removed, no morale check this turn" in labels(ended, "marker")
    assert not game.units["G1"].pinned


def test_a_company_declared_near_the_enemy_must_check_and_a_lost_company_is_seen():
    game = game_at("CommandMorale", "CommandMorale")
    game.units["PZ1"].eliminated, game.units["PZ1"].eliminated_turn = True, 1  # company 2Kp lost this turn
    assert refused(game, action="company_near", company="1Kp") == (
        "it is the Command & Morale Phase, Side A, Americans to act: Germans may not company near now (CD sequence "
        "of play (seed 004)); Germans may company near in the Command & Morale Phase (Side B) of this turn")
    game, near = act(game, [], action="company_near", company="Able")
    assert near.headline == 'Company Able is within 12" of the enemy: it checks morale this turn'
    assert "company Able (within 12\" of the enemy)" in refused(game, action="done", side=0)
    game, _ = act(game, [1], action="morale", company="Able")
    game, entered = done(game, 0)
    assert any("company 1Kp (friendly company 2Kp eliminated)" in line for line in labels(entered, "note"))


# --- scenario data: side quality, a Location's cover ---


def test_the_side_quality_is_the_stands_default_and_a_veteran_takes_no_effect_on_a_5():
    game = game_at("GeneralFire", "GeneralFire", cd_simultaneous_fire="none")
    game.sides[1].options = {"quality": "veteran"}
    game, shot = act(game, [1, 9, 5], action="fire", firer="1-A", targets=["G1"], range_band="short")
    assert ("note", "German rifle platoon G1 is veteran: the quality of the Germans in the scenario (its counter reads "
            "experienced)", QUALITY) in [(s.kind, s.label, s.rule) for s in shot.trail]
    assert shot.cells[0].column == "veteran" and shot.cells[0].result == "no effect"
    game = game_at("GeneralFire", "GeneralFire", cd_simultaneous_fire="none")  # no side quality
    _, plain = act(game, [1, 9, 5], action="fire", firer="1-A", targets=["G1"], range_band="short")
    assert plain.cells[0].column == "experienced" and plain.cells[0].result == "forced back"


def test_a_stands_own_quality_wins_over_its_sides():
    game = game_at("GeneralFire", "GeneralFire", cd_simultaneous_fire="none")
    game.sides[1].options = {"quality": "veteran"}
    game.units["G1"].quality = "green"  # not its counter's experienced: its own
    _, shot = act(game, [1, 9, 5], action="fire", firer="1-A", targets=["G1"], range_band="short")
    assert "German rifle platoon G1 is green: its own quality, not its side's (Germans: veteran)" in \
        labels(shot, "note")
    assert shot.cells[0].column == "green"


def test_a_hedgerow_gives_medium_cover_and_the_order_s_cover_wins():
    game = game_at("GeneralFire", "GeneralFire", cd_simultaneous_fire="none")
    game.locations["hedge-1"].features = ["hedgerow"]
    _, shot = act(game, [9, 9], action="fire", firer="1-A", targets=["G1"], range_band="short")
    trail = [(s.kind, s.label, s.value, s.rule) for s in shot.trail]
    assert ("note", "German rifle platoon G1 in hedge-1: hedgerow gives medium cover (data/cd/cover.yaml, assumed)",
            None, "CD [14.2.1, 17.6]") in trail
    assert ("modifier", "Personnel in medium cover", -2, "CD [14.2.1]") in trail
    _, typed = act(game, [9, 9], action="fire", firer="1-A", targets=["G1"], range_band="short", cover="hard")
    assert ("modifier", "Personnel in hard cover", -3, "CD [14.2.1]") in [(s.kind, s.label, s.value, s.rule)
                                                                          for s in typed.trail]
    assert not any("hedgerow" in line for line in labels(typed))


# --- sealed orders: revealed before the stands move (2D-2E) ---


def test_a_stand_does_not_move_before_its_sides_sealed_orders_are_revealed():
    game = game_at("Moves", "Movement", sealed_orders=True)
    game.turn = 2
    game.sealed = [PendingSeal(seq=5, side=0, turn=1)]
    assert refused(game, action="move", stands=["1-A"], to="rear") == (
        "US rifle platoon 1-A may not move before its order is revealed: Americans still hold sealed orders (#5); "
        "they reveal them as they move, /reveal sealed:5 first (CD 5A, 2D-2E)")
    game.units["1-A"].revealed_turn = 2  # its own order is open: it moves, the other sealed order aside
    moved, _ = act(game, [], action="move", stands=["1-A"], to="rear")
    assert moved.units["1-A"].location == "rear"
    game.units["1-A"].revealed_turn, game.sealed = None, []  # every order of the side open
    assert act(game, [], action="move", stands=["1-A"], to="rear")[0].units["1-A"].location == "rear"


def test_a_stand_prep_fires_only_once_its_order_is_revealed():
    game = game_at("Prep", "Movement", sealed_orders=True)
    game.turn = 2
    game.sealed = [PendingSeal(seq=5, side=0, turn=1)]
    game.units["RA1"].location = "farm"  # an H class stand prep fires
    assert refused(game, action="fire", firer="RA1", targets=["G1"], range_band="short") == (
        "US 105mm battery RA1 may not fire before its order is revealed: Americans still hold sealed orders (#5); "
        "to prep fire with it they reveal them in their Prep Fire, /reveal sealed:5 first (CD 5A, 2D-2E)")
    game.units["RA1"].revealed_turn = 2
    fired, _ = act(game, [9], action="fire", firer="RA1", targets=["G1"], range_band="short")
    assert fired.units["RA1"].fired_phase == "2:Movement"


# --- games logged before play on as they did ---


def test_a_game_created_before_keeps_its_rules():
    game = game_at("Artillery", "Artillery")
    del game.options["cd_turn_rules"]
    game.sides[1].options = {"quality": "veteran"}
    game, _ = act(game, [9], action="indirect_fire", firer="RA1", targets=["G1"])  # no response asked for
    _, again = act(game, [2, 5], action="indirect_fire", firer="RA1", targets=["G1"])
    assert again.cells[0].column == "experienced"


def test_side_b_reveals_in_its_prep_fire_to_prep_fire_with_the_stand_it_names():
    game = game_at("Prep", "Movement", sealed_orders=True)
    game.turn, game.step, game.to_act = 2, STEP["Prep"] + 1, 1  # Side B's (the Germans') prep fire
    game.sealed = [PendingSeal(seq=5, side=0, turn=1), PendingSeal(seq=7, side=1, turn=1)]
    text = sealed_text({"action": "give_orders", "order": "hold", "stands": ["PZ1"]})
    revealed = reveal_sealed(game, 7, text)
    assert revealed.game.units["PZ1"].order == "hold" and revealed.game.units["PZ1"].revealed_turn == 2
    del game.options["cd_turn_rules"]  # a game logged before: the reveals wait for the moves, Side A first
    with pytest.raises(IllegalOrder) as refused_reveal:
        reveal_sealed(game, 7, text)
    assert refused_reveal.value.message.startswith("Side A (Americans) reveal their orders first")


@pytest.mark.parametrize("roll, answers", [(3, True), (4, False)])
def test_a_supporting_battery_of_the_scenario_answers_on_1_to_3_whatever_is_asked(roll, answers):
    game = game_at("Artillery", "Artillery")
    game.units["RA1"].support = "supporting"
    assert refused(game, action="artillery_response", firer="RA1", support="organic") == (
        "US 105mm battery RA1 is supporting artillery: it answers on 1-3 (support:supporting, or h_and_i for an H&I "
        "mission) (CD [17.4])")
    game, outcome = act(game, [roll], action="artillery_response", firer="RA1")
    assert ("base", "Supporting artillery responds on", 3) in [(s.kind, s.label, s.value) for s in outcome.trail]
    assert game.units["RA1"].response_ok is answers and game.units["RA1"].response_support == "supporting"


def test_a_company_of_a_veteran_side_checks_morale_at_the_veteran_rating():
    game = game_at("CommandMorale", "CommandMorale")
    game.step, game.to_act = STEP["CommandMorale"] + 1, 1  # Side B's part: the Germans'
    game.sides[1].options = {"quality": "veteran"}
    _, checked = act(game, [8], action="morale", company="1Kp")
    trail = [(s.kind, s.label, s.value) for s in checked.trail]
    assert ("note", "German rifle platoon G1 is veteran: the quality of the Germans in the scenario (its counter reads "
            "experienced)", None) in trail
    assert ("base", "Morale rating 8 (German rifle platoon G1, veteran)", 8) in trail  # experienced: 7
    assert checked.headline == "Company 1Kp morale: d10 8 -> passed"
