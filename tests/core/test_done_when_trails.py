"""Issue 2 "Done when": for each ruleset and action, scripted dice and the WHOLE trail and the
effects asserted, line by line (kind, label, value, running total, rule). Every number below was
checked by hand against the digests (shared/rules/*.md) and the data files: a change to any step,
its order or its rule reference fails here.
"""

from __future__ import annotations

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.rulesets.asl.ruleset import RULESET as ASL
from bot.core.rulesets.cd.ruleset import RULESET as CD

from .asl.conftest import AslBuilder
from .cd.conftest import CdBuilder
from .nhis.conftest import NhisBuilder


def trail(res) -> list[tuple]:
    return [(s.kind, s.label, s.value, s.total, s.rule) for s in res.outcome.trail]


def effects(res) -> list[tuple]:
    return [(e.unit, e.before, e.after, e.effects) for e in res.outcome.effects]


def add(b, type_name, uid, side, loc, **fields):
    """A library counter (data/asl/counters.yaml) placed straight into the game."""
    if loc not in b.game.locations:
        b.hex(loc)
    unit = ASL.make_unit(type_name, id=uid, side=side, location=loc)
    for key, value in fields.items():
        setattr(unit, key, value)
    b.game.units[uid] = unit
    return b


def test_prep_fire_by_a_led_group_with_an_lmg_k2_random_selection_pin_and_elr_whole_trail():
    """Prep Fire (A7, seed 003): a 4-6-7, its LMG and a 9-1 at a 4-4-7 and an 8-0 in woods. 7 FP reads the
    6 column; -1 leader +1 woods on DR 3: K/2. Random Selection reduces the squad; the leader checks first
    and is pinned on Final DR = morale; the half-squad fails by exactly its ELR 3 and only breaks; the
    LMG holds (3 < B12) and keeps ROF on colored 1."""
    b = AslBuilder(phase="PFPh").hex("A1").hex("B1", "woods")
    add(b, "ger-467", "G1", 0, "A1"); add(b, "ger-9-1", "GL", 0, "A1"); add(b, "ger-lmg", "MG", 0, "A1", owner="G1")
    add(b, "rus-447", "R1", 1, "B1"); add(b, "rus-8-0", "RL", 1, "B1")
    res = resolve(b.game, {"action": "fire", "firers": ["G1", "MG", "GL"], "target": "B1", "range": 2},
                   ScriptedDice([2, 1, 5, 3, 3, 3, 4, 4]))
    assert trail(res) == [
        ('note', 'Target in B1: 4-4-7 R1, 8-0 RL', None, None, 'A3.3, seed 003'),
        ('section', 'Prep Fire: firepower', None, None, 'A3.3, seed 003'),
        ('base', '4-6-7 G1 FP', 4, None, 'A7.2'),
        ('base', 'LMG MG FP', 3, None, 'A7.2'),
        ('base', 'Total FP (fractions kept until the total)', 7, None, 'A7.2'),
        ('table', 'IFT column', '6', 7, 'A7.2'),
        ('section', 'DRMs', None, None, 'A7.3'),
        ('modifier', 'leadership of 9-1 GL', '-1', -1, 'A7.53'),
        ('modifier', 'TEM: Woods', '+1', 0, 'B.6'),
        ('dice', 'IFT DR: white 2, colored 1', 3, None, 'A7.3'),
        ('check', 'Final DR', 3, None, 'A7.3'),
        ('table', 'IFT 6 column, Final DR 3', 'K/2', None, 'A7.3'),
        ('section', 'K/2 on 4-4-7 R1, 8-0 RL', None, None, 'A7.3'),
        ('dice', 'K/2 Random Selection dr for 4-4-7 R1', 5, None, 'A7.302'),
        ('dice', 'K/2 Random Selection dr for 8-0 RL', 3, None, 'A7.302'),
        ('note', 'K/2 Random Selection: 4-4-7 R1 (highest dr)', None, None, 'A7.302'),
        ('effect', '2-2-7 R1: reduced to 2-2-7', None, None, 'A7.302'),
        ('section', '2MC (Morale Check): 8-0 RL', None, None, 'A7.3'),
        ('base', 'morale', 8, None, 'A10.1'),
        ('modifier', '2MC', 2, None, 'A7.3'),
        ('dice', 'DR: white 3, colored 3', 6, None, 'A7.3'),
        ('check', 'Final DR 8 vs morale 8', 'passes', 8, 'A7.3'),
        ('note', 'Final DR equals morale after an IFT attack: pinned', None, None, 'A7.8'),
        ('effect', '8-0 RL: pinned', None, None, 'A7.8'),
        ('section', '2MC (Morale Check): 2-2-7 R1', None, None, 'A7.3'),
        ('base', 'morale', 7, None, 'A10.1'),
        ('modifier', '2MC', 2, None, 'A7.3'),
        ('modifier', 'leadership of 8-0 RL', 0, None, 'A10.7'),
        ('dice', 'DR: white 4, colored 4', 8, None, 'A7.3'),
        ('check', 'Final DR 10 vs morale 7', 'fails', 10, 'A7.3'),
        ('note', 'failed by 3, not more than ELR 3: no replacement', None, None, 'A19.13'),
        ('effect', '2-2-7 R1: broken', None, None, 'A10.3'),
        ('section', 'Final steps: weapons, Residual FP, fire markers', None, None, 'seed 003'),
        ('section', 'Machine guns', None, None, 'A.11, A9.2'),
        ('base', 'LMG MG breakdown number', 'B12', None, 'A.11'),
        ('check', 'LMG MG: Original DR 3 vs B12', 'holds', None, 'A.11'),
        ('check', 'LMG MG ROF 2: colored die 1', 'kept', None, 'A9.2'),
        ('effect', '4-6-7 G1: marked Prep Fire', None, None, 'A3.3, seed 003'),
        ('effect', '9-1 GL: marked Prep Fire', None, None, 'A3.3, seed 003'),
    ]
    assert effects(res) == [
        ('R1', 'Good Order', 'broken, DM', ('reduced to 2-2-7', 'broken')),
        ('RL', 'Good Order', 'Good Order, pinned', ('pinned',)),
        ('G1', 'Good Order', 'Good Order, Prep Fire', ('marked Prep Fire',)),
        ('GL', 'Good Order', 'Good Order, Prep Fire', ('marked Prep Fire',)),
    ]
    assert res.outcome.headline == '7 FP (IFT 6) vs B1: DR 3 -> K/2'


