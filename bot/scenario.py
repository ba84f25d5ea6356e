"""Scenario files (issue 16): a whole game set-up in one YAML document, read with line numbers.

The model and the game it makes are the rules core's (``bot/core/scenario.py``); this module reads
and writes the file. ``read`` refuses a bad file with one message naming the line and the field
(``ScenarioFileError``): YAML that does not parse, an unknown field, a bad value, a counter type the
library lacks, a Location the file does not list, a stack over the set-up's limit, a ruleset that
is not the game's. Line numbers come from PyYAML's composed nodes, the field's path from pydantic
(or from the core's ``ScenarioRefused``), walked down the node tree. ``write`` is the reverse, and
``read(write(game))`` sets the same game up again. ``schema`` is docs/scenario.schema.json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from bot.core.errors import InvalidOrder, RulesError, plain_validation
from bot.core.fileformat import FileFormat
from bot.core.game import Game
from bot.core.rulesets import get_ruleset, rulesets
from bot.core.scenario import Scenario, ScenarioRefused, ScenarioUnit, build_game, scenario_of
from bot.core.setup import unit_references
from bot.core.sequence import SEQUENCE

__all__ = ["MAX_BYTES", "MAX_DEPTH", "Loaded", "Scenario", "ScenarioFileError", "ScenarioUnit", "file_format",
           "file_formats", "max_upload", "read", "read_cost", "read_file", "read_given", "schema", "write"]

MAX_BYTES = 256 * 1024  # a 400-counter scenario is ~30 KB
# lists and mappings nested in one another: a scenario needs 7 (the file, its sides, a side, its
# units, a unit, its stats, a list in them); deeper is refused before the tree is built, whose
# building recurses (a 2 KB file of a list nested 998 deep overflowed Python's stack)
MAX_DEPTH = 16
# bot/work.py's steps (20 us) a byte of a file costs to read and check by setting it up once: 2 us a
# byte measured for a small file, 13 for a 70 KB one of 2,000 Locations on the loaded machine
READ_STEPS_PER_BYTE = 0.5


class ScenarioFileError(InvalidOrder):
    """A scenario file that cannot be set up: the message names its line and field."""

    def __init__(self, message: str, *, line: int | None = None, field: str | None = None):
        where = ", ".join(part for part in (f"line {line}" if line else "", f"'{field}'" if field else "") if part)
        super().__init__(f"Scenario file, {where}: {message}" if where else f"Scenario file: {message}",
                         field=field)
        self.line = line
        self.where = field


def _field_name(path: tuple[Any, ...]) -> str:
    """("sides", 0, "units", 3, "type") -> "sides[0].units[3].type"."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _node_at(root: yaml.Node, path: tuple[Any, ...], *, key: bool = False) -> yaml.Node:
    """The deepest node along ``path`` (the key's node for the last step when ``key``)."""
    node = root
    for i, part in enumerate(path):
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == part), None)
            if found is None:
                return node
            node = found[0] if key and i == len(path) - 1 else found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
        else:
            return node
    return node


def _line(root: yaml.Node | None, path: tuple[Any, ...], *, key: bool = False) -> int | None:
    """The line of the field at ``path``: a list or mapping given under a key is named by the key's line."""
    if root is None:
        return None
    node = _node_at(root, path, key=key)
    if not key and path and isinstance(path[-1], str) and isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        node = _node_at(root, path, key=True)
    return node.start_mark.line + 1


SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML was built with it: 10x faster


