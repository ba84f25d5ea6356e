"""/unit add, edit, move, remove, list, types and /location set, end to end: the real client, the
loopback Discord and a real SQLite file. Each refused order answers with a red ephemeral embed
and leaves the game and its log exactly as they were (``table.refused``)."""

from __future__ import annotations

from bot.core.rulesets import get_ruleset
from bot.render import EMBED_TOTAL_MAX, FIELD_VALUE_MAX
from tests.cogs.conftest import ALICE, BOB, CAROL, GM

GREY = 0x8A8F98  # bot.render.NEUTRAL_COLOUR: set-up results and lists
NO_GAME = "There is no game in this channel: start one with /game new"
ASL_LINE = "Advanced Squad Leader · turn 1, Rally Phase, ATTACKER's part · Germans to act"


async def asl_game(table):
    """Germans (alice) vs Russians (bob): a 4-6-7 in B3 (woods), a 4-4-7 in C4, an 8-1 off board."""
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
    await table.seat(ALICE, "Germans")
    await table.seat(BOB, "Russians")
    await table.as_gm("unit add", {"id": "A1", "side": "Germans", "type": "ger-467", "location": "B3"})
    await table.as_gm("unit add", {"id": "R1", "side": "Russians", "type": "rus-447", "location": "C4"})
    await table.as_gm("unit add", {"id": "R2", "side": "Russians", "type": "rus-8-1"})
    await table.as_gm("location set", {"location": "B3", "terrain": "woods"})
    # the log now holds 7 entries: the next result is "log #8"


def outcome(title: str, trail: str, effects: str | None, seq: int, description: str = ASL_LINE) -> list[dict]:
    """The exact embed of a set-up result (neutral colour, trail then effects, the log number)."""
    fields = [{"name": "Trail", "inline": False, "value": trail}]
    if effects is not None:
        fields.append({"name": "Effects", "inline": False, "value": effects})
    return [{"type": "rich", "flags": 0, "color": GREY, "title": title, "description": description,
             "fields": fields, "footer": {"text": f"log #{seq}"}}]


# --- /unit add ---------------------------------------------------------------------------


async def test_unit_add_from_the_library_creates_the_new_location_and_says_so(table):
    await asl_game(table)
    reply = await table.send("unit add", {"id": "A2", "side": "Germans", "type": "ger-548", "location": "B4"},
                             user=ALICE)
    assert reply.embeds == outcome(
        "5-4-8 A2 joins Germans",
        "New location B4: open (set it with /location set)\n5-4-8 A2 added for Germans in B4",
        "5-4-8 A2: in play (added)", 8)
    game = await table.game()
    unit = game.units["A2"]
    assert (unit.type, unit.name, unit.side, unit.location, unit.fp, unit.range, unit.morale,
            unit.broken_morale, unit.quality) == ("ger-548", "5-4-8", 0, "B4", 5, 4, 8, 9, "elite")
    assert game.locations["B4"].terrain == "open"


async def test_unit_add_with_its_own_numbers_and_name(table):
    await asl_game(table)
    # numbers of its own are the game master's: a player adds library counters
    assert await table.refused("unit add", {"id": "A3", "side": "Germans", "stats": "kind=squad fp=4"},
                               user=ALICE) == (
        "a unit with numbers of its own is the game master's: add a library counter (see /unit types)")
    assert await table.refused("unit add", {"id": "A3", "side": "Germans", "type": "ger-467", "stats": "fp=99"},
                               user=ALICE) == (
        "'fp' changes the library counter's numbers: only the game master sets custom numbers (the library's are "
        "used otherwise)")
    assert await table.refused("unit add", {"id": "A3", "side": "Germans", "type": "ger-467", "stats": "fp=99999"},
                               user=GM) == ("stats: fp 99999 is outside what a counter carries in Advanced Squad "
                                            "Leader (0 to 36)")
    reply = await table.as_gm("unit add", {"id": "A3", "side": "Germans", "location": "B3", "name": "Kampfgruppe",
                                           "stats": "kind=squad fp=4 range=6 morale=7 fp_underlined=yes"})
    assert reply.embeds == outcome("Kampfgruppe A3 joins Germans", "Kampfgruppe A3 added for Germans in B3",
                                   "Kampfgruppe A3: in play (added)", 8)
    unit = (await table.game()).units["A3"]
    assert (unit.type, unit.kind, unit.fp, unit.range, unit.morale, unit.fp_underlined) == (
        "custom", "squad", 4, 6, 7, True)