def test_defensive_first_fire_with_ffmo_ffnam_and_residual_fp_whole_trail():
    """Defensive First Fire (A8.1): only the moving unit is attacked; FFMO and FFNAM -1 each; the 4
    column leaves Residual FP 2 (A8.2) and the firers are marked First Fire."""
    b = AslBuilder(phase="MPh").hex("A1").hex("B1", "wooden building")
    add(b, "ger-467", "G1", 0, "A1", moving=True); add(b, "ger-467", "G2", 0, "A1")
    add(b, "rus-447", "R1", 1, "B1"); add(b, "rus-8-0", "RL", 1, "B1")
    res = resolve(b.game, {"action": "fire", "firers": ["R1", "RL"], "target": "A1", "range": 2},
                   ScriptedDice([3, 4, 2, 3]))
    assert trail(res) == [
        ('note', 'Target in A1 (moving): 4-6-7 G1', None, None, 'A8.1, seed 003'),
        ('section', 'Defensive First Fire: firepower', None, None, 'A8.1, seed 003'),
        ('base', '4-4-7 R1 FP', 4, None, 'A7.2'),
        ('base', 'Total FP (fractions kept until the total)', 4, None, 'A7.2'),
        ('table', 'IFT column', '4', 4, 'A7.2'),
        ('section', 'DRMs', None, None, 'A7.3'),
        ('modifier', 'leadership of 8-0 RL', '+0', 0, 'A7.53'),
        ('modifier', 'FFMO (moving in Open Ground)', '-1', -1, 'A4.6, seed 003'),
        ('modifier', 'FFNAM (not Assault Movement)', '-1', -2, 'A4.6, seed 003'),
        ('dice', 'IFT DR: white 3, colored 4', 7, None, 'A7.3'),
        ('check', 'Final DR', 5, None, 'A7.3'),
        ('table', 'IFT 4 column, Final DR 5', '1MC', None, 'A7.3'),
        ('section', '1MC on 4-6-7 G1', None, None, 'A7.3'),
        ('section', '1MC (Morale Check): 4-6-7 G1', None, None, 'A7.3'),
        ('base', 'morale', 7, None, 'A10.1'),
        ('modifier', '1MC', 1, None, 'A7.3'),
        ('dice', 'DR: white 2, colored 3', 5, None, 'A7.3'),
        ('check', 'Final DR 6 vs morale 7', 'passes', 6, 'A7.3'),
        ('section', 'Final steps: weapons, Residual FP, fire markers', None, None, 'seed 003'),
        ('marker', 'Residual FP 2 in A1', 2, None, 'A8.2, A8.26'),
        ('effect', '4-4-7 R1: marked First Fire', None, None, 'A8.1, seed 003'),
        ('effect', '8-0 RL: marked First Fire', None, None, 'A8.1, seed 003'),
    ]
    assert effects(res) == [
        ('R1', 'Good Order', 'Good Order, First Fire', ('marked First Fire',)),
        ('RL', 'Good Order', 'Good Order, First Fire', ('marked First Fire',)),
    ]
    assert res.outcome.headline == '4 FP (IFT 4) vs A1: DR 5 -> 1MC'


