"""The Discord application: the Bot subclass, its one error handler, and the clean shutdown.

``setup_hook`` opens the store, builds the Referee service (``bot.referee``), loads whichever
cogs exist and syncs the command tree. Every command runs in its own task; the tree's
``interaction_check`` tags that task's log lines with the interaction id, and ``on_error`` is
the single place where errors become replies: a refused order is a red ephemeral embed quoting
the rule; anything unexpected is logged with the id and answered politely.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import importlib.util
import inspect
import logging
import pkgutil
import signal
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.client import RefereeClient
from bot.config import Settings
from bot.core.api import TablesUnreadable, load_tables
from bot.core.errors import RulesError
from bot.gateway_watch import GatewayWatch
from bot.limits import Quotas, RollRateLimiter, command_of, is_application_command, is_rolling
from bot.logs import current_interaction
from bot.loopshare import share
from bot.pacing import Pacer
from bot.render import error_embed
from bot.shards import SHARDING_CLOSES, count_advice
from bot.store.base import DatabaseUnusable, StorageUnavailable
from bot.replies import UNKNOWN_INTERACTION, DetailsButton, post_saved_result, reply_outcome, send_ephemeral
from bot.maps import MapButton, UnitsButton

if TYPE_CHECKING:
    from bot.store import Store

log = logging.getLogger(__name__)

COGS_PACKAGE = "cogs"  # every module in it is a cog (an extension with ``setup``), but those named _*


def cog_modules() -> list[str]:
    """The cogs, found by walking the package: a new module is loaded without a list to edit."""
    package = importlib.import_module(COGS_PACKAGE)
    return sorted(f"{COGS_PACKAGE}.{m.name}" for m in pkgutil.iter_modules(package.__path__)
                  if not m.name.startswith("_") and not m.ispkg)


async def _maybe_await(value: Any) -> Any:
    """The store's open/close may be coroutines or plain calls; accept both."""
    return await value if inspect.isawaitable(value) else value


class FaultLog:
    """One log line when the storage starts failing a kind of way (disk full, locked), then one a
    minute at most saying how many commands it refused meanwhile: the host reads what is wrong
    without a traceback per command."""

    def __init__(self, every: float = 60.0, clock: Any = time.monotonic):
        self.every, self.clock = every, clock
        self._last: dict[str, float] = {}
        self._since: dict[str, int] = {}

    def note(self, fault: StorageUnavailable) -> None:
        now, kind = self.clock(), fault.kind
        self._since[kind] = self._since.get(kind, 0) + 1
        if kind in self._last and now - self._last[kind] < self.every:
            return
        count, self._since[kind], self._last[kind] = self._since[kind], 0, now
        what = {"full": "the disk holding the database is full", "locked": "another program holds the database's "
                "write lock", "slow": "statements ran past REFEREE_DATABASE_STATEMENT_TIMEOUT"}.get(kind, kind)
        log.error("storage: %s; %d command(s) refused, nothing of them saved (said once a minute at most)",
                  what, count)


# what a slash option of each type takes, in players' words (discord.py's own message names the converter)
_OPTION_TYPE_WORDS = {
    discord.AppCommandOptionType.integer: "a whole number", discord.AppCommandOptionType.number: "a number",
    discord.AppCommandOptionType.boolean: "yes or no", discord.AppCommandOptionType.user: "a member of this server",
    discord.AppCommandOptionType.channel: "a channel", discord.AppCommandOptionType.role: "a role",
    discord.AppCommandOptionType.string: "text",
}


def transformer_refusal(interaction: discord.Interaction, error: app_commands.TransformerError) -> str:
    """An option Discord delivered that the command cannot read, said as what to type instead."""
    command = getattr(interaction, "command", None)
    name = command.qualified_name if command is not None else "name"
    value = str(error.value)[:30]
    wanted = _OPTION_TYPE_WORDS.get(error.type, "another value")
    return f"'{value}' cannot be read here: this option takes {wanted} (/help command:{name} shows each option)"


UNSHOWN_BATCH = 100  # results saved and never shown, read at a time as a process starts and posts them

# A command whose log could not be read to tell whether it was saved is looked up again, with pauses
# growing from the first to the longest, for this long; found saved, its result is posted to its channel
LOOK_AGAIN_FIRST_PAUSE, LOOK_AGAIN_LONGEST_PAUSE, LOOK_AGAIN_SECONDS = 1.0, 15.0, 300.0


