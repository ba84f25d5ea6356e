"""Close Combat in the CCPh (A11): declarations, the Close Combat Table's Kill Number at, below and
above the DR, simultaneous attacks, Melee (A11.15), withdrawal (A11.2), ambush (A11.4), the DRMs,
the refusals, the sequence of play, /help, and the exact odds (data/asl/close_combat.yaml)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.core import help as helps
from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder, InvalidOrder
from bot.core.game import Location
from bot.core.odds import preview
from bot.core.odds.enumerate import parsed_order
from bot.core.odds.generic import enumerated_report
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.asl import close_combat, tables
from bot.core.rulesets.asl.close_combat_odds import counts, selection
from bot.core.rulesets.asl.models import AslUnit
from bot.core.trail import Trail

from .conftest import labels, steps


def cc(game, dice, **order):
    order.setdefault("action", "close_combat")
    return resolve(game, order, ScriptedDice(dice))


def one_to_one(asl_game):
    """A German 4-6-7 (the ATTACKER) and a Russian 4-6-7 in B5, the CCPh: 4 FP against 4, 1:1."""
    return asl_game(phase="CCPh").squad("A1", 0, "B5").squad("R1", 1, "B5").game


def declared(game, **order):
    """The ATTACKER's declaration: kept, nothing rolled."""
    res = cc(game, [], **order)
    assert res.outcome.rolls == ()
    return res.game


# --------------------------------------------------------------------------- the table

def test_the_close_combat_table_rounds_the_odds_down_to_a_column_and_gives_its_kill_number_a11_11():
    table = tables.close_combat()
    read = {(a, d): (table.column(Fraction(a), Fraction(d)).odds, table.column(Fraction(a), Fraction(d)).kill)
            for a, d in [(4, 4), (5, 4), (6, 4), (7, 4), (8, 4), (3, 4), (2, 4), (1, 4), (1, 7), (40, 4)]}
    assert read == {(4, 4): ("1:1", 5), (5, 4): ("1:1", 5), (6, 4): ("3:2", 6), (7, 4): ("3:2", 6),
                    (8, 4): ("2:1", 7), (3, 4): ("1:2", 4), (2, 4): ("1:2", 4), (1, 4): ("1:4", 2),
                    (1, 7): ("under 1:6", 0), (40, 4): ("10:1", 12)}
    assert table.assumed  # the digest gives no Close Combat Table: every number is marked assumed


@pytest.mark.parametrize(("dice", "result", "words", "after"), [
    ([1, 3], "KIA", "below it: the target group is eliminated", "eliminated"),  # DR 4, one below 5
    ([2, 3], "CR", "equal: Casualty Reduction", "reduced"),  # DR 5, the Kill Number
    ([3, 3], "no effect", "above it: no effect", "unharmed"),  # DR 6, one above
])
def test_one_to_one_kill_number_5_below_eliminates_equal_reduces_above_nothing_a11_11(asl_game, dice, result,
                                                                                       words, after):
    g = declared(one_to_one(asl_game), attackers=["A1"], targets=["R1"])
    res = cc(g, dice, attackers=["R1"], hold=True)  # the DEFENDER makes no attack: his declaration resolves it
    out = res.outcome
    assert steps(out)[:13] == [
        ("Close Combat in B5", None, None, "A11"),
        ("Germans: 4-6-7 A1 attack 4-6-7 R1", None, None, "A11"),
        ("Russians: 4-6-7 R1 make no attack", None, None, "A11"),
        ("both sides' attacks are resolved at once: each is made from the state before any result, so a unit "
         "eliminated still makes its attack", None, None, "A11"),
        ("Close Combat: 4-6-7 A1 vs 4-6-7 R1", None, None, "A11.11"),
        ("4-6-7 A1 CC FP", 4, None, "A11.11"),
        ("attacking CC FP", 4, None, "A11.11"),
        ("4-6-7 R1 CC FP", 4, None, "A11.11"),
        ("defending CC FP", 4, None, "A11.11"),
        ("odds 4:4, rounded down", "1:1", None, "A11.11"),
        ("Kill Number", 5, None, "A11.11"),
        (f"CC DR (4-6-7 A1 vs 4-6-7 R1): white {dice[0]}, colored {dice[1]}", sum(dice), None, "A11.11"),
        (f"Final DR {sum(dice)} vs Kill Number 5 ({words})", result, None, "A11.11"),
    ]
    assert out.headline == f"Close Combat in B5: 4-6-7 A1 vs 4-6-7 R1 at 1:1: DR {sum(dice)} -> {result}"
    assert [(c.table, c.column, c.row, c.result) for c in out.cells] == [("CCT", "1:1", f"Final DR {sum(dice)}",
                                                                          result)]
    r1 = res.game.units["R1"]
    state = "eliminated" if r1.eliminated else "reduced" if r1.kind == "half-squad" else "unharmed"
    assert state == after
    if result == "CR":  # the ruleset's own Casualty Reduction: a squad becomes its half-squad (A7.302)
        assert ("2-6-7 R1: reduced to 2-6-7", None, None, "A11.11") in steps(out, "effect")
    # units of both sides left in the Location are locked in Melee (A11.15)
    assert res.game.units["A1"].in_melee is (after != "eliminated")
    assert res.game.options[close_combat.RESOLVED] == ["B5"]
    assert close_combat.DECLARED not in res.game.options


