"""The referee service: permissions, exactly-once, per-channel serialization, the verifiable log."""

import asyncio
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import replay_entries
from bot.core.errors import IllegalOrder, InvalidOrder, RulesError
from bot.core.rulesets import get_ruleset
from bot.service import GameExists, NoGame, NotAllowed, Referee
from bot.work import Worker
from bot.record import canonical_json, state_hash
from bot.record.replay import ReplayRefused, creation_order, game_from_creation

from tests.store.helpers import (CHANNEL, GERMAN, GM, GUILD, MANAGER, RUSSIAN, STRANGER, TABLE_DICE, CountingDice,
                                 asl_squad, break_entry_insert, nhis_squad, raw_edit, seated_asl_game)
from bot.store import open_store
from bot.store.sqlite import pack_json


@pytest.fixture
def referee(store, counter):
    # long work on the loop (tests/cogs/test_long_work.py tests the workers)
    return Referee(store, dice=counter, worker=Worker(inline_below=float("inf")))


async def nhis_game(referee, channel=CHANNEL):
    await referee.new_game(channel, GUILD, GM, "nhis", ["Americans", "Japanese"],
                           options=TABLE_DICE)
    await referee.act(channel, GERMAN, {"action": "join", "side": 0, "player": GERMAN.user_id,
                                               "approved_by": GM.user_id}, command="/game join")
    await referee.act(channel, GM, nhis_squad("U1", 0, morale=5), command="/unit add")  # shaken; rallies on 1-5


# --- games ---------------------------------------------------------------------------------


async def test_a_new_game_is_logged_as_entry_1_with_its_creation_order(referee):
    acted = await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], scenario="Guards",
                                   options={"elr": [3, 2]})
    assert acted.seq == 1 and acted.entry.command == "/game new" and acted.entry.actor == GM.user_id
    assert acted.entry.order == {"action": "new_game", "ruleset": "asl", "sides": ["Germans", "Russians"],
                                 "scenario": "Guards", "variant": None,
                                 # a game created now: the options given, ASL's creation defaults (markers and
                                 # wounds on the units), the bot's own manual_dice=none, the grid mark (the map
                                 # counts its ranges)
                                 "options": {"elr": [3, 2], "asl_markers": 1, "asl_wounds": True,
                                             "manual_dice": "none", "grid": 1},
                                 # the game's options (elr went to the sides) in the order the game keeps them,
                                 # which the log's sorted JSON loses: the replay puts them back in it
                                 "option_order": ["asl_markers", "asl_wounds", "manual_dice", "grid"],
                                 "gm": GM.user_id, "sequence": 1}
    assert acted.game.gm == GM.user_id and [s.elr for s in acted.game.sides] == [3, 2]
    assert list(acted.game.options) == acted.entry.order["option_order"]
    assert acted.outcome.headline == "New Advanced Squad Leader game: Germans vs Russians (Guards)"
    assert await referee.game(CHANNEL) == acted.game


def test_a_creation_replayed_from_the_log_keeps_the_games_order_of_its_options():
    # the order as the log holds it (canonical JSON: keys sorted), replayed as verify does
    order = json.loads(canonical_json(creation_order("cd", ["US", "Germany"], "", None,
                                                     {"undo_minutes": 5, "details": "always"}, GM.user_id)))
    made = [*order["options"]]  # sorted: the order a creation logged before option_order replays in
    assert made == sorted(made) and list(game_from_creation(order).options) == made
    kept = ["undo_minutes", "details", "cd_depletion_after_hits", "cd_turn_rules", "manual_dice"]  # as made live
    assert list(game_from_creation({**order, "option_order": kept}).options) == kept
    for wrong in (kept[1:], [*kept, "grid"], [*kept[:-1], 5]):  # one left out, one the game has not, not a name
        with pytest.raises(ReplayRefused, match="records an order of its options that does not match them"):
            game_from_creation({**order, "option_order": wrong})


async def test_a_second_game_in_the_channel_is_refused_with_how_to_end_the_first(referee):
    await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"])
    with pytest.raises(GameExists, match=r"^There is already a game in this channel \(Advanced Squad Leader, "
                                         r"Germans vs Russians, turn 1\).*/game end"):
        await referee.new_game(CHANNEL, GUILD, GERMAN, "cd", ["Blue", "Red"])


@pytest.mark.parametrize("call", ["game", "act", "log", "verify", "end_game"])
async def test_a_channel_without_a_game_says_how_to_start_one(referee, call):
    calls = {
        "game": lambda: referee.game(CHANNEL),
        "act": lambda: referee.act(CHANNEL, GM, {"action": "phase"}, command="/phase"),
        "log": lambda: referee.log(CHANNEL),
        "verify": lambda: referee.verify(CHANNEL),
        "end_game": lambda: referee.end_game(CHANNEL, GM),
    }
    with pytest.raises(NoGame) as err:
        await calls[call]()
    assert str(err.value) == "There is no game in this channel: start one with /game new"
    assert isinstance(err.value, RulesError)