async def test_players_add_units_during_the_set_up_only(table):
    """Found by the audit: a player added a squad of fp=99 mid-game. Once a step of play has ended,
    adding units is the game master's."""
    await asl_game(table)
    assert not (await table.send("unit add", {"id": "A5", "side": "Germans", "type": "ger-467"}, user=ALICE)).ephemeral
    await table.as_gm("game phase", {"to": "PFPh"})
    await table.send("done", user=ALICE)  # the Prep Fire Phase ends: play has begun
    assert await table.refused("unit add", {"id": "A6", "side": "Germans", "type": "ger-467"}, user=ALICE) == (
        "only the game master may add a unit once play has begun (ask the game master): it corrects the game, "
        "it is not a move")
    assert not (await table.as_gm("unit add", {"id": "A6", "side": "Germans", "type": "ger-467"})).ephemeral


async def test_stacking_limits_hold_at_the_set_up(table):
    """A5.1 (data/asl/stacking.yaml): three squad-equivalents plus four SMC per side and Location."""
    await asl_game(table)  # A1 (a squad) in B3
    for unit_id in ("A2", "A3"):
        await table.as_gm("unit add", {"id": unit_id, "side": "Germans", "type": "ger-467", "location": "B3"})
    assert await table.refused("unit add", {"id": "A4", "side": "Germans", "type": "ger-467", "location": "B3"},
                               user=GM) == ("B3 would hold 4 squad-equivalents of Germans: 3 (plus 4 SMC) per "
                                            "Location at the set-up (A5.1)")
    # the other side stacks apart; a leader is an SMC, not a squad
    assert not (await table.as_gm("unit add", {"id": "R3", "side": "Russians", "type": "rus-447",
                                               "location": "B3"})).ephemeral
    for i in range(4):
        await table.as_gm("unit add", {"id": f"L{i}", "side": "Germans", "type": "ger-8-1", "location": "B3"})
    assert await table.refused("unit add", {"id": "L4", "side": "Germans", "type": "ger-8-1", "location": "B3"},
                               user=GM) == "B3 would hold 5 SMC of Germans: 4 per Location at the set-up (A5.1)"


async def test_no_honor_in_surrender_stacking_holds_at_the_set_up(table):
    """data/nhis/rules.yaml `stacking` (assumed: seed 001 gives none): 3 units and 2 leaders a side."""
    from tests.cogs.helpers import nhis_game

    await nhis_game(table, phase=None)  # U1, U2 and the leader UL in A1
    assert not (await table.as_gm("unit add", {"id": "U3", "side": "US", "type": "us-rifle-squad",
                                               "location": "A1"})).ephemeral
    assert await table.refused("unit add", {"id": "U4", "side": "US", "type": "us-rifle-squad", "location": "A1"},
                               user=GM) == ("A1 would hold 4 units and 1 leader of US: 3 units and 2 leaders per hex "
                                            "at the set-up (NHiS stacking (assumed))")


async def test_unit_add_library_numbers_can_be_overridden(table):
    await asl_game(table)
    await table.as_gm("unit add", {"id": "A4", "side": "Germans", "type": "ger-467", "stats": "morale=6"})
    unit = (await table.game()).units["A4"]
    assert (unit.type, unit.fp, unit.morale, unit.location) == ("ger-467", 4, 6, None)


