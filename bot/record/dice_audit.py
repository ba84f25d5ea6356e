"""Checking committed dice from the log alone (issue 12, docs/dice.md).

A committed game's every entry carries a dice proof: the commitment in force (the SHA-256 of the
secret seed the entry's dice derive from), the sides' contributions in force, the faces of each
die it drew from the seed (``sides``), and, when it ends a game turn or the game, the seed it
reveals with the next commitment. ``DiceAudit`` follows a log entry by entry: it checks that each
entry names the commitment and contributions the log put in force, holds the entries whose seed is
not revealed yet, and at each reveal checks that the seed matches its commitment and re-derives
every die drawn under it. Nothing here reads the store: only what anyone may export.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core.dice import derive_die

from .posted import TurnSeal

CONTRIBUTE = "dice_contribution"  # an entry that changes a side's contribution (order: side, value)


@dataclass(frozen=True)
class DiceState:
    """What the dice of the next entry derive from: the commitment in force (None after the game's
    end revealed the last seed) and the contribution of each side."""

    commitment: str | None
    contributions: tuple[str, ...]
    # the secret rolls (their seal entries) not revealed yet: the end of the game turn reveals them with
    # its seed (the proof's ``opened``); a proof names them (``secret``) only when there are some
    secret: tuple[int, ...] = ()
    # the dice drawn from the commitment in force so far (issue 28: the end of the turn posts their
    # count); None when the log does not say (its newest entry was logged before proofs counted them)
    drawn: int | None = None


def state_of(proof: dict[str, Any]) -> DiceState:
    """The state an entry's proof says was in force for its own dice (its ``drawn`` counts its own
    dice too: the state after it, ``state_after``, reads it)."""
    return DiceState(proof.get("commitment"), tuple(proof.get("contributions") or ()),
                     tuple(proof.get("secret") or ()))


def secret_sides(order: dict[str, Any]) -> int:
    """How many dice a secret roll's seal drew from the seed (0 for any other entry)."""
    roll = order.get("roll") if order.get("action") == "seal" else None
    sides = roll.get("sides") if isinstance(roll, dict) else None
    return len(sides) if isinstance(sides, list) else 0


def counted(proof: dict[str, Any], state: DiceState, drawn: int, *, turn: int | None = None) -> dict[str, Any]:
    """``proof`` with the count of the dice drawn from its commitment up to and including its entry
    (``drawn``: the entry's own, its proof's ``sides`` or a secret roll's), when the state in force
    knows the count; and at the end of a game turn or of the game (``turn``: the game turn it ends) that
    turn's number. The turn's end posts both with the entry's hash (bot/record/posted.py)."""
    if state.drawn is not None:
        proof["drawn"] = state.drawn + drawn
    if turn is not None:
        proof["turn"] = turn
    return proof


def is_secret_roll(order: dict[str, Any]) -> bool:
    """A secret roll that the end of its game turn opens (``roll.turn_end``: those rolled since the bot
    does; an earlier one waits for its /reveal, as it always did)."""
    roll = order.get("roll")
    return order.get("action") == "seal" and isinstance(roll, dict) and roll.get("turn_end") is True


def state_after(order: dict[str, Any], proof: dict[str, Any], seq: int | None = None) -> DiceState:
    """The state in force after entry ``seq``: its reveal hands over to the next commitment and opens
    the secret rolls waiting, its contribution (a ``dice_contribution`` entry) replaces its side's, a
    secret roll waits for the turn's end, a /reveal of one takes it off."""
    state = state_of(proof)
    commitment = proof.get("next") if "reveal" in proof else state.commitment
    contributions = list(state.contributions)
    if order.get("action") == CONTRIBUTE:
        side = order.get("side")
        if isinstance(side, int) and 0 <= side < len(contributions):
            contributions[side] = str(order.get("value", ""))
    secret = [n for n in state.secret if not (order.get("action") == "reveal" and order.get("sealed") == n)]
    if seq is not None and is_secret_roll(order):
        secret.append(seq)
    if "reveal" in proof:
        secret = []
    # a reveal hands over to a commitment nothing has been drawn from; else the entry's count, if it has one
    drawn = 0 if "reveal" in proof else proof.get("drawn") if type(proof.get("drawn")) is int else None
    return DiceState(commitment, tuple(contributions), tuple(secret), drawn)


