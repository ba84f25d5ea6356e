"""`python -m bot [run|sandbox|rules|health]`: the command line, and the scriptable rules interface.

``rules`` reads one JSON request on stdin and writes the outcome and the new game on stdout,
so groups that roll their own dice, players without Discord, other tools and tests can use the
very same rules core the bot uses. It never prints a traceback: a refused order exits 2 with the
player-facing message on stderr. See docs/rules-interface.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Literal, TextIO, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator, model_validator

from bot.core.api import resolve, validation_message
from bot.core.dice import DiceSource, ScriptedDice, SystemDice
from bot.core.errors import IllegalOrder, InvalidOrder, RulesError
from bot.core.game import Game
from bot.core.rulesets import get_ruleset, names, rulesets
from bot.plugins import PluginUnusable, load_plugins
from bot.core.version import LEGACY_RULES_VERSION, RULES_VERSION
from bot.gateway_watch import gateway_problem

EXIT_OK = 0
EXIT_FAILED = 1  # a replay that differs; the sandbox missing; an internal error
EXIT_REFUSED = 2  # bad usage, malformed JSON, an invalid or illegal order, a missing token
MAX_DICE = 200
# what a request (or an export to replay) may be, checked before anything is built from it: the
# bot's own caps (units, locations, log entries) hold here too, and no JSON shape (nested 200,000
# deep, a 5,000-digit number) reaches the parser's or the rules core's limits as an internal error
MAX_REQUEST_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 40  # a game as the bot writes it nests about 8 deep
MAX_NUMBER = 2 ** 64  # Discord's ids (user, channel, interaction) are 64-bit: nothing larger is needed
MAX_EXPORT_BYTES = 2 * 1024 ** 3  # a full log (100,000 entries of a few KB) as JSON
MAX_POSTED_CHARS = 10_000_000  # the lines pasted from a channel for `rules audit --posted`


# --- the request -------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LocationSpec(_Strict):
    id: str
    terrain: str
    features: list[str] = Field(default_factory=list)


class UnitSpec(_Strict):
    id: str
    type: str | None = None  # a counter type of the ruleset's library; None: all stats given
    side: int
    location: str | None = None
    stats: dict[str, Any] = Field(default_factory=dict)


class Situation(_Strict):
    """A position described in a few lines; built through the same set-up orders as a game."""

    sides: list[str] = Field(min_length=2, max_length=2)
    scenario: str = ""
    variant: str | None = None
    phase: str | None = None  # short ("PFPh") or long ("Prep Fire Phase") name
    turn: int = Field(default=1, ge=1)
    active_side: int = Field(default=0, ge=0, le=1)
    options: dict[str, Any] = Field(default_factory=dict)
    locations: list[LocationSpec] = Field(default_factory=list)
    units: list[UnitSpec] = Field(default_factory=list)


class RulesRequest(_Strict):
    ruleset: str  # a registered ruleset's name (the schema lists them)
    game: dict[str, Any] | None = None  # a full Game, as written by an earlier request
    situation: Situation | None = None
    order: dict[str, Any]  # validated by the ruleset, exactly as a slash command's order
    dice: list[int] | None = Field(default=None, max_length=MAX_DICE)  # manual dice; None: rolled

    @field_validator("ruleset")
    @classmethod
    def _registered(cls, name: str) -> str:
        if name not in names():
            raise ValueError(f"unknown ruleset '{name[:30]}' (choose one of: {', '.join(names())})")
        return name

    @model_validator(mode="after")
    def _one_position(self) -> "RulesRequest":
        if (self.game is None) == (self.situation is None):
            raise ValueError("give either 'game' or 'situation', not both and not neither")
        return self


def request_schema() -> dict[str, Any]:
    """The JSON Schema of a request, with the orders of every ruleset spelled out."""
    from bot.core.setup import SetupOrder

    orders: list[Any] = list(SetupOrder.__args__)
    for ruleset in rulesets():
        for model in ruleset.order_type.__args__:
            if model not in orders:
                orders.append(model)
    schema_model = create_model(
        "RulesRequest", __base__=RulesRequest,
        ruleset=(Literal[names()], ...),  # type: ignore[valid-type]
        game=(Game | None, None),
        order=(Union[tuple(orders)], ...),  # anyOf: the same action name differs per ruleset
    )
    schema = schema_model.model_json_schema()
    schema["title"] = "Referee rules request"
    schema["description"] = ("One order for the rules core: a ruleset, a position ('game' or "
                             "'situation'), the order, and optionally the dice (manual dice).")
    return schema


# --- building the position -----------------------------------------------------------------


def _phase(ruleset_name: str, given: str) -> str:
    ruleset = get_ruleset(ruleset_name)
    wanted = given.strip().casefold()
    for short in ruleset.phases:
        if wanted in (short.casefold(), ruleset.phase_names.get(short, short).casefold()):
            return short
    raise InvalidOrder(f"unknown phase '{given}' (phases: {', '.join(ruleset.phases)})",
                       field="situation.phase")


def _apply(game: Game, order: dict[str, Any], where: str) -> Game:
    """One set-up order; an error says which entry of the situation it came from."""
    try:
        return resolve(game, order, ScriptedDice([], manual=False)).game
    except RulesError as exc:
        raise type(exc)(f"{where}: {exc.message}", rule=exc.rule, field=exc.field) from None


def build_situation(ruleset_name: str, situation: Situation) -> Game:
    from bot.core.api import new_game

    # a situation is a game created today: the ruleset's creation defaults, unless the request sets them
    options = {**get_ruleset(ruleset_name).creation_defaults, **situation.options}
    game = new_game(ruleset_name, sides=situation.sides, scenario=situation.scenario,
                    variant=situation.variant, options=options)
    if situation.phase is not None:
        game.phase = _phase(ruleset_name, situation.phase)
    game.turn = situation.turn
    game.active_side = situation.active_side
    for i, loc in enumerate(situation.locations):
        game = _apply(game, {"action": "location_set", "location": loc.id, "terrain": loc.terrain,
                             "features": loc.features}, f"situation.locations[{i}] ({loc.id})")
    for i, unit in enumerate(situation.units):
        order = {"action": "unit_add", "id": unit.id, "side": unit.side, "location": unit.location,
                 "stats": unit.stats}
        if unit.type is not None:
            order["type"] = unit.type
        game = _apply(game, order, f"situation.units[{i}] ({unit.id})")
    return game


def _position(request: RulesRequest) -> Game:
    if request.situation is not None:
        return build_situation(request.ruleset, request.situation)
    try:
        game = Game.model_validate(request.game)
    except ValidationError as exc:
        message, field = validation_message(exc)
        raise InvalidOrder(f"game: {message}", field=f"game.{field}") from None
    check_caps(game)
    if game.ruleset != request.ruleset:
        raise InvalidOrder(f"the game is a '{game.ruleset}' game, but the request says "
                           f"'{request.ruleset}'", field="ruleset")
    return game


def answer(request: RulesRequest) -> dict[str, Any]:
    """Resolve a request: {"outcome": ..., "game": ...} (raises RulesError when refused)."""
    game = _position(request)
    dice: DiceSource = ScriptedDice(request.dice) if request.dice is not None else SystemDice()
    resolution = resolve(game, request.order, dice)
    return {"outcome": resolution.outcome.model_dump(mode="json"),
            "game": resolution.game.model_dump(mode="json")}


def preview_answer(request: RulesRequest) -> dict[str, Any]:
    """The exact odds of the request's order (``--preview``): the same position and order as
    ``answer``, no dice rolled; the OddsReport as JSON (fractions as "n/d" with a percentage)."""
    from bot.core.odds import preview

    if request.dice is not None:
        raise _Usage("a preview rolls no dice: leave 'dice' out of the request")
    return preview(_position(request), request.order).model_dump(mode="json")


# --- the rules command ---------------------------------------------------------------------


def refusal(exc: RulesError) -> str:
    """The one line written to stderr for a refused order."""
    kind = {InvalidOrder: "invalid order", IllegalOrder: "illegal order"}.get(type(exc), "refused")
    rule = f" ({exc.rule})" if exc.rule and exc.rule not in exc.message else ""
    return f"{kind}: {exc.message}{rule}"


def read_json(text: str, what: str, limit: int = MAX_REQUEST_BYTES) -> Any:
    """``text`` as JSON within the shape limits above; _Usage (exit 2) naming what is wrong."""
    if len(text) > limit:
        raise _Usage(f"the JSON {what} is over {limit:,} characters")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Usage(f"malformed JSON {what}: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise _Usage(f"the JSON {what} nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # an integer longer than Python converts (4,300 digits)
        raise _Usage(f"the JSON {what} holds a number out of range ({str(exc).split(';')[0]})") from None
    check_shape(data, what)
    return data


def check_shape(data: Any, what: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH, integers past 2^64, NaN and infinities."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise _Usage(f"the JSON {what} nests deeper than {MAX_DEPTH} levels")
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and not -MAX_NUMBER <= value <= MAX_NUMBER:
            raise _Usage(f"the JSON {what} holds a number out of range ({len(str(abs(value)))} digits; at most 2^64)")
        elif isinstance(value, float) and (value != value or abs(value) == float("inf")):
            raise _Usage(f"the JSON {what} holds a number out of range (NaN or infinity)")


def check_caps(game: Game) -> None:
    """A game supplied whole is held to the caps a game in the bot has."""
    from bot.core.setup import MAX_LOCATIONS, MAX_UNITS

    if len(game.units) > MAX_UNITS:
        raise InvalidOrder(f"the game has {len(game.units):,} units; a game may have at most {MAX_UNITS}",
                           field="game.units")
    if len(game.locations) > MAX_LOCATIONS:
        raise InvalidOrder(f"the game has {len(game.locations):,} locations; a game may have at most "
                           f"{MAX_LOCATIONS}", field="game.locations")


def parse_request(text: str) -> RulesRequest:
    data = read_json(text, "on stdin")
    if not isinstance(data, dict):
        raise _Usage("the request must be one JSON object: {\"ruleset\", \"situation\" or \"game\", "
                     "\"order\", \"dice\"?}")
    try:
        return RulesRequest.model_validate(data)
    except ValidationError as exc:
        message, _field = validation_message(exc)
        raise _Usage(f"invalid request: {message}") from None


class _Usage(Exception):
    """A request the interface cannot read (exit 2)."""


def run_rules(stdin: TextIO, stdout: TextIO, stderr: TextIO, *, pretty: bool = False, preview: bool = False) -> int:
    try:
        request = parse_request(stdin.read(MAX_REQUEST_BYTES + 1))
        result = preview_answer(request) if preview else answer(request)
    except _Usage as exc:
        print(exc, file=stderr)
        return EXIT_REFUSED
    except RulesError as exc:
        print(refusal(exc), file=stderr)
        return EXIT_REFUSED
    except Exception as exc:  # a bug of ours: one line for the script calling us, not a traceback
        print(f"internal error (a bug in Referee, please report it): {type(exc).__name__}: {exc}",
              file=stderr)
        return EXIT_FAILED
    json.dump(result, stdout, indent=2 if pretty else None)
    stdout.write("\n")
    return EXIT_OK


def _entry_dice(entry: dict[str, Any]) -> list[int]:
    """The dice an entry was resolved with: as logged, else every die of its rolls in order
    followed by the unused manual dice (the same sequence the ScriptedDice gave out)."""
    if entry.get("dice") is not None:
        return [int(d) for d in entry["dice"]]
    outcome = entry.get("outcome") or {}
    rolled = [int(d) for roll in outcome.get("rolls", ()) for d in roll.get("dice", ())]
    return rolled + [int(d) for d in outcome.get("unused_dice", ())]


def _entry_rules_version(entry: dict[str, Any]) -> int:
    """The rules version an exported entry was logged under (bot/core/version.py). An entry
    without one that carries the log's hash was logged before versions were recorded: version 1.
    A hand-written entry (no hash) states what today's rules give, so it is checked bit for bit."""
    version = entry.get("rules_version")
    if version is None:
        return LEGACY_RULES_VERSION if "hash" in entry else RULES_VERSION
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"entry {entry.get('seq')}: rules_version must be a whole number from 1, "
                         f"not {json.dumps(version)}")
    return version