async def test_unit_add_refusals(table):
    assert await table.refused("unit add", {"id": "A9", "side": "Germans", "type": "ger-467"}) == NO_GAME
    await asl_game(table)
    assert await table.refused("unit add", {"id": "A9", "side": "Germans"}, user=ALICE) == (
        "give the unit's counter type (see /unit types) or its numbers in 'stats'")
    assert await table.refused("unit add", {"id": "A9", "side": "Germans", "type": "ger-999"}, user=ALICE) == (
        "no counter type 'ger-999' in the Advanced Squad Leader library (try /unit types)")
    assert await table.refused("unit add", {"id": "a1", "side": "Germans", "type": "ger-467"}, user=ALICE) == (
        "there is already a unit 'a1' in this game")
    assert await table.refused("unit add", {"id": "A9", "side": "Finns", "type": "ger-467"}, user=ALICE) == (
        "no side 'Finns' in this game (sides: Germans, Russians)")
    assert await table.refused("unit add", {"id": "A9", "side": "Germans", "stats": "fp=4"}, user=GM) == (
        "stats: 'kind' is required")
    assert (await table.refused("unit add", {"id": "A9!", "side": "Germans", "type": "ger-467"},
                                user=ALICE)).startswith("'id': 'A9!' is not a valid id: an id is 1 to 24 letters")
    assert await table.refused("unit add", {"id": "A9 A10!", "side": "Germans", "type": "ger-467"},
                               user=ALICE) == ("'A10!' is not a unit id (letters, digits, dots, dashes, "
                                               "underscores; up to 24)")
    assert (await table.refused("unit add", {"id": "A9", "side": "Germans", "type": "ger-467",
                                             "location": "B3;drop"}, user=ALICE)).startswith(
        "'location': 'B3;drop' is not a valid id")


async def test_a_holder_must_be_in_the_game_when_it_is_given(table):
    """Issue 30: stats:owner=A9 was accepted, and the weapon could never fire ("no unit 'A9'")."""
    await asl_game(table)
    add = {"id": "MG1", "side": "Germans", "type": "ger-lmg"}
    assert await table.refused("unit add", add | {"stats": "owner=A9"}, user=ALICE) == (
        "stats: owner=A9 names the unit holding it, but there is no unit 'A9' in this game (units of Germans: "
        "A1); add it first")
    assert await table.refused("unit add", add | {"stats": "owner=R1"}, user=ALICE) == (
        "stats: owner=R1 names the unit holding it, but 4-4-7 R1 fights for Russians, not Germans")
    assert await table.refused("unit add", add | {"stats": "owner=MG1"}, user=ALICE) == (
        "stats: owner=MG1: that is the unit itself")
    assert await table.refused("unit add", add | {"stats": "owner=A1", "location": "C4"}, user=ALICE) == (
        "location: MG1 goes where A1, the unit holding it, is (B3): leave location out")
    # given as the game spells it, or in other letters: held by A1 and where A1 is
    await table.send("unit add", add | {"stats": "owner=a1"}, user=ALICE)
    held = (await table.game()).units["MG1"]
    assert (held.owner, held.location) == ("A1", "B3")
    # a weapon cannot hold another
    assert await table.refused("unit add", add | {"id": "MG2", "stats": "owner=MG1"}, user=ALICE) == (
        "stats: owner=MG1: LMG MG1 has owner A1 itself, so it cannot be the unit holding it")
    # every unit of a bulk add is checked: refused whole
    assert await table.refused("unit add", {"id": "MG2 MG3", "side": "Germans", "type": "ger-lmg",
                                            "stats": "owner=A7"}, user=ALICE) == (
        "stats: owner=A7 names the unit holding it, but there is no unit 'A7' in this game (units of Germans: "
        "A1, MG1); add it first")
    eliminated = await table.as_gm("unit add", {"id": "A2", "side": "Germans", "type": "ger-467",
                                                 "stats": "eliminated=yes"})
    assert not eliminated.ephemeral
    assert await table.refused("unit add", add | {"id": "MG2", "stats": "owner=A2"}, user=GM) == (
        "stats: owner=A2 names the unit holding it, but 4-6-7 A2 is eliminated")


