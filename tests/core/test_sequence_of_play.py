"""bot/core/sequence.py on its own (issue 28, item 9): the sequence of play of each ruleset, resolved
through the core with scripted dice, no bot, no store. Who holds each step, how /done hands it on,
the clean-ups at a phase's end, the player turn and the game turn passing, NHiS's impulses and two
passes, CD's initiative roll deciding Side A, a request to end a step answered by its holder, and
an order out of turn refused saying when that side may give it. (tests/cogs/test_sequence.py plays
the same end to end through the bot.)"""

from __future__ import annotations

import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder
from bot.core.rulesets import BUILT_IN, get_ruleset
from bot.core.sequence import SEQUENCE, allowed_sides, current, load, side_to_act, step_name

SIDES = {"asl": ["Germans", "Russians"], "nhis": ["US", "Japan"], "cd": ["Americans", "Germans"]}


def game_of(ruleset: str):
    return new_game(ruleset, sides=SIDES[ruleset], sequence=SEQUENCE)


def done(game, side: int | None = None, dice: list[int] | None = None, **extra):
    """The holder (or ``side``) ends its part: the game after it and the outcome."""
    result = resolve(game, {"action": "done", "side": side_to_act(game) if side is None else side, **extra},
                     ScriptedDice(list(dice or [])))
    return result.game, result.outcome


def where(game) -> tuple[str, str, int]:
    """(phase, the step as players read it, the side to act)."""
    return game.phase, step_name(game, get_ruleset(game.ruleset)), side_to_act(game)


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_a_new_game_stands_at_the_first_step_its_holder_to_act(ruleset):
    game = game_of(ruleset)
    steps = load(ruleset).steps
    assert (game.sequence, game.step, game.phase) == (SEQUENCE, 0, steps[0].phase)
    assert current(game, get_ruleset(ruleset)) == steps[0] and side_to_act(game) == 0


# --- ASL (A3): the attacker's player turn, then the defender's; then the next game turn ----------

ASL_TURN = [
    ("RPh", "Rally Phase, ATTACKER's part", 0), ("RPh", "Rally Phase, DEFENDER's part", 1),
    ("PFPh", "Prep Fire Phase", 0), ("MPh", "Movement Phase", 0), ("DFPh", "Defensive Fire Phase", 1),
    ("AFPh", "Advancing Fire Phase", 0), ("RtPh", "Rout Phase, ATTACKER's part", 0),
    ("RtPh", "Rout Phase, DEFENDER's part", 1), ("APh", "Advance Phase", 0), ("CCPh", "Close Combat Phase", 0),
]


def test_asl_each_step_is_held_by_its_side_and_the_player_turn_then_the_game_turn_passes():
    game = game_of("asl")
    seen = [where(game)]
    for _ in range(len(ASL_TURN) - 1):
        game, _ = done(game)
        seen.append(where(game))
    assert seen == ASL_TURN
    game, outcome = done(game)  # the CCPh ends the Germans' player turn: the Russians attack now
    assert (game.turn, game.active_side) == (1, 1)
    assert where(game) == ("RPh", "Rally Phase, ATTACKER's part", 1)
    assert outcome.headline == "Turn 1, Rally Phase, ATTACKER's part: Russians to act"
    for _ in range(len(ASL_TURN)):
        game, _ = done(game)
    assert (game.turn, game.active_side, game.step) == (2, 0, 0)  # both player turns played: turn 2


def test_asl_only_the_holder_ends_a_step_and_the_other_side_may_ask():
    game = game_of("asl")
    with pytest.raises(IllegalOrder, match=r"^Germans hold the Rally Phase, ATTACKER's part: only they end it "
                                           r"\(or the game master\); Russians may ask them to$"):
        done(game, side=1)
    asked, outcome = done(game, side=1, answer="ask")
    assert outcome.headline == "Turn 1, Russians ask Germans to end the Rally Phase, ATTACKER's part"
    assert (asked.asked_by, asked.step) == (1, 0)
    kept, outcome = done(asked, side=0, answer="refuse")
    assert outcome.headline == "Turn 1, Germans keep the Rally Phase, ATTACKER's part"
    assert (kept.asked_by, kept.step) == (None, 0)
    with pytest.raises(IllegalOrder, match="^nobody asked Germans to end the Rally Phase, ATTACKER's part$"):
        done(kept, side=0, answer="refuse")
    with pytest.raises(IllegalOrder, match=r"^Germans hold the Rally Phase, ATTACKER's part: /done ends it$"):
        done(game, side=0, answer="ask")


def test_asl_who_may_fire_in_each_step_and_morale_at_any_time():
    asl = get_ruleset("asl")
    game = game_of("asl")
    steps = load("asl").steps
    fire = [sorted(allowed_sides(game, asl, step, "fire")) for step in steps]
    assert fire == [[], [], [0], [1], [1], [0], [], [], [], []]  # Prep, Defensive First, Defensive, Advancing
    assert all(allowed_sides(game, asl, step, "morale") == {0, 1} for step in steps)  # A3's "always"


