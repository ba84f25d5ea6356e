"""End-to-end fixtures: the real RefereeBot, a real SQLite file, the loopback Discord.

    async def test_something(table):
        reply = await table.as_gm("game new", {"ruleset": "asl", "sides": "Germans, Russians"})
        assert reply.embeds[0]["title"] == ...

``table`` is a connected bot on a fresh database in ``tmp_path``; ``table.restart()`` closes it
and starts a new bot process-equivalent on the same file (for "a restart loses nothing").
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest_asyncio

from bot.app import RefereeBot
from bot.config import Settings
from bot.emulator import FakeDiscord, default_guild, running
from bot.emulator.payloads import MANAGE_CHANNELS, PLAYER_PERMISSIONS

GUILD = default_guild()
ALICE, BOB, GM = (member.id for member in GUILD.members)  # GM owns the guild; alice and bob play
CAROL = 2_000_000_000_000_000_009  # not in the game: may look, may not act
GENERAL, GAME_CHANNEL, THREAD = (channel.id for channel in GUILD.channels)


def make_bot(database: Path | str) -> RefereeBot:
    return RefereeBot(Settings(token=None, database=database, dev_guild=None))


@dataclass
class Table:
    """A game table: the fake Discord, the bot on it, and shortcuts to act as each person."""

    fake: FakeDiscord
    database: Path | str  # an SQLite file, or a PostgreSQL DSN (pg_table)
    stack: contextlib.AsyncExitStack
    bot: RefereeBot | None = None
    channel: int = GAME_CHANNEL
    _session: contextlib.AsyncExitStack | None = field(default=None, repr=False)

    async def start(self) -> RefereeBot:
        self._session = contextlib.AsyncExitStack()
        self.bot = make_bot(self.database)
        await self._session.enter_async_context(running(self.bot, fake=self.fake))
        # long work on the loop, answered at once, as the cog tests were written for; the worker
        # processes and "thinking..." are tested in tests/cogs/test_long_work.py and test_odds.py
        self.bot.referee.worker.inline_below = float("inf")
        return self.bot

    async def stop(self) -> None:
        if self._session is not None:
            session, self._session = self._session, None
            await session.aclose()  # drains handlers, closes the gateway and the database

    async def restart(self) -> RefereeBot:
        await self.stop()
        return await self.start()

    async def send(self, name: str, options: dict[str, Any] | None = None, *, user: int = ALICE,
                   channel: int | None = None, manager: bool = False, **kwargs: Any):
        perms = PLAYER_PERMISSIONS | MANAGE_CHANNELS if manager else PLAYER_PERMISSIONS
        return await self.fake.send_command(name, options or {}, user_id=user,
                                            channel_id=channel or self.channel,
                                            member_permissions=perms, **kwargs)

    async def seat(self, user: int, side: str, *, channel: int | None = None, game_master: int = GM):
        """A player takes a seat with both consents: they ask with /game join, the game master
        (``game_master``, who started the game) approves with the button on the request."""
        asked = await self.send("game join", {"side": side}, user=user, channel=channel)
        approve = next(b["custom_id"] for row in asked.message.components for b in row["components"]
                       if b["custom_id"].startswith("seat:approve"))
        return await self.fake.click(asked.message, approve, user_id=game_master)

    async def invite(self, user: int, side: str, *, channel: int | None = None, game_master: int = GM):
        """The game master invites a player to a side, and the player accepts with the button."""
        invited = await self.send("game join", {"side": side, "player": user}, user=game_master, channel=channel)
        accept = next(b["custom_id"] for row in invited.message.components for b in row["components"]
                      if b["custom_id"].startswith("seat:accept"))
        return await self.fake.click(invited.message, accept, user_id=user)

    async def as_gm(self, name: str, options: dict[str, Any] | None = None, **kwargs: Any):
        return await self.send(name, options, user=GM, **kwargs)

    async def autocomplete(self, name: str, options: dict[str, Any] | None = None, *, focused: str,
                           user: int = ALICE, channel: int | None = None) -> list[dict[str, Any]]:
        return await self.fake.autocomplete(name, options or {}, focused=focused, user_id=user,
                                            channel_id=channel or self.channel)

    async def game(self, channel: int | None = None):
        """The channel's game as the store holds it now (read through the service)."""
        assert self.bot is not None and self.bot.referee is not None
        return await self.bot.referee.game(channel or self.channel)

    async def snapshot(self, channel: int | None = None) -> tuple[Any, int]:
        """(the channel's game or None, its log length): what a refused order must leave alone."""
        from bot.core.errors import RulesError

        assert self.bot is not None and self.bot.referee is not None
        try:
            game = await self.game(channel)
        except RulesError:
            return None, 0
        return game, (await self.bot.referee.log(channel or self.channel)).total

    async def refused(self, name: str, options: dict[str, Any] | None = None, **kwargs: Any) -> str:
        """Send a command that must be refused; check the reply (``refusal``) and that the game
        and its log are exactly as before; return the refusal's text."""
        before = await self.snapshot(kwargs.get("channel"))
        reply = await self.send(name, options, **kwargs)
        text = refusal(reply)
        assert await self.snapshot(kwargs.get("channel")) == before, f"/{name} was refused but changed the game"
        return text


REFUSED_COLOUR = 0xD83C3E  # bot.render.ERROR_COLOUR


def refusal(reply) -> str:
    """The text of a refused order's reply, after checking it is the red, ephemeral
    "Order refused" embed (flags 64) and nothing else. A command that deferred first (a scenario
    file, long work) and was then refused: its public "thinking..." deleted, the refusal the one
    private followup (bot/replies.py ``send_answer``)."""
    if reply.deferred and reply.message is not None and reply.message.deleted:
        [message] = reply.followups
        assert message.ephemeral and message.flags == 64, message.embeds
        [embed] = message.embeds
        assert embed["title"] == "Order refused" and embed["color"] == REFUSED_COLOUR, embed
        assert not embed.get("fields"), embed
        return embed["description"]
    assert reply.ephemeral and reply.message is not None and reply.message.flags == 64, reply.embeds
    [embed] = reply.embeds
    assert embed["title"] == "Order refused" and embed["color"] == REFUSED_COLOUR, embed
    assert not embed.get("fields") and not reply.followups, embed
    return embed["description"]


@contextlib.asynccontextmanager
async def open_table(tmp_path: Path, database: str | None = None):
    """A Table on a fresh database (a file in ``tmp_path``, or the PostgreSQL ``database``): the
    fake Discord and a connected bot."""
    async with contextlib.AsyncExitStack() as stack:
        fake = await stack.enter_async_context(FakeDiscord(guilds=[GUILD]))
        t = Table(fake=fake, database=database or tmp_path / "referee.sqlite3", stack=stack)
        await t.start()
        try:
            yield t
        finally:
            await t.stop()


@pytest_asyncio.fixture
async def table(tmp_path):
    async with open_table(tmp_path) as t:
        yield t


@pytest_asyncio.fixture
async def pg_table(tmp_path, pg_dsn):
    """``table`` with the bot on the session's PostgreSQL (a schema of the test's own)."""
    async with open_table(tmp_path, pg_dsn) as t:
        yield t