async def test_the_game_master_ends_the_game_and_a_new_one_may_start(referee):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="only the game master"):
        await referee.end_game(CHANNEL, GERMAN)
    ended = await referee.end_game(CHANNEL, GM)
    assert ended.seq == 6 and ended.entry.order == {"action": "end_game"}
    assert ended.outcome.trail[0].label == "Germans: 1 unit in play"
    with pytest.raises(NoGame):
        await referee.game(CHANNEL)
    page = await referee.log(CHANNEL)  # the ended game's log stays readable
    assert page.status == "ended" and page.total == 6
    await referee.new_game(CHANNEL, GUILD, RUSSIAN, "cd", ["Blue", "Red"])
    assert (await referee.log(CHANNEL)).total == 1


async def test_a_refused_order_changes_nothing_and_logs_nothing(referee):
    await seated_asl_game(referee)
    before = await referee.game(CHANNEL)
    with pytest.raises(InvalidOrder, match="no unit 'Z9'"):
        await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "Z9", "location": "C5"}, command="/unit move")
    assert await referee.game(CHANNEL) == before
    assert (await referee.log(CHANNEL)).total == 5


# --- permissions -----------------------------------------------------------------------------


async def test_a_player_moves_their_own_side_s_unit(referee):
    await seated_asl_game(referee)
    await referee.act(CHANNEL, GM, {"action": "phase", "to": "MPh"}, command="/game phase")
    acted = await referee.act(CHANNEL, GERMAN, {"action": "move", "units": ["A1"], "to": "B6"}, command="/move")
    assert acted.game.units["A1"].location == "B6" and acted.entry.actor == GERMAN.user_id


async def test_a_player_may_not_move_the_other_side_s_unit(referee):
    await seated_asl_game(referee)
    await referee.act(CHANNEL, GM, {"action": "phase", "to": "MPh"}, command="/game phase")
    with pytest.raises(NotAllowed, match=r"^4-6-7 R1 belongs to Russians; you play Germans$"):
        await referee.act(CHANNEL, GERMAN, {"action": "move", "units": ["R1"], "to": "B6"}, command="/move")


async def test_a_player_may_not_add_a_unit_to_the_other_side(referee):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="the new unit belongs to Germans; you play Russians"):
        await referee.act(CHANNEL, RUSSIAN, {"action": "unit_add", "id": "A2", "type": "ger-467", "side": 0},
                          command="/unit add")
    acted = await referee.act(CHANNEL, RUSSIAN, {"action": "unit_add", "id": "R2", "type": "rus-458", "side": 1},
                              command="/unit add")
    assert acted.game.units["R2"].side == 1


async def test_a_player_adds_library_counters_only_and_the_game_master_custom_ones(referee):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="numbers of its own is the game master's"):
        await referee.act(CHANNEL, RUSSIAN, asl_squad("R2", 1), command="/unit add")
    with pytest.raises(NotAllowed, match="'morale' changes the library counter's numbers"):
        await referee.act(CHANNEL, RUSSIAN, {"action": "unit_add", "id": "R2", "type": "rus-458", "side": 1,
                                             "stats": {"morale": 9}}, command="/unit add")
    acted = await referee.act(CHANNEL, GM, asl_squad("R2", 1, None), command="/unit add")
    assert acted.game.units["R2"].morale == 7


async def test_a_fire_group_naming_an_enemy_unit_is_refused_before_any_roll(referee, counter):
    await seated_asl_game(referee)
    order = {"action": "fire", "firers": ["A1", "R1"], "target": "C5", "range": 1}
    with pytest.raises(NotAllowed, match="R1 belongs to Russians"):
        await referee.act(CHANNEL, GERMAN, order, command="/fire")
    assert counter.drawn == 0


async def test_a_support_weapon_acts_for_the_side_of_the_unit_possessing_it(referee):
    await seated_asl_game(referee)
    await referee.act(CHANNEL, GM, {"action": "unit_add", "id": "MG1", "side": 1, "location": "C5",
                                    "stats": {"kind": "sw", "name": "LMG", "sw_type": "LMG", "owner": "R1"}},
                      command="/unit add")
    with pytest.raises(NotAllowed, match="4-6-7 R1 belongs to Russians; you play Germans"):
        await referee.act(CHANNEL, GERMAN, {"action": "transfer", "weapon": "MG1", "to": "A1"}, command="/transfer")


async def test_someone_who_is_not_a_player_may_only_look(referee):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="only the players of this game give orders"):
        await referee.act(CHANNEL, STRANGER, {"action": "phase"}, command="/phase")
    assert (await referee.game(CHANNEL)).units["A1"].location == "B5"  # looking is open to all
    assert (await referee.log(CHANNEL)).total == 5


async def test_only_the_side_holding_the_step_ends_it(referee):
    await seated_asl_game(referee)
    with pytest.raises(IllegalOrder, match=r"^Germans hold the Rally Phase, ATTACKER's part: only they end it"):
        await referee.act(CHANNEL, RUSSIAN, {"action": "done", "side": 1}, command="/done")
    acted = await referee.act(CHANNEL, GERMAN, {"action": "done", "side": 0}, command="/done")
    assert (acted.game.phase, acted.game.to_act, acted.hand_off) == ("RPh", 1, 1)


