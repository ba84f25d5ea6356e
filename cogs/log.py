"""/log: the game record. Page through it, verify it, export it.

The log is the game: every entry is hash-chained to the one before and carries the hash of the
state after it. /log verify recomputes the chain and replays the game from its creation; the
exports let anyone keep the record and check it themselves (``python -m bot rules replay``).
Anyone in the channel may read, verify and export: trust needs no permission.
"""

from __future__ import annotations

import io
from functools import partial
from collections.abc import Iterable, Sized
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.export import ExportFile, Names, export_files, undone_map
from bot.record import LogEntry
from bot.service import export_record, replay_cost
from bot.client import Interaction, RefereeClient
from bot.render import log_page_embeds, verify_embed
from bot.replies import defer_thinking, send_embeds, send_answer

NAME_LOOKUPS = 20  # members fetched from Discord per command at most, when not cached
EXPORT_STEPS = 5  # work steps per entry of a CSV or JSON export (bot/work.py)
DEFAULT_ATTACHMENT_LIMIT = 8 * 1024 * 1024  # Discord's limit when the interaction does not say
FORMAT_CHOICES = [app_commands.Choice(name="Markdown: an after-action report", value="markdown"),
                  app_commands.Choice(name="CSV: one row per die", value="csv"),
                  app_commands.Choice(name="JSON: the whole log, replayable", value="json")]


async def member_names(interaction: Interaction, user_ids: Iterable[Any]) -> Names:
    """User ids -> the names shown in the guild (never mentions). Names come from the cache, else
    from Discord for at most NAME_LOOKUPS unknown ids; an id not found stays "user <id>"."""
    return names_from(await member_name_map(interaction, user_ids))


def names_from(found: dict[int, str]) -> Names:
    return lambda user_id: found.get(user_id, f"user {user_id}") if isinstance(user_id, int) else "nobody"


async def member_name_map(interaction: Interaction, user_ids: Iterable[Any]) -> dict[int, str]:
    """``member_names`` as a plain dict (what a worker process can be given)."""
    found: dict[int, str] = {}
    guild = interaction.guild
    for user_id in {u for u in user_ids if isinstance(u, int)}:
        member = guild.get_member(user_id) if guild else None
        user = member or interaction.client.get_user(user_id)
        if user is not None:
            found[user_id] = user.display_name
        elif guild is not None and len(found) < NAME_LOOKUPS:
            try:
                found[user_id] = (await guild.fetch_member(user_id)).display_name
            except discord.HTTPException:
                pass  # left the guild, or Discord does not say: the id will do
    return found


def attachment_limit(interaction: Interaction) -> int:
    return getattr(interaction, "filesize_limit", None) or DEFAULT_ATTACHMENT_LIMIT


def note_people(people: set[Any], actor: int, order: dict[str, Any]) -> None:
    """Everyone an export names: actors, those who accepted undos, players and the game master."""
    people.update((actor, *(order.get(key) for key in ("accepted_by", "player", "gm", "approved_by"))))


def export_job(stored: Any, entries: Iterable[LogEntry], fmt: str, limit: int,
               names: dict[int, str]) -> tuple[list[ExportFile], int]:
    """The export's files and how many entries were undone (run in a worker process when long)."""
    record = export_record(stored, entries)
    return export_files(record, fmt, limit, names_from(names)), len(undone_map(record["entries"]))


def export_cost(fmt: str, entries: Sized, game: Any) -> float:
    """Work steps of an export (bot/work.py): the Markdown report replays the game."""
    return replay_cost(len(entries), game) if fmt == "markdown" else len(entries) * EXPORT_STEPS


class LogCog(commands.Cog):
    log = app_commands.Group(name="log", description="The game record: read it, verify it, export it",
                             guild_only=True)

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @log.command(name="show", description="Page through this channel's game log (the newest page by default)")
    @app_commands.describe(page="The page to show, 1 being the game's start (the newest page if left out)")
    async def show(self, interaction: Interaction, page: app_commands.Range[int, 1, 100_000] | None = None) -> None:
        shown = await interaction.client.referee.log(interaction.channel_id, page)
        names = await member_names(interaction, [e.actor for e in shown.entries])
        await send_embeds(interaction, log_page_embeds(shown, names), ephemeral=False)

    # heavy (bot/limits.py): a long game takes long to replay or export, so they have their own quotas
    @log.command(name="verify",
                 description="Recompute the hash chain and replay the whole game; name the first bad entry",
                 extras={"heavy": True})
    async def verify(self, interaction: Interaction) -> None:
        # no game: refused privately, not deferred
        await interaction.client.referee.log(interaction.channel_id, per_page=1)
        await defer_thinking(interaction)  # a long game takes a moment to replay
        report = await interaction.client.referee.verify(interaction.channel_id)
        await send_answer(interaction, embed=verify_embed(report))

    @log.command(name="export", description="Attach the game record as a file: Markdown report, CSV of dice, or JSON",
                 extras={"heavy": True})
    @app_commands.describe(format="Markdown (an after-action report), CSV (one row per die) or JSON (replayable)")
    @app_commands.choices(format=FORMAT_CHOICES)
    async def export(self, interaction: Interaction, format: app_commands.Choice[str]) -> None:
        referee = interaction.client.referee
        await referee.log(interaction.channel_id, per_page=1)  # no game: refused privately
        # a long log takes longer than Discord's 3 seconds to export: "thinking..." at once
        await defer_thinking(interaction)
        people: set[Any] = set()
        stored, entries = await referee.log_snapshot(interaction.channel_id, each=partial(note_people, people))
        limit = attachment_limit(interaction)
        names = await member_name_map(interaction, people)
        files, undone = await referee.run_long(
            export_job, stored, entries, format.value, limit, names,
            cost=export_cost(format.value, entries, stored.game),
            what=f"exporting this game's {len(entries):,} log entries as {format.name.split(':')[0]}",
            instead="export it as JSON or CSV, which need no replay" if format.value == "markdown" else
                    "ask the bot's host for a copy of the database")
        note = (f"Game {stored.id}: {len(entries)} log entries as {format.name.split(':')[0]}"
                + (f", {undone} undone (kept, marked)" if undone else "")
                + (f", in {len(files)} parts of at most {limit:,} bytes" if len(files) > 1 else ""))
        # one part per message when split: each message stays within the attachment limit
        for i, part in enumerate(files):
            attachment = discord.File(fp=io.BytesIO(part.data), filename=part.filename)
            if i == 0:
                await send_answer(interaction, content=note, file=attachment)
            else:
                await interaction.followup.send(content=f"Part {i + 1} of {len(files)}", file=attachment)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(LogCog(bot))
