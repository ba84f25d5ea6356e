"""Limits (Issue 6, item 5), end to end through the loopback Discord: the per-player limit on
rolling commands, and the caps per game (units, locations, log size), each with its message.
A refused command leaves the game and its log exactly as they were."""

from __future__ import annotations

import pytest

import discord

from bot.config import ConfigError, Rate, Settings, load_settings
from bot.core import setup as core_setup
from bot.emulator.records import CHANNEL_MESSAGE
from bot.limits import Guarded, Quotas, RateLimited, RollRateLimiter
from bot.service import ServerCaps
from tests.cogs.conftest import ALICE, BOB, CAROL, GENERAL, GM, THREAD, refusal
from tests.cogs.helpers import GM_ACTOR, asl_game, end_game, nhis_game
from tests.reliability.audit import audit_database, size


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def asl_table(table, units: int = 2) -> None:
    """A game on the table through the real commands: GM creates it, ALICE and BOB join, units A0.. for ALICE.
    The players throw their own dice (manual_dice=all), so a check passes when a test needs it to."""
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians",
                                           "options": "manual_dice=all"})
    assert reply.embeds and not reply.ephemeral, reply.content
    await table.seat(ALICE, "Germans")
    await table.seat(BOB, "Russians")
    for i in range(units):
        await table.as_gm("unit add", {"id": f"A{i}", "side": "Germans", "type": "ger-467", "location": "B5"})
    await table.as_gm("unit add", {"id": "R0", "side": "Russians", "type": "ger-467", "location": "C5"})


# --- the rate limit ---------------------------------------------------------------------


def test_the_limiter_counts_a_sliding_window_per_player():
    clock = FakeClock()
    limiter = RollRateLimiter(3, 60, clock=clock)
    assert [limiter.retry_after(1, i) for i in range(3)] == [None, None, None]
    clock.now += 10
    assert limiter.retry_after(1, 99) == pytest.approx(50)  # the first of the 3 leaves the window at +60
    assert limiter.retry_after(2, 100) is None  # another player is not held up
    assert limiter.retry_after(1, 2) is None  # an interaction already counted (a redelivery) passes
    clock.now += 50
    assert limiter.retry_after(1, 101) is None


def test_the_limit_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("REFEREE_ROLL_LIMIT", "5")
    monkeypatch.setenv("REFEREE_ROLL_WINDOW", "30")
    limiter = RollRateLimiter.from_settings()
    assert (limiter.limit, limiter.window) == (5, 30)
    monkeypatch.delenv("REFEREE_ROLL_LIMIT")
    monkeypatch.delenv("REFEREE_ROLL_WINDOW")
    assert (Settings().roll_limit, Settings().roll_window) == (20, 60)
    monkeypatch.setenv("REFEREE_ROLL_LIMIT", "0")
    with pytest.raises(ConfigError, match=r"^invalid setting REFEREE_ROLL_LIMIT: Input should be greater than "
                                          r"or equal to 1 \(got '0'\)$"):
        RollRateLimiter.from_settings()


def test_idle_players_are_forgotten():
    clock = FakeClock()
    limiter = RollRateLimiter(2, 60, clock=clock)
    for user in range(999):
        limiter.retry_after(user, user)
    clock.now += 61
    limiter.retry_after(5000, 5000)  # the 1000th check sweeps every player idle for a window
    assert limiter.tracked_players == 1


async def test_a_player_over_the_roll_limit_is_told_when_to_try_again_and_nothing_rolls(table):
    clock = FakeClock()
    table.bot.roll_limiter = RollRateLimiter(3, 60, clock=clock)
    await asl_table(table)
    for _ in range(3):  # manual dice that pass: the unit stays in play for the checks below
        reply = await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)
        assert reply.embeds and not reply.ephemeral
    before = await table.snapshot()
    clock.now += 20
    over = await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)
    assert over.ephemeral and over.type == CHANNEL_MESSAGE and not over.embeds
    assert over.content.startswith("Slow down: you gave 3 rolling commands in the last 60 seconds, the most one "
                                   "player may. Nothing was rolled. Try again in 40 seconds (<t:")
    assert await table.snapshot() == before  # nothing rolled, nothing logged
    # looking, setting up and the other player are not held up
    assert not (await table.send("game status", user=ALICE)).ephemeral
    assert not (await table.send("morale", {"unit": "R0", "dice": "2 3"}, user=BOB)).ephemeral
    clock.now += 40
    assert not (await table.send("morale", {"unit": "A1", "dice": "2 3"}, user=ALICE)).ephemeral
    assert (await audit_database(table.database)).entries == before[1] + 2


