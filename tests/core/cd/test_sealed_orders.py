"""Sealed orders in Command Decision (issue 12; seed 004: orders are placed in the Command & Morale
Phase, 5A, and revealed in the Movement Phase, Side A first, 2D-2E; the Orders Summary then limits
each stand). The game option sealed_orders turns it on; the orders go through the core as the bot
gives them: ``check_sealable`` and ``note_sealed`` as they are sealed, ``reveal_sealed`` as they are
revealed, the sequence of play moved on with ``done`` and the initiative rolled with scripted dice."""

from __future__ import annotations

import pytest

from bot.core.api import new_game, resolve
from bot.core.dice import ScriptedDice
from bot.core.errors import IllegalOrder
from bot.core.game import Game, PendingSeal
from bot.core.rulesets.cd.models import CdStand
from bot.core.sealed import check_sealable, note_sealed, reveal_sealed, sealed_text

ORDERS = "CD Orders Summary [6.1, 7.1-7.3, 21.4]"
SEALING = "CD 5A, 2D-2E"
SEQUENCE = "CD sequence of play (seed 004)"
HOLD_A = {"action": "give_orders", "order": "hold", "company": "A"}  # the Americans' company
ADVANCE_P1 = {"action": "give_orders", "order": "cautious_advance", "stands": ["P1"]}  # a German stand
COMMAND_MORALE = 10  # the Command & Morale Phase, Side A: the step index in data/cd/sequence.yaml


def sealed_game(**options) -> Game:
    """A refereed CD game at the Command & Morale Phase of turn 1, the Americans Side A."""
    game = new_game("cd", sides=["Americans", "Germans"], scenario="Test", sequence=1,
                    options={"sealed_orders": True} | options)
    for uid, side, company in (("S1", 0, "A"), ("S2", 0, "A"), ("P1", 1, "G")):
        game.units[uid] = CdStand(id=uid, side=side, location="X", name="Rifles", type="custom", company=company,
                                  weapon_class="S", to_hit={"short": 6})
    game.step, game.phase, game.to_act = COMMAND_MORALE, "CommandMorale", 0
    return game


def done(game: Game, side: int, dice: list[int] = ()) -> Game:
    return resolve(game, {"action": "done", "side": side}, ScriptedDice(list(dice))).game


def seal(game: Game, seq: int, side: int, order: dict):
    check_sealable(game, order)
    return note_sealed(game, seq, side)


def both_sealed_into_movement() -> Game:
    """Americans seal Hold for company A (#5), Germans Cautious Advance for P1 (#7); turn 2's
    initiative d10s are 3 (Americans) and 7 (Germans): the Germans are Side A."""
    game, _ = seal(sealed_game(), 5, 0, HOLD_A)
    game = done(game, 0)
    game, _ = seal(game, 7, 1, ADVANCE_P1)
    for side, dice in ((1, []), (0, []), (1, [3, 7]), (1, []), (0, [])):  # to Side A's moves
        game = done(game, side, dice)
    assert (game.turn, game.phase, game.to_act, game.initiative) == (2, "Movement", 1, 1)
    return game


def test_an_open_order_is_refused_while_the_game_seals_its_orders():
    with pytest.raises(IllegalOrder) as refused:
        resolve(sealed_game(), HOLD_A, ScriptedDice([]))
    assert str(refused.value) == (
        "this game seals its orders (game option sealed_orders): give it with sealed:yes, e.g. /orders order:hold "
        "... sealed:yes; it stays hidden until you reveal it in the Movement Phase, Side A first, as each side "
        "moves (CD 5A, 2D-2E)")
    assert refused.value.rule == SEALING


def test_without_the_option_orders_are_open_and_nothing_is_sealed():
    game = sealed_game(sealed_orders=False)
    assert resolve(game, HOLD_A, ScriptedDice([])).game.units["S1"].order == "hold"
    with pytest.raises(IllegalOrder, match="this game gives its orders openly: give it without sealed"):
        check_sealable(game, HOLD_A)


def test_sealing_checks_the_order_privately_and_keeps_only_who_sealed_it():
    game = sealed_game()
    with pytest.raises(IllegalOrder, match="Americans may not give orders now"):  # in the Germans' part
        check_sealable(done(game, 0), HOLD_A)
    with pytest.raises(IllegalOrder, match="orders are placed only in the Command & Morale Phase"):
        check_sealable(game.model_copy(update={"phase": "GeneralFire", "step": 8}), HOLD_A)
    after, notes = seal(game, 5, 0, HOLD_A)
    assert after.sealed == [PendingSeal(seq=5, side=0, turn=1)]
    assert notes == [("Americans will reveal it in the Movement Phase, Side A first, as each side moves; until then "
                      "its stands keep the order they are under", SEALING)]
    assert after.units["S1"].order is None and "hold" not in after.model_dump_json()  # nothing of the order


def test_a_sealed_order_is_not_revealed_before_the_next_movement_phase():
    game, _ = seal(sealed_game(), 5, 0, HOLD_A)
    with pytest.raises(IllegalOrder) as refused:
        reveal_sealed(game, 5, sealed_text(HOLD_A))
    assert str(refused.value) == (
        "orders sealed in the Command & Morale Phase are revealed in the next turn's Movement Phase, Side A first "
        "(CD 5A, 2D-2E); this is the Command & Morale Phase of turn 1: Americans reveal #5 then")


