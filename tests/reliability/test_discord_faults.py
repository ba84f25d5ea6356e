"""Discord faults (Issue 6, item 3), through the loopback Discord: 429s with retry-after, a
dropped and resumed gateway, an interaction delivered twice in one gateway session (also while
the first delivery is still being handled), 5xx answers, and a bot too slow for Discord's 3
seconds (the emulator is as strict as Discord: bot/emulator/clock.py). The bot recovers; no
command is lost or doubled, and no saved result goes unseen: exactly one log entry per
interaction, shown in the reply or posted to the channel, and the chain verifies."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.cogs.conftest import ALICE
from tests.reliability.audit import audit_database
from tests.reliability.test_limits import asl_table


@pytest.fixture
def errors(caplog):
    """The ERROR lines logged during the test (there must be none: every fault here is expected)."""
    caplog.set_level(logging.INFO)
    return lambda: [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def logged(table) -> int:
    return (await table.bot.referee.log(table.channel)).total


def footer(message) -> str:
    """The log entry a result names: its footer's first part (then the turn and step, when they fit)."""
    return message.embeds[0]["footer"]["text"].split(" · ")[0]


async def test_a_429_on_the_answer_is_waited_out_and_the_result_shown_once(table, errors):
    await asl_table(table)
    before = await logged(table)
    table.fake.rate_limit_next("/callback", retry_after=0.05)
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert [f.status for f in table.fake.faults_served] == [429]
    assert len(reply.record.callbacks) == 1 and not reply.record.rejected
    assert footer(reply) == f"log #{before + 1}" and await logged(table) == before + 1
    assert errors() == []


async def test_a_global_429_is_waited_out_too(table, errors):
    await asl_table(table)
    table.fake.rate_limit_next("/callback", retry_after=0.05, is_global=True)
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert reply.embeds and table.fake.faults_served[0].status == 429
    assert errors() == []


async def test_a_429_at_start_up_delays_the_command_sync_and_nothing_else(table, errors):
    await asl_table(table)
    table.fake.rate_limit_next("/commands", retry_after=0.05, method="PUT")
    await table.restart()
    assert [f.status for f in table.fake.faults_served] == [429]
    assert (await table.send("morale", {"unit": "A0"}, user=ALICE)).embeds
    assert errors() == []


async def test_a_command_sent_while_the_gateway_is_down_arrives_on_resume_and_is_answered_once(table, errors):
    await asl_table(table)
    before = await logged(table)
    await table.fake.drop_gateway(wait=False)
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)  # kept by the fake, replayed on RESUME
    assert table.fake.gateway.resumes == 1 and table.fake.gateway.identifies == 1
    assert reply.record.deliveries_received == 1
    assert footer(reply) == f"log #{before + 1}" and await logged(table) == before + 1
    await table.fake.drop_gateway()  # and once more, idle: the bot is back and answers
    assert (await table.send("morale", {"unit": "A1"}, user=ALICE)).embeds
    assert table.fake.gateway.resumes == 2
    assert errors() == []


async def test_a_duplicate_delivery_is_answered_from_the_log_never_rolled_again(table, errors):
    await asl_table(table)
    first = await table.send("morale", {"unit": "A0"}, user=ALICE)
    shown = first.embeds
    for _ in range(2):
        await table.fake.deliver_again(first)
    assert first.record.deliveries_received == 3
    assert len(first.record.callbacks) == 1 and first.embeds == shown  # Discord keeps the first answer
    assert all(c.data["embeds"] == shown for c in first.record.rejected)  # the same result, from the log
    audit = await audit_database(table.database)
    assert list(audit.by_interaction).count(first.record.id) == 1
    assert errors() == []


async def test_a_duplicate_delivery_racing_the_first_still_makes_one_entry(table, errors):
    await asl_table(table)
    before = await logged(table)
    known = set(table.fake.interactions)
    sending = asyncio.create_task(table.send("morale", {"unit": "A0"}, user=ALICE))
    while not set(table.fake.interactions) - known:
        await asyncio.sleep(0)
    [token] = set(table.fake.interactions) - known
    record = table.fake.interactions[token]
    await asyncio.gather(table.fake.deliver_again(record), sending)
    assert record.deliveries_received == 2 and len(record.callbacks) == 1
    assert await logged(table) == before + 1
    assert errors() == []


