"""/fire (every ruleset) and /artillery (Command Decision): parse, call the referee, render.

One /fire serves the three rulesets. The order is built for the channel's ruleset, and an option
that ruleset has no use for is refused by name (a 'band' in an ASL game, a 'kind' in a CD game),
so a player never wonders whether an option they gave was silently ignored.

``preview`` shows the exact odds instead of rolling (issue 5), and every /fire result carries an
"Odds" button: a dynamic item whose custom_id holds the game id and the log seq of the fire
entry (``odds:12:34``), so it works after a restart; pressing it shows the presser, privately,
the odds that attack had before it was rolled, computed from the state before that entry.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands

from bot.replies import send_embeds, send_ephemeral
from bot.core.errors import InvalidOrder, RulesError
from bot.core.rulesets.asl.orders import AslFire
from bot.core.rulesets.cd.orders import CdFire
from bot.core.rulesets.nhis.orders import NhisFire
from bot.render import error_embed, odds_embed
from cogs._common import (
    MAX_CHOICES,
    act_and_reply,
    agreed_drm,
    game_or_none,
    last_token_prefix,
    location_autocomplete,
    matching_choices,
    only_in,
    order_options,
    parse_dice,
    parse_ids,
    require_ruleset,
    unit_autocomplete,
)

FIRE_KINDS = [
    Choice(name="Prep Fire (PFPh)", value="prep"),
    Choice(name="Advancing Fire (AFPh)", value="advancing"),
    Choice(name="Defensive First Fire (MPh)", value="dff"),
    Choice(name="Subsequent First Fire (MPh)", value="sff"),
    Choice(name="Final Protective Fire (MPh)", value="fpf"),
    Choice(name="Residual Fire (MPh)", value="residual"),
    Choice(name="Final Fire (DFPh)", value="dfph"),
]
COVER = [Choice(name=name, value=value) for name, value in (
    ("none", "none"), ("light", "light"), ("medium", "medium"), ("hard", "hard"), ("fortification", "fortification"))]
SUPPORT = [Choice(name="organic artillery", value="organic"),
           Choice(name="supporting artillery", value="supporting"),
           Choice(name="harassment & interdiction (H&I)", value="h_and_i")]

# the order fields each ruleset's /fire fills from its own slash options; the rest go in options=
ASL_OPTION_FIELDS = ("kind", "firers", "target", "range", "hindrance", "leader", "drm", "drm_reason")
NHIS_OPTION_FIELDS = ("firers", "target", "range")
CD_OPTION_FIELDS = ("firer", "targets", "range_band")


def fire_order(game, *, firers: str | None, target: str, range: int | None = None, band: str | None = None,
               kind: str | None = None, hindrance: int | None = None, leader: str | None = None,
               drm: int | None = None, reason: str | None = None, options: str | None = None) -> dict[str, Any]:
    """The fire order for the channel's ruleset, from the options of /fire."""
    for name, value in (("kind", kind), ("hindrance", hindrance), ("leader", leader), ("drm", drm),
                        ("reason", reason)):
        only_in(game, name, value, "asl")
    only_in(game, "range", range, "asl", "nhis")
    only_in(game, "band", band, "cd")
    ids = parse_ids(firers, option="firers")
    if game.ruleset == "cd":
        return cd_fire_order(ids, target, band, options)
    order: dict[str, Any] = {"action": "fire", "firers": ids, "target": target.strip()}
    if range is not None:
        order["range"] = range
    if game.ruleset == "nhis":
        return order | order_options(options, NhisFire, taken=NHIS_OPTION_FIELDS)
    extras = {"kind": kind, "hindrance": hindrance, "leader": leader.strip() if leader else None}
    order |= {key: value for key, value in extras.items() if value is not None} | agreed_drm(drm, reason)
    return order | order_options(options, AslFire, taken=ASL_OPTION_FIELDS)


