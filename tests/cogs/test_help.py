"""/help and /unit info (issue 15): what may be done now, with examples from the game's own units,
in the same words as the refusals; the list of commands comes from the registered command tree."""

from __future__ import annotations

from tests.cogs.conftest import ALICE, BOB, CAROL, refusal
from tests.cogs.helpers import asl_game, cd_game


def text(reply) -> str:
    """Every embed's description and fields, unescaped, as one text."""
    parts = []
    for message in [reply] + list(reply.followups):
        for embed in message.embeds:
            parts.append(embed.get("description", ""))
            parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields", [])]
    return "\n\n".join(parts).replace("\\_", "_")


def synced_paths(table) -> list[str]:
    """Every command the bot registered with Discord, subcommands expanded."""
    paths = []
    for command in table.fake.commands_for(table.fake.guild().id):
        subs = [o for o in command.get("options") or [] if o["type"] == 1]
        paths += [f"{command['name']} {s['name']}" for s in subs] or [command["name"]]
    return paths


def shown_commands(shown: str) -> set[str]:
    return {word.strip(",:") for line in shown.splitlines() for word in line.split() if word.startswith("/")}


async def test_help_without_a_game_is_short_and_help_all_lists_every_registered_command(table):
    reply = await table.send("help")
    assert reply.ephemeral and reply.embeds[0]["title"] == "Help" and len(reply.embeds) == 1 and not reply.followups
    shown = text(reply)
    assert shown.startswith("No game in this channel: start one with /game new.")
    paths = synced_paths(table)
    assert len(paths) > 30
    assert "**Start a game**: /game new, /scenario load" in shown
    assert f"{len(paths)} commands in all: /help command:all lists them" in shown and len(shown) < 500
    everything = await table.send("help", {"command": "all"})
    assert everything.ephemeral and everything.embeds[0]["title"] == "Help: every command"
    listed = text(everything)
    for path in paths:  # every command the bot registered, without a list kept by hand
        assert f"/{path}: " in listed, path


async def test_help_in_a_game_shows_on_one_phone_screen_the_commands_of_now_grouped(table):
    await asl_game(table)
    reply = await table.send("help")
    assert len(reply.embeds) == 1 and not reply.followups  # one embed, not the 4 pages of every command
    shown = text(reply)
    assert len(shown) < 1500, len(shown)
    commands = shown.split("Commands\n")[1]
    assert "**Orders of Advanced Squad Leader**: /fire, " in commands and "/done" in commands
    assert "/artillery fire" not in commands  # a Command Decision order, not this game's
    assert "**Hidden orders**: /seal, /reveal, /roll secret" in commands
    paths = synced_paths(table)
    assert shown_commands(commands) - {"/help"} <= {f"/{p.split()[0]}" for p in paths}  # only registered ones
    assert len(commands.splitlines()) <= 7


async def test_help_says_where_the_game_stands_what_each_side_may_do_and_how_the_step_ends(table):
    await asl_game(table)
    shown = text(await table.send("help", user=CAROL))  # anyone may read it
    assert shown.startswith("Turn 1, Prep Fire Phase: Germans to act.\n"
                            "Germans end the step with /done (the other side may ask them to with /done; "
                            "the game master may jump to a phase with /game phase).")
    germans = shown.split("Germans may now\n")[1].split("\n\n")[0]
    assert "`/fire target:B5 firers:A1`" in germans and "`/morale unit:A1`" in germans
    assert "/rally" not in germans and "/move" not in germans  # not in the Prep Fire Phase
    russians = shown.split("Russians may now\n")[1]
    assert "/fire" not in russians.split("Commands")[0]


async def test_help_for_one_command_gives_an_example_and_why_not_now(table):
    await asl_game(table)
    shown = text(await table.send("help", {"command": "fire"}))
    assert "target (required): The target hex\nfirers: Firing units" in shown and "firer:" not in shown
    assert "Germans may, e.g. `/fire target:B5 firers:A1`" in shown
    assert ("Russians may not (it is the Prep Fire Phase, Germans to act: Russians may not fire now (A3); "
            "Russians may fire in the Movement Phase and Defensive Fire Phase of this turn); "
            "e.g. `/fire target:A4 firers:L1`") in shown
    rally = text(await table.send("help", {"command": "/rally"}))
    assert ("may not (units rally only in the Rally Phase; this is the Prep Fire Phase (A10.6): the next Rally "
            "Phase comes as each side ends its part with /done") in rally


