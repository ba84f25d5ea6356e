"""Rules core benchmark: resolutions per second of the standard orders, on one core.

    .venv/bin/python bench/bench_rules.py

Each order goes through ``bot.core.api.resolve`` exactly as the service calls it (the order as a
plain dict, parsed and validated; the working copy of the game; the outcome with its trail),
with ``SeededDice`` so every run rolls the same sequence. Every resolution starts from the same
standard game (bench/scenarios.py), so the fire group never runs out of eligible firers; the
dice still vary, so breaks, pins, ELR replacements and Leader Loss checks all happen in
proportion.

"Per second on one core" is counted in CPU seconds of this (single-threaded) process:
resolutions / ``time.process_time()`` spent. Wall-clock time would also count the time other
processes on the machine take the core from us; the CPU time does not.

"Before" is the rules core as it was at ``BASELINE_COMMIT`` (before the speed work of issue 5),
measured in the same run: that commit's ``bot/``, ``data/`` and ``bench/`` are extracted with
``git archive`` into a temporary directory (the checkout is not touched) and the same ASL fire
order is timed there by that commit's own ``rate()``, in a subprocess of the same interpreter,
in rounds alternating with this checkout's (``fire_now_and_before``). Without git or that
commit (an exported copy of the code), the "before" rows are left out.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import scenarios
from bench.common import Metric, over_rounds
from bot.core.api import resolve
from bot.core.copying import tree_copy
from bot.core.dice import SeededDice
from bot.core.game import Game

ASL_FIRE_TARGET = 10_000  # ASL fire resolutions per second on one core (issue 5; issue 14, item 4)


def rate(game: Game, order: dict[str, Any], *, seconds: float, minimum: int) -> float:
    """Resolutions per CPU second: at least ``minimum`` of them, for at least ``seconds`` of CPU."""
    dice = SeededDice(20260523)
    for _ in range(min(minimum, 50)):  # warm the caches (tables, validators) before timing
        resolve(game, order, dice)
    count, start = 0, time.process_time()
    elapsed = 0.0
    while count < minimum or elapsed < seconds:
        for _ in range(50):
            resolve(game, order, dice)
        count += 50
        elapsed = time.process_time() - start
    return count / elapsed


def per_call_us(fn: Callable[[], object], *, seconds: float, minimum: int) -> float:
    count, start = 0, time.process_time()
    elapsed = 0.0
    while count < minimum or elapsed < seconds:
        for _ in range(20):
            fn()
        count += 20
        elapsed = time.process_time() - start
    return elapsed / count * 1e6


BASELINE_COMMIT = "f7c44449736f46242262e0e13926ee873f51d897"  # before the speed work of issue 5
ROOT = Path(__file__).resolve().parents[1]


_BASELINE_CHILD = """\
import sys
import bot
from bench import scenarios
from bench.bench_rules import rate
game, order = scenarios.build("asl"), scenarios.asl_fire()
print(bot.__file__, flush=True)
for line in sys.stdin:  # one measurement per line asked, while the parent waits
    print(rate(game, order, seconds={seconds!r}, minimum={minimum!r}), flush=True)
