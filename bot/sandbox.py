"""`python -m bot sandbox`: play with the real bot in a terminal, without Discord or a token.

The sandbox starts the loopback Discord (``bot.emulator.FakeDiscord``) on 127.0.0.1 and the
real ``RefereeBot`` against it, exactly as the end-to-end tests do. Every line typed as a slash
command (``/fire firers:A1 A2 target:B5 range:2 dice:3 4``) is typed against the schema the bot
synced and sent as a real INTERACTION_CREATE; the bot's replies (embeds) are printed as text.
So what works here works on Discord, and what the bot refuses here it refuses there.

Built-ins: ``help``, ``as alice|bob|gm|carol``, ``channel NAME``, ``load SAMPLE`` (each ruleset's samples),
``click BUTTON``, ``save [FOLDER]``, ``quit``. When stdin is not a terminal the lines are read as a script and
each is echoed before its reply, so a session can be replayed from a file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import re
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, TextIO

from bot.app import RefereeBot
from bot.config import ConfigError, Settings, database_path_or_url, load_settings
from bot.core.api import TablesUnreadable
from bot.core.data import data_path
from bot.core.dice import SEED_BYTES
from bot.emulator import FakeDiscord, running
from bot.emulator.payloads import (
    MANAGE_CHANNELS,
    PLAYER_PERMISSIONS,
    ChannelSpec,
    GuildSpec,
    UserSpec,
)
from bot.emulator.messages import time_snowflake
from bot.emulator.records import Reply, SentFile, StoredMessage
from bot.emulator.schema import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    STRING,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    TYPE_NAMES,
    USER,
)
from bot.render import ANSI_BOLD, PLAIN_BOLD, embed_to_text
from bot.sandbox_scenarios import SCENARIOS, ReadOnFirstUse, sample_channels
from bot.service import Referee
from bot.store import DatabaseUnusable, StoreError, is_postgres
from bot.store import postgres as postgres_store
from bot.store.postgres import redacted

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

# --- the sandbox's guild: who can type and where ----------------------------------------------

GUILD_ID = 4_000_000_000_000_000_001
PEOPLE = {  # name -> user; the GM owns the guild and has Manage Channels (a game master)
    "alice": UserSpec(2_000_000_000_000_000_001, "alice"),
    "bob": UserSpec(2_000_000_000_000_000_002, "bob"),
    "gm": UserSpec(2_000_000_000_000_000_003, "gm"),
    "carol": UserSpec(2_000_000_000_000_000_004, "carol"),  # in no game: may look, not act
}
@cache
def channels() -> dict[str, ChannelSpec]:
    """One channel per ruleset with sample games (its name), and free tables for your own games."""
    return {name: ChannelSpec(3_000_000_000_000_000_001 + i, name)
            for i, name in enumerate(("general", *sample_channels(), "table-1", "table-2"))}


CHANNELS: Mapping[str, ChannelSpec] = ReadOnFirstUse(channels)  # ``channels()`` by name
DEFAULT_USER, DEFAULT_CHANNEL = "gm", "general"
RECENT_REPLIES = 50  # the replies whose buttons can still be pressed (a channel scrolled back a little)


def sandbox_guild() -> GuildSpec:
    return GuildSpec(GUILD_ID, "Referee Sandbox", owner_id=PEOPLE["gm"].id,
                     channels=tuple(CHANNELS.values()), members=tuple(PEOPLE.values()))


def permissions_of(person: str) -> int:
    return PLAYER_PERMISSIONS | MANAGE_CHANNELS if person == "gm" else PLAYER_PERMISSIONS


# --- reading a typed command against the synced schema ----------------------------------------


class CommandLineError(Exception):
    """A line that cannot be turned into a command; the message says what to type instead."""


@dataclass
class ParsedCommand:
    path: str  # "fire", "game new"
    options: dict[str, Any] = field(default_factory=dict)


def _subcommands(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for o in node.get("options") or [] if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]


def find_root(commands: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    return next((c for c in commands if c.get("name") == name.casefold() and c.get("type", 1) == 1), None)


def parse_command_line(commands: list[dict[str, Any]], line: str) -> ParsedCommand:
    """``/game new ruleset:asl sides:Germans, Russians`` -> ("game new", {"ruleset": "asl", ...}).

    A value runs until the next ``name:`` (or ``name=``) where ``name`` is an option of the
    command, so values may hold spaces and commas. Values are typed by the synced schema."""
    text = line.strip().removeprefix("/")
    words = list(re.finditer(r"\S+", text))
    if not words:
        raise CommandLineError("type a command, e.g. /game status (help lists them)")
    root = find_root(commands, words[0].group())
    if root is None:
        known = ", ".join(sorted("/" + c["name"] for c in commands)) or "none yet"
        raise CommandLineError(f"there is no command /{words[0].group()}; commands: {known}")
    node, path, rest_at = root, [root["name"]], words[0].end()
    for word in words[1:]:
        subs = _subcommands(node)
        nxt = next((s for s in subs if s["name"] == word.group().casefold()), None)
        if nxt is None:
            break
        node, rest_at = nxt, word.end()
        path.append(nxt["name"])
    if _subcommands(node):
        names = ", ".join(f"/{' '.join(path)} {s['name']}" for s in _subcommands(node))
        raise CommandLineError(f"/{' '.join(path)} needs a subcommand: {names}")
    schema = {o["name"]: o for o in node.get("options") or []}
    raw = split_options(" ".join(path), schema, text[rest_at:])
    return ParsedCommand(" ".join(path), {name: typed_value(" ".join(path), schema[name], value)
                                          for name, value in raw.items()})


def split_options(path: str, schema: dict[str, Any], text: str) -> dict[str, str]:
    """'firers:A1 A2 target:B5' -> {'firers': 'A1 A2', 'target': 'B5'} for the options in ``schema``."""
    if not text.strip():
        return {}
    listed = ", ".join(schema) or "none"
    if not schema:
        raise CommandLineError(f"/{path} takes no options; '{text.strip()[:40]}' is left over")
    names = "|".join(sorted((re.escape(n) for n in schema), key=len, reverse=True))
    # name:value is the form; name=value is read only when no name: is used at all, so that
    # key=value pairs inside a value (stats:kind=squad name=4-6-7) stay in that value
    starts = list(re.finditer(rf"(?<!\S)({names}):", text, flags=re.IGNORECASE)) \
        or list(re.finditer(rf"(?<!\S)({names})=", text, flags=re.IGNORECASE))
    leading = text[:starts[0].start()] if starts else text
    if leading.strip():
        raise CommandLineError(f"'{leading.strip()[:40]}' is not an option of /{path}: write "
                               f"name:value (options: {listed})")
    values: dict[str, str] = {}
    for i, start in enumerate(starts):
        name = start.group(1).casefold()
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        value = text[start.end():end].strip()
        if name in values:
            raise CommandLineError(f"/{path}: option '{name}' is given twice")
        if not value:
            raise CommandLineError(f"/{path}: option '{name}' has no value")
        values[name] = value
    return values


_TRUE, _FALSE = {"yes", "y", "true", "on", "1"}, {"no", "n", "false", "off", "0"}


def typed_value(path: str, option: dict[str, Any], value: str) -> Any:
    """The value as Discord would send it for this option's type (and choices)."""
    kind, name = option["type"], option["name"]
    for choice in option.get("choices") or []:
        if value.casefold() in (str(choice["name"]).casefold(), str(choice["value"]).casefold()):
            return choice["value"]
    try:
        if kind == INTEGER:
            return int(value)
        if kind == NUMBER:
            number = float(value)
            return int(number) if number.is_integer() else number
    except ValueError:
        wanted = "a whole number" if kind == INTEGER else "a number"
        raise CommandLineError(f"/{path}: option '{name}' takes {wanted}, not '{value[:30]}'") from None
    if kind == BOOLEAN:
        if value.casefold() in _TRUE | _FALSE:
            return value.casefold() in _TRUE
        raise CommandLineError(f"/{path}: option '{name}' takes yes or no, not '{value[:30]}'")
    if kind in (USER, MENTIONABLE):
        return _user_id(path, name, value)
    if kind == CHANNEL:
        channel = CHANNELS.get(value.lstrip("#").casefold())
        if channel is None:
            raise CommandLineError(f"/{path}: option '{name}': no channel '{value}' (channels: "
                                   f"{', '.join(CHANNELS)})")
        return str(channel.id)
    if kind == ATTACHMENT:
        return attached_file(path, name, value)
    if kind != STRING:
        raise CommandLineError(f"/{path}: option '{name}' ({TYPE_NAMES.get(kind, kind)}) cannot be "
                               "typed in the sandbox")
    return value


