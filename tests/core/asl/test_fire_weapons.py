"""Machine guns: breakdown (A.11, seed 002 Tables 12a/12b) and rate of fire (A9.2)."""

from .conftest import labels, steps


def _sff_with_mg(asl_game, **mg):
    return (asl_game(phase="MPh").hex("A4", "woods").squad("A1", 0, "A4", moving=True)
            .squad("R1", 1, "B5", fire_marker="first").mg("M1", "R1", fire_marker="first", **mg).game)


def _prep_with_mg(asl_game, *, squad=None, **mg):
    return (asl_game(phase="PFPh").hex("B5", "stone building").squad("A1", 0, "A4", **(squad or {}))
            .mg("M1", "A1", **mg).squad("R1", 1, "B5").game)


def test_sustained_fire_lowers_b12_to_b10_and_an_original_10_breaks_it_a9_3(asl_game, fire):
    res = fire(_sff_with_mg(asl_game), [6, 4], firers=["M1"], target="A4", range=2)
    out = res.outcome
    assert ("LMG M1 breakdown number", "B12", None, "A.11") in steps(out, "base")
    assert ("LMG M1 B#: sustained fire", -2, 10, "A9.3, Table 12a") in steps(out, "modifier")
    assert ("LMG M1: Original DR 10 vs B10", "malfunctions", None, "A.11") in steps(out, "check")
    assert ("LMG M1 ROF 2: no rate of fire, it malfunctioned", "lost", None, "A9.2, seed 003") not in steps(out)
    assert res.game.units["M1"].malfunctioned
    assert ("M1", ("malfunctions", "marked Final Fire")) in [(e.unit, e.effects) for e in out.effects]


def test_a_malfunctioned_mg_adds_nothing_to_the_residual_fp_a8_2(asl_game, fire):
    res = fire(_sff_with_mg(asl_game), [6, 4], firers=["M1"], target="A4", range=2)
    # R1 2 FP + M1 1 FP = 3 (IFT 2); without the broken MG: 2 FP -> IFT 2 -> Residual 1
    assert res.outcome.cells[0].column == "2"
    assert res.game.locations["A4"].residual_fp == 1


def test_sustained_fire_keeps_no_rate_of_fire_seed_003(asl_game, fire):
    out = fire(_sff_with_mg(asl_game), [6, 1], firers=["M1"], target="A4", range=2).outcome
    assert ("LMG M1 ROF 2: no rate of fire, sustained fire", "lost", None, "A9.2, seed 003") in steps(out, "check")


def test_an_original_12_removes_an_mg_under_sustained_fire_table_12b(asl_game, fire):
    res = fire(_sff_with_mg(asl_game), [6, 6], firers=["M1"], target="A4", range=2)
    assert "LMG M1: B10, X12 for this shot" in labels(res.outcome, "note")
    assert res.game.units["M1"].eliminated
    assert "LMG M1: removed from play (Original DR 12 >= X12)" in labels(res.outcome, "effect")


def test_without_sustained_fire_b12_holds_on_10_a_11(asl_game, fire):
    res = fire(_prep_with_mg(asl_game), [6, 4], firers=["M1"], target="B5", range=3)
    assert ("LMG M1: Original DR 10 vs B12", "holds", None, "A.11") in steps(res.outcome, "check")
    assert not res.game.units["M1"].malfunctioned


