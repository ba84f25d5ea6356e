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


def test_a_die_running_out_in_the_middle_of_a_dr_names_the_dice_still_needed():
    roller = Roller(ScriptedDice([4]))
    roller.d6("first")
    with pytest.raises(InvalidOrder, match=r"\(1 given\) at roll 2, the DR for IFT attack: give at least 2 more"):
        roller.DR("IFT attack")
    roller = Roller(ScriptedDice([4, 5, 6]))
    roller.DR("first")
    with pytest.raises(InvalidOrder, match=r"\(3 given\) at roll 2, the DR for IFT attack: give at least 1 more"):
        roller.DR("IFT attack")


def test_a_shared_roll_is_the_roll_validation_builds_and_the_cache_stays_bounded(monkeypatch):
    # equal Rolls are one (frozen) object: the same fields, types, fields-set, JSON and repr as Roll(...)
    from bot.core import dice as dice_module
    from bot.core.dice import Roll

    dice_module._ROLLS.clear()
    first, again = Roller(ScriptedDice([3, 5])).DR("IFT attack"), Roller(ScriptedDice([3, 5])).DR("IFT attack")
    assert again is first
    validated = Roll(kind="DR", purpose="IFT attack", dice=(3, 5))
    assert list(first.__dict__.items()) == list(validated.__dict__.items())
    assert [type(v) for v in first.dice] == [int, int]
    assert first.model_fields_set == validated.model_fields_set
    assert (repr(first), first.model_dump_json()) == (repr(validated), validated.model_dump_json())
    # the faces, the kind and the purpose all tell Rolls apart
    others = [Roller(ScriptedDice([5, 3])).DR("IFT attack"), Roller(ScriptedDice([3, 5])).two_d6("IFT attack"),
              Roller(ScriptedDice([3, 5])).DR("MC A1")]
    assert len({id(r) for r in [first, *others]}) == 4
    assert [(r.kind, r.purpose, r.dice) for r in others] == [
        ("DR", "IFT attack", (5, 3)), ("2d6", "IFT attack", (3, 5)), ("DR", "MC A1", (3, 5))]
    monkeypatch.setattr(dice_module, "ROLL_CACHE_SIZE", 3)
    for face in range(1, 11):
        Roller(ScriptedDice([face])).d10("hit")
    assert len(dice_module._ROLLS) <= 3


def test_a_face_true_or_a_str_subclass_purpose_finds_the_roll_validation_builds():
    # the Roll is looked up before its exactness check: True == 1 and a str subclass equals its str,
    # and validation makes a face True into 1 and the purpose into a plain str: the same Roll
    from bot.core import dice as dice_module
    from bot.core.dice import Roll

    class Purpose(str):
        pass

    dice_module._ROLLS.clear()
    shared = Roller(ScriptedDice([1])).dr("x")
    roller = Roller(ScriptedDice([1]))
    found = roller._record("dr", Purpose("x"), [True])
    assert found is shared and roller.rolls == [shared]
    validated = Roll(kind="dr", purpose=Purpose("x"), dice=(True,))
    assert (repr(found), found.model_dump_json()) == (repr(validated), validated.model_dump_json())
    # not in the cache: validated, not kept; something unhashable refused
    dice_module._ROLLS.clear()
    fresh = Roller(ScriptedDice([]))._record("dr", Purpose("y"), [True])
    assert type(fresh.purpose) is str and fresh.dice == (1,) and type(fresh.dice[0]) is int
    assert dice_module._ROLLS == {}
    with pytest.raises(Exception):
        Roller(ScriptedDice([]))._record("dr", "z", [[1]])
    assert dice_module._ROLLS == {}


@pytest.mark.parametrize("given", [[], [3], [3, 4], [3, 4, 5], [1, 2, 3, 4, 5, 6]])
def test_dr_and_dr_written_out_roll_and_refuse_as_the_general_draw(given):
    # Roller.DR and Roller.dr draw their dice without the general _draw's loop: the same Roll (the
    # shared one), the same dice drawn, and when the manual dice run out the same refusal
    def outcome(roll):
        roller = Roller(ScriptedDice(given))
        got = []
        try:
            for _ in range(3):
                got.append(roll(roller))
        except InvalidOrder as exc:
            got.append((exc.message, exc.field))
        return got, roller.rolls, roller.source.position

    for kind, sides, count in (("DR", 6, 2), ("dr", 6, 1)):
        fast = outcome(lambda r: getattr(r, kind)("IFT attack"))
        slow = outcome(lambda r: r._draw(kind, "IFT attack", sides, count))
        assert fast == slow
        assert all(a is b for a, b in zip(fast[1], slow[1]))  # the shared Rolls themselves
