"""Checkpoints (issue 14): the state after every K-th entry, kept beside the log, so that an undo
proposal, the Odds button of an old result and a verify from a point replay at most K entries
instead of the whole log.

A checkpoint is never trusted: before use, the state it holds must hash to the state hash its
entry recorded (and that entry must match its own hash, which the entries replayed after it link
to). One that does not is set aside and the replay starts from entry 1, as it did before
checkpoints: a checkpoint can make a replay shorter, never different.

An undo entry is checked against the stack of the entries not undone (``Replayer.live``): it may
only revert the top one, and must restore the state of the one below. So a checkpoint also keeps
the top of that stack (``top``, the seqs; their state hashes are read from the log itself when
the checkpoint is used), deep enough for every undo in the K entries that follow it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.core.game import Game

from .chain import LogEntry, state_hash

END_GAME, NEW_GAME, UNDO = "end_game", "new_game", "undo"  # as bot/record/replay.py names them
REOPEN_GAME = "reopen_game"


@dataclass(frozen=True)
class Checkpoint:
    """The state after entry ``entry.seq`` (``state``: as the store read it, units and Locations in
    the game's own order), that entry as logged, and the top of the stack of entries not undone then:
    (seq, state hash) pairs read from the log, oldest first; ``whole`` when that is all of it."""

    state: Game
    entry: LogEntry
    top: tuple[tuple[int, str], ...]
    whole: bool

    @property
    def seq(self) -> int:
        return self.entry.seq

    def game(self) -> Game | None:
        """The state, if it is the one its entry recorded (hash and chain); None otherwise."""
        if self.entry.expected_hash() != self.entry.hash:
            return None
        game = self.state
        if state_hash(game) != self.entry.state_hash:
            return None
        if self.entry.order.get("action") not in (UNDO, END_GAME, REOPEN_GAME) and \
                (not self.top or self.top[-1] != (self.entry.seq, self.entry.state_hash)):
            return None  # an order's own entry is on top of the stack after it
        return game

    def reaches(self, until: int) -> bool:
        """Whether the kept top of the stack holds every undo the entries up to ``until`` may make."""
        return self.whole or len(self.top) >= until - self.seq + 2


def advance_live(top: list[int], whole: bool, entries: Iterable[tuple[int, Any, Any]],
                 keep: int) -> tuple[list[int], bool]:
    """The stack of entries not undone, moved on by ``entries`` ((seq, action, undoes), in seq
    order), as ``Replayer.apply`` moves it; then cut to its ``keep`` newest (no longer ``whole``)."""
    top = list(top)
    for seq, action, _undoes in entries:
        if action == NEW_GAME:
            top, whole = [seq], True
        elif action == UNDO:
            if top:
                top.pop()
            else:
                whole = False
        elif action not in (END_GAME, REOPEN_GAME):
            top.append(seq)
    if len(top) > keep:
        top, whole = top[-keep:], False
    return top, whole


def newest_live(last_seq: int, undone: dict[int, int], count: int) -> list[int]:
    """The ``count`` newest entries not undone (nor undo entries themselves), oldest first, of a
    log of ``last_seq`` entries; ``undone`` maps each undone entry to the entry that undid it."""
    undos = set(undone.values())
    found: list[int] = []
    seq = last_seq
    while seq >= 1 and len(found) < count:
        if seq not in undone and seq not in undos:
            found.append(seq)
        seq -= 1
    return found[::-1]
