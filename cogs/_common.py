"""What every cog shares: the acting player, autocomplete from the channel's game, the one body of
every order-giving command.

Nothing here knows a ruleset: what a command's options mean, and what autocomplete offers for
them, the channel's ruleset says (``bot.core.commands``, ``Ruleset.suggestions``). Parsing errors
are ``InvalidOrder`` naming the option, so the one error handler renders them like any other
refused order.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.client import Interaction
from bot.core.commands import Suggest, parse_ids
from bot.core.errors import InvalidOrder, RulesError
from bot.core.game import Game
from bot.core.rulesets import get_ruleset
from bot.core.suggest import common_suggestions
from bot.render import odds_embed, safe
from bot.scenario import Loaded, ScenarioFileError, max_upload, read_cost, read_given
from bot.replies import defer_thinking, defer_when_slow, reply_outcome, send_embeds
from bot.service import Actor

MAX_CHOICES = 25  # Discord's limit for autocomplete answers
Choices = list[app_commands.Choice[str]]


DOWNLOAD_SECONDS = 15  # a scenario file is small: Discord's CDN serves it at once or not at all


async def scenario_file(interaction: Interaction, attachment: discord.Attachment, *, private: bool = False,
                        **given: Any) -> Loaded:
    """The scenario an attached file holds, checked whole (``bot.scenario.read_file``: a scenario file's
    refusal names the line and the field), or the one a file of another program a ruleset reads sets
    up (told by its content: a VASL saved game); ``given``: the game's ruleset and what /game new's
    options replace. The answer is deferred first (the download and the set-up may outlast Discord's
    3 s; ``private``: the "thinking..." and the answer that replaces it for the sender alone); a file of more than a few KB is read and set up in a worker process (bot/work.py), not on
    the event loop, within its time budget, so neither its parse nor its memory is the bot's."""
    most = max_upload()
    if attachment.size > most:
        raise ScenarioFileError(f"{attachment.filename} has {attachment.size:,} bytes; a file given here has at "
                                f"most {most:,}")
    await defer_thinking(interaction, ephemeral=private)
    try:
        data = await asyncio.wait_for(attachment.read(), DOWNLOAD_SECONDS)
    except (discord.HTTPException, asyncio.TimeoutError):
        raise InvalidOrder(f"{attachment.filename} could not be downloaded from Discord: attach it again",
                           field="file") from None
    if len(data) > most:  # the size Discord announced is the sender's word
        raise ScenarioFileError(f"{attachment.filename} has {len(data):,} bytes; a file given here has at most "
                                f"{most:,}")
    return await interaction.client.referee.worker.run(
        read_given, data, given, cost=read_cost(len(data)), what=f"reading {attachment.filename}",
        instead="attach a smaller file")


NOT_MAPPED_INLINE = 1800  # characters of the not-mapped list sent as text; a longer one goes as a file


async def reply_new_game(interaction: Interaction, acted: Any, loaded: Loaded | None = None) -> None:
    """The answer to a new game (``acted``, already saved; from a scenario file, with each side's
    hidden part sealed for that side as /seal would): the game, each seal (the channel sees the
    commitment, never the text), and the loader alone gets the nonces to check them. A file of another
    program (``loaded.format``) adds one reply: what could not be mapped, and the notes."""
    await reply_outcome(interaction, acted)
    sealed = acted.sealed  # none when the load was re-delivered: answered from the log, sealed once
    for part in sealed:
        await reply_outcome(interaction, part.acted)
    if loaded is not None and loaded.format:
        await send_loaded_notes(interaction, loaded)
    if sealed:
        await interaction.followup.send(
            content="For you only, the nonces of the hidden parts just sealed (SHA-256 of the nonce's bytes and the "
                    "text is each commitment; /reveal sealed:N opens one):\n" +
                    "\n".join(f"#{part.acted.seq}: `{part.nonce}`" for part in sealed), ephemeral=True)