# --- the quotas on every command and button (issue 17) ------------------------------------------


def quotas(clock, **rates: str) -> Quotas:
    """Quotas of the given rates (the others off), on a fake clock."""
    names = ("quota_user", "quota_channel", "quota_server", "quota_heavy_user", "quota_heavy_channel",
             "quota_heavy_server")
    return Quotas(Settings(**{name: rates.get(name, "off") for name in names}), clock=clock)


def test_each_quota_counts_its_own_scope_and_a_refusal_counts_nowhere():
    clock = FakeClock()
    q = quotas(clock, quota_user="2/60", quota_channel="3/60", quota_server="4/60")
    q.check(user=1, channel=10, server=100, heavy=False, interaction_id=1)
    q.check(user=1, channel=10, server=100, heavy=False, interaction_id=2)
    with pytest.raises(RateLimited, match=r"^Slow down: you gave 2 commands and button presses in the last minute, "
                                          r"the most one player may\. Nothing was done\. Try again in 60 seconds "
                                          r"\(<t:\d+:T>\)\. Other players' commands still go through\.$"):
        q.check(user=1, channel=10, server=100, heavy=False, interaction_id=3)
    q.check(user=2, channel=10, server=100, heavy=False, interaction_id=4)  # another player: the channel's third
    with pytest.raises(RateLimited, match=r"^Slow down: this channel had 3 commands and button presses in the last "
                                          r"minute, the most one channel may\."):
        q.check(user=3, channel=10, server=100, heavy=False, interaction_id=5)
    q.check(user=3, channel=11, server=100, heavy=False, interaction_id=6)  # the refused one counted nowhere
    with pytest.raises(RateLimited, match=r"^Slow down: this server had 4 commands"):
        q.check(user=4, channel=12, server=100, heavy=False, interaction_id=7)
    q.check(user=4, channel=12, server=200, heavy=False, interaction_id=8)  # another server
    q.check(user=1, channel=10, server=100, heavy=False, interaction_id=2)  # delivered again: let through
    clock.now += 60
    q.check(user=1, channel=10, server=100, heavy=False, interaction_id=9)  # the window moved on


def test_heavy_commands_count_against_both_quotas():
    clock = FakeClock()
    q = quotas(clock, quota_user="5/60", quota_heavy_user="1/300")
    q.check(user=1, channel=10, server=100, heavy=True, interaction_id=1)
    q.check(user=1, channel=10, server=100, heavy=False, interaction_id=2)  # light ones still pass
    with pytest.raises(RateLimited, match=r"^Slow down: you gave 1 heavy command \(exports, verifies, statistics, "
                                          r"undo proposals, odds, previews, maps and scenario files\) in the last 5 "
                                          r"minutes, the most "
                                          r"one player may\. Nothing was done\. Orders, /game status and every other "
                                          r"command still go through; the next heavy one in 300 seconds "
                                          r"\(<t:\d+:T>\)\.$"):
        q.check(user=1, channel=10, server=100, heavy=True, interaction_id=3)
    for i in range(4, 7):
        q.check(user=1, channel=10, server=100, heavy=False, interaction_id=i)
    with pytest.raises(RateLimited, match="you gave 5 commands and button presses"):
        q.check(user=1, channel=10, server=100, heavy=False, interaction_id=7)


