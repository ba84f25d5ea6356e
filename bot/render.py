"""Outcome -> discord.Embed: the one place that knows embed layout.

Everything here respects Discord's embed limits exactly (25 fields, 256-character titles and
field names, 1,024-character field values, 4,096-character descriptions, 6,000 characters per
embed and per message, 10 embeds per message). Long content is split, never cut silently: a
field that overflows continues in the next field or embed under "(continued)", and a line too
long for one field continues in the next one.

Every string that may carry user text (unit ids and names, side names, scenario, trail labels
that quote them) is escaped for markdown and mentions before it is measured, so escaping can
never push a field over its limit. The bot also sends with ``AllowedMentions.none()``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import discord

from bot.core.dice import Roll
from bot.core import deadlines
from bot.core.game import Game
from bot.core.outcome import Outcome, TableCell, UnitEffect
from bot.core.rulesets import get_ruleset, title_of
from bot.core.sequence import refereed, side_to_act, step_name
from bot.core.sight import SightLine
from bot.core.api import BOOKKEEPING_ACTIONS
from bot.core.trail import Step
from bot.record import LogEntry
from bot.record.dice_audit import opened_of
from bot.record.posted import posted_line
from bot.record.sealing import rolled, roll_words
from bot.pace import SideWaits, spoken
from bot.stats import DiceStats, FamilyStats, rollers, summary, tally

if TYPE_CHECKING:
    from bot.service import LogPage, UndoAnswer, UndoProposal, VerifyReport

# Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits)
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
EMBED_TOTAL_MAX = 6000  # per embed, and also for all the embeds of one message together
EMBEDS_PER_MESSAGE = 10

FOOTER_RESERVE = 64  # room kept on every page for "log #123456 · page 12/13"
CONTINUED = " (continued)"
ELLIPSIS = "…"

SIDE_COLOURS = (discord.Colour(0x4A7AB5), discord.Colour(0xB5533C))  # side 0, side 1
NEUTRAL_COLOUR = discord.Colour(0x8A8F98)  # set-up, phases, anything no side did
ERROR_COLOUR = discord.Colour(0xD83C3E)
OK_COLOUR = discord.Colour(0x3BA55D)  # a log that checks out
NEUTRAL_ACTIONS = BOOKKEEPING_ACTIONS  # set-up, phases, hand-offs: no side's colour

# safe() is discord.py's escape_mentions(escape_markdown(text)) in one pass of one compiled
# pattern (issue 5: the two helpers compile-cache-look-up and scan twice, 13% of the bot's time
# under the end-to-end bench). The alternatives are escape_markdown's own (discord/utils.py,
# links kept whole: _URL_REGEX | _MARKDOWN_STOCK_REGEX, multiline) followed by escape_mentions'
# pattern: a mention starts with "@", where no link or markdown match can start, and holds no
# character either can start with, so scanning for all three at once finds the same matches;
# mentions inside a kept link or an escaped [text](link) are escaped inside the callback, as
# escape_mentions, run second over the whole text, escapes them. tests/test_render_safe.py
# compares the two on random text.
_URL = r"""(?P<url><[^: >]+:\/[^ >]+>|(?:https?|steam):\/\/[^\s<]+[^<.,:;\"\'\]\s])"""
_MARKDOWN = r"(?P<markdown>[_\\~|\*`]|^>(?:>>)?\s|\[.+\]\(.+\)|^#{1,3}|^\s*-)"
_MENTION = r"@(everyone|here|[!&]?[0-9]{17,20})"
_ESCAPABLE = re.compile(f"(?:{_URL}|{_MARKDOWN})|(?P<mention>{_MENTION})", re.MULTILINE)
_MENTIONS = re.compile(_MENTION)
# every character that any of the alternatives needs: text without one is returned as it is
_MAY_ESCAPE = re.compile(r"[_\\~|*`>\[#\-@]")


# what a player's text may not carry into a message (issue 28): the control characters (C0 but the
# tab and the line feed, DEL, C1: "\x1b[31m" recolours a terminal, "\0" cuts a C string) and the
# bidirectional controls (marks, embeddings, overrides, isolates: U+202E turns the text after it
# around, in the footer and status line it lands in); removed by ``clean``, which ``safe`` and
# ``unmentioned`` (every player's text shown) call first
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: object) -> str:
    """A player's text without control and bidirectional characters (``_CONTROL``)."""
    text = str(text)
    return _CONTROL.sub("", text) if _CONTROL.search(text) else text


def _escape(match: re.Match[str]) -> str:
    text = match.group()
    if match.lastgroup == "mention":
        return "@\u200b" + text[1:]
    if match.lastgroup == "markdown":
        text = "\\" + text
    return _MENTIONS.sub("@\u200b\\1", text) if "@" in text else text


# The escaped form of short texts already seen: an embed escapes ~160 texts (a fire's trail
# labels, rule references, unit names), nearly all the same from one command to the next.
# Bounded in count and length, emptied when full, so player text cannot make it grow.
_SAFE_CACHE: dict[str, str] = {}
_SAFE_CACHE_SIZE = 4096
_SAFE_CACHE_TEXT_MAX = 80


def unmentioned(text: object) -> str:
    """Text that may come from a player, for a place Discord shows as plain text (a footer: markdown
    escapes would show): only its mentions broken, so that none reads as one or pings."""
    text = clean(text)
    return _MENTIONS.sub("@\u200b\\1", text) if "@" in text else text


def safe(text: object) -> str:
    """Escape markdown and mentions in text that may come from a player, its control and
    bidirectional characters removed (``clean``)."""
    text = str(text)
    escaped = _SAFE_CACHE.get(text)
    if escaped is None:
        plain = clean(text)
        escaped = _ESCAPABLE.sub(_escape, plain) if _MAY_ESCAPE.search(plain) else plain
        if len(text) <= _SAFE_CACHE_TEXT_MAX:
            if len(_SAFE_CACHE) >= _SAFE_CACHE_SIZE:
                _SAFE_CACHE.clear()
            _SAFE_CACHE[text] = escaped
    return escaped


@dataclass(frozen=True)
class Block:
    """A titled list of already-escaped lines; becomes one field, or several when long."""

    name: str
    lines: tuple[str, ...]


# --- splitting ---------------------------------------------------------------------------


def _cut(text: str, limit: int) -> int:
    """Where to cut ``text`` at most ``limit`` long: at a space when one is near, and never
    between an escaping backslash and the character it escapes."""
    cut = limit
    space = text.rfind(" ", limit // 2, limit)
    if space > 0:
        cut = space + 1
    while cut > 1 and text[cut - 1] == "\\" and (len(text[:cut]) - len(text[:cut].rstrip("\\"))) % 2:
        cut -= 1
    return cut


def split_line(line: str, limit: int = FIELD_VALUE_MAX) -> list[str]:
    """A line longer than ``limit`` becomes pieces, each after the first marked "(continued)"."""
    prefix = "(continued) "
    pieces: list[str] = []
    rest = line
    while len(rest) > limit - (len(prefix) if pieces else 0):
        room = limit - (len(prefix) if pieces else 0)
        cut = _cut(rest, room)
        pieces.append((prefix if pieces else "") + rest[:cut])
        rest = rest[cut:]
    pieces.append((prefix if pieces else "") + rest)
    return pieces


def _field_name(name: str, *, continued: bool = False) -> str:
    suffix = CONTINUED if continued else ""
    if len(name) + len(suffix) <= FIELD_NAME_MAX:
        return name + suffix
    return name[: FIELD_NAME_MAX - len(suffix) - 1] + ELLIPSIS + suffix


def block_fields(block: Block) -> list[tuple[str, str]]:
    """(name, value) pairs for one block, each value within 1,024 characters."""
    lines = list(block.lines) or ["—"]
    if len(block.name) > FIELD_NAME_MAX - len(CONTINUED):
        lines.insert(0, block.name)  # the field name is shortened: keep the whole text in view
    values: list[list[str]] = [[]]
    size = 0
    for line in lines:
        for piece in split_line(line):
            needed = len(piece) + (1 if values[-1] else 0)
            if values[-1] and size + needed > FIELD_VALUE_MAX:
                values.append([])
                needed, size = len(piece), 0
            values[-1].append(piece)
            size += needed
    return [(_field_name(block.name, continued=i > 0), "\n".join(v)) for i, v in enumerate(values)]


def _title(text: str, *, continued: bool = False) -> str:
    return _field_name(text, continued=continued)  # same rule: 256, ellipsis, suffix kept


def paginate(title: str, blocks: Iterable[Block], *, colour: discord.Colour, description: str = "",
             footer: str | None = None) -> list[discord.Embed]:
    """Lay blocks out as fields over as many embeds as needed, every one within every limit.

    ``title`` and ``description`` must already be escaped. The first embed carries the
    description; the next ones repeat the title with "(continued)" and show "page i/n".
    """
    fields = [f for block in blocks for f in block_fields(block)]
    description = _fit_description(title, description)
    pages: list[list[tuple[str, str]]] = [[]]
    room = EMBED_TOTAL_MAX - len(_title(title)) - len(description) - FOOTER_RESERVE
    for name, value in fields:
        size = len(name) + len(value)
        if pages[-1] and (len(pages[-1]) >= FIELDS_MAX or size > room):
            pages.append([])
            room = EMBED_TOTAL_MAX - len(_title(title, continued=True)) - FOOTER_RESERVE
        pages[-1].append((name, value))
        room -= size
    embeds = []
    for i, page in enumerate(pages):
        embed = discord.Embed(title=_title(title, continued=i > 0), colour=colour,
                              description=description if i == 0 and description else None)
        for name, value in page:
            embed.add_field(name=name, value=value, inline=False)
        text = _footer(footer, i, len(pages))
        if text:
            embed.set_footer(text=text)
        embeds.append(embed)
    return embeds


def _fit_description(title: str, description: str) -> str:
    """A title over 256 characters is shortened; its full text then opens the description."""
    if len(title) > TITLE_MAX:
        description = f"{title}\n{description}" if description else title
    if len(description) > DESCRIPTION_MAX:
        note = f"{ELLIPSIS} (shortened: {len(description)} characters)"
        description = description[: DESCRIPTION_MAX - len(note)] + note
    return description


def _footer(base: str | None, index: int, count: int) -> str:
    parts = [base] if base else []
    if count > 1:
        parts.append(f"page {index + 1}/{count}")
    return " · ".join(parts)[:FOOTER_MAX]


def message_groups(embeds: Sequence[discord.Embed]) -> list[list[discord.Embed]]:
    """Group embeds into messages: at most 10 and 6,000 characters together per message."""
    groups: list[list[discord.Embed]] = []
    size = 0
    for embed in embeds:
        if not groups or len(groups[-1]) >= EMBEDS_PER_MESSAGE or size + len(embed) > EMBED_TOTAL_MAX:
            groups.append([])
            size = 0
        groups[-1].append(embed)
        size += len(embed)
    return groups


# --- outcomes ----------------------------------------------------------------------------


def _number(value: float | int) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _step_value(step: Step) -> str | None:
    value = step.value
    if value is None:
        return None
    if isinstance(value, str):
        return safe(value)
    if step.kind == "modifier":
        return f"{value:+g}" if isinstance(value, float) else f"{value:+d}"
    if step.kind == "multiplier":
        return f"x{_number(value)}"
    return _number(value)


def step_line(step: Step) -> str:
    """"label  value  (=total)  [rule]", each part only when the step has it."""
    parts = [safe(step.label)]
    value = _step_value(step)
    if value is not None:
        parts.append(value)
    if step.total is not None:
        parts.append(f"(={_number(step.total)})")
    if step.rule and step.rule not in step.label:  # a label may already quote its rule
        parts.append(f"[{safe(step.rule)}]")
    return "  ".join(parts)


def roll_line(roll: Roll, final: str | None = None) -> str:
    """A roll named as the short result names it: "IFT attack: rolled 4+2 = 6 (white 4, colored 2),
    final DR 6", the dice as rolled, their kind (a DR's white and colored dice apart: the colored die
    decides ROF, doubles cowering) and, when the trail gives it (``final_numbers``), the final DR."""
    kind = f"white {roll.white}, colored {roll.colored}" if roll.kind == "DR" else roll.name
    text = f"rolled {_rolled(roll)} ({kind})" + (f", {final}" if final else "")
    return f"{safe(roll.purpose)}: {text}" if roll.purpose else text


def final_numbers(outcome: Outcome) -> list[str | None]:
    """Each roll's final DR as its check gives it ("final DR 6"), None for a roll the trail reads no
    final DR of (a d10 to hit, a fire table's 2d6): in the order of ``outcome.rolls``."""
    finals: list[str | None] = []
    for item in read_rolls(outcome)[0]:
        check, said = item.check, None
        if check is not None and check.label.casefold() == "final dr" and isinstance(check.value, int):
            said = f"{check.label} {check.value}"
        elif check is not None:  # "Final DR 9 vs Kill Number 5", "Final dr 2 ...": a DR or a dr
            found = re.match(r"final (?:DR|dr) \d+\b", check.label, re.IGNORECASE)
            said = found[0] if found else None
        finals.append(said[:1].lower() + said[1:] if said else None)
    return finals


def cell_line(cell: TableCell) -> str:
    column = cell.column if "column" in cell.column.casefold() else f"{cell.column} column"
    line = f"{safe(cell.table)} {safe(column)}, {safe(cell.row)} -> {safe(cell.result)}"
    return f"{line} [{safe(cell.rule)}]" if cell.rule else line


def effect_text(effect: UnitEffect, arrow: str = "->") -> str | None:
    """What an action did to one unit, saying the state after; None when nothing changed. The state
    is shown only when it changed ("Good Order -> broken, DM"), with the effects it does not say
    already; a unit whose state stayed says what happened to it ("moves B5 -> B4"), and a unit only
    marked by the action's own bookkeeping says the mark ("marked Prep Fire")."""
    before, after = effect.before, effect.after
    if _is_marker_only(effect):
        return ", ".join(effect.effects)
    what = [w for w in effect.effects if not _says_state(w, after)]
    if after and after != before:
        text = f"{before} {arrow} {after}" if before else after
        return text + (f" ({', '.join(what)})" if what else "")
    return ", ".join(effect.effects) or None


def _says_state(what: str, after: str) -> bool:
    """An effect the state after already says: "broken" in "broken, DM", "eliminated (Close Combat)"
    when the unit is "eliminated", "in Melee" when it is "Good Order, Melee"."""
    if what in after:
        return True
    if "," in what:  # "Unshakable, fails: reduced" says more than the state
        return False
    said = what.casefold()
    return any(said.startswith(part + " ") or said.endswith(" " + part)
               for part in (p.strip().casefold() for p in after.split(",")) if part)


def effect_line(effect: UnitEffect) -> str:
    """"name id: before -> after (effects)", or what happened when the state stayed (``effect_text``)."""
    return f"{safe(effect.name)} {safe(effect.unit)}: {safe(effect_text(effect) or 'unchanged')}"


def dice_block(outcome: Outcome) -> Block | None:
    lines = [roll_line(r, final) for r, final in zip(outcome.rolls, final_numbers(outcome))]
    if outcome.manual_dice:
        lines.append("manual dice (given by the players)")
    if outcome.unused_dice:
        lines.append(f"unused dice: {', '.join(map(str, outcome.unused_dice))} (given but not needed)")
    return Block("Dice", tuple(lines)) if lines else None


def trail_blocks(steps: Sequence[Step]) -> list[Block]:
    """The trail grouped by section: each section step opens a new field. A section with no steps
    of its own (a heading over the sections after it, e.g. "2MC on R1, L2") opens the next field as
    its first line instead of standing alone over an empty one."""
    blocks: list[tuple[str, list[str]]] = []
    for step in steps:
        if step.kind == "section":
            name = safe(step.label) + (f" [{safe(step.rule)}]" if step.rule else "")
            if blocks and not blocks[-1][1] and blocks[-1][0] != "Trail":
                blocks[-1] = (name, [f"{blocks[-1][0]}:"])
            else:
                blocks.append((name, []))
            continue
        if not blocks:
            blocks.append(("Trail", []))
        blocks[-1][1].append(step_line(step))
    return [Block(name, tuple(lines)) for name, lines in blocks if lines or name != "Trail"]


def outcome_blocks(outcome: Outcome) -> list[Block]:
    blocks = [b for b in [dice_block(outcome)] if b]
    blocks += trail_blocks(outcome.trail)
    if outcome.cells:
        blocks.append(Block("Table", tuple(cell_line(c) for c in outcome.cells)))
    changed = tuple(effect_line(e) for e in outcome.effects if effect_text(e) is not None)
    if changed:
        blocks.append(Block("Effects", changed))
    return blocks


def side_colour(side: int | None) -> discord.Colour:
    return SIDE_COLOURS[side] if side in (0, 1) else NEUTRAL_COLOUR


def game_line(game: Game) -> str:
    """"<ruleset title> · Scenario · turn 2, Prep Fire Phase (Germans) · Germans to act"."""
    parts = [title_of(game.ruleset)]
    if game.scenario:
        parts.append(safe(game.scenario))
    ruleset = get_ruleset(game.ruleset)
    if refereed(game):
        parts.append(f"turn {game.turn}, {safe(step_name(game, ruleset))} · "
                     f"{safe(game.side_name(side_to_act(game)))} to act")
    else:
        phase = ruleset.phase_names.get(game.phase, game.phase)
        parts.append(f"turn {game.turn}, {safe(phase)} ({safe(game.side_name(game.active_side))})")
    return " · ".join(parts)


DETAILS_OPTION = "details"  # the game option: "always" shows every result's whole trail


def shows_summary(outcome: Outcome, game: Game | None) -> bool:
    """A result that rolled is shown outcome first, its trail one click away (the Details button),
    unless the game asks for every detail always (``details=always``). Set-up and bookkeeping
    results (a phase ending, with the initiative roll it may bring) are short already: they are
    shown whole."""
    if not outcome.rolls or outcome.action in NEUTRAL_ACTIONS:
        return False
    return game is None or game.options.get(DETAILS_OPTION) != "always"


def dice_note(entry: LogEntry | None) -> str:
    """What a result posts of its entry's committed dice (docs/dice.md): the commitment when the game
    starts, the seed revealed and the next commitment when a game turn ends, the last seed at the end,
    and then on a line of its own the turn's seal (``posted_line``: the entry's hash and the count of
    the dice the bot drew in the turn), which an audit of an export compares (bot/record/posted.py)."""
    proof = entry.dice_proof if entry is not None else None
    if not proof:
        return ""
    if "reveal" in proof:
        note = f"dice seed revealed: {proof['reveal']}"
        note += f" · next dice commitment: {proof['next']}" if proof.get("next") else ""
        for item in opened_of(proof):  # the turn's secret rolls, opened with its seed
            roll = rolled(str(item.get("text") or ""))
            if roll is not None:
                # the purpose is the roller's own words, shown in a footer: no mention in it may ping
                words = unmentioned(roll_words(roll.get("kind"), roll.get("purpose"), roll["dice"]))
                note += f" · secret roll #{item.get('sealed')} revealed: {words}"
        if entry is not None and "turn" in proof:  # the line players keep to check an export (issue 28)
            drawn = proof.get("drawn")
            note += "\n" + posted_line(proof["turn"], entry.seq, entry.hash, drawn if type(drawn) is int else None)
        return note
    if entry is not None and entry.seq == 1 and proof.get("commitment"):
        return f"dice commitment (SHA-256 of this turn's secret seed): {proof['commitment']}"
    return ""


def outcome_embed(outcome: Outcome, game: Game | None, *, entry_seq: int | None = None,
                  details: bool = False, note: str = "") -> list[discord.Embed]:
    """The embeds for one outcome: the summary (``summary_embed``) of a result that rolled, or
    with ``details`` (or the game's ``details=always``) the whole trail, over several embeds when
    long; see ``message_groups``. ``note`` follows the log entry's number in the footer (``dice_note``)."""
    colour = NEUTRAL_COLOUR if outcome.action in NEUTRAL_ACTIONS else side_colour(outcome.actor_side)
    footer = f"log #{entry_seq}" + (f" · {note}" if note else "") if entry_seq is not None else None
    if not details and shows_summary(outcome, game):
        return [summary_embed(outcome, game, entry_seq=entry_seq, colour=colour, note=note)]
    title, rest = split_title(final_headline(outcome))  # the whole trail's title fits a line too
    description = "\n".join(([safe(rest)] if rest else []) + ([game_line(game)] if game is not None else []))
    return paginate(safe(title), outcome_blocks(outcome), colour=colour, description=description, footer=footer)


def _is_marker_only(effect: UnitEffect) -> bool:
    """An effect that only marks a unit (Prep Fire, Moved, ...): the action's own bookkeeping."""
    return bool(effect.effects) and all(what.startswith("marked ") for what in effect.effects)


RESULT_LINE = 60  # characters of a short result's title and footer at most: one line of a phone's screen
_DR = re.compile(r"(?<![Ff]inal )\bDR (\d+)")  # a DR the headline gives, not already said final


@dataclass
class ReadRoll:
    """A roll as the trail reads it: its dice step, the modifiers applied to it, the check that read
    it (its final DR), and the section it was rolled in (whose heading names a unit's check)."""

    roll: Roll
    dice: Step | None = None
    modifiers: tuple[Step, ...] = ()
    check: Step | None = None
    section: Step | None = None


def read_rolls(outcome: Outcome) -> tuple[list[ReadRoll], list[Step]]:
    """Each roll with what the trail says of it, in the order rolled; and the checks of a unit that
    read no roll of its own (a weapon's rate of fire read off the attack's colored die). A trail's
    "dice" line is matched to the next roll of its total; a roll the trail never shows stays bare."""
    rolls = [ReadRoll(roll) for roll in outcome.rolls]
    others: list[Step] = []
    section: Step | None = None
    modifiers: list[Step] = []
    current: ReadRoll | None = None
    at = 0
    for step in outcome.trail:
        if step.kind == "section":
            section, modifiers, current = step, [], None
        elif step.kind == "modifier":
            modifiers.append(step)
        elif step.kind == "dice":
            found = next((i for i in range(at, len(rolls)) if rolls[i].roll.total == step.value), None)
            if found is None:
                continue
            at = found + 1
            current = rolls[found]
            current.dice, current.section, current.modifiers = step, section, tuple(modifiers)
            modifiers = []
        elif step.kind == "check":
            if current is not None and current.check is None and step.unit == current.dice.unit:
                current.check, current.modifiers = step, current.modifiers + tuple(modifiers)
                modifiers, current = [], None
            elif step.unit is not None:
                others.append(step)
    return rolls, others


def _rolled(roll: Roll) -> str:
    """"4+2 = 6": the dice as rolled and their sum; a single die alone."""
    if len(roll.dice) == 1:
        return str(roll.dice[0])
    return f"{'+'.join(map(str, roll.dice))} = {roll.total}"


def _modifier(step: Step) -> str:
    value = step.value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = f"{value:+g}"
    return f"{value} {step.label}"


def _final(check: Step) -> str:
    """A check's words for the final number: "final DR 6", "final DR 9 vs morale 7"."""
    label = check.label[:1].lower() + check.label[1:]
    if isinstance(check.value, (int, float)) and not isinstance(check.value, bool) \
            and not any(c.isdigit() for c in label):  # "Final DR" 6; "4 vs 5 or less: responds" says it
        return f"{label} {_number(check.value)}"
    return label


def _unit_name(unit_id: str, outcome: Outcome, game: Game | None) -> str:
    effect = next((e for e in outcome.effects if e.unit == unit_id), None)
    if effect is not None:
        return f"{effect.name} {unit_id}"
    unit = game.units.get(unit_id) if game is not None else None
    return f"{unit.name} {unit_id}" if unit is not None and getattr(unit, "name", "") else unit_id


def _unit_check(item: ReadRoll) -> bool:
    """A unit's own check (a morale check's "passes"): not the roll a headline's DR is of."""
    return item.check is not None and isinstance(item.check.value, str) \
        and item.dice is not None and item.dice.unit is not None


def final_headline(outcome: Outcome) -> str:
    """The headline with the DR it gives named as the final one ("vs B5: final DR 6 -> 1MC") when the
    trail's check says so: the dice as rolled are named "rolled" where they are shown."""
    read, _ = read_rolls(outcome)
    finals = {str(r.check.value) for r in read if r.check is not None and isinstance(r.check.value, int)
              and r.check.label.casefold().startswith("final")}
    finals |= {m[1] for r in read if r.check is not None and not _unit_check(r)  # "Final DR 9 vs Kill Number 5"
               for m in [re.match(r"final DR (\d+)\b", r.check.label, re.IGNORECASE)] if m}
    return _DR.sub(lambda m: f"final DR {m[1]}" if m[1] in finals else m[0], outcome.headline) if finals \
        else outcome.headline


def result_title(outcome: Outcome, game: Game | None = None) -> str:
    """What happened to whom, then the roll: "R2 broken — 8 FP (IFT 8) vs B5: final DR 6 -> 1MC",
    within ``RESULT_LINE`` characters: the units changed are named first only when they fit (each
    has its own line below). The DR the headline gives is the final one, and is named so. A unit the
    headline already names (a morale check's "A1 NMC: ... broken") is not named twice."""
    headline = final_headline(outcome)
    named = set(re.findall(r"[A-Za-z0-9_.\-]+", headline))
    changed = [f"{e.unit} {' and '.join(e.effects)}" for e in outcome.effects
               if e.effects and not _is_marker_only(e) and e.unit not in named]
    titled = f"{', '.join(changed)} — {headline}"
    return titled if changed and len(titled) <= RESULT_LINE else headline


# Where a title too long for one line may be split, best first: its last part after ": " (dropped
# there, "US Marine rifle squad M1 morale check (Hit-1)" | "1d6 6 + 1 = 7 vs 6 -> fails: Shaken"), then
# after a "; ", a " — ", a list's ", " or an arrow (the mark kept at the title's end, so it reads on into
# the first line), and at last between two words ("…" at both ends of the cut).
_TITLE_BREAKS = (": ", "; ", " — ", ", ", " -> ")
_TITLE_SHORTEST = RESULT_LINE * 2 // 5  # a title cut before this is too short to say what happened


def _closed(text: str) -> bool:
    """No parenthesis left open: a list in brackets ("0303 (M1, M2, L1)") is not cut."""
    return text.count("(") <= text.count(")")


def split_title(title: str) -> tuple[str, str]:
    """A title longer than ``RESULT_LINE`` split so that it fits (``_TITLE_BREAKS``), never inside
    brackets when it can be helped; the rest opens the description, whole. Every title fits: a single
    word longer than the line is cut with "…"."""
    if len(title) <= RESULT_LINE:
        return title, ""
    for mark in _TITLE_BREAKS:
        kept = mark.strip() if mark != ": " else ""
        room = RESULT_LINE - len(kept) - (1 if kept and mark.startswith(" ") else 0)
        cut = title.rfind(mark, 0, room + len(mark))  # the part before it at most ``room`` long
        while cut >= _TITLE_SHORTEST and not _closed(title[:cut]):
            cut = title.rfind(mark, 0, cut)
        if cut >= _TITLE_SHORTEST:
            head = title[:cut] + (" " if kept and mark.startswith(" ") else "") + kept
            return head, title[cut + len(mark):]
    room = RESULT_LINE - len(" …")
    spaces = [i for i in range(_TITLE_SHORTEST, min(room, len(title) - 1) + 1) if title[i] == " "]
    cut = next((i for i in reversed(spaces) if _closed(title[:i])), spaces[-1] if spaces else -1)
    if cut >= _TITLE_SHORTEST:
        return title[:cut] + " …", "… " + title[cut + 1:]
    return title[:RESULT_LINE - 1] + "…", "…" + title[RESULT_LINE - 1:]


def summary_lines(outcome: Outcome, game: Game | None = None) -> list[str]:
    """The short form of a result, a line each: every roll that is not a unit's check, its dice as
    rolled and its final DR with the modifiers; every unit that checked, passed or not, with its
    dice and the state it is left in; a unit's check that read no roll of its own when the ruleset
    says what it means (``check_results``: a weapon that kept its rate of fire may fire again);
    every other unit the action changed, with its state after; the units it only marked, on one line."""
    read, others = read_rolls(outcome)
    effects = {e.unit: e for e in outcome.effects}
    told: set[str] = set()
    rolls: list[str] = []
    checks: list[str] = []
    # a unit that checked more than once (a 1MC, then a Leader Loss Task Check) is left in its state
    # after the last: that check's line says it, an earlier one only passes or fails
    last_check = {item.dice.unit: n for n, item in enumerate(read) if item.dice is not None
                  and item.check is not None and isinstance(item.check.value, str)}
    for n, item in enumerate(read):
        roll, check = item.roll, item.check
        unit = item.dice.unit if item.dice is not None else None
        if check is not None and unit is not None and isinstance(check.value, str):
            heading = item.section.label if item.section is not None and item.section.unit == unit else ""
            name = re.split(r" \(|:", heading)[0].strip() if heading else ""
            line = (f"{name + ' ' if name else ''}{_unit_name(unit, outcome, game)}: "
                    f"rolled {'+'.join(map(str, roll.dice))}, {_final(check)}")
            if str(check.value).casefold() not in check.label.casefold():  # "7 vs 5: fails" says "fail"
                line += f" → {check.value}"
            effect = effects.get(unit) if last_check.get(unit) == n else None
            if unit in effects:
                told.add(unit)
            text = effect_text(effect, "→") if effect is not None else None
            if effect is not None and text is not None:
                changed = bool(effect.after) and effect.after != effect.before
                if not changed or effect.after != check.value:
                    line += f": {effect.after}" if changed else f": {text}"
                what = [w for w in effect.effects if not _says_state(w, effect.after) and w != check.value]
                if what and changed:
                    line += f" ({', '.join(what)})"
            checks.append(safe(line))
            continue
        what = f"{roll.purpose}: " if roll.purpose else ""
        line = f"🎲 {what}rolled {_rolled(roll)}"
        if check is not None:
            line += f", {_final(check)}"
            # a final DR is the roll with its modifiers; a number to roll against ("4 vs 3 or less")
            # holds them already, for every roll against it (the Details show them)
            if item.modifiers and _final(check).startswith("final"):
                line += " with " + ", ".join(_modifier(m) for m in item.modifiers)
        rolls.append(safe(line))
    ruleset = get_ruleset(outcome.ruleset)
    for step in others:
        meaning = ruleset.check_results.get(str(step.value))
        if meaning is None or step.unit in told:
            continue
        checks.append(safe(f"{step.label} → {step.value}, {meaning}"))
    lines = rolls + checks
    marked: dict[str, list[str]] = {}
    for effect in outcome.effects:
        if effect.unit in told:
            continue
        if _is_marker_only(effect):
            marked.setdefault(", ".join(effect.effects), []).append(f"{effect.name} {effect.unit}")
            continue
        text = effect_text(effect, "→")
        if text is not None:
            lines.append(safe(f"{effect.name} {effect.unit}: {text}"))
    for what, units in marked.items():
        lines.append(safe(f"{', '.join(units)}: {what}"))
    if outcome.manual_dice and outcome.unused_dice:
        lines.append(f"manual dice not needed: {', '.join(map(str, outcome.unused_dice))}")
    return lines


def result_footer(game: Game | None, entry_seq: int | None, *, manual: bool, note: str = "") -> str | None:
    """"log #15 · turn 1, Prep Fire Phase · manual dice · Germans to act": the log entry first, then
    when in the game, whose dice and who acts next, each part only while the line stays within
    ``RESULT_LINE`` characters (a note, the dice commitment of a turn's end, is always given whole)."""
    parts = [f"log #{entry_seq}"] if entry_seq is not None else []
    if note:
        return " · ".join(parts + [note])
    if game is not None:
        ruleset = get_ruleset(game.ruleset)
        step = step_name(game, ruleset) if refereed(game) else ruleset.phase_names.get(game.phase, game.phase)
        optional = [f"turn {game.turn}, {step}"] + (["manual dice"] if manual else []) \
            + [f"{game.side_name(side_to_act(game))} to act"]
    else:
        optional = ["manual dice"] if manual else []
    for part in optional:
        if len(" · ".join(parts + [part])) <= RESULT_LINE:
            parts.append(part)
    return unmentioned(" · ".join(parts)) if parts else None


def summary_embed(outcome: Outcome, game: Game | None, *, entry_seq: int | None,
                  colour: discord.Colour, note: str = "") -> discord.Embed:
    """A result that rolled, outcome first: the title says what happened to whom; each line a roll
    and each unit checked or changed; the footer the log entry, the turn and step, and who acts. The
    whole trail: the Details button."""
    title, rest = split_title(result_title(outcome, game))
    title = safe(title)
    body = "\n".join(([safe(rest)] if rest else []) + summary_lines(outcome, game))
    embed = discord.Embed(title=_title(title), colour=colour, description=_fit_description(title, body))
    footer = result_footer(game, entry_seq, manual=outcome.manual_dice, note=note)
    if footer:
        embed.set_footer(text=footer)
    return embed


# --- other embeds ------------------------------------------------------------------------


def error_embed(message: str, rule: str | None = None, *, title: str = "Order refused") -> discord.Embed:
    """A red embed for a refused order, quoting the rule when the message does not already."""
    text = safe(message)
    if rule and rule not in message:
        text += f" [{safe(rule)}]"
    return discord.Embed(title=title, description=_fit_description(title, text), colour=ERROR_COLOUR)


def info_embed(title: str, description: str = "", *, fields: Sequence[tuple[str, Sequence[str]]] = (),
               escape: bool = True, colour: discord.Colour = NEUTRAL_COLOUR) -> list[discord.Embed]:
    """A neutral embed (help, lists, confirmations); split like the others when long."""
    clean = safe if escape else str
    blocks = [Block(clean(name), tuple(clean(line) for line in lines)) for name, lines in fields]
    return paginate(clean(title), blocks, colour=colour, description=clean(description))


def unit_status(unit: Any) -> str:
    """A unit's markers in words, as its ruleset says them: "broken, DM, Prep Fire"."""
    return get_ruleset(unit.system).unit_status(unit)


def _location_heading(game: Game, location_id: str) -> str:
    loc = game.locations.get(location_id)
    if loc is None:
        return safe(location_id)
    extras = [*loc.features, *get_ruleset(game.ruleset).location_words(loc)]
    return f"{safe(loc.id)}: {safe(loc.terrain)}" + (f" ({safe(', '.join(extras))})" if extras else "")


def _unit_line(game: Game, unit: Any) -> str:
    return f"{safe(unit.label)} ({safe(game.side_name(unit.side))}): {safe(unit_status(unit))}"


def status_blocks(game: Game) -> list[Block]:
    """Units by location (sorted by side, then id), then off board, then eliminated."""
    by_location: dict[str, list[Any]] = {loc: [] for loc in sorted(game.locations, key=_natural)}
    off_board: list[Any] = []
    eliminated: list[Any] = []
    for unit in sorted(game.units.values(), key=lambda u: (u.side, _natural(u.id))):
        if unit.eliminated:
            eliminated.append(unit)
        elif unit.location is None:
            off_board.append(unit)
        else:
            by_location.setdefault(unit.location, []).append(unit)
    blocks = [Block(_location_heading(game, loc), tuple(_unit_line(game, u) for u in units))
              for loc, units in by_location.items() if units]
    for name, units in (("Off board", off_board), ("Eliminated", eliminated)):
        if units:
            blocks.append(Block(name, tuple(_unit_line(game, u) for u in units)))
    return blocks


def _natural(text: str) -> tuple:
    """"B10" after "B9": digits compare as numbers."""
    return tuple(int(p) if p.isascii() and p.isdigit() else p.casefold() for p in re.split(r"(\d+)", text))


def away_words(away: Any) -> str:
    """"away until <t:…:f> (<t:…:R>): holidays": a player's away (``/away``) as others read it."""
    until = int(datetime.fromisoformat(away.until).timestamp())
    reason = f": {safe(away.reason)}" if away.reason else ""
    return f"away until <t:{until}:f> (<t:{until}:R>){reason}"


def _player_words(player: int, away: Mapping[int, Any]) -> str:
    return f"<@{player}>" + (f" ({away_words(away[player])})" if player in away else "")


def _sides_text(game: Game, away: Mapping[int, Any] = {}, deadline: datetime | None = None) -> str:
    lines = []
    for i, side in enumerate(game.sides):
        players = ", ".join(_player_words(p, away) for p in side.players) or "no player yet"
        marker = " (to act)" if i == side_to_act(game) else ""
        if game.reaction is not None and i == game.reaction.side:
            marker = " (to answer a reaction window)"
        lines.append(f"{safe(side.name)}{marker}: {players}")
    if game.reaction is not None:
        lines.append(_waiting_line(game))
    clock = _clock_line(game, deadline)
    if clock:
        lines.append(clock)
    return "\n".join(lines)


def _clock_line(game: Game, deadline: datetime | None) -> str | None:
    """The game's clock: paused, or the deadline of the side it waits for (``deadline``: when it falls;
    None while that side's players are all away)."""
    if game.paused:
        return "Paused by the game master: no deadline, reminder or reaction time limit runs (/game resume)"
    hours = deadlines.limit(game)
    if hours is None:
        return None
    waited = safe(game.side_name(deadlines.waited_side(game)))
    when = (f"<t:{int(deadline.timestamp())}:f> (<t:{int(deadline.timestamp())}:R>), " if deadline is not None
            else f"none while {waited} are away; then ")
    return (f"Deadline for {waited}: {when}{hours:g} hours from the newest entry (game option deadline_hours"
            + (f", extended by {deadlines.extension(game):g} for this step" if deadlines.extension(game) else "")
            + ")")


def _waiting_line(game: Game) -> str:
    """What an open reaction window waits for: "Waiting for Russians: Defensive First Fire at ..."."""
    window = game.reaction
    return (f"Waiting for {safe(game.side_name(window.side))}: {safe(window.name)} at "
            f"{safe(', '.join(window.units))} in {safe(window.at)} ({window.rule}), Fire or No fire")


STATUS_RECENT = 3  # log entries /game status shows under "Lately"
STATUS_LINE = 58  # characters of a line of /game status at most: one line of a phone's screen


def reminder_hours(game: Game) -> float | None:
    """The game's ``remind_after_hours`` option, when it is a positive number (bot/pacing.py)."""
    value = game.options.get("remind_after_hours")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value)


def _shorten(text: str, most: int = STATUS_LINE) -> str:
    return text if len(text) <= most else text[:most - 1].rstrip() + "…"


def side_counts(game: Game, side: int) -> str:
    """"Germans: 22 on the map, 2 off board, 1 eliminated"."""
    units = [u for u in game.units.values() if u.side == side]
    on_map = sum(1 for u in units if not u.eliminated and u.location is not None)
    off = sum(1 for u in units if not u.eliminated and u.location is None)
    gone = sum(1 for u in units if u.eliminated)
    parts = [f"{on_map} on the map"] + ([f"{off} off board"] if off else []) + ([f"{gone} eliminated"] if gone else [])
    return f"{safe(game.side_name(side))}: " + (", ".join(parts) if units else "no units yet")


def status_embed(game: Game, recent: Sequence[LogEntry] = (), undone: Iterable[int] = (), *,
                 now: datetime | None = None, away: Mapping[int, Any] = {},
                 deadline: datetime | None = None) -> discord.Embed:
    """/game status in the channel, one phone screen: who acts and in which step, the reminder due
    if the game has one, each side's players and count of units, and the newest log entries. The
    whole unit list is the Units button's, to the presser alone (``game_status_embed``)."""
    title = f"{safe(game.scenario) or title_of(game.ruleset)}: turn {game.turn}"
    if game.turns is not None:
        title += f" of {game.turns}"
    ruleset = get_ruleset(game.ruleset)
    acting = side_to_act(game)
    if refereed(game):
        lines = [f"{safe(step_name(game, ruleset))} · **{safe(game.side_name(acting))}** to act"]
    else:
        phase = ruleset.phase_names.get(game.phase, game.phase)
        lines = [f"{safe(phase)} · **{safe(game.side_name(game.active_side))}**'s turn"]
    window = game.reaction  # the mover waits on the other side's answer (bot/core/windows.py)
    lines.append(" · ".join(
        f"{safe(side.name)}{' (to answer a reaction window)' if window is not None and i == window.side else ''}: "
        f"{' '.join(_player_words(p, away) for p in side.players) or 'no player'}"
        for i, side in enumerate(game.sides)))
    if window is not None:
        lines.append(_waiting_line(game))
    clock = _clock_line(game, deadline)  # paused, or the deadline (the game option deadline_hours)
    if clock:
        lines.append(clock)
    hours = reminder_hours(game)
    if hours is not None and recent:
        due = datetime.fromisoformat(recent[-1].time) + timedelta(hours=hours)
        when = int(due.timestamp())
        if now is None or due > now:
            lines.append(f"Reminder to {safe(game.side_name(acting))} <t:{when}:R> if nothing happens")
        else:
            lines.append(f"Silent since <t:{int(datetime.fromisoformat(recent[-1].time).timestamp())}:R>: "
                         f"{safe(game.side_name(acting))} reminded")
    embed = discord.Embed(title=_title(title), description="\n".join(lines), colour=side_colour(acting))
    embed.add_field(name="Units", inline=False,
                    value="\n".join(side_counts(game, i) for i in range(len(game.sides))) if game.units
                    else "none yet: add them with /unit add")
    struck = set(undone)
    lately = []
    for entry in recent:
        seq, headline = f"#{entry.seq} ", str(entry.outcome.get("headline", ""))
        if entry.seq in struck:
            lately.append(f"{seq}~~{safe(_shorten(headline, STATUS_LINE - len(seq) - 9))}~~ (undone)")
        else:
            lately.append(seq + safe(_shorten(headline, STATUS_LINE - len(seq))))
    if lately:
        embed.add_field(name="Lately", inline=False, value="\n".join(lately))
    embed.set_footer(text="Units: every unit, to you alone · Map: the battlefield")
    return embed


def game_status_embed(game: Game, away: Mapping[int, Any] = {}, deadline: datetime | None = None
                      ) -> list[discord.Embed]:
    """Turn, phase, side to act (its players away, with ``away``: their /away), the deadline (when it
    falls), and every unit by location with its markers."""
    title = f"{safe(game.scenario) or title_of(game.ruleset)}: turn {game.turn}"
    if game.turns is not None:  # the scenario's length (a scenario file gives it)
        title += f" of {game.turns}"
    description = f"{game_line(game)}\n{_sides_text(game, away, deadline)}"
    blocks = status_blocks(game) or [Block("Units", ("none yet: add them with /unit add",))]
    return paginate(title, blocks, colour=side_colour(side_to_act(game)), description=description)


GAMES_TITLE = "Your games"


def player_games_embeds(seated: Sequence[Any], *, mine: bool, away: Any = None) -> list[discord.Embed]:
    """/games: each game the user plays in (``Referee.player_games``), the channel as a link, the
    rules and scenario, whose move and since when (its newest entry), the deadline (or the pause, or
    the side away), the user's own move first; ``away``: the user's own away, when away now."""
    yours = f"You are {away_words(away)}: your sides' deadlines wait (/away end when back)" if away else ""
    if not seated:
        empty = ("No game waits for your move." if mine else
                 "You play in no game the bot referees: join one with /game join, or start one with /game new.")
        return [discord.Embed(title=GAMES_TITLE, description="\n".join(filter(None, (yours, empty))),
                              colour=NEUTRAL_COLOUR)]
    ordered = sorted(seated, key=lambda s: (not s.theirs, s.since))
    blocks = []
    for held in ordered:
        game = held.game
        where = (f"https://discord.com/channels/{held.guild_id}/{held.channel_id}" if held.guild_id is not None
                 else f"<#{held.channel_id}>")
        since = int(datetime.fromisoformat(held.since).timestamp())
        waits = "your move" if held.theirs else f"{safe(game.side_name(held.side))} to act"
        if game.reaction is not None:
            whose = "your" if held.theirs else f"{safe(game.side_name(held.side))}'"
            waits = f"{whose} answer to {safe(game.reaction.name)}"
        name = f"{safe(game.scenario) or title_of(game.ruleset)}"
        lines = [f"{where} · {title_of(game.ruleset)}",
                 f"{waits} (turn {game.turn}, {safe(step_name(game, get_ruleset(game.ruleset)))}) since <t:{since}:R>"]
        if game.paused:
            lines.append("paused by the game master")
        elif held.away_until is not None:
            until = int(datetime.fromisoformat(held.away_until).timestamp())
            lines.append(f"{'you are' if held.theirs else safe(game.side_name(held.side)) + ' are'} away until "
                         f"<t:{until}:f>: no deadline meanwhile")
        elif held.deadline is not None:
            lines.append(f"deadline <t:{int(held.deadline.timestamp())}:R>")
        blocks.append(Block(name[:200], tuple(lines)))
    count = sum(1 for s in seated if s.theirs)
    description = (f"{len(seated)} game{'s' if len(seated) != 1 else ''}"
                   + ("" if mine else f", {count} waiting for your move") + (f"\n{yours}" if yours else ""))
    return paginate(GAMES_TITLE + (": your move" if mine else ""), blocks, colour=NEUTRAL_COLOUR,
                    description=description)


def map_embed(game: Game, filename: str) -> discord.Embed:
    """The map's frame: the game's line (turn, phase, who acts) and the picture attached as ``filename``."""
    title = f"{safe(game.scenario) or title_of(game.ruleset)}: turn {game.turn}"
    embed = discord.Embed(title=_title(title), description=game_line(game), colour=side_colour(side_to_act(game)))
    embed.set_image(url=f"attachment://{filename}")
    return embed


def sight_embeds(game: Game, line: SightLine, filename: str) -> list[discord.Embed]:
    """/los: the line of sight as the bot reads it (each hex crossed with its terrain and what it does
    to the line, with the rule; the verdict) over as many embeds as it needs, the picture attached as
    ``filename`` on the first."""
    title = safe(f"Line of sight {line.source} to {line.target}, range {line.range}: "
                 f"{'blocked' if line.blocked else 'clear'}")
    blocks = [Block("Hexes crossed", tuple(f"{safe(text)}  [{safe(rule)}]" for text, rule in line.lines())),
              Block("Read on the map", (safe(line.verdict()) + " (whole hexes: terrain art that does not fill its "
                                        "hex can change it; the game option los says how a fire uses the line)",))]
    embeds = paginate(title, blocks, colour=side_colour(side_to_act(game)), description=game_line(game))
    embeds[0].set_image(url=f"attachment://{filename}")
    return embeds


def options_embed(game: Game) -> list[discord.Embed]:
    """Every game option of the game's ruleset with its value here, its default and what it takes."""
    from bot.core.options import applies, catalogue, current

    ruleset = get_ruleset(game.ruleset)
    lines = []
    for option in catalogue(ruleset):
        if not applies(option, game.variant):
            continue
        value = current(game, option)
        mark = "" if option.name in game.options else " (default)"
        lines.append(f"**{safe(option.name)}** = {safe(option.shown(value))}{mark}: {safe(option.help)}; "
                     f"takes {safe(option.takes())}")
    for side_option in ruleset.side_options:
        values = ", ".join(f"{safe(side.name)} {getattr(side, side_option.name, None) or 'none'}"
                           for side in game.sides)
        lines.append(f"**{side_option.name}** ({safe(side_option.title)}, {side_option.rule}): {values}; "
                     f"given at /game new ({side_option.name}_1, {side_option.name}_2)")
    description = ("The game master changes them with `/game options set:name=value` "
                   "(`name=default` restores the default).")
    return paginate(f"Game options: {title_of(game.ruleset)}", [Block("Options", tuple(lines))],
                    colour=NEUTRAL_COLOUR, description=description)


@dataclass(frozen=True)
class CommandInfo:
    """A slash command as the bot registered it (read from its command tree by the help cog)."""

    path: str  # "game new", "fire"
    description: str
    options: tuple[tuple[str, str, bool], ...]  # (name, description, required)


EVERY_COMMAND = "all"  # /help command:all lists every command
# /help's overview: the commands a player needs, by what they are for (those the bot registered;
# "orders" are the channel's ruleset's own). Every other command: /help command:all.
HELP_GROUPS_NO_GAME = (("Start a game", ("game new", "scenario load")), ("Look things up", ("unit types",)))
HELP_GROUPS = (
    ("Look", ("game status", "game map", "unit info", "log show")),
    ("Seats and set-up", ("game join", "unit add", "unit move", "location set")),
    ("Hidden orders", ("seal", "reveal", "roll secret")),
    ("A mistake", ("undo",)),
)


def _group_lines(groups: Sequence[tuple[str, Sequence[str]]], known: set[str]) -> list[str]:
    return [f"**{name}**: " + ", ".join(f"/{path}" for path in paths if path in known)
            for name, paths in groups if any(path in known for path in paths)]


def help_embeds(game: Game | None, commands: Sequence[CommandInfo], *, everything: bool = False) -> list[discord.Embed]:
    """/help: where the game stands, what each side may do now (an example from its own units),
    which command ends the step; then the commands a player needs, grouped, and how to see the
    rest. ``everything`` (/help command:all): every command the bot has, with what it does."""
    from bot.core.help import may_now, step_ender, where_now

    if everything:
        return paginate("Help: every command", [Block("/help command:name explains one", tuple(
            f"/{c.path}: {safe(c.description)}" for c in commands))], colour=NEUTRAL_COLOUR)
    blocks: list[Block] = []
    known = {c.path for c in commands}
    if game is None:
        description = "No game in this channel: start one with /game new."
        title = "Help"
        lines = _group_lines(HELP_GROUPS_NO_GAME, known)
    else:
        ruleset = get_ruleset(game.ruleset)
        title = f"Help: {ruleset.title}"
        # where the game stands names its sides, which players name (issue 17's full run: a side
        # called "@everyone **x**" came out raw here)
        description = f"{safe(where_now(game, ruleset))}.\n{safe(step_ender(game, ruleset))}."
        for side, verdicts in may_now(game, ruleset).items():
            lines = [f"`{v.example}`" for v in verdicts] or ["nothing of the rules now"]
            blocks.append(Block(f"{safe(game.side_name(side))} may now", tuple(lines)))
        if ruleset.left_to_table:
            blocks.append(Block("Not refereed: played at the table", tuple(safe(t) for t in ruleset.left_to_table)))
        orders = [c.path for c in commands if ruleset.command(c.path) is not None] + ["done"]
        lines = _group_lines([(f"Orders of {ruleset.title}", orders), *HELP_GROUPS], known)
    lines.append(f"{len(commands)} commands in all: /help command:{EVERY_COMMAND} lists them, "
                 "/help command:name explains one")
    blocks.append(Block("Commands", tuple(lines)))
    return paginate(title, blocks, colour=NEUTRAL_COLOUR, description=description)


def command_help_embeds(game: Game | None, command: CommandInfo) -> list[discord.Embed]:
    """/help command:…: what it does, its options, and, for an order of the channel's ruleset,
    whether each side may give it now (an example from the game's units, or the refusal's words)."""
    from bot.core.help import command_verdict

    ruleset = get_ruleset(game.ruleset) if game is not None else None
    order_command = ruleset.command(command.path) if ruleset is not None else None
    options = []
    for name, text, required in command.options:
        own = order_command.option(name) if order_command is not None else None
        if own is not None:  # the channel's ruleset's own words for it
            text, required = own.description[0].upper() + own.description[1:], own.required
        elif order_command is not None and name not in order_command.bot_options():
            continue  # an option of another ruleset's command of that name
        options.append(f"{safe(name)}{' (required)' if required else ''}: {safe(text)}")
    blocks = [Block("Options", tuple(options) or ("none",))]
    if game is not None and ruleset is not None:
        if order_command is not None:
            lines = []
            for side in range(len(game.sides)):
                found = command_verdict(game, ruleset, order_command, side)
                name = safe(game.side_name(side))
                if found is None:
                    lines.append(f"{name}: no unit to give it with")
                elif found.why_not is None:
                    lines.append(f"{name} may, e.g. `{found.example}`")
                else:
                    lines.append(f"{name} may not ({safe(found.why_not)}); e.g. `{found.example}`")
            blocks.append(Block("Now", tuple(lines)))
    return paginate(f"/{safe(command.path)}", blocks, colour=NEUTRAL_COLOUR, description=safe(command.description))


def unit_info_embeds(game: Game, unit: Any, numbers: str) -> list[discord.Embed]:
    """/unit info: a unit's numbers, markers and place, and what it may do now (or why not)."""
    from bot.core.help import unit_verdicts

    ruleset = get_ruleset(game.ruleset)
    holder = game.find_unit(unit.holder_id or "")
    carried = [u.id for u in game.units.values() if u.holder_id == unit.id]
    facts = [f"{safe(game.side_name(unit.side))}, {safe(unit.location or 'off board')}",
             f"Numbers: {safe(numbers)}", f"Markers: {safe(unit_status(unit))}"]
    if holder is not None:
        facts.append(f"Held by {safe(holder.label)}")
    if carried:
        facts.append(f"Holds {safe(', '.join(carried))}")
    lines = []
    for found in unit_verdicts(game, ruleset, unit):
        if found.why_not is None:
            lines.append(f"yes: `{found.example}`")
        else:
            lines.append(f"not /{found.command.name}: {safe(found.why_not)}")
    blocks = [Block("The counter", tuple(facts)),
              Block(f"Now ({safe(step_name(game, ruleset))})", tuple(lines) or ("no order of the rules",))]
    return paginate(safe(unit.label), blocks, colour=side_colour(unit.side))


# --- the log, undo proposals, dice statistics ----------------------------------------------


def entry_line(entry: LogEntry, names: Callable[[Any], str], undone: dict[int, int],
               regiven: dict[int, int] | None = None) -> str:
    """"#7 · <t:1795431240:f> · alice · /morale · NMC 4-6-7 A1: rolled 3+4 = 7 (white 3, colored 4),
    final DR 7 · headline": the time as
    Discord's timestamp markup, which each reader sees in their own time zone."""
    when = f"<t:{int(datetime.fromisoformat(entry.time).timestamp())}:f>"  # each reader's own time zone
    parts = [f"#{entry.seq}", when, safe(names(entry.actor)),
             safe(entry.command)]
    outcome = entry.outcome_model()
    rolls = [roll_line(roll, final) for roll, final in zip(outcome.rolls, final_numbers(outcome))]
    if rolls:
        parts.append("; ".join(rolls) + (" (manual)" if entry.manual else ""))
    parts.append(safe(final_headline(outcome)))
    line = " · ".join(parts)
    if entry.seq in undone:
        return f"~~{line}~~ (undone by #{undone[entry.seq]})"
    if regiven and entry.seq in regiven:
        return f"{line} ({regiven_words(regiven[entry.seq], bool(entry.outcome.get('rolls')))})"
    return line


def regiven_words(undone: int, rolled: bool = True) -> str:
    """The mark of an order given again after the undo of the same order by the same side."""
    words = f"given again after #{undone} was undone"
    return words + (f": new dice, #{undone}'s stay in the log" if rolled else "")


def log_page_embeds(shown: LogPage, names: Callable[[Any], str]) -> list[discord.Embed]:
    """One page of the log, newest last."""
    lines = tuple(entry_line(e, names, shown.undone, shown.regiven) for e in shown.entries)
    title = f"Log of game {shown.game_id}" + (" (ended)" if shown.status == "ended" else "")
    first, last = shown.entries[0].seq, shown.entries[-1].seq
    return paginate(title, [Block(f"Entries {first}-{last} of {shown.total}", lines)],
                    colour=NEUTRAL_COLOUR, footer=f"page {shown.page}/{shown.pages} · newest last")


def verify_embed(report: VerifyReport) -> discord.Embed:
    """What /log verify found: green when the whole log checks out, else the first entry that does not."""
    if report.ok:
        return discord.Embed(title="The log checks out", description=safe(report.reason), colour=OK_COLOUR)
    where = f"Entry #{report.first_bad_seq}" if report.first_bad_seq else "The game's record"
    return error_embed(report.reason, title=f"{where} does not check out")


def digest_embed(entries: Sequence[LogEntry], game: Game) -> discord.Embed:
    """What happened since a side last acted, one line an entry: its number, the command, the result
    and the dice; the newest last."""
    lines = []
    for entry in entries:
        outcome = entry.outcome_model()
        rolls = "; ".join(roll_line(roll, final) for roll, final in zip(outcome.rolls, final_numbers(outcome)))
        lines.append(f"#{entry.seq} {safe(entry.command)}: {safe(final_headline(outcome))}"
                     + (f" · {rolls}" if rolls else ""))  # as /log show writes them
    text = _fit_description("", "\n".join(lines))
    return discord.Embed(title=f"Since you last acted: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}",
                         description=text, colour=NEUTRAL_COLOUR)


def pace_embed(waits: Sequence[SideWaits], sides: Sequence[str]) -> discord.Embed:
    """Each side's time to answer: how many times the game waited for it, the median and the longest wait."""
    lines = []
    for found in waits:
        name = safe(sides[found.side]) if found.side < len(sides) else f"side {found.side + 1}"
        if not found.waits:
            lines.append(f"{name}: no wait yet")
            continue
        lines.append(f"{name}: {len(found.waits)} wait{'s' if len(found.waits) != 1 else ''}, median "
                     f"{spoken(found.median)}, longest {spoken(found.longest)}")
    return discord.Embed(title="Time to answer", colour=NEUTRAL_COLOUR, description="\n".join(lines) + (
        "\nA wait runs from the other side's last entry to the side's next one; the game master's entries "
        "count for nobody."))


def seat_embed(kind: str, game: Game, side: int, user: int, by: int) -> discord.Embed:
    """A request for a seat (the player's), an invitation (the game master's), or its decline."""
    name = safe(game.side_name(side))
    if kind == "request":
        title, text = f"A seat with {name} asked for", (f"<@{user}> asks to play {name}. The game master approves or "
                                                         "declines; the seat is taken only then.")
    elif kind == "invite":
        title, text = f"Invitation to play {name}", (f"<@{by}>, the game master, invites <@{user}> to play {name}. "
                                                     f"<@{user}> accepts or declines; nobody is seated without it.")
    else:
        title, text = f"Seat with {name} declined", f"<@{by}> declined: <@{user}> does not play {name}."
    return discord.Embed(title=title, description=text, colour=NEUTRAL_COLOUR)


def substitute_embed(game: Game, old: int, new: int, by: int, *, declined: bool = False) -> discord.Embed:
    """The game master's invitation to a substitute to take a player's seat (``/game replace``), or its decline."""
    sides = " and ".join(safe(s.name) for s in game.sides if old in s.players) or "their side"
    if declined:
        return discord.Embed(title=f"Substitute for {sides} declined",
                             description=f"<@{new}> declined: <@{old}> keeps the seat.", colour=NEUTRAL_COLOUR)
    return discord.Embed(title=f"A substitute for {sides}", description=(
        f"<@{by}>, the game master, asks <@{new}> to take <@{old}>'s seat on {sides}. <@{new}> accepts or "
        "declines; nothing changes without it."), colour=NEUTRAL_COLOUR)


def stamp(when: datetime) -> str:
    """Discord's timestamp markup: each reader sees it in their own time zone."""
    seconds = int(when.timestamp())
    return f"<t:{seconds}:f> (<t:{seconds}:R>)"


def end_request_embed(game: Game, asker: int, reopen_hours: float, answer: str | None = None,
                      by: int | None = None) -> discord.Embed:
    """/game end asks first: what ending does to the game and its log, the buttons' rule; ``answer``
    ("cancelled") once answered without ending."""
    name = f"{safe(game.side_name(0))} vs {safe(game.side_name(1))}" + (f" ({safe(game.scenario)})" if game.scenario
                                                                        else "")
    text = (f"<@{asker}> asks to end this game: {name}, turn {game.turn}.\n"
            "Ending takes no more orders; the log is kept whole and hash-chained (/log show, /log verify and "
            "/log export still read it), and the end reveals the last dice seed so anyone can check the dice.\n"
            f"The game master may reopen a game ended by mistake with /game reopen within {reopen_hours:g} hours.")
    if answer is None:
        return discord.Embed(title="End this game?", colour=NEUTRAL_COLOUR,
                             description=text + f"\nOnly <@{asker}> or the game master may confirm or cancel.")
    return discord.Embed(title=f"Ending {answer}", colour=NEUTRAL_COLOUR,
                         description=text + f"\n{answer.capitalize()} by <@{by}>: the game goes on.")


def proposal_embed(proposal: UndoProposal, answer: UndoAnswer | None = None) -> discord.Embed:
    request, target, game = proposal.request, proposal.target, proposal.game
    proposer_sides = [i for i, side in enumerate(game.sides) if request.proposer in side.players]
    others = [safe(game.side_name(i)) for i in range(len(game.sides)) if i not in proposer_sides]
    rolled = bool(target.outcome.get("rolls"))
    text = (f"<@{request.proposer}> proposes to undo entry #{target.seq} ({safe(target.command)}): "
            f"{safe(target.outcome.get('headline', ''))}\n"
            + ("Its dice stay in the log; giving the order again rolls new dice." if rolled else
               "It rolled no dice; it stays in the log, marked undone."))
    if answer is None:
        title = f"Undo proposed: entry #{target.seq}"
        text += (f"\nA player of {' or '.join(others) or 'the other side'} or the game master may accept "
                 f"until {stamp(proposal.expires_at)}; the proposer may withdraw it.")
    else:
        who = f"<@{answer.request.answered_by}>" if answer.request.answered_by else ""
        title = f"Undo of entry #{target.seq}: {answer.status}"
        text += "\n" + ANSWERED[answer.status].format(who=who).capitalize() + "."
    return discord.Embed(title=title, description=text, colour=NEUTRAL_COLOUR)


ANSWERED = {"accepted": "accepted by {who}", "refused": "refused by {who}", "withdrawn": "withdrawn by {who}",
            "expired": "expired without an answer", "lapsed": "lapsed: the game moved on (or ended) meanwhile"}


def family_block(stats: FamilyStats) -> Block:
    fam = stats.family
    mean = f"mean {stats.mean:.2f} (fair: {fam.expected_mean:g})" if stats.mean is not None else "no dice"
    lines = [f"{face}: {observed} (expected {expected:.1f})"
             for face, observed, expected in zip(fam.faces, stats.observed, stats.expected)]
    if stats.testable:
        lines.append(f"chi-square {stats.chi_square:.2f}, {stats.degrees_of_freedom} df, p = {stats.p_value:.3f}")
    else:
        lines.append(f"chi-square test: needs at least {stats.rolls_needed} (5 expected per cell)")
    return Block(f"{fam.title}: {stats.n}, {mean}", tuple(lines))


def breakdown_block(entries: list[dict], sides: list[str]) -> Block | None:
    """Everyone's dice at a glance: one line per player and per side that rolled. Players are
    shown as <@id>: an embed never pings, and Discord shows each reader the name."""
    players, rolled_for = rollers(entries)
    lines = [f"<@{p}>: {summary(tally(entries, player=p))}" for p in players]
    lines += [f"{safe(sides[i]) if i < len(sides) else i}: {summary(tally(entries, side=i))}" for i in rolled_for]
    return Block("By player and by side", tuple(lines)) if lines else None


CHART = "dice.png"  # the attachment's name the stats embed shows


def stats_embeds(stats: DiceStats, who: str, extra: Block | None = None) -> list[discord.Embed]:
    counted = [f for f in stats.families if f.n]
    description = f"{stats.rolls} roll{'s' if stats.rolls != 1 else ''} by the bot's dice"
    if stats.manual_left_out:
        description += f"; {stats.manual_left_out} manual dice left out (thrown at the table)"
    description += ". A small p (below 0.01) says the dice look unfair; a large one says nothing is wrong."
    blocks = [family_block(f) for f in counted] or [Block("No dice yet", ("nothing was rolled",))]
    blocks += [extra] if extra else []
    embeds = paginate(f"Dice statistics: {who}", blocks, colour=NEUTRAL_COLOUR, description=description)
    embeds[0].set_image(url=f"attachment://{CHART}")
    return embeds


# --- pacing lines (the only texts that mention players: bot/replies.py allows exactly those) ---


def where_line(game: Game) -> str:
    """"Russians, turn 1, Rally Phase": who acts, and when."""
    ruleset = get_ruleset(game.ruleset)
    return f"{safe(game.side_name(side_to_act(game)))}, turn {game.turn}, {safe(step_name(game, ruleset))}"


def hand_off_line(game: Game, side: int, away: Mapping[int, Any] = {}) -> str | None:
    """"<@1> <@2>: your move (Russians, turn 1, Rally Phase)"; None when the side has no player. With
    ``away`` (the players away now, /away), each of the side's players away is named with his return."""
    players = game.sides[side].players if 0 <= side < len(game.sides) else []
    if not players:
        return None
    gone = "".join(f"; <@{p}> is {away_words(away[p])}" for p in players if p in away)
    return f"{' '.join(f'<@{p}>' for p in players)}: your move ({where_line(game)}){gone}"


def reminder_line(game: Game, silent_for: timedelta, *, deadline: datetime | None = None) -> str | None:
    """The reminder of a silent game, to the players of the side it waits for (the side to act, or
    the side answering a reaction window); None when it has none. With its ``deadline`` (the game
    option deadline_hours), when it falls and what happens then."""
    window = game.reaction
    side = window.side if window is not None else side_to_act(game)
    players = game.sides[side].players if 0 <= side < len(game.sides) else []
    if not players:
        return None
    hours = int(silent_for.total_seconds() // 3600)
    waits = (f"your answer to {safe(window.name)} at {safe(', '.join(window.units))} in {safe(window.at)} "
             f"({window.rule}: Fire or No fire)" if window is not None else f"your move ({where_line(game)})")
    line = (f"{' '.join(f'<@{p}>' for p in players)}: the game waits for {waits}; "
            f"nothing happened for {hours} hour{'s' if hours != 1 else ''}")
    if deadline is not None:
        default = "no fire" if window is not None else "/done"
        line += (f"; deadline <t:{int(deadline.timestamp())}:R> (<t:{int(deadline.timestamp())}:f>), then the "
                 f"step ends with {default}")
    return line


def deadline_why(game: Game, hours: float, headline: str) -> str:
    """The line heading a step ended by its deadline (the game as it was before)."""
    late = safe(game.side_name(deadlines.waited_side(game)))
    what = "the reaction window closes as no fire" if game.reaction is not None else \
        f"the {safe(step_name(game, get_ruleset(game.ruleset)))} ends with /done"
    return (f"Ended by the deadline: nothing from {late} in {hours:g} hours, so {what} "
            f"(game option deadline_hours): {safe(headline)}")


def deadline_told_line(game: Game, hours: float) -> str | None:
    """To the late side's players (the game as it was before): what the deadline did to their step."""
    players = game.sides[deadlines.waited_side(game)].players
    if not players:
        return None
    what = "your reaction window was closed as no fire" if game.reaction is not None else \
        f"your {safe(step_name(game, get_ruleset(game.ruleset)))} was ended (/done)"
    return f"{' '.join(f'<@{p}>' for p in players)}: {what} by the deadline, {hours:g} hours without your order"


def deadline_stuck_line(game: Game, hours: float, refusal: str) -> str:
    """The deadline passed, but the step cannot end by itself (a roll the rules still require)."""
    players = " ".join(f"<@{p}>" for p in game.sides[deadlines.waited_side(game)].players)
    return (f"{players}: the deadline passed ({hours:g} hours without an order), but the "
            f"{safe(step_name(game, get_ruleset(game.ruleset)))} cannot end by itself: {safe(refusal)}; "
            "the game master moves the game on (/game phase) or extends the deadline (/game deadline)")


def reaction_line(game: Game) -> str | None:
    """The open reaction window, to the players who may react: "<@2>: Defensive First Fire at 4-6-7 A1
    in F4 (A8.1)? Germans wait for your Fire or No fire"; None when none is open or the side has no player."""
    window = game.reaction
    if window is None:
        return None
    players = game.sides[window.side].players if 0 <= window.side < len(game.sides) else []
    if not players:
        return None
    again = "more " if window.answers else ""
    return (f"{' '.join(f'<@{p}>' for p in players)}: {again}{safe(window.name)} at "
            f"{safe(', '.join(window.units))} in {safe(window.at)} ({window.rule})? "
            f"{safe(game.side_name(window.mover))} wait for your Fire or No fire")


def go_on_line(game: Game, side: int, headline: str) -> str | None:
    """After a reaction window closed: the waiting side's players told to go on; None without players."""
    players = game.sides[side].players if 0 <= side < len(game.sides) else []
    if not players:
        return None
    return f"{' '.join(f'<@{p}>' for p in players)}: {safe(headline)}; go on ({where_line(game)})"


def next_rolls_line(game: Game, rolls: list[Any]) -> str | None:
    """The private line over the buttons of the rolls the rules call for next (bot/core/required.py):
    "Next for Germans (A10.6): Rally 4-4-7 R1, Rally 8-1 L1; press one, or give the command"."""
    if not rolls:
        return None
    rules = ", ".join(dict.fromkeys(roll.roll.rule for roll in rolls))
    commands = " or ".join(dict.fromkeys(f"/{roll.roll.command}" for roll in rolls))
    return (f"Next for {safe(game.side_name(game.to_act if game.to_act is not None else game.active_side))} "
            f"({rules}): {', '.join(safe(roll.label) for roll in rolls)}; press one, or give {commands} "
            "(/done when you are through)")


# --- odds --------------------------------------------------------------------------------

# Short names of the end states, worst first (bot.core.odds.END_STATES), per ruleset's words
STATE_WORDS = {"eliminated": "elim", "reduced": "reduced", "broken": "broken", "pinned": "pinned",
               "forced back": "forced back", "rallied": "rallied", "unharmed": "unharmed"}


def percent(p: Any) -> str:
    """An exact probability as players read it: 0.1% steps, never "0%" or "100%" when not exact."""
    value = float(p) * 100
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    if value < 0.1:
        return "<0.1%"
    if value > 99.9:
        return ">99.9%"
    return f"{value:.1f}%"


def dice_plan_block(plan: Any) -> Block:
    """The manual dice an order takes, in the order it uses them (``bot.core.help.dice_plan``)."""
    lines = [f"{i}. {safe(text)}" for i, text in enumerate(plan.always, 1)]
    if plan.maybe:
        lines.append("then, when a result calls for them:")
        lines += [f"- {safe(text)}" for text in plan.maybe]
    count = f"{plan.least}" if plan.least == plan.most else f"{plan.least} to {plan.most}"
    lines.append(f"{count} dice on the paths tried; manual dice (the 'dice' option) go to the rolls in this order")
    return Block("Dice, in the order they are used", tuple(lines))


def odds_embed(preview: Any, game: Game | None, *, before_seq: int | None = None,
               plan: Any = None) -> list[discord.Embed]:
    """An OddsReport (bot.core.odds) compactly: the results, each unit's end states and the chance
    that at least one unit breaks; machine guns and cowering when the report has them. Nothing was
    rolled or logged. ``before_seq``: the odds a logged roll had (the Odds button on its result)."""
    broken = get_ruleset(preview.ruleset).word("broken")  # the ruleset's word: "shaken" in some
    words = {**STATE_WORDS, "broken": broken}
    results = " · ".join(f"{safe(name)} {percent(c.p)}" for name, c in preview.results.items())
    blocks = [Block("Results", (results or "—",))]
    def unit_words(unit_id: str) -> dict[str, str]:
        # a unit broken before that ends no worse is not "unharmed": it stays broken
        unit = game.find_unit(unit_id) if game is not None else None
        was_broken = unit is not None and unit.condition.broken  # as its ruleset declares it
        return {**words, "unharmed": f"stays {broken}"} if was_broken else words

    units = tuple(f"**{safe(u.name)} {safe(u.unit)}**: "
                  + " · ".join(f"{unit_words(u.unit).get(state, safe(state))} {percent(c.p)}"
                               for state, c in u.states.items())
                  for u in preview.units)
    if units:
        blocks.append(Block("End state of each unit", units))
    summary = [f"At least one unit {'breaks' if broken == 'broken' else 'is shaken'}: "
               f"{percent(preview.at_least_one_breaks.p)}"]
    if preview.cowers is not None:
        summary.append(f"Cowers (A7.9): {percent(preview.cowers.p)}")
    summary += [f"{safe(w.name)} {safe(w.unit)}: malfunctions {percent(w.malfunctions.p)}"
                + (f" (removed {percent(w.removed.p)})" if w.removed.p else "")
                + f" · keeps ROF {percent(w.keeps_rof.p)}" for w in preview.weapons]
    blocks.append(Block("Summary", tuple(summary)))
    if plan is not None:
        blocks.append(dice_plan_block(plan))
    description = (game_line(game) + "\n" if game is not None else "") + "Exact odds: no dice rolled, nothing logged"
    if before_seq is not None:
        description = f"Before log #{before_seq} was rolled: {description}"
    return paginate(safe(f"Odds: {preview.headline}"), blocks, colour=NEUTRAL_COLOUR, description=description,
                    footer=safe(preview.method))


# --- terminal ----------------------------------------------------------------------------

_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


_TIMESTAMP = re.compile(r"<t:(-?[0-9]{1,12}):[tTdDfFR]>")


# markdown bold (**text**, its asterisks not escaped) as Discord shows it: bold, not asterisks
_BOLD = re.compile(r"(?<!\\)\*\*(.+?)(?<!\\)\*\*")
PLAIN_BOLD = ("", "")  # a terminal that is not a tty (a file, a pipe): the bold text as it is
ANSI_BOLD = ("\x1b[1m", "\x1b[0m")  # a terminal: bold on and off


def _plain(text: str, keep_timestamps: bool = False, bold: tuple[str, str] = PLAIN_BOLD) -> str:
    """What Discord would display: escapes resolved, zero-width spaces dropped, bold markdown as
    ``bold`` says (its asterisks dropped), a timestamp in UTC (Discord shows it in each reader's time
    zone) unless the caller renders them itself."""
    if not keep_timestamps:
        text = _TIMESTAMP.sub(
            lambda m: datetime.fromtimestamp(int(m[1]), timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), text)
    if "**" in text:
        text = _BOLD.sub(lambda m: f"{bold[0]}{m[1]}{bold[1]}", text)
    return _ESCAPE.sub(r"\1", text).replace("\u200b", "")


def embed_to_text(embed: dict[str, Any] | discord.Embed, *, keep_timestamps: bool = False,
                  bold: tuple[str, str] = PLAIN_BOLD) -> str:
    """An embed (its JSON dict, as posted) as plain text for the terminal sandbox. With
    ``keep_timestamps`` the ``<t:...>`` markup is left for the caller, who knows the clock (a
    relative ``:R`` one reads "in 20 min" there, as Discord shows it); ``bold`` says how markdown's
    bold is shown (``ANSI_BOLD`` on a terminal; by default without its asterisks)."""
    data = embed.to_dict() if isinstance(embed, discord.Embed) else embed

    def plain(text: str) -> str:
        return _plain(text, keep_timestamps, bold)

    out: list[str] = []
    if data.get("title"):
        out.append(f"== {plain(data['title'])} ==")
    if data.get("description"):
        out.append(plain(data["description"]))
    for field in data.get("fields", ()):
        out.append(f"-- {plain(field.get('name', ''))} --")
        out.extend("   " + line for line in plain(field.get("value", "")).splitlines())
    footer = (data.get("footer") or {}).get("text")
    if footer:
        out.append(f"({plain(footer)})")
    return "\n".join(out)
