"""Orders the rules refuse (and the game unchanged after them), the CD turn's phases and their
clean-ups [17.5, 20, 21.1.1, 21.3.2], the counter library and a property over any fire order."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.rulesets import get_ruleset
from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder, InvalidOrder, RulesError
from bot.core.game import Game
from bot.core.rulesets.cd import tables
from bot.core.rulesets.cd.ruleset import RULESET

from .conftest import CdBuilder, labels, run


def small(cd_game, phase="GeneralFire"):
    return cd_game(phase=phase).stand("F", 0, company="Able").stand("F2", 0).stand("T", 1, company="Fox") \
        .stand("U", 1, kind="afv", armour=4, weight=2)


REFUSALS = [
    ("eliminated firer", {"F": {"eliminated": True}}, {}, IllegalOrder, "F F is eliminated and cannot fire"),
    ("demoralized firer", {"F": {"demoralized": True}}, {}, IllegalOrder, r"demoralized and may not fire \(CD \[21.3.4\]\)"),
    ("eliminated target", {"T": {"eliminated": True}}, {}, IllegalOrder, "T T is already eliminated"),
    ("unknown range band", {}, {"range_band": "extreme"}, InvalidOrder,
     r"F F has no to-hit number at range 'extreme' \(its bands: short, medium\)"),
    ("same side", {}, {"targets": ["F2"]}, IllegalOrder, "F F and F2 F2 are on the same side"),
    ("unknown target", {}, {"targets": ["Z9"]}, InvalidOrder, r"no unit 'Z9' in this game \(units: F, F2, T, U\)"),
    ("target twice", {}, {"targets": ["T", "t"]}, InvalidOrder, "named twice"),
    ("human wave without assault", {}, {"human_wave": True}, InvalidOrder, "only in close assault"),
    ("op fire outside its phase", {}, {"op_fire": True}, IllegalOrder, r"OpFire phase, not the GeneralFire phase"),
    ("no weapon", {"F": {"weapon_class": "none"}}, {}, IllegalOrder, r"no direct-fire weapon \(CD \[14\]\)"),
    ("AP without penetration", {"F": {"weapon_class": "A"}}, {"targets": ["U"]}, InvalidOrder,
     "no penetration at range 'short'"),
]


@pytest.mark.parametrize("state,order,error,message", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refused_fire_changes_nothing(cd_game, state, order, error, message):
    b = small(cd_game)
    for uid, fields in state.items():
        b.set(uid, **fields)
    before = b.game.model_copy(deep=True)
    with pytest.raises(error, match=message):
        run(b.game, [1, 1, 1], **{"firer": "F", "targets": ["T"], **order})
    assert b.game == before


def test_a_failed_roll_midway_changes_nothing(cd_game):
    b = small(cd_game)
    before = b.game.model_copy(deep=True)
    with pytest.raises(InvalidOrder, match="the dice given ran out"):
        run(b.game, [1], firer="F", targets=["T"])  # a hit, then no die for its result
    assert b.game == before


def test_no_direct_fire_in_the_artillery_phase_13_1(cd_game):
    with pytest.raises(IllegalOrder, match=r"only in the Movement Phase, Opportunity Fire Phase or General Fire Phase; this is the Artillery & Air Phase"):
        run(small(cd_game, "Artillery").game, [1], firer="F", targets=["T"])


def test_prep_fire_is_for_unpinned_h_and_hc_class_only_13_1_1(cd_game):
    with pytest.raises(IllegalOrder, match=r"may not Prep Fire: only unpinned H/HC class stands do \(CD \[13.1.1\]\)"):
        run(small(cd_game, "Movement").game, [1], firer="F", targets=["T"])
    g = small(cd_game, "Movement").set("F", weapon_class="H").game
    res = run(g, [10], firer="F", targets=["T"])
    assert res.game.units["T"].suppressed  # HE prep fire suppresses hit or not [20]
    assert res.outcome.trail[-1].rule == "CD [20]"


def test_pinned_stands_may_not_op_fire_21_3_2(cd_game):
    g = small(cd_game, "OpFire").set("F", pinned=True).game
    with pytest.raises(IllegalOrder, match=r"pinned and may not Op Fire \(CD \[21.3.2\]\)"):
        run(g, [1], firer="F", targets=["T"])


def test_general_fire_by_he_places_no_suppression(cd_game):
    g = small(cd_game).set("F", weapon_class="H").game
    assert not run(g, [10], firer="F", targets=["T"]).game.units["T"].suppressed


# --- phases ---


def advance(game, to=None):
    return resolve(game, {"action": "phase", **({"to": to} if to else {})})


def test_a_turn_cycles_through_the_five_phases_with_the_active_side_kept(cd_game):
    g = cd_game(phase="Artillery").game
    seen = []
    for _ in range(5):
        g = advance(g).game
        seen.append((g.phase, g.turn, g.active_side))
    assert seen == [("Movement", 1, 0), ("OpFire", 1, 0), ("GeneralFire", 1, 0), ("CommandMorale", 1, 0),
                    ("Artillery", 2, 0)]


def test_turn_end_clears_suppression_forced_back_and_smoke_17_5_20(cd_game):
    b = small(cd_game, "CommandMorale").set("T", suppressed=True, forced_back=True)
    b.game.locations["X"] = get_ruleset(b.game.ruleset).new_location(id="X", smoke=True)
    res = advance(b.game)
    t = res.game.units["T"]
    assert not t.suppressed and not t.forced_back and not res.game.locations["X"].smoke
    assert [(s.label, s.rule) for s in res.outcome.trail if s.kind == "marker"] == [
        ("T T: forced back this turn, cleared", "CD [21.1.1]"), ("T T: suppression removed", "CD [17.5, 20]"),
        ("X: smoke removed", "CD [17.5]")]
    assert res.outcome.effects[0].effects == ("forced-back mark cleared", "suppression removed")


def test_an_old_pin_comes_off_at_turn_end_without_a_check_21_3_2(cd_game):
    b = small(cd_game, "CommandMorale").set("T", pinned=True, pinned_turn=0).set("F", pinned=True, pinned_turn=1)
    res = advance(b.game)
    assert not res.game.units["T"].pinned  # pinned last turn, no check this turn
    assert res.game.units["F"].pinned  # pinned this turn: it stays for the next


def test_an_old_pin_stays_when_the_company_checked_and_failed(cd_game):
    b = small(cd_game, "CommandMorale").set("T", pinned=True, pinned_turn=0, morale_checked_turn=1)
    assert advance(b.game).game.units["T"].pinned


def test_suppression_stays_between_the_fire_phases(cd_game):
    g = small(cd_game, "OpFire").set("T", suppressed=True).game
    assert advance(g).game.units["T"].suppressed


# --- the counter library ---


def test_the_counter_library_builds_stands():
    types = RULESET.counter_types()
    assert {"us-rifle", "ger-rifle", "ger-mg42", "m4-sherman-75", "pz-iv-h", "us-105mm-battery"} <= set(types)
    sherman = RULESET.make_unit("M4-Sherman-75", id="S1", side=0, location="X", stats={"quality": "veteran"})
    assert (sherman.name, sherman.weapon_class, sherman.quality, sherman.type) == \
        ("M4 Sherman", "A", "veteran", "m4-sherman-75")
    assert tables.counters().assumed


def test_a_library_sherman_hits_a_panzer_iv_through_the_api(cd_game):
    g = cd_game().game
    for uid, kind, side in (("S1", "m4-sherman-75", 0), ("P1", "pz-iv-h", 1)):
        g = resolve(g, {"action": "unit_add", "id": uid, "type": kind, "side": side, "location": "X"}).game
    res = resolve(g, {"action": "fire", "firer": "S1", "targets": ["P1"], "range_band": "short"},
                  ScriptedDice([3, 9, 4]))  # one hit; 4 - 4 + 5 = 5: experienced forced back
    assert res.outcome.headline == "M4 Sherman S1 fires 2 ROF at Pz IV P1: 1 hit -> forced back"
    assert res.outcome.cells[0].column == "experienced"
    assert Game.model_validate_json(res.game.model_dump_json()) == res.game


def test_every_data_file_carries_its_assumptions():
    assert tables.hit_results().assumed and tables.modifiers().assumed and tables.morale().assumed


def test_the_modifier_data_forbids_unknown_keys():
    data = tables.modifiers().model_dump()
    data["rof"]["elite"]["bonus"] = 2
    with pytest.raises(Exception, match="bonus"):
        tables.Modifiers.model_validate(data)


# --- property: any fire order either resolves or is refused with a RulesError ---

# Mostly well-formed orders (so that most resolve), with a share of bad stands, bands and phases.
FLAGS = ("in_contact", "close_assault", "flame", "passenger", "target_patrol", "hull_down", "hasty_advance",
         "close_range")
ORDERS = st.fixed_dictionaries({
    "action": st.just("fire"),
    "firer": st.sampled_from(["F", "F", "F", "F", "F2", "T", "Z"]),
    "targets": st.one_of(st.lists(st.sampled_from(["T", "U"]), min_size=1, max_size=2, unique=True),
                        st.lists(st.sampled_from(["T", "U"]), min_size=1, max_size=2, unique=True),
                        st.lists(st.sampled_from(["T", "U", "F2", "Z"]), min_size=1, max_size=3)),
    "range_band": st.sampled_from(["short", "short", "short", "long"]),
    "cover": st.sampled_from(["none", "light", "medium", "hard", "fortification"]),
}, optional={**{k: st.booleans() for k in FLAGS}, "human_wave": st.sampled_from([False, False, False, True]),
                                "op_fire": st.sampled_from([False, False, False, True])})
PHASES = st.sampled_from(["GeneralFire"] * 4 + ["OpFire"] * 2 + list(RULESET.phases))
GAME = CdBuilder().stand("F", 0, rof=3, caliber_mm=75, weapon_class="A", penetration={"short": 5}) \
    .stand("F2", 0, weapon_class="H").stand("T", 1, quality="elite") \
    .stand("U", 1, kind="afv", armour=4, weight=2, to_hit={"short": 5}).game


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=ORDERS, phase=PHASES, dice=st.one_of(st.lists(st.integers(min_value=1, max_value=10), min_size=16, max_size=24),
                      st.lists(st.integers(min_value=1, max_value=10), max_size=3)))
def test_any_fire_order_resolves_or_is_refused(order, phase, dice):
    game = GAME.model_copy(deep=True)
    game.phase = phase
    try:
        res = resolve(game, order, ScriptedDice(dice))
    except RulesError:
        assert game.phase == phase and game == GAME.model_copy(update={"phase": phase})
        return
    assert res.outcome.action == "fire" and res.outcome.trail
    assert all(r.kind == "d10" for r in res.outcome.rolls)
    assert len(res.outcome.cells) <= sum(1 for r in res.outcome.rolls if r.purpose.startswith("hit result"))


def test_the_fire_trail_opens_with_firer_and_targets_13(cd_game):
    res = run(small(cd_game).game, [10], firer="F", targets=["T"])
    assert labels(res.outcome, "section")[0] == "F F fires at T T"