def cd_fire_order(firers: list[str], target: str, band: str | None, options: str | None) -> dict[str, Any]:
    """Command Decision direct fire: one stand fires at one or more stands, at a range band."""
    if len(firers) != 1:
        raise InvalidOrder("in Command Decision one stand fires per order: name exactly one in 'firers'",
                           field="firers")
    if not band or not band.strip():
        raise InvalidOrder("'band' is required in Command Decision: the range band of the firer's to-hit "
                           "numbers (e.g. short)", field="band")
    order = {"action": "fire", "firer": firers[0], "targets": parse_ids(target, option="target"),
             "range_band": band.strip()}
    return order | order_options(options, CdFire, taken=CD_OPTION_FIELDS)


async def target_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """ASL/NHiS: the target Location; Command Decision: the target stands (several ids), only the
    enemies of the firer once one is named."""
    game = await game_or_none(interaction)
    if game is None:
        return []
    if game.ruleset != "cd":
        return await location_autocomplete(interaction, current)
    named = parse_ids(getattr(interaction.namespace, "firers", None) or getattr(interaction.namespace, "firer", None),
                      option="firers")
    firer = game.find_unit(named[0]) if named else None
    prefix = last_token_prefix(current)
    values = [(f"{prefix}{u.id} ({u.name}, {game.side_name(u.side)}, {u.location or 'off board'})", f"{prefix}{u.id}")
              for u in game.units.values() if not u.eliminated and (firer is None or u.side != firer.side)]
    return matching_choices(values, current, skip=len(prefix))


async def band_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """The range bands of the named firer's to-hit numbers (every stand's, until one is named)."""
    game = await game_or_none(interaction)
    if game is None or game.ruleset != "cd":
        return []
    named = parse_ids(getattr(interaction.namespace, "firers", None) or "", option="firers")
    firer = game.find_unit(named[-1]) if named else None
    stands = [firer] if firer is not None else [u for u in game.units.values() if not u.eliminated]
    bands: dict[str, str] = {}
    for stand in stands:
        for band, number in getattr(stand, "to_hit", {}).items():
            bands.setdefault(band, f"{band} (hits on {number})" if firer is not None else band)
    folded = current.strip().casefold()
    return [Choice(name=label, value=band) for band, label in bands.items()
            if folded in band.casefold()][:MAX_CHOICES]


# The Odds button replays the log up to the entry (about 0.3 ms an entry): past this many entries
# it answers "thinking..." first, as Discord wants an answer within 3 seconds.
ODDS_DEFER_AFTER = 2000


class OddsButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=r"odds:(?P<game>[0-9]{1,18}):(?P<seq>[0-9]{1,9})"):
    """"Odds" on a /fire result; rebuilt from its custom_id on every click, restarts included.
    Anyone may press it: it changes nothing, and the answer is private to the presser."""

    def __init__(self, game_id: int, seq: int):
        super().__init__(discord.ui.Button(label="Odds", style=discord.ButtonStyle.secondary,
                                           custom_id=f"odds:{game_id}:{seq}"))
        self.game_id, self.seq = game_id, seq

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> OddsButton:
        return cls(int(match["game"]), int(match["seq"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.seq > ODDS_DEFER_AFTER:
            await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            odds = await interaction.client.referee.entry_odds(self.game_id, self.seq)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        embeds = odds_embed(odds.report, odds.game)
        embeds[0].description = f"Before log #{self.seq} was rolled: {embeds[0].description}"
        await send_embeds(interaction, embeds, ephemeral=True)


def odds_view(acted) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(OddsButton(acted.entry.game_id, acted.seq))
    return view


class Fire(commands.Cog):
    """Fire attacks: /fire in every ruleset, /artillery in Command Decision."""

    # not in bot.limits.ROLLING_COMMANDS by name: it says itself that it rolls dice
    artillery = app_commands.Group(name="artillery", extras={"rolls": True},
                                   description="Command Decision artillery: indirect fire and the response roll")

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(OddsButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(OddsButton)

    @app_commands.command(name="fire", description="Fire at a target: the referee checks, rolls and applies the result")
    @app_commands.describe(
        firers="Firing units, several for a fire group: 'A1 A2 MG1' (Command Decision: the one firing stand)",
        target="ASL/NHiS: the target hex; Command Decision: the target stands, e.g. 'G1 G2'",
        range="ASL/NHiS: range in hexes (0 = same Location, 1 = adjacent)",
        band="Command Decision: the range band of the firer's to-hit numbers, e.g. short",
        kind="ASL: the kind of fire (default: inferred from the phase and the firers' markers)",
        hindrance="ASL: +1 hindrance hexes along the line of sight",
        leader="ASL: the leader directing the fire (default: the best Good Order leader firing)",
        drm="ASL: any other DRM the players agree on (give a reason)",
        reason="ASL: why the extra DRM applies (shown in the trail)",
        options="Other modifiers as key=value: NHiS charging=A1,A2 from_lower=yes; CD cover=hard op_fire=yes",
        dice="Manual dice you rolled yourselves, in order: '3 5' (default: the bot rolls)",
        preview="Show the exact odds instead of firing, in the channel for the table to discuss: no roll, no log",
    )
    @app_commands.choices(kind=FIRE_KINDS)
    @app_commands.autocomplete(firers=unit_autocomplete, target=target_autocomplete, leader=unit_autocomplete,
                               band=band_autocomplete)
    async def fire(self, interaction: discord.Interaction, target: str, firers: str | None = None,
                   range: Range[int, 0, 200] | None = None, band: str | None = None, kind: str | None = None,
                   hindrance: Range[int, 0, 20] | None = None, leader: str | None = None,
                   drm: Range[int, -10, 10] | None = None, reason: str | None = None,
                   options: str | None = None, dice: str | None = None, preview: bool = False) -> None:
        order = partial(fire_order, firers=firers, target=target, range=range, band=band, kind=kind,
                        hindrance=hindrance, leader=leader, drm=drm, reason=reason, options=options)
        await act_and_reply(interaction, order, command="/fire", dice=parse_dice(dice), preview=preview,
                            view_for=odds_view)

    @artillery.command(name="fire",
                       description="Command Decision: indirect fire by a battery at stands under its template")
    @app_commands.describe(
        firer="The firing battery (a stand with an indirect-fire number)",
        targets="The stands under the template: 'G1 G2'",
        cover="The targets' cover (default: none)",
        dedicated_battery="A dedicated battery fires (its to-hit modifier applies)",
        h_and_i="Harassment & interdiction fire: no ammunition depletion",
        dice="Manual d10s you rolled yourselves, in order (default: the bot rolls)",
    )
    @app_commands.choices(cover=COVER)
    @app_commands.autocomplete(firer=unit_autocomplete, targets=target_autocomplete)
    async def artillery_fire(self, interaction: discord.Interaction, firer: str, targets: str,
                             cover: str | None = None, dedicated_battery: bool | None = None,
                             h_and_i: bool | None = None, dice: str | None = None) -> None:
        def order(game) -> dict[str, Any]:
            require_ruleset(game, "artillery", "cd", instead="fire with /fire")
            flags = {"cover": cover, "dedicated_battery": dedicated_battery, "h_and_i": h_and_i}
            return {"action": "indirect_fire", "firer": firer.strip(), "targets": parse_ids(targets, option="targets"),
                    **{key: value for key, value in flags.items() if value is not None}}
        await act_and_reply(interaction, order, command="/artillery fire", dice=parse_dice(dice))

    @artillery.command(name="response", description="Command Decision: does the artillery answer the call for fire?")
    @app_commands.describe(
        firer="The battery called on",
        support="Whose guns answer (default: organic)",
        dice="A manual d10 you rolled yourselves (default: the bot rolls)",
    )
    @app_commands.choices(support=SUPPORT)
    @app_commands.autocomplete(firer=unit_autocomplete)
    async def artillery_response(self, interaction: discord.Interaction, firer: str, support: str | None = None,
                                 dice: str | None = None) -> None:
        def order(game) -> dict[str, Any]:
            require_ruleset(game, "artillery", "cd", instead="fire with /fire")
            return {"action": "artillery_response", "firer": firer.strip()} | (
                {"support": support} if support is not None else {})
        await act_and_reply(interaction, order, command="/artillery response", dice=parse_dice(dice))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Fire(bot))