def loaded_lines(loaded: Loaded) -> list[str]:
    """What a file of another program held that the bot could not map (its name and where it stood;
    never a hidden piece: those are in their side's sealed part), then the notes."""
    lines = [f"Read from a {loaded.format}."]
    if loaded.not_mapped:
        lines.append(f"Not mapped ({len(loaded.not_mapped)}; add them with /unit add if the bot has them, or play "
                     "them by hand):")
        lines += [f"- {safe(line)}" for line in loaded.not_mapped]
    else:
        lines.append("Every counter on the boards was mapped.")
    return lines + [safe(note) for note in loaded.notes]


async def send_loaded_notes(interaction: Interaction, loaded: Loaded) -> None:
    """One reply for the channel: ``loaded_lines``; a list too long for a message comes as a file."""
    lines = loaded_lines(loaded)
    text = "\n".join(lines)
    if len(text) <= NOT_MAPPED_INLINE:
        await interaction.followup.send(content=text, allowed_mentions=discord.AllowedMentions.none())
        return
    head = "\n".join(lines[:2]) + f"\n(the whole list of {len(loaded.not_mapped)} is attached)"
    await interaction.followup.send(content=head[:NOT_MAPPED_INLINE], allowed_mentions=discord.AllowedMentions.none(),
                                    file=discord.File(io.BytesIO(text.encode("utf-8")), filename="not-mapped.txt"))


def actor_of(interaction: Interaction) -> Actor:
    """The player giving the order; Manage Channels makes them a game master."""
    perms = getattr(interaction, "permissions", None)
    return Actor(user_id=interaction.user.id, is_manager=bool(perms and perms.manage_channels),
                 name=getattr(interaction.user, "display_name", str(interaction.user)))


async def game_or_none(interaction: Interaction) -> Game | None:
    if interaction.channel_id is None:
        return None
    try:
        return await interaction.client.referee.game(interaction.channel_id)
    except RulesError:
        return None


def matching_choices(values: list[tuple[str, str]], current: str, *, skip: int = 0) -> Choices:
    # match the last word being typed (none yet after a trailing space); ``skip`` leaves out the
    # ids already typed, which every name of a multi-id option repeats as its prefix
    folded = current.casefold().split()[-1] if current.strip() and not current[-1:].isspace() else ""
    hits = [(name, value) for name, value in values if folded in name[skip:].casefold()]
    return [app_commands.Choice(name=name[:100], value=value[:100]) for name, value in hits[:MAX_CHOICES]]


def last_token_prefix(current: str) -> str:
    """For options listing several ids, complete the last one and keep the others."""
    parts = current.rsplit(" ", 1)
    return parts[0] + " " if len(parts) == 2 else ""


def offer(values: list[tuple[str, str]], current: str, *, several: bool) -> Choices:
    """Suggestions as Discord's choices; for an option naming several ids, each suggestion keeps
    the ids already typed and completes the last one."""
    if not several:
        return matching_choices(values, current)
    prefix = last_token_prefix(current)
    return matching_choices([(f"{prefix}{label}", f"{prefix}{value}") for label, value in values], current,
                            skip=len(prefix))


def suggesting(kind: str, *, several: bool = False) -> Callable[[Interaction, str], Any]:
    """An autocomplete callback offering what every ruleset has (units, Locations, companies)."""

    async def complete(interaction: Interaction, current: str) -> Choices:
        game = await game_or_none(interaction)
        if game is None:
            return []
        return offer(common_suggestions(kind, game, {}), current, several=several)

    return complete


def named_ids(interaction: Interaction) -> dict[str, list[str]]:
    """The ids typed so far in each option of the command being completed."""
    named: dict[str, list[str]] = {}
    for name, value in interaction.namespace.__dict__.items():
        if isinstance(value, str):
            try:
                named[name] = parse_ids(value, option=name)
            except InvalidOrder:
                continue  # too many ids: nothing to be relative to
    return named


async def ruleset_suggestions(interaction: Interaction, current: str, suggest: Suggest, *,
                              several: bool) -> Choices:
    """What the channel's ruleset offers for an option of one of its commands."""
    game = await game_or_none(interaction)
    if game is None:
        return []
    values = get_ruleset(game.ruleset).suggestions(suggest, game, named_ids(interaction))
    return offer(values, current, several=several)