def replay_entries(entries: list[dict[str, Any]]) -> tuple[bool, str]:
    """Apply every logged order again with its logged dice; (ok, the report line). The same
    Replayer and the same check as /log verify: every entry must consume the same dice and reach
    the state it recorded; its outcome must be the same bit for bit if it was logged under
    today's rules version (its wording may differ under an earlier one)."""
    from bot.record.replay import Replayer, ReplayRefused, replay_difference, versions_note

    if not entries:
        return False, "the export holds no entries"
    replayer = Replayer()
    by_version: dict[int, int] = {}
    for number, entry in enumerate(entries, start=1):
        seq = entry.get("seq", number)
        version = _entry_rules_version(entry)
        logged = entry.get("outcome")
        manual = entry.get("manual", bool((logged or {}).get("manual_dice")))
        logged_state = entry.get("state_hash")
        if logged_state is not None and not isinstance(logged_state, str):
            raise ValueError(f"entry {seq}: state_hash must be a string")
        try:
            _game, outcome = replayer.apply(seq, entry.get("order") or {}, _entry_dice(entry), bool(manual))
        except ReplayRefused as exc:
            return False, f"entry {seq}: {exc}"
        except RulesError as exc:
            return False, f"entry {seq}: the order is now refused: {refusal(exc)}"
        replayed = outcome.model_dump(mode="json")
        # an entry without its outcome has only its state (when recorded) to compare
        difference = replay_difference(version, replayed if logged is None else logged, replayed,
                                       logged_state, replayer.last_hash)
        if difference is not None:
            earlier = f" (logged under rules version {version}; today's is {RULES_VERSION})"
            if difference.kind == "result":
                return False, f"entry {seq} differs: {difference.detail}"
            if difference.kind == "dice":
                return False, f"entry {seq} consumes different dice: {difference.detail}{earlier}"
            return False, (f"entry {seq} reaches a different state: {difference.detail}"
                           + (earlier if version != RULES_VERSION else ""))
        by_version[version] = by_version.get(version, 0) + 1
    note = versions_note(len(entries), by_version)
    if not note:
        return True, f"{len(entries)} entries reproduced bit for bit"
    return True, f"{len(entries)} entries reproduced: {note}"


