"""`python -m bot sandbox`: the real bot on the loopback Discord, driven from a terminal.

The scripted sessions run the sandbox as a real subprocess with a script on stdin (the way a
person pipes a file into it), per ruleset: the sample scenario is set up through the real
slash commands, then the players fire, check morale, rally (and, in ASL, transfer a support
weapon) with manual dice, and the printed trail is checked line by line.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot import cli
from bot.sandbox import CommandLineError, parse_command_line, readable, split_options
from bot.sandbox_scenarios import SCENARIOS
from bot.store.base import unpack_state

ROOT = Path(__file__).resolve().parents[1]


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment without a token or any REFEREE_ setting (HOME in tmp_path)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISCORD_TOKEN", "REFEREE_TOKEN") and not k.startswith("REFEREE_")}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), **extra)
    return env


def run(tmp_path: Path, *args: str, script: str = "", env: dict[str, str] | None = None):
    return subprocess.run([sys.executable, "-m", "bot", *args], input=script, capture_output=True, check=False,
                          text=True, cwd=ROOT, env=env or clean_env(tmp_path), timeout=60)


def sandbox(tmp_path: Path, *args: str, script: str):
    result = run(tmp_path, "sandbox", *args, script=script)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def reply_to(out: str, line: str, *, after: str | None = None) -> str:
    """What the sandbox printed after echoing ``line`` (up to the next prompt); with ``after``, the
    first ``line`` typed after the command ``after`` (e.g. the "click details" that follows it)."""
    begin = out.index(f"> {after}\n") if after is not None else 0
    start = out.index(f"> {line}\n", begin) + len(f"> {line}\n")
    following = [i for i in (out.find("@#", start),) if i != -1]
    end = out.rfind("\n", start, following[0]) if following else len(out)
    return out[start:end]


# --- scripted sessions, one per ruleset ---------------------------------------------------------

ASL_PLAY = """\
as alice
/transfer weapon:MG1 to:A2
/done
as bob
/done
as alice
/fire firers:A1 L1 target:C4 range:1 dice:2 3 5 4 3 3
click details
as bob
/fire firers:R2 target:B5 range:1 dice:2 2
/morale unit:R2 check:NMC dice:6 2
click details
as gm
/game phase to:RPh
as bob
/rally unit:R1 dice:1 2
click details
/undo
as alice
click accept
/log verify
/log export format:JSON
save {folder}
"""


def details(out: str, command: str) -> list[str]:
    """The whole trail of ``command``'s result: what "click details" after it printed."""
    return reply_to(out, "click details", after=command).splitlines()