async def test_a_player_moves_the_phase_on_only_with_done_the_game_master_jumps(referee):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="only the game master may move the game to another phase"):
        await referee.act(CHANNEL, RUSSIAN, {"action": "phase"}, command="/game phase")
    acted = await referee.act(CHANNEL, GM, {"action": "phase"}, command="/game phase")
    assert acted.game.phase == "PFPh"


@pytest.mark.parametrize("order", [
    {"action": "location_set", "location": "B5", "terrain": "open"},
    {"action": "unit_edit", "unit": "A1", "changes": {"morale": 8}},
    {"action": "unit_remove", "unit": "A1"},
])
async def test_corrections_are_for_the_game_master_only(referee, order):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="only the game master may"):
        await referee.act(CHANNEL, GERMAN, order, command="/correct")
    acted = await referee.act(CHANNEL, GM, order, command="/correct")
    assert acted.seq == 6


async def test_the_game_master_acts_for_either_side(referee):
    await seated_asl_game(referee)
    acted = await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "R1", "location": "D5"},
                              command="/unit move")
    assert acted.game.units["R1"].location == "D5"


async def test_a_channel_manager_acts_as_game_master(referee):
    await seated_asl_game(referee)
    acted = await referee.act(CHANNEL, MANAGER, {"action": "unit_edit", "unit": "R1", "changes": {"morale": 8}},
                              command="/unit edit")
    assert acted.game.units["R1"].morale == 8


async def test_a_seat_needs_the_game_masters_approval_and_the_players_own_consent(referee):
    await seated_asl_game(referee)
    join = {"action": "join", "side": 1, "player": STRANGER.user_id}
    with pytest.raises(NotAllowed, match="^seats are given by the game master"):
        await referee.act(CHANNEL, STRANGER, join, command="/game join")  # nobody approved it
    with pytest.raises(NotAllowed, match="^seating another player needs their acceptance"):
        await referee.act(CHANNEL, GM, join, command="/game join")  # nobody asked for it
    with pytest.raises(NotAllowed, match="only for yourself"):
        await referee.act(CHANNEL, GERMAN, {"action": "join", "side": 1, "player": 4242}, command="/game join")
    # the stranger accepts the game master's invitation; the game master approves another's request
    acted = await referee.act(CHANNEL, STRANGER, join | {"approved_by": GM.user_id}, command="/game join")
    assert STRANGER.user_id in acted.game.sides[1].players
    acted = await referee.act(CHANNEL, GM, {"action": "join", "side": 0, "player": 4242, "requested": True},
                              command="/game join")
    assert 4242 in acted.game.sides[0].players
    assert acted.outcome.trail[-1].label == "Asked for by the player; approved by the game master"


async def test_open_seating_lets_players_sit_down_themselves(referee):
    await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], options={"open_seating": True})
    acted = await referee.act(CHANNEL, STRANGER, {"action": "join", "side": 1, "player": STRANGER.user_id},
                              command="/game join")
    assert STRANGER.user_id in acted.game.sides[1].players


async def test_a_player_leaves_and_the_game_master_unseats_anyone(referee):
    await seated_asl_game(referee)
    acted = await referee.act(CHANNEL, GERMAN, {"action": "leave", "player": GERMAN.user_id}, command="/game leave")
    assert GERMAN.user_id not in acted.game.sides[0].players
    with pytest.raises(NotAllowed, match="only for yourself"):
        await referee.act(CHANNEL, RUSSIAN, {"action": "leave", "player": 4242}, command="/game kick")
    acted = await referee.act(CHANNEL, GM, {"action": "leave", "player": RUSSIAN.user_id}, command="/game kick")
    assert acted.game.sides[1].players == []


async def test_a_cd_company_acts_for_the_side_of_its_stands(referee):
    await referee.new_game(CHANNEL, GUILD, GM, "cd", ["Blue", "Red"])
    await referee.act(CHANNEL, RUSSIAN, {"action": "join", "side": 1, "player": RUSSIAN.user_id,
                                                 "approved_by": GM.user_id}, command="/game join")
    await referee.act(CHANNEL, GM, {"action": "unit_add", "id": "S1", "side": 0, "stats": {"company": "1st"}},
                      command="/unit add")
    with pytest.raises(NotAllowed, match="company 1st belongs to Blue; you play Red"):
        await referee.act(CHANNEL, RUSSIAN, {"action": "morale", "company": "1st"}, command="/morale")


# --- dice, exactly once ----------------------------------------------------------------------


async def test_the_entry_logs_the_dice_the_core_consumed(referee, counter):
    await nhis_game(referee)
    acted = await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, command="/rally")
    assert acted.outcome.rolls[0].dice == (3,) and acted.entry.dice == (3,)  # the NHiS rally's 1d6
    assert acted.entry.manual is False and counter.drawn == 1
    assert [s.label for s in acted.outcome.trail] == [  # NHiS 8.2: 1d6 against the morale
        "Rally: Rifle U1", "Morale of Rifle U1", "1d6", "3 vs 5: rallies", "Rifle U1: rallies: Prepared"]
    assert acted.game.units["U1"].shaken is False


async def test_manual_dice_are_used_logged_and_never_topped_up(referee, counter):
    await nhis_game(referee)
    acted = await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, dice=[6, 2], command="/rally")
    assert acted.outcome.manual_dice and acted.outcome.unused_dice == (2,)
    assert acted.entry.dice == (6, 2) and acted.entry.manual is True
    assert acted.game.units["U1"].shaken is True  # 6 > morale 5
    assert counter.drawn == 0