def load_export(path: str) -> list[dict[str, Any]]:
    from bot.store.base import MAX_LOG_ENTRIES

    with open(path, encoding="utf-8") as handle:
        text = handle.read(MAX_EXPORT_BYTES + 1)
    if len(text) > MAX_EXPORT_BYTES:
        raise ValueError(f"the file is over {MAX_EXPORT_BYTES:,} characters, more than a game's log")
    try:
        data = read_json(text, "in the file", MAX_EXPORT_BYTES)
    except _Usage as exc:
        raise ValueError(str(exc)) from None
    entries = data.get("entries") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError("an export is a JSON list of log entries (or {\"entries\": [...]})")
    if len(entries) > MAX_LOG_ENTRIES + 1:  # the closing /game end may go one past the cap
        raise ValueError(f"it holds {len(entries):,} entries; a game's log holds at most {MAX_LOG_ENTRIES:,}")
    return entries


def run_replay(path: str, stdout: TextIO, stderr: TextIO) -> int:
    """Replay an exported log; report the first difference or that all entries reproduced."""
    try:
        entries = load_export(path)
        ok, message = replay_entries(entries)
    except (OSError, ValueError) as exc:
        print(f"cannot read {path}: {exc}", file=stderr)
        return EXIT_REFUSED
    except RulesError as exc:
        print(f"cannot replay {path}: {refusal(exc)}", file=stderr)
        return EXIT_REFUSED
    print(message, file=stdout if ok else stderr)
    return EXIT_OK if ok else EXIT_FAILED


