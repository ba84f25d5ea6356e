"""Long work: plain functions of plain data, run in a worker process when long (bot/work.py): a
replay from a checkpoint (``ReplayStart``), the log's verification and export, the state before an
undo, the odds of an order now or before a logged entry. What they cost is counted here too."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.core.errors import RulesError
from bot.core.game import Game
from bot.core.help import DicePlan, dice_plan
from bot.core.odds import OddsReport
from bot.core.odds import preview as odds_preview
from bot.record import LogEntry
from bot.record.checkpoint import Checkpoint
from bot.record.replay import ChainVerifier, ReplayRefused
from bot.service.basics import NotAllowed
from bot.service.results import Odds, VerifyReport
from bot.store import StoredGame

REPLAY_STEPS = 150  # work steps per replayed entry besides one per unit (bot/work.py): ~3 ms, measured
HASH_STEPS_PER_UNIT = 2  # work steps of hashing a state, per unit: 12 ms for 300 units, measured

PREVIEW_STEPS = 2  # work steps per outcome-and-unit of a preview's estimated size (bot.core.odds.size)


def replay_cost(entries: int, game: Game, *, hashed: bool = False) -> float:
    """Work steps of replaying ``entries`` entries of a game about this size (bot/work.py); ``hashed``:
    and of hashing its state once (a checkpoint's, ``ReplayStart``)."""
    return entries * (len(game.units) + REPLAY_STEPS) + (HASH_STEPS_PER_UNIT * len(game.units) if hashed else 0)


@dataclass(frozen=True)
class ReplayStart:
    """Where a replay up to entry ``until`` begins, as a job is given it: ``checkpoint`` (unchecked:
    its state is hashed in the job) or, None, entry 1. Feed ``verifier()`` the entries after ``after``."""

    checkpoint: Checkpoint | None
    until: int

    @property
    def after(self) -> int:
        return 0 if self.checkpoint is None else self.checkpoint.seq

    def verifier(self) -> ChainVerifier | None:
        """A verifier (``hash_once``) resumed from the checkpoint, or from entry 1 without one; None
        when the checkpoint does not check out against its entry (the replay must start at entry 1)."""
        verifier = ChainVerifier.resume(self.checkpoint, until=self.until, hash_once=True)
        return verifier if verifier.resumed_at == self.after else None


def export_record(stored: StoredGame, entries: Iterable[LogEntry]) -> dict[str, Any]:
    """The JSON export of a game's log (``python -m bot rules replay`` reads it)."""
    return {"game_id": stored.id, "channel_id": stored.channel_id, "ruleset": stored.ruleset,
            "status": stored.status, "head_hash": stored.head_hash, "entries": [e.export() for e in entries]}


def verify_log(entries: Iterable[LogEntry], stored: StoredGame) -> VerifyReport:
    """The chain and the replay of ``entries`` (a game's whole log as read), then the saved state."""
    verifier = ChainVerifier()
    for entry in entries:
        problem = verifier.check(entry)
        if problem is not None:
            return VerifyReport(False, verifier.checked, problem.seq, problem.reason)
    problem = verifier.finish(stored)
    if problem is not None:
        return VerifyReport(False, verifier.checked, problem.seq, problem.reason)
    # the summary says how many entries were logged under earlier rules versions
    return VerifyReport(True, verifier.checked, None, verifier.summary())


def state_before_undo(start: ReplayStart, entries: Iterable[LogEntry]) -> str | None:
    """The game after the last of ``entries`` (the entry below the one undone), as JSON, once the
    log verifies up to there from ``start``; refused when it does not; None when ``start``'s
    checkpoint does not check out."""
    verifier = start.verifier()
    if verifier is None:
        return None
    for entry in entries:
        if (problem := verifier.check(entry)) is not None:
            break
    else:
        problem = verifier.settled()  # the state at the end, hashed once
    if problem is not None:
        raise NotAllowed(f"the log does not check out at entry #{problem.seq}, so no undo can be "
                         f"trusted: {problem.reason} (see /log verify)")
    assert verifier.game is not None
    return verifier.game.model_dump_json()


def preview_with_plan(game: Game, order: dict[str, Any]) -> tuple[OddsReport, DicePlan]:
    """The odds of ``order`` and the dice it would roll (the plan is a resolution too: 20 ms for a
    300-unit game, measured, so in the job with the odds rather than on the loop after them)."""
    return odds_preview(game, order), dice_plan(game, order)


def odds_before(start: ReplayStart, earlier: Iterable[LogEntry], entry: LogEntry) -> Odds | None:
    """The odds ``entry``'s order had, in the game replayed from ``start`` (a checkpoint, or entry
    1) through ``earlier``, the entries after it up to ``entry``; None when ``start``'s checkpoint
    does not check out."""
    seq = entry.seq
    verifier = start.verifier()
    if verifier is None:
        return None
    replayer, last = verifier.replayer, verifier.last_state_hash
    try:
        for logged in earlier:
            # the logged state hashes for the undos' checks; the state at the end is hashed once
            replayer.apply(logged.seq, logged.order, logged.dice, logged.manual, logged.state_hash)
            last = logged.state_hash
    except (ReplayRefused, RulesError) as exc:
        raise NotAllowed(f"the log does not replay before entry #{seq} ({exc}): see /log verify") from None
    if replayer.game is None or last is None or replayer.last_hash != last:
        raise NotAllowed(f"the state before entry #{seq} does not check out against the log: see /log verify")
    return Odds(odds_preview(replayer.game, entry.order), replayer.game, entry,
                dice_plan(replayer.game, entry.order))
