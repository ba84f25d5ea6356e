"""Discord faults (Issue 6, item 3), through the loopback Discord: 429s with retry-after, a
dropped and resumed gateway, an interaction delivered twice (also while the first delivery is
still being handled), 5xx answers and expired tokens. The bot recovers; no command is lost or
doubled: exactly one log entry per interaction, and the chain verifies."""

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
    return message.embeds[0]["footer"]["text"]


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


async def test_a_redelivered_interaction_is_answered_from_the_log_never_rolled_again(table, errors):
    await asl_table(table)
    first = await table.send("morale", {"unit": "A0"}, user=ALICE)
    shown = first.embeds
    for _ in range(2):
        await table.fake.redeliver(first)
    assert first.record.deliveries_received == 3
    assert len(first.record.callbacks) == 1 and first.embeds == shown  # Discord keeps the first answer
    assert all(c.data["embeds"] == shown for c in first.record.rejected)  # the same result, from the log
    audit = await audit_database(table.database)
    assert list(audit.by_interaction).count(first.record.id) == 1
    assert errors() == []


async def test_a_redelivery_racing_the_first_delivery_still_makes_one_entry(table, errors):
    await asl_table(table)
    before = await logged(table)
    known = set(table.fake.interactions)
    sending = asyncio.create_task(table.send("morale", {"unit": "A0"}, user=ALICE))
    while not set(table.fake.interactions) - known:
        await asyncio.sleep(0)
    [token] = set(table.fake.interactions) - known
    record = table.fake.interactions[token]
    await asyncio.gather(table.fake.redeliver(record), sending)
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


async def test_an_answer_refused_after_the_order_was_saved_is_shown_from_the_log(table, errors):
    # the order is saved before the answer is sent; if Discord refuses that answer the bot never
    # says "nothing was changed": it sends the saved result again
    await asl_table(table)
    before = await logged(table)
    table.fake.fail_next("/callback", 404, code=10062, message="Unknown interaction")
    reply = await table.send("morale", {"unit": "A0"}, user=ALICE)
    assert footer(reply) == f"log #{before + 1}" and not reply.ephemeral
    assert await logged(table) == before + 1
    assert errors() == []


async def test_an_expired_interaction_loses_its_answer_but_not_its_roll(table, errors, caplog):
    await asl_table(table)
    before = await logged(table)
    table.fake.fail_next("/callback", 404, code=10062, message="Unknown interaction", count=2)
    with pytest.raises(AssertionError, match="did not answer"):  # the player sees "interaction failed"
        await table.send("morale", {"unit": "A0"}, user=ALICE, timeout=0.5)
    await asyncio.sleep(0.05)  # the handler's last attempt
    assert await logged(table) == before + 1  # the roll stands in the log
    assert any("could not be shown either; it stays in the log" in r.getMessage() for r in caplog.records)
    assert errors() == []
    await audit_database(table.database)