def test_asl_session_transfer_fire_morale_rally_undo_and_export(tmp_path):
    out = sandbox(tmp_path, "--scenario", "asl", script="click units\n" + ASL_PLAY.format(folder=tmp_path / "files"))
    assert "buttons: [Units]  [Map]  (type: click LABEL)" in out  # the scenario's /game status, in short
    assert "   LMG MG1 (Germans): held by A1" in reply_to(out, "click units")  # every unit, on its button
    assert reply_to(out, "/transfer weapon:MG1 to:A2").splitlines()[0] == \
        "== LMG MG1 passes from 4-6-7 A1 to 4-6-7 A2 =="
    command = "/fire firers:A1 L1 target:C4 range:1 dice:2 3 5 4 3 3"
    summary = reply_to(out, command).splitlines()
    assert summary[0] == "== L2 broken, R1 broken — 8 FP (IFT 8) vs C4: final DR 5 -> 2MC =="  # what happened, first
    assert summary[1:5] == ["🎲 IFT attack: rolled 2+3 = 5, final DR 5 with -1 leadership of 8-1 L1, +1 TEM: Woods",
                            "2MC 8-1 L2: rolled 5+4, final DR 11 vs morale 8 → fails: broken, DM",
                            "2MC 4-4-7 R1: rolled 3+3, final DR 8 vs morale 7 → fails: broken, DM",
                            "4-6-7 A1, 8-1 L1: marked Prep Fire"]
    assert "buttons: [Odds]  [Details]  (type: click LABEL)" in summary
    fire = details(out, command)
    assert fire[:2] == ["[only you can see this]", "== 8 FP (IFT 8) vs C4: final DR 5 -> 2MC =="]
    for line in ("   IFT attack: rolled 2+3 = 5 (white 2, colored 3), final DR 5",  # as the short result names it
                 "   manual dice (given by the players)",
                 "   4-6-7 A1: point blank fire  x2  (=8)  [A7.21]",
                 "   leadership of 8-1 L1  -1  (=-1)  [A7.53]",
                 "   TEM: Woods  +1  (=0)  [B.6]",
                 "   IFT 8 column, Final DR 5  2MC  [A7.3]",
                 "   Final DR 11 vs morale 8  fails  (=11)  [A7.3]",
                 "   Final DR 8 vs morale 7  fails  (=8)  [A7.3]",
                 "   4-4-7 R1: Good Order -> broken, DM"):
        assert line in fire, line
    # the Russians may not fire in the Germans' Prep Fire Phase: a refusal is a private reply
    # quoting the rule, and the dice given are not used
    refused = reply_to(out, "/fire firers:R2 target:B5 range:1 dice:2 2").splitlines()
    assert refused == ["[only you can see this]", "== Order refused ==",
                       "it is the Prep Fire Phase, Germans to act: Russians may not fire now (A3); Russians may fire "
                       "in the Movement Phase and Defensive Fire Phase of this turn"]
    morale = reply_to(out, "/morale unit:R2 check:NMC dice:6 2").splitlines()
    assert morale[0] == "== 4-4-7 R2: Normal Morale Check, Final DR 8 vs 7 -> fails =="
    assert "   Final DR 8 vs morale 7  fails  (=8)  [A10.1]" in details(out, "/morale unit:R2 check:NMC dice:6 2")
    assert reply_to(out, "/rally unit:R1 dice:1 2").splitlines()[0] == \
        "== 4-4-7 R1 rally (Self-Rally): Final DR 7 vs 7 -> rallies =="
    rally = details(out, "/rally unit:R1 dice:1 2")
    for line in ("   Woods: rally terrain  -1  [A10.61]", "   Desperation Morale  +4  [A10.62]",
                 "   Self-Rally  +1  [A10.63]", "   Final DR 7 vs broken-side morale 7  passes  (=7)  [A10.6]"):
        assert line in rally, line
    # bob proposes to undo his rally; alice accepts with the button on the proposal
    assert "buttons: [Accept]  [Refuse]  (type: click LABEL)" in reply_to(out, "/undo")
    assert reply_to(out, "click accept").splitlines()[0] == "== Undo of entry #20: accepted =="
    assert reply_to(out, "/log verify").splitlines()[0] == "== The log checks out =="
    # the exported log, saved from the sandbox, replays bit for bit without Discord
    export = tmp_path / "files" / "game-1-log.json"
    assert f"saved {export} (" in out
    replay = run(tmp_path, "rules", "replay", str(export))
    assert (replay.returncode, replay.stdout) == (0, "21 entries reproduced bit for bit\n"), replay.stderr
    assert out.rstrip().endswith("bye")


NHIS_PLAY = """\
as alice
/done
as bob
/done
as alice
/fire firers:M1 M2 target:0405 dice:1 2 6 1
click details
/morale unit:M1 hit:1 dice:6
click details
as gm
/game phase to:Rally
as alice
/rally unit:M1 dice:3
click details
"""


