"""Moving a server between stores: ``python -m bot store copy FROM TO`` (SQLite file <-> PostgreSQL,
either way, or file to file).

Every game is copied as it is, in one transaction per game: its id (every log entry's hash covers
it), its state, its whole log (undos, seals and reveals, secret rolls, every entry's dice proof), its
undo proposals, the reminder last sent (so no silence is reminded twice), the results saved but not
yet seen (the new bot posts them, as after a restart) and its checkpoints; then what the bot holds
until a reveal (the committed dice seeds, the sealed texts and secret rolls, revealed or not: a seal
still sealed stays revealable on the copy). Each copy is then checked in the target by the code of
``/log verify`` (``ChainVerifier``: the hash chain, the replay of every entry, the saved state
against the state after the last entry), its state must equal the source's, hash and all, every
checkpoint copied must match the state hash its entry recorded, and every secret copied must match
the commitment the log published. A source checkpoint that does not match its entry (edited by
hand) is left behind, not copied: the target replays from the one before. The target must hold no
game yet: a copy never merges two servers' ids. The players' own settings go along too (each one's
latest away, /away, and choice of DMs, /notify), kept in the target as they were.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from bot.core.dice import commitment as seed_commitment
from bot.record import LogEntry, state_hash
from bot.record.replay import ChainVerifier
from bot.record.sealing import seal_commitment

from .base import GameExtras, Store, StoreError


@dataclass
class CopyReport:
    games: int = 0
    entries: int = 0
    undos: int = 0
    secrets: int = 0  # dice seeds and sealed texts held until their reveal
    checkpoints: int = 0
    players: int = 0  # users whose away or choice of DMs was copied
    left_behind: int = 0  # source checkpoints that did not match their entry
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
        extras = await source.game_extras(game_id)
        kept = await _matching_checkpoints(source, game_id, extras.checkpoints)
        report.left_behind += len(extras.checkpoints) - len(kept)
        extras = replace(extras, checkpoints=kept)
        # what the bot holds until its reveal goes along (before the game: as the bot keeps a secret
        # before the entry that publishes it): the seeds committed and the sealed texts
        secrets = {}
        for commitment in held_commitments(entries):
            secret = await source.held_secret(commitment)
            if secret is not None:
                await target.keep_secret(commitment, secret)
                secrets[commitment] = secret
        await target.restore_game(stored, entries, undos, extras)
        report.games += 1
        report.entries += len(entries)
        report.undos += len(undos)
        report.secrets += len(secrets)
        report.checkpoints += len(kept)
        problem = await verify_game(target, game_id) or await _check_copied(target, game_id, extras, secrets)
        copied = await target.load_game(game_id)
        if problem is None and (copied is None or copied.game != stored.game
                                or state_hash(copied.game) != state_hash(stored.game)
                                or (copied.last_seq, copied.head_hash) != (stored.last_seq, stored.head_hash)):
            problem = f"game {game_id}: the copy's state differs from the source's"
        if problem is not None:
            report.problems.append(problem)
        progress(f"game {game_id} (channel {stored.channel_id}, {stored.status}): {len(entries)} entries, "
                 f"{len(undos)} undo proposals, {len(secrets)} held secrets, {len(kept)} checkpoints: "
                 f"{'verified' if problem is None else problem}")
    aways, choices = await source.player_settings()
    for away in aways:
        await target.set_away(away)
    for user, dm in choices.items():
        await target.set_notify(user, dm)
    report.players = len({a.user_id for a in aways} | set(choices))
    if report.players:
        progress(f"players' settings: {len(aways)} aways, {len(choices)} choices of DMs")
    if await target.player_settings() != (aways, choices):
        report.problems.append("the players' settings (away, DMs) differ in the copy")
    return report


async def _matching_checkpoints(store: Store, game_id: int, rows: tuple[tuple[int, bytes, str], ...]
                                ) -> tuple[tuple[int, bytes, str], ...]:
    """The checkpoints (as stored) whose state is the one their entry recorded."""
    kept = []
    for row in rows:
        checkpoint = await store.checkpoint_before(game_id, row[0])
        if checkpoint is not None and checkpoint.seq == row[0] and checkpoint.game() is not None:
            kept.append(row)
    return tuple(kept)


async def _check_copied(target: Store, game_id: int, extras: GameExtras, secrets: dict[str, bytes]) -> str | None:
    """None when every checkpoint and secret copied checks in the target, else the first that does not."""
    if len(await _matching_checkpoints(target, game_id, extras.checkpoints)) != len(extras.checkpoints):
        return f"game {game_id}: a copied checkpoint does not match its entry"
    for published, secret in secrets.items():
        if await target.held_secret(published) != secret or not _opens(published, secret):
            return f"game {game_id}: the secret held for commitment {published[:12]}... does not match it"
    return None


def _opens(published: str, secret: bytes) -> bool:
    """Whether ``secret`` is what ``published`` commits to: a dice seed, or a sealed text with its nonce."""
    if seed_commitment(secret) == published:
        return True
    try:
        opened = json.loads(secret)
        return seal_commitment(bytes.fromhex(opened["nonce"]), opened["text"]) == published
    except (ValueError, KeyError, TypeError):
        return False