MAX_ATTACHED = 8 * 1024 * 1024  # Discord's attachment limit for a server without boosts


def attached_file(path: str, name: str, value: str) -> SentFile:
    """A file typed as ``file:PATH`` (a path on this machine, or under the rules tables: e.g.
    ``asl/scenarios/village-assault.yaml``), attached as a user attaches it on Discord."""
    for candidate in (Path(value).expanduser(), data_path(value)):
        if candidate.is_file():
            if candidate.stat().st_size > MAX_ATTACHED:
                raise CommandLineError(f"/{path}: option '{name}': {value} is larger than Discord's 8 MB")
            return SentFile(candidate.name, None, candidate.read_bytes())
    raise CommandLineError(f"/{path}: option '{name}' takes a file: no file '{value[:60]}' here nor in the rules "
                           f"tables ({data_path()})")


def _user_id(path: str, name: str, value: str) -> str:
    bare = value.strip().removeprefix("<@").removesuffix(">").lstrip("@!")
    if bare.casefold() in PEOPLE:
        return str(PEOPLE[bare.casefold()].id)
    if bare.isascii() and bare.isdigit():
        return bare
    raise CommandLineError(f"/{path}: option '{name}' takes a person: {', '.join(PEOPLE)}")


# --- printing replies ----------------------------------------------------------------------