async def test_an_interaction_delivered_twice_rolls_once(referee, counter):
    await nhis_game(referee)
    first = await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, command="/rally",
                              interaction_id=5001)
    again = await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, command="/rally",
                              interaction_id=5001)
    assert counter.drawn == 1
    assert (first.replayed, again.replayed) == (False, True)
    assert again.outcome == first.outcome and again.entry == first.entry and again.game == first.game
    assert (await referee.log(CHANNEL)).total == 4


async def test_a_redelivered_interaction_is_answered_from_the_log_after_a_restart(store_database):
    store = await open_store(store_database)
    try:
        await nhis_game(Referee(store))
        first = await Referee(store).act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, command="/rally",
                                         interaction_id=6001)
    finally:
        await store.close()
    counter = CountingDice()
    store = await open_store(store_database)
    try:
        again = await Referee(store, dice=counter).act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"},
                                                       command="/rally", interaction_id=6001)
    finally:
        await store.close()
    assert again.replayed and again.outcome == first.outcome and counter.drawn == 0


async def test_a_game_creation_delivered_twice_creates_one_game(referee):
    first = await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], interaction_id=7001)
    again = await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"], interaction_id=7001)
    assert again.replayed and again.entry == first.entry


async def test_a_seal_and_a_secret_roll_delivered_twice_are_sealed_once_and_give_the_same_copy(referee):
    await seated_asl_game(referee)
    first = await referee.seal(CHANNEL, GERMAN, "ambush from the orchard", interaction_id=8001)
    again = await referee.seal(CHANNEL, GERMAN, "another text entirely", interaction_id=8001)
    assert again.acted.replayed and again.acted.entry == first.acted.entry
    assert (again.text, again.nonce) == ("ambush from the orchard", first.nonce)  # the sealer's copy, from the store
    rolled = await referee.secret_roll(CHANNEL, GERMAN, "dr", "spotting", interaction_id=8002)
    rerolled = await referee.secret_roll(CHANNEL, GERMAN, "dr", "spotting", interaction_id=8002)
    # the same entry, and the same text and nonce (a second seal would have drawn a new nonce)
    assert rerolled.acted.entry == rolled.acted.entry and (rerolled.text, rerolled.nonce) == (rolled.text, rolled.nonce)
    assert (await referee.log(CHANNEL)).total == rolled.acted.entry.seq


async def test_who_may_seal_and_roll_in_secret_is_said_in_plain_words(referee):
    await seated_asl_game(referee)
    with pytest.raises(NotAllowed, match="^only the players of this game and its game master may seal orders: join"):
        await referee.seal(CHANNEL, STRANGER, "a hidden text")
    with pytest.raises(NotAllowed, match="^only the players of this game and its game master may roll in secret: "):
        await referee.secret_roll(CHANNEL, STRANGER, "dr", "spotting")
    with pytest.raises(NotAllowed, match="^you play Germans; only the players of Russians and the game master may "
                                         "seal orders for it$"):
        await referee.seal(CHANNEL, GERMAN, "a hidden text", 1)


# --- one command, one transaction; one channel at a time -----------------------------------


async def test_if_saving_fails_the_game_is_unchanged(referee, store, monkeypatch):
    await seated_asl_game(referee)
    before = await referee.game(CHANNEL)

    with pytest.raises(break_entry_insert(store, monkeypatch)):
        await referee.act(CHANNEL, GM, {"action": "unit_move", "unit": "A1", "location": "Z1"}, command="/unit move")
    monkeypatch.undo()
    assert await referee.game(CHANNEL) == before
    assert (await referee.verify(CHANNEL)).ok


async def test_fifty_commands_at_once_in_one_channel_run_one_at_a_time(referee):
    await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"])
    results = await asyncio.gather(*[
        referee.act(CHANNEL, GM, asl_squad(f"A{i}", 0, None), command="/unit add") for i in range(50)])
    assert sorted(r.seq for r in results) == list(range(2, 52))
    page = await referee.log(CHANNEL, page=1, per_page=50)
    assert [e.seq for e in page.entries] == list(range(1, 51))
    assert len((await referee.game(CHANNEL)).units) == 50
    assert (await referee.verify(CHANNEL)).checked == 51


async def test_fifty_channels_at_once_all_succeed(referee):
    await asyncio.gather(*[referee.new_game(c, GUILD, GM, "asl", ["Germans", "Russians"]) for c in range(100, 150)])
    results = await asyncio.gather(*[
        referee.act(c, GM, asl_squad("A1", 0), command="/unit add") for c in range(100, 150)])
    assert {r.seq for r in results} == {2}
    assert len({r.entry.game_id for r in results}) == 50