def test_final_protective_fire_halved_point_blank_and_its_forced_nmc_whole_trail():
    """Final Protective Fire (A8.31): x1/2 then x2 point blank; the forced NMC of the firer uses the
    attack's Original DR 7 against morale 7 (A8.312)."""
    b = AslBuilder(phase="MPh").hex("A1").hex("B1", "wooden building")
    add(b, "ger-467", "G1", 0, "A1", moving=True)
    add(b, "rus-447", "R1", 1, "B1", fire_marker="final")
    res = resolve(b.game, {"action": "fire", "kind": "fpf", "firers": ["R1"], "target": "A1", "range": 1},
                   ScriptedDice([4, 3, 2, 2]))
    assert trail(res) == [
        ('note', 'Target in A1 (moving): 4-6-7 G1', None, None, 'A8.31, seed 003'),
        ('section', 'Final Protective Fire: firepower', None, None, 'A8.31, seed 003'),
        ('base', '4-4-7 R1 FP', 4, None, 'A7.2'),
        ('multiplier', '4-4-7 R1: Final Protective Fire', 'x1/2', 2, 'A8.31, seed 003'),
        ('multiplier', '4-4-7 R1: point blank fire', 'x2', 4, 'A7.21'),
        ('base', 'Total FP (fractions kept until the total)', 4, None, 'A7.2'),
        ('table', 'IFT column', '4', 4, 'A7.2'),
        ('section', 'DRMs', None, None, 'A7.3'),
        ('modifier', 'FFMO (moving in Open Ground)', '-1', -1, 'A4.6, seed 003'),
        ('modifier', 'FFNAM (not Assault Movement)', '-1', -2, 'A4.6, seed 003'),
        ('dice', 'IFT DR: white 4, colored 3', 7, None, 'A7.3'),
        ('check', 'Final DR', 5, None, 'A7.3'),
        ('table', 'IFT 4 column, Final DR 5', '1MC', None, 'A7.3'),
        ('section', '1MC on 4-6-7 G1', None, None, 'A7.3'),
        ('section', '1MC (Morale Check): 4-6-7 G1', None, None, 'A7.3'),
        ('base', 'morale', 7, None, 'A10.1'),
        ('modifier', '1MC', 1, None, 'A7.3'),
        ('dice', 'DR: white 2, colored 2', 4, None, 'A7.3'),
        ('check', 'Final DR 5 vs morale 7', 'passes', 5, 'A7.3'),
        ('section', 'Final steps: weapons, Residual FP, fire markers', None, None, 'seed 003'),
        ('marker', 'Residual FP 2 in A1', 2, None, 'A8.2, A8.26'),
        ('section', 'FPF: NMC for each firer (Original DR of the attack)', None, None, 'A8.312'),
        ('section', 'Normal Morale Check: 4-4-7 R1', None, None, 'A8.312'),
        ('base', 'morale', 7, None, 'A10.1'),
        ('dice', "the attack's Original DR: white 4, colored 3", 7, None, 'A8.312'),
        ('check', 'Final DR 7 vs morale 7', 'passes', 7, 'A8.312'),
    ]
    assert effects(res) == [
    ]
    assert res.outcome.headline == '4 FP (IFT 4) vs A1: DR 5 -> 1MC'


