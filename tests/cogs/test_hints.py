"""Every hint the bot gives is accepted (issue 30, item 4).

Each of the three sandbox samples (``--scenario asl``, ``nhis``, ``cd``) is set up as the sandbox sets
it up (its slash commands typed through the real bot on the loopback Discord). Then:

* its "Try:" line is typed as printed, each command in turn, and none is refused (but those it marks
  "(refused: ...)", which must be refused);
* every step of the first turn is walked (the side to act ends it with /done; the game master moves
  a step the rules will not end by itself on with /game phase), and at each step every example
  ``/help`` gives each player, and every example ``/unit info`` gives for each unit, is typed as
  printed (read against the synced schema as the sandbox reads a line) and tried against the game in
  that state, on a copy, by the side the hint was for: none is refused.
"""

from __future__ import annotations

import io
import re

import pytest

from bot.config import Settings
from bot.core.api import parse_order
from bot.core.acting import acting_sides
from bot.core.commands import build_order
from bot.core.errors import RulesError
from bot.core.help import refusal
from bot.core.rulesets import get_ruleset
from bot.core.sequence import refereed, side_to_act
from bot.emulator import FakeDiscord, running
from bot.sandbox import (CHANNELS, PEOPLE, SandboxBot, Session, parse_command_line, run_scenario,
                         sandbox_guild)
from bot.sandbox_scenarios import SCENARIOS

SEATS = {0: "alice", 1: "bob"}  # the samples seat alice on the first side, bob on the second
EXAMPLE = re.compile(r"`(/[^`]+)`")


def try_items(name: str) -> list[tuple[str, bool]]:
    """The "Try:" line's items, each with whether the line says it is refused."""
    hint = SCENARIOS[name].next_steps.removeprefix("Try: ")
    items = []
    for part in hint.split(" | "):
        refused = "(refused" in part
        command = re.sub(r" \(.*$", "", part).strip()
        command = re.sub(r" \.\.\.$", "", command).strip()
        if command.startswith(("/", "as ")) and "..." not in command:
            items.append((command, refused))
    return items


class Sample:
    """A sample game set up by the sandbox's own lines, in its own bot on the loopback Discord."""

    def __init__(self, session: Session, bot: SandboxBot, name: str):
        self.session, self.bot, self.name = session, bot, name
        self.channel = CHANNELS[SCENARIOS[name].channel].id

    async def game(self):
        return await self.bot.referee.game(self.channel)

    async def type(self, line: str, person: str):
        """``line`` typed by ``person``: the reply, or None when the sandbox could not read it."""
        self.session.person = person
        return await self.session.command(line, quiet=True)

    @staticmethod
    def refused(reply) -> str | None:
        if reply is None:
            return "not read"
        for message in reply.all_messages():
            if message.ephemeral:
                for embed in message.embeds:
                    if embed.get("title", "").startswith("Order refused") or "refused" in embed.get("title", ""):
                        return embed.get("description", embed.get("title"))
        return None


async def sample(tmp_path, name: str):
    # every hint of every step asked in a few seconds: no quota (bot/limits.py) stands in the way
    off = {f"quota_{kind}": "off" for kind in ("user", "channel", "server", "heavy_user", "heavy_channel",
                                                "heavy_server")}
    bot = SandboxBot(Settings(token=None, database=tmp_path / f"{name}.sqlite3", dev_guild=None, **off), seed=30)
    fake_cm = FakeDiscord(guilds=[sandbox_guild()])
    fake = await fake_cm.__aenter__()
    run_cm = running(bot, fake=fake)
    await run_cm.__aenter__()
    session = Session(fake, io.StringIO(), echo=False)
    assert await run_scenario(session, name), session.out.getvalue()
    session.channel = SCENARIOS[name].channel
    return Sample(session, bot, name), (run_cm, fake_cm)


async def close(cms) -> None:
    for cm in cms:
        await cm.__aexit__(None, None, None)


def tried(game, text: str, side: int, commands) -> str | None:
    """Why the typed example ``text`` would be refused when given by ``side`` in ``game`` now; None when
    it is accepted (it reaches its first die, or completes). Read as the sandbox reads a typed line."""
    try:
        parsed = parse_command_line(commands, text)
    except Exception as exc:  # noqa: BLE001 - a line the sandbox cannot read is a hint refused
        return f"not read: {exc}"
    values = {k: str(v) for k, v in parsed.options.items()}
    try:
        order = build_order(game, parsed.path, values)
        model = type(parse_order(game.ruleset, order))
        sides = acting_sides(game, model, order)
        if sides and side not in sides:
            return f"acts for {sides}, not side {side}"
    except RulesError as exc:
        return exc.message
    refused = refusal(game, order)
    return refused.message if refused is not None else None


