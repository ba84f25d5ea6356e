"""Issue 2, "Bad input": an order the rules forbid, given to `python -m bot rules`, exits with
code 2, writes nothing on stdout and one line on stderr naming the rule, for every ruleset; the
same request with the rule satisfied is answered (so the refusal is the rule's, not the request's).
The refusals run in real subprocesses; their accepted twins through the CLI's main in-process."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[2]


def rules(request: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", "rules"], input=json.dumps(request), capture_output=True,
                          text=True, cwd=ROOT, timeout=60, check=False)


def asl(phase, units, order, **extra):
    return {"ruleset": "asl", "order": order,
            "situation": {"sides": ["Germans", "Russians"], "phase": phase, "units": units, **extra}}


FINAL_FIRE = asl("DFPh", [{"id": "A1", "type": "ger-467", "side": 0, "location": "B5", "stats": {"fire_marker": "final"}},
                          {"id": "R1", "type": "rus-447", "side": 1, "location": "B6"}],
                 {"action": "fire", "firers": ["A1"], "target": "B6", "range": 1}, active_side=1)
FAR_TARGET = asl("PFPh", [{"id": "A1", "type": "ger-467", "side": 0, "location": "B5"},
                          {"id": "R1", "type": "rus-447", "side": 1, "location": "K5"}],
                 {"action": "fire", "firers": ["A1"], "target": "K5", "range": 13})
MPH_TRANSFER = asl("MPh", [{"id": "A1", "type": "ger-467", "side": 0, "location": "B5"},
                           {"id": "A2", "type": "ger-467", "side": 0, "location": "B5"},
                           {"id": "MG1", "type": "ger-lmg", "side": 0, "location": "B5", "stats": {"owner": "A1"}}],
                   {"action": "transfer", "weapon": "MG1", "to": "A2"})
SHAKEN_FIRER = {"ruleset": "nhis", "situation": {
    "sides": ["US", "Japan"], "phase": "Operations",
    "units": [{"id": "U1", "type": "us-rifle-squad", "side": 0, "location": "0101", "stats": {"shaken": True}},
              {"id": "J1", "type": "jp-rifle-squad", "side": 1, "location": "0103"}]},
    "order": {"action": "fire", "firers": ["U1"], "target": "0103", "range": 2}}
ARTILLERY_PHASE_FIRE = {"ruleset": "cd", "situation": {
    "sides": ["US", "Germany"], "phase": "Artillery",
    "units": [{"id": "S1", "type": "us-rifle", "side": 0}, {"id": "G1", "type": "ger-rifle", "side": 1}]},
    "order": {"action": "fire", "firer": "S1", "targets": ["G1"], "range_band": "short"}}


def rules_in_process(request: dict) -> tuple[int, str, str]:
    """The same `rules` command run in this process (the CLI's own main), for the accepted twin."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["rules"], stdin=io.StringIO(json.dumps(request)), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _fixed(request: dict, path: tuple, value) -> dict:
    """The same request with one value changed so the rule is satisfied."""
    fixed = copy.deepcopy(request)
    node = fixed
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return fixed


CASES = [
    ("asl final fire in the DFPh", FINAL_FIRE,
     "illegal order: 4-6-7 A1 is marked Final Fire and may not fire in the DFPh (A8.4)",
     ("situation", "units", 0, "stats"), {}),
    ("asl beyond twice normal range", FAR_TARGET,
     "illegal order: 4-6-7 A1 has normal range 6: 13 hexes is beyond twice that (A7.22)",
     ("order", "range"), 12),
    ("asl transfer in the MPh", MPH_TRANSFER,
     ("illegal order: in the MPh a SW changes hands only when a sub-unit is created, or when a leader or hero "
      "takes it from a friendly broken unit (A4.43 / seed 002 Table 7 T, G)"),
     ("situation", "phase"), "RPh"),
    ("nhis shaken firer", SHAKEN_FIRER,
     "illegal order: US Marine rifle squad U1 is Shaken and may not fire (NHiS Hit result (seed 001))",
     ("situation", "units", 0, "stats"), {}),
    ("cd direct fire in the artillery phase", ARTILLERY_PHASE_FIRE,
     ("illegal order: direct fire is resolved only in the Movement Phase, Opportunity Fire Phase or General Fire "
      "Phase; this is the Artillery & Air Phase (CD [13.1]): /game phase to:Movement moves the game to the next "
      "Movement Phase"),
     ("situation", "phase"), "GeneralFire"),
]


@pytest.mark.parametrize("request_,message,path,value", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_order_the_rules_forbid_exits_2_with_the_rule_on_stderr(request_, message, path, value):
    refused = rules(request_)
    assert (refused.returncode, refused.stdout, refused.stderr) == (2, "", message + "\n")
    code, stdout, stderr = rules_in_process(_fixed(request_, path, value))
    assert code == 0, stderr
    assert json.loads(stdout)["outcome"]["trail"]