def test_subsequent_first_fire_cowers_and_the_mmg_breaks_under_sustained_fire_whole_trail():
    """Subsequent First Fire (A8.3) by a squad and its MMG: both halved; doubles without a leader cower
    one column; sustained fire lowers the MMG's B11 to B9 and the Original 10 breaks it; no ROF in SFF,
    no Residual FP after cowering, Final Fire markers."""
    b = AslBuilder(phase="MPh").hex("A1").hex("B1", "wooden building")
    add(b, "ger-467", "G1", 0, "A1", moving=True)
    add(b, "rus-447", "R1", 1, "B1", fire_marker="first")
    add(b, "rus-mmg", "MG", 1, "B1", owner="R1", fire_marker="first")
    res = resolve(b.game, {"action": "fire", "firers": ["R1", "MG"], "target": "A1", "range": 3}, ScriptedDice([5, 5]))
    assert trail(res) == [
        ('note', 'Target in A1 (moving): 4-6-7 G1', None, None, 'A8.3, seed 003'),
        ('section', 'Subsequent First Fire: firepower', None, None, 'A8.3, seed 003'),
        ('base', '4-4-7 R1 FP', 4, None, 'A7.2'),
        ('multiplier', '4-4-7 R1: Subsequent First Fire', 'x1/2', 2, 'A8.3, seed 003'),
        ('base', 'MMG MG FP', 4, None, 'A7.2'),
        ('multiplier', 'MMG MG: Subsequent First Fire', 'x1/2', 2, 'A8.3, seed 003'),
        ('base', 'Total FP (fractions kept until the total)', 4, None, 'A7.2'),
        ('table', 'IFT column', '4', 4, 'A7.2'),
        ('section', 'DRMs', None, None, 'A7.3'),
        ('modifier', 'FFMO (moving in Open Ground)', '-1', -1, 'A4.6, seed 003'),
        ('modifier', 'FFNAM (not Assault Movement)', '-1', -2, 'A4.6, seed 003'),
        ('dice', 'IFT DR: white 5, colored 5', 10, None, 'A7.3'),
        ('modifier', 'cowering: doubles with no leader directing', '-1 column(s)', None, 'A7.9'),
        ('check', 'Final DR', 8, None, 'A7.3'),
        ('table', 'IFT 2 column, Final DR 8', '-', None, 'A7.3'),
        ('note', 'no effect on the target', None, None, 'A7.3'),
        ('section', 'Final steps: weapons, Residual FP, fire markers', None, None, 'seed 003'),
        ('section', 'Machine guns', None, None, 'A.11, A9.2'),
        ('base', 'MMG MG breakdown number', 'B11', None, 'A.11'),
        ('modifier', 'MMG MG B#: sustained fire', -2, 9, 'A9.3, Table 12a'),
        ('note', 'MMG MG: B9, X11 for this shot', None, None, 'Table 12b'),
        ('check', 'MMG MG: Original DR 10 vs B9', 'malfunctions', None, 'A.11'),
        ('note', 'MG malfunction: all 1 unit(s) affected, no selection roll', None, None, 'A.9'),
        ('effect', 'MMG MG: malfunctions', None, None, 'A.11'),
        ('check', 'MMG MG ROF 2: no rate of fire, sustained fire', 'lost', None, 'A9.2, seed 003'),
        ('note', 'no Residual FP: the group cowered', None, None, 'A8.2, seed 003'),
        ('effect', '4-4-7 R1: marked Final Fire', None, None, 'A8.3, seed 003'),
        ('effect', 'MMG MG: marked Final Fire', None, None, 'A8.3, seed 003'),
    ]
    assert effects(res) == [
        ('MG', 'working, First Fire', 'malfunctioned, Final Fire', ('malfunctions', 'marked Final Fire')),
        ('R1', 'Good Order, First Fire', 'Good Order, Final Fire', ('marked Final Fire',)),
    ]
    assert res.outcome.headline == '4 FP (IFT 4) vs A1: DR 8, cowers to IFT 2 -> -'