def test_nhis_session_fire_morale_rally(tmp_path):
    out = sandbox(tmp_path, "--scenario", "nhis", script=NHIS_PLAY)
    command = "/fire firers:M1 M2 target:0405 dice:1 2 6 1"
    # the units changed do not fit the title's 60 characters: each has its line, passed too
    assert reply_to(out, command).splitlines()[:4] == [
        "== 5 FP -> column 4, shifted 2 left -> column 0: 2d6 3 -> Hit-1 ==", "🎲 fire on 0405: rolled 1+2 = 3",
        "Morale check Japanese rifle squad J1: rolled 6, 7 vs 5: fails: Prepared, reduced (Unshakable, fails: reduced)",
        "Morale check Japanese rifle squad J2: rolled 1, 2 vs 5: passes"]
    fire = details(out, command)
    assert fire[1] == "== 5 FP -> column 4, shifted 2 left -> column 0: 2d6 3 -> Hit-1 =="
    for line in ("   Cover Factor of 0405: Jungle 2  -2  (=5)  [NHiS Terrain Chart (seed 001)]",
                 "   Column 0, roll 3: Hit-1  Hit-1  [NHiS Fire Table (seed 001)]",
                 "   Japanese rifle squad J1: Unshakable, fails: reduced  [NHiS Hit result (seed 001)]",
                 "   2 vs 5: passes  pass  [NHiS Hit result (seed 001)]"):
        assert line in fire, line
    morale = reply_to(out, "/morale unit:M1 hit:1 dice:6").splitlines()
    # a title over 60 characters goes on after its first part, in the first line
    assert morale[:2] == ["== US Marine rifle squad M1 morale check (Hit-1) ==",
                          "1d6 6 + 1 = 7 vs 6 -> fails: Shaken; its impulse ends"]
    assert "   Leadership of US Marine leader L1 (Prepared)  +1  (=6)  [NHiS Hit result (seed 001)]" in \
        details(out, "/morale unit:M1 hit:1 dice:6")
    assert reply_to(out, "/rally unit:M1 dice:3").splitlines()[0] == \
        "== US Marine rifle squad M1 rally: 1d6 3 vs 6 -> rallies =="
    rally = details(out, "/rally unit:M1 dice:3")
    assert "   US Marine rifle squad M1: Shaken -> Prepared" in rally


CD_PLAY = """\
as alice
/artillery response firer:RA1 support:organic dice:4
/artillery fire firer:RA1 targets:G1 G2 cover:light dice:2 9 5
click details
as gm
/game phase to:GeneralFire dice:6 3
as alice
/fire firers:1-A target:G1 band:short options:cover=light dice:3 7 8
click details
/done
as bob
/fire firers:G2 target:1-A 1-B band:short dice:1 2 5 3
/done
as alice
/morale company:Able options:in_cover=yes enemy_personnel_near=yes dice:9
click details
as gm
/game phase to:Movement dice:6 3
as alice
/done
as bob
/done
as alice
/rally company:Able
"""


def test_cd_session_artillery_fire_morale_rally(tmp_path):
    out = sandbox(tmp_path, "--scenario", "cd", script=CD_PLAY)
    assert reply_to(out, "/artillery response firer:RA1 support:organic dice:4").splitlines()[:2] == [
        "== Organic artillery response for US 105mm battery ==", "d10 4 -> responds, place the template"]
    idf = details(out, "/artillery fire firer:RA1 targets:G1 G2 cover:light dice:2 9 5")
    assert "   German MG42 platoon G2: Good Order -> Good Order, suppressed" in idf
    command = "/fire firers:1-A target:G1 band:short options:cover=light dice:3 7 8"
    assert reply_to(out, command).splitlines()[:2] == [
        "== US rifle platoon 1-A fires 2 ROF at German rifle platoon G1 ==",
        "1 hit -> eliminated (takes effect at the end of the phase)"]
    assert "   hit result on German rifle platoon G1: rolled 8 (d10)" in details(out, command)
    command = "/morale company:Able options:in_cover=yes enemy_personnel_near=yes dice:9"
    assert reply_to(out, command).splitlines()[:5] == [
        "== Company Able morale: d10 9 -> missed by 3 ==", "forced back + shaken",
        # the number to roll against holds the modifiers (each in the Details), not the roll
        "🎲 morale of company Able: rolled 9, d10 9 vs 6 or less (rating 6 +0): missed by 3",
        "US rifle platoon 1-A: Good Order, forced back → shaken, forced back",
        "US rifle platoon 1-B: Good Order → shaken, forced back"]
    morale_lines = details(out, command)
    for line in ("   In cover  +2  (=2)  [CD [14.2.2]]",
                 "   Enemy personnel within 12\" and LOS  -1  (=1)  [CD [21.2]]",
                 "   Stand of the company forced back this turn x1  -1  (=0)  [CD [21.1.1]]",
                 "   d10 9 vs 6 or less (rating 6 +0): missed by 3  9  (=6)  [CD [21]]"):
        assert line in morale_lines, line
    rally = reply_to(out, "/rally company:Able").splitlines()
    assert rally[0] == "== Company Able rallies: now good order =="
    assert "   US rifle platoon 1-B: shaken -> good order  [CD [21.4]]" in rally


