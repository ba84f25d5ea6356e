"""The game record as files: a Markdown after-action report, a CSV of every die, the JSON log.

All three read the JSON export of the log (``Referee.export``): the Outcomes as they were
logged, never recomputed. The Markdown report replays the log (the same ``Replayer`` as
``/log verify``) only to know the turn and phase each action was taken in, since entries do not
record them. The JSON is what ``python -m bot rules replay FILE`` reads back.

A file larger than Discord's attachment limit is split into numbered parts at line ends; CSV
parts repeat the header so each opens on its own, JSON parts are to be joined in order.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from bot.core.errors import RulesError
from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.core.rulesets import get_ruleset, title_of
from bot.render import final_headline, outcome_blocks, regiven_words, safe
from bot.record.replay import UNDO, Replayer, ReplayRefused, given_again

FORMATS = {"markdown": "md", "csv": "csv", "json": "json"}
CSV_COLUMNS = ("seq", "time", "actor_id", "actor", "command", "purpose", "kind", "die", "value", "manual",
               "undone", "given_again")

Names = Callable[[int], str]


def plain_name(user_id: int) -> str:
    return f"user {user_id}"


@dataclass(frozen=True)
class ExportFile:
    filename: str
    data: bytes


def undone_map(entries: list[dict[str, Any]]) -> dict[int, int]:
    """Entries undone -> the seq of the entry that undid them."""
    return {e["order"]["undoes"]: e["seq"] for e in entries if (e.get("order") or {}).get("action") == UNDO}


def regiven_map(entries: list[dict[str, Any]], undone: dict[int, int]) -> dict[int, int]:
    """Entries that give an undone order again (``given_again``) -> the seq of the entry undone."""
    known = {e["seq"]: ((e.get("order") or {}).get("action"), (e.get("outcome") or {}).get("actor_side"))
             for e in entries}
    found = {}
    for seq, (action, side) in known.items():
        target = given_again(undone, seq, action, side, known.get)
        if target is not None:
            found[seq] = target
    return found


def _time(iso: str) -> str:
    """"2026-01-02T10:04:05.000+00:00" -> "2026-01-02 10:04:05 UTC"."""
    return f"{iso[:10]} {iso[11:19]} UTC"


# --- JSON --------------------------------------------------------------------------------------


def json_text(record: dict[str, Any]) -> str:
    """The export as written to the file: one key per line, so parts split at line ends."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


# --- CSV ---------------------------------------------------------------------------------------