def test_a_refused_heavy_command_is_taken_back_from_the_heavy_quotas_only():
    clock = FakeClock()
    q = quotas(clock, quota_user="3/60", quota_heavy_user="1/300", quota_heavy_channel="1/300",
               quota_heavy_server="1/300")
    q.check(user=1, channel=10, server=100, heavy=True, interaction_id=1)
    q.take_back_heavy(user=1, channel=10, server=100, interaction_id=1)  # refused: as if never given
    q.take_back_heavy(user=1, channel=10, server=100, interaction_id=1)  # twice changes nothing
    q.take_back_heavy(user=1, channel=10, server=100, interaction_id=77)  # one never counted: nothing either
    q.check(user=1, channel=10, server=100, heavy=True, interaction_id=2)  # the one heavy place is free again
    with pytest.raises(RateLimited, match="you gave 1 heavy command "):
        q.check(user=1, channel=10, server=100, heavy=True, interaction_id=3)
    q.check(user=1, channel=10, server=100, heavy=False, interaction_id=4)
    # the refused one still counted against the quota of every command: 1, 2 and 4 make 3
    with pytest.raises(RateLimited, match="you gave 3 commands and button presses"):
        q.check(user=1, channel=10, server=100, heavy=False, interaction_id=5)


def test_the_heavy_refusal_of_a_channel_says_what_is_still_open():
    clock = FakeClock()
    q = quotas(clock, quota_heavy_channel="2/300")
    q.check(user=1, channel=10, server=100, heavy=True, interaction_id=1)
    clock.now += 100
    q.check(user=2, channel=10, server=100, heavy=True, interaction_id=2)
    with pytest.raises(RateLimited, match=r"^Slow down: this channel had 2 heavy commands \(exports, .*\) in the last "
                                          r"5 minutes, the most one channel may\. Nothing was done\. Orders, /game "
                                          r"status and every other command still go through; the next heavy one in "
                                          r"200 seconds \(<t:\d+:T>\)\.$"):
        q.check(user=3, channel=10, server=100, heavy=True, interaction_id=3)
    with pytest.raises(RateLimited, match=r"^Slow down: this channel had 2 .*Nothing was done\. Orders"):
        q.check(user=3, channel=10, server=100, heavy=True, interaction_id=3)  # the refusal counted nowhere
    q.check(user=3, channel=10, server=100, heavy=False, interaction_id=4)
    clock.now += 200
    q.check(user=3, channel=10, server=100, heavy=True, interaction_id=5)


def test_quotas_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("REFEREE_QUOTA_USER", "12/30")
    monkeypatch.setenv("REFEREE_QUOTA_HEAVY_SERVER", "off")
    monkeypatch.setenv("REFEREE_MAX_GAMES_PER_SERVER", "7")
    monkeypatch.setenv("REFEREE_NEW_GAMES_PER_SERVER", "20/3600")
    monkeypatch.setenv("REFEREE_MAX_LOG_ENTRIES", "5000")
    settings = load_settings()
    assert (settings.quota_user, settings.quota_heavy_server.off) == (Rate(12, 30), True)
    assert (settings.quota_channel, settings.quota_server) == (Rate(90, 60), Rate(600, 60))  # the defaults
    assert ServerCaps.from_settings(settings) == ServerCaps(7, Rate(20, 3600))
    assert settings.max_log_entries == 5000
    for bad in ("twelve", "12", "12/0", "-1/60", "1/x"):
        monkeypatch.setenv("REFEREE_QUOTA_USER", bad)
        with pytest.raises(ConfigError, match=r"^invalid setting REFEREE_QUOTA_USER: write COUNT/SECONDS \(e\.g\. "
                                              r"30/60: at most 30 in any 60 seconds\), or off \(got "):
            load_settings()


def test_every_button_is_counted_by_the_quotas():
    """A button is a DynamicItem; each one in cogs/ and bot/ mixes in Guarded, which counts its presses."""
    from importlib import import_module

    from bot.app import cog_modules

    for name in cog_modules():  # every cog module, so every button class (the way the bot loads them)
        import_module(name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    import bot.replies  # noqa: F401  (the Details button)

    buttons = [c for c in subclasses(discord.ui.DynamicItem) if c.__module__.startswith(("cogs.", "bot."))]
    assert {"DetailsButton", "OddsButton", "UndoButton", "SeatButton", "AnswerButton"} <= {c.__name__ for c in buttons}
    assert [c.__name__ for c in buttons if not issubclass(c, Guarded)] == []


async def test_a_player_over_the_command_quota_is_told_privately_and_nothing_is_done(table):
    clock = FakeClock()
    await asl_table(table)
    table.bot.quotas = quotas(clock, quota_user="3/60", quota_channel="5/60")
    for _ in range(3):
        assert not (await table.send("game status", user=ALICE)).ephemeral
    before = await table.snapshot()
    over = await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)
    assert over.ephemeral and over.type == CHANNEL_MESSAGE and not over.embeds
    assert over.content.startswith("Slow down: you gave 3 commands and button presses in the last minute, the most "
                                   "one player may. Nothing was done. Try again in 60 seconds (<t:")
    assert await table.snapshot() == before
    assert not (await table.send("game status", user=BOB)).ephemeral  # the channel's 4th and 5th
    assert not (await table.send("game status", user=GM)).ephemeral
    text = (await table.send("game status", user=CAROL)).content
    assert text.startswith("Slow down: this channel had 5 commands and button presses in the last minute, the most "
                           "one channel may.")
    elsewhere = await table.send("game status", user=CAROL, channel=GENERAL)  # another channel: no game there
    assert refusal(elsewhere).startswith("There is no game in this channel")
    clock.now += 60
    assert not (await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)).ephemeral