async def test_commands_taking_turns_on_the_loop_keep_one_at_a_time_per_channel(referee, monkeypatch):
    """bot/loopshare.py: with no slice at all, every command's long part waits for an iteration of
    its own; a channel's commands still run one at a time, each in its own transaction, on the
    state the one before left, and other channels' commands interleave with them."""
    from bot import loopshare

    slices = []  # each slice of the loop's turns ends with one _turn, the waiting commands counted
    turn = loopshare._Turns._turn
    monkeypatch.setattr(loopshare, "SLICE", 0.0)
    monkeypatch.setattr(loopshare._Turns, "_turn", lambda self: (slices.append(len(self.waiting)), turn(self)))
    await asyncio.gather(*[referee.new_game(c, GUILD, GM, "asl", ["Germans", "Russians"]) for c in range(100, 120)])
    await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"])
    slices.clear()
    results = await asyncio.gather(
        *[referee.act(CHANNEL, GM, asl_squad(f"A{i}", 0, None), command="/unit add") for i in range(20)],
        *[referee.act(c, GM, asl_squad("A1", 0), command="/unit add") for c in range(100, 120)])
    assert len(slices) >= 30 and max(slices) >= 1  # the long parts one or two a slice, some waiting
    assert sorted(r.seq for r in results[:20]) == list(range(2, 22))
    assert {r.seq for r in results[20:]} == {2}
    assert len((await referee.game(CHANNEL)).units) == 20
    assert (await referee.verify(CHANNEL)).checked == 21
    assert all([(await referee.verify(c)).ok for c in range(100, 120)])


async def test_the_log_cap_is_a_clear_refusal(store_database):
    store = await open_store(store_database, max_entries=2)
    referee = Referee(store)
    try:
        await referee.new_game(CHANNEL, GUILD, GM, "asl", ["Germans", "Russians"])
        await referee.act(CHANNEL, GM, {"action": "phase"}, command="/phase")
        with pytest.raises(NotAllowed, match=r"log is full \(2 entries.*/game end"):
            await referee.act(CHANNEL, GM, {"action": "phase"}, command="/phase")
        assert (await referee.end_game(CHANNEL, GM)).seq == 3
    finally:
        await store.close()


# --- the log and verify ------------------------------------------------------------------------


async def test_the_log_pages_from_the_start_and_defaults_to_the_newest(referee):
    await seated_asl_game(referee)
    newest = await referee.log(CHANNEL, per_page=2)
    assert (newest.page, newest.pages, [e.seq for e in newest.entries]) == (3, 3, [5])
    assert [e.command for e in (await referee.log(CHANNEL, page=1, per_page=2)).entries] == ["/game new", "/game join"]
    with pytest.raises(InvalidOrder, match="the log has 3 pages; there is no page 4"):
        await referee.log(CHANNEL, page=4, per_page=2)


async def test_verify_accepts_a_played_game(referee):
    referee.dice = None  # the bot's committed dice: verify re-derives them (a counting source fails it)
    await nhis_game(referee)
    await referee.act(CHANNEL, GM, nhis_squad("U2", 0, morale=5), command="/unit add")
    await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, command="/rally")
    await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U2"}, dice=[1, 4], command="/rally")
    await referee.act(CHANNEL, GM, {"action": "phase", "to": "Administrative"}, command="/phase")
    await referee.end_game(CHANNEL, GM)
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.checked, report.first_bad_seq) == (True, 8, None)


async def test_the_export_replays_through_the_rules_interface(referee):
    await nhis_game(referee)
    await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, dice=[2, 2, 6], command="/rally")
    export = await referee.export(CHANNEL)
    assert replay_entries(json.loads(json.dumps(export["entries"]))) == (True, "4 entries reproduced bit for bit")


async def test_verify_names_an_entry_whose_outcome_was_edited(referee, store_database):
    await seated_asl_game(referee)
    outcome = (await referee.log(CHANNEL, page=1, per_page=5)).entries[3].outcome
    forged = canonical_json({**outcome, "headline": "8-1 A1 joins Germans"})
    await raw_edit(store_database, "UPDATE log_entries SET outcome = ? WHERE seq = 4", (pack_json(forged),))
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 3, 4)
    assert report.reason == "entry #4 was changed after it was written: its content does not match its hash"


async def test_verify_names_a_deleted_entry(referee, store_database):
    await seated_asl_game(referee)
    await raw_edit(store_database, "DELETE FROM log_entries WHERE seq = 3")
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.first_bad_seq) == (False, 3)
    assert report.reason == "entry #3 is missing: the log goes from #2 to #4"


async def test_verify_names_a_deleted_last_entry(referee, store_database):
    await seated_asl_game(referee)
    await raw_edit(store_database, "DELETE FROM log_entries WHERE seq = 5")
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 4, 5)


async def test_verify_catches_a_forged_entry_even_with_a_recomputed_chain(referee, store_database):
    """Someone rewrites a rally's dice and re-hashes every entry: the replay still disagrees."""
    await nhis_game(referee)
    await referee.act(CHANNEL, GERMAN, {"action": "rally", "unit": "U1"}, dice=[6, 6], command="/rally")
    store = await open_store(store_database)
    try:
        [entry] = [e async for e in store.iter_entries(1) if e.seq == 4]
    finally:
        await store.close()
    forged = entry.model_copy(update={"dice": (1, 1)})
    forged = forged.model_copy(update={"hash": forged.expected_hash()})
    await raw_edit(store_database, "UPDATE log_entries SET dice = ?, hash = ? WHERE seq = 4", ("[1,1]", forged.hash))
    await raw_edit(store_database, "UPDATE games SET head_hash = ?", (forged.hash,))
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.first_bad_seq) == (False, 4)
    assert report.reason == ("replaying entry #4 gives a different result "
                             '(outcome.effects[0].after: logged "Shaken", replayed "Prepared")')