def test_a_captured_mg_breaks_two_sooner_a21_11(asl_game, fire):
    res = fire(_prep_with_mg(asl_game, captured=True), [4, 6], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 B#: captured", -2, 10, "A21.11, Table 12a") in steps(res.outcome, "modifier")
    assert res.game.units["M1"].malfunctioned


def test_a_captured_mg_loses_one_rof_table_12a(asl_game, fire):
    res = fire(_prep_with_mg(asl_game, captured=True), [5, 2], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 ROF 1: colored die 2", "lost", None, "A9.2") in steps(res.outcome, "check")


def test_a_green_user_with_no_leader_is_inexperienced_table_12a(asl_game, fire):
    res = fire(_prep_with_mg(asl_game, squad={"quality": "green"}), [5, 6], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 B#: inexperienced user", -1, 11, "A19.32, Table 12a") in steps(res.outcome, "modifier")
    assert res.game.units["M1"].malfunctioned


def test_a_green_user_stacked_with_a_good_order_leader_is_not_inexperienced_table_12a(asl_game, fire):
    g = _prep_with_mg(asl_game, squad={"quality": "green"})
    g.units["L1"] = g.units["A1"].model_copy(update={"id": "L1", "kind": "leader", "name": "8-0", "fp": 0})
    res = fire(g, [5, 6], firers=["M1"], target="B5", range=3)
    assert ("LMG M1: Original DR 11 vs B12", "holds", None, "A.11") in steps(res.outcome, "check")


def test_a_conscript_user_is_inexperienced_even_with_a_leader_table_12a(asl_game, fire):
    g = _prep_with_mg(asl_game, squad={"quality": "conscript"})
    g.units["L1"] = g.units["A1"].model_copy(update={"id": "L1", "kind": "leader", "name": "8-0", "fp": 0})
    res = fire(g, [5, 6], firers=["M1"], target="B5", range=3)
    assert res.game.units["M1"].malfunctioned


def test_effects_are_cumulative_table_12b(asl_game, fire):
    g = _sff_with_mg(asl_game, captured=True)
    g.units["R1"].quality = "green"
    out = fire(g, [4, 5], firers=["M1"], target="A4", range=2, leader=None).outcome
    assert [s[2] for s in steps(out, "modifier") if s[0].startswith("LMG M1 B#")] == [10, 8, 7]
    assert ("LMG M1: Original DR 9 vs B7", "malfunctions", None, "A.11") in steps(out, "check")


def test_random_selection_picks_the_one_mg_that_breaks_a_9(asl_game, fire):
    b = asl_game(phase="PFPh").hex("B5", "stone building").squad("A1", 0, "A4").mg("M1", "A1").mg("M2", "A1")
    g = b.leader("L1", 0, "A4").squad("R1", 1, "B5").game
    res = fire(g, [6, 6, 2, 5], firers=["M1", "M2", "L1"], target="B5", range=3)
    out = res.outcome
    assert ("MG malfunction dr for LMG M1", 2, None, "A.9") in steps(out, "dice")
    assert ("MG malfunction dr for LMG M2", 5, None, "A.9") in steps(out, "dice")
    assert res.game.units["M2"].malfunctioned and not res.game.units["M1"].malfunctioned


def test_rof_kept_on_a_colored_die_at_or_under_the_rof_a9_2(asl_game, fire):
    res = fire(_prep_with_mg(asl_game), [5, 2], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 ROF 2: colored die 2", "kept", None, "A9.2") in steps(res.outcome, "check")
    assert res.game.units["M1"].fire_marker is None  # may fire again
    assert res.game.units["A1"].fire_marker == "prep"
    # it fires again on its own: its user only operates it, its FP is not added again
    again = fire(res.game, [6, 5], firers=["M1"], target="B5", range=3).outcome
    assert "4-6-7 A1 fires LMG M1 only" in labels(again, "note")
    assert [s[0] for s in steps(again, "base") if s[0].endswith(" FP")] == ["LMG M1 FP"]


def test_rof_lost_on_a_colored_die_above_the_rof_a9_2(asl_game, fire):
    res = fire(_prep_with_mg(asl_game), [5, 3], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 ROF 2: colored die 3", "lost", None, "A9.2") in steps(res.outcome, "check")
    assert res.game.units["M1"].fire_marker == "prep"


def test_rof_lost_when_the_user_is_pinned_a9_2(asl_game, fire):
    res = fire(_prep_with_mg(asl_game, squad={"pinned": True}), [5, 1], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 ROF 2: no rate of fire, 4-6-7 A1 is pinned", "lost", None, "A9.2, seed 003") in \
        steps(res.outcome, "check")
    assert ("LMG M1: 4-6-7 A1 pinned", "x1/2", 1, "A7.8") in steps(res.outcome, "multiplier")


def test_no_rof_in_advancing_fire_seed_003(asl_game, fire):
    g = (asl_game(phase="AFPh").hex("B5", "stone building").squad("A1", 0, "A4").mg("M1", "A1")
         .squad("R1", 1, "B5").game)
    res = fire(g, [5, 1], firers=["M1"], target="B5", range=3)
    assert ("LMG M1 ROF 2: no rate of fire, no ROF in Advancing Fire", "lost", None, "A9.2, seed 003") in \
        steps(res.outcome, "check")
    assert res.game.units["M1"].fire_marker == "prep"


def test_dff_mg_that_keeps_rof_is_not_marked_and_leaves_no_residual_seed_003(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "stone building").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5").mg("M1", "R1").game)
    res = fire(g, [6, 1], firers=["M1"], target="A4", range=2)
    assert res.outcome.cells[0].column == "6"
    assert res.game.units["M1"].fire_marker is None
    assert res.game.units["R1"].fire_marker == "first"
    assert res.game.locations["A4"].residual_fp == 0
    assert "no Residual FP: an MG kept its rate of fire" in labels(res.outcome, "note")


def test_first_fire_mg_in_the_dfph_fires_with_sustained_fire_a8_4(asl_game, fire):
    g = (asl_game(phase="DFPh").hex("B5", "stone building").squad("A1", 0, "B5")
         .squad("R1", 1, "C6", fire_marker="first").mg("M1", "R1", fire_marker="first").game)
    out = fire(g, [5, 1], firers=["M1"], target="B5", range=1).outcome
    assert ("LMG M1 B#: sustained fire", -2, 10, "A9.3, Table 12a") in steps(out, "modifier")
    assert ("LMG M1 ROF 2: no rate of fire, sustained fire", "lost", None, "A9.2, seed 003") in steps(out, "check")
    assert ("LMG M1: marked First Fire, firing in the DFPh", "x1/2", 1, "A8.4, seed 003") in steps(out, "multiplier")
    assert out.cells[0].column == "6"
