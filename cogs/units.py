"""/unit and /location: setting up the map and correcting it.

/unit add, move and edit take several units at once (ids 'A1 A2 A3'; add: a prefix and a count;
move and edit: a Location's whole stack with at:): one order, one log entry, refused whole
naming the unit that fails.

Adding, moving and removing units and setting a location's terrain are orders like any other:
each goes through the referee service (permissions first, then the rules core) and is saved
with its log entry in one transaction, so a replay rebuilds the set-up exactly. A location
named for the first time (by /unit add, /unit move or /location set) is created with the
ruleset's default terrain; the result's trail says so.
"""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.commands import parse_ids, parse_options
from bot.core.errors import InvalidOrder
from bot.core.ruleset import Ruleset
from bot.core.rulesets import get_ruleset, rulesets
from bot.core.setup import MAX_BULK, bulk_ids
from bot.render import info_embed, unit_info_embeds, unit_status
from bot.replies import send_embeds
from bot.service import OrderBuilder
from cogs._common import (
    act_and_reply,
    counter_type_autocomplete,
    side_autocomplete,
    side_index,
    suggesting,
    terrain_autocomplete,
)
from cogs._slash import Param, build_command

unit_autocomplete = suggesting("unit", several=True)
location_autocomplete = suggesting("location")


def counter_numbers(ruleset: Ruleset, fields: dict[str, Any]) -> str:
    """'squad, FP 5, range 4, morale 8' from a unit's (or a library type's) fields, with the numbers
    the ruleset's counters show (a number that is zero or unset is left out) and its printed marks."""
    parts = [str(fields["kind"])] if fields.get("kind") else []
    for key, label in ruleset.counter_fields:
        value = fields.get(key)
        if isinstance(value, dict):  # numbers by range band: "short 5/medium 3"
            value = "/".join(f"{band} {number}" for band, number in value.items())
        if value not in (None, 0, "", "none", False):
            parts.append(f"{label} {value}")
    parts += [label for key, value, label in ruleset.counter_marks if fields.get(key, not value) == value]
    return ", ".join(parts)


def unit_line(game, unit) -> str:
    """'A1 5-4-8 (B3): squad, FP 5, range 4, morale 8; broken, DM' (escaped by info_embed)."""
    where = unit.location or "off board"
    return (f"{unit.id} {unit.name} ({where}): {counter_numbers(get_ruleset(game.ruleset), unit.model_dump())}; "
            f"{unit_status(unit)}")


def units_by_side(game, side: int | None, location: str | None) -> list[tuple[str, list[str]]]:
    fields = []
    for index, team in enumerate(game.sides):
        if side is not None and index != side:
            continue
        units = sorted((u for u in game.units.values() if u.side == index
                        and (location is None or u.location == location)), key=lambda u: u.id.casefold())
        fields.append((team.name, [unit_line(game, u) for u in units] or ["no units"]))
    return fields


def library_fields(ruleset: Ruleset) -> list[tuple[str, list[str]]]:
    """The counter library grouped by nationality, one line per type."""
    groups: dict[str, list[str]] = {}
    for key, spec in sorted(ruleset.counter_types().items()):
        nationality = str(spec.get("nationality") or "Counters")
        groups.setdefault(nationality.title() if nationality.islower() else nationality, []).append(
            f"{key}: {spec.get('name', key)} ({counter_numbers(ruleset, spec)})")
    return list(groups.items())


def bulk_order(action: str, units: str | None, at: str | None, **values: Any) -> OrderBuilder:
    """/unit move or edit of one unit, several ('A1 A2'), or a Location's whole stack (``at``): one
    order, the stack's ids read from the game under the channel's lock (the log keeps them)."""
    if (units is None) == (at is None):
        raise InvalidOrder("name the units ('A1 A2'), or the Location whose whole stack it is (at:), not both",
                           field="unit")
    field = "location" if action == "unit_move" else "changes"
    def order(game) -> dict[str, Any]:
        if at is not None:
            where = game.location(at, field="at").id
            ids = [u.id for u in game.units_at(where)]
            if not ids:
                raise InvalidOrder(f"there is no unit in {where}", field="at")
        else:
            ids = parse_ids(units, option="unit")
        extra = {k: v for k, v in values.items() if k != field and v is not None}  # e.g. an edit's corrects
        if len(ids) == 1:
            return {"action": action, "unit": ids[0], field: values[field]} | extra
        return {"action": f"{action}_many", "units": ids, field: values[field]} | extra
    return order


