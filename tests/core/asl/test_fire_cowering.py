"""Cowering (A7.9): Original doubles with no directing leader shift the attack left."""

from .conftest import labels, steps

COWER_1 = ("cowering: doubles with no leader directing", "-1 column(s)", None, "A7.9")
COWER_2 = ("cowering: doubles with no leader directing (Inexperienced firer)", "-2 column(s)", None, "A7.9")


def _prep(asl_game, nationalities=("german", "russian"), **squad):
    return (asl_game(phase="PFPh", nationalities=nationalities).hex("B5", "stone building")
            .squad("A1", 0, "A4", **squad).squad("R1", 1, "B5").game)


def test_doubles_without_a_leader_cower_one_column_a7_9(asl_game, fire):
    out = fire(_prep(asl_game), [3, 3], firers=["A1"], target="B5", range=1).outcome
    assert COWER_1 in steps(out, "modifier")
    assert (out.cells[0].column, out.cells[0].row) == ("6", "9")
    assert out.headline == "8 FP (IFT 8) vs B5: DR 9, cowers to IFT 6 -> -"


def test_inexperienced_firers_cower_two_columns_a7_9(asl_game, fire):
    out = fire(_prep(asl_game, quality="green"), [3, 3], firers=["A1"], target="B5", range=1).outcome
    assert COWER_2 in steps(out, "modifier")
    assert out.cells[0].column == "4"


def test_conscripts_cower_two_columns_a7_9(asl_game, fire):
    out = fire(_prep(asl_game, quality="conscript"), [3, 3], firers=["A1"], target="B5", range=1).outcome
    assert out.cells[0].column == "4"


def test_no_cowering_without_doubles(asl_game, fire):
    out = fire(_prep(asl_game), [3, 4], firers=["A1"], target="B5", range=1).outcome
    assert not any("cower" in label for label in labels(out))
    assert out.cells[0].column == "8"


def test_british_elite_do_not_cower_a7_9(asl_game, fire):
    g = _prep(asl_game, nationality="british", quality="elite")
    out = fire(g, [3, 3], firers=["A1"], target="B5", range=1, hindrance=1).outcome
    assert "doubles: no cowering, every firer is exempt (British elite/first line, Finns)" in labels(out, "note")
    assert out.cells[0].column == "8"


def test_british_second_line_still_cower_a7_9(asl_game, fire):
    g = _prep(asl_game, nationality="british", quality="second_line")
    assert fire(g, [3, 3], firers=["A1"], target="B5", range=1).outcome.cells[0].column == "6"


def test_finns_do_not_cower_unless_conscript_a7_9(asl_game, fire):
    finns = ("finnish", "russian")
    out = fire(_prep(asl_game, finns, quality="second_line"), [3, 3], firers=["A1"], target="B5", range=1,
               hindrance=1).outcome
    assert out.cells[0].column == "8"
    out = fire(_prep(asl_game, finns, quality="conscript"), [3, 3], firers=["A1"], target="B5", range=1).outcome
    assert out.cells[0].column == "4"


def test_a_hero_alone_does_not_cower_a7_9(asl_game, fire):
    g = (asl_game(phase="PFPh").hex("B5", "stone building").unit("H1", 0, "A4", kind="hero", fp=1, range=4, morale=9)
         .squad("R1", 1, "B5").game)
    out = fire(g, [3, 3], firers=["H1"], target="B5", range=1).outcome
    assert "doubles: no cowering, leaders/heroes alone" in labels(out, "note")
    assert out.cells[0].column == "2"


def test_one_inexperienced_member_makes_the_group_cower_two_columns_a7_9(asl_game, fire):
    g = _prep(asl_game)
    g.units["A2"] = g.units["A1"].model_copy(update={"id": "A2", "quality": "green"})
    out = fire(g, [3, 3], firers=["A1", "A2"], target="B5", range=3).outcome
    assert COWER_2 in steps(out, "modifier")
    assert out.cells[0].column == "4"  # 8 FP, two columns left


def test_cowering_off_the_table_has_no_effect_a7_9(asl_game, fire):
    g = _prep(asl_game, fp=2, quality="green")
    res = fire(g, [3, 3], firers=["A1"], target="B5", range=3)
    assert res.outcome.cells == ()
    assert "cowering shifts the attack off the IFT: no effect" in labels(res.outcome, "note")
    assert res.outcome.headline == "2 FP (IFT 2) vs B5: DR 6, cowers off the IFT -> no effect"
    assert res.game.units["A1"].fire_marker == "prep"


def test_a_cowering_dff_marks_final_fire_and_leaves_no_residual_seed_003(asl_game, fire):
    g = (asl_game(phase="MPh").hex("A4", "stone building").squad("A1", 0, "A4", moving=True)
         .squad("R1", 1, "B5").game)
    res = fire(g, [4, 4], firers=["R1"], target="A4", range=1)
    assert COWER_1 in steps(res.outcome, "modifier")
    assert res.game.units["R1"].fire_marker == "final"
    assert res.game.locations["A4"].residual_fp == 0
    assert "no Residual FP: the group cowered" in labels(res.outcome, "note")