async def test_a_holder_given_by_a_correction_must_be_in_the_game_and_the_weapon_goes_to_it(table):
    await asl_game(table)
    await table.as_gm("unit add", {"id": "A2", "side": "Germans", "type": "ger-467", "location": "D6"})
    await table.as_gm("unit add", {"id": "MG1", "side": "Germans", "type": "ger-lmg", "stats": "owner=A1"})
    assert await table.refused("unit edit", {"unit": "MG1", "stats": "owner=Z1"}, user=GM) == (
        "changes: owner=Z1 names the unit holding it, but there is no unit 'Z1' in this game (units of Germans: "
        "A1, A2, MG1); add it first")
    assert await table.refused("unit edit", {"unit": "A1", "stats": "owner=A2"}, user=GM) == (
        "changes: owner=A2: LMG MG1 has owner A1, so 4-6-7 A1 cannot be tied to another unit in turn")
    reply = await table.as_gm("unit edit", {"unit": "MG1", "stats": "owner=a2"})
    assert "LMG MG1: location 'B3' -> 'D6'" in reply.embeds[0]["fields"][0]["value"]
    held = (await table.game()).units["MG1"]
    assert (held.owner, held.location) == ("A2", "D6")
    assert await table.refused("unit edit", {"unit": "MG1", "stats": "owner=no"}, user=GM) == (
        "changes: 'owner' takes text, not 'False'")


async def test_a_stand_joins_a_company_of_its_own_side_as_the_game_spells_it(table):
    await table.as_gm("game new", {"ruleset": "cd", "sides": "Americans, Germans"})
    await table.as_gm("unit add", {"id": "U1", "side": "Americans", "type": "us-rifle", "location": "Farm",
                                   "stats": "company=Able"})
    await table.as_gm("unit add", {"id": "G1", "side": "Germans", "type": "ger-rifle", "location": "Wood",
                                   "stats": "company=Kampf"})
    await table.as_gm("unit add", {"id": "U2", "side": "Americans", "type": "us-rifle", "location": "Farm",
                                   "stats": "company=able"})
    assert (await table.game()).units["U2"].company == "Able"  # one company, not two told apart by a capital
    assert await table.refused("unit add", {"id": "U3", "side": "Americans", "type": "us-rifle",
                                            "stats": "company=kampf"}, user=GM) == (
        "stats: company=kampf: company Kampf belongs to Germans; a unit of Americans joins one of its own (Able) or a "
        "new one")
    assert await table.refused("unit edit", {"unit": "U2", "stats": "company=Kampf"}, user=GM) == (
        "changes: company=Kampf: company Kampf belongs to Germans; a unit of Americans joins one of its own (Able) or "
        "a new one")
    await table.as_gm("unit add", {"id": "U3", "side": "Americans", "type": "us-rifle", "stats": "company=Baker"})
    assert (await table.game()).units["U3"].company == "Baker"  # a new company: its first stand names it


# --- /unit edit --------------------------------------------------------------------------


async def test_unit_edit_by_the_game_master_corrects_numbers_and_markers(table):
    await asl_game(table)
    reply = await table.as_gm("unit edit", {"unit": "r1", "stats": "morale=6 broken=yes fire_marker=final"})
    assert reply.embeds == outcome(
        "4-4-7 R1 corrected",
        # the fields in the order the log keeps them (sorted), so its replay lists them the same way
        "4-4-7 R1: broken False -> True\n4-4-7 R1: fire\\_marker None -> 'final'\n4-4-7 R1: morale 7 -> 6",
        "4-4-7 R1: edited", 8)
    unit = (await table.game()).units["R1"]
    assert (unit.morale, unit.broken, unit.fire_marker) == (6, True, "final")


async def test_unit_edit_refusals(table):
    await asl_game(table)
    assert await table.refused("unit edit", {"unit": "A1", "stats": "morale=9"}, user=ALICE) == (
        "only the game master may edit a unit: it corrects the game, it is not a move")
    assert await table.refused("unit edit", {"unit": "Z9", "stats": "morale=9"}, user=GM) == (
        "no unit 'Z9' in this game (units: A1, R1, R2)")
    assert await table.refused("unit edit", {"unit": "A1", "stats": "side=1"}, user=GM) == (
        "'side' of a unit cannot be edited")
    assert await table.refused("unit edit", {"unit": "A1", "stats": "armour=3"}, user=GM) == (
        "units of Advanced Squad Leader have no field 'armour'")
    assert await table.refused("unit edit", {"unit": "A1", "stats": "morale=high"}, user=GM) == (
        "changes: 'morale' takes a whole number, not 'high'")


# --- /unit move --------------------------------------------------------------------------


async def test_unit_move_by_the_game_master_places_a_unit(table):
    await asl_game(table)
    reply = await table.as_gm("unit move", {"unit": "A1", "to": "C4"})
    assert reply.embeds == outcome("4-6-7 A1 to C4", "4-6-7 A1: B3 -> C4", "4-6-7 A1: B3 -> C4 (moved)", 8)
    assert (await table.game()).units["A1"].location == "C4"