def buttons_of(message: StoredMessage) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for item in items:
            if item.get("type") == 2 and item.get("custom_id"):
                found.append(item)
            walk(item.get("components") or [])

    walk(message.components)
    return found


_MENTION = re.compile(r"<@!?(\d+)>")
_NAMES = {str(user.id): name for name, user in PEOPLE.items()}


_TIMESTAMP = re.compile(r"<t:(-?\d{1,12})(?::([tTdDfFR]))?>")


_UNITS = (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60))


def _relative(delta: float) -> str:
    """A relative timestamp as Discord words it: "in 2 days", "3 hours ago", "in 40 seconds"."""
    span = abs(delta)
    name, count = next(((name, round(span / size)) for name, size in _UNITS if span >= size),
                       ("second", round(span)))
    words = f"{count} {name}{'s' if count != 1 else ''}"
    return f"in {words}" if delta >= 0 else f"{words} ago"


def _when(seconds: int, style: str | None, now: float | None = None) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    if style == "R":
        return _relative(seconds - (time.time() if now is None else now))
    if style in ("t", "T"):
        return moment.strftime("%H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def readable(text: str, *, now: float | None = None) -> str:
    """Markup as Discord shows it: <@2000000000000000001> -> @alice, <t:1700000000:t> -> 22:13 UTC."""
    text = _MENTION.sub(lambda m: "@" + _NAMES.get(m[1], m[1]), text)
    return _TIMESTAMP.sub(lambda m: _when(int(m[1]), m[2], now), text)


def message_text(message: StoredMessage, bold: tuple[str, str] = PLAIN_BOLD) -> str:
    """A message as the terminal shows it; ``bold``: how markdown's bold reads (ANSI on a tty)."""
    parts: list[str] = []
    if message.ephemeral:
        parts.append("[only you can see this]")
    if message.content:
        parts.append(message.content)
    parts.extend(embed_to_text(embed, keep_timestamps=True, bold=bold) for embed in message.embeds)
    parts.extend(f"[file: {f.filename}, {len(f.data)} bytes]" for f in message.files)
    buttons = buttons_of(message)
    if buttons:
        parts.append("buttons: " + "  ".join(f"[{b.get('label') or b['custom_id']}]" for b in buttons)
                     + "  (type: click LABEL)")
    return readable("\n".join(parts))


def reply_text(reply: Reply, bold: tuple[str, str] = PLAIN_BOLD) -> str:
    messages = reply.all_messages()
    texts = [text for text in (message_text(m, bold) for m in messages) if text.strip()]
    if not texts:
        return "(the bot did not answer with a message)"
    return "\n\n".join(texts)


def command_help(commands: list[dict[str, Any]]) -> str:
    """Every synced command with its description and options, as the help built-in prints it."""
    if not commands:
        return "The bot has synced no slash commands."
    lines = ["Slash commands (type them as /name option:value ...):"]

    def leaf(node: dict[str, Any], path: str) -> None:
        subs = _subcommands(node)
        if subs:
            for sub in subs:
                leaf(sub, f"{path} {sub['name']}")
            return
        lines.append(f"  /{path}: {node.get('description', '')}")
        for option in node.get("options") or []:
            need = "" if option.get("required") else ", optional"
            lines.append(f"      {option['name']} ({TYPE_NAMES.get(option['type'], '?')}{need}): "
                         f"{option.get('description', '')}")

    for command in sorted(commands, key=lambda c: c["name"]):
        leaf(command, command["name"])
    return "\n".join(lines)


BUILTINS_HELP = """Sandbox commands:
  help                  this list, and every slash command with its options
  as alice|bob|gm|carol who is typing (the gm has Manage Channels: a game master)
  channel NAME          switch channel ({channels})
  load SAMPLE           set up a sample game in its ruleset's channel (with real slash commands):
                        {samples}
  click LABEL           press a button: on the newest reply in this channel that you can see
                        and that has it (another player's private replies are not yours to see)
  save [FOLDER]         write the files of the last reply you can see in this channel (a /log or
                        /scenario export, a map, a chart)
                        into FOLDER (default: here); an option taking a file is typed file:PATH
  quit                  leave (Ctrl-D and Ctrl-C too)"""


# --- the session ---------------------------------------------------------------------------


@dataclass
class Session:
    fake: FakeDiscord
    out: TextIO
    echo: bool  # a script is being read: print each line before its reply
    person: str = DEFAULT_USER
    channel: str = DEFAULT_CHANNEL
    # the replies of this session, newest last, with who gave the command and where: a button on an
    # older message can be pressed, as in Discord, by whoever can see it
    recent: list[tuple[str, str, Reply]] = field(default_factory=list)

    @property
    def bold(self) -> tuple[str, str]:
        """Markdown's bold on this terminal: ANSI bold on a tty, the text alone in a file or a pipe."""
        isatty = getattr(self.out, "isatty", None)
        return ANSI_BOLD if isatty is not None and isatty() else PLAIN_BOLD

    @property
    def prompt(self) -> str:
        return f"{self.person}@#{self.channel}> "

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    @property
    def commands(self) -> list[dict[str, Any]]:
        return self.fake.commands_for(GUILD_ID)

    async def handle(self, line: str) -> bool:
        """Run one line; False when the session should end."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        if self.echo:
            self.say(f"{self.prompt}{line}")
        word, _, rest = line.partition(" ")
        builtin = {"help": self.help, "as": self.switch_person, "channel": self.switch_channel,
                   "load": self.load, "click": self.click, "save": self.save}.get(word.casefold())
        if word.casefold() in ("quit", "exit"):
            return False
        if builtin is not None and not line.startswith("/"):
            await builtin(rest.strip())
        elif line.startswith("/") or find_root(self.commands, word) is not None:
            await self.command(line)
        else:
            self.say(f"'{word}' is neither a sandbox command nor a slash command: type help")
        return True

    async def command(self, line: str, *, quiet: bool = False) -> Reply | None:
        try:
            parsed = parse_command_line(self.commands, line)
            reply = await self.fake.send_command(
                parsed.path, parsed.options, user_id=PEOPLE[self.person].id,
                channel_id=CHANNELS[self.channel].id, member_permissions=permissions_of(self.person))
        except (CommandLineError, AssertionError) as exc:
            # AssertionError: what Discord itself would refuse (a missing required option, a
            # value outside its bounds), as the emulator checks it against the synced schema
            self.say(f"error: {exc}")
            return None
        self.remember(reply)
        if quiet:
            self.say(f"   {headline(reply)}")
        else:
            self.say(reply_text(reply, self.bold))
            self.say("")
        return reply

    async def help(self, _rest: str) -> None:
        self.say(BUILTINS_HELP.format(channels=", ".join(CHANNELS), samples=", ".join(SCENARIOS)))
        self.say("")
        self.say(command_help(self.commands))

    async def switch_person(self, rest: str) -> None:
        name = rest.casefold().lstrip("@")
        if name not in PEOPLE:
            self.say(f"who? one of: {', '.join(PEOPLE)}")
            return
        self.person = name
        self.say(f"you are now {name}")

    async def switch_channel(self, rest: str) -> None:
        name = rest.casefold().lstrip("#")
        if name not in CHANNELS:
            self.say(f"channels: {', '.join(CHANNELS)}")
            return
        self.channel = name
        self.say(f"now in #{name}")

    async def load(self, rest: str) -> None:
        await run_scenario(self, rest.casefold())

    def remember(self, reply: Reply) -> None:
        self.recent.append((self.person, self.channel, reply))
        del self.recent[:-RECENT_REPLIES]

    def visible_replies(self) -> Iterator[list[StoredMessage]]:
        """Each reply of this channel as the person typing sees it, newest first (its messages newest
        first): everyone's public messages and their own private ones; a reply they cannot see at all
        is skipped."""
        for person, channel, reply in reversed(self.recent):
            seen = [m for m in reversed(reply.all_messages()) if not m.ephemeral or person == self.person]
            if channel == self.channel and seen:
                yield seen

    def visible(self) -> list[StoredMessage]:
        """The messages of this channel the person typing can see, newest first."""
        return [message for reply in self.visible_replies() for message in reply]

    async def click(self, rest: str) -> None:
        wanted = rest.casefold()
        for message in self.visible():
            for button in buttons_of(message):
                if wanted in (str(button.get("label", "")).casefold(), button["custom_id"].casefold()):
                    try:
                        reply = await self.fake.click(message, button["custom_id"], user_id=PEOPLE[self.person].id,
                                                      member_permissions=permissions_of(self.person))
                    except AssertionError as exc:
                        self.say(f"error: {exc}")
                        return
                    self.remember(reply)
                    self.say(reply_text(reply, self.bold))
                    self.say("")
                    return
        self.say(f"there is no '{rest}' button on the replies in #{self.channel} that you ({self.person}) can see")

    async def save(self, rest: str) -> None:
        last = next(self.visible_replies(), [])
        files = [f for m in reversed(last) for f in m.files]
        if not files:
            self.say("the last reply you can see here has no files")
            return
        folder = Path(rest or ".").expanduser()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for sent in files:
                target = folder / Path(sent.filename).name  # never a path the bot chose
                target.write_bytes(sent.data)
                self.say(f"saved {target} ({len(sent.data)} bytes)")
        except OSError as exc:
            self.say(f"error: cannot save into {folder}: {exc.strerror or exc}")


def headline(reply: Reply) -> str:
    """One line for a set-up step: the first embed's title, else the content."""
    for message in reply.all_messages():
        for embed in message.embeds:
            if embed.get("title"):
                return readable(embed_to_text({"title": embed["title"]}).strip("= "))
        if message.content:
            return message.content.splitlines()[0]
    return "(no answer)"


async def run_scenario(session: Session, name: str) -> bool:
    """Set up a sample game by typing its slash commands, then show /game status."""
    scenario = SCENARIOS.get(name)
    if scenario is None:
        session.say(f"sample scenarios: {', '.join(SCENARIOS)}")
        return False
    session.say(f"Setting up {scenario.title} in #{scenario.channel} ({scenario.blurb})")
    person, echo = session.person, session.echo
    session.person, session.channel, session.echo = "gm", scenario.channel, False
    ok = True
    try:
        for line in scenario.lines:
            session.say(f"  {line}")
            if line.startswith("as "):  # a player takes their own seat: their consent, not the game master's
                session.person = line[3:].strip()
                continue
            reply = await session.command(line, quiet=True)
            if reply is None or any(m.ephemeral for m in reply.all_messages()):
                ok = False  # a refused set-up step: show it and stop
                if reply is not None:
                    session.say(reply_text(reply, session.bold))
                break
        if ok:
            session.say("")
            await session.command("/game status")
    finally:
        session.person, session.echo = person, echo
    session.say(scenario.next_steps)
    session.say("")
    return ok


# --- reading lines without blocking the bot ----------------------------------------------------


def read_line(prompt: str, interactive: bool) -> asyncio.Future[str | None]:
    """One line from stdin, read in a daemon thread so the bot keeps running meanwhile (and
    a blocked read never holds up the exit); None at end of input."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str | None] = loop.create_future()

    def reader() -> None:
        try:
            line: str | None = input(prompt) if interactive else sys.stdin.readline()
            if not interactive and line == "":
                line = None
        except (EOFError, OSError, ValueError):  # ValueError: stdin was closed
            line = None
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(line))

    threading.Thread(target=reader, name="sandbox-stdin", daemon=True).start()
    return future


# --- start-up ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot sandbox",
        description="Play with the real Referee bot in the terminal, against a local fake Discord "
                    "on 127.0.0.1 (no token, no network). Type help at the prompt.")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS),
                        help="start with a sample game of this ruleset set up in its own channel")
    parser.add_argument("--seed", type=int, default=None,
                        help="roll seeded dice (reproducible demos; default: the system's secure "
                             "random source, or REFEREE_SANDBOX_SEED)")
    parser.add_argument("--database", type=database_path_or_url, default=None,
                        help="keep the games in this SQLite file, or on the PostgreSQL server of this "
                             "postgresql:// URL (its driver: `python3 dev.py run --postgres URL` installs it) "
                             "(default: REFEREE_SANDBOX_DATABASE, else a temporary file deleted on exit)")
    return parser


def unusable_database(database: Path | str | None) -> str | None:
    """Why the sandbox cannot use ``database`` as given (one line), or None. A PostgreSQL URL needs
    the driver (the postgres extra): without it the sandbox refuses the URL, never runs on SQLite
    instead."""
    if database is None or not is_postgres(database) or postgres_store.asyncpg is not None:
        return None
    return (f"the sandbox's database {redacted(str(database))} is a PostgreSQL server, but its driver (asyncpg, "
            "the postgres extra) is not installed: `python3 dev.py run --postgres URL` installs it")


def banner(fake: FakeDiscord, database: Path | str, temporary: bool, seed: int | None, loaded: list[str]) -> str:
    where = f"{database} (temporary: deleted on exit)" if temporary else redacted(str(database))
    dice = (f"seeded with {seed}: the same commands roll the same dice (for demos and bug reports, "
            "not real games)" if seed is not None else "committed dice from a secret seed (docs/dice.md; "
            "or give your own with dice:)")
    cogs = ", ".join(name.removeprefix("cogs.") for name in loaded) or "none"
    return (f"Referee sandbox: the real bot against a local fake Discord at {fake.base_url}\n"
            f"  database: {where}\n"
            f"  dice:     {dice}\n"
            f"  cogs:     {cogs}\n"
            f"You are {DEFAULT_USER} in #{DEFAULT_CHANNEL}. Type help for the commands, quit to leave.")


class SandboxBot(RefereeBot):
    """The real RefereeBot; given a seed, its referee rolls one seeded sequence."""

    def __init__(self, settings: Settings, seed: int | None):
        super().__init__(settings)
        self.seed = seed

    async def load_cogs(self) -> None:
        if self.seed is not None:
            # one generator for the whole session's dice seeds, so a replayed script rolls the same
            # committed dice (docs/dice.md); set before any cog is loaded, so every command uses it
            rng = random.Random(self.seed)
            self.referee = Referee(self.store, seeds=lambda: rng.randbytes(SEED_BYTES))
        await super().load_cogs()


async def serve(args: argparse.Namespace, settings: Settings, out: TextIO) -> int:
    interactive = sys.stdin.isatty()
    seed = args.seed if args.seed is not None else settings.sandbox_seed
    with contextlib.ExitStack() as stack:
        database = args.database or settings.sandbox_database
        temporary = database is None
        if database is None:
            database = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="referee-sandbox-"))) \
                / "sandbox.sqlite3"
        bot = SandboxBot(Settings(token=None, database=database, dev_guild=None,
                                  log_level=settings.log_level), seed)
        # on a kept database, ids as Discord makes them (from the time): a new session's interaction
        # ids are never those of an earlier one, which the log would take for a duplicate delivery
        first_id = None if temporary else time_snowflake()
        async with FakeDiscord(guilds=[sandbox_guild()], first_id=first_id) as fake, running(bot, fake=fake):
            session = Session(fake, out, echo=not interactive)
            session.say(banner(fake, database, temporary, seed, bot.loaded_cogs))
            session.say("")
            if args.scenario:
                await run_scenario(session, args.scenario)
            while True:
                line = await read_line(session.prompt if interactive else "", interactive)
                if line is None or not await session.handle(line):
                    break
            if interactive:
                session.say("")
            session.say("bye")
    return EXIT_OK


def main(argv: list[str] | None = None, *, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if (unusable := unusable_database(args.database or settings.sandbox_database)) is not None:
        print(f"referee: {unusable}", file=sys.stderr)
        return EXIT_USAGE
    # the transcript is the replies; the bot's own log goes to stderr, warnings and worse only
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord.client").setLevel(logging.ERROR)  # "PyNaCl is not installed": no voice here
    try:
        return asyncio.run(serve(args, settings, out))
    except KeyboardInterrupt:
        print("\nbye", file=out, flush=True)
        return EXIT_OK
    except TablesUnreadable as exc:  # a rules table broken by an edit (REFEREE_DATA, data/)
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except DatabaseUnusable as exc:  # one line already: which file, what is wrong, what to do
        print(f"referee: the sandbox cannot start: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except (sqlite3.Error, StoreError, OSError) as exc:
        # the database given cannot be opened (not SQLite, written by a newer bot, unwritable, a
        # PostgreSQL server that does not answer)
        where = args.database or settings.sandbox_database
        print(f"referee: the sandbox cannot open its database {redacted(str(where or ''))}: {exc}"
              .replace("  ", " "), file=sys.stderr)
        return EXIT_FAILED
