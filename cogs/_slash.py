"""Slash commands built at load time from plain data, for the commands whose shape the rulesets
give (their options, their choices): discord.py reads a command's options from its callback's
signature, so the callback is given the signature the data describes, with the descriptions,
choices and autocompletes its decorators would set.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import discord
from discord import app_commands

DESCRIPTION_MAX = 100  # Discord's limit for a command's and an option's description
Body = Callable[[discord.Interaction, dict[str, Any]], Awaitable[None]]


def fit(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """A description within Discord's limit: shortened with an ellipsis (never refused at sync)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Param:
    """One option of a built command."""

    name: str
    annotation: Any  # what discord.py reads: str, int, bool, app_commands.Range[int, 0, 200]
    description: str
    required: bool = False
    choices: Sequence[tuple[str, str]] = ()  # (label, value)
    autocomplete: Callable[[discord.Interaction, str], Awaitable[list[app_commands.Choice[str]]]] | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def build_command(name: str, description: str, params: Sequence[Param], body: Body, *,
                  extras: dict[str, Any] | None = None, guild_only: bool = False) -> app_commands.Command[Any, ..., None]:
    """A slash command whose options are ``params`` (required ones first, as Discord wants); when
    it is used, ``body(interaction, values)`` receives every option, None for those not given."""

    async def callback(interaction: discord.Interaction, **values: Any) -> None:
        await body(interaction, {p.name: values.get(p.name) for p in params})

    ordered = sorted(params, key=lambda p: not p.required)  # stable: the declared order otherwise
    callback.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)]
        + [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY,
                             annotation=p.annotation if p.required else Optional[p.annotation],
                             default=inspect.Parameter.empty if p.required else None) for p in ordered])
    # a plain function, not a method (discord.py tells them apart by the qualified name)
    callback.__name__ = callback.__qualname__ = name.replace("-", "_")
    app_commands.describe(**{p.name: fit(p.description) for p in params})(callback)
    choices = {p.name: [app_commands.Choice(name=fit(label), value=value) for label, value in p.choices]
               for p in params if p.choices}
    if choices:
        app_commands.choices(**choices)(callback)
    completes = {p.name: p.autocomplete for p in params if p.autocomplete is not None and not p.choices}
    if completes:
        app_commands.autocomplete(**completes)(callback)
    if guild_only:
        app_commands.guild_only()(callback)
    return app_commands.Command(name=name, description=fit(description), callback=callback, extras=extras or {})
