"""/game new, join, status, phase, end: through the real client, the loopback Discord and a real
SQLite file. Each refused order answers with a red ephemeral embed and leaves the game and its
log exactly as they were (``table.refused``)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest

from bot.core.rulesets import get_ruleset
from tests.cogs.conftest import ALICE, BOB, CAROL, GAME_CHANNEL, GENERAL, GM, THREAD, refusal
from tests.cogs.helpers import end_game, last_entry

GREY, BLUE = 0x8A8F98, 0x4A7AB5  # bot.render: neutral (set-up, phases) and side 1's colour
NO_GAME = "There is no game in this channel: start one with /game new"


def mention(user: int) -> str:
    return f"<@\u200b{user}>"  # how the renderer escapes a mention in a trail line


async def start_asl(table, **extra):
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians", **extra})
    assert not reply.ephemeral, reply.embeds
    return reply


async def seat_players(table):
    await table.seat(ALICE, "Germans")
    await table.seat(BOB, "Russians")


async def commitment(table) -> str:
    """The dice commitment of the channel's game, as its entry 1 logged it."""
    first = (await table.bot.referee.log(GAME_CHANNEL, page=1)).entries[0]
    return first.dice_proof["commitment"]


# --- /game new ---------------------------------------------------------------------------


async def test_game_new_answers_with_the_sides_their_elr_the_game_master_and_the_first_phase(table):
    reply = await start_asl(table, scenario="Guards Counterattack", elr_1=3, elr_2=2)

    assert reply.embeds == [{
        "type": "rich", "flags": 0, "color": GREY,
        "title": "New Advanced Squad Leader game",  # within 60 characters, the rest below
        "description": "Germans vs Russians (Guards Counterattack)\n"
                       "Advanced Squad Leader · Guards Counterattack · turn 1, Rally Phase, ATTACKER's part · Germans to act",
        "fields": [{"name": "Trail", "inline": False,
                    "value": f"Side 1: Germans (ELR 3)\nSide 2: Russians (ELR 2)\nGame master: {mention(GM)}\n"
                             "Turn 1, Rally Phase"}],
        # the first turn's dice commitment, posted with the game (docs/dice.md)
        "footer": {"text": f"log #1 · dice commitment (SHA-256 of this turn's secret seed): {await commitment(table)}"},
    }]
    game = await table.game()
    assert (game.ruleset, game.variant, game.scenario, game.gm) == ("asl", "full", "Guards Counterattack", GM)
    assert [(s.name, s.elr, s.players) for s in game.sides] == [("Germans", 3, []), ("Russians", 2, [])]
    assert (game.turn, game.phase, game.active_side, game.units, game.locations) == (1, "RPh", 0, {}, {})
    assert (await table.bot.referee.log(GAME_CHANNEL)).total == 1


async def test_game_new_plays_the_asl_starter_kit_when_asked(table):
    await start_asl(table, variant="starter")
    assert (await table.game()).variant == "starter"


async def test_game_new_takes_rule_options_as_key_value_pairs(table):
    reply = await table.as_gm("game new", {"ruleset": "cd", "sides": "Blue, Red", "options": "night=yes"})
    assert refusal(reply).replace("\\_", "_").startswith(
        "'night' is not a game option of Command Decision: Test of Battle; the options are details, ")
    reply = await table.as_gm("game new", {"ruleset": "cd", "sides": "Blue, Red",
                                           "options": "cd_morale_direction=at_least"})
    assert reply.embeds[0]["title"] == "New Command Decision: Test of Battle game: Blue vs Red"
    game = await table.game()
    assert (game.ruleset, game.variant, game.options, game.phase) == (
        "cd", None, {"cd_morale_direction": "at_least", "cd_depletion_after_hits": True, "cd_turn_rules": True,
                     "manual_dice": "none"},
        "Artillery")


