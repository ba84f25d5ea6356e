"""Every order-giving command of every ruleset (/fire, /morale, /rally, /transfer, /artillery ...),
bound to Discord from the rulesets' own descriptions (``Ruleset.commands``, bot/core/commands.py).

One slash command serves every ruleset that has it: its options are the union of theirs, each
described for the rulesets that use it, by their short names ("A/B: the target hex; C: the target
stands"). When
it is used, the channel's ruleset builds the order from the options given (``build_order``) and
refuses by name an option it has no use for. A ruleset added to the registry brings its commands
here without a line changed.

Results of a command whose ruleset asks for it carry an "Odds" button: a dynamic item whose
custom_id holds the game id and the log seq of the entry (``odds:12:34``), so it works after a
restart; pressing it shows the presser, privately, the odds that roll had before it was made.
"""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.commands import DICE, OPTIONS, PREVIEW, SEALED, Command, Option, build_order, parse_dice
from bot.core.errors import ConfirmSight, RulesError
from bot.core.game import Game
from bot.core.rulesets import get_ruleset, rulesets
from bot.core.ruleset import Ruleset
from bot.limits import Guarded, RateLimited
from bot.render import error_embed, odds_embed
from bot.replies import Buttons, button_json, defer_thinking, send_embeds, send_ephemeral
from cogs._common import Choices, act_and_reply, game_or_none, ruleset_suggestions
from cogs._slash import Param, build_command, fit

DICE_HELP = "Manual dice you rolled yourselves, in order: '3 5' (default: the bot rolls)"
PREVIEW_HELP = "Show the exact odds instead of rolling, in the channel for the table to discuss: no roll, no log"
OPTIONS_HELP = "More as key=value: "
SEALED_HELP = "Seal it (games with sealed_orders): only its commitment is shown until you /reveal it"


@dataclass(frozen=True)
class Merged:
    """One slash command as every ruleset that has it declares it."""

    name: str
    specs: tuple[tuple[Ruleset, Command], ...]

    @property
    def leaf(self) -> str:
        return self.name.split(" ")[-1]

    @property
    def group(self) -> str | None:
        return self.name.split(" ")[0] if " " in self.name else None


def merged_commands(registered: tuple[Ruleset, ...]) -> list[Merged]:
    found: dict[str, list[tuple[Ruleset, Command]]] = {}
    for ruleset in registered:
        for command in ruleset.commands:
            found.setdefault(command.name, []).append((ruleset, command))
    return [Merged(name, tuple(specs)) for name, specs in found.items()]


def described(parts: list[tuple[Ruleset, str]], *, everyone: bool) -> str:
    """One description from each ruleset's: said once when all agree and all have it, else per
    group of rulesets, by their short names ("A/B: the target hex; C: the target stands")."""
    groups: dict[str, list[str]] = {}
    for ruleset, text in parts:
        groups.setdefault(text, []).append(ruleset.short_name)
    if everyone and len(groups) == 1:
        text = next(iter(groups))
        return text[:1].upper() + text[1:]
    return "; ".join(f"{'/'.join(names)}: {text}" for text, names in groups.items())


def _annotation(options: list[Option]) -> Any:
    kinds = {o.type for o in options}
    if kinds <= {"id", "ids", "text"}:
        return str
    if kinds == {"boolean"}:
        return bool
    if kinds == {"integer"}:
        lows = [o.min for o in options]
        highs = [o.max for o in options]
        if None in lows or None in highs:
            return int
        return app_commands.Range[int, min(lows), max(highs)]  # type: ignore[type-var]
    raise TypeError(f"option '{options[0].name}' has different types in different rulesets: {sorted(kinds)}")


