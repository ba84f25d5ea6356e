"""The battlefield picture sent to Discord: /game map, and the Map and Units buttons under /game status.

The picture is drawn by ``bot.pictures`` in a worker thread (``asyncio.to_thread``: the event loop
goes on serving other channels meanwhile) and kept in a small LRU cache by the log's head hash,
which fixes both the state and the latest fire: the same map asked for again is sent at once.
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import discord

from bot.core.errors import RulesError
from bot.limits import Guarded
from bot.pictures import MapCache, MapPicture, latest_fire, map_png
from bot.render import error_embed, game_status_embed, map_embed
from bot.replies import send_embeds, send_ephemeral

MAP_FILE = "map.png"
PICTURES = MapCache(size=32)  # about 100 KB each


async def battlefield_picture(referee: Any, channel_id: int, *, whole: bool = False) -> tuple[Any, MapPicture]:
    """(the game, its picture) of the channel's game (the active one, else the last ended): zoomed to
    the area in play when wider than a phone shows it, or ``whole``."""
    field = await referee.battlefield(channel_id)
    key = f"{field.head_hash}:{'whole' if whole else 'view'}"
    picture = PICTURES.get(key)
    if picture is None:
        shot = latest_fire(field.game, field.entries, field.undone)
        picture = await asyncio.to_thread(map_png, field.game, shot, whole)
        PICTURES.put(key, picture)
    return field, picture


def map_file(picture: MapPicture) -> discord.File:
    return discord.File(io.BytesIO(picture.png), filename=MAP_FILE, description="The battlefield")


class MapButton(Guarded, discord.ui.DynamicItem[discord.ui.Button], template=r"map:(?P<game>[0-9]{1,18})"):
    """"Map" under /game status: the picture of the battlefield as it stands now, shown to the presser
    alone. Rebuilt from its custom_id on every click, restarts included."""

    heavy = True  # draws a picture (cached, but the first one takes a worker's time)

    def __init__(self, game_id: int):
        super().__init__(discord.ui.Button(label="Map", style=discord.ButtonStyle.secondary,
                                           custom_id=f"map:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> "MapButton":
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        referee = interaction.client.referee  # type: ignore[attr-defined]
        try:
            field, picture = await battlefield_picture(referee, interaction.channel_id)
            if field.game_id != self.game_id:
                self.refused(interaction)
                await send_ephemeral(interaction, embed=error_embed(
                    "this Map button belongs to an earlier game of this channel: /game map shows this one"))
                return
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            self.refused(interaction)  # a refused press does not spend a heavy quota
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await interaction.response.send_message(embed=map_embed(field.game, MAP_FILE), file=map_file(picture),
                                                ephemeral=True)


class UnitsButton(Guarded, discord.ui.DynamicItem[discord.ui.Button], template=r"units:(?P<game>[0-9]{1,18})"):
    """"Units" under /game status: every unit by Location with its markers, as the game stands now,
    shown to the presser alone (the status in the channel keeps to one phone screen). Rebuilt from
    its custom_id on every click, restarts included."""

    def __init__(self, game_id: int):
        super().__init__(discord.ui.Button(label="Units", style=discord.ButtonStyle.secondary,
                                           custom_id=f"units:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> "UnitsButton":
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        try:
            stored = await interaction.client.referee.active(interaction.channel_id)  # type: ignore[attr-defined]
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        if stored.id != self.game_id:
            await send_ephemeral(interaction, embed=error_embed(
                "this Units button belongs to an earlier game of this channel: /game status shows this one"))
            return
        await send_embeds(interaction, game_status_embed(stored.game), ephemeral=True)


def map_view(game_id: int) -> discord.ui.View:
    """The buttons under /game status: Units (every unit, privately) and Map (the picture)."""
    view = discord.ui.View(timeout=None)
    view.add_item(UnitsButton(game_id))
    view.add_item(MapButton(game_id))
    return view