# --- the prompt's own behaviour -----------------------------------------------------------------


def test_mistakes_are_explained_and_the_session_goes_on(tmp_path):
    script = ("/fire firer:A1 target:B5\n"  # not an option: the sandbox says which ones exist
              "/game\n"  # a group needs its subcommand
              "/game new sides:A, B\n"  # Discord itself refuses a missing required option
              "fly away\n"
              "load chess\n"
              "as zeus\n"
              "channel table-1\n"
              "/game status\n")
    out = sandbox(tmp_path, script=script)
    assert "error: 'firer:A1' is not an option of /fire: write name:value (options: target, firers," in out
    assert "error: /game needs a subcommand: /game new, /game join" in out
    assert "error: /game new is missing required option(s): ['ruleset']" in out
    assert "'fly' is neither a sandbox command nor a slash command: type help" in out
    assert "who? one of: alice, bob, gm, carol" in out
    assert "sample scenarios: asl, nhis, cd" in out
    status = reply_to(out, "/game status")
    assert status.startswith("[only you can see this]\n== Order refused ==\nThere is no game in this channel")
    assert "gm@#table-1> /game status" in out


def test_help_lists_the_synced_commands_with_their_options(tmp_path):
    out = sandbox(tmp_path, script="help\n")
    assert "  as alice|bob|gm|carol who is typing" in out
    assert "  /game new: Start a game in this channel" in out
    assert "      ruleset (string): The rules system the game is played with" in out
    assert "  /rally: " in out and "  /transfer: " in out


def test_seeded_dice_are_the_seeds_sequence_and_the_banner_says_so(tmp_path):
    # the seed makes the games' committed dice seeds (docs/dice.md): the same script draws the same
    # dice, and /log verify re-derives them once the turn's seed is revealed
    script = ("as alice\n/transfer weapon:MG1 to:A2\n/done\nas bob\n/done\nas alice\n"
              "/fire firers:A1 L1 target:C4 range:1\nclick details\n")
    out = sandbox(tmp_path, "--scenario", "asl", "--seed", "7", script=script)
    again = sandbox(tmp_path / "again", "--scenario", "asl", "--seed", "7", script=script)
    assert "  dice:     seeded with 7: the same commands roll the same dice" in out
    fire = details(out, "/fire firers:A1 L1 target:C4 range:1")
    [roll] = [line for line in fire if line.startswith("   IFT attack: rolled ")]
    assert roll in details(again, "/fire firers:A1 L1 target:C4 range:1")
    assert "   manual dice (given by the players)" not in fire


def test_a_database_file_keeps_the_games_and_passes_the_health_check(tmp_path, monkeypatch):
    database = tmp_path / "sandbox.sqlite3"
    sandbox(tmp_path, "--scenario", "cd", "--database", str(database), script="")
    out = sandbox(tmp_path, "--database", str(database), script="channel cd\n/game status\nclick units\n")
    assert f"  database: {database}\n" in out
    assert "   US 105mm battery RA1 (Americans): no markers" in reply_to(out, "click units")
    monkeypatch.setenv("REFEREE_DATABASE", str(database))
    health = io.StringIO()
    assert cli.main(["health"], stdout=health) == 0
    assert health.getvalue() == f"ok: {database}\n"