async def test_unit_move_to_a_new_location_creates_it_and_without_to_takes_the_unit_off_board(table):
    await asl_game(table)
    reply = await table.as_gm("unit move", {"unit": "R2", "to": "D5"})
    assert reply.embeds[0]["fields"][0]["value"] == (
        "New location D5: open (set it with /location set)\n8-1 R2: off board -> D5")
    await table.as_gm("unit move", {"unit": "R2"})
    game = await table.game()
    assert (game.units["R2"].location, sorted(game.locations)) == (None, ["B3", "C4", "D5"])


async def test_unit_move_refusals(table):
    await asl_game(table)
    # where the sequence of play is refereed, players move with /move, in the steps that allow it
    assert await table.refused("unit move", {"unit": "A1", "to": "C4"}, user=ALICE) == (
        "only the game master may place a unit (players move theirs with /move, in the steps that allow it): it "
        "corrects the game, it is not a move")
    assert await table.refused("unit move", {"unit": "Z9", "to": "C4"}, user=GM) == (
        "no unit 'Z9' in this game (units: A1, R1, R2)")
    assert (await table.refused("unit move", {"unit": "A1", "to": "C 4"}, user=GM)).startswith(
        "'location': 'C 4' is not a valid id")


# --- /unit remove ------------------------------------------------------------------------


async def test_unit_remove_by_the_game_master(table):
    await asl_game(table)
    reply = await table.as_gm("unit remove", {"unit": "R2"})
    assert reply.embeds == outcome("8-1 R2 removed", "8-1 R2 removed from the game", "8-1 R2: removed", 8)
    assert sorted((await table.game()).units) == ["A1", "R1"]


async def test_unit_remove_refusals(table):
    await asl_game(table)
    assert await table.refused("unit remove", {"unit": "R2"}, user=BOB) == (
        "only the game master may remove a unit: it corrects the game, it is not a move")
    assert await table.refused("unit remove", {"unit": "R9"}, user=GM) == (
        "no unit 'R9' in this game (units: A1, R1, R2)")


# --- /unit list --------------------------------------------------------------------------


async def test_unit_list_shows_each_unit_s_numbers_and_markers_only_to_the_asker(table):
    await asl_game(table)
    await table.as_gm("unit edit", {"unit": "R1", "stats": "broken=yes"})
    before = await table.snapshot()
    reply = await table.send("unit list", user=CAROL)  # looking is open to anyone
    assert reply.ephemeral
    assert reply.embeds == [{
        "type": "rich", "flags": 0, "color": GREY, "title": "Units: 3",
        "fields": [
            {"name": "Germans", "inline": False,
             "value": "A1 4-6-7 (B3): squad, FP 4, range 6, morale 7, broken morale 8; no markers"},
            {"name": "Russians", "inline": False,
             "value": "R1 4-4-7 (C4): squad, FP 4, range 4, morale 7, broken morale 7; broken\n"
                      "R2 8-1 (off board): leader, morale 8, leadership -1; no markers"},
        ],
    }]
    assert await table.snapshot() == before


async def test_unit_list_filtered_by_side_or_location(table):
    await asl_game(table)
    by_side = await table.send("unit list", {"side": "Russians"}, user=BOB)
    assert [f["name"] for f in by_side.embeds[0]["fields"]] == ["Russians"]
    assert by_side.embeds[0]["title"] == "Units: 2"
    by_place = await table.send("unit list", {"location": "b3"}, user=BOB)
    assert by_place.embeds[0]["title"] == "Units in B3: 1"
    assert by_place.embeds[0]["fields"] == [
        {"name": "Germans", "inline": False,
         "value": "A1 4-6-7 (B3): squad, FP 4, range 6, morale 7, broken morale 8; no markers"},
        {"name": "Russians", "inline": False, "value": "no units"}]


