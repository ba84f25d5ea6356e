"""The rules core's speed work changed no result: a fixed corpus of seeded orders on the three
rulesets gives, to the byte, the outcomes, states and refusals recorded before it began.

The golden file (tests/core/golden/perf_equivalence.json) holds one SHA-256 per case, of the
case's canonical record: for a resolution, the Outcome and the new Game as JSON (all fields, and
only the fields set, which is what a model built without validation could get wrong) and their
reprs (which tell a tuple from a list and an int from a float); for a refusal, the error's class,
message, field and rule, and the game left exactly as it was. It was written by running this
module as a script on the code before the first optimisation:

    .venv/bin/python tests/core/test_perf_equivalence.py --write

A case whose hash differs names itself; ``--dump DIR`` writes every record in full, to diff a
failing case against the same dump made on the code before the change.

The file detects a change, not an error: it is written by the code it checks. So five of its cases
are anchored by hand (``HAND_CHECKED`` below): each was worked out from the rules digests
(/work/shared/rules: asl.md, nhis.md, cd.md) and the counters' printed numbers, with the seeded dice
as the only input taken from the run, and its test asserts those steps of the trail and the units'
states, naming the rules; its golden hash must also be the one recorded. A regenerated golden file
that carries a wrong result in one of them fails there, whoever regenerated it.

When regenerating the golden file (``--write``) is legitimate: only in a commit that means to change
what some cases record (a rule corrected, a trail's wording, a new field of the Outcome or the Game),
never to make a failing speed change pass. Before writing: ``--dump`` before and after the change,
diff the two, and check that every case that differs differs only as that change intends (the commit
message says which cases and why, as the file's history does); the hand-checked cases below must
pass as they are, and one of them changes only when its expectation is worked out again by hand from
the digest, with the rule named.

Each case is a chain of orders played from a standard game (bench/scenarios.py) with seeded
dice, so later orders meet what earlier ones did: the benchmark's fire group over many dice,
morale checks of every kind, rally and self-rally in the Rally Phase, MG transfer and recovery,
phase changes, and refusals (a unit that already fired, unknown ids, a bad range, an action the
ruleset lacks).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pytest

from bench import scenarios
from bot.core.api import new_game, resolve
from bot.core.dice import SeededDice
from bot.core.errors import RulesError
from bot.core.game import Game
from bot.core.rulesets import get_ruleset
from bot.core.sequence import SEQUENCE

GOLDEN = Path(__file__).parent / "golden" / "perf_equivalence.json"

Order = dict[str, Any]


def _phase(to: str) -> Order:
    return {"action": "phase", "to": to}


def _asl_cases() -> Iterator[tuple[str, str, list[Order]]]:
    fire = scenarios.asl_fire()
    for seed in range(40):  # the benchmark order itself, over many dice
        yield f"asl-fire-{seed}", "asl", [fire]
    for seed, check in enumerate(["NMC", "MC", "PTC", "TC", "LLMC", "LLTC"] * 2):
        yield f"asl-morale-G2-{check}-{seed}", "asl", [{"action": "morale", "unit": "G2", "check": check, "n": seed % 3}]
    for seed in range(6):
        yield f"asl-morale-leader-{seed}", "asl", [{"action": "morale", "unit": "GL", "check": "NMC", "drm": seed - 2,
                                                    "drm_reason": "agreed"}]
        yield f"asl-morale-target-{seed}", "asl", [{"action": "morale", "unit": "R1", "check": "MC", "n": 1}]
    for seed in range(8):  # fire variants: point blank, hindrance, DRM, one firer, no leader
        yield f"asl-fire-pbf-{seed}", "asl", [{**fire, "range": 1}]
        yield f"asl-fire-hindrance-{seed}", "asl", [{**fire, "hindrance": 2, "drm": -1, "drm_reason": "agreed"}]
        yield f"asl-fire-single-{seed}", "asl", [{"action": "fire", "firers": ["G3"], "target": "B3", "range": 2}]
        yield f"asl-fire-mg-{seed}", "asl", [{"action": "fire", "firers": ["G1", "MG"], "target": "B3", "range": 4}]
    for seed in range(12):  # a whole player turn: fire, fire again (refused), rally, transfer, recover
        yield f"asl-turn-{seed}", "asl", [
            fire,
            fire,  # the group already fired: refused, nothing changes
            _phase("MPh"), _phase("DFPh"), _phase("AFPh"), _phase("RtPh"), _phase("APh"), _phase("CCPh"),
            _phase("RPh"),
            {"action": "rally", "unit": "R1"}, {"action": "rally", "unit": "R2"},
            {"action": "rally", "unit": "RL", "self_rally": True},
            {"action": "rally", "unit": "G1"},
            {"action": "transfer", "weapon": "MG", "to": "G2"},
            {"action": "recover", "weapon": "MG", "unit": "G3"},
            _phase("PFPh"),
            {"action": "fire", "firers": ["R1", "R2"], "leader": "RL", "target": "A1", "range": 2},
            {"action": "morale", "unit": "G3", "check": "PTC"},
        ]
    for seed in range(6):  # Close Combat (A11): declared by the ATTACKER, resolved by the DEFENDER's declaration
        yield f"asl-close-combat-{seed}", "asl", [
            {"action": "unit_move", "unit": "G1", "location": "B3"}, {"action": "unit_move", "unit": "G2",
                                                                      "location": "B3"},
            _phase("CCPh"),
            {"action": "close_combat", "attackers": ["G1", "|", "G2"], "targets": ["R1", "|", "R2"]},
            {"action": "close_combat", "attackers": ["R1", "R2", "RL"], "targets": ["G1"]},
            {"action": "close_combat", "attackers": ["R1"], "hold": True},  # fought already: refused
        ]
    yield "asl-refusals", "asl", [
        {"action": "fire", "firers": ["NOPE"], "target": "B3", "range": 2},
        {"action": "fire", "firers": ["G1"], "target": "B3", "range": -1},
        {"action": "fire", "firers": ["G1"], "target": "Z9", "range": 2},
        {"action": "morale", "unit": "G1", "check": "XMC"},
        {"action": "morale"},
        {"action": "charge", "unit": "G1"},
        {"action": "rally", "unit": "G1"},
        {"action": "transfer", "weapon": "MG", "to": "R1"},
        {"action": "fire", "firers": ["G1", "R1"], "target": "B3", "range": 2},
        "not an order",  # type: ignore[list-item]
    ]


def _nhis_cases() -> Iterator[tuple[str, str, list[Order]]]:
    fire = scenarios.nhis_fire()
    for seed in range(25):
        yield f"nhis-fire-{seed}", "nhis", [fire]
    for seed in range(8):
        yield f"nhis-fire-variants-{seed}", "nhis", [
            {**fire, "range": 1, "charging": ["J1"], "from_lower": True}]
        yield f"nhis-morale-{seed}", "nhis", [{"action": "morale", "unit": "U1", "hit": seed % 4},
                                               {"action": "morale", "unit": "UL", "hit": 1}]
    for seed in range(10):
        yield f"nhis-turn-{seed}", "nhis", [
            fire, {"action": "fire", "firers": ["JL"], "target": "C4", "range": 2},
            _phase("Administrative"), _phase("Rally"),
            {"action": "rally", "unit": "U1"}, {"action": "rally", "unit": "U2"}, {"action": "rally", "unit": "UL"},
            _phase("Operations"),
            {"action": "fire", "firers": ["U1", "U2"], "target": "A4", "range": 2},
        ]
    yield "nhis-refusals", "nhis", [
        {"action": "fire", "firers": [], "target": "C4", "range": 2},
        {"action": "fire", "firers": ["J1"], "target": "C4", "range": 999},
        {"action": "fire", "firers": ["XX"], "target": "C4", "range": 2},
        {"action": "morale", "unit": "U1", "hit": 9},
        {"action": "rally", "unit": "U1"},
        {"action": "transfer", "weapon": "JM", "to": "J1"},
    ]


def _cd_cases() -> Iterator[tuple[str, str, list[Order]]]:
    fire = scenarios.cd_fire()
    for seed in range(25):
        yield f"cd-fire-{seed}", "cd", [fire]
    for seed in range(8):
        yield f"cd-fire-variants-{seed}", "cd", [
            {**fire, "cover": "light", "op_fire": True}, {**fire, "targets": ["P1"], "range_band": "medium"}]
    for seed in range(10):
        yield f"cd-turn-{seed}", "cd", [
            fire, fire, _phase("CommandMorale"),
            {"action": "morale", "company": "Able", "in_cover": seed % 2 == 0, "enemy_personnel_near": True},
            _phase("Artillery"), _phase("Movement"),
            {"action": "rally", "company": "Able"},  # Rally/Regroup is a Movement phase order (CD [21.4])
            _phase("OpFire"), _phase("GeneralFire"),
            {"action": "fire", "firer": "P1", "targets": ["MG"], "range_band": "short"},
        ]
    yield "cd-refusals", "cd", [
        {"action": "fire", "firer": "MG", "targets": [], "range_band": "short"},
        {"action": "fire", "firer": "MG", "targets": ["P1"], "range_band": "extreme"},
        {"action": "fire", "firer": "ZZ", "targets": ["P1"], "range_band": "short"},
        {"action": "morale", "company": "Nobody"},
        {"action": "indirect_fire", "firer": "MG", "targets": ["P1"]},
    ]


# the standard game as a game created today plays it ("<ruleset>+created"): the sequence of play refereed
# and the ruleset's creation defaults on (CD's checks of artillery, NHiS's one activation an impulse)
CREATED = "+created"


def _created_cases() -> Iterator[tuple[str, str, list[Order]]]:
    for seed in range(4):  # an artillery mission: refused before its response roll, then over its ROF (CD [17.4])
        yield f"cd-artillery-{seed}", "cd" + CREATED, [
            {"action": "unit_add", "id": "RA1", "type": "us-105mm-battery", "side": 0, "location": "rear",
             "stats": {"company": "Arty"}},
            _phase("Artillery"),
            {"action": "done", "side": 1},  # the Germans won the initiative (Side A): the Americans' part next
            {"action": "indirect_fire", "firer": "RA1", "targets": ["MG"]},  # no response yet: refused
            {"action": "artillery_response", "firer": "P1"},  # a rifle platoon is no battery: refused
            {"action": "artillery_response", "firer": "RA1"},
            {"action": "indirect_fire", "firer": "RA1", "targets": ["MG"]},  # refused when the response failed
            {"action": "indirect_fire", "firer": "RA1", "targets": ["MG"]},  # over its ROF 1: refused
        ]
    for seed in range(4):  # an impulse is one activation: a second hex is refused in it
        yield f"nhis-impulse-{seed}", "nhis" + CREATED, [
            {"action": "unit_add", "id": "J3", "type": "jp-rifle-squad", "side": 0, "location": "B4"},
            {"action": "fire", "firers": ["J1", "J2"], "target": "C4", "range": 2},
            {"action": "fire", "firers": ["J3"], "target": "C4", "range": 1},  # another hex: refused
            {"action": "fire", "firers": ["JM"], "target": "C4", "range": 2},  # the activated hex: accepted
        ]


def cases() -> Iterator[tuple[str, str, list[Order]]]:
    yield from _asl_cases()
    yield from _nhis_cases()
    yield from _cd_cases()
    yield from _created_cases()


_STANDARD: dict[str, str] = {}


def _standard(ruleset: str) -> Game:
    """A fresh copy of the standard game (built once, through the JSON every game is stored as); with
    ``CREATED``, as a game created today plays it."""
    if ruleset not in _STANDARD:
        name = ruleset.removesuffix(CREATED)
        if name == ruleset:
            game = scenarios.build(name)
        else:
            sides, setup, _ = scenarios.RULESETS[name]
            options = {**(scenarios.game_options(name) or {}), **get_ruleset(name).creation_defaults}
            game = new_game(name, sides=sides, scenario="benchmark", options=options, sequence=SEQUENCE)
            dice = SeededDice(0)  # the refereed sequence rolls on the way (CD's initiative): the same dice each run
            for order in setup():
                game = resolve(game, order, dice).game
        _STANDARD[ruleset] = game.model_dump_json()
    return Game.model_validate_json(_STANDARD[ruleset])


def _seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")


def record(name: str, ruleset: str, orders: list[Order]) -> str:
    """The canonical record of one case: every result, in order, as text."""
    game = _standard(ruleset)
    dice = SeededDice(_seed(name))
    lines = []
    for order in orders:
        before = game.model_dump_json()
        try:
            resolution = resolve(game, order, dice)
        except RulesError as exc:
            assert game.model_dump_json() == before  # a refusal changes nothing
            lines.append(json.dumps({"refused": type(exc).__name__, "message": str(exc),
                                     "field": getattr(exc, "field", None), "rule": getattr(exc, "rule", None)},
                                    sort_keys=True))
            continue
        outcome, game = resolution.outcome, resolution.game
        lines.append(outcome.model_dump_json())
        lines.append(outcome.model_dump_json(exclude_unset=True))
        lines.append(repr(outcome))
        lines.append(game.model_dump_json())
        lines.append(game.model_dump_json(exclude_unset=True))
        lines.append(repr(game))
    return "\n".join(lines)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


_CASES = list(cases())


def _golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


def test_the_corpus_is_the_one_the_golden_file_was_written_from():
    assert [name for name, _, _ in _CASES] == list(_golden())


def test_the_corpus_covers_resolutions_and_refusals_of_every_kind():
    """The corpus exercises what it claims: successful fire, morale, rally, transfer and recover,
    and refusals, on each ruleset (so a golden of nothing but refusals cannot pass)."""
    seen: set[tuple[str, str, str]] = set()
    for name, ruleset, orders in _CASES:
        for line in record(name, ruleset, orders).splitlines():
            data = json.loads(line) if line.startswith("{") else None
            if data is None:
                continue
            if "refused" in data:
                seen.add((ruleset, "refused", ""))
            elif "action" in data and "trail" in data:
                seen.add((ruleset, "resolved", data["action"]))
    for ruleset in ("asl", "nhis", "cd"):
        assert (ruleset, "refused", "") in seen
        assert (ruleset, "resolved", "fire") in seen
        assert (ruleset, "resolved", "morale") in seen
        assert (ruleset, "resolved", "rally") in seen
    assert ("asl", "resolved", "transfer") in seen


@pytest.mark.parametrize(("name", "ruleset", "orders"), _CASES, ids=[name for name, _, _ in _CASES])
def test_results_are_byte_identical_to_the_golden_record(name, ruleset, orders):
    assert digest(record(name, ruleset, orders)) == _golden()[name]


# --- hand-checked anchors --------------------------------------------------------------------------
# Each worked out from the rules digests, not from the code: the dice are the seeded ones the case draws
# (the only input read from a run); every step after them is derived from the rule named beside it.


def _resolved(name: str):
    case = next(case for case in _CASES if case[0] == name)
    game = _standard(case[1])
    return resolve(game, case[2][0], SeededDice(_seed(name)))


def _steps(outcome) -> dict[str, Any]:
    """The trail's steps by label: (value, rule)."""
    return {step.label: (step.value, step.rule) for step in outcome.trail}


