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
