"""Sealed orders (issue 12, docs/dice.md "Sealed orders"): hidden text committed now, opened later.

``/seal`` logs only the commitment, ``SHA-256(nonce || text)`` (a 16-byte random nonce, then the
text's UTF-8 bytes), and who sealed it; the text and the nonce are held by the store
(``held_secrets``) and sent privately to the sealer. ``/reveal`` logs the text and the nonce; the
replay checks them against the sealed entry's commitment, so a reveal cannot open anything but
what was sealed. An export made before the reveal holds the commitment only.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.core.trail import Trail

SEAL = "seal"
REVEAL = "reveal"
PEEK = "peek"  # a look at a sealed text before its reveal: logged for everyone, the text never
NONCE_BYTES = 16
SEALED_MAX = 1500  # characters of a sealed text


def seal_commitment(nonce: bytes, text: str) -> str:
    """The commitment of a sealed text: SHA-256 of the nonce's bytes followed by the text's UTF-8."""
    return hashlib.sha256(nonce + text.encode("utf-8")).hexdigest()


def _side(game: Game, side: Any) -> str:
    return game.side_name(side) if isinstance(side, int) and 0 <= side < len(game.sides) else "The game master"


def seal_outcome(game: Game, seq: int, order: dict[str, Any], notes: list[tuple[str, str]] = ()) -> Outcome:
    """The outcome of a seal; ``notes`` (text, rule): when an order sealed under the sequence of play
    is revealed (``bot.core.sealed.note_sealed``)."""
    side = order.get("side")
    roll = order.get("roll")
    trail = Trail()
    trail.note(f"Commitment: {order.get('commitment')} (SHA-256 of a secret nonce and the sealed text)")
    for text, rule in notes:
        trail.note(text, rule=rule or None)
    if isinstance(roll, dict):
        trail.note(f"A secret {roll.get('kind')} for {roll.get('purpose')}: its dice derive from this turn's committed "
                   "seed (docs/dice.md); only the roller saw them")
        headline = f"{_side(game, side)} rolled {roll.get('kind')} in secret for {roll.get('purpose')} (#{seq})"
    else:
        headline = f"{_side(game, side)} sealed an order (#{seq})"
    if isinstance(roll, dict) and roll.get("turn_end") is True:  # the end of its game turn opens it, revealed or not
        trail.note(f"Hidden until /reveal sealed:{seq} or the end of this game turn, whichever comes first: shown "
                   "then, and checked against this commitment")
    else:
        trail.note(f"Hidden until /reveal sealed:{seq}: shown then, and checked against this commitment")
    return Outcome(ruleset=game.ruleset, action=SEAL, headline=headline,
                   actor_side=side if isinstance(side, int) else None, trail=trail.freeze())


def roll_text(kind: str, purpose: str, dice: list[int]) -> str:
    """The sealed text of a secret roll: canonical JSON of its kind, purpose and dice."""
    return json.dumps({"dice": list(dice), "kind": kind, "purpose": purpose}, sort_keys=True, separators=(",", ":"))


def rolled(text: str) -> dict[str, Any] | None:
    """A secret roll's sealed text read back (``roll_text``'s kind, purpose and dice), or None when
    the text is not a roll's."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    dice = data.get("dice") if isinstance(data, dict) else None
    return data if isinstance(dice, list) and all(type(d) is int for d in dice) else None


def rolled_dice(text: str) -> list[int] | None:
    """The dice of a secret roll's sealed text (None when the text is not a roll's)."""
    roll = rolled(text)
    return None if roll is None else roll["dice"]


def roll_words(kind: Any, purpose: Any, dice: list[int]) -> str:
    """A secret roll as players read it: "dr for spotting: 3 = 3"."""
    return f"{kind} for {purpose}: {' + '.join(map(str, dice))} = {sum(dice)}"