def test_rally_with_a_leader_in_woods_under_dm_whole_trail():
    """Rally (A10.6): leader -1, woods -1 (A10.61), DM +4 (A10.62): DR 9 -> 11 > broken morale 8."""
    b = AslBuilder(phase="RPh").hex("A1", "woods")
    add(b, "ger-467", "G1", 0, "A1", broken=True, dm=True); add(b, "ger-8-1", "GL", 0, "A1")
    res = resolve(b.game, {"action": "rally", "unit": "G1"}, ScriptedDice([4, 5]))
    assert trail(res) == [
        ('section', 'Rally: 4-6-7 G1 (rallied by 8-1 GL)', None, None, 'A10.6'),
        ('base', 'broken-side morale', 8, None, 'A10.6'),
        ('modifier', 'leadership of 8-1 GL', -1, None, 'A10.7'),
        ('modifier', 'Woods: rally terrain', -1, None, 'A10.61'),
        ('modifier', 'Desperation Morale', 4, None, 'A10.62'),
        ('dice', 'DR: white 4, colored 5', 9, None, 'A10.6'),
        ('check', 'Final DR 11 vs broken-side morale 8', 'fails', 11, 'A10.6'),
        ('effect', '4-6-7 G1: fails to rally', None, None, 'A10.6'),
    ]
    assert effects(res) == [
        ('G1', 'broken, DM', 'broken, DM', ('fails to rally',)),
    ]
    assert res.outcome.headline == '4-6-7 G1 rally (rallied by 8-1 GL): Final DR 11 vs 8 -> stays broken'


def test_recovery_in_the_mph_with_cx_whole_trail():
    """Recovery in the MPh (A4.44, seed 002 Table 7): CX +1; dr 4 -> 5 <= 5 recovers."""
    b = AslBuilder(phase="MPh").hex("A1")
    add(b, "ger-467", "G1", 0, "A1", cx=True); add(b, "ger-lmg", "MG", 0, "A1")
    res = resolve(b.game, {"action": "recover", "weapon": "MG", "unit": "G1"}, ScriptedDice([4]))
    assert trail(res) == [
        ('section', 'Recovery of LMG MG (unpossessed) by 4-6-7 G1', None, None, 'A4.44 / seed 002 Table 7'),
        ('note', 'Table 7 case D: costs 1 extra MF; the unit must end Good Order and unpinned', None, None, 'A4.44 / seed 002 Table 7'),
        ('modifier', 'CX', 1, None, 'A4.44 / seed 002 Table 7 *2'),
        ('note', 'leadership does not modify a recovery dr', None, None, 'A4.44 / seed 002 Table 7 *2'),
        ('dice', 'recovery dr', 4, None, 'A4.44 / seed 002 Table 7'),
        ('check', 'Final dr 5 vs 5', 'recovered', 5, 'A4.44 / seed 002 Table 7'),
        ('effect', 'LMG MG: recovered by 4-6-7 G1', None, None, 'A4.44 / seed 002 Table 7'),
    ]
    assert effects(res) == [
        ('MG', 'working', 'working', ('recovered by 4-6-7 G1',)),
    ]
    assert res.outcome.headline == '4-6-7 G1 recovers LMG MG'