def parse_features(text: str | None) -> list[str]:
    """'hill, foxhole' -> ['hill', 'foxhole']: a feature's name may hold spaces ('stone wall')."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


class UnitsCog(commands.Cog):
    unit = app_commands.Group(name="unit", description="Add, correct, move, remove and list this game's units",
                              guild_only=True)
    location = app_commands.Group(name="location", description="Set the terrain of a hex or area of the map",
                                  guild_only=True)

    def __init__(self, bot: RefereeClient):
        self.bot = bot
        self.unit.add_command(build_command(  # its ruleset choices come from the registry
            "types", "List the counter library of this game's ruleset (only you see it)",
            [Param("ruleset", str, "The ruleset whose library to list (this channel's game's, if left out)",
                   choices=[(r.title, r.name) for r in rulesets()])], self.list_types))

    @unit.command(name="add", description="Put units into the game, from the counter library or with their numbers")
    @app_commands.rename(unit_id="id", counter_type="type")
    @app_commands.describe(
        unit_id="The unit's id (letters, digits, . _ -; e.g. A1); several: 'A1 A2 A3', or a prefix with count",
        count="Add this many units alike, numbered from the id: id A and count 3 give A1, A2, A3",
        side="The side the unit fights for",
        counter_type="The counter type from this ruleset's library (see /unit types)",
        location="Where it stands (a new location is created with the default terrain); off board if left out",
        name="The name players read, e.g. '4-6-7 Lt. Kaiser' (the counter's name if left out)",
        stats="The unit's numbers as key=value pairs, e.g. 'kind=squad fp=4 range=6 morale=7'",
    )
    @app_commands.autocomplete(side=side_autocomplete, counter_type=counter_type_autocomplete,
                               location=location_autocomplete)
    async def add(self, interaction: Interaction, unit_id: str, side: str, counter_type: str | None = None,
                  location: str | None = None, name: app_commands.Range[str, 1, 60] | None = None,
                  stats: str | None = None, count: app_commands.Range[int, 1, MAX_BULK] | None = None) -> None:
        numbers = parse_options(stats, option="stats")
        if counter_type is None and not numbers:
            raise InvalidOrder("give the unit's counter type (see /unit types) or its numbers in 'stats'",
                               field="type")
        if name:
            numbers["name"] = name
        ids = bulk_ids(unit_id, count)
        def order(game) -> dict[str, Any]:
            one = {"action": "unit_add", "id": ids[0]} if len(ids) == 1 else {"action": "unit_add_many", "ids": ids}
            return one | {"side": side_index(game, side), "type": counter_type, "location": location,
                          "stats": numbers}
        await self._act(interaction, order, "/unit add")

    @unit.command(name="edit", description="Game master only: correct units' numbers or markers (a whole stack too)")
    @app_commands.describe(stats="The fields to change as key=value pairs, e.g. 'morale=7 broken=no'",
                           unit="The unit to correct, or several: 'A1 A2'", at="Or every unit in this Location",
                           corrects="The log entry this corrects (e.g. a rolled order kept by undo_rolls=never)")
    @app_commands.autocomplete(unit=unit_autocomplete, at=location_autocomplete)
    async def edit(self, interaction: Interaction, stats: str, unit: str | None = None, at: str | None = None,
                   corrects: app_commands.Range[int, 2, 2**53] | None = None) -> None:
        changes = parse_options(stats, option="stats")
        await self._act(interaction, bulk_order("unit_edit", unit, at, changes=changes, corrects=corrects),
                        "/unit edit")

    @unit.command(name="move", description="Move units (and the weapons they carry) to a location, or off board")
    @app_commands.describe(unit="The unit to move, or several: 'A1 A2 L1'",
                           at="Or every unit in this Location: the whole stack moves",
                           to="Where it goes (a new location is created with the default terrain); "
                              "off board if left out")
    @app_commands.autocomplete(unit=unit_autocomplete, at=location_autocomplete, to=location_autocomplete)
    async def move(self, interaction: Interaction, unit: str | None = None, at: str | None = None,
                   to: str | None = None) -> None:
        await self._act(interaction, bulk_order("unit_move", unit, at, location=to), "/unit move")

    @unit.command(name="remove", description="Game master only: take a unit out of the game (a set-up mistake)")
    @app_commands.describe(unit="The unit to take out")
    @app_commands.autocomplete(unit=unit_autocomplete)
    async def remove(self, interaction: Interaction, unit: str) -> None:
        await self._act(interaction, {"action": "unit_remove", "unit": unit}, "/unit remove")

    @unit.command(name="list", description="List the game's units with their numbers and markers (only you see it)")
    @app_commands.describe(side="Only this side's units", location="Only the units in this location")
    @app_commands.autocomplete(side=side_autocomplete, location=location_autocomplete)
    async def list_units(self, interaction: Interaction, side: str | None = None,
                   location: str | None = None) -> None:
        game = await interaction.client.referee.game(interaction.channel_id)
        side_filter = side_index(game, side) if side else None
        where = game.location(location).id if location else None
        count = sum(1 for u in game.units.values()
                    if (side_filter is None or u.side == side_filter) and (where is None or u.location == where))
        title = f"Units{f' in {where}' if where else ''}: {count}"
        await send_embeds(interaction, info_embed(title, fields=units_by_side(game, side_filter, where)),
                          ephemeral=True)

    @unit.command(name="info", description="A unit's numbers and markers, and what it may do now (and why not)")
    @app_commands.describe(unit="The unit to look at")
    @app_commands.autocomplete(unit=unit_autocomplete)
    async def info(self, interaction: Interaction, unit: str) -> None:
        # anyone may look: it changes nothing, and the refusals it shows are the ones an order would get
        game = await interaction.client.referee.game(interaction.channel_id)
        found = game.unit(unit)
        numbers = counter_numbers(get_ruleset(game.ruleset), found.model_dump())
        await send_embeds(interaction, unit_info_embeds(game, found, numbers), ephemeral=True)

    async def list_types(self, interaction: Interaction, values: dict[str, Any]) -> None:
        if values["ruleset"] is None:
            ruleset = get_ruleset((await interaction.client.referee.game(interaction.channel_id)).ruleset)
        else:
            ruleset = get_ruleset(values["ruleset"])
        library = library_fields(ruleset)
        title = f"{ruleset.title} counter library: {sum(len(lines) for _, lines in library)} types"
        await send_embeds(interaction, info_embed(title, "Use the key (before the colon) as /unit add type.",
                                                  fields=library), ephemeral=True)

    @location.command(name="set", description="Game master only: set a location's terrain and features")
    @app_commands.describe(location="The hex or area id, e.g. B3 (created if new)",
                           terrain="Its terrain, from this ruleset's terrain chart",
                           features="What else it holds, separated by commas, e.g. 'hill, foxhole' "
                                    "(replaces the ones set before)")
    @app_commands.autocomplete(location=location_autocomplete, terrain=terrain_autocomplete)
    async def set_location(self, interaction: Interaction, location: str, terrain: str,
                           features: app_commands.Range[str, 1, 300] | None = None) -> None:
        order = {"action": "location_set", "location": location, "terrain": terrain,
                 "features": parse_features(features)}
        await self._act(interaction, order, "/location set")

    async def _act(self, interaction: Interaction, order: dict[str, Any] | OrderBuilder,
                   command: str) -> None:
        await act_and_reply(interaction, order, command=command)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(UnitsCog(bot))