def test_both_sides_attack_at_once_and_an_eliminated_unit_still_makes_its_attack_a11(asl_game):
    g = declared(one_to_one(asl_game), attackers=["A1"])  # targets: every enemy unit there
    res = cc(g, [1, 2, 2, 2], attackers=["R1"])  # A1's DR 3 eliminates R1; R1's DR 4 still eliminates A1
    out = res.outcome
    assert steps(out, "check") == [
        ("Final DR 3 vs Kill Number 5 (below it: the target group is eliminated)", "KIA", None, "A11.11"),
        ("Final DR 4 vs Kill Number 5 (below it: the target group is eliminated)", "KIA", None, "A11.11"),
    ]
    assert labels(out, "section") == ["Close Combat in B5", "Close Combat: 4-6-7 A1 vs 4-6-7 R1",
                                      "Close Combat: 4-6-7 R1 vs 4-6-7 A1", "Results (at once)"]
    assert steps(out, "effect") == [("4-6-7 R1: eliminated (Close Combat)", None, None, "A11.11"),
                                    ("4-6-7 A1: eliminated (Close Combat)", None, None, "A11.11")]
    assert res.game.units["A1"].eliminated and res.game.units["R1"].eliminated
    assert out.headline.endswith("4-6-7 R1 vs 4-6-7 A1 at 1:1: DR 4 -> KIA")


def test_melee_continues_into_the_next_ccph_and_ends_when_one_side_is_gone_a11_15(asl_game):
    g = declared(one_to_one(asl_game), attackers=["A1"])
    res = cc(g, [4, 4, 5, 5], attackers=["R1"])  # DR 8 and 10: no effect either way
    assert steps(res.outcome)[-3:] == [("Melee in B5: both sides are still there", None, None, "A11.15"),
                                       ("4-6-7 A1: in Melee", None, None, "A11.15"),
                                       ("4-6-7 R1: in Melee", None, None, "A11.15")]
    assert [(e.unit, e.before, e.after) for e in res.outcome.effects] == [("A1", "Good Order", "Good Order, Melee"),
                                                                         ("R1", "Good Order", "Good Order, Melee")]
    g = res.game
    with pytest.raises(IllegalOrder, match=r"has been fought this CCPh: one per Location and phase \(A11\)"):
        cc(g, [], attackers=["A1"])
    # the next CCPh (the other player turn): the Russians are the ATTACKER, the Melee still holds them
    get_ruleset("asl").phase_end(g, Trail(), [])
    g.active_side = 1
    assert g.units["A1"].in_melee and g.units["R1"].in_melee
    with pytest.raises(IllegalOrder, match=r"is held in Melee and may not move"):
        g.phase = "MPh"
        resolve(g, {"action": "move", "units": ["R1"], "to": "B6"}, ScriptedDice([]))
    g.phase = "CCPh"
    g = declared(g, attackers=["R1"])
    res = cc(g, [1, 1, 6, 6], attackers=["A1"])  # R1's DR 2 eliminates A1; A1's DR 12 does nothing
    assert res.game.units["A1"].eliminated
    assert steps(res.outcome)[-2:] == [("Melee in B5 ends: one side is gone", None, None, "A11.15"),
                                       ("4-6-7 R1: Melee ends", None, None, "A11.15")]
    assert not res.game.units["R1"].in_melee