def _compose(text: str) -> tuple[yaml.Node | None, Any]:
    """The document's node tree (for line numbers) and its data, read once; anchors and aliases
    refused (a few lines of them can expand to gigabytes)."""
    try:
        depth = 0
        for event in yaml.parse(text, Loader=SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise ScenarioFileError("anchors and aliases (& and *) are not used in scenario files: write each "
                                        "value out", line=event.start_mark.line + 1)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise ScenarioFileError(f"lists and mappings are nested more than {MAX_DEPTH} deep here; a "
                                            "scenario file nests a few (docs/scenarios.md)",
                                            line=event.start_mark.line + 1)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        loader = SafeLoader(text)
        try:
            root = loader.get_single_node()
            data = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ScenarioFileError(f"this is not valid YAML: {exc.problem or exc.context}",
                                line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise ScenarioFileError(f"this is not valid YAML: {exc}") from None
    if root is not None:
        _check_keys(root, ())
    return root, data


def _check_keys(node: yaml.Node, path: tuple[Any, ...]) -> None:
    """Refuse a key given twice in one mapping (PyYAML would keep the last silently)."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if key.value in seen:
                raise ScenarioFileError(f"'{key.value}' is given twice here", line=key.start_mark.line + 1,
                                        field=_field_name((*path, key.value)))
            seen.add(key.value)
            _check_keys(value, (*path, key.value))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _check_keys(item, (*path, i))


def _validation_error(root: yaml.Node | None, exc: ValidationError, data: Any = None) -> ScenarioFileError:
    """The first of the file's errors, by line (the one a reader meets first), in players' words."""
    errors = exc.errors(include_url=False)
    # a field missing where an unknown one is given is most often that field misspelt: name the unknown one
    unknown = {tuple(e.get("loc", ()))[:-1] for e in errors if e.get("type") == "extra_forbidden"}
    errors = [e for e in errors if not (e.get("type") == "missing" and tuple(e.get("loc", ()))[:-1] in unknown)]
    err = min(errors, key=lambda e: _line(root, _strip_union(tuple(e.get("loc", ()))),
                                          key=e.get("type") == "extra_forbidden") or 0)
    path = tuple(err.get("loc", ()))
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        parent = path[:-1]
        known = _known_fields(parent)
        message = f"unknown field '{path[-1]}'" + (f" (fields here: {', '.join(known)})" if known else "")
        return ScenarioFileError(message, line=_line(root, path, key=True), field=_field_name(path))
    if kind == "missing":
        return ScenarioFileError(f"'{path[-1]}' is missing: it is required", line=_line(root, path[:-1]),
                                 field=_field_name(path))
    where = _strip_union(path)
    message = file_words(err, where, data, union=len(where) < len(path))  # players' words, not pydantic's
    return ScenarioFileError(message, line=_line(root, where), field=_field_name(where))


# what a field of a union takes, by the name of the mapping it is in (bot/core/scenario.py: Value, Scalar)
UNION_WORDS = {"stats": "a number, yes or no, a word, a list of words, or numbers by range band ({short: 6})",
               "options": "one value: a number, yes or no, or a word"}


def file_words(err: dict[str, Any], where: tuple[Any, ...], data: Any = None, *, union: bool = False) -> str:
    """One of pydantic's errors about a scenario file said in a file's own terms (``plain_validation``
    speaks of slash options): an item of a list by its number, a list and a mapping as YAML writes
    them, a unit's stat by what the ruleset's counters take."""
    if where and isinstance(where[-1], int):  # an item of a list: 'features' item 2
        parent = next((p for p in reversed(where) if isinstance(p, str)), "the list")
        return plain_validation(err, parent).replace(f"'{parent}'", f"'{parent}' item {where[-1] + 1}", 1)
    name = str(where[-1]) if where else "the file"
    value = err.get("input")
    if union:
        stat = _stat_words(where, value, data)
        if stat is not None:
            return stat
        takes = UNION_WORDS["stats" if "stats" in where else "options"]
        return f"'{name}' takes {takes}, not '{_shown(value)}'"
    kind = str(err.get("type", ""))
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"'{name}' takes a list, written [a, b] or one '- item' a line, not '{_shown(value)}'"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"'{name}' takes fields written 'key: value' (one a line, or {{key: value, ...}}), not '{_shown(value)}'"
    return plain_validation(err, name)


def _shown(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 30 else text[:29] + "…"


def _stat_words(where: tuple[Any, ...], value: Any, data: Any) -> str | None:
    """A unit's stat that is none of a scenario's kinds of value, said as the ruleset's counters take
    it ('morale' takes a whole number); None when the file's ruleset or the field is unknown."""
    if len(where) < 2 or where[-2] != "stats" or not isinstance(data, dict):
        return None
    try:
        model = get_ruleset(str(data.get("ruleset", ""))).unit_model()
    except RulesError:
        return None
    info = model.model_fields.get(str(where[-1]))
    if info is None:
        return None
    try:
        TypeAdapter(info.annotation).validate_python(value)
    except ValidationError as exc:
        return plain_validation(exc.errors(include_url=False)[0], str(where[-1]))
    return None


def _strip_union(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """pydantic names the member of a union it tried (``int``, ``dict[str,int]``): not a field of the file."""
    out = []
    for part in path:
        if isinstance(part, str) and (part in ("int", "float", "bool", "str") or "[" in part):
            break
        out.append(part)
    return tuple(out)


def _known_fields(path: tuple[Any, ...]) -> list[str]:
    from bot.core.scenario import ScenarioHidden, ScenarioLocation, ScenarioSide

    names = [p for p in path if isinstance(p, str)]
    model: Any = {(): Scenario, ("sides",): ScenarioSide, ("locations",): ScenarioLocation,
                  ("sides", "units"): ScenarioUnit, ("sides", "hidden"): ScenarioHidden}.get(tuple(names))
    return list(model.model_fields) if model is not None else []


def parse(text: str | bytes) -> tuple[Scenario, yaml.Node | None]:
    """The file's model and its node tree; refused (``ScenarioFileError``) if it is not a scenario."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise ScenarioFileError(f"the file has {len(text):,} bytes; a scenario file has at most {MAX_BYTES:,}")
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ScenarioFileError(f"the file is not UTF-8 text (byte {exc.start})") from None
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ScenarioFileError(f"the file has more than {MAX_BYTES:,} bytes, the most a scenario file has")
    root, data = _compose(text)
    if not isinstance(data, dict):
        raise ScenarioFileError("a scenario file is a mapping of fields (ruleset, title, sides, locations, ...)",
                                line=_line(root, ()) or 1)
    try:
        return Scenario.model_validate(data), root
    except ValidationError as exc:
        raise _validation_error(root, exc, data) from None


def read(text: str | bytes, *, ruleset: str | None = None, gm: int | None = None,
         sequence: int | None = SEQUENCE, **overrides: Any) -> Scenario:
    """A scenario file, checked whole: parsed, then set up once (nothing is kept) so that any refusal
    names its line. ``ruleset``: the game's ruleset, which the file must be for. ``overrides``: fields
    replaced before the set-up (``/game new``'s options), e.g. ``title``, ``variant``, ``side_names``."""
    scenario, root = parse(text)
    if ruleset is not None and scenario.ruleset.casefold() != ruleset.casefold():
        raise ScenarioFileError(f"this scenario is for '{scenario.ruleset}', not for the game's ruleset '{ruleset}'",
                                line=_line(root, ("ruleset",)), field="ruleset")
    try:
        scenario = apply_overrides(scenario, **overrides)
    except ValidationError as exc:  # what /game new gave does not fit a scenario (a side's name too long)
        err = exc.errors(include_url=False)[0]
        raise InvalidOrder(f"{plain_validation(err, _field_name(tuple(err.get('loc', ()))))} (given with the file)",
                           field=str(err.get("loc", ("",))[0])) from None
    try:
        game = build_game(scenario, gm=gm, sequence=sequence)
        _check_companies(game, scenario)
    except ScenarioRefused as exc:
        raise ScenarioFileError(exc.message, line=_line(root, exc.path), field=_field_name(exc.path)) from None
    return scenario


def _check_companies(game: Game, scenario: Scenario) -> None:
    """A company (a unit field declared ``Refers("company")``, as /unit add checks it) is one side's,
    spelled one way: a stand of the other side in it, or its name in other letters, is refused on the
    stat's line. Checked as the file is read, not when the log replays a game set up from it."""
    first: dict[tuple[str, str], tuple[str, int, str]] = {}  # (field, name folded) -> (unit, side, spelling)
    for i, side in enumerate(scenario.sides):
        for j, spec in enumerate(side.units):
            unit = game.units.get(spec.id)
            if unit is None:
                continue
            for name, ref in unit_references(type(unit)):
                value = getattr(unit, name, None)
                if ref.to != "company" or not value:
                    continue
                path = ("sides", i, "units", j, "stats", name)
                seen = first.setdefault((name, str(value).casefold()), (unit.id, unit.side, str(value)))
                if seen[1] != unit.side:
                    raise ScenarioRefused(path, f"{unit.id}: {ref.to} {value} belongs to {game.side_name(seen[1])} "
                                          f"({seen[0]}); a unit of {game.side_name(unit.side)} is in one of its own")
                if seen[2] != str(value):
                    raise ScenarioRefused(path, f"{unit.id}: {ref.to} '{value}' is spelled '{seen[2]}' by {seen[0]}: "
                                          "write it the same way, or it is another company")


def read_given(data: bytes, given: dict[str, Any]) -> Loaded:
    """``read_file(data, **given)``: the job a worker process runs for an attached file (bot/work.py)."""
    return read_file(data, **given)


def read_cost(size: int) -> float:
    """What reading and setting up a file of ``size`` bytes costs, in bot/work.py's steps."""
    return size * READ_STEPS_PER_BYTE


@dataclass(frozen=True)
class Loaded:
    """A file read as a scenario: a scenario file, or a file of another program a ruleset reads
    (``format``: its title); ``not_mapped``: what that file held and the bot could not map, one line
    each (public: never a hidden piece); ``notes`` for the loader (terrain to set, ...)."""

    scenario: Scenario
    not_mapped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    format: str | None = None


def file_formats() -> list[FileFormat]:
    """Every file format the registered rulesets read (bot/core/fileformat.py)."""
    return [fmt for ruleset in rulesets() for fmt in ruleset.file_formats()]


def file_format(data: bytes) -> FileFormat | None:
    """The format of a file of another program, told by its content (not by its name)."""
    return next((fmt for fmt in file_formats() if fmt.detect(data)), None)


def max_upload() -> int:
    """The most bytes a file given to /scenario load may have: a scenario file's, or a format's."""
    return max([MAX_BYTES, *(fmt.max_bytes for fmt in file_formats())])


def read_file(data: bytes, *, ruleset: str | None = None, gm: int | None = None,
              sequence: int | None = SEQUENCE, **overrides: Any) -> Loaded:
    """A scenario file, or a file of another program a ruleset reads (a VASL saved game), checked
    whole as ``read`` checks a scenario file: set up once, nothing kept; refused in one line."""
    fmt = file_format(data)
    if fmt is None:
        if data.startswith(b"PK\x03\x04"):
            known = "; ".join(f.title for f in file_formats()) or "none"
            raise ScenarioFileError(f"this is a ZIP archive, but none the bot reads (it reads: {known})")
        return Loaded(read(data, ruleset=ruleset, gm=gm, sequence=sequence, **overrides))
    imported = fmt.read(data)
    scenario = imported.scenario
    if ruleset is not None and scenario.ruleset.casefold() != ruleset.casefold():
        raise InvalidOrder(f"{fmt.title}: it sets up a game of '{scenario.ruleset}', not of the game's ruleset "
                           f"'{ruleset}'", field="ruleset")
    try:
        scenario = apply_overrides(scenario, **overrides)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise InvalidOrder(f"{plain_validation(err, _field_name(tuple(err.get('loc', ()))))} (given with the file)",
                           field=str(err.get("loc", ("",))[0])) from None
    try:
        build_game(scenario, gm=gm, sequence=sequence)
    except ScenarioRefused as exc:
        raise InvalidOrder(f"{fmt.title}: {exc.message}", field="file") from None
    return Loaded(scenario, imported.not_mapped, imported.notes, fmt.title)


def apply_overrides(scenario: Scenario, *, title: str | None = None, variant: str | None = None,
                    side_names: list[str] | None = None, side_options: dict[str, list[Any]] | None = None,
                    options: dict[str, Any] | None = None) -> Scenario:
    """The scenario with what ``/game new`` gave besides the file (its options win)."""
    update: dict[str, Any] = {}
    if title:
        update["title"] = title
    if variant:
        update["variant"] = variant
    if options:
        update["options"] = {**scenario.options, **options}
    if side_names or side_options:
        sides = []
        for i, side in enumerate(scenario.sides):
            changes: dict[str, Any] = {}
            if side_names and i < len(side_names):
                changes["name"] = side_names[i]
            given = {k: v[i] for k, v in (side_options or {}).items() if i < len(v) and v[i] is not None}
            if given:
                changes["options"] = {**side.options, **given}
            sides.append(side.model_copy(update=changes))
        update["sides"] = sides
    # validated again: the log keeps the scenario, and its replay validates it
    return Scenario.model_validate({**scenario.model_dump(), **{k: v for k, v in update.items() if k != "sides"},
                                    **({"sides": [s.model_dump() for s in update["sides"]]} if "sides" in update
                                       else {})}) if update else scenario


def dump(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain data, defaults left out: what a log entry keeps and a file holds."""
    return scenario.model_dump(mode="json", exclude_defaults=True)


def write(game: Game, hidden: dict[int, str] | None = None) -> str:
    """The game's set-up as a scenario file (YAML) that ``read`` sets up again; ``hidden``: the sides'
    hidden parts to write (the revealed ones: a part still sealed is never written)."""
    data = dump(scenario_of(game, hidden))
    header = ("# Referee scenario file (docs/scenarios.md); load it with /scenario load\n"
              f"# or /game new ... file:. Written from the game at turn {game.turn}, {game.phase}: loading it\n"
              "# starts a new game at its first phase, with the units as they stood.\n")
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return header + yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100,
                              default_flow_style=None)


def scenario_text(scenario: Scenario, header: str = "") -> str:
    """A scenario as a scenario file (YAML), under ``header``'s comment lines."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return comments + yaml.dump(dump(scenario), Dumper=dumper, sort_keys=False, allow_unicode=True, width=100,
                                default_flow_style=None)


def converted_text(loaded: Loaded) -> str:
    """A file read by ``read_file`` written as a scenario file, what it could not map and the notes in
    its header (its hidden parts included: the one who converts the file owns it)."""
    header = [f"Referee scenario file (docs/scenarios.md), converted from a {loaded.format or 'scenario file'}.",
              "Check it before loading: each unit's type and Location, the hidden parts, the terrain."]
    if loaded.not_mapped:
        header += [f"Not mapped ({len(loaded.not_mapped)}):", *(f"  - {line}" for line in loaded.not_mapped)]
    header += list(loaded.notes)
    return scenario_text(loaded.scenario, "\n".join(header))


def schema() -> dict[str, Any]:
    """The JSON Schema of scenario files (docs/scenario.schema.json)."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **Scenario.model_json_schema()}


def schema_text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"
