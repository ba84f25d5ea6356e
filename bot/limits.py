"""Limits that keep one player, one channel or one server from swamping the bot (Issues 6, 17).

- Quotas (``Quotas``): every slash command and every button press counts once per user, per
  channel and per server, each in its own sliding window (``REFEREE_QUOTA_USER`` 30/60,
  ``REFEREE_QUOTA_CHANNEL`` 90/60, ``REFEREE_QUOTA_SERVER`` 600/60); the heavy ones (exports,
  verifies, statistics, undo proposals, the Odds button, previews, a scenario file: they say so with
  ``extras={"heavy": True}``, a ``preview`` option, an attached file (``/game new file:``), or
  ``heavy = True`` on a button) count again against smaller quotas (``REFEREE_QUOTA_HEAVY_*``: 12, 20
  and 60 in 5 minutes: a game master runs the statistics, one of each export and a verify in one
  sitting). A heavy command that is refused (a typo, a side that is not in the game, a rule) is taken
  back from the heavy quotas (``Quotas.take_back_heavy``): only what did its work counts there. The
  check is in memory and instant, before the command is parsed; the refusal is private, says what is
  still open and when to try again. Autocomplete is not counted: it reads, never writes, and Discord
  throttles it.
- Rolling commands (every command whose orders may roll: they say so themselves, with
  ``extras={"rolls": True}``, from their order's declaration ``OrderBase.rolls``) are limited per
  player: at most ``REFEREE_ROLL_LIMIT`` (20) orders that rolled in any ``REFEREE_ROLL_WINDOW``
  (60) seconds. An attempt counts when it arrives and is taken back (``refund``) once it turns out
  to have rolled nothing: a refused order, a preview. One player hammering /fire cannot starve the other channels, nor push the bot
  into Discord's own rate limits. The check runs once, in ``RefereeTree.interaction_check``,
  before the command is parsed; a refused command rolled nothing and changed nothing.
- The caps per game are enforced where the data lives, each with its own message:
  units and locations in ``bot.core.setup`` (MAX_UNITS, MAX_LOCATIONS), the log in the store
  (``REFEREE_MAX_LOG_ENTRIES``, 100,000; the closing /game end always fits), games per server
  by the service (``REFEREE_MAX_GAMES_PER_SERVER`` running at once, ``REFEREE_NEW_GAMES_PER_SERVER``
  started in a day: counted in the database, so a restart does not reset them).

The windows are in memory: a restart forgets them, which errs on the side of the player.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, ClassVar

from discord import AllowedMentions, HTTPException, InteractionType, app_commands

from bot.config import Rate, Settings, load_settings

log = logging.getLogger(__name__)

SWEEP_EVERY = 1000  # checks between sweeps that forget players idle for a whole window


class RateLimited(app_commands.CheckFailure):
    """Over the rolling-command limit; the one error handler shows the message privately."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = retry_after


def when_to_retry(wait: float, wall_clock: Callable[[], datetime]) -> str:
    """"Try again in 12 seconds (<t:…:T>)": rounded up, so the retry is never refused again."""
    return f"Try again {within(wait, wall_clock)}."


def within(wait: float, wall_clock: Callable[[], datetime]) -> str:
    """"in 12 seconds (<t:…:T>)", rounded up."""
    seconds = max(1, int(wait + 0.999))
    when = int((wall_clock() + timedelta(seconds=seconds)).timestamp())
    return f"in {seconds} second{'s' if seconds != 1 else ''} (<t:{when}:T>)"


class SlidingWindow:
    """The attempts of each key (a user, a channel, a server) within the last ``rate.seconds``,
    at most ``rate.count`` of them; an interaction is counted once however often it arrives."""

    def __init__(self, rate: Rate):
        self.rate = rate
        self._seen: dict[int, deque[tuple[float, int]]] = {}
        self._checks = 0

    def _recent(self, key: int, now: float) -> deque[tuple[float, int]]:
        recent = self._seen.setdefault(key, deque())
        while recent and recent[0][0] <= now - self.rate.seconds:
            recent.popleft()
        return recent

    def counted(self, key: int, interaction_id: int, now: float) -> bool:
        return any(seen == interaction_id for _, seen in self._recent(key, now))

    def wait(self, key: int, now: float) -> float | None:
        """None when one more is allowed now, else the seconds until it is."""
        recent = self._recent(key, now)
        if len(recent) < self.rate.count:
            return None
        return max(0.0, recent[0][0] + self.rate.seconds - now)

    def record(self, key: int, interaction_id: int, now: float) -> None:
        self._recent(key, now).append((now, interaction_id))
        self._checks += 1
        if self._checks % SWEEP_EVERY == 0:  # forget keys idle for a whole window
            for idle in [k for k, recent in self._seen.items() if not recent or recent[-1][0] <= now - self.rate.seconds]:
                del self._seen[idle]

    def forget(self, key: int, interaction_id: int) -> None:
        """Take back the attempt of ``interaction_id`` (none counted: nothing changes)."""
        recent = self._seen.get(key)
        if recent and any(seen == interaction_id for _, seen in recent):
            self._seen[key] = deque(seen for seen in recent if seen[1] != interaction_id)

    @property
    def tracked(self) -> int:
        return len(self._seen)


