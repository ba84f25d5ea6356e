"""/log: the game record. Page through it, verify it, export it.

The log is the game: every entry is hash-chained to the one before and carries the hash of the
state after it. /log verify recomputes the chain and replays the game from its creation; the
exports let anyone keep the record and check it themselves (``python -m bot rules replay``).
Anyone in the channel may read, verify and export: trust needs no permission.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.export import Names, export_files, undone_map
from bot.render import Block, error_embed, paginate, roll_line, safe
from bot.record import LogEntry
from bot.replies import send_embeds

OK_COLOUR = discord.Colour(0x3BA55D)
NAME_LOOKUPS = 20  # members fetched from Discord per command at most, when not cached
DEFAULT_ATTACHMENT_LIMIT = 8 * 1024 * 1024  # Discord's limit when the interaction does not say
FORMAT_CHOICES = [app_commands.Choice(name="Markdown: an after-action report", value="markdown"),
                  app_commands.Choice(name="CSV: one row per die", value="csv"),
                  app_commands.Choice(name="JSON: the whole log, replayable", value="json")]


async def member_names(interaction: discord.Interaction, user_ids: Iterable[Any]) -> Names:
    """User ids -> the names shown in the guild (never mentions). Names come from the cache, else
    from Discord for at most NAME_LOOKUPS unknown ids; an id not found stays "user <id>"."""
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
    return lambda user_id: found.get(user_id, f"user {user_id}") if isinstance(user_id, int) else "nobody"


def entry_line(entry: LogEntry, names: Names, undone: dict[int, int]) -> str:
    """"#7 · 2026-11-23 10:54 · alice · /morale · DR 7: white 3, colored 4 (…) · headline"."""
    parts = [f"#{entry.seq}", f"{entry.time[:10]} {entry.time[11:16]}", safe(names(entry.actor)),
             safe(entry.command)]
    rolls = [roll_line(roll) for roll in entry.outcome_model().rolls]
    if rolls:
        parts.append("; ".join(rolls) + (" (manual)" if entry.manual else ""))
    parts.append(safe(entry.outcome.get("headline", "")))
    line = " · ".join(parts)
    if entry.seq in undone:
        return f"~~{line}~~ (undone by #{undone[entry.seq]})"
    return line


def attachment_limit(interaction: discord.Interaction) -> int:
    return getattr(interaction, "filesize_limit", None) or DEFAULT_ATTACHMENT_LIMIT


def _people(record: dict[str, Any]) -> set[Any]:
    """Everyone an export names: actors, those who accepted undos, players and the game master."""
    people = {e["actor"] for e in record["entries"]}
    for entry in record["entries"]:
        people |= {entry["order"].get(key) for key in ("accepted_by", "player", "gm")}
    return people


class LogCog(commands.Cog):
    log = app_commands.Group(name="log", description="The game record: read it, verify it, export it",
                             guild_only=True)

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @log.command(name="show", description="Page through this channel's game log (the newest page by default)")
    @app_commands.describe(page="The page to show, 1 being the game's start (the newest page if left out)")
    async def show(self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 100_000] | None = None) -> None:
        shown = await self.bot.referee.log(interaction.channel_id, page)
        names = await member_names(interaction, [e.actor for e in shown.entries])
        lines = tuple(entry_line(e, names, shown.undone) for e in shown.entries)
        title = f"Log of game {shown.game_id}" + (" (ended)" if shown.status == "ended" else "")
        first, last = shown.entries[0].seq, shown.entries[-1].seq
        embeds = paginate(title, [Block(f"Entries {first}-{last} of {shown.total}", lines)],
                          colour=discord.Colour(0x8A8F98), footer=f"page {shown.page}/{shown.pages} · newest last")
        await send_embeds(interaction, embeds, ephemeral=False)

    @log.command(name="verify", description="Recompute the hash chain and replay the whole game; name the first bad entry")
    async def verify(self, interaction: discord.Interaction) -> None:
        await self.bot.referee.log(interaction.channel_id, per_page=1)  # no game: refused privately, not deferred
        await interaction.response.defer(thinking=True)  # a long game takes a moment to replay
        report = await self.bot.referee.verify(interaction.channel_id)
        if report.ok:
            embed = discord.Embed(title="The log checks out", description=safe(report.reason), colour=OK_COLOUR)
        else:
            where = f"Entry #{report.first_bad_seq}" if report.first_bad_seq else "The game's record"
            embed = error_embed(report.reason, title=f"{where} does not check out")
        await interaction.edit_original_response(embed=embed)

    @log.command(name="export", description="Attach the game record as a file: Markdown report, CSV of dice, or JSON")
    @app_commands.describe(format="Markdown (an after-action report), CSV (one row per die) or JSON (replayable)")
    @app_commands.choices(format=FORMAT_CHOICES)
    async def export(self, interaction: discord.Interaction, format: app_commands.Choice[str]) -> None:
        await self.bot.referee.log(interaction.channel_id, per_page=1)  # no game: refused privately, not deferred
        # a long log takes longer than Discord's 3 seconds to export: "thinking..." at once
        await interaction.response.defer(thinking=True)
        record = await self.bot.referee.export(interaction.channel_id)
        limit = attachment_limit(interaction)
        names = await member_names(interaction, _people(record))
        files = export_files(record, format.value, limit, names)
        undone = len(undone_map(record["entries"]))
        note = (f"Game {record['game_id']}: {len(record['entries'])} log entries as {format.name.split(':')[0]}"
                + (f", {undone} undone (kept, marked)" if undone else "")
                + (f", in {len(files)} parts of at most {limit:,} bytes" if len(files) > 1 else ""))
        # one part per message when split: each message stays within the attachment limit
        for i, part in enumerate(files):
            attachment = discord.File(fp=io.BytesIO(part.data), filename=part.filename)
            if i == 0:
                await interaction.edit_original_response(content=note, attachments=[attachment])
            else:
                await interaction.followup.send(content=f"Part {i + 1} of {len(files)}", file=attachment)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LogCog(bot))