async def test_a_5xx_on_the_answer_is_retried_by_the_client_and_shown_once(table, errors):
    await asl_table(table)
    before = await logged(table)
    table.fake.fail_next("/callback", 502)
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert [f.status for f in table.fake.faults_served] == [502]
    assert len(reply.record.callbacks) == 1 and footer(reply) == f"log #{before + 1}"
    assert errors() == []


def posted(table) -> list:
    """The plain (non-reply) messages the bot posted in the game channel."""
    return [m for m in table.fake.channel_messages(table.channel) if m.payload["type"] == 0]


async def test_a_reply_too_late_for_discord_is_posted_to_the_channel_not_sent_again(table, errors, caplog):
    # the bot took 3.5 s: Discord answers 10062 and the token is dead. Answering the same
    # interaction again is refused too, so the saved roll would be seen by nobody and a player
    # who retypes the order would roll twice: the result goes to the channel instead
    await asl_table(table)
    before = await logged(table)
    table.fake.lag(3.5)
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert reply.message is None and len(reply.record.late) == 1  # one attempt, refused as late
    assert not reply.record.rejected and not reply.record.followups  # and never answered again
    [post] = posted(table)
    assert post.content == (f"<@{ALICE}>: your order was saved as log #{before + 1}, but Discord did not take "
                            "the bot's reply in time, so here is the result. Do not give the order again.")
    assert footer(post) == f"log #{before + 1}" and post.embeds == reply.record.late[0].data["embeds"]
    assert await logged(table) == before + 1
    assert errors() == [] and not [r for r in caplog.records if r.exc_info]  # one warning line, no traceback
    await wait_until_async(lambda: _no_unshown(table))  # seen: not posted again after a restart


async def test_an_answer_refused_after_the_order_was_saved_is_shown_from_the_log(table, errors):
    # any refusal of the first message (here an injected 10062) after the save: the same
    await asl_table(table)
    before = await logged(table)
    table.fake.fail_next("/callback", 404, code=10062, message="Unknown interaction")
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert reply.message is None and not reply.record.callbacks
    [post] = posted(table)
    assert footer(post) == f"log #{before + 1}" and not post.ephemeral
    assert await logged(table) == before + 1
    assert errors() == []


async def test_a_result_neither_reply_nor_post_could_show_is_posted_after_the_restart(table, errors):
    await asl_table(table)
    before = await logged(table)
    table.fake.lag(3.5)
    table.fake.fail_next("/channels/", 403, code=50001, message="Missing Access", method="POST")
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert reply.message is None and posted(table) == []
    assert await logged(table) == before + 1  # the roll stands in the log, seen by nobody yet
    [(channel, entry)] = await table.bot.store.unshown_entries()
    assert (channel, entry.seq) == (table.channel, before + 1)
    await table.restart()
    await wait_until(lambda: posted(table))
    [post] = posted(table)
    assert post.content.startswith(f"<@{ALICE}>'s order was saved as log #{before + 1} just before the bot restarted")
    assert footer(post) == f"log #{before + 1}"
    await wait_until_async(lambda: _no_unshown(table))
    await table.restart()  # posted once: not again at the next start
    await asyncio.wait_for(asyncio.shield(table.bot._unshown_task), 30)  # its start-up post done, whatever it took
    assert len(posted(table)) == 1
    assert errors() == []
    await audit_database(table.database)


async def test_a_refusal_too_late_for_discord_is_dropped_with_one_warning(table, errors, caplog):
    # nothing was saved: there is nothing to show; the player sees "did not respond" and retries
    await asl_table(table)
    before = await logged(table)
    table.fake.lag(3.5)
    reply = await table.send("morale", {"unit": "Z9"}, user=ALICE)
    assert reply.message is None and len(reply.record.late) == 1 and len(reply.record.refused) == 1
    assert posted(table) == [] and await logged(table) == before
    assert errors() == [] and not [r for r in caplog.records if r.exc_info]


async def _no_unshown(table) -> bool:
    return await table.bot.store.unshown_entries() == []


async def wait_until(done, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not done():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def wait_until_async(done, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await done():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)