async def test_verify_catches_a_state_edited_outside_the_bot(referee, store_database):
    await seated_asl_game(referee)
    game = await referee.game(CHANNEL)
    edited = game.model_copy(update={"turn": 9})
    await raw_edit(store_database, "UPDATE games SET state = ?", (edited.model_dump_json(),))
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 5, None)
    assert "saved game state does not match the state after entry #5" in report.reason


async def test_verify_catches_units_reordered_outside_the_bot_which_the_state_hash_cannot_see(referee, store_database):
    # the state hash covers sorted JSON; the order of the units is still part of the game
    await seated_asl_game(referee)
    game = await referee.game(CHANNEL)
    reordered = game.model_copy(update={"units": dict(reversed(game.units.items()))})
    assert list(reordered.units) == ["R1", "A1"] and state_hash(reordered) == state_hash(game)
    await raw_edit(store_database, "UPDATE games SET state = ?", (reordered.model_dump_json(),))
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 5, None)
    assert report.reason == ("the saved game state holds its units in another order than the state after "
                             "entry #5: it was changed outside the bot")


async def test_verify_catches_locations_reordered_outside_the_bot(referee, store_database):
    await seated_asl_game(referee)
    await referee.act(CHANNEL, GM, {"action": "location_set", "location": "D6", "terrain": "woods"},
                      command="/location set")
    game = await referee.game(CHANNEL)
    reordered = game.model_copy(update={"locations": dict(reversed(game.locations.items()))})
    assert list(reordered.locations) == ["D6", "C5", "B5"] and state_hash(reordered) == state_hash(game)
    await raw_edit(store_database, "UPDATE games SET state = ?", (reordered.model_dump_json(),))
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.checked, report.first_bad_seq) == (False, 6, None)
    assert report.reason == ("the saved game state holds its Locations in another order than the state after "
                             "entry #6: it was changed outside the bot")


async def test_after_an_undo_the_replay_keeps_the_units_in_the_order_the_live_game_has(referee):
    # the order of the units is part of the game (a stack is listed in it); an undo restores the
    # state before the undone entry, and the replay of the undo must restore it in the same order,
    # or every later result that lists the stack differs on replay and verify cries tamper
    await seated_asl_game(referee)
    for unit in ("R9", "R2"):  # ids whose sorted order is not the order they were added in
        await referee.act(CHANNEL, GM, asl_squad(unit, 1, "C5"), command="/unit add")
    await referee.act(CHANNEL, GM, {"action": "phase", "to": "PFPh"}, command="/game phase")
    fire = {"action": "fire", "firers": ["A1"], "target": "C5", "range": 1}
    await referee.act(CHANNEL, GERMAN, fire, dice=[6, 6], command="/fire")
    proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
    await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
    assert list((await referee.game(CHANNEL)).units) == ["A1", "R1", "R9", "R2"]
    again = await referee.act(CHANNEL, GERMAN, fire, dice=[6, 6], command="/fire")
    assert again.outcome.trail[1].label == "Target in C5: 4-6-7 R1, 4-6-7 R9, 4-6-7 R2"  # after the range
    report = await referee.verify(CHANNEL)
    assert report.ok, report.reason


async def test_an_undo_logged_before_unit_orders_were_recorded_still_verifies(referee, store_database):
    # such an undo replays with the units sorted by id: verify cannot know the live order after it
    await seated_asl_game(referee)
    for unit in ("R9", "R2"):
        await referee.act(CHANNEL, GM, asl_squad(unit, 1, "C5"), command="/unit add")
    await referee.act(CHANNEL, GM, asl_squad("A0", 0, "B5"), command="/unit add")
    proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
    await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
    store = await open_store(store_database)
    try:
        entries = [e async for e in store.iter_entries(1)]
    finally:
        await store.close()
    undo = entries[-1]
    assert undo.order["action"] == "undo" and undo.order["unit_order"] == ["A1", "R1", "R9", "R2"]
    legacy_order = {k: v for k, v in undo.order.items() if k not in ("unit_order", "location_order")}
    legacy = undo.model_copy(update={"order": legacy_order})
    legacy = legacy.model_copy(update={"hash": legacy.expected_hash()})  # as an older bot sealed it
    await raw_edit(store_database, "UPDATE log_entries SET order_json = ?, hash = ? WHERE seq = ?",
               (canonical_json(legacy_order), legacy.hash, undo.seq))
    await raw_edit(store_database, "UPDATE games SET head_hash = ?", (legacy.hash,))
    assert list((await referee.game(CHANNEL)).units) == ["A1", "R1", "R9", "R2"]  # the live order
    report = await referee.verify(CHANNEL)
    assert report.ok, report.reason


# --- unit edits replay as they were shown (issue 17's full run: "range 4 -> 6" logged, "kind" replayed) ----

