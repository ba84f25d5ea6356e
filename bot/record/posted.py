"""What the end of each game turn posts in the channel, and an export checked against it (issue 28).

A log is a hash chain: whoever holds the database may rewrite an entry and re-seal every entry after
it, and the chain checks out again. The dice catch a die changed in place (the revealed seed gives
another), but not a die relabelled manual (manual dice are not derived) nor an entry deleted at the
end of a turn. So the entry that ends a game turn (or the game), the one that reveals the turn's
seed, is posted with a short line the players see and may keep:

    Turn 3 sealed at #57: chain 9f3a0c1d2e3f4a5b · 14 dice drawn by the bot

``chain``: the first 16 hex digits of that entry's hash, which covers every entry before it
(``bot/record/chain.py``); the count: the dice the bot drew from the turn's seed (each entry's proof
``sides``, and the secret rolls'), as the entry's proof records it (``drawn``, with ``turn``). An
export whose entries up to there are not exactly those the bot had when it posted has another hash
there (barring a collision of 64 bits of SHA-256). ``python -m bot rules audit --posted FILE`` reads
the lines as posted and compares them with the export (docs/dice.md says what that proves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

POSTED_HEX = 16  # hex digits of the entry's hash a turn's end posts (64 bits)


@dataclass(frozen=True)
class TurnSeal:
    """The end of a game turn (or of the game) in a log: the turn it ends, its entry, that entry's hash
    (posted: a prefix of it), and the dice the bot drew from the turn's seed (None: not counted).
    ``posted``: the entry records that it posted them (its proof's ``turn``; a log written before issue
    28 posted nothing)."""

    turn: int | None
    seq: int
    chain: str
    drawn: int | None
    posted: bool = True


def dice_words(count: int) -> str:
    return f"{count} {'die' if count == 1 else 'dice'} drawn by the bot"


def posted_line(turn: int | None, seq: int, entry_hash: str, drawn: int | None) -> str:
    """The line a turn's end posts: "Turn 3 sealed at #57: chain 9f3a0c1d2e3f4a5b · 14 dice drawn by the bot"."""
    line = f"Turn {turn} sealed at #{seq}: chain {entry_hash[:POSTED_HEX]}"
    return line if drawn is None else f"{line} · {dice_words(drawn)}"


_POSTED = re.compile(r"Turn (\d{1,6}) sealed at #(\d{1,9}): chain ([0-9a-fA-F]{%d,64})"
                     r"(?:\W+(\d{1,9}) dic?e drawn by the bot)?" % POSTED_HEX)


def parse_posted(text: str) -> list[TurnSeal]:
    """Every posted line in ``text`` (pasted from the channel: other text around them is skipped)."""
    return [TurnSeal(int(m[1]), int(m[2]), m[3].lower(), None if m[4] is None else int(m[4]))
            for m in _POSTED.finditer(text)]


@dataclass(frozen=True)
class PostedCheck:
    """An export's turn ends compared with the posted lines: ``findings`` (one line each: a turn that
    differs), ``matched`` (the turn ends that match), ``unposted`` (the export's turn ends no posted line
    covers) and the newest entry a matching line covers (0: none)."""

    findings: tuple[str, ...]
    matched: tuple[TurnSeal, ...]
    unposted: tuple[TurnSeal, ...]
    covered: int


def check_posted(sealed: list[TurnSeal], posted: list[TurnSeal]) -> PostedCheck:
    """Pair each posted line with the export's end of the same turn (the n-th line of a turn with its
    n-th end: an undone turn's end, a reopened game, ends a turn twice) and say what differs."""
    by_turn: dict[int | None, list[TurnSeal]] = {}
    for seal in sealed:
        by_turn.setdefault(seal.turn, []).append(seal)
    used: dict[int | None, int] = {}
    findings, matched, paired = [], [], set()
    for line in posted:
        n = used.get(line.turn, 0)
        used[line.turn] = n + 1
        ends = by_turn.get(line.turn, [])
        if n >= len(ends):
            findings.append(f"Turn {line.turn}: posted as sealed at #{line.seq} (chain {line.chain[:POSTED_HEX]}), but "
                            f"the export ends turn {line.turn} {'nowhere' if not ends else f'only {len(ends)} time(s)'}"
                            ": entries were deleted or the export was cut short")
            continue
        seal = ends[n]
        paired.add(seal.seq)
        differs = []
        if seal.seq != line.seq:
            differs.append(f"sealed at #{seal.seq}, not #{line.seq}")
        if not seal.chain.startswith(line.chain):
            differs.append(f"chain {seal.chain[:POSTED_HEX]}, not {line.chain[:POSTED_HEX]}")
        if line.drawn is not None and seal.drawn != line.drawn:
            differs.append(f"{'no count' if seal.drawn is None else dice_words(seal.drawn)}, not {line.drawn}")
        if differs:
            findings.append(f"Turn {line.turn}: the export is not what was posted: " + "; ".join(differs))
        else:
            matched.append(seal)
    covered = max((seal.seq for seal in matched), default=0)
    unposted = tuple(seal for seal in sealed if seal.seq not in paired)
    return PostedCheck(tuple(findings), tuple(matched), unposted, covered)


def posted_report(sealed: list[TurnSeal], last_seq: int, posted: list[TurnSeal] | None) -> str:
    """What an audit says of the posted turn ends (docs/dice.md): what was compared with the channel and
    what was not. ``posted`` None: no lines were given. Findings are not here (``check_posted``)."""
    if posted is None:
        if not any(seal.posted for seal in sealed):
            return ("not checked against the channel: this log's turn ends posted no chain head (it was written "
                    "before they did), so a host who rewrote it and re-sealed the chain would not be caught here")
        return (f"not checked against the channel: {len(sealed)} turn end{'s' * (len(sealed) != 1)} posted a chain "
                "head; give those lines with --posted FILE to check that this log is the one the players saw")
    check = check_posted(sealed, posted)
    parts = []
    if check.matched:
        turns = ", ".join(f"{seal.turn} (#{seal.seq})" for seal in check.matched)
        parts.append(f"posted turn ends matched: {turns}; entries #1-#{check.covered} are the ones the bot had "
                     "when it posted them")
    if check.unposted:
        parts.append(f"not among the posted lines, so not checked against the channel: "
                     f"{', '.join(f'turn {seal.turn} (#{seal.seq})' for seal in check.unposted)}")
    if last_seq > check.covered:
        first = check.covered + 1
        parts.append(f"entr{'y' if first == last_seq else 'ies'} #{first}"
                     f"{'' if first == last_seq else f'-#{last_seq}'} after the last posted turn end: no posted "
                     "line covers them")
    return "; ".join(parts)
