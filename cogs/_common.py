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
from bot.render import odds_embed
from bot.replies import reply_outcome, send_embeds

MAX_CHOICES = 25  # Discord's limit for autocomplete answers
_SPLIT = re.compile(r"[\s,;]+")
# words only: "1" and "0" are numbers (remind_after_hours=1 is one hour, not "yes"); a boolean
# field given 1 or 0 still takes it (pydantic reads 1/0 as true/false)
_TRUE = {"yes", "y", "true", "t", "on"}
_FALSE = {"no", "n", "false", "f", "off"}


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
        if not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= 10:
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
    if re.fullmatch(r"-?\d{1,9}\.\d{1,6}", value):
        return float(value)
    return value


def parse_options(text: str | None, *, option: str = "options") -> dict[str, Any]:
    """'from_lower=yes charging=A1,A2 cover=hard' -> {'from_lower': True, 'charging': ['A1', 'A2'], ...}.

    A value with commas becomes a list of ids; yes/no (true/false, on/off) become booleans;
    numbers stay numbers (ints, or floats with a decimal point).
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


async def game_or_none(interaction: discord.Interaction):
    from bot.core.errors import RulesError

    referee = getattr(interaction.client, "referee", None)
    if referee is None or interaction.channel_id is None:
        return None
    try:
        return await referee.game(interaction.channel_id)
    except RulesError:
        return None


def matching_choices(values: list[tuple[str, str]], current: str, *, skip: int = 0) -> list[app_commands.Choice[str]]:
    # match the last word being typed (none yet after a trailing space); ``skip`` leaves out the
    # ids already typed, which every name of a multi-id option repeats as its prefix
    folded = current.casefold().split()[-1] if current.strip() and not current[-1:].isspace() else ""
    hits = [(name, value) for name, value in values if folded in name[skip:].casefold()]
    return [app_commands.Choice(name=name[:100], value=value[:100]) for name, value in hits[:MAX_CHOICES]]


def last_token_prefix(current: str) -> str:
    """For options listing several ids, complete the last one and keep the others."""
    parts = current.rsplit(" ", 1)
    return parts[0] + " " if len(parts) == 2 else ""


async def unit_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    game = await game_or_none(interaction)
    if game is None:
        return []
    prefix = last_token_prefix(current)
    values = [(f"{prefix}{u.id} ({u.name}, {game.side_name(u.side)}, {u.location or 'off board'})",
               f"{prefix}{u.id}") for u in game.units.values() if not u.eliminated]
    return matching_choices(values, current, skip=len(prefix))


async def location_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    game = await game_or_none(interaction)
    if game is None:
        return []
    return matching_choices([(f"{loc.id} ({loc.terrain})", loc.id) for loc in game.locations.values()], current)


async def phase_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    from bot.core.rulesets import get_ruleset

    game = await game_or_none(interaction)
    if game is None:
        return []
    ruleset = get_ruleset(game.ruleset)
    return matching_choices([(f"{p} ({ruleset.phase_names.get(p, p)})", p) for p in ruleset.phases], current)


async def side_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    game = await game_or_none(interaction)
    if game is None:
        return []
    return matching_choices([(side.name, side.name) for side in game.sides], current)


async def terrain_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    from bot.core.rulesets import get_ruleset

    game = await game_or_none(interaction)
    if game is None:
        return []
    return matching_choices([(t, t) for t in sorted(get_ruleset(game.ruleset).terrains())], current)


async def counter_type_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    from bot.core.rulesets import get_ruleset

    game = await game_or_none(interaction)
    if game is None:
        return []
    types = get_ruleset(game.ruleset).counter_types()
    return matching_choices([(f"{key} ({spec.get('name', key)})", key) for key, spec in sorted(types.items())], current)


def side_index(game, name: str) -> int:
    """A side by name (case-insensitive) or by number 1/2."""
    for i, side in enumerate(game.sides):
        if side.name.casefold() == name.strip().casefold():
            return i
    if name.strip() in ("1", "2"):
        return int(name.strip()) - 1
    raise InvalidOrder(f"no side '{name[:40]}' in this game (sides: {', '.join(s.name for s in game.sides)})",
                       field="side")


# --- action cogs: one slash command serves every ruleset -----------------------------------------


def _ruleset_titles(rulesets: tuple[str, ...]) -> str:
    from bot.core.rulesets import RULESET_TITLES

    return " and ".join(RULESET_TITLES.get(r, r) for r in rulesets)


def only_in(game, option: str, value: Any, *rulesets: str) -> None:
    """Refuse an option the player gave when the channel's ruleset has no use for it."""
    if value is None or game.ruleset in rulesets:
        return
    raise InvalidOrder(f"'{option}' is not used in {_ruleset_titles((game.ruleset,))} games "
                       f"(only in {_ruleset_titles(rulesets)})", field=option)


