"""The rally attempts ASL offers as buttons (Ruleset.required_rolls, bot/core/required.py): the broken units
of the side holding its part of the Rally Phase that may try now (A10.6), each condition at and past its
threshold: tried this player turn or the one before, a Good Order or a broken leader in the Location, the
side's one MMC Self-Rally open or spent (A10.63); broken leaders first; only in the side's own part."""

from bot.core.api import resolve
from bot.core.dice import ScriptedDice
from bot.core.required import is_due, next_rolls
from bot.core.rulesets import get_ruleset
from bot.core.rulesets.asl.rally import player_turn
from bot.core.sequence import SEQUENCE

ASL = get_ruleset("asl")


def in_rph(builder, side: int = 0):
    """The game refereed in the RPh, ``side`` the ATTACKER holding its part."""
    game = builder.game
    game.sequence, game.step, game.to_act, game.active_side = SEQUENCE, 0, side, side
    return game


def offered(game):
    return [(n.value, n.label) for n in next_rolls(game, ASL)]


def test_a_broken_mmc_with_a_good_order_leader_and_a_broken_leader_are_offered_the_leader_first(asl_game):
    g = in_rph(asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5")
               .leader("L2", 0, "C5", broken=True).squad("A2", 0, "B5"))
    assert offered(g) == [("L2", "Rally 8-1 L2"), ("A1", "Rally 4-6-7 A1")]
    assert [n.roll.rule for n in next_rolls(g, ASL)] == ["A10.6", "A10.6"]


def test_a_unit_tried_this_player_turn_is_not_offered_one_tried_the_player_turn_before_is(asl_game):
    g = in_rph(asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5"))
    g.units["A1"].rallied_turn = player_turn(g)
    assert offered(g) == []
    g.units["A1"].rallied_turn = player_turn(g) - 1
    assert offered(g) == [("A1", "Rally 4-6-7 A1")]


def test_an_mmc_alone_is_offered_while_its_sides_self_rally_is_open_a10_63(asl_game):
    g = in_rph(asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).squad("A2", 0, "C6", broken=True))
    assert offered(g) == [("A1", "Rally 4-6-7 A1"), ("A2", "Rally 4-6-7 A2")]
    after = resolve(g, {"action": "rally", "unit": "A1"}, ScriptedDice([6, 6])).game  # the Self-Rally, spent
    assert offered(after) == []
    assert not is_due(after, ASL, "rally", "A2")


def test_with_a_broken_leader_only_an_mmc_may_still_self_rally_and_the_leader_himself(asl_game):
    g = in_rph(asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5", broken=True))
    assert offered(g) == [("L1", "Rally 8-1 L1"), ("A1", "Rally 4-6-7 A1")]  # L1 broken: A1 by Self-Rally


def test_good_order_eliminated_or_other_side_units_are_not_offered(asl_game):
    g = in_rph(asl_game(phase="RPh").squad("A1", 0, "B5").squad("A2", 0, "B5", broken=True, eliminated=True)
               .squad("R1", 1, "C5", broken=True).leader("L1", 0, "B5"))
    assert offered(g) == []


def test_only_in_the_holders_part_of_the_rally_phase(asl_game):
    g = in_rph(asl_game(phase="RPh").squad("A1", 0, "B5", broken=True).leader("L1", 0, "B5"))
    assert offered(g) == [("A1", "Rally 4-6-7 A1")]
    g.step, g.to_act = 1, 1  # the DEFENDER's part: the Russians have nobody broken
    assert offered(g) == []
    g.step, g.to_act, g.phase = 2, 0, "PFPh"  # no rally outside the RPh
    assert offered(g) == []
    g.step, g.to_act, g.phase = 0, 0, "RPh"
    g.sequence = None  # a game whose sequence is not refereed: no holder, no buttons
    assert offered(g) == []


def test_at_most_the_limit_in_order(asl_game):
    b = asl_game(phase="RPh").leader("L1", 0, "B5")
    for n in range(7):
        b.squad(f"A{n}", 0, "B5", broken=True)
    g = in_rph(b)
    assert [n.value for n in next_rolls(g, ASL)] == ["A0", "A1", "A2", "A3", "A4"]
    assert [n.value for n in next_rolls(g, ASL, limit=4)] == ["A0", "A1", "A2", "A3"]
