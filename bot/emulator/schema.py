"""Typing a test's options against the command schema the bot really synced.

A test writes ``{"target": "A1", "dice": 7}``; Discord would send typed options built from the
schema the bot registered. Building them here from that schema (and refusing what Discord
itself would refuse: an unknown command or option, a wrong type, a missing required option,
a value outside the choices or bounds) means a test cannot pass against a command shape the
real client would never see. Failures are AssertionErrors: they are the test's mistake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
TYPE_NAMES = {1: "subcommand", 2: "subcommand group", 3: "string", 4: "integer", 5: "boolean", 6: "user",
              7: "channel", 8: "role", 9: "mentionable", 10: "number", 11: "attachment"}
SNOWFLAKE_TYPES = (USER, CHANNEL, ROLE, MENTIONABLE)
MAX_SAFE_INTEGER = 2**53  # Discord's integer options are bounded by the JSON-safe range


@dataclass
class BuiltCommand:
    """The ``data`` part of an INTERACTION_CREATE, plus the snowflakes it mentions (for ``resolved``)."""

    root: dict[str, Any]
    options: list[dict[str, Any]]
    mentioned: list[tuple[int, int]] = field(default_factory=list)  # (option type, id)


def find_command(commands: list[dict[str, Any]], path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The root command and the chain of subcommand group/subcommand schemas along ``path``."""
    names = path.split()
    if not names:
        raise AssertionError("empty command name")
    root = next((c for c in commands if c.get("name") == names[0] and c.get("type", 1) == 1), None)
    if root is None:
        known = sorted(c.get("name", "?") for c in commands)
        raise AssertionError(f"/{names[0]} was not synced by the bot; synced commands: {known}")
    chain: list[dict[str, Any]] = []
    node = root
    for name in names[1:]:
        subs = [o for o in node.get("options") or [] if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        nxt = next((o for o in subs if o["name"] == name), None)
        if nxt is None:
            raise AssertionError(f"/{path}: '{name}' is not a subcommand of /{node['name']}; "
                                 f"known: {sorted(o['name'] for o in subs)}")
        chain.append(nxt)
        node = nxt
    if any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in node.get("options") or []):
        raise AssertionError(f"/{path} needs a subcommand; known: {sorted(o['name'] for o in node['options'])}")
    return root, chain


def build_command(commands: list[dict[str, Any]], path: str, values: dict[str, Any] | list[dict[str, Any]],
                  *, focused: str | None = None, check: bool = True) -> BuiltCommand:
    root, chain = find_command(commands, path)
    leaf = chain[-1] if chain else root
    schema = {o["name"]: o for o in leaf.get("options") or []}
    if isinstance(values, dict):
        typed = [_typed(path, schema, name, value, focused == name) for name, value in values.items()]
    else:
        typed = [dict(o) for o in values]  # already typed by the test: sent as given, still checked
    if check:
        _check_options(path, schema, typed, autocomplete=focused is not None)
    if focused is not None:
        _mark_focused(path, schema, typed, focused)
    built = BuiltCommand(root=root, options=_nest(chain, typed))
    built.mentioned = [(o["type"], int(o["value"])) for o in typed
                       if o.get("type") in SNOWFLAKE_TYPES and str(o.get("value", "")).isdigit()]
    return built


