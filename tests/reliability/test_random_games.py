"""Random games, undos included, always verify: the replay of the log is the live game.

Each game is played through the service on a real SQLite file by a seeded random script: units
added (and removed, and added again) with ids in no particular order, moves, terrain set, the
game master's corrections, fire, morale checks, rallies, phases, and undos proposed by one
player and accepted by the other. Orders the rules refuse are part of the game
(a player tries them); the referee answers the rest with the script's own dice (manual dice).
Now and then the bot restarts on the same file and the game goes on from what it holds. After
every undo, and at the end, ``/log verify`` must pass, and the game rebuilt from the log
must equal the live one, the order of its units and Locations included (that order is game
state no hash covers: a stack is listed in it; an undo's replay once restored it sorted by id,
and the next result listing that stack failed verify as if tampered).

Per ruleset (ASL, NHiS, CD): 4 games of 70 actions by default, 25 of 150 with
REFEREE_FULL_RELIABILITY=1 (fresh seeds each full run; a failure prints its seed,
``REFEREE_RELIABILITY_SEED=N`` replays it).
"""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import Awaitable, Callable

import pytest

from bot.core.errors import RulesError
from bot.core.rulesets import get_ruleset
from bot.core.sequence import allowed_sides, current, side_to_act
from bot.service import NotAllowed, Referee
from bot.record.replay import Replayer
from tests.reliability.audit import FULL, size
from tests.store.helpers import GERMAN, GM, GUILD, RUSSIAN, open_store

GAMES = size(4, 25)  # per ruleset
ACTIONS = size(70, 150)
IDS = ["G7", "A3", "R9", "B1", "Z2", "C5", "M4", "E8", "K1", "Q6"]  # neither sorted nor reversed
SIDES = {0: GERMAN, 1: RUSSIAN}


def seeds() -> list[int]:
    if os.environ.get("REFEREE_RELIABILITY_SEED"):
        return [int(os.environ["REFEREE_RELIABILITY_SEED"])]
    base = secrets.randbits(32) if FULL else 20261123  # the default (CI) run is derandomized
    return [base + i for i in range(GAMES)]


class Script:
    """What a player or the game master of one ruleset might do now: (order, actor)."""

    ruleset: str
    hexes: list[str]
    terrains: list[str]
    kinds = (["add", "move", "remove", "terrain", "edit", "fire", "morale", "rally", "phase", "done"],
             [3, 2, 1, 1, 1, 4, 3, 1, 1, 2])

    def __init__(self, rng: random.Random):
        self.rng = rng

    def order(self, game) -> tuple[dict, object]:
        rng, units = self.rng, game.units
        ours = list(units)
        kind = self.in_step(game, self.in_phase(rng.choices(*self.kinds)[0], game.phase))
        if kind == "add" or not ours:
            side = rng.randrange(2)
            return {"action": "unit_add", "id": rng.choice(IDS), "side": side, "location": rng.choice(self.hexes),
                    **self.unit(side)}, GM
        acting = [u for u in ours if units[u].side == side_to_act(game)]
        # the rolling orders mostly come from the side whose step it is (the others are tried, and refused)
        unit = rng.choice(acting if kind in ("fire", "morale", "rally") and acting and rng.random() < 0.8 else ours)
        side = units[unit].side
        if kind == "move":
            return {"action": "unit_move", "unit": unit, "location": rng.choice(self.hexes)}, GM
        if kind == "remove":  # an id removed and added again goes to the end of the order
            return {"action": "unit_remove", "unit": unit}, GM
        if kind == "terrain":
            return {"action": "location_set", "location": rng.choice(self.hexes + ["F2"]),
                    "terrain": rng.choice(self.terrains)}, GM
        if kind == "edit":  # the game master's correction
            return {"action": "unit_edit", "unit": unit, "changes": self.correction()}, GM
        if kind == "phase":
            return {"action": "phase"}, GM
        if kind == "done":  # the side holding the step ends its part (a step may open with a roll)
            return {"action": "done", "side": side_to_act(game)}, SIDES[side_to_act(game)]
        friends = [u for u in ours if units[u].side == side]
        return self.rolling(kind, unit, friends, units), SIDES[side]

    def in_step(self, game, kind: str) -> str:
        """A rolling order is mostly one the step allows the side to act (the others are tried too)."""
        if kind not in ("fire", "morale", "rally") or self.rng.random() < 0.3:
            return kind
        ruleset = get_ruleset(game.ruleset)
        step = current(game, ruleset)
        allowed = [a for a in ("fire", "morale", "rally")
                   if step is not None and side_to_act(game) in allowed_sides(game, ruleset, step, a)]
        return self.rng.choice(allowed) if allowed else kind

    def in_phase(self, kind: str, phase: str) -> str:
        """The kind of order to give; a ruleset whose rolling orders each have their phase
        gives mostly the one the phase allows (the others are still tried, and refused)."""
        return kind


