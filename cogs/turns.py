"""/done: a side ends its part of the turn, and the game passes to whoever acts next.

Only the side holding the step (or the game master) ends it. A player of another side who gives
/done asks the holder to end it instead: the request is posted with Accept and Refuse buttons for
the holder's players, who are mentioned. Every step change names what ended and what begins (the
rules core's trail), and the reply mentions exactly the players who must act now, with a digest of
what happened since they last acted (bot/replies.py). The buttons are dynamic items whose
custom_id holds the game and the request's log entry (``turn:accept:12:34``): they work after a
restart, and a button of a request the game has moved past says so.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.commands import command_form, form_values, parse_dice
from bot.core.errors import IllegalOrder, RulesError
from bot.core.game import Game
from bot.core.required import RequiredRoll, declared, is_due
from bot.core.windows import WindowFacts, facts
from bot.core.rulesets import get_ruleset
from bot.core.sequence import refereed, side_to_act, step_name
from bot.core.sides import possessive
from bot.limits import Guarded, RateLimited
from bot.render import error_embed
from bot.replies import (FORM_ID, ROLL_FORM_ID, ROLL_ID, Form, only_these, reply_and_close, reply_outcome,
                         send_ephemeral, side_players, submitted_texts)
from bot.service import Actor, is_game_master
from cogs._common import actor_of
from cogs.orders import give

log = logging.getLogger(__name__)
FORM_RE = re.compile(r"react:form:(?P<game>[0-9]{1,18}):(?P<number>[0-9]{1,9})")
ROLL_FORM_RE = re.compile(r"rollform:(?P<game>[0-9]{1,18}):(?P<turn>[0-9]{1,6}):(?P<step>[0-9]{1,4}):"
                          r"(?P<impulse>[0-9]{1,6}):(?P<command>[a-z_]{1,30}(?: [a-z_]{1,30})?)")


def done_order(game: Game, interaction: Interaction) -> dict[str, Any]:
    """End the step for the side holding it, when the player plays it (the game master for anyone);
    otherwise ask its holder to end it."""
    holder = side_to_act(game)
    if not refereed(game):
        return {"action": "done", "side": holder}  # the rules core says what to use instead
    actor = actor_of(interaction)
    mine = [i for i, side in enumerate(game.sides) if actor.user_id in side.players]
    if game.reaction is not None and game.reaction.side in mine and holder not in mine:
        return {"action": "react", "side": game.reaction.side}  # the reacting side is done: no (more) fire
    if holder in mine or (is_game_master(game, actor) and not mine):
        return {"action": "done", "side": holder}
    if not mine:
        return {"action": "done", "side": holder}  # refused by the permission check: join a side first
    return {"action": "done", "side": mine[0], "answer": "ask"}


class AnswerButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                   template=r"turn:(?P<verb>accept|refuse):(?P<game>[0-9]{1,18}):(?P<seq>[0-9]{1,9})"):
    """Accept or Refuse a request to end the step, for the side holding it."""

    def __init__(self, verb: str, game_id: int, seq: int):
        style = discord.ButtonStyle.success if verb == "accept" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label="End it" if verb == "accept" else "Keep it", style=style,
                                           custom_id=f"turn:{verb}:{game_id}:{seq}"))
        self.verb, self.game_id, self.seq = verb, game_id, seq

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> AnswerButton:
        return cls(match["verb"], int(match["game"]), int(match["seq"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        referee = interaction.client.referee

        def answer(game: Game) -> dict[str, Any]:
            if game.asked_by is None:
                raise IllegalOrder("this request is closed: the step was ended or the request answered")
            order: dict[str, Any] = {"action": "done", "side": side_to_act(game)}
            return order | ({"answer": "refuse"} if self.verb == "refuse" else {})

        try:
            acted = await referee.act(interaction.channel_id, actor_of(interaction), answer,
                                      command=f"/done ({'accepted' if self.verb == 'accept' else 'refused'})",
                                      interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


def _step_words(game: Game, turn: int, step: int, impulse: int) -> str:
    """"the Movement Phase, turn 1": a step of the sequence as it was named when a button was posted."""
    ruleset = get_ruleset(game.ruleset)
    data = ruleset.sequence()
    if data is None or not 0 <= step < len(data.steps):
        return f"turn {turn}"
    held = data.steps[step]
    name = ruleset.phase_names.get(held.phase, held.phase)
    part = f", impulse {max(impulse, 1)}" if held.holder == "impulse" else (f", {held.part}" if held.part else "")
    return f"the {name}{part}, turn {turn}"


def _now_words(game: Game) -> str:
    ruleset = get_ruleset(game.ruleset)
    return f"the {step_name(game, ruleset)}, turn {game.turn}, {game.side_name(side_to_act(game))} to act"


async def _same_game(interaction: Interaction, game_id: int) -> bool:
    """The button's game is still the channel's active one; else the presser is told, privately."""
    try:
        current = await interaction.client.referee.game_id(interaction.channel_id)
    except RulesError as exc:
        await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
        return False
    if current != game_id:
        await send_ephemeral(interaction, embed=error_embed(
            "this button belongs to an earlier game of this channel: it ended, and a new one was started"))
        return False
    return True


def _sides_of(game: Game, actor: Actor) -> list[int]:
    return [i for i, side in enumerate(game.sides) if actor.user_id in side.players]


def check_holder(game: Game, actor: Actor, held: tuple[int, int, int], what: str, theirs: str) -> None:
    """A button of the step ``held`` (turn, step, impulse) is pressed: refused, saying what changed,
    after that step ended, or by anyone but a player of the side holding it (the game master seated
    nowhere acting for it)."""
    was = _step_words(game, *held)
    if (game.turn, game.step, game.impulse) != held:
        raise IllegalOrder(f"this {what} was for {was}, which has ended: it is now {_now_words(game)}")
    holder, mine = side_to_act(game), _sides_of(game, actor)
    if holder not in mine and (mine or not is_game_master(game, actor)):
        yours = (f"you play {' and '.join(game.side_name(i) for i in mine)}: {theirs}"
                 if mine else "you play no side in this game")
        raise IllegalOrder(f"this {what} is {possessive(game.side_name(holder))}, who hold {was}; {yours}")


class DoneButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                 template=r"next:done:(?P<game>[0-9]{1,18}):(?P<turn>[0-9]{1,6}):(?P<step>[0-9]{1,4}):"
                          r"(?P<impulse>[0-9]{1,6})"):
    """"Done" under a hand-off (or a closed reaction window): the side holding the step ends it, with
    the same checks as /done. Its custom_id names the game and the step it ends (bot/replies.py
    DONE_ID), so a press from the other side, or after the step moved on, is refused saying what
    changed; rebuilt from its custom_id on every click, restarts included."""

    def __init__(self, game_id: int, turn: int, step: int, impulse: int):
        super().__init__(discord.ui.Button(label="Done", style=discord.ButtonStyle.primary,
                                           custom_id=f"next:done:{game_id}:{turn}:{step}:{impulse}"))
        self.game_id, self.turn, self.step, self.impulse = game_id, turn, step, impulse

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> DoneButton:
        return cls(int(match["game"]), int(match["turn"]), int(match["step"]), int(match["impulse"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        actor = actor_of(interaction)

        def order(game: Game) -> dict[str, Any]:  # under the channel's lock: the game as the press finds it
            check_holder(game, actor, (self.turn, self.step, self.impulse), "Done",
                         "/done asks them to end it")
            return {"action": "done", "side": side_to_act(game)}

        if not await _same_game(interaction, self.game_id):
            return
        try:
            acted = await interaction.client.referee.act(interaction.channel_id, actor, order, command="/done",
                                                         interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


def check_window(game: Game, actor: Actor, number: int) -> None:
    """The reaction window ``number`` is still open and ``actor`` answers it (its reacting side, or the
    game master); else refused saying what changed."""
    window = game.reaction
    if window is None or window.number != number:
        now = (f"a later one is open ({window.name} at {', '.join(window.units)} in {window.at}): use its "
               "buttons" if window is not None else f"it is now {_now_words(game)}")
        raise IllegalOrder(f"this reaction window is closed (answered, or its step ended); {now}")
    if window.side not in _sides_of(game, actor) and not is_game_master(game, actor):
        raise IllegalOrder(f"this window is {possessive(game.side_name(window.side))} to answer: the other side waits "
                           "for their Fire or No fire", rule=window.rule)


def typed_words(window: WindowFacts) -> str:
    return (f"Give your {window.name} with `{window.prefill}`, naming the units that fire ({window.rule}); "
            "each fire leaves the window open for more: press No fire (or give /done) when you are done")


async def open_fire_form(interaction: Interaction, game_id: int, window: WindowFacts) -> None:
    """Fire's answer: the short form of the reaction's command, prefilled at the movers (its submission
    is ``fire_form_submitted``); where no form can be shown, the command to type, privately."""
    if window.form:
        form = Form(FORM_ID.format(game=game_id, number=window.number), window.title, window.form)
        try:
            await interaction.response.send_modal(form)  # type: ignore[arg-type]
            return
        except (discord.HTTPException, discord.InteractionResponded):
            log.info("the fire form of interaction %s could not be shown: the command typed instead", interaction.id)
    await send_ephemeral(interaction, content=typed_words(window))


class FormGuard(Guarded):
    """The quotas of a form's submission, counted as a button's press."""


async def fire_form_submitted(interaction: Interaction, game_id: int, number: int) -> None:
    """A Fire form submitted: the reaction given through the same path as its slash command (the
    same options, checks, dice and answer), once the window is found still open for the submitter
    under the channel's lock; a refusal privately, with the command to type."""
    if not await FormGuard().interaction_check(interaction) or not await _same_game(interaction, game_id):
        return
    actor, referee = actor_of(interaction), interaction.client.referee
    try:
        game = await referee.game(interaction.channel_id)
        check_window(game, actor, number)
        window = facts(game, get_ruleset(game.ruleset))
        command = get_ruleset(game.ruleset).command(window.command) if window is not None else None
        assert window is not None and command is not None  # checked open just above
        values = form_values(command, submitted_texts(interaction))
    except RulesError as exc:
        await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
        return
    await give_rolling(interaction, window.command, values, before=lambda found: check_window(found, actor, number),
                       typed=window.prefill)