def run_scenario_import(path: str, out: str | None, stdout: TextIO, stderr: TextIO) -> int:
    """Read a scenario file, or a saved game a ruleset reads (told by its content), checked whole as
    /scenario load checks it, and write it as a scenario file (stdout, or ``out``)."""
    from pathlib import Path

    from bot.scenario import converted_text, max_upload, read_file

    try:
        size = Path(path).stat().st_size
        if size > max_upload():
            print(f"referee: {path} has {size:,} bytes; a file read here has at most {max_upload():,}", file=stderr)
            return EXIT_REFUSED
        data = Path(path).read_bytes()
    except OSError as exc:
        print(f"referee: cannot read {path}: {exc.strerror or exc}", file=stderr)
        return EXIT_REFUSED
    try:
        loaded = read_file(data)
    except RulesError as exc:
        print(f"referee: {path}: {exc}", file=stderr)
        return EXIT_REFUSED
    text = converted_text(loaded)
    if out:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"referee: cannot write {out}: {exc.strerror or exc}", file=stderr)
            return EXIT_REFUSED
    else:
        stdout.write(text)
    units = sum(len(side.units) for side in loaded.scenario.sides)
    print(f"{path}: {units} units in {len(loaded.scenario.locations)} Locations"
          + (f", from a {loaded.format}" if loaded.format else "")
          + (f"; not mapped: {len(loaded.not_mapped)} (listed in the file's header)" if loaded.not_mapped else ""),
          file=stderr)
    return EXIT_OK