def _dice(outcome) -> list[list[int]]:
    return [list(roll.dice) for roll in outcome.rolls]


def test_hand_checked_asl_fire_group_on_the_ift_k3_random_selection_and_leader_loss():
    """asl-fire-0: three 4-6-7s (FP 4) and an LMG (FP 3) with a 9-1 in A1 fire at range 2 on two 4-4-7s and
    an 8-0 in woods (B3), in the PFPh, ELR 3.
    - A7.2: FP 4+4+4+3 = 15; the rightmost IFT column not above 15 is 12.
    - A7.3/A7.53: leadership -1, woods TEM +1 (B.6): net 0. DR 2+1 = 3, not doubles: Final DR 3.
    - IFT (asl.md), column 12, row 3: K/3.
    - A7.302 (Random Selection, A.9): dr R1 1, R2 1, RL 5: RL alone is highest: Casualty Reduction
      eliminates the leader. Then every unit takes a 3MC (RL gone: no leadership):
      R1 3+3+3 = 9 > 7 breaks; R2 1+5+3 = 9 > 7 breaks; each failed by 2, within ELR 3 (A19.13).
    - A10.2: an 8-0 (leadership 0) eliminated: an NMC (Leader Loss MC) for units of lower morale than 8:
      R1 (broken side 7) 6+5 = 11 > 7 fails: already broken, Casualty Reduction to a 2-2-7 half-squad;
      R2 1+6 = 7 <= 7 passes.
    - A.11 / A9.2: LMG breakdown B12: Original DR 3 holds; ROF 2, colored die 1 <= 2: keeps its ROF.
    - seed 003: the firers and the directing leader marked Prep Fire."""
    resolution = _resolved("asl-fire-0")
    outcome, game = resolution.outcome, resolution.game
    assert _dice(outcome) == [[2, 1], [1], [1], [5], [3, 3], [1, 5], [6, 5], [1, 6]]
    steps = _steps(outcome)
    assert steps["Total FP (fractions kept until the total)"] == (15, "A7.2")
    assert steps["IFT column"] == ("12", "A7.2")
    assert steps["leadership of 9-1 GL"] == ("-1", "A7.53") and steps["TEM: Woods"] == ("+1", "B.6")
    assert steps["Final DR"] == (3, "A7.3")
    assert steps["IFT 12 column, Final DR 3"] == ("K/3", "A7.3")
    assert steps["K/3 Random Selection: 8-0 RL (highest dr)"][1] == "A7.302"
    assert steps["Final DR 9 vs morale 7"] == ("fails", "A7.3")
    assert steps["Final DR 11 vs broken-side morale 7"] == ("fails", "A10.2")
    assert steps["Final DR 7 vs broken-side morale 7"] == ("passes", "A10.2")
    assert steps["LMG MG: Original DR 3 vs B12"] == ("holds", "A.11")
    assert steps["LMG MG ROF 2: colored die 1"] == ("kept", "A9.2")
    units = game.units
    assert units["RL"].eliminated
    assert (units["R1"].type, units["R1"].broken) == ("rus-227", True)
    assert (units["R2"].type, units["R2"].broken, units["R2"].eliminated) == ("rus-447", True, False)
    assert all(units[u].fire_marker == "prep" for u in ("G1", "G2", "G3", "GL"))
    assert not units["MG"].malfunctioned