async def _rolled(interaction: Interaction) -> bool:
    try:
        return bool(await interaction.client.referee.rolled(interaction.id))
    except Exception:  # cannot tell: it stays counted
        return True


class ReactButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                  template=r"react:(?P<verb>fire|pass):(?P<game>[0-9]{1,18}):(?P<number>[0-9]{1,9})"):
    """"Fire" and "No fire" under a reaction window (bot/core/reactions.py), for the reacting side's
    players (or the game master). Fire opens a short form of the reaction's command, prefilled at the
    movers and editable, whose submission gives it as the command would (``fire_form_submitted``; where
    no form can be shown, the presser is told the command to type, privately); No fire closes the
    window (a logged order) and the side that waited is told to go on. The custom_id names the game
    and the window (its number in the game): a press on a window that closed, or on an older one, is
    refused saying so."""

    def __init__(self, verb: str, game_id: int, number: int):
        style = discord.ButtonStyle.danger if verb == "fire" else discord.ButtonStyle.success
        super().__init__(discord.ui.Button(label="Fire" if verb == "fire" else "No fire", style=style,
                                           custom_id=f"react:{verb}:{game_id}:{number}"))
        self.verb, self.game_id, self.number = verb, game_id, number

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> ReactButton:
        return cls(match["verb"], int(match["game"]), int(match["number"]))

    def _check(self, game: Game, actor: Actor) -> None:
        check_window(game, actor, self.number)

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        actor, referee = actor_of(interaction), interaction.client.referee
        if not await _same_game(interaction, self.game_id):
            return
        try:
            if self.verb == "fire":
                game = await referee.game(interaction.channel_id)
                self._check(game, actor)
                window = facts(game, get_ruleset(game.ruleset))
                assert window is not None  # checked open just above
                await open_fire_form(interaction, self.game_id, window)
                return

            def order(game: Game) -> dict[str, Any]:
                self._check(game, actor)
                assert game.reaction is not None
                return {"action": "react", "side": game.reaction.side}

            acted = await referee.act(interaction.channel_id, actor, order, command="/react (No fire)",
                                      interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


class RollButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                 template=r"roll:(?P<game>[0-9]{1,18}):(?P<turn>[0-9]{1,6}):(?P<step>[0-9]{1,4}):"
                          r"(?P<impulse>[0-9]{1,6}):(?P<command>[a-z_]{1,30}(?: [a-z_]{1,30})?):(?P<value>[^:]{1,60})"):
    """A roll the rules call for of the side holding a step, for one unit or company ("Rally 4-4-7 R1",
    "Check company Able": bot/core/required.py, the ruleset's declaration), under a hand-off or, for the
    player who rolled, privately after a result. Its press gives the same order as the command with that
    unit, through the command's own path (checks, dice, answer), for the holder's players alone and
    only in the step it was offered for, while the roll is still due; a declaration that asks for the
    command's form (circumstances only the players know) opens it instead. Rebuilt from its custom_id
    (bot/replies.py ROLL_ID) on every click, restarts included."""

    def __init__(self, game_id: int, turn: int, step: int, impulse: int, command: str, value: str):
        super().__init__(discord.ui.Button(label=value[:80], custom_id=ROLL_ID.format(
            game=game_id, turn=turn, step=step, impulse=impulse, command=command, value=value)))
        self.game_id, self.held, self.command, self.value = game_id, (turn, step, impulse), command, value

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> RollButton:
        return cls(int(match["game"]), int(match["turn"]), int(match["step"]), int(match["impulse"]),
                   match["command"], match["value"])

    def _check(self, game: Game, actor: Actor) -> RequiredRoll:
        ruleset = get_ruleset(game.ruleset)
        roll = declared(ruleset, self.command)
        what = f"{roll.verb} {_named(game, roll, self.value)}" if roll is not None else f"/{self.command}"
        check_holder(game, actor, self.held, what, f"/{self.command} is theirs to give now")
        if roll is None or not is_due(game, ruleset, self.command, self.value):
            raise IllegalOrder(f"this {what} is no longer due (it was rolled, or the game changed): "
                               f"it is now {_now_words(game)}", rule=roll.rule if roll is not None else None)
        return roll

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        actor, referee = actor_of(interaction), interaction.client.referee
        if not await _same_game(interaction, self.game_id):
            return
        try:
            game = await referee.game(interaction.channel_id)
            roll = self._check(game, actor)
            if roll.form:
                command = get_ruleset(game.ruleset).command(self.command)
                assert command is not None  # a declaration names a command of its ruleset
                title = f"{roll.verb} {_named(game, roll, self.value)}"
                form = Form(ROLL_FORM_ID.format(game=self.game_id, turn=self.held[0], step=self.held[1],
                                                impulse=self.held[2], command=self.command),
                            title, command_form(command, {roll.option: self.value}))
                await interaction.response.send_modal(form)  # type: ignore[arg-type]
                return
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return

        def still_due(found: Game) -> None:  # under the channel's lock: the game as the press finds it
            self._check(found, actor)

        await give_rolling(interaction, self.command, {roll.option: self.value}, before=still_due)