def audit_entries(entries: list[dict[str, Any]], posted: list[Any] | None = None) -> tuple[bool, str]:
    """What /log verify does, from an export alone: the hash chain, the replay, and every die of every
    revealed game turn re-derived from its seed (docs/dice.md); then the turn ends against the lines
    the channel saw (``posted``: ``bot.record.posted.TurnSeal``s; None: not given), and what was not
    checked against them. (ok, the report: a line, then a line of the posted check; or the findings)."""
    from pydantic import ValidationError

    from bot.record import LogEntry
    from bot.record.posted import check_posted, posted_report
    from bot.record.replay import ChainVerifier

    verifier = ChainVerifier()
    for number, raw in enumerate(entries, start=1):
        try:
            entry = LogEntry.model_validate(raw)
        except ValidationError:
            return False, f"entry #{raw.get('seq', number)} is not a log entry as the bot exports it"
        problem = verifier.check(entry)
        if problem is not None:
            return False, f"entry #{problem.seq} does not check out: {problem.reason}"
    if verifier.checked == 0:
        return False, "the export holds no entries"
    sealed = verifier.dice.sealed
    if posted is not None:
        findings = check_posted(sealed, posted).findings
        if findings:
            return False, "\n".join(findings)
    return True, f"{verifier.summary()}\n{posted_report(sealed, verifier.checked, posted)}"


def read_posted(path: str, stdin: TextIO) -> list[Any]:
    """The turn ends' lines as the channel showed them (``-``: pasted on stdin), other text skipped."""
    from bot.record.posted import parse_posted

    if path == "-":
        text = stdin.read(MAX_POSTED_CHARS + 1)
    else:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(MAX_POSTED_CHARS + 1)
    if len(text) > MAX_POSTED_CHARS:
        raise ValueError(f"it is over {MAX_POSTED_CHARS:,} characters, more than a channel's turn ends")
    lines = parse_posted(text)
    if not lines:
        raise ValueError("it holds no line as a turn's end posts them: 'Turn 3 sealed at #57: chain 9f3a0c1d2e3f4a5b "
                         "· 14 dice drawn by the bot'")
    return lines


def run_audit(path: str, stdout: TextIO, stderr: TextIO, posted: str | None = None,
              stdin: TextIO | None = None) -> int:
    """Audit an exported log offline: chain, replay, committed dice, and (``posted``: a file of the lines
    the turn ends posted, ``-`` for stdin) that the log is the one the channel saw; name what differs."""
    try:
        lines = None if posted is None else read_posted(posted, stdin or sys.stdin)
    except (OSError, ValueError) as exc:
        print(f"cannot read the posted lines {'from stdin' if posted == '-' else posted}: {exc}", file=stderr)
        return EXIT_REFUSED
    try:
        ok, message = audit_entries(load_export(path), lines)
    except (OSError, ValueError) as exc:
        print(f"cannot read {path}: {exc}", file=stderr)
        return EXIT_REFUSED
    print(message, file=stdout if ok else stderr)
    return EXIT_OK if ok else EXIT_FAILED


# --- run and sandbox -------------------------------------------------------------------------


def _settings(stderr: TextIO, **overrides: Any):
    from bot.config import ConfigError, load_settings

    try:
        return load_settings(**overrides)
    except ConfigError as exc:
        print(f"referee: {exc}", file=stderr)
        return None