SCOPES = ("user", "channel", "server")
WHO = {"user": "you", "channel": "this channel", "server": "this server"}
WHOSE = {"user": "one player", "channel": "one channel", "server": "one server"}
HEAVY_WORDS = "exports, verifies, statistics, undo proposals, odds, previews, maps and scenario files"


class Quotas:
    """Every command and button press, per user, per channel and per server (module docstring)."""

    def __init__(self, settings: Settings, *, clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        self._clock, self._wall_clock = clock, wall_clock
        rates = {(False, "user"): settings.quota_user, (False, "channel"): settings.quota_channel,
                 (False, "server"): settings.quota_server, (True, "user"): settings.quota_heavy_user,
                 (True, "channel"): settings.quota_heavy_channel, (True, "server"): settings.quota_heavy_server}
        self._windows = {key: SlidingWindow(rate) for key, rate in rates.items() if not rate.off}

    def check(self, *, user: int, channel: int | None, server: int | None, heavy: bool,
              interaction_id: int) -> None:
        """Count this interaction, or raise RateLimited (counting nothing) when any quota it falls
        under is spent. One delivered again is let through uncounted: it was counted once."""
        now = self._clock()
        keys = {"user": user, "channel": channel, "server": server}
        applies = [(kind, window, keys[kind[1]]) for kind, window in self._windows.items()
                   if keys[kind[1]] is not None and (heavy or not kind[0])]
        if any(window.counted(key, interaction_id, now) for _, window, key in applies):
            return
        waits = [(wait, kind, window) for kind, window, key in applies
                 if (wait := window.wait(key, now)) is not None]
        if waits:
            wait, (is_heavy, scope), window = max(waits, key=lambda found: found[0])
            raise RateLimited(over_quota(window.rate, is_heavy=is_heavy, scope=scope, wait=wait,
                                         wall_clock=self._wall_clock), wait)
        for _, window, key in applies:
            window.record(key, interaction_id, now)

    def take_back_heavy(self, *, user: int, channel: int | None, server: int | None, interaction_id: int) -> None:
        """A heavy command or button that was refused (it did none of its work) no longer counts
        against the heavy quotas; it stays counted against the others, so typing fast is still
        bounded. Taking back one never counted changes nothing."""
        keys = {"user": user, "channel": channel, "server": server}
        for (is_heavy, scope), window in self._windows.items():
            if is_heavy and keys[scope] is not None:
                window.forget(keys[scope], interaction_id)

    def take_back_interaction(self, interaction: Any) -> None:
        """``take_back_heavy`` for a refused slash command or button press."""
        self.take_back_heavy(user=interaction.user.id, channel=interaction.channel_id,
                             server=interaction.guild_id, interaction_id=interaction.id)

    def check_interaction(self, interaction: Any) -> None:
        """For slash commands (``RefereeTree.interaction_check``) and buttons (``Guarded``)."""
        kind = getattr(interaction, "type", None)
        if kind is InteractionType.application_command:
            heavy = is_heavy(command_of(interaction)) or asks_preview(interaction) or attaches_file(interaction)
        elif kind is InteractionType.component:
            heavy = False  # a heavy button says so itself: ``Guarded.heavy``
        else:
            return  # autocomplete: not counted
        self.check(user=interaction.user.id, channel=interaction.channel_id, server=interaction.guild_id,
                   heavy=heavy, interaction_id=interaction.id)

    def check_button(self, interaction: Any, *, heavy: bool) -> None:
        self.check(user=interaction.user.id, channel=interaction.channel_id, server=interaction.guild_id,
                   heavy=heavy, interaction_id=interaction.id)

    @property
    def tracked(self) -> int:
        """Keys held in memory over every window (the sweeps keep it to the active ones)."""
        return sum(window.tracked for window in self._windows.values())


def over_quota(rate: Rate, *, is_heavy: bool, scope: str, wait: float,
               wall_clock: Callable[[], datetime]) -> str:
    """The refusal of a quota: what was spent, what is still open, and when to try again."""
    verb = "gave" if scope == "user" else "had"
    plural = "s" if rate.count != 1 else ""
    what = (f"{rate.count} heavy command{plural} ({HEAVY_WORDS})" if is_heavy
            else f"{rate.count} command{plural} and button presses")
    spent = (f"Slow down: {WHO[scope]} {verb} {what} in the last {rate.window_words}, the most {WHOSE[scope]} "
             "may. Nothing was done. ")
    if is_heavy:  # only the heavy ones are spent: say what is still open
        return (spent + "Orders, /game status and every other command still go through; the next heavy one "
                + within(wait, wall_clock) + ".")
    if scope == "user":
        return spent + when_to_retry(wait, wall_clock) + " Other players' commands still go through."
    return spent + when_to_retry(wait, wall_clock)


class Guarded:
    """Mixed into every button (a ``DynamicItem``; tests/reliability/test_limits.py checks each one
    in cogs/): the quotas count its presses as the command tree counts slash commands, and a press
    over a quota is refused privately with the time to wait, nothing done. A button whose answer
    may take long (a replay, an enumeration) sets ``heavy``."""

    heavy: ClassVar[bool] = False

    def refused(self, interaction: Any) -> None:
        """Its press was refused (a rule, an old button): taken back from the heavy quotas."""
        if self.heavy:
            interaction.client.quotas.take_back_interaction(interaction)

    async def interaction_check(self, interaction: Any) -> bool:
        try:
            interaction.client.quotas.check_button(interaction, heavy=self.heavy)
        except RateLimited as exc:
            # the check runs before the press is answered: the refusal is its response
            try:
                await interaction.response.send_message(str(exc), ephemeral=True,
                                                        allowed_mentions=AllowedMentions.none())
            except HTTPException as failed:  # too late, or Discord unreachable: a refusal saved nothing
                log.warning("could not refuse the press %s privately: %s (code %s)",
                            interaction.id, failed.status, failed.code)
            return False
        return True


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

    def refund(self, user_id: int, interaction_id: int) -> None:
        """Take back the attempt of ``interaction_id``: the order rolled nothing (it was refused, it
        was a preview). Counting at the check and refunding after keeps a burst of orders sent at once
        to the limit, which counting only after they rolled would not; taking back one never counted
        changes nothing."""
        recent = self._seen.get(user_id)
        if recent:
            kept = [seen for seen in recent if seen[1] != interaction_id]
            if len(kept) != len(recent):
                self._seen[user_id] = deque(kept)

    def check(self, user_id: int, interaction_id: int) -> None:
        """Raise RateLimited when the player is over the limit; otherwise count this one."""
        wait = self.retry_after(user_id, interaction_id)
        if wait is None:
            return
        raise RateLimited(
            f"Slow down: you gave {self.limit} rolling commands in the last {self.window:g} seconds, the most "
            f"one player may. Nothing was rolled. " + when_to_retry(wait, self._wall_clock), wait)

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
    return getattr(interaction, "type", None) is InteractionType.application_command


def command_of(interaction: Any) -> Any:
    try:
        return interaction.command
    except app_commands.AppCommandError:
        return None  # an unknown command: the tree reports it on its own


def is_rolling(command: Any) -> bool:
    return _flag(command, "rolls")


def is_heavy(command: Any) -> bool:
    """Whether a command says it may take long (``extras={"heavy": True}``, or its group's)."""
    return _flag(command, "heavy")


def asks_preview(interaction: Any) -> bool:
    """An order command given with ``preview`` set: the odds are enumerated instead of a roll."""
    options = (getattr(interaction, "data", None) or {}).get("options") or []
    while options and options[0].get("type") in (1, 2):  # into the subcommand's own options
        options = options[0].get("options") or []
    return any(o.get("name") == "preview" and o.get("value") not in (False, None, "", "no", "false")
               for o in options)


ATTACHMENT = 11  # Discord's application command option type of an attached file


def attaches_file(interaction: Any) -> bool:
    """A command given with a file attached (``/game new file:``): the file is downloaded, read and
    a whole game set up from it, as heavy as ``/scenario load``."""
    options = (getattr(interaction, "data", None) or {}).get("options") or []
    while options and options[0].get("type") in (1, 2):  # into the subcommand's own options
        options = options[0].get("options") or []
    return any(o.get("type") == ATTACHMENT for o in options)


def _flag(command: Any, name: str) -> bool:
    if command is None:
        return False
    for node in _lineage(command):
        flag = getattr(node, "extras", {}).get(name)
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