def test_side_b_reveals_only_after_side_a_and_side_a_only_as_it_moves():
    game = both_sealed_into_movement()
    with pytest.raises(IllegalOrder) as early:  # the Americans are Side B this turn
        reveal_sealed(game, 5, sealed_text(HOLD_A))
    assert str(early.value) == ("Side A (Germans) reveal their orders first (CD 5A, 2D-2E): #7 still sealed; "
                                "Americans reveal theirs when they move, after Side A's are open")
    with pytest.raises(IllegalOrder) as ending:  # Side A may not end its move with its orders sealed
        done(game, 1)
    assert str(ending.value) == ("Germans still have sealed orders to reveal (#7): /reveal sealed:7 first; a side "
                                 "reveals its orders as it moves (CD 5A, 2D-2E)")


def test_a_revealed_order_applies_now_with_its_trail_and_limits_the_stand():
    game = both_sealed_into_movement()
    revealed = reveal_sealed(game, 7, sealed_text(ADVANCE_P1))
    assert [(s.kind, s.label, s.rule) for s in revealed.outcome.trail] == [
        ("section", "Orders for Rifles P1: Cautious Advance", ORDERS),
        ("note", "Cautious Advance: moves up to 1x its movement; Prep or Op Fire: no; General Fire: yes", ORDERS),
        ("note", "Revealed in the Movement Phase: the order applies from now, this turn (CD 5A, 2D-2E)", SEALING),
        ("effect", "Rifles P1: under a Cautious Advance order from now (revealed)", ORDERS),
    ]
    moved = resolve(revealed.game, {"action": "move", "stands": ["P1"], "to": "Y"}, ScriptedDice([]))
    assert ("note", "Rifles P1: Cautious Advance, moves up to 1x its movement", ORDERS) in [
        (s.kind, s.label, s.rule) for s in moved.outcome.trail]
    game = done(moved.game, 1)  # Side A's moves end; the Americans' begin
    americans = reveal_sealed(game, 5, sealed_text(HOLD_A))
    assert americans.outcome.headline == "company A: Hold"
    game = americans.game
    assert game.sealed == [] and [game.units[s].order for s in ("S1", "S2", "P1")] == ["hold", "hold",
                                                                                       "cautious_advance"]
    with pytest.raises(IllegalOrder) as held:  # Hold: no move
        resolve(game, {"action": "move", "stands": ["S1"], "to": "Y"}, ScriptedDice([]))
    assert str(held.value) == f"Rifles S1 is under a Hold order: it does not move ({ORDERS})"
    game = done(game, 0)  # on to the Op Fire Phase, the Germans' (Side A) part: Cautious Advance, no Op Fire
    with pytest.raises(IllegalOrder) as no_op_fire:
        resolve(game, {"action": "fire", "firer": "P1", "targets": ["S1"], "range_band": "short"}, ScriptedDice([]))
    assert str(no_op_fire.value) == f"Rifles P1 is under a Cautious Advance order: no Prep or Op Fire ({ORDERS})"


def test_a_sides_orders_open_in_the_order_they_were_sealed():
    game, _ = seal(sealed_game(), 5, 0, HOLD_A)
    game, _ = seal(game, 6, 0, {"action": "give_orders", "order": "hasty_advance", "stands": ["S2"]})
    game = done(game, 0)
    for side, dice in ((1, []), (0, []), (1, [7, 3]), (0, []), (1, [])):  # Americans Side A, moving
        game = done(game, side, dice)
    with pytest.raises(IllegalOrder, match=r"Americans sealed #5 before #6: /reveal sealed:5 first \(a side's sealed "
                                           r"orders open in the order they were sealed \(assumed\)\)"):
        reveal_sealed(game, 6, "{}")
    game = reveal_sealed(game, 5, sealed_text(HOLD_A)).game
    later = reveal_sealed(game, 6, sealed_text({"action": "give_orders", "order": "hasty_advance", "stands": ["S2"]}))
    assert ("note", "Rifles S2: a later sealed order replaces the Hold revealed before it (a side's sealed orders "
                    "open in the order they were sealed, the later one standing (assumed))") in [
        (s.kind, s.label) for s in later.outcome.trail]
    assert later.game.units["S2"].order == "hasty_advance" and later.game.units["S1"].order == "hold"


def test_a_revealed_text_that_is_no_order_is_opened_and_changes_nothing():
    game = both_sealed_into_movement()
    revealed = reveal_sealed(game, 7, "advance on the church")
    assert revealed.game.sealed == [PendingSeal(seq=5, side=0, turn=1)]
    assert revealed.game.units["P1"].order is None
    [note] = revealed.outcome.trail
    assert note.label.startswith("The order sealed at #7 cannot stand now (") and note.rule == SEALING


def test_a_plain_sealed_text_is_not_an_order_to_apply():
    assert reveal_sealed(both_sealed_into_movement(), 3, "a hidden set-up") is None