"""


def fire_now_and_before(game: Game, *, seconds: float, minimum: int, rounds: int,
                        commit: str = BASELINE_COMMIT) -> tuple[list[float], list[float] | None]:
    """ASL fire resolutions per CPU second of this checkout's rules core and of BASELINE_COMMIT's
    (see the module's docstring; None when that commit cannot be read), one figure per round, in
    alternating rounds (before, now, before, now ...): one process computes at a time, and
    whatever else the machine is doing weighs on both alike."""
    order = scenarios.asl_fire()
    archive = subprocess.run(["git", "archive", "--format=tar", commit, "bot", "data", "bench"],
                             cwd=ROOT, capture_output=True, check=False)
    if archive.returncode != 0:
        return [rate(game, order, seconds=seconds, minimum=minimum) for _ in range(rounds)], None
    now: list[float] = []
    before: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        code = _BASELINE_CHILD.format(seconds=seconds, minimum=minimum)
        with subprocess.Popen([sys.executable, "-c", code], cwd=tmp, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) as child:
            assert child.stdin is not None and child.stdout is not None
            imported = child.stdout.readline().strip()
            # the old code, not this checkout's (an editable install must not win over the copy)
            if not imported.startswith(str(Path(tmp).resolve())):
                child.kill()
                raise RuntimeError(f"the baseline benchmark imported {imported or 'nothing'}, not the copy in {tmp}")
            for _ in range(rounds):
                child.stdin.write("measure\n")
                child.stdin.flush()
                before.append(float(child.stdout.readline()))
                now.append(rate(game, order, seconds=seconds, minimum=minimum))
            child.stdin.close()
            if child.wait(timeout=60) != 0:
                raise RuntimeError("the baseline benchmark failed")
    return now, before


def run(quick: bool = False) -> list[Metric]:
    seconds, minimum = (0.0, 50) if quick else (1.5, 2_000)
    asl, nhis, cd = scenarios.build("asl"), scenarios.build("nhis"), scenarios.build("cd")
    rounds = 1 if quick else 3  # the ASL fire: the median of 3 rounds, with their min and max
    asl_fire, asl_fire_before = fire_now_and_before(asl, seconds=seconds / 2, minimum=minimum // 2, rounds=rounds)
    asl_morale = rate(asl, scenarios.asl_morale(), seconds=seconds, minimum=minimum)
    nhis_fire = rate(nhis, scenarios.nhis_fire(), seconds=seconds, minimum=minimum)
    cd_fire = rate(cd, scenarios.cd_fire(), seconds=seconds, minimum=minimum)
    copy_seconds = seconds / 3
    deep = per_call_us(lambda: asl.model_copy(deep=True), seconds=copy_seconds, minimum=minimum)
    tree = per_call_us(lambda: tree_copy(asl), seconds=copy_seconds, minimum=minimum)
    before = [] if asl_fire_before is None else [
        over_rounds(f"rules: ASL fire, before (commit {BASELINE_COMMIT[:7]})", asl_fire_before, "res/s/core"),
        # each round's ratio to the "before" round run just ahead of it
        over_rounds("rules: ASL fire, now / before", [n / b for n, b in zip(asl_fire, asl_fire_before)], "x"),
    ]
    return [
        over_rounds("rules: ASL fire group vs 3-unit stack (MCs incl.)", asl_fire, "res/s/core",
                    at_least=ASL_FIRE_TARGET, item=4),
        *before,
        Metric("rules: ASL NMC with leader (/morale)", asl_morale, "res/s/core"),
        Metric("rules: NHiS fire with morale", nhis_fire, "res/s/core"),
        Metric("rules: CD direct fire, ROF 3 + hit rolls", cd_fire, "res/s/core"),
        Metric("rules: ASL game copy, model_copy(deep=True)", deep, "us"),
        Metric("rules: ASL game copy, working copy (tree_copy)", tree, "us"),
        Metric("rules: deep copy / working copy", deep / tree, "x"),
    ]


def main(argv: list[str]) -> None:
    """``--against=REV``: only the ASL fire, this checkout against the commit REV, alternating
    rounds (how each change of the rules core is measured back to back before it is kept)."""
    from bench.common import arguments

    against = arguments(argv, __doc__, "bench/bench_rules.py", lambda p: p.add_argument(
        "--against", metavar="REV", help="only the ASL fire: this checkout against commit REV, "
        "in alternating rounds (best of 7)")).against
    if against is not None:
        now, before = fire_now_and_before(scenarios.build("asl"), seconds=0.75, minimum=1_000, rounds=7,
                                          commit=against)
        if before is None:
            raise SystemExit(f"cannot read commit {against} with git")
        print(f"ASL fire, res/s/core (best of 7 alternating rounds): {against} {max(before):,.0f}, "
              f"this checkout {max(now):,.0f}, ratio {max(now) / max(before):.3f}")
        return
    for metric in run():
        digits = 0 if metric.value >= 100 else 2
        spread = f"{metric.spread[0]:,.{digits}f}-{metric.spread[1]:,.{digits}f}" if metric.spread else ""
        print(f"{metric.name:55} {metric.value:12,.1f} {spread:>15} {metric.unit:10} {metric.target or '':>10} "
              f"{metric.verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