EDITABLE = {"fp": st.integers(0, 36), "range": st.integers(0, 40), "morale": st.integers(0, 10),
            "broken_morale": st.integers(0, 10), "kind": st.sampled_from(["squad", "half_squad", "crew"]),
            "name": st.sampled_from(["4-6-7", "Hero", "Ödön"]), "broken": st.booleans(), "pinned": st.booleans(),
            "cx": st.booleans(), "leadership": st.integers(-3, 3)}


@st.composite
def unit_edits(draw) -> list[dict]:
    """Edits of A1 and R1 as a game master types them: several fields in any order, an edit that
    changes nothing, the same unit again; sometimes both units at once (/unit edit at:)."""
    edits = []
    for _ in range(draw(st.integers(1, 4))):
        fields = draw(st.lists(st.sampled_from(sorted(EDITABLE)), min_size=1, max_size=5, unique=True))
        changes = {field: draw(EDITABLE[field]) for field in fields}  # typed in the order drawn
        if draw(st.booleans()):
            edits.append({"action": "unit_edit_many", "units": ["R1", "A1"], "changes": changes})
        else:
            edits.append({"action": "unit_edit", "unit": draw(st.sampled_from(["A1", "R1"])), "changes": changes})
    return edits


async def _edit_and_verify(database, edits: list[dict], undo: bool) -> None:
    store = await open_store(database)
    referee = Referee(store, worker=Worker(inline_below=float("inf")))
    try:
        await seated_asl_game(referee)
        shown = []
        for order in edits:
            try:
                acted = await referee.act(CHANNEL, GM, order, command="/unit edit")
            except RulesError:
                continue  # e.g. a kind this counter cannot be
            shown.append([step.label for step in acted.outcome.trail])
        if undo and shown:
            proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
            await referee.answer_undo(proposal.request.id, GERMAN, accept=True)
        report = await referee.verify(CHANNEL)
        assert report.ok, (report.reason, edits)
        # what the players read is what the replay gives: the fields in one order, sorted
        for labels in shown:
            fields = [label.split(": ", 1)[1].split(" ", 1)[0] for label in labels]
            per_unit = len(fields) // len({label.split(": ", 1)[0] for label in labels})
            assert all(fields[i:i + per_unit] == sorted(fields[i:i + per_unit])
                       for i in range(0, len(fields), per_unit)), labels
    finally:
        await store.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=unit_edits(), undo=st.booleans())
def test_unit_edits_of_several_fields_in_any_order_replay_as_they_were_shown(tmp_path, edits, undo):
    # live, the trail listed the fields in the order typed; the log keeps the order as canonical
    # JSON (keys sorted), so the replay listed them sorted and /log verify called the entry changed
    with tempfile.TemporaryDirectory(dir=tmp_path) as folder:
        asyncio.run(_edit_and_verify(Path(folder) / "edits.sqlite3", edits, undo))


async def logged_as_before(store_database, entry, outcome: dict) -> None:
    """The newest entry's outcome written as an older bot sealed it (its hash, and the game's head, over it)."""
    legacy = entry.model_copy(update={"outcome": outcome})
    legacy = legacy.model_copy(update={"hash": legacy.expected_hash()})
    await raw_edit(store_database, "UPDATE log_entries SET outcome = ?, hash = ? WHERE seq = ?",
                   (pack_json(canonical_json(outcome)), legacy.hash, entry.seq))
    await raw_edit(store_database, "UPDATE games SET head_hash = ?", (legacy.hash,))


async def test_a_unit_edit_logged_with_its_fields_in_the_typed_order_still_verifies(referee, store_database):
    # logged by the bot before the fix: the trail in the order typed, the order itself sorted
    await seated_asl_game(referee)
    typed_order = {"range": 5, "kind": "squad", "fp": 6}
    acted = await referee.act(CHANNEL, GM, {"action": "unit_edit", "unit": "A1", "changes": typed_order},
                              command="/unit edit")
    assert [step.label for step in acted.outcome.trail] == ["4-6-7 A1: fp 4 -> 6", "4-6-7 A1: kind 'squad' -> 'squad'",
                                                            "4-6-7 A1: range 6 -> 5"]
    entry = acted.entry
    typed = {**entry.outcome, "trail": [entry.outcome["trail"][i] for i in (2, 1, 0)]}  # range, kind, fp

    await logged_as_before(store_database, entry, typed)
    report = await referee.verify(CHANNEL)
    assert report.ok, report.reason
    # the steps are compared as a set, not ignored: another value in one of them is still caught
    forged = {**typed, "trail": [{**typed["trail"][0], "label": "4-6-7 A1: range 6 -> 7"}, *typed["trail"][1:]]}
    await logged_as_before(store_database, entry, forged)
    report = await referee.verify(CHANNEL)
    assert (report.ok, report.first_bad_seq) == (False, entry.seq)
    assert "gives a different result (outcome.trail[0].label" in report.reason