def test_the_forty_counter_scenario_file_loads_in_one_command(tmp_path):
    import sqlite3

    from tests.test_map import README_MAP, decode

    database, folder = tmp_path / "sandbox.sqlite3", tmp_path / "pictures"
    out = sandbox(tmp_path, "--scenario", "asl-file", "--database", str(database),
                  script=f"click units\n/scenario load file:asl/scenarios/nowhere.yaml\n/game map\nsave {folder}\n")
    # its map: the reply names its picture, ``save`` writes it where asked, and it is the README's
    assert "[file: map.png, " in reply_to(out, "/game map")
    assert f"saved {folder / 'map.png'} (" in reply_to(out, f"save {folder}")
    drawn, shown = decode((folder / "map.png").read_bytes()), decode(README_MAP.read_bytes())
    assert drawn.size == shown.size
    differing = sum(1 for a, b in zip(drawn.get_flattened_data(), shown.get_flattened_data()) if a != b)
    assert differing < drawn.width * drawn.height // 100
    assert "  /scenario load file:asl/scenarios/village-assault.yaml\n   New Advanced Squad Leader game" in out
    assert "   MMG GMG1 (Germans): held by G1" in reply_to(out, "click units")  # the status shown after it
    assert "takes a file: no file 'asl/scenarios/nowhere.yaml'" in out
    with sqlite3.connect(database) as db:
        [(state,)] = db.execute("SELECT state FROM games").fetchall()
        commands = [row[0] for row in db.execute("SELECT command FROM log_entries ORDER BY seq")]
    assert len(unpack_state(state).units) == 44  # stored compressed (bot/store/sqlite.py)
    assert commands == ["/game new", "/game join", "/game join"]  # the whole set-up: one entry


def test_a_second_session_on_the_database_is_not_answered_from_the_first_ones_log(tmp_path):
    # each session's emulator numbered its interactions from the same start: the second session's
    # /unit move had the id of the first session's /game new and was "answered" from its entry
    database = tmp_path / "sandbox.sqlite3"
    sandbox(tmp_path, "--scenario", "cd", "--database", str(database), script="")
    out = sandbox(tmp_path, "--database", str(database), script="channel cd\nas gm\n/unit move unit:1-A to:hedge-1\n")
    moved = reply_to(out, "/unit move unit:1-A to:hedge-1")
    assert moved.startswith("== US rifle platoon 1-A to hedge-1 ==") and "(log #10)" in moved, moved
    out = sandbox(tmp_path, "--database", str(database), script="channel cd\n/game status\nclick units\n")
    assert "-- hedge-1: open (hedgerow) --\n   US rifle platoon 1-A (Americans)" in reply_to(out, "click units")


def test_a_database_that_cannot_be_opened_is_one_line(tmp_path):
    database = tmp_path / "notes.txt"
    database.write_text("not a database\n" * 200)
    result = run(tmp_path, "sandbox", "--database", str(database), script="quit\n")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"referee: the sandbox cannot start: database {database} is not an SQLite database (file is not a "
        "database): set REFEREE_DATABASE to the bot's database, or move this file away to start with an empty one")
    assert "Traceback" not in result.stderr


def test_python_m_bot_without_a_token_starts_the_sandbox(tmp_path):
    result = run(tmp_path, script="quit\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Referee sandbox: the real bot against a local fake Discord at "
                                    "http://127.0.0.1:")
    assert "(temporary: deleted on exit)" in result.stdout
    assert result.stdout.rstrip().endswith("gm@#general> quit\nbye")


# --- reading a command line (in process, against a schema written here) -------------------------

FIRE = {"name": "fire", "type": 1, "description": "Fire", "options": [
    {"name": "target", "type": 3, "required": True, "description": "t"},
    {"name": "firers", "type": 3, "description": "f"},
    {"name": "range", "type": 4, "description": "r"},
    {"name": "dice", "type": 3, "description": "d"},
]}
GAME = {"name": "game", "type": 1, "description": "Game", "options": [
    {"name": "new", "type": 1, "description": "n", "options": [
        {"name": "ruleset", "type": 3, "required": True, "description": "r",
         "choices": [{"name": "Advanced Squad Leader", "value": "asl"}, {"name": "Command Decision", "value": "cd"}]},
        {"name": "sides", "type": 3, "required": True, "description": "s"},
        {"name": "gm", "type": 6, "description": "g"},
        {"name": "public", "type": 5, "description": "p"}]},
]}
UNIT = {"name": "unit", "type": 1, "description": "Unit", "options": [
    {"name": "add", "type": 1, "description": "a", "options": [
        {"name": "id", "type": 3, "required": True, "description": "i"},
        {"name": "name", "type": 3, "description": "n"},
        {"name": "stats", "type": 3, "description": "s"}]},
]}
COMMANDS = [FIRE, GAME, UNIT]