@pytest.mark.parametrize(("options", "message"), [
    ({"ruleset": "asl", "sides": "Germans, Russians", "elr_1": 9},
     "'elr' is one number from 0 to 5 per side"),
    ({"ruleset": "asl", "sides": "Germans, Russians", "elr_2": -1},
     "'elr' is one number from 0 to 5 per side"),
    ({"ruleset": "nhis", "sides": "Marines, Japanese", "elr_1": 3},
     "the Experience Level Rating (A19.1) belongs to Advanced Squad Leader games: No Honor in Surrender has none"),
    ({"ruleset": "cd", "sides": "Blue, Red", "variant": "starter"},
     "unknown rules variant 'starter' (not used: Command Decision: Test of Battle has one set of rules)"),
    ({"ruleset": "asl", "sides": "Germans"}, "a game has exactly two sides, each with a name"),
    ({"ruleset": "asl", "sides": "Germans, Russians, Finns"}, "a game has exactly two sides, each with a name"),
    ({"ruleset": "asl", "sides": "Germans, germans"}, "the two sides need different names"),
    ({"ruleset": "asl", "sides": "Germans, Russians", "options": "night"},
     "'options' takes key=value pairs; 'night' has no '='"),
])
async def test_game_new_refuses_a_malformed_game_and_creates_nothing(table, options, message):
    assert await table.refused("game new", options, user=GM) == message
    assert await table.snapshot() == (None, 0)


async def test_a_second_game_in_the_same_channel_is_refused_and_the_first_is_untouched(table):
    await start_asl(table)
    assert await table.refused("game new", {"ruleset": "cd", "sides": "Blue, Red"}, user=BOB) == (
        "There is already a game in this channel (Advanced Squad Leader, Germans vs Russians, turn 1): "
        "the game master can end it with /game end, or start the new one in a thread")
    assert (await table.game()).ruleset == "asl"


async def test_a_thread_is_a_channel_of_its_own(table):
    await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"}, channel=GENERAL)
    reply = await table.send("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"}, user=BOB,
                             channel=THREAD)
    assert reply.embeds[0]["title"] == "New No Honor in Surrender game: Marines vs Japanese"
    parent, thread = await table.game(GENERAL), await table.game(THREAD)
    assert (parent.ruleset, parent.gm, thread.ruleset, thread.gm) == ("asl", GM, "nhis", BOB)
    assert await table.snapshot(GAME_CHANNEL) == (None, 0)  # the other channel has no game


# --- /game join --------------------------------------------------------------------------


def buttons(reply) -> list[str]:
    return [b["custom_id"] for row in reply.message.components for b in row["components"]]


async def test_game_join_asks_the_game_master_who_approves_the_seat(table):
    await start_asl(table)
    asked = await table.send("game join", {"side": "russians"}, user=BOB)  # names match case-blind
    assert asked.embeds == [{
        "type": "rich", "flags": 0, "color": GREY, "title": "A seat with Russians asked for",
        "description": f"<@{BOB}> asks to play Russians. The game master approves or declines; the seat is taken "
                       "only then."}]
    assert asked.message.payload["allowed_mentions"] == {"parse": []}  # shown, nobody pinged
    assert [s.players for s in (await table.game()).sides] == [[], []]  # asking seats nobody
    approve, decline = buttons(asked)
    assert approve.startswith("seat:approve:") and decline.startswith("seat:decline:")
    refused = await table.fake.click(asked.message, approve, user_id=ALICE)  # not the game master
    assert refused.ephemeral and refused.embeds[0]["description"] == "you may join a side only for yourself"
    seated = await table.fake.click(asked.message, approve, user_id=GM)
    assert seated.embeds[0] | {"fields": seated.embeds[0]["fields"]} == {
        "type": "rich", "flags": 0, "color": GREY, "title": "A player joins Russians",
        "description": "Advanced Squad Leader · turn 1, Rally Phase, ATTACKER's part · Germans to act",
        "fields": [{"name": "Trail", "inline": False, "value": (
            f"{mention(BOB)} plays Russians\nAsked for by the player; approved by the game master")}],
        "footer": {"text": "log #2"}}
    assert [s.players for s in (await table.game()).sides] == [[], [BOB]]
    assert asked.message.components == []  # answered: the buttons are gone