def test_asl_an_order_out_of_turn_is_refused_saying_when_that_side_may_give_it():
    game = game_of("asl")
    for _ in range(2):
        game, _ = done(game)  # to the PFPh
    added = resolve(game, {"action": "unit_add", "id": "R1", "side": 1, "location": "B5", "type": "rus-447"}).game
    added = resolve(added, {"action": "unit_add", "id": "A1", "side": 0, "location": "A4", "type": "ger-467"}).game
    with pytest.raises(IllegalOrder) as refused:
        resolve(added, {"action": "fire", "firers": ["R1"], "target": "A4", "range": 1}, ScriptedDice([6, 6]))
    assert str(refused.value) == (
        "it is the Prep Fire Phase, Germans to act: Russians may not fire now (A3); Russians may fire in the "
        "Movement Phase and Defensive Fire Phase of this turn")


# --- NHiS: each side's Rally part, then alternating impulses, two passes in a row end them -------

def test_nhis_impulses_alternate_and_two_passes_in_a_row_end_the_operations_phase():
    game = game_of("nhis")
    assert where(game) == ("Rally", "Rally Phase, first side", 0)
    game, _ = done(game)
    assert where(game) == ("Rally", "Rally Phase, second side", 1)
    game, _ = done(game)
    assert where(game) == ("Operations", "Operations Phase, impulse 1", 0) and game.passes == 0
    game, outcome = done(game)  # US give no order: a pass
    assert "US pass (Operations Phase, impulse 1)" in [s.label for s in outcome.trail]
    assert where(game) == ("Operations", "Operations Phase, impulse 2", 1) and game.passes == 1
    acted = game.model_copy(update={"acted": True})  # Japan gave an order in its impulse: not a pass
    game, outcome = done(acted)
    assert "Japan end their impulse (Operations Phase, impulse 2)" in [s.label for s in outcome.trail]
    assert where(game) == ("Operations", "Operations Phase, impulse 3", 0) and game.passes == 0
    game, _ = done(game)  # a pass
    game, outcome = done(game)  # a second pass in a row: the phase ends
    assert "Both sides passed in a row: the Operations Phase ends" in [s.label for s in outcome.trail]
    assert where(game) == ("Administrative", "Administrative Phase", 0)
    game, _ = done(game)
    assert (game.turn, where(game)) == (2, ("Rally", "Rally Phase, first side", 0))


def test_nhis_one_pass_then_an_impulse_with_an_order_does_not_end_the_phase():
    game = game_of("nhis")
    game, _ = done(game)
    game, _ = done(game)
    game, _ = done(game)  # US pass
    game, _ = done(game.model_copy(update={"acted": True}))  # Japan act
    game, _ = done(game)  # US pass: one in a row, not two
    assert game.phase == "Operations" and game.passes == 1 and game.impulse == 4


# --- CD: Side A then Side B in every phase; the Movement Phase opens with the initiative roll ----

def test_cd_the_initiative_roll_decides_side_a_and_every_roll_is_in_the_trail():
    game = game_of("cd")
    assert where(game) == ("Artillery", "Artillery & Air Phase, Side A", 0)
    game, _ = done(game)
    assert where(game)[2] == 1
    game, outcome = done(game, dice=[3, 3, 2, 9])  # a tie, rolled again: the Germans (9) are Side A
    rolls = [(s.label, s.value) for s in outcome.trail if s.kind == "dice"]
    assert rolls == [("Americans d10", 3), ("Germans d10", 3), ("Americans d10", 2), ("Germans d10", 9)]
    assert where(game) == ("Movement", "Movement Phase, Side A prep fire", 1)
    game, _ = done(game)
    assert where(game) == ("Movement", "Movement Phase, Side B prep fire", 0)


def test_cd_the_turn_cycles_through_its_five_phases_side_a_then_side_b():
    game = game_of("cd")
    phases = []
    for _ in range(len(load("cd").steps)):
        phases.append((game.phase, side_to_act(game)))
        game, _ = done(game, dice=[6, 3] if game.step == 1 else None)  # the Americans win the initiative
    assert phases == [(p, s) for p in ("Artillery",) for s in (0, 1)] + [
        ("Movement", 0), ("Movement", 1), ("Movement", 0), ("Movement", 1)] + [
        (p, s) for p in ("OpFire", "GeneralFire", "CommandMorale") for s in (0, 1)]
    assert (game.turn, game.phase, game.step) == (2, "Artillery", 0)


def test_a_game_without_a_refereed_sequence_refuses_done_and_names_the_way_on():
    game = new_game("asl", sides=SIDES["asl"])  # a game logged before the sequence was refereed
    with pytest.raises(IllegalOrder, match=r"does not referee the sequence of play .*: move on with /game phase$"):
        done(game, side=0)


def test_a_request_to_end_a_step_is_answered_by_the_holders_players_seated_before_it():
    from bot.core.sequence import Done

    game = resolve(game_of("asl"), {"action": "join", "side": 0, "player": 11, "approved_by": 99}).game
    asked, _ = done(game, side=1, answer="ask")
    assert asked.asked_of == [11]  # the Germans' players seated when the Russians asked
    late = resolve(asked, {"action": "join", "side": 0, "player": 12, "approved_by": 99}).game
    refusal = ("Germans were asked to end this step before you took your seat: one of their players seated then "
               "(or the game master) answers")
    assert Done.refusal_for(late, 12, False, {"action": "done", "side": 0}) == refusal
    assert Done.refusal_for(late, 11, False, {"action": "done", "side": 0}) is None
    assert Done.refusal_for(late, 12, True, {"action": "done", "side": 0}) is None  # the game master
    assert Done.refusal_for(late, 12, False, {"action": "done", "side": 0, "answer": "ask"}) is None
    assert Done.refusal_for(game, 12, False, {"action": "done", "side": 0}) is None  # nothing asked