def _named(game: Game, roll: RequiredRoll, value: str) -> str:
    """The unit or company of a roll's button as the button names it ("4-4-7 R3", "company Able")."""
    held = dict(roll.due(game, side_to_act(game)))
    unit = game.units.get(value)
    return held.get(value) or (unit.label if unit is not None else value)


async def give_rolling(interaction: Interaction, command: str, values: dict[str, Any], *,
                       before: Callable[[Game], None], typed: str | None = None) -> None:
    """A button's or a form's order that rolls, given through its command's path (cogs/orders.give),
    counted by the roll limit as the command is (taken back when nothing was rolled); refusals privately
    (with the command to type, ``typed``, when there is one)."""
    try:
        interaction.client.roll_limiter.check(interaction.user.id, interaction.id)
    except RateLimited as exc:
        await send_ephemeral(interaction, content=str(exc))
        return
    try:
        await give(interaction, command, values, before=before)
    except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
        words = f"{exc.message}. You may give it typed: {typed}" if typed else exc.message
        await send_ephemeral(interaction, embed=error_embed(words, exc.rule))
    finally:
        if not await _rolled(interaction):
            interaction.client.roll_limiter.refund(interaction.user.id, interaction.id)


async def roll_form_submitted(interaction: Interaction, game_id: int, held: tuple[int, int, int],
                              command_name: str) -> None:
    """A roll's form (a declaration asking for its command's form) submitted: given as the command,
    by the holder's players, in the step it was opened for."""
    if not await FormGuard().interaction_check(interaction) or not await _same_game(interaction, game_id):
        return
    actor = actor_of(interaction)
    try:
        game = await interaction.client.referee.game(interaction.channel_id)
        command = get_ruleset(game.ruleset).command(command_name)
        if command is None:
            raise IllegalOrder(f"/{command_name} is not a command of this game")
        check_holder(game, actor, held, f"/{command_name}", f"/{command_name} is theirs to give now")
        values = form_values(command, submitted_texts(interaction))
    except RulesError as exc:
        await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
        return
    await give_rolling(interaction, command_name, values, before=lambda found: check_holder(
        found, actor, held, f"/{command_name}", f"/{command_name} is theirs to give now"))