def reveal_outcome(game: Game, order: dict[str, Any], applied: Outcome | None = None) -> Outcome:
    """The outcome of a reveal, from its order alone (the seal's side and roll are repeated in it,
    and checked against the seal by ``check_reveal``); ``applied``: the sealed order applied as it is
    revealed (``bot.core.sealed.reveal_sealed``), its trail and effects following."""
    sealed_by, roll = order.get("side"), order.get("roll")
    trail = Trail()
    dice = rolled_dice(str(order.get("text", ""))) if isinstance(roll, dict) else None
    if dice is not None:
        trail.note(f"Secret {roll_words(roll.get('kind'), roll.get('purpose'), dice)}")
    else:
        trail.note(f"Sealed text: {order.get('text')}")
    trail.note(f"Nonce {order.get('nonce')}: SHA-256 of the nonce and the text matches the commitment of "
               f"entry #{order.get('sealed')}")
    headline = f"Sealed order #{order.get('sealed')} revealed ({_side(game, sealed_by)})"
    if applied is not None:
        return Outcome(ruleset=game.ruleset, action=REVEAL, headline=f"{headline}: {applied.headline}",
                       actor_side=sealed_by if isinstance(sealed_by, int) else None,
                       trail=trail.freeze() + applied.trail, effects=applied.effects)
    return Outcome(ruleset=game.ruleset, action=REVEAL, headline=headline,
                   actor_side=sealed_by if isinstance(sealed_by, int) else None, trail=trail.freeze())


def peek_outcome(game: Game, order: dict[str, Any]) -> Outcome:
    """The outcome of a look at a sealed order or a secret roll before its reveal (``/peek``): the
    channel sees who looked at which, never the text (issue 28: no look goes unrecorded)."""
    sealed, sealed_by, looker = order.get("sealed"), order.get("side"), order.get("looker")
    if isinstance(looker, int) and looker == sealed_by:
        headline = f"{_side(game, looker)} looked at its own sealed #{sealed}"
    else:
        of = f" of {_side(game, sealed_by)}" if isinstance(sealed_by, int) else ""
        headline = f"The game master looked at sealed #{sealed}{of}"
    trail = Trail()
    trail.note(f"A private look at entry #{sealed} before its reveal: only the one who looked saw the text; the "
               "log keeps that they did")
    return Outcome(ruleset=game.ruleset, action=PEEK, headline=headline,
                   actor_side=looker if isinstance(looker, int) else None, trail=trail.freeze())


def check_peek(seq: int, order: dict[str, Any], seals: dict[int, dict[str, Any]]) -> str | None:
    """Why a look entry cannot stand (it looks at nothing sealed, or at a text already revealed)."""
    target = order.get("sealed")
    sealed = seals.get(target) if isinstance(target, int) else None
    if sealed is None:
        return f"entry #{seq} looks at entry #{target}, which sealed nothing"
    if sealed["opened"] is not None:
        return f"entry #{seq} looks at entry #{target}, revealed at entry #{sealed['opened']}"
    if order.get("side") != sealed["side"]:
        return f"entry #{seq} looks at entry #{target} under another side than it was sealed with"
    return None


def check_reveal(seq: int, order: dict[str, Any], seals: dict[int, dict[str, Any]]) -> str | None:
    """Why a reveal entry cannot stand (it opens nothing sealed, opens it twice, or does not match
    the commitment), else None."""
    target = order.get("sealed")
    sealed = seals.get(target) if isinstance(target, int) else None
    if sealed is None:
        return f"entry #{seq} reveals entry #{target}, which sealed nothing"
    if order.get("side") != sealed.get("side") or order.get("roll") != sealed.get("roll"):
        return f"entry #{seq} reveals entry #{target} under another side or roll than it was sealed with"
    if sealed.get("opened"):
        return f"entry #{seq} reveals entry #{target} again: it was revealed at entry #{sealed['opened']}"
    try:
        nonce = bytes.fromhex(str(order.get("nonce")))
    except ValueError:
        return f"entry #{seq} reveals entry #{target} with a nonce that is not hexadecimal"
    if seal_commitment(nonce, str(order.get("text", ""))) != sealed.get("commitment"):
        return (f"entry #{seq} reveals a text for entry #{target} that does not match its commitment: it is not "
                "what was sealed")
    return None
