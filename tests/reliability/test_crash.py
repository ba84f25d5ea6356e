"""Crash safety (Issue 6, item 1): the bot as a real process, killed with SIGKILL at random
moments while commands stream in, restarted each time.

Three players send commands at once (set-up, morale checks, fire, rally, moves, phases, with
the bot's dice and with manual dice); a timer kills the process at a random moment of each
life. Discord never re-sends an interaction to a restarted bot, so after each restart every
command the killed life left unanswered is one of two kinds: saved before the kill, and then the
new life posts its result to the channel by itself, naming its log entry (the player sees it and
has no reason to give the order again); or not saved, and the player gives it again, a new
interaction that rolls once. In every other life Discord answers the bot's next replies with 429
just before the kill, so commands saved but not yet answered are killed too. At the end, read
from the file:
- PRAGMA integrity_check is ok;
- every command that got a result is in the log, at the seq its embed shows, and every refused
  one is not; every command saved but unanswered was posted to the channel after the restart;
  nothing is in the log that no message shows;
- no command is half-applied: each game's saved state is the replay of its log, every result
  replays to what was recorded, and the hash chain verifies;
- the bot logged no ERROR over all its lives.

5 kills by default (2 on PostgreSQL, the same test on the session's server); REFEREE_FULL_RELIABILITY=1
runs 25 on each (docs/reliability.md has the figures).
REFEREE_RELIABILITY_SEED replays one schedule of kills and commands. The default run takes a fixed
seed (the commands sent and the kills' delays the same every run); the full run a fresh one, printed
for replay.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import secrets
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.emulator import FakeDiscord, default_guild
from bot.emulator.records import InteractionRecord
from bot.store import is_postgres, open_store
from tests.reliability.audit import FULL, audit_database, size
from tests.reliability.process import BotProcess

GUILD = default_guild()
ALICE, BOB, GM = (member.id for member in GUILD.members)
CHANNEL = GUILD.channels[1].id
KILLS = size(5, 25)
KILLS_POSTGRES = size(2, 25)  # the default run: a plain kill, and one in a 429 window
FINAL_COMMANDS = 9  # sent in the last life, which ends with a clean SIGTERM
WORKERS = 3  # commands in flight at once
ANSWER_TIMEOUT = 10.0
READ_ONLY = {"game status"}
SETUP_COMMANDS = {"game new", "game join", "unit add"}

SETUP: list[tuple[str, dict[str, Any], int]] = [
    ("game new", {"ruleset": "asl", "sides": "Germans, Russians", "scenario": "Crash test",
                  "options": "open_seating=yes"}, GM),  # the players sit down themselves
    ("game join", {"side": "Germans"}, ALICE),
    ("game join", {"side": "Russians"}, BOB),
    *[("unit add", {"id": f"A{i}", "side": "Germans", "type": "ger-467", "location": "B5"}, GM) for i in range(1, 5)],
    *[("unit add", {"id": f"R{i}", "side": "Russians", "type": "rus-447", "location": "C5"}, GM) for i in range(1, 3)],
]


def random_command(rng: random.Random) -> tuple[str, dict[str, Any], int]:
    unit, owner = rng.choice([("A1", ALICE), ("A2", ALICE), ("A3", ALICE), ("A4", ALICE), ("R1", BOB), ("R2", BOB)])
    dice = {"dice": f"{rng.randint(1, 6)} {rng.randint(1, 6)}"} if rng.random() < 0.2 else {}
    return rng.choice([
        ("morale", {"unit": unit, **dice}, owner),
        ("morale", {"unit": unit, "check": "PTC"}, owner),
        ("rally", {"unit": unit, **dice}, owner),
        ("fire", {"firers": "A1 A2", "target": "C5", "range": 2}, ALICE),
        ("fire", {"firers": "R1", "target": "B5", "range": 2}, BOB),
        ("unit move", {"unit": unit, "to": rng.choice(["B5", "B6", "C5"])}, owner),
        ("game phase", {}, rng.choice([ALICE, BOB])),
        ("game status", {}, GM),
        # the game master heals a unit, so the stream keeps units to roll for
        ("unit edit", {"unit": unit, "stats": "broken=no eliminated=no pinned=no"}, GM),
    ])


def command_name(record: InteractionRecord) -> str:
    data = record.payload["data"]
    names, options = [data["name"]], data.get("options") or []
    while options and options[0].get("type") in (1, 2):
        names.append(options[0]["name"])
        options = options[0].get("options") or []
    return " ".join(names)


def options_of(record: InteractionRecord) -> dict[str, Any]:
    """The options a command was given (its subcommand's), as a player would type them again."""
    options = record.payload["data"].get("options") or []
    while options and options[0].get("type") in (1, 2):
        options = options[0].get("options") or []
    return {option["name"]: option["value"] for option in options}


def user_of(record: InteractionRecord) -> int:
    return int(record.payload["member"]["user"]["id"])


def posted_seqs(fake: FakeDiscord) -> list[int]:
    """The log entries the bot posted as plain channel messages (not replies): results shown
    after a restart, or after Discord refused their reply."""
    seqs = []
    for message in fake.channel_messages(CHANNEL):
        if message.payload["type"] == 0 and message.embeds:
            found = re.search(r"log #(\d+)", message.embeds[0].get("footer", {}).get("text", ""))
            if found:
                seqs.append(int(found.group(1)))
    return seqs


@dataclass
class Run:
    fake: FakeDiscord
    bot: BotProcess
    rng: random.Random
    sent: int = 0
    retried: int = 0  # unanswered and not saved: the player gave the order again (a new interaction)
    saved_unanswered: int = 0  # saved before the kill, answer never sent: posted by the next life
    settled: set[int] = field(default_factory=set)  # interactions already looked at after a restart
    setup_done: asyncio.Event = field(default_factory=asyncio.Event)
    setup_step: int = 0

    async def send(self, name: str, options: dict[str, Any], user: int) -> bool:
        """Send one command; False when the bot died before answering it."""
        self.sent += 1
        sending = asyncio.create_task(self.fake.send_command(name, options, user_id=user, channel_id=CHANNEL,
                                                             settle=False, timeout=ANSWER_TIMEOUT))
        death = asyncio.create_task(self.bot.wait_dead())
        done, _ = await asyncio.wait({sending, death}, return_when=asyncio.FIRST_COMPLETED)
        death.cancel()
        if sending not in done:
            sending.cancel()
            await asyncio.gather(sending, return_exceptions=True)
            return False
        return sending.exception() is None

    async def worker(self, index: int, limit: int | None = None) -> None:
        """Send commands until the bot dies (or ``limit`` commands after the set-up)."""
        count = 0
        while self.bot.alive and (limit is None or count < limit):
            if not self.setup_done.is_set():
                if index != 0:  # set-up goes one command at a time, in order
                    waits = {asyncio.create_task(self.setup_done.wait()), asyncio.create_task(self.bot.wait_dead())}
                    _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                    for task in pending:
                        task.cancel()
                    continue
                name, options, user = SETUP[self.setup_step]
                if await self.send(name, options, user):
                    self.setup_step += 1
                    if self.setup_step == len(SETUP):
                        self.setup_done.set()
                continue
            if not await self.send(*random_command(self.rng)):
                return
            count += 1

    async def after_restart(self) -> None:
        """What the players see of the commands the killed life left unanswered (Discord sends
        none of them again): a saved one is posted to the channel by the new life, naming its
        log entry; an unsaved one the player gives again, as a new interaction."""
        for record in list(self.fake.interactions.values()):
            if record.payload["type"] != 2 or record.callbacks or record.id in self.settled:
                continue
            self.settled.add(record.id)
            saved = await self.logged_seq(record.id)
            if saved is not None:
                self.saved_unanswered += 1
                deadline = asyncio.get_running_loop().time() + ANSWER_TIMEOUT
                while saved not in posted_seqs(self.fake):
                    assert asyncio.get_running_loop().time() < deadline, \
                        f"log #{saved} was saved before the kill but the new life never showed it"
                    await asyncio.sleep(0.01)
            elif command_name(record) not in SETUP_COMMANDS:  # the set-up worker gives those again itself
                self.retried += 1
                assert await self.send(command_name(record), options_of(record), user_of(record)), \
                    "a retried command got no answer"

    async def logged_seq(self, interaction_id: int) -> int | None:
        if is_postgres(self.bot.database):
            store = await open_store(self.bot.database)
            try:
                entry = await store.entry_by_interaction(interaction_id)
            finally:
                await store.close()
            return entry.seq if entry else None
        with sqlite3.connect(f"file:{self.bot.database}?mode=ro", uri=True) as db:
            row = db.execute("SELECT seq FROM log_entries WHERE interaction_id = ?", (interaction_id,)).fetchone()
        return row[0] if row else None


DEFAULT_SEED = 20261128  # the default (CI) run's: the same commands and kill delays every run


def crash_seed() -> int:
    """REFEREE_RELIABILITY_SEED when given (a replay); else a fresh seed in the full run, the fixed one
    in the default run (a failure there is one to replay, not a draw of luck)."""
    if os.environ.get("REFEREE_RELIABILITY_SEED"):
        return int(os.environ["REFEREE_RELIABILITY_SEED"])
    return secrets.randbits(32) if FULL else DEFAULT_SEED


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_sigkill_at_random_moments_loses_nothing_and_half_applies_nothing(tmp_path, kind, request):
    seed = crash_seed()
    print(f"crash test on {kind}: seed {seed} (REFEREE_RELIABILITY_SEED={seed} replays it)")
    rng = random.Random(seed)  # the test's own generator: kill times and the commands sent
    # PostgreSQL: the same stream and kills on the session's server (a schema of this test's own);
    # fewer kills in the default run, as many with REFEREE_FULL_RELIABILITY=1
    database = tmp_path / "referee.sqlite3" if kind == "sqlite" else request.getfixturevalue("pg_dsn")
    kills = KILLS if kind == "sqlite" else KILLS_POSTGRES
    async with FakeDiscord(guilds=[GUILD]) as fake:
        # no roll limit nor quotas here: the stream sends far more than a player could in a minute
        bot = BotProcess(fake, database, tmp_path, extra_env={
            "REFEREE_ROLL_LIMIT": "10000", "REFEREE_QUOTA_USER": "off", "REFEREE_QUOTA_CHANNEL": "off",
            "REFEREE_QUOTA_SERVER": "off"})
        run = Run(fake, bot, rng)
        try:
            for life in range(kills + 1):
                await bot.start()
                await run.after_restart()
                if life < kills:
                    workers = [asyncio.create_task(run.worker(i)) for i in range(WORKERS)]
                    await asyncio.sleep(rng.uniform(0.05, 0.2))  # a random moment of this life
                    if life % 2:
                        # Discord answers the next replies with 429: the bot has saved those commands
                        # and sleeps before answering them; the kill lands in that window
                        fake.rate_limit_next("/callback", retry_after=1.0, count=WORKERS)
                        await asyncio.sleep(0.1)
                    await bot.kill()
                    for fault in fake.faults:
                        fault.count = 0  # a rate limit not yet served does not outlive the life
                else:  # the last life: a final burst, then a clean stop
                    workers = [asyncio.create_task(run.worker(i, FINAL_COMMANDS // WORKERS))
                               for i in range(WORKERS)]
                await asyncio.gather(*workers)
            assert await bot.stop() == 0
        finally:
            await bot.kill()

    context = f"(seed {seed}; {kills} kills on {kind})"
    assert run.setup_done.is_set(), f"the set-up never finished {context}"
    audit = await audit_database(database)  # integrity, chain, replay = state
    answered = refused = shown_after = unsaved = 0
    posted = posted_seqs(fake)
    for record in fake.interactions.values():
        if record.payload["type"] != 2:
            continue
        logged = audit.by_interaction.get(record.id)
        if not record.callbacks:  # the bot was killed before it answered (or answered too late)
            if logged is None:
                unsaved += 1  # nothing saved: the player saw "did not respond" and gave it again
            else:
                shown_after += 1
                assert logged[1] in posted, f"/{command_name(record)} (log #{logged[1]}) was never shown {context}"
            continue
        reply = record.original
        if reply.ephemeral:
            refused += 1
            assert logged is None, f"refused /{command_name(record)} is in the log {context}"
        elif command_name(record) not in READ_ONLY:
            answered += 1
            assert logged is not None, f"/{command_name(record)} was answered but is not in the log {context}"
            footer = reply.embeds[0].get("footer", {}).get("text", "")
            seq = re.search(r"log #(\d+)", footer)
            assert seq and int(seq.group(1)) == logged[1], f"answer says '{footer}', log has #{logged[1]} {context}"
    # nothing in the log that nobody was shown: each entry is a reply or a post after a restart
    assert len(audit.by_interaction) == answered + shown_after, context
    logged_seqs = {seq for _, seq in audit.by_interaction.values()}
    assert set(posted) <= logged_seqs, f"a post names an entry the log lacks {context}"
    posted_twice = len(posted) - shown_after
    assert bot.error_lines() == [], context
    assert answered > kills
    print(f"crash test {context}: {bot.lives} lives, {run.sent} commands sent; of those the kills left "
          f"unanswered, {run.saved_unanswered} were saved and posted by the next life, {unsaved} were not saved "
          f"({run.retried} given again); {posted_twice} results shown in a reply were posted again after the "
          f"restart (seen, but not yet noted as seen at the kill); {answered} results all in the log, "
          f"{refused} refusals, {audit.entries} entries verified")
