"""Bulk set-up commands (issue 16): several units in one /unit add (a count, or a list of ids), a
whole stack moved or edited at once. Each is one order and one log entry, keeps every guard of the
single command (the unit cap, the set-up's stacking limit, who may give it), and is refused whole
with the unit that fails named."""

from __future__ import annotations

from bot.core.setup import MAX_UNITS

from tests.cogs.conftest import ALICE, BOB, GM


async def setup_table(table):
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    await table.seat(ALICE, "Germans")
    await table.seat(BOB, "Russians")


async def entries(table) -> int:
    return (await table.bot.referee.log(table.channel)).total


async def test_a_count_adds_numbered_units_in_one_entry(table):
    await setup_table(table)
    before = await entries(table)
    reply = await table.send("unit add", {"id": "A", "count": 3, "side": "Germans", "type": "ger-467",
                                          "location": "B3"}, user=ALICE)
    assert not reply.ephemeral, reply.embeds
    assert reply.embeds[0]["title"].startswith("3 units join Germans in B3: A1, A2, A3")
    game = await table.game()
    assert [game.units[u].location for u in ("A1", "A2", "A3")] == ["B3"] * 3
    assert game.units_added == 3
    assert await entries(table) == before + 1
    entry = (await table.bot.referee.log(table.channel)).entries[-1]
    assert entry.order["action"] == "unit_add_many" and entry.order["ids"] == ["A1", "A2", "A3"]
    assert (await table.bot.referee.verify(table.channel)).ok  # and it replays


async def test_a_list_of_ids_adds_each(table):
    await setup_table(table)
    await table.send("unit add", {"id": "L1 L2", "side": "Germans", "type": "ger-8-1", "location": "B3"}, user=ALICE)
    assert {"L1", "L2"} <= set((await table.game()).units)


async def test_over_the_stacking_limit_the_whole_add_is_refused_naming_the_unit(table):
    await setup_table(table)
    await table.send("unit add", {"id": "A1", "side": "Germans", "type": "ger-467", "location": "B3"}, user=ALICE)
    text = await table.refused("unit add", {"id": "A", "count": 3, "side": "Germans", "type": "ger-467",
                                            "location": "B3"}, user=ALICE)
    assert text == ("A1: there is already a unit 'A1' in this game (nothing was done: the units go together or "
                    "not at all)"), text
    text = await table.refused("unit add", {"id": "B", "count": 3, "side": "Germans", "type": "ger-467",
                                            "location": "B3"}, user=ALICE)
    assert text == ("B3: B3 would hold 4 squad-equivalents of Germans: 3 (plus 4 SMC) per Location at the set-up "
                    "(A5.1) (nothing was done: the units go together or not at all)"), text
    assert "B1" not in (await table.game()).units


async def test_the_unit_cap_holds_for_bulk_adds(table):
    await setup_table(table)
    for batch in range(MAX_UNITS // 40):
        reply = await table.as_gm("unit add", {"id": f"X{batch}-", "count": 40, "side": "Germans",
                                               "type": "ger-467"})
        assert not reply.ephemeral, reply.embeds
    text = await table.refused("unit add", {"id": "Y", "count": 2, "side": "Germans", "type": "ger-467"}, user=GM)
    assert text.startswith(f"Y1: this game has had {MAX_UNITS} units"), text


async def test_the_set_up_guards_hold_for_bulk_commands(table):
    await setup_table(table)
    # custom numbers are the game master's, in a bulk add as in a single one
    text = await table.refused("unit add", {"id": "A", "count": 2, "side": "Germans", "type": "ger-467",
                                            "stats": "fp=9"}, user=ALICE)
    assert "only the game master sets custom numbers" in text
    # a player adds only for their own side
    text = await table.refused("unit add", {"id": "R", "count": 2, "side": "Russians", "type": "rus-447"},
                               user=ALICE)
    assert "Russians" in text
    await table.send("unit add", {"id": "A", "count": 2, "side": "Germans", "type": "ger-467", "location": "B3"},
                     user=ALICE)
    # placing (moving) units is the game master's where the sequence of play is refereed
    assert "only the game master may place a unit" in await table.refused(
        "unit move", {"at": "B3", "to": "C4"}, user=ALICE)


async def test_a_whole_stack_moves_with_its_weapons_in_one_entry(table):
    await setup_table(table)
    await table.as_gm("unit add", {"id": "A", "count": 2, "side": "Germans", "type": "ger-467", "location": "B3"})
    await table.as_gm("unit add", {"id": "MG1", "side": "Germans", "type": "ger-lmg", "location": "B3",
                                   "stats": "owner=A1"})
    await table.as_gm("unit add", {"id": "L1", "side": "Germans", "type": "ger-8-1", "location": "B3"})
    before = await entries(table)
    reply = await table.as_gm("unit move", {"at": "B3", "to": "C4"})
    assert reply.embeds[0]["title"].startswith("4 units to C4: A1, A2, MG1, L1"), reply.embeds
    game = await table.game()
    assert {u.location for u in game.units.values()} == {"C4"} and await entries(table) == before + 1
    await table.as_gm("unit move", {"unit": "A1 L1", "to": "D5"})
    game = await table.game()
    assert (game.units["A1"].location, game.units["L1"].location, game.units["MG1"].location) == ("D5", "D5", "D5")
    assert game.units["A2"].location == "C4"


async def test_a_stack_move_over_the_limit_is_refused_whole_naming_the_unit(table):
    await setup_table(table)
    await table.as_gm("unit add", {"id": "A", "count": 3, "side": "Germans", "type": "ger-467", "location": "B3"})
    await table.as_gm("unit add", {"id": "C1", "side": "Germans", "type": "ger-467", "location": "C4"})
    text = await table.refused("unit move", {"at": "B3", "to": "C4"}, user=GM)
    assert text.startswith("A3: C4 would hold 4 squad-equivalents of Germans"), text
    assert {(await table.game()).units[u].location for u in ("A1", "A2", "A3")} == {"B3"}
    assert await table.refused("unit move", {"unit": "A1 Z9", "to": "D5"}, user=GM) == (
        "Z9: no unit 'Z9' in this game (units: A1, A2, A3, C1) (nothing was done: the units go together or not "
        "at all)")
    assert await table.refused("unit move", {"to": "D5"}, user=GM) == (
        "name the units ('A1 A2'), or the Location whose whole stack it is (at:), not both")
    assert (await table.refused("unit move", {"at": "D5", "to": "B3"}, user=GM)).startswith("no location 'D5'")


async def test_a_whole_stack_is_edited_at_once(table):
    await setup_table(table)
    await table.as_gm("unit add", {"id": "A", "count": 2, "side": "Germans", "type": "ger-467", "location": "B3"})
    reply = await table.as_gm("unit edit", {"at": "B3", "stats": "broken=yes"})
    assert reply.embeds[0]["title"].startswith("2 units corrected: A1, A2")
    assert all(u.broken for u in (await table.game()).units.values())
    assert "only the game master may edit a unit" in await table.refused(
        "unit edit", {"unit": "A1 A2", "stats": "broken=no"}, user=ALICE)
    text = await table.refused("unit edit", {"unit": "A1 A2", "stats": "morale=99"}, user=GM)
    assert text.startswith("A1: changes: morale 99 is outside"), text