async def test_a_unit_add_logged_with_its_custom_numbers_in_the_typed_order_still_verifies(referee, store_database):
    # logged by the bot between custom numbers being noted in the trail (436e610) and orders' keys
    # being sorted live (8296eec): the note in the order typed, the order itself sorted
    await seated_asl_game(referee)
    acted = await referee.act(CHANNEL, GM, {"action": "unit_add", "id": "G9", "side": 0, "location": "B5",
                                            "type": "ger-467", "stats": {"morale": 8, "fp": 5, "range": 5}},
                              command="/unit add")
    entry = acted.entry
    notes = [i for i, step in enumerate(entry.outcome["trail"]) if step["label"].startswith("Set by the game master")]
    assert [entry.outcome["trail"][i]["label"] for i in notes] == [
        "Set by the game master, not the library counter's: fp 5, morale 8, range 5"]

    def noted(label: str) -> dict:
        trail = list(entry.outcome["trail"])
        trail[notes[0]] = {**trail[notes[0]], "label": f"Set by the game master, not the library counter's: {label}"}
        return {**entry.outcome, "trail": trail}

    await logged_as_before(store_database, entry, noted("morale 8, range 5, fp 5"))  # as typed
    report = await referee.verify(CHANNEL)
    assert report.ok, report.reason
    # the numbers are compared, not their order ignored wholesale: another number, one left out or
    # one added, or another step changed, is still caught
    for forged in (noted("morale 9, range 5, fp 5"), noted("morale 8, fp 5"), noted("morale 8, range 5, fp 5, fp 5"),
                   noted("morale 8, range 5 fp 5"),
                   {**noted("morale 8, range 5, fp 5"), "headline": entry.outcome["headline"] + "!"}):
        await logged_as_before(store_database, entry, forged)
        report = await referee.verify(CHANNEL)
        assert (report.ok, report.first_bad_seq) == (False, entry.seq), forged
        assert "gives a different result" in report.reason


async def test_an_undo_proposal_past_a_run_of_undone_entries_reads_further_back_than_its_first_look(
        referee, monkeypatch):
    # the proposal reads the undos of the newest UNDO_LOOK_BACK entries first, not the whole log's;
    # when those hold fewer than two live entries it reads further back, as an undo older than the
    # first look (entry 7) may have undone an entry it then walks past (entry 6)
    import bot.service.undo

    monkeypatch.setattr(bot.service.undo, "UNDO_LOOK_BACK", 4)

    async def undo() -> None:
        proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
        await referee.answer_undo(proposal.request.id, GERMAN, accept=True)

    await seated_asl_game(referee)  # entries 1-5: R1's unit_add is entry 5
    await referee.act(CHANNEL, GM, asl_squad("A2", 0, "D5"), command="/unit add")  # entry 6
    await undo()  # entry 7 undoes 6
    for unit in ("A3", "A4", "A5"):  # entries 8-10
        await referee.act(CHANNEL, GM, asl_squad(unit, 0, "D5"), command="/unit add")
    for _ in range(3):  # entries 11-13 undo 10, 9, 8
        await undo()
    proposal = await referee.propose_undo(CHANNEL, RUSSIAN)
    assert proposal.target.seq == 5 and proposal.target.order["id"] == "R1"
    assert list(proposal.game.units) == ["A1", "R1"]


async def test_a_channels_lock_holds_its_commands_one_at_a_time_and_is_let_go_on_a_refusal(referee, monkeypatch):
    """``Desk.lock``: one command of a channel at a time, the store's lock entered inside the
    channel's (and left before it), other channels free meanwhile, and both let go when the body
    or the store's lock raises."""
    seen: list[str] = []
    fail_store_lock = False

    class StoreLock:
        def __init__(self, channel):
            self.channel = channel

        async def __aenter__(self):
            assert referee.desk.locks[self.channel].locked()  # the channel's lock is held first
            if fail_store_lock:
                raise NotAllowed("the store's lock is unreachable")
            seen.append(f"in {self.channel}")

        async def __aexit__(self, *exc):
            assert referee.desk.locks[self.channel].locked()  # and let go last
            seen.append(f"out {self.channel}")
            return False

    monkeypatch.setattr(referee.desk.store, "channel_lock", StoreLock)

    async def command(channel, tag, wait=None):
        async with referee.desk.lock(channel):
            seen.append(f"{tag} starts")
            if wait is not None:
                await wait.wait()
            seen.append(f"{tag} ends")

    release = asyncio.Event()
    first = asyncio.create_task(command(1, "a", release))
    second = asyncio.create_task(command(1, "b"))
    await asyncio.sleep(0.01)
    await command(2, "other")  # another channel is not held up by channel 1's command
    assert seen == ["in 1", "a starts", "in 2", "other starts", "other ends", "out 2"]
    release.set()
    await asyncio.gather(first, second)
    assert seen[6:] == ["a ends", "out 1", "in 1", "b starts", "b ends", "out 1"]

    held = referee.desk.lock(1)
    lock = referee.desk.locks[1]  # kept alive here, to see it let go
    with pytest.raises(NotAllowed):
        async with held:
            assert lock.locked()
            raise NotAllowed("refused")
    assert not lock.locked() and seen[-1] == "out 1"
    fail_store_lock = True
    with pytest.raises(NotAllowed, match="unreachable"):
        async with referee.desk.lock(1):
            raise AssertionError("not reached: the store's lock failed")
    assert not lock.locked()
    fail_store_lock = False
    await command(1, "c")  # the channel is free again
    assert seen[-3:] == ["c starts", "c ends", "out 1"]
