"""/game: start this channel's game, take a side, look at it (as text, or as a map), advance the phase, end it.

A channel (or a thread) is one game. Each command parses its options, hands one order to the
referee service (which checks permissions, resolves it in the rules core and saves it with its
log entry in one transaction) and renders what came back. Refusals are raised, never caught
here: the bot's one error handler turns them into red ephemeral embeds.

/game new is built from the registry when the cog loads: its ruleset and variant choices, and one
option per side for each number a ruleset's scenario gives a side (a side option 'elr' gives elr_1, elr_2).
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core import deadlines
from bot.core.commands import parse_dice, parse_options
from bot.core.errors import InvalidOrder, RulesError
from bot.core.options import creation_values
from bot.core.ruleset import Ruleset
from bot.core.rulesets import get_ruleset, rulesets
from bot.limits import Guarded
from bot.maps import MAP_FILE, battlefield_picture, map_file, map_view
from bot.render import (STATUS_RECENT, end_request_embed, error_embed, game_status_embed, map_embed, options_embed,
                        seat_embed, status_embed, substitute_embed)
from bot.replies import only_these, reply_and_close, reply_outcome, send_embeds, send_ephemeral
from bot.service import REOPEN_WITHIN, NotAllowed, is_game_master
from cogs._common import (act_and_reply, actor_of, phase_autocomplete, reply_new_game, scenario_file,
                          side_autocomplete, side_index)
from cogs._slash import Param, build_command

SIDES = ("first", "second")


def split_sides(text: str) -> list[str]:
    """'Germans, Russians' -> ['Germans', 'Russians']; the rules core checks there are two."""
    return [name.strip() for name in text.split(",")]


def creation_options(ruleset: Ruleset, options: str | None, values: dict[str, Any]) -> dict[str, Any]:
    """The game's options from the key=value text, each checked against the catalogue
    (bot/core/options.py), with each side option given (``elr_1``, ``elr_2``) as the list the rules
    core reads; a side option of another ruleset is refused by name."""
    parsed = creation_values(ruleset, parse_options(options), values.get("variant") or ruleset.default_variant())
    for registered in rulesets():
        for option in registered.side_options:
            given = [values.get(f"{option.name}_{i + 1}") for i in range(len(SIDES))]
            if all(value is None for value in given):
                continue
            if option not in ruleset.side_options:
                raise InvalidOrder(f"the {option.title} ({option.rule}) belongs to {registered.title} games: "
                                   f"{ruleset.title} has none", field=f"{option.name}_1")
            parsed[option.name] = given  # the rules core checks each value against the option's range
    return parsed


def new_game_params(registered: tuple[Ruleset, ...]) -> list[Param]:
    variants = [(title, key) for r in registered for key, title in r.variants.items()]
    with_variants = " and ".join(r.title for r in registered if r.variants)
    params = [
        Param("ruleset", str, "The rules system the game is played with", required=True,
              choices=[(r.title, r.name) for r in registered]),
        Param("sides", app_commands.Range[str, 3, 200], "The two sides' names, separated by a comma, e.g. "
              "'Germans, Russians'", required=True),
        Param("scenario", app_commands.Range[str, 1, 100], "The scenario's name, shown on every result"),
    ]
    if variants:
        params.append(Param("variant", str, f"{with_variants} only: which rules ({', '.join(t for t, _ in variants)})",
                            choices=variants))
    for r in registered:
        for option in r.side_options:
            params += [Param(f"{option.name}_{i + 1}", int, f"{r.title} only: the {which} side's {option.title}, "
                             f"{option.min} to {option.max} ({option.rule})") for i, which in enumerate(SIDES)]
    params.append(Param("options", str, "Game options as key=value pairs, e.g. open_seating=yes (the list: "
                        "/game options)"))
    params.append(Param("file", discord.Attachment, "A scenario file or a saved game (docs/scenarios.md) to set "
                        "the game up from; options here win"))
    return params


class SeatButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                 template=r"seat:(?P<verb>approve|decline|accept|refuse):(?P<game>[0-9]{1,18}):(?P<side>[01]):"
                          r"(?P<user>[0-9]{1,20}):(?P<by>[0-9]{1,20})"):
    """A seat needs both consents: the game master approves a player's request (Approve/Decline), a
    player accepts the game master's invitation (Accept/Decline). Rebuilt from its custom_id on every
    click, restarts included; the seat itself is one logged join order, given by the one who clicks."""

    LABELS = {"approve": "Approve", "decline": "Decline", "accept": "Accept", "refuse": "Decline"}

    def __init__(self, verb: str, game_id: int, side: int, user: int, by: int):
        style = discord.ButtonStyle.success if verb in ("approve", "accept") else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=self.LABELS[verb], style=style,
                                           custom_id=f"seat:{verb}:{game_id}:{side}:{user}:{by}"))
        self.verb, self.game_id, self.side, self.user, self.by = verb, game_id, side, user, by

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> SeatButton:
        return cls(match["verb"], int(match["game"]), int(match["side"]), int(match["user"]), int(match["by"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        referee, actor = interaction.client.referee, actor_of(interaction)
        try:
            stored = await referee.active(interaction.channel_id)
            game = stored.game
            if stored.id != self.game_id:
                raise NotAllowed("this seat was offered in an earlier game of this channel")
            if self.verb in ("decline", "refuse"):
                answerer = is_game_master(game, actor) if self.verb == "decline" else actor.user_id == self.user
                if not answerer:
                    raise NotAllowed("only the game master answers a request for a seat, only the invited player "
                                     "an invitation")
                await interaction.response.edit_message(
                    embed=seat_embed("declined", game, self.side, self.user, actor.user_id), view=None)
                return
            order: dict[str, Any] = {"action": "join", "side": self.side, "player": self.user}
            order |= {"requested": True} if self.verb == "approve" else {"approved_by": self.by}
            acted = await referee.act(interaction.channel_id, actor, order, command="/game join",
                                      interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


class SubstituteButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                       template=r"sub:(?P<verb>accept|refuse):(?P<game>[0-9]{1,18}):(?P<old>[0-9]{1,20}):"
                                r"(?P<new>[0-9]{1,20}):(?P<by>[0-9]{1,20})"):
    """The substitute's consent to take a player's seat (``/game replace``): Accept gives the logged
    replace order (by the substitute), Decline leaves the seat as it is. Only the invited substitute
    answers; rebuilt from its custom_id on every click, restarts included."""

    def __init__(self, verb: str, game_id: int, old: int, new: int, by: int):
        style = discord.ButtonStyle.success if verb == "accept" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label="Accept" if verb == "accept" else "Decline", style=style,
                                           custom_id=f"sub:{verb}:{game_id}:{old}:{new}:{by}"))
        self.verb, self.game_id, self.old, self.new, self.by = verb, game_id, old, new, by

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> SubstituteButton:
        return cls(match["verb"], int(match["game"]), int(match["old"]), int(match["new"]), int(match["by"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        referee, actor = interaction.client.referee, actor_of(interaction)
        try:
            stored = await referee.active(interaction.channel_id)
            if stored.id != self.game_id:
                raise NotAllowed("this invitation was for an earlier game of this channel")
            if actor.user_id != self.new:
                raise NotAllowed(f"only <@{self.new}>, the invited substitute, answers this invitation")
            if self.verb == "refuse":
                await interaction.response.edit_message(
                    embed=substitute_embed(stored.game, self.old, self.new, self.by, declined=True), view=None)
                return
            order = {"action": "replace", "player": self.new, "old": self.old, "approved_by": self.by}
            acted = await referee.act(interaction.channel_id, actor, order, command="/game replace",
                                      interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


def seat_view(kind: str, game_id: int, side: int, user: int, by: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for verb in (("approve", "decline") if kind == "request" else ("accept", "refuse")):
        view.add_item(SeatButton(verb, game_id, side, user, by))
    return view


REOPEN_HOURS = REOPEN_WITHIN.total_seconds() / 3600


class EndButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                template=r"gameend:(?P<verb>confirm|cancel):(?P<game>[0-9]{1,18}):(?P<asker>[0-9]{1,20})"):
    """Confirm or Cancel under /game end's question. Only the one who asked, or the game master, may
    press; rebuilt from its custom_id on every click, restarts included. Confirming ends the game
    the question was asked for (never a later one of the channel)."""

    def __init__(self, verb: str, game_id: int, asker: int):
        style = discord.ButtonStyle.danger if verb == "confirm" else discord.ButtonStyle.secondary
        label = "End the game" if verb == "confirm" else "Cancel"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"gameend:{verb}:{game_id}:{asker}"))
        self.verb, self.game_id, self.asker = verb, game_id, asker

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> EndButton:
        return cls(match["verb"], int(match["game"]), int(match["asker"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        referee, actor = interaction.client.referee, actor_of(interaction)
        try:
            stored = await referee.active(interaction.channel_id)
            if stored.id != self.game_id:
                raise NotAllowed("this question was asked for an earlier game of this channel: nothing was ended")
            if actor.user_id != self.asker and not is_game_master(stored.game, actor):
                raise NotAllowed("only the one who asked to end this game, or the game master, may confirm or "
                                 "cancel it")
            if self.verb == "cancel":
                await interaction.response.edit_message(
                    embed=end_request_embed(stored.game, self.asker, REOPEN_HOURS, "cancelled", actor.user_id),
                    view=None)
                return
            acted = await referee.end_game(interaction.channel_id, actor, interaction_id=interaction.id,
                                           game_id=self.game_id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


def end_view(game_id: int, asker: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for verb in ("confirm", "cancel"):
        view.add_item(EndButton(verb, game_id, asker))
    return view


class GameCog(commands.Cog):
    game = app_commands.Group(name="game", description="Start, join, look at, advance and end this channel's game",
                              guild_only=True)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(SeatButton, EndButton, SubstituteButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(SeatButton, EndButton, SubstituteButton)

    def __init__(self, bot: RefereeClient):
        self.bot = bot
        others = list(self.game.commands)
        for command in others:  # /game new first, as players meet it
            self.game.remove_command(command.name)
        self.game.add_command(build_command("new", "Start a game in this channel (a thread is a channel of its own)",
                                            new_game_params(rulesets()), self.new))
        for command in others:
            self.game.add_command(command)

    async def new(self, interaction: Interaction, values: dict[str, Any]) -> None:
        ruleset = get_ruleset(values["ruleset"])
        game_options = creation_options(ruleset, values.get("options"), values)
        setup = loaded = None
        if values.get("file") is not None:  # the file's set-up, with what was given here in its place
            side_options = {o.name: game_options.pop(o.name) for o in ruleset.side_options if o.name in game_options}
            loaded = await scenario_file(interaction, values["file"], ruleset=ruleset.name,
                                         title=values.get("scenario"), variant=values.get("variant"),
                                         side_names=split_sides(values["sides"]), side_options=side_options,
                                         options=game_options)
            setup = loaded.scenario
        acted = await interaction.client.referee.new_game(
            interaction.channel_id, interaction.guild_id, actor_of(interaction), ruleset.name,
            split_sides(values["sides"]), scenario=values.get("scenario") or "", variant=values.get("variant"),
            options=game_options, interaction_id=interaction.id, setup=setup)
        await reply_new_game(interaction, acted, loaded)

    @game.command(name="join", description="Take a side: ask the game master for a seat (or invite a player)")
    @app_commands.describe(side="The side you play",
                           player="Game master only: the player to invite (they accept or decline)")
    @app_commands.autocomplete(side=side_autocomplete)
    async def join(self, interaction: Interaction, side: str, player: discord.User | None = None) -> None:
        game = await interaction.client.referee.game(interaction.channel_id)
        index, actor = side_index(game, side), actor_of(interaction)
        target = player or interaction.user
        game_master = is_game_master(game, actor)
        if game.sequence is None or (target.id == actor.user_id and (
                game_master or game.options.get("open_seating") is True)):
            # a game logged before seats needed consent, the game master's own seat, or open seating
            await act_and_reply(interaction, {"action": "join", "side": index, "player": target.id},
                                command="/game join")
            return
        if target.id != actor.user_id and not game_master:
            raise NotAllowed("only the game master seats another player: ask for your own seat with /game join")
        if any(target.id in s.players for s in game.sides):
            raise NotAllowed(f"<@{target.id}> already plays in this game")
        stored = await interaction.client.referee.game_id(interaction.channel_id)
        kind = "invite" if target.id != actor.user_id else "request"
        await interaction.response.send_message(
            embed=seat_embed(kind, game, index, target.id, actor.user_id),
            view=seat_view(kind, stored, index, target.id, actor.user_id),
            allowed_mentions=discord.AllowedMentions.none())

    @game.command(name="leave", description="Give up your seat in this channel's game")
    async def leave(self, interaction: Interaction) -> None:
        await act_and_reply(interaction, {"action": "leave", "player": interaction.user.id}, command="/game leave")

    @game.command(name="kick", description="Game master only: take a player's seat away")
    @app_commands.describe(player="The player who no longer plays")
    async def kick(self, interaction: Interaction, player: discord.User) -> None:
        game = await interaction.client.referee.game(interaction.channel_id)
        if player.id != interaction.user.id and not is_game_master(game, actor_of(interaction)):
            raise NotAllowed("only the game master takes another player's seat away: /game leave gives up yours")
        await act_and_reply(interaction, {"action": "leave", "player": player.id}, command="/game kick")

    @game.command(name="replace", description="Game master: seat a substitute in a player's place (they accept)")
    @app_commands.rename(substitute="with")
    @app_commands.describe(player="The player who leaves the seat", substitute="The substitute who takes it over "
                                                                           "(invited: they accept or decline)")
    async def replace(self, interaction: Interaction, player: discord.User, substitute: discord.User) -> None:
        referee, actor = interaction.client.referee, actor_of(interaction)
        stored = await referee.active(interaction.channel_id)
        game = stored.game
        if not is_game_master(game, actor):
            raise NotAllowed("only the game master seats a substitute: /game leave gives up your own seat")
        if not any(player.id in side.players for side in game.sides):
            raise NotAllowed(f"<@{player.id}> has no seat in this game: a substitute takes the seat of a player")
        if any(substitute.id in side.players for side in game.sides):
            raise NotAllowed(f"<@{substitute.id}> already plays in this game")
        if substitute.bot:
            raise NotAllowed("a bot cannot play: name a person as the substitute")
        view = discord.ui.View(timeout=None)
        for verb in ("accept", "refuse"):
            view.add_item(SubstituteButton(verb, stored.id, player.id, substitute.id, actor.user_id))
        await interaction.response.send_message(
            content=f"<@{substitute.id}>", embed=substitute_embed(game, player.id, substitute.id, actor.user_id),
            view=view, allowed_mentions=only_these([substitute.id]))

    @game.command(name="status", description="Who acts, the step, each side's units, what changed lately; "
                                             "every unit and the map on buttons")
    async def status(self, interaction: Interaction) -> None:
        # anyone may look, players or not: it changes nothing. One phone screen in the channel; the
        # Units button lists every unit to the presser alone, the Map button draws the picture
        referee = interaction.client.referee
        stored, recent, undone = await referee.status(interaction.channel_id, STATUS_RECENT)
        # its players' away, and with a deadline when it falls
        away = await referee.away_now(p for side in stored.game.sides for p in side.players)
        deadline, _ = await referee.deadline(stored)
        await send_embeds(interaction, [status_embed(stored.game, recent, undone, now=referee.clock(), away=away,
                                                     deadline=deadline)],
                          ephemeral=False, view=map_view(stored.id))

    @game.command(name="map", description="A picture of the battlefield: terrain, every stack or stand, and the "
                                          "latest fire")
    @app_commands.describe(whole="yes: the whole map; by default a large map shows the area in play, as wide "
                                 "as a phone reads it")
    async def map(self, interaction: Interaction, whole: bool = False) -> None:
        field, picture = await battlefield_picture(interaction.client.referee, interaction.channel_id, whole=whole)
        await interaction.response.send_message(embed=map_embed(field.game, MAP_FILE), file=map_file(picture))

    @game.command(name="options", description="See this game's options; the game master changes them")
    @app_commands.rename(changes="set")
    @app_commands.describe(changes="Game master: name=value pairs separated by spaces, e.g. undo_minutes=2880 "
                                   "(name=default restores the default)")
    async def options(self, interaction: Interaction, changes: app_commands.Range[str, 1, 400] | None = None) -> None:
        if changes is not None:
            order = {"action": "options_set", "changes": parse_options(changes, option="set")}
            await act_and_reply(interaction, order,
                                command="/game options")
            return
        game = await interaction.client.referee.game(interaction.channel_id)
        await send_embeds(interaction, options_embed(game), ephemeral=True)

    @game.command(name="phase", description="Game master: move the game to the next phase, or to another one")
    @app_commands.describe(to="The phase to go to, ending every phase in between (the next one, if left out)",
                           dice="Manual dice for the rolls a phase starts with on the way (an initiative roll)")
    @app_commands.autocomplete(to=phase_autocomplete)
    async def phase(self, interaction: Interaction, to: str | None = None, dice: str | None = None) -> None:
        await act_and_reply(interaction, {"action": "phase", "to": to}, command="/game phase", dice=parse_dice(dice))

    @game.command(name="deadline", description="Game master: extend the deadline of the current step, once per step")
    @app_commands.describe(extend="Hours added to the step's deadline (game option deadline_hours), from now on "
                                  "until the step ends")
    async def deadline(self, interaction: Interaction,
                       extend: app_commands.Range[float, 1, deadlines.EXTEND_MAX]) -> None:
        await act_and_reply(interaction, {"action": "deadline_extend", "hours": extend}, command="/game deadline")

    @game.command(name="pause", description="Game master: stop the game's clock (no deadline, reminder or "
                                            "reaction time limit runs)")
    async def pause(self, interaction: Interaction) -> None:
        await act_and_reply(interaction, {"action": "pause", "paused": True}, command="/game pause")

    @game.command(name="resume", description="Game master: start the game's clock again after /game pause")
    async def resume(self, interaction: Interaction) -> None:
        await act_and_reply(interaction, {"action": "pause", "paused": False}, command="/game resume")

    @game.command(name="end", description="Game master only: end this channel's game, after a confirmation "
                                          "(its log is kept)")
    async def end(self, interaction: Interaction) -> None:
        stored = await interaction.client.referee.may_end(interaction.channel_id, actor_of(interaction))
        await interaction.response.send_message(
            embed=end_request_embed(stored.game, interaction.user.id, REOPEN_HOURS),
            view=end_view(stored.id, interaction.user.id))

    @game.command(name="reopen", description=f"Game master only: reopen this channel's game ended by mistake "
                                             f"(within {REOPEN_HOURS:g} hours of its end)")
    async def reopen(self, interaction: Interaction) -> None:
        acted = await interaction.client.referee.reopen_game(interaction.channel_id, actor_of(interaction),
                                                             interaction_id=interaction.id)
        await reply_outcome(interaction, acted)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(GameCog(bot))
