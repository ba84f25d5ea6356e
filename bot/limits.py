"""Limits that keep one player or one game from swamping the bot (Issue 6).

- Rolling commands (every command whose orders may roll: they say so themselves, with
  ``extras={"rolls": True}``, from their order's declaration ``OrderBase.rolls``) are limited per player: at most ``REFEREE_ROLL_LIMIT`` (20) in any ``REFEREE_ROLL_WINDOW``
  (60) seconds. One player hammering /fire cannot starve the other channels, nor push the bot
  into Discord's own rate limits. The check runs once, in ``RefereeTree.interaction_check``,
  before the command is parsed; a refused command rolled nothing and changed nothing.
- The caps per game are enforced where the data lives, each with its own message:
  units and locations in ``bot.core.setup`` (MAX_UNITS, MAX_LOCATIONS), the log in the store
  (``bot.store.base.MAX_LOG_ENTRIES``; the closing /game end always fits).

The limiter is in memory: a restart forgets the window, which errs on the side of the player.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from discord import app_commands

from bot.config import Settings, load_settings

SWEEP_EVERY = 1000  # checks between sweeps that forget players idle for a whole window


class RateLimited(app_commands.CheckFailure):
    """Over the rolling-command limit; the one error handler shows the message privately."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = retry_after


class RollRateLimiter:
    """A sliding window per player over the interactions of rolling commands.

    An interaction already counted (Discord delivering it again) is let through without being
    counted twice: the service answers it from the log, so it rolls nothing new.
    """

    def __init__(self, limit: int = 20, window: float = 60.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        if limit < 1 or window <= 0:
            raise ValueError("the roll limit needs limit >= 1 and window > 0")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._wall_clock = wall_clock
        self._seen: dict[int, deque[tuple[float, int]]] = {}  # user -> (time, interaction id)
        self._checks = 0

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> "RollRateLimiter":
        """From the bot's settings (REFEREE_ROLL_LIMIT, REFEREE_ROLL_WINDOW); read from the
        environment when none are given."""
        settings = settings or load_settings()
        return cls(settings.roll_limit, settings.roll_window)

    def retry_after(self, user_id: int, interaction_id: int) -> float | None:
        """Record the attempt and return None, or return the seconds until one is allowed."""
        now = self._clock()
        self._checks += 1
        if self._checks % SWEEP_EVERY == 0:
            self._sweep(now)
        recent = self._seen.setdefault(user_id, deque())
        while recent and recent[0][0] <= now - self.window:
            recent.popleft()
        if any(seen_id == interaction_id for _, seen_id in recent):
            return None
        if len(recent) >= self.limit:
            return max(0.0, recent[0][0] + self.window - now)
        recent.append((now, interaction_id))
        return None

    def check(self, user_id: int, interaction_id: int) -> None:
        """Raise RateLimited when the player is over the limit; otherwise count this one."""
        wait = self.retry_after(user_id, interaction_id)
        if wait is None:
            return
        seconds = max(1, int(wait + 0.999))  # round up: never invite a retry that is refused again
        when = int((self._wall_clock() + timedelta(seconds=seconds)).timestamp())
        raise RateLimited(
            f"Slow down: you gave {self.limit} rolling commands in the last {self.window:g} seconds, the most "
            f"one player may. Nothing was rolled. Try again in {seconds} second{'s' if seconds != 1 else ''} "
            f"(<t:{when}:T>).", wait)

    def check_interaction(self, interaction: Any) -> None:
        """The hook for ``RefereeTree.interaction_check``: slash commands that roll, nothing else
        (autocomplete, buttons and looking at the game are never limited)."""
        if not is_application_command(interaction):
            return
        if is_rolling(command_of(interaction)):
            self.check(interaction.user.id, interaction.id)

    def _sweep(self, now: float) -> None:
        for user_id in [u for u, recent in self._seen.items() if not recent or recent[-1][0] <= now - self.window]:
            del self._seen[user_id]

    @property
    def tracked_players(self) -> int:
        return len(self._seen)


def is_application_command(interaction: Any) -> bool:
    from discord import InteractionType

    return getattr(interaction, "type", None) is InteractionType.application_command


def command_of(interaction: Any) -> Any:
    try:
        return interaction.command
    except app_commands.AppCommandError:
        return None  # an unknown command: the tree reports it on its own


def is_rolling(command: Any) -> bool:
    if command is None:
        return False
    for node in _lineage(command):
        flag = getattr(node, "extras", {}).get("rolls")
        if flag is not None:
            return bool(flag)
    return False


def _lineage(command: Any) -> list[Any]:
    """The command, then its group and the group's parent: the nearest says whether it rolls."""
    nodes = []
    while command is not None:
        nodes.append(command)
        command = getattr(command, "parent", None)
    return nodes