def test_nhis_fire_hit_1_leader_first_then_an_unshakable_squad_is_reduced_and_stops_whole_trail():
    """NHiS: 6 FP +2 moving target -> column 8; 2d6 7: Hit-1. The leader checks first (3+1 <= 5) and lends
    his +1; the moving Unshakable squad fails (6+1 > 5+1): reduced, and it stops."""
    b = NhisBuilder(phase="Operations").hex("A1").hex("C1")
    b.squad("U1", 0, "A1", fp=3).squad("U2", 0, "A1", fp=3)
    b.squad("J1", 1, "C1", shakeable=False, moving=True, name="Japanese rifle squad")
    b.leader("JL", 1, "C1", shakeable=False, name="Japanese leader")
    res = resolve(b.game, {"action": "fire", "firers": ["U1", "U2"], "target": "C1", "range": 3},
                   ScriptedDice([3, 4, 3, 6]))
    assert trail(res) == [
        ('section', 'Fire on C1 at range 3', None, None, 'NHiS Fire Table (seed 001)'),
        ('base', 'FP of squad U1', 3, None, 'NHiS DRM list (seed 001)'),
        ('base', 'FP of squad U2', 3, None, 'NHiS DRM list (seed 001)'),
        ('base', 'Firepower', 6, 6, 'NHiS DRM list (seed 001)'),
        ('modifier', 'Moving target (Japanese rifle squad J1)', 2, 8, 'NHiS DRM list (seed 001)'),
        ('modifier', 'Cover Factor of C1: Open Ground 0', 0, 8, 'NHiS Terrain Chart (seed 001)'),
        ('check', 'Final FP', 8, 8, 'NHiS DRM list (seed 001)'),
        ('table', 'FP 8 -> column 8', 8, None, 'NHiS Fire Table (seed 001)'),
        ('dice', '2d6 3 + 4', 7, 7, 'NHiS Fire Table (seed 001)'),
        ('table', 'Column 8, roll 7: Hit-1', 'Hit-1', None, 'NHiS Fire Table (seed 001)'),
        ('section', 'Morale check (Hit-1): Japanese leader JL', None, None, 'NHiS Hit result (seed 001)'),
        ('base', 'Morale of Japanese leader JL', 5, 5, 'NHiS Hit result (seed 001)'),
        ('dice', '1d6', 3, 3, 'NHiS Hit result (seed 001)'),
        ('modifier', 'Hit-1', 1, 4, 'NHiS Hit result (seed 001)'),
        ('check', '4 vs 5: passes', 'pass', None, 'NHiS Hit result (seed 001)'),
        ('section', 'Morale check (Hit-1): Japanese rifle squad J1', None, None, 'NHiS Hit result (seed 001)'),
        ('base', 'Morale of Japanese rifle squad J1', 5, 5, 'NHiS Hit result (seed 001)'),
        ('modifier', 'Leadership of Japanese leader JL (Prepared)', 1, 6, 'NHiS Hit result (seed 001)'),
        ('dice', '1d6', 6, 6, 'NHiS Hit result (seed 001)'),
        ('modifier', 'Hit-1', 1, 7, 'NHiS Hit result (seed 001)'),
        ('check', '7 vs 6: fails', 'fail', None, 'NHiS Hit result (seed 001)'),
        ('effect', 'Japanese rifle squad J1: Unshakable, fails: reduced', None, None, 'NHiS Hit result (seed 001)'),
        ('effect', 'Japanese rifle squad J1: must stop moving (it failed while moving)', None, None, 'NHiS Hit result (seed 001)'),
        ('effect', 'squad U1: marked Fire', None, None, 'NHiS Fire Table (seed 001), assumed'),
        ('effect', 'squad U2: marked Fire', None, None, 'NHiS Fire Table (seed 001), assumed'),
    ]
    assert effects(res) == [
        ('J1', 'Prepared, moving', 'Prepared, reduced', ('Unshakable, fails: reduced', 'must stop moving (it failed while moving)')),
        ('U1', 'Prepared', 'Prepared, Fire marker', ('marked Fire',)),
        ('U2', 'Prepared', 'Prepared, Fire marker', ('marked Fire',)),
    ]
    assert res.outcome.headline == '8 FP -> column 8: 2d6 7 -> Hit-1'


