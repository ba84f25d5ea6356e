"""Typing a test's options against the command schema the bot really synced.

A test writes ``{"target": "A1", "dice": 7}``; Discord would send typed options built from the
schema the bot registered. Building them here from that schema (and refusing what Discord
itself would refuse: an unknown command or option, a wrong type, a missing required option,
a value outside the choices or bounds) means a test cannot pass against a command shape the
real client would never see. Failures are AssertionErrors: they are the test's mistake.
"""

from __future__ import annotations

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