class AslScript(Script):
    ruleset, hexes, terrains = "asl", ["B5", "C5", "D6"], ["open", "woods", "stone building"]

    def unit(self, side: int) -> dict:
        if self.rng.random() < 0.2:
            return {"stats": {"kind": "leader", "name": "8-1", "morale": 8, "leadership": -1}}
        return {"stats": {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}}

    def correction(self) -> dict:
        return self.rng.choice([{"broken": True}, {"broken": False}, {"pinned": True},
                                {"morale": self.rng.randint(6, 8)}])

    def rolling(self, kind: str, unit: str, friends: list[str], units: dict) -> dict:
        rng = self.rng
        if kind == "fire":
            return {"action": "fire", "firers": rng.sample(friends, k=1), "target": rng.choice(self.hexes),
                    "range": rng.randint(1, 3)}
        if kind == "morale":
            return {"action": "morale", "unit": unit, "check": rng.choice(["NMC", "MC", "PTC"]),
                    **({"n": rng.randint(1, 3)} if rng.random() < 0.3 else {})}
        return {"action": "rally", "unit": unit}


class NhisScript(Script):
    ruleset, hexes, terrains = "nhis", ["0304", "0305", "0406"], ["clear", "jungle", "light woods"]

    def unit(self, side: int) -> dict:
        kind = self.rng.choice(["rifle-squad", "rifle-squad", "leader"])
        return {"type": f"{'us' if side == 0 else 'jp'}-{kind}"}

    def correction(self) -> dict:
        return self.rng.choice([{"shaken": True}, {"shaken": False}, {"morale": self.rng.randint(5, 7)}])

    def rolling(self, kind: str, unit: str, friends: list[str], units: dict) -> dict:
        rng = self.rng
        if kind == "fire":
            return {"action": "fire", "firers": rng.sample(friends, k=min(len(friends), rng.randint(1, 2))),
                    "target": rng.choice(self.hexes), "range": rng.randint(1, 4)}
        if kind == "morale":
            return {"action": "morale", "unit": unit, "hit": rng.randint(0, 2)}
        return {"action": "rally", "unit": unit}


class CdScript(Script):
    ruleset, hexes, terrains = "cd", ["X1", "X2", "X3"], ["open", "woods", "town"]
    COMPANIES = {0: ["Able", "Baker"], 1: ["Kampf", "Panzer"]}
    PHASE_ORDERS = {"GeneralFire": "fire", "OpFire": "fire", "CommandMorale": "morale", "Movement": "rally"}

    def in_phase(self, kind: str, phase: str) -> str:
        if kind in ("fire", "morale", "rally") and phase in self.PHASE_ORDERS and self.rng.random() < 0.8:
            return self.PHASE_ORDERS[phase]  # CD [13], [21], [21.4]: each in its phase
        return kind

    def unit(self, side: int) -> dict:
        kind = self.rng.choice(["us-rifle", "m4-sherman-75"] if side == 0 else ["ger-rifle", "ger-rifle"])
        return {"type": kind, "stats": {"company": self.rng.choice(self.COMPANIES[side])}}

    def correction(self) -> dict:
        return self.rng.choice([{"suppressed": True}, {"suppressed": False}])

    def rolling(self, kind: str, unit: str, friends: list[str], units: dict) -> dict:
        rng = self.rng
        if kind == "fire":
            enemies = [u for u in units if units[u].side != units[unit].side]
            return {"action": "fire", "firer": unit, "targets": rng.sample(enemies, k=min(len(enemies), 2)) or [unit],
                    "range_band": rng.choice(["close", "short", "medium"])}
        company = getattr(units[unit], "company", None) or "Able"
        return {"action": "morale" if kind == "morale" else "rally", "company": company}


