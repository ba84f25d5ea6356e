"""The game option manual_dice (issue 28, item 7): who may give their own dice.

``all``: every player (the behaviour of every game logged before the option, which replays as
played); ``gm``: only the game master; ``none``: nobody, the bot draws every die (committed,
re-derived by the audit). A game created now takes ``none`` unless its options say otherwise: a
table that throws real dice says ``options:manual_dice=all`` at /game new. A refused order rolls
nothing and logs nothing (``table.refused``).
"""

from __future__ import annotations

import pytest

from bot.core.options import general
from bot.core.rulesets import get_ruleset, names
from bot.record.replay import creation_order, game_from_creation
from tests.cogs.conftest import ALICE, BOB, GM
from tests.cogs.helpers import asl_game, last_entry

FIRE = {"firers": "A1", "target": "B5", "range": 2}
NONE = ("this game's option manual\\_dice=none: the bot draws every die; leave dice: out (the game master may allow "
        "manual dice with /game options set:manual\\_dice=all)")
GM_ONLY = ("this game's option manual\\_dice=gm: only the game master gives manual dice; leave dice: out and the bot "
           "draws them")


async def set_option(table, value: str) -> None:
    changed = await table.as_gm("game options", {"set": f"manual_dice={value}"})
    assert not changed.ephemeral, changed.embeds


async def test_a_game_created_now_takes_none_and_refuses_a_players_dice_in_one_line(table):
    created = await table.as_gm("game new", {"ruleset": "cd", "sides": "Americans, Germans"})
    assert not created.ephemeral, created.embeds
    assert (await table.game()).options["manual_dice"] == "none"
    assert (await last_entry(table)).order["options"]["manual_dice"] == "none"  # entry 1 keeps it: it replays so
    await table.seat(ALICE, "Americans")
    assert await table.refused("game phase", {"to": "Movement", "dice": "6 3"}, user=GM) == NONE
    moved = await table.as_gm("game phase", {"to": "Movement"})  # the bot draws the initiative
    assert not moved.ephemeral, moved.embeds
    assert not (await last_entry(table)).manual


async def test_none_refuses_everyone_and_all_lets_every_player_throw_their_own(table):
    await asl_game(table)  # tests/cogs/helpers.py creates its games with manual_dice=all
    await set_option(table, "none")
    assert await table.refused("fire", {**FIRE, "dice": "6 6"}) == NONE
    await set_option(table, "all")
    fired = await table.send("fire", {**FIRE, "dice": "6 6"})
    assert not fired.ephemeral, fired.embeds
    assert (await last_entry(table)).manual


async def test_gm_lets_the_game_master_alone_give_dice(table):
    await asl_game(table)
    await set_option(table, "gm")
    assert await table.refused("fire", {**FIRE, "dice": "6 6"}, user=ALICE) == GM_ONLY
    fired = await table.send("fire", FIRE, user=ALICE)  # the bot's dice stay allowed
    assert not fired.ephemeral, fired.embeds
    by_gm = await table.as_gm("fire", {"firers": "A2", "target": "B5", "range": 2, "dice": "6 6"})
    assert not by_gm.ephemeral, by_gm.embeds
    assert (await last_entry(table)).manual


def test_a_game_logged_before_the_option_replays_with_every_players_dice_allowed():
    option = general("manual_dice")
    assert option.default == "all" and option.created == "none"
    logged = creation_order("asl", ["Germans", "Russians"], "", None, {}, GM)
    del logged["options"]["manual_dice"]  # entry 1 of a game created before the option
    assert "manual_dice" not in game_from_creation(logged).options  # the catalogue's default, all, applies
    given = creation_order("asl", ["Germans", "Russians"], "", None, {"manual_dice": "gm"}, GM)
    assert given["options"]["manual_dice"] == "gm"  # what the creator gave wins over the new-game default


@pytest.mark.parametrize("value", ["all", "gm", "none"])
def test_each_value_is_a_valid_choice_for_every_ruleset(value):
    from bot.core.options import check_options
    for name in names():
        assert check_options(get_ruleset(name), {"manual_dice": value}, None) == {"manual_dice": value}


async def test_default_gives_the_value_of_a_game_created_now_not_the_old_games_all(table):
    await asl_game(table)  # manual_dice=all
    await set_option(table, "default")
    assert (await table.game()).options["manual_dice"] == "none"
    assert await table.refused("fire", {**FIRE, "dice": "6 6"}) == NONE