def require_ruleset(game, command: str, *rulesets: str, instead: str = "") -> None:
    """Refuse a whole command when the channel's ruleset has no such action."""
    if game.ruleset in rulesets:
        return
    hint = f" ({instead})" if instead else ""
    raise InvalidOrder(f"/{command} is only for {_ruleset_titles(rulesets)} games; this channel plays "
                       f"{_ruleset_titles((game.ruleset,))}{hint}", field="command")


def _takes_list(model: Any, key: str) -> bool:
    """Whether an order field holds a list of ids (``list[str]`` or ``list[str] | None``)."""
    import types
    import typing

    annotation = model.model_fields[key].annotation
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return any(typing.get_origin(k) is list for k in (annotation, *(typing.get_args(annotation) if union else ())))


def order_options(text: str | None, model: Any, *, taken: tuple[str, ...] = (),
                  option: str = "options") -> dict[str, Any]:
    """key=value options for the fields of ``model`` (an order class) that have no slash option
    of their own (``taken``). Unknown keys are refused with the list of the keys this order takes;
    a single id given for a list field becomes a one-item list ("charging=A1")."""
    values = parse_options(text, option=option)
    allowed = [name for name in model.model_fields if name != "action" and name not in taken]
    for key, value in list(values.items()):
        if key in taken:
            raise InvalidOrder(f"'{option}': '{key}' has its own option in this command", field=option)
        if key not in allowed:
            raise InvalidOrder(f"'{option}': '{key}' is not an option of this order here "
                               f"(options: {', '.join(allowed) or 'none'})", field=option)
        if _takes_list(model, key) and not isinstance(value, list):
            values[key] = [] if value == "" else [str(value)]
    return values


async def company_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Command Decision: the companies of the game's stands, with their side and stand count."""
    game = await game_or_none(interaction)
    if game is None:
        return []
    companies: dict[str, list[Any]] = {}
    for stand in game.units.values():
        name = getattr(stand, "company", "")
        if name and not stand.eliminated:
            companies.setdefault(name, []).append(stand)
    values = [(f"{name} ({game.side_name(stands[0].side)}, {len(stands)} stand{'s' if len(stands) != 1 else ''})",
               name) for name, stands in sorted(companies.items())]
    return matching_choices(values, current)


# --- replies of lists and boards (set-up cogs) -----------------------------------------------------


async def show_odds(interaction: discord.Interaction, order: Any, dice: list[int] | None) -> None:
    """The ``preview`` of /fire, /morale and /rally: the exact odds of ``order`` (a dict or a
    function of the game) posted in the channel, for the table to discuss; nothing is rolled or
    logged. Manual dice make no sense with it and are refused rather than ignored."""
    if dice:
        raise InvalidOrder("'preview' shows the odds before any roll: leave 'dice' out, or leave 'preview' "
                           "out to resolve the order with your dice", field="dice")
    odds = await interaction.client.referee.odds(interaction.channel_id, actor_of(interaction), order)
    await send_embeds(interaction, odds_embed(odds.report, odds.game), ephemeral=False)


async def act_and_reply(interaction: discord.Interaction, order: Any, *, command: str,
                        dice: list[int] | None = None, preview: bool = False,
                        view_for: Any = None) -> None:
    """The body every order-giving command shares: resolve ``order`` (a dict, or a function of
    the channel's game called under its lock) through the referee service and answer with the
    outcome; with ``preview``, show its exact odds instead. ``view_for(acted)`` may add buttons."""
    if preview:
        await show_odds(interaction, order, dice)
        return
    acted = await interaction.client.referee.act(
        interaction.channel_id, actor_of(interaction), order, dice=dice, command=command,
        interaction_id=interaction.id)
    await reply_outcome(interaction, acted, view=view_for(acted) if view_for else None)


def agreed_drm(drm: int | None, reason: str | None) -> dict[str, Any]:
    """ASL: an extra DRM the players agree on is logged with its reason, so the trail explains it."""
    if reason is not None and not drm:
        raise InvalidOrder("'reason' explains an extra 'drm': give the drm too", field="reason")
    if drm and not (reason and reason.strip()):
        raise InvalidOrder("an extra 'drm' needs a 'reason' (it is shown in the trail)", field="reason")
    return {"drm": drm, "drm_reason": reason.strip()} if drm and reason else {}


def unit_or_company(game, unit: str | None, company: str | None, doing: str) -> dict[str, str]:
    """ASL and NHiS act on one unit, Command Decision on a company: the one the game uses, required."""
    only_in(game, "unit", unit, "asl", "nhis")
    only_in(game, "company", company, "cd")
    if game.ruleset == "cd":
        if not company or not company.strip():
            raise InvalidOrder(f"'company' is required: the company that {doing}", field="company")
        return {"company": company.strip()}
    if not unit or not unit.strip():
        raise InvalidOrder(f"'unit' is required: the unit that {doing}", field="unit")
    return {"unit": unit.strip()}