async def test_the_game_master_invites_a_player_who_accepts_or_declines(table):
    await start_asl(table)
    invited = await table.as_gm("game join", {"side": "Germans", "player": ALICE})
    assert invited.embeds[0]["title"] == "Invitation to play Germans"
    assert [s.players for s in (await table.game()).sides] == [[], []]  # nobody seated without consent
    accept, refuse = buttons(invited)
    assert (await table.fake.click(invited.message, accept, user_id=BOB)).ephemeral  # not the invited player
    accepted = await table.fake.click(invited.message, accept, user_id=ALICE)
    assert accepted.embeds[0]["fields"][0]["value"] == (
        f"{mention(ALICE)} plays Germans\nInvited by {mention(GM)}, the game master; accepted by the player")
    assert [s.players for s in (await table.game()).sides] == [[ALICE], []]
    declined = await table.as_gm("game join", {"side": "Russians", "player": BOB})
    answer = await table.fake.click(declined.message, buttons(declined)[1], user_id=BOB)
    assert answer.message is None or not answer.ephemeral
    assert declined.message.embeds[0]["title"] == "Seat with Russians declined"
    assert [s.players for s in (await table.game()).sides] == [[ALICE], []]


async def test_open_seating_lets_players_sit_down_at_once(table):
    await start_asl(table, options="open_seating=yes")
    reply = await table.send("game join", {"side": "Russians"}, user=BOB)
    assert reply.embeds[0]["title"] == "A player joins Russians"
    assert [s.players for s in (await table.game()).sides] == [[], [BOB]]


async def test_a_player_leaves_and_the_game_master_kicks(table):
    await start_asl(table)
    await seat_players(table)
    left = await table.send("game leave", user=ALICE)
    assert left.embeds[0]["title"] == "A player leaves Germans"
    assert await table.refused("game kick", {"player": BOB}, user=ALICE) == (
        "only the game master takes another player's seat away: /game leave gives up yours")
    kicked = await table.as_gm("game kick", {"player": BOB})
    assert kicked.embeds[0]["fields"][0]["value"] == f"{mention(BOB)} no longer plays Russians"
    assert [s.players for s in (await table.game()).sides] == [[], []]


async def test_game_join_refusals_leave_the_seats_as_they_were(table):
    assert await table.refused("game join", {"side": "Germans"}) == NO_GAME
    await start_asl(table)
    await table.seat(ALICE, "Germans")
    assert await table.refused("game join", {"side": "Italians"}, user=BOB) == (
        "no side 'Italians' in this game (sides: Germans, Russians)")
    assert await table.refused("game join", {"side": "Russians", "player": BOB}, user=ALICE) == (
        "only the game master seats another player: ask for your own seat with /game join")
    assert await table.refused("game join", {"side": "Russians"}, user=ALICE) == (
        f"{mention(ALICE)} already plays in this game")
    assert [s.players for s in (await table.game()).sides] == [[ALICE], []]


# --- /game status ------------------------------------------------------------------------