class RefereeTree(app_commands.CommandTree):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.storage_faults = FaultLog()
        self.looking_again: set[asyncio.Task[None]] = set()  # ``_look_again``'s, cancelled as the bot closes

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        # runs first in the task discord.py creates for this interaction: every line logged
        # from here to the reply (the error handler included) carries the interaction id
        current_interaction.set(interaction.id)
        # the command's first part (checks, the channel's lock, the load) runs on: others first if due
        await share()
        # each raises RateLimited (a CheckFailure), told privately; buttons are counted by Guarded
        self.client.quotas.check_interaction(interaction)
        self.client.roll_limiter.check_interaction(interaction)
        return True

    async def settle_roll(self, interaction: discord.Interaction) -> None:
        """A rolling command was counted by the roll limit when it arrived: take it back unless its
        order is in the log with dice (a refusal, a preview, an order that drew none roll nothing)."""
        if not is_application_command(interaction) or not is_rolling(command_of(interaction)):
            return
        try:
            rolled = await self.client.referee.rolled(interaction.id)
        except StorageUnavailable:
            return  # cannot tell: it stays counted
        if not rolled:
            self.client.roll_limiter.refund(interaction.user.id, interaction.id)

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        await self.settle_roll(interaction)
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if not isinstance(original, discord.HTTPException):
            # refused, mistyped or failed: it did none of its work, so it does not spend a heavy quota
            # (a refused answer, HTTPException, may follow work done: it stays counted)
            self.client.quotas.take_back_interaction(interaction)
        if isinstance(original, RulesError):
            await send_ephemeral(interaction, embed=error_embed(original.message, original.rule))
        elif isinstance(error, app_commands.TransformerError):
            await send_ephemeral(interaction, embed=error_embed(transformer_refusal(interaction, error)))
        elif isinstance(error, app_commands.CheckFailure):
            await send_ephemeral(interaction, content=str(error) or "You cannot use this command here.")
        elif isinstance(original, discord.HTTPException):
            await self._answer_lost(interaction, original)
        elif await self._saved_after_all(interaction, original):
            return
        elif isinstance(original, StorageUnavailable):
            self.storage_faults.note(original)  # one log line per fault, not a traceback per command
            await send_ephemeral(interaction, content=str(original))
        else:
            name = interaction.command.qualified_name if interaction.command else "?"
            log.error("unexpected error in /%s", name, exc_info=original)
            await send_ephemeral(interaction, content=(
                "Something went wrong on our side; nothing was changed "
                f"(reference: {interaction.id})"))

    async def _saved_after_all(self, interaction: discord.Interaction, error: BaseException) -> bool:
        """A command that failed after its write had committed (the database went away as the
        channel's lock was let go, say) saved its order: its player is shown the result, never
        told "nothing was changed", or he would give it again. True when answered here: the order
        is in the log (the result is the answer), or the log cannot be read to tell."""
        referee = getattr(self.client, "referee", None)
        if referee is None or not is_application_command(interaction):
            return False
        try:
            acted = await referee.recorded(interaction.id)
        except StorageUnavailable as unreadable:
            self.storage_faults.note(unreadable)
            await send_ephemeral(interaction, content=(
                f"The database failed while answering ({unreadable}), and the bot cannot tell yet whether your "
                f"order was saved: look at /log before giving it again; if it was saved, its result is posted "
                f"here once the database answers (reference: {interaction.id})"))
            self._look_again(interaction)
            return True
        if acted is None:
            return False
        log.warning("/%s failed after its order was saved as log #%s (%s: %s): the result is shown",
                    interaction.command.qualified_name if interaction.command else "?", acted.seq,
                    type(error).__name__, error)
        await reply_outcome(interaction, acted)
        return True

    def _look_again(self, interaction: discord.Interaction) -> None:
        """In the background: ask the log again whether the interaction's order was saved, until the
        database answers (LOOK_AGAIN_SECONDS at most); saved, post its result to its channel, once.
        Not answered by then, it stays on the unshown list, and the bot's next start posts it."""
        if interaction.channel_id is None:
            return
        task = asyncio.create_task(self._post_when_readable(interaction.id, interaction.channel_id,
                                                            interaction.user.id), name="referee-look-again")
        self.looking_again.add(task)
        task.add_done_callback(self.looking_again.discard)

    async def _post_when_readable(self, interaction_id: int, channel_id: int, user_id: int) -> None:
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + LOOK_AGAIN_SECONDS, LOOK_AGAIN_FIRST_PAUSE
        while True:
            await asyncio.sleep(pause)
            try:
                acted = await self.client.referee.recorded(interaction_id)  # type: ignore[attr-defined]
            except StorageUnavailable:
                if loop.time() + pause > deadline:
                    log.warning("interaction %s: the log could not be read for %g s; if its order was saved, the "
                                "next start posts it", interaction_id, LOOK_AGAIN_SECONDS)
                    return
                pause = min(pause * 2, LOOK_AGAIN_LONGEST_PAUSE)
                continue
            except Exception:  # the store closing with the bot: the next start posts what was saved
                log.warning("interaction %s: not looked up again", interaction_id, exc_info=True)
                return
            if acted is not None:
                await post_saved_result(self.client, channel_id, acted, why=(
                    f"<@{user_id}>: the database is back, and your order had been saved as log #{acted.seq}: here "
                    "is the result. Do not give it again."))
            return

    async def _answer_lost(self, interaction: discord.Interaction, error: discord.HTTPException) -> None:
        """Discord refused a message of the answer (the 3 seconds were up, an outage past
        discord.py's own retries). Never answer the same interaction again: Discord refuses that
        too (10062, 40060). A saved result reaches the channel through ``reply_outcome``, which
        posts it as a plain message when its first message is refused; what gets here is a later
        part of an answer already shown, or a command that saved nothing."""
        name = interaction.command.qualified_name if interaction.command else "?"
        log.warning("Discord refused the answer to /%s: %s (code %s)", name, error.status, error.code)
        referee = getattr(self.client, "referee", None)
        acted = await referee.recorded(interaction.id) if referee is not None else None
        if acted is not None:
            if not interaction.response.is_done() and interaction.channel_id is not None:
                await post_saved_result(self.client, interaction.channel_id, acted, why=(
                    f"<@{interaction.user.id}>: your order was saved as log #{acted.seq}, but Discord did not "
                    "take the bot's reply, so here is the result. Do not give the order again."))
            return
        if error.code == UNKNOWN_INTERACTION or interaction.response.is_done():
            return  # the token is dead, or the answer is out: the player sees "did not respond" and may retry
        await send_ephemeral(interaction, content=(
            "Discord did not take the bot's answer; nothing was changed: give the order again "
            f"(reference: {interaction.id})"))


