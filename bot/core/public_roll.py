"""A public roll: dice for what the referee does not rule on itself (a sniper's dr, a scenario's
special rule, a random event), rolled in the open with the game's dice, logged with its purpose
and shown to the channel, so a table never leaves the bot for a roll. Every ruleset's game has it.

The dice are the game's own: committed dice (docs/dice.md), or the players' manual dice like any
other order's; the log entry replays and verifies as every order does. What the roll does is the
players' to apply: the referee says so in the trail.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from .dice import Roller
from .errors import InvalidOrder
from .game import Game
from .orders import OrderBase, Refers
from .outcome import Outcome
from .trail import Trail

MAX_DICE = 12  # at most this many dice in one roll
FACES = (6, 10)  # the dice of the bot's games
SPEC = re.compile(r"^\s*(\d{1,2})?\s*d\s*(\d{1,3})\s*$", re.IGNORECASE)
RULE = "outside the rules the referee keeps"

Rolling = Annotated[int | None, Refers("side", acting=True, label="this roll")]


class PublicRoll(OrderBase):
    """Dice rolled in the open for a purpose the referee does not rule on; logged with its purpose."""

    rolls = True

    action: Literal["roll"] = "roll"
    side: Rolling = None  # the side rolling; None: the game master
    dice: str = Field(min_length=2, max_length=12)  # "2d6", "d6", "1d10", "3d6"
    purpose: str = Field(min_length=1, max_length=100)

    @classmethod
    def refusal_for(cls, game: Any, user_id: int, game_master: bool, order: dict[str, Any]) -> str | None:
        if order.get("side") is None and not game_master:
            return "a player rolls for their side: give the side you play (only the game master rolls for none)"
        return None


def parse(spec: str) -> tuple[int, int]:
    """(count, faces) of "2d6", "d6", "1d10" ...; refused, in players' words, outside the bot's dice."""
    match = SPEC.match(spec)
    if match is None:
        raise InvalidOrder(f"'{spec[:12]}' is not a roll: write it as 2d6, d6 or 1d10 (how many dice, d, their "
                           "faces)", field="dice")
    count, faces = int(match.group(1) or 1), int(match.group(2))
    if faces not in FACES:
        raise InvalidOrder(f"the bot rolls d6 and d10, the dice of its games, not d{faces}: roll those at the "
                           "table", field="dice")
    if not 1 <= count <= MAX_DICE:
        raise InvalidOrder(f"a roll is 1 to {MAX_DICE} dice, not {count}", field="dice")
    return count, faces


def resolve_public_roll(game: Game, order: PublicRoll, roller: Roller) -> Outcome:
    count, faces = parse(order.dice)
    if order.side is not None and not 0 <= order.side < len(game.sides):
        raise InvalidOrder(f"no side {order.side + 1} in this game", field="side")
    who = f"{game.side_name(order.side)} roll" if order.side is not None else "The game master rolls"
    roll = roller.several(order.purpose, count, faces)
    spelled = f"{roll.total}" if len(roll.dice) == 1 else f"{roll.total} ({' + '.join(map(str, roll.dice))})"
    trail = Trail()
    trail.put("dice", f"{roll.name} for {order.purpose}", roll.total)
    trail.note(f"A public roll: the referee does not apply it; the players do, as the rule it was rolled for "
               f"says ({RULE})")
    return Outcome(ruleset=game.ruleset, action="roll", headline=f"{who} {roll.name} for {order.purpose}: "
                   f"{spelled}", actor_side=order.side, trail=trail.freeze())