async def test_game_status_shows_the_game_in_short_to_anyone_and_every_unit_on_a_button(table):
    await start_asl(table, scenario="The Guards")
    await seat_players(table)
    await table.as_gm("unit add", {"id": "A1", "side": "Germans", "type": "ger-467", "location": "B3"})
    await table.as_gm("unit add", {"id": "R1", "side": "Russians", "type": "rus-447", "location": "C4"})
    await table.as_gm("unit add", {"id": "R2", "side": "Russians", "type": "rus-8-1"})
    await table.as_gm("location set", {"location": "B3", "terrain": "woods"})
    await table.as_gm("unit edit", {"unit": "R1", "stats": "broken=yes dm=yes"})
    before = await table.snapshot()

    reply = await table.send("game status", user=CAROL)

    assert not reply.ephemeral and reply.message.flags == 0
    assert reply.embeds == [{
        "type": "rich", "flags": 0, "color": BLUE, "title": "The Guards: turn 1",
        "description": "Rally Phase, ATTACKER's part · **Germans** to act\n"
                       f"Germans: <@{ALICE}> · Russians: <@{BOB}>",
        "fields": [
            {"name": "Units", "inline": False, "value": "Germans: 1 on the map\nRussians: 1 on the map, 1 off board"},
            {"name": "Lately", "inline": False, "value": "#6 8-1 R2 joins Russians\n#7 B3 is woods\n"
                                                         "#8 4-4-7 R1 corrected"},
        ],
        "footer": {"text": "Units: every unit, to you alone · Map: the battlefield"},
    }]
    game_id = await table.bot.referee.game_id(table.channel)
    buttons = [b for row in reply.message.components for b in row["components"]]
    assert [(b["label"], b["custom_id"]) for b in buttons] == [("Units", f"units:{game_id}"), ("Map", f"map:{game_id}")]
    units = await table.fake.click(reply.message, f"units:{game_id}", user_id=CAROL)
    assert units.ephemeral
    assert units.embeds == [{
        "type": "rich", "flags": 0, "color": BLUE,
        "title": "The Guards: turn 1",
        "description": "Advanced Squad Leader · The Guards · turn 1, Rally Phase, ATTACKER's part · Germans to act\n"
                       f"Germans (to act): <@{ALICE}>\nRussians: <@{BOB}>",
        "fields": [
            {"name": "B3: woods", "inline": False, "value": "4-6-7 A1 (Germans): no markers"},
            {"name": "C4: open", "inline": False, "value": "4-4-7 R1 (Russians): broken, DM"},
            {"name": "Off board", "inline": False, "value": "8-1 R2 (Russians): no markers"},
        ],
    }]
    assert await table.snapshot() == before  # looking changes nothing, not even the log


async def test_game_status_of_the_44_counter_scenario_fits_one_phone_screen(table):
    """Issue 30: /game status posted 63 lines and ~2,000 characters for the 44-counter scenario."""
    from bot.core.data import data_path
    from tests.cogs.test_scenario import attach

    await table.as_gm("scenario load", {"file": attach(data_path("asl", "scenarios", "village-assault.yaml"))})
    await table.invite(ALICE, "Germans")
    await table.invite(BOB, "Russians")
    status = await table.send("game status", user=CAROL)
    [embed] = status.embeds
    lines = [embed["title"], *embed["description"].splitlines(),
             *(line for f in embed["fields"] for line in [f["name"], *f["value"].splitlines()]),
             embed["footer"]["text"]]
    assert len(lines) <= 15, lines
    shown = [re.sub(r"<@\d+>", "@player", line.replace("**", "")) for line in lines]  # as Discord shows them
    assert all(len(line) <= 60 for line in shown), "\n".join(shown)  # none wraps on a phone (about 60 characters)
    assert embed["description"].splitlines()[0] == "Rally Phase, ATTACKER's part · **Germans** to act"
    assert embed["fields"][0] == {"name": "Units", "inline": False,
                                  "value": "Germans: 21 on the map\nRussians: 22 on the map, 1 off board"}
    assert len(json.dumps(embed)) < 800
    # every unit is on the Units button, to the presser alone
    [units] = [b["custom_id"] for row in status.message.components for b in row["components"]
               if b["label"] == "Units"]
    listed = await table.fake.click(status.message, units, user_id=CAROL)
    assert listed.ephemeral
    text = json.dumps(listed.embeds)
    assert all(unit_id in text for unit_id in (await table.game()).units)