async def test_button_presses_count_and_the_odds_button_is_heavy(table):
    clock = FakeClock()
    await asl_game(table)
    fired = await table.send("fire", {"firers": "A1 A2 G1", "target": "B5", "range": 2, "dice": "4 2 3 2 2 4 5 4"})
    [odds_id] = fired.message.custom_ids()
    table.bot.quotas = quotas(clock, quota_heavy_user="1/300")
    first = await table.fake.click(fired.message, odds_id, user_id=CAROL)
    assert first.ephemeral and first.embeds  # the odds, privately
    again = await table.fake.click(fired.message, odds_id, user_id=CAROL)
    assert again.ephemeral and not again.embeds
    assert again.content.startswith("Slow down: you gave 1 heavy command (exports, verifies, statistics, undo "
                                    "proposals, odds, previews, maps and scenario files) in the last 5 minutes, "
                                    "the most one player "
                                    "may. Nothing was done. Orders, /game status and every other command still go "
                                    "through; the next heavy one in ")
    # a preview is heavy too; a plain look is not
    previewed = await table.send("fire", {"firers": "A1", "target": "B5", "range": 2, "preview": True}, user=CAROL)
    assert previewed.content.startswith("Slow down: you gave 1 heavy command")
    assert not (await table.send("game status", user=CAROL)).ephemeral
    assert not (await table.fake.click(fired.message, odds_id, user_id=BOB)).content  # another player's first


async def test_a_game_master_runs_stats_each_export_and_a_verify_in_one_sitting_typos_not_counted(table):
    """Issue 30: one /stats typo and a CSV export used to lock out the JSON export, /log verify and
    /scenario export for five minutes. With the default quotas, refused commands taken back, a game
    master's sitting goes through; the first heavy one past the quota is refused naming what is open."""
    clock = FakeClock()
    await asl_table(table)
    await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)
    table.bot.quotas = Quotas(Settings(), clock=clock)  # the defaults, on a fake clock
    heavy_user = Settings().quota_heavy_user.count
    typos = [("stats dice", {"side": "Amercans"}, {}), ("log export", {"format": "csv"}, {"channel": GENERAL}),
             ("stats dice", {"side": "3"}, {}), ("log verify", {}, {"channel": GENERAL})]  # no game in GENERAL
    sitting = [("stats dice", {}), ("stats dice", {"side": "Germans"}), ("stats dice", {"player": ALICE}),
               ("stats pace", {}), ("log export", {"format": "markdown"}), ("log export", {"format": "csv"}),
               ("log export", {"format": "json"}), ("scenario export", {}), ("log verify", {})]
    for (typo, options, where), (name, good) in zip(typos * 3, sitting):
        refused = await table.as_gm(typo, options, **where)
        assert refused.ephemeral and not refused.content.startswith("Slow down"), (typo, refused.content)
        answer = await table.as_gm(name, good)
        assert not answer.ephemeral and not answer.content.startswith("Slow down"), (name, answer.content)
    for i in range(heavy_user - len(sitting)):  # the rest of the quota: twelve heavy ones that did their work
        assert not (await table.as_gm("log verify")).ephemeral
    over = await table.as_gm("log verify")
    assert over.ephemeral and over.content.startswith(
        f"Slow down: you gave {heavy_user} heavy commands (exports, verifies, statistics, undo proposals, odds, "
        "previews, maps and scenario files) in the last 5 minutes, the most one player may. Nothing was done. "
        "Orders, /game status and every other command still go through; the next heavy one in 300 seconds (<t:")
    assert not (await table.as_gm("game status")).ephemeral  # still open, as said
    assert not (await table.send("morale", {"unit": "R0", "dice": "2 3"}, user=BOB)).ephemeral
    clock.now += 300
    assert not (await table.as_gm("log verify")).ephemeral