def test_withdrawal_from_melee_is_attacked_at_minus_2_and_the_survivors_leave_a11_2(asl_game):
    g = (asl_game(phase="CCPh").squad("A1", 0, "B5", in_melee=True).squad("R1", 1, "B5", in_melee=True)
         .hex("B4").game)
    g = declared(g, attackers=["A1"], withdraw="B4")
    res = cc(g, [4, 4], attackers=["R1"])  # DR 8 - 2 = 6, above 5: A1 gets away
    out = res.outcome
    assert ("Germans: 4-6-7 A1 withdraw from Melee to B4", None, None, "A11.2") in steps(out, "note")
    assert steps(out, "modifier") == [("the target group withdraws from Melee", "-2", -2, "A11.2")]
    assert steps(out, "check") == [("Final DR 6 vs Kill Number 5 (above it: no effect)", "no effect", None, "A11.11")]
    a1, r1 = res.game.units["A1"], res.game.units["R1"]
    assert (a1.location, a1.in_melee, r1.in_melee) == ("B4", False, False)
    assert ("4-6-7 A1: withdraws from Melee B5 -> B4", None, None, "A11.2") in steps(out, "effect")
    assert ("4-6-7 R1: Melee ends", None, None, "A11.15") in steps(out, "effect")


def test_withdrawal_is_only_from_melee_and_into_a_location_free_of_enemies_a11_2(asl_game):
    g = asl_game(phase="CCPh").squad("A1", 0, "B5").squad("R1", 1, "B5").squad("R2", 1, "B4").game
    with pytest.raises(IllegalOrder, match=r"4-6-7 A1 is not in Melee: only units held in Melee withdraw"):
        cc(g, [], attackers=["A1"], withdraw="B4")
    g.units["A1"].in_melee = True
    with pytest.raises(IllegalOrder, match=r"B4 holds 4-6-7 R2: units withdraw from Melee into a Location free"):
        cc(g, [], attackers=["A1"], withdraw="B4")


def test_ambushers_attack_first_and_a_unit_they_eliminate_makes_no_attack_a11_4(asl_game):
    g = declared(one_to_one(asl_game), attackers=["A1"], ambush=True)
    res = cc(g, [1, 3], attackers=["R1"])  # A1: DR 4 - 1 = 3 eliminates R1 before it attacks; one DR only
    out = res.outcome
    assert ("ambush: the attackers ambushed", "-1", -1, "A11.4") in steps(out, "modifier")
    assert ("4-6-7 R1: no attack, eliminated by the ambush", None, None, "A11.4") in steps(out, "section")
    assert len(out.rolls) == 1 and not res.game.units["A1"].eliminated
    res = cc(g, [6, 6, 1, 3], attackers=["R1"])  # A1 misses; R1 attacks at +1: DR 4 + 1 = 5, Casualty Reduction
    assert ("ambush: the attackers were ambushed", "+1", 1, "A11.4") in steps(res.outcome, "modifier")
    assert res.game.units["A1"].kind == "half-squad"


def test_cc_drms_leadership_cx_hero_and_a_broken_target_and_pinned_fp_halved(asl_game):
    g = (asl_game(phase="CCPh").squad("A1", 0, "B5", cx=True).leader("L1", 0, "B5", leadership=-2, morale=9)
         .unit("H1", 0, "B5", kind="hero", fp=1, morale=9, name="1-4-9")
         .squad("R1", 1, "B5", broken=True).squad("R2", 1, "B5", pinned=True, fp=6).game)
    g = declared(g, attackers=["A1", "L1", "H1"], targets=["R1", "R2"])
    res = cc(g, [6, 6], attackers=["R2"], hold=True)
    out = res.outcome
    assert steps(out, "base") == [
        ("4-6-7 A1 CC FP", 4, None, "A11.11"), ("9-2 L1 CC FP (an SMC)", 1, None, "A11.11"),
        ("1-4-9 H1 CC FP (an SMC)", 1, None, "A11.11"), ("attacking CC FP", 6, None, "A11.11"),
        ("4-6-7 R1 CC FP", 4, None, "A11.11"), ("4-6-7 R2 CC FP", 6, None, "A11.11"),
        ("defending CC FP", 7, None, "A11.11")]
    assert steps(out, "multiplier") == [("4-6-7 R2: pinned", "x1/2", 3, "A7.8")]
    assert ("odds 6:7, rounded down", "1:2", None, "A11.11") in steps(out, "table")
    # R1 is broken but R2 is not: the broken-target DRM needs the whole group broken
    assert steps(out, "modifier") == [("leadership of 9-2 L1", "-2", -2, "A10.7, A11"),
                                      ("CX attacker", "+1", -1, "A4.51"), ("a hero attacks", "-1", -2, "A15")]