def test_a_value_runs_until_the_next_option():
    parsed = parse_command_line(COMMANDS, "/fire firers:A1 A2 target:B5 range:2 dice:3 4")
    assert (parsed.path, parsed.options) == ("fire", {"firers": "A1 A2", "target": "B5", "range": 2,
                                                      "dice": "3 4"})


def test_the_equals_form_and_no_slash():
    parsed = parse_command_line(COMMANDS, "fire firers=A1 target=B5 range=0")
    assert parsed.options == {"firers": "A1", "target": "B5", "range": 0}


def test_key_value_pairs_inside_a_value_stay_in_it():
    parsed = parse_command_line(COMMANDS, "/unit add id:A1 stats:kind=squad name=4-6-7 fp=4")
    assert (parsed.path, parsed.options) == ("unit add", {"id": "A1", "stats": "kind=squad name=4-6-7 fp=4"})


def test_subcommands_choices_people_and_yes_no():
    parsed = parse_command_line(COMMANDS, "/game new ruleset:Advanced Squad Leader sides:Germans, Russians "
                                          "gm:@bob public:yes")
    assert parsed.path == "game new"
    assert parsed.options == {"ruleset": "asl", "sides": "Germans, Russians", "gm": "2000000000000000002",
                              "public": True}


@pytest.mark.parametrize("line, message", [
    ("/fire range:two target:B5", "/fire: option 'range' takes a whole number, not 'two'"),
    ("/fire target:B5 target:B6", "/fire: option 'target' is given twice"),
    ("/fire target:", "/fire: option 'target' has no value"),
    ("/charge target:B5", "there is no command /charge; commands: /fire, /game, /unit"),
    ("/game", "/game needs a subcommand: /game new"),
    ("/game new ruleset:asl sides:A, B gm:zeus", "/game new: option 'gm' takes a person: alice, bob, gm, carol"),
])
def test_lines_that_cannot_be_read_say_why(line, message):
    with pytest.raises(CommandLineError) as caught:
        parse_command_line(COMMANDS, line)
    assert str(caught.value) == message


def test_an_option_name_inside_a_word_does_not_split_it():
    schema = {o["name"]: o for o in FIRE["options"]}
    assert split_options("fire", schema, "target:hex-target:2") == {"target": "hex-target:2"}


def test_mentions_read_as_names():
    assert readable("<@2000000000000000001> plays Germans, <@!42> watches") == "@alice plays Germans, @42 watches"



@pytest.mark.parametrize(("offset", "shown"), [
    (2 * 86400, "in 2 days"), (3 * 3600 + 100, "in 3 hours"), (-90, "2 minutes ago"), (60, "in 1 minute"),
    (12, "in 12 seconds"), (-400 * 86400, "1 year ago"),
])
def test_a_relative_timestamp_reads_as_discord_words_it(offset, shown):
    now = 1_800_000_000
    assert readable(f"until <t:{now + offset}:R>", now=now) == f"until {shown}"


def test_an_embed_timestamp_pair_reads_once_absolute_then_relative():
    from datetime import datetime, timezone

    from bot.render import embed_to_text, stamp

    when = datetime(2027, 1, 1, 12, 0, tzinfo=timezone.utc)
    text = embed_to_text({"description": f"until {stamp(when)}"}, keep_timestamps=True)
    assert readable(text, now=when.timestamp() - 3600) == "until 2027-01-01 12:00 UTC (in 1 hour)"


def try_lines(name: str, count: int) -> list[str]:
    """The first ``count`` commands of a sample's "Try:" hint, without their explanations."""
    hint = SCENARIOS[name].next_steps.removeprefix("Try: ")
    return [re.sub(r" \(.*\)$", "", part) for part in hint.split(" | ")][:count]


def test_the_cd_samples_try_hints_fire_an_artillery_mission(tmp_path):
    lines = try_lines("cd", 3)
    assert lines == ["as alice", "/artillery response firer:RA1 dice:4", "/artillery fire firer:RA1 targets:G1 G2"]
    fire = lines[2] + " dice:3 9 5"  # dice given, so the trail's hit is known
    out = sandbox(tmp_path, "--scenario", "cd", script="\n".join([*lines[:2], fire, "click details", lines[2]]) + "\n")
    assert "responds, place the template" in reply_to(out, lines[1])
    shown = details(out, fire)
    assert "   Organic artillery answered this turn; mission 1 of its ROF 1 this phase  [CD [13.5, 17.6]]" in shown
    assert ("   German rifle platoon G1 in hedge-1: hedgerow gives medium cover (data/cd/cover.yaml, assumed)  "
            "[CD [14.2.1, 17.6]]") in shown
    assert "fired 1 mission this phase, its rate of fire (ROF 1)" in reply_to(out, lines[2], after=fire)