def test_cd_direct_fire_rof_to_hit_and_an_ap_hit_whole_trail():
    """CD: a Sherman's 2 ROF dice at short (6 or less): 3 hits, 8 misses; the AP hit roll 7 -4 armour
    +5 penetration = 8 eliminates an Experienced Pz IV [19.1, 19.1.1]."""
    game = CdBuilder(phase="GeneralFire").game
    game.units["S"] = CD.make_unit("m4-sherman-75", id="S", side=0, location="X")
    game.units["P"] = CD.make_unit("pz-iv-h", id="P", side=1, location="X")
    res = resolve(game, {"action": "fire", "firer": "S", "targets": ["P"], "range_band": "short"},
                   ScriptedDice([3, 8, 7]))
    assert trail(res) == [
        ('section', 'M4 Sherman S fires at Pz IV P', None, None, 'CD [13]'),
        ('section', 'Rate of fire', None, None, 'CD [13.5]'),
        ('base', 'ROF of M4 Sherman S', 2, 2, 'CD [13.5]'),
        ('check', 'ROF dice', 2, 2, 'CD [13.5]'),
        ('section', 'To hit Pz IV P', None, None, 'CD [14.2.1]'),
        ('base', 'To-hit of M4 Sherman S at short', 6, 6, 'CD [14.2.1]'),
        ('check', 'Hits Pz IV P on 6 or less', 6, 6, 'CD [14.2.1]'),
        ('dice', 'ROF die 1 at Pz IV P', 3, None, 'CD [14.2.1]'),
        ('check', '3 vs 6 or less: hit', 3, 6, 'CD [14.2.1]'),
        ('dice', 'ROF die 2 at Pz IV P', 8, None, 'CD [14.2.1]'),
        ('check', '8 vs 6 or less: miss', 8, 6, 'CD [14.2.1]'),
        ('section', 'Hit results on Pz IV P: 1 hit(s)', None, None, 'CD [19.1]'),
        ('dice', 'Hit result on Pz IV P (experienced)', 7, None, 'CD [19.1]'),
        ('modifier', 'Armour value of Pz IV P', -4, 3, 'CD [19.1.1]'),
        ('modifier', 'Penetration at short', 5, 8, 'CD [19.1.1]'),
        ('table', 'CD Hit Results [19.1] experienced, 7 -4 +5 = 8: eliminated', 'eliminated', None, 'CD [19.1]'),
        ('effect', 'Pz IV P: eliminated (hit)', None, None, 'CD [19.1]'),
    ]
    assert effects(res) == [
        ('P', 'Good Order', 'eliminated', ('eliminated (hit)',)),
    ]
    assert res.outcome.headline == 'M4 Sherman S fires 2 ROF at Pz IV P: 1 hit -> eliminated'