def run_bot(stderr: TextIO, settings: Any = None) -> int:
    settings = settings or _settings(stderr)
    if settings is None:
        return EXIT_REFUSED
    if not settings.has_token:
        print("referee: no Discord token: set DISCORD_TOKEN (or REFEREE_TOKEN), or try "
              "`python -m bot sandbox` to play in the terminal without one", file=stderr)
        return EXIT_REFUSED
    if (refused := settings.sharding_refused()) is not None:  # before anything connects or opens the file
        print(f"referee: {refused}", file=stderr)
        return EXIT_REFUSED
    from bot.app import main_run
    from bot.logs import setup_logging

    setup_logging(settings.log_level)
    return main_run(settings)


def run_sandbox(argv: list[str], stderr: TextIO) -> int:
    """Delegates to ``bot.sandbox.main(argv)`` (the terminal sandbox on the loopback Discord)."""
    import importlib.util

    if importlib.util.find_spec("bot.sandbox") is None:
        print("referee: the terminal sandbox is not part of this build yet (bot/sandbox.py); "
              "use `python -m bot rules` to resolve orders without Discord", file=stderr)
        return EXIT_FAILED
    from bot import sandbox

    result = sandbox.main(argv)
    return int(result or 0)


# --- health ---------------------------------------------------------------------------------


def check_database(path: Any) -> str | None:
    """None when the database at ``path`` opens, is at the schema version this build migrates
    to, and passes ``PRAGMA quick_check``; else the one-line reason. Read-only: a health check
    never creates or migrates the database (the bot does that at start-up)."""
    import sqlite3
    from pathlib import Path

    from bot.store import is_postgres, migrations

    if is_postgres(path):
        return check_postgres(str(path))
    path = Path(path)
    if not path.is_file():
        return f"database {path} does not exist (the bot creates it when it starts)"
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return f"database {path} does not open: {exc}"
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        current = len(migrations())
        if version != current:
            return (f"database {path} is at schema version {version}, this build expects {current}"
                    + (" (the bot migrates it when it starts)" if version < current else
                       " (a newer bot wrote it)"))
        checked = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
        if checked != ["ok"]:
            return f"database {path} fails PRAGMA quick_check: {'; '.join(map(str, checked[:3]))}"
    except sqlite3.Error as exc:  # not a database, locked for longer than the timeout, unreadable
        return f"database {path} cannot be read: {exc}"
    finally:
        db.close()
    return None


def check_postgres(dsn: str) -> str | None:
    """``check_database`` for a PostgreSQL server: it answers, and its schema is this build's."""
    import asyncio

    from bot.store.postgres import pg_migrations, redacted, schema_version

    async def check() -> str | None:
        import asyncpg

        try:
            conn = await asyncpg.connect(dsn, timeout=10)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncio.TimeoutError) as exc:
            return f"database {redacted(dsn)} does not answer: {exc}"
        try:
            version, current = await schema_version(conn), len(pg_migrations())
        finally:
            await conn.close()
        if version != current:
            return (f"database {redacted(dsn)} is at schema version {version}, this build expects {current}"
                    + (" (the bot migrates it when it starts)" if version < current else " (a newer bot wrote it)"))
        return None

    try:
        return asyncio.run(check())
    except ImportError:
        return "REFEREE_DATABASE names a PostgreSQL server, but asyncpg is not installed (the postgres extra)"


def run_store_copy(source: str, target: str, stdout: TextIO, stderr: TextIO) -> int:
    """``python -m bot store copy FROM TO``: exit 0 when every game was copied and verifies."""
    import asyncio
    from pathlib import Path

    from bot.store import StoreError, is_postgres, open_store
    from bot.store.copy import copy_store
    from bot.store.postgres import redacted

    if not is_postgres(source) and not Path(source).is_file():
        print(f"referee: {source} does not exist: name the database to copy from", file=stderr)
        return EXIT_REFUSED

    async def copy() -> int:
        origin = await open_store(source)
        try:
            destination = await open_store(target)
            try:
                report = await copy_store(origin, destination, progress=lambda line: print(line, file=stdout))
            finally:
                await destination.close()
        finally:
            await origin.close()
        print(f"copied {report.games} games, {report.entries} log entries, {report.undos} undo proposals, "
              f"{report.secrets} held secrets, {report.checkpoints} checkpoints from {redacted(source)} to "
              f"{redacted(target)}", file=stdout)
        if report.left_behind:
            print(f"left behind {report.left_behind} checkpoints that do not match their entries (edited by hand?): "
                  "the copy replays from the one before each", file=stdout)
        if not report.ok:
            print(f"referee: {len(report.problems)} copied games do not verify: {report.problems[0]}", file=stderr)
            return EXIT_FAILED
        return EXIT_OK

    try:
        return asyncio.run(copy())
    except StoreError as exc:
        print(f"referee: {exc}", file=stderr)
        return EXIT_REFUSED


