"""A command whose write committed and that failed afterwards (the database gone as the channel's lock
was let go, say) saved its order: the player is shown the result, never told "nothing was changed",
which would have him give the order again and fire twice (issue 28)."""

from __future__ import annotations

import asyncio
import contextlib

import bot.app

from bot.store.base import StorageUnavailable
from tests.cogs.conftest import ALICE
from tests.cogs.helpers import asl_game


def _failing_after_the_body(store, error: BaseException):
    """The store's channel lock, raising ``error`` once its body (the command's load, resolve and
    committed write) is done."""
    real = store.channel_lock

    @contextlib.asynccontextmanager
    async def channel_lock(channel_id):
        async with real(channel_id):
            yield
        raise error

    return channel_lock


async def test_an_order_saved_before_an_unexpected_failure_is_answered_with_its_result(table, monkeypatch):
    await asl_game(table)
    before = (await table.bot.referee.log(table.channel)).total
    store = table.bot.referee.desk.store
    monkeypatch.setattr(store, "channel_lock", _failing_after_the_body(store, RuntimeError("unlock failed")))

    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})

    log = await table.bot.referee.log(table.channel)
    assert log.total == before + 1  # saved once
    assert not reply.ephemeral and "nothing was changed" not in str(reply.embeds)
    assert "rolled 2+5 = 7 (white 2, colored 5)" in reply.embeds[0]["fields"][0]["value"].splitlines()[0]


async def test_an_order_saved_before_the_database_went_away_is_answered_with_its_result(table, monkeypatch):
    await asl_game(table)
    store = table.bot.referee.desk.store
    fault = StorageUnavailable("The database is not reachable now; nothing was saved.", "unreachable")
    monkeypatch.setattr(store, "channel_lock", _failing_after_the_body(store, fault))

    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})

    assert not reply.ephemeral and "nothing was saved" not in str(reply.embeds)
    assert "rolled 2+5 = 7 (white 2, colored 5)" in reply.embeds[0]["fields"][0]["value"].splitlines()[0]


async def test_when_the_log_cannot_be_read_either_the_player_is_told_to_look_before_giving_it_again(
        table, monkeypatch):
    await asl_game(table)
    store = table.bot.referee.desk.store
    fault = StorageUnavailable("The database is not reachable now; nothing was saved.", "unreachable")
    monkeypatch.setattr(store, "channel_lock", _failing_after_the_body(store, fault))

    async def unreadable(interaction_id):
        raise fault

    monkeypatch.setattr(store, "load_recorded", unreadable)
    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})

    assert reply.ephemeral
    assert "cannot tell yet whether your order was saved: look at /log before giving it again" in reply.content


async def test_a_command_that_saved_nothing_still_says_so(table, monkeypatch):
    await asl_game(table)
    before = (await table.bot.referee.log(table.channel)).total
    store = table.bot.referee.desk.store
    fault = StorageUnavailable("The database is not reachable now; nothing was saved.", "unreachable")

    async def refused(*args, **kwargs):
        raise fault

    monkeypatch.setattr(store, "append", refused)
    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})

    assert reply.ephemeral and reply.content == str(fault)
    assert (await table.bot.referee.log(table.channel)).total == before


async def test_an_order_saved_while_the_log_could_not_be_read_is_posted_once_the_database_answers(
        table, monkeypatch):
    """The player told "cannot tell yet" is not left to find it in /log alone: the bot asks the log
    again until the database answers, and posts the saved result to the channel, once; before, it
    waited for the bot's next start."""
    monkeypatch.setattr(bot.app, "LOOK_AGAIN_FIRST_PAUSE", 0.05)
    await asl_game(table)
    store = table.bot.referee.desk.store
    fault = StorageUnavailable("The database is not reachable now; nothing was saved.", "unreachable")
    monkeypatch.setattr(store, "channel_lock", _failing_after_the_body(store, fault))
    real_load_recorded, failures = store.load_recorded, []

    async def unreadable_twice(interaction_id):
        if len(failures) < 2:  # the handler's look, and the first look again
            failures.append(interaction_id)
            raise fault
        return await real_load_recorded(interaction_id)

    monkeypatch.setattr(store, "load_recorded", unreadable_twice)
    reply = await table.send("morale", {"unit": "A1", "dice": "2 5"})
    assert reply.ephemeral and "its result is posted here once the database answers" in reply.content

    def posts():
        return [m for m in table.fake.channel_messages(table.channel) if m.payload["type"] == 0 and m.embeds]

    for _ in range(200):
        if posts():
            break
        await asyncio.sleep(0.01)
    seq = (await table.bot.referee.log(table.channel)).total
    [post] = posts()  # posted once
    assert post.content.startswith(f"<@{ALICE}>: the database is back, and your order had been saved as log #{seq}")
    assert post.embeds[0]["footer"]["text"].endswith(f"log #{seq}")
    assert "rolled 2+5 = 7 (white 2, colored 5)" in post.embeds[0]["fields"][0]["value"].splitlines()[0]
    assert len(failures) == 2