async def test_help_for_a_command_of_the_bot_and_an_unknown_one(table):
    await cd_game(table)
    shown = text(await table.send("help", {"command": "game options"}))
    assert "set: Game master: name=value pairs" in shown and "Now" not in shown
    reply = await table.send("help", {"command": "fier"})
    assert refusal(reply) == "there is no command /fier: did you mean fire? /help command:all lists every command"


async def test_help_command_autocomplete_offers_the_registered_commands(table):
    offered = await table.autocomplete("help", {"command": "game o"}, focused="command")
    assert [c["value"] for c in offered] == ["game options"]
    offered = await table.autocomplete("help", {"command": "al"}, focused="command")
    assert offered[0] == {"name": "all: every command", "value": "all"}


async def test_unit_info_shows_numbers_markers_and_what_it_may_do_now(table):
    await asl_game(table)
    reply = await table.send("unit info", {"unit": "A1"}, user=BOB)
    assert reply.ephemeral and reply.embeds[0]["title"] == "4-6-7 A1"
    shown = text(reply)
    assert "Germans, A4" in shown and "Holds MG1" in shown and "Numbers: squad, FP 4, range 6, morale 7" in shown
    assert "yes: `/fire target:B5 firers:A1`" in shown
    assert "not /rally: units rally only in the Rally Phase; this is the Prep Fire Phase (A10.6)" in shown
    weapon = text(await table.send("unit info", {"unit": "MG1"}))
    assert "Held by 4-6-7 A1" in weapon
    assert ("not /transfer: it is the Prep Fire Phase, Germans to act: Germans may not transfer now (A3); "
            "Germans may transfer in the Rally Phase (ATTACKER's part), Movement Phase and Advance Phase "
            "of this turn") in weapon
    broken = text(await table.send("unit info", {"unit": "A3"}))
    assert "Markers: broken" in broken
    assert "not /fire: " in broken and "broken" in broken.split("not /fire: ")[1].split("\n")[0]
    reply = await table.send("unit info", {"unit": "ZZ9"})
    assert "ZZ9" in refusal(reply)


async def test_help_in_command_decision_finds_a_stand_and_a_band_that_may_fire(table):
    await cd_game(table)
    shown = text(await table.send("help"))
    americans = shown.split("Americans may now\n")[1].split("\n\n")[0]
    assert americans.startswith("`/fire target:G1 firers:") and " band:" in americans
    assert "Germans may now\nnothing of the rules now" in shown  # Side A's part of the General Fire Phase
    orders = shown.split("**Orders of Command Decision: Test of Battle**: ")[1].split("\n")[0]
    assert orders.startswith("/fire, ") and "/artillery fire" in orders and orders.endswith("/done")


async def test_unit_info_offers_a_target_the_game_has_when_the_first_it_tries_is_refused(table):
    """Issue 30: /unit info said a unit may not fire, giving the first enemy stack it tried (out of
    range) as its example, while another enemy stack was a legal target: the examples try the enemy's
    other Locations before giving a refusal, and /help no longer offers /morale in the Rally Phase."""
    from tests.cogs.helpers import gm, unit

    await asl_game(table, extra=(unit("E0", 1, "Z9", "rus-447"),))  # E0, the Russians' first, far out of range
    shown = text(await table.send("unit info", {"unit": "A2"}, user=ALICE))
    assert "yes: `/fire target:B5 firers:A2`" in shown and "Z9" not in shown
    await gm(table, {"action": "phase", "to": "RPh"}, "/game phase")
    helped = text(await table.send("help", user=ALICE))
    assert "/morale" not in helped.split("Commands")[0]  # no check to take in the Rally Phase