def run_health(stdout: TextIO, stderr: TextIO) -> int:
    """The Docker HEALTHCHECK: exit 0 and 'ok' when the configured database is healthy."""
    settings = _settings(stderr)
    if settings is None:
        return EXIT_REFUSED
    problem = check_database(settings.database)
    if problem is not None:
        print(f"unhealthy: {problem}", file=stderr)
        return EXIT_FAILED
    gateway = ""
    if settings.gateway_state is not None:  # what the running bot wrote of its gateway (bot/gateway_watch.py)
        problem, gateway = gateway_problem(settings.gateway_state, settings.gateway_down_seconds)
        if problem is not None:
            print(f"unhealthy: {problem}", file=stderr)
            return EXIT_FAILED
    from bot.store.postgres import redacted

    print(f"ok: {redacted(str(settings.database))}" + (f"; {gateway}" if gateway else ""), file=stdout)
    return EXIT_OK


def _shard(text: str) -> tuple[tuple[int, ...], int]:
    """``ID/COUNT`` or ``ID,ID,.../COUNT``: (the shards' numbers, how many there are)."""
    shards, slash, count = text.partition("/")
    try:
        ids = tuple(int(part) for part in shards.split(","))
        if slash and all(0 <= shard < int(count) for shard in ids) and len(set(ids)) == len(ids):
            return ids, int(count)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r}: write ID/COUNT, the shard's number from 0 and how many (e.g. 0/2), "
                                     "or several shards' numbers for this process, ID,ID/COUNT (e.g. 0,1/4)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Referee: a Discord bot that referees tactical board wargames. Without a "
                    "command it runs the bot when a token is set, else the terminal sandbox.")
    commands = parser.add_subparsers(dest="command", metavar="{run,sandbox,rules,scenario,health,store}")
    run = commands.add_parser("run", help="connect to Discord (needs DISCORD_TOKEN or REFEREE_TOKEN)")
    run.add_argument("--shard", metavar="ID/COUNT", type=_shard,
                     help="connect as shard ID of COUNT (e.g. 0/2), or as several (e.g. 0,1/4: one connection "
                          "each), the processes on one PostgreSQL database; the same as REFEREE_SHARD_ID "
                          "(or REFEREE_SHARD_IDS) and REFEREE_SHARD_COUNT")
    sandbox = commands.add_parser("sandbox", help="play in the terminal against a local fake Discord")
    sandbox.add_argument("sandbox_args", nargs=argparse.REMAINDER, help="passed on to the sandbox")
    commands.add_parser("health", help="exit 0 when the configured database opens, is migrated and "
                                       "passes PRAGMA quick_check, and (REFEREE_GATEWAY_STATE) the running bot's "
                                       "Discord gateway is connected (the Docker HEALTHCHECK)")
    store = commands.add_parser("store", help="move games between databases (SQLite file, PostgreSQL URL)")
    store_commands = store.add_subparsers(dest="store_command", metavar="copy", required=True)
    copy = store_commands.add_parser(
        "copy", help="copy every game with its whole log from one database into an empty one, and verify each copy",
        description="Copy every game (its id, state, whole log and undo proposals) from FROM into TO, which must "
                    "hold no game yet; each copy is then checked as /log verify checks it. FROM and TO are each "
                    "an SQLite file's path or a postgresql:// URL. Stop the bot first.")
    copy.add_argument("source", metavar="FROM", help="the database to copy from (a path, or postgresql://...)")
    copy.add_argument("target", metavar="TO", help="the database to copy into (created and migrated if needed)")
    scenario = commands.add_parser("scenario", help="check a scenario file, or convert a saved game of another "
                                                    "program into one")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", metavar="import", required=True)
    scenario_import = scenario_commands.add_parser(
        "import", help="read a scenario file or a saved game a ruleset reads, and write it as a scenario file",
        description="Read FILE, a scenario file or a saved game of another program that a ruleset reads (told by "
                    "its content, not its name; docs/scenarios.md), check it as /scenario load would (set up once, "
                    "nothing kept), and write it as a scenario file, with what could not be mapped listed in its "
                    "header. Exit 0 when it sets up, 2 when it is refused (the reason on stderr).")
    scenario_import.add_argument("file", help="the file to read")
    scenario_import.add_argument("--out", metavar="PATH", help="write the scenario file here instead of stdout")
    rules = commands.add_parser(
        "rules", help="resolve one JSON request from stdin (see docs/rules-interface.md)",
        description="Read one JSON request on stdin, write {\"outcome\", \"game\"} on stdout. "
                    "Exit 0 on success, 2 when the request or the order is refused.")
    rules.add_argument("--schema", action="store_true", help="print the JSON Schema of requests")
    rules.add_argument("--pretty", action="store_true", help="indent the JSON written")
    rules.add_argument("--preview", action="store_true",
                       help="write the exact odds of the order (an OddsReport) instead of rolling it")
    replay_commands = rules.add_subparsers(dest="rules_command", metavar="{replay,audit}")
    replay = replay_commands.add_parser(
        "replay", help="replay a game's exported log: every entry's dice and state, and bit for bit "
                       "the outcomes logged under today's rules version")
    replay.add_argument("file", help="the JSON export (a list of log entries)")
    audit = replay_commands.add_parser(
        "audit", help="check an exported log as /log verify does: the hash chain, the replay, and every die "
                      "of every revealed turn re-derived from its seed (docs/dice.md)")
    audit.add_argument("file", help="the JSON export (/log export format:JSON)")
    audit.add_argument("--posted", metavar="FILE",
                       help="the lines the ends of the game turns posted in the channel ('Turn 3 sealed at #57: "
                            "chain ...'), copied as they are into FILE ('-': pasted on stdin); the export's turn "
                            "ends must match them (docs/dice.md)")
    return parser


