"""Random games, undos included, always verify: the replay of the log is the live game.

Each game is played through the service on a real SQLite file by a seeded random script: units
added (and removed, and added again) with ids in no particular order, moves, terrain set, the
game master's corrections, fire, morale checks, rallies, phases, and undos proposed by one
player and accepted by the other. Orders the rules refuse are part of the game
(a player tries them); the referee answers the rest with the script's own dice (manual dice).
After every undo, and at the end, ``/log verify`` must pass, and the game rebuilt from the log
must equal the live one, the order of its units and Locations included (that order is game
state no hash covers: a stack is listed in it; an undo's replay once restored it sorted by id,
and the next result listing that stack failed verify as if tampered).

Games: 6 of 70 actions by default, 40 of 150 with REFEREE_FULL_RELIABILITY=1 (fresh seeds each
full run; a failure prints its seed, ``REFEREE_RELIABILITY_SEED=N`` replays it).
"""

from __future__ import annotations

import os
import random
import secrets

from bot.core.errors import RulesError
from bot.service import NotAllowed, Referee
from bot.store.replay import Replayer
from tests.reliability.audit import FULL, size
from tests.store.helpers import GERMAN, GM, GUILD, RUSSIAN, open_store

GAMES = size(6, 40)
ACTIONS = size(70, 150)
IDS = ["G7", "A3", "R9", "B1", "Z2", "C5", "M4", "E8", "K1", "Q6"]  # neither sorted nor reversed
HEXES = ["B5", "C5", "D6"]
SIDES = {0: GERMAN, 1: RUSSIAN}


def seeds() -> list[int]:
    if os.environ.get("REFEREE_RELIABILITY_SEED"):
        return [int(os.environ["REFEREE_RELIABILITY_SEED"])]
    base = secrets.randbits(32) if FULL else 20261123  # the default (CI) run is derandomized
    return [base + i for i in range(GAMES)]


def random_order(rng: random.Random, units: dict) -> tuple[dict, object]:
    """(order, actor): one thing a player or the game master might do now."""
    ours = list(units)
    kind = rng.choices(["add", "move", "remove", "terrain", "edit", "fire", "morale", "rally", "phase"],
                       [3, 2, 1, 1, 1, 4, 3, 1, 2])[0]
    if kind == "add" or not ours:
        side = rng.randrange(2)
        stats = {"kind": "leader", "name": "8-1", "morale": 8, "leadership": -1} if rng.random() < 0.2 else \
            {"kind": "squad", "name": "4-6-7", "fp": 4, "range": 6, "morale": 7}
        return {"action": "unit_add", "id": rng.choice(IDS), "side": side, "location": rng.choice(HEXES),
                "stats": stats}, GM
    unit = rng.choice(ours)
    side = units[unit].side
    if kind == "move":
        return {"action": "unit_move", "unit": unit, "location": rng.choice(HEXES)}, GM
    if kind == "remove":  # an id removed and added again goes to the end of the order
        return {"action": "unit_remove", "unit": unit}, GM
    if kind == "terrain":
        return {"action": "location_set", "location": rng.choice(HEXES + ["A1", "F2"]),
                "terrain": rng.choice(["open", "woods", "stone building"])}, GM
    if kind == "edit":  # the game master's correction
        return {"action": "unit_edit", "unit": unit, "changes": rng.choice(
            [{"broken": True}, {"broken": False}, {"pinned": True}, {"morale": rng.randint(6, 8)}])}, GM
    if kind == "fire":
        firers = rng.sample([u for u in ours if units[u].side == side], k=1)
        return {"action": "fire", "firers": firers, "target": rng.choice(HEXES), "range": rng.randint(1, 3)}, SIDES[side]
    if kind == "morale":
        return {"action": "morale", "unit": unit, "check": rng.choice(["NMC", "MC", "PTC"]),
                **({"n": rng.randint(1, 3)} if rng.random() < 0.3 else {})}, SIDES[side]
    if kind == "rally":
        return {"action": "rally", "unit": unit}, SIDES[side]
    return {"action": "phase"}, GM


async def play(referee: Referee, channel: int, rng: random.Random) -> tuple[int, int]:
    """Play one random game; returns (entries kept, undos accepted)."""
    await referee.new_game(channel, GUILD, GM, "asl", ["Germans", "Russians"], scenario="Random game")
    for side, actor in SIDES.items():
        await referee.act(channel, actor, {"action": "join", "side": side, "player": actor.user_id},
                          command="/game join")
    undos = 0
    for _ in range(ACTIONS):
        game = await referee.game(channel)
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
        order, actor = random_order(rng, game.units)
        dice = [rng.randint(1, 6) for _ in range(24)]
        try:
            await referee.act(channel, actor, order, dice=dice if order["action"] in ("fire", "morale", "rally")
                              else None, command=f"/{order['action']}")
        except (RulesError, NotAllowed):
            pass  # refused whole: nothing changed, nothing logged
    return (await referee.log(channel)).total, undos


async def test_random_games_with_undos_verify_and_replay_to_the_live_game_in_its_order(tmp_path):
    store = await open_store(tmp_path)
    referee = Referee(store)
    played = []
    try:
        for channel, seed in enumerate(seeds(), start=100):
            entries, undos = await play(referee, channel, random.Random(seed))
            report = await referee.verify(channel)
            assert report.ok, f"seed {seed}: {report.reason}"
            live = await referee.game(channel)
            replayer = Replayer()
            stored = await store.load_active(channel)
            async for entry in store.iter_entries(stored.id):
                replayer.apply(entry.seq, entry.order, entry.dice, entry.manual)
            assert replayer.game == live, f"seed {seed}"
            assert (list(replayer.game.units), list(replayer.game.locations)) == \
                (list(live.units), list(live.locations)), f"seed {seed}"
            played.append((entries, undos))
    finally:
        await store.close()
    print(f"{len(played)} random games: {sum(e for e, _ in played)} entries, {sum(u for _, u in played)} undos")
    assert sum(u for _, u in played) >= len(played), played  # the games did exercise undo
    assert sum(e for e, _ in played) > len(played) * ACTIONS // 3, played  # and mostly legal orders