def test_refusals_quote_the_rule_and_say_what_is_allowed_a11(asl_game):
    g = one_to_one(asl_game)
    with pytest.raises(IllegalOrder, match=r"the ATTACKER declares his Close Combat in B5 first \(hold:yes if he "
                                           r"makes no attack\), then the DEFENDER \(A11\)"):
        cc(g, [], attackers=["R1"])
    g.units["A1"].broken = True
    with pytest.raises(IllegalOrder, match=r"4-6-7 A1 is broken: only Good Order units attack in Close Combat; a "
                                           r"broken unit may hold \(A11\)"):
        cc(g, [], attackers=["A1"])
    g.units["A1"].broken = False
    g.units["R1"].location = "B6"
    with pytest.raises(IllegalOrder, match=r"no enemy unit is in B5: Close Combat is fought in a Location holding"):
        cc(g, [], attackers=["A1"])
    g.units["R1"].location = "B5"
    with pytest.raises(InvalidOrder, match=r"'targets' gives 2 target group\(s\) for 1 attack group\(s\)"):
        cc(g, [], attackers=["A1"], targets=["R1", "|", "R1"])
    g = declared(g, attackers=["A1"])
    with pytest.raises(IllegalOrder, match=r"4-6-7 A1 is already declared in B5: a unit attacks one target group"):
        cc(g, [], attackers=["A1"])
    g.phase = "APh"
    with pytest.raises(IllegalOrder, match=r"CCPh"):
        cc(g, [], attackers=["A1"])


def test_attack_groups_are_separated_by_a_bar_and_each_has_its_own_target_group(asl_game):
    g = (asl_game(phase="CCPh").squad("A1", 0, "B5").squad("A2", 0, "B5", fp=8).squad("R1", 1, "B5")
         .squad("R2", 1, "B5").game)
    g = declared(g, attackers=["A1|A2"], targets=["R1", "|", "R2"])
    assert g.options[close_combat.DECLARED]["B5"][1]["attackers"] == ["A2"]
    res = cc(g, [3, 3, 3, 3], attackers=["R1"], hold=True)
    assert [c.column for c in res.outcome.cells] == ["1:1", "2:1"]
    assert [c.result for c in res.outcome.cells] == ["no effect", "KIA"]


# --------------------------------------------------------------------------- the sequence and /help

def _refereed_ccph():
    game = new_game("asl", sides=["Germans", "Russians"], scenario="Test", options={"elr": [3, 3]}, sequence=1)
    ruleset = get_ruleset("asl")
    data = ruleset.sequence()
    game.step = next(i for i, s in enumerate(data.steps) if s.phase == "CCPh")
    game.phase, game.to_act, game.started = "CCPh", 0, True
    game.locations["B5"] = get_ruleset(game.ruleset).new_location(id="B5", terrain="open")
    for uid, side in (("A1", 0), ("R1", 1)):
        game.units[uid] = AslUnit(id=uid, side=side, location="B5", kind="squad", name="4-6-7", type="custom", fp=4,
                                  range=6, morale=7)
    return game, ruleset


def test_help_lists_close_combat_in_the_ccph_and_done_waits_for_the_defender_a11():
    game, ruleset = _refereed_ccph()
    now = helps.may_now(game, ruleset)
    assert [v.example for v in now[0] if v.command.name == "close-combat"] == ["/close-combat attackers:A1"]
    assert not [v for v in now[1] if v.command.name == "close-combat"]  # the DEFENDER answers a declaration
    game = declared(game, attackers=["A1"])
    now = helps.may_now(game, ruleset)
    assert [v.example for v in now[1] if v.command.name == "close-combat"] == ["/close-combat attackers:R1"]
    with pytest.raises(IllegalOrder, match=r"the Close Combat declared in B5 awaits the DEFENDER's declaration"):
        resolve(game, {"action": "done", "side": 0}, ScriptedDice([]))
    game = cc(game, [6, 6], attackers=["R1"], hold=True).game
    assert resolve(game, {"action": "done", "side": 0}, ScriptedDice([])).game.phase == "RPh"


# --------------------------------------------------------------------------- the odds

def test_the_odds_count_the_36_outcomes_exactly_and_match_the_resolver_enumerated(asl_game):
    assert counts(0, 5) == {"KIA": 6, "CR": 4, "no effect": 26}  # DR 2-4, DR 5, DR 6-12
    assert counts(-2, 5) == {"KIA": 15, "CR": 6, "no effect": 15}
    assert sum(selection(3, s) * n for s, n in ((1, 3), (2, 3), (3, 1))) == 1  # A.9 covers every outcome
    g = declared(one_to_one(asl_game), attackers=["A1"])
    order = {"action": "close_combat", "attackers": ["R1"]}
    fast = preview(g, order)
    assert fast.method.startswith("exact: each attack's 36 dice outcomes")
    r1 = next(u for u in fast.units if u.unit == "R1")
    assert {k: c.p for k, c in r1.states.items()} == {"eliminated": Fraction(6, 36), "reduced": Fraction(4, 36),
                                                       "unharmed": Fraction(26, 36)}
    assert fast.results["KIA / KIA"].p == Fraction(6 * 6, 36 * 36)
    slow = enumerated_report(g, parsed_order(g, order))
    assert fast.results == slow.results
    assert sorted(fast.units, key=lambda u: u.unit) == sorted(slow.units, key=lambda u: u.unit)