def _nest(chain: list[dict[str, Any]], leaf_options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wrap the leaf's options in the subcommand group/subcommand layers, innermost last."""
    options = leaf_options
    for node in reversed(chain):
        options = [{"name": node["name"], "type": node["type"], "options": options}]
    return options


def _typed(path: str, schema: dict[str, Any], name: str, value: Any, focused: bool) -> dict[str, Any]:
    option = schema.get(name)
    if option is None:
        raise AssertionError(f"/{path} has no option '{name}'; its options: {sorted(schema)}")
    kind = option["type"]
    if focused:
        # Discord sends what the user has typed so far, a string, whatever the option's type
        return {"name": name, "type": kind, "value": str(value), "focused": True}
    if kind in SNOWFLAKE_TYPES:
        value = str(getattr(value, "id", value))
    return {"name": name, "type": kind, "value": value}


def _check_options(path: str, schema: dict[str, Any], typed: list[dict[str, Any]], *, autocomplete: bool) -> None:
    seen = set()
    for option in typed:
        name = option.get("name")
        spec = schema.get(name)
        if spec is None:
            raise AssertionError(f"/{path} has no option '{name}'; its options: {sorted(schema)}")
        if name in seen:
            raise AssertionError(f"/{path}: option '{name}' given twice")
        seen.add(name)
        if option.get("type") != spec["type"]:
            raise AssertionError(f"/{path} option '{name}' is a {TYPE_NAMES.get(spec['type'])} "
                                 f"(type {spec['type']}), not type {option.get('type')}")
        if not option.get("focused"):
            _check_value(path, spec, option.get("value"))
    if not autocomplete:  # while a user is still typing, required options may be missing
        missing = sorted(n for n, s in schema.items() if s.get("required") and n not in seen)
        if missing:
            raise AssertionError(f"/{path} is missing required option(s): {missing}")


def _check_value(path: str, spec: dict[str, Any], value: Any) -> None:
    name, kind = spec["name"], spec["type"]
    where = f"/{path} option '{name}'"
    _check_python_type(where, kind, value)
    choices = spec.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise AssertionError(f"{where}: {value!r} is not among the choices {[c['value'] for c in choices]}")
    if kind in (INTEGER, NUMBER):
        low, high = spec.get("min_value"), spec.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise AssertionError(f"{where}: {value!r} is outside [{low}, {high}]")
    if kind == STRING:
        low, high = spec.get("min_length"), spec.get("max_length", 6000)
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            raise AssertionError(f"{where}: length {len(value)} is outside [{low}, {high}]")


def _check_python_type(where: str, kind: int, value: Any) -> None:
    ok = {
        STRING: isinstance(value, str),
        INTEGER: isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_SAFE_INTEGER,
        BOOLEAN: isinstance(value, bool),
        NUMBER: isinstance(value, (int, float)) and not isinstance(value, bool),
    }.get(kind, isinstance(value, str) and value.isdigit())  # snowflakes, attachments: an id
    if not ok:
        raise AssertionError(f"{where} expects a {TYPE_NAMES.get(kind)}, got {value!r}")


def _mark_focused(path: str, schema: dict[str, Any], typed: list[dict[str, Any]], focused: str) -> None:
    spec = schema.get(focused)
    if spec is None:
        raise AssertionError(f"/{path} has no option '{focused}' to focus; its options: {sorted(schema)}")
    if not spec.get("autocomplete"):
        raise AssertionError(f"/{path} option '{focused}' has no autocomplete")
    if not any(o.get("name") == focused for o in typed):
        typed.append({"name": focused, "type": spec["type"], "value": "", "focused": True})


# --- what Discord refuses at registration (PUT .../commands: 400, code 50035 Invalid Form Body) ---------
# Limits from Discord's documentation of application commands: a chat-input name matches NAME_PATTERN
# (lower case where the letter has one), 1-32 characters; a description 1-100; at most 25 options
# and 25 choices; a choice's name 1-100 and a string value at most 100; required options before
# optional ones; at most 100 chat-input commands per scope; names unique in their scope; and the
# name, description and value properties of a command, its options and choices at most 4,000
# characters together.
NAME_PATTERN = re.compile(r"^[-_'\w]{1,32}$")
MAX_DESCRIPTION, MAX_OPTIONS, MAX_CHOICES, MAX_CHOICE_TEXT, MAX_COMMANDS, MAX_COMBINED = 100, 25, 25, 100, 100, 4000


def registration_errors(commands: list[dict[str, Any]]) -> dict[str, Any]:
    """Discord's ``errors`` object for a bulk overwrite it would refuse (empty: accepted), keyed by
    the JSON path of each bad field as Discord nests them (``"3": {"description": {"_errors": …}}``)."""
    errors: dict[str, Any] = {}
    names = [c.get("name") for c in commands if c.get("type", 1) == 1]
    if len(names) > MAX_COMMANDS:
        errors["_errors"] = [_refusal("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_COMMANDS} or fewer in length.")]
    for index, command in enumerate(commands):
        found: dict[str, Any] = {}
        if command.get("type", 1) == 1:
            _registered_name(command, found)
            if names.count(command.get("name")) > 1:
                found.setdefault("name", {"_errors": []})["_errors"].append(
                    _refusal("APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"))
            _registered_options(command.get("options") or [], found)
            if _combined_length(command) > MAX_COMBINED:
                found.setdefault("_errors", []).append(_refusal(
                    "APPLICATION_COMMAND_TOO_LARGE", f"Command exceeds maximum size ({MAX_COMBINED})"))
        if found:
            errors[str(index)] = found
    return errors


def _refusal(code: str, message: str) -> dict[str, str]:
    return {"code": code, "message": message}


def _registered_name(item: dict[str, Any], found: dict[str, Any]) -> None:
    name, description = item.get("name"), item.get("description")
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or name != name.lower():
        found["name"] = {"_errors": [_refusal("APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")]}
    if not isinstance(description, str) or not 1 <= len(description) <= MAX_DESCRIPTION:
        found["description"] = {"_errors": [_refusal(
            "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {MAX_DESCRIPTION} in length.")]}


def _registered_options(options: list[dict[str, Any]], found: dict[str, Any]) -> None:
    bad: dict[str, Any] = {}
    if len(options) > MAX_OPTIONS:
        bad["_errors"] = [_refusal("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_OPTIONS} or fewer in length.")]
    seen_optional = False
    for index, option in enumerate(options):
        mine: dict[str, Any] = {}
        _registered_name(option, mine)
        if option.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
            _registered_options(option.get("options") or [], mine)
        elif option.get("required"):
            if seen_optional:
                mine.setdefault("required", {"_errors": []})["_errors"].append(_refusal(
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options"))
        else:
            seen_optional = True
        choices = option.get("choices") or []
        if len(choices) > MAX_CHOICES or (choices and option.get("autocomplete")):
            mine.setdefault("choices", {"_errors": []})["_errors"].append(_refusal(
                "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_CHOICES} or fewer in length, without autocomplete."))
        for number, choice in enumerate(choices):
            value = choice.get("value")
            if not 1 <= len(str(choice.get("name", ""))) <= MAX_CHOICE_TEXT or (
                    isinstance(value, str) and len(value) > MAX_CHOICE_TEXT):
                mine.setdefault("choices", {})[str(number)] = {"_errors": [_refusal(
                    "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {MAX_CHOICE_TEXT} in length.")]}
        if mine:
            bad[str(index)] = mine
    if bad:
        found["options"] = bad


def _combined_length(item: dict[str, Any]) -> int:
    total = len(str(item.get("name", ""))) + len(str(item.get("description", "")))
    for choice in item.get("choices") or []:
        total += len(str(choice.get("name", ""))) + len(str(choice.get("value", "")))
    return total + sum(_combined_length(option) for option in item.get("options") or [])