async def hints_now(s: Sample) -> list[tuple[str, int, str]]:
    """Every example /help and /unit info give now: (where it was given, the side it is for, the text)."""
    game = await s.game()
    found: list[tuple[str, int, str]] = []
    for side, person in SEATS.items():
        reply = await s.type("/help", person)
        titles = [f["name"] for e in reply.all_messages()[0].embeds for f in e.get("fields", ())]
        assert any(t.endswith(" may now") for t in titles), reply.all_messages()[0].embeds
        for embed in reply.all_messages()[0].embeds:
            for field in embed.get("fields", ()):
                for owner in range(len(game.sides)):
                    if field["name"] == f"{game.side_name(owner)} may now":
                        found += [("/help", owner, text) for text in EXAMPLE.findall(field["value"])]
    for unit in game.units.values():
        if unit.eliminated:
            continue
        reply = await s.type(f"/unit info unit:{unit.id}", SEATS.get(unit.side, "gm"))
        assert reply.all_messages()[0].embeds[0]["title"].endswith(unit.id), reply.all_messages()[0].embeds
        for embed in reply.all_messages()[0].embeds:
            for field in embed.get("fields", ()):
                if field["name"].startswith("Now"):
                    found += [(f"/unit info {unit.id}", unit.side, text) for text in EXAMPLE.findall(field["value"])]
    return found


async def walk_first_turn(s: Sample):
    """Each step of the first turn in turn (the game as it is at each), ended by the side to act."""
    game = await s.game()
    ruleset = get_ruleset(game.ruleset)
    seen = 0
    while game.turn == 1 and seen < 60:
        yield game
        seen += 1
        before = (game.phase, side_to_act(game), game.active_side)
        done = await s.type("/done", SEATS[side_to_act(game)])
        after = await s.game()
        if Sample.refused(done) or (after.phase, side_to_act(after), after.active_side) == before \
                and after.turn == game.turn:
            phases = ruleset.phases
            nxt = phases[(phases.index(game.phase) + 1) % len(phases)]
            await s.type(f"/game phase to:{nxt}", "gm")
            after = await s.game()
        game = after


@pytest.mark.parametrize("name", ["asl", "nhis", "cd"])
async def test_every_hint_of_a_sample_is_accepted_at_every_step_of_its_first_turn(tmp_path, name):
    s, cms = await sample(tmp_path, name)
    try:
        refused: list[str] = []
        steps = 0
        async for game in walk_first_turn(s):
            steps += 1
            commands = s.session.commands
            ruleset = get_ruleset(game.ruleset)
            for where, side, text in await hints_now(s):
                command = ruleset.command(parse_command_line(commands, text).path)
                order = command.order if command is not None else None
                if order is not None and order.hinted is not None and game.phase not in order.hinted:
                    # e.g. /morale in the Rally Phase
                    refused.append(f"{game.phase}: {where} suggests {text!r}, an order offered in "
                                   f"{', '.join(order.hinted)} only")
                why = tried(game, text, side, commands)
                if why is not None:
                    refused.append(f"{game.phase} ({game.side_name(side_to_act(game))} to act): {where} "
                                   f"suggests {text!r} for {game.side_name(side)}: refused, {why}")
        assert steps >= 2
        assert refused == []
    finally:
        await close(cms)


@pytest.mark.parametrize("name", ["asl", "nhis", "cd"])
async def test_every_command_of_a_samples_try_line_is_accepted_as_printed(tmp_path, name):
    s, cms = await sample(tmp_path, name)
    try:
        person = "gm"
        wrong = []
        for command, expect_refused in try_items(name):
            if command.startswith("as "):
                person = command[3:].strip()
                continue
            reply = await s.type(command, person)
            why = Sample.refused(reply) or ("no answer" if reply is None else None)
            if bool(why) != expect_refused:
                wrong.append(f"{person}: {command}: {why or 'accepted, though the hint says refused'}")
        assert wrong == []
    finally:
        await close(cms)