def test_the_odds_of_groups_with_random_selection_match_the_resolver(asl_game):
    g = (asl_game(phase="CCPh").squad("A1", 0, "B5", fp=8).squad("R1", 1, "B5")
         .unit("R2", 1, "B5", kind="half-squad", fp=2, morale=7).unit("R3", 1, "B5", kind="crew", fp=1, morale=7).game)
    g = declared(g, attackers=["A1"])
    order = {"action": "close_combat", "attackers": ["R1", "R2"], "targets": ["A1"]}
    fast = preview(g, order)
    slow = enumerated_report(g, parsed_order(g, order))
    assert fast.results == slow.results
    assert sorted(fast.units, key=lambda u: u.unit) == sorted(slow.units, key=lambda u: u.unit)


def test_the_attackers_declaration_previews_the_fight_if_the_defender_holds(asl_game):
    report = preview(one_to_one(asl_game), {"action": "close_combat", "attackers": ["A1"]})
    assert report.results["KIA"].p == Fraction(6, 36) and report.results["CR"].p == Fraction(4, 36)
    assert any("if the DEFENDER makes no attack" in note for note in report.notes)


def test_a_declaration_against_a_leader_previews_the_resolver_enumerated_if_the_defender_holds(asl_game):
    g = asl_game(phase="CCPh").squad("A1", 0, "B5").squad("R1", 1, "B5").leader("L1", 1, "B5", leadership=-1).game
    report = preview(g, {"action": "close_combat", "attackers": ["A1"]})  # R1 and L1: 4 FP against 5, 1:2
    assert report.method.startswith("exact enumeration") and "if the DEFENDER makes no attack" in report.notes[-1]
    states = {u.unit: {k: c.p for k, c in u.states.items()} for u in report.units}
    assert states["R1"]["eliminated"] == Fraction(3, 36)  # Kill Number 4: DR 2-3 eliminate the group
    # DR 4 is Casualty Reduction: R1 is chosen when its Random Selection dr is not below L1's (21 in 36)
    assert states["R1"]["reduced"] == Fraction(3, 36) * Fraction(21, 36)
    assert close_combat.DECLARED not in g.options  # the preview changed nothing


def test_a_melee_whose_enemy_is_gone_otherwise_ends_as_the_phase_ends_a11_15(asl_game):
    g = asl_game(phase="RtPh").squad("A1", 0, "B5", in_melee=True).squad("R1", 1, "B5", in_melee=True).game
    g.units["R1"].eliminated = True  # gone by other means than a Close Combat
    trail, changed = Trail(), []
    get_ruleset("asl").phase_end(g, trail, changed)
    assert [(s.label, s.rule) for s in trail.freeze()] == [
        ("4-6-7 A1: Melee ends, no enemy unit is left in B5", "A11.15")]
    assert not g.units["A1"].in_melee and [e.effects for e in changed] == [("Melee ends",)]


def test_a_unit_broken_since_it_declared_makes_no_attack_a11(asl_game):
    g = declared(one_to_one(asl_game), attackers=["A1"])
    g.units["A1"].broken = True  # e.g. a check the rules called for in the CCPh
    res = cc(g, [], attackers=["R1"], hold=True)
    assert ("4-6-7 A1: no attack, broken since it declared", None, None, "A11") in steps(res.outcome, "section")
    assert res.outcome.rolls == ()


def test_only_one_side_ambushes_and_the_defender_may_be_the_ambusher_a11_4(asl_game):
    g = declared(one_to_one(asl_game), attackers=["A1"], ambush=True)
    with pytest.raises(IllegalOrder, match=r"both sides declared an ambush: at most one side ambushes the other"):
        cc(g, [], attackers=["R1"], ambush=True)
    g = declared(one_to_one(asl_game), attackers=["A1"])
    res = cc(g, [1, 2], attackers=["R1"], ambush=True)  # the Russians ambushed: R1 first, DR 3 - 1 eliminates A1
    assert labels(res.outcome, "section")[:3] == ["Close Combat in B5", "Close Combat: 4-6-7 R1 vs 4-6-7 A1",
                                                  "Results"]
    assert ("4-6-7 A1: no attack, eliminated by the ambush", None, None, "A11.4") in steps(res.outcome, "section")
    assert res.game.units["A1"].eliminated and not res.game.units["R1"].eliminated
