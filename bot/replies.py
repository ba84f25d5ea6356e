"""How the bot answers an interaction: what every cog and the app shell share to reply.

The one place that sends: a result (its embeds over as many messages as Discord's limits need,
then the hand-off mention when the turn passed), a list of embeds, a private refusal. The
layout itself is ``bot.render``'s; this module only decides what goes in which message. Cogs
import it without importing the app shell.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import discord

from bot.core.commands import FORM_TEXT, FormField
from bot.core.errors import RulesError
from bot.core.game import Game
from bot.core.reactions import RULE as WINDOW_RULE
from bot.core.required import next_rolls
from bot.core.rulesets import get_ruleset
from bot.core.sequence import refereed, side_to_act
from bot.limits import Guarded
from bot.loopshare import share
from bot.render import (dice_note, digest_embed, error_embed, go_on_line, hand_off_line, message_groups,
                        next_rolls_line, outcome_embed, reaction_line, regiven_words, shows_summary)

log = logging.getLogger(__name__)

ALREADY_ACKNOWLEDGED = 40060  # Discord's error code for a second answer to one interaction
UNKNOWN_INTERACTION = 10062  # ... for an answer after the 3 s deadline (the token is dead then)
_THINKING = "referee.thinking"  # interaction.extras: "ephemeral" or "public" while a deferred answer is owed


_DEFERRING = "referee.deferring"  # interaction.extras: the deferral on its way (an asyncio future)
# a command not answered this long after it arrived is deferred ("thinking..."), whatever holds it:
# the channel's lock held by another process's command, a slow database. Discord takes the first
# answer within 3 s; this leaves room for the deferral itself to get there on a loaded machine
DEFER_AFTER = 1.5


async def defer_thinking(interaction: discord.Interaction, *, ephemeral: bool = False) -> None:
    """Show "<bot> is thinking..." (to the player alone when ``ephemeral``): the answer comes later,
    in that same message (``send_answer``). Every deferral of a message goes through here, so the
    answer knows who can see the message it will land in (after a private "thinking...", the answer
    stays private whatever it asks). Deferring again is nothing: the first deferral stands."""
    pending = interaction.extras.get(_DEFERRING)
    if pending is not None:
        await asyncio.shield(pending)
        return
    if interaction.response.is_done():
        return
    pending = interaction.extras[_DEFERRING] = asyncio.get_running_loop().create_future()
    try:
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        interaction.extras[_THINKING] = "ephemeral" if ephemeral else "public"
    finally:
        pending.set_result(None)


def defer_when_slow(interaction: discord.Interaction) -> None:
    """Defer ``interaction`` if it is still unanswered ``DEFER_AFTER`` seconds from now: called as an
    order starts (``cogs._common.act_and_reply``, whose every answer goes through ``send_answer``), so
    an order waiting for its channel's lock or a slow store still answers within Discord's 3 s, then
    edits "thinking..." into its answer."""
    loop = asyncio.get_running_loop()

    def due() -> None:
        if not interaction.response.is_done() and _DEFERRING not in interaction.extras:
            task = loop.create_task(_defer_late(interaction), name=f"referee-defer-{interaction.id}")
            _LATE.add(task)
            task.add_done_callback(_LATE.discard)

    loop.call_later(DEFER_AFTER, due)


_LATE: set[asyncio.Task[None]] = set()  # the late deferrals on their way (kept referenced)


async def _defer_late(interaction: discord.Interaction) -> None:
    try:
        await defer_thinking(interaction)
    except discord.HTTPException as exc:  # the answer went out meanwhile, or too late: the answer decides
        log.info("interaction %s could not be deferred (%s, code %s)", interaction.id, exc.status, exc.code)


async def send_answer(interaction: discord.Interaction, *, ephemeral: bool = False, **kwargs: Any) -> Any:
    """Send a message of this interaction's answer: the response if none was sent yet; after
    ``defer_thinking``, the "thinking..." message edited into it; else a followup.

    Discord turns the first followup after a deferral into an edit of the "thinking..." message
    and ignores its ephemeral flag (deprecated behaviour), so that edit is made here on purpose.
    A private answer owed after a public "thinking..." (a refusal found once the work had begun)
    deletes that message and goes privately as a followup: a refusal never lands in the channel.
    Returns what discord.py returns for the message sent (the edited or followup message, or the
    response's callback result)."""
    pending = interaction.extras.get(_DEFERRING)
    if pending is not None:
        await asyncio.shield(pending)  # a deferral on its way is the response: this answer follows it
    if not interaction.response.is_done():
        return await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
    thinking = interaction.extras.pop(_THINKING, None)
    if thinking == "ephemeral" or (thinking == "public" and not ephemeral):
        if "file" in kwargs:
            kwargs["attachments"] = [kwargs.pop("file")]
        return await interaction.edit_original_response(**kwargs)
    if thinking == "public":
        await interaction.delete_original_response()
    return await interaction.followup.send(ephemeral=ephemeral, **kwargs)


def side_players(game: Game, side: int) -> list[int]:
    return list(game.sides[side].players) if 0 <= side < len(game.sides) else []


def only_these(users: list[int]) -> discord.AllowedMentions:
    """Allow mentions of exactly these users: no roles, no @everyone, no reply ping."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(id=user) for user in users])


async def send_ephemeral(interaction: discord.Interaction, *, content: str | None = None,
                         embed: discord.Embed | None = None) -> None:
    """Answer privately, as the response when none was sent yet, else as a followup."""
    kwargs: dict[str, Any] = {"ephemeral": True, "allowed_mentions": discord.AllowedMentions.none()}
    if content is not None:
        kwargs["content"] = content
    if embed is not None:
        kwargs["embed"] = embed
    try:
        await send_answer(interaction, **kwargs)
    except discord.HTTPException as exc:
        # too late (3 s: 10062; 15 min), or Discord is unreachable: nothing left to tell, and a
        # refusal saved nothing; one line, not a traceback per command
        log.warning("could not send the private reply to interaction %s: %s (code %s)",
                    interaction.id, exc.status, exc.code)


def button_json(label: str, custom_id: str, style: discord.ButtonStyle = discord.ButtonStyle.secondary
                ) -> dict[str, Any]:
    """A button (grey unless ``style``) as Discord's component JSON, the dict discord.py's ``Button`` makes."""
    return {"type": 2, "style": style.value, "disabled": False, "label": label, "custom_id": custom_id}


# --- buttons for the next step: their custom_ids, read back by the dynamic items of cogs/turns.py ---

DONE_ID = "next:done:{game}:{turn}:{step}:{impulse}"  # the step it ends: turn, step, impulse
REACT_ID = "react:{verb}:{game}:{number}"  # the reaction window it answers, by its number in the game


def done_button(game_id: int, game: Game) -> dict[str, Any] | None:
    """"Done" for the side holding the step now (None where the sequence of play is not refereed)."""
    if not refereed(game):
        return None
    return button_json("Done", DONE_ID.format(game=game_id, turn=game.turn, step=game.step, impulse=game.impulse),
                       discord.ButtonStyle.primary)


ROLL_ID = "roll:{game}:{turn}:{step}:{impulse}:{command}:{value}"  # a roll the rules call for, of that step
MAX_CUSTOM_ID = 100  # Discord's


def roll_buttons(game_id: int, game: Game, *, limit: int = 5) -> list[dict[str, Any]]:
    """The rolls the rules call for of the side holding the step (bot/core/required.py), a button
    each, the next ``limit`` of them (a unit whose custom_id would be too long for Discord is left to
    its command)."""
    found = []
    for roll in next_rolls(game, get_ruleset(game.ruleset), limit=limit):
        custom_id = ROLL_ID.format(game=game_id, turn=game.turn, step=game.step, impulse=game.impulse,
                                   command=roll.roll.command, value=roll.value)
        if len(custom_id) <= MAX_CUSTOM_ID and ":" not in roll.value:
            found.append(button_json(roll.label, custom_id, discord.ButtonStyle.secondary))
    return found


def reaction_buttons(game_id: int, game: Game) -> list[dict[str, Any]]:
    """"Fire" and "No fire" for the open reaction window (none when none is open)."""
    window = game.reaction
    if window is None:
        return []
    return [button_json("Fire", REACT_ID.format(verb="fire", game=game_id, number=window.number),
                        discord.ButtonStyle.danger),
            button_json("No fire", REACT_ID.format(verb="pass", game=game_id, number=window.number),
                        discord.ButtonStyle.success)]


class Buttons:
    """Buttons sent as Discord's component JSON (one row, at most 5), without a discord.py View.

    For buttons whose clicks are routed by their custom_id alone (a ``DynamicItem`` class
    registered on the client at start, so clicks work across restarts): a ``View`` per message
    would cost its random id, a future, its children built and walked, its registration in the
    ViewStore, all to route nothing. discord.py (pinned) sends whatever has a view's interface:
    ``to_components`` for the payload; ``is_finished`` true, so it is never stored (there is
    nothing to dispatch to it); ``is_dispatchable`` false, so an ephemeral one gets no timeout.
    tests/cogs/test_result_layout.py checks the JSON equals the View's and clicks work after a
    restart."""

    __discord_ui_view__ = True  # discord.py's check that ``view=`` is given a view
    __discord_ui_modal__ = False
    timeout = None

    def __init__(self, *buttons: dict[str, Any]) -> None:
        self.buttons = list(buttons)

    def add(self, button: dict[str, Any]) -> Buttons:
        if len(self.buttons) >= 5:
            raise ValueError("one row holds at most 5 buttons")
        self.buttons.append(button)
        return self

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": list(self.buttons)}]

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False


FORM_ID = "react:form:{game}:{number}"  # the Fire form of a reaction window, by its number in the game
ROLL_FORM_ID = "rollform:{game}:{turn}:{step}:{impulse}:{command}"  # a roll's form, for that step


class Form:
    """A modal (Discord's short form) sent as its JSON, without a discord.py ``Modal`` kept in
    memory: its submission is routed by its custom_id (a listener of cogs/turns.py), so it works
    for whichever player opened it and after a restart, as the ``Buttons`` are. discord.py (pinned)
    sends whatever has a modal's ``to_dict``; ``is_finished`` true, so it is never stored."""

    def __init__(self, custom_id: str, title: str, fields: tuple[FormField, ...]) -> None:
        self.custom_id, self.title, self.fields = custom_id, title, fields

    def to_dict(self) -> dict[str, Any]:
        return {"custom_id": self.custom_id, "title": self.title[:45], "components": [
            {"type": 1, "components": [self._input(f)]} for f in self.fields]}

    @staticmethod
    def _input(field: FormField) -> dict[str, Any]:
        """A short text input (type 4, style 1), its value prefilled when there is one."""
        item: dict[str, Any] = {"type": 4, "custom_id": field.name, "style": 1, "label": field.label,
                                "placeholder": field.placeholder, "required": field.required, "max_length": FORM_TEXT}
        if field.value:
            item["value"] = field.value[:FORM_TEXT]
        return item

    def is_finished(self) -> bool:
        return True


def submitted_texts(interaction: discord.Interaction) -> dict[str, str]:
    """The text entered in each field of a submitted form, by the field's custom_id."""
    texts: dict[str, str] = {}
    for row in (interaction.data or {}).get("components", []):  # type: ignore[union-attr]
        for item in row.get("components", []):
            if "custom_id" in item:
                texts[item["custom_id"]] = str(item.get("value") or "")
    return texts


class DetailsButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                    template=r"details:(?P<game>[0-9]{1,18}):(?P<seq>[0-9]{1,9})"):
    """"Details" on a result shown outcome first: the whole trail of that log entry, every rule
    named, shown to the presser alone. Rebuilt from its custom_id on every click, restarts
    included; it reads the entry from the log, so it shows exactly what was logged."""

    def __init__(self, game_id: int, seq: int):
        super().__init__(discord.ui.Button(label="Details", style=discord.ButtonStyle.secondary,
                                           custom_id=f"details:{game_id}:{seq}"))
        self.game_id, self.seq = game_id, seq

    @staticmethod
    def sent(game_id: int, seq: int) -> dict[str, Any]:
        """The button as sent under a result (``Buttons``): the same JSON as this item's."""
        return button_json("Details", f"details:{game_id}:{seq}")

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> "DetailsButton":
        return cls(int(match["game"]), int(match["seq"]))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            entry = await interaction.client.referee.entry(self.game_id, self.seq)  # type: ignore[attr-defined]
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        embeds = outcome_embed(entry.outcome_model(), None, entry_seq=entry.seq, details=True)
        await send_embeds(interaction, embeds, ephemeral=True)


def with_details(view: discord.ui.View | Buttons | None, acted: Any) -> discord.ui.View | Buttons | None:
    """The Details button added to a result shown outcome first (with its other buttons, if any)."""
    if not shows_summary(acted.outcome, acted.game):
        return view
    if isinstance(view, discord.ui.View):
        return view.add_item(DetailsButton(acted.entry.game_id, acted.seq))
    details = DetailsButton.sent(acted.entry.game_id, acted.seq)
    return view.add(details) if view is not None else Buttons(details)


async def send_embeds(interaction: discord.Interaction, embeds: list[discord.Embed], *, ephemeral: bool,
                      view: discord.ui.View | None = None) -> None:
    """Send embeds already laid out within Discord's limits: the first message as the response,
    the rest as followups (at most 10 embeds and 6,000 characters per message); ``view`` (buttons)
    goes on the last message, under everything."""
    groups = message_groups(embeds)
    for i, group in enumerate(groups):
        extra = {"view": view} if view is not None and i == len(groups) - 1 else {}
        await send_answer(interaction, embeds=group, ephemeral=ephemeral, **extra)


async def reply_outcome(interaction: discord.Interaction, acted: Any, *, ephemeral: bool = False,
                        view: discord.ui.View | Buttons | None = None) -> None:
    """Render an action's outcome and send it: the first message as the response, the rest as
    followups. ``acted`` is what ``Referee.act`` returns (its outcome, game and log seq).
    ``view`` (buttons, e.g. /fire's "Odds") goes on the first message, the one with the headline.

    The result is saved before this runs. If Discord refuses the first message (the 3 seconds
    were up: 10062; an outage past discord.py's own retries), the same interaction is never
    answered again (Discord would refuse that too): the result is posted to the channel as a
    plain message naming its log entry, so nothing saved goes unseen."""
    await share()  # the render and discord.py's send run on: other channels' turns first if due
    note = dice_note(getattr(acted, "entry", None))
    if getattr(acted, "regiven", None) is not None:  # an order given again after its undo: marked
        note = " · ".join(filter(None, [regiven_words(acted.regiven, bool(acted.outcome.rolls)), note]))
    groups = message_groups(outcome_embed(acted.outcome, acted.game, entry_seq=acted.seq, note=note))
    view = with_details(view, acted)
    try:
        extra = {"view": view} if view is not None else {}
        await send_answer(interaction, embeds=groups[0], ephemeral=ephemeral, **extra)
    except discord.HTTPException as exc:
        if getattr(acted, "replayed", False) and exc.code == ALREADY_ACKNOWLEDGED:
            return  # a duplicate delivery: the recorded answer was given the first time
        if ephemeral or interaction.channel_id is None:
            raise
        log.warning("Discord refused the reply to interaction %s (%s, code %s); posting log #%s to the channel",
                    interaction.id, exc.status, exc.code, acted.seq)
        await post_saved_result(interaction.client, interaction.channel_id, acted,
                                why=f"<@{interaction.user.id}>: your order was saved as log #{acted.seq}, but "
                                    "Discord did not take the bot's reply in time, so here is the result. "
                                    "Do not give the order again.")
        return
    if not ephemeral:
        await note_shown(getattr(interaction, "client", None), acted)
    for group in groups[1:]:
        await interaction.followup.send(embeds=group, ephemeral=ephemeral)
    if not ephemeral and getattr(acted, "hand_off", None) is not None:
        await send_hand_off(interaction, acted)
    if not ephemeral:
        await send_window_notice(interaction.followup.send, acted, client=getattr(interaction, "client", None),
                                 channel_id=getattr(interaction, "channel_id", None),
                                 guild_id=getattr(interaction, "guild_id", None))
        if getattr(acted, "entry", None) is not None and getattr(interaction, "user", None) is not None:
            await send_next_rolls(interaction, acted)


async def reply_and_close(interaction: discord.Interaction, acted: Any) -> None:
    """A button answered a request (a seat, the end of a step): the result, then the request's
    buttons taken off, so it reads as answered (unless this was a re-delivered click)."""
    await reply_outcome(interaction, acted)
    if interaction.message is not None and not acted.replayed:
        try:
            await interaction.message.edit(view=None)
        except discord.HTTPException:
            pass  # the request stays readable; a second click is refused as closed


async def note_shown(client: Any, acted: Any) -> None:
    """The result reached its channel: it need not be posted again after a restart."""
    referee = getattr(client, "referee", None)
    if referee is None:
        return
    try:
        await referee.shown(acted)
    except Exception:  # the store is failing: the result may be posted once more after a restart
        log.warning("could not note log #%s as shown", acted.seq, exc_info=True)


async def post_saved_result(client: Any, channel_id: int, acted: Any, *, why: str) -> bool:
    """Post a saved result to its channel as plain messages (a REST call of the bot's own, no
    interaction token): what players see when the interaction's reply could not carry it, or
    when the bot restarted before replying. ``why`` heads the first message. True once posted."""
    channel = client.get_partial_messageable(channel_id)
    groups = message_groups(outcome_embed(acted.outcome, acted.game, entry_seq=acted.seq,
                                          note=dice_note(getattr(acted, "entry", None))))
    view = with_details(None, acted)
    try:
        for i, group in enumerate(groups):
            extra = {"view": view} if i == 0 and view is not None else {}
            await channel.send(content=why if i == 0 else None, embeds=group,
                               allowed_mentions=discord.AllowedMentions.none(), **extra)
    except discord.HTTPException as exc:
        log.warning("log #%s could not be posted to channel %s either (%s, code %s); it stays in the log and "
                    "is posted again at the next start", acted.seq, channel_id, exc.status, exc.code)
        return False
    await note_shown(client, acted)
    try:
        if getattr(acted, "hand_off", None) is not None:
            line = hand_off_line(acted.game, acted.hand_off, await _away(client, acted.game, acted.hand_off))
            if line is not None:
                await channel.send(content=line, allowed_mentions=only_these(side_players(acted.game, acted.hand_off)),
                                   **_done_view(acted))
                await notify_by_dm(client, channel_id, None, side_players(acted.game, acted.hand_off), line)
        await send_window_notice(channel.send, acted, unseen=True, client=client, channel_id=channel_id)
    except discord.HTTPException:
        log.warning("the hand-off after log #%s could not be posted", acted.seq)
    return True


def _done_view(acted: Any) -> dict[str, Any]:
    """The Done button for the side the game was handed to, and the rolls the rules call for of it now
    (a Rally Phase's attempts: at most one row), as ``send``'s keyword (none when not refereed)."""
    button = done_button(acted.entry.game_id, acted.game)
    if button is None:
        return {}
    return {"view": Buttons(button, *roll_buttons(acted.entry.game_id, acted.game, limit=4))}


async def send_next_rolls(interaction: discord.Interaction, acted: Any) -> None:
    """After a result of the side holding a step in which the rules call for rolls of it (another rally
    attempt, a company check fallen due, a step begun by its /done): the next of them as buttons, to
    the player who gave the order, privately (one row; never to a player of another side or a
    spectator: the hand-off carries them when the game passes to another side)."""
    if getattr(acted, "replayed", False) or getattr(acted, "hand_off", None) is not None:
        return
    game = acted.game
    ruleset = get_ruleset(game.ruleset)
    if not ruleset.required_rolls or interaction.user.id not in side_players(game, side_to_act(game)):
        return
    buttons = roll_buttons(acted.entry.game_id, game)
    line = next_rolls_line(game, next_rolls(game, ruleset)) if buttons else None
    if line is None:
        return
    try:
        await interaction.followup.send(content=line, ephemeral=True, view=Buttons(*buttons),
                                        allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as exc:  # the result stands; the player gives the command instead
        log.info("the next rolls after log #%s could not be offered (%s, code %s)", acted.seq, exc.status, exc.code)


async def send_window_notice(send: Any, acted: Any, *, unseen: bool = False, client: Any = None,
                             channel_id: int | None = None, guild_id: int | None = None) -> None:
    """After an action that opened a reaction window, or answered in one: the reacting side's players
    mentioned (the first time) with Fire and No fire; after the window closed, the side that waited
    mentioned, with its Done. ``send``: the followup's or the channel's. Nothing on a re-delivery,
    unless the result itself was never seen (``unseen``: posted to the channel after a restart)."""
    if (getattr(acted, "replayed", False) and not unseen) or \
            not any(step.rule == WINDOW_RULE for step in acted.outcome.trail):
        return
    game = acted.game
    window = game.reaction
    if window is not None:
        line = reaction_line(game)
        if line is not None:
            players = side_players(game, window.side) if not window.answers else []
            await send(content=line, allowed_mentions=only_these(players),
                       view=Buttons(*reaction_buttons(acted.entry.game_id, game)))
            if channel_id is not None:  # the window's first notice: by DM too, to those who chose it
                await notify_by_dm(client, channel_id, guild_id, players, line)
        return
    if acted.entry.order.get("action") != "react" or getattr(acted, "hand_off", None) is not None:
        return  # the window closed with its step: the hand-off said what comes next
    side = side_to_act(game)
    line = go_on_line(game, side, acted.outcome.headline)
    if line is not None:
        await send(content=line, allowed_mentions=only_these(side_players(game, side)), **_done_view(acted))


def channel_link(client: Any, channel_id: int, guild_id: int | None = None) -> str:
    """A link to a game's channel, as a DM carries it: its URL when the server is known, else a mention."""
    if guild_id is None:
        channel = client.get_channel(channel_id) if client is not None else None
        guild_id = getattr(getattr(channel, "guild", None), "id", None)
    return f"https://discord.com/channels/{guild_id}/{channel_id}" if guild_id is not None else f"<#{channel_id}>"


async def notify_by_dm(client: Any, channel_id: int, guild_id: int | None, users: list[int], line: str) -> None:
    """The line just posted to the channel (a hand-off, a reaction window, a reminder), by DM too to
    those of ``users`` who chose it (/notify dm:yes), with a link to the channel. A DM Discord refuses
    (their DMs closed to the bot: 50007; or any other refusal) is dropped silently: the channel's
    mention stands."""
    referee = getattr(client, "referee", None)
    if referee is None or not users:
        return
    try:
        wanted = await referee.dm_users(users)
    except Exception:  # the store failing: the channel's mention stands
        log.warning("could not read who is notified by DM", exc_info=True)
        return
    text = line.split(": ", 1)[1] if line.startswith("<@") and ": " in line else line
    body = f"{text}\n{channel_link(client, channel_id, guild_id)}"
    for user in (u for u in users if u in wanted):
        try:
            dm = await client.create_dm(discord.Object(id=user))
            await dm.send(content=body, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.info("a DM to %s was refused (%s, code %s): the channel's mention stands", user, exc.status, exc.code)


async def _away(client: Any, game: Game, side: int) -> dict[int, Any]:
    """The side's players away now (/away), for the hand-off; none when it cannot be read (the hand-off
    goes out all the same)."""
    referee = getattr(client, "referee", None)
    players = side_players(game, side)
    if referee is None or not players:
        return {}
    try:
        return await referee.away_now(players)
    except Exception:  # the store failing: the mention without the away
        log.warning("could not read the away of %s", players, exc_info=True)
        return {}


async def send_hand_off(interaction: discord.Interaction, acted: Any) -> None:
    """After a reply that passed the game to another side: mention exactly that side's players, with
    a digest of what happened since they last acted (one embed)."""
    game, side = acted.game, acted.hand_off
    line = hand_off_line(game, side, await _away(interaction.client, game, side))
    if line is None:
        return
    referee = getattr(interaction.client, "referee", None)
    since = await referee.since_last_acted(acted.entry, game, side) if referee is not None else []
    extra = {"embed": digest_embed(since, game)} if since else {}
    await interaction.followup.send(content=line, allowed_mentions=only_these(side_players(game, side)), **extra,
                                    **_done_view(acted))
    await notify_by_dm(interaction.client, interaction.channel_id, interaction.guild_id, side_players(game, side),
                       line)