async def test_game_status_says_when_the_side_to_act_is_reminded(table):
    await start_asl(table, options="remind_after_hours=12")
    status = await table.send("game status", user=CAROL)
    entry = await last_entry(table)
    due = int((datetime.fromisoformat(entry.time) + timedelta(hours=12)).timestamp())
    assert status.embeds[0]["description"].splitlines()[2] == f"Reminder to Germans <t:{due}:R> if nothing happens"


async def test_game_status_of_a_new_game_says_how_to_add_units(table):
    await table.as_gm("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"})
    reply = await table.send("game status", user=CAROL)
    assert reply.embeds[0]["fields"] == [
        {"name": "Units", "inline": False, "value": "none yet: add them with /unit add"},
        {"name": "Lately", "inline": False, "value": "#1 New No Honor in Surrender game: Marines vs Japanese"}]


async def test_game_status_without_a_game_is_refused(table):
    assert await table.refused("game status", user=CAROL) == NO_GAME


# --- /game phase -------------------------------------------------------------------------


async def test_game_phase_ends_the_rally_phase_and_shows_its_clean_ups(table):
    await start_asl(table)
    await seat_players(table)
    await table.as_gm("unit add", {"id": "R1", "side": "Russians", "type": "rus-447", "location": "C4"})
    await table.as_gm("unit edit", {"unit": "R1", "stats": "broken=yes dm=yes"})

    # players end their part with /done; jumping to a phase is the game master's correction
    assert await table.refused("game phase", user=BOB) == (
        "only the game master may move the game to another phase (players end their part with /done): it "
        "corrects the game, it is not a move")
    reply = await table.as_gm("game phase")

    assert reply.embeds == [{
        "type": "rich", "flags": 0, "color": GREY, "title": "Turn 1, Prep Fire Phase: Germans to act",
        "description": "Advanced Squad Leader · turn 1, Prep Fire Phase · Germans to act",
        "fields": [
            {"name": "Trail", "inline": False, "value": (
                "4-4-7 R1: DM removed  [A10.62]\n"
                "The bot does not track which enemy units are Known: DM comes off every unit; one adjacent to a Known armed enemy keeps it, "
                "so put it back with /unit edit (A10.62)\n"
                "Phase: RPh -> PFPh; turn 1, Prep Fire Phase: Germans to act (moved on by the game master)")},
            {"name": "Effects", "inline": False, "value": "4-4-7 R1: broken, DM -> broken (DM removed)"},
        ],
        "footer": {"text": "log #6"},
    }]
    game = await table.game()
    assert (game.phase, game.units["R1"].dm, game.units["R1"].broken) == ("PFPh", False, True)


async def test_game_phase_to_a_named_phase_ends_every_phase_in_between(table):
    await start_asl(table)
    await seat_players(table)
    reply = await table.as_gm("game phase", {"to": "RPh"})  # round to the Russians' turn
    assert reply.embeds[0]["title"] == "Turn 1, Rally Phase, ATTACKER's part: Russians to act"
    assert reply.embeds[0]["fields"][0]["value"] == (
        "Phase: RPh -> RPh; turn 1, Rally Phase, ATTACKER's part: Russians to act (moved on by the game master)")
    game = await table.game()
    assert (game.turn, game.phase, game.active_side) == (1, "RPh", 1)


async def test_game_phase_refusals(table):
    assert await table.refused("game phase") == NO_GAME
    await start_asl(table)
    await seat_players(table)
    assert await table.refused("game phase", {"to": "Lunch"}, user=GM) == (
        "unknown phase 'Lunch' (phases: RPh, PFPh, MPh, DFPh, AFPh, RtPh, APh, CCPh)")
    assert await table.refused("game phase", user=CAROL) == (
        "only the players of this game give orders here: join a side first "
        "(anyone may look at the game and its log)")


# --- /game end ---------------------------------------------------------------------------


