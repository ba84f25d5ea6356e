"""Moving a server between stores: ``python -m bot store copy FROM TO`` (SQLite file <-> PostgreSQL,
either way, or file to file).

Every game is copied as it is, in one transaction per game: its id (every log entry's hash covers
it), its state, its whole log and its undo proposals. Each copy is then checked in the target by
the code of ``/log verify`` (``ChainVerifier``: the hash chain, the replay of every entry, the saved
state against the state after the last entry), and its state must equal the source's, hash and
all. The target must hold no game yet: a copy never merges two servers' ids. Reminders already
sent and results not yet shown stay behind (at worst one reminder more after the move).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.record import LogEntry, state_hash
from bot.record.replay import ChainVerifier

from .base import Store, StoreError


@dataclass
class CopyReport:
    games: int = 0
    entries: int = 0
    undos: int = 0
    problems: list[str] = field(default_factory=list)  # a copied game that does not verify

    @property
    def ok(self) -> bool:
        return not self.problems


async def verify_game(store: Store, game_id: int) -> str | None:
    """None when the game's log verifies and its saved state is the state after its last entry
    (what /log verify checks), else the first problem, naming the entry."""
    stored = await store.load_game(game_id)
    if stored is None:
        return f"game {game_id} is missing"
    verifier = ChainVerifier()
    async for entry in store.iter_entries(game_id):
        problem = verifier.check(entry)
        if problem is not None:
            return f"game {game_id}: {problem.reason}"
    problem = verifier.finish(stored)
    return None if problem is None else f"game {game_id}: {problem.reason}"


def held_commitments(entries: list[LogEntry]) -> set[str]:
    """The commitments a game's log published (dice seeds, sealed texts) whose secrets the store may hold."""
    found: set[str] = set()
    for entry in entries:
        proof = entry.dice_proof or {}
        found |= {c for c in (proof.get("commitment"), proof.get("next")) if isinstance(c, str)}
        if isinstance(entry.order.get("commitment"), str):
            found.add(entry.order["commitment"])
    return found


async def copy_store(source: Store, target: Store, *, progress: Callable[[str], None] = lambda line: None
                     ) -> CopyReport:
    """Copy every game of ``source`` into the empty ``target`` and verify each copy there."""
    if await target.game_ids():
        raise StoreError("the target database already holds games: copy into an empty one (a copy never merges "
                         "two databases' games)")
    report = CopyReport()
    for game_id in await source.game_ids():
        stored = await source.load_game(game_id)
        assert stored is not None
        entries = [entry async for entry in source.iter_entries(game_id)]
        undos = await source.undo_requests(game_id)
        await target.restore_game(stored, entries, undos)
        # what the bot holds until its reveal goes along: the seeds committed and the sealed texts
        for commitment in held_commitments(entries):
            secret = await source.held_secret(commitment)
            if secret is not None:
                await target.keep_secret(commitment, secret)
        report.games += 1
        report.entries += len(entries)
        report.undos += len(undos)
        problem = await verify_game(target, game_id)
        copied = await target.load_game(game_id)
        if problem is None and (copied is None or copied.game != stored.game
                                or state_hash(copied.game) != state_hash(stored.game)
                                or (copied.last_seq, copied.head_hash) != (stored.last_seq, stored.head_hash)):
            problem = f"game {game_id}: the copy's state differs from the source's"
        if problem is not None:
            report.problems.append(problem)
        progress(f"game {game_id} (channel {stored.channel_id}, {stored.status}): {len(entries)} entries, "
                 f"{len(undos)} undo proposals: {'verified' if problem is None else problem}")
    return report