class RefereeBot(RefereeClient):
    """The bot: no privileged intents (slash commands need none), never pings anyone. Settings with
    several shards for this process (REFEREE_SHARD_IDS) make it a ``ShardedRefereeBot``."""

    def __new__(cls, settings: Settings, *args: Any, **kwargs: Any) -> "RefereeBot":
        shards = settings.shards
        if cls is RefereeBot and (settings.auto_shards or shards is not None and len(shards) > 1):
            cls = ShardedRefereeBot
        return super().__new__(cls)

    def __init__(self, settings: Settings, **kwargs: Any):
        shards = settings.shards
        if settings.auto_shards:  # every shard, as many as Discord recommends (discord.py asks it)
            kwargs = {"shard_count": None} | kwargs
        elif shards is not None and len(shards) > 1:  # several shards: a gateway connection for each
            kwargs = {"shard_ids": list(shards), "shard_count": settings.shard_count} | kwargs
        elif shards is not None:  # one shard in this process (REFEREE_SHARD_ID/COUNT)
            kwargs = {"shard_id": shards[0], "shard_count": settings.shard_count} | kwargs
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         allowed_mentions=discord.AllowedMentions.none(), help_command=None,
                         tree_cls=RefereeTree, **kwargs)
        self.settings = settings
        self.started_at = datetime.now(timezone.utc)  # the results saved before it are the restart's to show
        self.store: Store | None = None  # opened in setup_hook; only the app shell touches it
        self.loaded_cogs: list[str] = []
        # every command and button per user, channel and server, and rolling commands per player
        # (bot/limits.py; REFEREE_QUOTA_*, REFEREE_ROLL_LIMIT / REFEREE_ROLL_WINDOW)
        self.quotas = Quotas(settings)
        self.roll_limiter = RollRateLimiter.from_settings(settings)
        self.pacer = Pacer(self)
        self.gateway_watch: GatewayWatch | None = None

    async def setup_hook(self) -> None:
        from bot.service import Referee, ServerCaps
        from bot.work import Worker

        load_tables()  # a broken data file stops the bot here (TablesUnreadable), not mid-game
        await self.open_store()
        self.referee = Referee(self.store, caps=ServerCaps.from_settings(self.settings),
                               worker=Worker(budget=self.settings.long_work_seconds,
                                             at_once=self.settings.long_work_processes))
        self.add_dynamic_items(DetailsButton)  # on every result shown outcome first (bot/replies.py)
        self.add_dynamic_items(MapButton, UnitsButton)  # under /game status (bot/maps.py)
        await self.load_cogs()
        await self.check_shard_count()
        await self.sync_commands()
        self.pacer.start()  # the reminders of slow games (bot/pacing.py); it waits until ready
        if self.settings.gateway_state is not None:  # for the health check (bot/gateway_watch.py)
            self.gateway_watch = GatewayWatch(self, self.settings.gateway_state,
                                              bound=self.settings.gateway_down_seconds)
            self.gateway_watch.start()
        self._unshown_task = asyncio.create_task(self.post_unshown(), name="referee-unshown")
        # the worker processes' server, started now in the background (bot/work.py)
        self._warm_task = asyncio.create_task(self.referee.worker.warm(), name="referee-warm-workers")

    async def open_store(self) -> None:
        """Open (check, migrate) the database once; a file that cannot serve raises
        DatabaseUnusable. ``serve`` calls it before logging in: a bad file stops the bot before
        its token goes anywhere."""
        from bot.store import open_store

        if self.store is None:
            self.store = await _maybe_await(open_store(self.settings.database,
                                                       max_entries=self.settings.max_log_entries,
                                                       checkpoint_every=self.settings.checkpoint_every,
                                                       pool=self.settings.pool()))

    async def check_shard_count(self) -> str | None:
        """Log one line when the shard count is below the one Discord recommends for the bot's servers
        (``bot.shards.count_advice``; REFEREE_SHARD_COUNT=auto follows it by itself). Returns the line."""
        if self.settings.auto_shards:
            return None
        try:
            recommended, _, _ = await self.http.get_bot_gateway()
        except (discord.HTTPException, discord.GatewayNotFound) as exc:
            log.info("Discord's recommended shard count could not be read (%s): not checked", exc)
            return None
        advice = count_advice(self.settings.shard_count, int(recommended))
        if advice is not None:
            log.warning("%s", advice)
        return advice

    async def post_unshown(self) -> None:
        """Once ready: post every result saved but never seen (the bot stopped between the save and
        the reply, or Discord refused both the reply and the channel post), each once, naming its
        log entry, so a player does not give the order again and roll twice."""
        await self.wait_until_ready()
        seen: set[tuple[int, int]] = set()  # (game, seq) posted or tried: their marks may not be written yet
        try:
            while True:  # the list read a batch at a time, each read past what this loop has seen
                # only what was saved before this process started (what it answers meanwhile is its
                # own to show), and only its own shards' servers (another process shows theirs)
                batch = [(channel_id, acted) for channel_id, acted in await self.referee.unshown(
                    len(seen) + UNSHOWN_BATCH, before=self.started_at, shards=self.settings.own_shards)
                    if (acted.entry.game_id, acted.seq) not in seen]
                if not batch:
                    return
                for channel_id, acted in batch:
                    seen.add((acted.entry.game_id, acted.seq))
                    await post_saved_result(self, channel_id, acted, why=(
                        f"<@{acted.entry.actor}>'s order was saved as log #{acted.seq} just before the bot "
                        "restarted, and may not have been shown: here is the result. Do not give it again."))
        except Exception:  # the store failing at start-up: the results stay listed for the next start
            log.exception("the results saved before the restart could not be posted")

    async def load_cogs(self) -> None:
        """Load every cog module of the cogs package; one that fails to load stops the start-up."""
        for name in cog_modules():
            await self.load_extension(name)
            self.loaded_cogs.append(name)
        log.info("cogs loaded: %s", ", ".join(self.loaded_cogs) or "none")

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        shards = self.settings.shards
        if shards is not None and 0 not in shards:  # the commands are the application's: shard 0 syncs them
            log.info("shards %s of %s: commands are synced by shard 0", ",".join(map(str, shards)),
                     self.settings.shard_count)
            return []
        if self.settings.dev_guild:
            # a guild's commands update at once; global ones can take up to an hour to show
            guild = discord.Object(id=self.settings.dev_guild)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), self.settings.dev_guild)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))
        return synced

    async def on_app_command_completion(self, interaction: discord.Interaction, command: Any) -> None:
        await self.tree.settle_roll(interaction)  # type: ignore[attr-defined]

    async def close(self) -> None:
        # the gateway first, so no command starts against a closed database
        self.pacer.stop()
        if self.gateway_watch is not None:
            self.gateway_watch.stop()
        for name in ("_unshown_task", "_warm_task"):
            task = getattr(self, name, None)
            if task is not None and not task.done():
                task.cancel()
        for task in list(getattr(self.tree, "looking_again", ())):
            task.cancel()  # what they would post, the next start does
        await super().close()
        referee = getattr(self, "referee", None)
        if referee is not None:
            referee.worker.close()
        store, self.store = self.store, None
        if store is not None:
            await _maybe_await(store.close())
            log.info("database closed")