SCRIPTS = {"asl": AslScript, "nhis": NhisScript, "cd": CdScript}
SIDE_NAMES = {"asl": ["Germans", "Russians"], "nhis": ["US", "Japan"], "cd": ["Americans", "Germans"]}


async def play(referee: Referee, channel: int, script: Script,
               restart: Callable[[], Awaitable[Referee]]) -> tuple[int, int, int]:
    """Play one random game, the bot restarting on the same file now and then (``restart``);
    returns (entries kept, rolling orders answered, undos accepted)."""
    rng = script.rng
    await referee.new_game(channel, GUILD, GM, script.ruleset, SIDE_NAMES[script.ruleset], scenario="Random game",
                           options={"manual_dice": "all"})  # a random share of the orders give their own dice
    for side, actor in SIDES.items():
        await referee.act(channel, actor, {"action": "join", "side": side, "player": actor.user_id,
                                           "approved_by": GM.user_id},
                          command="/game join")
    undos = rolled = 0
    for _ in range(ACTIONS):
        if rng.random() < 0.04:  # the game goes on from what the file holds
            referee = await restart()
        game = await referee.game(channel)
        for side, actor in SIDES.items():  # an undo may have reverted a player's join: they sit down again
            if actor.user_id not in game.sides[side].players:
                await referee.act(channel, actor, {"action": "join", "side": side, "player": actor.user_id,
                                           "approved_by": GM.user_id},
                                  command="/game join")
        if rng.random() < 0.12:
            proposer, answerer = rng.choice([(GERMAN, RUSSIAN), (RUSSIAN, GERMAN)])
            try:
                proposal = await referee.propose_undo(channel, proposer)
                answer = await referee.answer_undo(proposal.request.id, answerer, accept=True)
            except (RulesError, NotAllowed):
                continue  # nothing to undo, or a proposal this player may not make
            assert answer.status == "accepted", answer
            undos += 1
            report = await referee.verify(channel)
            assert report.ok, f"after undo #{undos}: {report.reason}"
            continue
        order, actor = script.order(game)
        rolling = order["action"] in ("fire", "morale", "rally")
        rolls = rolling or order["action"] in ("done", "phase")  # CD's initiative roll opens the Movement Phase
        try:
            await referee.act(channel, actor, order, dice=[rng.randint(1, 6) for _ in range(24)] if rolls else None,
                              command=f"/{order['action']}")
        except (RulesError, NotAllowed):
            continue  # refused whole: nothing changed, nothing logged
        rolled += rolling
    return (await referee.log(channel)).total, rolled, undos


@pytest.mark.parametrize("ruleset", list(SCRIPTS))
async def test_random_games_with_undos_verify_and_replay_to_the_live_game_in_its_order(tmp_path, ruleset):
    store = await open_store(tmp_path)
    referee = Referee(store)

    async def restart() -> Referee:
        nonlocal store, referee
        await store.close()
        store = await open_store(tmp_path)
        referee = Referee(store)
        return referee

    played = []
    try:
        for channel, seed in enumerate(seeds(), start=100):
            entries, rolled, undos = await play(referee, channel, SCRIPTS[ruleset](random.Random(seed)), restart)
            report = await referee.verify(channel)
            assert report.ok, f"{ruleset} seed {seed}: {report.reason}"
            live = await referee.game(channel)
            replayer = Replayer()
            stored = await store.load_active(channel)
            async for entry in store.iter_entries(stored.id):
                replayer.apply(entry.seq, entry.order, entry.dice, entry.manual)
            assert replayer.game == live, f"{ruleset} seed {seed}"
            assert (list(replayer.game.units), list(replayer.game.locations)) == \
                (list(live.units), list(live.locations)), f"{ruleset} seed {seed}"
            played.append((entries, rolled, undos))
    finally:
        await store.close()
    entries, rolled, undos = (sum(p[i] for p in played) for i in range(3))
    print(f"{ruleset}: {len(played)} random games, {entries} entries, {rolled} rolls answered, {undos} undos")
    assert undos >= len(played), played  # the games did exercise undo
    assert rolled >= len(played) * 3, played  # and the rules, not only set-up orders