def main(argv: list[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        load_plugins()  # the host's own rulesets (REFEREE_RULESETS, entry points), for every command
    except PluginUnusable as exc:
        print(f"referee: {exc}", file=stderr)
        return EXIT_FAILED
    if argv[:1] == ["sandbox"]:
        # handed on exactly as typed: argparse's REMAINDER drops the sandbox's own flags
        # (--scenario asl) when they come first
        return run_sandbox(argv[1:], stderr)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        # options with no command (`python3 dev.py run --scenario asl`): the sandbox's, when there is
        # no token to run the bot with (the bot itself takes no options)
        settings = _settings(stderr)
        if settings is None:
            return EXIT_REFUSED
        if not settings.has_token:
            return run_sandbox(argv, stderr)
        print(f"referee: {argv[0]} is an option of the sandbox (`python -m bot sandbox {' '.join(argv)}`); "
              "the bot itself takes none", file=stderr)
        return EXIT_REFUSED
    args = build_parser().parse_args(argv)
    if args.command == "health":
        return run_health(stdout, stderr)
    if args.command == "store":
        return run_store_copy(args.source, args.target, stdout, stderr)
    if args.command == "scenario":
        return run_scenario_import(args.file, args.out, stdout, stderr)
    if args.command == "rules":
        if args.schema:
            json.dump(request_schema(), stdout, indent=2)
            stdout.write("\n")
            return EXIT_OK
        if args.rules_command == "replay":
            return run_replay(args.file, stdout, stderr)
        if args.rules_command == "audit":
            return run_audit(args.file, stdout, stderr, args.posted, stdin)
        return run_rules(stdin, stdout, stderr, pretty=args.pretty, preview=args.preview)
    if args.command == "sandbox":
        return run_sandbox(args.sandbox_args, stderr)
    if args.command == "run":
        if args.shard is not None:
            ids, count = args.shard
            one = len(ids) == 1
            settings = _settings(stderr, shard_id=ids[0] if one else None, shard_ids=None if one else ids,
                                 shard_count=count)
            return run_bot(stderr, settings) if settings is not None else EXIT_REFUSED
        return run_bot(stderr)
    settings = _settings(stderr)
    if settings is None:
        return EXIT_REFUSED
    return run_bot(stderr, settings) if settings.has_token else run_sandbox([], stderr)