def test_the_cd_file_samples_try_hints_meet_the_veteran_germans(tmp_path):
    lines = try_lines("cd-file", 3)
    assert lines == ["as alice", "/artillery response firer:RA1 dice:2", "/artillery fire firer:RA1 targets:G1 G2"]
    fire = lines[2] + " dice:3 9 5"
    out = sandbox(tmp_path, "--scenario", "cd-file", script="\n".join([*lines[:2], fire, "click details"]) + "\n")
    shown = details(out, fire)
    assert any("German rifle platoon G1 is veteran: the quality of the Germans in the scenario" in s for s in shown)
    title, rest = reply_to(out, fire).splitlines()[:2]
    assert title == "== US 105mm battery RA1 fires IDF at German rifle platoon G1, =="  # within 60 characters
    assert rest.endswith("German rifle platoon G1: no effect")


def test_the_asl_samples_try_hint_is_accepted_to_its_close_combat(tmp_path):
    """Every command of the ASL sample's "Try:" line, typed as printed, is accepted, and it ends in a
    Close Combat resolved by the DEFENDER's declaration (issue 25: the sample exercises Close Combat)."""
    lines = try_lines("asl", 99)
    assert lines[-4:] == ["as alice", "/close-combat attackers:A3 targets:R3", "as bob",
                          "/close-combat attackers:R3 targets:A3"]
    out = sandbox(tmp_path, "--scenario", "asl", script="\n".join(lines) + "\n")
    assert "Order refused" not in out, out
    resolved = reply_to(out, lines[-1]).splitlines()
    assert resolved[0] == "== Close Combat in E5: 4-6-7 A3 vs 4-4-7 R3 at 1:1 ==", resolved
    assert resolved[1].startswith("final DR ") and "4-4-7 R3 vs 4-6-7 A3" in resolved[1], resolved


def test_a_button_is_pressed_on_the_newest_reply_the_presser_can_see_not_only_the_last_one(tmp_path):
    """Play by post in the sandbox: alice moves in the open and tries to end the step (refused
    privately: the window waits for bob); bob, who never saw that refusal, presses No fire on the
    window's message, and alice's Done on an older hand-off is refused by the bot as stale, not by the
    sandbox. Before, "click" read the last reply only: bob's press found alice's private refusal."""
    script = """\
as gm
/game options set:reactions=ask
as alice
/done
as bob
/done
as alice
/done
/move units:A2 to:B5
/done
click Fire
as bob
click No fire
click Done
as alice
click Done
"""
    out = sandbox(tmp_path, "--scenario", "asl", script=script)
    moved = reply_to(out, "/move units:A2 to:B5")
    assert "buttons: [Fire]  [No fire]" in moved
    assert "the game waits for Russians" in reply_to(out, "/done", after="/move units:A2 to:B5")
    # alice cannot see a Fire of hers: the window's buttons are bob's to press
    assert "this window is Russians' to answer" in reply_to(out, "click Fire"), reply_to(out, "click Fire")
    answered = reply_to(out, "click No fire")
    assert answered.splitlines()[0] == "== Russians do not fire at 4-6-7 A2 (Defensive First Fire) ==", answered
    # bob's Done: the newest he can see is the one under "go on", which is alice's step
    assert "Order refused" in reply_to(out, "click Done", after="click No fire")
    ended = out.split("alice@#asl> click Done\n")[1]  # alice's Done, on the hand-off after bob's answer
    assert ended.splitlines()[0] == "== Turn 1, Defensive Fire Phase: Russians to act ==", ended
    # a label nobody shows is named with where it was looked for
    out = sandbox(tmp_path, "--scenario", "asl", script="as bob\nclick Nothing\n")
    assert "there is no 'Nothing' button on the replies in #asl that you (bob) can see" in out