async def test_game_end_by_the_game_master_closes_the_game_and_frees_the_channel(table):
    await start_asl(table)
    await seat_players(table)
    await table.as_gm("unit add", {"id": "A1", "side": "Germans", "type": "ger-467", "location": "B3"})

    reply = await end_game(table)
    end = await last_entry(table)

    assert reply.embeds == [{
        "type": "rich", "flags": 0, "color": GREY, "title": "Game over after turn 1",
        "description": "Advanced Squad Leader · turn 1, Rally Phase, ATTACKER's part · Germans to act",
        "fields": [{"name": "Trail", "inline": False, "value": "Germans: 1 unit in play\nRussians: 0 units in play"}],
        # the end reveals the last dice seed: anyone may now re-derive every die (docs/dice.md)
        # and on a line of its own the turn's seal, which an audit of an export compares (issue 28)
        "footer": {"text": f"log #5 · dice seed revealed: {end.dice_proof['reveal']}\n"
                           f"Turn 1 sealed at #5: chain {end.hash[:16]} · 0 dice drawn by the bot"},
    }]
    assert await table.snapshot() == (None, 0)
    assert (await table.bot.referee.verify(GAME_CHANNEL)).ok
    started = await table.send("game new", {"ruleset": "cd", "sides": "Blue, Red"}, user=BOB)
    assert started.embeds[0]["footer"]["text"].startswith("log #1 · dice commitment")  # a new game, a new log


async def test_game_end_by_a_player_is_refused(table):
    await start_asl(table)
    await seat_players(table)
    assert await table.refused("game end", user=ALICE) == (
        "only the game master (who started the game) or someone with Manage Channels may end the game")
    assert await table.refused("game end", user=CAROL, channel=THREAD) == NO_GAME


# --- autocomplete ------------------------------------------------------------------------


async def test_side_and_phase_autocomplete_offer_the_channel_s_values(table):
    await table.as_gm("game new", {"ruleset": "nhis", "sides": "Marines, Japanese"})
    assert await table.autocomplete("game join", {"side": ""}, focused="side") == [
        {"name": "Marines", "value": "Marines"}, {"name": "Japanese", "value": "Japanese"}]
    assert await table.autocomplete("game join", {"side": "jap"}, focused="side") == [
        {"name": "Japanese", "value": "Japanese"}]
    phases = get_ruleset("nhis").phases
    assert await table.autocomplete("game phase", {"to": ""}, focused="to") == [
        {"name": f"{p} ({get_ruleset('nhis').phase_names[p]})", "value": p} for p in phases]
    assert await table.autocomplete("game phase", {"to": "adm"}, focused="to") == [
        {"name": "Administrative (Administrative Phase)", "value": "Administrative"}]


async def test_autocomplete_in_a_channel_without_a_game_offers_nothing(table):
    assert await table.autocomplete("game join", {"side": ""}, focused="side") == []
    assert await table.autocomplete("game phase", {"to": ""}, focused="to") == []


# --- help text ---------------------------------------------------------------------------


async def test_every_set_up_command_and_option_has_help_text(table):
    """discord.py fills a missing description with '…'; players would see nothing useful."""
    synced = {c["name"]: c for c in table.fake.commands_for(table.fake.guild().id)}
    expected = {"game": ["deadline", "end", "join", "kick", "leave", "map", "new", "options", "pause", "phase",
                         "reopen", "replace", "resume", "status"],
                "unit": ["add", "edit", "info", "list", "move", "remove", "types"], "location": ["set"]}
    for group, subcommands in expected.items():
        assert synced[group]["description"] not in ("", "…")
        assert sorted(s["name"] for s in synced[group]["options"]) == subcommands
        for sub in synced[group]["options"]:
            texts = [sub["description"]] + [o["description"] for o in sub.get("options") or []]
            assert all(len(t) > 10 and t != "…" for t in texts), (group, sub["name"], texts)