async def phase_autocomplete(interaction: Interaction, current: str) -> Choices:
    game = await game_or_none(interaction)
    if game is None:
        return []
    ruleset = get_ruleset(game.ruleset)
    return matching_choices([(f"{p} ({ruleset.phase_names.get(p, p)})", p) for p in ruleset.phases], current)


async def side_autocomplete(interaction: Interaction, current: str) -> Choices:
    game = await game_or_none(interaction)
    if game is None:
        return []
    return matching_choices([(side.name, side.name) for side in game.sides], current)


async def terrain_autocomplete(interaction: Interaction, current: str) -> Choices:
    game = await game_or_none(interaction)
    if game is None:
        return []
    return matching_choices([(t, t) for t in sorted(get_ruleset(game.ruleset).terrains())], current)


async def counter_type_autocomplete(interaction: Interaction, current: str) -> Choices:
    game = await game_or_none(interaction)
    if game is None:
        return []
    types = get_ruleset(game.ruleset).counter_types()
    return matching_choices([(f"{key} ({spec.get('name', key)})", key) for key, spec in sorted(types.items())], current)


def side_index(game: Game, name: str) -> int:
    """A side by name (case-insensitive) or by number 1/2."""
    for i, side in enumerate(game.sides):
        if side.name.casefold() == name.strip().casefold():
            return i
    if name.strip() in ("1", "2"):
        return int(name.strip()) - 1
    raise InvalidOrder(f"no side '{name[:40]}' in this game (sides: {', '.join(s.name for s in game.sides)})",
                       field="side")


# --- the body of every order-giving command ---------------------------------------------------------


async def show_odds(interaction: Interaction, order: Any, dice: list[int] | None) -> None:
    """The ``preview`` of an order: its exact odds (``order`` a dict or a function of the game)
    posted in the channel, for the table to discuss; nothing is rolled or logged. Manual dice make
    no sense with it and are refused rather than ignored."""
    if dice:
        raise InvalidOrder("'preview' shows the odds before any roll: leave 'dice' out, or leave 'preview' "
                           "out to resolve the order with your dice", field="dice")
    # a large enumeration goes to a worker process: "thinking..." first (the odds are for the table)
    odds = await interaction.client.referee.odds(interaction.channel_id, actor_of(interaction), order,
                                                 on_long=lambda: defer_thinking(interaction))
    await send_embeds(interaction, odds_embed(odds.report, odds.game, plan=odds.plan), ephemeral=False)


async def reply_sealed(interaction: Interaction, sealed: Any) -> None:
    """Answer a seal: the channel sees who sealed and the commitment; the sealer alone, the text
    and the nonce (to check the reveal themselves)."""
    await reply_outcome(interaction, sealed.acted)
    await interaction.followup.send(
        content=(f"Your sealed order #{sealed.acted.seq}, for you only:\n>>> {safe(sealed.text)}\n"
                 f"Nonce: `{sealed.nonce}` (SHA-256 of the nonce's bytes and the text is the commitment "
                 "posted; /reveal opens it)"), ephemeral=True)


async def act_and_reply(interaction: Interaction, order: Any, *, command: str,
                        dice: list[int] | None = None, preview: bool = False,
                        view_for: Any = None, sealed: bool = False) -> None:
    """The body every order-giving command shares: resolve ``order`` (a dict, or a function of
    the channel's game called under its lock) through the referee service and answer with the
    outcome; with ``preview``, show its exact odds instead; with ``sealed``, seal it to be revealed
    later (bot/core/sealed.py). ``view_for(acted)`` may add buttons. Every answer goes through
    ``send_answer``, so the order is deferred when it waits long (``defer_when_slow``: its channel's
    lock held by another process's command, a slow store) and answers in the "thinking..." message."""
    defer_when_slow(interaction)
    if preview:
        await show_odds(interaction, order, dice)
        return
    if sealed:
        await reply_sealed(interaction, await interaction.client.referee.seal_order(
            interaction.channel_id, actor_of(interaction), order, interaction_id=interaction.id))
        return
    acted = await interaction.client.referee.act(
        interaction.channel_id, actor_of(interaction), order, dice=dice, command=command,
        interaction_id=interaction.id)
    await reply_outcome(interaction, acted, view=view_for(acted) if view_for else None)