def test_save_takes_the_files_of_the_last_reply_the_one_typing_can_see(tmp_path):
    # alice's Map is shown to her alone: bob's save finds no files (before, it wrote alice's picture)
    script = f"as alice\nclick Map\nas bob\nsave {tmp_path / 'bob'}\nas alice\nsave {tmp_path / 'alice'}\n"
    out = sandbox(tmp_path, "--scenario", "asl", script=script)
    assert "bob@#asl> save" in out and "the last reply you can see here has no files" in out, out
    assert not (tmp_path / "bob").exists()
    assert (tmp_path / "alice" / "map.png").read_bytes().startswith(b"\x89PNG")


# --- a PostgreSQL server as the sandbox's database (issue 28) ----------------------------------


def test_a_postgresql_url_is_the_sandboxs_database_never_a_folder(tmp_path, pg_dsn):
    # before: --database postgresql://... was taken for a file's path, the sandbox ran on SQLite in
    # folders named after the URL, password included
    result = subprocess.run([sys.executable, "-m", "bot", "sandbox", "--scenario", "cd", "--database", pg_dsn],
                            input="quit\n", capture_output=True, text=True, cwd=tmp_path, env=clean_env(tmp_path),
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"  database: {pg_dsn}\n" in result.stdout
    assert list(tmp_path.iterdir()) == [], "nothing is written where the sandbox was started"
    again = subprocess.run([sys.executable, "-m", "bot", "sandbox", "--database", pg_dsn], cwd=tmp_path,
                           input="channel cd\n/game status\n", capture_output=True, text=True,
                           env=clean_env(tmp_path), timeout=120)
    assert again.returncode == 0, again.stderr
    assert reply_to(again.stdout, "/game status").startswith("== Hedgerows (sample): turn 1 ==")  # kept on the server


def test_a_postgresql_url_without_the_driver_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    from bot import sandbox
    from bot.store import postgres

    monkeypatch.setattr(postgres, "asyncpg", None)  # the SQLite-only install
    monkeypatch.chdir(tmp_path)
    for key in [k for k in os.environ if k.startswith("REFEREE_")]:
        monkeypatch.delenv(key)
    assert sandbox.main(["--database", "postgresql://ref:secret@db.example/referee"]) == sandbox.EXIT_USAGE
    assert capsys.readouterr().err == (
        "referee: the sandbox's database postgresql://ref:***@db.example/referee is a PostgreSQL server, but its "
        "driver (asyncpg, the postgres extra) is not installed: `python3 dev.py run --postgres URL` installs it\n")
    assert list(tmp_path.iterdir()) == []
    # the same from the environment (what `dev.py run --postgres` sets)
    monkeypatch.setenv("REFEREE_SANDBOX_DATABASE", "postgresql://ref:secret@db.example/referee")
    assert sandbox.main([]) == sandbox.EXIT_USAGE
    assert "secret" not in capsys.readouterr().err


def test_a_server_that_does_not_answer_is_one_line_without_the_password(tmp_path):
    result = run(tmp_path, "sandbox", "--database", "postgresql://ref:secret@127.0.0.1:1/referee", script="quit\n")
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("referee: the sandbox cannot start: database postgresql://ref:***@127.0.0.1:1/referee "
                           "cannot be used (")
    assert "secret" not in result.stderr


def test_bold_markdown_reads_bold_on_a_terminal_and_plain_in_a_file():
    """Issue 30: the sandbox printed **Germans** raw. On a tty it is ANSI bold; in a file or a pipe the
    asterisks are dropped; an escaped asterisk (a player's text) stays an asterisk."""
    from bot.render import ANSI_BOLD, embed_to_text
    from bot.sandbox import Session

    embed = {"description": "Rally Phase · **Germans** to act · a \\*\\*starred\\*\\* name"}
    assert embed_to_text(embed) == "Rally Phase · Germans to act · a **starred** name"
    assert embed_to_text(embed, bold=ANSI_BOLD) == "Rally Phase · \x1b[1mGermans\x1b[0m to act · a **starred** name"

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Session(fake=None, out=Tty(), echo=False).bold == ANSI_BOLD
    assert Session(fake=None, out=io.StringIO(), echo=False).bold == ("", "")