async def test_unit_list_of_a_command_decision_game_shows_each_stand_s_company_and_to_hit_numbers(table):
    await table.as_gm("game new", {"ruleset": "cd", "sides": "Americans, Germans"})
    await table.as_gm("unit add", {"id": "U1", "side": "Americans", "type": "us-rifle", "location": "Farm",
                                   "stats": "company=Able"})
    reply = await table.as_gm("unit list")
    assert reply.embeds[0]["fields"] == [
        {"name": "Americans", "inline": False,
         "value": "U1 US rifle platoon (Farm): personnel, company Able, quality regular, ROF 2, weapon class S, "
                  "to hit close 6/short 5/medium 3; no markers"},
        {"name": "Germans", "inline": False, "value": "no units"}]


async def test_unit_list_refusals(table):
    assert await table.refused("unit list") == NO_GAME
    await asl_game(table)
    assert await table.refused("unit list", {"location": "Z9"}) == (
        "no location 'Z9' in this game (locations: B3, C4)")
    assert await table.refused("unit list", {"side": "Finns"}) == (
        "no side 'Finns' in this game (sides: Germans, Russians)")


# --- /unit types -------------------------------------------------------------------------


async def test_unit_types_lists_the_channel_s_library(table):
    await table.as_gm("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"})
    reply = await table.send("unit types", user=CAROL)
    assert reply.ephemeral
    assert reply.embeds == [{
        "type": "rich", "flags": 0, "color": GREY,
        "title": "No Honor in Surrender counter library: 7 types",
        "description": "Use the key (before the colon) as /unit add type.",
        "fields": [
            {"name": "Japanese", "inline": False, "value": (
                "jp-leader: Japanese leader (leader, morale 5, leadership 1, reduced morale 4, Unshakable)\n"
                "jp-rifle-squad: Japanese rifle squad (squad, FP 2, range 4, morale 5, reduced FP 1, "
                "reduced range 3, reduced morale 4, Unshakable)\n"
                "jp-type92-hmg: Japanese Type 92 HMG team (weapon\\_team, FP 5, range 12, morale 5, "
                "reduced FP 3, reduced range 8, reduced morale 4, Unshakable)")},
            {"name": "US", "inline": False, "value": (
                "us-30cal-mg: US .30 cal MG team (weapon\\_team, FP 4, range 10, morale 5, reduced FP 2, "
                "reduced range 8, reduced morale 4)\n"
                "us-leader: US Marine leader (leader, morale 5, leadership 1, reduced morale 4)\n"
                "us-rifle-squad: US Marine rifle squad (squad, FP 3, range 5, morale 5, reduced FP 2, "
                "reduced range 4, reduced morale 4)\n"
                "us-sherman: M4 Sherman (tank, FP 4, range 8, morale 5, Unshakable)")},
        ],
    }]


async def test_unit_types_of_a_named_ruleset_without_a_game(table):
    reply = await table.send("unit types", {"ruleset": "cd"}, user=CAROL)
    embed = reply.embeds[0]
    assert embed["title"] == "Command Decision: Test of Battle counter library: 6 types"
    assert embed["fields"] == [{"name": "Counters", "inline": False, "value": "\n".join([
        "ger-mg42: German MG42 platoon (personnel, quality experienced, ROF 3, weapon class S, "
        "to hit close 6/short 5/medium 4/long 2)",
        "ger-rifle: German rifle platoon (personnel, quality experienced, ROF 2, weapon class S, "
        "to hit close 6/short 5/medium 3)",
        "m4-sherman-75: M4 Sherman (afv, quality regular, ROF 2, weapon class A, to hit close 7/short 6/medium 5/"
        "long 3, penetration close 6/short 5/medium 4/long 3, armour 4, weight 2)",
        "pz-iv-h: Pz IV (afv, quality experienced, ROF 2, weapon class A, to hit close 7/short 6/medium 5/long 4, "
        "penetration close 7/short 6/medium 5/long 4, armour 4, weight 2)",
        "us-105mm-battery: US 105mm battery (artillery, quality regular, ROF 1, weapon class H, "
        "to hit short 5/medium 4/long 3, indirect to hit 6)",
        "us-rifle: US rifle platoon (personnel, quality regular, ROF 2, weapon class S, "
        "to hit close 6/short 5/medium 3)"])}]