def csv_text(record: dict[str, Any], names: Names = plain_name) -> str:
    """One row per die: the rolled dice in order, then manual dice given but not needed."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    undone = undone_map(record["entries"])
    regiven = regiven_map(record["entries"], undone)
    for entry in record["entries"]:
        outcome = entry.get("outcome") or {}
        base = (entry["seq"], entry["time"], entry["actor"], names(entry["actor"]), entry["command"])
        manual = "yes" if outcome.get("manual_dice") else "no"
        mark = (undone.get(entry["seq"], ""), regiven.get(entry["seq"], ""))
        for roll in outcome.get("rolls", ()):
            for index, value in enumerate(roll.get("dice", ()), start=1):
                writer.writerow((*base, roll.get("purpose", ""), roll.get("kind", ""), index, value, manual, *mark))
        for index, value in enumerate(outcome.get("unused_dice", ()), start=1):
            writer.writerow((*base, "given but not needed", "unused", index, value, "yes", *mark))
    return out.getvalue()


# --- Markdown ----------------------------------------------------------------------------------


class Position(NamedTuple):
    """What the report reads of a game at one point: taken as the replay passes it (the replay
    plays on the same game object, bot/record/replay.py)."""

    ruleset: str
    scenario: str
    turn: int
    phase: str
    active_side: int
    sides: tuple[tuple[str, tuple[Any, ...]], ...]  # (name, players)
    gm: int | None

    @classmethod
    def of(cls, game: Game) -> "Position":
        return cls(game.ruleset, game.scenario, game.turn, game.phase, game.active_side,
                   tuple((side.name, tuple(side.players)) for side in game.sides), game.gm)

    @property
    def heading(self) -> tuple[int, str, int]:
        return self.turn, self.phase, self.active_side

    def side_name(self, index: int) -> str:
        return self.sides[index][0] if 0 <= index < len(self.sides) else f"side {index}"


def _phase_name(at: Position) -> str:
    return get_ruleset(at.ruleset).phase_names.get(at.phase, at.phase)


def _players(at: Position, names: Names) -> str:
    parts = []
    for name, players in at.sides:
        who = ", ".join(safe(names(p)) for p in players) or "no player"
        parts.append(f"{safe(name)}: {who}")
    if at.gm is not None:
        parts.append(f"game master: {safe(names(at.gm))}")
    return "; ".join(parts)


# a user mention as the trail writes it ("<@123> plays Germans"), once escaped for display
_ESCAPED_MENTION = re.compile(r"<@\u200b?!?([0-9]{1,20})>")


def _named(text: str, names: Names) -> str:
    """A report's line with each player mention replaced by the player's display name: a file is
    read outside Discord, where a mention is only digits."""
    return _ESCAPED_MENTION.sub(lambda m: safe(names(int(m[1]))), text)


def _entry_markdown(entry: dict[str, Any], names: Names, undone: dict[int, int],
                    regiven: dict[int, int] | None = None) -> list[str]:
    outcome = Outcome.model_validate(entry["outcome"])
    order = entry.get("order") or {}
    who = safe(names(entry["actor"]))
    if order.get("action") == UNDO:
        who += f", accepted by {safe(names(order.get('accepted_by')))}"
    heading = f"#{entry['seq']} · {safe(entry['command'])} · {who} · {_time(entry['time'])}"
    headline = f"**{_named(safe(final_headline(outcome)), names)}**"  # the final DR named so, as the bot shows it
    lines = [f"#### {heading}", ""]
    if entry["seq"] in undone:
        lines += [f"~~{headline}~~", "", f"*Undone by #{undone[entry['seq']]}: its dice stay in the record.*"]
    else:
        lines.append(headline)
        if regiven and entry["seq"] in regiven:
            words = regiven_words(regiven[entry["seq"]], bool(outcome.rolls))
            lines += ["", f"*{words[0].upper() + words[1:]}.*"]
    blocks = outcome_blocks(outcome)
    if blocks:
        lines.append("")
    for block in blocks:
        lines.append(f"- {_named(block.name, names)}")
        lines += [f"  - {_named(line, names)}" for line in block.lines]
    lines.append("")
    return lines


def _logged_hash(entry: dict[str, Any]) -> str | None:
    logged = entry.get("state_hash")
    return logged if isinstance(logged, str) else None


def markdown_text(record: dict[str, Any], names: Names = plain_name) -> str:
    """An after-action report: the game, then each turn and phase with every action and its trail."""
    entries = record["entries"]
    undone = undone_map(entries)
    regiven = regiven_map(entries, undone)
    replayer = Replayer()
    stopped: str | None = None
    body: list[str] = []
    heading: tuple[int, str, int] | None = None
    turn: int | None = None
    first: Position | None = None
    at: Position | None = None  # the game before the entry, then after the last one replayed
    for entry in entries:
        before = at
        if stopped is None:
            try:
                # the logged state hash stands for the replayed one (an undo is checked against
                # it): the report needs the turn and phase, not the check /log verify makes
                game, _outcome = replayer.apply(entry["seq"], entry.get("order") or {}, entry.get("dice") or [],
                                                bool(entry.get("manual")), _logged_hash(entry))
                at = Position.of(game)
            except (ReplayRefused, RulesError) as exc:
                stopped = f"From #{entry['seq']} on the log does not replay ({exc}); see /log verify."
                body += [f"> {safe(stopped)}", ""]
        if before is None:  # the creation: it opens the report instead
            first = at
            continue
        if stopped is None and before.heading != heading:
            if before.turn != turn:
                body += [f"## Turn {before.turn}", ""]
                turn = before.turn
            body += [f"### {safe(_phase_name(before))} ({safe(before.side_name(before.active_side))})", ""]
            heading = before.heading
        body += _entry_markdown(entry, names, undone, regiven)
    return "\n".join(_header(record, first, at or first, names) + body).rstrip("\n") + "\n"


def _header(record: dict[str, Any], first: Position | None, final: Position | None, names: Names) -> list[str]:
    title = title_of(record["ruleset"])
    if first is None or final is None:
        return [f"# After-action report: {title}", ""]
    name = safe(first.scenario) if first.scenario else title
    created = record["entries"][0]
    started = f"- Started {_time(created['time'])} by {safe(names(created['actor']))}"
    position = (f"- Last position: turn {final.turn}, {safe(_phase_name(final))} "
                f"({safe(final.side_name(final.active_side))})")
    checks = (f"- The log holds {len(record['entries'])} entries: `/log verify`, or `python -m bot rules replay` "
              "on the JSON export, checks every one.")
    game_line = (f"{title} · {safe(first.side_name(0))} vs {safe(first.side_name(1))} · game {record['game_id']} "
                 f"({record['status']})")
    lines = [f"# After-action report: {name}", "", game_line, "", started,
             f"- Players: {_players(final, names)}", position, checks, ""]
    return lines


# --- files -------------------------------------------------------------------------------------


def render(record: dict[str, Any], fmt: str, names: Names = plain_name) -> str:
    if fmt == "markdown":
        return markdown_text(record, names)
    if fmt == "csv":
        return csv_text(record, names)
    if fmt == "json":
        return json_text(record)
    raise ValueError(f"unknown export format {fmt!r} (formats: {', '.join(FORMATS)})")


def split_parts(data: bytes, limit: int, *, header: bytes = b"") -> list[bytes]:
    """Cut ``data`` into parts of at most ``limit`` bytes at line ends (``header``, the CSV's
    first line, starts every part); a single line longer than a part is cut where it must be."""
    if len(data) <= limit:
        return [data]
    body = data[len(header):] if header and data.startswith(header) else data
    room = limit - len(header)
    if room <= 0:
        raise ValueError("the attachment limit is smaller than the file's header")
    parts: list[bytes] = []
    start = 0
    while start < len(body):
        end = min(start + room, len(body))
        if end < len(body):
            newline = body.rfind(b"\n", start, end)
            if newline >= start:
                end = newline + 1
        parts.append(header + body[start:end])
        start = end
    return parts


def export_files(record: dict[str, Any], fmt: str, limit: int, names: Names = plain_name) -> list[ExportFile]:
    """The export as one file, or as numbered parts when it is larger than ``limit`` bytes."""
    ext = FORMATS[fmt]
    data = render(record, fmt, names).encode("utf-8")
    header = data[: data.index(b"\n") + 1] if fmt == "csv" and b"\n" in data else b""
    parts = split_parts(data, limit, header=header)
    stem = f"game-{record['game_id']}-log"
    if len(parts) == 1:
        return [ExportFile(f"{stem}.{ext}", parts[0])]
    return [ExportFile(f"{stem}.part{i}of{len(parts)}.{ext}", part) for i, part in enumerate(parts, start=1)]