def answer_view(acted: Any) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for verb in ("accept", "refuse"):
        view.add_item(AnswerButton(verb, acted.entry.game_id, acted.seq))
    return view


class Turns(commands.Cog):
    """Whose move it is: ending one's part of the turn."""

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(AnswerButton, DoneButton, ReactButton, RollButton)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: Interaction) -> None:
        """A form's submission (a reaction's Fire, a roll's), routed by its custom_id (bot/replies.py
        FORM_ID, ROLL_FORM_ID), restarts included."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        custom_id = str((interaction.data or {}).get("custom_id", ""))
        found = FORM_RE.fullmatch(custom_id)
        if found is not None:
            await fire_form_submitted(interaction, int(found["game"]), int(found["number"]))
            return
        found = ROLL_FORM_RE.fullmatch(custom_id)
        if found is not None:
            await roll_form_submitted(interaction, int(found["game"]),
                                      (int(found["turn"]), int(found["step"]), int(found["impulse"])),
                                      found["command"])

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(AnswerButton, DoneButton, ReactButton, RollButton)

    @app_commands.command(name="done", description="End your part of the turn; the game passes to whoever acts next")
    @app_commands.describe(dice="Manual dice for a roll the next step starts with (an initiative roll), in order")
    @app_commands.guild_only()
    async def done(self, interaction: Interaction, dice: str | None = None) -> None:
        acted = await interaction.client.referee.act(
            interaction.channel_id, actor_of(interaction), lambda game: done_order(game, interaction),
            dice=parse_dice(dice), command="/done", interaction_id=interaction.id)
        order = acted.entry.order
        if order.get("answer") != "ask":
            await reply_outcome(interaction, acted)
            return
        await reply_outcome(interaction, acted, view=answer_view(acted))
        holder = side_to_act(acted.game)
        players = side_players(acted.game, holder)
        if players and not acted.replayed:
            await interaction.followup.send(
                content=f"{' '.join(f'<@{p}>' for p in players)}: {acted.outcome.headline.split(', ', 1)[-1]}",
                allowed_mentions=only_these(players))


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(Turns(bot))