def test_hand_checked_asl_cowering_one_column_left_and_a_leader_breaking():
    """asl-fire-single-0: one 4-6-7 (first line, no leader) fires at range 2 into the woods.
    - A7.2: FP 4: column 4. A7.3: woods TEM +1 (B.6). DR 1+1: doubles with no directing leader:
      cowering, one column left (A7.9), to column 2. Final DR 2+1 = 3. IFT column 2, row 3: 1MC.
    - 1MC, leaders first (asl.md): RL (8) 6+5+1 = 12 > 8 breaks; R1 1+2+1 = 4 <= 7 passes (not equal:
      no pin); R2 6+3+1 = 10 > 7 breaks, failed by 3: not more than ELR 3 (A19.13).
    - A10.2: a leader breaking: a Leader Loss Task Check for the unbroken units of lower morale:
      R1 1+4 = 5 <= 7 passes."""
    resolution = _resolved("asl-fire-single-0")
    outcome, game = resolution.outcome, resolution.game
    assert _dice(outcome) == [[1, 1], [6, 5], [1, 2], [6, 3], [1, 4]]
    steps = _steps(outcome)
    assert steps["IFT column"] == ("4", "A7.2")
    assert steps["cowering: doubles with no leader directing"] == ("-1 column(s)", "A7.9")
    assert steps["IFT 2 column, Final DR 3"] == ("1MC", "A7.3")
    assert steps["Final DR 12 vs morale 8"] == ("fails", "A7.3")
    assert steps["Final DR 4 vs morale 7"] == ("passes", "A7.3")
    assert steps["Final DR 10 vs morale 7"] == ("fails", "A7.3")
    assert steps["failed by 3, not more than ELR 3: no replacement"][1] == "A19.13"
    assert steps["Final DR 5 vs morale 7"] == ("passes", "A10.2")
    units = game.units
    assert units["RL"].broken and units["R2"].broken and units["R2"].type == "rus-447"
    assert not units["R1"].broken and not units["R1"].pinned


