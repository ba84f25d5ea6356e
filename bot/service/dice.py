"""Committed dice (issue 12, docs/dice.md): each game turn's secret seed, held by the store before the
entry that publishes its commitment; the dice state in force (commitment, contributions, secret rolls),
kept in memory while a game does not move; each command's dice source and each entry's dice proof."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core.dice import CommittedDice, DiceSource, ScriptedDice, SystemDice, commitment
from bot.record import LogEntry
from bot.record.dice_audit import DiceState, counted, state_after
from bot.service.basics import NotAllowed, read_entry, read_sealed
from bot.store import Store, StoredGame

DICE_STATES_CACHED = 4096  # games whose dice state (commitment, contributions) is kept in memory
SEEDS_CACHED = 4096  # dice seeds kept in memory (each also held in the store until revealed)


def dice_state_after(entry: LogEntry) -> DiceState | None:
    """The dice state in force after ``entry`` (None: a game started before committed dice)."""
    return state_after(entry.order, entry.dice_proof, entry.seq) if entry.dice_proof is not None else None


def quiet_proof(state: DiceState | None) -> dict[str, Any] | None:
    """The dice proof of an entry that draws no die and reveals nothing: the state in force."""
    if state is None or state.commitment is None:
        return None
    proof: dict[str, Any] = {"commitment": state.commitment, "contributions": list(state.contributions)}
    if state.secret:
        proof["secret"] = list(state.secret)
    return counted(proof, state, 0)


class DiceKeeper:
    """The seeds and dice states of every game this process serves."""

    def __init__(self, store: Store, dice: Callable[[], DiceSource] | None, seeds: Callable[[], bytes]) -> None:
        self.store = store
        # each command's dice: None, committed dice (docs/dice.md) derived from each game's seed; a
        # factory instead makes a fresh source per command (tests count with one; such dice fail
        # /log verify's dice check)
        self.dice = dice
        self.seeds = seeds  # each game turn's secret seed: ``secrets`` (tests give fixed ones)
        self.states: dict[int, tuple[int, str, DiceState | None]] = {}  # game -> (seq, hash, state)
        self.seed_cache: dict[str, bytes] = {}

    async def state(self, stored: StoredGame) -> DiceState | None:
        """The commitment and contributions in force in ``stored`` (None: a game started before
        committed dice), from the newest entry's proof; kept in memory while the game does not move."""
        known = self.states.get(stored.id)
        if known is not None and known[0] == stored.last_seq and known[1] == stored.head_hash:
            return known[2]
        read = stored.head  # read with the row (``Desk.recorded_or_active``), when the store could
        if read is not None and read[0] == stored.last_seq and read[1] == stored.head_hash:
            head: tuple[dict[str, Any], dict[str, Any] | None] | None = (read[2], read[3])
        else:  # only the newest entry's order and proof: not its outcome (decompressed, parsed) nor a LogEntry
            head = await self.store.head_dice(stored.id, stored.last_seq)
        state = state_after(head[0], head[1], stored.last_seq) if head is not None and head[1] is not None else None
        self.remember(stored.id, stored.last_seq, stored.head_hash, state)
        if stored.seed is not None and state is not None and stored.seed[0] == state.commitment:
            self.hold_seed(*stored.seed)  # the turn's seed, read with the row: no trip for it (``seed``)
        return state

    def wants_head(self, game_id: int, seq: int, head_hash: str) -> bool:
        """Whether ``state`` would read this game's newest entry (its state is not kept): asked by the
        store on its database thread, so the entry comes with the row (a dict read only)."""
        known = self.states.get(game_id)
        return known is None or known[0] != seq or known[1] != head_hash

    def remember(self, game_id: int, seq: int, head_hash: str, state: DiceState | None) -> None:
        self.states.pop(game_id, None)
        self.states[game_id] = (seq, head_hash, state)
        while len(self.states) > DICE_STATES_CACHED:
            self.states.pop(next(iter(self.states)))

    def saved(self, game_id: int, entry: LogEntry) -> None:
        """Keep the dice state in force after ``entry``, the game's newest (the next command's)."""
        self.remember(game_id, entry.seq, entry.hash, dice_state_after(entry))

    async def seed(self, commitment_hex: str) -> bytes:
        seed = self.seed_cache.get(commitment_hex)
        if seed is None:
            seed = await self.store.held_secret(commitment_hex)
            if seed is None or not self.hold_seed(commitment_hex, seed):
                raise NotAllowed("this game's dice seed is not held by the bot (its database was restored without "
                                 "it?): no die can be drawn; give manual dice, or the game master ends the game")
        return seed

    def hold_seed(self, commitment_hex: str, seed: bytes) -> bool:
        """Keep ``seed`` for its commitment if it is that commitment's (its SHA-256)."""
        if commitment(seed) != commitment_hex:
            return False
        self.seed_cache[commitment_hex] = seed
        while len(self.seed_cache) > SEEDS_CACHED:
            self.seed_cache.pop(next(iter(self.seed_cache)))
        return True

    async def commit_seed(self) -> str:
        """A new secret seed, held by the store before the entry that publishes its commitment."""
        seed = self.seeds()
        published = commitment(seed)
        await self.store.keep_secret(published, seed)
        self.seed_cache[published] = seed
        return published

    async def committed(self, stored: StoredGame, state: DiceState, interaction_id: int | None) -> CommittedDice:
        """The dice of the game's next entry, derived from the turn's committed seed."""
        return CommittedDice(await self.seed(state.commitment), game_id=stored.id, seq=stored.last_seq + 1,
                             interaction_id=interaction_id, contributions=state.contributions)

    async def source(self, stored: StoredGame, state: DiceState | None, dice: list[int] | None,
                     interaction_id: int | None) -> DiceSource:
        """Manual dice when given; else the test's factory; else dice derived from the committed seed
        (``secrets`` for a game started before committed dice)."""
        if dice:
            return ScriptedDice(dice)
        if self.dice is not None:
            return self.dice()
        if state is None or state.commitment is None:
            return SystemDice()
        return await self.committed(stored, state, interaction_id)

    async def proof(self, state: DiceState | None, source: DiceSource | None, *, reveal: bool,
                    last: bool = False, game_id: int | None = None, turn: int | None = None,
                    secret: int = 0) -> dict[str, Any] | None:
        """An entry's dice proof: the state in force, the faces drawn from the seed, and at the end of a
        game turn (``reveal``) or of the game (``last``) the seed revealed with the next commitment, and
        the secret rolls of the turn opened (``opened``: text and nonce of each, from the store). The
        dice drawn from the seed so far are counted (a secret roll's: ``secret``), and the end of game
        turn ``turn`` posts their count (bot/record/posted.py)."""
        proof = quiet_proof(state)
        if proof is None:
            return None
        if isinstance(source, CommittedDice) and source.sides:
            proof["sides"] = list(source.sides)
        counted(proof, state, len(proof.get("sides", ())) + secret, turn=turn if reveal or last else None)
        if reveal or last:
            proof["reveal"] = (await self.seed(state.commitment)).hex()
            if not last:
                proof["next"] = await self.commit_seed()
            if state.secret and game_id is not None:
                proof["opened"] = [await self.opened(game_id, seq) for seq in state.secret]
        return proof

    async def quiet(self, stored: StoredGame) -> dict[str, Any] | None:
        """The proof of an entry of ``stored`` that draws no die and reveals nothing (a seal, a look, an
        undo: the seed of the turn stays committed, never rerolled)."""
        return await self.proof(await self.state(stored), None, reveal=False)

    async def opened(self, game_id: int, seq: int) -> dict[str, Any]:
        """A secret roll opened at the end of its game turn: its entry, text and nonce."""
        sealed = await read_entry(self.store, game_id, seq)
        opened = await read_sealed(self.store, sealed.order.get("commitment", ""))
        if opened is None:
            raise NotAllowed(f"the dice of secret roll #{seq} are not held by the bot: the game turn cannot end "
                             "with them revealed (the game master ends the game)")
        return {"sealed": seq, "text": opened["text"], "nonce": opened["nonce"]}
