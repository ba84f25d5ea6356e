"""The typed Discord client the cogs talk to, without importing the app shell.

``RefereeClient`` declares what a command may reach through ``interaction.client``: the referee
service, the settings, the quotas and the roll limiter. ``bot.app.RefereeBot`` is the one subclass; it opens
the store and builds the service in ``setup_hook``. Cogs annotate ``interaction: Interaction``
(``discord.Interaction[RefereeClient]``), so ``interaction.client.referee`` is typed, with no
``getattr`` and no ``# type: ignore``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import discord
from discord.ext import commands

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.limits import Quotas, RollRateLimiter
    from bot.service import Referee


class RefereeClient(commands.Bot):
    """A Discord bot that serves one referee service. ``referee`` is set once the store is open
    (``setup_hook``), before any command can arrive."""

    referee: Referee
    settings: Settings
    quotas: Quotas
    roll_limiter: RollRateLimiter


Interaction: TypeAlias = discord.Interaction[RefereeClient]
