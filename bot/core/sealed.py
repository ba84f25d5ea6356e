"""Orders sealed under the sequence of play (issue 12): given now, hidden, revealed and applied later.

A game whose ruleset seals some orders (``Ruleset.sealing``: Command Decision with the game option
sealed_orders, its orders placed in the Command & Morale Phase and revealed in the Movement Phase,
Side A first) takes each of them in two log entries:

* the seal: the order is checked now, privately, on a copy of the game (``check_sealable``: the
  phase, the side's part of the turn, its units), and only its sealing is kept (``note_sealed``:
  ``Game.sealed`` holds the seal's entry, side and turn, never the order);
* the reveal: the record (bot/record/sealing.py) opens its text against the commitment, and when
  the ruleset says it is the time (``Ruleset.check_reveal``) the text is applied as the order it is
  (``reveal_sealed``), outside the phase the order is given in openly.

Meanwhile the ruleset refuses the same order given openly. Both steps are pure: the replay of the
log (verify, undo, the exports) calls them exactly as the bot did.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from .api import _turn_check, check_phase, parse_order
from .copying import tree_copy
from .dice import Roller, ScriptedDice
from .errors import IllegalOrder, RulesError
from .game import Game, PendingSeal
from .orders import Sealing
from .outcome import Outcome, Resolution
from .rulesets import get_ruleset
from .trail import Trail


def sealed_text(order: dict[str, Any]) -> str:
    """The text sealed for an order: its canonical JSON (what the commitment covers)."""
    return json.dumps(order, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sealing_of(game: Game) -> Sealing | None:
    return get_ruleset(game.ruleset).sealing(game)


def check_sealable(game: Game, order: dict[str, Any] | BaseModel) -> BaseModel:
    """The order, checked as it is sealed: the game seals it, it is its phase and its side's part
    of the turn, and it would stand (tried on a copy, which is dropped). Raises a RulesError."""
    ruleset = get_ruleset(game.ruleset)
    parsed = parse_order(game.ruleset, order)
    sealing = ruleset.sealing(game)
    if not getattr(parsed, "sealable", False):
        raise IllegalOrder(f"a '{getattr(parsed, 'action', '?')}' order is not sealed: give it without sealed "
                           "(/seal keeps any other hidden text)")
    if sealing is None:
        raise IllegalOrder("this game gives its orders openly: give it without sealed (the game master turns "
                           "sealed orders on with /game options set:sealed_orders=yes)")
    check_phase(game, ruleset, parsed)
    _turn_check(game, ruleset, parsed, getattr(parsed, "action", None))
    ruleset.resolve_revealed(tree_copy(game), parsed, Roller(ScriptedDice([])), sealing=True)
    return parsed


def note_sealed(game: Game, seq: int, side: int) -> tuple[Game, list[tuple[str, str]]]:
    """The game after ``side`` sealed an order at entry ``seq``, and the trail notes (text, rule)
    saying when it will be revealed. Nothing of the order itself: it is not known here."""
    sealing = sealing_of(game)
    work = tree_copy(game)
    work.sealed.append(PendingSeal(seq=seq, side=side, turn=game.turn))
    if sealing is None:
        return work, [("Kept to be revealed later", "")]
    return work, [(f"{game.side_name(side)} will reveal it {sealing.when}; until then its stands keep the order "
                   f"they are under", sealing.rule)]


def pending(game: Game, seq: int) -> PendingSeal | None:
    return next((p for p in game.sealed if p.seq == seq), None)


def reveal_sealed(game: Game, seq: int, text: str) -> Resolution | None:
    """Apply the order sealed at entry ``seq`` as it is revealed (its text already checked against
    its commitment). None when the game holds no such pending order (a plain sealed text). Refuses
    (IllegalOrder) when it is not the time to reveal it; an order that cannot stand now (its stands
    gone) is revealed all the same, the trail saying why it does not apply."""
    held = pending(game, seq)
    if held is None:
        return None
    ruleset = get_ruleset(game.ruleset)
    ruleset.check_reveal(game, held)
    work = tree_copy(game)
    work.sealed = [p for p in work.sealed if p.seq != seq]
    trying = tree_copy(work)
    try:
        order = json.loads(text)
        if not isinstance(order, dict):
            raise IllegalOrder("the sealed text is not an order")
        parsed = parse_order(game.ruleset, order)
        if not getattr(parsed, "sealable", False):
            raise IllegalOrder(f"a '{order.get('action')}' order is not sealed")
        outcome = ruleset.resolve_revealed(trying, parsed, Roller(ScriptedDice([])), sealing=False)
        return Resolution(outcome=outcome, game=trying)
    except (RulesError, ValueError) as exc:
        trail = Trail()
        sealing = ruleset.sealing(game)
        trail.note(f"The order sealed at #{seq} cannot stand now ({exc}): its stands keep the order they are under",
                   rule=sealing.rule if sealing else None)
        return Resolution(outcome=Outcome(ruleset=game.ruleset, action="revealed",
                                          headline="the order does not apply", actor_side=held.side,
                                          trail=trail.freeze()), game=work)