def test_hand_checked_asl_normal_morale_check_with_a_leader_in_the_location():
    """asl-morale-G2-NMC-0: a 4-6-7 (morale 7) takes an NMC with a 9-1 in its Location.
    - A10.1/A10.7: the leader's modifier -1; DR 1+2 = 3; Final DR 2 <= 7: passes, nothing changes."""
    resolution = _resolved("asl-morale-G2-NMC-0")
    outcome = resolution.outcome
    assert _dice(outcome) == [[1, 2]]
    steps = _steps(outcome)
    assert steps["leadership of 9-1 GL"] == (-1, "A10.7")
    assert steps["Final DR 2 vs morale 7"] == ("passes", "A10.1")
    assert not outcome.effects and not resolution.game.units["G2"].broken


def test_hand_checked_nhis_fire_table_hit_1_and_a_leader_shaken_first():
    """nhis-fire-0: two Japanese rifle squads (FP 2, range 4) and a Type 92 HMG team (FP 5, range 12) fire at
    range 2 on a US Marine leader (morale 5, leadership 1) and two rifle squads (morale 5) in Open Ground.
    - nhis.md step 1-2: FP 2+2+5 = 9; within printed range; not adjacent; Open Ground Cover Factor 0: 9.
    - step 3: the highest Fire Table row not above 9 is 8; no column shift in Open Ground (step 4).
    - step 5: 2d6 4+3 = 7: row 8, column 7: Hit-1.
    - Results: leaders check first: UL 5+1 = 6 > 5: Shaken (its impulse ends); the squads get no
      leadership from a Shaken leader: U1 3+1 = 4 <= 5 and U2 3+1 = 4 <= 5 pass."""
    resolution = _resolved("nhis-fire-0")
    outcome, game = resolution.outcome, resolution.game
    assert _dice(outcome) == [[4, 3], [5], [3], [3]]
    steps = _steps(outcome)
    assert steps["Firepower"] == (9, "NHiS DRM list (seed 001)")
    assert steps["FP 9 -> column 8"] == (8, "NHiS Fire Table (seed 001)")
    assert steps["Column 8, roll 7: Hit-1"] == ("Hit-1", "NHiS Fire Table (seed 001)")
    assert steps["US Marine leader UL: Shaken; its impulse ends"][1] == "NHiS Hit result (seed 001)"
    assert steps["4 vs 5: passes"] == ("pass", "NHiS Hit result (seed 001)")
    assert game.units["UL"].shaken and not game.units["U1"].shaken and not game.units["U2"].shaken


