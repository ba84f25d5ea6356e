"""Hidden information (bot/record/sealing.py): a sealed text or order of the sequence of play, a secret
roll, a scenario file's hidden parts; a private look at one before its time (logged, never its text),
and its reveal, checked against its commitment. The log holds commitments; the store holds the texts
and nonces until the reveal."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from bot.core.dice import Roller
from bot.core.errors import InvalidOrder
from bot.core.game import Game
from bot.core.scenario import Scenario, hidden_parts
from bot.core.sealed import check_sealable, note_sealed, reveal_sealed, sealed_text
from bot.record import LogEntry
from bot.record.dice_audit import DiceState, opened_of, secret_sides
from bot.record.sealing import (NONCE_BYTES, PEEK, REVEAL, SEAL, SEALED_MAX, check_reveal, peek_outcome,
                                reveal_outcome, roll_text, seal_commitment, seal_outcome)
from bot.service.basics import Acted, Actor, NotAllowed, OrderBuilder, Sealed, built, read_sealed, sides_of
from bot.service.desk import Desk
from bot.service.permissions import acting_side, acting_sides, check_hidden_access, check_permission
from bot.store import StoredGame

HIDDEN_SEAL = "/scenario load"  # the command of the seal entries of a scenario file's hidden parts
SECRET_KINDS = {"2d6": "two_d6", "d6": "d6", "d10": "d10", "DR": "DR", "dr": "dr"}  # a secret roll's kind -> Roller


@dataclass(frozen=True)
class HeldPart:
    """A scenario file's hidden part, held before the new game's creation seals it (``order``)."""

    order: dict[str, Any]
    text: str
    nonce: str


def check_sealed_text(text: str) -> None:
    if not 1 <= len(text) <= SEALED_MAX:
        raise InvalidOrder(f"a sealed order is 1 to {SEALED_MAX} characters", field="text")


class Hidden:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    # --- sealing ---

    async def seal(self, channel_id: int, actor: Actor, text: str, side: int | None = None, *,
                   interaction_id: int | None = None) -> Sealed:
        """Seal a hidden order: the log gets its commitment and who sealed it, never the text."""
        check_sealed_text(text)

        async def sealed(stored: StoredGame) -> Sealed:
            return await self._save_sealed(stored, actor, text, acting_side(stored.game, actor, side, "seal orders"),
                                           {}, command="/seal", state=await self.desk.dice.state(stored),
                                           interaction_id=interaction_id)

        return await self.desk.command(channel_id, sealed, interaction_id=interaction_id, again=self._sealed_again,
                                       room=True)

    async def seal_order(self, channel_id: int, actor: Actor, order: dict[str, Any] | OrderBuilder, *,
                         interaction_id: int | None = None) -> Sealed:
        """Seal an order of the ruleset to be revealed later in the sequence of play (bot/core/sealed.py:
        orders for the next turn, with the game option sealed_orders). It is checked now, privately; the
        log gets the commitment and the side, the state that the side sealed an order, never which."""

        async def sealed(stored: StoredGame) -> Sealed:
            game = stored.game
            plain = built(order, game)
            check_permission(game, actor, plain)
            sides = list(acting_sides(game, plain))
            if len(sides) != 1:
                raise InvalidOrder("a sealed order is given for the stands of one side", field="units")
            check_sealable(game, plain)
            after, notes = note_sealed(game, stored.last_seq + 1, sides[0])
            return await self._save_sealed(stored, actor, sealed_text(plain), sides[0], {"applies": plain["action"]},
                                           command="/seal", state=await self.desk.dice.state(stored),
                                           interaction_id=interaction_id, after=after, notes=notes)

        return await self.desk.command(channel_id, sealed, interaction_id=interaction_id, again=self._sealed_again,
                                       room=True)

    async def secret_roll(self, channel_id: int, actor: Actor, kind: str, purpose: str, *,
                          interaction_id: int | None = None) -> Sealed:
        """Roll committed dice that only the roller sees now: the log gets the roll's kind, purpose and
        commitment (a sealed text holding the dice); /reveal shows them, and the audit re-derives them."""
        if kind not in SECRET_KINDS:
            raise InvalidOrder(f"a secret roll is one of {', '.join(SECRET_KINDS)}", field="kind")
        if not 1 <= len(purpose) <= 100:
            raise InvalidOrder("say in 1 to 100 characters what the roll is for", field="purpose")

        async def rolled(stored: StoredGame) -> Sealed:
            side = acting_side(stored.game, actor, None, "roll in secret")
            state = await self.desk.dice.state(stored)
            if state is None or state.commitment is None:
                raise NotAllowed("this game was started before committed dice: it has no secret rolls")
            source = await self.desk.dice.committed(stored, state, interaction_id)
            roll = getattr(Roller(source), SECRET_KINDS[kind])(purpose)
            roll_order = {"kind": kind, "purpose": purpose, "sides": list(source.sides), "turn_end": True}
            return await self._save_sealed(stored, actor, roll_text(kind, purpose, list(roll.dice)), side,
                                           {"roll": roll_order}, command="/roll secret", state=state,
                                           interaction_id=interaction_id)

        return await self.desk.command(channel_id, rolled, interaction_id=interaction_id, again=self._sealed_again,
                                       room=True)

    async def hold_hidden(self, game: Game, actor: Actor, setup: Scenario | None) -> list[HeldPart]:
        """A scenario file's hidden parts, each to be sealed for its side in the new game's creation:
        its nonce and commitment, the text and nonce held by the store *before* the transaction that
        publishes the commitment. A secret kept for a commitment that never lands (the creation
        failed, or lost a race) is harmless: nothing points to it, nothing ever reads it."""
        held = []
        for side, text in (hidden_parts(setup) if setup is not None else {}).items():
            acting_side(game, actor, side, "seal orders")  # the loader is the new game's master
            check_sealed_text(text)
            published, nonce = await self._keep_sealed(text)
            held.append(HeldPart({"action": SEAL, "side": side, "commitment": published}, text, nonce))
        return held

    async def _keep_sealed(self, text: str) -> tuple[str, str]:
        """A fresh nonce for ``text`` and its commitment (SHA-256 of nonce and text), the text and the
        nonce kept by the store until the reveal: returns the commitment and the nonce (hex)."""
        nonce = secrets.token_bytes(NONCE_BYTES)
        published = seal_commitment(nonce, text)
        await self.desk.store.keep_secret(published, json.dumps({"nonce": nonce.hex(), "text": text}).encode())
        return published, nonce.hex()

    async def _sealed_again(self, acted: Acted) -> Sealed:
        """A re-delivered seal or secret roll: the entry from the log, the text and nonce from the store."""
        opened = await read_sealed(self.desk.store, acted.entry.order.get("commitment", ""))
        opened = opened or {"text": "", "nonce": ""}
        return Sealed(acted, opened["text"], opened["nonce"])

    async def _save_sealed(self, stored: StoredGame, actor: Actor, text: str, side: int | None,
                           more: dict[str, Any], *, command: str, state: DiceState | None,
                           interaction_id: int | None, after: Game | None = None,
                           notes: list[tuple[str, str]] = ()) -> Sealed:
        """Log a seal (``/seal``, a sealed order of the sequence of play, a secret roll): ``text`` kept
        with a fresh nonce until its reveal, the entry naming the side and the commitment (then
        ``more`` of the order), under the dice ``state`` in force; ``after``: the game as the seal
        leaves it (the same game when None), ``notes`` for its outcome. Under the channel's lock."""
        published, nonce = await self._keep_sealed(text)
        order = {"action": SEAL, "side": side, "commitment": published, **more}
        game = stored.game if after is None else after
        outcome = seal_outcome(stored.game, stored.last_seq + 1, order, notes)
        entry = self.desk.next_entry(stored, actor=actor, command=command, order=order, outcome=outcome, game=game,
                                     interaction_id=interaction_id,
                                     dice_proof=await self.desk.dice.proof(state, None, reveal=False,
                                                                           secret=secret_sides(order)))
        return Sealed(await self.desk.save_acted(stored, outcome, game, entry), text, nonce)

    # --- looking and revealing ---

    async def revealed_hidden(self, channel_id: int) -> tuple[Game, dict[int, str], list[int]]:
        """The channel's game with its scenario's hidden parts: the revealed ones' texts by side, and
        the sides whose part is still sealed (``/scenario export`` writes the first, never the second)."""
        stored = await self.desk.active(channel_id)
        sealed: dict[int, int] = {}  # seal entry -> side
        revealed: dict[int, str] = {}
        async for entry in self.desk.store.iter_entries(stored.id):
            action = entry.order.get("action")
            if action == SEAL and entry.command == HIDDEN_SEAL and isinstance(entry.order.get("side"), int):
                sealed[entry.seq] = entry.order["side"]
            elif action == REVEAL and entry.order.get("sealed") in sealed:
                revealed[sealed.pop(entry.order["sealed"])] = str(entry.order.get("text", ""))
        return stored.game, revealed, sorted(set(sealed.values()) - set(revealed))

    async def _sealed_target(self, stored: StoredGame, sealed_seq: int, actor: Actor,
                             what: str) -> tuple[LogEntry, int | None]:
        """The seal entry ``sealed_seq`` of the game, when ``actor`` may look at or reveal it (``what``),
        and the entry that opened it (a /reveal, or the end of its game turn for a secret roll), None
        while it is still sealed."""
        target = await self.desk.entry(stored.id, sealed_seq) if 1 <= sealed_seq <= stored.last_seq else None
        if target is None or target.order.get("action") != SEAL:
            raise NotAllowed(f"entry #{sealed_seq} is not a sealed order (see /log show: a seal reads "
                             "\"sealed an order\")")
        opened = None
        async for later in self.desk.store.iter_entries(stored.id):
            revealed = later.order.get("action") == REVEAL and later.order.get("sealed") == sealed_seq
            at_turn_end = any(item.get("sealed") == sealed_seq for item in opened_of(later.dice_proof))
            if later.seq > sealed_seq and (revealed or at_turn_end):
                opened = later.seq
        check_hidden_access(stored.game, actor, target, what)
        return target, opened

    async def peek(self, channel_id: int, actor: Actor, sealed_seq: int, *,
                   interaction_id: int | None = None) -> Sealed:
        """A private look at a sealed order or a secret roll before its reveal, by a game master who
        plays no side (the umpire sees what the players hide from each other; the game option
        gm_peeks=no forbids it) or by a player of the side that sealed it. The look is logged, so
        the channel sees who looked at which (never the text); the text goes to the looker alone."""
        return await self.desk.command(
            channel_id, lambda stored: self._peek(stored, actor, sealed_seq, interaction_id),
            interaction_id=interaction_id, again=self._peeked_again, room=True)

    async def _peeked_again(self, acted: Acted) -> Sealed:
        """A re-delivered look: the text comes from the store again."""
        seal = await self.desk.entry(acted.entry.game_id, acted.entry.order.get("sealed", 0))
        opened = await read_sealed(self.desk.store, seal.order.get("commitment", ""))
        return Sealed(acted, opened["text"] if opened else "", "")

    async def _peek(self, stored: StoredGame, actor: Actor, sealed_seq: int, interaction_id: int | None) -> Sealed:
        game = stored.game
        target, opened_at = await self._sealed_target(stored, sealed_seq, actor, "look at")
        sealed_by = target.order.get("side")
        if opened_at is not None:
            raise NotAllowed(f"sealed #{sealed_seq} was revealed at entry #{opened_at}: /log show {opened_at} shows "
                             "it to everyone")
        opened = await read_sealed(self.desk.store, target.order["commitment"])
        if opened is None:
            raise NotAllowed(f"the text of sealed order #{sealed_seq} is not held by the bot")
        order = {"action": PEEK, "sealed": sealed_seq, "side": sealed_by,
                 "looker": sealed_by if sealed_by in sides_of(game, actor.user_id) else None}
        outcome = peek_outcome(game, order)
        entry = self.desk.next_entry(stored, actor=actor, command="/peek", order=order, outcome=outcome, game=game,
                                     interaction_id=interaction_id, dice_proof=await self.desk.dice.quiet(stored))
        return Sealed(await self.desk.save_acted(stored, outcome, game, entry), opened["text"], "")

    async def reveal(self, channel_id: int, actor: Actor, sealed_seq: int, *,
                     interaction_id: int | None = None) -> Acted:
        """Open a sealed order: its text and nonce go in the log, checked against its commitment. The
        players of the side that sealed it, its sealer, or a game master who plays no side may."""
        return await self.desk.command(
            channel_id, lambda stored: self._reveal(stored, actor, sealed_seq, interaction_id),
            interaction_id=interaction_id, room=True)

    async def _reveal(self, stored: StoredGame, actor: Actor, sealed_seq: int, interaction_id: int | None) -> Acted:
        game = stored.game
        target, opened_at = await self._sealed_target(stored, sealed_seq, actor, "reveal")
        sealed_by = target.order.get("side")
        opened = await read_sealed(self.desk.store, target.order["commitment"])
        if opened is None:
            raise NotAllowed(f"the text of sealed order #{sealed_seq} is not held by the bot: it cannot be "
                             "revealed (its sealer has the copy with its nonce)")
        order = {"action": REVEAL, "sealed": sealed_seq, "text": opened["text"], "nonce": opened["nonce"],
                 "side": sealed_by, "roll": target.order.get("roll")}
        seals = {sealed_seq: {"commitment": target.order["commitment"], "opened": opened_at, "side": sealed_by,
                              "roll": target.order.get("roll")}}
        if (problem := check_reveal(stored.last_seq + 1, order, seals)) is not None:
            raise NotAllowed(problem.replace(f"entry #{stored.last_seq + 1} reveals", "this would reveal"))
        applied = reveal_sealed(game, sealed_seq, opened["text"])  # an order it applies (refused: not its time)
        after = applied.game if applied is not None else game
        outcome = reveal_outcome(game, order, applied.outcome if applied is not None else None)
        entry = self.desk.next_entry(stored, actor=actor, command="/reveal", order=order, outcome=outcome, game=after,
                                     interaction_id=interaction_id, dice_proof=await self.desk.dice.quiet(stored))
        return await self.desk.save_acted(stored, outcome, after, entry)