async def test_a_refused_press_of_a_heavy_button_does_not_spend_the_heavy_quota(table):
    clock = FakeClock()
    await asl_game(table)
    status = await table.send("game status", user=CAROL)
    [map_id] = [b["custom_id"] for row in status.message.components for b in row["components"] if b["label"] == "Map"]
    await table.bot.referee.end_game(table.channel, GM_ACTOR)
    await nhis_game(table)
    table.bot.quotas = quotas(clock, quota_heavy_user="1/300")
    for _ in range(3):  # the Map button of the ended game: refused each time, and never counted
        old = await table.fake.click(status.message, map_id, user_id=CAROL)
        assert old.ephemeral and old.embeds[0]["description"].startswith("this Map button belongs to an earlier game")
    assert not (await table.send("game map", user=CAROL)).ephemeral  # not heavy: the command draws the same map
    verified = await table.send("log verify", user=CAROL)  # the one heavy place is still free
    assert not verified.ephemeral and verified.message.embeds[0]["title"] == "The log checks out"
    assert (await table.send("log verify", user=CAROL)).content.startswith("Slow down: you gave 1 heavy command")


# --- the caps per server (issue 17) --------------------------------------------------------


async def test_the_games_a_server_runs_at_once_are_capped(table):
    table.bot.referee.caps = ServerCaps(running=2, started=Rate(10, 86_400))
    for channel in (GENERAL, THREAD):
        assert not (await table.as_gm("game new", {"ruleset": "asl", "sides": "A, B"}, channel=channel)).ephemeral
    text = await table.refused("game new", {"ruleset": "asl", "sides": "A, B"}, user=GM)
    assert text == ("this server has 2 games running, the most one server may: the game master of one can end it "
                    "with /game end (the bot's host sets this number)")
    assert not (await end_game(table, channel=THREAD)).ephemeral
    assert not (await table.as_gm("game new", {"ruleset": "asl", "sides": "A, B"})).ephemeral


async def test_the_games_a_server_starts_in_a_day_are_capped_across_a_restart(table):
    table.bot.referee.caps = ServerCaps(running=10, started=Rate(3, 86_400))
    for _ in range(3):  # start and end, again and again, in one channel
        assert not (await table.as_gm("game new", {"ruleset": "nhis", "sides": "A, B"})).ephemeral
        assert not (await end_game(table)).ephemeral
    await table.restart()  # counted in the database: a restart does not reset it
    table.bot.referee.caps = ServerCaps(running=10, started=Rate(3, 86_400))
    text = await table.refused("game new", {"ruleset": "nhis", "sides": "A, B"}, user=GM)
    assert text.startswith("this server started 3 games in the last day, the most one server may: the next may "
                           "start <t:") and text.endswith(":R> (the bot's host sets this number)")


async def test_the_host_sets_the_log_cap(tmp_path):
    from tests.cogs.conftest import GUILD
    from bot.app import RefereeBot
    from bot.emulator import FakeDiscord, running

    async with FakeDiscord(guilds=[GUILD]) as fake:
        bot = RefereeBot(Settings(token=None, database=tmp_path / "r.sqlite3", dev_guild=None, max_log_entries=250))
        async with running(bot, fake=fake):
            assert bot.store.max_entries == 250


async def test_refused_orders_and_previews_do_not_count_against_the_roll_limit(table):
    """Found by the audit (issue 15): 20 typos or odds checks in a minute locked a player out."""
    clock = FakeClock()
    table.bot.roll_limiter = RollRateLimiter(2, 60, clock=clock)
    await asl_table(table)
    for _ in range(3):
        await table.refused("morale", {"unit": "NOPE", "dice": "2 3"}, user=ALICE)  # a typo: refused
        preview = await table.send("morale", {"unit": "A0", "preview": True}, user=ALICE)  # odds: nothing rolled
        assert preview.embeds[0]["description"].endswith("Exact odds: no dice rolled, nothing logged")
    for _ in range(2):  # the limit is intact: two orders that roll
        assert not (await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)).ephemeral
    over = await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)
    assert over.content.startswith("Slow down: you gave 2 rolling commands in the last 60 seconds")


