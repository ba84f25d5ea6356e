"""Limits (Issue 6, item 5), end to end through the loopback Discord: the per-player limit on
rolling commands, and the caps per game (units, locations, log size), each with its message.
A refused command leaves the game and its log exactly as they were."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, Settings
from bot.core import setup as core_setup
from bot.emulator.records import CHANNEL_MESSAGE
from bot.limits import RollRateLimiter
from tests.cogs.conftest import ALICE, BOB, GM, refusal
from tests.reliability.audit import audit_database, size


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def asl_table(table, units: int = 2) -> None:
    """A game on the table through the real commands: GM creates it, ALICE and BOB join, units A0.. for ALICE."""
    reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
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
    assert not (await table.as_gm("game end")).ephemeral  # the closing entry always fits
    audit = await audit_database(table.database)
    assert audit.entries == 8