def freeze_start_up_objects() -> int:
    """Collect the garbage of the start-up, then ``gc.freeze()`` what is left: modules, the rules
    tables, the command tree live as long as the process, and once frozen no later collection
    walks them again. A command allocates a few thousand objects, so the collector runs often,
    and a full collection over the whole start-up heap stalled every command in flight (issue 5:
    with it, /fire's p99 with 50 channels went from ~165 to ~130 ms, docs/performance.md).
    Returns how many objects are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class ShardedRefereeBot(RefereeBot, commands.AutoShardedBot):
    """The bot holding several shards in one process (REFEREE_SHARD_IDS with REFEREE_SHARD_COUNT):
    discord.py's AutoShardedBot, one gateway connection per shard, every other part the same."""


async def serve(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Run until the gateway ends or ``stop`` is set (by SIGTERM/SIGINT in ``main_run``).
    It talks to wherever discord.py points: Discord itself, unless a test or the sandbox pointed
    it at the loopback emulator first (``bot.emulator.run_bot``); no environment variable here
    can send the token elsewhere."""
    stop = stop or asyncio.Event()
    token = settings.token.get_secret_value() if settings.token else ""
    async with RefereeBot(settings) as bot:

        async def start() -> None:  # bot.start(token), with the start-up objects frozen in between
            await bot.open_store()  # the database first: a file that cannot serve stops the bot here
            await bot.login(token)  # runs setup_hook: the tables, the database, the cogs, the sync
            from bot.work import preload_in_bot

            preload_in_bot()  # the rulesets, their odds engines and validators: now, not at a first command
            frozen = freeze_start_up_objects()
            log.info("start-up done: %d objects set aside from garbage collection (gc.freeze)", frozen)
            await bot.connect()

        runner = asyncio.create_task(start(), name="referee-gateway")
        waiter = asyncio.create_task(stop.wait(), name="referee-stop")
        done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if waiter in done:
            log.info("stopping: closing the gateway and the database")
            await bot.close()
        else:
            waiter.cancel()
        await runner


def _install_signal_handlers(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass  # Windows: Ctrl-C still raises KeyboardInterrupt, and asyncio.run cleans up


def main_run(settings: Settings) -> int:
    """Run the bot until SIGTERM/SIGINT; close the gateway and the database cleanly."""

    async def _main() -> None:
        stop = asyncio.Event()
        _install_signal_handlers(stop)
        await serve(settings, stop=stop)

    try:
        asyncio.run(_main())
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN (or REFEREE_TOKEN)")
        return 2
    except discord.ConnectionClosed as exc:
        if exc.code not in SHARDING_CLOSES:
            raise
        log.error("%s", SHARDING_CLOSES[exc.code])
        return 2
    except discord.Forbidden as exc:  # registering the slash commands, most often
        where = f" to the server REFEREE_DEV_GUILD names ({settings.dev_guild})" if settings.dev_guild else ""
        log.error("Discord refused the bot at start-up (%s, code %s: %s): invite it with the bot and "
                  "applications.commands scopes%s, then start it again", exc.status, exc.code, exc.text, where)
        return 2
    except discord.HTTPException as exc:
        log.error("Discord answered %s at start-up (%s): an outage on its side; start the bot again later",
                  exc.status, exc.text or "no message")
        return 1
    except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
        log.error("could not reach Discord (%s): check this machine's network (and DNS), then start the bot "
                  "again", str(exc) or type(exc).__name__)
        return 1
    except (TablesUnreadable, DatabaseUnusable) as exc:
        log.error("%s", exc)  # one line: which file, what is wrong, what to do
        return 1
    except KeyboardInterrupt:
        pass
    return 0