def test_hand_checked_cd_rate_of_fire_to_hit_and_a_hit_result():
    """cd-fire-1: a German MG42 platoon (ROF 3, to-hit 5 at short: its equipment numbers) fires at two US
    rifle platoons (Regular) in the open.
    - CD [13.5]: Multiple targets -1: 2 ROF dice, one at each target.
    - CD [14.2.1]: no to-hit modifier applies (targets in the open, firer Experienced): hits on 5 or less.
      d10 9 at P1: miss; 1 at P2: hit.
    - CD [19.1]: Regular: 1-3 no effect, 4-6 forced back, 7+ eliminated: d10 4: P2 forced back."""
    resolution = _resolved("cd-fire-1")
    outcome = resolution.outcome
    assert _dice(outcome) == [[9], [1], [4]]
    steps = _steps(outcome)
    assert steps["Multiple targets"] == (-1, "CD [13.5]") and steps["ROF dice"] == (2, "CD [13.5]")
    assert steps["9 vs 5 or less: miss"] == (9, "CD [14.2.1]")
    assert steps["1 vs 5 or less: hit"] == (1, "CD [14.2.1]")
    assert steps["CD Hit Results [19.1] regular, 4: forced back"] == ("forced back", "CD [19.1]")
    assert [(effect.unit, list(effect.effects)) for effect in outcome.effects] == [("P2", ["forced back"])]


HAND_CHECKED = ("asl-fire-0", "asl-fire-single-0", "asl-morale-G2-NMC-0", "nhis-fire-0", "cd-fire-1")


@pytest.mark.parametrize("name", HAND_CHECKED)
def test_the_hand_checked_cases_are_in_the_golden_file_as_recorded(name):
    # the anchors check the golden file itself: these cases' recorded hashes are of the results above
    case = next(case for case in _CASES if case[0] == name)
    assert digest(record(*case)) == _golden()[name]


def _main(argv: list[str]) -> None:
    if "--write" in argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        golden = {name: digest(record(name, ruleset, orders)) for name, ruleset, orders in _CASES}
        GOLDEN.write_text(json.dumps(golden, indent=1) + "\n")
        print(f"wrote {len(golden)} cases to {GOLDEN}")
    if "--dump" in argv:
        target = Path(argv[argv.index("--dump") + 1])
        target.mkdir(parents=True, exist_ok=True)
        for name, ruleset, orders in _CASES:
            (target / f"{name}.txt").write_text(record(name, ruleset, orders))
        print(f"dumped {len(_CASES)} cases to {target}")


if __name__ == "__main__":
    _main(sys.argv[1:])
