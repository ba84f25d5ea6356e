"""What every cog shares: option parsing, the acting player, autocomplete from the channel's game.

Parsing errors are ``InvalidOrder`` naming the option, so the one error handler renders them
like any other refused order.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.core.errors import InvalidOrder

MAX_CHOICES = 25  # Discord's limit for autocomplete answers
_SPLIT = re.compile(r"[\s,;]+")
_TRUE = {"yes", "y", "true", "t", "on", "1"}
_FALSE = {"no", "n", "false", "f", "off", "0"}


def parse_ids(text: str | None, *, option: str) -> list[str]:
    """'A1, A2 A3' -> ['A1', 'A2', 'A3']; empty -> []."""
    if not text:
        return []
    ids = [part for part in _SPLIT.split(text.strip()) if part]
    if len(ids) > 40:
        raise InvalidOrder(f"'{option}' names {len(ids)} units; 40 is the most one order may name",
                           field=option)
    return ids


def parse_dice(text: str | None) -> list[int] | None:
    """Manual dice '3 5 2' -> [3, 5, 2]; None when the players let the bot roll."""
    if text is None or not text.strip():
        return None
    values: list[int] = []
    for part in _SPLIT.split(text.strip()):
        if not part:
            continue
        if not part.isdigit() or not 1 <= int(part) <= 10:
            raise InvalidOrder(f"'dice' takes die faces from 1 to 10 separated by spaces; '{part[:20]}' is not one",
                               field="dice")
        values.append(int(part))
    if len(values) > 100:
        raise InvalidOrder("'dice' gives more than 100 dice; no action needs that many", field="dice")
    return values


def _typed(value: str) -> Any:
    lowered = value.casefold()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    if re.fullmatch(r"-?\d{1,9}", value):
        return int(value)
    return value


def parse_options(text: str | None, *, option: str = "options") -> dict[str, Any]:
    """'from_lower=yes charging=A1,A2 cover=hard' -> {'from_lower': True, 'charging': ['A1', 'A2'], ...}.

    A value with commas becomes a list of ids; yes/no become booleans; whole numbers ints.
    """
    if not text or not text.strip():
        return {}
    result: dict[str, Any] = {}
    for part in text.split():
        if "=" not in part:
            raise InvalidOrder(f"'{option}' takes key=value pairs; '{part[:30]}' has no '='", field=option)
        key, _, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not re.fullmatch(r"[a-z_]{1,40}", key):
            raise InvalidOrder(f"'{option}': '{key[:30]}' is not an option name", field=option)
        result[key] = [v for v in value.split(",") if v] if "," in value else _typed(value)
    return result


def actor_of(interaction: discord.Interaction):
    """The player giving the order; Manage Channels makes them a game master."""
    from bot.service import Actor

    perms = getattr(interaction, "permissions", None)
    return Actor(user_id=interaction.user.id, is_manager=bool(perms and perms.manage_channels),
                 name=getattr(interaction.user, "display_name", str(interaction.user)))


async def _game_or_none(interaction: discord.Interaction):
    from bot.core.errors import RulesError

    referee = getattr(interaction.client, "referee", None)
    if referee is None or interaction.channel_id is None:
        return None
    try:
        return await referee.game(interaction.channel_id)
    except RulesError:
        return None


def _choices(values: list[tuple[str, str]], current: str) -> list[app_commands.Choice[str]]:
    folded = current.casefold().split()[-1] if current.strip() else ""
    hits = [(name, value) for name, value in values if folded in name.casefold()]
    return [app_commands.Choice(name=name[:100], value=value[:100]) for name, value in hits[:MAX_CHOICES]]


def _last_token_prefix(current: str) -> str:
    """For options listing several ids, complete the last one and keep the others."""
    parts = current.rsplit(" ", 1)
    return parts[0] + " " if len(parts) == 2 else ""


async def unit_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    game = await _game_or_none(interaction)
    if game is None:
        return []
    prefix = _last_token_prefix(current)
    values = [(f"{prefix}{u.id} ({u.name}, {game.side_name(u.side)}, {u.location or 'off board'})",
               f"{prefix}{u.id}") for u in game.units.values() if not u.eliminated]
    return _choices(values, current)


async def location_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    game = await _game_or_none(interaction)
    if game is None:
        return []
    return _choices([(f"{loc.id} ({loc.terrain})", loc.id) for loc in game.locations.values()], current)


async def phase_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    from bot.core.rulesets import get_ruleset

    game = await _game_or_none(interaction)
    if game is None:
        return []
    ruleset = get_ruleset(game.ruleset)
    return _choices([(f"{p} ({ruleset.phase_names.get(p, p)})", p) for p in ruleset.phases], current)


async def side_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    game = await _game_or_none(interaction)
    if game is None:
        return []
    return _choices([(side.name, side.name) for side in game.sides], current)


async def terrain_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    from bot.core.rulesets import get_ruleset

    game = await _game_or_none(interaction)
    if game is None:
        return []
    return _choices([(t, t) for t in sorted(get_ruleset(game.ruleset).terrains())], current)


async def counter_type_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    from bot.core.rulesets import get_ruleset

    game = await _game_or_none(interaction)
    if game is None:
        return []
    types = get_ruleset(game.ruleset).counter_types()
    return _choices([(f"{key} ({spec.get('name', key)})", key) for key, spec in sorted(types.items())], current)


def side_index(game, name: str) -> int:
    """A side by name (case-insensitive) or by number 1/2."""
    for i, side in enumerate(game.sides):
        if side.name.casefold() == name.strip().casefold():
            return i
    if name.strip() in ("1", "2"):
        return int(name.strip()) - 1
    raise InvalidOrder(f"no side '{name[:40]}' in this game (sides: {', '.join(s.name for s in game.sides)})",
                       field="side")
