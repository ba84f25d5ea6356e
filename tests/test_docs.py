"""The documentation cannot drift from the code.

- docs/rules-interface.md shows, for every request in docs/examples/, the real answer of
  ``python -m bot rules`` (between ``<!-- example NAME -->`` markers);
- README.md's command reference lists every slash command the real bot syncs, with its options;
- README.md's sandbox session is what the sandbox prints for that script today;
- docs/scenario.schema.json is the JSON Schema of the scenario file model (bot/core/scenario.py).

Regenerate both after a change: ``python -m tests.test_docs`` (it rewrites the generated blocks
in place and leaves the prose alone).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from bot import cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = ROOT / "docs" / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.json"))
PREVIEWS = sorted((EXAMPLES_DIR / "preview").glob("*.json"))  # run with --preview: exact odds
RULES_DOC = ROOT / "docs" / "rules-interface.md"
README = ROOT / "README.md"
EXAMPLE_BLOCK = re.compile(r"<!-- example (?P<name>[\w./-]+) -->\n(?P<body>.*?)<!-- /example -->", re.DOTALL)
OPTIONS_BLOCK = re.compile(r"(<!-- options -->\n)(?P<body>.*?)(<!-- /options -->)", re.DOTALL)
REFERENCE_BLOCK = re.compile(r"(<!-- commands -->\n)(?P<body>.*?)(<!-- /commands -->)", re.DOTALL)

# the actions the rules interface documents, one worked example each
DOCUMENTED_ACTIONS = {
    "asl": {"fire", "morale", "rally", "transfer", "recover", "close_combat", "phase"},
    "nhis": {"fire", "morale", "rally", "activate"},
    "cd": {"fire", "indirect_fire", "artillery_response", "morale", "rally"},
}


# --- the rules interface examples ------------------------------------------------------------


def is_preview(path: Path) -> bool:
    return path.parent.name == "preview"


def run_example(path: Path) -> tuple[int, dict[str, Any] | None, str]:
    """``python -m bot rules --pretty [--preview] < path`` through bot.cli, in process."""
    out, err = io.StringIO(), io.StringIO()
    args = ["rules", "--pretty"] + (["--preview"] if is_preview(path) else [])
    code = cli.main(args, stdin=io.StringIO(path.read_text(encoding="utf-8")),
                    stdout=out, stderr=err)
    return code, (json.loads(out.getvalue()) if code == 0 else None), err.getvalue()


def compact_json(value: dict[str, Any]) -> str:
    """The outcome as valid JSON, one key per line and one list item (a trail step) per line."""
    lines = ["{"]
    items = list(value.items())
    for i, (key, item) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(item, list) and item:
            lines.append(f"  {json.dumps(key)}: [")
            lines.extend(f"    {json.dumps(e, ensure_ascii=False)}{',' if j < len(item) - 1 else ''}"
                         for j, e in enumerate(item))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(item, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines)


def example_block(path: Path) -> str:
    code, answer, err = run_example(path)
    assert code == 0 and answer is not None, f"{path.name}: {err}"
    shown, what = (answer, "the odds report") if is_preview(path) else (answer["outcome"], "`outcome`")
    return ("Request:\n\n```json\n" + path.read_text(encoding="utf-8").strip() + "\n```\n\n"
            f"Answer ({what}):\n\n```json\n" + compact_json(shown) + "\n```\n")


def regenerate_rules_doc(text: str) -> str:
    return EXAMPLE_BLOCK.sub(
        lambda m: f"<!-- example {m['name']} -->\n{example_block(EXAMPLES_DIR / m['name'])}<!-- /example -->",
        text)


def test_every_documented_action_has_an_example():
    actions: dict[str, set[str]] = {}
    for path in EXAMPLES:
        request = json.loads(path.read_text(encoding="utf-8"))
        actions.setdefault(request["ruleset"], set()).add(request["order"]["action"])
    for ruleset, wanted in DOCUMENTED_ACTIONS.items():
        assert wanted <= actions.get(ruleset, set()), f"{ruleset}: no example for {wanted - actions[ruleset]}"


@pytest.mark.parametrize("path", EXAMPLES + PREVIEWS, ids=lambda p: p.relative_to(EXAMPLES_DIR).as_posix())
def test_example_runs_and_the_doc_shows_its_real_answer(path):
    code, answer, err = run_example(path)
    assert code == 0, err
    shown = answer if is_preview(path) else answer["outcome"]
    assert shown["headline"] and (shown.get("trail") or shown.get("results"))
    name = path.relative_to(EXAMPLES_DIR).as_posix()
    blocks = {m["name"]: m["body"] for m in EXAMPLE_BLOCK.finditer(RULES_DOC.read_text(encoding="utf-8"))}
    assert name in blocks, f"docs/rules-interface.md has no <!-- example {name} --> block"
    assert blocks[name] == example_block(path), f"the answer shown for {name} is stale: run `python -m tests.test_docs`"


def test_every_example_block_names_an_existing_file():
    names = [m["name"] for m in EXAMPLE_BLOCK.finditer(RULES_DOC.read_text(encoding="utf-8"))]
    assert sorted(names) == sorted(p.relative_to(EXAMPLES_DIR).as_posix() for p in EXAMPLES + PREVIEWS)


def test_the_shown_answer_is_the_json_the_cli_writes():
    # the compact layout is still JSON, and the very same value
    path = EXAMPLES_DIR / "asl-fire.json"
    _, answer, _ = run_example(path)
    assert json.loads(compact_json(answer["outcome"])) == answer["outcome"]


# --- the README's command reference ------------------------------------------------------------


async def synced_commands(database: Path) -> list[dict[str, Any]]:
    """The slash commands the real bot syncs (its cogs loaded), read from the emulator."""
    from bot.app import RefereeBot
    from bot.config import Settings
    from bot.emulator import FakeDiscord, running

    bot = RefereeBot(Settings(token=None, database=database, dev_guild=None))
    async with FakeDiscord() as fake, running(bot, fake=fake):
        return fake.commands_for(fake.guild().id)


def leaf_commands(commands: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """('game new', schema) for every command a user can type, subcommands expanded."""
    found: list[tuple[str, dict[str, Any]]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
        if not subs:
            found.append((path, node))
        for sub in subs:
            walk(sub, f"{path} {sub['name']}")

    for command in sorted(commands, key=_reading_order):
        walk(command, command["name"])
    return found


# the order a group meets the commands in; any other command follows, alphabetically
READING_ORDER = ("game", "unit", "location", "fire", "artillery", "morale", "rally", "transfer", "recover",
                 "undo", "log", "stats")


def _reading_order(command: dict[str, Any]) -> tuple[int, str]:
    name = command["name"]
    return (READING_ORDER.index(name) if name in READING_ORDER else len(READING_ORDER), name)


TYPE_WORDS = {3: "text", 4: "whole number", 5: "yes/no", 6: "user", 7: "channel", 10: "number", 11: "file"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def command_reference(commands: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for path, node in leaf_commands(commands):
        out += [f"#### `/{path}`", "", _cell(node.get("description", "")), ""]
        options = node.get("options") or []
        if options:
            out += ["| option | type | required | what it is |", "| --- | --- | --- | --- |"]
            for option in options:
                kind = TYPE_WORDS.get(option["type"], str(option["type"]))
                choices = option.get("choices")
                if choices:
                    kind += ": " + ", ".join(f"`{c['value']}`" for c in choices)
                out.append(f"| `{option['name']}` | {kind} | {'yes' if option.get('required') else 'no'} | "
                           f"{_cell(option.get('description', ''))} |")
            out.append("")
    return "\n".join(out)


def reference_sections(readme: str) -> dict[str, str]:
    """'/game new' -> the text of its entry in the README's generated reference."""
    match = REFERENCE_BLOCK.search(readme)
    assert match, "README.md has no <!-- commands --> ... <!-- /commands --> block"
    parts = re.split(r"^#### `/([^`]+)`$", match["body"], flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


async def test_the_readme_lists_every_synced_command_with_its_options(tmp_path):
    commands = await synced_commands(tmp_path / "docs.sqlite3")
    assert commands, "the bot synced no commands"
    sections = reference_sections(README.read_text(encoding="utf-8"))
    missing = [f"/{path}" for path, _ in leaf_commands(commands) if path not in sections]
    assert not missing, f"README.md lacks {missing}: run `python -m tests.test_docs`"
    for path, node in leaf_commands(commands):
        for option in node.get("options") or []:
            assert f"| `{option['name']}` |" in sections[path], \
                f"README.md: /{path} lacks option '{option['name']}': run `python -m tests.test_docs`"
    stale = sorted(set(sections) - {path for path, _ in leaf_commands(commands)})
    assert not stale, f"README.md documents commands the bot does not have: {stale}"


# --- the README's list of game options ------------------------------------------------------------


def options_reference() -> str:
    """Every game option of the catalogue (bot/core/options.py), the bot's own first, then each
    ruleset's: its name, what it takes, its default and its help."""
    from bot.core.options import GENERAL, GRID_OPTIONS, GameOption
    from bot.core.rulesets import rulesets

    def rows(options: tuple[GameOption, ...], ruleset: Any = None) -> list[str]:
        out = ["| option | takes | default | what it does |", "| --- | --- | --- | --- |"]
        for o in options:
            only = ""
            if o.variants and ruleset is not None:
                only = f" ({' and '.join(ruleset.variants.get(v, v) for v in o.variants)} only)"
            rule = f" [{o.rule}]" if o.rule else ""
            default = o.shown(o.default) + (f" (a game created now: {o.shown(o.created)})" if o.created is not None
                                             else "")
            out.append(f"| `{o.name}` | {_cell(o.takes())} | {_cell(default)} | "
                       f"{_cell(o.help)}{only}{rule} |")
        return out + [""]

    out = ["#### Every game", ""] + rows(GENERAL)
    mapped = [ruleset.short_name for ruleset in rulesets() if ruleset.grid is not None]
    if mapped:  # the options of the games whose map the bot reads (bot/core/grid.py)
        out += [f"#### Games whose map the bot reads ({', '.join(mapped)})", ""] + rows(GRID_OPTIONS)
    for ruleset in rulesets():
        own = tuple(ruleset.game_options())
        sides = [f"`{o.name}_1`, `{o.name}_2`: {o.title}, {o.min} to {o.max} [{o.rule}]" for o in ruleset.side_options]
        if not own and not sides:
            continue
        out += [f"#### {ruleset.title}", ""]
        if own:
            out += rows(own, ruleset)
        if sides:
            out += [f"Per side, as options of `/game new`: {'; '.join(sides)}.", ""]
    return "\n".join(out)


def test_the_readme_lists_every_game_option():
    match = OPTIONS_BLOCK.search(README.read_text(encoding="utf-8"))
    assert match, "README.md has no <!-- options --> ... <!-- /options --> block"
    assert match["body"] == options_reference() + "\n", \
        "README.md's game options are stale: run `python -m tests.test_docs`"


# the sandbox session shown in the README: its flags and the lines piped in
README_SESSION = (["--scenario", "asl"],
                  ("as alice\n/transfer weapon:MG1 to:A2\n/done\nas bob\n/done\nas alice\n"
                   "/fire firers:A1 L1 target:C4 range:1 dice:2 3 5 4 3 3\n/done\n/move units:A2 to:C5\n"
                   "/log verify\n"))
TRANSCRIPT_BLOCK = re.compile(r"(<!-- transcript -->\n```\n)(?P<body>.*?)(```\n<!-- /transcript -->)", re.DOTALL)
# what differs from run to run: the fake Discord's port and the temporary database
_VARYING = [(re.compile(r"http://127\.0\.0\.1:\d+"), "http://127.0.0.1:PORT"),
            (re.compile(r"database: \S+/sandbox\.sqlite3"), "database: TMP/sandbox.sqlite3")]


def sandbox_session() -> str:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISCORD_TOKEN", "REFEREE_TOKEN") and not k.startswith("REFEREE_")}
    args, script = README_SESSION
    result = subprocess.run([sys.executable, "-m", "bot", "sandbox", *args], input=script, text=True,
                            capture_output=True, cwd=ROOT, env=env, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _steady(text: str) -> str:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text


def test_the_readme_transcript_is_a_real_session():
    match = TRANSCRIPT_BLOCK.search(README.read_text(encoding="utf-8"))
    assert match, "README.md has no <!-- transcript --> block"
    assert _steady(match["body"]) == _steady(sandbox_session()), \
        "the README's sandbox session is stale: run `python -m tests.test_docs`"


def test_the_readme_starts_with_the_two_commands():
    head = README.read_text(encoding="utf-8").split("\n## ")[0]
    assert "python3 dev.py run" in head and "python3 dev.py test" in head


# --- the scenario file schema ------------------------------------------------------------------

SCENARIO_SCHEMA = ROOT / "docs" / "scenario.schema.json"


def test_the_scenario_schema_is_the_models():
    from bot.scenario import schema_text

    assert SCENARIO_SCHEMA.read_text(encoding="utf-8") == schema_text(), \
        "docs/scenario.schema.json is stale: run python -m tests.test_docs"


# --- regeneration ----------------------------------------------------------------------------


def regenerate() -> None:
    from bot.scenario import schema_text

    SCENARIO_SCHEMA.write_text(schema_text(), encoding="utf-8")
    RULES_DOC.write_text(regenerate_rules_doc(RULES_DOC.read_text(encoding="utf-8")), encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        commands = asyncio.run(synced_commands(Path(folder) / "docs.sqlite3"))
    readme = README.read_text(encoding="utf-8")
    readme = REFERENCE_BLOCK.sub(lambda m: m[1] + command_reference(commands) + "\n" + m[3], readme)
    readme = OPTIONS_BLOCK.sub(lambda m: m[1] + options_reference() + "\n" + m[3], readme)
    session = sandbox_session()
    readme = TRANSCRIPT_BLOCK.sub(lambda m: m[1] + session + m[3], readme)
    README.write_text(readme, encoding="utf-8")
    print(f"regenerated {RULES_DOC.relative_to(ROOT)} ({len(EXAMPLES)} examples) and the command "
          f"reference of {README.relative_to(ROOT)} ({len(leaf_commands(commands))} commands)", file=sys.stderr)


if __name__ == "__main__":
    regenerate()
