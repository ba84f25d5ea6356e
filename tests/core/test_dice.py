"""Dice sources and the record of every roll (DESIGN.md: randomness is passed in)."""

import pytest

from bot.core.dice import Roller, ScriptedDice, SeededDice, SystemDice, dice_source
from bot.core.errors import InvalidOrder


def test_asl_dr_keeps_white_and_colored_apart():
    roller = Roller(ScriptedDice([3, 5]))
    roll = roller.DR("IFT attack")
    assert (roll.white, roll.colored, roll.total) == (3, 5, 8)
    assert roll.describe() == "DR 8 (white 3, colored 5)"
    assert roller.rolls == [roll]


def test_doubles_are_seen_on_the_original_dice():
    assert Roller(ScriptedDice([4, 4])).DR("x").doubles
    assert not Roller(ScriptedDice([4, 3])).DR("x").doubles


def test_scripted_dice_running_out_is_an_invalid_order_not_a_random_die():
    roller = Roller(ScriptedDice([2]))
    with pytest.raises(InvalidOrder, match="ran out") as err:
        roller.DR("IFT attack")
    assert err.value.field == "dice"


def test_scripted_die_out_of_range_names_the_die():
    with pytest.raises(InvalidOrder, match="die #2 given is 7, but a d6 reads 1 to 6"):
        Roller(ScriptedDice([1, 7])).two_d6("fire")


def test_d10_accepts_ten():
    assert Roller(ScriptedDice([10])).d10("hit").total == 10


def test_unused_scripted_dice_are_visible():
    source = ScriptedDice([1, 2, 3])
    Roller(source).d6("x")
    assert source.remaining == [2, 3]


def test_seeded_dice_replay_the_same_sequence_without_touching_the_global_rng():
    import random

    state = random.getstate()
    a = [SeededDice(42).draw(6) for _ in range(1)]
    s1, s2 = SeededDice("game-1"), SeededDice("game-1")
    assert [s1.draw(6) for _ in range(50)] == [s2.draw(6) for _ in range(50)]
    assert random.getstate() == state
    assert 1 <= a[0] <= 6


def test_system_dice_cover_every_face_and_nothing_else():
    dice = SystemDice()
    seen = {dice.draw(6) for _ in range(2000)}
    assert seen == {1, 2, 3, 4, 5, 6}
    assert {dice.draw(10) for _ in range(3000)} == set(range(1, 11))


def test_dice_source_is_manual_only_when_dice_are_given():
    assert dice_source([3, 4]).manual is True
    assert dice_source(None).manual is False
    assert dice_source([]).manual is False