def _params(merged: Merged) -> list[Param]:
    by_name: dict[str, list[tuple[Ruleset, Option]]] = {}
    for ruleset, command in merged.specs:
        for option in command.options:
            by_name.setdefault(option.name, []).append((ruleset, option))
    params = []
    for name, declared in by_name.items():
        options = [o for _, o in declared]
        choices = list(dict.fromkeys((label, value) for o in options for label, value in o.choices))
        suggests = {r.name: o.suggest for r, o in declared if o.suggest is not None}
        params.append(Param(
            name=name, annotation=_annotation(options),
            description=described([(r, o.description) for r, o in declared],
                                  everyone=len(declared) == len(merged.specs)),
            required=len(declared) == len(merged.specs) and all(o.required for o in options),
            choices=choices, autocomplete=_completer(name, declared) if suggests else None))
    bots = {b for _, command in merged.specs for b in command.bot_options()}
    extras = [(r, c.extras) for r, c in merged.specs if c.extras is not None]
    if OPTIONS in bots:
        params.append(Param(OPTIONS, str, OPTIONS_HELP + "; ".join(f"{r.short_name} {e}" for r, e in extras)))
    if DICE in bots:
        params.append(Param(DICE, str, DICE_HELP))
    if PREVIEW in bots:
        params.append(Param(PREVIEW, bool, PREVIEW_HELP))
    if SEALED in bots:
        params.append(Param(SEALED, bool, SEALED_HELP))
    return params


def _completer(name: str, declared: list[tuple[Ruleset, Option]]):  # type: ignore[no-untyped-def]
    """Autocomplete for an option: what the channel's ruleset suggests for it, if anything."""
    by_ruleset = {r.name: o for r, o in declared}

    async def complete(interaction: Interaction, current: str) -> Choices:
        game = await game_or_none(interaction)
        option = by_ruleset.get(game.ruleset) if game is not None else None
        if option is None or option.suggest is None:
            return []
        return await ruleset_suggestions(interaction, current, option.suggest, several=option.type == "ids")

    return complete


def _body(merged: Merged):  # type: ignore[no-untyped-def]
    async def body(interaction: Interaction, values: dict[str, Any]) -> None:
        await give(interaction, merged.name, values)

    return body


async def give(interaction: Interaction, name: str, values: dict[str, Any], *,
               before: Callable[[Game], None] | None = None) -> None:
    """Give the order of command ``name`` from the options typed; an order whose line of sight the bot
    reads as blocked (game option los=advise) is put to the giver to confirm with a button. ``before``:
    a check of the game as the order finds it (a form's window still open), under the same lock."""
    order: Any = partial(build_order, command_name=name, values=values)  # under the channel's lock
    if before is not None:
        built = order

        def order(game: Game) -> dict[str, Any]:
            before(game)
            return built(game)

    try:
        await act_and_reply(interaction, order, command=f"/{name}", dice=parse_dice(values.get(DICE)),
                            preview=bool(values.get(PREVIEW)), view_for=partial(odds_view, name),
                            sealed=bool(values.get(SEALED)))
    except ConfirmSight as exc:
        token = FireAnywayButton.hold(interaction.user.id, interaction.channel_id, name, values)
        await send_embeds(interaction, [error_embed(
            f"{exc.message}. Press Fire anyway to roll it as given, or give the order again with "
            f"options:los_confirmed=yes", exc.rule, title="Line of sight: confirm")],
            ephemeral=True, view=Buttons(FireAnywayButton.sent(token)))


def _description(merged: Merged, registered: tuple[Ruleset, ...]) -> str:
    return described([(r, c.description) for r, c in merged.specs], everyone=len(merged.specs) == len(registered))


def order_commands(registered: tuple[Ruleset, ...]) -> list[app_commands.Command[Any, ..., None] | app_commands.Group]:
    """The slash commands of every ruleset's orders, grouped ("artillery fire") where declared."""
    built: list[Any] = []
    groups: dict[str, app_commands.Group] = {}
    for merged in merged_commands(registered):
        rolls = any(c.order.rolls for _, c in merged.specs)
        command = build_command(merged.leaf, _description(merged, registered), _params(merged), _body(merged),
                                extras={"rolls": rolls})
        if merged.group is None:
            built.append(command)
            continue
        group = groups.get(merged.group)
        if group is None:
            about = next((c.group_description for _, c in merged.specs if c.group_description), merged.group)
            group = groups[merged.group] = app_commands.Group(name=merged.group, description=fit(about),
                                                              extras={"rolls": rolls})
            built.append(group)
        group.add_command(command)
    return built


# --- the Odds button -----------------------------------------------------------------------------


class OddsButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                 template=r"odds:(?P<game>[0-9]{1,18}):(?P<seq>[0-9]{1,9})"):
    """"Odds" on a result; rebuilt from its custom_id on every click, restarts included. Anyone may
    press it: it changes nothing, and the answer is private to the presser. Heavy: it replays the
    log up to its entry and enumerates the outcomes."""

    heavy = True

    def __init__(self, game_id: int, seq: int):
        super().__init__(discord.ui.Button(label="Odds", style=discord.ButtonStyle.secondary,
                                           custom_id=f"odds:{game_id}:{seq}"))
        self.game_id, self.seq = game_id, seq

    @staticmethod
    def sent(game_id: int, seq: int) -> dict[str, Any]:
        """The button as sent under a result (``Buttons``): the same JSON as this item's."""
        return button_json("Odds", f"odds:{game_id}:{seq}")

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> OddsButton:
        return cls(int(match["game"]), int(match["seq"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        try:
            # a long replay goes to a worker process: "thinking..." (to the presser alone) first
            odds = await interaction.client.referee.entry_odds(
                self.game_id, self.seq, on_long=lambda: defer_thinking(interaction, ephemeral=True))
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            self.refused(interaction)  # a refused press does not spend a heavy quota
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await send_embeds(interaction, odds_embed(odds.report, odds.game, before_seq=self.seq,
                                                          plan=odds.plan), ephemeral=True)


# --- the Fire anyway button ------------------------------------------------------------------------


class FireAnywayButton(Guarded, discord.ui.DynamicItem[discord.ui.Button], template=r"los-ok:(?P<token>[0-9a-f]{16})"):
    """"Fire anyway" under an order whose line of sight the bot reads as blocked (los=advise): gives the
    same order again, confirmed (``los_confirmed``), for the player who gave it. The order waits in
    memory (the newest HELD of them): after a restart the button says to give it again with
    options:los_confirmed=yes, which does the same."""

    HELD = 256
    pending: OrderedDict[str, tuple[int, int | None, str, dict[str, Any]]] = OrderedDict()

    def __init__(self, token: str):
        super().__init__(discord.ui.Button(label="Fire anyway", style=discord.ButtonStyle.secondary,
                                           custom_id=f"los-ok:{token}"))
        self.token = token

    @classmethod
    def hold(cls, user: int, channel: int | None, name: str, values: dict[str, Any]) -> str:
        token = secrets.token_hex(8)
        cls.pending[token] = (user, channel, name, dict(values))
        while len(cls.pending) > cls.HELD:
            cls.pending.popitem(last=False)
        return token

    @staticmethod
    def sent(token: str) -> dict[str, Any]:
        return button_json("Fire anyway", f"los-ok:{token}")

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> FireAnywayButton:
        return cls(match["token"])

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        held = self.pending.get(self.token)
        if held is None:
            await send_ephemeral(interaction, embed=error_embed(
                "this order is no longer held (the bot restarted, or it was given already): give it again "
                "with options:los_confirmed=yes to fire although the bot reads the line of sight as blocked"))
            return
        user, channel, name, values = held
        if interaction.user.id != user or interaction.channel_id != channel:
            await send_ephemeral(interaction, embed=error_embed("only the player who gave this order confirms it"))
            return
        try:  # it rolls: the roll limit counts it as it counts a rolling command
            interaction.client.roll_limiter.check(interaction.user.id, interaction.id)
        except RateLimited as exc:
            await send_ephemeral(interaction, content=str(exc))
            return
        del self.pending[self.token]
        confirmed = dict(values)
        typed = (confirmed.get(OPTIONS) or "").strip()
        confirmed[OPTIONS] = f"{typed} los_confirmed=yes".strip()
        try:
            await give(interaction, name, confirmed)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))


def odds_view(command_name: str, acted: Any) -> Buttons | None:
    """The Odds button, on the results of a command whose ruleset gives its rolls one."""
    command = get_ruleset(acted.game.ruleset).command(command_name)
    if command is None or not command.odds_button:
        return None
    return Buttons(OddsButton.sent(acted.entry.game_id, acted.seq))


class Orders(commands.Cog):
    """The orders of every registered ruleset."""

    def __init__(self, bot: RefereeClient):
        self.bot = bot
        self.built = order_commands(rulesets())

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(OddsButton, FireAnywayButton)
        for command in self.built:
            self.bot.tree.add_command(command)

    async def cog_unload(self) -> None:
        for command in self.built:
            self.bot.tree.remove_command(command.name)
        self.bot.remove_dynamic_items(OddsButton, FireAnywayButton)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(Orders(bot))