async def test_unit_types_of_the_whole_asl_library_stays_within_discord_s_limits(table):
    reply = await table.send("unit types", {"ruleset": "asl"})
    messages = reply.all_messages()
    embeds = [e for m in messages for e in m.embeds]
    assert all(m.ephemeral for m in messages)
    assert all(sum(len(e.get("title", "")) + len(e.get("description", "")) + sum(
        len(f["name"]) + len(f["value"]) for f in e["fields"]) for e in m.embeds) <= EMBED_TOTAL_MAX
        for m in messages)
    assert all(len(f["value"]) <= FIELD_VALUE_MAX for e in embeds for f in e["fields"])
    listed = [line.split(":")[0] for e in embeds for f in e["fields"] for line in f["value"].splitlines()]
    assert sorted(listed) == sorted(get_ruleset("asl").counter_types())  # each type once, none cut off


async def test_unit_types_without_a_game_or_a_ruleset_is_refused(table):
    assert await table.refused("unit types") == NO_GAME


# --- /location set -----------------------------------------------------------------------


async def test_location_set_by_the_game_master_sets_terrain_and_features(table):
    await table.as_gm("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"})
    reply = await table.as_gm("location set", {"location": "H7", "terrain": "jungle", "features": "hill, foxhole"})
    assert reply.embeds == outcome("H7 is jungle", "H7: jungle (hill, foxhole)", None, 2,
                                   description="No Honor in Surrender · turn 1, Rally Phase, first side · Marines to act")
    location = (await table.game()).locations["H7"]
    assert (location.terrain, location.features) == ("jungle", ["hill", "foxhole"])
    await table.as_gm("location set", {"location": "h7", "terrain": "Tall Grass"})  # features replaced
    location = (await table.game()).locations["H7"]
    assert (location.terrain, location.features) == ("tall grass", [])


async def test_location_set_refusals(table):
    await asl_game(table)
    assert await table.refused("location set", {"location": "B3", "terrain": "lava"}, user=GM) == (
        "unknown terrain 'lava' in Advanced Squad Leader (terrains: brush, foxhole, grain, open, orchard, "
        "pillbox, road, rubble, shellhole, stone building, stone rubble, trench, wooden building, "
        "wooden rubble, woods)")
    assert await table.refused("location set", {"location": "B3", "terrain": "open"}, user=ALICE) == (
        "only the game master may set a location's terrain: it corrects the game, it is not a move")


# --- autocomplete ------------------------------------------------------------------------


async def test_unit_and_location_autocomplete_offer_the_channel_s_values(table):
    await asl_game(table)
    assert await table.autocomplete("unit move", {"unit": ""}, focused="unit") == [
        {"name": "A1 (4-6-7, Germans, B3)", "value": "A1"},
        {"name": "R1 (4-4-7, Russians, C4)", "value": "R1"},
        {"name": "R2 (8-1, Russians, off board)", "value": "R2"}]
    assert await table.autocomplete("unit edit", {"unit": "russ"}, focused="unit") == [
        {"name": "R1 (4-4-7, Russians, C4)", "value": "R1"},
        {"name": "R2 (8-1, Russians, off board)", "value": "R2"}]
    assert await table.autocomplete("unit move", {"unit": "A1", "to": ""}, focused="to") == [
        {"name": "B3 (woods)", "value": "B3"}, {"name": "C4 (open)", "value": "C4"}]
    assert await table.autocomplete("unit list", {"side": "ger"}, focused="side") == [
        {"name": "Germans", "value": "Germans"}]


async def test_counter_type_and_terrain_autocomplete_offer_the_ruleset_s_values(table):
    await table.as_gm("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"})
    assert await table.autocomplete("unit add", {"type": "jp-"}, focused="type") == [
        {"name": "jp-leader (Japanese leader)", "value": "jp-leader"},
        {"name": "jp-rifle-squad (Japanese rifle squad)", "value": "jp-rifle-squad"},
        {"name": "jp-type92-hmg (Japanese Type 92 HMG team)", "value": "jp-type92-hmg"}]
    assert await table.autocomplete("location set", {"terrain": ""}, focused="terrain") == [
        {"name": t, "value": t} for t in sorted(get_ruleset("nhis").terrains())]
    assert await table.autocomplete("location set", {"terrain": "gr"}, focused="terrain") == [
        {"name": "tall grass", "value": "tall grass"}]