def test_a_refund_takes_back_one_attempt_and_only_once():
    clock = FakeClock()
    limiter = RollRateLimiter(2, 60, clock=clock)
    assert limiter.retry_after(1, 10) is None and limiter.retry_after(1, 11) is None
    assert limiter.retry_after(1, 12) is not None
    limiter.refund(1, 11)
    limiter.refund(1, 11)  # again: nothing more
    limiter.refund(1, 99)  # never counted: nothing
    assert limiter.retry_after(1, 12) is None
    assert limiter.retry_after(1, 13) is not None


# --- the caps per game ------------------------------------------------------------------


async def test_the_unit_cap_is_refused_with_its_message(table, monkeypatch):
    cap = size(6, core_setup.MAX_UNITS)  # the real 400 in the full run; a few in the default one
    monkeypatch.setattr(core_setup, "MAX_UNITS", cap)
    await asl_table(table, units=0)
    referee = table.bot.referee
    from tests.cogs.helpers import GM_ACTOR
    for i in range(cap - 1):  # R0 is the first
        await referee.act(table.channel, GM_ACTOR, {"action": "unit_add", "id": f"U{i}", "side": 0,
                                                     "type": "ger-467"}, command="/unit add")
    text = refusal(await table.as_gm("unit add", {"id": "ONE_MORE", "side": "Germans", "type": "ger-467"}))
    assert text == f"this game has had {cap} units (eliminated and removed ones count), the most one game may have"
    assert "ONE_MORE" not in (await table.game()).units


async def test_the_unit_cap_counts_units_eliminated_by_an_edit(table, monkeypatch):
    """Found by the audit: eliminating units with /unit edit and adding more went past the cap."""
    cap = 4
    monkeypatch.setattr(core_setup, "MAX_UNITS", cap)
    await asl_table(table, units=0)
    referee = table.bot.referee
    from tests.cogs.helpers import GM_ACTOR
    for i in range(cap - 1):
        await referee.act(table.channel, GM_ACTOR, {"action": "unit_add", "id": f"U{i}", "side": 0,
                                                     "type": "ger-467"}, command="/unit add")
        await referee.act(table.channel, GM_ACTOR, {"action": "unit_edit", "unit": f"U{i}",
                                                     "changes": {"eliminated": True}}, command="/unit edit")
    text = refusal(await table.as_gm("unit add", {"id": "ONE_MORE", "side": "Germans", "type": "ger-467"}))
    assert text.startswith(f"this game has had {cap} units")
    assert "ONE_MORE" not in (await table.game()).units


async def test_the_location_cap_is_refused_with_its_message(table, monkeypatch):
    monkeypatch.setattr(core_setup, "MAX_LOCATIONS", 3)  # B5 and C5 exist already
    await asl_table(table, units=1)
    assert not (await table.as_gm("location set", {"location": "D1", "terrain": "woods"})).ephemeral
    text = await table.refused("unit add", {"id": "A9", "side": "Germans", "type": "ger-467", "location": "E1"},
                               user=GM)
    assert text == "this game already has 3 locations, the most one game may have"
    assert core_setup.MAX_LOCATIONS == 3 and "E1" not in (await table.game()).locations


async def test_a_full_log_refuses_orders_but_the_game_can_still_be_ended(table):
    await asl_table(table, units=1)
    table.bot.store.max_entries = 7  # entries 1-5 are the set-up above
    assert not (await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)).ephemeral
    assert not (await table.send("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)).ephemeral
    text = await table.refused("morale", {"unit": "A0", "dice": "2 3"}, user=ALICE)
    assert text == ("this game's log is full (7 entries, the most one game keeps): the game master can end it "
                    "with /game end and start another")
    assert not (await end_game(table)).ephemeral  # the closing entry always fits
    audit = await audit_database(table.database)
    assert audit.entries == 8