def opened_of(proof: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The secret rolls an entry's proof opens with the turn's seed: {sealed, text, nonce} each."""
    opened = (proof or {}).get("opened")
    return [item for item in opened if isinstance(item, dict)] if isinstance(opened, list) else []


@dataclass
class _Drawn:
    seq: int
    game_id: int
    interaction_id: int | None
    contributions: tuple[str, ...]
    sides: tuple[int, ...]
    dice: tuple[int, ...]


@dataclass
class AuditProblem:
    seq: int
    reason: str


@dataclass
class DiceAudit:
    """Feed it every entry in seq order with the faces its replay drew (``sides``)."""

    committed: bool | None = None  # None before entry 1; False: a game started before committed dice
    state: DiceState | None = None
    pending: list[_Drawn] = field(default_factory=list)
    waiting: int = 0  # entries since the last reveal (drawing or not): their turn's seed is not out yet
    checked_dice: int = 0  # dice re-derived from a revealed seed
    checked_entries: int = 0  # entries whose dice were re-derived
    reveals: int = 0
    manual_entries: int = 0
    seeds: dict[str, bytes] = field(default_factory=dict)  # the seeds revealed so far, by commitment
    secret: dict[int, tuple[str, _Drawn]] = field(default_factory=dict)  # seal seq -> (commitment, its roll)
    # the dice drawn from the commitment in force so far, counted from the log (None: the check began
    # after entry 1 and no entry told it yet); each end of a turn's count, what it posted (issue 28)
    drawn: int | None = None
    sealed: list[TurnSeal] = field(default_factory=list)

    def check(self, seq: int, game_id: int, interaction_id: int | None, order: dict[str, Any],
              proof: dict[str, Any] | None, dice: Sequence[int], manual: bool,
              sides: Sequence[int], *, turn: int | None = None, entry_hash: str = "") -> AuditProblem | None:
        """``turn``: the game turn the entry was given in (as replayed); ``entry_hash``: its hash, which
        the end of a turn posts (bot/record/posted.py)."""
        if self.committed is None:
            self.committed = proof is not None
            if proof is None:
                return None
            self.state = state_of(proof)
            self.drawn = 0 if seq == 1 else None
        if not self.committed:
            if proof is not None:
                return AuditProblem(seq, f"entry #{seq} carries a dice proof, but the game was started without "
                                         "committed dice")
            return None
        assert self.state is not None
        if proof is None:
            return AuditProblem(seq, f"entry #{seq} has no dice proof: in a game with committed dice every entry "
                                     "names the commitment in force")
        if self.state.commitment is None and order.get("action") == "reopen_game":
            return self._reopened(seq, order, proof)
        if self.state.commitment is None:
            return AuditProblem(seq, f"entry #{seq} comes after the last dice seed was revealed")
        if proof.get("commitment") != self.state.commitment:
            return AuditProblem(seq, f"entry #{seq} names the dice commitment {str(proof.get('commitment'))[:12]}..., "
                                     f"but the one in force was {self.state.commitment[:12]}...")
        if tuple(proof.get("contributions") or ()) != self.state.contributions:
            return AuditProblem(seq, f"entry #{seq} names other dice contributions than those the log set")
        if tuple(proof.get("secret") or ()) != self.state.secret:
            return AuditProblem(seq, f"entry #{seq} names other secret rolls waiting for the turn's end than the "
                                     "log made")
        drawn = tuple(proof.get("sides") or ())
        if manual:
            self.manual_entries += 1 if dice else 0
            if drawn:
                return AuditProblem(seq, f"entry #{seq} is marked manual but names dice drawn from the seed")
        elif drawn != tuple(sides) or len(drawn) != len(dice):
            return AuditProblem(seq, f"entry #{seq}'s dice were not drawn from the committed seed: its proof names "
                                     f"{len(drawn)} dice of faces {list(drawn)}, its replay draws {list(sides)}")
        elif dice:
            self.pending.append(_Drawn(seq, game_id, interaction_id, self.state.contributions, drawn, tuple(dice)))
        problem = self._count(seq, order, proof, 0 if manual else len(drawn), turn)
        if problem is not None:
            return problem
        self.waiting += 1
        roll = order.get("roll") if order.get("action") == "seal" else None
        if isinstance(roll, dict):  # a secret roll: its dice are known once it is revealed
            self.secret[seq] = (self.state.commitment, _Drawn(seq, game_id, interaction_id, self.state.contributions,
                                                              tuple(roll.get("sides") or ()), ()))
        if order.get("action") == "reveal" and order.get("sealed") in self.secret:
            problem = self._secret_revealed(seq, order)
            if problem is not None:
                return problem
        if "reveal" in proof:
            problem = self._reveal(seq, proof)
            if problem is not None:
                return problem
            self.sealed.append(TurnSeal(turn if turn is not None else proof.get("turn"), seq, entry_hash, self.drawn,
                                        "turn" in proof))
            self.drawn = 0  # the next commitment: nothing drawn from it yet
            opened = opened_of(proof)
            if sorted(item.get("sealed") for item in opened) != sorted(self.state.secret):  # type: ignore[type-var]
                return AuditProblem(seq, f"entry #{seq} ends the game turn without opening the secret rolls "
                                         f"waiting ({', '.join(f'#{n}' for n in self.state.secret) or 'none'})")
            for item in opened:  # the secret rolls opened with the seed: their dice re-derived now
                if item.get("sealed") in self.secret:
                    problem = self._secret_revealed(seq, item)
                    if problem is not None:
                        return problem
        elif opened_of(proof):
            return AuditProblem(seq, f"entry #{seq} opens secret rolls without revealing its turn's seed")
        self.state = state_after(order, proof, seq)
        return None

    def _reopened(self, seq: int, order: dict[str, Any], proof: dict[str, Any]) -> AuditProblem | None:
        """A game reopened after its end (whose entry revealed the last seed): the reopening commits a
        new seed for the rest of the game, with the contributions in force, and draws nothing."""
        assert self.state is not None
        if not isinstance(proof.get("commitment"), str) or "reveal" in proof or proof.get("sides"):
            return AuditProblem(seq, f"entry #{seq} reopens the game without committing a new dice seed")
        if tuple(proof.get("contributions") or ()) != self.state.contributions:
            return AuditProblem(seq, f"entry #{seq} names other dice contributions than those the log set")
        self.drawn = 0
        if proof.get("drawn", 0) != 0:
            return AuditProblem(seq, f"entry #{seq} reopens the game with {proof.get('drawn')} dice counted as drawn "
                                     "from its new seed, which nothing has drawn from")
        self.state = state_after(order, proof, seq)
        return None

    def _count(self, seq: int, order: dict[str, Any], proof: dict[str, Any], own: int,
               turn: int | None) -> AuditProblem | None:
        """Count the entry's dice drawn from the seed (``own``, and a secret roll's) against what its proof
        records (``drawn``, logged since issue 28), and at the end of a turn its number (``turn``)."""
        own += secret_sides(order)
        recorded = proof.get("drawn")
        if self.drawn is None:  # a check begun after entry 1: the log's own count, once it tells one
            self.drawn = recorded if type(recorded) is int else None
        else:
            self.drawn += own
            if recorded is not None and recorded != self.drawn:
                return AuditProblem(seq, f"entry #{seq} counts {recorded} dice drawn from its turn's seed, but the log "
                                         f"holds {self.drawn}")
        if "reveal" in proof and "turn" in proof and turn is not None and proof["turn"] != turn:
            return AuditProblem(seq, f"entry #{seq} says it ends turn {proof['turn']}, but it was given in turn {turn}")
        return None

    def _secret_revealed(self, seq: int, order: dict[str, Any]) -> AuditProblem | None:
        from .sealing import rolled_dice

        commitment, drawn = self.secret.pop(order["sealed"])
        dice = rolled_dice(str(order.get("text", "")))
        if dice is None or len(dice) != len(drawn.sides):
            return AuditProblem(seq, f"entry #{seq} reveals secret roll #{drawn.seq} without its dice")
        drawn = _Drawn(drawn.seq, drawn.game_id, drawn.interaction_id, drawn.contributions, drawn.sides, tuple(dice))
        if commitment in self.seeds:  # its turn's seed is out already: check it now
            return self._derive(self.seeds[commitment], [drawn], seq)
        self.pending.append(drawn)
        return None

    def _derive(self, seed: bytes, drawn_list: list[_Drawn], seq: int) -> AuditProblem | None:
        for drawn in drawn_list:
            for index, (faces, value) in enumerate(zip(drawn.sides, drawn.dice)):
                derived = derive_die(seed, drawn.game_id, drawn.seq, drawn.interaction_id, drawn.contributions,
                                     index, faces)
                if derived != value:
                    return AuditProblem(drawn.seq, f"entry #{drawn.seq}'s die {index + 1} reads {value}, but the seed "
                                                   f"revealed at entry #{seq} gives {derived}: it is not the die "
                                                   "that was drawn")
            self.checked_dice += len(drawn.dice)
            self.checked_entries += 1
        return None

    def _reveal(self, seq: int, proof: dict[str, Any]) -> AuditProblem | None:
        assert self.state is not None and self.state.commitment is not None
        try:
            seed = bytes.fromhex(str(proof["reveal"]))
        except ValueError:
            return AuditProblem(seq, f"entry #{seq} reveals a dice seed that is not hexadecimal")
        if hashlib.sha256(seed).hexdigest() != self.state.commitment:
            return AuditProblem(seq, f"entry #{seq} reveals a dice seed that does not match its commitment "
                                     f"{self.state.commitment[:12]}...")
        problem = self._derive(seed, self.pending, seq)
        if problem is not None:
            return problem
        self.seeds[self.state.commitment] = seed
        self.pending.clear()
        self.waiting = 0
        self.reveals += 1
        return None

    def summary(self) -> str:
        """What the dice check found, for verify's report ("" for a game without committed dice)."""
        if not self.committed:
            return ""  # a game started before committed dice: its report reads as it always did
        parts = []
        if self.reveals:
            parts.append(f"{self.checked_dice} {'die' if self.checked_dice == 1 else 'dice'} of "
                         f"{self.checked_entries} {'entry' if self.checked_entries == 1 else 'entries'} re-derived "
                         f"from {self.reveals} revealed seed{'s' if self.reveals != 1 else ''}")
        if self.waiting:
            parts.append(f"{self.waiting} {'entry waits' if self.waiting == 1 else 'entries wait'} for this turn's "
                         f"seed to be revealed ({len(self.pending)} with dice drawn)")
        if self.manual_entries:
            parts.append(f"{self.manual_entries} with manual dice (thrown at the table, not derived)")
        return "; ".join(parts)
